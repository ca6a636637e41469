//! Several signing backends on one branch: SSH and OpenPGP ticks (and the trust for each) checked
//! in one `attest verify` call, in-process and with the real tools (ssh-keygen, sqv).

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::*;
use serde_json::Value;

/// Runs gpg (batch, no passphrase) on the keyring in `home/.gnupg`, where the signer's gpg finds
/// it; insists that it succeeds.
fn gpg(p: &Project, args: &[&str]) -> Run {
    common::gpg(&p.home, args)
}

/// An OpenPGP key made by gpg in `home/.gnupg` (where the signer's gpg finds it), and its public
/// certificate exported to a file outside the repository.
fn gpg_key(p: &Project) -> (String, PathBuf) {
    gpg(p, &["--quick-gen-key", "Bob <bob@example.com>", "ed25519", "sign", "1y"]);
    let listing = gpg(p, &["--with-colons", "--list-keys", "bob@example.com"]).stdout;
    let fpr = listing.lines().find_map(|l| l.strip_prefix("fpr:")).unwrap().trim_matches(':').to_owned();
    let cert = p.scratch.join("bob.asc");
    let exported = gpg(p, &["--armor", "--export", &fpr]);
    std::fs::write(&cert, exported.stdout).unwrap();
    (fpr, cert)
}

#[test]
fn ssh_and_openpgp_ticks_on_one_branch_verify_in_one_call_with_each_trust() {
    let p = Project::speckit();
    let ada = ed25519(&p.scratch, "ada");
    let allowed = allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &ada)]);
    let (fpr, cert) = gpg_key(&p);

    let ev5 = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    p.attest("001-bookmark-tags/T005", &ev5, &["--signer", "ssh", "--key", ada.private.to_str().unwrap()])
        .success();
    let ev6 = write_evidence(&p.scratch.join("ev6"), "001-bookmark-tags/T006", Evidence::Verified);
    let out = p.attest("001-bookmark-tags/T006", &ev6, &["--signer", "openpgp", "--key", &fpr]).success();
    assert!(out.stdout.contains("5 signed"), "{out}");

    // Each OpenPGP line verifies with sqv over PAE bytes computed here.
    for line in p.note_lines("HEAD") {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sig.asc"), &line.signatures[0].1).unwrap();
        std::fs::write(dir.path().join("data"), line.pae()).unwrap();
        let mut sqv = Command::new("sqv");
        isolate(&mut sqv, &p.home);
        sqv.arg("--keyring").arg(&cert).arg(dir.path().join("sig.asc")).arg(dir.path().join("data"));
        run(sqv).success();
    }

    for tools in [false, true] {
        let mut args = vec![
            "attest",
            "verify",
            "--branch",
            "--all",
            "--json",
            "--allowed-signers",
            allowed.to_str().unwrap(),
            "--openpgp-certs",
            cert.to_str().unwrap(),
        ];
        if tools {
            args.push("--via-tools");
        }
        let r = p.speccoder(&args);
        let report: Value = serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("{e}\n{r}"));
        assert_eq!(r.code(), Some(0), "{report:#}");
        assert_eq!(report["totals"]["evidenced"], 2, "{report:#}");
        let kinds: Vec<&str> = report["ticks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["signers"][0]["kind"].as_str().unwrap())
            .collect();
        assert!(kinds.contains(&"ssh") && kinds.contains(&"openpgp"), "{kinds:?}");
    }

    // Without the OpenPGP trust, only the OpenPGP tick fails, and says why.
    let r = p.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "--all",
        "--json",
        "--allowed-signers",
        allowed.to_str().unwrap(),
    ]);
    assert_eq!(r.code(), Some(26));
    let report: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(report["totals"]["evidenced"], 1, "{report:#}");
    assert!(r.stdout.contains("no_openpgp_trust"), "{r}");
}

#[test]
fn a_keyring_holding_an_older_and_a_revoked_export_of_one_key_is_revoked_key_as_with_sqv() {
    let p = Project::speckit();
    let (fpr, old) = gpg_key(&p);
    let ev = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    p.attest("001-bookmark-tags/T005", &ev, &["--signer", "openpgp", "--key", &fpr]).success();

    // Revoke the key with the certificate gpg stored when it made it, and export it again.
    let rev = p.home.join(".gnupg").join("openpgp-revocs.d").join(format!("{fpr}.rev"));
    let rev = std::fs::read_to_string(rev).unwrap().replace(":-----BEGIN PGP", "-----BEGIN PGP");
    let rev_file = p.scratch.join("bob.rev");
    std::fs::write(&rev_file, rev).unwrap();
    gpg(&p, &["--import", rev_file.to_str().unwrap()]);
    let revoked = gpg(&p, &["--armor", "--export", &fpr]).stdout;
    let old = std::fs::read_to_string(old).unwrap();

    let verdict = |ring: &str, tools: bool| -> (Option<i32>, Value) {
        let path = p.scratch.join("ring.asc");
        std::fs::write(&path, ring).unwrap();
        let mut args = vec!["attest", "verify", "--branch", "--all", "--json", "--openpgp-certs"];
        args.push(path.to_str().unwrap());
        if tools {
            args.push("--via-tools");
        }
        let r = p.speccoder(&args);
        let report: Value = serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("{e}\n{r}"));
        (r.code(), report)
    };
    let tick = |report: &Value| -> (Value, Value, Vec<String>) {
        let t = report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == "001-bookmark-tags/T005");
        let t = t.unwrap_or_else(|| panic!("no tick: {report:#}"));
        let codes = t["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_owned());
        (t["outcome"].clone(), t["reason"].clone(), codes.collect())
    };
    for (order, ring) in
        [("older first", format!("{old}{revoked}")), ("revoked first", format!("{revoked}{old}"))]
    {
        let (ours_code, ours) = verdict(&ring, false);
        let (tools_code, tools) = verdict(&ring, true);
        assert_eq!(
            tick(&ours),
            tick(&tools),
            "{order}: in-process and sqv disagree\nours: {ours:#}\nsqv: {tools:#}"
        );
        assert_eq!(ours_code, tools_code, "{order}");
        assert_eq!(ours_code, Some(26), "{order}: {ours:#}");
        let (outcome, _, codes) = tick(&ours);
        assert_eq!(outcome, "unverifiable", "{order}: {ours:#}");
        assert!(codes.iter().any(|c| c == "revoked_key"), "{order}: {codes:?}");
    }
    // The older export alone still trusts the key: the revocation is what refuses it.
    assert_eq!(verdict(&old, false).0, Some(0));
    assert_eq!(verdict(&old, true).0, Some(0));
}

