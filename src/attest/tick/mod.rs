//! The one way a writer puts a task commit on the current branch (`attest`, `accept`, a bug's
//! closing), in an order that a kill at any instant cannot turn into a lost or doubled tick:
//!
//! 1. lock the index (`index.lock`, as `git commit` does) and keep it to the end, so no other
//!    writer reads or changes the index meanwhile and every tree is built from the truth;
//! 2. decide "already ticked" from HEAD's `tasks.md`, where a finished tick lives; a tick whose
//!    commit and note are at HEAD but whose index and work tree were never updated (a writer
//!    killed after step 4) is completed here instead of being made twice;
//! 3. build the tree (the index plus the tick) and write the ticked `tasks.md` (the file as read
//!    with only the box changed where git reads that back as the tick, else converted as
//!    `git checkout` converts it) into a new file beside the work-tree one, so that a directory
//!    this user may not write stops the writer here, with nothing written (the new file is removed
//!    when the writer stops or is interrupted); then, by the caller, the commit and the note's
//!    bytes: objects that nothing names yet;
//! 4. move the notes reference and the branch in one reference transaction, the note first
//!    ([`Repo::advance_branch_with_note`]): from here on the tick exists, with its note;
//! 5. rename the new `tasks.md` over the work-tree one, then write the index (racily clean
//!    entries smudged, as git does), and release the lock. The file is replaced only while it is
//!    still as step 3 read it (content and `stat`): an edit saved while the command signed is
//!    kept, the index gets the tick, and the user is told ([`TickError::EditedDuringTick`]).
//!
//! `docs/cli.md` ("What a kill leaves behind") lists the state each step can leave.

mod error;

pub use error::TickError;

use std::collections::{HashMap, HashSet};

use gix::ObjectId;

use crate::attest::signing;
use crate::git::{
    AsRead, FileToStage, GitError, GitTree, Head, InProgress, LockedIndex, Repo, SparseCheckout, Staged,
    trailers,
};
use crate::model::bundle::NOTES_REF;
use crate::model::shown::{shell_bytes_word, shell_word, shell_words};
use crate::spec::{self, TaskFacts};

/// A writer that holds the index and knows the branch it will move.
pub(crate) struct Begun<'r> {
    repo: &'r Repo,
    index: LockedIndex<'r>,
    /// The checked-out branch (full reference name).
    pub branch: String,
    /// The commit the branch points at: the task commit's parent.
    pub head: ObjectId,
    /// HEAD's tree plus what is staged, as the index holds it now.
    pub staged: ObjectId,
}

/// A task commit ready to be made: its tree, and what the index and work tree get afterwards.
pub(crate) struct Pending<'r> {
    repo: &'r Repo,
    index: LockedIndex<'r>,
    /// The checked-out branch (full reference name).
    pub branch: String,
    /// The task commit's parent.
    pub head: ObjectId,
    /// The task commit's tree.
    pub tree: ObjectId,
    /// The file to write and stage once the branch moved (`tasks.md` ticked, in git's form and,
    /// converted already, in the work tree's), and the `<unit>/<task>` it ticks.
    stage: Option<(FileToStage, String)>,
}

/// How opening a tick of a listed task ended.
pub(crate) enum Opened<'r> {
    /// The task is open: here is its tick.
    Pending(Box<Pending<'r>>, Box<TaskFacts>),
    /// The task was ticked by HEAD already, and only the index and work tree lagged behind (an
    /// earlier writer was stopped after moving the branch): they now show the tick.
    Completed {
        /// The task commit at HEAD.
        commit: ObjectId,
        /// The branch (full reference name).
        branch: String,
    },
}

/// Locks the index and reads the branch: the first step of every writer on the branch.
///
/// # Errors
/// The index is held by another writer, HEAD is detached or unborn, or the notes reference
/// cannot take a note (checked now, before anything is written).
pub(crate) fn begin(repo: &Repo) -> Result<Begun<'_>, TickError> {
    let index = repo.lock_index()?;
    // Before the branch: a rebase or bisect detaches HEAD, and its own advice is the one that works.
    refuse_operation_in_progress(repo)?;
    let (branch, head) = branch_head(repo)?;
    let leftovers = index.staged_leftovers();
    if !leftovers.is_empty() {
        let words: Vec<String> = leftovers.iter().map(|path| shell_bytes_word(path)).collect();
        return Err(TickError::LeftoverStaged { paths: words.join(" ") });
    }
    repo.check_notes_ref(NOTES_REF)?;
    let staged = index.tree_with(&[])?;
    if staged == repo.empty_tree_id() && repo.commit_tree(head)? != repo.empty_tree_id() {
        return Err(index_lacks_head(repo, "any file".to_owned(), "git reset".to_owned()));
    }
    Ok(Begun { repo, index, branch, head, staged })
}

