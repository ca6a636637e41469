//! Commit-message trailers, read the way `git interpret-trailers --parse` reads them and written
//! so that nothing from a value can start a new line or a new trailer.
//!
//! The reading follows git's rules: the trailer block is the last paragraph (never the title
//! paragraph); it counts when all of its lines are `Key: value` lines, continuation lines or
//! comments, or when at least a quarter are trailers and one is git-generated (`Signed-off-by: `);
//! a `---` line starts a patch that is ignored (unless `--no-divider`), as are trailing `#`
//! comment lines and everything below a scissors line.

use crate::model::shown::hidden_escaped;

/// The comment character git uses by default (`core.commentChar`).
const COMMENT: u8 = b'#';
/// The scissors line of `git commit --cleanup=scissors`, after the comment character and a space.
const CUT_LINE: &[u8] = b"------------------------ >8 ------------------------\n";
/// Trailer prefixes git itself writes; one of them makes a mostly-trailer block count.
const GIT_GENERATED: [&[u8]; 2] = [b"Signed-off-by: ", b"(cherry picked from commit "];

/// A trailer that cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrailerError {
    /// The key has characters other than ASCII letters, digits and `-`.
    #[error("`{0}` is not a trailer key: use ASCII letters, digits and `-` only")]
    BadKey(String),
    /// The message has no subject line to put the trailers under.
    #[error("the commit message needs a subject line before its trailers")]
    NoSubject,
    /// The message would hide the trailers from git (for example a `---` line in its body).
    #[error("git would not read the trailers of this message ({0}): remove such lines from the body")]
    Hidden(&'static str),
}

impl crate::exit::ExitClass for TrailerError {
    /// The message is ours to write: one git would not read is our failure.
    fn class(&self) -> crate::exit::Class {
        match self {
            TrailerError::BadKey(_) | TrailerError::NoSubject | TrailerError::Hidden(_) => {
                crate::exit::Class::Internal
            }
        }
    }
}

/// git's `isspace`: space, tab, line feed and carriage return only.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&c| !is_space(c)).unwrap_or(s.len());
    let end = s.iter().rposition(|&c| !is_space(c)).map_or(start, |i| i + 1);
    &s[start..end.max(start)]
}

/// The position after the line starting at `at` (after its `\n`, or the end).
fn next_line(buf: &[u8], at: usize) -> usize {
    buf[at..].iter().position(|&c| c == b'\n').map_or(buf.len(), |i| at + i + 1)
}

/// git's `last_line`: the start of the last line of `buf[..len]` (a final `\n` belongs to it).
fn last_line(buf: &[u8], len: usize) -> Option<usize> {
    match len {
        0 => None,
        1 => Some(0),
        _ => Some(buf[..len - 1].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1)),
    }
}

fn is_blank_line(buf: &[u8], at: usize) -> bool {
    buf[at..].iter().take_while(|&&c| c != b'\n').all(|&c| is_space(c))
}

/// git's `find_separator` with `:` as the only separator: the position of `:` after a key of
/// letters, digits and `-`, optionally followed by blanks.
fn find_separator(line: &[u8]) -> Option<usize> {
    let mut whitespace_found = false;
    for (i, &c) in line.iter().enumerate() {
        if c == b':' {
            return Some(i);
        }
        if !whitespace_found && (c.is_ascii_alphanumeric() || c == b'-') {
            continue;
        }
        if i != 0 && (c == b' ' || c == b'\t') {
            whitespace_found = true;
            continue;
        }
        break;
    }
    None
}

/// git's `wt_status_locate_end`: where a scissors line cuts the message.
fn locate_scissors(buf: &[u8], len: usize) -> usize {
    let mut pattern = vec![b'\n', COMMENT, b' '];
    pattern.extend_from_slice(CUT_LINE);
    if buf.starts_with(&pattern[1..]) {
        return 0;
    }
    match buf.windows(pattern.len()).position(|w| w == pattern.as_slice()) {
        Some(p) if p + 1 < len => p + 1,
        _ => len,
    }
}

