//! `speccoder attest carry`: re-issuing a task's evidence for the commit that now carries the same
//! change, after a rebase, an amend or a cherry-pick left the note on a commit the branch no
//! longer holds.
//!
//! "The same change" is three things, each checked before anything is signed: the same bytes in
//! the same place ([`same_change`]: equal patches of the old and the new task commit against
//! their parents, with three lines of context); the same task line; the same requirement text
//! (the story's and every cited requirement's). The judge configuration at the new parent must
//! also be the one the evidence was judged under. The old evidence must agree with its own
//! commit, and the re-issued lines must agree with the new one, by the same rules the verifier
//! applies ([`crate::check`]): carry never launders evidence.
//!
//! Nor does it launder signatures: re-signing vouches for the evidence with the carrier's key, so
//! every line of the old note must hold as evidence for the carrier first, as a CI gate would
//! check it today: a valid signature (a bad one means the content changed after signing, and is
//! refused whatever the trust) by a signer the carrier's own trust accepts at the time of the
//! carry, never at the old commit's date, which its author chose ([`crate::check::signatures`],
//! against the trust `attest verify` reads, by its loader: git's `gpg.ssh.allowedSignersFile`
//! and `gpg.ssh.revocationFile`, or the files given). An unsigned line, an untrusted, expired or
//! revoked signer and a keyless (Sigstore) line, whose trust carry does not take, are refused
//! with a reason naming the key; a carrier who trusts nobody carries nothing.
//!
//! What moves: every statement's subject (the new commit, by id and by the sha256 of its
//! object); the task verification's `tree`, `time` and `carried {from, patch_id, time}`; the
//! summary's `resourceUri`, `timeVerified`, `verifier.version` and the digests by which it names
//! the other lines. Everything is signed afresh with the user's key, chosen as `attest` chooses it.
//! The old note stays where it is.

use std::collections::{HashMap, HashSet};

use gix::ObjectId;
use serde::Serialize;
use serde_json::{Value, json};

use crate::attest::pipeline::{note_of, sign_all};
use crate::attest::provenance::{LeakError, Origin};
use crate::attest::same_change;
use crate::attest::signing::{self, Chosen, SignerChoice, SigstoreFlags};
use crate::attest::statements::{self, Line};
use crate::attest::{AttestError, LineReport, commit_object_sha256, now_rfc3339, read_policy};
use crate::check::agreement::{self, Claim, Rules};
use crate::check::line::{Body, ReadLine, read_lines};
use crate::check::outcome::{CommitOutcome, Finding};
use crate::check::signatures::{self, NoteLineSignature};
use crate::check::trailers::{claim_problem, task_trailers};
use crate::check::trust::{SignatureTrust, TrustFiles};
use crate::exit;
use crate::git::{Commit, Head, Repo, UpdateNoteError};
use crate::model::bundle::{self, MAX_NOTE_BYTES, NOTES_REF};
use crate::model::canonical::value_to_canonical;
use crate::model::clean;
use crate::model::digest::sha256_hex;
use crate::model::predicate::{self, Verdict};
use crate::model::shown::one_line;
use crate::model::statement::Subject;
use crate::model::summary;
use crate::spec;

/// What `speccoder attest carry` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct CarryRequest {
    /// `--from OLD --to NEW`: one carry, explicitly.
    pub pair: Option<(String, String)>,
    /// `--rewritten`: the `<old> <new>` lines git gives its post-rewrite hook.
    pub rewritten: Option<String>,
    /// `--signer`; `None`: as `[attest] signer` in speccoder.toml at HEAD says, else auto.
    pub signer: Option<SignerChoice>,
    /// A key overriding `user.signingKey`.
    pub key: Option<String>,
    /// Where keyless signing may send the identity token.
    pub sigstore: SigstoreFlags,
    /// Whom the carrier trusts: the old evidence must be signed by one of them.
    pub trust: TrustFiles,
}

