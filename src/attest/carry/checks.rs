//! What must hold before evidence is carried: the old evidence holds for its own commit, its
//! signatures hold for the carrier now, and the new commit carries the same change, task line,
//! requirement text and judge configuration.

use std::collections::HashMap;

use gix::ObjectId;

use super::plan::Job;
use super::refusal::{attest_again, change_differs, series_differs};
use super::{RefusedRow, Stop};
use crate::attest::config::read_policy;
use crate::attest::{commit_object_sha256, same_change};
use crate::check::agreement::{self, Claim, Rules};
use crate::check::carriable;
use crate::check::decision::DecisionTrailers;
use crate::check::line::{Body, ReadLine, read_lines};
use crate::check::outcome::{CommitOutcome, Finding};
use crate::check::signatures::{self, NoteLineSignature};
use crate::check::trailers::{NOT_ONE_CLAIM, claim_problem, last_trailer, task_trailers};
use crate::check::trust::SignatureTrust;
use crate::git::{Commit, Repo};
use crate::model::bundle::MAX_NOTE_BYTES;
use crate::model::clean::shown_if_clean;
use crate::model::policy::JudgeConfig;
use crate::model::predicate::{self, Verdict};
use crate::model::shown::one_line;
use crate::model::trailer_keys::{HELD_OUT, REASON, RUN, SPEC_TASK, VERDICT};
use crate::spec;

/// A carry whose checks all held: what the re-issue needs.
pub(super) struct Checked {
    /// The commit the evidence is on.
    pub(super) old: Commit,
    /// The commit that receives it.
    pub(super) new: Commit,
    /// `<unit>/<task>`.
    pub(super) target: String,
    /// The `Verdict:` both commits carry.
    pub(super) verdict: Option<String>,
    /// The old note's bytes.
    pub(super) old_note: Vec<u8>,
    /// The old note's lines, read.
    pub(super) lines: Vec<ReadLine>,
    /// The change's patch id.
    pub(super) patch_id: String,
    /// The version-free digest of the judge configuration at the new commit's parent, the one the
    /// evidence was judged under by either recipe, which the re-issued lines carry.
    pub(super) policy_sha256: String,
}

/// A refused row for the carry from `old` to `new` of `target`.
fn refused(target: &str, old: &Commit, new: &Commit, code: &'static str, reason: String) -> Stop {
    Stop::Refused(RefusedRow {
        target: target.to_owned(),
        from: old.id.to_string(),
        to: new.id.to_string(),
        code,
        reason,
    })
}

/// Checks the carry of `job` (see the module documentation).
///
/// # Errors
/// [`Stop::Refused`] naming the first check that does not hold; [`Stop::Failed`] when the
/// repository or the spec cannot be read.
pub(super) fn check(
    repo: &Repo,
    notes: &HashMap<ObjectId, ObjectId>,
    job: &Job,
    trust: &SignatureTrust,
    now: time::OffsetDateTime,
) -> Result<Checked, Stop> {
    let old = repo.commit(job.from)?;
    let new = repo.commit(job.to)?;
    let (target, verdict) = task_trailers(&old.message);
    let target = target.unwrap_or_default();
    let refuse = |code, reason| refused(&target, &old, &new, code, reason);
    if let Some(reason) = task_differs(&old, &new) {
        return Err(refuse("not_the_same_task", reason));
    }
    for commit in [&old, &new] {
        if let Some(problem) = claim_problem(&commit.message, commit.parents.len()) {
            return Err(refuse(NOT_ONE_CLAIM, format!("{}: {problem}", commit.id)));
        }
    }
    for (key, code) in [(HELD_OUT, "held_out_differs"), (RUN, "run_differs")] {
        if let Some(reason) = trailer_differs(&old, &new, key) {
            return Err(refuse(code, reason));
        }
    }
    if let Some(reason) = decision_differs(&old, &new, verdict.as_deref()) {
        return Err(refuse("decision_differs", reason));
    }
    let claim = Carried { old: &old, new: &new, target: &target, verdict: verdict.as_deref() };
    let old_note = old_note(repo, notes, &claim)?;
    let (lines, p) = old_evidence(repo, &old_note, &claim, trust, now)?;
    let patch_id = same_change_at(repo, &claim, &p)?;
    let policy_sha256 = same_policy_at(repo, &claim, &p, &lines)?;
    Ok(Checked { old, new, target, verdict, old_note, lines, patch_id, policy_sha256 })
}

