//! `speccoder attest sign [REV]`: signs the unsigned lines of a task commit's note, leaving every
//! payload (and every line already signed) exactly as it is. It signs only a note that REV's own
//! checks accept (the verifier's agreement rules, signatures aside): whoever can write notes
//! could otherwise add lines made for their own commit and have them signed with the
//! maintainer's key.

use crate::attest::signing::{self, Chosen, SignerChoice};
use crate::attest::{AttestError, LineReport, Report, listed};
use crate::check::agreement::Rules;
use crate::check::outcome::CommitOutcome;
use crate::check::trailers::task_trailers;
use crate::git::Repo;
use crate::model::bundle::{self, NOTES_REF};
use crate::model::digest::sha256_hex;
use crate::model::dsse::Envelope;

/// Signs the unsigned lines of the note of `rev` (default `HEAD`).
///
/// # Errors
/// Not a task commit, no note, a line that is not an envelope, a line the commit's own checks
/// refuse ([`AttestError::Disagrees`], nothing signed), no signer, or the note cannot be written.
pub fn sign_later(
    repo: &Repo,
    rev: &str,
    choice: SignerChoice,
    key: Option<&str>,
    sigstore: &signing::SigstoreFlags,
) -> Result<Report, AttestError> {
    let commit = repo.rev_parse(rev)?;
    let info = repo.commit(commit)?;
    let (target, verdict) = task_trailers(&info.message);
    // The tree under review is the commit's own: the rules judge REV alone.
    let rules = Rules::new(repo, None);

    let signer = match signing::choose(repo, choice, key, sigstore)? {
        Chosen::Signer(s) => s,
        Chosen::Unsigned(reason) => return Err(AttestError::Nothing(format!("cannot sign: {reason}"))),
    };
    let mut signed_now = 0usize;
    let mut report_lines = Vec::new();
    repo.update_note(NOTES_REF, commit, |current| -> Result<Option<Vec<u8>>, AttestError> {
        let Some(current) = current else {
            return Err(AttestError::Nothing(format!(
                "{rev} ({commit}) has no note in {NOTES_REF}; nothing to sign"
            )));
        };
        let Some(target) = target.as_deref() else {
            return Err(AttestError::Nothing(format!(
                "{rev} ({commit}) has no Spec-Task: trailer: it is not a task commit, and nothing was signed"
            )));
        };
        let mut findings = Vec::new();
        rules.note(&info, target, verdict.as_deref(), current, &mut findings);
        findings.retain(|f| f.outcome > CommitOutcome::Ok);
        if !findings.is_empty() {
            return Err(AttestError::Disagrees { commit: commit.to_string(), findings: listed(&findings) });
        }
        signed_now = 0;
        report_lines.clear();
        let mut out = Vec::new();
        for (i, raw) in bundle::split(current).into_iter().enumerate() {
            let mut env = Envelope::parse(raw).map_err(|e| {
                AttestError::Nothing(format!(
                    "line {} of the note of {commit} is not an envelope ({e}); not touching it",
                    i + 1
                ))
            })?;
            if env.signatures.is_empty() {
                signing::sign_envelope(&mut env, signer.as_ref())?;
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
        crate::git::UpdateNoteError::Git(source) => AttestError::Note { commit: commit.to_string(), source },
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
