//! Keyless lines against a Sigstore instance made in the test (`common/sigstore_instance.rs`: a CA,
//! a CT log and a transparency log, and their trusted root): the certificate checks an audit
//! found missing from our former verifier each fail a bundle that is otherwise sound, and a
//! keyless summary line in a note on a real repository verifies end to end through
//! `speccoder attest verify`.
#![cfg(feature = "sigstore")]

use crate::common;
use crate::common::sigstore_instance as instance;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use instance::{CertSpec, ECDSA_SHA384, Instance, Key};
use serde_json::{Value, json};
use speccoder_attest::sign::sigstore::{
    CertificateTime, Signed, SigstoreTrust, SigstoreVerifyError, TrustedRoot, verify,
};
use x509_cert::ext::pkix::KeyUsages;

const EMAIL: &str = "ada@example.com";
const ISSUER: &str = "https://issuer.test";

fn statement(commit_sha256: &str) -> Vec<u8> {
    format!(
        r#"{{"_type":"https://in-toto.io/Statement/v1","predicate":{{}},"predicateType":"https://speccoder.dev/test","subject":[{{"digest":{{"gitCommit":"{}","sha256":"{commit_sha256}"}},"name":"u/T001"}}]}}"#,
        "0".repeat(40)
    )
    .into_bytes()
}

fn trust(instance: &Instance) -> SigstoreTrust {
    let root = TrustedRoot::from_json(instance.trusted_root().to_string().as_bytes(), "test root").unwrap();
    SigstoreTrust::keyless(root, EMAIL, ISSUER)
}

/// Verifies a bundle over our statement for `commit_sha256`, bound to `bound_to`.
fn check(
    instance: &Instance,
    bundle: &Value,
    commit_sha256: &str,
    bound_to: &str,
    time: CertificateTime,
) -> Result<(), SigstoreVerifyError> {
    let payload = statement(commit_sha256);
    let signed = Signed::Statement { payload: &payload, artifact_sha256: bound_to };
    verify(bundle, signed, &trust(instance), time).map(|_| ())
}

/// A v0.3 bundle whose signing certificate is `spec`, issued by the root.
fn leaf_bundle(instance: &Instance, spec: &CertSpec, digest: &str) -> Value {
    let key = Key::new();
    let cert = instance.leaf(spec, &key, &instance.root);
    instance.bundle(&statement(digest), &key, &[&cert], true).0
}

fn digest() -> String {
    "ab".repeat(32)
}

/// Why a bundle whose signing certificate is `spec`, and otherwise sound, fails.
fn leaf_failure(spec: &CertSpec) -> SigstoreVerifyError {
    let i = Instance::new();
    let d = digest();
    check(&i, &leaf_bundle(&i, spec, &d), &d, &d, CertificateTime::Verified).unwrap_err()
}

/// `speccoder attest verify --json HEAD` trusting `identity` under the instance's root.
fn verify_head(p: &common::Project, i: &Instance, identity: &str) -> common::Run {
    let root = p.scratch.join("trusted_root.json");
    std::fs::write(&root, i.trusted_root().to_string()).unwrap();
    p.speccoder(&[
        "attest",
        "verify",
        "--json",
        "--sigstore-trusted-root",
        root.to_str().unwrap(),
        "--certificate-identity",
        identity,
        "--certificate-oidc-issuer",
        ISSUER,
        "HEAD",
    ])
}

#[test]
fn a_sound_test_bundle_verifies_so_each_failure_below_is_the_defect_alone() {
    let i = Instance::new();
    let d = digest();
    check(&i, &leaf_bundle(&i, &CertSpec::leaf(EMAIL, ISSUER), &d), &d, &d, CertificateTime::Verified)
        .expect("a sound bundle");
    // The same through an intermediate carried in a v0.2 chain.
    let sub = i.sub_ca(&i.root, "CN=speccoder test intermediate", Some(0));
    let key = Key::new();
    let cert = i.leaf(&CertSpec::leaf(EMAIL, ISSUER), &key, &sub);
    let (bundle, _) = i.bundle(&statement(&d), &key, &[&cert, &sub.der], false);
    check(&i, &bundle, &d, &d, CertificateTime::Verified).expect("a sound chain");
}

