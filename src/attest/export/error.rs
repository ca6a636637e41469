//! Why `attest export` wrote nothing, and the exit code of each reason. A range that does not
//! hold is no error: the command prints the verifier's report and exits 26.

use crate::attest::AttestError;
use crate::exit;
use crate::git::GitError;
use crate::model::clean::LeakAt;
use crate::output_file::OutputError;
use crate::sign::SignError;

/// Why nothing was exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Every row holds, and none is a tick (only skips, which are never evidence).
    #[error(
        "nothing to export: no task of the range is ticked with evidence (a skip is listed by `attest verify` and is never evidence); nothing was written"
    )]
    NoTick,
    /// refs/notes/speccoder moved between the check and the export.
    #[error(
        "refs/notes/speccoder moved while the range was checked (another command wrote evidence), so the pack could hold notes that were not checked; nothing was written: run the export again"
    )]
    NotesMoved,
    /// A note the check read is not what the export reads at the same notes commit.
    #[error(
        "the note of {commit} {what}, though the check has just read it at the same notes commit: this is a bug of speccoder's; nothing was written"
    )]
    Inconsistent {
        /// The task commit.
        commit: String,
        /// What is wrong with its note.
        what: String,
    },
    /// The signer of the summary cannot be had (keyless: its services, `speccoder.toml`).
    #[error(transparent)]
    Signer(AttestError),
    /// The summary could not be signed, or the key cannot sign it.
    #[error("cannot sign the verification summary: {0}")]
    Sign(#[from] SignError),
    /// The summary would carry a secret or a local path.
    #[error("the verification summary would leak {0}; nothing was written")]
    Leak(LeakAt),
    /// The directory cannot be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The summary could not be encoded (a bug).
    #[error("cannot encode the verification summary: {0}")]
    Encode(serde_json::Error),
}

impl ExportError {
    /// The exit code: 15 nothing to export, 14 the notes moved or the repository is in a state
    /// to change, 13 a key, signer, summary or output directory to fix, 1 a bug.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            ExportError::NoTick => exit::NOTHING_TO_CHECK,
            ExportError::NotesMoved => exit::GIT_PRECONDITION,
            ExportError::Signer(e) => e.exit_code(),
            ExportError::Sign(_) | ExportError::Leak(_) | ExportError::Output(_) => exit::CONFIG,
            ExportError::Git(e) => crate::attest::git_exit_code(e),
            ExportError::Inconsistent { .. } | ExportError::Encode(_) => exit::INTERNAL,
        }
    }
}
