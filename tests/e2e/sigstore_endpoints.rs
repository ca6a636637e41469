//! Where keyless signing sends the identity token: never where the checked-in `speccoder.toml`
//! says, only where the person signing says (flag, environment, git config), and only over
//! https, or plain http to loopback with an explicit flag.
#![cfg(feature = "sigstore")]

use crate::common;
use crate::common::sigstore_instance as instance;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Evidence, Project, SPECKIT_UNIT};

/// A JWT-shaped identity token (header, claims, signature), as CI would put in the environment.
const TOKEN: &str = "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2lzc3Vlci50ZXN0Iiwic3ViIjoiYWRhIiwiZW1haWwiOiJhZGFAZXhhbXBsZS5jb20iLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl";

/// A listener on 127.0.0.1 that records every request and answers 500.
fn listener() -> (String, Arc<Mutex<Vec<String>>>) {
    instance::serve(Duration::from_secs(60), |_, _| (500, serde_json::json!({})))
}

fn attest(p: &Project, evidence: &std::path::Path, extra: &[&str]) -> common::Run {
    let task = format!("{SPECKIT_UNIT}/T005");
    let mut args =
        vec!["attest", task.as_str(), "--evidence", evidence.to_str().unwrap(), "--signer", "sigstore"];
    args.extend(extra);
    let mut cmd = common::speccoder_command(&p.root, &p.home, &args);
    cmd.env("SIGSTORE_ID_TOKEN", TOKEN);
    common::run(cmd)
}

fn commit_config(p: &Project, toml: &str) {
    p.write("speccoder.toml", toml);
    p.git(&["add", "speccoder.toml"]);
    p.git(&["commit", "-q", "-m", "speccoder.toml"]);
}

#[test]
fn a_checked_in_speccoder_toml_never_chooses_where_the_token_goes() {
    let (attacker_url, attacker) = listener();
    let p = Project::speckit();
    let evidence = common::write_evidence(
        &p.scratch_dir("evidence"),
        &format!("{SPECKIT_UNIT}/T005"),
        Evidence::Verified,
    );
    let url = &attacker_url;
    commit_config(
        &p,
        &format!(
            "[attest]\nsigner = \"sigstore\"\n\n[attest.sigstore]\nidentity = \"ada@example.com\"\nissuer = \"https://issuer.test\"\nfulcio_url = \"{url}\"\nrekor_url = \"{url}\"\noidc_issuer = \"{url}\"\n"
        ),
    );
    let before = p.rev("HEAD");
    let refused = attest(&p, &evidence, &["--sigstore-allow-http-loopback"]).failure(13);
    assert!(refused.stderr.contains("git config --global speccoder.sigstore.fulcioUrl"), "{refused}");
    assert_eq!(p.rev("HEAD"), before, "nothing is committed when refused");

    // Without the old keys, and with the user's git config naming a second listener: the token
    // goes there, and still never to the file's.
    let (chosen_url, chosen) = listener();
    commit_config(
        &p,
        "[attest]\nsigner = \"sigstore\"\n\n[attest.sigstore]\nidentity = \"ada@example.com\"\nissuer = \"https://issuer.test\"\n",
    );
    p.git(&["config", "speccoder.sigstore.fulcioUrl", &chosen_url]);
    p.git(&["config", "speccoder.sigstore.rekorUrl", &chosen_url]);
    // The root the new bundle would be checked against, from the user's git config too.
    let root = p.scratch.join("signing_root.json");
    std::fs::write(&root, instance::Instance::new().trusted_root().to_string()).unwrap();
    p.git(&["config", "speccoder.sigstore.signingRoot", root.to_str().unwrap()]);
    let plain = attest(&p, &evidence, &[]).failure(13);
    assert!(plain.stderr.contains("plain http"), "http needs the loopback flag: {plain}");
    let before = p.rev("HEAD");
    let out = attest(&p, &evidence, &["--sigstore-allow-http-loopback", "--json"]).failure(13);
    assert!(out.stderr.contains("Fulcio returned HTTP 500"), "a signer asked for fails closed: {out}");
    assert_eq!(p.rev("HEAD"), before, "nothing is committed when signing fails");
    let got = chosen.lock().unwrap().clone();
    assert!(
        got.iter().any(|r| r.starts_with("POST /api/v2/signingCert") && r.contains(TOKEN)),
        "the user's Fulcio received the token: {got:?}"
    );
    let leaked = attacker.lock().unwrap().clone();
    assert!(leaked.is_empty(), "the file's listener received: {leaked:?}");
}

/// A checked-in `signer = "sigstore"` never turns a `--key` the person named into keyless
/// signing: the key signs, and no identity token leaves, though one is in the environment and a
/// Fulcio the person chose is listening.
#[test]
fn a_key_given_without_signer_signs_with_that_key_and_sends_no_token_whatever_the_file_names() {
    let (fulcio_url, fulcio) = listener();
    let p = Project::speckit();
    let ada = common::ed25519(&p.scratch, "ada");
    let allowed = common::allowed_signers(&p.scratch.join("allowed_signers"), &[(common::PRINCIPAL, &ada)]);
    let evidence = common::write_evidence(
        &p.scratch_dir("evidence"),
        &format!("{SPECKIT_UNIT}/T005"),
        Evidence::Verified,
    );
    commit_config(&p, "[attest]\nsigner = \"sigstore\"\n");
    p.git(&["config", "speccoder.sigstore.fulcioUrl", &fulcio_url]);
    p.git(&["config", "speccoder.sigstore.rekorUrl", &fulcio_url]);
    let root = p.scratch.join("signing_root.json");
    std::fs::write(&root, instance::Instance::new().trusted_root().to_string()).unwrap();
    p.git(&["config", "speccoder.sigstore.signingRoot", root.to_str().unwrap()]);
    let task = format!("{SPECKIT_UNIT}/T005");
    let key = ada.private.to_str().unwrap();
    let args = [
        "attest",
        &task,
        "--evidence",
        evidence.to_str().unwrap(),
        "--key",
        key,
        "--sigstore-allow-http-loopback",
    ];
    let mut cmd = common::speccoder_command(&p.root, &p.home, &args);
    cmd.env("SIGSTORE_ID_TOKEN", TOKEN);
    let out = common::run(cmd).success();
    assert!(out.stdout.contains("signer: ssh"), "{out}");
    common::assert_every_line_verifies(&p.scratch, &allowed, &p.note_lines("HEAD"));
    let got = fulcio.lock().unwrap().clone();
    assert!(got.is_empty(), "no token was sent: {got:?}");
}
