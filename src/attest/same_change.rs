//! "The same change", as `attest carry` decides it: the same bytes in the same place. The
//! identity of a task commit's change is the sha256 of its patch against its first parent as git
//! writes it with three lines of context ([`Repo::change_patches`]): every added, removed and
//! context line with its whitespace, every hunk's position (`@@ -a,b +c,d @@`), every file's
//! name and mode, and a binary file's content in full. So a string literal changed by one space,
//! a statement indented out of its block, or the same line added in another place is another
//! change. `git patch-id` is not used: it drops the hunk positions (and, `--stable`, whitespace).
//!
//! Left out, since they are not the change but its surroundings: the blob ids of a text file's
//! `index` line (they name the whole file, which a rebase changes elsewhere), the text git
//! appends to a hunk header (the nearest line that looks like a function's start, which may lie
//! beyond the context), and, in a task list (`tasks.md`), the state of the boxes on context
//! lines ([`spec::open_boxes`], as the task line hash reads them): a neighbour ticked by someone
//! else since is not a change of this task.
//!
//! A task commit's change is not all its evidence judged: the run saw the tree of the task
//! commit, which held every commit before it since its branch forked. So the old task commit's
//! series must be carried too ([`series_gap`], the rule of `git cherry`): every non-merge commit
//! the old task commit's history holds and the new one's does not must have a commit of the
//! same change among those the new one's history holds and the old one's does not. A rebase onto
//! a moved main, a reorder, a reword or commits inserted keep it; a dropped, squashed or amended
//! earlier commit does not. Nor does a commit inserted that undoes a change the evidence judged
//! ([`undoing`]): one whose change is the inverse of the old task commit's own, or of a commit of
//! the series, as `git revert` makes it (the patch from that commit's tree to its first parent's,
//! [`inverse_ids`]), after a commit with that change.
//!
//! A merge of the series is judged by what it changes of its own: the patch from the tree git's
//! merge of its two parents gives ([`Repo::merged_trees`], conflicts marked) to the tree it holds.
//! A clean merge has none, and needs no partner (its parents' commits have theirs); a merge whose
//! resolution edited anything (an "evil merge"), or whose parents conflicted, needs a commit of
//! the new side with that same change, which a rebase that flattens merges never makes, and a
//! `--rebase-merges` that resolves it differently does not either (the labels of the conflict
//! markers git writes name the commits merged, which a rebase changes: they are left out). A
//! merge of the new side partners only when a merge of the old series has a change of its own to
//! partner (otherwise it is not merged again for that: a main of many merges is long); but every
//! merge of the new side that may undo a change judged is merged again ([`undoing`]): a `git merge
//! -s ours` of a branch that holds the implementation, or a merge whose resolution restores what
//! it changed, has the inverse of that change as its own. A merge of more than two parents, which `git merge-tree` does not
//! make, is judged by its whole change against its first parent.
//!
//! The series is compared commit by commit, as `git cherry` compares: not by the change the new
//! side makes as a whole, which a moved main changes too. So a commit of the new side that makes
//! no change of a partner's, nor the exact inverse of one, is not judged.

use std::collections::{HashMap, HashSet};

use gix::ObjectId;
use sha2::{Digest as _, Sha256};

use crate::git::{Commit, GitError, PatchLine, PatchOf, Repo};
use crate::spec;

/// The most commits of the old task commit's series ([`series_gap`]): beyond, it is not compared.
pub const MAX_SERIES: usize = 5_000;

/// The most commits of the new task commit's side that are walked for partners: a main that
/// moved by this many commits since the branch forked is compared no further.
pub const MAX_NEW_SIDE: usize = 200_000;

/// What the new task commit's series lacks of the old one's ([`series_gap`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeriesGap {
    /// The oldest commit of the old series with no commit of the same change in the new one.
    Missing {
        /// The commit.
        id: ObjectId,
        /// Its subject line, as stored (repository text: quote it).
        subject: String,
        /// How many parents it has: a merge (two or more) is missing its change of its own (see the
        /// module documentation).
        parents: usize,
    },
    /// A commit of the new side, after a commit with a change the evidence judged, whose change (a
    /// merge's: its change of its own) is the inverse of that change: it undoes it ([`series_gap`]).
    Undone {
        /// The commit that undoes it.
        id: ObjectId,
        /// Its subject line, as stored (repository text: quote it).
        subject: String,
        /// The commit whose change it undoes: one of the old series, or the old task commit.
        undone: ObjectId,
        /// That commit's subject line, as stored (repository text: quote it).
        undone_subject: String,
        /// How many parents the commit that undoes it has: a merge (two or more) undoes it by its
        /// change of its own (see the module documentation).
        parents: usize,
    },
    /// The old task commit's series holds more than [`MAX_SERIES`] commits, or the new one's
    /// side more than [`MAX_NEW_SIDE`].
    TooLong {
        /// The task commit whose series it is.
        tip: ObjectId,
        /// The bound it passed.
        most: usize,
    },
}

