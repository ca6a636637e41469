//! The verifier policy applied: each row of a run judged by the first rule whose unit globs
//! match its unit ([`rules`]), from the note's signed evidence ([`evidence`]), and the hand
//! ticks of the baseline held apart ([`baseline`]). Beside them, `attest policy init` and
//! `attest policy check`: a starter policy for a repository ([`init`]) and what a policy's rules
//! match today ([`lint`]).
//!
//! Only rows that hold are judged: a row that already fails keeps its reason, and names the rule
//! that would have judged it. A rule's finding makes an evidenced row `unverifiable` (a skip
//! stays `skipped`), with the finding's code as its reason, and fails the run.

pub mod baseline;
pub mod binders;
pub mod evidence;
pub mod init;
pub mod lint;
pub mod rules;
#[cfg(test)]
mod test_support;

use std::collections::HashMap;
use std::fmt::Write as _;

use gix::ObjectId;

use crate::check::outcome::{CommitOutcome, Finding};
use crate::git::Repo;
use crate::model::shown::{SHOWN_MAX, shell_word, shown};
use crate::model::verifier_policy::{LoadedPolicy, Lookalike, Rule, lookalike};
use crate::sign::openpgp::OpenPgpCerts;
use crate::verify::box_setters::BoxSetters;
use crate::verify::policy::baseline::{BaselineView, NotHeld};
use crate::verify::policy::binders::Binders;
use crate::verify::report::{NOT_VERIFIED, TickOutcome, TickReport};
use crate::verify::unread::is_place;

/// The reason of a hand tick that no task commit backs.
const TICKED_WITHOUT_EVIDENCE: &str = "ticked_without_evidence";

/// The verifier policy judging a run's rows one at a time, as they are decided.
pub struct Judge<'a> {
    /// The policy.
    policy: &'a LoadedPolicy,
    /// The baseline's hand ticks, when the policy has a baseline.
    baseline: Option<BaselineView<'a>>,
    /// Each unit's rule, matched once, and whether its name may pass for another's: many rows
    /// share a unit.
    rule_of: HashMap<String, (Option<&'a Rule>, Option<Lookalike>)>,
    /// `--require-verified`: a baseline tick, which has no evidence at all, fails too.
    require_verified: bool,
    /// The certificates of the OpenPGP trust that bind each name the rules give.
    binders: Binders,
    /// The base of the branch under review (the merge base its history starts after), when it
    /// has one: a row the policy fails whose commit that base holds says the tick is older than
    /// the branch.
    branch_base: Option<ObjectId>,
}

impl<'a> Judge<'a> {
    /// A judge by `policy` of the rows of a run whose head (the commit under review) is `head`
    /// and whose history under review starts after `base` (none: all of it), under
    /// `--require-verified` or not, whose trust holds the OpenPGP certificates `certs`, and the
    /// warnings of the run (a baseline outside the head's history, or inside the history under
    /// review).
    #[must_use]
    pub fn new(
        repo: &'a Repo,
        policy: &'a LoadedPolicy,
        head: ObjectId,
        base: Option<ObjectId>,
        require_verified: bool,
        certs: Option<&OpenPgpCerts>,
    ) -> (Self, Vec<String>) {
        let mut warnings = Vec::new();
        let baseline = policy.policy.baseline.as_ref().map(|b| {
            let (view, warning) = BaselineView::new(repo, b, head, base);
            warnings.extend(warning);
            view
        });
        let binders = Binders::new(policy.policy.rules(), certs);
        let judge =
            Judge { policy, baseline, rule_of: HashMap::new(), require_verified, binders, branch_base: None };
        (judge, warnings)
    }

    /// This judge of the rows of a branch whose history under review starts after `base` (the
    /// merge base; none: all of it).
    #[must_use]
    pub fn of_branch_since(self, base: Option<ObjectId>) -> Self {
        Judge { branch_base: base, ..self }
    }

