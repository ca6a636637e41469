//! Repository text quoted in a message: a file checked into a branch can hold anything, and a
//! message goes to a terminal and a CI log, so what it quotes has its control characters escaped
//! (no escape sequence reaches the terminal) and is cut short (no line of megabytes is echoed).

use std::borrow::Cow;

/// How many characters of a line a message quotes.
pub const SHOWN_MAX: usize = 200;

/// The first `max` characters of `s` with control characters, line separators and
/// [hidden](hidden_after) ones escaped, and `…` when cut, for use in messages.
pub fn shown(s: &str, max: usize) -> String {
    let mut out = String::new();
    push_escaped(&mut out, s.chars().take(max), breaks_its_line);
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// Text of a file or of the repository as a message quotes it: escaped and cut as [`shown`] does
/// at [`SHOWN_MAX`], whatever it was. An error that holds one cannot echo a line of megabytes or
/// an escape sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quoted(String);

impl From<&str> for Quoted {
    fn from(text: &str) -> Self {
        Quoted(shown(text, SHOWN_MAX))
    }
}

impl From<String> for Quoted {
    fn from(text: String) -> Self {
        Quoted::from(text.as_str())
    }
}

impl std::fmt::Display for Quoted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `text` as it may reach a terminal: control and [hidden](hidden_after) characters escaped
/// as [`shown`] escapes them, except the newlines and tabs that lay text out. Every
/// human-readable output passes through it, so that no escape sequence, bell or carriage return
/// in quoted repository or file text (an option, a task, a field name) is acted on by the
/// terminal or a CI log viewer, and none of it reads in another order than it is written.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| c.is_control() && c != '\n' && c != '\t')
}

/// A path as [`one_line`] quotes it: for a message naming a file or a directory a user, a
/// variable or git's configuration gave, whose name can hold anything a file name can.
#[must_use]
pub fn one_line_path(path: &std::path::Path) -> String {
    one_line(&path.display().to_string()).into_owned()
}

/// `text` kept on one line, whole: every control character escaped as [`shown`] escapes it,
/// newlines and tabs included, and the Unicode line and paragraph separators, which some log
/// viewers break lines at. For a text from a repository, a note or a remote that a message quotes
/// in the middle of a line of its own (a finding's message, a predicate type): it can start no
/// line of its own. Hidden characters are escaped as [`hidden_after`] tells them.
pub fn one_line(text: &str) -> Cow<'_, str> {
    escape_where(text, breaks_its_line)
}

/// Whether `c`, in quoted text, could break the line it is quoted on or hide what it says: a
/// control character (newlines and tabs included), the Unicode line and paragraph separators, or
/// a [hidden](is_hidden_format) one, wherever it stands (for text escaped a character at a time,
/// where an escape means the same character).
#[must_use]
pub fn leaves_its_line(c: char) -> bool {
    breaks_its_line(c) || is_hidden_format(c)
}

/// Whether `c` could break the line it is quoted on: a control character (newlines and tabs
/// included), or a Unicode line or paragraph separator.
fn breaks_its_line(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// `text` with only its [hidden](hidden_after) characters escaped, for text whose line breaks
/// and control characters are already dealt with (a commit message's values, made one line each).
pub fn hidden_escaped(text: &str) -> Cow<'_, str> {
    escape_where(text, |_| false)
}

/// Repository text in a `--json` report, serialised as [`one_line`] quotes it, before JSON
/// escapes what is left: an ESC arrives as the six characters `\u{1b}`, a newline as `\n`, so a
/// value a CI step prints is inert text on one line. For a `str`, a `String`, and an `Option` or
/// list of them ([`InLine`]); a field takes it as `#[serde(serialize_with = "in_line")]`.
pub struct OneLine<'a, T: ?Sized>(pub &'a T);

/// Text that [`OneLine`] serialises quoted: a string, or an `Option` or list of such.
pub trait InLine {
    /// Serialises `self` with each string quoted as [`one_line`] quotes it.
    ///
    /// # Errors
    /// The serializer's.
    fn serialize_in_line<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

impl InLine for str {
    fn serialize_in_line<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&one_line(self))
    }
}

impl InLine for String {
    fn serialize_in_line<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_str().serialize_in_line(serializer)
    }
}

impl<T: InLine> InLine for Option<T> {
    fn serialize_in_line<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Some(text) => serializer.serialize_some(&OneLine(text)),
            None => serializer.serialize_none(),
        }
    }
}

