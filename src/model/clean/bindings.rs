//! A secret bound to a name on a command line: an environment variable set for a command
//! (`PGPASSWORD=… psql`, `env AWS_SECRET_ACCESS_KEY=… aws`, `export DB_PASSWORD=…`, `set
//! PASSWORD=…`, `ENV PASSWORD=…`, PowerShell's `$env:API_TOKEN = "…"`), a property (`-Dpassword=…`,
//! `-Psigning.password=…`), and a `name=value` argument (`--set db.password=…`, `-var
//! db_password=…`, `-e ansible_become_pass=…`, `--from-literal=password=…`, `vault login
//! password=…`), also inside a comma list (`--set a=1,db.password=…`).
//!
//! As for an option's argument ([`super::command_line`]), any value but a reference or a
//! placeholder is a leak, however short or plain ([`given`]: `$VAR`, `$(cat f)`, `<password>`,
//! `***`, `file:path`, `@path`, `/path`); the name must say secret by its last word
//! ([`names_secret`]: `PASSWORD_FILE` and `password.file` name a file).
//!
//! A name bound by `-D`, `-P` or `$env:` is on a command line by its form. Otherwise the binding
//! must follow a binder (`--set`, `-var`, `-e`, `--env`, `--build-arg`, `--from-literal=`,
//! `export`, `env`, `set`, `ENV`, `ARG`) or be an argument of a command: the text before it on its
//! line, back to a `;`, `|`, `&`, `(` or backquote, starts with a program's name (`vault`,
//! `./deploy`) or an environment assignment, and holds no `,`, `)` or bracket (so a call's
//! keyword argument, `login(user, password="…")`, is judged by randomness as an assignment). A
//! binding that starts the command is an environment assignment: its name holds no lower-case
//! letter and a command follows it (`token=test-token-123` alone is a fixture's line).

use std::ops::Range;

use regex::Captures;

use super::LeakKind;
use super::assignment::{value_after, words_of};
use super::command_line::{given, takes_secret};
use super::rule::{Anchor, Rule};

/// The most bytes looked at before a binding for its command, and after its value for the next
/// word: a longer command line is judged not to be one, so every match costs bounded time.
const COMMAND_MAX: usize = 256;

/// The options and keywords after which a `name=value` word is a binding (compared ignoring ASCII
/// case: `set` is also Windows' `SET`, `env` a Dockerfile's `ENV`). Those that start with `-` also
/// bind glued (`--set=name=value`).
const BINDERS: &[&str] = &[
    "--set",
    "--set-string",
    "-var",
    "--var",
    "-e",
    "--extra-vars",
    "--env",
    "--build-arg",
    "--from-literal",
    "export",
    "env",
    "set",
    "ARG",
];

/// The endings of every name that [`names_secret`] accepts (ignoring ASCII case): a test that
/// costs no allocation, made first.
const ENDINGS: &[&str] = &[
    "pass",
    "passwd",
    "password",
    "passphrase",
    "passin",
    "passout",
    "pwd",
    "token",
    "bearer",
    "secret",
    "key",
];

/// The rule of this family.
pub(super) fn rules() -> Vec<Rule> {
    // Only the name and `=` are matched, so that a value never hides the next binding
    // (`--from-literal=password=…`); the value is read after them ([`value_after`]).
    vec![
        Rule::new(
            LeakKind::CommandLine,
            "a secret bound to a name on a command line",
            r"(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*=",
            &["pass", "pwd", "token", "secret", "api", "bearer"],
        )
        .anchored(Anchor::AssignedName)
        .folded()
        .judged(bound_secret),
    ]
}

/// The judge: the name says secret, a value is given, and the binding is on a command line.
fn bound_secret(text: &str, caps: &Captures<'_>) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let found = caps.name("name")?;
    if !ends_like_secret(found.as_str()) {
        return None;
    }
    let end = caps.get(0)?.end();
    // Blanks around `=` in PowerShell only; `the password= field` binds nothing.
    let powershell =
        found.start() >= 5 && bytes[found.start() - 5..found.start()].eq_ignore_ascii_case(b"$env:");
    if !powershell && (end - found.end() > 1 || bytes.get(end).is_none_or(u8::is_ascii_whitespace)) {
        return None;
    }
    let value = value_after(text, end);
    if value.is_empty() || !given(&text[value.clone()]) {
        return None;
    }
    let property = property(bytes, found.start());
    let name = if property { &found.as_str()[1..] } else { found.as_str() };
    if !names_secret(name) {
        return None;
    }
    let env_name = !name.bytes().any(|b| b.is_ascii_lowercase());
    (powershell || property || bound(bytes, found.start(), env_name, value.end, false)).then_some(value)
}

/// Whether `name` ends in one of the [`ENDINGS`], ignoring what is no letter or digit after it.
fn ends_like_secret(name: &str) -> bool {
    let name = name.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()).as_bytes();
    ENDINGS
        .iter()
        .any(|e| name.len() >= e.len() && name[name.len() - e.len()..].eq_ignore_ascii_case(e.as_bytes()))
}

/// Whether the name the regex found at byte `at` is a property's (`-Dname=`, `-Pname=`): the
/// regex takes the `D` or `P` into the name.
fn property(text: &[u8], at: usize) -> bool {
    let option_start = at.checked_sub(1).filter(|&i| text[i] == b'-');
    option_start.is_some_and(|i| {
        matches!(text[at], b'D' | b'P')
            && i.checked_sub(1)
                .is_none_or(|j| !(text[j].is_ascii_alphanumeric() || matches!(text[j], b'_' | b'-')))
    })
}