/// [`TickError::IndexLacksHead`]: the index lacks `what`, and `reset` fills it from HEAD.
fn index_lacks_head(repo: &Repo, what: String, reset: String) -> TickError {
    let index = repo.index_path();
    let index = std::path::absolute(&index).unwrap_or(index);
    let named_by_env = repo.index_named_by_environment();
    TickError::IndexLacksHead { index, named_by_env, what, reset }
}

impl<'r> Begun<'r> {
    /// Opens the tick of the listed task `task_id` of `unit`: refuses a task HEAD has ticked
    /// (completing an interrupted tick instead, see [`Opened::Completed`]), reads the task from
    /// the staged tree, and builds the tree with its box ticked.
    ///
    /// # Errors
    /// The task is ticked already, `tasks.md` in the work tree has unstaged changes or cannot be
    /// read as a regular file, or the spec cannot be read.
    pub(crate) fn open_task(self, target: &str, unit: &str, task_id: &str) -> Result<Opened<'r>, TickError> {
        let head_tree = self.repo.commit_tree(self.head)?;
        if let Ok(at_head) = spec::read_task(&self.repo.tree(head_tree), unit, task_id)
            && at_head.ticked
        {
            return self.ticked_at_head(target, &at_head);
        }
        refuse_uncommitted_archive(self.repo, &self.index, target, unit, Some(self.staged))?;
        let facts = read_task_in(self.repo, self.staged, unit, task_id, Tree::Staged)?;
        refuse_archived(target, &facts)?;
        if facts.ticked {
            return Err(TickError::TickedOnlyInIndex {
                target: target.into(),
                path: facts.tasks_path.into(),
            });
        }
        let tasks_bytes = self.repo.tree(self.staged).file(&facts.tasks_path)?.unwrap_or_default();
        if self.index.outside_sparse_checkout(&facts.tasks_path) {
            return Err(outside_checkout(self.repo, &facts));
        }
        let ticked = spec::tick(&tasks_bytes, facts.line_index, facts.format)?;
        let tree = self.index.tree_with(&[(facts.tasks_path.clone(), ticked.clone())])?;
        // Before the work tree is compared: a tick stopped before the index was written leaves
        // `tasks.md` ticked there, and that tick, not an unstaged change, is what to name.
        refuse_other_boxes(self.repo, self.head, tree, Some((target, &facts.tasks_path)))?;
        let as_read = ensure_no_unstaged_changes(&self.index, &facts.tasks_path, &tasks_bytes)?;
        let path = &facts.tasks_path;
        let file = self
            .index
            .file_to_stage(path, ticked, as_read)
            .map_err(|source| TickError::WorktreeNotWritten { path: path.clone(), source })?;
        let pending = Pending {
            repo: self.repo,
            index: self.index,
            branch: self.branch,
            head: self.head,
            tree,
            stage: Some((file, target.to_owned())),
        };
        Ok(Opened::Pending(Box::new(pending), Box::new(facts)))
    }

    /// A commit of the staged tree as it is (a trailer-only bug task ticks nothing).
    ///
    /// # Errors
    /// The staged tree unticks a task that HEAD ticks, or ticks one HEAD does not.
    pub(crate) fn untouched(self) -> Result<Pending<'r>, TickError> {
        refuse_other_boxes(self.repo, self.head, self.staged, None)?;
        Ok(Pending {
            repo: self.repo,
            index: self.index,
            branch: self.branch,
            head: self.head,
            tree: self.staged,
            stage: None,
        })
    }

    /// HEAD ticks the task. When HEAD is the task's own commit, with its note, and only the
    /// index (and work tree) still hold the task list before the tick, an earlier writer stopped
    /// between moving the branch and writing the index: finish its work. Otherwise the task is
    /// simply ticked already.
    fn ticked_at_head(self, target: &str, at_head: &TaskFacts) -> Result<Opened<'r>, TickError> {
        let path = &at_head.tasks_path;
        let already = || TickError::AlreadyTicked { target: target.into(), path: path.as_str().into() };
        let commit = self.repo.commit(self.head)?;
        let names_task = trailers::parse(&commit.message)
            .iter()
            .rev()
            .find(|(key, _)| key.eq_ignore_ascii_case("Spec-Task"))
            .is_some_and(|(_, value)| value == target);
        let head_bytes = self.repo.tree(commit.tree).file(path)?.unwrap_or_default();
        let staged_bytes = self.repo.tree(self.staged).file(path)?.unwrap_or_default();
        // A stopped writer leaves the index holding HEAD's task list with only this box unticked;
        // any other staged task list (an edit staged with the tick, say) is the user's to keep.
        let left_by_a_stopped_writer = spec::tick(&staged_bytes, at_head.line_index, at_head.format)
            .is_ok_and(|ticked| ticked == head_bytes);
        if !names_task || staged_bytes == head_bytes || self.repo.note(NOTES_REF, self.head)?.is_none() {
            return Err(already());
        }
        let edited = || TickError::InterruptedTickEdited {
            target: target.to_owned(),
            commit: self.head.to_string(),
            path: path.clone(),
        };
        if !left_by_a_stopped_writer {
            // Staged since, by the user: ticked again there, it is simply ticked; otherwise the
            // next commit would take the tick back, and the user is told how to keep both.
            let staged_ticks = spec::read_task(&self.repo.tree(self.staged), &at_head.unit, &at_head.id)
                .is_ok_and(|staged| staged.ticked);
            return Err(if staged_ticks { already() } else { edited() });
        }
        // Only a work-tree file that is still the index's or already the tick's (in git's form, as
        // `git status` compares) is overwritten.
        let as_read = worktree_file(&self.index, path)?;
        if let Some(on_disk) = as_read.bytes() {
            let on_disk = self.index.to_git_form(path, on_disk)?;
            if on_disk != staged_bytes && on_disk != head_bytes {
                return Err(edited());
            }
        }
        let after_commit = |source| TickError::WorktreeAfterCommit { path: path.clone(), source };
        let file = self.index.file_to_stage(path, head_bytes, as_read).map_err(after_commit)?;
        let staged = self.index.stage_and_commit(file).map_err(after_commit)?;
        edit_kept(staged, target, self.head, path)?;
        Ok(Opened::Completed { commit: self.head, branch: self.branch })
    }
}

