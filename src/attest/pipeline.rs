//! `speccoder attest <unit>/<task> --evidence FILE`: from a finished task to a task commit with
//! trailers and a signed bundle in its note. A trailer-only bug task (`<unit>/bug:<slug>`) takes
//! the same path without a tick: its commit carries the staged tree, and its anchor is the triad.
//!
//! Order of work, so that a failure leaves nothing half-written:
//! 1. read and check everything (evidence, red output, repository state, the task, the policy);
//! 2. write the task commit as an object (unreferenced, so invisible if we stop);
//! 3. build every statement, clean-check it, sign it (a signing failure only leaves it unsigned);
//! 4. make the note's objects, then move the branch and the notes reference in one transaction,
//!    each by compare-and-swap: from here on the tick exists, with its note (with
//!    `Repo::holding_new_objects`, every new object is stored now, as one pack);
//! 5. only when another writer moved the notes reference meanwhile: the branch moves alone, then
//!    the note is written on top of theirs (a failure here leaves a commit whose missing note the
//!    verifier reports as `missing`, and the error says how to recover);
//! 6. update the index and work tree so that the tick shows as committed.

use std::path::PathBuf;

use crate::attest::message::{self, MessageFields, keys};
use crate::attest::provenance;
use crate::attest::signing::{self, Chosen, SignerChoice};
use crate::attest::statements::{self, BuildError, Context, Line};
use crate::attest::{AttestError, LineReport, Report, now_rfc3339, read_policy};
use crate::attest::{bug, evidence};
use crate::git::{BranchNoteError, Head, Repo};
use crate::model::bundle::{self, NOTES_REF};
use crate::model::dsse::Envelope;
use crate::model::evidence::TickVerdict;
use crate::model::red::red_from_output;
use crate::spec;

/// What `speccoder attest` was asked to do.
#[derive(Debug, Clone)]
pub struct AttestRequest {
    /// `<unit>/<task>`.
    pub target: String,
    /// The evidence file.
    pub evidence: PathBuf,
    /// `--signer`; `None`: as `[attest] signer` in speccoder.toml at HEAD says, else auto.
    pub signer: Option<SignerChoice>,
    /// A key file or `key::` literal overriding `user.signingKey`.
    pub key: Option<String>,
}

