//! `speccoder attest approve REV`: a second person's signature on the line that covers a tick
//! (the summary of a tick, the one line of a decision), which a verifier policy's `approvals`
//! counts. Nobody approves what they cannot verify: the note must pass the commit's own
//! agreement checks and every line's signatures must hold against the approver's own trust
//! before anything is signed, and again, on the note as it then is, before the signature is
//! written through the notes reference's compare-and-swap. Every payload and every other
//! signature stays byte for byte, so `attest fetch` joins the approval with any other copy of
//! the note (the same payload, one more signature by a key not yet on the line).

use serde::Serialize;

use crate::attest::provenance;
use crate::attest::signing::{self, Chosen, Moment, SignerError, SignerRequest, Unsigned};
use crate::attest::{Disagreement, NoteNotWritten, listed};
use crate::check::agreement::Rules;
use crate::check::approvals;
use crate::check::carriable;
use crate::check::completeness::{self, ShallowCut};
use crate::check::line::{ReadLine, covering_line};
use crate::check::outcome::CommitOutcome;
use crate::check::signatures;
use crate::check::trailers::task_trailers;
use crate::check::trust::{SignatureTime, SignatureTrust, TrustError, TrustFiles};
use crate::exit::{Class, ExitClass};
use crate::git::{Commit, GitError, ObjectId, Repo, UpdateNoteError};
use crate::model::bundle::{self, NOTES_REF, NoteTooLarge};
use crate::model::dsse::{self, Envelope, EnvelopeError, MAX_SIGNATURES, Signature};
use crate::model::shown::in_line;
use crate::sign::SignError;

/// What `attest approve` was asked to do.
#[derive(Debug, Clone)]
pub struct ApproveRequest {
    /// The task commit.
    pub rev: String,
    /// The approver's trust.
    pub trust: TrustFiles,
    /// When SSH keys must have been trusted.
    pub signature_time: SignatureTime,
    /// `--signer`, `--key`, `--sigstore-*` (a keyless approval is refused, but the choice is
    /// made as everywhere).
    pub signing: SignerRequest,
}