/// One task whose evidence moved.
#[derive(Debug, Clone, Serialize)]
pub struct CarriedRow {
    /// `<unit>/<task>`.
    pub target: String,
    /// The commit the evidence was on.
    pub from: String,
    /// The commit it is on now.
    pub to: String,
    /// The lines of the new note.
    pub lines: Vec<LineReport>,
    /// The new commit held exactly this note already.
    pub unchanged: bool,
}

/// One task whose evidence was not moved, and why.
#[derive(Debug, Clone, Serialize)]
pub struct RefusedRow {
    /// `<unit>/<task>`.
    pub target: String,
    /// The commit the evidence is on.
    pub from: String,
    /// The commit that lacks it.
    pub to: String,
    /// A stable code: `same_commit`, `bad_signature`, `revoked_key`, `expired_key`,
    /// `untrusted_signer`, `signature_unchecked`, `evidence_unsigned`, `keyless_evidence`,
    /// `change_differs`, `task_line_differs`,
    /// `requirement_differs`, `policy_differs`, `not_the_same_task`, `evidence_does_not_hold`,
    /// `note_exists`.
    pub code: &'static str,
    /// What is wrong and what to do.
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
    pub signer: Option<String>,
    /// Why the new lines are unsigned, and how to sign them.
    pub unsigned_reason: Option<String>,
    /// Where the notes are.
    pub notes_ref: String,
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
            return writeln!(
                f,
                "attest carry: nothing to carry (no task commit lacks the evidence of a rewritten one)"
            );
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

/// One carry to attempt: the evidence on `from` for the commit `to`.
struct Job {
    from: ObjectId,
    to: ObjectId,
}

/// Runs `speccoder attest carry` (see the module documentation).
///
/// # Errors
/// An unknown revision, `--from` without a note, no trust configured or a trust file that cannot
/// be used, a signer that cannot sign, a statement that would leak, a note that cannot be written.
/// A change that differs, or evidence whose signatures do not hold for the carrier, is not an
/// error but a refused row ([`CarryReport::exit_code`] 26).
pub fn carry(repo: &Repo, req: &CarryRequest) -> Result<CarryReport, AttestError> {
    let notes: HashMap<ObjectId, ObjectId> = repo.notes(NOTES_REF)?.into_iter().collect();
    let mut refused = Vec::new();
    let jobs = match (&req.pair, &req.rewritten) {
        (Some((from, to)), _) => {
            // Resolved as given first, so that an unknown name is named as the user wrote it.
            let commit_of = |rev: &str| -> Result<ObjectId, AttestError> {
                let id = repo.rev_parse(rev)?;
                Ok(repo.rev_parse(&format!("{id}^{{commit}}"))?)
            };
            let (from, to) = (commit_of(from)?, commit_of(to)?);
            if from == to {
                // Its note is its own: re-issuing it there would replace the original evidence,
                // its signatures and time, with a copy signed by whoever runs this.
                let target = repo.commit(from).ok().and_then(|c| task_trailers(&c.message).0);
                refused.push(RefusedRow {
                    target: target.unwrap_or_default(),
                    from: from.to_string(),
                    to: to.to_string(),
                    code: "same_commit",
                    reason: format!(
                        "--from and --to are the same commit ({from}): its evidence is where it belongs, and carry never replaces a commit's own note; name the commit the change was rewritten to as --to"
                    ),
                });
                return Ok(CarryReport {
                    carried: Vec::new(),
                    refused,
                    signer: None,
                    unsigned_reason: None,
                    notes_ref: NOTES_REF.to_owned(),
                });
            }
            if !notes.contains_key(&from) {
                return Err(AttestError::Nothing(format!(
                    "{from} has no note in {NOTES_REF}: there is no evidence to carry from it"
                )));
            }
            vec![Job { from, to }]
        }
        (None, Some(pairs)) => rewritten_jobs(repo, pairs, &notes),
        (None, None) => branch_jobs(repo, &notes, &mut refused)?,
    };
    let mut report = CarryReport {
        carried: Vec::new(),
        refused,
        signer: None,
        unsigned_reason: None,
        notes_ref: NOTES_REF.to_owned(),
    };
    if jobs.is_empty() {
        return Ok(report);
    }
    let trust = load_trust(repo, &req.trust)?;
    if trust.is_empty() {
        return Err(AttestError::NoTrust);
    }
    let chosen = choose_signer(repo, req)?;
    let now = time::OffsetDateTime::now_utc();
    for job in jobs {
        match carry_one(repo, &notes, &job, &chosen, &trust, now)? {
            Ok(row) => report.carried.push(row),
            Err(row) => report.refused.push(row),
        }
    }
    match &chosen {
        Chosen::Signer(s) => report.signer = Some(s.describe()),
        Chosen::Unsigned(reason) => report.unsigned_reason = Some(reason.clone()),
    }
    Ok(report)
}

/// The signer `attest` would use now: `--signer`, else `[attest]` of speccoder.toml at HEAD, else
/// git's key; a project that signs later writes the lines unsigned.
fn choose_signer(repo: &Repo, req: &CarryRequest) -> Result<Chosen, AttestError> {
    let policy = match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => read_policy(repo, commit)?.1,
        Head::Unborn(_) => None,
    };
    let choice = signing::requested(req.signer, policy.as_ref(), true)?;
    signing::choose(repo, choice, req.key.as_deref(), &req.sigstore)
}

