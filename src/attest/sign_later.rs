//! `speccoder attest sign [REV]`: adds the signer's signature to every line of a task commit's
//! note that does not carry one yet, leaving every payload, and every other signature, exactly
//! as it is. It signs only a note that REV's own checks accept (the verifier's agreement rules,
//! signatures aside): whoever can write notes could otherwise add lines made for their own
//! commit and have them signed with the maintainer's key.
//!
//! A line counts as signed by the signer only when one of its signatures verifies over it with
//! the signer's own key, checked as the verifier checks any signature
//! ([`signatures::each_verifies`] under [`SignatureTrust::own_key`]): a signature by someone
//! else, or one that does not verify (junk written by whoever can write notes), never stands in
//! for the signer's. Such signatures are kept (DSSE allows several) and the report names their
//! lines.
//!
//! A keyless (summary-only) signer signs the summary alone, as `attest` does, and a line holds one
//! Sigstore bundle: a summary whose bundle verifies under the signer's trusted root (checked as
//! the verifier checks one, [`signatures::check`]) is left as it is, and one whose bundle does not
//! verify is neither taken for the signer's nor replaced: nothing is signed.

use serde::Serialize;
use time::OffsetDateTime;

use crate::attest::provenance;
use crate::attest::signing::{self, Chosen, Moment, SignerError, SignerRequest, Unsigned};
use crate::attest::{Disagreement, LineReport, NoteNotWritten, Report, listed};
use crate::check::agreement::Rules;
use crate::check::completeness::{self, ShallowCut};
use crate::check::line::ReadLine;
use crate::check::outcome::CommitOutcome;
use crate::check::signatures::{self, LineSignature};
use crate::check::trailers::{claim_problem, task_trailers};
use crate::check::trust::SignatureTrust;
use crate::exit::{Class, ExitClass};
use crate::git::{GitError, ObjectId, Repo};
use crate::model::bundle::{self, NOTES_REF, NoteTooLarge};
use crate::model::digest::sha256_hex;
use crate::model::dsse::{Envelope, EnvelopeError, MAX_SIGNATURES};
use crate::model::shown::one_line;
use crate::sign::Signer;