/// Why `attest approve` approved nothing.
#[derive(Debug, thiserror::Error)]
pub enum ApproveError {
    /// The revision is unknown, or the repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A shallow clone lacks the task commit's parent, which its check reads.
    #[error(transparent)]
    Shallow(#[from] ShallowCut),
    /// The approver's trust cannot be loaded.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// The approver trusts no signer, so nothing can be checked before approval.
    #[error(
        "approve signs a tick only after its note's signatures verify against your own trust, and you trust no signer: nothing was approved. {} then run `speccoder attest approve` again",
        crate::check::trust::CONFIGURE_TRUST
    )]
    NoTrust,
    /// The signer cannot be resolved.
    #[error(transparent)]
    Signer(#[from] SignerError),
    /// The signer cannot sign the approval.
    #[error("signing key: {0}")]
    Sign(#[from] SignError),
    /// A keyless signer was chosen.
    #[error(
        "an approval cannot be keyless: a line holds one Sigstore bundle, its signer's; approve with an SSH or OpenPGP key (--signer ssh|openpgp --key KEY)"
    )]
    Keyless,
    /// No signer is configured (or `--signer none` was given).
    #[error("cannot approve: {0}")]
    NoSigner(Unsigned),
    /// The commit claims no task.
    #[error("{} has no Spec-Task: trailer: it is not a task commit, and nothing was approved", crate::attest::rev_named(.rev, .commit))]
    NotATaskCommit {
        /// The revision as given.
        rev: String,
        /// The commit.
        commit: ObjectId,
    },
    /// The commit has no note.
    #[error("{} has no note in {NOTES_REF}; nothing to approve", crate::attest::rev_named(.rev, .commit))]
    NoNote {
        /// The revision as given.
        rev: String,
        /// The commit.
        commit: ObjectId,
    },
    /// The note was removed while it was being approved.
    #[error("the note of {0} was removed meanwhile; nothing was approved")]
    Removed(ObjectId),
    /// The note's covering line changed while it was being approved.
    #[error(
        "the note of {0} changed while it was being approved (its covering line is another statement now); run the same command again"
    )]
    Changed(ObjectId),
    /// The covering line cannot be read back to take the approval.
    #[error("the covering line is not an envelope ({0})")]
    NotAnEnvelope(EnvelopeError),
    /// The note has no one line that covers the tick.
    #[error("the note of {0} has no one line that covers it")]
    NoCoveringLine(ObjectId),
    /// The covering line carries as many signatures as a line may.
    #[error(
        "line {line} of the note of {commit} carries {count} signatures, the most a line may carry, {trusted} of them verifying under your trust: nothing was approved; {}",
        full_line_advice(*.count, *.trusted, .again)
    )]
    Full {
        /// The 1-based line.
        line: usize,
        /// The commit.
        commit: ObjectId,
        /// Its signatures.
        count: usize,
        /// How many of them verify with a key of the approver's trust.
        trusted: usize,
        /// How to make the tick again ([`carriable::attest_again`]).
        again: String,
    },
    /// Lines of the note do not agree with the task commit they annotate.
    #[error(transparent)]
    Disagrees(#[from] Disagreement),
    /// The approved note would be larger than a reader takes.
    #[error("{0}; nothing was approved")]
    NoteTooLarge(#[from] NoteTooLarge),
    /// A line's signature does not hold against the approver's trust.
    #[error(
        "the note of {commit} does not hold against your trust, and nobody approves what they cannot verify; nothing was approved:\n{findings}"
    )]
    Unapprovable {
        /// The task commit.
        commit: ObjectId,
        /// Each finding on a line of its own, indented.
        findings: String,
    },
    /// The note could not be written.
    #[error(transparent)]
    Note(#[from] NoteNotWritten),
}

/// What to do about a covering line that carries `count` signatures, the most a line may, of
/// which `trusted` verify under the approver's trust; `again`: how to make the tick again.
fn full_line_advice(count: usize, trusted: usize, again: &str) -> String {
    match count.saturating_sub(trusted) {
        0 => format!(
            "every one verifies under your trust: the line carries {} signatures besides its maker's, and a policy's `approvals.count` asks for at most 15; if it still counts too few approvals (several keys of one person count once), a new note can take approvals again: {again}, then approve the new task commit",
            count.saturating_sub(1)
        ),
        others => format!(
            "the other {others} verify under no key your trust accepts and never count as approvals for you (anyone who can write notes can add a signature): find who wrote them; a new note can take approvals again: {again}, then approve the new task commit"
        ),
    }
}

impl ExitClass for ApproveError {
    fn class(&self) -> Class {
        match self {
            ApproveError::Git(e) => e.class(),
            ApproveError::Shallow(e) => e.class(),
            ApproveError::Trust(e) => e.class(),
            ApproveError::Signer(e) => e.class(),
            ApproveError::Sign(e) => e.class(),
            ApproveError::Disagrees(e) => e.class(),
            ApproveError::Note(e) => e.class(),
            ApproveError::NoTrust
            | ApproveError::Keyless
            | ApproveError::NoSigner(_)
            | ApproveError::NoteTooLarge(_) => Class::Config,
            ApproveError::Unapprovable { .. } => Class::DoesNotHold,
            ApproveError::NotATaskCommit { .. }
            | ApproveError::NoNote { .. }
            | ApproveError::Removed(_)
            | ApproveError::Changed(_)
            | ApproveError::NotAnEnvelope(_)
            | ApproveError::NoCoveringLine(_)
            | ApproveError::Full { .. } => Class::GitPrecondition,
        }
    }
}