/// The carrier's trust, read by the verifier's loader ([`SignatureTrust::load`]) as `attest
/// verify` reads it by default: `--allowed-signers`, else git's `gpg.ssh.allowedSignersFile`; the
/// keys `--revoked` and git's `gpg.ssh.revocationFile` revoke; `--openpgp-certs`. A file that the
/// tree at HEAD provides is refused, as the verifier refuses it: the branch being carried would
/// choose whom carry trusts. Keyless (Sigstore) trust is not taken (see [`refuse_signatures`]).
fn load_trust(repo: &Repo, files: &TrustFiles) -> Result<SignatureTrust, AttestError> {
    let head_tree = match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => repo.commit_tree(commit)?,
        Head::Unborn(_) => repo.empty_tree_id(),
    };
    Ok(SignatureTrust::load(repo, files, head_tree, &|_| false)?)
}

/// The pairs of git's post-rewrite input whose old commit has a note.
fn rewritten_jobs(repo: &Repo, pairs: &str, notes: &HashMap<ObjectId, ObjectId>) -> Vec<Job> {
    let mut seen = HashSet::new();
    pairs
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let from = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
            let to = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
            (from != to && notes.contains_key(&from) && repo.commit(to).is_ok() && seen.insert(to))
                .then_some(Job { from, to })
        })
        .collect()
}