#[test]
fn a_certificate_file_that_is_not_openpgp_is_a_configuration_error_naming_it() {
    let p = Project::speckit();
    let bogus = p.scratch.join("certs.asc");
    std::fs::write(&bogus, "not a certificate\n").unwrap();
    let r = p.speccoder(&["attest", "verify", "--openpgp-certs", bogus.to_str().unwrap()]).failure(13);
    assert!(r.stderr.contains("certs.asc"), "{r}");
}

/// `count` distinct user ID packets in an armor block of their own, as a keyserver or an attacker
/// appends them to a certificate: sequoia reads them as part of the certificate before them.
fn user_id_flood(count: usize) -> Vec<u8> {
    use sequoia_openpgp::armor::{Kind, Writer};
    use sequoia_openpgp::packet::{Packet, UserID};
    use sequoia_openpgp::serialize::Serialize;
    use std::io::Write;
    let mut block = Writer::new(Vec::new(), Kind::PublicKey).unwrap();
    for n in 0..count {
        Packet::from(UserID::from(format!("flood {n}"))).serialize(&mut block).unwrap();
    }
    block.flush().unwrap();
    block.finalize().unwrap()
}

/// A trust file or a key file flooded past the packet limit (a gpg-made certificate, then an
/// armor block of user IDs), or a certificate with more user IDs than the component limit, is
/// refused, exit 13, naming the file, the limit and the minimal export, and nothing is written;
/// the certificate alone still verifies the tick it signed.
#[test]
fn a_flooded_certificate_is_refused_as_trust_and_as_a_key_naming_the_file_and_the_limit() {
    use speccoder_attest::sign::openpgp::{MAX_COMPONENTS, MAX_PACKETS};
    let p = Project::speckit();
    let (fpr, cert) = gpg_key(&p);
    let ev = write_evidence(&p.scratch.join("ev"), "001-bookmark-tags/T005", Evidence::Verified);
    p.attest("001-bookmark-tags/T005", &ev, &["--signer", "openpgp", "--key", &fpr]).success();
    let verify = |certs: &std::path::Path| {
        p.speccoder(&["attest", "verify", "--branch", "--all", "--openpgp-certs", certs.to_str().unwrap()])
    };
    verify(&cert).success();

    let flooded = p.scratch.join("flooded.asc");
    std::fs::write(&flooded, [std::fs::read(&cert).unwrap(), user_id_flood(MAX_PACKETS)].concat()).unwrap();
    let r = verify(&flooded).failure(13);
    for needed in [
        &format!("{} holds more than {MAX_PACKETS} OpenPGP packets", flooded.display()),
        "gpg --export-options export-minimal --export",
    ] {
        assert!(r.stderr.contains(needed), "missing {needed:?}\n{r}");
    }

    // Fewer packets, but more user IDs than any real certificate: refused for those.
    std::fs::write(&flooded, [std::fs::read(&cert).unwrap(), user_id_flood(MAX_COMPONENTS)].concat())
        .unwrap();
    let r = verify(&flooded).failure(13);
    for needed in [
        &format!("{}: the certificate {fpr} has {} user IDs", flooded.display(), MAX_COMPONENTS + 1),
        &format!(
            "gpg --export-options export-minimal --export-filter keep-uid='mbox = <email>' --export --armor {fpr}"
        ),
    ] {
        assert!(r.stderr.contains(needed), "missing {needed:?}\n{r}");
    }

    let key = p.scratch.join("flooded.sec.asc");
    let secret = std::fs::read(gpg_secret_key_file(&p, &fpr)).unwrap();
    std::fs::write(&key, [secret, user_id_flood(MAX_PACKETS)].concat()).unwrap();
    let ev6 = write_evidence(&p.scratch.join("ev6"), "001-bookmark-tags/T006", Evidence::Verified);
    let before = p.snapshot();
    let r = p
        .attest("001-bookmark-tags/T006", &ev6, &["--signer", "openpgp", "--key", key.to_str().unwrap()])
        .failure(13);
    for needed in [
        &format!("{} is not a usable OpenPGP key", key.display()),
        &format!("more than {MAX_PACKETS} OpenPGP packets"),
        "--export-options export-minimal",
    ] {
        assert!(r.stderr.contains(needed), "missing {needed:?}\n{r}");
    }
    assert_eq!(p.snapshot(), before);
}