/// git's `ignored_log_message_bytes`: the trailing comments, blank lines and old conflict lists.
fn ignored_bytes(buf: &[u8], len: usize) -> usize {
    let cutoff = locate_scissors(buf, len);
    let (mut boc, mut bol, mut in_conflicts) = (0, 0, false);
    while bol < cutoff {
        let next = buf[bol..cutoff].iter().position(|&c| c == b'\n').map_or(cutoff, |i| bol + i + 1);
        if buf[bol] == COMMENT || buf[bol] == b'\n' {
            if boc == 0 {
                boc = bol;
            }
        } else if buf[bol..].starts_with(b"Conflicts:\n") {
            in_conflicts = true;
            if boc == 0 {
                boc = bol;
            }
        } else if in_conflicts && buf[bol] == b'\t' {
            // A path listed in the old conflicts block: still part of the ignored tail.
        } else if boc != 0 {
            boc = 0;
            in_conflicts = false;
        }
        bol = next;
    }
    if boc != 0 { len - boc } else { len - cutoff }
}

/// git's `find_end_of_log_message`.
fn end_of_message(buf: &[u8], divider: bool) -> usize {
    let mut end = buf.len();
    if divider {
        let mut at = 0;
        while at < buf.len() {
            if buf[at..].starts_with(b"---") && buf.get(at + 3).is_some_and(|&c| is_space(c)) {
                end = at;
                break;
            }
            at = next_line(buf, at);
        }
    }
    end - ignored_bytes(buf, end)
}

/// git's `find_trailer_block_start` over `buf[..len]`.
fn trailer_block_start(buf: &[u8], len: usize) -> usize {
    // The first paragraph is the title and never holds trailers.
    let mut at = 0;
    while at < len {
        if buf[at] != COMMENT && is_blank_line(buf, at) {
            break;
        }
        at = next_line(buf, at);
    }
    let end_of_title = at;

    let (mut only_spaces, mut recognized_prefix) = (true, false);
    let (mut trailer_lines, mut non_trailer_lines, mut possible_continuation_lines) =
        (0usize, 0usize, 0usize);
    let mut line = last_line(buf, len);
    while let Some(bol) = line.filter(|&l| l >= end_of_title) {
        line = last_line(buf, bol);
        if buf[bol] == COMMENT {
            non_trailer_lines += possible_continuation_lines;
            possible_continuation_lines = 0;
            continue;
        }
        if is_blank_line(buf, bol) {
            if only_spaces {
                continue;
            }
            non_trailer_lines += possible_continuation_lines;
            if (recognized_prefix && trailer_lines * 3 >= non_trailer_lines)
                || (trailer_lines > 0 && non_trailer_lines == 0)
            {
                return next_line(buf, bol);
            }
            return len;
        }
        only_spaces = false;
        let text = &buf[bol..];
        if GIT_GENERATED.iter().any(|p| text.starts_with(p)) {
            trailer_lines += 1;
            possible_continuation_lines = 0;
            recognized_prefix = true;
            continue;
        }
        let separator = find_separator(&text[..next_line(text, 0)]);
        if separator.is_some_and(|s| s >= 1) && !is_space(text[0]) {
            trailer_lines += 1;
            possible_continuation_lines = 0;
        } else if is_space(text[0]) {
            possible_continuation_lines += 1;
        } else {
            non_trailer_lines += 1 + possible_continuation_lines;
            possible_continuation_lines = 0;
        }
    }
    len
}

/// git's `unfold_value`: each line break and the blanks after it become one space.
fn unfold(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        let c = value[i];
        i += 1;
        if c == b'\n' {
            while i < value.len() && is_space(value[i]) {
                i += 1;
            }
            out.push(b' ');
        } else {
            out.push(c);
        }
    }
    trim(&out).to_vec()
}

fn parse_bytes(message: &[u8], divider: bool) -> Vec<(String, String)> {
    // git works on C strings: a NUL ends the message.
    let message = &message[..message.iter().position(|&c| c == 0).unwrap_or(message.len())];
    let end = end_of_message(message, divider);
    let start = trailer_block_start(message, end);
    let block = &message[start..end];

    // Split into lines and glue continuation lines to the trailer before them.
    let mut items: Vec<Vec<u8>> = Vec::new();
    let mut last_is_trailer = false;
    let mut at = 0;
    while at < block.len() {
        let next = next_line(block, at);
        let line = &block[at..next];
        at = next;
        if last_is_trailer && is_space(line[0]) {
            if let Some(last) = items.last_mut() {
                last.extend_from_slice(line);
            }
            continue;
        }
        last_is_trailer = find_separator(line).is_some_and(|s| s >= 1);
        items.push(line.to_vec());
    }

    items
        .iter()
        .filter(|item| item.first() != Some(&COMMENT))
        .filter_map(|item| {
            let separator = find_separator(item).filter(|&s| s >= 1)?;
            let key = trim(&item[..separator]);
            let value = unfold(trim(&item[separator + 1..]));
            Some((String::from_utf8_lossy(key).into_owned(), String::from_utf8_lossy(&value).into_owned()))
        })
        .collect()
}

