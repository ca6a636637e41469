//! The verification summary of a range (SLSA `verification_summary/v1`) about its head commit, as
//! far as its history was checked:
//! the statement's canonical bytes, after the clean check every statement passes. Its inputs (a
//! line of a history's notes each) are checked and encoded one at a time, never held as one JSON
//! value.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::attest::export::ExportError;
use crate::model::canonical::with_items;
use crate::model::clean::{self, LeakAt};
use crate::model::held::{Level, PolicyRef};
use crate::model::statement::{Statement, Subject};
use crate::model::summary::{self, InputAttestation, Reference, VerificationSummary, Verifier, sha256_map};

/// What the summary says.
#[derive(Debug)]
pub(super) struct Facts<'a> {
    /// The head commit (hex).
    pub head: &'a str,
    /// The sha256 of the head's commit object (`commit <len>\0` and its bytes).
    pub head_sha256: &'a str,
    /// `git+<origin>@<revision>`, or `git:<revision>`: the head, or `<base>..<head>`
    /// ([`crate::model::held::HeldRange::revision`]).
    pub resource_uri: &'a str,
    /// The verifier policy, when one judged the range.
    pub policy: Option<&'a PolicyRef>,
    /// Every note line of the range: each task commit's notes file in the pack, with the sha256
    /// of each of its lines' payloads (let go of as the summary is written).
    pub inputs: Vec<(String, Vec<String>)>,
    /// The lowest level every tick meets.
    pub level: Level,
    /// When (RFC 3339, UTC).
    pub time: &'a str,
}

/// The summary statement's canonical bytes: about the head (named by its resource URI, which says
/// how much of its history was checked; digests `gitCommit` and `sha256`), by the verifier at its
/// version, `PASSED` at the range's level.
///
/// # Errors
/// [`ExportError::Leak`] when a string would leak (the clean check), [`ExportError::Encode`] (a
/// bug).
pub(super) fn statement(facts: Facts<'_>) -> Result<Vec<u8>, ExportError> {
    let predicate = VerificationSummary {
        verifier: Verifier {
            id: summary::VERIFIER_ID.to_owned(),
            version: Some(BTreeMap::from([("speccoder".to_owned(), env!("CARGO_PKG_VERSION").to_owned())])),
        },
        time_verified: facts.time.to_owned(),
        resource_uri: facts.resource_uri.to_owned(),
        policy: policy_reference(facts.policy),
        input_attestations: Vec::new(),
        verification_result: "PASSED".to_owned(),
        verified_levels: vec![facts.level.as_str().to_owned()],
        dependency_levels: None,
        slsa_version: None,
    };
    let subject = Subject::task_at(facts.resource_uri, facts.head, facts.head_sha256);
    let statement = Statement::new(subject, summary::TYPE, predicate);
    let value = serde_json::to_value(&statement).map_err(ExportError::Encode)?;
    clean::check_value(&value).map_err(ExportError::Leak)?;
    let inputs = input_attestations(facts.inputs).enumerate().map(|(n, input)| {
        let item = serde_json::to_value(&input).map_err(ExportError::Encode)?;
        clean::check_value(&item).map_err(|at| {
            let pointer = format!("/{}/{n}{}", INPUTS_AT.join("/"), at.pointer);
            ExportError::Leak(LeakAt { pointer, leak: at.leak })
        })?;
        Ok::<Value, ExportError>(item)
    });
    with_items(&value, INPUTS_AT, inputs)
}

/// Where the inputs are in the statement: the keys from its top.
const INPUTS_AT: &[&str] = &["predicate", "inputAttestations"];

/// Each note line, named `<file>#<line>` (from 1) by the sha256 of its payload.
fn input_attestations(inputs: Vec<(String, Vec<String>)>) -> impl Iterator<Item = InputAttestation> {
    inputs.into_iter().flat_map(|(file, digests)| {
        digests.into_iter().enumerate().map(move |(i, digest)| InputAttestation {
            name: format!("{file}#{}", i + 1),
            digest: sha256_map(&digest),
        })
    })
}

