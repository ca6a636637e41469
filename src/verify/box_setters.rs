//! Which commit set each box the head ticks. A task commit's evidence is for the tick it set. When
//! something later takes the tick back (a revert) and a commit that is not the task's own sets it
//! again (a hand edit, the revert of the revert, another task's commit, an evil merge), the head
//! shows that commit's tick, which no evidence covers.

use std::collections::{HashMap, HashSet};
use std::num::NonZero;

use gix::ObjectId;

use super::error::VerifyError;
use super::parallel;
use crate::git::{GitTree, Repo};
use crate::spec::{self, UNIT_PARENTS, UnitLoc};

/// The commits that set the box of each task (`<unit>/<id>`) of the checked units, newest commit
/// time first: the task is ticked in the commit's tree and in none of its parents' trees (a root
/// commit, or one whose parents a shallow clone lacks, sets every box it ticks).
pub(super) struct BoxSetters(HashMap<String, Vec<ObjectId>>);

/// How many consecutive commits one thread reads at a time.
const COMMITS_PER_RUN: usize = 64;

/// A commit of the history that changes at least one checked unit's directory.
struct Changing<'r> {
    /// Its tree.
    tree: GitTree<'r>,
    /// Its parents' trees (those the clone has).
    parents: Vec<GitTree<'r>>,
    /// The checked units whose directory differs from at least one parent's.
    units: Vec<String>,
    /// The directories that differ, under [`UNIT_PARENTS`]: what a partial clone must fetch.
    dirs: Vec<String>,
}

impl BoxSetters {
    /// Reads every commit of `history` (the branch's commits) against its parents, for the units
    /// `units`, on `jobs` threads as [`parallel::map`] shares them. Only commits that change a
    /// unit's directory have their task lists read (in a partial clone, fetched beforehand with
    /// [`Self::dirs_read`]).
    ///
    /// # Errors
    /// A commit or tree cannot be read.
    pub(super) fn find(
        repo: &Repo,
        jobs: Option<NonZero<usize>>,
        history: &[ObjectId],
        units: &[UnitLoc],
    ) -> Result<Self, VerifyError> {
        let wanted: HashSet<&str> = units.iter().map(|u| u.name.as_str()).collect();
        if wanted.is_empty() {
            return Ok(Self(HashMap::new()));
        }
        // Runs of consecutive commits, so that a commit's parent, usually the next one, is read
        // by the same thread, from its cache.
        let runs: Vec<&[ObjectId]> = history.chunks(COMMITS_PER_RUN).collect();
        let set = parallel::map(repo, jobs, runs.len(), |repo, claim| {
            std::iter::from_fn(claim)
                .map(|at| {
                    (at, runs[at].iter().map(|id| boxes_set_by(repo, *id, &wanted)).collect::<Vec<_>>())
                })
                .collect()
        });
        let mut setters: HashMap<String, Vec<ObjectId>> = HashMap::new();
        for (&id, tasks) in history.iter().zip(set.into_iter().flatten()) {
            for task in tasks? {
                setters.entry(task).or_default().push(id);
            }
        }
        Ok(Self(setters))
    }

    /// In a partial clone, the unit directories [`Self::find`] reads, `(tree, dir)`, for the one
    /// batch fetch of what the check reads; nothing in a complete clone.
    ///
    /// # Errors
    /// A commit or tree cannot be read.
    pub(super) fn dirs_read(
        repo: &Repo,
        history: &[ObjectId],
        units: &[UnitLoc],
    ) -> Result<Vec<(ObjectId, String)>, VerifyError> {
        let wanted: HashSet<&str> = units.iter().map(|u| u.name.as_str()).collect();
        let mut dirs = Vec::new();
        if repo.promisor_remote().is_none() || wanted.is_empty() {
            return Ok(dirs);
        }
        for &id in history {
            if let Some(commit) = changing_units(repo, id, &wanted)? {
                for view in std::iter::once(&commit.tree).chain(&commit.parents) {
                    dirs.extend(commit.dirs.iter().map(|dir| (view.id(), dir.clone())));
                }
            }
        }
        Ok(dirs)
    }