impl<T: InLine> InLine for [T] {
    fn serialize_in_line<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter().map(OneLine))
    }
}

impl<T: InLine> InLine for Vec<T> {
    fn serialize_in_line<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize_in_line(serializer)
    }
}

impl<T: InLine + ?Sized> serde::Serialize for OneLine<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_in_line(serializer)
    }
}

/// A field of repository text serialised as [`OneLine`] does: `#[serde(serialize_with =
/// "in_line")]`.
///
/// # Errors
/// The serializer's.
pub fn in_line<T: InLine + ?Sized, S: serde::Serializer>(text: &T, serializer: S) -> Result<S::Ok, S::Error> {
    text.serialize_in_line(serializer)
}

/// A path of this machine that a `--json` report would name (a directory or a file the command
/// wrote or read: `attest export`'s DIR, the hook of `hooks install`, the schemas, the Sigstore
/// cache, the held-out store) and cannot: it is not UTF-8, and a JSON string holds UTF-8 only, so
/// no string names it exactly (U+FFFD in place of a byte names another file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} is not UTF-8, and `--json` names each path exactly, as a JSON string, which holds UTF-8 only: nothing was done; name a path that is UTF-8, or run without `--json` (the text report names it, escaped)",
    bytes_shown(.0.as_os_str().as_encoded_bytes())
)]
pub struct NotUtf8Path(pub std::path::PathBuf);

/// `path` as a `--json` report names it: exactly, its text when it is UTF-8. A command asked for
/// `--json` takes each path its report will name through this before it does anything, and
/// refuses one that is not ([`NotUtf8Path`]).
///
/// # Errors
/// [`NotUtf8Path`]: the path is not UTF-8.
pub fn json_path(path: &std::path::Path) -> Result<&str, NotUtf8Path> {
    path.to_str().ok_or_else(|| NotUtf8Path(path.to_owned()))
}

/// A field that is a path of this machine in a `--json` report, serialised exactly
/// ([`json_path`]; JSON escapes its control characters: a newline as `\n`, an ESC as `\u001b`), so
/// that a script that reads it finds the file: never quoted as repository text is ([`in_line`]),
/// whose escapes would name another file. `#[serde(serialize_with = "exact_path")]`.
///
/// # Errors
/// The serializer's, or [`NotUtf8Path`], which the command refused before it did anything.
pub fn exact_path<P: AsRef<std::path::Path>, S: serde::Serializer>(
    path: &P,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let text = json_path(path.as_ref()).map_err(serde::ser::Error::custom)?;
    serializer.serialize_str(text)
}

/// A list of paths of this machine, each serialised as [`exact_path`] serialises one.
///
/// # Errors
/// As [`exact_path`].
pub fn exact_paths<P: AsRef<std::path::Path>, S: serde::Serializer>(
    paths: &[P],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let texts = paths.iter().map(|p| json_path(p.as_ref())).collect::<Result<Vec<_>, _>>();
    serializer.collect_seq(texts.map_err(serde::ser::Error::custom)?)
}

/// Whether `c` changes how the text around it reads without being seen: one of Unicode's
/// bidirectional controls ([`is_bidi_control`]), or any other character that renders as nothing
/// ([`is_default_ignorable`]: the zero-width space and joiners, the word joiner and the invisible
/// operators, the byte-order mark, the soft hyphen, the combining grapheme joiner, the variation
/// selectors, the Hangul fillers, the tag characters that can smuggle a text unseen). Where a
/// script or an emoji is written with a joiner or a selector, [`hidden_after`] keeps it.
#[must_use]
pub fn is_hidden_format(c: char) -> bool {
    is_bidi_control(c) || is_default_ignorable(c)
}

/// Whether `c` is one of Unicode's Default_Ignorable_Code_Point characters (Unicode 15.1,
/// `DerivedCoreProperties.txt`), which a renderer shows as nothing. A table, because no crate the
/// build has gives the property.
#[must_use]
pub fn is_default_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Whether `c`, written after `before` (the last character that is no joiner or selector), hides
/// something: [`is_hidden_format`], but for a joiner or a selector (U+200C, U+200D, a variation
/// selector) after a visible character beyond ASCII, as scripts (`می‌خواهم`) and emoji (`✅️`,
/// `👨‍👩`) are written. Between ASCII characters, where a token would be broken up, it is hidden.
#[must_use]
pub fn hidden_after(before: Option<char>, c: char) -> bool {
    is_hidden_format(c) && !(is_joiner_or_selector(c) && before.is_some_and(is_written_with_joiners))
}