/// An OpenPGP secret key file protected by `passphrase`, made by gpg in a keyring of its own (so
/// that the signer's gpg does not hold it).
fn protected_key_file(p: &Project, passphrase: &str) -> PathBuf {
    let home = p.scratch_dir("protected-gnupg");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let gpg = |args: &[&str]| {
        let mut cmd = Command::new("gpg");
        isolate(&mut cmd, &p.home);
        cmd.env("GNUPGHOME", &home)
            .args(["--batch", "--pinentry-mode", "loopback", "--passphrase", passphrase])
            .args(args);
        run(cmd).success()
    };
    gpg(&["--quick-gen-key", "Pat <pat@example.com>", "ed25519", "sign", "1y"]);
    let file = p.scratch.join("pat.sec.asc");
    std::fs::write(&file, gpg(&["--armor", "--export-secret-keys", "pat@example.com"]).stdout).unwrap();
    file
}

/// An OpenPGP key given with `--key` that cannot sign (passphrase-protected without a passphrase,
/// a wrong `SPECCODER_PGP_PASSPHRASE`, a key gpg's keyring lacks) is advised about as `--key`,
/// never `user.signingKey`, with nothing written; named by `user.signingKey`, the same key is
/// advised about as that; with its passphrase it signs.
#[test]
fn a_key_that_cannot_sign_is_advised_about_as_the_flag_or_the_git_setting_that_named_it() {
    let p = Project::speckit();
    gpg(&p, &["--list-keys"]);
    let key = protected_key_file(&p, "hunter2");
    let key = key.to_str().unwrap();
    let ev = write_evidence(&p.scratch.join("ev"), "001-bookmark-tags/T005", Evidence::Verified);
    let attest = |extra: &[&str], passphrase: Option<&str>| {
        let mut args = vec![
            "attest",
            "001-bookmark-tags/T005",
            "--evidence",
            ev.to_str().unwrap(),
            "--signer",
            "openpgp",
        ];
        args.extend(extra);
        let mut cmd = speccoder_command(&p.root, &p.home, &args);
        if let Some(passphrase) = passphrase {
            cmd.env("SPECCODER_PGP_PASSPHRASE", passphrase);
        }
        run(cmd)
    };
    let before = p.snapshot();
    for (extra, passphrase, says) in [
        (["--key", key], None, format!("{key} is passphrase-protected")),
        (["--key", key], None, "and give --key its fingerprint so that gpg-agent unlocks it".to_owned()),
        (["--key", key], Some("wrong"), format!("SPECCODER_PGP_PASSPHRASE does not unlock {key}")),
        (["--key", key], Some("wrong"), "and give --key its fingerprint".to_owned()),
        (
            ["--key", "nobody@example.com"],
            None,
            "no usable secret key for --key `nobody@example.com`".to_owned(),
        ),
        (["--key", "nobody@example.com"], None, "and give --key one fingerprint".to_owned()),
    ] {
        let out = attest(&extra, passphrase).failure(13);
        assert!(out.stderr.contains(&says), "missing {says:?}\n{out}");
        assert!(!out.stderr.contains("user.signingKey"), "{out}");
    }
    p.git(&["config", "user.signingKey", key]);
    let out = attest(&[], None).failure(13);
    assert!(out.stderr.contains("and set user.signingKey to its fingerprint"), "{out}");
    assert!(!out.stderr.contains("--key"), "{out}");
    p.git(&["config", "user.signingKey", "nobody@example.com"]);
    let out = attest(&[], None).failure(13);
    assert!(out.stderr.contains("no usable secret key for user.signingKey `nobody@example.com`"), "{out}");
    assert!(out.stderr.contains("and set user.signingKey to one fingerprint"), "{out}");
    assert_eq!(p.snapshot(), before);
    attest(&["--key", key], Some("hunter2")).success();
}

#[test]
fn an_unknown_signer_is_a_configuration_error_and_nothing_is_written() {
    let p = Project::speckit();
    let ev = write_evidence(&p.scratch.join("ev"), "001-bookmark-tags/T005", Evidence::Verified);
    let before = p.snapshot();
    let r = p.attest("001-bookmark-tags/T005", &ev, &["--signer", "x509"]).failure(13);
    assert!(
        r.stderr.contains("unknown signer `x509`; use one of: git (or auto), ssh, openpgp, sigstore, none"),
        "{r}"
    );
    assert_eq!(p.snapshot(), before);
}

/// Commits `speccoder.toml` with `text` on top of the project's HEAD.
fn commit_policy(p: &Project, text: &str) {
    p.write("speccoder.toml", text);
    p.git(&["add", "speccoder.toml"]);
    p.git(&["commit", "-q", "-m", "policy"]);
}

