//! Tests of the in-process SSHSIG verifier, on signatures made by our signer and by `ssh-keygen`.

use super::*;
use crate::sign::Signer as _;
use crate::sign::ssh::signer::SshSigner;
use crate::sign::ssh::sshsig::{ARMOR_BEGIN, ARMOR_END, NAMESPACE};
use crate::sign::ssh::test_support::{certify, keygen, public_line, tool_sign};
use base64::Engine as _;
use std::path::{Path, PathBuf};
use time::macros::datetime;

const MESSAGE: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 2 {}";
const AT: OffsetDateTime = datetime!(2030-06-01 12:00 UTC);

fn trust(dir: &Path, text: &str) -> AllowedSigners {
    AllowedSigners::parse(text.as_bytes(), &dir.join("allowed_signers")).expect("allowed signers parse")
}

fn run(sig: &[u8], allowed: &AllowedSigners) -> Result<SshVerified, SshVerifyError> {
    verify(sig, MESSAGE, NAMESPACE, allowed, &RevokedKeys::default(), AT)
}

/// A certificate for kim@example.com, valid 2020 to 2099, with `extra` options.
fn certify_kim(ca: &Path, key: &Path, extra: &[&str]) -> PathBuf {
    let mut options = vec!["-V", "20200101:20991231"];
    options.extend(extra);
    certify(ca, key, "cert-id", "kim@example.com", &options)
}

fn armor(blob: &[u8]) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(blob);
    let lines: Vec<&str> =
        b64.as_bytes().chunks(70).map(|c| std::str::from_utf8(c).expect("ascii")).collect();
    format!("{ARMOR_BEGIN}\n{}\n{ARMOR_END}\n", lines.join("\n")).into_bytes()
}

fn blob(armored: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(armored).expect("ascii");
    let b64: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD.decode(b64).expect("base64")
}

#[test]
fn garbage_signature_input_never_panics_and_never_verifies() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let (key, ca, kim) =
        (keygen(d, "alice", "ed25519"), keygen(d, "ca", "ed25519"), keygen(d, "kim", "ed25519"));
    let allowed = trust(
        d,
        &format!(
            "alice@example.com {}\n*@example.com cert-authority {}\n",
            public_line(&key),
            public_line(&ca)
        ),
    );
    let plain = SshSigner::from_key_path(&key).expect("loads").sign(MESSAGE).expect("signs");
    let cert = tool_sign(d, &certify_kim(&ca, &kim, &[]), NAMESPACE, MESSAGE);
    for good in [&plain, &cert] {
        assert!(run(good, &allowed).is_ok(), "the unmodified signature verifies");
        for len in 0..good.len() {
            let _ = run(&good[..len], &allowed);
        }
        let raw = blob(good);
        for len in 0..raw.len() {
            assert!(run(&armor(&raw[..len]), &allowed).is_err(), "truncated to {len}");
        }
        // One flipped bit per byte (low or high, alternating); debug-build crypto is slow.
        for i in 0..raw.len() {
            let flip = if i % 2 == 0 { 0x01 } else { 0x80 };
            let mut mutated = raw.clone();
            mutated[i] ^= flip;
            assert!(run(&armor(&mutated), &allowed).is_err(), "byte {i} ^ {flip:#x} still verifies");
        }
        let mut longer = raw.clone();
        longer.push(0);
        assert!(matches!(run(&armor(&longer), &allowed), Err(SshVerifyError::Malformed { .. })));
    }
    for junk in [
        &b""[..],
        b"\xff\xfe",
        b"-----BEGIN SSH SIGNATURE-----",
        b"-----BEGIN SSH SIGNATURE-----\n\n-----END SSH SIGNATURE-----",
    ] {
        assert!(matches!(run(junk, &allowed), Err(SshVerifyError::Malformed { .. })), "{junk:?}");
    }
}

#[test]
fn an_untrusted_signer_is_told_which_line_refused_the_key_and_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = keygen(dir.path(), "erin", "ed25519");
    let line = public_line(&key);
    let sig = SshSigner::from_key_path(&key).expect("loads").sign(MESSAGE).expect("signs");
    let allowed = trust(dir.path(), &format!("# x\nerin@example.com namespaces=\"git,file\" {line}\n"));
    let err = run(&sig, &allowed).unwrap_err().to_string();
    let file = dir.path().join("allowed_signers");
    assert!(
        err.ends_with(&format!(
            "{}:2: the key is allowed only for namespaces \"git,file\", not \"in-toto\"",
            file.display()
        )),
        "{err}"
    );
    let err = run(&sig, &trust(dir.path(), "")).unwrap_err().to_string();
    assert!(err.contains("no line of") && err.contains("add `<principal> <the .pub line>`"), "{err}");
}

