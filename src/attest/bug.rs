//! Trailer-only bug tasks: `speccoder attest <unit>/bug:<slug> --evidence FILE` closes the bug home
//! `.specify/bugs/<slug>/` with a commit that ticks nothing. The anchor is the triad digest, which
//! we compute; the evidence's own `bug` object is carried beside it.

use gix::ObjectId;
use serde_json::{Map, Value};

use crate::exit::{Class, ExitClass};
use crate::git::{GitError, Repo, trailers};
use crate::spec::{self, SpecError, TaskFacts};

/// The key of the bug home in the predicate's `bug` object.
pub const HOME_KEY: &str = "home";
/// The key of the triad digest in the predicate's `bug` object.
pub const TRIAD_KEY: &str = "triad_sha256";

/// Why a bug task cannot be closed.
#[derive(Debug, thiserror::Error)]
pub enum BugError {
    /// The repository failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The unit or the bug home cannot be read.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The bug was closed already and its triad has not changed since.
    #[error(
        "{target} was closed already by {commit} and its bug home has not changed since (as staged); nothing to attest (edit assessment.md, fix.md or test.md and stage the edit to reopen it)"
    )]
    AlreadyClosed {
        /// `<unit>/bug:<slug>`.
        target: String,
        /// The closing commit.
        commit: String,
    },
    /// The evidence's `bug` field cannot carry a bug task's anchor.
    #[error("the evidence's `bug` field must be a JSON object (or absent) for a bug task; found {0}")]
    Evidence(&'static str),
}

impl ExitClass for BugError {
    fn class(&self) -> Class {
        match self {
            BugError::Git(e) => e.class(),
            BugError::Spec(e) => e.class(),
            BugError::AlreadyClosed { .. } => Class::GitPrecondition,
            BugError::Evidence(_) => Class::Config,
        }
    }
}

/// The facts of bug `slug` of `unit` in the tree to be committed, refusing a bug that a commit
/// reachable from `head` closed already while its triad is unchanged since.
///
/// # Errors
/// An unknown unit, a bad slug, a bug home without its three files, or [`BugError::AlreadyClosed`].
pub fn prepare(
    repo: &Repo,
    staged: ObjectId,
    head: ObjectId,
    unit: &str,
    slug: &str,
    target: &str,
) -> Result<TaskFacts, BugError> {
    let facts = spec::bug_task_facts(&repo.tree(staged), unit, slug)?;
    if let Some(commit) = latest_closing(repo, head, target)? {
        let then = spec::bug_triad(&repo.tree(repo.commit_tree(commit)?), slug).ok();
        if then.is_some_and(|t| t.triad_sha256 == facts.section_hash) {
            return Err(BugError::AlreadyClosed { target: target.to_owned(), commit: commit.to_string() });
        }
    }
    Ok(facts)
}

/// The predicate's `bug` object: the evidence's object (if any) with `home` and `triad_sha256`
/// set from `facts`, whatever the evidence said for them.
///
/// # Errors
/// [`BugError::Evidence`] when the evidence's `bug` is not an object.
pub fn anchor(facts: &TaskFacts, given: Option<Value>) -> Result<Value, BugError> {
    let mut object = match given {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map,
        Some(other) => {
            let kind = match other {
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::String(_) => "a string",
                _ => "an array",
            };
            return Err(BugError::Evidence(kind));
        }
    };
    object.insert(HOME_KEY.to_owned(), Value::String(facts.tasks_path.clone()));
    object.insert(TRIAD_KEY.to_owned(), Value::String(facts.section_hash.clone()));
    Ok(Value::Object(object))
}

/// The newest commit reachable from `head` whose `Spec-Task:` is `target` with a `Verdict:`.
fn latest_closing(repo: &Repo, head: ObjectId, target: &str) -> Result<Option<ObjectId>, BugError> {
    for id in repo.walk(head, &[])? {
        let commit = repo.commit(id)?;
        let found = trailers::parse(&commit.message);
        let last = |key: &str| {
            found.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.trim().to_owned())
        };
        if last("Spec-Task").as_deref() == Some(target) && last("Verdict").is_some_and(|v| !v.is_empty()) {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::MemTree;
    use serde_json::json;

    fn facts() -> TaskFacts {
        let tree = MemTree::from_files([
            ("specs/001-x/spec.md", "# F\n"),
            (".specify/bugs/b/assessment.md", "A"),
            (".specify/bugs/b/fix.md", "F"),
            (".specify/bugs/b/test.md", "T"),
        ])
        .unwrap();
        spec::bug_task_facts(&tree, "001-x", "b").unwrap()
    }

    #[test]
    fn the_anchor_is_computed_and_wins_over_what_the_evidence_says() {
        let f = facts();
        let got = anchor(&f, Some(json!({ "triad_sha256": "forged", "severity": "high" }))).unwrap();
        assert_eq!(got["triad_sha256"], json!(f.section_hash));
        assert_eq!(got["home"], json!(".specify/bugs/b"));
        assert_eq!(got["severity"], json!("high"));
        assert_eq!(anchor(&f, None).unwrap().as_object().unwrap().len(), 2);
    }

    #[test]
    fn a_bug_field_that_is_not_an_object_is_refused() {
        let err = anchor(&facts(), Some(json!(["x"]))).unwrap_err();
        assert!(err.to_string().contains("an array"), "{err}");
    }
}
