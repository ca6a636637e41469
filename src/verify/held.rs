//! What `attest export` takes of a report: nothing unless every row holds, and then the head, each
//! tick's task commit and level, and the verifier policy (`model::held`). Skips are listed by the
//! verifier and never evidence, so they give no level and no commit to export.

use gix::ObjectId;

use crate::model::held::{HeldRange, HeldTick, Level, PolicyRef};
use crate::model::predicate::Verdict;
use crate::verify::report::{Report, TickOutcome, TickReport};

/// The range `report` checked at `head`, when every row holds; `None` when one fails (or an
/// evidenced row carries no verdict that proves a level, which the verifier never makes).
#[must_use]
pub fn held_range(report: &Report, head: ObjectId) -> Option<HeldRange> {
    if report.ticks.iter().any(TickReport::fails) {
        return None;
    }
    let mut ticks = Vec::new();
    for row in &report.ticks {
        let level = match row.outcome {
            TickOutcome::Evidenced => Level::of_verdict(row.verdict.as_deref().and_then(Verdict::parse)?)?,
            TickOutcome::Baseline => Level::Baseline,
            TickOutcome::Skipped => continue,
            TickOutcome::Stale | TickOutcome::Unverifiable | TickOutcome::Regressed => return None,
        };
        let commit = if level == Level::Baseline { None } else { Some(row.commit.clone()?) };
        ticks.push(HeldTick { commit, level });
    }
    let policy = report
        .verifier_policy
        .as_ref()
        .map(|p| PolicyRef { source: p.source.clone(), sha256: p.sha256.clone() });
    Some(HeldRange { head: head.to_string(), ticks, policy })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::outcome::CommitOutcome;
    use crate::verify::commit::CommitReport;
    use crate::verify::trust::Trust;

    fn row(verdict: &str, outcome: CommitOutcome) -> TickReport {
        let report = CommitReport {
            target: Some("u/T001".into()),
            verdict: Some(verdict.into()),
            outcome,
            ..CommitReport::new("c0ffee".into())
        };
        TickReport::from_commit(report, &Trust::default())
    }

    #[test]
    fn a_report_that_holds_gives_each_tick_s_commit_and_level_and_skips_give_none() {
        let head = ObjectId::null(gix::hash::Kind::Sha1);
        let ticks = vec![
            row("verified", CommitOutcome::Ok),
            row("skipped", CommitOutcome::Ok),
            row("attested", CommitOutcome::Ok),
        ];
        let held = held_range(&Report::new("branch", ticks, &Trust::default()), head).expect("it holds");
        assert_eq!(held.level(), Some(Level::Attested));
        assert_eq!(held.task_commits(), ["c0ffee"]);
        assert_eq!(held.ticks.len(), 2);
        assert_eq!(held.head, head.to_string());

        let failing = vec![row("verified", CommitOutcome::Ok), row("verified", CommitOutcome::BadSignature)];
        assert_eq!(held_range(&Report::new("branch", failing, &Trust::default()), head), None);
    }
}