    /// A commit other than `evidence` that set the box of `target`, and that `evidence` does not
    /// descend from: the tick the head shows may be that commit's rather than the evidenced one.
    /// Evidence whose own tree does not tick the task (a skip put on the branch) is left to the
    /// commit's own check, which says so more precisely.
    ///
    /// # Errors
    /// The ancestry or the evidence commit cannot be read.
    pub(super) fn later_setter(
        &self,
        repo: &Repo,
        target: &str,
        evidence: ObjectId,
    ) -> Result<Option<ObjectId>, VerifyError> {
        for &setter in self.0.get(target).into_iter().flatten() {
            if setter != evidence && !repo.is_ancestor(setter, evidence)? {
                let (unit, task) = target.split_once('/').unwrap_or((target, ""));
                let ticks_it =
                    ticked(&repo.tree(repo.commit_tree(evidence)?), unit).iter().any(|t| t == task);
                return Ok(ticks_it.then_some(setter));
            }
        }
        Ok(None)
    }
}

/// The tasks (`<unit>/<id>`) of the units in `wanted` whose box commit `id` sets.
fn boxes_set_by(repo: &Repo, id: ObjectId, wanted: &HashSet<&str>) -> Result<Vec<String>, VerifyError> {
    let Some(commit) = changing_units(repo, id, wanted)? else {
        return Ok(Vec::new());
    };
    let mut set = Vec::new();
    for unit in &commit.units {
        let before: Vec<HashSet<String>> =
            commit.parents.iter().map(|parent| ticked(parent, unit).into_iter().collect()).collect();
        for task in ticked(&commit.tree, unit) {
            if before.iter().all(|ticks| !ticks.contains(&task)) {
                set.push(format!("{unit}/{task}"));
            }
        }
    }
    Ok(set)
}

/// Commit `id` when it changes the directory of a unit in `wanted` against one of its parents
/// (or is a root commit, which sets all of them).
fn changing_units<'r>(
    repo: &'r Repo,
    id: ObjectId,
    wanted: &HashSet<&str>,
) -> Result<Option<Changing<'r>>, VerifyError> {
    let commit = repo.commit(id)?;
    let tree = repo.tree(commit.tree);
    // A parent a shallow clone lacks is left out, as git's history leaves it out.
    let parents: Vec<GitTree<'r>> =
        commit.parents.iter().filter_map(|p| repo.commit_tree(*p).ok()).map(|t| repo.tree(t)).collect();
    let mut units: Vec<String> = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    if parents.is_empty() {
        units = wanted.iter().map(|u| (*u).to_owned()).collect();
        dirs = UNIT_PARENTS.iter().map(|d| (*d).to_owned()).collect();
    }
    for parent in parents.iter().filter(|parent| parent.id() != tree.id()) {
        for parent_dir in UNIT_PARENTS {
            for name in tree.changed_names(parent, parent_dir)? {
                let Some(unit) = spec::unit_of_entry(parent_dir, &name).filter(|u| wanted.contains(u)) else {
                    continue;
                };
                if !units.iter().any(|u| u == unit) {
                    units.push(unit.to_owned());
                }
                let dir = format!("{parent_dir}/{name}");
                if !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
    }
    Ok((!units.is_empty()).then_some(Changing { tree, parents, units, dirs }))
}

/// The ticked tasks of `unit` in `tree`. A task list that cannot be read counts as ticking
/// nothing, so that the commit after it that ticks is taken for setting the box: an unreadable
/// step can only make a tick look newer, never older.
fn ticked(tree: &GitTree<'_>, unit: &str) -> Vec<String> {
    spec::ticked_ids(tree, unit).unwrap_or_default()
}
