//! Why a held-out command stopped.

use std::path::PathBuf;

use crate::attest::target::BadTarget;
use crate::exit::{Class, ExitClass};
use crate::git::{GitError, delete_ref_command, set_ref_command};
use crate::model::clean::LeakAt;
use crate::model::shown::{one_line, one_line_path, shell_word};
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
    /// speccoder.toml at HEAD cannot be read, its `[spec]` is malformed, or the unit named is of
    /// another format than the one it names (boxed: the error stays small).
    #[error(transparent)]
    Config(Box<crate::attest::config::ConfigError>),
    /// The unit's held-out reference cannot be written: its name escapes too long.
    #[error(transparent)]
    RefName(#[from] crate::model::refs::ComponentTooLong),
    /// The branch has no commit yet.
    #[error("the branch {0} has no commits yet; commit the project first")]
    Unborn(String),
    /// A shallow clone holds sets no task commit here names: one below the boundary may.
    #[error(
        "this clone is shallow (its history stops at {boundary}) and no task commit here names the set {key} of {unit}: one below may; fetch the whole history (`git fetch --unshallow`, or `fetch-depth: 0` for actions/checkout) and publish again"
    )]
    Shallow {
        /// A commit at the shallow boundary.
        boundary: String,
        /// The unit of the set.
        unit: String,
        /// The set's key.
        key: String,
    },
    /// `--store` points into a work tree of the repository (this one, the main one or a linked
    /// one).
    #[error(
        "the held-out store {} is inside the work tree {} of this repository, where the implementer would see the tests; use a directory outside every work tree (`git worktree list` lists them; the default is under the git directory)", one_line_path(.store), one_line_path(.workdir)
    )]
    StoreInWorkTree {
        /// The store asked for.
        store: PathBuf,
        /// The work tree that holds it.
        workdir: PathBuf,
    },
    /// The default store lies inside a work tree: the git directory is inside it under another
    /// name than `.git`.
    #[error(
        "the default held-out store {} is inside the work tree {}, since this repository's git directory lies there under another name than .git (git status lists it), where the implementer would see the tests; name a store outside every work tree (`held-out store --store DIR`, `held-out publish --store DIR`, `attest --held-out-store DIR`), or move the git directory out of the work tree", one_line_path(.store), one_line_path(.workdir)
    )]
    DefaultStoreInWorkTree {
        /// The default store.
        store: PathBuf,
        /// The work tree that holds it.
        workdir: PathBuf,
    },
    /// `--store` names something that is not a directory (or, for `publish`, nothing at all).
    #[error(
        "the held-out store {} {reason}; the store option must name a directory (`held-out store --store` creates one that does not exist yet; `held-out publish --store` and `attest --held-out-store` read one that does)", one_line_path(.store)
    )]
    StoreNotDirectory {
        /// The store asked for.
        store: PathBuf,
        /// What is wrong with it.
        reason: super::StoreProblem,
    },
    /// The files to store cannot be taken.
    #[error("cannot store the held-out files of {}: {message}", one_line_path(.dir))]
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
        "the held-out set {}: {message}; nothing was written (repair or remove that set, then run publish again)", one_line_path(.path)
    )]
    BadSet {
        /// The set's directory.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A set with this key is stored already and does not match its manifest.
    #[error(
        "the stored set {} does not hold what its manifest says ({message}); remove it and run store again", one_line_path(.path)
    )]
    StoredDiffers {
        /// The set's directory.
        path: PathBuf,
        /// What differs.
        message: String,
    },
    /// A held-out reference names something other than a commit.
    #[error(
        "{reference} names a {found}, not a commit, so the sets it holds cannot be read; point it at its last commit (`git reflog {}`, then `{}`), or delete it (`{}`) and publish again",
        shell_word(.reference),
        set_ref_command(.reference, "<commit>"),
        delete_ref_command(.reference)
    )]
    NotACommit {
        /// The reference.
        reference: String,
        /// What it names.
        found: String,
    },
    /// The evidence's held_out phase names a set the store does not hold.
    #[error(
        "the evidence's held_out phase names the held-out set {manifest}, which the held-out store {} does not hold; store the set first (`speccoder held-out store {} DIR` prints the digest to name), or name the store that holds it (`speccoder attest --held-out-store DIR`); nothing was written",
        one_line_path(store),
        shell_word(target)
    )]
    ClaimNotStored {
        /// `sha256:<hex>` as the evidence names it.
        manifest: String,
        /// The store looked in.
        store: PathBuf,
        /// `<unit>/<task>` being attested.
        target: String,
    },
    /// The evidence's held_out phase names a set stored for another task.
    #[error(
        "the evidence's held_out phase names the held-out set {manifest}, which was stored for {}, not for {}; store this task's own held-out tests (`speccoder held-out store {} DIR`) and name the digest it prints; nothing was written",
        one_line(written_for),
        one_line(target),
        shell_word(target)
    )]
    ClaimOtherTask {
        /// `sha256:<hex>` as the evidence names it.
        manifest: String,
        /// The task its manifest names.
        written_for: String,
        /// `<unit>/<task>` being attested.
        target: String,
    },
    /// The evidence's held_out phase names a stored set that no longer matches its manifest.
    #[error(
        "the evidence's held_out phase names the held-out set {manifest}, but the stored set {} does not hold what its manifest says ({}); store the held-out tests again (`speccoder held-out store {} DIR`) and name the digest it prints; nothing was written",
        one_line_path(path),
        one_line(message),
        shell_word(target)
    )]
    ClaimDiffers {
        /// `sha256:<hex>` as the evidence names it.
        manifest: String,
        /// The set's directory.
        path: PathBuf,
        /// `<unit>/<task>` being attested.
        target: String,
        /// What differs.
        message: String,
    },
    /// The publisher's trust cannot be loaded.
    #[error(transparent)]
    Trust(#[from] crate::check::trust::TrustError),
    /// A closed task names a set, and the publisher trusts no signer to check its tick with.
    #[error(
        "held-out publish releases a set only for a tick whose note verifies against your own trust, and you trust no signer: nothing was published. {} then run `speccoder held-out publish` again",
        crate::check::trust::CONFIGURE_TRUST
    )]
    NoTrust,
    /// The store cannot be written.
    #[error("cannot write {}: {source}", one_line_path(.path))]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl From<crate::attest::config::ConfigError> for HeldOutError {
    fn from(e: crate::attest::config::ConfigError) -> Self {
        HeldOutError::Config(Box::new(e))
    }
}

