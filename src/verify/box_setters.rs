//! Which commit set each box the head ticks. A task commit's evidence is for the tick it set. When
//! something later takes the tick back (a revert) and a commit that is not the task's own sets it
//! again (a hand edit, the revert of the revert, another task's commit, an evil merge), the head
//! shows that commit's tick, which no evidence covers. A merge sets a box when it ticks it and
//! git's merge of the box would not: one side took the tick back since the merge base. An id on
//! more than one task line has no one box: a line other than the task commit's may show the tick
//! (its own line taken back, a ticked copy beside it), so each commit that ticks it while it is
//! duplicated, and the commit that ticks it on one line again, sets its box.

use std::collections::{HashMap, HashSet};
use std::num::NonZero;
use std::sync::Arc;

use gix::ObjectId;

use super::ancestry::Ancestry;
use super::error::VerifyError;
use super::parallel;
use crate::check::agreement::Learned;
use crate::git::{Commit, GitTree, KnownDirs, Repo};
use crate::spec::{
    self, Format, SPECKIT_SPECS_DIR, SharedTaskLists, TaskLists, TickedBox, UNIT_PARENTS, UnitLoc,
};

/// The commits that set the box of each task (`<unit>/<id>`) of the checked units, in no
/// particular order: the task is ticked in the commit's tree and in none of its parents' trees,
/// ticked there on more than one line, or ticked on one line where no parent ticks it on one
/// line only (a root commit, or one whose parents a shallow clone lacks, sets every box it
/// ticks), or, for a merge
/// whose parents disagree on the box, ticked where a merge of the parents would leave it
/// unticked ([`settle`]). With them, the ancestry of the history they were found in, the unit
/// directories resolved on the way, and the units a commit of a range changed, read in the same
/// pass.
pub(super) struct BoxSetters {
    /// Each task's setters.
    setters: HashMap<String, Vec<ObjectId>>,
    /// Which commit of the history descends from which.
    ancestry: Ancestry,
    /// The directory of each unit a commit changes, by the commit's tree: the check of a task
    /// commit starts from it instead of reading `specs/` (one entry per unit) again; and the task
    /// lists parsed, which the check takes instead of parsing them again.
    learned: Learned,
    /// The units whose directory a commit of the range [`Self::find`] was given changes on its
    /// own (against each of its parents): what that range did to a task list, even when the
    /// unit ends the range as it began it.
    changed_in_range: HashSet<String>,
}

/// A merge that ticks a box some of its parents tick and others do not: whether it sets the box
/// depends on the box at the parents' merge base ([`settle`]).
struct Disputed {
    /// The merge.
    merge: ObjectId,
    /// The task, `<unit>/<id>`.
    task: String,
    /// The parents that tick the box.
    ticking: Vec<ObjectId>,
    /// The parents that do not.
    unticking: Vec<ObjectId>,
}

