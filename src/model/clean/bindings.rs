//! A secret bound to a name on a command line: an environment variable set for a command
//! (`PGPASSWORD=… psql`, `env AWS_SECRET_ACCESS_KEY=… aws`, `export DB_PASSWORD=…`, `set
//! PASSWORD=…`, `ENV PASSWORD=…`, PowerShell's `$env:API_TOKEN = "…"`), a property (`-Dpassword=…`,
//! `-Psigning.password=…`), and a `name=value` argument (`--set db.password=…`, `-var
//! db_password=…`, `-e ansible_become_pass=…`, `--from-literal=password=…`, `vault login
//! password=…`), also inside a comma list (`--set a=1,db.password=…`) or among the pairs of a
//! logfmt line (`level=info user=ada password=…`). Without `=`: a Dockerfile's `ENV PASSWORD …`
//! ([`dockerfile_env`]) and Windows' `setx PASSWORD …` ([`setx`]), each with its own rule.
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
//! letter and a command follows it (`token=test-token-123` alone is a fixture's line). Or it is
//! a pair of a logfmt line: a `key=value` or `key="…"` pair and blanks stand right before it
//! ([`pair_before`]), or blanks and a `key=` right after its value ([`pair_after`]), or it stands
//! in the quoted value of such a pair (`msg="password=… was rejected"`, [`in_quoted_value`]).
//! Throughout, a
//! line continued by a backslash counts as blanks ([`BLANKS`], [`blanks_before`]): `ENV A=1 \`
//! and a line break join the next line to this one.

use std::ops::Range;

use regex::{Captures, Match};

use super::LeakKind;
use super::assignment::{value_after, words_of};
use super::command_line::{given, takes_secret};
use super::rule::{Anchor, Rule};

/// The most bytes looked at before a binding for its command, and after its value for the next
/// word: a longer command line is judged not to be one, so every match costs bounded time.
const COMMAND_MAX: usize = 256;

/// Blanks in a pattern, where a line continued by a backslash counts as blanks: `\` and a line
/// break, raw or escaped in a string (`\\\n`), as a shell or a Dockerfile joins the two lines
/// (see [`continuation_len`]).
const BLANKS: &str = r"(?:[ \t]|\\\r?\n|\\\\(?:\\r)?\\n)+";

/// The line continuations [`BLANKS`] matches: a backslash and a line break, raw or escaped.
const CONTINUATIONS: &[&[u8]] = &[b"\\\n", b"\\\r\n", b"\\\\\\n", b"\\\\\\r\\n"];

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

/// The rules of this family.
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
        dockerfile_env(),
        setx(),
    ]
}

/// A Dockerfile's `ENV <name> <value>` (the form without `=`; the value is the rest of the line):
/// the instruction starts a line (after what is no letter: blanks, BuildKit's `  2 | >>> `), or
/// follows the escape `\n` of a string that holds a Dockerfile, or the legacy builder's
/// `Step 2/7 : `. The value may start on the next line, after a line continuation ([`BLANKS`]),
/// and ends at a line break or at the escape `\n` or `\r`.
fn dockerfile_env() -> Rule {
    Rule::new(
        LeakKind::CommandLine,
        "a secret set by a Dockerfile's ENV",
        format!(
            r"(?m)(?:^[^A-Za-z\n]*|\\n[ \t]*|Step [0-9]+/[0-9]+ : )(?P<keyword>(?i:env)){BLANKS}(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*){BLANKS}(?P<value>(?:[^\\\r\n]|\\[^nr\r\n])*)"
        ),
        &["env ", "env\t"],
    )
    .folded()
    .judged(|_, caps| {
        let name = caps.name("name")?.as_str();
        // `ENV` is the instruction as Dockerfiles write it; `env token expired` is more likely
        // prose, so another spelling binds an environment-style name only (`env PASSWORD …`).
        let written = caps.name("keyword")?.as_str() == "ENV" || !name.bytes().any(|b| b.is_ascii_lowercase());
        (written && names_secret(name)).then_some(())?;
        given_value(caps.name("value")?)
    })
}