/// The carry being checked: from the task commit `old` to `new`, which claim the same `target`
/// and `verdict`.
struct Carried<'a> {
    /// The commit the evidence is on.
    old: &'a Commit,
    /// The commit that receives it.
    new: &'a Commit,
    /// `<unit>/<task>`.
    target: &'a str,
    /// The `Verdict:` both carry.
    verdict: Option<&'a str>,
}

impl Carried<'_> {
    /// This carry refused with `code` and `reason`.
    fn refuse(&self, code: &'static str, reason: String) -> Stop {
        refused(self.target, self.old, self.new, code, reason)
    }

    /// This carry refused for what [`carriable`] found, with how to attest the task again.
    fn not_carried(&self, found: carriable::NotCarried) -> Stop {
        let again = attest_again(self.target, self.verdict);
        self.refuse(found.code, format!("{}; {again}", found.why))
    }
}

/// The note of the old commit, within the size a note may be.
fn old_note(repo: &Repo, notes: &HashMap<ObjectId, ObjectId>, claim: &Carried<'_>) -> Result<Vec<u8>, Stop> {
    let old = claim.old.id;
    let Some(blob) = notes.get(&old) else {
        return Err(super::CarryError::NoNote { commit: old }.into());
    };
    repo.blob_within(*blob, MAX_NOTE_BYTES)?.map_err(|size| {
        claim.refuse(
            "evidence_does_not_hold",
            format!(
                "the note of {old} is {size} bytes, more than the {MAX_NOTE_BYTES} a note may be, so it is not read; {}",
                attest_again(claim.target, claim.verdict)
            ),
        )
    })
}

/// The lines of the old note when they hold as evidence for the carrier: for their own commit,
/// as the verifier's rules say, and signed, validly, by a signer the carrier trusts now, as a CI
/// gate checks it (`--signature-time now`): the old commit's date is the author's choice, and a
/// key that expired or was revoked since must not sign again through the carrier's. With them,
/// their task-verification predicate.
fn old_evidence(
    repo: &Repo,
    note: &[u8],
    claim: &Carried<'_>,
    trust: &SignatureTrust,
    now: time::OffsetDateTime,
) -> Result<(Vec<ReadLine>, predicate::TaskVerificationV0), Stop> {
    let (old, target) = (claim.old, claim.target);
    let old_sha256 = commit_object_sha256(repo, old.id)?;
    let (lines, findings) = read_and_agree(repo, note, old, target, claim.verdict, &old_sha256);
    if let Some((code, reason)) =
        refuse_signatures(&lines, trust, now, &old_sha256, &old.id, &attest_again(target, claim.verdict))
    {
        return Err(claim.refuse(code, reason));
    }
    let Some(p) = task_verification_of(&lines) else {
        return Err(claim.refuse(
            "evidence_does_not_hold",
            format!("the note of {} has no readable task-verification line", old.id),
        ));
    };
    if let Some(reason) = disagreement(&findings) {
        return Err(claim.refuse(
            "evidence_does_not_hold",
            format!(
                "the evidence on {} does not hold for that commit itself ({reason}); {}",
                old.id,
                attest_again(target, claim.verdict)
            ),
        ));
    }
    if let Some(found) = carriable::published_shapes(&lines, old.id) {
        return Err(claim.not_carried(found));
    }
    Ok((lines, p))
}