#[test]
fn the_signer_speccoder_toml_names_is_used_unless_signer_or_key_is_given() {
    let p = Project::speckit();
    let key = ed25519(&p.scratch, "ada");
    let key = key.private.to_str().unwrap();
    commit_policy(&p, "[attest]\nsigner = \"none\"\n");
    let ev = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    let out = p.attest("001-bookmark-tags/T005", &ev, &[]).success();
    assert!(out.stdout.contains("unsigned: signer `none`"), "{out}");
    assert!(p.note_lines("HEAD").iter().all(|l| l.envelope["signatures"] == serde_json::json!([])));

    let ev = write_evidence(&p.scratch.join("ev6"), "001-bookmark-tags/T006", Evidence::Verified);
    let out = p.attest("001-bookmark-tags/T006", &ev, &["--key", key, "--signer", "ssh"]).success();
    assert!(out.stdout.contains("signer: ssh"), "{out}");
    assert!(p.note_lines("HEAD").iter().all(|l| l.envelope["signatures"] != serde_json::json!([])));
}

/// `--key` without `--signer` is the person's choice of credential: a checked-in `signer =
/// "none"` never turns it into unsigned lines, for any command that signs a note. The file's
/// `ssh` or `openpgp` chooses the kind the key is used as, and a key of the other kind is refused
/// saying which `--signer` signs with it.
#[test]
fn a_key_given_without_signer_signs_every_writer_s_lines_whatever_signer_speccoder_toml_names() {
    let p = Project::speckit();
    let ada = ed25519(&p.scratch, "ada");
    let allowed = allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &ada)]);
    let key = ada.private.to_str().unwrap();
    commit_policy(&p, "[attest]\nsigner = \"none\"\nsign_at = \"later\"\n");
    let ev = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    let out = p.attest("001-bookmark-tags/T005", &ev, &["--key", key]).success();
    assert!(out.stdout.contains("5 lines, 5 signed"), "{out}");
    assert_every_line_verifies(&p.scratch, &allowed, &p.note_lines("HEAD"));

    p.speccoder(&["accept", "001-bookmark-tags/T001", "--reason", "scaffolding", "--key", key]).success();
    assert_every_line_verifies(&p.scratch, &allowed, &p.note_lines("HEAD"));
    p.speccoder(&["skip", "001-bookmark-tags/T002", "--reason", "later", "--key", key]).success();
    assert_every_line_verifies(
        &p.scratch,
        &allowed,
        &p.note_lines("refs/speccoder/skipped/001-bookmark-tags/T002"),
    );

    // `attest sign` of lines written unsigned on purpose signs them with the key given.
    let ev = write_evidence(&p.scratch.join("ev6"), "001-bookmark-tags/T006", Evidence::Verified);
    p.attest("001-bookmark-tags/T006", &ev, &["--signer", "none"]).success();
    let out = p.speccoder(&["attest", "sign", "HEAD", "--key", key]).success();
    assert!(out.stdout.contains("5 signed now"), "{out}");
    assert_every_line_verifies(&p.scratch, &allowed, &p.note_lines("HEAD"));

    // The file's kind: an SSH key where it says `ssh`; refused where it says `openpgp`, naming
    // the `--signer` that signs with it, and nothing is written.
    commit_policy(&p, "[attest]\nsigner = \"openpgp\"\n");
    let ev = write_evidence(&p.scratch.join("ev7"), "001-bookmark-tags/T007", Evidence::Verified);
    let before = p.snapshot();
    let out = p.attest("001-bookmark-tags/T007", &ev, &["--key", key]).failure(13);
    assert!(out.stderr.contains("speccoder.toml says `[attest] signer = \"openpgp\"`"), "{out}");
    assert!(out.stderr.contains("pass `--signer ssh` with --key"), "{out}");
    assert_eq!(p.snapshot(), before);
    commit_policy(&p, "[attest]\nsigner = \"ssh\"\n");
    let out = p.attest("001-bookmark-tags/T007", &ev, &["--key", key]).success();
    assert!(out.stdout.contains("5 lines, 5 signed"), "{out}");
}

#[test]
fn an_unknown_signer_in_speccoder_toml_is_a_configuration_error_and_nothing_is_written() {
    let p = Project::speckit();
    commit_policy(&p, "[attest]\nsigner = \"x509\"\n");
    let ev = write_evidence(&p.scratch.join("ev"), "001-bookmark-tags/T005", Evidence::Verified);
    let before = p.snapshot();
    let r = p.attest("001-bookmark-tags/T005", &ev, &[]).failure(13);
    assert!(r.stderr.contains("unknown signer `x509`"), "{r}");
    assert_eq!(p.snapshot(), before);
}

