//! A tick's trace against the task it signs: each requirement row (`{requirement,
//! requirement_hash, phase, result}`) for a requirement the task's text cites at the task commit
//! must carry the hash of that requirement's defining line there. A row left out, or one for a
//! requirement this reader does not find cited, claims nothing checked: the published speccoder
//! may read fewer cited ids (on a wrapped line, `FR-009a`), and what the task cites is read
//! from its text ([`crate::spec::TaskFacts::requirements`]), never from the trace, so that the
//! drift check misses no cited requirement whatever the trace holds. Acceptance rows (those with a
//! `scenario`) are not read.

use serde_json::Value;

use crate::check::outcome::{CommitOutcome, Finding};
use crate::model::predicate::TaskVerificationV0;
use crate::model::shown::shown;
use crate::spec::Requirement;

/// How many characters of a requirement id or name a finding shows.
const ID_SHOWN: usize = 120;

/// A trace row whose `requirement_hash` is not the hash of its requirement's line at the task
/// commit.
pub const REQUIREMENT_HASH_MISMATCH: &str = "requirement_hash_mismatch";

/// The requirement rows of `p`'s trace (line `n`) against `cited`, the requirements the task's
/// text cites at the task commit. A trace that is no array has no rows (the value rules say it
/// is malformed).
pub fn requirement_rows(
    p: &TaskVerificationV0,
    cited: &[Requirement],
    n: usize,
    findings: &mut Vec<Finding>,
) {
    let rows: Vec<(&str, &str)> = p
        .audits
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
        .collect();
    for r in cited {
        let mut signed = rows.iter().filter(|(id, _)| *id == r.id).map(|(_, hash)| *hash);
        if let Some(other) = signed.find(|hash| *hash != r.hash) {
            let msg = format!(
                "the trace's requirement_hash for {} is not the hash of its line at the task commit",
                shown(&r.id, ID_SHOWN)
            );
            let finding = Finding::new(CommitOutcome::Mismatch, REQUIREMENT_HASH_MISMATCH, msg).at_line(n);
            findings.push(finding.expected_found(shown(other, 64), r.hash.clone()));
        }
    }
}