/// What `new`'s history lacks of the changes `old`'s held, `None` when nothing (see the module
/// documentation): the old series is the commits of `old`'s history that `new`'s does not hold,
/// `old` aside, and the new side the same the other way round, `new` aside. Each old
/// commit needs a partner of its own: a commit of the new side with the same change, read without
/// the line numbers its hunks start at (as `git cherry` reads patches: a main that moved the lines
/// above them moves the hunks, not the change). A commit with an empty change changes no tree,
/// and needs no partner, nor does a merge that changes nothing of its own. The new side is read
/// nearest `new` first, in widening chunks, since a rebased series lies just below its task
/// commit. Then no commit of the new side may undo a change the evidence judged ([`undoing`]),
/// which reads the commits of the whole side that change what the changes judged change.
///
/// # Errors
/// The history cannot be walked, or git cannot produce the patches.
pub fn series_gap(repo: &Repo, old: &Commit, new: &Commit) -> Result<Option<SeriesGap>, GitError> {
    let Some(old_series) = series(repo, old, new, MAX_SERIES)? else {
        return Ok(Some(SeriesGap::TooLong { tip: old.id, most: MAX_SERIES }));
    };
    // The old task commit's own change, read as the series' are, comes last.
    let mut old_ids = series_ids(repo, &old_series.iter().chain([old]).collect::<Vec<_>>(), Merges::Judged)?;
    let old_own = old_ids.pop().flatten();
    // A merge of the new side partners only a merge of the old one with a change of its own:
    // without one, the new side's merges are not merged again (a main of many merges is long).
    let merges = if old_series.iter().zip(&old_ids).any(|(c, id)| c.parents.len() > 1 && id.is_some()) {
        Merges::Judged
    } else {
        Merges::Skipped
    };
    // Each change the old series holds, as many times as it holds it.
    let mut wanted: HashMap<String, usize> = HashMap::new();
    for id in old_ids.iter().flatten() {
        *wanted.entry(id.clone()).or_default() += 1;
    }
    // With no change to partner, only a new side after the old task commit itself can undo one.
    if wanted.is_empty() && !(old_series.is_empty() && repo.is_ancestor(old.id, new.id)?) {
        return Ok(None);
    }
    let Some(new_side) = series(repo, new, old, MAX_NEW_SIDE)? else {
        return Ok(Some(SeriesGap::TooLong { tip: new.id, most: MAX_NEW_SIDE }));
    };
    let side_ids = read_side(repo, &new_side, &wanted, 2 * old_series.len(), merges)?;
    // The partners: of each change, the commits nearest the new task commit that have it, as many
    // as the old series holds (the others with it are inserted).
    let mut left = wanted.clone();
    let mut partner = |id: &Option<String>| match id.as_ref().and_then(|id| left.get_mut(id)) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    };
    let partners: Vec<bool> = side_ids.iter().map(&mut partner).collect();
    // Partners go to the oldest commits of a change first; the oldest commit left without one is
    // named (the walk gives the newest first).
    let mut paired: HashMap<&String, usize> = wanted.iter().map(|(id, n)| (id, n - left[id])).collect();
    let mut unpaired = |id: &String| match paired.get_mut(id) {
        Some(n) if *n > 0 => {
            *n -= 1;
            false
        }
        _ => true,
    };
    let missing =
        old_series.iter().zip(&old_ids).rev().find(|(_, id)| id.as_ref().is_some_and(&mut unpaired));
    if let Some((c, _)) = missing {
        let parents = c.parents.len();
        return Ok(Some(SeriesGap::Missing { id: c.id, subject: c.subject().to_owned(), parents }));
    }
    let judged = Judged { old, series: &old_series, ids: &old_ids, own: old_own };
    let side = Side { tip: new, commits: &new_side, ids: side_ids, partners, merges };
    undoing(repo, &judged, side)
}

/// The identities of the first commits of `new_side` ([`series_ids`]), nearest the new task
/// commit first: `first` commits and then twice as many each time, until each change `wanted`
/// counts has as many commits as it counts, or the side is read whole.
fn read_side(
    repo: &Repo,
    new_side: &[Commit],
    wanted: &HashMap<String, usize>,
    first: usize,
    merges: Merges,
) -> Result<Vec<Option<String>>, GitError> {
    let mut ids: Vec<Option<String>> = Vec::new();
    let mut found: HashMap<String, usize> = HashMap::new();
    let short = |found: &HashMap<String, usize>| wanted.iter().any(|(id, n)| found.get(id).unwrap_or(&0) < n);
    while ids.len() < new_side.len() && short(&found) {
        let chunk: Vec<&Commit> = new_side[ids.len()..].iter().take(first.max(ids.len()).max(1)).collect();
        for id in series_ids(repo, &chunk, merges)? {
            if let Some(id) = id.as_ref().filter(|id| wanted.contains_key(*id)) {
                *found.entry(id.clone()).or_default() += 1;
            }
            ids.push(id);
        }
    }
    Ok(ids)
}

/// What the old evidence judged: the old task commit, its series (newest first) and the identity
/// of each one's change as [`series_ids`] reads it, the old task commit's own apart.
struct Judged<'a> {
    old: &'a Commit,
    series: &'a [Commit],
    ids: &'a [Option<String>],
    own: Option<String>,
}

/// The new task commit's side: the new task commit, its side's commits (newest first), the
/// identities of the first of them ([`read_side`]) and which of those are partners, and whether its
/// merges partner.
struct Side<'a> {
    tip: &'a Commit,
    commits: &'a [Commit],
    ids: Vec<Option<String>>,
    partners: Vec<bool>,
    merges: Merges,
}

/// The oldest commit of the new side that undoes a change the evidence judged, as
/// [`SeriesGap::Undone`]. A change judged is the old task commit's own, or that of a commit of
/// its series that is not a merge. A commit of the new side that is not a partner undoes it when
/// its own change is the inverse of it (the change a revert of it makes: the patch from the tree
/// of the commit to that of its first parent, read as a change of a series is, [`inverse_ids`];
/// a merge's own change is read from the tree git's merge of its parents gives, whether or not the
/// side's merges partner, so a merge that drops the side that brought a change, or restores what it
/// changed, undoes it) and a commit with the change is in its history: a commit of the new side
/// with it (its partner, or another copy), or the old task commit for its own change. So a main
/// below the series is not judged unless it holds the change itself; and a commit that applies
/// the change again afterwards (a revert reverted) does not make up for it: which of two commits
/// with one change is the series' own cannot be told, and re-signing judges no tree. Every commit
/// of the new side that may have a change judged or its inverse is read ([`ids_touching`]), not
/// only those [`read_side`] read for partners.
fn undoing(repo: &Repo, judged: &Judged<'_>, mut side: Side<'_>) -> Result<Option<SeriesGap>, GitError> {
    // Each change judged and its commit, and the inverse of each.
    let changed: Vec<(&Commit, &String)> = judged
        .series
        .iter()
        .zip(judged.ids)
        .filter(|(c, _)| c.parents.len() < 2)
        .filter_map(|(c, id)| id.as_ref().map(|id| (c, id)))
        .chain(judged.own.as_ref().map(|id| (judged.old, id)))
        .collect();
    let commits: Vec<&Commit> = changed.iter().map(|(c, _)| *c).collect();
    let inverses = inverse_ids(repo, &commits)?;
    side.ids = ids_touching(repo, judged.old, &side, &commits)?;
    // The commits of the new side with a change judged, and the old task commit for its own.
    let with_change = |side: &Side<'_>, (commit, change): (&Commit, &String)| -> HashSet<ObjectId> {
        let made = side.commits.iter().zip(&side.ids).filter(|(_, id)| id.as_ref() == Some(change));
        let own = (commit.id == judged.old.id).then_some(commit.id);
        made.map(|(c, _)| c.id).chain(own).collect()
    };
    let roots: HashSet<ObjectId> = changed.iter().flat_map(|c| with_change(&side, *c)).collect();
    let after = after_any(side.commits, &roots);
    let candidates = side.commits.iter().enumerate().rev();
    let inserted = |(i, _): &(usize, &Commit)| after[*i] && !side.partners.get(*i).copied().unwrap_or(false);
    for (i, commit) in candidates.filter(inserted) {
        let Some(id) = side.ids[i].as_ref() else { continue };
        let undone = changed.iter().zip(&inverses).filter(|(_, inverse)| inverse.as_ref() == Some(id));
        for (change, _) in undone {
            if after_any(side.commits, &with_change(&side, *change))[i] {
                return Ok(Some(SeriesGap::Undone {
                    id: commit.id,
                    subject: commit.subject().to_owned(),
                    undone: change.0.id,
                    undone_subject: change.0.subject().to_owned(),
                    parents: commit.parents.len(),
                }));
            }
        }
    }
    Ok(None)
}