/// The zero-width joiners and the variation selectors (Mongolian, standard, ideographic).
fn is_joiner_or_selector(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}' | '\u{180B}'..='\u{180D}' | '\u{180F}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// A visible character beyond ASCII: a letter or a symbol that a joiner or a selector may follow.
fn is_written_with_joiners(c: char) -> bool {
    !c.is_ascii() && !c.is_control() && !c.is_whitespace() && !is_hidden_format(c)
}

/// Whether `c` is one of Unicode's bidirectional formatting characters, which can make a text
/// read in another order than it is written.
#[must_use]
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every character `control` picks, and every [hidden](hidden_after) one, written as
/// its escape; borrowed when there is none.
fn escape_where(text: &str, control: impl Fn(char) -> bool + Copy) -> Cow<'_, str> {
    if !marked(text.chars(), control).any(|(_, escaped)| escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    push_escaped(&mut out, text.chars(), control);
    Cow::Owned(out)
}

/// Each character of `text` with whether it is [hidden](hidden_after) where it stands, for a
/// quoting of its own that escapes them as this module does.
pub fn hidden_marked(text: &str) -> impl Iterator<Item = (char, bool)> + '_ {
    marked(text.chars(), |_| false)
}

/// Each of `chars` with whether it is escaped: `control` picks it, or it is
/// [hidden](hidden_after) where it stands.
fn marked(
    chars: impl Iterator<Item = char>,
    control: impl Fn(char) -> bool,
) -> impl Iterator<Item = (char, bool)> {
    chars.scan(None, move |before, c| {
        let escaped = control(c) || hidden_after(*before, c);
        if !is_joiner_or_selector(c) {
            *before = Some(c);
        }
        Some((c, escaped))
    })
}

/// `text` as it may reach a terminal or a CI log: [`terminal_safe`], and no line of it read as a
/// CI workflow command. Such a line (`::name::…`, `##[name]…` after any blanks: GitHub Actions
/// and Azure Pipelines act on them) is never one of ours, so it can only be quoted text that
/// escaped [`one_line`]; its first character is escaped (`\u{3a}`, `\u{23}`), so that the runner
/// shows it and does nothing. GitHub's runner also finds a legacy `##[name]` anywhere in a line,
/// and Azure's agent a `##vso[`: their first `#` is escaped wherever they are. The one output that
/// writes workflow commands on purpose (`attest verify --github`) writes with [`workflow_safe`].
pub fn ci_safe(text: &str) -> Cow<'_, str> {
    commands_escaped(text, &["::", "##"])
}

/// `text` as `attest verify --github` may write it: [`ci_safe`], but for a line that starts with
/// `::`, which is one of its own workflow commands (the fence, an annotation; the report inside
/// the fence is read as no command). A `##` starting a line and a `##[` or `##vso[` anywhere are
/// escaped as [`ci_safe`] escapes them, so that no runner or log viewer acts on them, whether it
/// honours the fence or not.
pub fn workflow_safe(text: &str) -> Cow<'_, str> {
    commands_escaped(text, &["##"])
}

/// `text` made [`terminal_safe`], with the first character of a line that starts, after blanks,
/// with one of `starts` escaped, and the first `#` of each [`LEGACY_COMMANDS`] wherever it is.
fn commands_escaped<'t>(text: &'t str, starts: &[&str]) -> Cow<'t, str> {
    let safe = terminal_safe(text);
    let command = |line: &str| {
        let line = line.trim_start();
        starts.iter().any(|s| line.starts_with(s))
    };
    if !safe.lines().any(command) && !LEGACY_COMMANDS.iter().any(|c| safe.contains(c)) {
        return safe;
    }
    let mut out = String::with_capacity(safe.len() + 16);
    for piece in safe.split_inclusive('\n') {
        let piece = in_line_commands_escaped(piece);
        if command(&piece) {
            let blanks = piece.len() - piece.trim_start().len();
            let (lead, rest) = piece.split_at(blanks);
            out.push_str(lead);
            let mut chars = rest.chars();
            if let Some(first) = chars.next() {
                out.extend(first.escape_unicode());
            }
            out.push_str(chars.as_str());
        } else {
            out.push_str(&piece);
        }
    }
    Cow::Owned(out)
}