#[test]
fn an_unknown_critical_extension_fails_the_bundle() {
    let err = leaf_failure(&CertSpec { unknown_critical: true, ..CertSpec::leaf(EMAIL, ISSUER) });
    assert!(matches!(err, SigstoreVerifyError::Malformed { .. }), "{err}");
    assert!(err.to_string().contains("UnsupportedCriticalExtension"), "{err}");
}

#[test]
fn an_inner_signature_algorithm_unlike_the_outer_one_fails_the_bundle() {
    // The outer algorithm and the signature are a valid ECDSA-SHA256 signature over the TBS; only
    // the TBS's own algorithm field says SHA-384.
    let err = leaf_failure(&CertSpec { inner_algorithm: ECDSA_SHA384, ..CertSpec::leaf(EMAIL, ISSUER) });
    assert!(err.to_string().contains("SignatureAlgorithmMismatch"), "{err}");
}

#[test]
fn a_signing_certificate_whose_key_usage_lacks_digital_signature_fails_the_bundle() {
    for usage in [None, Some(KeyUsages::KeyEncipherment)] {
        let err = leaf_failure(&CertSpec { key_usage: usage, ..CertSpec::leaf(EMAIL, ISSUER) });
        assert!(matches!(err, SigstoreVerifyError::UntrustedSigner { .. }), "{usage:?}: {err}");
        assert!(err.to_string().contains("keyUsage"), "{err}");
    }
}

#[test]
fn a_certificate_whose_two_oidc_issuer_extensions_disagree_fails_whichever_issuer_is_expected() {
    // v2 says the expected issuer, v1 (which sigstore-python reads) another.
    let i = Instance::new();
    let d = digest();
    let spec = CertSpec {
        oidc_issuer_v1: Some("https://evil.test\u{1b}[0m".into()),
        ..CertSpec::leaf(EMAIL, ISSUER)
    };
    let bundle = leaf_bundle(&i, &spec, &d);
    for issuer in [ISSUER, "https://evil.test\u{1b}[0m"] {
        let trust = SigstoreTrust::keyless(trust(&i).trusted_root, EMAIL, issuer);
        let payload = statement(&d);
        let signed = Signed::Statement { payload: &payload, artifact_sha256: &d };
        match verify(&bundle, signed, &trust, CertificateTime::Verified) {
            Err(SigstoreVerifyError::Malformed(why)) => {
                assert!(why.contains("two OIDC issuers"), "{issuer}: {why}");
                assert!(why.contains("\"https://evil.test\\u{1b}[0m\""), "v1, escaped: {why}");
                assert!(why.contains(&format!("\"{ISSUER}\"")), "v2: {why}");
            }
            other => panic!("expecting {issuer}: expected a malformed bundle, got {other:?}"),
        }
    }
}

#[test]
fn a_ca_below_its_path_length_or_without_cert_signing_key_usage_fails_the_bundle() {
    let i = Instance::new();
    let d = digest();
    // root -> sub1 (pathLen 0) -> sub2 -> leaf: sub2 is a CA below a CA allowed none.
    let sub1 = i.sub_ca(&i.root, "CN=speccoder test sub1", Some(0));
    let sub2 = i.sub_ca(&sub1, "CN=speccoder test sub2", None);
    let key = Key::new();
    let cert = i.leaf(&CertSpec::leaf(EMAIL, ISSUER), &key, &sub2);
    let (bundle, _) = i.bundle(&statement(&d), &key, &[&cert, &sub2.der, &sub1.der], false);
    let err = check(&i, &bundle, &d, &d, CertificateTime::Verified).unwrap_err();
    assert!(err.to_string().contains("PathLenConstraintViolated"), "{err}");

    // The same chain where sub1 allows a CA below it verifies.
    let sub1 = i.sub_ca(&i.root, "CN=speccoder test sub1", None);
    let sub2 = i.sub_ca(&sub1, "CN=speccoder test sub2", None);
    let cert = i.leaf(&CertSpec::leaf(EMAIL, ISSUER), &key, &sub2);
    let (bundle, _) = i.bundle(&statement(&d), &key, &[&cert, &sub2.der, &sub1.der], false);
    check(&i, &bundle, &d, &d, CertificateTime::Verified).expect("pathLen not exceeded");

    // A CA in the chain whose keyUsage does not allow signing certificates.
    let spec = CertSpec {
        key_usage: Some(KeyUsages::DigitalSignature),
        ..CertSpec::ca("CN=speccoder test sub", None)
    };
    let sub = i.sub_ca_with(&i.root, &spec);
    let cert = i.leaf(&CertSpec::leaf(EMAIL, ISSUER), &key, &sub);
    let (bundle, _) = i.bundle(&statement(&d), &key, &[&cert, &sub.der], false);
    let err = check(&i, &bundle, &d, &d, CertificateTime::Verified).unwrap_err();
    assert!(err.to_string().contains("keyCertSign"), "{err}");
}

