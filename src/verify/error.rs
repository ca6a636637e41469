//! The verifier's error. Evidence that does not hold is never an error: it is a finding in the
//! report.

use crate::exit::{Class, ExitClass};
use crate::git::GitError;
use crate::spec;

/// Why the verifier could not run at all (as opposed to evidence that does not hold).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The repository failed or a revision is unknown.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The spec at the head cannot be read.
    #[error(transparent)]
    Spec(#[from] spec::SpecError),
    /// HEAD is unborn: nothing to check.
    #[error("the branch {0} has no commits yet; nothing to check")]
    Unborn(String),
    /// A shallow clone whose history the check needs is cut off.
    #[error(transparent)]
    Shallow(#[from] crate::check::completeness::ShallowCut),
    /// The clone has a remote but no notes: the evidence was never fetched.
    #[error(
        "there are no notes in refs/notes/speccoder here, so the evidence was never fetched: run {} and check again (if that finds none, the evidence was never pushed: its author runs `speccoder attest push`)",
        fetch_advice(.remote, *.rename_first)
    )]
    NotesNotFetched {
        /// The remote to fetch from.
        remote: String,
        /// Its name cannot be part of a reference name, so `attest fetch` refuses it until it is
        /// renamed ([`GitError::RemoteNameUnusable`]): no remote here has a name it takes.
        rename_first: bool,
    },
    /// `A...B`: the commits either side has and the other has not, which is no history of one
    /// head to check.
    #[error(
        "`{}` names the commits either side has and the other has not, which this command does not check: name `A..B` (the commits B has and A has not) or `--branch --base A`",
        crate::model::shown::one_line(.0)
    )]
    SymmetricRange(String),
    /// The trust could not be completed while verifying (a Sigstore trusted root not to be had).
    #[error(transparent)]
    Trust(crate::check::trust::TrustFailure),
    /// An object a row needed is in the repository but cannot be decoded (its finding says which
    /// row): the run is no verdict.
    #[error(
        "object {0} is corrupt in the repository, so a row could not be checked (its finding names the object): repair the repository (`git fsck` names what is damaged; a clone that holds the object intact can give it back) and check again; until then this run is no verdict"
    )]
    CorruptObject(String),
}

/// The commands that fetch `remote`'s evidence: `attest fetch`, after `git remote rename` when
/// `rename_first`.
fn fetch_advice(remote: &str, rename_first: bool) -> String {
    let remote = crate::model::shown::shell_word(remote);
    if rename_first {
        format!(
            "`git remote rename -- {remote} <new-name>` (speccoder cannot keep the evidence of a remote of that name), then `speccoder attest fetch <new-name>`,"
        )
    } else {
        format!("`speccoder attest fetch {remote}`")
    }
}

impl ExitClass for VerifyError {
    /// A git failure takes its own class; a clone that lacks history or notes, or a branch with
    /// no commits, is the repository's state; a spec at the head that cannot be read takes its
    /// own class, but never usage (no command line names a unit here); a trust that failed while
    /// checking and an object that cannot be decoded are configuration or input, as a corrupt
    /// object is from every command.
    fn class(&self) -> Class {
        match self {
            VerifyError::Git(e) => e.class(),
            VerifyError::Shallow(e) => e.class(),
            VerifyError::Unborn(_) | VerifyError::NotesNotFetched { .. } => Class::GitPrecondition,
            VerifyError::Spec(e) => match e.class() {
                Class::Usage => Class::Config,
                class => class,
            },
            VerifyError::Trust(_) | VerifyError::CorruptObject(_) => Class::Config,
            VerifyError::SymmetricRange(_) => Class::Usage,
        }
    }
}
