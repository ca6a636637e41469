//! Trailer-only bug tasks in the verifier. A bug home (`.specify/bugs/<slug>/`) has no task line,
//! so `--branch` finds its closing commits by their `Spec-Task:` trailer ([`spec::bug_slug`]:
//! `<unit>/bug:<slug>`, the published speccoder's `bugs/<slug>/bug:<slug>`, or any other name with
//! a `bug:` task, which the check of its commit then judges): every one in base..head, and the
//! newest closing of every bug whose home changed in that range (everything reachable without a
//! base). None is passed over: a record the verifier cannot anchor is a row that says so
//! ([`crate::check::bug::PUBLISHED_BUG_UNANCHORED`]). Each is checked by the same rules as a tick; its anchor
//! is `bug.triad_sha256` ([`crate::spec::triad_sha256`]), which must match the home at the task
//! commit ([`crate::check::bug`]), and a triad that differs at the head makes the tick `stale`.

use std::collections::{HashMap, HashSet};

use gix::ObjectId;

use crate::git::Repo;
use crate::spec;
use crate::verify::commit::Checker;
use crate::verify::decisions;
use crate::verify::drift::{triad_drift, with_drift};
use crate::verify::error::VerifyError;
use crate::verify::report::TickReport;
use crate::verify::rewritten::LostEvidence;
use crate::verify::trust::Trust;

/// One row per bug task closed on the branch (see the module documentation). `task_commit` maps
/// each `<unit>/<task>` to its newest reachable task commit; `lost` tells a closing commit
/// rewritten since (its evidence left on the old commit) from one whose note was never fetched.
///
/// # Errors
/// The history or a tree cannot be read.
pub fn bug_rows(
    repo: &Repo,
    checker: &Checker<'_>,
    trust: &Trust,
    head: ObjectId,
    base: Option<ObjectId>,
    task_commit: &HashMap<String, ObjectId>,
    lost: &LostEvidence<'_>,
) -> Result<Vec<TickReport>, VerifyError> {
    let head_tree = repo.tree(repo.commit_tree(head)?);
    let (in_range, base_tree) = match base {
        Some(b) => (
            Some(repo.walk(head, &[b])?.into_iter().collect::<HashSet<_>>()),
            Some(repo.tree(repo.commit_tree(b)?)),
        ),
        None => (None, None),
    };
    let mut bugs: Vec<(&String, ObjectId, String)> = task_commit
        .iter()
        .filter_map(|(target, id)| Some((target, *id, spec::bug_slug(target)?.to_owned())))
        .collect();
    bugs.sort();
    let mut rows = Vec::new();
    for (target, id, slug) in bugs {
        let chosen = match (&in_range, &base_tree) {
            (Some(range), Some(base_tree)) => {
                range.contains(&id)
                    || (spec::check_bug_slug(&slug).is_ok()
                        && base_tree.entry_id(&spec::bug_home(&slug))?
                            != head_tree.entry_id(&spec::bug_home(&slug))?)
            }
            _ => true,
        };
        if !chosen {
            continue;
        }
        let mut report = checker.check(id);
        lost.hint_carry(&mut report);
        let mut row = TickReport::from_commit(report, trust);
        decisions::refuse_skip_as_tick(&mut row);
        // The published speccoder's record is anchored by no digest of the home's files.
        if spec::published_bug(target).is_none() {
            with_drift(&mut row, triad_drift(repo, id, &head_tree, &slug).into_iter().collect());
        }
        rows.push(row);
    }
    Ok(rows)
}
