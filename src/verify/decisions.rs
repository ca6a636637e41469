//! Skips in the verifier's branch rows. A skip never ticks: a ticked task whose newest task commit
//! is a skip is unverifiable, and each `refs/speccoder/skipped/<unit>/<task>` of a checked unit is
//! listed as a `skipped` row after its commit was checked like any task commit (otherwise the row
//! is unverifiable, with the reason), as is each skip ref whose unit the head has nowhere, whose
//! task is then gone at the head. What a decision's line and trailers must say is a rule of
//! agreement ([`crate::check::decision`]).

use std::collections::{HashMap, HashSet};

use crate::check::outcome::{CommitOutcome, Finding, worst};
use crate::check::trailers::{self, task_trailers};
use crate::git::{GitTree, ObjectId, Repo, delete_ref_command};
use crate::model::predicate::Verdict;
use crate::model::refs::{self, SkipOf};
use crate::model::shown::shell_word;
use crate::spec;
use crate::verify::commit::{Checker, CommitReport};
use crate::verify::error::VerifyError;
use crate::verify::report::{TickOutcome, TickReport};
use crate::verify::trust::Trust;

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

/// A skip ref's full name and the commit it points at.
type SkipRef = (String, ObjectId);

/// A task's skip refs: its `<unit>/<task>`, the first ref that names it, and the others.
type TaskSkips = (String, SkipRef, Vec<SkipRef>);

/// One row per task with a skip ref in `unit`: `skipped` when its commit holds a valid signed
/// `skipped` decision for exactly that task, `unverifiable` (with the reason) otherwise. A task's
/// ref is spelt escaped, or as the published speccoder writes it, the unit as it is
/// ([`unit_skip_refs`]); a task with both spellings at one commit is one skip, at two commits two
/// skips of one task, which are a conflict ([`two_skips`]). `ticked` holds the `<unit>/<task>`
/// ticked at the head; a skip of one of them is shown as obsolete.
///
/// # Errors
/// The references cannot be listed.
pub fn skip_rows(
    repo: &Repo,
    checker: &Checker<'_>,
    unit: &spec::UnitLoc,
    ticked: &HashSet<String>,
    trust: &Trust,
) -> Result<Vec<TickReport>, VerifyError> {
    let found = unit_skip_refs(repo, unit)?.into_iter().map(|(name, id, task)| {
        let target = task.map(|task| format!("{}/{task}", unit.name)).ok_or_else(|| {
            let raw = name.get(refs::skipped_unit_prefix(&unit.name).len()..).unwrap_or("");
            TickReport::without_commit(
                format!("{}/{raw}", unit.name),
                "bad_skip_ref",
                format!(
                    "{name} is not a skip ref: its task part must be one escaped component, or a task id as the published speccoder writes it"
                ),
            )
        });
        (name, id, target)
    });
    Ok(rows_of(repo, checker, found, ticked, trust))
}

/// One row per skip whose unit the head under review (`head_tree`) has nowhere, of the units
/// `in_scope` takes: its directory was removed or renamed after the skip, or the change was
/// dropped, and the skip ref stayed. The unit's own rows ([`skip_rows`]) never list it, so it is
/// listed here, checked as any skip: its task is gone at the head (`task_gone_at_head`), which
/// says to undo the skip or to bring the unit back. A ref read as the skip of a task of a unit
/// the head has is that unit's, listed with it when it is checked; of its two readings (ours,
/// the published speccoder's: [`refs::skip_readings`]), the one its commit's `Spec-Task:` names
/// is taken, else ours.
///
/// # Errors
/// The references cannot be listed, or the head's units cannot be told apart from a repository
/// failure.
pub fn gone_unit_skip_rows(
    repo: &Repo,
    checker: &Checker<'_>,
    head_tree: &GitTree<'_>,
    in_scope: impl Fn(&str) -> bool,
    trust: &Trust,
) -> Result<Vec<TickReport>, VerifyError> {
    let locator = spec::UnitLocator::new(head_tree);
    let mut found = Vec::new();
    for (name, id) in repo.refs_with_prefix(refs::SKIPPED_PREFIX)? {
        let readings = refs::skip_readings(&name);
        if !nowhere_at_head(&locator, &readings)? {
            continue;
        }
        let named = repo.commit(id).ok().and_then(|commit| task_trailers(&commit.message).0);
        let is_named = |(unit, task): &&(String, String)| named == Some(format!("{unit}/{task}"));
        let Some((unit, task)) = readings.iter().find(is_named).or(readings.first()) else { continue };
        if in_scope(unit) {
            found.push((name.clone(), id, Ok(format!("{unit}/{task}"))));
        }
    }
    Ok(rows_of(repo, checker, found.into_iter(), &HashSet::new(), trust))
}