impl Pending<'_> {
    /// Publishes the task commit `commit` (written already with `message`, on this tree and
    /// parent) with `note` as its note, then brings the work tree and index up to it and
    /// releases the index.
    ///
    /// # Errors
    /// The branch moved meanwhile (nothing was published), the notes reference kept moving, the
    /// work tree or index could not be written after the branch moved (the message says how to
    /// finish by hand; running the same command again also finishes it), or `tasks.md` was edited
    /// in the work tree while the command ran ([`TickError::EditedDuringTick`]: the tick is
    /// published and staged, the edit kept).
    pub(crate) fn publish(self, commit: ObjectId, message: &str, note: &[u8]) -> Result<(), TickError> {
        // From the reference update to the index, an interrupt waits: stopped between them, the
        // lock would go and the index still untick the task for the next `git commit`.
        let _held = crate::git::HeldSignals::hold();
        self.repo
            .advance_branch_with_note(&self.branch, self.head, commit, message, NOTES_REF, note)
            .map_err(|e| match e {
                GitError::NoRoom { .. } => TickError::NoRoomPublishing(e),
                e => TickError::from(e),
            })?;
        let Some((file, target)) = self.stage else {
            return Ok(());
        };
        let path = file.path().to_owned();
        let staged = self
            .index
            .stage_and_commit(file)
            .map_err(|source| TickError::WorktreeAfterCommit { path: path.clone(), source })?;
        edit_kept(staged, &target, commit, &path)
    }
}

