//! Unit tests of the Sigstore backend on real data: the conformance suite's bundles and roots
//! from `../shared/sigstore-conformance`, real keys, real sockets.

use std::path::PathBuf;

use super::crypto::PublicKey;
use super::*;
use crate::model::dsse::{PAYLOAD_TYPE, pae};

fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/sigstore-conformance")
}

fn production_root() -> TrustedRoot {
    let path = conformance_dir().join("production-trusted_root.json");
    TrustedRoot::from_file(&path).unwrap_or_else(|e| panic!("the shared production root must load: {e}"))
}

const BEACON: &str = "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main";
const ACTIONS_ISSUER: &str = "https://token.actions.githubusercontent.com";

fn dsse_case() -> (serde_json::Value, Vec<u8>) {
    let path = conformance_dir().join("bundle-verify/happy-path-intoto-in-dsse-v3/bundle.sigstore.json");
    let bundle: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let payload = bundle::b64(bundle.get("dsseEnvelope").and_then(|d| d.get("payload")), "payload").unwrap();
    (bundle, payload)
}

#[test]
fn a_dsse_bundle_verifies_as_the_statement_it_carries() {
    let (bundle, payload) = dsse_case();
    let trust = SigstoreTrust::keyless(production_root(), BEACON, ACTIONS_ISSUER);
    let verified = verify(&bundle, &payload, &trust).unwrap();
    assert_eq!(verified.identity, BEACON);
    assert_eq!(verified.issuer, ACTIONS_ISSUER);
    assert_eq!(verified.integrated_time.unix_timestamp(), 1_734_374_576);
}

#[test]
fn a_dsse_bundle_over_another_statement_is_a_bad_signature() {
    let (bundle, mut payload) = dsse_case();
    payload.push(b' ');
    let trust = SigstoreTrust::keyless(production_root(), BEACON, ACTIONS_ISSUER);
    assert!(matches!(verify(&bundle, &payload, &trust), Err(SigstoreVerifyError::BadSignature { .. })));
}

#[test]
fn another_identity_or_issuer_is_an_untrusted_signer() {
    let (bundle, payload) = dsse_case();
    for (identity, issuer) in
        [("https://example.com/someone-else", ACTIONS_ISSUER), (BEACON, "https://accounts.google.com")]
    {
        let trust = SigstoreTrust::keyless(production_root(), identity, issuer);
        let err = verify(&bundle, &payload, &trust).unwrap_err();
        assert!(matches!(err, SigstoreVerifyError::UntrustedSigner { .. }), "{err}");
        assert_eq!(err.code(), "untrusted_signer");
    }
}

#[test]
fn hostile_bundles_are_errors_never_panics() {
    let (bundle, payload) = dsse_case();
    let trust = SigstoreTrust::keyless(production_root(), BEACON, ACTIONS_ISSUER);
    let mut cases = vec![serde_json::json!(null), serde_json::json!([]), serde_json::json!({"mediaType": 7})];
    for field in ["verificationMaterial", "dsseEnvelope", "mediaType"] {
        let mut b = bundle.clone();
        b.as_object_mut().unwrap().remove(field);
        cases.push(b);
    }
    let mut b = bundle.clone();
    b["verificationMaterial"]["certificate"]["rawBytes"] = serde_json::json!("AAAA");
    cases.push(b);
    let mut b = bundle.clone();
    b["verificationMaterial"]["tlogEntries"][0]["inclusionProof"]["hashes"] = serde_json::json!(["AA==", 5]);
    cases.push(b);
    let mut b = bundle;
    b["verificationMaterial"]["tlogEntries"][0]["inclusionProof"]["checkpoint"]["envelope"] =
        serde_json::json!("\u{2014}\n\n\n");
    cases.push(b);
    for case in cases {
        assert!(verify(&case, &payload, &trust).is_err());
    }
}

#[test]
fn a_trusted_root_that_does_not_parse_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("my-root.json");
    std::fs::write(&path, b"{\"mediaType\": \"application/vnd.dev.sigstore.trustedroot+json;version=0.1\", \"tlogs\": [{\"publicKey\": {}}]}").unwrap();
    let err = TrustedRoot::from_file(&path).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, TrustedRootError::Malformed { .. }));
    assert!(text.contains("my-root.json") && text.contains("tlogs[0]"), "{text}");
    std::fs::write(&path, b"not json").unwrap();
    assert!(TrustedRoot::from_file(&path).unwrap_err().to_string().contains("my-root.json"));
    let missing = dir.path().join("absent.json");
    let text = TrustedRoot::from_file(&missing).unwrap_err().to_string();
    assert!(text.contains("absent.json") && text.contains("--sigstore-trusted-root"), "{text}");
}

#[test]
fn the_default_cache_path_is_under_the_xdg_cache_directory() {
    let path = default_cache_path();
    assert!(path.ends_with("speccoder/sigstore/trusted_root.json"), "{}", path.display());
}

