//! The OpenPGP backend against the real GnuPG 2.2 and sqv: every key is made by `gpg` in an
//! isolated keyring; sequoia signs only what gpg refuses to make (signatures by expired or
//! non-signing keys, v6 keys).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use sequoia_openpgp::Cert;
use sequoia_openpgp::armor::{self, Kind};
use sequoia_openpgp::cert::CertBuilder;
use sequoia_openpgp::parse::Parse;
use sequoia_openpgp::serialize::SerializeInto;
use sequoia_openpgp::serialize::stream::{Armorer, Message, Signer as StreamSigner};
use sequoia_openpgp::types::HashAlgorithm;
use time::OffsetDateTime;

use super::signature::parse_armored;
use super::sqv::{Sqv, SqvError};
use super::test_gnupg::GnuPg;
use super::*;
use crate::sign::{KeySetting, SignError, Signer, SignerKind};

const PAE: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 13 {\"a\":\"b\\u0000\"}";
const TAMPERED: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 13 {\"a\":\"c\\u0000\"}";

fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// Writes `material` as the trusted keyring `name` and reads it back.
fn trust(gpg: &GnuPg, name: &str, material: &[u8]) -> (PathBuf, OpenPgpCerts) {
    let path = gpg.write(name, material);
    let certs = OpenPgpCerts::read(&path).expect("trusted certificates read");
    (path, certs)
}

/// The outcome's name, to compare in-process and sqv verdicts.
fn outcome(result: &Result<OpenPgpVerified, OpenPgpVerifyError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(OpenPgpVerifyError::Malformed { .. }) => "malformed",
        Err(OpenPgpVerifyError::BadSignature { .. }) => "bad_signature",
        Err(OpenPgpVerifyError::UntrustedSigner { .. }) => "untrusted_signer",
        Err(OpenPgpVerifyError::Expired { .. }) => "expired",
        Err(OpenPgpVerifyError::Revoked { .. }) => "revoked",
        Err(OpenPgpVerifyError::NotYetValid { .. }) => "not_yet_valid",
        Err(OpenPgpVerifyError::NotSigningCapable { .. }) => "not_signing_capable",
    }
}

fn sqv_outcome(result: &Result<String, SqvError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(SqvError::Rejected(e)) => outcome(&Err(e.clone())),
        Err(e) => panic!("sqv could not check: {e}"),
    }
}

/// A signature by the (sub)key `key_fpr` of the secret key `tsk`, made by sequoia at `created`,
/// whatever the key's validity: for signatures gpg refuses to make.
fn sequoia_sign(tsk: &[u8], key_fpr: &str, created: SystemTime, data: &[u8]) -> Vec<u8> {
    let cert = Cert::from_bytes(tsk).expect("secret key parses");
    let key = cert
        .keys()
        .secret()
        .find(|k| k.key().fingerprint().to_hex() == key_fpr)
        .expect("the key is in the secret key file")
        .key()
        .clone();
    let keypair = key.into_keypair().expect("an unencrypted secret key");
    let mut out = Vec::new();
    let message = Message::new(&mut out);
    let message = Armorer::new(message).kind(Kind::Signature).build().expect("armorer");
    let mut signer = StreamSigner::new(message, keypair)
        .expect("signer")
        .detached()
        .hash_algo(HashAlgorithm::SHA512)
        .expect("sha512")
        .creation_time(created)
        .build()
        .expect("signer builds");
    signer.write_all(data).expect("sign data");
    signer.finalize().expect("finalize");
    out
}

/// The binary packets inside an armored block.
fn dearmor(armored: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(
        &mut armor::Reader::from_bytes(armored, armor::ReaderMode::Tolerant(None)),
        &mut out,
    )
    .expect("dearmor");
    out
}

/// `binary` in signature armor.
fn rearmor(binary: &[u8]) -> Vec<u8> {
    let mut writer = armor::Writer::new(Vec::new(), Kind::Signature).expect("armor writer");
    writer.write_all(binary).expect("armor");
    writer.finalize().expect("armor finalize")
}

fn secret_key_file(gpg: &GnuPg, who: &str, name: &str, armor: bool) -> PathBuf {
    gpg.write(name, &gpg.export_secret(who, armor))
}