/// With `commit.gpgsign`, the task commit is signed as `git commit -S` signs it, with git's own
/// key (`gpg.format`, `user.signingKey`): `git verify-commit` accepts it and `git log
/// --show-signature` shows it, for SSH and OpenPGP. Without a key git could sign with, nothing
/// is written.
#[test]
fn with_commit_gpgsign_the_task_commit_carries_a_signature_git_verify_commit_accepts() {
    let p = Project::speckit();
    let ada = ed25519(&p.scratch, "ada");
    // git's own trust file for commits: the key may sign in the namespace `git`.
    let allowed = p.scratch.join("git_allowed_signers");
    std::fs::write(&allowed, format!("{PRINCIPAL} namespaces=\"git\" {}\n", ada.public_line)).unwrap();
    p.git(&["config", "commit.gpgsign", "true"]);

    let ev4 = write_evidence(&p.scratch.join("ev4"), "001-bookmark-tags/T004", Evidence::Verified);
    let before = p.snapshot();
    let out = p.attest("001-bookmark-tags/T004", &ev4, &["--signer", "none"]).failure(13);
    assert!(out.stderr.contains("commit.gpgsign is set"), "{out}");
    assert_eq!(p.snapshot(), before, "a commit git would sign and cannot is never written");

    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
    p.git(&["config", "gpg.ssh.allowedSignersFile", allowed.to_str().unwrap()]);
    p.attest("001-bookmark-tags/T004", &ev4, &[]).success();
    p.git(&["verify-commit", "HEAD"]);
    let shown = p.git_run(&["log", "-1", "--show-signature", "--format=%G? %s"]).success();
    assert!(shown.stdout.contains("Good \"git\" signature"), "{shown}");
    assert!(shown.stdout.lines().last().unwrap().starts_with("G "), "{shown}");
    p.git_run(&["fsck", "--strict", "--no-dangling", "--no-progress"]).success();

    let (fpr, _cert) = gpg_key(&p);
    p.git(&["config", "--unset", "gpg.format"]);
    p.git(&["config", "user.signingKey", &fpr]);
    let ev5 = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    p.attest("001-bookmark-tags/T005", &ev5, &[]).success();
    p.git(&["verify-commit", "HEAD"]);
    let shown = p.git(&["log", "-1", "--format=%G? %GF"]);
    assert_eq!(shown.trim(), format!("G {fpr}"));
    assert!(p.note_lines("HEAD").iter().all(|l| !l.signatures.is_empty()), "the lines are signed too");
}

/// Exports the secret half of `fpr` (made by [`gpg_key`]) to a key file outside the repository.
fn gpg_secret_key_file(p: &Project, fpr: &str) -> PathBuf {
    let mut cmd = Command::new("gpg");
    isolate(&mut cmd, &p.home);
    cmd.env("GNUPGHOME", p.home.join(".gnupg"))
        .args(["--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--armor"])
        .args(["--export-secret-keys", fpr]);
    let file = p.scratch.join("bob.sec.asc");
    std::fs::write(&file, run(cmd).success().stdout).unwrap();
    file
}

/// Asserts the `commit.gpgsign` refusal: git's own key signs the task commit, none is
/// configured, and what works (git's key for `format`, or commit signing off), with nothing
/// written; never `attest sign` or a key flag for the commit.
#[track_caller]
fn assert_commit_gpgsign_refusal(out: &Run, format: &str) {
    let err = &out.stderr;
    for needed in [
        "commit.gpgsign is set",
        "git's own signing key",
        &format!("gpg.format = {format}"),
        "no user.signingKey is configured",
        "Nothing was written",
        "`git config user.signingKey <",
        "`git config commit.gpgsign false`",
        "run the same command again",
    ] {
        assert!(err.contains(needed), "missing {needed:?}\n{out}");
    }
    assert!(!err.contains("attest sign") && !err.contains("--key") && !err.contains("--signer"), "{out}");
}

/// Under `commit.gpgsign` without `user.signingKey`, a key for the note's lines (`--signer
/// openpgp|ssh --key`) does not sign the commit: `attest` and `accept` stop (13) before writing
/// anything and say to configure git's own key; doing so makes the same command succeed with a
/// task commit `git verify-commit` accepts.
#[test]
fn a_commit_gpgsign_refusal_says_how_to_configure_gits_key_and_following_it_works() {
    let p = Project::speckit();
    p.git(&["config", "commit.gpgsign", "true"]);

    // OpenPGP, as git's default format; the note's key is a secret key file.
    let (fpr, _cert) = gpg_key(&p);
    let secret = gpg_secret_key_file(&p, &fpr);
    p.git(&["config", "gpg.format", "openpgp"]);
    let ev4 = write_evidence(&p.scratch.join("ev4"), "001-bookmark-tags/T004", Evidence::Verified);
    let args = ["--signer", "openpgp", "--key", secret.to_str().unwrap()];
    let before = p.snapshot();
    let out = p.attest("001-bookmark-tags/T004", &ev4, &args).failure(13);
    assert_commit_gpgsign_refusal(&out, "openpgp");
    assert_eq!(p.snapshot(), before, "nothing was written");
    p.git(&["config", "user.signingKey", &fpr]);
    p.attest("001-bookmark-tags/T004", &ev4, &args).success();
    p.git(&["verify-commit", "HEAD"]);
    assert_eq!(p.git(&["log", "-1", "--format=%G? %GF"]).trim(), format!("G {fpr}"));

    // SSH: `attest` and `accept` alike.
    let ada = ed25519(&p.scratch, "ada");
    let allowed = p.scratch.join("git_allowed_signers");
    std::fs::write(&allowed, format!("{PRINCIPAL} namespaces=\"git\" {}\n", ada.public_line)).unwrap();
    p.git(&["config", "gpg.ssh.allowedSignersFile", allowed.to_str().unwrap()]);
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "--unset", "user.signingKey"]);
    let ev5 = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    let ssh = ["--signer", "ssh", "--key", ada.private.to_str().unwrap()];
    let accept = ["accept", "001-bookmark-tags/T001", "--reason", "by hand", ssh[0], ssh[1], ssh[2], ssh[3]];
    let before = p.snapshot();
    let out = p.attest("001-bookmark-tags/T005", &ev5, &ssh).failure(13);
    assert_commit_gpgsign_refusal(&out, "ssh");
    assert_commit_gpgsign_refusal(&p.speccoder(&accept).failure(13), "ssh");
    assert_eq!(p.snapshot(), before, "nothing was written");
    p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
    p.attest("001-bookmark-tags/T005", &ev5, &ssh).success();
    p.git(&["verify-commit", "HEAD"]);
    p.speccoder(&accept).success();
    p.git(&["verify-commit", "HEAD"]);
    p.git_run(&["fsck", "--strict", "--no-dangling", "--no-progress"]).success();
}