    /// Judges `tick`: a baseline's hand tick becomes `baseline` (it needs `setters`, which
    /// commits set each box of a branch: without them none holds), a hand tick the baseline does
    /// not hold says why and what to do, any other row names its rule, and a row that holds is
    /// held to it.
    pub(in crate::verify) fn judge(&mut self, tick: &mut TickReport, setters: Option<&BoxSetters>) {
        // Read once, here; the report does not keep it.
        let evidence = tick.evidence.take();
        if let (Some(view), Some(setters)) = (&self.baseline, setters)
            && tick.reason.as_deref() == Some(TICKED_WITHOUT_EVIDENCE)
        {
            match view.holds(&tick.task, setters) {
                Ok(()) => {
                    hold_by_baseline(tick, view, self.require_verified);
                    return;
                }
                Err(why) => not_held(tick, view, &why),
            }
        }
        // A place that is no unit's (a stray task list) has no unit for a rule to match.
        if tick.reason.as_deref().is_some_and(is_place) {
            return;
        }
        let unit = matched_name(&tick.task);
        let policy = self.policy;
        let (rule, lookalike) = &*self
            .rule_of
            .entry(unit.to_owned())
            .or_insert_with(|| (policy.policy.rule_for(unit).map(|(_, rule)| rule), lookalike(unit)));
        let rule = *rule;
        tick.rule = rule.map(|r| r.name.0.clone());
        let holds = tick.outcome == TickOutcome::Evidenced
            || (tick.outcome == TickOutcome::Skipped && tick.reason.is_none());
        if !holds {
            return;
        }
        let mut findings = match (rule, lookalike) {
            (_, Some(lookalike)) => vec![Finding::new(
                CommitOutcome::Ok,
                rules::code::MIXED_SCRIPT,
                format!(
                    "the unit name `{}` may pass for another unit's name and escape the rule meant for it: {lookalike}; rename the unit with each word in one script and ASCII punctuation between words",
                    shown(unit, SHOWN_MAX)
                ),
            )],
            (None, None) => vec![Finding::new(
                CommitOutcome::Ok,
                rules::code::NO_RULE,
                format!("no rule of the verifier policy matches `{unit}`; add one whose units match it"),
            )],
            (Some(rule), None) => {
                let evidence = evidence.map(|e| *e).unwrap_or_default();
                rules::judge(rule, &evidence, tick.outcome == TickOutcome::Skipped, &self.binders)
            }
        };
        if let (Some(first), Some(base), Some(setters)) = (findings.first_mut(), self.branch_base, setters) {
            older_than_the_branch(first, tick, (base, setters), self.baseline.is_some());
        }
        refuse(tick, findings);
    }
}

/// When the base of the branch under review holds the commit of `tick` (its task commit, or its
/// skip's), as `setters` tell it, `first`, the policy's first finding of it, says that it was
/// made before the branch and is judged by the policy as it is now; and, when the policy has a
/// `baseline`, that a baseline holds no such tick.
fn older_than_the_branch(
    first: &mut Finding,
    tick: &TickReport,
    (base, setters): (ObjectId, &BoxSetters),
    baseline: bool,
) {
    let Some(commit) = tick.commit.as_deref().and_then(|c| ObjectId::from_hex(c.as_bytes()).ok()) else {
        return;
    };
    if !setters.descends(base, commit) {
        return;
    }
    let _ = write!(
        first.message,
        "; its commit is in the history of the branch's base {base}: a tick made before the branch is judged by the policy as it is now, as every tick of a unit the branch changes is"
    );
    if baseline {
        first
            .message
            .push_str(", and the policy's [baseline] holds hand ticks only, never evidence or a decision");
    }
    first.message.push_str(" (docs/policy.md, \"Evidence made before a rule changed\")");
}

/// The name a row's rule is matched by: its unit's, or for a trailer-only bug task
/// (`<unit>/bug:<slug>`, and the published speccoder's `bugs/<slug>/bug:<slug>`) `bug:<slug>`: its
/// home (`.specify/bugs/<slug>`) is no unit's, and the `<unit>` its writer chose must not choose
/// the rule that judges it.
fn matched_name(task: &str) -> &str {
    if let Some((_, id)) = crate::spec::published_bug(task) {
        return id;
    }
    match task.split_once('/') {
        Some((_, id)) if id.starts_with(crate::spec::BUG_TASK_PREFIX) => id,
        Some((unit, _)) => unit,
        None => task,
    }
}

/// A hand tick the baseline holds; under `--require-verified` (`require_verified`) it stays a
/// `baseline` row and fails (`not_verified`), as an `attested` tick does: it has no evidence.
fn hold_by_baseline(tick: &mut TickReport, view: &BaselineView<'_>, require_verified: bool) {
    tick.outcome = TickOutcome::Baseline;
    tick.reason = require_verified.then(|| NOT_VERIFIED.to_owned());
    let refused = require_verified.then(|| {
        let message =
            "--require-verified: a tick the verifier policy's baseline holds has no evidence, never verified";
        Finding::new(CommitOutcome::Ok, NOT_VERIFIED, message.to_owned())
    });
    tick.findings = refused.into_iter().collect();
    tick.findings.push(Finding::new(
        CommitOutcome::Ok,
        "baseline",
        format!(
            "ticked by hand at the verifier policy's baseline {} and unchanged since: {}",
            view.commit, view.reason
        ),
    ));
}