#[test]
fn a_signature_made_in_process_is_an_armored_v4_sha512_signature_that_sqv_gpg_and_we_accept() {
    let gpg = GnuPg::new();
    let alice = gpg.gen_key("Alice <alice@example.com>", "sign", "0", None);
    let key_file = secret_key_file(&gpg, &alice, "alice.asc", true);
    let signer = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).expect("key loads");
    assert!(signer.signs_in_process());
    assert_eq!(signer.kind(), SignerKind::OpenPgp);
    assert_eq!(signer.keyid(), alice);
    let sig = signer.sign(PAE).expect("signs");

    let text = String::from_utf8(sig.clone()).expect("armor is text");
    assert!(text.starts_with("-----BEGIN PGP SIGNATURE-----\n"), "{text}");
    assert!(text.trim_end().ends_with("-----END PGP SIGNATURE-----"), "{text}");
    let parsed = parse_armored(&sig).expect("one detached signature");
    assert_eq!(parsed.sig.version(), 4);
    assert_eq!(parsed.sig.hash_algo(), HashAlgorithm::SHA512);

    let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&alice]));
    let verified = verify(&sig, PAE, &certs, now()).expect("verifies in-process");
    assert_eq!(verified.fingerprint, alice);
    assert_eq!(verified.signing_key_fingerprint, alice);
    assert_eq!(verified.user_ids, vec!["Alice <alice@example.com>".to_owned()]);
    assert_eq!(Sqv::default().verify(&sig, PAE, &trust_path, now()).expect("sqv accepts"), alice);
    let verifier = GnuPg::new();
    verifier.import(&gpg.export(&[&alice]));
    assert!(verifier.verifies(&sig, PAE), "gpg --verify accepts");
    assert!(!verifier.verifies(&sig, TAMPERED), "gpg --verify refuses tampered data");
}

#[test]
fn a_binary_key_file_with_a_signing_subkey_signs_with_the_newest_subkey_and_names_the_primary() {
    let gpg = GnuPg::new();
    let bob = gpg.gen_key("Bob <bob@example.com>", "cert", "0", None);
    let first = gpg.add_subkey(&bob, "sign");
    std::thread::sleep(Duration::from_millis(1100));
    let second = gpg.add_subkey(&bob, "sign");
    let key_file = secret_key_file(&gpg, &bob, "bob.gpg", false);
    let signer = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).expect("key loads");
    assert_eq!(signer.keyid(), bob);
    assert_eq!(
        signer.describe(),
        format!("openpgp EdDSA {bob} (key file {}, signing subkey {second})", key_file.display())
    );
    let sig = signer.sign(PAE).expect("signs");
    let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&bob]));
    let verified = verify(&sig, PAE, &certs, now()).expect("verifies");
    assert_eq!(verified.fingerprint, bob);
    assert_eq!(verified.signing_key_fingerprint, second);
    assert_ne!(first, second);
    assert_eq!(Sqv::default().verify(&sig, PAE, &trust_path, now()).expect("sqv accepts"), bob);
}

#[test]
fn signatures_made_by_gpg_detach_sign_verify_in_process() {
    let gpg = GnuPg::new();
    let carol = gpg.gen_key("Carol <carol@example.com>", "sign", "0", None);
    let subkey = gpg.add_subkey(&carol, "sign");
    let sig = gpg.sign(&carol, PAE, &[]);
    let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&carol]));
    let verified = verify(&sig, PAE, &certs, now()).expect("gpg's signature verifies");
    assert_eq!(verified.fingerprint, carol);
    assert_eq!(verified.signing_key_fingerprint, subkey);
    assert_eq!(verified.user_ids, vec!["Carol <carol@example.com>".to_owned()]);
    assert!((now() - verified.signed_at).whole_seconds().abs() < 300, "{}", verified.signed_at);
    assert!(matches!(verify(&sig, TAMPERED, &certs, now()), Err(OpenPgpVerifyError::BadSignature { .. })));
}

#[test]
fn the_gpg_keyring_path_signs_with_a_key_held_only_in_the_isolated_keyring() {
    let gpg = GnuPg::new();
    let dana = gpg.gen_key("Dana <dana@example.com>", "sign", "0", None);
    let signer = OpenPgpSigner::configured(Some("dana@example.com"), KeySetting::GitConfig, None)
        .expect("a user id names a keyring key")
        .with_gnupg_home(&gpg.home);
    assert!(!signer.signs_in_process());
    assert_eq!(signer.keyid(), dana);
    assert_eq!(
        signer.describe(),
        format!("openpgp {dana} (gpg keyring key `dana@example.com`, signed by gpg)")
    );
    let sig = signer.sign(PAE).expect("gpg signs");
    assert_eq!(parse_armored(&sig).expect("detached").sig.version(), 4);
    let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&dana]));
    assert_eq!(verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, dana);
    assert_eq!(Sqv::default().verify(&sig, PAE, &trust_path, now()).expect("sqv accepts"), dana);

    // A public certificate file names its key, whose secret half gpg holds.
    let cert_file = gpg.write("dana.pub.asc", &gpg.export(&[&dana]));
    let signer = OpenPgpSigner::configured(cert_file.to_str(), KeySetting::GitConfig, Some("gpg"))
        .expect("a certificate file names a keyring key")
        .with_gnupg_home(&gpg.home);
    assert!(!signer.signs_in_process());
    assert!(
        signer.describe().contains(&format!(
            "(certificate file {}, secret key in the gpg keyring, signed by gpg)",
            cert_file.display()
        )),
        "{}",
        signer.describe()
    );
    let sig = signer.sign(PAE).expect("gpg signs");
    assert_eq!(verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, dana);
}