/// For each task whose newest task commit on the branch lacks its own note: the newest commit
/// the branch no longer holds whose note is for the same task and whose change is the same. A
/// task whose only such commits carry a different change is refused here.
fn branch_jobs(
    repo: &Repo,
    notes: &HashMap<ObjectId, ObjectId>,
    refused: &mut Vec<RefusedRow>,
) -> Result<Vec<Job>, AttestError> {
    let head = match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => commit,
        Head::Unborn(_) => return Ok(Vec::new()),
    };
    let reachable = repo.walk(head, &[])?;
    let reachable_set: HashSet<ObjectId> = reachable.iter().copied().collect();
    let mut newest: Vec<(String, Commit)> = Vec::new();
    let mut targets = HashSet::new();
    for id in reachable {
        let commit = repo.commit(id)?;
        if let (Some(target), Some(verdict)) = task_trailers(&commit.message)
            && !verdict.is_empty()
            && targets.insert(target.clone())
            && verdict != Verdict::Skipped.as_str()
        {
            newest.push((target, commit));
        }
    }
    // Notes on commits the branch does not hold, by task, newest commit first.
    let mut elsewhere: HashMap<String, Vec<Commit>> = HashMap::new();
    for annotated in notes.keys().filter(|c| !reachable_set.contains(*c)) {
        if let Ok(commit) = repo.commit(*annotated)
            && let (Some(target), Some(verdict)) = task_trailers(&commit.message)
            && verdict != Verdict::Skipped.as_str()
        {
            elsewhere.entry(target).or_default().push(commit);
        }
    }
    for list in elsewhere.values_mut() {
        list.sort_by_key(|c| std::cmp::Reverse((c.committer.seconds, c.id)));
    }
    let wanted: Vec<(String, Commit, &Vec<Commit>)> = newest
        .into_iter()
        .filter(|(_, commit)| !has_own_note(repo, notes, commit.id))
        .filter_map(|(target, commit)| {
            let candidates = elsewhere.get(&target)?;
            Some((target, commit, candidates))
        })
        .collect();
    // Every change compared, the branch's and all candidates', in one pass.
    let all: Vec<&Commit> = wanted
        .iter()
        .flat_map(|(_, commit, candidates)| std::iter::once(commit).chain(candidates.iter()))
        .collect();
    let mut ids = same_change::change_ids(repo, &all)?.into_iter();
    let mut jobs = Vec::new();
    for (target, commit, candidates) in &wanted {
        let id = ids.next().flatten();
        let matched = candidates.iter().zip(ids.by_ref().take(candidates.len())).find(|(_, c)| *c == id);
        match (matched, candidates.first()) {
            (Some((from, _)), _) => jobs.push(Job { from: from.id, to: commit.id }),
            (None, Some(newest_elsewhere)) => {
                refused.push(change_differs(target, newest_elsewhere.id, commit.id));
            }
            (None, None) => {}
        }
    }
    Ok(jobs)
}

/// Whether `commit`'s note is its own: present, and not a copy git made from another commit
/// (`notes.rewriteRef`), whose every line names that other commit.
fn has_own_note(repo: &Repo, notes: &HashMap<ObjectId, ObjectId>, commit: ObjectId) -> bool {
    let Some(blob) = notes.get(&commit) else { return false };
    // A note too large to read is not one carry replaces either.
    let bytes = match repo.blob_within(*blob, MAX_NOTE_BYTES) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return true,
        Err(_) => return false,
    };
    let hex = commit.to_string();
    let lines = read_lines(&bytes, &mut Vec::new());
    lines.is_empty()
        || !lines.iter().all(|l| l.subject.iter().all(|s| s.git_commit().is_some_and(|c| c != hex)))
}

/// How to give a task whose evidence cannot be carried new evidence: the branch ticks it already,
/// and `attest` ticks only an open task.
fn attest_again(target: &str) -> String {
    let is_bug = target.split_once('/').is_some_and(|(_, task)| task.starts_with(spec::BUG_TASK_PREFIX));
    if is_bug {
        // A bug task has no box: a changed bug home is closed again by attesting it.
        return format!(
            "to close it again, run its checks, then run `speccoder attest {target} --evidence <the new evidence>`"
        );
    }
    format!(
        "to attest it again, run its checks, clear its box in tasks.md in a commit of its own, then run `speccoder attest {target} --evidence <the new evidence>`"
    )
}

fn change_differs(target: &str, from: ObjectId, to: ObjectId) -> RefusedRow {
    RefusedRow {
        target: target.to_owned(),
        from: from.to_string(),
        to: to.to_string(),
        code: "change_differs",
        reason: format!(
            "the task's change differs from the attested one (attested: {from}, now: {to}); {}",
            attest_again(target)
        ),
    }
}