#[test]
fn principals_of_every_line_listing_the_key_are_returned_in_file_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = keygen(dir.path(), "multi", "ed25519");
    let line = public_line(&key);
    let sig = SshSigner::from_key_path(&key).expect("loads").sign(MESSAGE).expect("signs");
    let allowed = trust(
        dir.path(),
        &format!(
            "b@x,a@x,!c@x {line}\nz@x namespaces=\"file\" {line}\na@x,d@x valid-after=\"20200101Z\" {line}\n"
        ),
    );
    let v = run(&sig, &allowed).expect("trusted");
    assert_eq!(v.principals, ["b@x", "a@x", "d@x"]);
    assert_eq!(v.key_type, "ssh-ed25519");
    assert_eq!(v.certificate, None);
}

#[test]
fn certificates_that_are_host_certificates_or_carry_critical_options_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let ca = keygen(d, "ca", "ed25519");
    let allowed = trust(d, &format!("*@example.com cert-authority {}\n", public_line(&ca)));
    let host = keygen(d, "host", "ed25519");
    let sig = tool_sign(d, &certify_kim(&ca, &host, &["-h"]), NAMESPACE, MESSAGE);
    let err = run(&sig, &allowed).unwrap_err().to_string();
    assert!(err.contains("is a host certificate"), "{err}");
    let forced = keygen(d, "forced", "ed25519");
    let sig =
        tool_sign(d, &certify_kim(&ca, &forced, &["-O", "force-command=/bin/true"]), NAMESPACE, MESSAGE);
    let err = run(&sig, &allowed).unwrap_err().to_string();
    assert!(err.contains("critical option \"force-command\""), "{err}");
}

#[test]
fn a_certificate_signature_reports_the_certificate_and_its_ca() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let (ca, kim) = (keygen(d, "ca", "ed25519"), keygen(d, "kim", "ed25519"));
    let sig = tool_sign(d, &certify_kim(&ca, &kim, &["-z", "42"]), NAMESPACE, MESSAGE);
    let allowed = trust(d, &format!("*@example.com cert-authority {}\n", public_line(&ca)));
    let v = run(&sig, &allowed).expect("trusted");
    let kim_key = ssh_key::PublicKey::read_openssh_file(&kim.with_extension("pub")).expect("pub");
    let ca_key = ssh_key::PublicKey::read_openssh_file(&ca.with_extension("pub")).expect("pub");
    assert_eq!(v.principals, ["kim@example.com"]);
    assert_eq!(v.fingerprint, fingerprint(kim_key.key_data()));
    assert_eq!(
        v.certificate,
        Some(CertificateInfo {
            key_id: "cert-id".into(),
            serial: 42,
            ca_fingerprint: fingerprint(ca_key.key_data())
        })
    );
    let plain_line = trust(d, &format!("kim@example.com {}\n", public_line(&kim)));
    assert!(
        matches!(run(&sig, &plain_line), Err(SshVerifyError::UntrustedSigner { .. })),
        "a certificate does not match its plain key's line"
    );
}

#[test]
fn a_certificate_valid_forever_verifies_and_its_ca_signature_still_binds_every_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let (ca, kim) = (keygen(d, "ca", "ed25519"), keygen(d, "kim", "ed25519"));
    // Without -V, ssh-keygen writes valid_before 0xffffffffffffffff: "forever".
    let sig = tool_sign(d, &certify(&ca, &kim, "cert-id", "kim@example.com", &[]), NAMESPACE, MESSAGE);
    let allowed = trust(d, &format!("*@example.com cert-authority {}\n", public_line(&ca)));
    let v = run(&sig, &allowed).expect("a certificate valid forever verifies");
    assert_eq!(v.principals, ["kim@example.com"]);
    let late = datetime!(9999-12-31 23:59 UTC);
    assert!(verify(&sig, MESSAGE, NAMESPACE, &allowed, &RevokedKeys::default(), late).is_ok());

    // Another principal written into the certificate: the signature by kim's key still holds,
    // the CA's signature over the certificate does not.
    let mut forged = blob(&sig);
    let at = forged.windows(15).position(|w| w == b"kim@example.com").expect("the principal");
    forged[at + 2] = b'x';
    let err = run(&armor(&forged), &allowed).unwrap_err();
    assert!(err.to_string().contains("does not carry a valid signature of its CA"), "{err}");
}