/// The tick of `target` is published by `commit` and staged; when the work-tree `path` was edited
/// after it was read ([`Staged::EditKept`]), the edit was kept in place of the tick, and the user
/// is told so.
fn edit_kept(staged: Staged, target: &str, commit: ObjectId, path: &str) -> Result<(), TickError> {
    match staged {
        Staged::Written => Ok(()),
        Staged::EditKept => Err(TickError::EditedDuringTick {
            target: target.to_owned(),
            commit: commit.to_string(),
            path: path.to_owned(),
        }),
    }
}

/// Writes the task (or decision) commit of `tree` on `parent` with `message`, signed as git signs
/// commits when `commit.gpgsign` is set: with git's own key (`gpg.format`, `user.signingKey`),
/// in the `gpgsig` header, so that `git verify-commit` and branch protection accept it. A commit
/// that git would sign and that cannot be signed is not written (fail closed, as git does).
///
/// # Errors
/// The commit cannot be made, or `commit.gpgsign` is set and no signature can be made
/// ([`TickError::CommitSigning`]).
pub(crate) fn write_task_commit(
    repo: &Repo,
    parent: ObjectId,
    tree: ObjectId,
    message: &str,
) -> Result<ObjectId, TickError> {
    let commit = repo.new_commit(&[parent], tree, message)?;
    if !repo.config_bool("commit.gpgsign").unwrap_or(false) {
        return Ok(repo.write_commit(commit, None)?);
    }
    let signature = signing::sign_git_commit(repo, &commit.bytes())?;
    Ok(repo.write_commit(commit, Some(signature))?)
}

/// The checked-out branch and its commit; a detached HEAD or an unborn branch is refused.
pub(crate) fn branch_head(repo: &Repo) -> Result<(String, ObjectId), TickError> {
    match repo.head()? {
        // The branch is written and named as text: one whose name is not UTF-8 is refused.
        Head::Branch { name, commit } => Ok((name.text()?.to_owned(), commit)),
        Head::Detached(id) => Err(TickError::Detached(id.to_string())),
        Head::Unborn(name) => Err(TickError::Unborn(name.to_string())),
    }
}

/// Refuses a task of an archived OpenSpec change: the change is closed, and a writer that ticked
/// or skipped it there would record work on a change nobody works on.
pub(crate) fn refuse_archived(target: &str, facts: &TaskFacts) -> Result<(), TickError> {
    if !spec::is_archive_dir(&facts.unit_dir) {
        return Ok(());
    }
    Err(TickError::Archived {
        target: target.to_owned(),
        dir: facts.unit_dir.clone(),
        id: facts.unit.clone(),
    })
}

/// Refuses a task of an OpenSpec change that HEAD or the tree `staged` (the index's, when the
/// task is read from it) holds active while the work tree no longer has its directory and holds
/// an archived copy of it (or the index does): `openspec archive` was run and not committed.
/// Read from HEAD or the index, the task would be recorded on a change its user has closed;
/// named so, rather than as a task list deleted or unstaged. A sparse checkout, which leaves
/// directories out on purpose, is not judged.
pub(crate) fn refuse_uncommitted_archive(
    repo: &Repo,
    index: &LockedIndex<'_>,
    target: &str,
    unit: &str,
    staged: Option<ObjectId>,
) -> Result<(), TickError> {
    let Some(workdir) = repo.workdir() else { return Ok(()) };
    if !matches!(repo.sparse_checkout(), SparseCheckout::Off) {
        return Ok(());
    }
    let head = head_tree(repo);
    let active = [staged, head].into_iter().flatten().find_map(|tree| {
        let loc = spec::locate_unit(&repo.tree(tree), unit).ok()?;
        (loc.format == spec::Format::OpenSpec && !loc.is_archived()).then_some(loc)
    });
    let Some(loc) = active.filter(|loc| workdir.join(&loc.dir).symlink_metadata().is_err()) else {
        return Ok(());
    };
    let copies = uncommitted_copies(repo, index, workdir, [staged, head], unit);
    if copies.is_empty() {
        return Ok(());
    }
    let dir_w = shell_word(&loc.dir);
    let restore = match head.map(|tree| repo.tree(tree).entry_id(&loc.dir)).transpose()? {
        Some(Some(_)) => format!("git restore --source=HEAD --staged --worktree -- {dir_w}"),
        _ => format!("git restore -- {dir_w}"),
    };
    Err(TickError::ArchivedNotCommitted {
        target: target.to_owned(),
        id: loc.name,
        dir: loc.dir,
        copies: copies.join(", "),
        restore,
    })
}

