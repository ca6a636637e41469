//! Loading the verifier policy the caller names: a file outside the checked tree (`--policy
//! FILE`), or a file at a revision outside the checked history (`--policy-rev REV:PATH`), held to
//! the same rules as the trust files. The one loader `attest verify` (and every command that
//! judges as it does) reads a policy through; the policy itself is [`crate::model::verifier_policy`].

use std::path::{Path, PathBuf};

use crate::check::trust::{GivenFile, RevFile, TrustError, read_rev_file, refuse_in_tree};
use crate::git::{ObjectId, Repo};
use crate::input::InputError;
use crate::model::verifier_policy::{LoadedPolicy, MAX_BYTES, PolicyParseError};

/// `--policy-rev`.
pub const POLICY_REV: RevFile = RevFile {
    flag: "--policy-rev",
    file_flag: "--policy",
    kind: "a verifier policy",
    chooses: "the rules that judge it",
    max: MAX_BYTES,
};

/// Where the caller's policy is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicySource {
    /// A file (`--policy FILE`).
    File(PathBuf),
    /// A file at a revision (`--policy-rev REV:PATH`).
    Rev(String),
}

/// Why the policy cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyLoadError {
    /// The policy does not parse, or says something that cannot hold.
    #[error("the verifier policy {0}; see docs/policy.md for the format")]
    Parse(#[from] PolicyParseError),
    /// The file cannot be read as a regular file of bounded size.
    #[error("cannot read the verifier policy {}: {}; name a regular file of at most {MAX_BYTES} bytes", .path.display(), .source.reason())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: InputError,
    },
    /// The file is the checked tree's, or the revision is inside the checked history (or does
    /// not name a regular file of bounded size).
    #[error(transparent)]
    Place(#[from] TrustError),
}

impl crate::exit::ExitClass for PolicyLoadError {
    fn class(&self) -> crate::exit::Class {
        match self {
            PolicyLoadError::Parse(_) | PolicyLoadError::Read { .. } => crate::exit::Class::Config,
            PolicyLoadError::Place(e) => e.class(),
        }
    }
}

/// Reads and parses the policy at `source`. `checked_tree` is the tree under review (a file it
/// holds is refused: the branch would be choosing its own rules); `in_range` says whether a
/// commit is part of the checked history (a `--policy-rev` revision there is refused).
///
/// # Errors
/// See [`PolicyLoadError`].
pub fn load_policy(
    repo: &Repo,
    source: &PolicySource,
    checked_tree: ObjectId,
    in_range: &dyn Fn(ObjectId) -> bool,
) -> Result<LoadedPolicy, PolicyLoadError> {
    match source {
        PolicySource::File(path) => {
            refuse_in_tree(repo, path, checked_tree, GivenFile::WithRev(&POLICY_REV))?;
            let bytes = read_file(path)?;
            let name = path.display().to_string();
            Ok(LoadedPolicy::read_file(&bytes, &name)?)
        }
        PolicySource::Rev(spec) => {
            let (commit, bytes) = read_rev_file(repo, spec, &POLICY_REV, in_range)?;
            Ok(LoadedPolicy::read(&bytes, spec, format!("{spec} ({commit})"))?)
        }
    }
}

/// The policy file `path`, as the person's other trust files are read: a regular file of at most
/// [`MAX_BYTES`] (a link to one is followed, as dotfile managers make them), never blocking.
///
/// # Errors
/// [`PolicyLoadError::Read`].
pub fn read_file(path: &Path) -> Result<Vec<u8>, PolicyLoadError> {
    crate::input::read_regular_through_links(path, MAX_BYTES)
        .map_err(|source| PolicyLoadError::Read { path: path.to_owned(), source })
}