#[test]
fn a_secret_key_file_whose_signing_key_is_a_gnupg_stub_signs_through_gpg() {
    let gpg = GnuPg::new();
    let nina = gpg.gen_key("Nina <nina@example.com>", "sign", "0", None);
    let auth = gpg.add_subkey(&nina, "auth");
    let stubbed = gpg.ok(&["--export-secret-subkeys", "--armor", &format!("{auth}!")], None);
    let key_file = gpg.write("nina-stub.asc", &stubbed);
    let signer = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None)
        .expect("the stub names a keyring key")
        .with_gnupg_home(&gpg.home);
    assert!(!signer.signs_in_process(), "{}", signer.describe());
    assert_eq!(signer.keyid(), nina);
    let sig = signer.sign(PAE).expect("gpg signs");
    let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&nina]));
    assert_eq!(verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, nina);
}

#[test]
fn git_config_reads_an_existing_file_in_process_and_anything_else_as_a_keyring_key() {
    let gpg = GnuPg::new();
    let erin = gpg.gen_key("Erin <erin@example.com>", "sign", "0", None);
    let key_file = secret_key_file(&gpg, &erin, "erin.asc", true);
    let signer =
        OpenPgpSigner::configured(key_file.to_str(), KeySetting::GitConfig, None).expect("file loads");
    assert!(signer.signs_in_process());
    let signer = OpenPgpSigner::configured(Some(&erin), KeySetting::GitConfig, None).expect("fingerprint");
    assert!(!signer.signs_in_process());
    let missing = gpg.path("no-such-key.asc");
    let signer =
        OpenPgpSigner::configured(missing.to_str(), KeySetting::GitConfig, None).expect("a key spec");
    assert!(!signer.signs_in_process());
}

#[test]
fn git_config_without_a_key_says_how_to_configure_one() {
    for configured in [None, Some(""), Some("  ")] {
        let err = OpenPgpSigner::configured(configured, KeySetting::GitConfig, None).unwrap_err().to_string();
        assert!(
            err.starts_with("no signing key configured: set one with `git config user.signingKey"),
            "{err}"
        );
    }
}

#[test]
fn a_missing_gpg_program_is_tool_missing_never_a_signature() {
    let signer = OpenPgpSigner::configured(
        Some("0123456789ABCDEF0123456789ABCDEF01234567"),
        KeySetting::GitConfig,
        Some("/nonexistent/gpg"),
    )
    .expect("a key spec");
    match signer.sign(PAE) {
        Err(SignError::ToolMissing { program }) => assert_eq!(program, "/nonexistent/gpg"),
        other => panic!("expected ToolMissing, got {other:?}"),
    }
    assert_eq!(signer.keyid(), "0123456789ABCDEF0123456789ABCDEF01234567");
}

#[test]
fn a_key_the_keyring_lacks_or_names_twice_is_an_error_that_says_which() {
    let gpg = GnuPg::new();
    let err = OpenPgpSigner::from_gpg_keyring("nobody@example.com")
        .with_gnupg_home(&gpg.home)
        .sign(PAE)
        .unwrap_err()
        .to_string();
    assert!(err.contains("has no usable secret key for user.signingKey `nobody@example.com`"), "{err}");
    let one = gpg.gen_key("Fay <fay@example.com>", "sign", "0", None);
    let two = gpg.gen_key("Gus <gus@example.com>", "sign", "0", None);
    let err = OpenPgpSigner::from_gpg_keyring("example.com")
        .with_gnupg_home(&gpg.home)
        .sign(PAE)
        .unwrap_err()
        .to_string();
    assert!(err.contains("matches 2 secret keys") && err.contains(&one) && err.contains(&two), "{err}");
    assert!(err.starts_with("user.signingKey `example.com`"), "{err}");
    // Named by --key, the same keys are advised about as --key.
    for (key, says) in [
        ("example.com", "--key `example.com` matches 2 secret keys"),
        ("example.com", "; give --key the fingerprint of the one to sign with"),
        ("nobody@example.com", "has no usable secret key for --key `nobody@example.com`"),
        ("nobody@example.com", "and give --key one fingerprint"),
    ] {
        let err = OpenPgpSigner::configured(Some(key), KeySetting::Flag, None)
            .expect("a key spec")
            .with_gnupg_home(&gpg.home)
            .sign(PAE)
            .unwrap_err()
            .to_string();
        assert!(err.contains(says) && !err.contains("user.signingKey"), "{err}");
    }
    let old = gpg.gen_key("Old <old@example.com>", "sign", "1d", Some("20200101T000000"));
    let err = OpenPgpSigner::from_gpg_keyring("old@example.com")
        .with_gnupg_home(&gpg.home)
        .sign(PAE)
        .unwrap_err()
        .to_string();
    assert!(err.contains(&format!("its key {old} is expired")), "{err}");
}

