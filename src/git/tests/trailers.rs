//! Trailers: our parser against `git interpret-trailers --parse` on a corpus of tricky messages.

use super::fixture::Fixture;
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
    for body in
        ["Tick T005", "Tick T005\n\nBody.\nMore body: with colon\n", "Tick\n\nKey: looks like a trailer\n"]
    {
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