#[test]
fn a_pae_splits_back_into_its_type_and_body() {
    let body = b"{\"a\": 1} with spaces";
    let bytes = pae(PAYLOAD_TYPE, body);
    assert_eq!(signer::split_pae(&bytes), Some((PAYLOAD_TYPE, &body[..])));
    for bad in [&b"DSSEv1 3 abc 01 x"[..], b"DSSEv1 3 abc 2 x", b"DSSEv2 1 a 1 b", b"DSSEv1 99 a 1 b"] {
        assert_eq!(signer::split_pae(bad), None, "{}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn the_certificate_request_is_self_signed_by_the_ephemeral_key() {
    let key = sigstore::crypto::SigningScheme::ECDSA_P256_SHA256_ASN1.create_signer().unwrap();
    let spki = key.to_sigstore_keypair().unwrap().public_key_to_der().unwrap();
    let csr = services::certificate_request(&spki, |m| key.sign(m).map_err(|e| e.to_string())).unwrap();
    let mut r = der::parse(&csr).unwrap().reader();
    let info = r.expect(der::SEQUENCE).unwrap();
    let alg = r.expect(der::SEQUENCE).unwrap();
    let sig = r.expect(der::BIT_STRING).unwrap().bit_string().unwrap();
    let public = PublicKey::from_spki(&spki).unwrap();
    assert!(public.verify_with_algorithm(alg.value, info.raw, sig));
    assert!(!public.verify_with_algorithm(alg.value, &info.raw[1..], sig));
}

#[test]
fn an_unreachable_fulcio_is_a_connect_failure_that_counts_as_unavailable() {
    let client =
        reqwest::blocking::Client::builder().timeout(std::time::Duration::from_secs(5)).build().unwrap();
    let err = services::fulcio_certificate(&client, "http://127.0.0.1:1", "token", b"csr").unwrap_err();
    assert!(err.is_unavailable(), "{err}");
    assert!(err.to_string().contains("Fulcio"), "{err}");
}

#[test]
fn a_rekor_answer_becomes_the_bundles_log_entry() {
    // The log entry of a real public-good DSSE bundle, written back the way Rekor's API gives it.
    let (bundle, _) = dsse_case();
    let e = &bundle["verificationMaterial"]["tlogEntries"][0];
    let b64 = |s: &serde_json::Value| bundle::b64(Some(s), "x").unwrap();
    let proof = &e["inclusionProof"];
    let api = serde_json::json!({
        "body": e["canonicalizedBody"],
        "integratedTime": 1_734_374_576,
        "logID": hex::encode(b64(&e["logId"]["keyId"])),
        "logIndex": 155_690_850,
        "verification": {
            "signedEntryTimestamp": e["inclusionPromise"]["signedEntryTimestamp"],
            "inclusionProof": {
                "checkpoint": proof["checkpoint"]["envelope"],
                "hashes": proof["hashes"].as_array().unwrap().iter().map(|h| hex::encode(b64(h))).collect::<Vec<_>>(),
                "logIndex": 33_786_588,
                "rootHash": hex::encode(b64(&proof["rootHash"])),
                "treeSize": 33_786_589,
            },
        },
    });
    assert_eq!(&services::tlog_entry_for_bundle(&api).unwrap(), e);
}

#[test]
fn keyless_signing_without_a_token_says_how_to_get_one() {
    if ambient_token_available() {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: an OIDC token is in the environment; this test checks the no-token path"
        );
        return;
    }
    let signer = SigstoreSigner::new(SigstoreConfig { interactive: false, ..SigstoreConfig::default() });
    let err = signer.sign_bundle(PAYLOAD_TYPE, b"{}").unwrap_err();
    assert!(err.is_unavailable());
    assert!(err.to_string().contains("SIGSTORE_ID_TOKEN"), "{err}");
}

#[test]
fn truncated_certificates_and_timestamps_are_errors_never_panics() {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    let case = conformance_dir().join("bundle-verify/rekor2-happy-path");
    let bundle: serde_json::Value =
        serde_json::from_slice(&std::fs::read(case.join("bundle.sigstore.json")).unwrap()).unwrap();
    let root = TrustedRoot::from_file(&case.join("trusted_root.json")).unwrap();
    let trust = SigstoreTrust::keyless(root, BEACON, ACTIONS_ISSUER);
    let artifact = std::fs::read(conformance_dir().join("bundle-verify/a.txt")).unwrap();
    assert!(
        verify_bundle(&bundle, Signed::Artifact(&artifact), &trust).is_ok(),
        "the untouched case verifies"
    );
    let cert_at = ["verificationMaterial", "certificate", "rawBytes"];
    let ts = &bundle["verificationMaterial"]["timestampVerificationData"]["rfc3161Timestamps"][0]["signedTimestamp"];
    for (field, original) in [("cert", &bundle[cert_at[0]][cert_at[1]][cert_at[2]]), ("timestamp", ts)] {
        let der_bytes = bundle::b64(Some(original), field).unwrap();
        for cut in (0..der_bytes.len()).step_by(11) {
            let mut b = bundle.clone();
            let cut_b64 = serde_json::json!(STANDARD.encode(&der_bytes[..cut]));
            if field == "cert" {
                b[cert_at[0]][cert_at[1]][cert_at[2]] = cut_b64;
            } else {
                b["verificationMaterial"]["timestampVerificationData"]["rfc3161Timestamps"][0]["signedTimestamp"] =
                    cut_b64;
            }
            assert!(verify_bundle(&b, Signed::Artifact(&artifact), &trust).is_err(), "{field} cut at {cut}");
        }
    }
}
