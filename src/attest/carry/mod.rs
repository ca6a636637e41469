//! `speccoder attest carry`: re-issuing a task's evidence for the commit that now carries the same
//! change, after a rebase, an amend or a cherry-pick left the note on a commit the branch no
//! longer holds.
//!
//! "The same change" is four things, each checked before anything is signed: the same bytes in
//! the same place ([`same_change`](super::same_change): equal patches of the old and the new
//! task commit against their parents, with three lines of context); the same series of changes
//! before it ([`same_change::series_gap`](super::same_change::series_gap)); the same task line; the same
//! requirement text (the story's and every cited requirement's). The judge configuration at the
//! new parent must also be the one the evidence was judged under, by either recipe, as the verifier
//! matches it ([`crate::check::policy::matching_recipe`]). The old evidence must agree with
//! its own commit, and the re-issued lines must agree with the new one, by the same rules the
//! verifier applies ([`crate::check`]): carry never launders evidence.
//!
//! Nor does it launder signatures: re-signing vouches for the evidence with the carrier's key, so
//! every line of the old note must hold as evidence for the carrier first, as a CI gate would
//! check it today: a valid signature (a bad one means the content changed after signing, and is
//! refused whatever the trust) by a signer the carrier's own trust accepts at the time of the
//! carry, never at the old commit's date, which its author chose ([`crate::check::signatures`],
//! against the trust `attest verify` reads, by its loader: git's `gpg.ssh.allowedSignersFile`
//! and `gpg.ssh.revocationFile`, or the files given; an OpenPGP certificate and signing key
//! judged at the time of the carry too, so that one expired or revoked since, for any reason, is
//! refused). An unsigned line, an untrusted, expired or
//! revoked signer and a keyless (Sigstore) line, whose trust carry does not take, are refused
//! with a reason naming the key; a carrier who trusts nobody carries nothing.
//!
//! What moves: every statement's subject (the new commit, by id and by the sha256 of its
//! object); the task verification's `tree`, `time`, `carried {from, patch_id, time}` and
//! `policy_sha256` (the version-free recipe's, what this crate writes, for the same configuration);
//! the summary's `resourceUri`, `timeVerified`, `verifier.version`, policy digest and the digests
//! by which it names the other lines. Everything is signed afresh with the user's key, chosen as `attest` chooses it.
//! The old note stays where it is. A new commit that holds a note of its own keeps it (refused,
//! `note_exists`); one whose note another carry of the same evidence wrote (two carries at once,
//! whose times differ) keeps that note too, reported as there already.

mod checks;
mod plan;
mod refusal;
mod reissue;

use std::collections::HashMap;

use gix::ObjectId;
use serde::Serialize;

use crate::attest::config::ConfigError;
use crate::attest::signing::{self, Chosen, Moment, SignerError, SignerRequest};
use crate::attest::statements::BuildError;
use crate::attest::{LineReport, NoteNotWritten};
use crate::check::trust::{SignatureTrust, TrustError, TrustFiles};
use crate::exit::{self, Class, ExitClass};
use crate::git::{GitError, Repo};
use crate::model::bundle::{NOTES_REF, NoteTooLarge};
use crate::model::shown::{in_line, one_line};
use crate::spec::SpecError;

/// What `speccoder attest carry` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct CarryRequest {
    /// `--from OLD --to NEW`: one carry, explicitly.
    pub pair: Option<(String, String)>,
    /// `--rewritten`: the `<old> <new>` lines git gives its post-rewrite hook.
    pub rewritten: Option<String>,
    /// `--signer`, `--key`, `--sigstore-*`: the signer chosen as `attest` chooses it.
    pub signing: SignerRequest,
    /// Whom the carrier trusts: the old evidence must be signed by one of them.
    pub trust: TrustFiles,
}

/// One task whose evidence moved.
#[derive(Debug, Clone, Serialize)]
pub struct CarriedRow {
    /// `<unit>/<task>`.
    #[serde(serialize_with = "in_line")]
    pub target: String,
    /// The commit the evidence was on.
    pub from: String,
    /// The commit it is on now.
    pub to: String,
    /// The lines of the new note.
    pub lines: Vec<LineReport>,
    /// The new commit held this carry's note already, which is kept: this very note, or the one
    /// another carry of the same evidence wrote at another time (two carries at once).
    pub unchanged: bool,
}

/// One task whose evidence was not moved, and why.
#[derive(Debug, Clone, Serialize)]
pub struct RefusedRow {
    /// `<unit>/<task>`.
    #[serde(serialize_with = "in_line")]
    pub target: String,
    /// The commit the evidence is on.
    pub from: String,
    /// The commit that lacks it.
    pub to: String,
    /// A stable code: `same_commit`, `bad_signature`, `revoked_key`, `expired_key`,
    /// `untrusted_signer`, `signature_unchecked`, `evidence_unsigned`, `keyless_evidence`,
    /// `change_differs`, `evidence_gone`, `series_differs`, `series_too_long`, `task_line_differs`,
    /// `requirement_differs`, `policy_differs`, `not_the_same_task`, `evidence_does_not_hold`,
    /// `note_exists`, `joined_notes`.
    pub code: &'static str,
    /// What is wrong and what to do.
    #[serde(serialize_with = "in_line")]
    pub reason: String,
}

