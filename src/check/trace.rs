//! A tick's trace against the task it signs: each requirement row (`{requirement,
//! requirement_hash, phase, result}`) for a requirement the task's text cites at the task commit
//! must carry the hash of that requirement's defining line there. A row left out, or one for a
//! requirement this reader does not find cited, claims nothing checked: the published speccoder
//! may read fewer cited ids (on a wrapped line, `FR-009a`, a requirement written otherwise than in
//! Spec Kit's template form, which earlier versions of this reader did not read either), and what
//! the task cites is read from its text ([`crate::spec::TaskFacts::requirements`]), never from the
//! trace, so that the drift check misses no cited requirement whatever the trace holds. Acceptance
//! rows (those with a `scenario`) are not read.

use std::collections::HashMap;

use serde_json::Value;

use crate::check::outcome::{CommitOutcome, Finding};
use crate::model::clean::shown_if_clean;
use crate::model::predicate::TaskVerificationV0;
use crate::spec::Requirement;

/// How many characters of a requirement id or name a finding shows.
const ID_SHOWN: usize = 120;

/// A trace row whose `requirement_hash` is not the hash of its requirement's line at the task
/// commit.
pub const REQUIREMENT_HASH_MISMATCH: &str = "requirement_hash_mismatch";

/// The requirement rows of `p`'s trace (line `n`) against `cited`, the requirements the task's
/// text cites at the task commit. A trace that is no array has no rows (the value rules say it
/// is malformed). The rows are gathered by requirement once, so that each cited requirement is a
/// lookup, not a search of every row.
pub fn requirement_rows(
    p: &TaskVerificationV0,
    cited: &[Requirement],
    n: usize,
    findings: &mut Vec<Finding>,
) {
    let mut by_requirement: HashMap<&str, Vec<&str>> = HashMap::new();
    for (id, hash) in rows(p) {
        by_requirement.entry(id).or_default().push(hash);
    }
    for r in cited {
        let mut signed = by_requirement.get(r.id.as_str()).into_iter().flatten();
        if let Some(other) = signed.find(|hash| **hash != r.hash) {
            let msg = format!(
                "the trace's requirement_hash for {} is not the hash of its line at the task commit",
                shown_if_clean(&r.id, ID_SHOWN)
            );
            let finding = Finding::new(CommitOutcome::Mismatch, REQUIREMENT_HASH_MISMATCH, msg).at_line(n);
            findings.push(finding.expected_found(shown_if_clean(other, 64), r.hash.clone()));
        }
    }
}

/// The requirement rows of `p`'s trace, in order: each row's `requirement` and
/// `requirement_hash` (empty when not a string). Acceptance rows (with a `scenario`) are left out.
fn rows(p: &TaskVerificationV0) -> impl Iterator<Item = (&str, &str)> {
    p.audits
        .trace
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|row| row.is_object() && row.get("scenario").is_none())
        .map(|row| {
            let text = |key| row.get(key).and_then(Value::as_str).unwrap_or_default();
            (text("requirement"), text("requirement_hash"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_trace(trace: Value) -> TaskVerificationV0 {
        serde_json::from_value(serde_json::json!({
            "verdict": "attested",
            "unit": { "format": "speckit", "feature": "001-x", "dir": "specs/001-x" },
            "task": { "id": "T002", "line_hash": "ab", "title": "t" },
            "tree": "t", "policy_sha256": "ef", "time": "2026-10-26T00:00:00Z",
            "trace": trace
        }))
        .unwrap()
    }

    #[test]
    fn each_cited_requirement_is_held_to_its_own_rows_naming_the_first_wrong_hash_in_cited_order() {
        let cited: Vec<Requirement> =
            ["FR-002", "FR-001", "FR-003", "FR-004"].iter().map(|id| Requirement::new(id, id)).collect();
        let hash = |id: &str| Requirement::new(id, id).hash;
        let p = with_trace(serde_json::json!([
            { "requirement": "FR-001", "requirement_hash": hash("FR-001") },
            { "requirement": "FR-001", "requirement_hash": "first wrong" },
            { "requirement": "FR-001", "requirement_hash": "second wrong" },
            { "requirement": "FR-002", "requirement_hash": 7 },
            { "requirement": "FR-003", "requirement_hash": "a scenario's", "scenario": "S1" },
            { "requirement": "FR-009", "requirement_hash": "not cited" },
            "no row",
        ]));
        let mut findings = Vec::new();
        requirement_rows(&p, &cited, 3, &mut findings);
        assert!(findings.iter().all(|f| f.code == REQUIREMENT_HASH_MISMATCH && f.line == Some(3)));
        let got: Vec<(Option<&str>, Option<&str>)> =
            findings.iter().map(|f| (f.expected.as_deref(), f.found.as_deref())).collect();
        let (one, two) = (hash("FR-001"), hash("FR-002"));
        assert_eq!(got, [(Some(""), Some(two.as_str())), (Some("first wrong"), Some(one.as_str()))]);
    }
}
