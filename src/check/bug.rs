//! The anchor of a trailer-only bug task: a bug home (`.specify/bugs/<slug>/`) has no task line,
//! so the evidence names the home and its triad instead; both must match the home in the task
//! commit's tree ([`crate::spec::triad_sha256`]).

use serde_json::Value;

use crate::check::outcome::{CommitOutcome, Finding};
use crate::model::predicate::TaskVerificationV0;
use crate::spec::TaskFacts;

/// For a trailer-only task, the signed `bug.triad_sha256` and `bug.home` against the bug home in
/// the task commit's tree (`facts`, read there); nothing for a listed task.
#[must_use]
pub fn anchor_findings(p: &TaskVerificationV0, facts: &TaskFacts, line: usize) -> Vec<Finding> {
    if !facts.is_trailer_only() {
        return Vec::new();
    }
    let bug = p.bug.as_ref().and_then(Value::as_object);
    let field = |key: &str| bug.and_then(|b| b.get(key)).and_then(Value::as_str).map(str::to_owned);
    let mut out = Vec::new();
    let triad = field("triad_sha256");
    if triad.as_deref() != Some(facts.section_hash.as_str()) {
        out.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "triad_mismatch",
                "the signed bug.triad_sha256 is not the digest of the bug home at the task commit",
            )
            .at_line(line)
            .expected_found(triad.unwrap_or_else(|| "(absent)".into()), facts.section_hash.clone()),
        );
    }
    let home = field("home");
    if home.as_deref() != Some(facts.tasks_path.as_str()) {
        out.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "bug_home_mismatch",
                "the signed bug.home is not the task's bug home",
            )
            .at_line(line)
            .expected_found(home.unwrap_or_else(|| "(absent)".into()), facts.tasks_path.clone()),
        );
    }
    out
}
