//! Which commit set each box the head ticks. A task commit's evidence is for the tick it set. When
//! something later takes the tick back (a revert) and a commit that is not the task's own sets it
//! again (a hand edit, the revert of the revert, another task's commit, an evil merge), the head
//! shows that commit's tick, which no evidence covers. A merge sets a box when it ticks it and
//! git's merge of the box would not: one side took the tick back since the merge base. An id on
//! more than one task line has no one box: a line other than the task commit's may show the tick
//! (its own line taken back, a ticked copy beside it), so each commit that ticks it while it is
//! duplicated, and the commit that ticks it on one line again, sets its box. A unit's boxes in a
//! tree are those of the directory the tree's units place it in: an OpenSpec change's archived
//! copy shows its ticks once the active change is deleted, though nothing in the copy changed. A
//! commit moves a unit (archives a change, moves it back) only when the directory it came from is
//! gone from the commit; a change made active beside its archived copy is made anew, and sets
//! every box it ticks.
//! A task list that cannot be read ticks nothing, so the commit after it that ticks a box counts
//! as setting it: such a setter is kept with the list that could not be read, so that the row it
//! makes says that, never that the box was set again.

use std::collections::{HashMap, HashSet};
use std::num::NonZero;
use std::sync::Arc;

use gix::ObjectId;

use super::ancestry::Ancestry;
use super::error::VerifyError;
use super::parallel;
use crate::check::agreement::Learned;
use crate::git::{Commit, GitTree, KnownDirs, Repo};
use crate::spec::{self, Format, ListTicks, SharedTaskLists, SpecError, TaskLists, UNIT_PARENTS, UnitLoc};

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
    /// The setters of each task that count as setting its box only because a parent's task list
    /// could not be read, with that list: whether they set it or kept it cannot be told.
    unread_before: HashMap<String, Vec<(ObjectId, Arc<UnreadList>)>>,
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

/// A unit's task list that could not be read at a parent of a commit: every box the commit ticks
/// counts as set by it, so that an unreadable step can only make a tick look newer, never older.
pub(super) struct UnreadList {
    /// The unit.
    pub(super) unit: String,
    /// The parent.
    pub(super) parent: ObjectId,
    /// Why its task list could not be read there.
    pub(super) error: Arc<SpecError>,
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
    /// The task list of one of the `unticking` that could not be read, if any.
    unread: Option<Arc<UnreadList>>,
}

/// What the read of one commit finds ([`BoxSetters::set_by`]).
#[derive(Default)]
struct Found {
    /// The tasks whose box it sets.
    set: Vec<String>,
    /// Those of `set` it counts as setting only because a parent's task list could not be read.
    unread_before: Vec<(String, Arc<UnreadList>)>,
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
    /// Its directory in the commit (`None`: none there).
    ours: Option<UnitDir>,
    /// Its directory in each parent where it differs, by the parent's position; an error when
    /// the repository failed to tell which directory is the unit's there (an object missing).
    theirs: Vec<(usize, Placed)>,
}

/// A unit's directory in a tree ([`UnitChange::theirs`]), or why the repository could not tell it.
type Placed = Result<Option<UnitDir>, Arc<SpecError>>;

