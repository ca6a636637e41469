//! Why `attest export` wrote nothing, and the exit code of each reason. A range that does not
//! hold is no error: the command prints the verifier's report and exits 26.

use crate::attest::signing::SignerError;
use crate::exit::{Class, ExitClass};
use crate::git::GitError;
use crate::model::canonical::NoEmptyArray;
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
    /// The check returned without ending its report.
    #[error(
        "the check ended without the end of its report: this is a bug of speccoder's; nothing was written"
    )]
    CheckUnended,
    /// The check still holds the pack it wrote the notes into, once it has ended.
    #[error(
        "the pack is still in use after the check ended: this is a bug of speccoder's; nothing was written"
    )]
    PackInUse,
    /// The signer of the summary cannot be had (keyless: its services, `speccoder.toml`).
    #[error(transparent)]
    Signer(#[from] SignerError),
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
    /// The summary's inputs had no place in it (a bug).
    #[error("cannot encode the verification summary: {0}: this is a bug of speccoder's; nothing was written")]
    Layout(#[from] NoEmptyArray),
}

impl ExitClass for ExportError {
    /// Nothing to export 15; the notes moved, or a repository to change, 14; a key, signer,
    /// summary or output directory to fix, 13; a bug, 1.
    fn class(&self) -> Class {
        match self {
            ExportError::NoTick => Class::NothingToCheck,
            ExportError::NotesMoved => Class::GitPrecondition,
            ExportError::Signer(e) => e.class(),
            ExportError::Sign(e) => e.class(),
            ExportError::Leak(_) => Class::Config,
            ExportError::Output(e) => e.class(),
            ExportError::Git(e) => e.class(),
            ExportError::Inconsistent { .. }
            | ExportError::CheckUnended
            | ExportError::PackInUse
            | ExportError::Encode(_)
            | ExportError::Layout(_) => Class::Internal,
        }
    }
}