/// The change's patch id, when `new` carries the same change as `old`: the same patch, with the
/// same series of changes before it ([`same_change::series_gap`]), the same task line and the same
/// lines its text wraps onto, the same requirement text.
fn same_change_at(
    repo: &Repo,
    claim: &Carried<'_>,
    p: &predicate::TaskVerificationV0,
) -> Result<String, Stop> {
    let (old, new, target) = (claim.old, claim.new, claim.target);
    let refuse = |code, reason| claim.refuse(code, reason);
    let mut ids = same_change::change_ids(repo, &[old, new])?.into_iter();
    let patch = ids.next().flatten();
    if patch != ids.next().flatten() {
        return Err(Stop::Refused(change_differs(target, claim.verdict, old.id, new.id)));
    }
    if let Some(gap) = same_change::series_gap(repo, old, new)? {
        return Err(Stop::Refused(series_differs(target, claim.verdict, old.id, new.id, &gap)));
    }
    let (unit, task_id) = target.split_once('/').unwrap_or((target, ""));
    let new_tree = repo.tree(new.tree);
    let facts = match spec::read_any_task(&new_tree, unit, task_id) {
        Ok(facts) => facts,
        Err(e) => {
            return Err(refuse("task_line_differs", format!("the task cannot be read at {}: {e}", new.id)));
        }
    };
    if facts.line_hash != p.task.line_hash {
        return Err(refuse(
            "task_line_differs",
            format!(
                "the task line at {} is not the one attested at {}; {}",
                new.id,
                old.id,
                attest_again(target, claim.verdict)
            ),
        ));
    }
    let at_old = spec::TreeTaskLines::new(repo.tree(old.tree)).wording(unit, task_id);
    if at_old.is_ok_and(|wording| wording.continuation != facts.continuation) {
        return Err(refuse(
            "task_line_differs",
            format!(
                "the lines the task's text wraps onto at {} are not those attested at {}; {}",
                new.id,
                old.id,
                attest_again(target, claim.verdict)
            ),
        ));
    }
    if let Some(found) = carriable::requirement_differs(repo, old, new.id, (unit, task_id), p, &facts)? {
        return Err(claim.not_carried(found));
    }
    Ok(patch.unwrap_or_default())
}

/// The version-free digest of the judge configuration at the parent of `claim`'s new commit, when
/// the old evidence's `p` was judged under it: its signed digest follows either recipe, as the
/// verifier matches it for the note `lines` ([`carriable::policy_differs`]).
fn same_policy_at(
    repo: &Repo,
    claim: &Carried<'_>,
    p: &predicate::TaskVerificationV0,
    lines: &[ReadLine],
) -> Result<String, Stop> {
    let (old, new) = (claim.old, claim.new);
    let table = match new.parents.first() {
        Some(parent) => read_policy(repo, *parent)?.1,
        // A root commit is made at no parent: the judge configuration is the empty one.
        None => None,
    };
    let config = JudgeConfig::of_table(table.as_ref().unwrap_or(&toml::Table::new()));
    if let Some(found) = carriable::policy_differs(&config, p, lines, old.id, new.id) {
        return Err(claim.not_carried(found));
    }
    Ok(config.sha256())
}

/// Why the signatures of the old note's `lines` do not let the carrier re-sign them, as a refused
/// row's code and reason; `None` when every line holds for the carrier. The worst wins: a bad or
/// malformed signature (the content was changed after it was signed: refused whatever the
/// trust), then a keyless line, a signer the trust does not accept or a signature that cannot be
/// checked, then an unsigned line. A line that a trusted summary covers holds, as for the verifier.
/// `again` is how to give the task new evidence ([`attest_again`]).
fn refuse_signatures(
    lines: &[ReadLine],
    trust: &SignatureTrust,
    at: time::OffsetDateTime,
    commit_sha256: &str,
    old: &ObjectId,
    again: &str,
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
                again
            ),
        ));
    }
    if lines.iter().any(|l| l.envelope.sigstore.is_some()) {
        return Some((
            "keyless_evidence",
            format!(
                "the evidence on {old} is signed keylessly (Sigstore), which carry does not check (that needs an identity, an issuer and a trusted root, which `attest verify` takes); {}",
                again
            ),
        ));
    }
    if let Some(f) = failed {
        return Some(refuse_signer(f, trust, at, old, again));
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
                again
            ),
        )
    })
}

/// Why carry does not re-sign evidence whose signer its trust does not accept at `now`, as a
/// refused row's code and reason naming the key and why: `revoked_key` (revoked since it signed:
/// by `--revoked`, git's `gpg.ssh.revocationFile`, or the OpenPGP certificate's own revocation),
/// `expired_key` (an OpenPGP key expired since), `untrusted_signer` (a signer the trust does not
/// accept now: not listed, or outside its `valid-after`/`valid-before` window or certificate
/// validity), `signature_unchecked` (a signature that cannot be checked here); `again` is how to
/// give the task new evidence.
fn refuse_signer(
    f: &Finding,
    trust: &SignatureTrust,
    now: time::OffsetDateTime,
    old: &ObjectId,
    again: &str,
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
            again
        ),
    )
}

