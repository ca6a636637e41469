//! The task and verdict a commit claims: its `Spec-Task:` and `Verdict:` trailers.

use crate::check::decision::{DECISION_KEYS, doubled_decider};
use crate::git::{ObjectId, Repo, trailers};
use crate::model::clean::shown_if_clean;
use crate::model::predicate::Verdict;
use crate::model::refs::{self, SkipOf};
use crate::model::shown::SHOWN_MAX;
use crate::model::trailer_keys::{HELD_OUT, SKIPPED_BY, SPEC_TASK, VERDICT};
use crate::spec;

/// The `Spec-Task:` and `Verdict:` trailers of a commit message (the last of each), read as git
/// reads a stored commit's trailers (`git log --format=%(trailers)`: no `---` divider).
#[must_use]
pub fn task_trailers(message: &str) -> (Option<String>, Option<String>) {
    let found = trailers::parse_without_divider(message);
    let last = |key: &str| {
        found.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.trim().to_owned())
    };
    (last(SPEC_TASK), last(VERDICT))
}

/// The last `Held-Out:` trailer of a commit message, as it is written, read as
/// [`task_trailers`] reads trailers.
#[must_use]
pub fn held_out_trailer(message: &str) -> Option<String> {
    last_trailer(message, HELD_OUT)
}

/// The last trailer `key` of a commit message, as it is written, read as [`task_trailers`] reads
/// trailers.
#[must_use]
pub fn last_trailer(message: &str, key: &str) -> Option<String> {
    let found = trailers::parse_without_divider(message);
    found.into_iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v)
}

/// Whether a commit is the skip record the published speccoder writes (`speccoder task skip`):
/// no parent, no `Verdict:` trailer and a `Skipped-By:` one (its tree is the head's when it was
/// made). A skip ref names it and no branch holds it; it claims `skipped`, as ours says in its
/// `Verdict:` trailer. A commit of that shape is never a task commit of a branch, since the
/// walk takes only commits with a `Verdict:` ([`newest_task_commits`]).
#[must_use]
pub fn is_published_skip_record(message: &str, parents: usize) -> bool {
    let found = trailers::parse_without_divider(message);
    let has = |key: &str| found.iter().any(|(k, _)| k.eq_ignore_ascii_case(key));
    parents == 0 && !has(VERDICT) && has(SKIPPED_BY)
}

/// What the skip ref `name`, at commit `id`, says of the skips of `unit` ([`refs::skip_of`]): a
/// name two tasks share ([`SkipOf::Shared`]) is the skip of the other task when the commit's
/// `Spec-Task:` ([`task_trailers`]) names that one, and of the unit's task otherwise (a commit that
/// cannot be read names none). `skip`, `skip --undo` and verify read a skip ref so.
pub fn skip_ref_of(
    repo: &Repo,
    (name, id): (&str, ObjectId),
    unit: &str,
    is_task_id: impl FnOnce(&str) -> bool,
) -> SkipOf {
    match refs::skip_of(name, unit, is_task_id) {
        SkipOf::Shared { task, other } => {
            let names = |message: &str| task_trailers(message).0.as_deref() == Some(other.as_str());
            if repo.commit(id).is_ok_and(|commit| names(&commit.message)) {
                SkipOf::Other
            } else {
                SkipOf::Task(task)
            }
        }
        read => read,
    }
}

/// The verdict a commit claims: its `Verdict:` trailer (as [`task_trailers`] reads it), or
/// `skipped` for the published skip record, which names its verdict in no trailer
/// ([`is_published_skip_record`]).
#[must_use]
pub fn claimed_verdict(message: &str, parents: usize) -> Option<String> {
    task_trailers(message)
        .1
        .or_else(|| is_published_skip_record(message, parents).then(|| Verdict::Skipped.as_str().to_owned()))
}

/// Whether a commit is a skip record, ours (`Verdict: skipped`) or the published speccoder's
/// ([`claimed_verdict`]): a skip ticks nothing, so its note is evidence of no tick, on or off a
/// branch.
#[must_use]
pub fn is_skip_record(message: &str, parents: usize) -> bool {
    claimed_verdict(message, parents).as_deref() == Some(Verdict::Skipped.as_str())
}

