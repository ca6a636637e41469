//! The repository through gix: objects, history, trailers, notes and refs.
//!
//! Everything goes through [`Repo`], and through gix, except what gix does not do here: remotes
//! (fetch, push, a partial clone's missing objects), the patches of changes, the paths they change
//! and the commits that change given paths, and the merge of a merge's parents run the `git` program (its `command` module, never through a shell).
//! Repository content is treated as hostile: damaged objects and odd notes trees become
//! [`GitError`]s, never panics.

#![warn(missing_docs)]

mod cache;
mod change_diff;
mod changed_paths;
mod command;
mod command_config;
mod commit;
mod config;
mod convert;
mod error;
mod extensions;
mod fetch_lock;
mod files;
mod git_file;
mod history;
mod identity;
mod index;
mod interrupt;
mod limits;
mod line_ends;
mod lock_wait;
mod merge_tree;
mod new_commit;
mod notes;
mod notes_merge;
mod ownership;
mod path;
mod ref_advice;
mod ref_merge;
mod ref_name;
mod refs;
mod remote;
mod repo;
mod revision;
mod shallow;
pub mod trailers;
mod tree;
mod unicode;
mod work_trees;
mod worktree;

#[cfg(test)]
pub(crate) mod test_support;

pub use change_diff::{DIFF_LINE_MAX, PatchLine, PatchOf};
pub use commit::{Commit, Signature};
pub use config::{SparseCheckout, strip_credentials};
pub use error::{Conversion, GitError, NotesRefFault, ShallowCut, TreeFilter};
pub use extensions::ExtensionRefusal;
pub use fetch_lock::FetchLock;
pub use files::work_tree_of;
pub use git_file::GitFile;
pub use gix::ObjectId;
pub use index::{FileToStage, LockedIndex, Staged};
pub use interrupt::{HeldSignals, remove_locks_on_interrupt};
pub use limits::{ATTRIBUTES_FILE_LIMIT, OBJECT_SIZE_LIMIT, SETTINGS_FILE_LIMIT};
pub use new_commit::NewCommit;
pub use notes::{NOTES_REF, NoteOutcome, UpdateNoteError};
pub use notes_merge::{Joined, MergeNotesError, NotesMerged};
pub use path::is_tree_path;
pub use ref_advice::{delete_ref_command, set_ref_command};
pub use ref_merge::{RefMerged, Unjoinable};
pub use ref_name::BranchName;
pub use refs::{CAS_TRIES, CasUpdate};
pub use remote::{Direction, PushDefault, PushOutput, PushStatus, PushedRef, RemoteRef};
pub use repo::{Head, InProgress, Repo, RepoHandle};
pub use tree::{ChangedEntry, FilesBelowProblem, GitTree, KnownDirs, TreeShapeProblem};
pub use work_trees::resolve_path;
pub use worktree::AsRead;
