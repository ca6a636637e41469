//! Outcomes and findings: what a task commit's evidence comes to, and why. Every rule speaks in
//! them, and the verifier reports them per commit.

use serde::Serialize;

use crate::model::clean;
use crate::model::shown::{in_line, one_line};

/// The outcome of checking one task commit's evidence. Ordered: the worst finding wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitOutcome {
    /// Everything holds.
    Ok,
    /// A line carries no signature (and unsigned evidence was not accepted).
    Unsigned,
    /// A signature verifies, but with a key the caller does not trust (for this use, now).
    UntrustedSigner,
    /// A signature could not be checked because the checking tool is missing or the kind is not
    /// supported by this build. Never a pass.
    ToolMissing,
    /// The evidence disagrees with the repository (trailers, tree, task line, spec text, policy,
    /// summary coverage, subject).
    Mismatch,
    /// A signature does not verify over the line's bytes.
    BadSignature,
    /// A line is not a DSSE envelope with an in-toto Statement v1 we can read.
    Malformed,
    /// The task commit has no note.
    Missing,
}

impl CommitOutcome {
    /// The wire spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CommitOutcome::Ok => "ok",
            CommitOutcome::Unsigned => "unsigned",
            CommitOutcome::UntrustedSigner => "untrusted_signer",
            CommitOutcome::ToolMissing => "tool_missing",
            CommitOutcome::Mismatch => "mismatch",
            CommitOutcome::BadSignature => "bad_signature",
            CommitOutcome::Malformed => "malformed",
            CommitOutcome::Missing => "missing",
        }
    }
}

/// One thing found wrong (or worth saying) about a commit's evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What it does to the commit's outcome.
    pub outcome: CommitOutcome,
    /// A stable reason code, e.g. `tree_mismatch`, `bad_signature`, `summary_missing_line`.
    pub code: &'static str,
    /// One sentence for a person (repository text in it quoted, in JSON too).
    #[serde(serialize_with = "in_line")]
    pub message: String,
    /// The 1-based line of the note, when the finding is about one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What the verifier expected, when that helps. Where the signed evidence is compared with
    /// the repository (the commit, its trailers, its tree, the head), this is always the signed
    /// value; where a line is checked against the format, what the format requires.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "in_line")]
    pub expected: Option<String>,
    /// What it found instead: the repository's value, or the line's.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "in_line")]
    pub found: Option<String>,
    /// The object the repository lacks or holds corrupt, when that is why something could not
    /// be read: the finding is then no verdict on the evidence, and the run ends as a repository
    /// to repair (boxed: a finding is an error value, kept small).
    #[serde(skip)]
    pub unread: Option<Box<Unread>>,
}

/// An object a finding could not be read for, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unread {
    /// The repository lacks it (a clone never fetched it, or it was lost).
    Missing(gix::ObjectId),
    /// The repository holds it but it cannot be decoded (a damaged object file).
    Corrupt(gix::ObjectId),
}

impl Finding {
    /// A finding without expected/found values.
    #[must_use]
    pub fn new(outcome: CommitOutcome, code: &'static str, message: impl Into<String>) -> Self {
        Finding {
            outcome,
            code,
            message: message.into(),
            line: None,
            expected: None,
            found: None,
            unread: None,
        }
    }

    /// The same finding, made because reading an object failed with `e`: when the repository
    /// lacks the object or holds it corrupt, the finding says which ([`Finding::unread`]).
    #[must_use]
    pub fn unread(self, e: &crate::git::GitError) -> Self {
        self.with_unread(e.missing_object(), e.corrupt_object())
    }

    /// The same finding, made because a spec file could not be read with `e`: as [`Self::unread`].
    #[must_use]
    pub fn spec_unread(self, e: &crate::spec::SpecError) -> Self {
        self.with_unread(e.missing_object(), e.corrupt_object())
    }

    /// The same finding, naming the object the repository lacks, or else the one it holds
    /// corrupt, if any.
    fn with_unread(mut self, missing: Option<gix::ObjectId>, corrupt: Option<gix::ObjectId>) -> Self {
        self.unread = missing.map(Unread::Missing).or(corrupt.map(Unread::Corrupt)).map(Box::new);
        self
    }