/// The newest task commit of each task among `commits` (newest first, as a walk from the head
/// yields them): a commit whose trailers carry `Spec-Task:` and a non-empty `Verdict:`, by
/// `<unit>/<task>`.
///
/// # Errors
/// A commit that cannot be read.
pub fn newest_task_commits(
    repo: &crate::git::Repo,
    commits: &[gix::ObjectId],
) -> Result<std::collections::HashMap<String, gix::ObjectId>, crate::git::GitError> {
    let mut found = std::collections::HashMap::new();
    for id in commits {
        let commit = repo.commit(*id)?;
        if let (Some(target), Some(verdict)) = task_trailers(&commit.message)
            && !verdict.is_empty()
        {
            found.entry(target).or_insert(*id);
        }
    }
    Ok(found)
}

/// The code of a commit whose task trailers are not one plain claim ([`claim_problem`]), in the
/// verifier's findings and rows and in `attest carry`'s refusals.
pub const NOT_ONE_CLAIM: &str = "not_one_claim";

/// The longest `Spec-Task:` or `Verdict:` value read: a unit name is at most 255 bytes, and a task
/// id and a verdict far less.
pub const MAX_CLAIM_BYTES: usize = 512;

/// Why a commit's claim to be a task commit cannot be taken at its word, `None` when it can (the
/// verifier, `attest sign` and `attest carry` all ask this, as `not_one_claim`): a `Spec-Task:`
/// or `Verdict:` value longer than [`MAX_CLAIM_BYTES`], a merge commit (a task commit has one
/// parent: it is the change the evidence judged), a `Spec-Task:` or `Verdict:` trailer given
/// more than once, or trailers that `git log` (no divider) and `git interpret-trailers --parse`
/// (a `---` line ends the message) read differently. A decision (`attested`, `skipped`, or the
/// published skip record) must name one decider too ([`doubled_decider`]), and its decision
/// trailers are read alike both ways. A reader shown one claim must never be holding another.
#[must_use]
pub fn claim_problem(message: &str, parents: usize) -> Option<String> {
    let (target, verdict) = task_trailers(message);
    if [target, verdict].iter().flatten().any(|value| value.len() > MAX_CLAIM_BYTES) {
        return Some(format!(
            "the Spec-Task: or Verdict: trailer is longer than the {MAX_CLAIM_BYTES} bytes any <unit>/<task> and verdict take, so it is shown cut and not read"
        ));
    }
    if parents > 1 {
        return Some(format!(
            "a merge commit ({parents} parents) is not a task commit: a task commit is the one change its evidence judged"
        ));
    }
    let stored = trailers::parse_without_divider(message);
    let count = |key: &str| stored.iter().filter(|(k, _)| k.eq_ignore_ascii_case(key)).count();
    for key in [SPEC_TASK, VERDICT] {
        if count(key) > 1 {
            return Some(format!(
                "the commit message has {} {key}: trailers; a task commit names one",
                count(key)
            ));
        }
    }
    let decision = decision_of(message, parents);
    if let Some(problem) = decision.and_then(|verdict| doubled_decider(&stored, verdict)) {
        return Some(problem);
    }
    if let Some((_, value)) =
        stored.iter().find(|(k, v)| k.eq_ignore_ascii_case(SPEC_TASK) && names_several(v))
    {
        return Some(format!(
            "the {SPEC_TASK}: trailer `{}` names more than one <unit>/<task> (two names on one line, or a continuation line folded onto it); a task commit names one",
            shown_if_clean(value, SHOWN_MAX)
        ));
    }
    let keys: &[&str] = if decision.is_some() { &DECISION_KEYS } else { &[] };
    let claim = |found: &[(String, String)]| -> Vec<(String, String)> {
        found
            .iter()
            .filter(|(k, _)| [SPEC_TASK, VERDICT].iter().chain(keys).any(|key| k.eq_ignore_ascii_case(key)))
            .map(|(k, v)| (k.to_ascii_lowercase(), v.trim().to_owned()))
            .collect()
    };
    (claim(&stored) != claim(&trailers::parse(message))).then(|| {
        "git log and git interpret-trailers --parse read different Spec-Task:, Verdict: or decision trailers in the commit message (a `---` line among them)".to_owned()
    })
}

