//! The anchor of a trailer-only bug task: a bug home (`.specify/bugs/<slug>/`) has no task line,
//! so the evidence names the home and its triad instead; both must match the home in the task
//! commit's tree ([`crate::spec::triad_sha256`]). The published speccoder's record of such a bug
//! (`bugs/<slug>/bug:<slug>`, [`crate::spec::published_bug`]) has an anchor of its own, which no
//! rule here computes: it is never taken for one that holds ([`PUBLISHED_BUG_UNANCHORED`]).

use serde_json::Value;

use crate::check::outcome::{CommitOutcome, Finding};
use crate::model::clean::shown_if_clean;
use crate::model::predicate::TaskVerificationV0;
use crate::spec::TaskFacts;

/// The finding of a task commit of the published speccoder's record of a Spec Kit bug: nothing ties
/// its decision to the bug home.
pub const PUBLISHED_BUG_UNANCHORED: &str = "published_bug_unanchored";

/// The published speccoder's record (`bug keep`, a bug fix) of the bug of Spec Kit's `bug`
/// extension that `task` (`bug:<slug>`) of `unit` (`bugs/<slug>`, its home `.specify/bugs/<slug>`)
/// names, signed as `p` at note line `line`: its `bug.triad_sha256` is that speccoder's digest of
/// what the assessment says, not the digest of the home's files this verifier anchors a bug by, so
/// the rest of the note is checked and this is a `mismatch` that says so and how to close the bug
/// with a record this verifier checks.
#[must_use]
pub fn published_bug_finding(p: &TaskVerificationV0, (unit, task): (&str, &str), line: usize) -> Finding {
    let signed = p.bug.as_ref().and_then(|b| b.get("triad_sha256")).and_then(Value::as_str);
    let home = format!(".specify/{unit}");
    Finding::new(
        CommitOutcome::Mismatch,
        PUBLISHED_BUG_UNANCHORED,
        format!(
            "the published speccoder's record of the Spec Kit bug {home} (its unit `{unit}` names that bug home, its task is {task}): its anchor, bug.triad_sha256, is that speccoder's digest of what the assessment says, which this verifier does not compute, so nothing ties the decision to the home and the task is not verified (the rest of the note is checked as any decision's); to have the bug checked, close it with a record this verifier anchors: `speccoder attest <unit>/{task} --evidence FILE`, the home holding assessment.md, fix.md and test.md"
        ),
    )
    .at_line(line)
    .expected_found(
        format!("the digest of {home}'s assessment.md, fix.md and test.md"),
        signed.map_or_else(|| "(absent)".to_owned(), |s| shown_if_clean(s, SHOWN_DIGEST)),
    )
}

/// How much of a signed anchor a finding shows: a digest and its prefix.
const SHOWN_DIGEST: usize = 80;

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