/// What the read of one commit finds ([`BoxSetters::set_by`]).
#[derive(Default)]
struct Found {
    /// The tasks whose box it sets.
    set: Vec<String>,
    /// The boxes it ticks that its parents disagree on, when it is a merge.
    disputed: Vec<Disputed>,
    /// The units it changes against each of its parents, when it is in the range asked about.
    changed: Vec<String>,
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
    /// Its parents (those the clone has); none for a root commit.
    parents: Vec<ObjectId>,
    /// The checked units whose directory differs from at least one parent's.
    units: Vec<UnitChange>,
    /// The directories that differ, under [`UNIT_PARENTS`], in the commit's and the parents'
    /// trees: what a partial clone must fetch, and what the check of the commit is handed.
    dirs: Vec<(ObjectId, String)>,
    /// Every unit (checked or not) whose directory differs from each parent's, when asked for.
    changed: Vec<String>,
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
    /// fetched beforehand with [`Self::dirs_read`]). Of the commits of `range`, the units each
    /// changes are collected too, whether wanted or not ([`Self::changed_in_range`]).
    ///
    /// # Errors
    /// A commit or tree cannot be read.
    pub(super) fn find(
        repo: &Repo,
        jobs: Option<NonZero<usize>>,
        history: &[ObjectId],
        wanted: &HashSet<String>,
        range: &HashSet<ObjectId>,
    ) -> Result<Self, VerifyError> {
        // Runs of consecutive commits, so that a commit's parent, usually the next one, is read
        // by the same thread, from its cache.
        let runs: Vec<&[ObjectId]> = history.chunks(run_length(history.len())).collect();
        let lists = Arc::new(SharedTaskLists::default());
        let set = parallel::map(repo, jobs, runs.len(), history.len(), |repo, claim, done| {
            let lists = TaskLists::sharing(Arc::clone(&lists));
            while let Some(at) = claim() {
                let mut known = KnownDirs::default();
                let read: Vec<_> = runs[at]
                    .iter()
                    .map(|id| Self::read(repo, &lists, &mut known, *id, wanted, range.contains(id)))
                    .collect();
                done(at, (read, known));
            }
        });
        let mut setters: HashMap<String, Vec<ObjectId>> = HashMap::new();
        let mut parents = Vec::with_capacity(history.len());
        let (mut known, mut disputed, mut changed_in_range) =
            (KnownDirs::default(), Vec::new(), HashSet::new());
        let mut ids = history.iter();
        for (read, run_known) in set {
            known.extend(run_known);
            // `read` first: the zip stops at the end of the run without taking the next id.
            for (read, &id) in read.into_iter().zip(ids.by_ref()) {
                let (of, found) = read?;
                parents.push(of);
                for task in found.set {
                    setters.entry(task).or_default().push(id);
                }
                disputed.extend(found.disputed);
                changed_in_range.extend(found.changed);
            }
        }
        let ancestry = Ancestry::new(history, &parents);
        for (task, merge) in settle(repo, &ancestry, &known, disputed)? {
            setters.entry(task).or_default().push(merge);
        }
        let learned = Learned { dirs: Arc::new(known), lists };
        Ok(Self { setters, ancestry, learned, changed_in_range })
    }

    /// The units whose directory a commit of the range given to [`Self::find`] changes against
    /// each of its parents (a merge that takes one side's directory changes nothing of its own).
    pub(super) fn changed_in_range(&self) -> &HashSet<String> {
        &self.changed_in_range
    }

    /// The unit directories resolved in the commits read, by tree ([`KnownDirs`]), and the task
    /// lists parsed.
    pub(super) fn learned(&self) -> Learned {
        self.learned.clone()
    }

    /// The parents of commit `id` and what it does to the boxes of `wanted` ([`Self::set_by`]).
    fn read(
        repo: &Repo,
        lists: &TaskLists,
        known: &mut KnownDirs,
        id: ObjectId,
        wanted: &HashSet<String>,
        in_range: bool,
    ) -> Result<(Vec<ObjectId>, Found), VerifyError> {
        let commit = repo.commit(id)?;
        let found = if wanted.is_empty() && !in_range {
            Found::default()
        } else {
            Self::set_by(repo, lists, known, &commit, wanted, in_range)?
        };
        Ok((commit.parents, found))
    }