/// Windows' `setx <name> <value>` with its options (`/M` anywhere before the name; `/S`, `/U`
/// and `/P` with their arguments): the value is one argument, quoted or not (`setx API_KEY "x
/// y"`); the password after `/P` is a leak whatever the name.
fn setx() -> Rule {
    Rule::new(
        LeakKind::CommandLine,
        "a secret set by setx",
        r#"(?:^|[^A-Za-z0-9])(?i:setx)(?:\.exe)?(?:[ \t]+/[Mm]|[ \t]+/[SsUu][ \t]+[^\s"]+|[ \t]+/[Pp][ \t]+(?P<password>[^\s"]+))*(?:[ \t]+(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)[ \t]+(?:"(?P<quoted>[^"\r\n]*)"?|(?P<bare>[^\s"]+)))?"#,
        &["setx"],
    )
    .anchored(Anchor::Word)
    .folded()
    .judged(|_, caps| {
        if let Some(password) = caps.name("password").filter(|p| given(p.as_str())) {
            return Some(password.range());
        }
        names_secret(caps.name("name")?.as_str()).then_some(())?;
        given_value(caps.name("quoted").or_else(|| caps.name("bare"))?)
    })
}

/// The range of a value written after blanks, trimmed of blanks and of one pair of quotes around
/// it, when it is given ([`given`]: not a reference or a placeholder).
fn given_value(value: Match<'_>) -> Option<Range<usize>> {
    let text = value.as_str();
    let trimmed = text.trim_end_matches([' ', '\t']);
    let unquoted =
        ['"', '\''].iter().find_map(|&q| trimmed.strip_prefix(q)?.strip_suffix(q)).unwrap_or(trimmed);
    let start = value.start() + usize::from(unquoted.len() != trimmed.len());
    given(unquoted).then_some(start..start + unquoted.len())
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
    (powershell
        || property
        || bound(bytes, found.start(), env_name, value.end, false)
        || in_quoted_value(bytes, found.start()))
    .then_some(value)
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
            binder(word_before(text, at))
                || argument(text, at, env_name, value_end)
                || pair_before(text, at)
                || pair_after(text, value_end)
        }
        _ => false,
    }
}

/// Whether a logfmt pair (`user=ada`, `msg="login failed"`) ends, then blanks ([`blanks_before`]),
/// right before the
/// binding at byte `at` (`level=info msg="login" user=ada password=…`): a line of pairs binds
/// each of them. The pair's key starts its line or follows a blank, at most [`COMMAND_MAX`] bytes
/// back.
fn pair_before(text: &[u8], at: usize) -> bool {
    let floor = at.saturating_sub(COMMAND_MAX);
    let end = blanks_before(text, at, floor);
    if end == at || end == floor {
        return false;
    }
    // The `=` before the value: before the opening quote of a quoted value (an escaped `\"` is
    // part of it), or the first of a bare word that holds no quote.
    let eq = if text[end - 1] == b'"' {
        let Some(open) = quote_before(text, end - 1, floor) else { return false };
        match open.checked_sub(1) {
            Some(eq) if eq > floor && text[eq] == b'=' => eq,
            _ => return false,
        }
    } else {
        let start =
            text[floor..end].iter().rposition(u8::is_ascii_whitespace).map_or(floor, |s| floor + s + 1);
        let word = &text[start..end];
        match word.iter().position(|&b| b == b'=') {
            Some(eq) if !word.iter().any(|&b| matches!(b, b'"' | b'\'')) => start + eq,
            _ => return false,
        }
    };
    key_before(text, eq, floor)
}

/// Whether the binding whose name starts at byte `at` stands inside the quoted value of a logfmt
/// pair, first in it or after a blank (`msg="password=… was rejected"`, `error="login failed:
/// token=…"`): a line of pairs binds what its messages quote as well. The opening quote is the
/// last one before the name on its line that no backslash escapes, right after a pair's `=`.
fn in_quoted_value(text: &[u8], at: usize) -> bool {
    let floor = at.saturating_sub(COMMAND_MAX);
    if at == 0 || !matches!(text[at - 1], b'"' | b' ' | b'\t') {
        return false;
    }
    quote_before(text, at, floor).is_some_and(|open| {
        open > floor + 1
            && text[open - 1] == b'='
            && !text[open..at].contains(&b'\n')
            && key_before(text, open - 1, floor)
    })
}

