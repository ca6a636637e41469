//! `speccoder attest sign [REV]`: signs the unsigned lines of a task commit's note, leaving every
//! payload (and every line already signed) exactly as it is. It signs only a note that REV's own
//! checks accept (the verifier's agreement rules, signatures aside): whoever can write notes
//! could otherwise add lines made for their own commit and have them signed with the
//! maintainer's key.

use crate::attest::signing::{self, Chosen, Moment, SignerError, SignerRequest, Unsigned};
use crate::attest::{Disagreement, LineReport, NoteNotWritten, Report, listed};
use crate::check::agreement::Rules;
use crate::check::outcome::CommitOutcome;
use crate::check::trailers::task_trailers;
use crate::exit::{Class, ExitClass};
use crate::git::{GitError, ObjectId, Repo};
use crate::model::bundle::{self, NOTES_REF, NoteTooLarge};
use crate::model::digest::sha256_hex;
use crate::model::dsse::{Envelope, EnvelopeError};

/// Why `attest sign` signed nothing.
#[derive(Debug, thiserror::Error)]
pub enum SignLaterError {
    /// The revision is unknown, or the repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The signer cannot be resolved, or cannot sign.
    #[error(transparent)]
    Signer(#[from] SignerError),
    /// No signer is configured (or `--signer none` was given): there is nothing to sign with.
    #[error("cannot sign: {0}")]
    NoSigner(Unsigned),
    /// The commit has no note.
    #[error("{rev} ({commit}) has no note in {NOTES_REF}; nothing to sign")]
    NoNote {
        /// The revision as given.
        rev: String,
        /// The commit.
        commit: ObjectId,
    },
    /// The commit claims no task.
    #[error("{rev} ({commit}) has no Spec-Task: trailer: it is not a task commit, and nothing was signed")]
    NotATaskCommit {
        /// The revision as given.
        rev: String,
        /// The commit.
        commit: ObjectId,
    },
    /// A line of the note is not an envelope.
    #[error("line {line} of the note of {commit} is not an envelope ({reason}); not touching it")]
    NotAnEnvelope {
        /// The 1-based line.
        line: usize,
        /// The commit.
        commit: ObjectId,
        /// Why.
        reason: EnvelopeError,
    },
    /// Lines of the note do not agree with the task commit they annotate.
    #[error(transparent)]
    Disagrees(#[from] Disagreement),
    /// The signed note would be larger than a reader takes.
    #[error(transparent)]
    NoteTooLarge(#[from] NoteTooLarge),
    /// The note could not be written.
    #[error(transparent)]
    Note(#[from] NoteNotWritten),
}

impl ExitClass for SignLaterError {
    fn class(&self) -> Class {
        match self {
            SignLaterError::Git(e) => e.class(),
            SignLaterError::Signer(e) => e.class(),
            SignLaterError::Disagrees(e) => e.class(),
            SignLaterError::Note(e) => e.class(),
            // Keys are configuration, as a key that cannot sign is.
            SignLaterError::NoSigner(_) | SignLaterError::NoteTooLarge(_) => Class::Config,
            SignLaterError::NoNote { .. }
            | SignLaterError::NotATaskCommit { .. }
            | SignLaterError::NotAnEnvelope { .. } => Class::GitPrecondition,
        }
    }
}

/// Signs the unsigned lines of the note of `rev` (default `HEAD`).
///
/// # Errors
/// Not a task commit, no note, a line that is not an envelope, a line the commit's own checks
/// refuse ([`SignLaterError::Disagrees`], nothing signed), no signer, or the note cannot be
/// written.
pub fn sign_later(repo: &Repo, rev: &str, signing: &SignerRequest) -> Result<Report, SignLaterError> {
    let commit = repo.rev_parse_peeled(rev)?;
    let info = repo.commit(commit)?;
    let (target, verdict) = task_trailers(&info.message);
    // The tree under review is the commit's own: the rules judge REV alone.
    let rules = Rules::new(repo, None);

    let signer = match signing::resolve(repo, signing, Moment::Later)? {
        Chosen::Signer(s) => s,
        Chosen::Unsigned(reason) => return Err(SignLaterError::NoSigner(reason)),
    };
    let mut signed_now = 0usize;
    let mut report_lines = Vec::new();
    repo.update_note(NOTES_REF, commit, |current| -> Result<Option<Vec<u8>>, SignLaterError> {
        let Some(current) = current else {
            return Err(SignLaterError::NoNote { rev: rev.to_owned(), commit });
        };
        let Some(target) = target.as_deref() else {
            return Err(SignLaterError::NotATaskCommit { rev: rev.to_owned(), commit });
        };
        let mut findings = Vec::new();
        rules.note(&info, target, verdict.as_deref(), current, &mut findings);
        findings.retain(|f| f.outcome > CommitOutcome::Ok);
        if !findings.is_empty() {
            return Err(Disagreement { commit: commit.to_string(), findings: listed(&findings) }.into());
        }
        signed_now = 0;
        report_lines.clear();
        let mut out = Vec::new();
        for (i, raw) in bundle::split(current).into_iter().enumerate() {
            let mut env = Envelope::parse(raw).map_err(|reason| SignLaterError::NotAnEnvelope {
                line: i + 1,
                commit,
                reason,
            })?;
            if env.signatures.is_empty() {
                signing::sign_envelope(&mut env, signer.as_ref()).map_err(SignerError::from)?;
                signed_now += 1;
                out.push(env.to_line());
            } else {
                out.push(raw.to_vec());
            }
            report_lines.push(LineReport {
                name: format!("line {}", i + 1),
                sha256: sha256_hex(&env.payload),
                signed: true,
            });
        }
        Ok(Some(bundle::join_within_caps(&out)?))
    })
    .map_err(|e| match e {
        crate::git::UpdateNoteError::Compute(inner) => inner,
        crate::git::UpdateNoteError::Git(source) => {
            NoteNotWritten { commit: commit.to_string(), source }.into()
        }
    })?;
    Ok(Report {
        command: "attest sign",
        commit: commit.to_string(),
        branch: None,
        target: target.unwrap_or_default(),
        verdict: verdict.unwrap_or_default(),
        lines: report_lines,
        signer: Some(signer.describe()),
        unsigned_reason: None,
        withheld: Vec::new(),
        warnings: if signed_now == 0 {
            vec!["every line was signed already; nothing changed".into()]
        } else {
            Vec::new()
        },
        notes_ref: NOTES_REF.to_owned(),
    })
}
