//! Which changed test files the run collected (task-verification revision 3).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::dialect::Dialect;

/// The test files the attempt added or changed, and whether the test run collected each: a test
/// file that no run collected proves nothing, however green the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Collection {
    /// One row per added or changed test file, in the runner's order.
    // A signed statement's rows are read in either shape ([`SignedFile`]); the schema says the one
    // this crate writes.
    #[schemars(with = "Vec<CollectedFile>")]
    pub files: Vec<SignedFile>,
}

/// One changed test file and whether the run collected it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CollectedFile {
    /// The file's project-relative path.
    pub path: String,
    /// Whether the test run collected (loaded and ran) it.
    pub collected: bool,
}

/// The test files the attempt added or changed, and whether the test run collected each, as the
/// evidence file records them: these members and no other. (A signed statement's `collection` is
/// read tolerantly, as a newer producer may add members.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordedCollection {
    /// One row per added or changed test file, in the runner's order.
    pub files: Vec<RecordedFile>,
}

/// One changed test file and whether the run collected it, as the evidence file records it: these
/// members and no other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordedFile {
    /// The file's project-relative path.
    pub path: String,
    /// Whether the test run collected (loaded and ran) it.
    pub collected: bool,
}

impl From<RecordedCollection> for Collection {
    fn from(c: RecordedCollection) -> Self {
        let files = c.files.into_iter().map(|f| CollectedFile { path: f.path, collected: f.collected });
        Collection { files: files.map(SignedFile::Ours).collect() }
    }
}

/// One row of a signed `collection.files`: in the shape this crate writes (`{path, collected}`),
/// or in the published speccoder's (`{path, state, decided_by, tests, test_ids, ...}`), which a
/// verifier accepts only in a note under its published recipe ([`super::dialect`]). Each is read
/// with the members it knows and tolerates others, and serialized in its own shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum SignedFile {
    /// This crate's `{path, collected}`.
    Ours(CollectedFile),
    /// The published speccoder's `{path, state, ...}`.
    Published(PublishedFile),
}

/// One changed test file as the published speccoder records it: its path and its `state`
/// (`collected`, `not_collected`, `unknown`), the other members (what decided it, how many tests
/// ran from it, their ids, the runner's rule and the way out) kept as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PublishedFile {
    /// The file's project-relative path.
    pub path: String,
    /// Whether the run collected it, as recorded.
    pub state: String,
    /// The row's other members, as recorded.
    #[serde(flatten)]
    pub members: BTreeMap<String, Value>,
}

impl SignedFile {
    /// Whose shape the statement records the row in.
    #[must_use]
    pub fn dialect(&self) -> Dialect {
        match self {
            SignedFile::Ours(_) => Dialect::Ours,
            SignedFile::Published(_) => Dialect::Published,
        }
    }

    /// The file's path.
    #[must_use]
    pub fn path(&self) -> &str {
        match self {
            SignedFile::Ours(f) => &f.path,
            SignedFile::Published(f) => &f.path,
        }
    }

    /// Whether the run collected the file: `Some(true)` for this crate's `collected: true` and
    /// the published speccoder's `state: "collected"`; `None` where the published speccoder could
    /// not tell (`unknown`, or a state this build does not know).
    #[must_use]
    pub fn collected(&self) -> Option<bool> {
        match self {
            SignedFile::Ours(f) => Some(f.collected),
            SignedFile::Published(f) => match f.state.as_str() {
                "collected" => Some(true),
                "not_collected" => Some(false),
                _ => None,
            },
        }
    }
}

/// The members of a signed row that decide its shape, each kept apart from the others (a member
/// given twice is refused, as a derived reader refuses it); `null` kept apart from absent.
#[derive(Deserialize)]
struct Members {
    #[serde(default, deserialize_with = "present")]
    path: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    collected: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    state: Option<Value>,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

/// A member that is present, `null` included.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `value` as a member `name` of type `T`, or the error a derived reader gives.
fn member<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    name: &str,
    value: Option<Value>,
) -> Result<T, E> {
    let value = value.ok_or_else(|| E::custom(format!("missing field `{name}`")))?;
    serde_json::from_value(value).map_err(|e| E::custom(format!("`{name}`: {e}")))
}

/// This crate's shape when `collected` is there (or neither `collected` nor `state` is: the error
/// then names `collected`); the published speccoder's when `state` is and `collected` is not.
impl<'de> Deserialize<'de> for SignedFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Members { path, collected, state, rest } = Members::deserialize(d)?;
        let path = member::<String, D::Error>("path", path)?;
        if collected.is_none()
            && let Some(state) = state
        {
            let state = member::<String, D::Error>("state", Some(state))?;
            return Ok(SignedFile::Published(PublishedFile { path, state, members: rest }));
        }
        let collected = member::<bool, D::Error>("collected", collected)?;
        Ok(SignedFile::Ours(CollectedFile { path, collected }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: &Value) -> Result<SignedFile, String> {
        serde_json::from_str(&v.to_string()).map_err(|e| e.to_string())
    }

    #[test]
    fn our_row_reads_as_ours_and_a_member_a_newer_producer_added_is_tolerated() {
        let row = read(&json!({"path": "tests/a.rs", "collected": false, "n": 1})).unwrap();
        assert_eq!(row, SignedFile::Ours(CollectedFile { path: "tests/a.rs".into(), collected: false }));
        assert_eq!((row.dialect(), row.collected()), (Dialect::Ours, Some(false)));
    }

    #[test]
    fn the_published_speccoders_row_reads_with_its_state_and_keeps_its_members() {
        let v = json!({"path": "tests/a.rs", "state": "collected", "decided_by": "junit", "tests": 1, "test_ids": ["a::t"]});
        let row = read(&v).unwrap();
        assert_eq!(
            (row.dialect(), row.path(), row.collected()),
            (Dialect::Published, "tests/a.rs", Some(true))
        );
        assert_eq!(serde_json::to_value(&row).unwrap(), v);
        let unknown = json!({"path": "t.py", "state": "unknown", "decided_by": null, "tests": 0, "test_ids": [], "why": "w"});
        assert_eq!(read(&unknown).unwrap().collected(), None);
        assert_eq!(
            read(&json!({"path": "t.py", "state": "not_collected"})).unwrap().collected(),
            Some(false)
        );
    }

    #[test]
    fn a_row_of_neither_shape_or_with_a_member_twice_does_not_read() {
        for (bad, says) in [
            (json!({"path": "a"}).to_string(), "missing field `collected`"),
            (json!({"collected": true}).to_string(), "missing field `path`"),
            (json!({"path": "a", "collected": null, "state": "collected"}).to_string(), "`collected`"),
            (json!({"path": "a", "state": 1}).to_string(), "`state`"),
            (r#"{"path":"a","path":"b","collected":true}"#.to_owned(), "duplicate field `path`"),
            (r#"{"path":"a","state":"collected","state":"unknown"}"#.to_owned(), "duplicate field `state`"),
        ] {
            let err = serde_json::from_str::<SignedFile>(&bad).expect_err(&bad).to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