/// What `attest approve` did.
#[derive(Debug, Clone, Serialize)]
pub struct ApproveReport {
    /// `attest approve`.
    pub command: &'static str,
    /// The task commit.
    pub commit: String,
    /// `<unit>/<task>`.
    #[serde(serialize_with = "in_line")]
    pub target: String,
    /// The verdict.
    #[serde(serialize_with = "in_line")]
    pub verdict: String,
    /// The note's line that was approved (1-based).
    pub line: usize,
    /// The sha256 of that line's payload.
    pub sha256: String,
    /// Who approved (`ssh ed25519 SHA256:...`).
    #[serde(serialize_with = "in_line")]
    pub approver: String,
    /// The signatures the line carries now.
    pub signatures: usize,
    /// The line carried a signature by this key already: nothing was written.
    pub unchanged: bool,
    /// Where the note is.
    pub notes_ref: &'static str,
    /// Why, under the approver's own trust, the signature counts as no approval of the tick (as a
    /// verifier policy's `approvals` counts them, whoever its `by` names): empty when it counts.
    #[serde(serialize_with = "in_line")]
    pub warnings: Vec<String>,
}

impl std::fmt::Display for ApproveReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let short = self.commit.get(..12).unwrap_or(&self.commit);
        writeln!(f, "attest approve {}: {} ({})", self.target, short, self.verdict)?;
        writeln!(f, "  line {} sha256:{} in {}", self.line, self.sha256, self.notes_ref)?;
        writeln!(f, "  approver: {}", self.approver)?;
        if self.unchanged {
            writeln!(f, "  warning: the line carries a signature by this key already; nothing changed")?;
        }
        for w in &self.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        writeln!(f, "  the line carries {} signatures; `speccoder attest push` shares them", self.signatures)
    }
}

/// The line an approval signs, found in one reading of the note.
#[derive(Debug)]
struct Covering {
    /// Its position among the note's raw lines.
    index: usize,
    /// Its 1-based number.
    number: usize,
    /// Its payload, which the approval signs (with the payload type).
    payload: Vec<u8>,
    /// Its payload type.
    payload_type: String,
    /// Signatures it carries.
    signatures: usize,
    /// One of them is by the approver's key.
    approved: bool,
    /// The bundle name of each line of the note ([`ReadLine::bundle_name`]), in order.
    names: Vec<String>,
    /// The note's lines as read, the covering line among them numbered `number`.
    read: Vec<ReadLine>,
    /// The sha256 of the task commit object, which a keyless bundle is bound to.
    commit_sha256: String,
}

