//! Why a writer could not put its task commit on the branch.

use crate::attest::signing::CommitSigningError;
use crate::exit::{Class, ExitClass};
use crate::git::GitError;
use crate::model::shown::{Quoted, shell_word};
use crate::spec::SpecError;

/// Why a writer could not put its task commit on the branch (`attest`, `accept`), or read the task
/// it decides (`skip`): the repository's state, almost always, which the message says how to
/// change.
#[derive(Debug, thiserror::Error)]
pub enum TickError {
    /// The repository failed.
    #[error(transparent)]
    Git(GitError),
    /// The file system had no room for what the writer wrote before it published anything (a
    /// full disk or quota, a file-size limit): no task commit, no note.
    #[error("nothing was written (no task commit, no note): {0}")]
    NoRoom(GitError),
    /// The file system had no room while the notes reference and the branch moved (a reflog, a
    /// reference): the branch did not, the notes reference (written first) may have.
    #[error(
        "the branch did not move; at most the note was written, on a task commit no branch holds (HEAD's reflog may name that commit), and the same command run again with room completes the tick: {0}"
    )]
    NoRoomPublishing(GitError),
    /// The spec could not be read, or the task not found.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// `commit.gpgsign` is set, and git's own signing key cannot sign the task commit.
    #[error(transparent)]
    CommitSigning(#[from] CommitSigningError),
    /// The task is ticked already at HEAD.
    #[error(
        "{target} is already ticked in {path} at HEAD; nothing to attest (to re-attest, untick it in a new commit first)"
    )]
    AlreadyTicked {
        /// `<unit>/<task>`.
        target: Quoted,
        /// The tasks file.
        path: Quoted,
    },
    /// The index holds a tick that HEAD does not: someone ticked the box by hand and staged it.
    #[error(
        "{target} is ticked in the staged {path} but not at HEAD; a tick is made by `speccoder attest`: untick its box in your file, `git add {path_w}`, and run again",
        path_w = shell_word(&.path.to_string())
    )]
    TickedOnlyInIndex {
        /// `<unit>/<task>`.
        target: Quoted,
        /// The tasks file.
        path: Quoted,
    },
    /// An interrupted tick cannot be completed because its task list was edited since.
    #[error(
        "{target} was ticked by {commit}, but that run stopped before updating the work tree, and {path} was edited since, so it is left as it is. To keep your edit with the tick, tick the task's box in your file and `git add {path_w}` (`git diff HEAD -- {path_w}` then shows only your edit); `git checkout HEAD -- {path_w}` would drop your edit for the ticked file instead",
        path_w = shell_word(&.path.to_string())
    )]
    InterruptedTickEdited {
        /// `<unit>/<task>`.
        target: String,
        /// The task commit at HEAD.
        commit: String,
        /// The tasks file.
        path: String,
    },
    /// The tick is published and staged, but tasks.md was edited in the work tree while the
    /// command ran: the edit was kept in place of the ticked file.
    #[error(
        "{target} is ticked by the task commit {commit}, with its note, and the index holds the ticked {path}; but {path} was changed in the work tree while speccoder ran (after it had read the file), so it was not overwritten: the work tree keeps your edit, without the tick. `git diff {path_w}` shows your edit and the tick taken back: tick the task's box again in your file (then `git diff HEAD -- {path_w}` shows only your edit) and stage it as usual; `git checkout -- {path_w}` would drop your edit for the ticked file instead",
        path_w = shell_word(&.path.to_string())
    )]
    EditedDuringTick {
        /// `<unit>/<task>`.
        target: String,
        /// The task commit, at HEAD.
        commit: String,
        /// The tasks file.
        path: String,
    },
    /// A temporary file a stopped writer left beside a task list is staged.
    #[error(
        "{paths}: a temporary file a stopped speccoder run left beside a task list is staged, and a task commit would hold it; nothing was written: remove it (`git rm -f -- {paths}`) and run again"
    )]
    LeftoverStaged {
        /// The staged paths, each a shell word, space-separated.
        paths: String,
    },
    /// The task commit would untick tasks that HEAD ticks: the index lags behind HEAD.
    #[error(
        "the task commit would untick {tasks}, which HEAD ticks: the index holds an older {paths} (left by a speccoder run stopped after it moved the branch, or an untick staged by hand); nothing was written: tick {tasks} again in {paths} and stage it, which keeps any change of yours there (a stopped speccoder run that left the index as it was is finished by running it again; `git checkout HEAD -- {paths}` brings the index up to HEAD but drops your staged and unstaged changes to that file), or commit the untick on its own first"
    )]
    WouldUntick {
        /// The `<unit>/<task>` targets, comma-separated.
        tasks: String,
        /// Their task lists, each a shell word, space-separated.
        paths: String,
    },
    /// The task commit would tick tasks other than its own that HEAD does not tick: boxes
    /// ticked by hand and staged.
    #[error(
        "the task commit{of} would also tick {tasks}, ticked by hand in the staged {paths}: a task commit sets its own task's box only, and a box it set for another task holds no evidence (`attest verify --branch` fails it as ticked_without_evidence); nothing was written: {clear}, and run again; then tick each of those tasks by itself, with its own evidence (`speccoder attest <unit>/<task> --evidence FILE`, or `speccoder accept <unit>/<task> --reason TEXT`)"
    )]
    WouldTickOthers {
        /// ` of <unit>/<task>`, the task the commit is for; empty for a bug task.
        of: String,
        /// The `<unit>/<task>` targets, comma-separated.
        tasks: String,
        /// Their task lists, each a shell word, space-separated.
        paths: String,
        /// How to clear those boxes from the index.
        clear: String,
    },
    /// Git is in the middle of another operation in this work tree.
    #[error(
        "a {what} is in progress in this work tree, and a task commit made now would take its half-done changes and leave it open; nothing was written: {finish}, then run again"
    )]
    InProgress {
        /// `merge`, `cherry-pick`, `revert`, `rebase`, `git am`, `bisect`.
        what: &'static str,
        /// How to finish or abort it.
        finish: &'static str,
    },
    /// The task's OpenSpec change is archived: it is closed, and its tasks are not ticked.
    #[error(
        "{target} belongs to the OpenSpec change archived at {dir}, which is closed; nothing was written: to work on the change again, move it back (`git mv {dir_w} {moved_w}`) and commit that first",
        dir_w = shell_word(&.dir.to_string()),
        moved_w = shell_word(&format!("openspec/changes/{}", .id))
    )]
    Archived {
        /// `<unit>/<task>`.
        target: String,
        /// The archived change's directory.
        dir: String,
        /// The change id.
        id: String,
    },
    /// The task's OpenSpec change is gone from the work tree, moved into the archive there (or
    /// in the index) by an `openspec archive` not committed yet.
    #[error(
        "{target} belongs to the OpenSpec change `{id}`, whose directory {dir}/ is gone from the work tree: the change appears archived at {copies}, which is not committed yet; nothing was written: an archived change is closed, and its tasks are neither ticked nor skipped, so either commit the archive (`git add -A openspec`, then `git commit`), or, to record this task first, bring the directory back (`{restore}`) and run again"
    )]
    ArchivedNotCommitted {
        /// `<unit>/<task>`.
        target: String,
        /// The change id.
        id: String,
        /// The change's directory, as HEAD or the index holds it.
        dir: String,
        /// The archived copies, comma-separated.
        copies: String,
        /// The `git restore` that brings the directory back.
        restore: String,
    },
    /// tasks.md is outside the sparse checkout: the work tree does not hold it to be ticked.
    #[error(
        "{path} is outside this sparse checkout, so the work tree cannot show its tick; nothing was written: add it to the checkout (`git sparse-checkout add {add}`), then run again"
    )]
    OutsideSparseCheckout {
        /// The tasks file.
        path: String,
        /// What `git sparse-checkout add` takes to bring it in: the unit's directory in cone
        /// mode; in non-cone mode the directory and the file as patterns of their own, so that
        /// they win over a pattern that excludes the file.
        add: String,
    },
    /// tasks.md is marked skip-worktree (`git update-index --skip-worktree`) where no sparse
    /// checkout is configured: the work tree does not show changes to it.
    #[error(
        "{path} is marked skip-worktree in the index, though no sparse checkout is configured, so the work tree cannot show its tick; nothing was written: clear the mark (`git update-index --no-skip-worktree {path_w}{restore}`), then run again",
        path_w = shell_word(&.path.to_string())
    )]
    SkipWorktree {
        /// The tasks file.
        path: String,
        /// Empty, or the command that brings the file back when the work tree lacks it (its
        /// path a shell word).
        restore: String,
    },
    /// The index lacks what HEAD holds: it is empty or missing (a `GIT_INDEX_FILE` naming a new
    /// one), and a task commit made from it would delete what it lacks.
    #[error(
        "the index {} does not hold {what}, which HEAD holds: the index is empty or missing{}, and a task commit made from it would delete every file it lacks; nothing was written: fill it from HEAD with `{reset}` (the work tree stays as it is), then run again",
        .index.display(),
        if *.named_by_env { " (GIT_INDEX_FILE names it)" } else { "" }
    )]
    IndexLacksHead {
        /// The index file.
        index: std::path::PathBuf,
        /// Whether `GIT_INDEX_FILE` names it.
        named_by_env: bool,
        /// What it lacks: any file, or the unit.
        what: String,
        /// The command that fills it from HEAD.
        reset: String,
    },
    /// The unit is in the work tree but not in the index: a new unit not yet `git add`ed (or only
    /// with `git add -N`), which `attest` and `accept` cannot read, since they commit what is
    /// staged.
    #[error(
        "unit `{unit}` is in the work tree ({path}) but not committed or staged, so there is no task list to tick; nothing was written: stage it (`git add {dir_w}`), then run again",
        dir_w = shell_word(&.dir.to_string())
    )]
    UnitNotStaged {
        /// The unit.
        unit: String,
        /// Its task list in the work tree, or its directory when it has none.
        path: String,
        /// Its directory.
        dir: String,
    },
    /// The unit is in the work tree but not in HEAD's commit, where a skip is recorded.
    #[error(
        "unit `{unit}` is in the work tree ({path}) but not committed, and a skip is recorded on HEAD's commit; nothing was written: commit it (`git add {dir_w}`, then `git commit`), then run again",
        dir_w = shell_word(&.dir.to_string())
    )]
    UnitNotCommitted {
        /// The unit.
        unit: String,
        /// Its task list in the work tree, or its directory when it has none.
        path: String,
        /// Its directory.
        dir: String,
    },
    /// tasks.md has changes that are not staged.
    #[error("{path} has unstaged changes; stage them (`git add {path_w}`) or stash them, then run again",
        path_w = shell_word(&.path.to_string())
    )]
    UnstagedTasks {
        /// The tasks file.
        path: String,
    },
    /// tasks.md has changes that are not staged, and the index marks it assume-unchanged, so
    /// neither `git status` shows them nor `git add` stages them until the mark is cleared.
    #[error(
        "{path} has unstaged changes that git does not show: the index marks it assume-unchanged (`git update-index --assume-unchanged`), so `git status` passes over them and `git add` stages nothing; nothing was written: clear the mark (`git update-index --no-assume-unchanged {path_w}`), then stage the changes (`git add {path_w}`) or stash them, and run again",
        path_w = shell_word(&.path.to_string())
    )]
    AssumedUnchanged {
        /// The tasks file.
        path: String,
    },
    /// tasks.md in the work tree cannot be compared with the index: it is not a regular file
    /// that can be read.
    #[error(
        "{path} in the work tree cannot be compared with the staged one: {reason}; nothing was written: make it the regular, readable file you mean to keep (`git checkout -- {path_w}` restores the staged one), then run again",
        path_w = shell_word(&.path.to_string())
    )]
    UnreadableTasks {
        /// The tasks file.
        path: String,
        /// What is there instead ([`crate::input::InputError::reason`]: `it is a FIFO, not a regular
        /// file`, `it is a symbolic link, or lies behind one`, the system's error).
        reason: String,
    },
    /// HEAD is detached.
    #[error("HEAD is detached at {0}; check out a branch so the task commit has a home")]
    Detached(String),
    /// The branch has no commit yet.
    #[error("the branch {0} has no commits yet; commit the project first")]
    Unborn(String),
    /// The ticked task list could not be written beside the work-tree one before the commit: a
    /// directory this user may not write, a conversion that fails, an entry in the way.
    #[error(
        "{path} in the work tree cannot take the tick, so nothing was written (no task commit, no note): {source}"
    )]
    WorktreeNotWritten {
        /// The tasks file.
        path: String,
        /// Why.
        source: GitError,
    },
    /// The work tree or index could not be updated after the commit and note were written.
    #[error(
        "the task commit and its note were written, but {path} in the work tree and index could not be updated ({source}); once that is put right, run the same command again: it finds the tick committed and only brings {path} in the work tree and index up to it (`git checkout HEAD -- {path_w}` does the same by hand)",
        path_w = shell_word(&.path.to_string())
    )]
    WorktreeAfterCommit {
        /// The tasks file.
        path: String,
        /// Why.
        source: GitError,
    },
}