#[test]
fn a_bundle_bound_to_another_commit_or_checked_past_its_certificate_fails() {
    let i = Instance::new();
    let d = digest();
    let bundle = leaf_bundle(&i, &CertSpec::leaf(EMAIL, ISSUER), &d);
    let err = check(&i, &bundle, &d, &"cd".repeat(32), CertificateTime::Verified).unwrap_err();
    assert!(matches!(err, SigstoreVerifyError::BadSignature { .. }), "{err}");
    let later = time::OffsetDateTime::now_utc() + time::Duration::hours(1);
    let err = check(&i, &bundle, &d, &d, CertificateTime::AlsoAt(later)).unwrap_err();
    assert!(matches!(err, SigstoreVerifyError::Expired { .. }), "{err}");
    check(&i, &bundle, &d, &d, CertificateTime::AlsoAt(time::OffsetDateTime::now_utc())).expect("now");
}

/// A Spec Kit project whose T005 tick's summary line (the note's last) is signed keylessly for
/// [`EMAIL`] by a new instance: the project, the instance and the note's lines as signed.
fn keyless_tick() -> (common::Project, Instance, Vec<Value>) {
    let p = common::Project::speckit();
    let task = format!("{}/T005", common::SPECKIT_UNIT);
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &task, common::Evidence::Verified);
    p.attest(&task, &evidence, &["--signer", "none"]).success();
    let commit = p.rev("HEAD");
    let raw = p.git_bytes(&["cat-file", "commit", "HEAD"]);
    let mut object = format!("commit {}\0", raw.len()).into_bytes();
    object.extend(&raw);
    let commit_sha256 = common::sha256(&object);

    // Sign the summary (the last line) keylessly with the test instance.
    let i = Instance::new();
    let note = p.note("HEAD").unwrap();
    let mut lines: Vec<Value> = note
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let summary = lines.last_mut().unwrap();
    let payload = STANDARD.decode(summary["payload"].as_str().unwrap()).unwrap();
    let statement: Value = serde_json::from_slice(&payload).unwrap();
    assert_eq!(statement["subject"][0]["digest"]["sha256"], commit_sha256.as_str(), "the producer's digest");
    assert_eq!(statement["subject"][0]["digest"]["gitCommit"], commit.as_str());
    let key = Key::new();
    let cert = i.leaf(&CertSpec::leaf(EMAIL, ISSUER), &key, &i.root);
    let (bundle, sig) = i.bundle(&payload, &key, &[&cert], true);
    summary["signatures"] = json!([{"keyid": "sigstore", "sig": STANDARD.encode(&sig)}]);
    summary["sigstore"] = bundle;
    let text: Vec<String> = lines.iter().map(|l| serde_json::to_string(l).unwrap()).collect();
    let file = p.scratch.join("note");
    std::fs::write(&file, text.join("\n") + "\n").unwrap();
    let blob = p.git(&["hash-object", "-w", file.to_str().unwrap()]);
    p.git(&["notes", "--ref", common::NOTES_REF, "add", "-f", "-C", blob.trim(), &commit]);
    (p, i, lines)
}

#[test]
fn a_keyless_summary_line_in_a_real_note_verifies_end_to_end() {
    let (p, i, lines) = keyless_tick();
    let verify = |identity: &str| verify_head(&p, &i, identity);
    let ok = verify(EMAIL).success();
    let report: Value = serde_json::from_str(&ok.stdout).unwrap();
    let tick = &report["ticks"][0];
    assert_eq!(tick["commit_outcome"], "ok", "{report}");
    assert_eq!(
        tick["signers"],
        json!([{"kind": "sigstore", "key": ISSUER, "principals": [EMAIL]}]),
        "{report}"
    );
    assert_eq!(tick["covered_lines"].as_array().map(Vec::len), Some(lines.len() - 1), "{report}");

    let other = verify("eve@example.com").failure(26);
    assert!(other.stdout.contains("untrusted_signer"), "{other}");
}

