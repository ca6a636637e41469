//! What keeps evidence from being carried to the commit a rewrite made of its task commit,
//! whatever the carrier's trust: evidence in the published speccoder's shapes, a requirement text
//! that changed, another judge configuration at the new parent. `attest carry` refuses a carry so
//! (each a refused row's code and reason), and the verifier, which would otherwise tell a task
//! commit without a note to run carry, tells why carry cannot help instead: one judgement, in
//! both wings' words.

use gix::ObjectId;

use crate::check::agreement;
use crate::check::line::{Body, ReadLine, read_lines};
use crate::check::policy::{self, config_file};
use crate::check::values;
use crate::git::{Commit, Repo};
use crate::model::bundle::MAX_NOTE_BYTES;
use crate::model::policy::JudgeConfig;
use crate::model::predicate::{TaskVerificationV0, Verdict};
use crate::model::shown::shell_word;
use crate::spec;

/// Why evidence cannot be carried: a refused row's stable code, and the reason without what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotCarried {
    /// `published_shapes`, `requirement_differs`, `policy_differs`.
    pub code: &'static str,
    /// Why, naming the commits.
    pub why: String,
}

/// The evidence `lines` on `old` records members in the published speccoder's shapes
/// ([`values::published_only`]): read only under its published recipe, while carried evidence is
/// re-issued under the version-free one.
#[must_use]
pub fn published_shapes(lines: &[ReadLine], old: ObjectId) -> Option<NotCarried> {
    let published = values::published_only(lines);
    (!published.is_empty()).then(|| NotCarried {
        code: "published_shapes",
        why: format!(
            "the evidence on {old} records {} in the published speccoder's shapes, which a verifier reads only under its published recipe, and carried evidence is re-issued under the version-free recipe",
            published.join(", ")
        ),
    })
}

/// The requirement text the evidence `p` of task `task_id` of `unit` on `old` was given differs at
/// `new` (whose facts are `facts`): the story (`spec.section_hash`), or a requirement the task's
/// text cites, read at `old` and at `new` as the verifier reads it ([`agreement::cited`]: its
/// defining line and the text beyond it), whatever the trace holds.
///
/// # Errors
/// The task cannot be read at `old`.
pub fn requirement_differs(
    repo: &Repo,
    old: &Commit,
    new: ObjectId,
    (unit, task_id): (&str, &str),
    p: &TaskVerificationV0,
    facts: &spec::TaskFacts,
) -> Result<Option<NotCarried>, spec::SpecError> {
    let changed = |what: String| NotCarried {
        code: "requirement_differs",
        why: format!(
            "{what} changed since the evidence was given: at {new} it is not what it was at {}",
            old.id
        ),
    };
    if let Some(s) = &p.spec
        && s.section_hash != facts.section_hash
    {
        if facts.is_trailer_only() {
            return Ok(Some(changed(format!(
                "the bug home {} (assessment, fix and test)",
                facts.tasks_path
            ))));
        }
        let section = s.section.as_deref().unwrap_or("the unit's spec");
        return Ok(Some(changed(format!("the story text ({section})"))));
    }
    let then = agreement::cited(&spec::read_any_task(&repo.tree(old.tree), unit, task_id)?);
    let now = agreement::cited(facts);
    let differs =
        then.iter().find(|was| !now.contains(was)).or_else(|| now.iter().find(|is| !then.contains(is)));
    Ok(differs.map(|c| changed(format!("requirement {}", c.id))))
}

/// The judge configuration `config` at the parent of `new` is not the one the evidence `p` on
/// `old` (its note's `lines`) was judged under, by either recipe, as the verifier matches it
/// ([`policy::matching_recipe`]).
#[must_use]
pub fn policy_differs(
    config: &JudgeConfig,
    p: &TaskVerificationV0,
    lines: &[ReadLine],
    old: ObjectId,
    new: ObjectId,
) -> Option<NotCarried> {
    policy::matching_recipe(config, &p.policy_sha256, lines).is_none().then(|| NotCarried {
        code: "policy_differs",
        why: format!(
            "the judge configuration (speccoder.toml) at the parent of {new} is not the one the evidence of {old} was judged under"
        ),
    })
}