/// The trailers of `message` as `(key, value)` in order, like `git interpret-trailers --parse`
/// (a `---` line ends the message: what follows is taken as a patch).
pub fn parse(message: &str) -> Vec<(String, String)> {
    parse_bytes(message.as_bytes(), true)
}

/// The trailers of `message` like `git interpret-trailers --parse --no-divider`, which is how
/// git reads the trailers of a stored commit (`git log --format=%(trailers)`).
pub fn parse_without_divider(message: &str) -> Vec<(String, String)> {
    parse_bytes(message.as_bytes(), false)
}

/// `value` made safe for a trailer: every run of whitespace or control characters (line breaks,
/// tabs, Unicode separators) becomes one space, the ends are trimmed, and a character that
/// reorders or hides text (a bidirectional control, a zero-width space:
/// [`crate::model::shown::is_hidden_format`]) is
/// written as its escape (`\u{202e}`), so that `git log` shows the subject as it is written and
/// every character it holds.
pub fn sanitize_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut gap = false;
    for c in value.chars() {
        if c.is_whitespace() || c.is_control() {
            gap = true;
            continue;
        }
        if gap && !out.is_empty() {
            out.push(' ');
        }
        gap = false;
        out.push(c);
    }
    hidden_escaped(&out).into_owned()
}

/// Whether `key` can be a trailer key (ASCII letters, digits and `-`, not empty).
pub fn is_valid_key(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-')
}

/// The trailer lines `Key: value\n` for each pair, values sanitised.
pub fn format_trailers<K: AsRef<str>, V: AsRef<str>>(trailers: &[(K, V)]) -> Result<String, TrailerError> {
    let mut out = String::new();
    for (key, value) in trailers {
        let key = key.as_ref();
        if !is_valid_key(key) {
            return Err(TrailerError::BadKey(key.to_owned()));
        }
        out.push_str(key);
        out.push_str(": ");
        out.push_str(&sanitize_value(value.as_ref()));
        out.push('\n');
    }
    Ok(out)
}

/// `message` (subject and optional body) followed by a blank line and the trailers, checked to
/// read back exactly as written with and without the patch divider.
pub fn with_trailers<K: AsRef<str>, V: AsRef<str>>(
    message: &str,
    trailers: &[(K, V)],
) -> Result<String, TrailerError> {
    let body = message.trim_end();
    if body.lines().next().is_none_or(|subject| subject.trim().is_empty()) {
        return Err(TrailerError::NoSubject);
    }
    let block = format_trailers(trailers)?;
    let full = if block.is_empty() { format!("{body}\n") } else { format!("{body}\n\n{block}") };
    let expected: Vec<(String, String)> =
        trailers.iter().map(|(k, v)| (k.as_ref().to_owned(), sanitize_value(v.as_ref()))).collect();
    if !expected.is_empty() {
        if parse_without_divider(&full) != expected {
            return Err(TrailerError::Hidden("its last paragraph or comment lines"));
        }
        if parse(&full) != expected {
            return Err(TrailerError::Hidden("a `---` line"));
        }
    }
    Ok(full)
}

#[cfg(test)]
mod tests {
    //! Trailers: our parser against `git interpret-trailers --parse` on a corpus of tricky messages.

    use crate::git::test_support::Fixture;
    use crate::git::trailers::{
        TrailerError, format_trailers, parse, parse_without_divider, sanitize_value, with_trailers,
    };