#[cfg(unix)]
#[test]
fn a_key_naming_a_dangling_link_a_directory_or_a_fifo_is_no_key_file_and_gpg_never_runs() {
    let p = Project::speckit();
    let evidence = write_evidence(&p.scratch.join("ev"), "001-bookmark-tags/T005", Evidence::Verified);
    let dangling = p.scratch.join("keylink");
    std::os::unix::fs::symlink(p.scratch.join("gone"), &dangling).unwrap();
    let dir = p.scratch.join("keydir");
    std::fs::create_dir(&dir).unwrap();
    let fifo = p.scratch.join("keyfifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let cases = [
        (dangling.to_str().unwrap(), "is a symbolic link that leads to no file"),
        (dir.to_str().unwrap(), "is a directory, not a key file"),
        (fifo.to_str().unwrap(), ""),
        // A name without a `/` that names something in the work tree is a path too.
        ("specs", "is a directory, not a key file"),
    ];
    let before = p.snapshot();
    for (key, says) in cases {
        for signer in [&["--key", key][..], &["--signer", "openpgp", "--key", key]] {
            let out = p.attest("001-bookmark-tags/T005", &evidence, signer).failure(13);
            let refusal = match says {
                // A FIFO is read as a key file and refused as one, never waited on.
                "" => "it is a FIFO, not a regular file".to_owned(),
                says => format!("the --key file {key} {says}"),
            };
            assert!(out.stderr.contains(&refusal), "{out}");
        }
    }
    assert_eq!(p.snapshot(), before, "a refusal wrote something");
    assert!(!p.home.join(".gnupg").exists(), "gpg ran and made its home");
}

#[test]
fn an_openpgp_signer_named_by_address_meets_a_policy_alike_on_both_paths_unless_two_certificates_bind_it() {
    let p = Project::speckit();
    let (fpr, cert) = gpg_key(&p);
    let ev = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    p.attest("001-bookmark-tags/T005", &ev, &["--signer", "openpgp", "--key", &fpr]).success();
    let policy = p.scratch.join("policy.toml");
    std::fs::write(
        &policy,
        "version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\nsigners = [\"bob@example.com\"]\n",
    )
    .unwrap();

    for tools in [false, true] {
        let mut args = vec!["attest", "verify", "--branch", "--all", "--json", "--openpgp-certs"];
        args.extend([cert.to_str().unwrap(), "--policy", policy.to_str().unwrap()]);
        if tools {
            args.push("--via-tools");
        }
        let r = p.speccoder(&args);
        let report: Value = serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("{e}\n{r}"));
        assert_eq!(r.code(), Some(0), "via tools: {tools}: {report:#}");
        let signer = &report["ticks"][0]["signers"][0];
        assert_eq!(signer["key"], fpr.as_str(), "via tools: {tools}");
        assert_eq!(signer["principals"], serde_json::json!(["Bob <bob@example.com>"]), "via tools: {tools}");
    }

    // Mal, whom the trust holds too, binds Bob's address to her own certificate: the address
    // names neither of them, on both paths, and `policy check` warns of it.
    gpg(&p, &["--quick-gen-key", "Mal <mal@example.com>", "ed25519", "sign", "1y"]);
    gpg(&p, &["--quick-add-uid", "mal@example.com", "M. <bob@example.com>"]);
    let ring = p.scratch.join("team.asc");
    std::fs::write(&ring, gpg(&p, &["--armor", "--export", &fpr, "mal@example.com"]).stdout).unwrap();
    let by_fingerprint = p.scratch.join("by-fingerprint.toml");
    let rule = format!("version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\nsigners = [\"{fpr}\"]\n");
    std::fs::write(&by_fingerprint, rule).unwrap();
    for tools in [false, true] {
        for (policy, code) in [(&policy, 26), (&by_fingerprint, 0)] {
            let mut args = vec!["attest", "verify", "--branch", "--all", "--json", "--openpgp-certs"];
            args.extend([ring.to_str().unwrap(), "--policy", policy.to_str().unwrap()]);
            if tools {
                args.push("--via-tools");
            }
            let r = p.speccoder(&args);
            assert_eq!(r.code(), Some(code), "{}, via tools: {tools}: {r}", policy.display());
            let report: Value = serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("{e}\n{r}"));
            if code == 26 {
                let finding = &report["ticks"][0]["findings"][0];
                assert_eq!(finding["code"], "policy_signer", "via tools: {tools}: {report:#}");
                let message = finding["message"].as_str().unwrap();
                assert!(message.contains("`bob@example.com` is bound by 2 certificates"), "{message}");
            }
        }
    }
    let check =
        ["attest", "policy", "check", policy.to_str().unwrap(), "--openpgp-certs", ring.to_str().unwrap()];
    let report: Value =
        serde_json::from_str(&p.speccoder(&[&check[..], &["--json"]].concat()).success().stdout).unwrap();
    let shared = &report["rules"][0]["shared_principals"];
    assert_eq!(shared[0]["principal"], "bob@example.com", "{report:#}");
    assert_eq!(shared[0]["certificates"][0], fpr.as_str(), "{report:#}");
    let text = p.speccoder(&check).success().stdout;
    assert!(
        text.contains("warning: `bob@example.com` is bound by 2 certificates of the OpenPGP trust"),
        "{text}"
    );
}