/// The decision a commit claims: its `Verdict:` when that is `attested` or `skipped`, or
/// `skipped` for the published skip record ([`is_published_skip_record`]).
fn decision_of(message: &str, parents: usize) -> Option<Verdict> {
    claimed_verdict(message, parents).and_then(|v| Verdict::parse(&v)).filter(|v| v.is_decision())
}

/// Whether a `Spec-Task:` value names more than one task: a unit name and a task id hold no `/`,
/// so one `<unit>/<task>` holds exactly one; but for the published speccoder's name of a Spec Kit
/// bug, `bugs/<slug>/bug:<slug>`, whose unit is `bugs/<slug>` ([`spec::published_bug`]).
fn names_several(value: &str) -> bool {
    value.matches('/').count() > 1 && spec::published_bug(value.trim()).is_none()
}

/// Every `<unit>/<task>` the `Spec-Task:` trailers of `message` name, read as [`task_trailers`]
/// reads them, in order: each trailer's value, or, of a value that names several, each word
/// holding a `/`.
#[must_use]
pub fn named_tasks(message: &str) -> Vec<String> {
    let found = trailers::parse_without_divider(message);
    let values = found.into_iter().filter(|(k, _)| k.eq_ignore_ascii_case(SPEC_TASK)).map(|(_, v)| v);
    let mut named = Vec::new();
    for value in values {
        if names_several(&value) {
            named.extend(value.split_whitespace().filter(|w| w.contains('/')).map(str::to_owned));
        } else {
            named.push(value.trim().to_owned());
        }
    }
    named
}