    /// Messages that exercise git's rules; each is parsed by git and by us.
    const CORPUS: &[&str] = &[
        "",
        "Subject only",
        "Subject only\n",
        "Spec-Task: x/T1\n",
        "Spec-Task: x/T1\nVerdict: verified\n",
        "Subject\n\nSpec-Task: 001-x/T005\nVerdict: verified\n",
        "Subject\n\nBody paragraph.\n\nSpec-Task: 001-x/T005\nVerdict: verified\nRun: run-1\n",
        "Subject\n\nBody with Key: value inside a sentence.\n",
        "Subject\n\nFixes: a bug\nthis line is not a trailer\n",
        "Subject\n\nKey: value\n\nBody after the trailers.\n",
        "Subject\n\nKey: value with: colons: inside\nUrl: https://example.com/a?b=c\n",
        "Subject\n\nKey: first line\n  continued here\n\tand with a tab\nOther: x\n",
        "Subject\n\nKey:\nEmpty-Value:   \nSpaced Key : v\n",
        "Subject\r\n\r\nSpec-Task: x/T1\r\nVerdict: verified\r\n",
        "Subject\r\n\r\nKey: a\r\n  b\r\n",
        "Subject\n\nSpec-Task: x/T1\n\n\n\n",
        "Subject\n\nSpec-Task: x/T1\n# a comment\nVerdict: verified\n",
        "Subject\n\nSpec-Task: x/T1\n\n# trailing comment\n# another\n",
        "Subject\n\nSpec-Task: x/T1\n---\nVerdict: not-a-trailer\n",
        "Subject\n\n---\n\nSpec-Task: x/T1\n",
        "Subject\n\nSpec-Task: x/T1\n--- a/file\n+++ b/file\n",
        "Subject\n\nBody\n\nSpec-Task: x/T1\n# ------------------------ >8 ------------------------\nKey: after scissors\n",
        "Subject\n\nSpec-Task: x/T5\nVerdict: verified\n# ------------------------ >8 ------------------------ \n\nSpec-Task: x/T1\nVerdict: verified\n",
        "Subject\r\n\r\nSpec-Task: x/T5\r\n# ------------------------ >8 ------------------------\r\n\r\nSpec-Task: x/T1\r\n",
        "Subject\n\nSpec-Task: x/T5\n# ------------------------ >8 ------------------------",
        "Subject\n\nprose line one\nprose line two\nprose line three\nSigned-off-by: A <a@b>\n",
        "Subject\n\nprose line one\nprose line two\nprose line three\nprose four\nSigned-off-by: A <a@b>\n",
        "Subject\n\nprose\nSigned-off-by: A <a@b>\n(cherry picked from commit 0123456789abcdef)\n",
        "Subject\n\n  indented: not a key\nKey: v\n",
        "Subject\n\nKey: v\n  continuation\n  more continuation\nprose\n",
        "Subject\n\nBad Key With Spaces: v\n",
        "Subject\n\nKey-With-Dash: v\nkey2: lower\n42: numeric\n",
        "Subject\n\n: no key\nKey: v\n",
        "Subject\n\nKéy: non-ascii key\nKey: v\n",
        "Subject\n\nKey: v\nConflicts:\n\tfile.txt\n",
        "\nKey: leading blank line makes the title empty\n",
        "# comment first\nSubject\n\nKey: v\n",
        "Subject\n\nKey: v",
        "Subject\n\nKey\t: tab before colon\n",
        "Subject\n\nReason: has\u{0}nul\n",
        "Subject\n\nReason: unicode — ✓ value\nAccepted-By: Zoë <z@example.com>\n",
    ];