#[test]
fn an_openpgp_signature_over_sha3_is_unsupported_on_both_paths_never_a_pass() {
    use base64::Engine as _;
    use sequoia_openpgp::Cert;
    use sequoia_openpgp::armor::{Kind, Writer};
    use sequoia_openpgp::packet::signature::SignatureBuilder;
    use sequoia_openpgp::parse::Parse;
    use sequoia_openpgp::serialize::Serialize;
    use sequoia_openpgp::types::{HashAlgorithm, SignatureType};

    let p = Project::speckit();
    let (fpr, cert) = gpg_key(&p);
    let ev = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    p.attest("001-bookmark-tags/T005", &ev, &["--signer", "openpgp", "--key", &fpr]).success();
    // Each line signed again by Bob's own key, over SHA3-256: gpg 2.2 and sqv cannot check it.
    let secret = gpg(&p, &["--armor", "--export-secret-keys", &fpr]).stdout;
    let key = Cert::from_bytes(secret.as_bytes()).unwrap().primary_key().key().clone();
    let mut signer = key.parts_into_secret().unwrap().into_keypair().unwrap();
    let lines: Vec<Vec<u8>> = p
        .note_lines("HEAD")
        .iter()
        .map(|line| {
            let sig = SignatureBuilder::new(SignatureType::Binary)
                .set_hash_algo(HashAlgorithm::SHA3_256)
                .set_issuer_fingerprint(signer.public().fingerprint())
                .unwrap()
                .sign_message(&mut signer, line.pae())
                .unwrap();
            let mut armor = Writer::new(Vec::new(), Kind::Signature).unwrap();
            sequoia_openpgp::Packet::from(sig).serialize(&mut armor).unwrap();
            let armored = armor.finalize().unwrap();
            let mut envelope = line.envelope.clone();
            envelope["signatures"][0]["sig"] =
                base64::engine::general_purpose::STANDARD.encode(armored).into();
            serde_json::to_vec(&envelope).unwrap()
        })
        .collect();
    p.write_note("HEAD", &lines);

    for tools in [false, true] {
        let report = verify_with_certs(&p, &cert, tools, "");
        let finding = &report["ticks"][0]["findings"][0];
        assert_eq!(finding["code"], "unsupported_openpgp", "via tools: {tools}: {report:#}");
        assert!(finding["message"].as_str().unwrap().contains("SHA3-256"), "{finding}");
    }
}

/// `attest verify --branch --all --json` of `p` trusting the certificates at `cert`, in process or
/// `--via-tools`: its report, the run having failed (26); `shape` names the case in a failure.
fn verify_with_certs(p: &Project, cert: &std::path::Path, tools: bool, shape: &str) -> Value {
    let mut args = vec!["attest", "verify", "--branch", "--all", "--json", "--openpgp-certs"];
    args.push(cert.to_str().unwrap());
    if tools {
        args.push("--via-tools");
    }
    let r = p.speccoder(&args);
    assert_eq!(r.code(), Some(26), "{shape}, via tools: {tools}: {r}");
    serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("{e}\n{r}"))
}

/// Signs each line of HEAD's note again with gpg and `options` (each `-u` one key signing), the
/// armor followed by `after`, in place of its signature.
fn resign_with_gpg(p: &Project, options: &[&str], after: &str) {
    use base64::Engine as _;
    let data = p.scratch.join("pae");
    let lines: Vec<Vec<u8>> = p
        .note_lines("HEAD")
        .iter()
        .map(|line| {
            std::fs::write(&data, line.pae()).unwrap();
            let mut args = vec!["--detach-sign", "--armor", "--output", "-"];
            args.extend(options);
            args.push(data.to_str().unwrap());
            let sig = format!("{}{after}", gpg(p, &args).stdout);
            let mut envelope = line.envelope.clone();
            envelope["signatures"][0]["sig"] = base64::engine::general_purpose::STANDARD.encode(sig).into();
            serde_json::to_vec(&envelope).unwrap()
        })
        .collect();
    p.write_note("HEAD", &lines);
}