/// Whether a name bound to a value says it is secret: its last word does (as an option's name,
/// [`takes_secret`]), or ends in `password`, `passwd` or `passphrase` (`PGPASSWORD`), or is `pwd`
/// after another word (`MYSQL_PWD`; `PWD` and `OLDPWD` are directories), or is `secret` alone.
fn names_secret(name: &str) -> bool {
    let words = words_of(name);
    let Some((last, before)) = words.split_last() else { return false };
    takes_secret(&words)
        || ["password", "passwd", "passphrase"].iter().any(|w| last.ends_with(w))
        || (last == "pwd" && !before.is_empty())
        || (last == "secret" && before.is_empty())
}

/// Whether the binding whose name starts at byte `at` (after an opening quote, if any) is on a
/// command line (see the module's documentation). `in_list`: `at` starts a comma list the name is
/// in, whose own start is judged.
fn bound(text: &[u8], at: usize, env_name: bool, value_end: usize, in_list: bool) -> bool {
    let at = at - usize::from(at > 0 && matches!(text[at - 1], b'"' | b'\''));
    match at.checked_sub(1).map(|i| text[i]) {
        Some(b'=') => binder(word_before(text, at - 1)),
        Some(b',') if !in_list => list_start(text, at - 1).is_some_and(|start| {
            let word = &text[start..at];
            match word.iter().position(|&b| b == b'=') {
                // `--set=a=1,name=…`.
                Some(eq) if word.starts_with(b"-") => binder(&word[..eq]),
                _ => bound(text, start, env_name, value_end, true),
            }
        }),
        None | Some(b' ' | b'\t' | b'\r' | b'\n' | b';' | b'|' | b'&' | b'(' | b'`') => {
            binder(word_before(text, at)) || argument(text, at, env_name, value_end)
        }
        _ => false,
    }
}

/// Whether `word` is one of the [`BINDERS`].
fn binder(word: &[u8]) -> bool {
    BINDERS.iter().any(|b| b.as_bytes().eq_ignore_ascii_case(word))
}

/// The word that ends at byte `end`, after blanks and a quote: back to a blank or a quote, at most
/// [`COMMAND_MAX`] bytes.
fn word_before(text: &[u8], end: usize) -> &[u8] {
    let before = &text[end.saturating_sub(COMMAND_MAX)..end];
    let before = before.trim_ascii_end();
    let before = before.strip_suffix(b"\"").or_else(|| before.strip_suffix(b"'")).unwrap_or(before);
    let start = before.iter().rposition(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\''));
    &before[start.map_or(0, |s| s + 1)..]
}

/// The start of the comma list whose comma is at byte `comma`: back to a blank, a quote or the
/// start, at most [`COMMAND_MAX`] bytes; `None` for a call's arguments (a bracket on the way).
fn list_start(text: &[u8], comma: usize) -> Option<usize> {
    let floor = comma.saturating_sub(COMMAND_MAX);
    let mut start = comma;
    while start > floor {
        match text[start - 1] {
            b'(' | b')' | b'[' | b']' => return None,
            b if b.is_ascii_whitespace() || matches!(b, b'"' | b'\'') => return Some(start),
            _ => start -= 1,
        }
    }
    (start == 0).then_some(0)
}

/// Whether a binding at byte `at`, after a blank or a command separator, is an argument of a
/// command or an environment assignment that starts one.
fn argument(text: &[u8], at: usize, env_name: bool, value_end: usize) -> bool {
    let floor = at.saturating_sub(COMMAND_MAX);
    let mut start = at;
    while start > floor && !matches!(text[start - 1], b'\n' | b';' | b'|' | b'&' | b'(' | b'`') {
        if matches!(text[start - 1], b',' | b')' | b'[' | b']') {
            return false;
        }
        start -= 1;
    }
    if start > 0 && start == floor {
        return false;
    }
    let mut words = text[start..at].split(u8::is_ascii_whitespace).filter(|w| !w.is_empty());
    let mut first = words.next();
    // A prompt (`$ `, `+ `, `> `, `# `, `% `).
    if first.is_some_and(|w| w.iter().all(|b| b"$+>#%".contains(b))) {
        first = words.next();
    }
    match first {
        None => env_name && command_follows(text, value_end),
        Some(word) => program(word) || environment(word),
    }
}

/// Whether a command follows the value that ends at byte `end`: the rest of its word, blanks, and
/// a word.
fn command_follows(text: &[u8], end: usize) -> bool {
    let rest = &text[end..text.len().min(end + COMMAND_MAX)];
    let Some(blank) = rest.iter().position(u8::is_ascii_whitespace) else { return false };
    let blanks = rest[blank..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    blanks > 0
        && rest
            .get(blank + blanks)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'/' | b'~' | b'_'))
}

/// Whether `word` is a program's name: a lower-case letter, `.`, `/` or `~` first, then letters,
/// digits, `.`, `_`, `/`, `~`, `+` or `-`.
fn program(word: &[u8]) -> bool {
    word.first().is_some_and(|&b| b.is_ascii_lowercase() || matches!(b, b'.' | b'/' | b'~'))
        && word.iter().all(|&b| b.is_ascii_alphanumeric() || b"._/~+-".contains(&b))
}

/// Whether `word` is an environment assignment (`LANG=C`): an upper-case name, `=`.
fn environment(word: &[u8]) -> bool {
    word.iter().position(|&b| b == b'=').is_some_and(|eq| {
        eq > 0 && word[..eq].iter().all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    })
}