/// The workflow commands a CI runner acts on wherever they are in a line: GitHub's legacy
/// `##[name]` and Azure Pipelines' `##vso[`.
const LEGACY_COMMANDS: [&str; 2] = ["##[", "##vso["];

/// `text` with the first `#` of each workflow command a runner finds anywhere in a line
/// ([`LEGACY_COMMANDS`]) escaped (`\u{23}`), as [`ci_safe`] and [`workflow_safe`] escape it: for
/// text quoted inside a line of ours that no runner may act on, wherever the file goes (a
/// Markdown code span: `attest verify --markdown` and the step summary of `--github`), which
/// starts no line of its own.
#[must_use]
pub fn in_line_commands_escaped(text: &str) -> Cow<'_, str> {
    if !LEGACY_COMMANDS.iter().any(|c| text.contains(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        LEGACY_COMMANDS
            .iter()
            .fold(text.to_owned(), |line, c| line.replace(c, &format!("\\u{{23}}{}", &c[1..]))),
    )
}

/// One line of JSON (`--json`) as it may reach a CI log: the same JSON value, with the second `#`
/// of each command [`ci_safe`] neutralises wherever it is written as `\u0023`. JSON holds `#` only
/// inside its strings, where the escape means the same character; a JSON line never starts with
/// `::`. A TOML basic string reads `\u0023` as `#` too: a quoted TOML string passes through it
/// unchanged in what it reads as.
pub fn ci_safe_json(json: &str) -> Cow<'_, str> {
    if !LEGACY_COMMANDS.iter().any(|c| json.contains(c)) {
        return Cow::Borrowed(json);
    }
    Cow::Owned(
        LEGACY_COMMANDS
            .iter()
            .fold(json.to_owned(), |text, c| text.replace(c, &format!("#\\u0023{}", &c[2..]))),
    )
}

/// `error` and each of the errors below it that adds something, joined by `: `: a library's
/// error often names only the outermost step (gix's do), while the cause says what went wrong.
#[must_use]
pub fn with_causes(error: &dyn std::error::Error) -> String {
    let mut out = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

/// Appends `chars` to `out`, each that [`marked`] escapes as its escape (`\u{1b}`, `\n`).
fn push_escaped(out: &mut String, chars: impl Iterator<Item = char>, control: impl Fn(char) -> bool) {
    for (c, escaped) in marked(chars, control) {
        if escaped {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
}

/// `text` as one word for a POSIX shell: in single quotes, each `'` closed, escaped and reopened.
#[must_use]
pub fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// `text` as one word for a POSIX shell in advice a person copies: as it is when it is plain
/// (letters, digits, `_`, `.`, `/`, `-`, `%`, `:`, `+`, `@`, `,`, not starting with `-`), else
/// [`shell_quoted`], or, when it holds a character that would break the message's line (a path
/// may hold a newline) or a [hidden](hidden_after) one (a branch may hold U+202E), `$'...'` with
/// that character escaped. A reference or remote name may hold `;` or `$(`, which must never run
/// as a command.
#[must_use]
pub fn shell_word(text: &str) -> String {
    let plain = !text.starts_with('-')
        && !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || "_./-%:+@,".contains(c));
    if plain {
        text.to_owned()
    } else if marked(text.chars(), breaks_its_line).any(|(_, escaped)| escaped) {
        ansi_c_quoted(text)
    } else {
        shell_quoted(text)
    }
}

/// `text` as a `$'...'` word (bash, zsh, ksh, and POSIX.1-2024's sh): `\`, `'` and every
/// character that would break a line or [hide](hidden_after) escaped, so the word stays on the
/// line it is quoted on and shows every character it holds.
fn ansi_c_quoted(text: &str) -> String {
    let mut out = String::from("$'");
    push_ansi_c(&mut out, text);
    out.push('\'');
    out
}

/// `bytes`, which are not all UTF-8, as a `$'...'` word ([`ansi_c_quoted`]): their text escaped
/// as there, each byte that is no part of UTF-8 as `\xNN` (always two digits, so a digit after it
/// is no part of it).
fn ansi_c_quoted_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("$'");
    for chunk in bytes.utf8_chunks() {
        push_ansi_c(&mut out, chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('\'');
    out
}

/// `text` inside a `$'...'` word, escaped as [`ansi_c_quoted`] says.
fn push_ansi_c(out: &mut String, text: &str) {
    for (c, escaped) in marked(text.chars(), breaks_its_line) {
        match c {
            '\\' | '\'' => {
                out.push('\\');
                out.push(c);
            }
            // An ASCII one as a byte (`\x1b`), whatever the locale; beyond ASCII as a code point.
            c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if escaped && u32::from(c) <= 0xFFFF => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c if escaped => out.push_str(&format!("\\U{:08x}", u32::from(c))),
            c => out.push(c),
        }
    }
}

/// A JSON pointer into a document speccoder writes (`/predicate/task/title`, `/files/0/path`) as a
/// message names the field it points at: its keys joined by `.`, an array's index in brackets,
/// in backquotes and on one line (`` `predicate.task.title` ``, `` `files[0].path` ``). Said as
/// the pointer, `/run` would read as the directory of that name.
#[must_use]
pub fn json_field(pointer: &str) -> String {
    let mut field = String::new();
    for step in pointer.split('/').skip(1) {
        let step = step.replace("~1", "/").replace("~0", "~");
        if !step.is_empty() && step.bytes().all(|b| b.is_ascii_digit()) {
            field.push_str(&format!("[{step}]"));
        } else {
            if !field.is_empty() {
                field.push('.');
            }
            field.push_str(&step);
        }
    }
    format!("`{}`", one_line(&field))
}

/// A name git or the file system keeps as bytes (a reference, a path), which need not be UTF-8, as
/// a message shows it: its text as [`one_line`] quotes it, and each byte that is no part of UTF-8
/// as `\xNN`. Never a text with U+FFFD in place of such a byte, which is the name of another
/// reference or file; and a reference name can hold no `\`, so an escaped one reads as no other.
#[must_use]
pub fn bytes_shown(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&one_line(chunk.valid()));
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02X}"));
        }
    }
    out
}