#[test]
fn a_passphrase_protected_key_file_signs_only_with_its_passphrase_and_says_how_otherwise() {
    let gpg = GnuPg::new();
    let out = gpg.run_with_passphrase(
        "hunter2",
        &["--quick-gen-key", "Hank <hank@example.com>", "ed25519", "sign", "0"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let hank = gpg.fingerprint("hank@example.com");
    let out = gpg.run_with_passphrase("hunter2", &["--export-secret-keys", "--armor", &hank]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let key_file = gpg.write("hank.asc", &out.stdout);

    let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{} is passphrase-protected", key_file.display()))
            && err.contains(&format!("gpg --import {}", key_file.display()))
            && err.contains("SPECCODER_PGP_PASSPHRASE"),
        "{err}"
    );
    let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, Some("wrong")).unwrap_err().to_string();
    assert!(
        err.starts_with("the passphrase in SPECCODER_PGP_PASSPHRASE does not unlock")
            && err.contains(&key_file.display().to_string()),
        "{err}"
    );
    let signer = OpenPgpSigner::from_key_file_with_passphrase(&key_file, Some("hunter2"))
        .expect("the passphrase unlocks the key");
    let sig = signer.sign(PAE).expect("signs");
    let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&hank]));
    assert_eq!(verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, hank);
}

#[test]
fn a_key_file_without_a_key_that_can_sign_now_is_refused_naming_the_file() {
    let gpg = GnuPg::new();
    let old = gpg.gen_key("Old <old@example.com>", "sign", "1d", Some("20200101T000000"));
    let key_file = secret_key_file(&gpg, &old, "old.asc", true);
    let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{} has no key that can sign now", key_file.display()))
            && err.contains("not alive"),
        "{err}"
    );

    let ivy = gpg.gen_key("Ivy <ivy@example.com>", "cert", "0", None);
    gpg.add_subkey(&ivy, "auth");
    let key_file = secret_key_file(&gpg, &ivy, "ivy.asc", true);
    let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
    assert!(err.contains("none of its keys is flagged for signing"), "{err}");

    let two = gpg.write("two.asc", &[gpg.export_secret(&old, true), gpg.export_secret(&ivy, true)].concat());
    let err = OpenPgpSigner::from_key_file_with_passphrase(&two, None).unwrap_err().to_string();
    assert!(err.contains("it holds 2 keys; export just the one"), "{err}");
}

#[test]
fn a_v6_key_file_is_refused_because_gpg_2_2_cannot_read_v6_signatures() {
    let (cert, _) = CertBuilder::general_purpose(Some("Vera <vera@example.com>"))
        .set_profile(sequoia_openpgp::Profile::RFC9580)
        .expect("v6 profile")
        .generate()
        .expect("v6 key");
    let dir = tempfile::tempdir().expect("temp dir");
    let key_file = dir.path().join("vera.asc");
    std::fs::write(&key_file, cert.as_tsk().armored().to_vec().expect("armor")).expect("write");
    let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{} holds a v6 key", key_file.display())), "{err}");
}

#[test]
fn files_that_are_not_openpgp_are_refused_with_the_file_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let junk = dir.path().join("junk.asc");
    std::fs::write(&junk, "hello, I am not a keyring\n").expect("write");
    let err = OpenPgpCerts::read(&junk).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{} is not an OpenPGP certificate or keyring", junk.display())),
        "{err}"
    );
    let err = OpenPgpSigner::from_key_file_with_passphrase(&junk, None).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{} is not a usable OpenPGP key", junk.display())), "{err}");

    let ssh_like = dir.path().join("id_ed25519.pub");
    std::fs::write(&ssh_like, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA x\n").expect("write");
    assert!(matches!(
        OpenPgpCerts::read(&ssh_like),
        Err(OpenPgpCertsError::NotOpenPgp { .. } | OpenPgpCertsError::Empty { .. })
    ));

    let empty = dir.path().join("empty.gpg");
    std::fs::write(&empty, b"").expect("write");
    let err = OpenPgpCerts::read(&empty).unwrap_err().to_string();
    assert!(err.contains(&empty.display().to_string()), "{err}");

    let absent = dir.path().join("absent.asc");
    let err = OpenPgpCerts::read(&absent).unwrap_err().to_string();
    assert!(err.starts_with(&format!("cannot read the OpenPGP certificates {}", absent.display())), "{err}");
    let err = OpenPgpSigner::from_key_file(&absent).unwrap_err().to_string();
    assert!(err.starts_with("cannot read the OpenPGP key"), "{err}");
}

