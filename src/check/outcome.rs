//! Outcomes and findings: what a task commit's evidence comes to, and why. Every rule speaks in
//! them, and the verifier reports them per commit.

use serde::Serialize;

use crate::model::shown::one_line;

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
    /// One sentence for a person.
    pub message: String,
    /// The 1-based line of the note, when the finding is about one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What the verifier expected, when that helps. Where the signed evidence is compared with
    /// the repository (the commit, its trailers, its tree, the head), this is always the signed
    /// value; where a line is checked against the format, what the format requires.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What it found instead: the repository's value, or the line's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
}

impl Finding {
    /// A finding without expected/found values.
    #[must_use]
    pub fn new(outcome: CommitOutcome, code: &'static str, message: impl Into<String>) -> Self {
        Finding { outcome, code, message: message.into(), line: None, expected: None, found: None }
    }

    /// The same finding about note line `line` (1-based).
    #[must_use]
    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// The same finding with the expected and found values.
    #[must_use]
    pub fn expected_found(mut self, expected: impl Into<String>, found: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self.found = Some(found.into());
        self
    }
}

/// `code line N: message [expected E, found F]`, as a person reads it (the line and the values
/// when the finding has them).
impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ", self.code)?;
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        // A message quotes what it found (a note, a commit, a file): it stays on its line.
        f.write_str(&one_line(&self.message))?;
        if let (Some(e), Some(x)) = (&self.expected, &self.found) {
            write!(f, " [expected {}, found {}]", one_line(e), one_line(x))?;
        }
        Ok(())
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
}