/// The last `"` before byte `end`, back to `floor`, that no backslash escapes.
fn quote_before(text: &[u8], end: usize, floor: usize) -> Option<usize> {
    let mut open = end;
    loop {
        open = floor + text[floor..open].iter().rposition(|&b| b == b'"')?;
        if open == floor || text[open - 1] != b'\\' {
            return Some(open);
        }
    }
}

/// Whether a logfmt pair's key ends at byte `eq` (its `=`), the key starting its line or after a
/// blank, back to `floor`.
fn key_before(text: &[u8], eq: usize, floor: usize) -> bool {
    let key = text[floor..eq].iter().rev().take_while(|&&b| logfmt_key_byte(b)).count();
    let start = eq - key;
    key > 0
        && !text[start].is_ascii_digit()
        && (start == 0 || (start > floor && text[start - 1].is_ascii_whitespace()))
}

/// Whether a logfmt pair's key and `=` follow, after blanks, the value that ends at byte `end`
/// (and its closing quote): `password=… user=ada` is a line of pairs too.
fn pair_after(text: &[u8], end: usize) -> bool {
    let rest = &text[end..text.len().min(end + COMMAND_MAX)];
    let rest = rest.strip_prefix(b"\"").or_else(|| rest.strip_prefix(b"'")).unwrap_or(rest);
    let blanks = blanks_after(rest);
    let key = rest[blanks..].iter().take_while(|&&b| logfmt_key_byte(b)).count();
    blanks > 0 && key > 0 && !rest[blanks].is_ascii_digit() && rest.get(blanks + key) == Some(&b'=')
}

/// Whether `b` may be part of a logfmt pair's key.
fn logfmt_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// Where the blanks that end right before byte `at` start, back to `floor` at most: a line
/// continuation ([`CONTINUATIONS`]) and the blanks around it count as blanks (`ENV A=1 \` and a
/// line break join the next line to this one).
fn blanks_before(text: &[u8], at: usize, floor: usize) -> usize {
    let mut start = at;
    loop {
        start -= text[floor..start].iter().rev().take_while(|&&b| b == b' ' || b == b'\t').count();
        match continuation_len(&text[floor..start]) {
            Some(len) => start -= len,
            None => return start,
        }
    }
}