/// Why `attest sign` signed nothing.
#[derive(Debug, thiserror::Error)]
pub enum SignLaterError {
    /// The revision is unknown, or the repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A shallow clone lacks the task commit's parent, which its check reads.
    #[error(transparent)]
    Shallow(#[from] ShallowCut),
    /// The signer cannot be resolved, or cannot sign.
    #[error(transparent)]
    Signer(#[from] SignerError),
    /// No signer is configured (or `--signer none` was given): there is nothing to sign with.
    #[error("cannot sign: {0}")]
    NoSigner(Unsigned),
    /// The commit has no note.
    #[error("{} has no note in {NOTES_REF}; nothing to sign", crate::attest::rev_named(.rev, .commit))]
    NoNote {
        /// The revision as given.
        rev: String,
        /// The commit.
        commit: ObjectId,
    },
    /// The commit claims no task.
    #[error("{} has no Spec-Task: trailer: it is not a task commit, and nothing was signed", crate::attest::rev_named(.rev, .commit))]
    NotATaskCommit {
        /// The revision as given.
        rev: String,
        /// The commit.
        commit: ObjectId,
    },
    /// The commit's task trailers are not one plain claim (`not_one_claim`, as the verifier
    /// reads them): a merge, a `Spec-Task:` or `Verdict:` given twice, or read two ways.
    #[error(
        "{rev} ({commit}) is not one plain task claim (not_one_claim): {problem}; the verifier refuses it whatever its note says, so nothing was signed"
    )]
    NotOneClaim {
        /// The revision as given.
        rev: String,
        /// The commit.
        commit: ObjectId,
        /// What is wrong with the claim ([`claim_problem`]).
        problem: String,
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
    /// A line to sign carries as many signatures as a line may.
    #[error(
        "line {line} of the note of {commit} carries {count} signatures, none of them verifying with your key, and a line may carry at most {MAX_SIGNATURES}: nothing was signed; find who wrote them, and attest the task again"
    )]
    Full {
        /// The 1-based line.
        line: usize,
        /// The commit.
        commit: ObjectId,
        /// Its signatures.
        count: usize,
    },
    /// The line a keyless signer signs carries a Sigstore bundle that does not verify, and a line
    /// holds one bundle.
    #[error(
        "line {line} of the note of {commit} carries a Sigstore bundle that does not verify under the trusted root keyless signing uses ({code}: {reason}); a line holds one bundle, and one that does not verify is neither taken for your signature nor replaced: nothing was signed; find who wrote it, and attest the task again"
    )]
    KeylessUnverified {
        /// The 1-based line.
        line: usize,
        /// The commit.
        commit: ObjectId,
        /// The verifier's finding code (`malformed_sigstore_bundle`, `bad_signature`, ...).
        code: &'static str,
        /// Why, as the verifier says it, made safe to show.
        reason: String,
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
            SignLaterError::Shallow(e) => e.class(),
            SignLaterError::Signer(e) => e.class(),
            SignLaterError::Disagrees(e) => e.class(),
            SignLaterError::Note(e) => e.class(),
            // Keys are configuration, as a key that cannot sign is.
            SignLaterError::NoSigner(_) | SignLaterError::NoteTooLarge(_) => Class::Config,
            SignLaterError::NoNote { .. }
            | SignLaterError::Full { .. }
            | SignLaterError::KeylessUnverified { .. }
            | SignLaterError::NotATaskCommit { .. }
            | SignLaterError::NotOneClaim { .. }
            | SignLaterError::NotAnEnvelope { .. } => Class::GitPrecondition,
        }
    }
}

/// What `attest sign` did: the note's report, a line `signed` when it carries the signer's own
/// signature, and which lines it signed now, which carried that signature already and which
/// carry signatures it left alone.
#[derive(Debug, Clone, Serialize)]
pub struct SignReport {
    /// The task commit, its note's lines and the signer.
    #[serde(flatten)]
    pub report: Report,
    /// The lines this run signed (1-based).
    pub signed_now: Vec<usize>,
    /// The lines that carried a signature by the signer's key already (1-based).
    pub signed_before: Vec<usize>,
    /// The lines carrying signatures that do not verify with the signer's key (another signer's,
    /// or broken ones), each kept as it is.
    pub other_signatures: Vec<OtherSignatures>,
}

/// A line's signatures that are not the signer's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OtherSignatures {
    /// The 1-based line.
    pub line: usize,
    /// How many.
    pub count: usize,
}

impl std::fmt::Display for SignReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = &self.report;
        let short = r.commit.get(..12).unwrap_or(&r.commit);
        writeln!(f, "{} {}: {} ({})", r.command, one_line(&r.target), short, one_line(&r.verdict))?;
        let signed = r.lines.iter().filter(|l| l.signed).count();
        writeln!(
            f,
            "  note {short} in {}: {} lines, {signed} signed by this signer ({} signed now, {} signed before)",
            r.notes_ref,
            r.lines.len(),
            self.signed_now.len(),
            self.signed_before.len()
        )?;
        for (i, l) in r.lines.iter().enumerate() {
            let n = i + 1;
            let state = if self.signed_now.contains(&n) {
                "signed now"
            } else if self.signed_before.contains(&n) {
                "signed before"
            } else {
                "not signed by this signer"
            };
            let others = match self.other_signatures.iter().find(|o| o.line == n) {
                Some(o) => format!(", {} other signature(s) kept", o.count),
                None => String::new(),
            };
            writeln!(f, "    {:<22} sha256:{}  ({state}{others})", l.name, l.sha256)?;
        }
        if let Some(s) = &r.signer {
            writeln!(f, "  signer: {s}")?;
        }
        for w in &r.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        Ok(())
    }
}