    /// `git interpret-trailers --parse [extra]` of `message` as (key, value) pairs.
    fn git_parse(fx: &Fixture, message: &str, extra: &[&str]) -> Vec<(String, String)> {
        let mut args = vec!["interpret-trailers", "--parse"];
        args.extend_from_slice(extra);
        let out = fx.git_bytes(&args, Some(message.as_bytes()));
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|line| {
                let (key, value) = line.split_once(':').expect("git prints `key: value`");
                (key.to_owned(), value.strip_prefix(' ').unwrap_or(value).to_owned())
            })
            .collect()
    }

    #[test]
    fn parsing_agrees_with_git_interpret_trailers_on_the_whole_corpus() {
        let fx = Fixture::new();
        for message in CORPUS {
            if message.contains('\0') {
                continue; // a pipe would carry the NUL to git, which reads a C string from a file
            }
            assert_eq!(parse(message), git_parse(&fx, message, &[]), "--parse of {message:?}");
            assert_eq!(
                parse_without_divider(message),
                git_parse(&fx, message, &["--no-divider"]),
                "--parse --no-divider of {message:?}"
            );
        }
    }

    #[test]
    fn a_nul_ends_the_message_as_it_does_for_git() {
        assert_eq!(
            parse("Subject\n\nA: 1\nB: 2\0\nC: 3\n"),
            vec![("A".into(), "1".into()), ("B".into(), "2".into())]
        );
    }

    #[test]
    fn a_value_that_reorders_or_hides_text_is_written_with_its_escapes_and_reads_back_so() {
        let value = sanitize_value("Fix login \u{202e}kcehc\u{202c} \u{200b}x\u{1b}[31mred");
        assert_eq!(value, "Fix login \\u{202e}kcehc\\u{202c} \\u{200b}x [31mred");
        assert!(!value.chars().any(crate::model::shown::is_hidden_format));
        assert_eq!(sanitize_value(&value), value, "sanitised once for all");
        let message = with_trailers("Subject", &[("Reason", value.as_str())]).unwrap();
        assert_eq!(parse(&message), vec![("Reason".to_owned(), value)]);
    }

    #[test]
    fn sanitised_values_cannot_start_a_line_or_a_trailer() {
        assert_eq!(sanitize_value("  a\r\nVerdict: verified\n\tb  "), "a Verdict: verified b");
        assert_eq!(sanitize_value("x\u{2028}y\u{85}z\u{7}w"), "x y z w");
        assert_eq!(sanitize_value("\n\n"), "");
        let block =
            format_trailers(&[("Reason", "line one\nSpec-Task: forged/T9\n\nmore"), ("Run", "r-1")]).unwrap();
        assert_eq!(block, "Reason: line one Spec-Task: forged/T9 more\nRun: r-1\n");
        assert!(matches!(format_trailers(&[("Bad Key", "v")]), Err(TrailerError::BadKey(_))));
        assert!(matches!(format_trailers(&[("", "v")]), Err(TrailerError::BadKey(_))));
    }

    #[test]
    fn messages_with_trailers_read_back_exactly_through_git() {
        let fx = Fixture::new();
        let trailers = [
            ("Spec-Task", "001-x/T005"),
            ("Verdict", "verified"),
            ("Reason", "a: b\r\n# not a comment\n---\nForged: yes"),
            ("Accepted-By", "Zoë <z@example.com>"),
            ("Run", ""),
        ];
        for body in [
            "Tick T005",
            "Tick T005\n\nBody.\nMore body: with colon\n",
            "Tick\n\nKey: looks like a trailer\n",
        ] {
            let message = with_trailers(body, &trailers).unwrap();
            let expected: Vec<(String, String)> =
                trailers.iter().map(|(k, v)| ((*k).to_owned(), sanitize_value(v))).collect();
            assert_eq!(git_parse(&fx, &message, &[]), expected, "{message:?}");
            assert_eq!(parse(&message), expected);
        }
        assert!(matches!(with_trailers("", &trailers), Err(TrailerError::NoSubject)));
        assert!(matches!(
            with_trailers("Subject\n\n---\nbelow the divider", &trailers),
            Err(TrailerError::Hidden(_))
        ));
        assert_eq!(with_trailers::<&str, &str>("Subject\n\n", &[]).unwrap(), "Subject\n");
    }

    #[test]
    fn trailers_of_a_stored_commit_read_the_same_as_git_log_shows_them() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "base");
        let message =
            with_trailers("Tick T001\n\nBody.", &[("Spec-Task", "x/T001"), ("Verdict", "attested")]).unwrap();
        let repo = fx.repo();
        let head = fx.rev("HEAD");
        let id = repo.create_commit_detached(&[head], fx.rev("HEAD^{tree}"), &message).unwrap();
        let by_git = fx.git(&["log", "-1", "--format=%(trailers:only,unfold)", &id.to_string()]);
        let ours = parse_without_divider(&repo.commit(id).unwrap().message);
        let ours_text: String = ours.iter().map(|(k, v)| format!("{k}: {v}\n")).collect();
        assert_eq!(by_git.trim_end(), ours_text.trim_end());
    }
}