/// `policy`: the verifier policy's source and sha256, or the built-in rules' URI. A local file
/// (named by a path, absolute or relative), or a source the clean check refuses, is named by its
/// file name: the digest identifies the policy, and a local path never leaves the machine.
fn policy_reference(policy: Option<&PolicyRef>) -> Reference {
    let Some(policy) = policy else {
        return Reference { uri: summary::BUILT_IN_POLICY_URI.to_owned(), digest: BTreeMap::new() };
    };
    let uri = if !policy.local_file && clean::check_str(&policy.source).is_ok() {
        policy.source.clone()
    } else {
        let path = std::path::Path::new(&policy.source);
        path.file_name()
            .map_or_else(|| "verifier-policy.toml".to_owned(), |n| n.to_string_lossy().into_owned())
    };
    Reference { uri, digest: sha256_map(&policy.sha256) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(policy: Option<&'a PolicyRef>) -> Facts<'a> {
        Facts {
            head: "1111111111111111111111111111111111111111",
            head_sha256: "22",
            resource_uri: "git+https://example.com/app.git@1111111111111111111111111111111111111111",
            policy,
            inputs: vec![("a.intoto.jsonl".to_owned(), vec!["33".to_owned(), "34".to_owned()])],
            level: Level::RegressionOnly,
            time: "2026-12-01T00:00:00Z",
        }
    }

    #[test]
    fn the_summary_is_about_the_head_at_the_range_s_level_under_its_policy() {
        let bytes = statement(facts(None)).unwrap();
        assert!(crate::model::canonical::is_canonical(&bytes));
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["subject"][0]["digest"]["gitCommit"], "1111111111111111111111111111111111111111");
        assert_eq!(v["subject"][0]["digest"]["sha256"], "22");
        assert_eq!(v["predicateType"], "https://slsa.dev/verification_summary/v1");
        let p = &v["predicate"];
        assert_eq!(p["verifier"]["id"], "https://speccoder.dev/verifier/v0");
        assert_eq!(p["verifiedLevels"], serde_json::json!(["SPECCODER_REGRESSION_ONLY"]));
        assert_eq!(p["verificationResult"], "PASSED");
        assert_eq!(p["policy"]["uri"], summary::BUILT_IN_POLICY_URI);
        assert_eq!(p["inputAttestations"][0]["digest"]["sha256"], "33");
        assert_eq!(p["inputAttestations"][1]["name"], "a.intoto.jsonl#2");
        assert_eq!(p["inputAttestations"].as_array().unwrap().len(), 2);

        let named = PolicyRef {
            source: "origin/main:policy.toml (abc)".into(),
            sha256: "44".into(),
            local_file: false,
        };
        let v: Value = serde_json::from_slice(&statement(facts(Some(&named))).unwrap()).unwrap();
        assert_eq!(v["predicate"]["policy"]["uri"], "origin/main:policy.toml (abc)");
        assert_eq!(v["predicate"]["policy"]["digest"]["sha256"], "44");
    }

    #[test]
    fn an_input_that_would_leak_is_named_by_its_place_in_the_summary() {
        let inputs = vec![(
            "a.intoto.jsonl".to_owned(),
            vec!["33".to_owned(), "ghp_0123456789abcdefghijABCDEFGHIJ012345".to_owned()],
        )];
        let err = statement(Facts { inputs, ..facts(None) }).unwrap_err();
        let ExportError::Leak(at) = err else { panic!("{err}") };
        assert_eq!(at.pointer, "/predicate/inputAttestations/1/digest/sha256");
    }

    #[test]
    fn a_policy_named_by_a_local_path_is_named_by_its_file_name_only() {
        let local =
            PolicyRef { source: "/home/ada/keys/policy.toml".into(), sha256: "44".into(), local_file: true };
        let v: Value = serde_json::from_slice(&statement(facts(Some(&local))).unwrap()).unwrap();
        assert_eq!(v["predicate"]["policy"]["uri"], "policy.toml");
        assert!(!String::from_utf8_lossy(&statement(facts(Some(&local))).unwrap()).contains("/home/"));
    }

    #[test]
    fn a_policy_named_by_a_relative_local_path_is_named_by_its_file_name_only_too() {
        for source in ["../home/alice/clients/acme-secret/policy.toml", "acme-secret/policy.toml"] {
            let local = PolicyRef { source: source.into(), sha256: "44".into(), local_file: true };
            let bytes = statement(facts(Some(&local))).unwrap();
            let v: Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(v["predicate"]["policy"]["uri"], "policy.toml", "{source}");
            assert!(!String::from_utf8_lossy(&bytes).contains("acme-secret"), "{source}");
        }
    }
}