/// The directory a tree's units place a unit in ([`spec::UnitLocator`]): the active change's, or
/// the archived copy's when none is active.
#[derive(Clone, Copy, PartialEq, Eq)]
struct UnitDir {
    /// The unit's format there.
    format: Format,
    /// The directory's tree.
    id: ObjectId,
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
        let mut unread_before: HashMap<String, Vec<(ObjectId, Arc<UnreadList>)>> = HashMap::new();
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
                for (task, list) in found.unread_before {
                    unread_before.entry(task).or_default().push((id, list));
                }
                disputed.extend(found.disputed);
                changed_in_range.extend(found.changed);
            }
        }
        let ancestry = Ancestry::new(history, &parents);
        for set in settle(repo, &ancestry, &known, disputed)? {
            if let Some(list) = set.unread {
                unread_before.entry(set.task.clone()).or_default().push((set.merge, list));
            }
            setters.entry(set.task).or_default().push(set.merge);
        }
        let learned = Learned { dirs: Arc::new(known), lists };
        Ok(Self { setters, unread_before, ancestry, learned, changed_in_range })
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
                    .extend(ticked.unwrap_or_default().boxes().map(|task| format!("{unit}/{}", task.id)));
            }
            return Ok(found);
        }
        for change in &commit.units {
            // A list of the commit's own that cannot be read ticks nothing: the next commit that
            // reads it as a parent's says so.
            let ours = ticked_in_dir(repo, lists, change.ours).unwrap_or_default();
            if ours.boxes().next().is_none() {
                continue;
            }
            let (theirs, unread) = parents_ticks(repo, lists, commit.parents.as_slice(), change);
            for ticked in ours.boxes() {
                let (ticking, unticking): (Vec<usize>, Vec<usize>) =
                    (0..commit.parents.len()).partition(|at| {
                        theirs[*at].as_ref().is_none_or(|ticks| ticks.ticks_on_one_line(ticked.id))
                    });
                let task = format!("{}/{}", change.unit, ticked.id);
                if ticking.is_empty() || ticked.duplicated {
                    if let Some(list) = unread.as_ref().filter(|_| !ticked.duplicated) {
                        found.unread_before.push((task.clone(), Arc::clone(list)));
                    }
                    found.set.push(task);
                } else if !unticking.is_empty() {
                    let ids = |at: Vec<usize>| at.into_iter().map(|p| commit.parents[p]).collect();
                    found.disputed.push(Disputed {
                        merge: id,
                        task,
                        ticking: ids(ticking),
                        unticking: ids(unticking),
                        unread: unread.clone(),
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

    /// The task list that could not be read at a parent of `setter`, when `setter` counts as
    /// setting the box of `target` only because of it.
    pub(super) fn unread_before(&self, target: &str, setter: ObjectId) -> Option<&UnreadList> {
        let lists = self.unread_before.get(target)?;
        lists.iter().find(|(at, _)| *at == setter).map(|(_, list)| list.as_ref())
    }

    /// Whether `later` descends from `earlier` in the history read.
    pub(super) fn descends(&self, later: ObjectId, earlier: ObjectId) -> bool {
        self.ancestry.is_ancestor(earlier, later)
    }
}

/// The boxes each parent of a commit ticks in `change`'s unit (a parent's box, against which a
/// commit's tick is new unless the parent ticks the id as one task:
/// [`ListTicks::ticks_on_one_line`]), by the parent's position (`None`: the parent's directory is
/// the commit's, so it ticks what the commit ticks), and the first parent's task list that could
/// not be read, which ticks nothing.
fn parents_ticks(
    repo: &Repo,
    lists: &TaskLists,
    parents: &[ObjectId],
    change: &UnitChange,
) -> (Vec<Option<ListTicks>>, Option<Arc<UnreadList>>) {
    let mut unread = None;
    let theirs = (0..parents.len())
        .map(|at| {
            let (_, dir) = change.theirs.iter().find(|(p, _)| *p == at)?;
            let ticks = match dir {
                Ok(dir) => ticked_in_dir(repo, lists, *dir).map_err(Arc::new),
                Err(error) => Err(Arc::clone(error)),
            };
            Some(ticks.unwrap_or_else(|error| {
                let list = UnreadList { unit: change.unit.clone(), parent: parents[at], error };
                unread.get_or_insert_with(|| Arc::new(list));
                ListTicks::default()
            }))
        })
        .collect();
    (theirs, unread)
}

/// `commit` when it changes the directory of a unit in `wanted` against one of its parents
/// (or is a root commit, which sets all of them); with `all_units`, also when it changes any
/// unit's directory against each of its parents ([`Changing::changed`]). A unit changes with any
/// entry of [`UNIT_PARENTS`] that can be it or an archived copy of it; its directories are then
/// those the commit's and the parents' units place it in ([`located`]), not the entries changed.
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
    // Each unit that differs, with the parents it differs from: the wanted ones in the order met,
    // and every one when every unit is asked about.
    let mut touched: Vec<(String, Vec<usize>)> = Vec::new();
    let mut differs: HashMap<String, HashSet<usize>> = HashMap::new();
    for (at, parent) in parents.iter().enumerate().filter(|(_, parent)| parent.id() != tree.id()) {
        for parent_dir in UNIT_PARENTS {
            for entry in tree.changed_entries(parent, parent_dir)? {
                let unit = spec::unit_of_entry(parent_dir, &entry.name);
                if let Some(unit) = unit.filter(|_| all_units) {
                    differs.entry(unit.to_owned()).or_default().insert(at);
                }
                let Some(unit) = unit.filter(|u| wanted.contains(*u)) else {
                    continue;
                };
                match touched.iter_mut().find(|(u, _)| u == unit) {
                    Some((_, from)) if from.contains(&at) => {}
                    Some((_, from)) => from.push(at),
                    None => touched.push((unit.to_owned(), vec![at])),
                }
            }
        }
    }
    let mut dirs = Vec::new();
    let units = located(&tree, &parents, touched, &mut dirs)?;
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

/// The directories of the units `touched` in `tree` and in the `parents` each was changed against,
/// as each tree's units place them (one [`spec::UnitLocator`] a tree, so that the archive is
/// listed once, however many units it is asked for): an archived copy is the unit once its
/// active change is deleted, though nothing in the copy changed. A unit placed in the same
/// directory in the commit and in every parent changes nothing of its boxes, and is left out;
/// the directories placed go to `dirs`. A unit the commit places elsewhere than a parent did,
/// while the parent's directory is still in the commit, was not moved there (archived, moved
/// back, its copy dated anew) but made anew beside it ([`made_anew`]): against that parent it
/// has no directory, so the commit sets every box it ticks.
///
/// # Errors
/// A tree cannot be read.
fn located(
    tree: &GitTree<'_>,
    parents: &[GitTree<'_>],
    touched: Vec<(String, Vec<usize>)>,
    dirs: &mut Vec<(ObjectId, String)>,
) -> Result<Vec<UnitChange>, VerifyError> {
    let ours_locator = spec::UnitLocator::new(tree);
    let locators: Vec<spec::UnitLocator<'_>> = parents.iter().map(|p| spec::UnitLocator::new(p)).collect();
    let mut units = Vec::new();
    for (unit, from) in touched {
        // A unit the commit's own tree cannot place ticks nothing there, as in `ticked_in_dir`.
        let (ours, our_path) = match unit_dir(&ours_locator, tree, &unit, dirs)? {
            Ok(Some((dir, path))) => (Some(dir), Some(path)),
            _ => (None, None),
        };
        let mut theirs = Vec::new();
        for at in from {
            let dir = match unit_dir(&locators[at], &parents[at], &unit, dirs)? {
                Ok(Some((_, path))) if made_anew(tree, our_path.as_deref(), &path)? => Ok(None),
                placed => placed.map(|found| found.map(|(dir, _)| dir)),
            };
            if dir.as_ref().ok() != Some(&ours) {
                theirs.push((at, dir.map_err(Arc::new)));
            }
        }
        if !theirs.is_empty() {
            units.push(UnitChange { unit, ours, theirs });
        }
    }
    Ok(units)
}

/// The directory `locator` places `unit` in, in `tree`, with its path, pushed to `dirs`; `None`
/// when the tree has no such unit or cannot tell which directory is its (a change archived twice
/// and active nowhere, a name that is a feature and a change): no box of it is ticked there, as
/// in [`ticked`]; the inner error when the repository fails to tell (an object of the unit's
/// directory missing or corrupt).
///
/// # Errors
/// The tree cannot be read.
fn unit_dir(
    locator: &spec::UnitLocator<'_>,
    tree: &GitTree<'_>,
    unit: &str,
    dirs: &mut Vec<(ObjectId, String)>,
) -> Result<Result<Option<(UnitDir, String)>, SpecError>, VerifyError> {
    let loc = match locator.locate(unit) {
        Ok(loc) => loc,
        Err(e) if e.is_repository_failure() => return Ok(Err(e)),
        Err(_) => return Ok(Ok(None)),
    };
    let found = tree.entry_id(&loc.dir)?.map(|id| (UnitDir { format: loc.format, id }, loc.dir.clone()));
    dirs.push((tree.id(), loc.dir));
    Ok(Ok(found))
}

/// Whether a commit whose tree `tree` places a unit in the directory `ours` made it anew rather
/// than moved it from `theirs`, where a parent placed it: the commit places it elsewhere, and
/// `theirs` is still in its tree. A change is moved by `openspec archive` (into the archive), by
/// moving it back to work on it again, or by dating its archived copy anew, each of which leaves
/// nothing where it was; a change made active beside its archived copy is another change of the
/// same name, whatever it holds, and none of the archived change's ticks are its own.
///
/// # Errors
/// The tree cannot be read.
fn made_anew(tree: &GitTree<'_>, ours: Option<&str>, theirs: &str) -> Result<bool, VerifyError> {
    match ours {
        Some(ours) if ours != theirs => Ok(tree.entry_id(theirs)?.is_some()),
        _ => Ok(false),
    }
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
) -> Result<Vec<Disputed>, VerifyError> {
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
            set.push(d);
        }
    }
    Ok(set)
}

/// How many consecutive commits of a history of `commits` one thread reads at a time.
fn run_length(commits: usize) -> usize {
    (commits / MIN_RUNS).clamp(MIN_COMMITS_PER_RUN, COMMITS_PER_RUN)
}

/// The ticked boxes of the unit whose directory is `dir` (`None`: no directory, no ticks), its
/// task list parsed through `lists`.
///
/// # Errors
/// The task list cannot be read (a caller counts it as ticking nothing, as in [`ticked`]).
fn ticked_in_dir(repo: &Repo, lists: &TaskLists, dir: Option<UnitDir>) -> Result<ListTicks, SpecError> {
    let ticked = |dir: UnitDir| spec::ticked_boxes_in_dir(&repo.tree(dir.id).as_stored(), dir.format, lists);
    dir.map_or_else(|| Ok(ListTicks::default()), ticked)
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

    /// The box setters of the history of `fixture`'s head, for the unit of `task`.
    fn find(fixture: &Fixture, task: &str) -> BoxSetters {
        let repo = fixture.repo();
        let history = repo.walk(fixture.rev("HEAD"), &[]).unwrap();
        let wanted = HashSet::from([task.split_once('/').unwrap().0.to_owned()]);
        BoxSetters::find(&repo, None, &history, &wanted, &HashSet::new()).unwrap()
    }

    /// The setters of `task` in the history of `fixture`'s head, sorted.
    fn setters_in(fixture: &Fixture, task: &str) -> Vec<ObjectId> {
        let mut all = find(fixture, task).setters.get(task).cloned().unwrap_or_default();
        all.sort_unstable();
        all
    }

    /// The setters of `task` in the history of `fixture`'s head, and the later setters of the
    /// evidence `evidence`.
    fn setters_of(fixture: &Fixture, task: &str, evidence: ObjectId) -> (Vec<ObjectId>, Vec<ObjectId>) {
        let mut later = find(fixture, task).later_setters(&fixture.repo(), task, evidence).unwrap();
        later.sort_unstable();
        (setters_in(fixture, task), later)
    }

    /// The directory of the active OpenSpec change `add-x`.
    const ACTIVE: &str = "openspec/changes/add-x";

    /// The directory of an archived copy of `add-x`.
    const COPY: &str = "openspec/changes/archive/2026-01-01-add-x";

    /// Runs `git <args>` in `fixture` and commits the result with `message`.
    fn commit_git(fixture: &Fixture, args: &[&str], message: &str) -> ObjectId {
        fixture.git(args);
        fixture.git(&["commit", "-q", "-m", message]);
        fixture.rev("HEAD")
    }

    /// A root commit of `add-x` with 1.1 ticked and 1.2 open, and an archived copy of it with both
    /// ticked by hand, which is no unit while the change is active.
    fn active_change_and_a_ticked_copy(fixture: &Fixture) -> ObjectId {
        fixture.write(&format!("{COPY}/tasks.md"), "- [x] 1.1 a\n- [x] 1.2 b\n");
        fixture.git(&["add", COPY]);
        fixture.commit_file(&format!("{ACTIVE}/tasks.md"), "- [x] 1.1 a\n- [ ] 1.2 b\n", "a change, a copy")
    }

    #[test]
    fn deleting_the_active_change_sets_the_boxes_its_archived_copy_ticks_where_the_change_left_them_open() {
        let fixture = Fixture::new();
        let root = active_change_and_a_ticked_copy(&fixture);
        let deleted = commit_git(&fixture, &["rm", "-rq", ACTIVE], "the copy is the unit now");
        assert_eq!(setters_in(&fixture, "add-x/1.2"), [deleted]);
        assert_eq!(setters_in(&fixture, "add-x/1.1"), [root], "ticked on both sides of the deletion");
    }

    #[test]
    fn deleting_one_of_two_archived_copies_sets_the_boxes_the_other_ticks() {
        let fixture = Fixture::new();
        fixture.write(&format!("{COPY}/tasks.md"), "- [x] 1.1 a\n");
        fixture.git(&["add", COPY]);
        fixture.commit_file("openspec/changes/archive/2026-02-02-add-x/tasks.md", "- [ ] 1.1 a\n", "twice");
        let deleted = commit_git(
            &fixture,
            &["rm", "-rq", "openspec/changes/archive/2026-02-02-add-x"],
            "one copy left",
        );
        assert_eq!(setters_in(&fixture, "add-x/1.1"), [deleted], "no unit while archived twice");
    }

    #[test]
    fn archiving_a_change_renaming_its_copy_or_moving_it_back_to_work_on_it_again_sets_no_box() {
        let fixture = Fixture::new();
        let root = fixture.commit_file(&format!("{ACTIVE}/tasks.md"), "- [x] 1.1 a\n", "a change");
        std::fs::create_dir_all(fixture.path().join("openspec/changes/archive")).unwrap();
        commit_git(&fixture, &["mv", ACTIVE, COPY], "archived");
        let renamed = "openspec/changes/archive/2026-02-02-add-x";
        commit_git(&fixture, &["mv", COPY, renamed], "another date");
        commit_git(&fixture, &["mv", renamed, ACTIVE], "active again");
        assert_eq!(setters_in(&fixture, "add-x/1.1"), [root]);
        let hand =
            fixture.commit_file(&format!("{ACTIVE}/tasks.md"), "- [x] 1.1 a\n- [x] 1.2 b\n", "a hand tick");
        assert_eq!(setters_in(&fixture, "add-x/1.2"), [hand]);
    }

    #[test]
    fn a_change_made_active_beside_its_archived_copy_sets_every_box_it_ticks_even_as_the_copy_was() {
        let fixture = Fixture::new();
        let root =
            fixture.commit_file(&format!("{ACTIVE}/tasks.md"), "- [x] 1.1 a\n- [ ] 1.2 b\n", "a change");
        std::fs::create_dir_all(fixture.path().join("openspec/changes/archive")).unwrap();
        commit_git(&fixture, &["mv", ACTIVE, COPY], "archived");
        let copied =
            fixture.commit_file(&format!("{ACTIVE}/tasks.md"), "- [x] 1.1 a\n- [ ] 1.2 b\n", "a copy");
        let mut expected = vec![root, copied];
        expected.sort_unstable();
        assert_eq!(setters_in(&fixture, "add-x/1.1"), expected, "the archived copy stays");
    }

    #[test]
    fn a_new_change_of_an_archived_change_s_name_sets_the_boxes_it_ticks_though_the_copy_s_are_cleared() {
        let fixture = Fixture::new();
        let root = fixture.commit_file(&format!("{ACTIVE}/tasks.md"), "- [x] 1.1 a\n", "a change");
        std::fs::create_dir_all(fixture.path().join("openspec/changes/archive")).unwrap();
        commit_git(&fixture, &["mv", ACTIVE, COPY], "archived");
        fixture.write(&format!("{COPY}/tasks.md"), "- [ ] 1.1 a\n");
        fixture.git(&["add", COPY]);
        let new = fixture.commit_file(&format!("{ACTIVE}/tasks.md"), "- [x] 1.1 a\n- [ ] 1.2 new\n", "new");
        let mut expected = vec![root, new];
        expected.sort_unstable();
        assert_eq!(setters_in(&fixture, "add-x/1.1"), expected);
    }

    #[test]
    fn a_merge_that_deletes_the_active_change_sets_the_boxes_its_archived_copy_ticks_and_neither_side_did() {
        let fixture = Fixture::new();
        active_change_and_a_ticked_copy(&fixture);
        fixture.git(&["checkout", "-q", "-b", "side"]);
        fixture.commit_file(&format!("{ACTIVE}/tasks.md"), "- [x] 1.1 a\n- [ ] 1.2 b\n- [ ] 1.3 c\n", "side");
        fixture.git(&["checkout", "-q", "main"]);
        fixture.commit_file("README.md", "main\n", "main");
        fixture.git(&["merge", "-q", "--no-ff", "--no-commit", "side"]);
        let merge = commit_git(&fixture, &["rm", "-rqf", ACTIVE], "a merge that drops the change");
        assert_eq!(setters_in(&fixture, "add-x/1.2"), [merge]);
    }

    #[test]
    fn a_merge_of_a_side_that_deleted_the_active_change_leaves_the_setting_to_that_side() {
        let fixture = Fixture::new();
        active_change_and_a_ticked_copy(&fixture);
        fixture.git(&["checkout", "-q", "-b", "side"]);
        let deleted = commit_git(&fixture, &["rm", "-rq", ACTIVE], "the copy is the unit now");
        fixture.git(&["checkout", "-q", "main"]);
        fixture.commit_file("README.md", "main\n", "main");
        fixture.git(&["merge", "-q", "--no-ff", "-m", "merge", "side"]);
        assert_eq!(setters_in(&fixture, "add-x/1.2"), [deleted], "the base left 1.2 open, as main does");
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
    fn a_box_ticked_after_a_task_list_that_cannot_be_read_is_set_only_as_far_as_can_be_told() {
        let fixture = Fixture::new();
        let evidence = commit_tasks(&fixture, "- [x] T001 a\n- [ ] T002 b\n", "tick T001");
        let lost = commit_tasks(&fixture, "- [x] T001 a\n- [x] T002 b\n", "tick T002");
        let next = commit_tasks(&fixture, "- [x] T001 a\n- [x] T002 b\n- [x] T003 c\n", "tick T003");
        let blob = fixture.rev(&format!("{lost}:specs/001-a/tasks.md")).to_string();
        std::fs::remove_file(fixture.path().join(format!(".git/objects/{}/{}", &blob[..2], &blob[2..])))
            .unwrap();
        let found = find(&fixture, "001-a/T001");
        // Failing closed: the list that cannot be read ticks nothing, so `next` sets T001's box...
        assert_eq!(found.later_setters(&fixture.repo(), "001-a/T001", evidence).unwrap(), [next]);
        // ... only because of it, which it names.
        let list = found.unread_before("001-a/T001", next).expect("the list that could not be read");
        assert_eq!((list.unit.as_str(), list.parent), ("001-a", lost));
        assert_eq!(list.error.missing_object().map(|id| id.to_string()), Some(blob));
        assert!(found.unread_before("001-a/T001", evidence).is_none(), "its parent's list was read");
    }

    #[test]
    fn a_short_history_is_cut_into_many_short_runs_and_a_long_one_into_long_runs() {
        assert_eq!(run_length(0), MIN_COMMITS_PER_RUN);
        assert_eq!(run_length(200), 12, "16 runs or more, so no thread reads a long run alone at the end");
        assert!(200usize.div_ceil(run_length(200)) >= MIN_RUNS);
        assert_eq!(run_length(100_000), COMMITS_PER_RUN);
    }
}