    /// The same finding about note line `line` (1-based).
    #[must_use]
    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// The same finding with the expected and found values, each kept only when it passes the
    /// clean check ([`clean::unless_leaking`]): a signed value or the repository's can hold a
    /// secret, and a finding goes to a terminal, a CI log and a JSON report.
    #[must_use]
    pub fn expected_found(mut self, expected: impl Into<String>, found: impl Into<String>) -> Self {
        self.expected = Some(clean::unless_leaking(expected.into()));
        self.found = Some(clean::unless_leaking(found.into()));
        self
    }
}

/// `code line N: message [expected E, found F]`, as a person reads it (the line and the values
/// when the finding has them).
impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said_at(self.line.as_slice()))
    }
}

impl Finding {
    /// The finding as a person reads it, said once for each note line in `lines` where it was
    /// found alike: `code lines 1-3, 5: message [expected E, found F]` (`line N` for one line,
    /// nothing for none).
    #[must_use]
    pub fn said_at(&self, lines: &[usize]) -> String {
        let mut out = format!("{} ", self.code);
        if let Some(lines) = lines_named(lines) {
            out.push_str(&lines);
            out.push_str(": ");
        }
        // A message quotes what it found (a note, a commit, a file): it stays on its line.
        out.push_str(&one_line(&self.message));
        if let (Some(e), Some(x)) = (&self.expected, &self.found) {
            out.push_str(&format!(" [expected {}, found {}]", one_line(e), one_line(x)));
        }
        out
    }

    /// Whether `other` is this finding found again on another note line: the same outcome, code,
    /// message and values.
    #[must_use]
    pub fn same_but_line(&self, other: &Finding) -> bool {
        let Finding { outcome, code, message, line, expected, found, unread } = other;
        line.is_some()
            && self.line.is_some()
            && (*outcome, *code, message, expected, found, unread)
                == (self.outcome, self.code, &self.message, &self.expected, &self.found, &self.unread)
    }
}

/// `line 4`, or `lines 1-3, 5` (ascending, each run of consecutive lines as its ends); `None` for
/// no line.
#[must_use]
pub fn lines_named(lines: &[usize]) -> Option<String> {
    let mut sorted = lines.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &line in &sorted {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == line => *end = line,
            _ => runs.push((line, line)),
        }
    }
    let shown: Vec<String> =
        runs.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
    match sorted.len() {
        0 => None,
        1 => Some(format!("line {}", shown[0])),
        _ => Some(format!("lines {}", shown.join(", "))),
    }
}

/// The worst outcome among findings (`Ok` when there are none).
#[must_use]
pub fn worst(findings: &[Finding]) -> CommitOutcome {
    findings.iter().map(|f| f.outcome).max().unwrap_or(CommitOutcome::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_order_as_the_specification_lists_them() {
        use CommitOutcome::*;
        let order = [Ok, Unsigned, UntrustedSigner, ToolMissing, Mismatch, BadSignature, Malformed, Missing];
        assert!(order.windows(2).all(|w| w[0] < w[1]));
        let findings = vec![Finding::new(Mismatch, "x", "m"), Finding::new(Unsigned, "y", "u")];
        assert_eq!(worst(&findings), Mismatch);
        assert_eq!(worst(&[]), Ok);
    }

    #[test]
    fn a_finding_is_said_at_its_line_and_once_for_several_as_runs() {
        let f = Finding::new(CommitOutcome::Mismatch, "subject_mismatch", "m")
            .at_line(2)
            .expected_found("e", "x");
        assert_eq!(f.to_string(), "subject_mismatch line 2: m [expected e, found x]");
        assert_eq!(f.said_at(&[5, 1, 2, 3, 7]), "subject_mismatch lines 1-3, 5, 7: m [expected e, found x]");
        assert_eq!(Finding::new(CommitOutcome::Missing, "missing", "no note").to_string(), "missing no note");
        assert_eq!(lines_named(&[4, 3]), Some("lines 3-4".to_owned()));
        assert_eq!(lines_named(&[]), None);
        assert!(f.same_but_line(&f.clone().at_line(3)));
        assert!(!f.same_but_line(&f.clone().expected_found("e", "y").at_line(3)));
        assert!(!f.same_but_line(&Finding { line: None, ..f.clone() }));
    }

    #[test]
    fn a_finding_s_expected_or_found_value_that_holds_a_secret_is_named_never_shown() {
        let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
        let f = Finding::new(CommitOutcome::Mismatch, "title_mismatch", "m").expected_found(token, "clean");
        assert_eq!(f.expected.as_deref(), Some("(a value not shown, as it holds a GitHub token)"));
        assert_eq!(f.found.as_deref(), Some("clean"));
        assert!(!f.to_string().contains(token));
    }
}
