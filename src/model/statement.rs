//! The in-toto Statement v1 every line of a bundle carries, and its subject.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `_type` of an in-toto Statement v1.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";

/// The subject digest key naming a git commit by its id.
pub const GIT_COMMIT: &str = "gitCommit";

/// The subject digest key naming the task commit by the sha256 of its object (`commit <len>\0`
/// and its raw bytes, as git hashes objects): a collision-resistant binding in a SHA-1
/// repository, and the digest a Sigstore bundle binds its statement by.
pub const SHA256: &str = "sha256";

/// What a statement is about: `<unit>/<task>` at one commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Subject {
    /// `<unit>/<task>`, e.g. `001-bookmark-tags/T005`.
    pub name: String,
    /// `{"gitCommit": "<40 or 64 hex>", "sha256": "<64 hex>"}`: the task commit's id, and the
    /// sha256 of the commit object (`commit <len>\0` followed by its raw bytes). Lines written
    /// before the `sha256` entry have `gitCommit` alone.
    pub digest: BTreeMap<String, String>,
}

impl Subject {
    /// The subject of every statement of a tick: the task at its task commit, named by its id and
    /// by the sha256 of its object.
    #[must_use]
    pub fn task_at(name: &str, commit: &str, commit_sha256: &str) -> Self {
        Subject {
            name: name.to_owned(),
            digest: BTreeMap::from([
                (GIT_COMMIT.to_owned(), commit.to_owned()),
                (SHA256.to_owned(), commit_sha256.to_owned()),
            ]),
        }
    }

    /// The commit this subject names by `gitCommit`.
    #[must_use]
    pub fn git_commit(&self) -> Option<&str> {
        self.digest.get(GIT_COMMIT).map(String::as_str)
    }

    /// The sha256 of the commit object, when the subject carries one.
    #[must_use]
    pub fn commit_sha256(&self) -> Option<&str> {
        self.digest.get(SHA256).map(String::as_str)
    }
}

/// An in-toto Statement v1 with a typed predicate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Statement<P> {
    /// Always [`STATEMENT_TYPE`].
    #[serde(rename = "_type")]
    pub type_: String,
    /// What the statement is about.
    pub subject: Vec<Subject>,
    /// The predicate's type URI.
    #[serde(rename = "predicateType")]
    pub predicate_type: String,
    /// The claim.
    pub predicate: P,
}

impl<P> Statement<P> {
    /// A statement of `predicate_type` about one subject.
    pub fn new(subject: Subject, predicate_type: &str, predicate: P) -> Self {
        Statement {
            type_: STATEMENT_TYPE.to_owned(),
            subject: vec![subject],
            predicate_type: predicate_type.to_owned(),
            predicate,
        }
    }
}

/// A statement as read back from a payload: its predicate kept as the JSON that was signed, to be
/// typed once its `predicateType` is known.
pub type RawStatement = Statement<Value>;