/// `bytes` (a name git or the file system keeps, which need not be UTF-8) as one word, on one
/// line, for advice a person copies, which yields them exactly: a UTF-8 name as [`shell_word`]
/// quotes it, any other as `"$(printf '...')"` ([`printf_word`]), which every POSIX shell reads
/// back (`$'\xff'` is not POSIX before 2024: dash reads it as text). A command substitution drops
/// the trailing newlines of what it yields, so a name that is not UTF-8 and ends in one is a
/// `$'...'` word instead, each of its bytes that is no part of UTF-8 written `\xNN`, as
/// [`shell_word`] writes any text with a line break: on one line, and exact in bash, zsh, ksh and
/// POSIX.1-2024's sh. A script run by any `/bin/sh` takes [`shell_script_bytes_word`].
#[must_use]
pub fn shell_bytes_word(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => shell_word(text),
        Err(_) if bytes.ends_with(b"\n") => ansi_c_quoted_bytes(bytes),
        Err(_) => printf_word(bytes),
    }
}

/// `bytes` as one word for a script any POSIX shell runs (dash included), which yields them
/// exactly: a UTF-8 name as [`shell_quoted`] quotes it, any other as [`printf_word`] writes it,
/// its trailing newlines (which the command substitution would drop) after it in single quotes,
/// as they are. Such a word spans lines: a script's, not a message's.
#[must_use]
pub fn shell_script_bytes_word(bytes: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return shell_quoted(text);
    }
    let kept = bytes.len() - bytes.iter().rev().take_while(|&&b| b == b'\n').count();
    let mut word = printf_word(&bytes[..kept]);
    if kept < bytes.len() {
        word.push('\'');
        word.push_str(&"\n".repeat(bytes.len() - kept));
        word.push('\'');
    }
    word
}

/// `bytes` as `"$(printf '...')"`, each byte that is not printable ASCII written in octal
/// (`\377`), which every POSIX shell's `printf` reads back; trailing newlines are lost to the
/// command substitution, which the callers keep.
fn printf_word(bytes: &[u8]) -> String {
    let mut format = String::with_capacity(bytes.len() * 2);
    for (at, &byte) in bytes.iter().enumerate() {
        match byte {
            // A format that starts with `-` would be read as an option.
            b'-' if at == 0 => format.push_str("\\055"),
            b'%' => format.push_str("%%"),
            b'\\' => format.push_str("\\\\"),
            b'\'' => format.push_str("'\\''"),
            b' '..=b'~' => format.push(char::from(byte)),
            _ => format.push_str(&format!("\\{byte:03o}")),
        }
    }
    format!("\"$(printf '{format}')\"")
}

