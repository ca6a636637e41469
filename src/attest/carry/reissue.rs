//! The evidence re-issued for the new commit: every statement's subject moved, the task
//! verification's `tree`, `time` and `carried`, the summary's resource, time, version and
//! digests; signed afresh, checked as the verifier will check it, and written as the new
//! commit's note.

use std::collections::HashMap;

use gix::ObjectId;
use serde_json::{Value, json};

use super::checks::{Checked, disagreement, read_and_agree};
use super::{CarriedRow, CarryError, RefusedRow, Stop};
use crate::attest::pipeline::sign_all;
use crate::attest::provenance::{self, LeakError, Origin};
use crate::attest::signing::Chosen;
use crate::attest::statements::{self, Line};
use crate::attest::{LineReport, NoteNotWritten, commit_object_sha256, now_rfc3339};
use crate::check::line::{Body, ReadLine};
use crate::check::signatures;
use crate::check::trust::SignatureTrust;
use crate::git::{Repo, UpdateNoteError};
use crate::model::bundle::{self, NOTES_REF};
use crate::model::canonical::value_to_canonical;
use crate::model::clean;
use crate::model::digest::sha256_hex;
use crate::model::dsse::Envelope;
use crate::model::predicate;
use crate::model::statement::Subject;
use crate::model::summary;
use crate::model::timestamp::is_rfc3339_utc;

/// Re-issues the evidence `checked` holds for its new commit, signed with `chosen`, and writes it
/// as that commit's note.
///
/// # Errors
/// [`Stop::Refused`] when the new commit holds a note of its own; [`Stop::Failed`] when a
/// statement would leak, the signer fails, the re-issued lines would not agree with the new
/// commit, or the note cannot be written.
pub(super) fn publish(repo: &Repo, checked: &Checked, chosen: &Chosen) -> Result<CarriedRow, Stop> {
    let Checked { old, new, target, verdict, old_note, .. } = checked;
    let payloads = reissue(repo, checked, &now_rfc3339())?;
    let (envelopes, _, _) = sign_all(&payloads, chosen)?;
    let lines: Vec<Vec<u8>> = envelopes.iter().map(Envelope::to_line).collect();
    let named = payloads.iter().map(|l| l.name.as_str()).zip(&envelopes);
    let note = provenance::rewritten_note(&lines, &old.id.to_string(), named)?;
    let new_sha256 = commit_object_sha256(repo, new.id)?;
    let (_, findings) = read_and_agree(repo, &note, new, target, verdict.as_deref(), &new_sha256);
    if let Some(reason) = disagreement(&findings) {
        return Err(CarryError::WouldNotAgree { commit: new.id, reason }.into());
    }
    let ours = Reissued { lines: &payloads, envelopes: &envelopes, note: &note };
    let there = |current: &[u8]| another_carry(repo, checked, chosen, &ours, current);
    let kept = match write_note(repo, old_note, new.id, &note, there) {
        Ok(kept) => kept,
        Err(WriteError::Failed(e)) => return Err(CarryError::from(e).into()),
        Err(WriteError::Exists(NoteExists)) => {
            return Err(Stop::Refused(RefusedRow {
                target: target.clone(),
                from: old.id.to_string(),
                to: new.id.to_string(),
                code: "note_exists",
                reason: format!(
                    "{} has a note of its own already, which carry does not replace; compare it with the evidence of {} (`git notes --ref={NOTES_REF} show`)",
                    new.id, old.id
                ),
            }));
        }
    };
    Ok(CarriedRow {
        target: target.clone(),
        from: old.id.to_string(),
        to: new.id.to_string(),
        unchanged: kept.is_some(),
        lines: kept.unwrap_or_else(|| LineReport::rows(&payloads, &envelopes)),
    })
}

