//! Every case of the Sigstore conformance suite's `bundle-verify` folder (in
//! `../shared/sigstore-conformance/`, beside the repository) gives its expected result through our
//! offline Sigstore verification: a name ending in `_fail` must fail, any other must pass.
//!
//! Paths: a case with `key.pub` runs the managed-key path (the bundle's signature checked with that
//! key, the log and timestamps as for any bundle); every other case runs the keyless path with its
//! `identity` and `issuer` (or the suite's defaults). Both go through `sigstore-verify` (plus our
//! keyUsage check on the keyless path); none is skipped.
#![cfg(feature = "sigstore")]

use std::io::Write as _;
use std::path::{Path, PathBuf};

use speccoder_attest::sign::sigstore::{CertificateTime, Signed, SigstoreTrust, TrustedRoot, verify};

const DEFAULT_IDENTITY: &str = "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main";
const DEFAULT_ISSUER: &str = "https://token.actions.githubusercontent.com";

fn suite_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/sigstore-conformance");
    assert!(
        dir.join("bundle-verify").is_dir(),
        "the Sigstore conformance cases are missing: expected {} (shared/ beside the repository); clone or copy shared/ there",
        dir.display()
    );
    dir
}

fn read_trimmed(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_owned())
}

/// Runs one case: Ok(path) when it verifies, Err((path, reason)) when not.
fn run_case(suite: &Path, case: &Path) -> Result<&'static str, (&'static str, String)> {
    let key = case.join("key.pub");
    let path = if key.is_file() { "managed-key" } else { "keyless" };
    let fail = |reason: String| (path, reason);
    let bundle: serde_json::Value = serde_json::from_slice(
        &std::fs::read(case.join("bundle.sigstore.json")).map_err(|e| fail(e.to_string()))?,
    )
    .map_err(|e| fail(format!("bundle is not JSON: {e}")))?;
    let root_path = if case.join("trusted_root.json").is_file() {
        case.join("trusted_root.json")
    } else {
        suite.join("production-trusted_root.json")
    };
    let root = TrustedRoot::from_file(&root_path).map_err(|e| fail(e.to_string()))?;
    let trust = if key.is_file() {
        SigstoreTrust::public_key_pem(root, &std::fs::read_to_string(&key).map_err(|e| fail(e.to_string()))?)
            .map_err(|e| fail(e.to_string()))?
    } else {
        SigstoreTrust::keyless(
            root,
            read_trimmed(&case.join("identity")).unwrap_or_else(|| DEFAULT_IDENTITY.to_owned()),
            read_trimmed(&case.join("issuer")).unwrap_or_else(|| DEFAULT_ISSUER.to_owned()),
        )
    };
    let artifact_path = if case.join("artifact").is_file() {
        case.join("artifact")
    } else {
        suite.join("bundle-verify/a.txt")
    };
    let artifact = std::fs::read(&artifact_path).map_err(|e| fail(e.to_string()))?;
    verify(&bundle, Signed::Artifact(&artifact), &trust, CertificateTime::Verified)
        .map(|_| path)
        .map_err(|e| fail(e.to_string()))
}

#[test]
fn every_bundle_verify_case_gives_its_expected_result() {
    let suite = suite_dir();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(suite.join("bundle-verify"))
        .expect("read bundle-verify/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("bundle.sigstore.json").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 70, "expected the full suite, found {} cases", cases.len());
    let mut wrong = Vec::new();
    let (mut keyless, mut managed) = (0, 0);
    println!("{:<58} {:<8} {:<8} {:<12} reason", "case", "expected", "got", "path");
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let expect_pass = !name.ends_with("_fail");
        let result = run_case(&suite, case);
        let (got_pass, path, reason) = match &result {
            Ok(path) => (true, *path, String::new()),
            Err((path, reason)) => (false, *path, reason.clone()),
        };
        if path == "keyless" {
            keyless += 1
        } else {
            managed += 1
        }
        let word = |p: bool| if p { "pass" } else { "fail" };
        println!(
            "{name:<58} {:<8} {:<8} {path:<12} {}",
            word(expect_pass),
            word(got_pass),
            reason.chars().take(160).collect::<String>()
        );
        if got_pass != expect_pass {
            wrong.push(format!("{name}: expected {}, got {} {reason}", word(expect_pass), word(got_pass)));
        }
    }
    // The summary goes to the real stderr, so it shows without `--nocapture`.
    let summary =
        format!("{} cases: {keyless} keyless, {managed} managed-key; {} wrong", cases.len(), wrong.len());
    let _ = writeln!(std::io::stderr(), "sigstore conformance: {summary}");
    assert!(wrong.is_empty(), "cases with the wrong result:\n{}", wrong.join("\n"));
}
