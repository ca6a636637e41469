//! Keyless signing against the real Sigstore services. Runs only where an OIDC token is in the
//! environment (SIGSTORE_ID_TOKEN, or GitHub Actions with `id-token: write`) and the services are
//! reachable; otherwise it prints why it is skipped and passes without claiming a signature.
#![cfg(feature = "sigstore")]

use speccoder_attest::model::digest::sha256_hex;
use speccoder_attest::sign::sigstore::{
    CertificateTime, Signed, SigstoreConfig, SigstoreSigner, SigstoreTrust, TOKEN_ENV, TrustedRoot, verify,
};

/// Says why the test is skipped, on the real stderr so that it shows without `--nocapture`
/// (libtest captures only the print macros).
fn skipped(reason: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {reason}");
}

/// Whether `host` takes a TCP connection on port 443.
fn reachable(host: &str) -> bool {
    use std::net::ToSocketAddrs as _;
    (host, 443).to_socket_addrs().is_ok_and(|mut addrs| {
        addrs.any(|a| std::net::TcpStream::connect_timeout(&a, std::time::Duration::from_secs(10)).is_ok())
    })
}

/// Whether a token can be had without asking a person: `SIGSTORE_ID_TOKEN`, or GitHub Actions'
/// token request variables.
fn ambient_token_available() -> bool {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    set(TOKEN_ENV) || (set("ACTIONS_ID_TOKEN_REQUEST_URL") && set("ACTIONS_ID_TOKEN_REQUEST_TOKEN"))
}

#[test]
fn keyless_signing_makes_a_dsse_bundle_that_verifies_offline() {
    if !ambient_token_available() {
        skipped(
            "keyless signing needs an OIDC token (SIGSTORE_ID_TOKEN, or GitHub Actions' ambient token); none is set here",
        );
        return;
    }
    let artifact_sha256 = sha256_hex(b"commit 0\0");
    let statement = format!(
        r#"{{"_type":"https://in-toto.io/Statement/v1","predicate":{{}},"predicateType":"https://speccoder.dev/test","subject":[{{"digest":{{"gitCommit":"0000000000000000000000000000000000000000","sha256":"{artifact_sha256}"}},"name":"test/T001"}}]}}"#
    );
    let statement = statement.as_bytes();
    let signer = SigstoreSigner::new(SigstoreConfig { interactive: false, ..SigstoreConfig::default() });
    let signed = match signer.sign_statement(statement) {
        Ok(s) => s,
        Err(e) if !reachable("fulcio.sigstore.dev") => {
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
    let trust = SigstoreTrust::keyless(root, identity.clone(), issuer);
    let verified = verify(
        &signed.bundle,
        Signed::Statement { payload: statement, artifact_sha256: &artifact_sha256 },
        &trust,
        CertificateTime::Verified,
    )
    .expect("the new bundle verifies");
    assert_eq!(verified.identity, identity);
}
