//! Which commit set each box the head ticks. A task commit's evidence is for the tick it set. When
//! something later takes the tick back (a revert) and a commit that is not the task's own sets it
//! again (a hand edit, the revert of the revert, another task's commit, an evil merge), the head
//! shows that commit's tick, which no evidence covers.

use std::collections::{HashMap, HashSet};
use std::num::NonZero;
use std::sync::Arc;

use gix::ObjectId;

use super::ancestry::Ancestry;
use super::error::VerifyError;
use super::parallel;
use crate::check::agreement::Learned;
use crate::git::{Commit, GitTree, KnownDirs, Repo};
use crate::spec::{self, Format, SPECKIT_SPECS_DIR, SharedTaskLists, TaskLists, UNIT_PARENTS, UnitLoc};

/// The commits that set the box of each task (`<unit>/<id>`) of the checked units, in no
/// particular order: the task is ticked in the commit's tree and in none of its parents' trees (a root
/// commit, or one whose parents a shallow clone lacks, sets every box it ticks). With them, the
/// ancestry of the history they were found in, and the unit directories resolved on the way,
/// read in the same pass.
pub(super) struct BoxSetters {
    /// Each task's setters.
    setters: HashMap<String, Vec<ObjectId>>,
    /// Which commit of the history descends from which.
    ancestry: Ancestry,
    /// The directory of each unit a commit changes, by the commit's tree: the check of a task
    /// commit starts from it instead of reading `specs/` (one entry per unit) again; and the task
    /// lists parsed, which the check takes instead of parsing them again.
    learned: Learned,
}

/// How many consecutive commits one thread reads at a time, at most: a run's first commit is the
/// only one whose parent is not in the thread's cache already.
const COMMITS_PER_RUN: usize = 64;

/// How many runs a history is cut into at least (down to [`MIN_COMMITS_PER_RUN`] commits each),
/// so that the threads finish within a short run of each other: with runs of 64, a history of
/// 200 commits left one thread reading a whole run alone at the end.
const MIN_RUNS: usize = 16;

/// How few consecutive commits one thread reads at a time, at least.
const MIN_COMMITS_PER_RUN: usize = 8;

/// A commit of the history that changes at least one checked unit's directory.
struct Changing<'r> {
    /// Its tree.
    tree: GitTree<'r>,
    /// How many parents it has (those the clone has); none for a root commit.
    parents: usize,
    /// The checked units whose directory differs from at least one parent's.
    units: Vec<UnitChange>,
    /// The directories that differ, under [`UNIT_PARENTS`], in the commit's and the parents'
    /// trees: what a partial clone must fetch, and what the check of the commit is handed.
    dirs: Vec<(ObjectId, String)>,
}

/// A checked unit's directory in a commit and in the parents where it differs.
struct UnitChange {
    /// The unit.
    unit: String,
    /// Its format.
    format: Format,
    /// Its directory in the commit (`None`: none there).
    ours: Option<ObjectId>,
    /// Its directory in each parent where it differs, by the parent's position.
    theirs: Vec<(usize, Option<ObjectId>)>,
}

impl BoxSetters {
    /// The names of the checked units, as [`Self::find`] and [`Self::set_by`] take them.
    pub(super) fn wanted(units: &[UnitLoc]) -> HashSet<String> {
        units.iter().map(|u| u.name.clone()).collect()
    }

    /// Reads every commit of `history` (every commit reachable from the head) against its
    /// parents, for the units `wanted`, on `jobs` threads as [`parallel::map`] shares them. Only
    /// commits that change a unit's directory have their task lists read (in a partial clone,
    /// fetched beforehand with [`Self::dirs_read`]).
    ///
    /// # Errors
    /// A commit or tree cannot be read.
    pub(super) fn find(
        repo: &Repo,
        jobs: Option<NonZero<usize>>,
        history: &[ObjectId],
        wanted: &HashSet<String>,
    ) -> Result<Self, VerifyError> {
        // Runs of consecutive commits, so that a commit's parent, usually the next one, is read
        // by the same thread, from its cache.
        let runs: Vec<&[ObjectId]> = history.chunks(run_length(history.len())).collect();
        let lists = Arc::new(SharedTaskLists::default());
        let set = parallel::map(repo, jobs, runs.len(), history.len(), |repo, claim, done| {
            let lists = TaskLists::sharing(Arc::clone(&lists));
            while let Some(at) = claim() {
                let mut known = KnownDirs::default();
                let read: Vec<_> =
                    runs[at].iter().map(|id| Self::read(repo, &lists, &mut known, *id, wanted)).collect();
                done(at, (read, known));
            }
        });
        let mut setters = HashMap::new();
        let mut parents = Vec::with_capacity(history.len());
        let mut known = KnownDirs::default();
        let mut ids = history.iter();
        for (read, run_known) in set {
            known.extend(run_known);
            // `read` first: the zip stops at the end of the run without taking the next id.
            for (read, &id) in read.into_iter().zip(ids.by_ref()) {
                let (of, tasks) = read?;
                parents.push(of);
                for task in tasks {
                    setters.entry(task).or_insert_with(Vec::new).push(id);
                }
            }
        }
        let learned = Learned { dirs: Arc::new(known), lists };
        Ok(Self { setters, ancestry: Ancestry::new(history, &parents), learned })
    }

