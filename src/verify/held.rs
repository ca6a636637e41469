//! What `attest export` takes of a report: nothing unless every row holds, and then the head and
//! how much of its history was checked, each tick's task commit and level, and the verifier policy
//! (`model::held`). Skips are listed by the verifier and never evidence, so they give no level and
//! no commit to export.

use crate::model::held::{HeldRange, HeldTick, History, Level, PolicyRef};
use crate::model::predicate::Verdict;
use crate::verify::Checked;
use crate::verify::report::{Report, ReportEnd, ReportHead, ReportSink, TickOutcome, TickReport};

/// The range `report` checked (`checked`), when every row holds; `None` when one fails (or an
/// evidenced row carries no verdict that proves a level, which the verifier never makes).
#[must_use]
pub fn held_range(report: &Report, checked: Checked) -> Option<HeldRange> {
    let mut held = Held::default();
    report.replay(&mut held);
    held.range(checked)
}

/// What [`held_range`] takes of a report, taken as its rows come ([`Held::take`], or as a
/// [`ReportSink`]), so that a run need not keep them.
#[derive(Debug, Default)]
pub struct Held {
    /// The ticks that hold so far, in the report's order.
    ticks: Vec<HeldTick>,
    /// A row failed, or proves no level.
    fails: bool,
    /// The verifier policy the report names.
    policy: Option<PolicyRef>,
}

impl Held {
    /// Takes what the row `row` proves.
    pub fn take(&mut self, row: &TickReport) {
        if self.fails || row.fails() {
            self.fails = true;
            return;
        }
        let level = match row.outcome {
            TickOutcome::Evidenced => {
                row.verdict.as_deref().and_then(Verdict::parse).and_then(Level::of_verdict)
            }
            TickOutcome::Baseline => Some(Level::Baseline),
            TickOutcome::Skipped => return,
            TickOutcome::Stale | TickOutcome::Unverifiable | TickOutcome::Regressed => None,
        };
        // A baseline tick has no task commit; every other tick that holds has one.
        let tick = match level {
            Some(Level::Baseline) => Some(HeldTick { commit: None, level: Level::Baseline }),
            Some(level) => row.commit.clone().map(|commit| HeldTick { commit: Some(commit), level }),
            None => None,
        };
        match tick {
            Some(tick) => self.ticks.push(tick),
            None => self.fails = true,
        }
    }

    /// The range `checked` names, when every row taken holds: its head, and its base as the
    /// verifier resolved it (peeled; for `--base`, the merge base with the head). A task commit
    /// checked alone ([`Checked::One`]) is none: its check does not see a box its commit ticks by
    /// hand, so no summary speaks for it (`attest export REV` checks `REV^..REV`).
    #[must_use]
    pub fn range(self, checked: Checked) -> Option<HeldRange> {
        let (head, history) = match checked {
            Checked::One(_) => return None,
            Checked::Range { head, base: None } => (head, History::Whole),
            Checked::Range { head, base: Some(base) } => (head, History::Since(base.to_string())),
        };
        (!self.fails).then(|| HeldRange {
            head: head.to_string(),
            history,
            ticks: self.ticks,
            policy: self.policy,
        })
    }
}

impl ReportSink for Held {
    fn begin(&mut self, head: &ReportHead) {
        self.policy = head.verifier_policy.as_ref().map(|p| PolicyRef {
            source: p.source.clone(),
            sha256: p.sha256.clone(),
            local_file: p.local_file,
        });
    }
    fn row(&mut self, tick: TickReport) {
        self.take(&tick);
    }
    fn end(&mut self, _: &ReportHead, _: &ReportEnd) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::outcome::CommitOutcome;
    use crate::verify::commit::CommitReport;
    use crate::verify::trust::Trust;
    use gix::ObjectId;

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
        let whole = Checked::Range { head, base: None };
        let ticks = vec![
            row("verified", CommitOutcome::Ok),
            row("skipped", CommitOutcome::Ok),
            row("attested", CommitOutcome::Ok),
        ];
        let held = held_range(&Report::new("branch", ticks, &Trust::default()), whole).expect("it holds");
        assert_eq!(held.level(), Some(Level::Attested));
        assert_eq!(held.task_commits(), ["c0ffee"]);
        assert_eq!(held.ticks.len(), 2);
        assert_eq!(held.head, head.to_string());
        assert_eq!(held.history, History::Whole);

        let failing = vec![row("verified", CommitOutcome::Ok), row("verified", CommitOutcome::BadSignature)];
        assert_eq!(held_range(&Report::new("branch", failing, &Trust::default()), whole), None);
    }

    #[test]
    fn a_range_with_a_base_is_handed_on_as_less_than_the_whole_history_and_one_task_commit_never() {
        let head = ObjectId::from_hex(b"1111111111111111111111111111111111111111").unwrap();
        let base = ObjectId::from_hex(b"2222222222222222222222222222222222222222").unwrap();
        let held = |checked| {
            let ticks = vec![row("verified", CommitOutcome::Ok)];
            held_range(&Report::new("commits", ticks, &Trust::default()), checked).map(|held| held.history)
        };
        assert_eq!(held(Checked::Range { head, base: Some(base) }), Some(History::Since(base.to_string())));
        assert_eq!(held(Checked::Range { head, base: None }), Some(History::Whole));
        assert_eq!(held(Checked::One(head)), None);
    }
}