/// The identities of all of `side`'s commits that may have the change of one of `changed`, or its
/// inverse: each that changes a path one of them changes ([`Repo::commits_changing`], which reads
/// trees only, so a main that moved by many commits costs a patch only for those that touch what
/// the series touched), a merge by its change of its own ([`Merges::Judged`]: a merge can change
/// a path of its own only where its tree is not its parents'). The others' as [`read_side`] read
/// them, or none.
fn ids_touching(
    repo: &Repo,
    old: &Commit,
    side: &Side<'_>,
    changed: &[&Commit],
) -> Result<Vec<Option<String>>, GitError> {
    let mut ids = side.ids.clone();
    ids.resize(side.commits.len(), None);
    if side.commits.is_empty() {
        return Ok(ids);
    }
    let paths = repo.changed_paths(&changed.iter().map(|c| c.id).collect::<Vec<_>>())?;
    let touching = repo.commits_changing(side.tip.id, old.id, &paths)?;
    // Unread: beyond what was read, or a merge read as changing nothing.
    let skipped = |c: &Commit| c.parents.len() > 1 && side.merges == Merges::Skipped;
    let unread = |(i, c): &(usize, &Commit)| {
        touching.as_ref().is_none_or(|t| t.contains(&c.id)) && (*i >= side.ids.len() || skipped(c))
    };
    let asked: Vec<(usize, &Commit)> = side.commits.iter().enumerate().filter(unread).collect();
    let read = series_ids(repo, &asked.iter().map(|(_, c)| *c).collect::<Vec<_>>(), Merges::Judged)?;
    for ((i, _), id) in asked.iter().zip(read) {
        ids[*i] = id;
    }
    Ok(ids)
}

/// Which commits of `side` have a commit of `roots` in their history by way of commits of `side`:
/// a parent is a root, or such a commit (a root itself only when another is in its history).
/// `side` holds each commit once, in any order.
fn after_any(side: &[Commit], roots: &HashSet<ObjectId>) -> Vec<bool> {
    let at: HashMap<ObjectId, usize> = side.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let mut after: Vec<Option<bool>> = vec![None; side.len()];
    for start in 0..side.len() {
        let mut stack = vec![start];
        while let Some(&i) = stack.last() {
            if after[i].is_some() {
                stack.pop();
                continue;
            }
            let parents = side[i].parents.iter().filter_map(|p| at.get(p).copied());
            let pending: Vec<usize> = parents.filter(|j| after[*j].is_none()).collect();
            if pending.is_empty() {
                let follows =
                    |p: &ObjectId| roots.contains(p) || at.get(p).is_some_and(|j| after[*j] == Some(true));
                after[i] = Some(side[i].parents.iter().any(follows));
                stack.pop();
            } else {
                stack.extend(pending);
            }
        }
    }
    after.into_iter().map(|a| a == Some(true)).collect()
}

/// The commits of `tip`'s history that `other`'s does not hold, merges too, `tip` aside, newest
/// first; `None` when there are more than `most`.
fn series(repo: &Repo, tip: &Commit, other: &Commit, most: usize) -> Result<Option<Vec<Commit>>, GitError> {
    let Some(ids) = repo.walk_at_most(tip.id, &[other.id], most + 1)? else {
        return Ok(None);
    };
    let commits = ids.into_iter().filter(|id| *id != tip.id).map(|id| repo.commit(id));
    Ok(Some(commits.collect::<Result<_, _>>()?))
}

/// Whether a merge's change of its own is computed ([`own_changes`]), or the merge left out as
/// one with none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Merges {
    /// Each merge's parents are merged again, and the merge judged by what it changes of that.
    Judged,
    /// Merges count as changing nothing of their own.
    Skipped,
}

/// The identity of each commit's change as [`change_ids`] computes it, but without the line
/// numbers in its hunk headers: the identity of a commit of a series, which a rebase may move.
fn series_ids(repo: &Repo, commits: &[&Commit], merges: Merges) -> Result<Vec<Option<String>>, GitError> {
    ids_of(repo, commits, true, merges)
}

/// The identity of each commit's change against its first parent (a root commit: against the
/// empty tree; a merge of two: its change of its own, [`own_changes`]), in the order given, from
/// one git process for all of them: lowercase hex sha256, `None` for an empty change.
///
/// # Errors
/// git cannot produce the patches ([`Repo::change_patches`]).
pub fn change_ids(repo: &Repo, commits: &[&Commit]) -> Result<Vec<Option<String>>, GitError> {
    ids_of(repo, commits, false, Merges::Judged)
}