/// Runs the producer pipeline for one tick.
///
/// # Errors
/// Any [`AttestError`]; before step 4 nothing is written that anyone can see.
pub fn attest(repo: &Repo, req: &AttestRequest) -> Result<Report, AttestError> {
    let (unit, task_id) = split_target(&req.target)?;
    let mut loaded = evidence::load(&req.evidence, &req.target)?;
    let (branch, head) = branch_head(repo)?;

    // What will be committed: HEAD's tree plus what is staged. The task is read from there.
    let staged = repo.tree_from_index_with(&[])?;
    let (facts, ticked, tree) = match spec::TaskId::parse(task_id)? {
        // A trailer-only bug task ticks nothing: the commit is the staged tree as it is.
        spec::TaskId::Bug(slug) => {
            let facts = bug::prepare(repo, staged, head, unit, &slug, &req.target)?;
            loaded.evidence.bug = Some(bug::anchor(&facts, loaded.evidence.bug.take())?);
            (facts, None, staged)
        }
        spec::TaskId::Listed(_) => {
            let facts = spec::read_task(&repo.tree(staged), unit, task_id)?;
            if facts.ticked {
                return Err(AttestError::AlreadyTicked {
                    target: req.target.clone(),
                    path: facts.tasks_path.clone(),
                });
            }
            let tasks_bytes = repo.tree(staged).file(&facts.tasks_path)?.unwrap_or_default();
            ensure_no_unstaged_changes(repo, &facts.tasks_path, &tasks_bytes)?;
            let ticked = spec::tick(&tasks_bytes, facts.line_index, facts.format)?;
            let tree = repo.tree_from_index_with(&[(facts.tasks_path.clone(), ticked.clone())])?;
            (facts, Some(ticked), tree)
        }
    };

    let (policy_sha256, config) = read_policy(repo, head)?;
    let signer_choice = signing::requested(req.signer, config.as_ref())?;
    let red = match (loaded.evidence.red(), &loaded.red_output) {
        (Some(run), Some(output)) => Some(red_from_output(run.kind, output)),
        _ => None,
    };
    let withheld = red.as_ref().is_some_and(|r| r.withheld);

    let verdict = match loaded.evidence.verdict {
        TickVerdict::Verified => "verified",
        TickVerdict::RegressionOnly => "regression_only",
    };
    let mut trailers: Vec<(&'static str, String)> = Vec::new();
    if let Some(reason) = &loaded.evidence.regression {
        trailers.push((keys::REGRESSION_ONLY, format!("{}: {}", reason.code, reason.detail)));
    }
    trailers.push((keys::HELD_OUT, held_out_trailer(&loaded.evidence)));
    if let Some(run) = &loaded.evidence.run {
        trailers.push((keys::RUN, run.clone()));
    }
    let fields = MessageFields {
        unit: facts.unit.clone(),
        task: facts.id.clone(),
        title: facts.title.clone(),
        verdict: verdict.to_owned(),
        trailers,
    };
    let msg = message::render(&fields)?;
    provenance::check_message(&fields, &msg, &facts)
        .map_err(|e| BuildError::from(e).in_evidence_file(&req.evidence))?;
    let commit = repo.create_commit_detached(&[head], tree, &msg)?;

    let time = now_rfc3339();
    let commit_hex = commit.to_string();
    let tree_hex = tree.to_string();
    let ctx = Context {
        task: &facts,
        commit: &commit_hex,
        tree: &tree_hex,
        policy_sha256: &policy_sha256,
        time: &time,
    };
    let origin = repo.origin_url_without_credentials();
    let lines = statements::tick(
        &ctx,
        &loaded.evidence,
        red,
        &statements::resource_uri(origin.as_deref(), &commit_hex),
    )
    .map_err(|e| e.in_evidence_file(&req.evidence))?;

    let chosen = signing::choose(repo, signer_choice, req.key.as_deref())?;
    let (envelopes, signer, unsigned_reason) = sign_all(&lines, &chosen);

    let note = bundle::join(&envelopes.iter().map(Envelope::to_line).collect::<Vec<_>>());
    let note_error =
        |e: crate::git::GitError| AttestError::Note { commit: commit_hex.clone(), message: e.to_string() };
    // The note's objects are made before the branch moves, so that a repository holding its new
    // objects (`Repo::holding_new_objects`) stores the commit and its note in one pack.
    let note = repo.prepare_note(NOTES_REF, commit, note).map_err(note_error)?;
    match repo.advance_branch_with_note(&branch, head, commit, &msg, note) {
        Ok(_) => {}
        Err(BranchNoteError::Branch(e)) => return Err(e.into()),
        Err(BranchNoteError::Note(e)) => return Err(note_error(e)),
    }
    if let Some(ticked) = &ticked {
        repo.stage_worktree_file(&facts.tasks_path, ticked)
            .map_err(|e| AttestError::WorktreeAfterCommit { path: facts.tasks_path.clone(), source: e })?;
    }

    Ok(Report {
        command: "attest",
        commit: commit_hex,
        branch,
        target: req.target.clone(),
        verdict: verdict.to_owned(),
        lines: LineReport::rows(&lines, &envelopes),
        signer,
        unsigned_reason,
        withheld: if withheld { vec!["red excerpt (not clean)".to_owned()] } else { Vec::new() },
        warnings: facts
            .uncited_unknown
            .iter()
            .map(|id| format!("the title cites {id}, which no requirement line defines; it is not traced"))
            .collect(),
        notes_ref: NOTES_REF.to_owned(),
    })
}

/// Signs every line with the chosen signer (a summary-only backend signs just the last line, the
/// summary, which names the others); on the first failure every line stays unsigned.
pub(crate) fn sign_all(lines: &[Line], chosen: &Chosen) -> (Vec<Envelope>, Option<String>, Option<String>) {
    let mut envelopes: Vec<Envelope> = lines.iter().map(|l| Envelope::unsigned(l.payload.clone())).collect();
    match chosen {
        Chosen::Unsigned(reason) => (envelopes, None, Some(reason.clone())),
        Chosen::Signer(signer) => {
            let first = if signer.signs_summary_only() { envelopes.len().saturating_sub(1) } else { 0 };
            for env in &mut envelopes[first..] {
                if let Err(e) = signing::sign_envelope(env, signer.as_ref()) {
                    for env in &mut envelopes {
                        env.signatures.clear();
                        env.sigstore = None;
                    }
                    return (
                        envelopes,
                        None,
                        Some(format!(
                            "signing failed ({e}); the lines were written unsigned: fix the key and run `speccoder attest sign`"
                        )),
                    );
                }
            }
            (envelopes, Some(signer.describe()), None)
        }
    }
}

/// Writes the note of `commit` (replacing nothing: a new commit has no note).
pub(crate) fn write_note(repo: &Repo, commit: gix::ObjectId, note: Vec<u8>) -> Result<(), AttestError> {
    repo.update_note(NOTES_REF, commit, |_| Ok::<_, std::convert::Infallible>(Some(note.clone())))
        .map_err(|e| AttestError::Note { commit: commit.to_string(), message: e.to_string() })?;
    Ok(())
}

/// `<unit>/<task>` split at the first `/`, both parts non-empty.
pub(crate) fn split_target(target: &str) -> Result<(&str, &str), AttestError> {
    match target.split_once('/') {
        Some((u, t)) if !u.is_empty() && !t.is_empty() => Ok((u, t)),
        _ => Err(AttestError::Target(target.to_owned())),
    }
}

/// The checked-out branch and its commit; a detached HEAD or an unborn branch is refused.
pub(crate) fn branch_head(repo: &Repo) -> Result<(String, gix::ObjectId), AttestError> {
    match repo.head()? {
        Head::Branch { name, commit } => Ok((name, commit)),
        Head::Detached(id) => Err(AttestError::Detached(id.to_string())),
        Head::Unborn(name) => Err(AttestError::Unborn(name)),
    }
}

pub(crate) fn ensure_no_unstaged_changes(repo: &Repo, path: &str, staged: &[u8]) -> Result<(), AttestError> {
    let Some(workdir) = repo.workdir() else { return Ok(()) };
    match std::fs::read(workdir.join(path)) {
        Ok(bytes) if bytes == staged => Ok(()),
        Ok(_) => Err(AttestError::UnstagedTasks(path.to_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(AttestError::UnstagedTasks(path.to_owned()))
        }
        Err(e) => Err(AttestError::Io(format!("cannot read {path}: {e}"))),
    }
}

fn held_out_trailer(evidence: &crate::model::evidence::Evidence) -> String {
    match evidence.held_out() {
        Some(h) => format!("passed={}/{} manifest={}", h.passed, h.total, h.manifest),
        None => "off".to_owned(),
    }
}
