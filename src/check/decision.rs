//! Decisions (`attested`, `skipped`): their one line names a decider, and the trailers must
//! repeat it: `Accepted-By:` (attested) or `Skipped-By:` (skipped) equal to `decider.by`,
//! `Reason:` equal to `decider.reason`. The name is shown as asserted, never as proven: only the
//! signature says who signed.

use crate::check::outcome::{CommitOutcome, Finding};
use crate::git::trailers;
use crate::model::predicate::{TaskVerificationV0, Verdict};
use crate::model::trailer_keys::{ACCEPTED_BY, REASON, SKIPPED_BY};

/// The decider as a decision's commit message says it, each trailer read as the rules read it
/// against the signed decider, trimmed (`None`: no such trailer). A message that gives one twice
/// is not one plain claim ([`doubled_decider`]), so the one read is the only one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionTrailers {
    /// `Accepted-By` for `attested`, `Skipped-By` for `skipped`.
    pub by_key: &'static str,
    /// That trailer's value.
    pub by: Option<String>,
    /// The `Reason:` trailer's value.
    pub reason: Option<String>,
}

impl DecisionTrailers {
    /// The decision trailers of `message`, for a decision of `verdict`.
    #[must_use]
    pub fn read(message: &str, verdict: Verdict) -> DecisionTrailers {
        let found = trailers::parse(message);
        let last = |key: &str| {
            found.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.trim().to_owned())
        };
        let by_key = decider_keys(verdict).0;
        DecisionTrailers { by_key, by: last(by_key), reason: last(REASON) }
    }
}

/// The trailer naming the decider of a decision of `verdict` (`Accepted-By` for `attested`,
/// `Skipped-By` for `skipped`), and the other decision's, which it must not carry.
fn decider_keys(verdict: Verdict) -> (&'static str, &'static str) {
    if verdict == Verdict::Attested { (ACCEPTED_BY, SKIPPED_BY) } else { (SKIPPED_BY, ACCEPTED_BY) }
}

/// The keys of the decision trailers, compared where git's two readings of a message must agree.
pub const DECISION_KEYS: [&str; 3] = [ACCEPTED_BY, SKIPPED_BY, REASON];

/// Why the `stored` trailers of a decision of `verdict` (as `git log` reads them) do not name one
/// decider, `None` when they do: its decider trailer or `Reason:` given more than once, or the
/// other decision's decider trailer (`Skipped-By:` on an accept, `Accepted-By:` on a skip). Only
/// one of each is signed; a second is a name nobody signed, which `git log` shows all the same.
#[must_use]
pub fn doubled_decider(stored: &[(String, String)], verdict: Verdict) -> Option<String> {
    let count = |key: &str| stored.iter().filter(|(k, _)| k.eq_ignore_ascii_case(key)).count();
    let (by_key, foreign) = decider_keys(verdict);
    for key in [by_key, REASON] {
        if count(key) > 1 {
            return Some(format!(
                "the commit message has {} {key}: trailers; a decision names one",
                count(key)
            ));
        }
    }
    (count(foreign) > 0).then(|| {
        format!(
            "the commit message has a {foreign}: trailer, and a decision of `{}` names its decider in {by_key}: alone",
            verdict.as_str()
        )
    })
}

/// A decision's trailers against its signed decider (note line `line`), and the decider as
/// asserted (an `ok` finding, so every report shows it).
#[must_use]
pub fn decision_findings(
    message: &str,
    verdict: Verdict,
    p: &TaskVerificationV0,
    line: usize,
) -> Vec<Finding> {
    let Some(decider) = &p.decider else { return Vec::new() };
    let DecisionTrailers { by_key, by, reason } = DecisionTrailers::read(message, verdict);
    let verb = if verdict == Verdict::Attested { "accepted" } else { "skipped" };
    let mut out = Vec::new();
    let mismatch = |code, msg: String, expected: &str, found: Option<String>| {
        Finding::new(CommitOutcome::Mismatch, code, msg)
            .at_line(line)
            .expected_found(expected, found.unwrap_or_else(|| "(no such trailer)".into()))
    };
    match by {
        Some(name) if name == decider.by => {}
        other => out.push(mismatch(
            "decider_mismatch",
            format!("the {by_key}: trailer is not the signed decider"),
            &decider.by,
            other,
        )),
    }
    match reason {
        Some(reason) if reason == decider.reason => {}
        other => out.push(mismatch(
            "reason_mismatch",
            format!("the {REASON}: trailer is not the signed reason"),
            &decider.reason,
            other,
        )),
    }
    out.push(Finding::new(
        CommitOutcome::Ok,
        "decided_by",
        format!("{verb} by {} (a name asserted, not proven): {}", decider.by, decider.reason),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::predicate::Decider;

    fn decision(by: &str, reason: &str) -> TaskVerificationV0 {
        let mut p: TaskVerificationV0 = serde_json::from_value(serde_json::json!({
            "verdict": "attested",
            "unit": { "format": "speckit", "feature": "001-x", "dir": "specs/001-x" },
            "task": { "id": "T002", "line_hash": "ab", "title": "t" },
            "tree": "t", "policy_sha256": "ef", "time": "2026-10-26T00:00:00Z"
        }))
        .unwrap();
        p.decider = Some(Decider { by: by.into(), reason: reason.into() });
        p
    }

    fn codes(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.code).collect()
    }

    #[test]
    fn matching_trailers_only_show_the_decider_as_asserted() {
        let msg = "s\n\nSpec-Task: 001-x/T002\nVerdict: attested\nAccepted-By: Ada\nReason: by hand\n";
        let f = decision_findings(msg, Verdict::Attested, &decision("Ada", "by hand"), 1);
        assert_eq!(codes(&f), ["decided_by"]);
        assert!(f[0].message.contains("Ada") && f[0].message.contains("not proven"), "{}", f[0].message);
    }

    #[test]
    fn a_trailer_that_differs_from_the_signed_decider_is_a_mismatch() {
        let msg = "s\n\nVerdict: attested\nAccepted-By: Mallory\nReason: by hand\n";
        let f = decision_findings(msg, Verdict::Attested, &decision("Ada", "by hand"), 1);
        assert_eq!(codes(&f), ["decider_mismatch", "decided_by"]);
        assert_eq!(f[0].found.as_deref(), Some("Mallory"));
        let msg = "s\n\nVerdict: skipped\nAccepted-By: Ada\n";
        let f = decision_findings(msg, Verdict::Skipped, &decision("Ada", "r"), 1);
        assert_eq!(codes(&f), ["decider_mismatch", "reason_mismatch", "decided_by"]);
    }
}