/// The archived copies of the OpenSpec change `unit` in the work tree `workdir`, else in the
/// index (`staged`, or read from `index`), less those HEAD's tree (`head`) holds: those an
/// `openspec archive` not committed yet made. An archive that cannot be read, or an index that
/// cannot be read as a tree (a merge's conflicts), holds no copy to name.
fn uncommitted_copies(
    repo: &Repo,
    index: &LockedIndex<'_>,
    workdir: &std::path::Path,
    [staged, head]: [Option<ObjectId>; 2],
    unit: &str,
) -> Vec<String> {
    let at_head =
        |dir: &String| head.is_some_and(|tree| repo.tree(tree).entry_id(dir).ok().flatten().is_some());
    let new = |copies: Vec<String>| copies.into_iter().filter(|dir| !at_head(dir)).collect::<Vec<_>>();
    let copies = new(spec::archived_copies(&spec::FsTree::new(workdir), unit).unwrap_or_default());
    if !copies.is_empty() {
        return copies;
    }
    let staged = staged.or_else(|| index.tree_with(&[]).ok());
    new(staged
        .map(|tree| spec::archived_copies(&repo.tree(tree), unit).unwrap_or_default())
        .unwrap_or_default())
}

/// Refuses a merge, cherry-pick, revert, rebase, `git am` or bisect in progress: the index then
/// holds that operation's half-done result, and a task commit would swallow it (with one parent,
/// and the operation left open).
fn refuse_operation_in_progress(repo: &Repo) -> Result<(), TickError> {
    let Some(state) = repo.operation_in_progress() else {
        return Ok(());
    };
    let (what, finish) = match state {
        InProgress::Merge => ("merge", "finish it (`git commit`) or abort it (`git merge --abort`)"),
        InProgress::CherryPick | InProgress::CherryPickSequence => (
            "cherry-pick",
            "finish it (`git cherry-pick --continue`) or abort it (`git cherry-pick --abort`)",
        ),
        InProgress::Revert | InProgress::RevertSequence => {
            ("revert", "finish it (`git revert --continue`) or abort it (`git revert --abort`)")
        }
        InProgress::Rebase | InProgress::RebaseInteractive | InProgress::ApplyMailboxRebase => {
            ("rebase", "finish it (`git rebase --continue`) or abort it (`git rebase --abort`)")
        }
        InProgress::ApplyMailbox => {
            ("`git am`", "finish it (`git am --continue`) or abort it (`git am --abort`)")
        }
        InProgress::Bisect => ("bisect", "end it (`git bisect reset`)"),
    };
    Err(TickError::InProgress { what, finish })
}

/// Refuses a task commit of `tree` on `parent` that changes the box of another task than its own
/// (`own`: its `<unit>/<task>` and task list; none for a bug task, which ticks nothing). It may
/// neither untick a task `parent` ticks ([`refuse_unticking`]) nor tick one `parent` does not
/// ([`refuse_ticking_others`]). Only units whose directory differs can differ in their ticks.
fn refuse_other_boxes(
    repo: &Repo,
    parent: ObjectId,
    tree: ObjectId,
    own: Option<(&str, &str)>,
) -> Result<(), TickError> {
    let before = repo.tree(repo.commit_tree(parent)?);
    let after = repo.tree(tree);
    let archive = format!("{}/{}", spec::OPENSPEC_CHANGES_DIR, spec::OPENSPEC_ARCHIVE);
    let mut changed = HashSet::new();
    for dir in [spec::SPECKIT_SPECS_DIR, spec::OPENSPEC_CHANGES_DIR, archive.as_str()] {
        let was: HashMap<String, ObjectId> = before.entry_ids(dir)?.unwrap_or_default().into_iter().collect();
        for (name, id) in after.entry_ids(dir)?.unwrap_or_default() {
            if was.get(&name) != Some(&id) {
                changed.insert(format!("{dir}/{name}"));
            }
        }
    }
    if changed.is_empty() {
        return Ok(());
    }
    refuse_unticking(&before, &after, &changed)?;
    refuse_ticking_others(&before, &after, &changed, own)
}