/// The statements of `checked`'s old note re-issued for its new commit (see the module
/// documentation) at `time`, clean-checked, in the order of the old note.
fn reissue(repo: &Repo, checked: &Checked, time: &str) -> Result<Vec<Line>, CarryError> {
    let Checked { new, target, lines, patch_id, policy_sha256, .. } = checked;
    let new_hex = new.id.to_string();
    let subject = Subject::task_at(target, &new_hex, &commit_object_sha256(repo, new.id)?);
    let from =
        lines.first().and_then(|l| l.subject.first()).and_then(Subject::git_commit).unwrap_or("").to_owned();
    let mut out: Vec<(Line, &ReadLine)> = Vec::new();
    let mut digests: HashMap<String, String> = HashMap::new();
    let mut summary_at = Vec::new();
    for line in lines {
        let mut statement: Value = serde_json::from_slice(&line.envelope.payload)
            .map_err(|source| CarryError::NotJson { line: line.number, from: from.clone(), source })?;
        statement["subject"] = json!([subject]);
        let predicate_type = statement["predicateType"].as_str().unwrap_or_default().to_owned();
        let name = line.bundle_name();
        match &line.body {
            Body::Summary(_) => {
                summary_at.push(out.len());
            }
            Body::TaskVerification(p) => {
                let predicate = &mut statement["predicate"];
                predicate["tree"] = json!(new.tree.to_string());
                predicate["time"] = json!(time);
                predicate["revision"] = json!(p.revision().max(predicate::REVISION));
                predicate["policy_sha256"] = json!(policy_sha256);
                let since = p.carried.as_ref().map_or(p.time.as_str(), |c| c.time.as_str());
                predicate["carried"] = json!(predicate::Carried {
                    from: from.clone(),
                    patch_id: patch_id.to_owned(),
                    time: since.to_owned(),
                });
            }
            Body::TestResult(_) => {}
        }
        let payload = finish(statement, &name, &from)?;
        digests.insert(sha256_hex(&line.envelope.payload), sha256_hex(&payload));
        out.push((Line { name, predicate_type: static_type(&predicate_type), payload }, line));
    }
    // The summary names the new lines by their new digests, and the new commit as its resource.
    let origin = repo.origin_url_without_credentials();
    for at in summary_at {
        let (line, read) = &out[at];
        let mut statement: Value = serde_json::from_slice(&read.envelope.payload)
            .map_err(|source| CarryError::NotJson { line: read.number, from: from.clone(), source })?;
        statement["subject"] = json!([subject]);
        let predicate = &mut statement["predicate"];
        predicate["resourceUri"] = json!(statements::resource_uri(origin.as_deref(), &new_hex));
        predicate["timeVerified"] = json!(time);
        predicate["verifier"]["version"] = json!({ "speccoder": env!("CARGO_PKG_VERSION") });
        predicate["policy"]["digest"]["sha256"] = json!(policy_sha256);
        if let Some(inputs) = predicate["inputAttestations"].as_array_mut() {
            for input in inputs {
                let old = input["digest"]["sha256"].as_str().unwrap_or_default().to_owned();
                if let Some(new_digest) = digests.get(&old) {
                    input["digest"]["sha256"] = json!(new_digest);
                }
            }
        }
        let payload = finish(statement, &line.name, &from)?;
        out[at].0.payload = payload;
    }
    Ok(out.into_iter().map(|(line, _)| line).collect())
}

/// A statement's canonical bytes, after the clean check (a leak names the old note as its origin).
fn finish(statement: Value, name: &str, from: &str) -> Result<Vec<u8>, statements::BuildError> {
    clean::check_value(&statement).map_err(|leak| {
        statements::BuildError::from(LeakError {
            line: name.to_owned(),
            leak,
            origin: Origin::Note(from.to_owned()),
        })
    })?;
    Ok(value_to_canonical(&statement))
}

/// The predicate type as the `Line` type names it (a `&'static str` of the types speccoder knows).
fn static_type(predicate_type: &str) -> &'static str {
    [crate::model::test_result::TYPE, predicate::TYPE, summary::TYPE]
        .into_iter()
        .find(|t| *t == predicate_type)
        .unwrap_or("")
}

