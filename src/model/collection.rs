//! Which changed test files the run collected (task-verification revision 3).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The test files the attempt added or changed, and whether the test run collected each: a test
/// file that no run collected proves nothing, however green the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Collection {
    /// One row per added or changed test file, in the runner's order.
    pub files: Vec<CollectedFile>,
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
        Collection { files: files.collect() }
    }
}