/// Of what keeps the evidence in the note `blob` on `old` (for `target`) from being carried to
/// `new` ([`published_shapes`], [`requirement_differs`], [`policy_differs`], in the order `attest
/// carry` checks them), the first that holds; `None` when none does, or when what it needs cannot
/// be read (carry then says what it finds).
#[must_use]
pub fn refusal(repo: &Repo, old: &Commit, blob: ObjectId, new: &Commit, target: &str) -> Option<NotCarried> {
    let note = repo.blob_within(blob, MAX_NOTE_BYTES).ok()?.ok()?;
    let lines = read_lines(&note, &mut Vec::new());
    let p = lines.iter().find_map(|l| match &l.body {
        Body::TaskVerification(p) => Some(p.as_ref()),
        _ => None,
    })?;
    if let Some(found) = published_shapes(&lines, old.id) {
        return Some(found);
    }
    let (unit, task_id) = target.split_once('/').unwrap_or((target, ""));
    let facts = spec::read_any_task(&repo.tree(new.tree), unit, task_id).ok()?;
    if let Some(found) = requirement_differs(repo, old, new.id, (unit, task_id), p, &facts).ok()? {
        return Some(found);
    }
    let text = match new.parents.first() {
        Some(parent) => config_file(repo, repo.commit_tree(*parent).ok()?).ok()?.map(|(_, text)| text),
        None => None,
    };
    let config = JudgeConfig::parse(text.as_deref()).ok()?;
    policy_differs(&config, p, &lines, old.id, new.id)
}

/// How to give a task whose evidence cannot be carried new evidence: the branch ticks it already,
/// and `attest` ticks only an open task. A decision (`verdict` `attested` or `skipped`) has no
/// checks to run: the person records it again with `accept` or `skip`.
#[must_use]
pub fn attest_again(target: &str, verdict: Option<&str>) -> String {
    // The target as one shell word in the commands advised: a unit may be named `a$(id)`.
    let word = shell_word(target);
    if let Some((_, task)) = spec::published_bug(target) {
        // The published speccoder's record of a bug: closed again by a record of ours.
        return format!(
            "to close the bug with a record this verifier checks, run its checks, then run `speccoder attest <unit>/{task} --evidence <the new evidence>`"
        );
    }
    let decided = match verdict.and_then(Verdict::parse) {
        Some(Verdict::Attested) => Some("accept"),
        Some(Verdict::Skipped) => Some("skip"),
        _ => None,
    };
    if let Some(command) = decided {
        return format!(
            "to record the decision again, clear its box in tasks.md in a commit of its own, then run `speccoder {command} {word} --reason <why>`"
        );
    }
    let is_bug = target.split_once('/').is_some_and(|(_, task)| task.starts_with(spec::BUG_TASK_PREFIX));
    if is_bug {
        // A bug task has no box: a changed bug home is closed again by attesting it.
        return format!(
            "to close it again, run its checks, then run `speccoder attest {word} --evidence <the new evidence>`"
        );
    }
    format!(
        "to attest it again, run its checks, clear its box in tasks.md in a commit of its own, then run `speccoder attest {word} --evidence <the new evidence>`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_is_told_to_be_recorded_again_and_a_tick_to_be_attested_again() {
        let accept = attest_again("u/T003", Some("attested"));
        assert!(accept.contains("`speccoder accept u/T003 --reason <why>`"), "{accept}");
        assert!(!accept.contains("--evidence") && !accept.contains("run its checks"), "{accept}");
        let skip = attest_again("u/T003", Some("skipped"));
        assert!(skip.contains("`speccoder skip u/T003 --reason <why>`"), "{skip}");
        let tick = attest_again("u/T003", Some("verified"));
        assert!(tick.contains("run its checks") && tick.contains("--evidence"), "{tick}");
        for verdict in ["attested", "skipped", "verified"] {
            let hostile = attest_again("a$(id)/T003", Some(verdict));
            assert!(hostile.contains(" 'a$(id)/T003' "), "one shell word: {hostile}");
        }
        let bug = attest_again("a$(id)/bug:x", None);
        assert!(bug.contains(" 'a$(id)/bug:x' "), "one shell word: {bug}");
    }
}