/// [`change_ids`], the hunks' line numbers left out when `unplaced`.
fn ids_of(
    repo: &Repo,
    commits: &[&Commit],
    unplaced: bool,
    merges: Merges,
) -> Result<Vec<Option<String>>, GitError> {
    let changes = own_changes(repo, commits, merges)?;
    // A pair of trees is a merge's change of its own, from the tree git's merge gives.
    let asked: Vec<(PatchOf, bool)> =
        changes.iter().flatten().map(|patch| (*patch, matches!(patch, PatchOf::Trees(..)))).collect();
    let mut ids = hashed(repo, &asked, unplaced)?.into_iter();
    Ok(changes.iter().map(|change| change.and_then(|_| ids.next().flatten())).collect())
}

/// The identity, read as a change of a series is ([`series_ids`]), of the change that undoes
/// each of `commits` (none a merge): the patch from its tree to its first parent's (a root
/// commit's: to the empty tree), which is the change a revert of it makes where nothing else
/// changed those lines since. `None` for an empty change.
///
/// # Errors
/// A parent cannot be read, or git cannot produce the patches ([`Repo::change_patches`]).
fn inverse_ids(repo: &Repo, commits: &[&Commit]) -> Result<Vec<Option<String>>, GitError> {
    let mut asked = Vec::with_capacity(commits.len());
    for c in commits {
        let parent_tree = match c.parents.first() {
            Some(parent) => repo.commit(*parent)?.tree,
            None => repo.empty_tree_id(),
        };
        asked.push((PatchOf::Trees(c.tree, parent_tree), false));
    }
    hashed(repo, &asked, true)
}

/// The identity of each patch of `patches` ([`ChangeHasher`]), in the order given, from one git
/// process for all of them; each with whether it is a merge's change of its own (its conflict
/// markers' labels left out), and all without the hunks' line numbers when `unplaced`.
fn hashed(repo: &Repo, patches: &[(PatchOf, bool)], unplaced: bool) -> Result<Vec<Option<String>>, GitError> {
    let asked: Vec<PatchOf> = patches.iter().map(|(patch, _)| *patch).collect();
    let hasher = |&(_, from_merged): &(PatchOf, bool)| ChangeHasher {
        unplaced,
        from_merged,
        ..ChangeHasher::default()
    };
    let mut hashers: Vec<ChangeHasher> = patches.iter().map(hasher).collect();
    repo.change_patches(&asked, &mut |i, line| hashers[i].line(line))?;
    Ok(hashers.into_iter().map(ChangeHasher::finish).collect())
}

/// What each commit changes of its own: a commit against its first parent (a root commit: against
/// the empty tree); a merge of two parents, the tree git's merge of them gives changed into the
/// tree it holds, `None` when they are the same (a clean merge); a merge of more parents, against
/// its first parent. With [`Merges::Skipped`], no merge changes anything.
fn own_changes(repo: &Repo, commits: &[&Commit], merges: Merges) -> Result<Vec<Option<PatchOf>>, GitError> {
    let two_parents = |c: &Commit| match c.parents[..] {
        [first, second] => Some((first, second)),
        _ => None,
    };
    let judged = |c: &&&Commit| merges == Merges::Judged || c.parents.len() < 2;
    let pairs: Vec<(ObjectId, ObjectId)> =
        commits.iter().filter(judged).filter_map(|c| two_parents(c)).collect();
    let mut merged = repo.merged_trees(&pairs)?.into_iter();
    let own = |c: &&Commit| match (two_parents(c), c.parents.first()) {
        _ if !judged(&c) => None,
        (Some(_), _) => merged.next().filter(|tree| *tree != c.tree).map(|tree| PatchOf::Trees(tree, c.tree)),
        (None, parent) => Some(PatchOf::Commit(c.id, parent.copied())),
    };
    Ok(commits.iter().map(own).collect())
}

/// The removed line `whole` without its label, when it is a conflict marker git writes with one
/// (`-<<<<<<< <label>`, `-||||||| <label>`, `->>>>>>> <label>`).
fn conflict_marker(whole: &[u8]) -> Option<&[u8]> {
    let marker = whole.get(..8)?;
    let labelled = [b"-<<<<<<<", b"-|||||||", b"->>>>>>>"].iter().any(|m| marker == *m);
    (labelled && matches!(whole.get(8), None | Some(b' '))).then_some(marker)
}

/// Hashes one patch line by line, as the module documentation says.
#[derive(Default)]
struct ChangeHasher {
    /// The hunk headers' line numbers are left out (a commit of a series, which a rebase may move;
    /// a task commit's own change is held to its place).
    unplaced: bool,
    sha: Sha256,
    /// Lines hashed so far (none: an empty change).
    lines: usize,
    /// The patch is a merge's change of its own, from the tree git's merge of its parents gives
    /// ([`own_changes`]): the labels of the conflict markers git wrote there name the commits it
    /// merged, which a rebase changes, so a removed marker line is read without its label.
    from_merged: bool,
    /// The current file is a task list.
    task_list: bool,
    /// The `index` line of the current file, held until it is known whether the file is binary
    /// (then its blob ids are the change: a binary delta means nothing without its base).
    index: Option<Vec<u8>>,
}

impl ChangeHasher {
    fn line(&mut self, line: PatchLine<'_>) {
        let whole = match line {
            PatchLine::Whole(whole) => whole,
            PatchLine::Part { bytes, last } => {
                self.flush_index(false);
                self.sha.update(bytes);
                if last {
                    self.end_line();
                }
                return;
            }
        };
        if whole.starts_with(b"index ") {
            self.index = Some(whole.to_vec());
            return;
        }
        self.flush_index(whole == b"GIT binary patch");
        if whole.starts_with(b"diff --git ") {
            self.task_list = whole.ends_with(b"/tasks.md") || whole.ends_with(b"/tasks.md\"");
        }
        if whole.starts_with(b"@@ ") {
            // `@@ -a,b +c,d @@`, without the function name git may append; unplaced, `@@` alone.
            let end = whole[3..].windows(2).position(|w| w == b"@@").map_or(whole.len(), |at| at + 5);
            self.sha.update(if self.unplaced { b"@@" } else { &whole[..end] });
        } else if self.from_merged
            && let Some(marker) = conflict_marker(whole)
        {
            self.sha.update(marker);
        } else if self.task_list
            && whole.first() == Some(&b' ')
            && let Ok(text) = std::str::from_utf8(whole)
        {
            self.sha.update(spec::open_boxes(text).as_bytes());
        } else {
            self.sha.update(whole);
        }
        self.end_line();
    }