/// `texts` as the arguments of one shell command: each a [`shell_word`], separated by a space.
#[must_use]
pub fn shell_words<T: AsRef<str>>(texts: &[T]) -> String {
    texts.iter().map(|text| shell_word(text.as_ref())).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_name_is_one_shell_word_as_it_is_and_any_other_is_quoted_so_it_never_runs() {
        assert_eq!(shell_word("refs/speccoder/skipped/chg/1%2E2"), "refs/speccoder/skipped/chg/1%2E2");
        assert_eq!(shell_word("+HEAD:refs/heads/a@b,c"), "+HEAD:refs/heads/a@b,c");
        assert_eq!(shell_word("refs/x;touch p"), "'refs/x;touch p'");
        assert_eq!(shell_word("a$(id)"), "'a$(id)'");
        assert_eq!(shell_word("-rf"), "'-rf'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("a\nb's\\"), "$'a\\x0ab\\'s\\\\'", "a line break stays on the line");
        assert_eq!(shell_word("a\u{2028}b"), "$'a\\u2028b'");
        // bash reads each word back as the text it quotes.
        for text in ["refs/x;touch p", "it's", "a\nb's\\\u{1b}[2K\r$(id)"] {
            let script = format!("printf %s {}", shell_word(text));
            let out = std::process::Command::new("bash").args(["-c", &script]).output().unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), text, "{script}");
        }
        assert_eq!(
            shell_words(&["specs/a/tasks.md", "specs/a b/tasks.md"]),
            "specs/a/tasks.md 'specs/a b/tasks.md'"
        );
    }

    #[test]
    fn a_json_pointer_is_named_as_the_field_it_points_at_never_as_a_path() {
        assert_eq!(json_field("/run"), "`run`");
        assert_eq!(json_field("/predicate/task/title"), "`predicate.task.title`");
        assert_eq!(json_field("/files/0/path"), "`files[0].path`");
        assert_eq!(json_field("/predicate/executor/env/0/value"), "`predicate.executor.env[0].value`");
        assert_eq!(json_field("/a~1b/c~0d\n"), "`a/b.c~d\\n`", "unescaped, on one line");
    }

    #[test]
    fn a_name_that_is_not_utf8_is_shown_with_its_bytes_escaped_and_given_to_a_shell_exactly() {
        assert_eq!(bytes_shown(b"refs/heads/br\xff\xfe"), "refs/heads/br\\xFF\\xFE");
        assert_eq!(bytes_shown("a\u{202e}b\n".as_bytes()), "a\\u{202e}b\\n", "shown on one line");
        assert_eq!(shell_bytes_word(b"refs/heads/main"), "refs/heads/main");
        assert_eq!(shell_bytes_word(b"br\xff"), "\"$(printf 'br\\377')\"");
        // sh (dash on Debian, which reads no `$'...'`) gives back each name's bytes exactly.
        for bytes in
            [&b"refs/heads/br\xff\xfe"[..], b"-n it's 100%\\\xc3(\x1b[2K $(id)`id`", b"\xe2\x80\xaeab\xff"]
        {
            let script = format!("printf %s {}", shell_bytes_word(bytes));
            let out = std::process::Command::new("sh").args(["-c", &script]).output().unwrap();
            assert_eq!(out.stdout, bytes, "{script}");
        }
    }

    /// A command substitution drops the newlines its output ends in: a name that is not UTF-8 and
    /// ends in one is given back whole all the same, on one line to a person (bash), and to a
    /// script any `sh` runs (dash), as a word that spans lines.
    #[test]
    fn a_name_that_is_not_utf8_and_ends_in_a_newline_is_given_back_whole_to_a_person_and_to_a_script() {
        assert_eq!(shell_bytes_word(b"a\xff\n"), "$'a\\xff\\x0a'");
        assert_eq!(shell_script_bytes_word(b"a\xff\n"), "\"$(printf 'a\\377')\"'\n'");
        assert_eq!(shell_script_bytes_word(b"it's\n"), "'it'\\''s\n'");
        assert_eq!(shell_script_bytes_word(b"br\xff"), shell_bytes_word(b"br\xff"));
        let names = [
            &b"/tmp/r1-\xff/speccoder\n"[..],
            b"br\xff\n\n",
            b"\xffab\n1\n",
            b"-n it's 100%\\\xc3\n",
            b"it's\n",
        ];
        for bytes in names {
            let advice = shell_bytes_word(bytes);
            assert!(!advice.contains('\n'), "{advice}");
            let said =
                std::process::Command::new("bash").args(["-c", &format!("printf %s {advice}")]).output();
            assert_eq!(said.unwrap().stdout, bytes, "{advice}");
            let word = shell_script_bytes_word(bytes);
            let ran = std::process::Command::new("sh").args(["-c", &format!("printf %s {word}")]).output();
            assert_eq!(ran.unwrap().stdout, bytes, "{word}");
        }
    }

    #[test]
    fn a_word_holding_a_bidi_control_or_a_hidden_character_is_one_shell_word_that_shows_it_escaped() {
        assert_eq!(shell_word("feat\u{202e}evil"), "$'feat\\u202eevil'");
        assert_eq!(shell_word("o r\u{200b}'\u{e0041}"), "$'o r\\u200b\\'\\U000e0041'");
        assert_eq!(
            shell_word("\u{645}\u{200c}\u{6cc}"),
            "'\u{645}\u{200c}\u{6cc}'",
            "a script keeps its joiner"
        );
        // bash, in a UTF-8 locale, reads each word back as the text it quotes.
        for text in ["feat\u{202e}evil", "o r\u{200b}'\u{e0041}\n"] {
            let script = format!("printf %s {}", shell_word(text));
            let out = std::process::Command::new("bash")
                .env("LC_ALL", "C.UTF-8")
                .args(["-c", &script])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), text, "{script}");
        }
    }

    #[test]
    fn shown_text_escapes_control_characters_and_marks_a_cut() {
        assert_eq!(shown("a\nb", 10), "a\\nb");
        assert_eq!(shown("\u{1b}[2K", 10), "\\u{1b}[2K");
        assert_eq!(shown("abcdef", 3), "abc…");
    }

    #[test]
    fn quoted_text_is_escaped_and_cut_whatever_it_was() {
        assert_eq!(
            Quoted::from("x".repeat(SHOWN_MAX + 1)).to_string(),
            format!("{}…", "x".repeat(SHOWN_MAX))
        );
        assert_eq!(Quoted::from("a\u{1b}b").to_string(), "a\\u{1b}b");
    }

    #[test]
    fn quoted_text_stays_on_one_line() {
        assert_eq!(one_line("a\n::warning::x\r\u{2028}y"), "a\\n::warning::x\\r\\u{2028}y");
        assert!(matches!(one_line("plain text"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_quoted_line_separator_is_escaped_in_a_message_as_on_one_line() {
        assert_eq!(shown("a\u{2028}::error::x\u{2029}b", 100), "a\\u{2028}::error::x\\u{2029}b");
        assert_eq!(Quoted::from("a\u{2028}b").to_string(), "a\\u{2028}b");
    }

    #[test]
    fn repository_text_in_json_is_quoted_before_json_escapes_it() {
        #[derive(serde::Serialize)]
        struct Row {
            #[serde(serialize_with = "in_line")]
            text: String,
            #[serde(serialize_with = "in_line")]
            maybe: Option<String>,
            #[serde(serialize_with = "in_line")]
            list: Vec<String>,
        }
        let hostile = "a\u{1b}[2J\n::error::x\u{2028}\u{202e}\u{200b}";
        let row = Row { text: hostile.into(), maybe: Some(hostile.into()), list: vec![hostile.into()] };
        let json = serde_json::to_string(&row).unwrap();
        let quoted = r#""a\\u{1b}[2J\\n::error::x\\u{2028}\\u{202e}\\u{200b}""#;
        assert_eq!(json, format!(r#"{{"text":{quoted},"maybe":{quoted},"list":[{quoted}]}}"#));
        let none = Row { text: "plain".into(), maybe: None, list: Vec::new() };
        assert_eq!(serde_json::to_string(&none).unwrap(), r#"{"text":"plain","maybe":null,"list":[]}"#);
    }

    #[test]
    fn hidden_characters_alone_are_escaped_for_text_already_on_one_line() {
        assert_eq!(
            hidden_escaped("Fix \u{202e}abc\u{202c} \u{200b}x\ty"),
            "Fix \\u{202e}abc\\u{202c} \\u{200b}x\ty"
        );
        assert!(matches!(hidden_escaped("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn no_line_of_output_reads_as_a_workflow_command() {
        assert_eq!(
            ci_safe("ok\n  ::add-mask::x\n##[error]y\nend ::a::"),
            "ok\n  \\u{3a}:add-mask::x\n\\u{23}#[error]y\nend ::a::"
        );
        assert!(matches!(ci_safe("fine: a::b\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn workflow_output_keeps_its_own_commands_and_neutralises_every_legacy_one() {
        let ours = "::stop-commands::tok\n  ##[group]g\n::tok::\n::error title=t::x ##[endgroup] ##vso[y\n";
        assert_eq!(
            workflow_safe(ours),
            "::stop-commands::tok\n  \\u{23}#[group]g\n::tok::\n::error title=t::x \\u{23}#[endgroup] \\u{23}#vso[y\n"
        );
        assert!(matches!(workflow_safe("::error::a::b # [c]\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_legacy_workflow_command_is_neutralised_wherever_it_is_in_a_line() {
        assert_eq!(
            ci_safe("row 0100-##[stop-commands]tok/T001\nx ##vso[task.setvariable variable=X]y ###[z\n"),
            "row 0100-\\u{23}#[stop-commands]tok/T001\nx \\u{23}#vso[task.setvariable variable=X]y #\\u{23}#[z\n"
        );
        let json = r###"{"task":"0100-##[error]x/T001","n":"##vso[y"}"###;
        let safe = ci_safe_json(json);
        assert!(!safe.contains("##[") && !safe.contains("##vso["), "{safe}");
        let (a, b): (serde_json::Value, serde_json::Value) =
            (serde_json::from_str(json).unwrap(), serde_json::from_str(&safe).unwrap());
        assert_eq!(a, b, "the same JSON value");
        assert!(matches!(ci_safe_json(r##"{"a":"# [x]"}"##), Cow::Borrowed(_)));
    }

    #[test]
    fn text_that_reads_in_another_order_or_hides_a_character_is_escaped_everywhere() {
        let hostile = "a\u{202e}txt.exe\u{200b}b\u{2066}c\u{feff}d\u{e0041}";
        let escaped = "a\\u{202e}txt.exe\\u{200b}b\\u{2066}c\\u{feff}d\\u{e0041}";
        assert_eq!(terminal_safe(hostile), escaped);
        assert_eq!(one_line(hostile), escaped);
        assert_eq!(shown(hostile, 100), escaped);
        assert_eq!(ci_safe(hostile), escaped);
        // Scripts and emoji keep the joiners they are written with.
        assert!(matches!(
            terminal_safe("\u{645}\u{200c}\u{06cc} \u{1f468}\u{200d}\u{1f469}"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn a_joiner_or_selector_between_ascii_characters_is_escaped_and_one_in_a_script_or_emoji_is_kept() {
        assert_eq!(
            one_line("ghp_ab\u{200d}cd\u{34f}e\u{3164}f\u{fe0f}g\u{e0100}"),
            "ghp_ab\\u{200d}cd\\u{34f}e\\u{3164}f\\u{fe0f}g\\u{e0100}"
        );
        assert_eq!(hidden_escaped("rotated a\u{200d}b"), "rotated a\\u{200d}b");
        assert_eq!(shown("\u{200d}x", 10), "\\u{200d}x", "a joiner after nothing");
        for kept in
            ["✅\u{fe0f} done", "\u{2764}\u{fe0f}\u{200d}\u{1f525}", "می\u{200c}خواهم", "\u{845b}\u{e0100}"]
        {
            assert!(matches!(terminal_safe(kept), Cow::Borrowed(_)), "{kept:?}");
        }
    }

    #[test]
    fn terminal_text_keeps_its_layout_and_escapes_every_other_control_character() {
        assert_eq!(terminal_safe("a\tb\nc"), "a\tb\nc");
        assert!(matches!(terminal_safe("plain\n"), Cow::Borrowed(_)));
        assert_eq!(terminal_safe("x\u{1b}]0;t\u{7}\ry\u{9b}"), "x\\u{1b}]0;t\\u{7}\\ry\\u{9b}");
    }
}