/// The lines of `note` read back, and what the rules of agreement find against `commit`.
pub(super) fn read_and_agree(
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

/// Why `new` cannot carry the evidence of `old` for its trailer `key` (`Held-Out:`, `Run:`), when
/// the two differ: the signed evidence says what `old`'s says, and the verifier holds the trailer
/// to it.
fn trailer_differs(old: &Commit, new: &Commit, key: &str) -> Option<String> {
    let (was, now) = (last_trailer(&old.message, key), last_trailer(&new.message, key));
    if was == now {
        return None;
    }
    Some(format!(
        "{} says {key}: {} where {} says {}, and the signed evidence says what {} says; restore the trailer (`git commit --amend`) and carry again",
        new.id,
        said(now.as_deref()),
        old.id,
        said(was.as_deref()),
        old.id
    ))
}

/// How to put back a trailer a reword changed, when the signed evidence holds it to the old one.
const RESTORE_TRAILER: &str = "restore the trailer (`git rebase -i` with `reword`, or `git commit --amend` on the last commit) and carry again";

/// A trailer's value as a refusal names it: quoted, or `none`.
fn said(value: Option<&str>) -> String {
    value.map_or_else(|| "none".to_owned(), |v| format!("`{}`", shown_if_clean(v, 120)))
}

/// Why `new` cannot carry the evidence of `old` for its task trailers, when `old` claims no task
/// or the two do not claim the same: each of `Spec-Task:` and `Verdict:` that differs is named
/// with both values (a `reword` in `git rebase -i`), since the signed evidence names the task and
/// verdict `old` claims.
fn task_differs(old: &Commit, new: &Commit) -> Option<String> {
    let (was, now) = (task_trailers(&old.message), task_trailers(&new.message));
    if was.0.as_deref().is_none_or(str::is_empty) {
        return Some(format!("{} carries no {SPEC_TASK}: trailer, so it holds no task's evidence", old.id));
    }
    let differs = differing([(SPEC_TASK, &was.0, &now.0), (VERDICT, &was.1, &now.1)], old);
    (!differs.is_empty()).then(|| {
        format!(
            "{} says {}, and the signed evidence names the task and verdict {} claims; {RESTORE_TRAILER}",
            new.id,
            differs.join(", and "),
            old.id
        )
    })
}

/// Each trailer of `trailers` (its key, `old`'s value, the new commit's) whose two values differ,
/// named with both: `Key: <new> where <old> says <old's>`.
fn differing(trailers: [(&str, &Option<String>, &Option<String>); 2], old: &Commit) -> Vec<String> {
    trailers
        .into_iter()
        .filter(|(_, was, now)| was != now)
        .map(|(key, was, now)| {
            format!("{key}: {} where {} says {}", said(now.as_deref()), old.id, said(was.as_deref()))
        })
        .collect()
}

/// Why `new` cannot carry the decision of `old` (a `verdict` of `attested` or `skipped`) for its
/// `Accepted-By:`/`Skipped-By:` or `Reason:` trailer, when one differs (a `reword` in `git rebase
/// -i`): the signed decider says what `old`'s trailers say, and the verifier holds the trailers to
/// it. Each differing trailer is named.
fn decision_differs(old: &Commit, new: &Commit, verdict: Option<&str>) -> Option<String> {
    let verdict = verdict.and_then(Verdict::parse).filter(|v| v.is_decision())?;
    let (was, now) =
        (DecisionTrailers::read(&old.message, verdict), DecisionTrailers::read(&new.message, verdict));
    let differs = differing([(was.by_key, &was.by, &now.by), (REASON, &was.reason, &now.reason)], old);
    (!differs.is_empty()).then(|| {
        format!(
            "{} says {}, and the signed decision says what {} says; {RESTORE_TRAILER}",
            new.id,
            differs.join(", and "),
            old.id
        )
    })
}

/// The codes of the findings that make evidence not hold (anything but a signature question).
pub(super) fn disagreement(findings: &[Finding]) -> Option<String> {
    let codes: Vec<&str> =
        findings.iter().filter(|f| f.outcome >= CommitOutcome::Mismatch).map(|f| f.code).collect();
    (!codes.is_empty()).then(|| codes.join(", "))
}