/// What became of one line.
#[derive(Clone, PartialEq, Eq)]
enum LineSigned {
    /// Signed by this run.
    Now,
    /// It carried the signer's signature already.
    Before,
    /// It carries a keyless bundle that verifies, as this certificate identity and issuer (made
    /// safe to show), and the signer is keyless: a line holds one.
    Keyless(String),
    /// Not the summary, which a summary-only signer signs alone (it names this line by digest).
    Named,
}

/// Adds the signer's signatures to the note of `rev` (default `HEAD`) where they are missing.
///
/// # Errors
/// Not a task commit, a shallow clone without its parent ([`ShallowCut`]), no note, a line that
/// is not an envelope, a line the commit's own checks refuse ([`SignLaterError::Disagrees`],
/// nothing signed), a line to sign that carries as many signatures as a line may, no signer, or
/// the note cannot be written.
pub fn sign_later(repo: &Repo, rev: &str, signing: &SignerRequest) -> Result<SignReport, SignLaterError> {
    let commit = repo.rev_parse_peeled(rev)?;
    let info = repo.commit(commit)?;
    let (target, verdict) = task_trailers(&info.message);
    // The tree under review is the commit's own: the rules judge REV alone.
    let rules = Rules::new(repo, None);

    let signer = match signing::resolve(repo, signing, Moment::Later)? {
        Chosen::Signer(s) => s,
        Chosen::Unsigned(reason) => return Err(SignLaterError::NoSigner(reason)),
    };
    let own = signer.own_key().map_err(SignerError::from)?.map(|k| SignatureTrust::own_key(&k));
    // What a keyless bundle must be bound to, as the verifier binds it.
    let commit_sha256 = crate::attest::commit_object_sha256(repo, commit)?;
    // What the check reads, as `attest verify` has it: a shallow clone's parent, a partial
    // clone's contents (a commit that claims no task is refused below, as it is).
    if target.is_some() {
        completeness::ready_for::<SignLaterError>(repo, &info)?;
    }
    let mut outcomes: Vec<(LineReport, LineSigned, usize)> = Vec::new();
    repo.update_note(NOTES_REF, commit, |current| -> Result<Option<Vec<u8>>, SignLaterError> {
        let Some(current) = current else {
            return Err(SignLaterError::NoNote { rev: rev.to_owned(), commit });
        };
        let Some(target) = target.as_deref() else {
            return Err(SignLaterError::NotATaskCommit { rev: rev.to_owned(), commit });
        };
        if let Some(problem) = claim_problem(&info.message, info.parents.len()) {
            return Err(SignLaterError::NotOneClaim { rev: rev.to_owned(), commit, problem });
        }
        let mut findings = Vec::new();
        let read = rules.note(&info, target, verdict.as_deref(), current, &mut findings);
        findings.retain(|f| f.outcome > CommitOutcome::Ok);
        if !findings.is_empty() {
            return Err(Disagreement { commit: commit.to_string(), findings: listed(&findings) }.into());
        }
        outcomes.clear();
        let now = OffsetDateTime::now_utc();
        let (mut out, mut envelopes) = (Vec::new(), Vec::new());
        let raws = bundle::split(current);
        // A summary-only signer signs the last line, the summary, as `attest` does.
        let first = if signer.signs_summary_only() { raws.len().saturating_sub(1) } else { 0 };
        for (i, raw) in raws.into_iter().enumerate() {
            let line = i + 1;
            let mut env = Envelope::parse(raw).map_err(|reason| SignLaterError::NotAnEnvelope {
                line,
                commit,
                reason,
            })?;
            let (signed, others, written) = if i < first {
                (LineSigned::Named, env.signatures.len(), raw.to_vec())
            } else {
                let mine = Mine { own: own.as_ref(), commit_sha256: &commit_sha256, at: now };
                sign_line(raw, &mut env, &mine, signer.as_ref()).map_err(|e| e.at(line, commit))?
            };
            out.push(written);
            let report = LineReport {
                name: format!("line {line}"),
                sha256: sha256_hex(&env.payload),
                signed: matches!(signed, LineSigned::Now | LineSigned::Before),
            };
            outcomes.push((report, signed, others));
            let name = read.lines.iter().find(|l| l.number == line).map(ReadLine::bundle_name);
            envelopes.push((name.unwrap_or_else(|| format!("line {line}")), env));
        }
        if outcomes.iter().all(|(_, signed, _)| *signed != LineSigned::Now) {
            return Ok(Some(current.to_vec()));
        }
        let named = envelopes.iter().map(|(name, envelope)| (name.as_str(), envelope));
        Ok(Some(provenance::rewritten_note(&out, &commit.to_string(), named)?))
    })
    .map_err(|e| match e {
        crate::git::UpdateNoteError::Compute(inner) => inner,
        crate::git::UpdateNoteError::Read(source) => SignLaterError::Git(source),
        crate::git::UpdateNoteError::Git(source) => {
            NoteNotWritten { commit: commit.to_string(), source }.into()
        }
    })?;
    Ok(sign_report(commit, target, verdict, signer.describe(), outcomes))
}