/// How many bytes at the start of `rest` are blanks, a line continuation counting as blanks.
fn blanks_after(rest: &[u8]) -> usize {
    let mut at = 0;
    loop {
        at += rest[at..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        match CONTINUATIONS.iter().find(|c| rest[at..].starts_with(c)) {
            Some(c) => at += c.len(),
            None => return at,
        }
    }
}

/// The length of the line continuation that ends `text`, if one does.
fn continuation_len(text: &[u8]) -> Option<usize> {
    CONTINUATIONS.iter().find(|c| text.ends_with(c)).map(|c| c.len())
}

/// Whether `word` is one of the [`BINDERS`].
fn binder(word: &[u8]) -> bool {
    BINDERS.iter().any(|b| b.as_bytes().eq_ignore_ascii_case(word))
}

/// The word that ends at byte `end`, after blanks ([`blanks_before`]) and a quote: back to a blank
/// or a quote, at most
/// [`COMMAND_MAX`] bytes.
fn word_before(text: &[u8], end: usize) -> &[u8] {
    let floor = end.saturating_sub(COMMAND_MAX);
    let before = &text[floor..blanks_before(text, end, floor)];
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
        // A line continued by a backslash goes on to the line before.
        if start > 0 && text[start - 1] == b'\n' {
            start -= continuation_len(&text[floor..start]).unwrap_or(0);
        }
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
    let Some(blank) = rest.iter().position(|&b| b.is_ascii_whitespace() || b == b'\\') else { return false };
    let blanks = blanks_after(&rest[blank..]);
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

#[cfg(test)]
mod tests {
    use super::super::tests::{caught, kind};
    use super::super::{LeakKind, check_str};

    const BOUND: &str = "a secret bound to a name on a command line";
    const ENV: &str = "a secret set by a Dockerfile's ENV";

    #[test]
    fn a_secret_set_by_a_dockerfile_env_without_an_equals_sign_is_caught_with_its_whole_value() {
        let env = "a secret set by a Dockerfile's ENV";
        for (text, value) in [
            ("ENV PASSWORD hunter2", "hunter2"),
            ("ENV DB_PASSWORD \"s3cr3t value\"", "s3cr3t value"),
            ("env PASSWORD hunter2", "hunter2"),
            ("Env GITHUB_TOKEN hunter2", "hunter2"),
            ("ENV api_token hunter2", "hunter2"),
            ("  ENV\tPOSTGRES_PASSWORD   changeme  ", "changeme"),
            ("ENV SECRET_KEY 'k3y value' ", "k3y value"),
            ("FROM alpine\r\nENV NPM_TOKEN hunter2\r\nRUN npm ci", "hunter2"),
            ("Step 3/7 : ENV DB_PASSWORD hunter2", "hunter2"),
            ("   2 | >>> ENV REGISTRY_TOKEN hunter2", "hunter2"),
            ("left: \"FROM alpine\\nENV PATH /usr/bin\\nENV DB_PASSWORD hunter2\\nRUN make\"", "hunter2"),
        ] {
            assert_eq!(caught(text), Some((env, value)), "{text:?}");
        }
    }

    #[test]
    fn a_secret_set_by_a_dockerfile_env_continued_over_lines_is_caught() {
        for (text, what, value) in [
            ("ENV APP=1 \\\n    DB_PASSWORD=hunter2", BOUND, "hunter2"),
            ("ENV APP=1\\\r\n  DB_PASSWORD=hunter2 \\\n  LOG=info", BOUND, "hunter2"),
            ("ENV A=1 \\\n    B=2 \\\n    API_TOKEN=abc", BOUND, "abc"),
            ("ENV \\\n    DB_PASSWORD=hunter2", BOUND, "hunter2"),
            ("left: \"FROM alpine\\nENV APP=1 \\\\\\n    DB_PASSWORD=hunter2\\n\"", BOUND, "hunter2"),
            ("ENV DB_PASSWORD \\\n    hunter2", ENV, "hunter2"),
            ("ENV DB_PASSWORD \\\r\n\thunter2\r\nRUN make", ENV, "hunter2"),
            ("\"FROM alpine\\nENV DB_PASSWORD \\\\\\n    hunter2\\nRUN make\"", ENV, "hunter2"),
            ("./deploy.sh \\\n  --verbose \\\n  REGISTRY_TOKEN=abc", BOUND, "abc"),
            ("PGPASSWORD=hunter2 \\\n  psql -h db", BOUND, "hunter2"),
        ] {
            assert_eq!(caught(text), Some((what, value)), "{text:?}");
        }
    }

    #[test]
    fn a_continued_line_with_a_reference_or_no_binding_stays_clean() {
        for text in [
            "ENV APP=1 \\\n    DB_PASSWORD=$DB_PASSWORD",
            "ENV DB_PASSWORD \\\n    ${DB_PASSWORD}",
            "ENV DB_PASSWORD \\\n",
            "ENV PATH \\\n    /usr/bin",
            "E   AssertionError \\\n  password=hunter2",
            "PGPASSWORD=hunter2 \\\n",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_reference_a_placeholder_an_other_name_or_prose_after_env_stays_clean() {
        for text in [
            "ENV PATH /usr/bin",
            "ENV NODE_ENV production",
            "ENV PASSWORD $PASSWORD",
            "ENV PASSWORD ${DB_PASSWORD}",
            "ENV PASSWORD %DB_PASSWORD%",
            "ENV PASSWORD \"\"",
            "ENV PASSWORD ",
            "ENV PASSWORD",
            "ENV PASSWORD_FILE /run/secrets/db",
            "set the password in the ENV file",
            "error: env PASSWORD not set",
            "env token expired, logging in again",
            "python -m venv token hunter2",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_secret_set_by_setx_is_caught_with_its_whole_value_and_a_reference_is_not() {
        let setx = "a secret set by setx";
        for (text, value) in [
            ("setx API_TOKEN abc123def456", "abc123def456"),
            ("setx /M DB_PASSWORD hunter2", "hunter2"),
            ("setx API_KEY \"x y\"", "x y"),
            ("SETX DB_PASSWORD hunter2 /M", "hunter2"),
            ("> setx.exe GITHUB_TOKEN hunter2", "hunter2"),
            ("cmd /c \"setx VAULT_TOKEN hunter2\"", "hunter2"),
            ("setx /s build01 /u ada /p hunter2 BUILD_ID 7", "hunter2"),
        ] {
            assert_eq!(caught(text), Some((setx, value)), "{text:?}");
        }
        for text in [
            "setx PASSWORD %PASSWORD%",
            "setx API_TOKEN \"\"",
            "setx TOKEN $TOKEN",
            "setx PATH \"%PATH%;tools\"",
            "setx DB_PASSWORD /k HKLM\\Software\\App\\Password",
            "setx /s build01 /u ada /p",
            "use setx to set the password",
            "setx",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_secret_among_the_key_value_pairs_of_a_logfmt_line_is_caught_wherever_it_stands() {
        for (text, value) in [
            ("level=info msg=\"login\" user=ada password=hunter2 token=abc", "hunter2"),
            ("level=info msg=\"login\" user=ada token=abc", "abc"),
            ("time=2026-12-05T10:00:00Z level=INFO msg=\"login failed for ada\" api_key=abc123", "abc123"),
            ("password=hunter2 user=ada level=warn", "hunter2"),
            ("ts=1 caller=auth.go:42 client_secret=\"s3cr3t\" status=401", "s3cr3t"),
            ("    auth_test.go:17: level=debug db_password=hunter2", "hunter2"),
            ("msg=\"say \\\"hi\\\"\" password=hunter2", "hunter2"),
            ("ENV APP_ENV=prod DB_PASSWORD=hunter2", "hunter2"),
        ] {
            assert_eq!(caught(text), Some(("a secret bound to a name on a command line", value)), "{text:?}");
        }
    }

    #[test]
    fn a_secret_bound_inside_the_quoted_value_of_a_logfmt_pair_is_caught() {
        for (text, value) in [
            ("msg=\"password=hunter2 was rejected\"", "hunter2"),
            ("error=\"login failed: token=abc123def\"", "abc123def"),
            ("level=warn msg=\"retrying with api_key=abc123\" attempt=2", "abc123"),
            ("ts=1 msg=\"say \\\"hi\\\" db_password=hunter2\"", "hunter2"),
            ("  detail=\"DB_PASSWORD=hunter2\"", "hunter2"),
        ] {
            assert_eq!(caught(text), Some((BOUND, value)), "{text:?}");
        }
    }

    #[test]
    fn prose_or_a_reference_in_a_quoted_logfmt_value_and_a_quoted_call_argument_stay_clean() {
        for text in [
            "msg=\"the password= field is empty\"",
            "msg=\"password=$DB_PASSWORD was rejected\"",
            "msg=\"token=null\"",
            "login(msg=\"password=hunter2\")",
            "assert_eq!(body, \"password=hunter2\")",
            "msg=\"done\"\npassword=hunter2 was rejected",
            "msg=\"a\" then password=hunter2",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_logfmt_line_whose_secret_names_hold_references_or_counts_stays_clean() {
        for text in [
            "token=test-token-123",
            "level=info msg=\"login\" user=ada password=$PASSWORD",
            "level=info msg=\"login\" password= user=ada",
            "level=info password=%DB_PASSWORD% user=ada",
            "level=info secret=*** user=ada",
            "level=info input_tokens=12 output_tokens=30 max_tokens=4096",
            "level=info page_token=abc next_token=def",
            "level=info msg=ok token_count=3 cache_key=abc",
            "E       AssertionError: expected password=hunter2",
            "    client.login(user=\"ada\", password=\"hunter2\")",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn a_secret_name_bound_to_a_literal_for_no_value_or_a_flag_stays_clean() {
        for text in [
            "level=info token=None user=ada",
            "level=info password=false user=ada",
            "level=info msg=\"login\" user=ada password=null",
            "export PASSWORD=nil",
            "export API_TOKEN=undefined",
            "ENV DB_PASSWORD true",
            "mysql -u root --password=null",
        ] {
            assert_eq!(check_str(text), Ok(()), "{text:?}");
        }
        assert_eq!(kind("level=info password=nullable123 user=ada"), Some(LeakKind::CommandLine));
    }

    /// Caught is the safe side: a value well known as a default is still a value given.
    #[test]
    fn a_default_password_given_to_a_container_stays_caught() {
        assert_eq!(kind("docker run -e POSTGRES_PASSWORD=postgres postgres:16"), Some(LeakKind::CommandLine));
    }
}