/// A hand tick the baseline does not hold (`why`): its row's message says why, and what to do
/// (as `attest` says of a ticked task: untick it in a new commit first).
fn not_held(tick: &mut TickReport, view: &BaselineView<'_>, why: &NotHeld) {
    let Some(finding) = tick.findings.iter_mut().find(|f| f.code == TICKED_WITHOUT_EVIDENCE) else {
        return;
    };
    let target = shell_word(&tick.task);
    let _ = write!(
        finding.message,
        "; the verifier policy's baseline {} does not hold it: {why}; untick it in a new commit, then attest it (`speccoder attest {target} --evidence <file>`) or accept it (`speccoder accept {target} --reason <why>`)",
        view.commit
    );
}

/// The row fails by `findings` (first in its list), when there are any.
fn refuse(tick: &mut TickReport, findings: Vec<Finding>) {
    let Some(first) = findings.first() else { return };
    tick.reason = Some(first.code.to_owned());
    if tick.outcome == TickOutcome::Evidenced {
        tick.outcome = TickOutcome::Unverifiable;
    }
    tick.findings.splice(0..0, findings);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;
    use crate::model::verifier_policy::VerifierPolicy;
    use crate::verify::run::{Planned, planned_ticks};

    /// The rows of the ticks at the fixture's HEAD that no task commit made, each judged by the
    /// verifier policy `text`.
    fn judged_rows(fixture: &Fixture, text: &str) -> Vec<TickReport> {
        let policy = VerifierPolicy::parse(text.as_bytes(), "p.toml").unwrap();
        let policy =
            LoadedPolicy { policy, sha256: String::new(), source: "p.toml".into(), local_file: true };
        let (repo, head) = (fixture.repo(), fixture.rev("HEAD"));
        let (planned, setters) = planned_ticks(&repo, head).unwrap();
        let (mut judge, _) = Judge::new(&repo, &policy, head, None, false, None);
        let mut rows: Vec<TickReport> = (planned.into_iter())
            .filter_map(|p| match p {
                Planned::Row(row) => Some(*row),
                Planned::Commit(..) => None,
            })
            .collect();
        for row in &mut rows {
            judge.judge(row, Some(&setters));
        }
        rows
    }

    #[test]
    fn ticks_of_a_directory_named_as_a_bug_task_are_judged_by_no_rule_never_by_the_rule_for_bugs() {
        let fixture = Fixture::new();
        fixture.commit_file("specs/bug:x/tasks.md", "- [x] T001 Do a\n", "A feature named as a bug");
        let text = "version = 1\n[[rule]]\nname = \"bugs\"\nunits = [\"bug:*\"]\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\n";
        let rows = judged_rows(&fixture, text);
        let [row] = &rows[..] else { panic!("one row: {rows:?}") };
        assert_eq!((row.task.as_str(), row.reason.as_deref()), ("specs/bug:x/tasks.md", Some("not_a_unit")));
        assert_eq!(row.rule, None, "{row:?}");
        let said = &row.findings[0].message;
        assert!(said.contains("begins with `bug:`") && said.contains("rename the directory"), "{said}");
    }

    #[test]
    fn a_hand_tick_the_baseline_does_not_hold_says_why_and_what_to_do() {
        let fixture = Fixture::new();
        let tasks = "specs/001-x/tasks.md";
        fixture.commit_file(tasks, "- [x] T001 Do a\n- [ ] T002 Do b\n", "Ticked by hand");
        let adoption = fixture.rev("HEAD");
        fixture.commit_file(tasks, "- [x] T001 Do a\n- [x] T002 Do b\n", "Ticked by hand, after");
        let text = format!(
            "version = 1\n[baseline]\ncommit = \"{adoption}\"\nreason = \"adopted\"\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\n"
        );
        let rows = judged_rows(&fixture, &text);
        let [held, after] = &rows[..] else { panic!("two hand ticks: {rows:?}") };
        assert_eq!((held.task.as_str(), held.outcome), ("001-x/T001", TickOutcome::Baseline));
        assert_eq!(after.reason.as_deref(), Some(TICKED_WITHOUT_EVIDENCE));
        let said = &after.findings[0].message;
        let why =
            format!("; the verifier policy's baseline {adoption} does not hold it: its box was open there");
        let what = "untick it in a new commit, then attest it (`speccoder attest 001-x/T002 --evidence <file>`) or accept it (`speccoder accept 001-x/T002 --reason <why>`)";
        assert!(said.contains(&why) && said.ends_with(what), "{said}");
    }
}