/// Why one line cannot take the signer's signature, before the line is known.
enum LineError {
    /// The line carries as many signatures as a line may.
    Full(usize),
    /// The line carries a Sigstore bundle that does not verify, and the signer is keyless: the
    /// finding's code and message.
    KeylessUnverified(&'static str, String),
    /// The signer failed.
    Signer(SignerError),
    /// The signature cannot be written into the line.
    Unwritable(EnvelopeError),
}

impl LineError {
    /// This error at `line` of the note of `commit`.
    fn at(self, line: usize, commit: ObjectId) -> SignLaterError {
        match self {
            LineError::Full(count) => SignLaterError::Full { line, commit, count },
            LineError::KeylessUnverified(code, reason) => {
                SignLaterError::KeylessUnverified { line, commit, code, reason }
            }
            LineError::Signer(e) => e.into(),
            LineError::Unwritable(reason) => SignLaterError::NotAnEnvelope { line, commit, reason },
        }
    }
}

/// What tells the signer's own signatures: its key's trust (`None` for a signer that has none),
/// the task commit object's sha256 a keyless bundle is bound to, and the time they are checked at.
struct Mine<'a> {
    own: Option<&'a SignatureTrust>,
    commit_sha256: &'a str,
    at: OffsetDateTime,
}

/// Adds the signer's signature to `env`, read from `raw`, unless one of its signatures verifies
/// with the signer's own key; a keyless signer leaves a line whose bundle verifies, and refuses one
/// whose bundle does not (a line holds one). What became of the line, how many of its signatures
/// are not the signer's (kept as they are), and the line to write: `raw`, with the signature added
/// and every other byte as it was ([`signing::Made::add_to`]).
fn sign_line(
    raw: &[u8],
    env: &mut Envelope,
    mine: &Mine<'_>,
    signer: &dyn Signer,
) -> Result<(LineSigned, usize, Vec<u8>), LineError> {
    let ours = match mine.own {
        Some(trust) => signatures::each_verifies(env, trust, mine.at),
        None => vec![false; env.signatures.len()],
    };
    let others = ours.iter().filter(|v| !**v).count();
    if ours.contains(&true) {
        return Ok((LineSigned::Before, others, raw.to_vec()));
    }
    if signer.signs_summary_only() && env.sigstore.is_some() {
        let verdict = mine.own.map(|trust| signatures::check(env, trust, mine.at, mine.commit_sha256));
        return match verdict {
            Some(LineSignature::Trusted(who)) => {
                let as_who =
                    format!("{} (issuer {})", one_line(&who.principals.join(", ")), one_line(&who.key));
                // The bundle's copy in `signatures` is the bundle's, not another signer's.
                Ok((LineSigned::Keyless(as_who), signatures::beside_bundle(env).count(), raw.to_vec()))
            }
            Some(LineSignature::Failed(f)) => {
                Err(LineError::KeylessUnverified(f.code, one_line(&f.message).into_owned()))
            }
            Some(LineSignature::Unsigned) | None => Err(LineError::KeylessUnverified(
                "no_sigstore_trust",
                "the signer gives no trust to check it under".into(),
            )),
        };
    }
    if env.signatures.len() >= MAX_SIGNATURES {
        return Err(LineError::Full(env.signatures.len()));
    }
    let made = signing::signature_over(env, signer).map_err(|e| LineError::Signer(SignerError::from(e)))?;
    let written = made.add_to(raw).map_err(LineError::Unwritable)?;
    made.apply(env);
    Ok((LineSigned::Now, others, written))
}