#[test]
fn a_text_mode_signature_two_signatures_or_a_binary_signature_are_malformed() {
    let gpg = GnuPg::new();
    let jay = gpg.gen_key("Jay <jay@example.com>", "sign", "0", None);
    let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&jay]));
    let text = gpg.sign(&jay, PAE, &["--textmode"]);
    match verify(&text, PAE, &certs, now()) {
        Err(OpenPgpVerifyError::Malformed { reason }) => {
            assert!(reason.contains("text-mode signature"), "{reason}")
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
    let one = gpg.sign(&jay, PAE, &[]);
    let two = rearmor(&[dearmor(&one), dearmor(&one)].concat());
    match verify(&two, PAE, &certs, now()) {
        Err(OpenPgpVerifyError::Malformed { reason }) => {
            assert!(reason.contains("more than one signature"), "{reason}")
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
    match verify(&[one.clone(), one.clone()].concat(), PAE, &certs, now()) {
        Err(OpenPgpVerifyError::Malformed { reason }) => {
            assert!(reason.contains("something follows its -----END PGP SIGNATURE----- line"), "{reason}")
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
    let binary = dearmor(&one);
    assert!(matches!(verify(&binary, PAE, &certs, now()), Err(OpenPgpVerifyError::Malformed { .. })));
}

#[test]
fn garbage_signatures_never_panic_and_never_verify() {
    let gpg = GnuPg::new();
    let kim = gpg.gen_key("Kim <kim@example.com>", "sign", "0", None);
    let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&kim]));
    let sig = gpg.sign(&kim, PAE, &[]);
    let at = now();
    verify(&sig, PAE, &certs, at).expect("the original verifies");
    let mut checked = 0;
    for len in 0..sig.len() {
        if verify(&sig[..len], PAE, &certs, at).is_ok() {
            // Cutting only trailing whitespace after the armor's end keeps it valid.
            assert!(sig[len..].iter().all(u8::is_ascii_whitespace), "truncated to {len} verifies");
        }
        checked += 1;
    }
    let binary = dearmor(&sig);
    for i in 0..binary.len() {
        for bit in 0..8 {
            let mut flipped = binary.clone();
            flipped[i] ^= 1 << bit;
            let result = verify(&rearmor(&flipped), PAE, &certs, at);
            // Bits of the unhashed area (e.g. the issuer key id) may change without harm.
            if let Ok(v) = result {
                assert_eq!(v.fingerprint, kim, "byte {i} bit {bit}");
            }
            checked += 1;
        }
        let _ = verify(&rearmor(&binary[..i]), PAE, &certs, at);
    }
    for i in 0..sig.len() {
        let mut flipped = sig.clone();
        flipped[i] ^= 0x04;
        let _ = verify(&flipped, PAE, &certs, at);
        checked += 1;
    }
    assert!(checked > 1000, "{checked}");
    assert!(verify(&[0xff; 100_000], PAE, &certs, at).is_err());
}

#[test]
fn in_process_verification_and_sqv_agree_on_a_corpus_of_good_and_bad_signatures() {
    let gpg = GnuPg::new();
    let alice = gpg.gen_key("Alice <alice@example.com>", "sign", "0", None);
    let mallory = gpg.gen_key("Mallory <mallory@example.com>", "sign", "0", None);
    let old = gpg.gen_key("Old <old@example.com>", "sign", "1d", Some("20200101T000000"));
    let stale = gpg.gen_key("Stale <stale@example.com>", "sign", "0", Some("20200101T000000"));
    let rita = gpg.gen_key("Rita <rita@example.com>", "sign", "0", None);
    let carol = gpg.gen_key("Carol <carol@example.com>", "sign", "0", None);
    let carol_auth = gpg.add_subkey(&carol, "auth");

    let revoked_home = GnuPg::new();
    revoked_home.import(&gpg.export(&[&rita]));
    revoked_home.import(&gpg.revocation(&rita));
    let trusted = [
        gpg.export(&[&alice]),
        gpg.export(&[&old, &stale]),
        gpg.export(&[&carol]),
        revoked_home.export(&[&rita]),
    ]
    .concat();
    let (trust_path, certs) = trust(&gpg, "trusted.asc", &trusted);
    assert_eq!(certs.fingerprints().len(), 5, "every armored block is read");

    let ours =
        OpenPgpSigner::from_key_file_with_passphrase(&secret_key_file(&gpg, &alice, "alice.asc", true), None)
            .expect("key loads")
            .sign(PAE)
            .expect("signs");
    let in_2019 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_546_300_800);
    let corpus: Vec<(&str, Vec<u8>, &[u8], &str)> = vec![
        ("good, by gpg", gpg.sign(&alice, PAE, &[]), PAE, "ok"),
        ("good, by us", ours.clone(), PAE, "ok"),
        ("tampered data", ours, TAMPERED, "bad_signature"),
        ("a key not in the trusted set", gpg.sign(&mallory, PAE, &[]), PAE, "untrusted_signer"),
        (
            "made while valid by a key that has expired since",
            gpg.sign(&old, PAE, &["--faked-system-time", "20200101T060000"]),
            PAE,
            "ok",
        ),
        (
            "made after its key expired",
            sequoia_sign(&gpg.export_secret(&old, false), &old, SystemTime::now(), PAE),
            PAE,
            "expired",
        ),
        (
            "an expired signature",
            gpg.sign(&stale, PAE, &["--faked-system-time", "20200101T060000", "--default-sig-expire", "1d"]),
            PAE,
            "expired",
        ),
        ("a revoked key", gpg.sign(&rita, PAE, &[]), PAE, "revoked"),
        (
            "a subkey without the signing flag",
            sequoia_sign(&gpg.export_secret(&carol, false), &carol_auth, SystemTime::now(), PAE),
            PAE,
            "not_signing_capable",
        ),
        (
            "made in the future",
            gpg.sign(&alice, PAE, &["--faked-system-time", "20400101T000000"]),
            PAE,
            "not_yet_valid",
        ),
        (
            "dated before its key existed",
            sequoia_sign(&gpg.export_secret(&alice, false), &alice, in_2019, PAE),
            PAE,
            "not_yet_valid",
        ),
        (
            "armor around garbage",
            b"-----BEGIN PGP SIGNATURE-----\n\nbm9wZQ==\n-----END PGP SIGNATURE-----\n".to_vec(),
            PAE,
            "malformed",
        ),
    ];
    let verifier = GnuPg::new();
    verifier.import(&trusted);
    let at = now();
    for (name, sig, data, expected) in &corpus {
        let in_process = verify(sig, data, &certs, at);
        let by_sqv = Sqv::default().verify(sig, data, &trust_path, at);
        assert_eq!(outcome(&in_process), *expected, "{name}: {in_process:?}");
        assert_eq!(sqv_outcome(&by_sqv), *expected, "{name} (sqv): {by_sqv:?}");
        if let (Ok(ours), Ok(theirs)) = (&in_process, &by_sqv) {
            assert_eq!(&ours.fingerprint, theirs, "{name}");
        }
        if *expected == "ok" && name.starts_with("good") {
            assert!(verifier.verifies(sig, data), "{name}: gpg --verify accepts");
        }
    }
}

#[test]
fn a_missing_sqv_is_tool_missing_never_a_pass_and_a_bad_keyring_is_a_tool_error() {
    let gpg = GnuPg::new();
    let lee = gpg.gen_key("Lee <lee@example.com>", "sign", "0", None);
    let sig = gpg.sign(&lee, PAE, &[]);
    let (trust_path, _) = trust(&gpg, "trusted.asc", &gpg.export(&[&lee]));
    let missing = Sqv::at("/nonexistent/sqv");
    match missing.verify(&sig, PAE, &trust_path, now()) {
        Err(e @ SqvError::ToolMissing { .. }) => assert_eq!(
            e.to_string(),
            "`/nonexistent/sqv` was not found, so no OpenPGP signature was checked; install sqv (Debian/Ubuntu package `sqv`) or verify without --via-tools"
        ),
        other => panic!("expected ToolMissing, got {other:?}"),
    }
    let junk = gpg.write("junk", b"not a keyring");
    match Sqv::default().verify(&sig, PAE, &junk, now()) {
        Err(SqvError::Tool { reason, .. }) => {
            assert!(reason.contains(&junk.display().to_string()), "{reason}")
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
    assert_eq!(Sqv::default().verify(&sig, PAE, Path::new(&trust_path), now()).expect("sqv accepts"), lee);
}

#[test]
fn a_signature_with_a_subpacket_that_does_not_parse_is_refused_here_as_by_sqv_even_unhashed() {
    use sequoia_openpgp::Packet;
    use sequoia_openpgp::packet::signature::subpacket::{Subpacket, SubpacketTag, SubpacketValue};

    let gpg = GnuPg::new();
    let alice = gpg.gen_key("Alice <alice@example.com>", "sign", "0", None);
    let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&alice]));
    let good = gpg.sign(&alice, PAE, &[]);
    let Packet::Signature(mut sig) = Packet::from_bytes(&dearmor(&good)).expect("one packet") else {
        panic!("a signature packet");
    };
    // An issuer fingerprint of version 5 without its bytes, in the area no signature covers.
    let short = SubpacketValue::Unknown { tag: SubpacketTag::IssuerFingerprint, body: vec![5] };
    sig.unhashed_area_mut().add(Subpacket::new(short, false).expect("subpacket")).expect("added");
    let changed = rearmor(&Packet::from(sig).to_vec().expect("serialize"));

    assert_eq!(outcome(&verify(&good, PAE, &certs, now())), "ok");
    let in_process = verify(&changed, PAE, &certs, now());
    assert_eq!(outcome(&in_process), "malformed", "{in_process:?}");
    assert!(
        format!("{in_process:?}").contains("IssuerFingerprint subpacket does not parse"),
        "{in_process:?}"
    );
    let by_sqv = Sqv::default().verify(&changed, PAE, &trust_path, now());
    assert!(matches!(by_sqv, Err(SqvError::Rejected(_))), "sqv refuses it too: {by_sqv:?}");
}