/// What `speccoder attest carry` did.
#[derive(Debug, Clone, Serialize)]
pub struct CarryReport {
    /// Evidence re-issued.
    pub carried: Vec<CarriedRow>,
    /// Evidence left where it was.
    pub refused: Vec<RefusedRow>,
    /// Who signed the new lines.
    #[serde(serialize_with = "in_line")]
    pub signer: Option<String>,
    /// Why the new lines are unsigned, and how to sign them.
    #[serde(serialize_with = "in_line")]
    pub unsigned_reason: Option<String>,
    /// Where the notes are.
    #[serde(serialize_with = "in_line")]
    pub notes_ref: String,
    /// Only the tasks of the commits git named as rewritten (`--rewritten`) were looked at.
    #[serde(skip)]
    pub rewritten_only: bool,
}

impl CarryReport {
    /// 0 when nothing was refused, 26 when a task's evidence could not be carried.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        if self.refused.is_empty() { exit::OK } else { exit::DOES_NOT_HOLD }
    }
}

impl std::fmt::Display for CarryReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.carried.is_empty() && self.refused.is_empty() {
            let why = if self.rewritten_only {
                "no task of the rewritten commits lacks evidence on the branch that another commit holds"
            } else {
                "no task commit lacks the evidence of a rewritten one"
            };
            return writeln!(f, "attest carry: nothing to carry ({why})");
        }
        writeln!(f, "attest carry: {} carried, {} refused", self.carried.len(), self.refused.len())?;
        for c in &self.carried {
            let signed = c.lines.iter().filter(|l| l.signed).count();
            let note = if c.unchanged { " (the note was there already)" } else { "" };
            writeln!(
                f,
                "  carried {} from {} to {}: {} lines, {signed} signed{note}",
                one_line(&c.target),
                short(&c.from),
                short(&c.to),
                c.lines.len()
            )?;
        }
        for r in &self.refused {
            writeln!(f, "  refused {} ({}): {}", one_line(&r.target), r.code, one_line(&r.reason))?;
        }
        if let Some(s) = self.signer.as_ref().filter(|_| !self.carried.is_empty()) {
            writeln!(f, "  signer: {s}")?;
        }
        if let Some(r) = self.unsigned_reason.as_ref().filter(|_| !self.carried.is_empty()) {
            writeln!(f, "  unsigned: {r}")?;
        }
        Ok(())
    }
}

fn short(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}

/// Why `speccoder attest carry` stopped. A carry whose checks do not hold is not one of these
/// but a refused row of the report.
#[derive(Debug, thiserror::Error)]
pub enum CarryError {
    /// A revision is unknown, or the repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// `--from` has no note.
    #[error("{commit} has no note in {NOTES_REF}: there is no evidence to carry from it")]
    NoNote {
        /// The commit.
        commit: ObjectId,
    },
    /// The carrier's trust cannot be loaded.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// No trust is configured, so no evidence can be checked before it is re-signed.
    #[error(
        "carry re-signs evidence with your key, so it first checks the old evidence's signatures against your own trust, and you trust no signer: nothing was carried. Configure the trust `attest verify` reads: git's gpg.ssh.allowedSignersFile (`git config gpg.ssh.allowedSignersFile ~/.ssh/allowed_signers`, a file of `<principal> <public key>` lines), or pass --allowed-signers FILE (--openpgp-certs FILE for OpenPGP evidence); then run `speccoder attest carry` again"
    )]
    NoTrust,
    /// The signer cannot be resolved, or cannot sign.
    #[error(transparent)]
    Signer(#[from] SignerError),
    /// speccoder.toml at a parent cannot be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The requirement text cannot be read at the new commit.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// A re-issued statement would leak.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The new note would be larger than a reader takes.
    #[error(transparent)]
    NoteTooLarge(#[from] NoteTooLarge),
    /// A line of the old note, read as a statement before, is not JSON.
    #[error("line {line} of the note of {from} is not JSON: {source}")]
    NotJson {
        /// The 1-based line.
        line: usize,
        /// The old commit.
        from: String,
        /// Why.
        source: serde_json::Error,
    },
    /// The re-issued lines would not agree with the new commit: our bug.
    #[error(
        "the evidence re-issued for {commit} would not agree with it ({reason}); its note was not written, and tasks carried before it in this run keep theirs (`speccoder attest verify --branch` shows which; please report this)"
    )]
    WouldNotAgree {
        /// The new commit.
        commit: ObjectId,
        /// The codes of the findings.
        reason: String,
    },
    /// The new note could not be written.
    #[error(transparent)]
    Note(#[from] NoteNotWritten),
    /// `--rewritten`: git's list of rewritten commits cannot be read on stdin.
    #[error(
        "cannot read the rewritten commits on stdin ({0}): --rewritten reads `<old> <new>` lines of commit ids, as git gives its post-rewrite hook"
    )]
    Stdin(String),
    /// `--rewritten`: a line of stdin that is not a pair of rewritten commits.
    #[error(
        "line {line} of the rewritten commits on stdin, `{text}`: {reason}; --rewritten reads `<old> <new>` lines of full commit ids, as git gives its post-rewrite hook"
    )]
    RewrittenLine {
        /// Its 1-based number.
        line: usize,
        /// The line, escaped and cut.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A failure of `--rewritten`, which git's post-rewrite hook runs once and never again.
    #[error(
        "{0}; nothing more is carried by this run of git's post-rewrite hook, which git does not run again: when that is resolved, run `speccoder attest carry`"
    )]
    InHook(Box<CarryError>),
}

