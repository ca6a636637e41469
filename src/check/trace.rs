//! A tick's trace against the task it signs: one requirement row (`{requirement,
//! requirement_hash, phase, result}`) for each requirement the task's text cites at the task
//! commit, its `requirement_hash` the hash of the requirement's defining line there, and no row
//! for a requirement the task does not cite. Acceptance rows (those with a `scenario`) are not
//! read. What the task cites is read from its text ([`crate::spec::TaskFacts::requirements`]),
//! never from the trace, so that leaving a row out hides no requirement from the drift check.

use serde_json::Value;

use crate::check::outcome::{CommitOutcome, Finding};
use crate::model::predicate::TaskVerificationV0;
use crate::model::shown::shown;
use crate::spec::Requirement;

/// How many characters of a requirement id or name a finding shows.
const ID_SHOWN: usize = 120;
/// How many ids of rows the task does not cite a finding names.
const NOT_CITED_SHOWN: usize = 5;

/// A trace row whose `requirement_hash` is not the hash of its requirement's line at the task
/// commit.
pub const REQUIREMENT_HASH_MISMATCH: &str = "requirement_hash_mismatch";
/// A requirement the task cites at the task commit with no row in the trace.
pub const TRACE_ROW_MISSING: &str = "trace_row_missing";
/// A requirement row for a requirement the task does not cite at the task commit.
pub const TRACE_ROW_NOT_CITED: &str = "trace_row_not_cited";

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
    let mismatch =
        |code: &'static str, msg: String| Finding::new(CommitOutcome::Mismatch, code, msg).at_line(n);
    for r in cited {
        let mut signed = rows.iter().filter(|(id, _)| *id == r.id).map(|(_, hash)| *hash).peekable();
        let shown_id = shown(&r.id, ID_SHOWN);
        if signed.peek().is_none() {
            let msg = format!(
                "the task cites requirement {shown_id} at the task commit, and the trace has no row for it"
            );
            findings.push(mismatch(TRACE_ROW_MISSING, msg));
        } else if let Some(other) = signed.find(|hash| *hash != r.hash) {
            let msg = format!(
                "the trace's requirement_hash for {shown_id} is not the hash of its line at the task commit"
            );
            findings.push(
                mismatch(REQUIREMENT_HASH_MISMATCH, msg).expected_found(shown(other, 64), r.hash.clone()),
            );
        }
    }
    let mut not_cited: Vec<&str> =
        rows.iter().map(|(id, _)| *id).filter(|id| !cited.iter().any(|r| r.id == *id)).collect();
    not_cited.sort_unstable();
    not_cited.dedup();
    if !not_cited.is_empty() {
        let named: Vec<String> =
            not_cited.iter().take(NOT_CITED_SHOWN).map(|id| format!("`{}`", shown(id, ID_SHOWN))).collect();
        let more = not_cited.len().saturating_sub(NOT_CITED_SHOWN);
        let more = if more > 0 { format!(" (and {more} more)") } else { String::new() };
        let msg = format!(
            "the trace has a requirement row for {}{more}, which the task's text at the task commit does not cite (or no line of the spec defines)",
            named.join(", ")
        );
        findings.push(mismatch(TRACE_ROW_NOT_CITED, msg));
    }
}