/// The report of an `attest sign` whose lines came out as `outcomes`.
fn sign_report(
    commit: ObjectId,
    target: Option<String>,
    verdict: Option<String>,
    signer: String,
    outcomes: Vec<(LineReport, LineSigned, usize)>,
) -> SignReport {
    let numbered = |which: fn(&LineSigned) -> bool| -> Vec<usize> {
        outcomes.iter().enumerate().filter(|(_, (_, s, _))| which(s)).map(|(i, _)| i + 1).collect()
    };
    let signed_now = numbered(|s| *s == LineSigned::Now);
    let signed_before = numbered(|s| *s == LineSigned::Before);
    let keyless: Vec<(usize, &str)> = outcomes
        .iter()
        .enumerate()
        .filter_map(|(i, (_, s, _))| match s {
            LineSigned::Keyless(who) => Some((i + 1, who.as_str())),
            _ => None,
        })
        .collect();
    let other_signatures: Vec<OtherSignatures> = outcomes
        .iter()
        .enumerate()
        .filter(|(_, (_, _, others))| *others > 0)
        .map(|(i, (_, _, count))| OtherSignatures { line: i + 1, count: *count })
        .collect();
    let mut warnings = Vec::new();
    if signed_now.is_empty() && keyless.is_empty() {
        warnings.push(
            "nothing to sign: every line was signed already by this signer's key; nothing changed".to_owned(),
        );
    } else if signed_now.is_empty() {
        warnings.push("nothing signed; nothing changed".to_owned());
    }
    let named = numbered(|s| *s == LineSigned::Named);
    if !named.is_empty() {
        warnings.push(format!(
            "a keyless signer signs the summary alone (line {}), which names line {} by digest: those lines were left as they are",
            outcomes.len(),
            joined(&named)
        ));
    }
    for (line, who) in &keyless {
        warnings.push(format!(
            "line {line} carries a keyless (Sigstore) signature already, which verifies under the trusted root keyless signing uses, as {who}; a line holds one: not signed"
        ));
    }
    if !other_signatures.is_empty() {
        let lines: Vec<usize> = other_signatures.iter().map(|o| o.line).collect();
        warnings.push(format!(
            "line {} carries signatures that do not verify with this signer's key (another signer's, or broken ones); they were kept as they are, and `speccoder attest verify` judges them against your trust",
            joined(&lines)
        ));
    }
    let lines = outcomes.into_iter().map(|(report, _, _)| report).collect();
    SignReport {
        report: Report {
            command: "attest sign",
            commit: commit.to_string(),
            branch: None,
            target: target.unwrap_or_default(),
            verdict: verdict.unwrap_or_default(),
            lines,
            signer: Some(signer),
            unsigned_reason: None,
            withheld: Vec::new(),
            warnings,
            notes_ref: NOTES_REF.to_owned(),
        },
        signed_now,
        signed_before,
        other_signatures,
    }
}

/// `1, 3, 5`.
fn joined(lines: &[usize]) -> String {
    lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}