/// Refuses a task commit that unticks a task its parent (`before`) ticks, in a unit both trees
/// hold whose directory is `changed` (a unit removed or archived whole is a change of its own,
/// not an untick). The index lags behind HEAD when a writer was stopped after moving the branch,
/// and committing it as it is would silently take that tick back.
fn refuse_unticking(
    before: &GitTree<'_>,
    after: &GitTree<'_>,
    changed: &HashSet<String>,
) -> Result<(), TickError> {
    let (mut tasks, mut paths) = (Vec::new(), Vec::new());
    // A link or a submodule where another unit would be is no concern of this tick.
    for unit in spec::readable_units(before)?.into_iter().filter(|u| changed.contains(&u.dir)) {
        let still: HashSet<String> = spec::ticked_ids(after, &unit.name)?.into_iter().collect();
        let lost: Vec<String> = spec::ticked_ids(before, &unit.name)?
            .into_iter()
            .filter(|id| !still.contains(id))
            .map(|id| format!("{}/{id}", unit.name))
            .collect();
        if !lost.is_empty() {
            tasks.extend(lost);
            paths.push(unit.tasks);
        }
    }
    if tasks.is_empty() {
        return Ok(());
    }
    Err(TickError::WouldUntick { tasks: tasks.join(", "), paths: shell_words(&paths) })
}

/// Refuses a task commit (`after`) that ticks a task other than its own (`own`) that its parent
/// (`before`) does not tick, in a unit whose directory is `changed`: a box ticked by hand and
/// staged would go into the task commit, which verify fails as a tick without evidence. A list
/// of the parent that cannot be read ticked nothing there; one of the task commit that cannot be
/// read ticks nothing a reader could tell (verify names it on its own).
fn refuse_ticking_others(
    before: &GitTree<'_>,
    after: &GitTree<'_>,
    changed: &HashSet<String>,
    own: Option<(&str, &str)>,
) -> Result<(), TickError> {
    let (mut tasks, mut paths) = (Vec::new(), Vec::new());
    for unit in spec::readable_units(after)?.into_iter().filter(|u| changed.contains(&u.dir)) {
        let Ok(now) = spec::ticked_ids(after, &unit.name) else { continue };
        let had: HashSet<String> =
            spec::ticked_ids(before, &unit.name).unwrap_or_default().into_iter().collect();
        let gained: Vec<String> = (now.into_iter().filter(|id| !had.contains(id)))
            .map(|id| format!("{}/{id}", unit.name))
            .filter(|target| own.is_none_or(|(own, _)| own != target))
            .collect();
        if !gained.is_empty() {
            tasks.extend(gained);
            paths.push(unit.tasks);
        }
    }
    if tasks.is_empty() {
        return Ok(());
    }
    let words = shell_words(&paths);
    let clear = if own.is_some_and(|(_, list)| paths.iter().any(|p| p == list)) {
        format!("clear those boxes in your file and stage it (`git add -- {words}`)")
    } else {
        format!("unstage that file (`git restore --staged -- {words}`: the work tree keeps your ticks)")
    };
    Err(TickError::WouldTickOthers {
        of: own.map(|(target, _)| format!(" of {target}")).unwrap_or_default(),
        tasks: tasks.join(", "),
        paths: words,
        clear,
    })
}

/// The tree a writer reads a task from ([`read_task_in`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tree {
    /// What is staged (`attest`, `accept`: the task commit holds it).
    Staged,
    /// HEAD's commit (`skip`: recorded on it).
    Head,
}