impl ExitClass for HeldOutError {
    fn class(&self) -> Class {
        match self {
            HeldOutError::Target(e) => e.class(),
            HeldOutError::Spec(e) => e.class(),
            HeldOutError::Git(e) => e.class(),
            HeldOutError::Config(e) => e.class(),
            HeldOutError::Trust(e) => e.class(),
            HeldOutError::Unborn(_) | HeldOutError::NotACommit { .. } | HeldOutError::Shallow { .. } => {
                Class::GitPrecondition
            }
            HeldOutError::StoreInWorkTree { .. } | HeldOutError::DefaultStoreInWorkTree { .. } => {
                Class::Usage
            }
            HeldOutError::Source { .. }
            | HeldOutError::RefName(_)
            | HeldOutError::StoreNotDirectory { .. }
            | HeldOutError::Leak { .. }
            | HeldOutError::BadSet { .. }
            | HeldOutError::StoredDiffers { .. }
            // The evidence names a set it cannot stand on: input that cannot be used, as the
            // evidence's other refusals.
            | HeldOutError::ClaimNotStored { .. }
            | HeldOutError::ClaimOtherTask { .. }
            | HeldOutError::ClaimDiffers { .. }
            | HeldOutError::NoTrust
            // The store cannot be written (permissions, a full disk): an output that cannot be
            // used, not a bug.
            | HeldOutError::Io { .. } => Class::Config,
        }
    }
}