/// Makes `note` the note of `to`: written when `to` has none, or only a copy of `old_note`'s lines
/// (git's `notes.rewriteRef`). When `to` holds a note `there` takes for this carry's (this very
/// note, or another carry's of the same evidence), that note is kept and `Ok(Some(rows))` reports
/// its lines; [`NoteExists`] when it holds another note of its own, which is never replaced.
fn write_note(
    repo: &Repo,
    old_note: &[u8],
    to: ObjectId,
    note: &[u8],
    there: impl Fn(&[u8]) -> Option<Vec<LineReport>>,
) -> Result<Option<Vec<LineReport>>, WriteError> {
    let old_lines = bundle::split(old_note);
    let mut kept = None;
    let result = repo.update_note(NOTES_REF, to, |current| -> Result<Option<Vec<u8>>, NoteExists> {
        kept = None;
        match current {
            None => Ok(Some(note.to_vec())),
            Some(current) if bundle::split(current).iter().all(|l| old_lines.contains(l)) => {
                Ok(Some(note.to_vec()))
            }
            Some(current) => {
                kept = Some(there(current).ok_or(NoteExists)?);
                Ok(Some(current.to_vec()))
            }
        }
    });
    match result {
        Ok(_) => Ok(kept),
        Err(UpdateNoteError::Compute(exists)) => Err(WriteError::Exists(exists)),
        Err(UpdateNoteError::Read(source) | UpdateNoteError::Git(source)) => {
            Err(WriteError::Failed(NoteNotWritten { commit: to.to_string(), source }))
        }
    }
}

/// The lines this carry re-issued and signed.
struct Reissued<'a> {
    /// The statements.
    lines: &'a [Line],
    /// Their envelopes, as signed.
    envelopes: &'a [Envelope],
    /// The note they make.
    note: &'a [u8],
}

/// The report rows of `current`, the note the new commit holds, when it is this carry's as another
/// run wrote it (two carries at once: git's post-rewrite hook and a person): exactly `ours`, or the
/// statements `checked` re-issues at the time `current`'s task verification names, the same
/// statements at the same places ([`reissue`]: the same old evidence, `carried {from, patch_id,
/// time}`, policy, tree and subject; the summary naming those lines), with a signature on
/// exactly the lines this carry signs, each verifying with the chosen signer's own key. `None` for
/// anything else: a note of the commit's own.
fn another_carry(
    repo: &Repo,
    checked: &Checked,
    chosen: &Chosen,
    ours: &Reissued<'_>,
    current: &[u8],
) -> Option<Vec<LineReport>> {
    if current == ours.note {
        return Some(LineReport::rows(ours.lines, ours.envelopes));
    }
    let theirs: Vec<Envelope> =
        bundle::split(current).into_iter().map(Envelope::parse).collect::<Result<_, _>>().ok()?;
    if theirs.len() != ours.lines.len() {
        return None;
    }
    let at = ours.lines.iter().position(|l| l.predicate_type == predicate::TYPE)?;
    let statement: Value = serde_json::from_slice(&theirs[at].payload).ok()?;
    let time = statement["predicate"]["time"].as_str().filter(|t| is_rfc3339_utc(t))?;
    let lines = reissue(repo, checked, time).ok()?;
    let same = lines.iter().zip(&theirs).all(|(l, e)| l.payload == e.payload);
    (same && signed_as_ours(chosen, ours.envelopes, &theirs)).then(|| LineReport::rows(&lines, &theirs))
}

/// Whether `theirs` carry a signature on exactly the lines `ours` do, each with one that verifies
/// with the chosen signer's own key (a signer that cannot tell its key: never).
fn signed_as_ours(chosen: &Chosen, ours: &[Envelope], theirs: &[Envelope]) -> bool {
    let own = match chosen {
        Chosen::Signer(signer) => match signer.own_key() {
            Ok(Some(key)) => Some(SignatureTrust::own_key(&key)),
            Ok(None) | Err(_) => return false,
        },
        Chosen::Unsigned(_) => None,
    };
    let now = time::OffsetDateTime::now_utc();
    ours.iter().zip(theirs).all(|(o, t)| match (&own, o.signatures.is_empty()) {
        (Some(own), false) => signatures::each_verifies(t, own, now).contains(&true),
        _ => t.signatures.is_empty() == o.signatures.is_empty(),
    })
}

/// Why the new note was not written.
enum WriteError {
    /// The new commit holds a note of its own.
    Exists(NoteExists),
    /// The write failed.
    Failed(NoteNotWritten),
}

/// The new commit holds a note of its own.
#[derive(Debug, thiserror::Error)]
#[error("the commit holds a note of its own")]
struct NoteExists;