    /// The unit directories resolved in the commits read, by tree ([`KnownDirs`]), and the task
    /// lists parsed.
    pub(super) fn learned(&self) -> Learned {
        self.learned.clone()
    }

    /// The parents of commit `id` and the tasks of `wanted` whose box it sets ([`Self::set_by`]).
    fn read(
        repo: &Repo,
        lists: &TaskLists,
        known: &mut KnownDirs,
        id: ObjectId,
        wanted: &HashSet<String>,
    ) -> Result<(Vec<ObjectId>, Vec<String>), VerifyError> {
        let commit = repo.commit(id)?;
        let set =
            if wanted.is_empty() { Vec::new() } else { Self::set_by(repo, lists, known, &commit, wanted)? };
        Ok((commit.parents, set))
    }

    /// The tasks (`<unit>/<id>`) of the units in `wanted` whose box `commit` sets: ticked in
    /// its tree and in none of its parents' trees. The task lists are parsed through `lists`;
    /// the directories of the units it changes go to `known`.
    fn set_by(
        repo: &Repo,
        lists: &TaskLists,
        known: &mut KnownDirs,
        commit: &Commit,
        wanted: &HashSet<String>,
    ) -> Result<Vec<String>, VerifyError> {
        let Some(commit) = changing_units(repo, commit, wanted)? else {
            return Ok(Vec::new());
        };
        for (_, dir) in &commit.dirs {
            known.remember(&commit.tree, dir);
        }
        let mut set = Vec::new();
        if commit.parents == 0 {
            // One locator for all the units, so that the archive is listed once, not once a unit.
            let locator = spec::UnitLocator::new(&commit.tree);
            for unit in wanted {
                let ticked = locator.locate(unit).and_then(|loc| spec::ticked_ids_at(&commit.tree, &loc));
                set.extend(ticked.unwrap_or_default().into_iter().map(|task| format!("{unit}/{task}")));
            }
            return Ok(set);
        }
        // A unit the same as in one parent inherits that parent's ticks: it sets no box.
        for change in commit.units.iter().filter(|change| change.theirs.len() == commit.parents) {
            let before: Vec<HashSet<String>> = change
                .theirs
                .iter()
                .map(|(_, dir)| ticked_in_dir(repo, lists, *dir, change.format).into_iter().collect())
                .collect();
            for task in ticked_in_dir(repo, lists, change.ours, change.format) {
                if before.iter().all(|ticks| !ticks.contains(&task)) {
                    set.push(format!("{}/{task}", change.unit));
                }
            }
        }
        Ok(set)
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
        let wanted = Self::wanted(units);
        let mut dirs = Vec::new();
        if repo.promisor_remote().is_none() || wanted.is_empty() {
            return Ok(dirs);
        }
        for &id in history {
            if let Some(commit) = changing_units(repo, &repo.commit(id)?, &wanted)? {
                dirs.extend(commit.dirs);
            }
        }
        Ok(dirs)
    }

    /// The first of `tasks` whose box one of `commits` (sorted) sets, with that commit.
    pub(super) fn first_set_by<'t>(
        &self,
        commits: &[ObjectId],
        tasks: impl IntoIterator<Item = &'t str>,
    ) -> Option<(&'t str, ObjectId)> {
        tasks.into_iter().find_map(|task| {
            let setters = self.setters.get(task)?;
            setters.iter().find(|c| commits.binary_search(c).is_ok()).map(|c| (task, *c))
        })
    }

    /// A commit other than `evidence` that set the box of `target`, and that `evidence` does not
    /// descend from: the tick the head shows may be that commit's rather than the evidenced one.
    /// Evidence whose own tree does not tick the task (a skip put on the branch) is left to the
    /// commit's own check, which says so more precisely.
    ///
    /// # Errors
    /// The evidence commit cannot be read.
    pub(super) fn later_setter(
        &self,
        repo: &Repo,
        target: &str,
        evidence: ObjectId,
    ) -> Result<Option<ObjectId>, VerifyError> {
        for &setter in self.setters.get(target).into_iter().flatten() {
            if setter != evidence && !self.ancestry.is_ancestor(setter, evidence) {
                let (unit, task) = target.split_once('/').unwrap_or((target, ""));
                let tree = repo.tree_knowing(repo.commit_tree(evidence)?, &self.learned.dirs);
                let ticks_it = ticked(&tree, unit).iter().any(|t| t == task);
                return Ok(ticks_it.then_some(setter));
            }
        }
        Ok(None)
    }
}