impl ExitClass for CarryError {
    fn class(&self) -> Class {
        match self {
            CarryError::Git(e) => e.class(),
            CarryError::Trust(e) => e.class(),
            CarryError::Signer(e) => e.class(),
            CarryError::Config(e) => e.class(),
            CarryError::Spec(e) => e.class(),
            CarryError::Build(e) => e.class(),
            CarryError::Note(e) => e.class(),
            CarryError::InHook(e) => e.class(),
            CarryError::NoNote { .. } => Class::GitPrecondition,
            CarryError::NoTrust | CarryError::NoteTooLarge(_) => Class::Config,
            CarryError::Stdin(_) | CarryError::RewrittenLine { .. } => Class::Usage,
            CarryError::NotJson { .. } | CarryError::WouldNotAgree { .. } => Class::Internal,
        }
    }
}

/// Why one carry stopped: refused (a row of the report), or failed (the command stops).
enum Stop {
    /// A check did not hold.
    Refused(RefusedRow),
    /// The command cannot go on.
    Failed(CarryError),
}

/// Every failure of one carry stops the command.
macro_rules! fails {
    ($($from:ty),*) => {$(
        impl From<$from> for Stop {
            fn from(e: $from) -> Self {
                Stop::Failed(e.into())
            }
        }
    )*};
}

fails!(CarryError, GitError, SignerError, ConfigError, SpecError, BuildError, NoteTooLarge);

/// Runs `speccoder attest carry` (see the module documentation).
///
/// # Errors
/// An unknown revision, `--from` without a note, no trust configured or a trust file that cannot
/// be used, a signer that cannot sign, a statement that would leak, a note that cannot be written.
/// A change that differs, or evidence whose signatures do not hold for the carrier, is not an
/// error but a refused row ([`CarryReport::exit_code`] 26).
pub fn carry(repo: &Repo, req: &CarryRequest) -> Result<CarryReport, CarryError> {
    let in_hook = req.rewritten.is_some() && req.pair.is_none();
    match carry_all(repo, req) {
        // Its own advice names the command already.
        Err(e) if in_hook && !matches!(e, CarryError::NoTrust) => Err(CarryError::InHook(Box::new(e))),
        done => done,
    }
}

/// [`carry`], whose failures it tells as they are.
fn carry_all(repo: &Repo, req: &CarryRequest) -> Result<CarryReport, CarryError> {
    let notes: HashMap<ObjectId, ObjectId> = repo.notes(NOTES_REF)?.into_iter().collect();
    let mut refused = Vec::new();
    let jobs = match (&req.pair, &req.rewritten) {
        (Some((from, to)), _) => plan::pair_job(repo, (from, to), &notes, &mut refused)?,
        (None, Some(pairs)) => plan::rewritten_jobs(repo, pairs, &notes, &mut refused)?,
        (None, None) => plan::branch_jobs(repo, &notes, &mut refused)?,
    };
    let mut report = CarryReport {
        carried: Vec::new(),
        refused,
        signer: None,
        unsigned_reason: None,
        notes_ref: NOTES_REF.to_owned(),
        rewritten_only: req.pair.is_none() && req.rewritten.is_some(),
    };
    if jobs.is_empty() {
        return Ok(report);
    }
    // The carrier's trust, as `attest verify` reads it by default (a file HEAD's tree provides is
    // refused: the branch being carried would choose whom carry trusts). Keyless trust is not
    // taken (see [`checks`]). OpenPGP keys are judged at the time of the carry, not only at the
    // signature's: a key expired or revoked since vouches for nothing now.
    let mut trust = SignatureTrust::load_outside_head(repo, &req.trust)?;
    trust.openpgp_keys_at_check = true;
    if trust.is_empty() {
        return Err(CarryError::NoTrust);
    }
    let chosen = signing::resolve(repo, &req.signing, Moment::Tick)?;
    let now = time::OffsetDateTime::now_utc();
    for job in jobs {
        let carried = checks::check(repo, &notes, &job, &trust, now)
            .and_then(|checked| reissue::publish(repo, &checked, &chosen));
        match carried {
            Ok(row) => report.carried.push(row),
            Err(Stop::Refused(row)) => report.refused.push(row),
            Err(Stop::Failed(e)) => return Err(e),
        }
    }
    match &chosen {
        Chosen::Signer(s) => report.signer = Some(s.describe()),
        Chosen::Unsigned(reason) => report.unsigned_reason = Some(reason.to_string()),
    }
    Ok(report)
}