/// Carries one note; `Ok(Err(row))` when it is refused.
fn carry_one(
    repo: &Repo,
    notes: &HashMap<ObjectId, ObjectId>,
    job: &Job,
    chosen: &Chosen,
    trust: &SignatureTrust,
    now: time::OffsetDateTime,
) -> Result<Result<CarriedRow, RefusedRow>, AttestError> {
    let old = repo.commit(job.from)?;
    let new = repo.commit(job.to)?;
    let (target, verdict) = task_trailers(&old.message);
    let target = target.unwrap_or_default();
    let refuse = |code: &'static str, reason: String| {
        Ok(Err(RefusedRow {
            target: target.clone(),
            from: old.id.to_string(),
            to: new.id.to_string(),
            code,
            reason,
        }))
    };
    if task_trailers(&new.message) != (Some(target.clone()), verdict.clone()) || target.is_empty() {
        return refuse(
            "not_the_same_task",
            format!("{} and {} do not carry the same Spec-Task: and Verdict: trailers", old.id, new.id),
        );
    }
    for commit in [&old, &new] {
        if let Some(problem) = claim_problem(&commit.message, commit.parents.len()) {
            return refuse("not_one_claim", format!("{}: {problem}", commit.id));
        }
    }
    let old_note = match notes.get(&old.id) {
        Some(blob) => match repo.blob_within(*blob, MAX_NOTE_BYTES)? {
            Ok(bytes) => bytes,
            Err(size) => {
                return refuse(
                    "evidence_does_not_hold",
                    format!(
                        "the note of {} is {size} bytes, more than the {MAX_NOTE_BYTES} a note may be, so it is not read; {}",
                        old.id,
                        attest_again(&target)
                    ),
                );
            }
        },
        None => return Err(AttestError::Nothing(format!("{} has no note in {NOTES_REF}", old.id))),
    };

    // The old evidence must hold for its own commit, as the verifier's rules say.
    let old_sha256 = commit_object_sha256(repo, old.id)?;
    let (lines, findings) = read_and_agree(repo, &old_note, &old, &target, verdict.as_deref(), &old_sha256);

    // Re-signing vouches for it: every line must be signed, validly, by a signer the carrier
    // trusts now, as a CI gate checks it (`--signature-time now`): the old commit's date is the
    // author's choice, and a key that expired or was revoked since must not sign again through
    // the carrier's.
    if let Some((code, reason)) = refuse_signatures(&lines, trust, now, &old_sha256, &old.id, &target) {
        return refuse(code, reason);
    }

    let Some(p) = task_verification_of(&lines) else {
        return refuse(
            "evidence_does_not_hold",
            format!("the note of {} has no readable task-verification line", old.id),
        );
    };
    if let Some(reason) = disagreement(&findings) {
        return refuse(
            "evidence_does_not_hold",
            format!(
                "the evidence on {} does not hold for that commit itself ({reason}); {}",
                old.id,
                attest_again(&target)
            ),
        );
    }

    // The same change, the same task line, the same requirement text, the same policy.
    let mut ids = same_change::change_ids(repo, &[&old, &new])?.into_iter();
    let patch = ids.next().flatten();
    if patch != ids.next().flatten() {
        return Ok(Err(change_differs(&target, old.id, new.id)));
    }
    let (unit, task_id) = target.split_once('/').unwrap_or((target.as_str(), ""));
    let new_tree = repo.tree(new.tree);
    let facts = match spec::read_any_task(&new_tree, unit, task_id) {
        Ok(facts) => facts,
        Err(e) => return refuse("task_line_differs", format!("the task cannot be read at {}: {e}", new.id)),
    };
    if facts.line_hash != p.task.line_hash {
        return refuse(
            "task_line_differs",
            format!(
                "the task line at {} is not the one attested at {}; {}",
                new.id,
                old.id,
                attest_again(&target)
            ),
        );
    }
    if let Some(reason) = requirement_change(repo, &new, unit, &p, &facts)? {
        return refuse(
            "requirement_differs",
            format!("{reason} at {} since {}; {}", new.id, old.id, attest_again(&target)),
        );
    }
    let policy = match new.parents.first() {
        Some(parent) => read_policy(repo, *parent)?.0,
        None => crate::model::policy::policy_sha256(None)?,
    };
    if policy != p.policy_sha256 {
        return refuse(
            "policy_differs",
            format!(
                "the judge configuration (speccoder.toml) at the parent of {} is not the one the evidence of {} was judged under; {}",
                new.id,
                old.id,
                attest_again(&target)
            ),
        );
    }

    // The lines for the new commit, signed afresh, and checked as the verifier will check them.
    let payloads = reissue(repo, &lines, &new, &target, patch.as_deref().unwrap_or_default())?;
    let (envelopes, _, _) = sign_all(&payloads, chosen)?;
    let note = note_of(&envelopes)?;
    let new_sha256 = commit_object_sha256(repo, new.id)?;
    let (_, findings) = read_and_agree(repo, &note, &new, &target, verdict.as_deref(), &new_sha256);
    if let Some(reason) = disagreement(&findings) {
        return Err(AttestError::Io(format!(
            "the evidence re-issued for {} would not agree with it ({reason}); nothing was written (please report this)",
            new.id
        )));
    }
    let unchanged = write_note(repo, &old_note, new.id, &note)?;
    let unchanged = match unchanged {
        Ok(unchanged) => unchanged,
        Err(()) => {
            return refuse(
                "note_exists",
                format!(
                    "{} has a note of its own already, which carry does not replace; compare it with the evidence of {} (`git notes --ref={NOTES_REF} show`)",
                    new.id, old.id
                ),
            );
        }
    };
    Ok(Ok(CarriedRow {
        target,
        from: old.id.to_string(),
        to: new.id.to_string(),
        lines: LineReport::rows(&payloads, &envelopes),
        unchanged,
    }))
}

