//! Decisions in the verifier: `attested` and `skipped` evidence, whose one line names a decider.
//!
//! - The trailers must repeat the signed decider: `Accepted-By:` (attested) or `Skipped-By:`
//!   (skipped) equal to `decider.by`, `Reason:` equal to `decider.reason`. The name is shown as
//!   asserted, never as proven: only the signature says who signed.
//! - A skip never ticks: a ticked task whose newest task commit is a skip is unverifiable, and each
//!   `refs/speccoder/skipped/<unit>/<task>` of a checked unit is listed as a `skipped` row after its
//!   commit was checked like any task commit (otherwise the row is unverifiable, with the reason).

use std::collections::HashSet;

use crate::git::{Repo, trailers};
use crate::model::predicate::{TaskVerificationV0, Verdict};
use crate::model::refs;
use crate::spec;
use crate::verify::commit::{Checker, CommitReport};
use crate::verify::outcome::{CommitOutcome, Finding, TickOutcome, worst};
use crate::verify::report::TickReport;
use crate::verify::run::VerifyError;
use crate::verify::trust::Trust;

/// The trailer naming who accepted a task.
pub const ACCEPTED_BY: &str = "Accepted-By";
/// The trailer naming who skipped a task.
pub const SKIPPED_BY: &str = "Skipped-By";
/// The trailer giving a decision's reason.
pub const REASON: &str = "Reason";

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
    let found = trailers::parse(message);
    let last = |key: &str| {
        found.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.trim().to_owned())
    };
    let (by_key, verb) =
        if verdict == Verdict::Attested { (ACCEPTED_BY, "accepted") } else { (SKIPPED_BY, "skipped") };
    let mut out = Vec::new();
    let mismatch = |code, msg: String, expected: &str, found: Option<String>| {
        Finding::new(CommitOutcome::Mismatch, code, msg)
            .at_line(line)
            .expected_found(expected, found.unwrap_or_else(|| "(no such trailer)".into()))
    };
    match last(by_key) {
        Some(name) if name == decider.by => {}
        other => out.push(mismatch(
            "decider_mismatch",
            format!("the {by_key}: trailer is not the signed decider"),
            &decider.by,
            other,
        )),
    }
    match last(REASON) {
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

/// A ticked task whose newest task commit is a skip is not evidenced: a skip ticks nothing.
pub fn refuse_skip_as_tick(tick: &mut TickReport) {
    if tick.verdict.as_deref() == Some(Verdict::Skipped.as_str()) && !tick.outcome.fails() {
        tick.outcome = TickOutcome::Unverifiable;
        tick.reason = Some("skip_is_no_tick".into());
        tick.findings.insert(
            0,
            Finding::new(
                CommitOutcome::Mismatch,
                "skip_is_no_tick",
                "the task is ticked, but its newest task commit records a skip, which ticks nothing",
            ),
        );
    }
}

/// One row per skip ref of `unit`: `skipped` when its commit holds a valid signed `skipped`
/// decision for exactly that task, `unverifiable` (with the reason) otherwise. `ticked` holds the
/// `<unit>/<task>` ticked at the head; a skip of one of them is shown as obsolete.
///
/// # Errors
/// The references cannot be listed.
pub fn skip_rows(
    repo: &Repo,
    checker: &Checker<'_>,
    unit: &str,
    ticked: &HashSet<String>,
    trust: &Trust,
) -> Result<Vec<TickReport>, VerifyError> {
    let prefix = refs::skipped_unit_prefix(unit);
    let mut rows = Vec::new();
    for (name, id) in repo.refs_with_prefix(&prefix)? {
        let raw = name.get(prefix.len()..).unwrap_or("");
        let Some(task) = Some(raw).filter(|r| !r.contains('/')).and_then(refs::unescape_component) else {
            rows.push(TickReport::without_commit(
                format!("{unit}/{raw}"),
                "bad_skip_ref",
                format!("{name} is not a skip ref: its task part must be one escaped component"),
            ));
            continue;
        };
        let target = format!("{unit}/{task}");
        let mut report = checker.check(id);
        skip_findings(repo, id, &target, ticked, &mut report);
        let mut row = TickReport::from_commit(report, trust);
        row.task = target;
        if row.outcome == TickOutcome::Evidenced {
            row.outcome = TickOutcome::Skipped;
        }
        rows.push(row);
    }
    Ok(rows)
}

/// What a skip ref's commit must be beyond a valid task commit: about the ref's task, a skip,
/// and of a tree where the task is open.
fn skip_findings(
    repo: &Repo,
    id: gix::ObjectId,
    target: &str,
    ticked: &HashSet<String>,
    report: &mut CommitReport,
) {
    if report.findings.iter().any(|f| f.code == "commit_unreadable") {
        return;
    }
    let findings = &mut report.findings;
    if report.target.as_deref() != Some(target) {
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "skip_ref_mismatch",
                "the skip ref points at a commit about another task",
            )
            .expected_found(target, report.target.clone().unwrap_or_default()),
        );
    }
    if report.verdict.as_deref() != Some(Verdict::Skipped.as_str()) {
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "not_a_skip",
                "the skip ref points at a commit that records no skip",
            )
            .expected_found(Verdict::Skipped.as_str(), report.verdict.clone().unwrap_or_default()),
        );
    }
    let (unit, task) = target.split_once('/').unwrap_or((target, ""));
    let at_commit = repo.commit_tree(id).ok().map(|tree| spec::read_any_task(&repo.tree(tree), unit, task));
    if let Some(Ok(facts)) = at_commit
        && facts.ticked
    {
        findings.push(Finding::new(
            CommitOutcome::Mismatch,
            "skip_of_ticked_task",
            "the skip commit's tree has the task ticked; a skip is for an open task",
        ));
    }
    if ticked.contains(target) {
        findings.push(Finding::new(
            CommitOutcome::Ok,
            "skip_obsolete",
            format!(
                "the task is ticked at the head; the skip is obsolete (`speccoder skip {target} --undo`)"
            ),
        ));
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.outcome));
    report.outcome = worst(findings);
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
