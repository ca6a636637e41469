//! Keyless signing against the real Sigstore services. Runs only where an OIDC token is in the
//! environment (SIGSTORE_ID_TOKEN, or GitHub Actions with `id-token: write`) and the services are
//! reachable; otherwise it prints why it is skipped and passes without claiming a signature.
#![cfg(feature = "sigstore")]

use speccoder_attest::model::dsse::PAYLOAD_TYPE;
use speccoder_attest::sign::sigstore::{
    SigstoreConfig, SigstoreSigner, SigstoreTrust, TrustedRoot, ambient_token_available, verify,
};

/// Says why the test is skipped, on the real stderr so that it shows without `--nocapture`
/// (libtest captures only the print macros).
fn skipped(reason: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {reason}");
}

#[test]
fn keyless_signing_makes_a_dsse_bundle_that_verifies_offline() {
    if !ambient_token_available() {
        skipped(
            "keyless signing needs an OIDC token (SIGSTORE_ID_TOKEN, or GitHub Actions' ambient token); none is set here",
        );
        return;
    }
    let statement = br#"{"_type":"https://in-toto.io/Statement/v1","predicate":{},"predicateType":"https://speccoder.dev/test","subject":[{"digest":{"gitCommit":"0000000000000000000000000000000000000000"},"name":"test/T001"}]}"#;
    let signer = SigstoreSigner::new(SigstoreConfig { interactive: false, ..SigstoreConfig::default() });
    let signed = match signer.sign_bundle(PAYLOAD_TYPE, statement) {
        Ok(s) => s,
        Err(e) if e.is_unavailable() => {
            skipped(&format!("the Sigstore services cannot be reached from here: {e}"));
            return;
        }
        Err(e) => panic!("keyless signing failed: {e}"),
    };
    assert!(!signed.sig.is_empty());
    assert_eq!(signed.bundle["mediaType"], "application/vnd.dev.sigstore.bundle.v0.3+json");
    // Verification needs the signer's identity; CI names it (e.g. its workflow URI).
    let (Ok(identity), Ok(issuer)) =
        (std::env::var("SPECCODER_SIGSTORE_IDENTITY"), std::env::var("SPECCODER_SIGSTORE_ISSUER"))
    else {
        skipped(
            "(verification part) set SPECCODER_SIGSTORE_IDENTITY and SPECCODER_SIGSTORE_ISSUER to verify the new bundle",
        );
        return;
    };
    let root_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/sigstore-conformance/production-trusted_root.json");
    let root = TrustedRoot::from_file(&root_path).expect("production trusted root");
    let verified = verify(&signed.bundle, statement, &SigstoreTrust::keyless(root, identity.clone(), issuer))
        .expect("the new bundle verifies");
    assert_eq!(verified.identity, identity);
}