/// Why the signatures of the old note's `lines` do not let the carrier re-sign them, as a refused
/// row's code and reason; `None` when every line holds for the carrier. The worst wins: a bad or
/// malformed signature (the content was changed after it was signed: refused whatever the
/// trust), then a keyless line, a signer the trust does not accept or a signature that cannot be
/// checked, then an unsigned line. A line that a trusted summary covers holds, as for the verifier.
fn refuse_signatures(
    lines: &[ReadLine],
    trust: &SignatureTrust,
    at: time::OffsetDateTime,
    commit_sha256: &str,
    old: &ObjectId,
    target: &str,
) -> Option<(&'static str, String)> {
    let verdicts = signatures::check_note(lines, trust, at, commit_sha256);
    let failed = verdicts
        .iter()
        .filter_map(|v| match v {
            NoteLineSignature::Failed(f) => Some(f),
            _ => None,
        })
        .max_by_key(|f| f.outcome);
    let at_line = |f: &Finding| f.line.map(|n| format!("line {n}: ")).unwrap_or_default();
    if let Some(f) = failed.filter(|f| f.outcome >= CommitOutcome::BadSignature) {
        return Some((
            "bad_signature",
            format!(
                "a signature of the evidence on {old} does not verify ({}{}: {}): its content was changed after it was signed, or the signature is broken, and carry never re-signs it; {}",
                at_line(f),
                f.code,
                one_line(&f.message),
                attest_again(target)
            ),
        ));
    }
    if lines.iter().any(|l| l.envelope.sigstore.is_some()) {
        return Some((
            "keyless_evidence",
            format!(
                "the evidence on {old} is signed keylessly (Sigstore), which carry does not check (that needs an identity, an issuer and a trusted root, which `attest verify` takes); {}",
                attest_again(target)
            ),
        ));
    }
    if let Some(f) = failed {
        return Some(refuse_signer(f, trust, at, old, target));
    }
    let unsigned: Vec<String> = lines
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| matches!(v, NoteLineSignature::Unsigned))
        .map(|(l, _)| l.number.to_string())
        .collect();
    (!unsigned.is_empty()).then(|| {
        (
            "evidence_unsigned",
            format!(
                "line {} of the note of {old} carries no signature, and carry re-signs only signed evidence; sign it where it is first (`speccoder attest sign {old}`) and run carry again, or {}",
                unsigned.join(", "),
                attest_again(target)
            ),
        )
    })
}