/// The in-process and sqv verdicts on `sig` over [`PAE`] with `material` as the trusted keyring;
/// the test fails if they disagree.
fn agreed_outcome(gpg: &GnuPg, name: &str, material: &[u8], sig: &[u8]) -> &'static str {
    let (trust_path, certs) = trust(gpg, name, material);
    let at = now();
    let in_process = verify(sig, PAE, &certs, at);
    let by_sqv = Sqv::default().verify(sig, PAE, &trust_path, at);
    assert_eq!(outcome(&in_process), sqv_outcome(&by_sqv), "{name}: ours {in_process:?}, sqv {by_sqv:?}");
    outcome(&in_process)
}

#[test]
fn copies_of_one_certificate_in_the_keyring_are_merged_so_a_newer_copys_revocation_or_expiry_applies() {
    let gpg = GnuPg::new();

    // A certificate revoked after the older copy was exported.
    let rv = gpg.gen_key("Rv <rv@example.com>", "sign", "1y", None);
    let rv_sig = gpg.sign(&rv, PAE, &[]);
    let rv_old = gpg.export(&[&rv]);
    gpg.import(&gpg.revocation(&rv));
    let rv_new = gpg.export(&[&rv]);

    // A certificate whose newer self-signature set an expiry that has passed since.
    let ex = gpg.gen_key("Ex <ex@example.com>", "sign", "0", Some("20200101T000000"));
    let ex_sig = gpg.sign(&ex, PAE, &[]);
    let ex_old = gpg.export(&[&ex]);
    gpg.ok(&["--faked-system-time", "20200201T000000", "--quick-set-expire", &ex, "1d"], None);
    let ex_new = gpg.export(&[&ex]);

    // A certificate whose signing subkey was revoked after the older copy was exported.
    let sk = gpg.gen_key("Sk <sk@example.com>", "cert", "0", None);
    let sk_sub = gpg.add_subkey(&sk, "sign");
    let sk_sig = gpg.sign(&sk, PAE, &[]);
    assert_eq!(parse_armored(&sk_sig).expect("detached").sig.get_issuers()[0].to_hex(), sk_sub);
    let sk_old = gpg.export(&[&sk]);
    gpg.revoke_first_subkey(&sk);
    let sk_new = gpg.export(&[&sk]);

    let cases = [
        ("revoked certificate", &rv, &rv_sig, &rv_old, &rv_new, "revoked"),
        ("expired by a newer self-signature", &ex, &ex_sig, &ex_old, &ex_new, "expired"),
        ("revoked signing subkey", &sk, &sk_sig, &sk_old, &sk_new, "revoked"),
    ];
    for (name, fpr, sig, old, new, expected) in cases {
        assert_eq!(agreed_outcome(&gpg, "old.asc", old, sig), "ok", "{name}: the older copy alone");
        assert_eq!(agreed_outcome(&gpg, "new.asc", new, sig), expected, "{name}: the newer copy alone");
        for (order, ring) in
            [("older first", [&old[..], new].concat()), ("newer first", [&new[..], old].concat())]
        {
            assert_eq!(agreed_outcome(&gpg, "ring.asc", &ring, sig), expected, "{name}, {order}");
            let (_, certs) = trust(&gpg, "ring.asc", &ring);
            assert_eq!(certs.fingerprints(), vec![fpr.clone()], "{name}, {order}: one certificate");
        }
        // Binary copies, as `gpg --export` without --armor writes them, merge the same way.
        let binary = [dearmor(old), dearmor(new)].concat();
        assert_eq!(agreed_outcome(&gpg, "ring.gpg", &binary, sig), expected, "{name}, binary");
    }
}

