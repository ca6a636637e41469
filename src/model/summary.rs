//! The SLSA verification summary v1 that closes a tick: it names every other line by digest, the
//! level reached, and the policy it was judged under.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The predicate type URI.
pub const TYPE: &str = "https://slsa.dev/verification_summary/v1";
/// `verifier.id` of every summary speccoder writes.
pub const VERIFIER_ID: &str = "https://speccoder.dev/verifier/v0";
/// `policy.uri`: the judge configuration of `speccoder.toml`.
pub const POLICY_URI: &str = "https://speccoder.dev/policy/judge-config/v0";
/// The level of a `verified` tick.
pub const LEVEL_VERIFIED: &str = "SPECCODER_VERIFIED";
/// The level of a `regression_only` tick.
pub const LEVEL_REGRESSION_ONLY: &str = "SPECCODER_REGRESSION_ONLY";
/// The level of an `attested` tick (a person's word), in `attest export`'s summary of a range.
pub const LEVEL_ATTESTED: &str = "SPECCODER_ATTESTED";
/// The level of a tick the verifier policy's baseline holds (ticked by hand before adoption), in
/// `attest export`'s summary of a range.
pub const LEVEL_BASELINE: &str = "SPECCODER_BASELINE";
/// `policy.uri` of `attest export`'s summary of a range checked without a verifier policy: the
/// verifier's built-in rules, which its `verifier.version` names.
pub const BUILT_IN_POLICY_URI: &str = "https://speccoder.dev/policy/built-in/v0";
/// The input name of the task-verification line.
pub const INPUT_TASK_VERIFICATION: &str = "task-verification";
/// The input name prefix of a test-result line (`test-result/<phase>`).
pub const INPUT_TEST_RESULT_PREFIX: &str = "test-result/";

/// Who verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Verifier {
    /// [`VERIFIER_ID`].
    pub id: String,
    /// The speccoder version that wrote the summary (kept out of the policy hash on purpose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<BTreeMap<String, String>>,
}

/// A resource named by URI and digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reference {
    /// The resource's URI.
    pub uri: String,
    /// Its digest, `{"sha256": ...}`.
    pub digest: BTreeMap<String, String>,
}

/// One line of the bundle the summary covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InputAttestation {
    /// `task-verification` or `test-result/<phase>`.
    pub name: String,
    /// `{"sha256": <digest of that line's canonical statement bytes>}`.
    pub digest: BTreeMap<String, String>,
}

/// The verification_summary v1 predicate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerificationSummary {
    /// Who verified.
    pub verifier: Verifier,
    /// When (RFC 3339, UTC).
    pub time_verified: String,
    /// `git+<origin>@<commit>`, or `git:<commit>` without an origin; an export's names what it
    /// checked: `@<head>` or `@<base>..<head>`.
    pub resource_uri: String,
    /// The judge configuration the tick was judged under.
    pub policy: Reference,
    /// Every other line of the bundle, by digest.
    pub input_attestations: Vec<InputAttestation>,
    /// `PASSED` for every tick speccoder writes.
    pub verification_result: String,
    /// `["SPECCODER_VERIFIED"]` or `["SPECCODER_REGRESSION_ONLY"]`.
    pub verified_levels: Vec<String>,
    /// Dependency levels; speccoder writes none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependency_levels: Option<BTreeMap<String, u64>>,
    /// Which slsa-verifier-style version of the levels applies; speccoder writes none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slsa_version: Option<String>,
}

/// The revision a tick's `resourceUri` names: what follows `git:` in `git:<revision>`, or the last
/// `@` in `git+<origin>@<revision>`; `None` for a URI of neither form. The origin is not read:
/// nothing in a clone tells which repository it was published as.
#[must_use]
pub fn resource_revision(uri: &str) -> Option<&str> {
    match uri.strip_prefix("git:") {
        Some(revision) => Some(revision),
        None => uri.strip_prefix("git+")?.rsplit_once('@').map(|(_, revision)| revision),
    }
}

/// `{"sha256": hex}`, the digest map every reference uses.
#[must_use]
pub fn sha256_map(hex: &str) -> BTreeMap<String, String> {
    BTreeMap::from([("sha256".to_owned(), hex.to_owned())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resource_revision_is_read_after_git_colon_or_the_origin_s_last_at() {
        let c = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(resource_revision(&format!("git:{c}")), Some(c));
        assert_eq!(resource_revision(&format!("git+ssh://git@host/r.git@{c}")), Some(c));
        assert_eq!(resource_revision(&format!("git+https://github.com/a/b@{c}")), Some(c));
        assert_eq!(resource_revision(&format!("https://github.com/a/b@{c}")), None);
        assert_eq!(resource_revision("git+https://github.com/a/b"), None);
    }
}
