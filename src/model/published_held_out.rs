//! The held-out manifest of the published speccoder, as its publication of a unit's held-out sets
//! holds it: `refs/speccoder/held-out/<unit>` with one directory per set named by the set's store
//! key (a task's set: the task id), holding `manifest.json` and `files/...`. Its manifest is a JSON
//! object of its own shape, written pretty-printed; the digest a tick names is not of those bytes
//! but of the manifest's compact JSON, its members in the order below (`red_tests` only where
//! present), which is how that tool names a set. A copy is checked against a tick only where the
//! tick is read in that tool's shapes ([`super::dialect`]).

use serde::{Deserialize, Serialize};

use super::digest::sha256_hex;
use super::held_out::{HeldOutManifest, ManifestFile};

/// One kept held-out file, as the published speccoder's manifest names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedManifestFile {
    /// Its path inside the set's `files/`, `/`-separated.
    pub path: String,
    /// Lowercase hex sha256 of its bytes.
    pub sha256: String,
    /// The scenarios it covers.
    pub scenarios: Vec<String>,
    /// The command that runs it.
    pub argv: Vec<String>,
    /// Whether it exercises several scenarios together.
    pub composition: bool,
    /// How many tests its red run collected, where recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red_tests: Option<u64>,
}

/// A file the test author wrote that was not kept, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedDiscarded {
    /// Its path as given.
    pub path: String,
    /// Why it was not kept.
    pub reason: String,
}

/// The published speccoder's held-out manifest. Members it does not have are left out of the
/// digest, as that tool leaves them out when it reads a manifest back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedManifest {
    /// Its format version.
    pub version: u32,
    /// The unit (Spec Kit feature, OpenSpec change).
    pub feature: String,
    /// The task id within the unit.
    pub task: String,
    /// The run that wrote the tests.
    pub author_run: String,
    /// The tree the red runs used.
    pub checkpoint: String,
    /// The scenarios the task's visible acceptance tests cover.
    pub visible_scenarios: Vec<String>,
    /// The kept files.
    pub files: Vec<PublishedManifestFile>,
    /// The files not kept.
    pub discarded: Vec<PublishedDiscarded>,
}

impl PublishedManifest {
    /// Reads `manifest.json` bytes (pretty-printed or not).
    ///
    /// # Errors
    /// Not JSON of this shape, as serde says it.
    pub fn parse(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// The digest (lowercase hex) by which a tick of the published speccoder names this set: the
    /// sha256 of its compact JSON, members in this type's order.
    #[must_use]
    pub fn digest(&self) -> String {
        sha256_hex(serde_json::to_vec(self).unwrap_or_default())
    }

    /// `<feature>/<task>`: the task the set was written for, as a `Spec-Task:` trailer names it.
    #[must_use]
    pub fn target(&self) -> String {
        format!("{}/{}", self.feature, self.task)
    }

    /// The set's task and files as this crate's manifest names them, to compare a copy's
    /// `files/` with ([`HeldOutManifest::compare_paths`], [`ManifestFile::compare`]); not a
    /// manifest this crate writes.
    #[must_use]
    pub fn as_set(&self) -> HeldOutManifest {
        let files =
            self.files.iter().map(|f| ManifestFile { path: f.path.clone(), sha256: f.sha256.clone() });
        HeldOutManifest { version: 1, task: self.target(), run: None, files: files.collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn manifest() -> serde_json::Value {
        json!({
            "version": 1, "feature": "001-x", "task": "T001", "author_run": "run-1", "checkpoint": "abc",
            "visible_scenarios": ["US1.1"],
            "files": [{ "path": "tests/h.rs", "sha256": "ab", "scenarios": ["US1.1"], "argv": ["cargo", "test"], "composition": false }],
            "discarded": []
        })
    }

    #[test]
    fn the_digest_is_of_the_compact_json_in_the_manifests_own_member_order_whatever_the_file_spells() {
        let compact = concat!(
            r#"{"version":1,"feature":"001-x","task":"T001","author_run":"run-1","checkpoint":"abc","#,
            r#""visible_scenarios":["US1.1"],"files":[{"path":"tests/h.rs","sha256":"ab","scenarios":["US1.1"],"#,
            r#""argv":["cargo","test"],"composition":false}],"discarded":[]}"#
        );
        let pretty = serde_json::to_vec_pretty(&manifest()).unwrap();
        let read = PublishedManifest::parse(&pretty).unwrap();
        assert_eq!(read.digest(), sha256_hex(compact.as_bytes()));
        let mut more = manifest();
        more["files"][0]["red_tests"] = json!(2);
        more["note"] = json!("left out");
        let read_more = PublishedManifest::parse(&serde_json::to_vec(&more).unwrap()).unwrap();
        let with_red = compact.replace(r#""composition":false}"#, r#""composition":false,"red_tests":2}"#);
        assert_eq!(read_more.digest(), sha256_hex(with_red.as_bytes()));
    }

    #[test]
    fn the_set_names_its_task_as_a_trailer_does_and_its_files_by_path_and_digest() {
        let set = PublishedManifest::parse(manifest().to_string().as_bytes()).unwrap().as_set();
        assert_eq!(set.task, "001-x/T001");
        assert_eq!(set.files, [ManifestFile { path: "tests/h.rs".into(), sha256: "ab".into() }]);
        assert!(PublishedManifest::parse(br#"{"version":1}"#).is_err());
    }
}