/// Why carry does not re-sign evidence whose signer its trust does not accept at `now`, as a
/// refused row's code and reason naming the key and why: `revoked_key` (revoked since it signed:
/// by `--revoked`, git's `gpg.ssh.revocationFile`, or the OpenPGP certificate's own revocation),
/// `expired_key` (an OpenPGP key expired since), `untrusted_signer` (a signer the trust does not
/// accept now: not listed, or outside its `valid-after`/`valid-before` window or certificate
/// validity), `signature_unchecked` (a signature that cannot be checked here).
fn refuse_signer(
    f: &Finding,
    trust: &SignatureTrust,
    now: time::OffsetDateTime,
    old: &ObjectId,
    target: &str,
) -> (&'static str, String) {
    let (code, what, advice) = match (f.outcome, f.code) {
        (_, "revoked_key") => (
            "revoked_key",
            "is signed by a key that is revoked now",
            "a revoked key vouches for nothing any more, so carry does not re-sign what it signed",
        ),
        (_, "expired_key") => (
            "expired_key",
            "is signed by a key that has expired",
            "an expired key vouches for nothing any more, so carry does not re-sign what it signed",
        ),
        (CommitOutcome::UntrustedSigner, _) => (
            "untrusted_signer",
            "is not signed by a signer your trust accepts now",
            "if you trust its signer and their key is valid today, add it to your trust (set git's gpg.ssh.allowedSignersFile or pass --allowed-signers FILE; --openpgp-certs FILE for OpenPGP) and run carry again",
        ),
        _ => (
            "signature_unchecked",
            "carries a signature that cannot be checked here",
            "carry re-signs only what it could check",
        ),
    };
    let trust_now = match &trust.ssh {
        Some(ssh) => format!("your allowed signers are read from {}", ssh.source),
        None => "no allowed-signers file is configured".to_owned(),
    };
    let when = now
        .replace_nanosecond(0)
        .unwrap_or(now)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let at_line = f.line.map(|n| format!("line {n}: ")).unwrap_or_default();
    (
        code,
        format!(
            "the evidence on {old} {what} ({at_line}{}: {}); carry checks it as a CI gate would today ({when}; {trust_now}) and re-signs only evidence that holds: {advice}; otherwise {}",
            f.code,
            one_line(&f.message),
            attest_again(target)
        ),
    )
}

/// The lines of `note` read back, and what the rules of agreement find against `commit`.
fn read_and_agree(
    repo: &Repo,
    note: &[u8],
    commit: &Commit,
    target: &str,
    verdict: Option<&str>,
    commit_sha256: &str,
) -> (Vec<ReadLine>, Vec<Finding>) {
    let mut findings = Vec::new();
    let lines = read_lines(note, &mut findings);
    agreement::subjects(&lines, target, commit.id, commit_sha256, &mut findings);
    if let Some((tv_line, p)) = agreement::task_verification(&lines, &mut findings) {
        let claim = Claim { commit, target, trailer_verdict: verdict, lines: &lines, tv_line, p };
        Rules::new(repo, None).agreement(&claim, &mut findings);
    }
    (lines, findings)
}

/// The task-verification predicate of `lines`.
fn task_verification_of(lines: &[ReadLine]) -> Option<predicate::TaskVerificationV0> {
    lines.iter().find_map(|l| match &l.body {
        Body::TaskVerification(p) => Some(p.as_ref().clone()),
        _ => None,
    })
}

/// The codes of the findings that make evidence not hold (anything but a signature question).
fn disagreement(findings: &[Finding]) -> Option<String> {
    let codes: Vec<&str> =
        findings.iter().filter(|f| f.outcome >= CommitOutcome::Mismatch).map(|f| f.code).collect();
    (!codes.is_empty()).then(|| codes.join(", "))
}

/// Whether the requirement text the evidence was given differs at `new`: the story
/// (`spec.section_hash`) or a cited requirement's line.
fn requirement_change(
    repo: &Repo,
    new: &Commit,
    unit: &str,
    p: &predicate::TaskVerificationV0,
    facts: &spec::TaskFacts,
) -> Result<Option<String>, AttestError> {
    if let Some(s) = &p.spec
        && s.section_hash != facts.section_hash
    {
        if facts.is_trailer_only() {
            return Ok(Some(format!("the bug home {} (assessment, fix and test)", facts.tasks_path)));
        }
        return Ok(Some(format!("the story text ({})", s.section.as_deref().unwrap_or("the unit's spec"))));
    }
    let tree = repo.tree(new.tree);
    for row in p.audits.trace.as_ref().and_then(Value::as_array).into_iter().flatten() {
        if let (Some(id), Some(hash)) = (
            row.get("requirement").and_then(Value::as_str),
            row.get("requirement_hash").and_then(Value::as_str),
        ) {
            let now = spec::requirement_line(&tree, unit, id)?.map(sha256_hex);
            if now.as_deref() != Some(hash) {
                return Ok(Some(format!("requirement {id}")));
            }
        }
    }
    Ok(None)
}