    /// The tasks (`<unit>/<id>`) of the units in `wanted` whose box `commit` sets: ticked in
    /// its tree on more than one task line, or on one where none of its parents' trees ticks it
    /// on one line only; the boxes a merge ticks that some of its
    /// parents tick and others do not, for [`settle`]; and with `in_range`, the units it changes.
    /// The task lists are parsed through `lists`; the directories of the units it changes go to
    /// `known`.
    fn set_by(
        repo: &Repo,
        lists: &TaskLists,
        known: &mut KnownDirs,
        commit: &Commit,
        wanted: &HashSet<String>,
        in_range: bool,
    ) -> Result<Found, VerifyError> {
        let id = commit.id;
        let Some(commit) = changing_units(repo, commit, wanted, in_range)? else {
            return Ok(Found::default());
        };
        for (_, dir) in &commit.dirs {
            known.remember(&commit.tree, dir);
        }
        let mut found = Found { changed: commit.changed.clone(), ..Found::default() };
        if commit.parents.is_empty() {
            // One locator for all the units, so that the archive is listed once, not once a unit.
            let locator = spec::UnitLocator::new(&commit.tree);
            for unit in wanted {
                let ticked = locator.locate(unit).and_then(|loc| spec::ticked_boxes_at(&commit.tree, &loc));
                found
                    .set
                    .extend(ticked.unwrap_or_default().into_iter().map(|task| format!("{unit}/{}", task.id)));
            }
            return Ok(found);
        }
        for change in &commit.units {
            let ours = ticked_in_dir(repo, lists, change.ours, change.format);
            if ours.is_empty() {
                continue;
            }
            // A parent whose directory is the same as the commit's ticks what the commit ticks.
            let theirs: Vec<Option<HashSet<String>>> = (0..commit.parents.len())
                .map(|at| {
                    let differs = change.theirs.iter().find(|(p, _)| *p == at);
                    differs.map(|(_, dir)| ticked_on_one_line(repo, lists, *dir, change.format))
                })
                .collect();
            for ticked in ours {
                let (ticking, unticking): (Vec<usize>, Vec<usize>) = (0..commit.parents.len())
                    .partition(|at| theirs[*at].as_ref().is_none_or(|ticks| ticks.contains(&ticked.id)));
                let task = format!("{}/{}", change.unit, ticked.id);
                if ticking.is_empty() || ticked.duplicated {
                    found.set.push(task);
                } else if !unticking.is_empty() {
                    let ids = |at: Vec<usize>| at.into_iter().map(|p| commit.parents[p]).collect();
                    found.disputed.push(Disputed {
                        merge: id,
                        task,
                        ticking: ids(ticking),
                        unticking: ids(unticking),
                    });
                }
            }
        }
        Ok(found)
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
            if let Some(commit) = changing_units(repo, &repo.commit(id)?, &wanted, false)? {
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

    /// The commits other than `evidence` that set the box of `target` and that `evidence` does
    /// not descend from: the tick the head shows may be one of theirs rather than the evidenced
    /// one. Evidence whose own tree does not tick the task (a skip put on the branch) is left to
    /// the commit's own check, which says so more precisely: then there are none.
    ///
    /// # Errors
    /// The evidence commit cannot be read.
    pub(super) fn later_setters(
        &self,
        repo: &Repo,
        target: &str,
        evidence: ObjectId,
    ) -> Result<Vec<ObjectId>, VerifyError> {
        let others: Vec<ObjectId> = (self.setters.get(target).into_iter().flatten())
            .copied()
            .filter(|setter| *setter != evidence && !self.ancestry.is_ancestor(*setter, evidence))
            .collect();
        if others.is_empty() {
            return Ok(others);
        }
        let (unit, task) = target.split_once('/').unwrap_or((target, ""));
        let tree = repo.tree_knowing(repo.commit_tree(evidence)?, &self.learned.dirs).as_stored();
        let ticks_it = ticked(&tree, unit).iter().any(|t| t == task);
        Ok(if ticks_it { others } else { Vec::new() })
    }

    /// Whether `later` descends from `earlier` in the history read.
    pub(super) fn descends(&self, later: ObjectId, earlier: ObjectId) -> bool {
        self.ancestry.is_ancestor(earlier, later)
    }
}

/// `commit` when it changes the directory of a unit in `wanted` against one of its parents
/// (or is a root commit, which sets all of them); with `all_units`, also when it changes any
/// unit's directory against each of its parents ([`Changing::changed`]).
fn changing_units<'r>(
    repo: &'r Repo,
    commit: &Commit,
    wanted: &HashSet<String>,
    all_units: bool,
) -> Result<Option<Changing<'r>>, VerifyError> {
    let tree = repo.tree(commit.tree);
    // A parent a shallow clone lacks is left out, as git's history leaves it out.
    let (ids, parents): (Vec<ObjectId>, Vec<GitTree<'r>>) =
        commit.parents.iter().filter_map(|p| repo.commit_tree(*p).ok().map(|t| (*p, repo.tree(t)))).unzip();
    if parents.is_empty() {
        let dirs = UNIT_PARENTS.iter().map(|d| (tree.id(), (*d).to_owned())).collect();
        return Ok(Some(Changing { tree, parents: ids, units: Vec::new(), dirs, changed: Vec::new() }));
    }
    let mut units: Vec<UnitChange> = Vec::new();
    let mut dirs = Vec::new();
    // Each unit that differs, with the parents it differs from, when every unit is asked about.
    let mut differs: HashMap<String, HashSet<usize>> = HashMap::new();
    for (at, parent) in parents.iter().enumerate().filter(|(_, parent)| parent.id() != tree.id()) {
        for parent_dir in UNIT_PARENTS {
            let format = if parent_dir == SPECKIT_SPECS_DIR { Format::SpecKit } else { Format::OpenSpec };
            for entry in tree.changed_entries(parent, parent_dir)? {
                let unit = spec::unit_of_entry(parent_dir, &entry.name);
                if let Some(unit) = unit.filter(|_| all_units) {
                    differs.entry(unit.to_owned()).or_default().insert(at);
                }
                let Some(unit) = unit.filter(|u| wanted.contains(*u)) else {
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
    let changed: Vec<String> =
        differs.into_iter().filter(|(_, from)| from.len() == parents.len()).map(|(unit, _)| unit).collect();
    Ok((!units.is_empty() || !changed.is_empty()).then_some(Changing {
        tree,
        parents: ids,
        units,
        dirs,
        changed,
    }))
}

/// The boxes of `disputed` that their merge sets: those a merge of its parents would leave
/// unticked. For a boolean, a merge gives what a side changed from the merge base (sides that
/// changed it agree), else the base's: so a merge sets a box the base ticks and a side unticks
/// (that side took the tick back, and the merge ticks it on its own), never one the base leaves
/// unticked and a side ticks (a tick merged in, as main's into a feature branch). Each pair of a
/// ticking and an unticking parent is asked (an octopus merge too). The bases come from
/// `ancestry`, computed only for a merge whose parents disagree, once per pair of parents.
///
/// # Errors
/// A commit or tree cannot be read.
fn settle(
    repo: &Repo,
    ancestry: &Ancestry,
    known: &KnownDirs,
    disputed: Vec<Disputed>,
) -> Result<Vec<(String, ObjectId)>, VerifyError> {
    let mut bases: HashMap<(ObjectId, ObjectId), Vec<ObjectId>> = HashMap::new();
    let mut ticks_at: HashMap<(ObjectId, String), Vec<String>> = HashMap::new();
    let mut set = Vec::new();
    for d in disputed {
        let (unit, id) = d.task.split_once('/').unwrap_or((&d.task, ""));
        let mut ticked_at_base = false;
        for pair in d.ticking.iter().flat_map(|t| d.unticking.iter().map(move |u| (*t, *u))) {
            let of_pair = bases.entry(pair).or_insert_with(|| ancestry.merge_bases(pair.0, pair.1));
            // No base in the history (unrelated histories, or a shallow clone that does not reach
            // one) and several bases (a criss-cross merge) both leave the box at the base
            // unknown: it counts as ticked when any base ticks it, or when there is none, the
            // choice that makes more merges setters (more `ticked_again`), never a wrong pass.
            if of_pair.is_empty() {
                ticked_at_base = true;
            }
            for base in of_pair.iter() {
                let key = (*base, unit.to_owned());
                let ticks = match ticks_at.get(&key) {
                    Some(ticks) => ticks,
                    None => {
                        let tree = repo.tree_knowing(repo.commit_tree(*base)?, known).as_stored();
                        ticks_at.entry(key).or_insert(ticked(&tree, unit))
                    }
                };
                ticked_at_base |= ticks.iter().any(|t| t == id);
            }
            if ticked_at_base {
                break;
            }
        }
        if ticked_at_base {
            set.push((d.task, d.merge));
        }
    }
    Ok(set)
}

/// How many consecutive commits of a history of `commits` one thread reads at a time.
fn run_length(commits: usize) -> usize {
    (commits / MIN_RUNS).clamp(MIN_COMMITS_PER_RUN, COMMITS_PER_RUN)
}

/// The ticked ids of the unit whose directory is `dir` (`None`: no directory, no ticks), its
/// task list parsed through `lists`. A task list that cannot be read counts as ticking nothing,
/// as in [`ticked`].
fn ticked_in_dir(repo: &Repo, lists: &TaskLists, dir: Option<ObjectId>, format: Format) -> Vec<TickedBox> {
    let ticked =
        |dir| spec::ticked_boxes_in_dir(&repo.tree(dir).as_stored(), format, lists).unwrap_or_default();
    dir.map(ticked).unwrap_or_default()
}

/// The ids [`ticked_in_dir`] finds ticked on one task line only: a parent's boxes, against which
/// a commit's tick is new unless the parent ticks the id as one task.
fn ticked_on_one_line(
    repo: &Repo,
    lists: &TaskLists,
    dir: Option<ObjectId>,
    format: Format,
) -> HashSet<String> {
    let ticked = ticked_in_dir(repo, lists, dir, format).into_iter();
    ticked.filter(|t| !t.duplicated).map(|t| t.id).collect()
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
    use crate::git::test_support::Fixture;

    /// The setters of `task` in the history of `fixture`'s head, and the later setters of the
    /// evidence `evidence`.
    fn setters_of(fixture: &Fixture, task: &str, evidence: ObjectId) -> (Vec<ObjectId>, Vec<ObjectId>) {
        let repo = fixture.repo();
        let history = repo.walk(fixture.rev("HEAD"), &[]).unwrap();
        let wanted = HashSet::from(["001-a".to_owned()]);
        let setters = BoxSetters::find(&repo, None, &history, &wanted, &HashSet::new()).unwrap();
        let mut all = setters.setters.get(task).cloned().unwrap_or_default();
        all.sort_unstable();
        let mut later = setters.later_setters(&repo, task, evidence).unwrap();
        later.sort_unstable();
        (all, later)
    }

    /// Commits `text` as the task list of unit `001-a`.
    fn commit_tasks(fixture: &Fixture, text: &str, message: &str) -> ObjectId {
        fixture.commit_file("specs/001-a/tasks.md", text, message)
    }

    #[test]
    fn a_tick_taken_back_and_set_again_beside_a_ticked_copy_of_its_id_is_set_again() {
        let fixture = Fixture::new();
        commit_tasks(&fixture, "- [ ] T001 a\n- [ ] T002 b\n", "open");
        let evidence = commit_tasks(&fixture, "- [x] T001 a\n- [x] T002 b\n", "tick both");
        let copy = commit_tasks(&fixture, "- [ ] T001 a\n- [x] T002 b\n- [x] T001 copy\n", "untick; a copy");
        let again = commit_tasks(&fixture, "- [x] T001 a\n- [x] T002 b\n", "tick by hand");
        let mut expected = vec![copy, again];
        expected.sort_unstable();
        assert_eq!(setters_of(&fixture, "001-a/T001", evidence).1, expected);
        // T002, on one line throughout, was set once, by the evidence.
        assert_eq!(setters_of(&fixture, "001-a/T002", evidence), (vec![evidence], Vec::new()));
    }

    #[test]
    fn the_other_line_of_a_duplicated_id_ticked_sets_its_box() {
        let fixture = Fixture::new();
        commit_tasks(&fixture, "- [ ] T001 a\n- [x] T001 b\n", "a copy ticked");
        let other = commit_tasks(&fixture, "- [x] T001 a\n- [x] T001 b\n", "the other line ticked");
        let (all, _) = setters_of(&fixture, "001-a/T001", other);
        assert!(all.contains(&other), "{all:?}");
    }

    #[test]
    fn a_short_history_is_cut_into_many_short_runs_and_a_long_one_into_long_runs() {
        assert_eq!(run_length(0), MIN_COMMITS_PER_RUN);
        assert_eq!(run_length(200), 12, "16 runs or more, so no thread reads a long run alone at the end");
        assert!(200usize.div_ceil(run_length(200)) >= MIN_RUNS);
        assert_eq!(run_length(100_000), COMMITS_PER_RUN);
    }
}
