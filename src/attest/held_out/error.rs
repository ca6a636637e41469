//! Why a held-out command stopped.

use std::path::PathBuf;

use crate::attest::target::BadTarget;
use crate::exit::{Class, ExitClass};
use crate::git::GitError;
use crate::model::clean::LeakAt;
use crate::spec;

/// Why a held-out command stopped. Nothing is written in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum HeldOutError {
    /// The target is not `<unit>/<task>`.
    #[error(transparent)]
    Target(#[from] BadTarget),
    /// The unit or task cannot be read.
    #[error(transparent)]
    Spec(#[from] spec::SpecError),
    /// The repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The branch has no commit yet.
    #[error("the branch {0} has no commits yet; commit the project first")]
    Unborn(String),
    /// `--store` points into a work tree of the repository (this one, the main one or a linked
    /// one).
    #[error(
        "the held-out store {store} is inside the work tree {workdir} of this repository, where the implementer would see the tests; use a directory outside every work tree (`git worktree list` lists them; the default is under the git directory)"
    )]
    StoreInWorkTree {
        /// The store asked for.
        store: PathBuf,
        /// The work tree that holds it.
        workdir: PathBuf,
    },
    /// `--store` names something that is not a directory (or, for `publish`, nothing at all).
    #[error(
        "the held-out store {store} {reason}; --store must name a directory (`held-out store` creates one that does not exist yet; `held-out publish` reads one that does)"
    )]
    StoreNotDirectory {
        /// The store asked for.
        store: PathBuf,
        /// What is wrong with it.
        reason: super::StoreProblem,
    },
    /// The files to store cannot be taken.
    #[error("cannot store the held-out files of {dir}: {message}")]
    Source {
        /// The directory given.
        dir: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The manifest would record a leak (an absolute local path, a token): the clean check the
    /// evidence goes through found it.
    #[error(
        "the held-out manifest would leak {leak}; it comes from {origin}: change it there and run again (nothing was stored)"
    )]
    Leak {
        /// What and where in the manifest (a JSON pointer).
        leak: LeakAt,
        /// Where the value came from.
        origin: String,
    },
    /// A stored set cannot be published at all; nothing was written.
    #[error(
        "the held-out set {path}: {message}; nothing was written (repair or remove that set, then run publish again)"
    )]
    BadSet {
        /// The set's directory.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A set with this key is stored already and does not match its manifest.
    #[error(
        "the stored set {path} does not hold what its manifest says ({message}); remove it and run store again"
    )]
    StoredDiffers {
        /// The set's directory.
        path: PathBuf,
        /// What differs.
        message: String,
    },
    /// A held-out reference names something other than a commit.
    #[error(
        "{reference} names a {found}, not a commit, so the sets it holds cannot be read; point it at its last commit (`git reflog {reference}`, then `git update-ref {reference} <commit>`), or delete it (`git update-ref -d {reference}`) and publish again"
    )]
    NotACommit {
        /// The reference.
        reference: String,
        /// What it names.
        found: String,
    },
    /// The store cannot be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl ExitClass for HeldOutError {
    fn class(&self) -> Class {
        match self {
            HeldOutError::Target(e) => e.class(),
            HeldOutError::Spec(e) => e.class(),
            HeldOutError::Git(e) => e.class(),
            HeldOutError::Unborn(_) | HeldOutError::NotACommit { .. } => Class::GitPrecondition,
            HeldOutError::StoreInWorkTree { .. } => Class::Usage,
            HeldOutError::Source { .. }
            | HeldOutError::StoreNotDirectory { .. }
            | HeldOutError::Leak { .. }
            | HeldOutError::BadSet { .. }
            | HeldOutError::StoredDiffers { .. }
            // The store cannot be written (permissions, a full disk): an output that cannot be
            // used, not a bug.
            | HeldOutError::Io { .. } => Class::Config,
        }
    }
}