/// The statements of `lines` re-issued for `new` (see the module documentation), clean-checked,
/// in the order of the old note.
fn reissue(
    repo: &Repo,
    lines: &[ReadLine],
    new: &Commit,
    target: &str,
    patch_id: &str,
) -> Result<Vec<Line>, AttestError> {
    let new_hex = new.id.to_string();
    let subject = Subject::task_at(target, &new_hex, &commit_object_sha256(repo, new.id)?);
    let time = now_rfc3339();
    let from =
        lines.first().and_then(|l| l.subject.first()).and_then(Subject::git_commit).unwrap_or("").to_owned();
    let mut out: Vec<(Line, &ReadLine)> = Vec::new();
    let mut digests: HashMap<String, String> = HashMap::new();
    let mut summary_at = Vec::new();
    for line in lines {
        let mut statement: Value = serde_json::from_slice(&line.envelope.payload)
            .map_err(|e| AttestError::Io(format!("a line of the note of {from} is not JSON: {e}")))?;
        statement["subject"] = json!([subject]);
        let predicate_type = statement["predicateType"].as_str().unwrap_or_default().to_owned();
        let name = line.input_name().unwrap_or_else(|| "summary".to_owned());
        match &line.body {
            Body::Summary(_) => {
                summary_at.push(out.len());
            }
            Body::TaskVerification(p) => {
                let predicate = &mut statement["predicate"];
                predicate["tree"] = json!(new.tree.to_string());
                predicate["time"] = json!(time);
                predicate["revision"] = json!(p.revision().max(predicate::REVISION));
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
            .map_err(|e| AttestError::Io(format!("the summary of the note of {from} is not JSON: {e}")))?;
        statement["subject"] = json!([subject]);
        let predicate = &mut statement["predicate"];
        predicate["resourceUri"] = json!(statements::resource_uri(origin.as_deref(), &new_hex));
        predicate["timeVerified"] = json!(time);
        predicate["verifier"]["version"] = json!({ "speccoder": env!("CARGO_PKG_VERSION") });
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
fn finish(statement: Value, name: &str, from: &str) -> Result<Vec<u8>, AttestError> {
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
/// (git's `notes.rewriteRef`); `Ok(Ok(true))` when it held exactly this note already;
/// `Ok(Err(()))` when it holds another note of its own, which is never replaced.
fn write_note(
    repo: &Repo,
    old_note: &[u8],
    to: ObjectId,
    note: &[u8],
) -> Result<Result<bool, ()>, AttestError> {
    let old_lines = bundle::split(old_note);
    let mut unchanged = false;
    let result = repo.update_note(NOTES_REF, to, |current| -> Result<Option<Vec<u8>>, NoteExists> {
        match current {
            None => Ok(Some(note.to_vec())),
            Some(current) if current == note => {
                unchanged = true;
                Ok(Some(note.to_vec()))
            }
            Some(current) if bundle::split(current).iter().all(|l| old_lines.contains(l)) => {
                Ok(Some(note.to_vec()))
            }
            Some(_) => Err(NoteExists),
        }
    });
    match result {
        Ok(_) => Ok(Ok(unchanged)),
        Err(UpdateNoteError::Compute(NoteExists)) => Ok(Err(())),
        Err(UpdateNoteError::Git(source)) => Err(AttestError::Note { commit: to.to_string(), source }),
    }
}

/// The new commit holds a note of its own.
#[derive(Debug, thiserror::Error)]
#[error("the commit holds a note of its own")]
struct NoteExists;