#[test]
fn different_certificates_in_one_keyring_are_each_trusted_and_a_repeated_one_is_listed_once() {
    let gpg = GnuPg::new();
    let alice = gpg.gen_key("Alice <alice@example.com>", "sign", "0", None);
    let bob = gpg.gen_key("Bob <bob@example.com>", "sign", "0", None);
    let ring = [gpg.export(&[&alice]), gpg.export(&[&bob]), gpg.export(&[&alice])].concat();
    let (_, certs) = trust(&gpg, "ring.asc", &ring);
    assert_eq!(certs.fingerprints(), vec![alice.clone(), bob.clone()]);
    for who in [&alice, &bob] {
        let sig = gpg.sign(who, PAE, &[]);
        assert_eq!(agreed_outcome(&gpg, "ring.asc", &ring, &sig), "ok", "{who}");
        assert_eq!(&verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, who);
    }
}

/// `count` distinct user ID packets without a binding signature, binary, as anyone can append
/// them to a certificate a keyserver serves.
fn user_id_flood(count: usize) -> Vec<u8> {
    use sequoia_openpgp::Packet;
    use sequoia_openpgp::packet::UserID;
    (0..count)
        .flat_map(|n| Packet::from(UserID::from(format!("flood {n}"))).to_vec().expect("serializes"))
        .collect()
}