/// A keyless summary line whose bundle names a member twice, at any depth, the sound value last
/// (which serde_json, and so the Sigstore reader, would keep): `attest verify` finds it
/// `malformed` (`malformed_sigstore_bundle`) naming where, and `attest approve` writes nothing.
#[test]
fn a_keyless_line_whose_bundle_names_a_member_twice_is_malformed_and_never_approved() {
    let (p, i, lines) = keyless_tick();
    verify_head(&p, &i, EMAIL).success();
    let bob = common::ed25519(&p.scratch, "bob");
    let allowed = common::allowed_signers(&p.scratch.join("allowed"), &[("bob@example.com", &bob)]);
    let text: Vec<String> = lines.iter().map(|l| serde_json::to_string(l).unwrap()).collect();
    let summary = text.last().unwrap();
    let media = r#""mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json""#;
    for (found, twice, at) in [
        (media, format!(r#""mediaType":"junk",{media}"#), "`.`"),
        (
            r#""kindVersion":{"#,
            r#""kindVersion":{"kind":"hashedrekord","version":"0.0.1"},"kindVersion":{"#.to_owned(),
            "`verificationMaterial.tlogEntries[0]`",
        ),
        (
            r#""dsseEnvelope":{"#,
            r#""dsseEnvelope":{"payloadType":"text/plain","#.to_owned(),
            "`dsseEnvelope`",
        ),
    ] {
        assert_eq!(summary.matches(found).count(), 1, "{found}");
        let mut note = text.clone();
        *note.last_mut().unwrap() = summary.replace(found, &twice);
        let written: Vec<Vec<u8>> = note.iter().map(|l| l.clone().into_bytes()).collect();
        p.write_note("HEAD", &written);
        let out = verify_head(&p, &i, EMAIL).failure(26);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        let tick = &report["ticks"][0];
        assert_eq!(tick["commit_outcome"], "malformed", "{twice}: {report}");
        let finding = tick["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "malformed_sigstore_bundle")
            .unwrap_or_else(|| panic!("{twice}: {report}"));
        let said = finding["message"].as_str().unwrap();
        assert!(
            said.contains(&format!("the Sigstore bundle (the envelope's `sigstore` field) at {at}")),
            "{said}"
        );
        assert!(said.contains("is named twice"), "{said}");

        let approve = p.speccoder(&[
            "attest",
            "approve",
            "HEAD",
            "--allowed-signers",
            allowed.to_str().unwrap(),
            "--key",
            bob.private.to_str().unwrap(),
        ]);
        assert_ne!(approve.code(), Some(0), "{approve}");
        assert!(approve.stderr.contains("is named twice"), "{approve}");
        assert_eq!(p.note_raw_lines("HEAD"), written, "nothing written");
    }
}

/// The public-good root's cache (under the project's `HOME`) holding the instance's root, so that
/// a keyless line verifies against it only while it stands in for the public-good root: it does
/// while it is this user's alone, never once others may write it.
#[cfg(unix)]
#[test]
fn a_cached_root_that_others_may_write_never_stands_in_for_the_public_good_root() {
    use std::os::unix::fs::PermissionsExt as _;
    let (p, i, _) = keyless_tick();
    let cache = p.home.join(".cache/speccoder/sigstore/trusted_root.json");
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    std::fs::write(&cache, i.trusted_root().to_string()).unwrap();
    let mode = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    for dir in [p.home.join(".cache/speccoder"), p.home.join(".cache/speccoder/sigstore")] {
        mode(&dir, 0o755);
    }
    mode(&cache, 0o644);
    let args =
        ["attest", "verify", "HEAD", "--certificate-identity", EMAIL, "--certificate-oidc-issuer", ISSUER];
    let own = p.speccoder(&args).success();
    assert!(own.stdout.contains("1 evidenced"), "this user's own cache is used\n{own}");

    mode(&cache, 0o666);
    let shared = p.speccoder(&args);
    if shared.code() == Some(13) {
        let why = format!(
            "the file cached at {} was not used: it may be written by its group and other users (mode 666); remove it",
            cache.display()
        );
        assert!(shared.stderr.contains(&why), "{shared}");
    } else {
        // Online: the public-good root is fetched in its place, and does not know the instance.
        assert_ne!(shared.code(), Some(0), "{shared}");
        let now = std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777;
        assert_eq!(now, 0o600, "the refreshed cache is this user's alone\n{shared}");
    }
}

const TOKEN: &str = "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2lzc3Vlci50ZXN0Iiwic3ViIjoiYWRhIiwiZW1haWwiOiJhZGFAZXhhbXBsZS5jb20iLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl";

/// `speccoder attest T005 --signer sigstore` against the services at `url`, checking what they
/// return against the instance's root; `extra` adds flags (`--json`).
fn attest_keyless(p: &common::Project, i: &Instance, url: &str, extra: &[&str]) -> common::Run {
    attest_keyless_with(p, i, url, extra, TOKEN)
}

/// [`attest_keyless`] with the identity token `token`.
fn attest_keyless_with(
    p: &common::Project,
    i: &Instance,
    url: &str,
    extra: &[&str],
    token: &str,
) -> common::Run {
    let task = format!("{}/T005", common::SPECKIT_UNIT);
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &task, common::Evidence::Verified);
    let args = [&["attest", task.as_str(), "--evidence", evidence.to_str().unwrap()][..], extra].concat();
    keyless_run(p, i, url, &args, token)
}

/// `speccoder <args> --signer sigstore` against the services at `url` with the identity token
/// `token`, checking what they return against the instance's root.
fn keyless_run(p: &common::Project, i: &Instance, url: &str, args: &[&str], token: &str) -> common::Run {
    let root = p.scratch.join("signing_root.json");
    std::fs::write(&root, i.trusted_root().to_string()).unwrap();
    let args = [
        args,
        &["--signer", "sigstore", "--sigstore-fulcio-url", url, "--sigstore-rekor-url", url],
        &["--sigstore-allow-http-loopback", "--sigstore-signing-root", root.to_str().unwrap()],
    ]
    .concat();
    let mut cmd = common::speccoder_command(&p.root, &p.home, &args);
    cmd.env("SIGSTORE_ID_TOKEN", token);
    common::run(cmd)
}

#[test]
fn keyless_signing_through_sigstore_sign_writes_a_summary_that_verifies_end_to_end() {
    // Fulcio and Rekor of the test instance, over plain http on loopback.
    let i = std::sync::Arc::new(Instance::new());
    let (url, requests) = instance::serve_fulcio_and_rekor(&i, EMAIL, ISSUER);
    let p = common::Project::speckit();
    let out = attest_keyless(&p, &i, &url, &["--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let signer = report["signer"].as_str().unwrap_or("");
    assert!(signer.starts_with("sigstore keyless as ada@example.com (issuer https://issuer.test;"), "{out}");
    let seen = requests.lock().unwrap().clone();
    assert!(seen.iter().any(|r| r.contains(TOKEN)), "Fulcio received the token: {seen:?}");

    // Only the summary is signed, its bundle carries exactly its payload, and it verifies.
    let note = p.note("HEAD").unwrap();
    let lines: Vec<Value> = note
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let (summary, others) = lines.split_last().unwrap();
    assert!(others.iter().all(|l| l["signatures"] == json!([]) && l.get("sigstore").is_none()));
    assert_eq!(summary["sigstore"]["dsseEnvelope"]["payload"], summary["payload"]);
    assert_eq!(summary["signatures"][0]["keyid"], "sigstore");
    let verified = verify_head(&p, &i, EMAIL).success();
    let report: Value = serde_json::from_str(&verified.stdout).unwrap();
    assert_eq!(report["ticks"][0]["signers"][0]["kind"], "sigstore", "{report}");
}

#[test]
fn keyless_signing_refuses_each_wrong_answer_of_fulcio_or_rekor_and_writes_nothing() {
    use instance::Wrong;
    let cases = [
        (Wrong::OtherKey, "certificate for another key"),
        (Wrong::OtherIdentity, "another identity"),
        (Wrong::OtherCa, "does not chain to a CA"),
        (Wrong::OtherBody, "Rekor"),
        (Wrong::BrokenSet, "Rekor"),
        (Wrong::OtherRoot, "Rekor"),
    ];
    for (wrong, said) in cases {
        let i = std::sync::Arc::new(Instance::new());
        let (url, _requests) = instance::serve_answering(&i, EMAIL, ISSUER, wrong);
        let p = common::Project::speckit();
        let head = p.rev("HEAD");
        let run = attest_keyless(&p, &i, &url, &[]).failure(13);
        assert!(
            run.stderr.contains("returned a bundle that does not verify as ada@example.com"),
            "{wrong:?}: {run}"
        );
        assert!(run.stderr.contains(said), "{wrong:?} names what was wrong ({said}): {run}");
        assert!(run.stderr.contains("Nothing was written"), "{wrong:?}: {run}");
        assert_eq!(p.rev("HEAD"), head, "{wrong:?}: no commit");
        assert!(p.note("HEAD").is_none(), "{wrong:?}: no note");
    }
}

#[test]
fn attest_sign_with_a_keyless_signer_signs_the_summary_alone_and_never_takes_a_bundle_that_does_not_verify_for_yours()
 {
    let i = std::sync::Arc::new(Instance::new());
    let (url, requests) = instance::serve_fulcio_and_rekor(&i, EMAIL, ISSUER);
    let certificates =
        || requests.lock().unwrap().iter().filter(|r| r.contains("/api/v2/signingCert")).count();
    let p = common::Project::speckit();
    let task = format!("{}/T005", common::SPECKIT_UNIT);
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &task, common::Evidence::Verified);
    p.attest(&task, &evidence, &["--signer", "none"]).success();
    let unsigned = p.note_raw_lines("HEAD");
    let sign =
        |extra: &[&str]| keyless_run(&p, &i, &url, &[&["attest", "sign", "HEAD"][..], extra].concat(), TOKEN);

    // A summary carrying a bundle that does not verify: refused, nothing asked of Fulcio.
    let mut junk = unsigned.clone();
    let mut summary: Value = serde_json::from_slice(junk.last().unwrap()).unwrap();
    summary["sigstore"] = json!({"mediaType": "junk"});
    *junk.last_mut().unwrap() = serde_json::to_vec(&summary).unwrap();
    p.write_note("HEAD", &junk);
    let refused = sign(&[]).failure(14);
    assert!(refused.stderr.contains("carries a Sigstore bundle that does not verify"), "{refused}");
    assert!(refused.stderr.contains("malformed_sigstore_bundle"), "{refused}");
    assert_eq!(p.note_raw_lines("HEAD"), junk, "the note is left as it was");
    assert_eq!(certificates(), 0, "nothing was signed");

    // An unsigned note: the summary alone is signed, with one certificate, and verifies.
    p.write_note("HEAD", &unsigned);
    let out = sign(&["--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["signed_now"], json!([unsigned.len()]), "{out}");
    assert_eq!(certificates(), 1, "one login, one certificate");
    let signed = p.note_raw_lines("HEAD");
    let (last, others) = signed.split_last().unwrap();
    assert_eq!(others, &unsigned[..unsigned.len() - 1], "the other lines are left as they are");
    let last: Value = serde_json::from_slice(last).unwrap();
    assert_eq!(last["sigstore"]["dsseEnvelope"]["payload"], last["payload"]);
    let verified: Value = serde_json::from_str(&verify_head(&p, &i, EMAIL).success().stdout).unwrap();
    assert_eq!(verified["ticks"][0]["commit_outcome"], "ok", "{verified}");

    // Run again: the summary's bundle verifies, and is left as it is.
    let again = sign(&[]).success();
    assert!(again.stdout.contains("carries a keyless (Sigstore) signature already"), "{again}");
    assert!(again.stdout.contains("as ada@example.com (issuer https://issuer.test)"), "{again}");
    assert!(!again.stdout.contains("other signature"), "the bundle's copy is no other signer's: {again}");
    assert_eq!(p.note_raw_lines("HEAD"), signed);
    assert_eq!(certificates(), 1);
}

/// A token of an issuer whose certificate identity cannot be told beforehand (no email claim,
/// not GitHub Actions: GitLab CI, Buildkite, ...).
const TOKEN_WITHOUT_EMAIL: &str = "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2lzc3Vlci50ZXN0Iiwic3ViIjoiYWRhIiwiZXhwIjo0MTAyNDQ0ODAwfQ.c2lnbmF0dXJl";

#[test]
fn a_token_whose_certificate_identity_cannot_be_told_signs_as_the_certificate_says_and_is_still_checked() {
    use instance::Wrong;
    for (wrong, ok) in [(Wrong::Nothing, true), (Wrong::OtherCa, false), (Wrong::OtherBody, false)] {
        let i = std::sync::Arc::new(Instance::new());
        let (url, _requests) = instance::serve_answering(&i, EMAIL, ISSUER, wrong);
        let p = common::Project::speckit();
        let run = attest_keyless_with(&p, &i, &url, &[], TOKEN_WITHOUT_EMAIL);
        if ok {
            let out = run.success();
            assert!(
                out.stdout.contains("sigstore keyless as ada@example.com (issuer https://issuer.test;"),
                "{out}"
            );
        } else {
            let run = run.failure(13);
            assert!(run.stderr.contains("Nothing was written"), "{wrong:?}: {run}");
            assert!(p.note("HEAD").is_none(), "{wrong:?}: no note");
        }
    }
}

#[test]
fn keyless_signing_names_the_identity_it_signed_as_and_refuses_a_root_it_cannot_read() {
    let i = std::sync::Arc::new(Instance::new());
    let (url, _requests) = instance::serve_fulcio_and_rekor(&i, EMAIL, ISSUER);
    let p = common::Project::speckit();
    let out = attest_keyless(&p, &i, &url, &[]).success();
    assert!(out.stdout.contains("sigstore keyless as ada@example.com (issuer https://issuer.test;"), "{out}");

    let p = common::Project::speckit();
    let task = format!("{}/T005", common::SPECKIT_UNIT);
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &task, common::Evidence::Verified);
    let missing = p.scratch.join("no_root.json");
    let args = [
        &["attest", task.as_str(), "--evidence", evidence.to_str().unwrap(), "--signer", "sigstore"][..],
        &["--sigstore-fulcio-url", &url, "--sigstore-rekor-url", &url, "--sigstore-allow-http-loopback"],
        &["--sigstore-signing-root", missing.to_str().unwrap()],
    ]
    .concat();
    let mut cmd = common::speccoder_command(&p.root, &p.home, &args);
    cmd.env("SIGSTORE_ID_TOKEN", TOKEN);
    let run = common::run(cmd).failure(13);
    assert!(run.stderr.contains("no_root.json"), "{run}");
    assert!(p.note("HEAD").is_none());
}

#[test]
fn a_bundle_the_format_forbids_is_malformed_though_its_signature_is_sound() {
    let i = Instance::new();
    let d = digest();
    let sound = leaf_bundle(&i, &CertSpec::leaf(EMAIL, ISSUER), &d);
    let mut v01 = sound.clone();
    v01["mediaType"] = json!("application/vnd.dev.sigstore.bundle+json;version=0.1");
    let mut v02 = sound.clone();
    v02["mediaType"] = json!("application/vnd.dev.sigstore.bundle+json;version=0.2");
    let mut both = sound.clone();
    both["messageSignature"] = json!({"messageDigest": {"algorithm": "SHA2_256", "digest": STANDARD.encode([0u8; 32])}, "signature": "AA=="});
    let mut two = sound.clone();
    let entry = two["verificationMaterial"]["tlogEntries"][0].clone();
    two["verificationMaterial"]["tlogEntries"] = json!([entry.clone(), entry]);
    // A v0.1 bundle (its chain) verifies with its inclusion proof, and not on its promise alone.
    let key = Key::new();
    let cert = i.leaf(&CertSpec::leaf(EMAIL, ISSUER), &key, &i.root);
    let (mut chain, _) = i.bundle(&statement(&d), &key, &[&cert], false);
    chain["mediaType"] = json!("application/vnd.dev.sigstore.bundle+json;version=0.1");
    check(&i, &chain, &d, &d, CertificateTime::Verified).expect("a v0.1 bundle with its inclusion proof");
    let mut promise_only = chain.clone();
    promise_only["verificationMaterial"]["tlogEntries"][0].as_object_mut().unwrap().remove("inclusionProof");
    for (name, bundle, said) in [
        ("v0.1 with certificate", v01, "carries `certificate`"),
        ("v0.2 with certificate", v02, "carries `certificate`"),
        ("both contents", both, "both"),
        ("two log entries", two, "2 entries"),
        ("v0.1 with an inclusion promise alone", promise_only, "no `inclusionProof`"),
    ] {
        match check(&i, &bundle, &d, &d, CertificateTime::Verified) {
            Err(SigstoreVerifyError::Malformed(why)) => assert!(why.contains(said), "{name}: {why}"),
            other => panic!("{name}: expected a malformed bundle, got {other:?}"),
        }
    }
}
