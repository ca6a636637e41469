//! `speccoder attest sign [REV]`: signs the unsigned lines of a task commit's note, leaving every
//! payload (and every line already signed) exactly as it is.

use crate::attest::signing::{self, Chosen, SignerChoice};
use crate::attest::{AttestError, LineReport, Report};
use crate::git::Repo;
use crate::git::trailers;
use crate::model::bundle::{self, NOTES_REF};
use crate::model::digest::sha256_hex;
use crate::model::dsse::Envelope;

/// Signs the unsigned lines of the note of `rev` (default `HEAD`).
///
/// # Errors
/// No note, a line that is not an envelope, no signer, or the note cannot be written.
pub fn sign_later(
    repo: &Repo,
    rev: &str,
    choice: SignerChoice,
    key: Option<&str>,
    sigstore: &signing::SigstoreFlags,
) -> Result<Report, AttestError> {
    let commit = repo.rev_parse(rev)?;
    let info = repo.commit(commit)?;
    let message = String::from_utf8_lossy(&info.message_bytes).into_owned();
    let found = trailers::parse(&message);
    let value =
        |k: &str| found.iter().rev().find(|(key, _)| key.eq_ignore_ascii_case(k)).map(|(_, v)| v.clone());
    let target = value("Spec-Task").unwrap_or_default();
    let verdict = value("Verdict").unwrap_or_default();

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
        Ok(Some(bundle::join(&out)))
    })
    .map_err(|e| match e {
        crate::git::UpdateNoteError::Compute(inner) => inner,
        other => AttestError::Note { commit: commit.to_string(), message: other.to_string() },
    })?;
    Ok(Report {
        command: "attest sign",
        commit: commit.to_string(),
        branch: String::new(),
        target,
        verdict,
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