    /// Hashes the held `index` line when `binary`, and forgets it.
    fn flush_index(&mut self, binary: bool) {
        if let Some(index) = self.index.take()
            && binary
        {
            self.sha.update(&index);
            self.end_line();
        }
    }

    fn end_line(&mut self) {
        self.sha.update(b"\n");
        self.lines += 1;
    }

    fn finish(mut self) -> Option<String> {
        self.flush_index(false);
        (self.lines > 0).then(|| hex::encode(self.sha.finalize()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;

    /// A branch off a base commit: an implementation (`a.txt`), an empty commit and a task commit
    /// (`t.txt`); the fixture, the base and the task commit.
    fn series_fixture() -> (Fixture, ObjectId, ObjectId) {
        let fx = Fixture::new();
        let base = fx.commit_file("base.txt", "base\n", "base");
        fx.commit_file("a.txt", "a\n", "implement");
        fx.git(&["commit", "-q", "--allow-empty", "-m", "empty"]);
        let task = fx.commit_file("t.txt", "t\n", "tick");
        (fx, base, task)
    }

    fn gap(fx: &Fixture, old: ObjectId, new: ObjectId) -> Option<SeriesGap> {
        let repo = fx.repo();
        series_gap(&repo, &repo.commit(old).unwrap(), &repo.commit(new).unwrap()).unwrap()
    }

    #[test]
    fn a_series_rebased_without_its_empty_commit_holds_and_one_without_its_implementation_does_not() {
        let (fx, base, task) = series_fixture();
        let implement = fx.rev(&format!("{task}~2"));
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        fx.commit_file("other.txt", "o\n", "main moves");
        fx.git(&["cherry-pick", &implement.to_string(), &task.to_string()]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), None, "rebased, the empty commit left out");
        fx.git(&["checkout", "-q", "-b", "dropped", &base.to_string()]);
        fx.git(&["cherry-pick", &task.to_string()]);
        let missing = gap(&fx, task, fx.rev("HEAD"));
        assert_eq!(
            missing,
            Some(SeriesGap::Missing { id: implement, subject: "implement".to_owned(), parents: 1 })
        );
        assert_eq!(gap(&fx, fx.rev("HEAD"), task), None, "a commit added before is no loss");
    }

    /// Cherry-picks each of `commits`, one git command each (each its own commit date).
    fn pick(fx: &Fixture, commits: &[ObjectId]) {
        for c in commits {
            fx.git(&["cherry-pick", &c.to_string()]);
        }
    }

    fn undone(fx: &Fixture, id: &str, undone: ObjectId, undone_subject: &str) -> Option<SeriesGap> {
        let id = fx.rev(id);
        let subject = fx.git(&["log", "-1", "--format=%s", &id.to_string()]).trim().to_owned();
        let parents =
            fx.git(&["rev-list", "--parents", "-1", &id.to_string()]).split_whitespace().count() - 1;
        Some(SeriesGap::Undone { id, subject, undone, undone_subject: undone_subject.to_owned(), parents })
    }

    #[test]
    fn a_revert_of_the_old_task_commit_after_it_undoes_it_and_a_commit_after_it_that_undoes_nothing_holds() {
        let (fx, _, task) = series_fixture();
        let implement = fx.rev(&format!("{task}~2"));
        fx.commit_file("b.txt", "b\n", "later work");
        assert_eq!(
            gap(&fx, task, fx.rev("HEAD")),
            None,
            "the old task commit in its history, nothing undone"
        );
        fx.git(&["revert", "--no-edit", &task.to_string()]);
        let untick = fx.rev("HEAD");
        fx.git(&["revert", "--no-edit", &implement.to_string()]);
        pick(&fx, &[task]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), undone(&fx, &untick.to_string(), task, "tick"));
    }

    #[test]
    fn a_revert_of_a_partner_inserted_in_the_rebased_series_undoes_it_even_when_applied_again() {
        let (fx, base, task) = series_fixture();
        let implement = fx.rev(&format!("{task}~2"));
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        fx.commit_file("other.txt", "o\n", "main moves");
        let moved = fx.rev("HEAD");
        pick(&fx, &[implement]);
        fx.git(&["revert", "--no-edit", "HEAD"]);
        let revert = fx.rev("HEAD");
        pick(&fx, &[task]);
        let expected = undone(&fx, "HEAD^", implement, "implement");
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), expected);
        fx.git(&["checkout", "-q", "--detach", &revert.to_string()]);
        fx.git(&["revert", "--no-edit", "HEAD"]);
        pick(&fx, &[task]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), expected, "the revert reverted again");
        fx.git(&["checkout", "-q", "--detach", &moved.to_string()]);
        pick(&fx, &[implement]);
        fx.commit_file("c.txt", "c\n", "inserted");
        pick(&fx, &[task]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), None, "an inserted commit that undoes nothing");
    }

    /// A branch off a base commit: an implementation (`a.txt`) and a task commit; then `moved`,
    /// the base with one commit more, checked out. The fixture, the implementation, the task
    /// commit, and the moved base.
    fn one_commit_series_fixture() -> (Fixture, ObjectId, ObjectId, ObjectId) {
        let fx = Fixture::new();
        let base = fx.commit_file("base.txt", "base\n", "base");
        let implement = fx.commit_file("a.txt", "a\n", "implement");
        let task = fx.commit_file("t.txt", "t\n", "tick");
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        let moved = fx.commit_file("other.txt", "o\n", "main moves");
        (fx, implement, task, moved)
    }

    #[test]
    fn a_revert_reverted_undoes_the_change_when_the_old_series_is_one_commit() {
        let (fx, implement, task, _) = one_commit_series_fixture();
        pick(&fx, &[implement]);
        fx.git(&["revert", "--no-edit", "HEAD"]);
        let revert = fx.rev("HEAD");
        fx.git(&["revert", "--no-edit", "HEAD"]);
        pick(&fx, &[task]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), undone(&fx, &revert.to_string(), implement, "implement"));
    }

    #[test]
    fn a_change_main_took_and_reverted_far_below_the_series_undoes_it() {
        let (fx, implement, task, _) = one_commit_series_fixture();
        pick(&fx, &[implement]);
        fx.git(&["revert", "--no-edit", "HEAD"]);
        let revert = fx.rev("HEAD");
        for n in 0..5 {
            fx.commit_file(&format!("main{n}.txt"), "m\n", &format!("main moves {n}"));
        }
        pick(&fx, &[implement, task]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), undone(&fx, &revert.to_string(), implement, "implement"));
    }

    #[test]
    fn a_merge_of_the_new_side_that_drops_the_implementation_undoes_it_and_one_that_keeps_it_holds() {
        let (fx, implement, task, moved) = one_commit_series_fixture();
        fx.git(&["checkout", "-q", "-b", "side", &moved.to_string()]);
        pick(&fx, &[implement]);
        fx.git(&["checkout", "-q", "-b", "ours", &moved.to_string()]);
        fx.git(&["merge", "-q", "-s", "ours", "--no-edit", "side"]);
        let dropped = fx.rev("HEAD");
        pick(&fx, &[task]);
        let expected = undone(&fx, &dropped.to_string(), implement, "implement");
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), expected, "merged with -s ours");
        fx.git(&["checkout", "-q", "--detach", &moved.to_string()]);
        fx.git(&["merge", "-q", "--no-ff", "--no-commit", "side"]);
        fx.git(&["rm", "-q", "-f", "a.txt"]);
        fx.git(&["commit", "-q", "-m", "merge side"]);
        let evil = fx.rev("HEAD");
        pick(&fx, &[task]);
        let expected = undone(&fx, &evil.to_string(), implement, "implement");
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), expected, "its resolution removes the implementation");
        fx.git(&["checkout", "-q", "--detach", &moved.to_string()]);
        fx.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
        pick(&fx, &[task]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), None, "a clean merge keeps it");
    }

    #[test]
    fn a_revert_on_the_main_below_the_series_is_judged_only_when_the_main_holds_the_change_it_reverts() {
        let (fx, base, task) = series_fixture();
        let implement = fx.rev(&format!("{task}~2"));
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        let other = fx.commit_file("other.txt", "o\n", "main moves");
        fx.git(&["revert", "--no-edit", "HEAD"]);
        pick(&fx, &[other, implement, task]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), None, "main's own revert");
        // Main took the change and reverted it: the series applying it again is refused all the
        // same (a rebase that found the change upstream would have dropped it).
        fx.git(&["checkout", "-q", "--detach", &base.to_string()]);
        pick(&fx, &[implement]);
        fx.git(&["revert", "--no-edit", "HEAD"]);
        let revert = fx.rev("HEAD");
        pick(&fx, &[task]);
        let expected = undone(&fx, &revert.to_string(), implement, "implement");
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), expected, "the series on it, the change dropped");
        fx.git(&["checkout", "-q", "--detach", &revert.to_string()]);
        pick(&fx, &[implement, task]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), expected, "the series on it, the change applied again");
    }

    #[test]
    fn a_revert_the_old_series_holds_has_its_partner_and_one_more_undoes() {
        let fx = Fixture::new();
        let base = fx.commit_file("base.txt", "base\n", "base");
        let implement = fx.commit_file("a.txt", "a\n", "implement");
        fx.git(&["revert", "--no-edit", &implement.to_string()]);
        let revert = fx.rev("HEAD");
        let task = fx.commit_file("t.txt", "t\n", "tick");
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        fx.commit_file("other.txt", "o\n", "main moves");
        pick(&fx, &[implement, revert, task]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), None, "the series as it was");
        let (fx, base, task) = series_fixture();
        let implement = fx.rev(&format!("{task}~2"));
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        pick(&fx, &[implement]);
        fx.commit_file("t.txt", "t\n", "tick by hand");
        fx.git(&["revert", "--no-edit", "HEAD"]);
        pick(&fx, &[task]);
        assert_eq!(
            gap(&fx, task, fx.rev("HEAD")),
            undone(&fx, "HEAD^", task, "tick"),
            "a copy of the tick, reverted"
        );
    }

    #[test]
    fn a_commit_follows_a_root_by_way_of_the_side_only() {
        let (fx, _, task) = series_fixture();
        let repo = fx.repo();
        let side: Vec<Commit> =
            ["HEAD", "HEAD~1", "HEAD~2"].iter().map(|r| repo.commit(fx.rev(r)).unwrap()).collect();
        let roots = |ids: &[ObjectId]| ids.iter().copied().collect::<HashSet<_>>();
        assert_eq!(after_any(&side, &roots(&[fx.rev("HEAD~2")])), [true, true, false]);
        assert_eq!(after_any(&side, &roots(&[fx.rev("HEAD~3")])), [true, true, true]);
        assert_eq!(after_any(&side, &roots(&[task])), [false, false, false]);
        let reversed: Vec<Commit> = side.iter().rev().cloned().collect();
        assert_eq!(after_any(&reversed, &roots(&[fx.rev("HEAD~2")])), [false, true, true], "in any order");
    }

    #[test]
    fn each_old_commit_needs_a_partner_of_its_own_so_a_dropped_re_apply_is_missed() {
        let fx = Fixture::new();
        let base = fx.commit_file("base.txt", "base\n", "base");
        let implement = fx.commit_file("a.txt", "a\n", "implement");
        fx.git(&["revert", "--no-edit", &implement.to_string()]);
        let reapply = fx.commit_file("a.txt", "a\n", "re-apply");
        let task = fx.commit_file("t.txt", "t\n", "tick");
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        fx.commit_file("other.txt", "o\n", "main moves");
        // The re-apply dropped: its change is the implementation's, whose one partner is taken.
        let revert = fx.rev(&format!("{reapply}~"));
        fx.git(&["cherry-pick", &implement.to_string(), &revert.to_string(), &task.to_string()]);
        let missing = gap(&fx, task, fx.rev("HEAD"));
        assert_eq!(
            missing,
            Some(SeriesGap::Missing { id: reapply, subject: "re-apply".to_owned(), parents: 1 })
        );
    }

    /// A branch `feat` off a base commit: `b.txt`, then a merge of a side branch adding `a.txt`
    /// whose resolution writes `a.txt` as `resolved` (`None`: the clean merge), then a task commit;
    /// then `moved`, the base with one commit more, checked out. The fixture, the side commit, the
    /// `b.txt` commit, the merge and the task commit.
    fn merge_fixture(resolved: Option<&str>) -> (Fixture, [ObjectId; 4]) {
        let fx = Fixture::new();
        let base = fx.commit_file("base.txt", "base\n", "base");
        let side = fx.commit_file("a.txt", "guard\n", "side: guard");
        fx.git(&["checkout", "-q", "-b", "feat", &base.to_string()]);
        let b = fx.commit_file("b.txt", "b\n", "feat b");
        fx.git(&["merge", "-q", "--no-ff", "--no-commit", &side.to_string()]);
        let merge = match resolved {
            Some(text) => fx.commit_file("a.txt", text, "merge side"),
            None => {
                fx.git(&["commit", "-q", "-m", "merge side"]);
                fx.rev("HEAD")
            }
        };
        let task = fx.commit_file("t.txt", "t\n", "tick");
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        fx.commit_file("other.txt", "o\n", "main moves");
        (fx, [side, b, merge, task])
    }

    /// Merges `side` into HEAD as `git rebase --rebase-merges` redoes a merge, its resolution
    /// writing `a.txt` as `resolved` (`None`: as git merged it).
    fn merge_again(fx: &Fixture, side: ObjectId, resolved: Option<&str>) {
        fx.git(&["merge", "-q", "--no-ff", "--no-commit", &side.to_string()]);
        if let Some(text) = resolved {
            fx.commit_file("a.txt", text, "merge side");
        } else {
            fx.git(&["commit", "-q", "-m", "merge side"]);
        }
    }

    #[test]
    fn a_flattened_merge_that_changed_nothing_of_its_own_holds() {
        let (fx, [side, b, _, task]) = merge_fixture(None);
        fx.git(&["cherry-pick", &side.to_string(), &b.to_string(), &task.to_string()]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), None);
    }

    #[test]
    fn a_flattened_merge_whose_resolution_edited_a_file_is_missing() {
        let (fx, [side, b, merge, task]) = merge_fixture(Some("guard removed\n"));
        fx.git(&["cherry-pick", &side.to_string(), &b.to_string(), &task.to_string()]);
        let missing = gap(&fx, task, fx.rev("HEAD"));
        assert_eq!(
            missing,
            Some(SeriesGap::Missing { id: merge, subject: "merge side".to_owned(), parents: 2 })
        );
    }

    /// `feat` and `side` both change `a.txt` from the base, so their merge conflicts; resolved as
    /// `resolved`, then a task commit; `moved` is the base with one commit more. The fixture, the
    /// side commit, feat's commit, the merge and the task commit.
    fn conflicted_merge_fixture(resolved: &str) -> (Fixture, [ObjectId; 4]) {
        let fx = Fixture::new();
        let base = fx.commit_file("a.txt", "base\n", "base");
        let side = fx.commit_file("a.txt", "side\n", "side");
        fx.git(&["checkout", "-q", "-b", "feat", &base.to_string()]);
        let ours = fx.commit_file("a.txt", "feat\n", "feat");
        let merge = merge_conflicted(&fx, side, resolved);
        let task = fx.commit_file("t.txt", "t\n", "tick");
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        fx.commit_file("other.txt", "o\n", "main moves");
        (fx, [side, ours, merge, task])
    }

    /// Merges `side` into HEAD, which conflicts, and commits the resolution `resolved`.
    fn merge_conflicted(fx: &Fixture, side: ObjectId, resolved: &str) -> ObjectId {
        let out = fx.git_output(&["merge", "-q", "--no-ff", "--no-commit", &side.to_string()], None);
        assert!(!out.status.success(), "the merge conflicts");
        fx.commit_file("a.txt", resolved, "merge side")
    }

    #[test]
    fn a_conflicted_merge_resolved_again_the_same_way_holds_and_another_way_is_missing() {
        let (fx, [side, ours, merge, task]) = conflicted_merge_fixture("resolved\n");
        fx.git(&["cherry-pick", &ours.to_string()]);
        let ours_again = fx.rev("HEAD");
        merge_conflicted(&fx, side, "resolved\n");
        fx.git(&["cherry-pick", &task.to_string()]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), None, "the same resolution, other labels");
        fx.git(&["checkout", "-q", "--detach", &ours_again.to_string()]);
        merge_conflicted(&fx, side, "resolved otherwise\n");
        fx.git(&["cherry-pick", &task.to_string()]);
        let missing = Some(SeriesGap::Missing { id: merge, subject: "merge side".to_owned(), parents: 2 });
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), missing);
    }

    #[test]
    fn a_merge_of_an_unrelated_history_flattened_holds_and_its_edited_resolution_is_missing() {
        for (resolved, holds) in [(None, true), (Some("edited\n"), false)] {
            let fx = Fixture::new();
            let base = fx.commit_file("base.txt", "base\n", "base");
            fx.git(&["checkout", "-q", "--orphan", "other"]);
            fx.git(&["rm", "-q", "-rf", "."]);
            let other = fx.commit_file("lib.txt", "lib\n", "an unrelated root");
            fx.git(&["checkout", "-q", "-b", "feat", &base.to_string()]);
            let args = ["merge", "-q", "--no-ff", "--no-commit", "--allow-unrelated-histories"];
            fx.git(&[&args[..], &[other.to_string().as_str()]].concat());
            let merge = match resolved {
                Some(text) => fx.commit_file("lib.txt", text, "merge other"),
                None => {
                    fx.git(&["commit", "-q", "-m", "merge other"]);
                    fx.rev("HEAD")
                }
            };
            let task = fx.commit_file("t.txt", "t\n", "tick");
            fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
            fx.commit_file("other.txt", "o\n", "main moves");
            fx.git(&["cherry-pick", &other.to_string(), &task.to_string()]);
            let missing =
                Some(SeriesGap::Missing { id: merge, subject: "merge other".to_owned(), parents: 2 });
            assert_eq!(gap(&fx, task, fx.rev("HEAD")), if holds { None } else { missing }, "{resolved:?}");
        }
    }

    #[test]
    fn a_merge_is_merged_again_only_when_merges_are_judged() {
        let (fx, [_, _, merge, _]) = merge_fixture(Some("guard removed\n"));
        let repo = fx.repo();
        let merge = repo.commit(merge).unwrap();
        assert!(own_changes(&repo, &[&merge], Merges::Judged).unwrap()[0].is_some());
        assert!(own_changes(&repo, &[&merge], Merges::Skipped).unwrap()[0].is_none());
    }

    #[test]
    fn only_a_conflict_marker_s_label_is_read_apart_and_only_in_a_merge_s_own_change() {
        assert_eq!(conflict_marker(b"-<<<<<<< 1234abcd"), Some(&b"-<<<<<<<"[..]));
        assert_eq!(conflict_marker(b"->>>>>>> theirs"), Some(&b"->>>>>>>"[..]));
        assert_eq!(conflict_marker(b"-|||||||"), Some(&b"-|||||||"[..]));
        assert_eq!(conflict_marker(b"+<<<<<<< added by hand"), None);
        assert_eq!(conflict_marker(b"-<<<<<<<<< eight"), None);
        assert_eq!(conflict_marker(b"-======="), None);
        let hash = |from_merged: bool, line: &[u8]| {
            let mut h = ChangeHasher { from_merged, ..ChangeHasher::default() };
            h.line(PatchLine::Whole(line));
            h.finish()
        };
        assert_eq!(hash(true, b"-<<<<<<< a"), hash(true, b"-<<<<<<< b"));
        assert_ne!(hash(false, b"-<<<<<<< a"), hash(false, b"-<<<<<<< b"), "a commit's line is read whole");
    }

    #[test]
    fn a_merge_made_again_holds_only_when_resolved_the_same_way() {
        let (fx, [side, b, merge, task]) = merge_fixture(Some("guard removed\n"));
        fx.git(&["cherry-pick", &b.to_string()]);
        let b_again = fx.rev("HEAD");
        merge_again(&fx, side, Some("guard removed\n"));
        fx.git(&["cherry-pick", &task.to_string()]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), None, "resolved as before");
        for resolved in [None, Some("guard kept\n")] {
            fx.git(&["checkout", "-q", "--detach", &b_again.to_string()]);
            merge_again(&fx, side, resolved);
            fx.git(&["cherry-pick", &task.to_string()]);
            let missing = gap(&fx, task, fx.rev("HEAD"));
            assert_eq!(
                missing,
                Some(SeriesGap::Missing { id: merge, subject: "merge side".to_owned(), parents: 2 }),
                "{resolved:?}"
            );
        }
    }

    #[test]
    fn a_commit_whose_hunks_a_moved_main_shifted_is_the_same_change_of_the_series() {
        let fx = Fixture::new();
        let lines: String = (1..=20).map(|n| format!("line {n}\n")).collect();
        let base = fx.commit_file("lib.rs", &lines, "base");
        let wired = lines.replace("line 15\n", "line 15 wired\n");
        let wire = fx.commit_file("lib.rs", &wired, "wire the module");
        let task = fx.commit_file("t.txt", "t\n", "tick");
        fx.git(&["checkout", "-q", "-b", "moved", &base.to_string()]);
        fx.commit_file("lib.rs", format!("// header\n{lines}"), "main adds a header");
        fx.git(&["cherry-pick", &wire.to_string(), &task.to_string()]);
        assert_eq!(gap(&fx, task, fx.rev("HEAD")), None, "the wiring moved one line down");
    }

    fn id_of(patch: &str) -> Option<String> {
        let mut h = ChangeHasher::default();
        for line in patch.lines() {
            h.line(PatchLine::Whole(line.as_bytes()));
        }
        h.finish()
    }

    const PATCH: &str = "diff --git a/src/a.py b/src/a.py\nindex 1111111..2222222 100644\n--- a/src/a.py\n+++ b/src/a.py\n@@ -10,3 +10,4 @@ def guard():\n     if owner:\n-        delete()\n+        check()\n+        delete()\n";

    #[test]
    fn whitespace_and_hunk_positions_are_the_change() {
        let id = id_of(PATCH);
        assert!(id.is_some());
        assert_ne!(id_of(&PATCH.replace("+        check()", "+    check()")), id, "indentation");
        assert_ne!(id_of(&PATCH.replace("@@ -10,3 +10,4 @@", "@@ -40,3 +40,4 @@")), id, "position");
        assert_ne!(id_of(&PATCH.replace("     if owner:", "     if admin:")), id, "context");
    }

    #[test]
    fn blob_ids_and_the_hunk_headers_function_name_are_not() {
        let id = id_of(PATCH);
        assert_eq!(id_of(&PATCH.replace("1111111..2222222", "3333333..4444444")), id);
        assert_eq!(id_of(&PATCH.replace("@@ def guard():", "@@ class Other:")), id);
        assert_eq!(id_of(""), None, "an empty change has no identity");
    }

    #[test]
    fn a_neighbours_box_counts_in_a_task_list_only_on_a_context_line() {
        let tasks = "diff --git a/specs/u/tasks.md b/specs/u/tasks.md\nindex 1..2 100644\n--- a/specs/u/tasks.md\n+++ b/specs/u/tasks.md\n@@ -3,3 +3,3 @@\n - [ ] T001 One\n-- [ ] T002 Two\n+- [X] T002 Two\n";
        let id = id_of(tasks);
        assert_eq!(id_of(&tasks.replace(" - [ ] T001", " - [X] T001")), id, "a neighbour ticked since");
        assert_ne!(id_of(&tasks.replace("+- [X] T002", "+- [x] T002")), id, "the change itself");
        let elsewhere = tasks.replace("tasks.md", "notes.md");
        assert_ne!(id_of(&elsewhere.replace(" - [ ] T001", " - [X] T001")), id_of(&elsewhere));
    }

    #[test]
    fn a_binary_files_blob_ids_are_its_change() {
        let bin = "diff --git a/b.bin b/b.bin\nindex 1111..2222 100644\nGIT binary patch\ndelta 5\nabcde\n\n";
        assert_ne!(id_of(bin), id_of(&bin.replace("1111..2222", "3333..2222")));
    }
}