#[test]
fn an_openpgp_sig_of_another_shape_than_one_binary_signature_is_malformed_on_both_paths_never_a_pass() {
    let p = Project::speckit();
    let (fpr, cert) = gpg_key(&p);
    gpg(&p, &["--quick-gen-key", "Mal <mal@example.com>", "ed25519", "sign", "1y"]);
    let ev = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    p.attest("001-bookmark-tags/T005", &ev, &["--signer", "openpgp", "--key", &fpr]).success();
    let shapes: [(&str, &[&str], &str, &str); 3] = [
        ("text mode", &["-u", &fpr, "--textmode"], "", "text-mode signature"),
        ("Bob's and Mal's", &["-u", &fpr, "-u", "mal@example.com"], "", "more than one signature"),
        (
            "text after the armor",
            &["-u", &fpr],
            "\ntrailing text\n",
            "follows its -----END PGP SIGNATURE-----",
        ),
    ];
    for (shape, options, after, said) in shapes {
        resign_with_gpg(&p, options, after);
        for tools in [false, true] {
            let report = verify_with_certs(&p, &cert, tools, shape);
            let tick = &report["ticks"][0];
            assert_eq!(tick["outcome"], "unverifiable", "{shape}, via tools: {tools}: {report:#}");
            assert_eq!(tick["findings"][0]["code"], "malformed_signature", "{shape}, via tools: {tools}");
            let message = tick["findings"][0]["message"].as_str().unwrap();
            assert!(message.contains(said), "{shape}, via tools: {tools}: {message}");
        }
    }
}

/// Ticks T005 with an SSH key under `principal`, approves it with an OpenPGP key made by gpg whose
/// one user id is `user_id`, and verifies under `policy`, in-process and with the real tools:
/// each exit code and the first finding's code.
fn own_openpgp_approval(principal: &str, user_id: &str, policy: &str) -> Vec<(Option<i32>, Value)> {
    let p = Project::speckit();
    let ada = ed25519(&p.scratch, "ada");
    let allowed = allowed_signers(&p.scratch.join("allowed_signers"), &[(principal, &ada)]);
    // The user id's bytes as given, though the C locale the tests run gpg in is not UTF-8.
    gpg(&p, &["--utf8-strings", "--quick-gen-key", user_id, "ed25519", "sign", "1y"]);
    let listing = gpg(&p, &["--with-colons", "--list-keys"]).stdout;
    assert!(listing.contains(&format!(":{user_id}:")), "{listing}");
    let fpr = listing.lines().find_map(|l| l.strip_prefix("fpr:")).unwrap().trim_matches(':').to_owned();
    let cert = p.scratch.join("own.asc");
    std::fs::write(&cert, gpg(&p, &["--armor", "--export", &fpr]).stdout).unwrap();
    let ev = write_evidence(&p.scratch.join("ev5"), "001-bookmark-tags/T005", Evidence::Verified);
    p.attest("001-bookmark-tags/T005", &ev, &["--signer", "ssh", "--key", ada.private.to_str().unwrap()])
        .success();
    let (allowed, cert) = (allowed.to_str().unwrap(), cert.to_str().unwrap());
    let trust = ["--allowed-signers", allowed, "--openpgp-certs", cert];
    let approve = [&["attest", "approve", "HEAD"][..], &trust, &["--signer", "openpgp", "--key", &fpr]];
    p.speccoder(&approve.concat()).success();
    let policy_file = p.scratch.join("policy.toml");
    std::fs::write(&policy_file, policy).unwrap();
    let verify = [&["attest", "verify", "--branch", "--all", "--json"][..], &trust];
    [&[][..], &["--via-tools"]]
        .iter()
        .map(|tools| {
            let r = p.speccoder(
                &[&verify.concat()[..], &["--policy", policy_file.to_str().unwrap()], tools].concat(),
            );
            let report: Value = serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("{e}\n{r}"));
            (r.code(), report["ticks"][0]["findings"][0]["code"].clone())
        })
        .collect()
}

/// One approval asked of anyone the trust accepts but the maker.
const ONE_APPROVAL: &str =
    "version = 1\n[[rule]]\nname = \"two\"\nunits = [\"*\"]\napprovals = { count = 1 }\n";

#[test]
fn a_maker_s_own_openpgp_key_never_approves_their_tick_though_its_user_id_ends_in_a_comment() {
    let refused = (Some(26), Value::from("policy_approval"));
    for user_id in ["Alice <alice@example.org> (work)", "Alice (work) <alice@example.org>"] {
        let runs = own_openpgp_approval("alice@example.org", user_id, ONE_APPROVAL);
        assert_eq!(runs, [refused.clone(), refused.clone()], "{user_id}: in-process, then via tools");
    }
}

/// `José` typed on one machine composed (NFC), on another decomposed (NFD, `e` and U+0301): one
/// person, whose own key approves nothing of hers; and a policy naming her in either form
/// accepts her tick.
#[test]
fn a_maker_s_own_openpgp_key_never_approves_their_tick_though_its_address_is_written_decomposed() {
    let (nfc, nfd) = ("jos\u{e9}@example.org", "jose\u{301}@example.org");
    let runs = own_openpgp_approval(nfc, &format!("Jos\u{e9} <{nfd}>"), ONE_APPROVAL);
    let refused = (Some(26), Value::from("policy_approval"));
    assert_eq!(runs, [refused.clone(), refused], "in-process, then via tools");
    let signer = format!("version = 1\n[[rule]]\nname = \"jose\"\nunits = [\"*\"]\nsigners = [\"{nfd}\"]\n");
    let runs = own_openpgp_approval(nfc, &format!("Jos\u{e9} <{nfd}>"), &signer);
    assert_eq!(runs, [(Some(0), Value::Null), (Some(0), Value::Null)], "in-process, then via tools");
}