/// `count` copies of `sig`, binary, as a certificate flooded with certifications carries them.
fn signature_flood(sig: &sequoia_openpgp::packet::Signature, count: usize) -> Vec<u8> {
    let one = sequoia_openpgp::Packet::from(sig.clone()).to_vec().expect("serializes");
    one.repeat(count)
}

/// A real certificate (several user IDs, a signing subkey, certifications by two other keys) and
/// a keyring of several read as before. A certificate flooded to one packet past
/// [`MAX_PACKETS`], or to more than [`MAX_COMPONENTS`] user IDs and subkeys, is refused, as a
/// trust file and as a key file, naming the file, the limit and the minimal export; one at each
/// limit still reads and checks signatures.
#[test]
fn a_certificate_past_the_packet_or_component_limit_is_refused_naming_the_file_and_real_ones_still_read() {
    let gpg = GnuPg::new();
    let ann = gpg.gen_key("Ann <ann@example.com>", "cert", "0", None);
    gpg.ok(&["--quick-add-uid", &ann, "Ann Work <ann@work.example>"], None);
    gpg.ok(&["--quick-add-uid", &ann, "Ann Home <ann@home.example>"], None);
    gpg.add_subkey(&ann, "sign");
    for who in ["Cy <cy@example.com>", "Di <di@example.com>"] {
        let certifier = gpg.gen_key(who, "sign", "0", None);
        gpg.ok(&["--default-key", &certifier, "--quick-sign-key", &ann], None);
    }
    let ann_cert = gpg.export(&[&ann]);
    let ring = [ann_cert.clone(), gpg.export(&["cy@example.com", "di@example.com"])].concat();
    let (_, certs) = trust(&gpg, "ring.asc", &ring);
    assert_eq!(certs.fingerprints().len(), 3);
    let sig = gpg.sign(&ann, PAE, &[]);
    assert_eq!(agreed_outcome(&gpg, "ann.asc", &ann_cert, &sig), "ok");

    // Ann's binary export: her key, three user IDs, a subkey and their signatures.
    let own = dearmor(&ann_cert);
    let own_packets = sequoia_openpgp::PacketPile::from_bytes(&own).expect("parses").children().count();
    let parsed = Cert::from_bytes(&own).expect("parses");
    let certification = parsed.userids().flat_map(|u| u.certifications()).next().expect("certified").clone();
    let own_components = parsed.userids().count() + parsed.keys().subkeys().count();
    assert_eq!(own_components, 4);

    let at_limit = [own.clone(), signature_flood(&certification, MAX_PACKETS - own_packets)].concat();
    let (_, certs) = trust(&gpg, "at-limit.gpg", &at_limit);
    assert_eq!(&verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, &ann);
    let flooded = [own.clone(), signature_flood(&certification, MAX_PACKETS - own_packets + 1)].concat();
    let path = gpg.write("flooded.gpg", &flooded);
    let err = OpenPgpCerts::read(&path).unwrap_err();
    assert!(matches!(err, OpenPgpCertsError::TooManyPackets { limit: MAX_PACKETS, .. }), "{err}");
    let err = err.to_string();
    assert!(
        err.starts_with(&format!("{} holds more than {MAX_PACKETS} OpenPGP packets", path.display())),
        "{err}"
    );
    assert!(err.contains("gpg --export-options export-minimal --export"), "{err}");

    let at_limit = [own.clone(), user_id_flood(MAX_COMPONENTS - own_components)].concat();
    let (_, certs) = trust(&gpg, "at-limit.gpg", &at_limit);
    assert_eq!(&verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, &ann);
    let flooded = [own, user_id_flood(MAX_COMPONENTS - own_components + 1)].concat();
    let path = gpg.write("flooded.gpg", &flooded);
    let err = OpenPgpCerts::read(&path).unwrap_err();
    assert!(
        matches!(err, OpenPgpCertsError::TooManyComponents { count, limit: MAX_COMPONENTS, .. } if count == MAX_COMPONENTS + 1),
        "{err}"
    );
    let err = err.to_string();
    assert!(err.starts_with(&format!("{}: the certificate {ann} has 101 user IDs", path.display())), "{err}");
    assert!(err.contains(&format!("gpg --export-options export-minimal --export --armor {ann}")), "{err}");

    let secret = dearmor(&gpg.export_secret(&ann, true));
    for (flood, says) in [
        (signature_flood(&certification, MAX_PACKETS), format!("more than {MAX_PACKETS} OpenPGP packets")),
        (user_id_flood(MAX_COMPONENTS), format!("more than the {MAX_COMPONENTS} any real key has")),
    ] {
        let key_file = gpg.write("flooded.sec.gpg", &[secret.clone(), flood].concat());
        let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{} is not a usable OpenPGP key", key_file.display())), "{err}");
        assert!(err.contains(&says) && err.contains("--export-options export-minimal"), "{err}");
    }
}
