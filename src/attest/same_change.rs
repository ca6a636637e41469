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
//! earlier commit does not.
//!
//! A merge of the series is judged by what it changes of its own: the patch from the tree git's
//! merge of its two parents gives ([`Repo::merged_trees`], conflicts marked) to the tree it holds.
//! A clean merge has none, and needs no partner (its parents' commits have theirs); a merge whose
//! resolution edited anything (an "evil merge"), or whose parents conflicted, needs a commit of
//! the new side with that same change, which a rebase that flattens merges never makes, and a
//! `--rebase-merges` that resolves it differently does not either (the labels of the conflict
//! markers git writes name the commits merged, which a rebase changes: they are left out). A
//! merge of the new side is merged again only when a merge of the old series has a change of its
//! own to partner; otherwise it counts as changing nothing. A merge of more than two
//! parents, which `git merge-tree` does not make, is judged by its whole change against its first
//! parent.

use std::collections::HashMap;

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
/// and needs no partner, nor does a merge that changes nothing of its own. The new side is read nearest `new` first, in widening chunks, since a
/// rebased series lies just below its task commit.
///
/// # Errors
/// The history cannot be walked, or git cannot produce the patches.
pub fn series_gap(repo: &Repo, old: &Commit, new: &Commit) -> Result<Option<SeriesGap>, GitError> {
    let Some(old_series) = series(repo, old, new, MAX_SERIES)? else {
        return Ok(Some(SeriesGap::TooLong { tip: old.id, most: MAX_SERIES }));
    };
    let old_ids = series_ids(repo, &old_series.iter().collect::<Vec<_>>(), Merges::Judged)?;
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
    if wanted.is_empty() {
        return Ok(None);
    }
    let Some(new_side) = series(repo, new, old, MAX_NEW_SIDE)? else {
        return Ok(Some(SeriesGap::TooLong { tip: new.id, most: MAX_NEW_SIDE }));
    };
    let mut partners = partners(repo, &new_side, &wanted, 2 * old_series.len(), merges)?;
    // Partners go to the oldest commits of a change first; the oldest commit left without one is
    // named (the walk gives the newest first).
    let mut unpaired = |id: &String| match partners.get_mut(id) {
        Some(n) if *n > 0 => {
            *n -= 1;
            false
        }
        _ => true,
    };
    let missing =
        old_series.iter().zip(&old_ids).rev().find(|(_, id)| id.as_ref().is_some_and(&mut unpaired));
    Ok(missing.map(|(c, _)| SeriesGap::Missing {
        id: c.id,
        subject: c.subject().to_owned(),
        parents: c.parents.len(),
    }))
}

/// How many commits of `new_side` have each change `wanted` counts, at most as many as it
/// counts: read nearest the new task commit first, `first` commits and then twice as many each
/// time, until every change has its partners or the side is read whole.
fn partners(
    repo: &Repo,
    new_side: &[Commit],
    wanted: &HashMap<String, usize>,
    first: usize,
    merges: Merges,
) -> Result<HashMap<String, usize>, GitError> {
    let mut found: HashMap<String, usize> = HashMap::new();
    let short = |found: &HashMap<String, usize>| wanted.iter().any(|(id, n)| found.get(id).unwrap_or(&0) < n);
    let mut read = 0;
    while read < new_side.len() && short(&found) {
        let chunk: Vec<&Commit> = new_side[read..].iter().take(first.max(read).max(1)).collect();
        read += chunk.len();
        for id in series_ids(repo, &chunk, merges)?.into_iter().flatten() {
            if let Some(most) = wanted.get(&id) {
                let n = found.entry(id).or_default();
                *n = (*n + 1).min(*most);
            }
        }
    }
    Ok(found)
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
    let asked: Vec<PatchOf> = changes.iter().flatten().copied().collect();
    let hasher = |patch: &PatchOf| ChangeHasher {
        unplaced,
        from_merged: matches!(patch, PatchOf::Trees(..)),
        ..ChangeHasher::default()
    };
    let mut hashers: Vec<ChangeHasher> = asked.iter().map(hasher).collect();
    repo.change_patches(&asked, &mut |i, line| hashers[i].line(line))?;
    let mut ids = hashers.into_iter().map(ChangeHasher::finish);
    Ok(changes.iter().map(|change| change.and_then(|_| ids.next().flatten())).collect())
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