/// Approves the tick of `req.rev`.
///
/// # Errors
/// Not a task commit, a shallow clone without its parent ([`ShallowCut`]) or no note (14), no
/// trust (13), a signer that cannot sign or is keyless
/// (13), a note that does not agree with its commit or whose signatures do not hold for the
/// approver ([`ApproveError::Disagrees`], [`ApproveError::Unapprovable`]: 26), a line already
/// carrying [`MAX_SIGNATURES`] (14), a note the approval would make larger than a reader takes
/// ([`ApproveError::NoteTooLarge`]: 13), or a note that cannot be written.
pub fn approve(repo: &Repo, req: &ApproveRequest) -> Result<ApproveReport, ApproveError> {
    let commit = repo.rev_parse_peeled(&req.rev)?;
    let info = repo.commit(commit)?;
    let (target, verdict) = task_trailers(&info.message);
    let Some(target) = target else {
        return Err(ApproveError::NotATaskCommit { rev: req.rev.clone(), commit });
    };
    // The commit under review must not provide the trust it is checked against, nor a revision
    // that builds on it (a merge of it holds files it wrote).
    let builds_on = |c| c == commit || repo.is_ancestor(commit, c).unwrap_or(true);
    let trust = SignatureTrust::load(repo, &req.trust, info.tree, &builds_on)?;
    if trust.is_empty() {
        return Err(ApproveError::NoTrust);
    }
    let signer = match signing::resolve(repo, &req.signing, Moment::Later)? {
        Chosen::Signer(s) if s.signs_summary_only() => return Err(ApproveError::Keyless),
        Chosen::Signer(s) => s,
        Chosen::Unsigned(reason) => return Err(ApproveError::NoSigner(reason)),
    };
    let keyid = signer.keyid();
    // Whether the line carries this approval already is told by a signature that verifies with
    // the approver's own key, never by a keyid anyone can write.
    let own = signer.own_key()?.map(|key| SignatureTrust::own_key(&key));
    let mine = Mine { keyid: &keyid, own: own.as_ref() };
    let at = req.signature_time.at(info.committer.seconds);
    // What the check reads, as `attest verify` has it: a shallow clone's parent, a partial
    // clone's contents.
    completeness::ready_for::<ApproveError>(repo, &info)?;
    let rules = Rules::new(repo, None);
    let read = |note: &[u8]| covering(&rules, &info, &target, verdict.as_deref(), note, &trust, at, &mine);
    let note =
        repo.note(NOTES_REF, commit)?.ok_or_else(|| ApproveError::NoNote { rev: req.rev.clone(), commit })?;
    let first = read(&note)?;
    let mut last = None;
    let mut made = None;
    if !first.approved {
        let sig = signer.sign(&crate::model::dsse::pae(&first.payload_type, &first.payload))?;
        let approval = Signature { keyid: keyid.clone(), sig };
        made = Some(approval.clone());
        repo.update_note(NOTES_REF, commit, |current| -> Result<Option<Vec<u8>>, ApproveError> {
            let current = current.ok_or(ApproveError::Removed(commit))?;
            let now = read(current)?;
            if now.payload != first.payload || now.payload_type != first.payload_type {
                return Err(ApproveError::Changed(commit));
            }
            // The same key's signature written meanwhile (the same approval run twice at once).
            let written = if now.approved {
                current.to_vec()
            } else {
                with_approval(current, commit, &now, &approval)?
            };
            last = Some(now);
            Ok(Some(written))
        })
        .map_err(|e| match e {
            UpdateNoteError::Compute(inner) => inner,
            UpdateNoteError::Read(source) | UpdateNoteError::Git(source) => {
                NoteNotWritten { commit: commit.to_string(), source }.into()
            }
        })?;
    }
    let done = last.as_ref().unwrap_or(&first);
    Ok(ApproveReport {
        command: "attest approve",
        commit: commit.to_string(),
        target,
        verdict: verdict.unwrap_or_default(),
        line: done.number,
        sha256: crate::model::digest::sha256_hex(&done.payload),
        approver: signer.describe(),
        signatures: done.signatures + usize::from(!done.approved),
        unchanged: done.approved,
        notes_ref: NOTES_REF,
        warnings: not_counted(done, made.as_ref(), &mine, &trust, at).into_iter().collect(),
    })
}

/// Why the approver's signature on the covering line of `done` (`made` now, or on the line
/// already) will not count as an approval under the approver's `trust`, judged as the verifier's
/// `approvals` judges it ([`approvals::signature_adds_none`]), on the note as written.
fn not_counted(
    done: &Covering,
    made: Option<&Signature>,
    mine: &Mine<'_>,
    trust: &SignatureTrust,
    at: time::OffsetDateTime,
) -> Option<String> {
    let mut lines = done.read.clone();
    let at_line = lines.iter().position(|l| l.number == done.number)?;
    let envelope = &mut lines[at_line].envelope;
    let sig = match made.filter(|_| !done.approved) {
        Some(approval) => {
            envelope.signatures.push(approval.clone());
            approval.sig.clone()
        }
        None => {
            let own = signatures::each_verifies(envelope, mine.own?, at).iter().position(|v| *v)?;
            envelope.signatures[own].sig.clone()
        }
    };
    let why = approvals::signature_adds_none(&lines, at_line, &sig, trust, at, &done.commit_sha256)?;
    Some(format!("under your trust this signature counts as no approval of the tick: {why}"))
}