/// [`spec::read_task`] of `unit`/`task_id` in `tree`, where a unit that tree lacks but the work
/// tree holds (a new unit not yet added, or added with `git add -N` only) is named as such, with
/// what brings it in, instead of as unknown.
///
/// # Errors
/// What [`spec::read_task`] returns; [`TickError::UnitNotStaged`] or
/// [`TickError::UnitNotCommitted`] (by `which`) for a unit only the work tree holds.
pub(crate) fn read_task_in(
    repo: &Repo,
    tree: ObjectId,
    unit: &str,
    task_id: &str,
    which: Tree,
) -> Result<TaskFacts, TickError> {
    match spec::read_task(&repo.tree(tree), unit, task_id) {
        Err(unknown @ spec::SpecError::UnknownUnit { .. }) => {
            let on_disk = repo.workdir().and_then(|w| spec::locate_unit(&spec::FsTree::new(w), unit).ok());
            let Some(loc) = on_disk else { return Err(unknown.into()) };
            let has_tasks = repo.workdir().is_some_and(|w| w.join(&loc.tasks).is_file());
            let path = if has_tasks { loc.tasks } else { format!("{}/", loc.dir) };
            let (unit, dir) = (loc.name, loc.dir);
            let head_holds = head_tree(repo).is_some_and(|t| spec::locate_unit(&repo.tree(t), &unit).is_ok());
            Err(match which {
                Tree::Staged if head_holds => index_lacks_head(
                    repo,
                    format!("unit `{unit}` ({path})"),
                    format!("git reset -- {}", shell_word(&dir)),
                ),
                Tree::Staged => TickError::UnitNotStaged { unit, path, dir },
                Tree::Head => TickError::UnitNotCommitted { unit, path, dir },
            })
        }
        other => Ok(other?),
    }
}

/// The tree of HEAD's commit, if HEAD names one.
fn head_tree(repo: &Repo) -> Option<ObjectId> {
    match repo.head().ok()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => repo.commit_tree(commit).ok(),
        Head::Unborn(_) => None,
    }
}

/// Why a task list the index marks skip-worktree cannot be ticked, with the advice that works for
/// this work tree's sparse checkout (or for none at all).
fn outside_checkout(repo: &Repo, facts: &TaskFacts) -> TickError {
    let path = facts.tasks_path.clone();
    match repo.sparse_checkout() {
        SparseCheckout::Cone => TickError::OutsideSparseCheckout { path, add: shell_word(&facts.unit_dir) },
        SparseCheckout::NonCone => {
            let add = format!(
                "{} {}",
                shell_word(&format!("/{}/", facts.unit_dir)),
                shell_word(&format!("/{path}"))
            );
            TickError::OutsideSparseCheckout { add, path }
        }
        SparseCheckout::Off => {
            let present = repo.workdir().is_some_and(|w| w.join(&path).symlink_metadata().is_ok());
            let restore =
                if present { String::new() } else { format!(" && git checkout -- {}", shell_word(&path)) };
            TickError::SkipWorktree { path, restore }
        }
    }
}

/// Refuses a work-tree `path` that is not `staged` (an edit that `git add` has not taken, a mode
/// change, or a deletion), so that the tick never drops a change of the user's. As `git status`
/// decides it: the work-tree file is compared in git's form ([`LockedIndex::to_git_form`]:
/// `core.autocrlf`, `eol`, filters), so a CRLF checkout of an LF blob is no change, and its
/// executable bit counts where `core.fileMode` says git reads it
/// ([`LockedIndex::mode_changed`]). A change git does not look at, the index marking the file
/// assume-unchanged, is refused naming the mark, which `git add` leaves in place. Returns the file
/// as read: the tick replaces only that file.
fn ensure_no_unstaged_changes(
    index: &LockedIndex<'_>,
    path: &str,
    staged: &[u8],
) -> Result<AsRead, TickError> {
    let as_read = worktree_file(index, path)?;
    match as_read.bytes() {
        Some(bytes) if index.to_git_form(path, bytes)? == staged && !index.mode_changed(path, &as_read) => {
            Ok(as_read)
        }
        _ if index.assumed_unchanged(path) => Err(TickError::AssumedUnchanged { path: path.to_owned() }),
        _ => Err(TickError::UnstagedTasks { path: path.to_owned() }),
    }
}

/// The work-tree file `path` as it is now ([`LockedIndex::read_worktree_file`]: no link
/// followed, never blocking, bounded).
///
/// # Errors
/// [`TickError::UnreadableTasks`] when something is there that cannot be read as a regular file
/// (a link, a FIFO, a directory, no permission, too large): its bytes are unknown, so it can
/// neither be taken as the staged file nor be overwritten.
fn worktree_file(index: &LockedIndex<'_>, path: &str) -> Result<AsRead, TickError> {
    let limit = u64::try_from(spec::SPEC_FILE_LIMIT).unwrap_or(u64::MAX).saturating_add(1);
    index
        .read_worktree_file(path, limit)
        .map_err(|e| TickError::UnreadableTasks { path: path.to_owned(), reason: e.reason() })
}
