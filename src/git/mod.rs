//! The repository through gix: objects, history, trailers, notes and refs.
//!
//! Everything goes through [`Repo`]; nothing here spawns `git`. Repository content is treated as
//! hostile: damaged objects and odd notes trees become [`GitError`]s, never panics.

#![warn(missing_docs)]

mod commit;
mod config;
mod error;
mod history;
mod identity;
mod index;
mod new_commit;
mod notes;
mod path;
mod refs;
mod repo;
pub mod trailers;
mod tree;
mod worktree;

#[cfg(test)]
mod tests;

pub use commit::{Commit, Signature};
pub use config::strip_credentials;
pub use error::GitError;
pub use gix::ObjectId;
pub use index::LockedIndex;
pub use new_commit::NewCommit;
pub use notes::{NOTES_REF, NoteOutcome, UpdateNoteError};
pub use refs::{CAS_TRIES, CasUpdate};
pub use repo::{Head, Repo, RepoHandle};
pub use tree::GitTree;