impl From<GitError> for TickError {
    /// A failure of the repository; [`TickError::NoRoom`] when the file system had no room, which
    /// every writer meets before it publishes (after, it is [`TickError::WorktreeAfterCommit`]).
    fn from(e: GitError) -> Self {
        match e {
            GitError::NoRoom { .. } => TickError::NoRoom(e),
            e => TickError::Git(e),
        }
    }
}

impl ExitClass for TickError {
    fn class(&self) -> Class {
        match self {
            TickError::Git(e)
            | TickError::NoRoom(e)
            | TickError::NoRoomPublishing(e)
            | TickError::WorktreeNotWritten { source: e, .. }
            | TickError::WorktreeAfterCommit { source: e, .. } => e.class(),
            TickError::Spec(e) => e.class(),
            TickError::CommitSigning(e) => e.class(),
            TickError::AlreadyTicked { .. }
            | TickError::TickedOnlyInIndex { .. }
            | TickError::InterruptedTickEdited { .. }
            | TickError::EditedDuringTick { .. }
            | TickError::LeftoverStaged { .. }
            | TickError::WouldUntick { .. }
            | TickError::WouldTickOthers { .. }
            | TickError::InProgress { .. }
            | TickError::Archived { .. }
            | TickError::ArchivedNotCommitted { .. }
            | TickError::OutsideSparseCheckout { .. }
            | TickError::SkipWorktree { .. }
            | TickError::UnitNotStaged { .. }
            | TickError::IndexLacksHead { .. }
            | TickError::UnitNotCommitted { .. }
            | TickError::UnstagedTasks { .. }
            | TickError::AssumedUnchanged { .. }
            | TickError::UnreadableTasks { .. }
            | TickError::Detached(_)
            | TickError::Unborn(_) => Class::GitPrecondition,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_work_tree_left_unwritten_after_the_commit_exits_as_the_cause_does() {
        let path = "specs/001-x/tasks.md".to_owned();
        let convert = GitError::Convert {
            path: path.clone(),
            conversion: crate::git::Conversion::ToWorktree,
            reason: "the smudge filter failed".into(),
        };
        let after = TickError::WorktreeAfterCommit { path: path.clone(), source: convert };
        assert_eq!(after.exit_code(), crate::exit::CONFIG, "a conversion the configuration breaks");
        let locked = GitError::IndexLocked { path: ".git/index".into(), others: Vec::new() };
        let after = TickError::WorktreeAfterCommit { path, source: locked };
        assert_eq!(after.exit_code(), crate::exit::GIT_PRECONDITION);
    }

    #[test]
    fn a_path_in_an_advised_command_is_one_shell_word_whatever_the_unit_is_named() {
        let (dir, path) = ("specs/a$(id)".to_owned(), "specs/a$(id)/tasks.md".to_owned());
        let target = "a$(id)/T001".to_owned();
        let (commit, unit) = ("0123abc".to_owned(), "a$(id)".to_owned());
        let errors = [
            TickError::TickedOnlyInIndex { target: target.clone().into(), path: path.clone().into() },
            TickError::InterruptedTickEdited {
                target: target.clone(),
                commit: commit.clone(),
                path: path.clone(),
            },
            TickError::EditedDuringTick { target: target.clone(), commit, path: path.clone() },
            TickError::Archived { target, dir: dir.clone(), id: "a$(id)".to_owned() },
            TickError::UnitNotStaged { unit: unit.clone(), path: path.clone(), dir: dir.clone() },
            TickError::UnitNotCommitted { unit, path: path.clone(), dir },
            TickError::UnstagedTasks { path: path.clone() },
            TickError::AssumedUnchanged { path: path.clone() },
            TickError::UnreadableTasks { path: path.clone(), reason: "it is a FIFO".to_owned() },
            TickError::SkipWorktree { path, restore: String::new() },
        ];
        for error in errors {
            let said = error.to_string();
            let quoted = said.split('`').skip(1).step_by(2);
            let commands: Vec<&str> = quoted.filter(|q| q.starts_with("git ")).collect();
            assert!(commands.iter().any(|c| c.contains("$(id)")), "a command names the unit: {said}");
            for command in commands.iter().filter(|c| c.contains("$(id)")) {
                assert!(
                    command.contains("'specs/a$(id)") || command.contains("'openspec/changes/a$(id)'"),
                    "{command}"
                );
            }
        }
    }
}