/// The tasks that commits among `commits` (newest first, as a walk from the head yields them)
/// claim in a way that is not one plain claim ([`claim_problem`]), with a non-empty `Verdict:`:
/// by each task they name ([`named_tasks`]), the newest such commit and its problem. For a tick
/// no task commit names ([`newest_task_commits`] reads only the last `Spec-Task:`), this says
/// which commit meant to, and why it is not taken at its word.
///
/// # Errors
/// A commit that cannot be read.
pub fn unclear_claims(
    repo: &crate::git::Repo,
    commits: &[gix::ObjectId],
) -> Result<std::collections::HashMap<String, (gix::ObjectId, String)>, crate::git::GitError> {
    let mut found = std::collections::HashMap::new();
    for id in commits {
        let commit = repo.commit(*id)?;
        let claims_a_verdict = trailers::parse_without_divider(&commit.message)
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case(VERDICT) && !v.trim().is_empty());
        if !claims_a_verdict {
            continue;
        }
        let named = named_tasks(&commit.message);
        if named.is_empty() {
            continue;
        }
        if let Some(problem) = claim_problem(&commit.message, commit.parents.len()) {
            for target in named {
                found.entry(target).or_insert_with(|| (*id, problem.clone()));
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merge_a_repeated_trailer_and_a_trailer_longer_than_any_task_are_each_not_one_claim() {
        let plain = "s\n\nSpec-Task: 001-a/T001\nVerdict: attested\n";
        assert_eq!(claim_problem(plain, 1), None);
        assert!(claim_problem(plain, 2).unwrap().contains("a merge commit (2 parents)"));
        let twice = plain.replace("Verdict: attested", "Verdict:\nVerdict: attested");
        assert!(claim_problem(&twice, 1).unwrap().contains("2 Verdict: trailers"));
        let long = plain.replace("T001", &"9".repeat(MAX_CLAIM_BYTES));
        assert!(claim_problem(&long, 1).unwrap().contains("longer than the 512 bytes"));
    }

    #[test]
    fn a_decision_naming_a_second_or_foreign_decider_or_reason_is_not_one_claim() {
        let accept = "s\n\nSpec-Task: 001-a/T001\nVerdict: attested\nAccepted-By: Ada\nReason: by hand\n";
        assert_eq!(claim_problem(accept, 1), None);
        let second = accept.replace("Accepted-By: Ada", "Accepted-By: Team\nReason: ok\nAccepted-By: Ada");
        assert!(claim_problem(&second, 1).unwrap().contains("2 Accepted-By: trailers"));
        let reason = accept.replace("Reason: by hand", "Reason: by hand\nReason: later");
        assert!(claim_problem(&reason, 1).unwrap().contains("2 Reason: trailers"));
        let foreign = accept.replace("Reason:", "Skipped-By: Bob\nReason:");
        assert!(claim_problem(&foreign, 1).unwrap().contains("a Skipped-By: trailer"));
        let skip = accept.replace("attested\nAccepted-By", "skipped\nSkipped-By");
        assert_eq!(claim_problem(&skip, 1), None);
        assert!(claim_problem(&skip.replace("Reason:", "Accepted-By: Bob\nReason:"), 1).is_some());
        let published = "s\n\nSpec-Task: 001-a/T001\nSkipped-By: Ada\nSkipped-By: Bob\nReason: r\n";
        assert!(claim_problem(published, 0).unwrap().contains("2 Skipped-By: trailers"));
        let tick = "s\n\nSpec-Task: 001-a/T001\nVerdict: verified\nReason: a\nReason: b\n";
        assert_eq!(claim_problem(tick, 1), None, "a tick's other trailers are not a decider");
    }

    #[test]
    fn two_tasks_on_one_spec_task_trailer_or_folded_onto_it_are_not_one_claim_and_each_is_named() {
        let plain = "s\n\nSpec-Task: 001-a b/T001\nVerdict: attested\n";
        assert_eq!(claim_problem(plain, 1), None, "a unit name may hold a blank");
        assert_eq!(named_tasks(plain), ["001-a b/T001"]);
        for folded in ["001-a/T001 001-a/T002", "001-a/T001\n  001-a/T002"] {
            let message = format!("s\n\nSpec-Task: {folded}\nVerdict: attested\n");
            let problem = claim_problem(&message, 1).unwrap();
            assert!(problem.contains("names more than one <unit>/<task>"), "{problem}");
            assert_eq!(named_tasks(&message), ["001-a/T001", "001-a/T002"]);
        }
        let twice = "s\n\nSpec-Task: 001-a/T001\nSpec-Task: 001-a/T002\nVerdict: attested\n";
        assert_eq!(named_tasks(twice), ["001-a/T001", "001-a/T002"]);
    }

    /// The published speccoder's record of a Spec Kit bug names one task, `bug:<slug>` of its unit
    /// `bugs/<slug>`; two such names on one line are still two.
    #[test]
    fn the_published_speccoder_s_bug_name_with_its_unit_s_slash_is_one_claim() {
        let kept = "s\n\nSpec-Task: bugs/login-crash/bug:login-crash\nVerdict: attested\nAccepted-By: U\nReason: r\n";
        assert_eq!(claim_problem(kept, 1), None);
        assert_eq!(named_tasks(kept), ["bugs/login-crash/bug:login-crash"]);
        let two = kept.replace("login-crash\n", "login-crash bugs/b/bug:b\n");
        assert!(claim_problem(&two, 1).unwrap().contains("names more than one <unit>/<task>"));
    }

    #[test]
    fn only_a_parentless_commit_with_skipped_by_and_no_verdict_is_a_published_skip_record() {
        let published =
            "speccoder: skip T002\n\nmoves on\n\nSpec-Task: 001-a/T002\nSkipped-By: Ada\nReason: moves on\n";
        assert!(is_published_skip_record(published, 0));
        assert!(!is_published_skip_record(published, 1), "ours has a parent and says its verdict");
        let ours = published.replace("Skipped-By: Ada", "Verdict: skipped\nSkipped-By: Ada");
        assert!(!is_published_skip_record(&ours, 0));
        let accept = published.replace("Skipped-By", "Accepted-By");
        assert!(!is_published_skip_record(&accept, 0));
    }

    #[test]
    fn a_skip_record_is_ours_with_its_verdict_or_the_published_one_without_and_nothing_else() {
        let published =
            "speccoder: skip T002\n\nmoves on\n\nSpec-Task: 001-a/T002\nSkipped-By: Ada\nReason: moves on\n";
        let ours = published.replace("Skipped-By: Ada", "Verdict: skipped\nSkipped-By: Ada");
        assert!(is_skip_record(published, 0) && is_skip_record(&ours, 1) && is_skip_record(&ours, 0));
        assert_eq!(claimed_verdict(published, 0).as_deref(), Some("skipped"));
        assert!(!is_skip_record(published, 1), "a parent and no verdict: no decision at all");
        let accept = ours.replace("Verdict: skipped", "Verdict: attested");
        assert!(!is_skip_record(&accept, 1));
        assert!(!is_skip_record("s\n\nSpec-Task: 001-a/T002\nVerdict: verified\n", 1));
    }
}