/// `note` with `approval` appended to the signatures of its covering line, read as `covering`
/// (every other line, and every other byte of that line, as they were: [`dsse::add_to_line`]),
/// within the caps a reader takes, as every writer of a note that holds its statements already
/// checks it ([`provenance::rewritten_note`]).
///
/// # Errors
/// The line cannot be read back, or the note would be too large ([`ApproveError::NoteTooLarge`],
/// naming its largest part).
fn with_approval(
    note: &[u8],
    commit: ObjectId,
    covering: &Covering,
    approval: &Signature,
) -> Result<Vec<u8>, ApproveError> {
    let index = covering.index;
    let mut lines: Vec<Vec<u8>> = bundle::split(note).into_iter().map(<[u8]>::to_vec).collect();
    let raw = lines.get(index).ok_or(ApproveError::Changed(commit))?;
    let mut envelope = Envelope::parse(raw).map_err(ApproveError::NotAnEnvelope)?;
    lines[index] = dsse::add_to_line(raw, &[approval.json()], None).map_err(ApproveError::NotAnEnvelope)?;
    envelope.signatures.push(approval.clone());
    // Every line was read (`covering`), so each other one reads as an envelope again.
    let envelopes = lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| if i == index { Some(envelope.clone()) } else { Envelope::parse(line).ok() });
    let named = covering.names.iter().zip(envelopes);
    Ok(provenance::rewritten_note(&lines, &commit.to_string(), named)?)
}

/// The approver's key: its `keyid`, and a trust in it alone when the signer can name its public
/// key (every signer `approve` takes).
struct Mine<'a> {
    keyid: &'a str,
    own: Option<&'a SignatureTrust>,
}

/// Reads `note` of the task commit `info` as the approver must: it agrees with the commit, every
/// line's signatures hold under `trust`, and it has one covering line, which can take one more
/// signature unless the approver's key signed it already (a signature that verifies with it).
#[allow(clippy::too_many_arguments, reason = "one reading, with everything it is held to")]
fn covering(
    rules: &Rules<'_>,
    info: &Commit,
    target: &str,
    verdict: Option<&str>,
    note: &[u8],
    trust: &SignatureTrust,
    at: time::OffsetDateTime,
    mine: &Mine<'_>,
) -> Result<Covering, ApproveError> {
    let commit = info.id;
    let mut findings = Vec::new();
    let checked = rules.note(info, target, verdict, note, &mut findings);
    findings.retain(|f| f.outcome > CommitOutcome::Ok);
    if !findings.is_empty() {
        return Err(Disagreement { commit: commit.to_string(), findings: listed(&findings) }.into());
    }
    let unheld = signatures::unheld(&checked.lines, trust, at, &checked.commit_sha256);
    if !unheld.is_empty() {
        return Err(ApproveError::Unapprovable { commit, findings: listed(&unheld) });
    }
    let index = covering_line(&checked.lines, checked.task_verification)
        .ok_or(ApproveError::NoCoveringLine(commit))?;
    let line = &checked.lines[index];
    let approved = match mine.own {
        Some(own) => signatures::each_verifies(&line.envelope, own, at).contains(&true),
        None => signatures::signed_by(&line.envelope, mine.keyid),
    };
    let count = line.envelope.signatures.len();
    if !approved && count >= MAX_SIGNATURES {
        let trusted = signatures::each_verifies(&line.envelope, trust, at).iter().filter(|v| **v).count();
        let again = carriable::attest_again(target, verdict);
        return Err(ApproveError::Full { line: line.number, commit, count, trusted, again });
    }
    Ok(Covering {
        // Every line read (no finding refused one), so the note's lines and the read ones agree.
        index: line.number - 1,
        number: line.number,
        payload: line.envelope.payload.clone(),
        payload_type: line.envelope.payload_type.clone(),
        signatures: count,
        approved,
        names: checked.lines.iter().map(ReadLine::bundle_name).collect(),
        commit_sha256: checked.commit_sha256.clone(),
        read: checked.lines,
    })
}