/// `commit` when it changes the directory of a unit in `wanted` against one of its parents
/// (or is a root commit, which sets all of them).
fn changing_units<'r>(
    repo: &'r Repo,
    commit: &Commit,
    wanted: &HashSet<String>,
) -> Result<Option<Changing<'r>>, VerifyError> {
    let tree = repo.tree(commit.tree);
    // A parent a shallow clone lacks is left out, as git's history leaves it out.
    let parents: Vec<GitTree<'r>> =
        commit.parents.iter().filter_map(|p| repo.commit_tree(*p).ok()).map(|t| repo.tree(t)).collect();
    if parents.is_empty() {
        let dirs = UNIT_PARENTS.iter().map(|d| (tree.id(), (*d).to_owned())).collect();
        return Ok(Some(Changing { tree, parents: 0, units: Vec::new(), dirs }));
    }
    let mut units: Vec<UnitChange> = Vec::new();
    let mut dirs = Vec::new();
    for (at, parent) in parents.iter().enumerate().filter(|(_, parent)| parent.id() != tree.id()) {
        for parent_dir in UNIT_PARENTS {
            let format = if parent_dir == SPECKIT_SPECS_DIR { Format::SpecKit } else { Format::OpenSpec };
            for entry in tree.changed_entries(parent, parent_dir)? {
                let Some(unit) = spec::unit_of_entry(parent_dir, &entry.name).filter(|u| wanted.contains(*u))
                else {
                    continue;
                };
                let dir = format!("{parent_dir}/{}", entry.name);
                dirs.push((tree.id(), dir.clone()));
                dirs.push((parent.id(), dir));
                // An archived change moves: its old and new directories are one unit.
                let change = match units.iter_mut().position(|c| c.unit == unit) {
                    Some(i) => &mut units[i],
                    None => {
                        units.push(UnitChange {
                            unit: unit.to_owned(),
                            format,
                            ours: None,
                            theirs: Vec::new(),
                        });
                        units.last_mut().expect("just pushed")
                    }
                };
                change.ours = change.ours.or(entry.ours);
                match change.theirs.iter_mut().find(|(p, _)| *p == at) {
                    Some((_, theirs)) => *theirs = theirs.or(entry.theirs),
                    None => change.theirs.push((at, entry.theirs)),
                }
            }
        }
    }
    Ok((!units.is_empty()).then_some(Changing { tree, parents: parents.len(), units, dirs }))
}

/// How many consecutive commits of a history of `commits` one thread reads at a time.
fn run_length(commits: usize) -> usize {
    (commits / MIN_RUNS).clamp(MIN_COMMITS_PER_RUN, COMMITS_PER_RUN)
}

/// The ticked tasks of the unit whose directory is `dir` (`None`: no directory, no ticks), its
/// task list parsed through `lists`. A task list that cannot be read counts as ticking nothing,
/// as in [`ticked`].
fn ticked_in_dir(repo: &Repo, lists: &TaskLists, dir: Option<ObjectId>, format: Format) -> Vec<String> {
    let ticked = |dir| spec::ticked_ids_in_dir(&repo.tree(dir), format, lists).unwrap_or_default();
    dir.map(ticked).unwrap_or_default()
}

/// The ticked tasks of `unit` in `tree`. A task list that cannot be read counts as ticking
/// nothing, so that the commit after it that ticks is taken for setting the box: an unreadable
/// step can only make a tick look newer, never older.
fn ticked(tree: &GitTree<'_>, unit: &str) -> Vec<String> {
    spec::ticked_ids(tree, unit).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_history_is_cut_into_many_short_runs_and_a_long_one_into_long_runs() {
        assert_eq!(run_length(0), MIN_COMMITS_PER_RUN);
        assert_eq!(run_length(200), 12, "16 runs or more, so no thread reads a long run alone at the end");
        assert!(200usize.div_ceil(run_length(200)) >= MIN_RUNS);
        assert_eq!(run_length(100_000), COMMITS_PER_RUN);
    }
}