/// Whether the head (`locator`'s tree) has none of the units of `readings` (a skip ref's readings,
/// `(unit, task)`): each is unknown there, or no unit can have its name. A name that names no
/// unit ([`refs::skip_readings`] reads none) is nowhere too.
///
/// # Errors
/// The repository fails to tell (an object of the head's tree missing or corrupt).
fn nowhere_at_head(
    locator: &spec::UnitLocator<'_>,
    readings: &[(String, String)],
) -> Result<bool, VerifyError> {
    for (unit, _) in readings {
        match locator.locate(unit) {
            Err(e) if e.is_repository_failure() => return Err(e.into()),
            Err(spec::SpecError::UnknownUnit { .. } | spec::SpecError::BadUnitName { .. }) => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// The rows of the skip refs `found`, each with its `<unit>/<task>` (or the row of a ref that
/// names no task), a task's refs put together in the order its first ref comes ([`skip_row`]).
fn rows_of(
    repo: &Repo,
    checker: &Checker<'_>,
    found: impl Iterator<Item = (String, ObjectId, Result<String, TickReport>)>,
    ticked: &HashSet<String>,
    trust: &Trust,
) -> Vec<TickReport> {
    // Each task's first ref and its others, in the order the first refs come, beside the refs
    // that name no task.
    let mut entries: Vec<Result<TaskSkips, TickReport>> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (name, id, target) in found {
        let target = match target {
            Ok(target) => target,
            Err(bad) => {
                entries.push(Err(bad));
                continue;
            }
        };
        match at.get(&target) {
            Some(&i) => {
                if let Some(Ok((_, _, others))) = entries.get_mut(i) {
                    others.push((name, id));
                }
            }
            None => {
                at.insert(target.clone(), entries.len());
                entries.push(Ok((target, (name, id), Vec::new())));
            }
        }
    }
    entries
        .into_iter()
        .map(|entry| {
            entry.map_or_else(
                |bad| bad,
                |(target, first, others)| skip_row(repo, checker, target, &first, &others, ticked, trust),
            )
        })
        .collect()
}

/// The skip refs of `unit`, each with the task it is the skip of (`None`: under the unit's own
/// prefix but naming none of its tasks), under both prefixes ([`refs::skip_prefixes`]: ours, the
/// unit escaped, and the published speccoder's, the unit as it is), each read by
/// [`trailers::skip_ref_of`]: our spelling, or a task id of the unit's format as the published
/// speccoder writes it.
///
/// # Errors
/// The references cannot be listed.
fn unit_skip_refs(
    repo: &Repo,
    unit: &spec::UnitLoc,
) -> Result<Vec<(String, ObjectId, Option<String>)>, VerifyError> {
    let mut out = Vec::new();
    for prefix in refs::skip_prefixes(&unit.name) {
        for (name, id) in repo.refs_with_prefix(&prefix)? {
            let is_task_id = |task: &str| spec::is_task_id(unit.format, task);
            let task = match trailers::skip_ref_of(repo, (&name, id), &unit.name, is_task_id) {
                SkipOf::Task(task) => Some(task),
                SkipOf::NoTask => None,
                SkipOf::Shared { .. } | SkipOf::Other => continue,
            };
            out.push((name, id, task));
        }
    }
    Ok(out)
}

/// The first skip ref of each task of `unit` that has one, by `<unit>/<task>`, named as
/// [`skip_rows`] reads them: what the row of a task ticked without evidence points to, since a
/// person who ticked a skipped task may have meant to undo the skip.
///
/// # Errors
/// The references cannot be listed.
pub fn skip_refs(repo: &Repo, unit: &spec::UnitLoc) -> Result<HashMap<String, String>, VerifyError> {
    let mut found = HashMap::new();
    for (name, _, task) in unit_skip_refs(repo, unit)? {
        if let Some(task) = task {
            found.entry(format!("{}/{task}", unit.name)).or_insert(name);
        }
    }
    Ok(found)
}

/// The row of the skip of `target` that its ref `first` and any `others` (its other spelling)
/// point at.
fn skip_row(
    repo: &Repo,
    checker: &Checker<'_>,
    target: String,
    (first, id): &SkipRef,
    others: &[SkipRef],
    ticked: &HashSet<String>,
    trust: &Trust,
) -> TickReport {
    if let Some((other, _)) = others.iter().find(|(_, other)| other != id) {
        return two_skips(target, first, other);
    }
    let mut report = checker.check(*id);
    skip_findings(repo, *id, &target, ticked, &mut report);
    let mut row = TickReport::from_commit(report, trust);
    row.task = target;
    row
}

/// The row of a task whose two skip refs, `one` and `other` (its escaped spelling and the
/// published speccoder's), point at different commits: two skips of one task are a conflict, as
/// `attest fetch` calls them, and neither is listed until one is deleted.
fn two_skips(target: String, one: &str, other: &str) -> TickReport {
    let message = format!(
        "{target} has two skips, {one} and {other}, at different commits; keep one, deleting the other (`{}` or `{}`), and verify again",
        delete_ref_command(one),
        delete_ref_command(other)
    );
    TickReport::without_commit(target, "two_skips", message)
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
                "the task is ticked at the head; the skip is obsolete (`speccoder skip {} --undo`)",
                shell_word(target)
            ),
        ));
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.outcome));
    report.outcome = worst(findings);
}
