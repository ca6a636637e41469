//! Where the signing key comes from (flag, git config file or `key::` literal, an agent), what
//! happens without one, and `speccoder attest sign` afterwards.

use std::process::Command;

use serde_json::Value;

use super::{Setup, T005};
use crate::common::{self, Agent, Evidence, NOTES_REF, NoteLine, PRINCIPAL, Project};

/// `speccoder attest T005` in `s` with `SSH_AUTH_SOCK` set to `agent` when given.
fn attest_with_agent(s: &Setup, agent: Option<&Agent>, extra: &[&str]) -> common::Run {
    s.project.store_kit_held_out_named_by(T005, &s.evidence);
    let mut args = vec!["attest", T005, "--evidence", s.evidence.to_str().unwrap()];
    args.extend(extra);
    let mut cmd: Command = common::speccoder_command(&s.project.root, &s.project.home, &args);
    if let Some(agent) = agent {
        cmd.env("SSH_AUTH_SOCK", &agent.socket);
    }
    common::run(cmd)
}

fn payloads(lines: &[NoteLine]) -> Vec<(String, Vec<u8>)> {
    lines.iter().map(|l| (l.payload_type.clone(), l.payload.clone())).collect()
}

fn signer_of(out: &common::Run) -> String {
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    report["signer"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn ecdsa_and_rsa_keys_from_the_key_flag_sign_lines_that_ssh_keygen_verifies() {
    for kind in ["ecdsa", "rsa"] {
        let p = Project::speckit();
        let key = common::ssh_key(&p.scratch, "ada", kind);
        let allowed = common::allowed_signers(&p.scratch.join("allowed"), &[(PRINCIPAL, &key)]);
        let evidence = common::write_evidence(&p.scratch_dir("evidence"), T005, Evidence::Verified);
        let out = p.attest(T005, &evidence, &["--key", key.private.to_str().unwrap(), "--json"]).success();
        let short = if kind == "ecdsa" { "ssh ecdsa-p256 " } else { "ssh rsa " };
        assert!(signer_of(&out).starts_with(short), "{out}");
        common::assert_every_line_verifies(&p.scratch, &allowed, &p.note_lines("HEAD"));
    }
}

#[test]
fn a_key_file_named_by_git_config_signs_every_line() {
    let s = Setup::speckit(Evidence::Verified);
    s.project.git(&["config", "gpg.format", "ssh"]);
    s.project.git(&["config", "user.signingKey", s.key.private.to_str().unwrap()]);
    let out = s.project.attest(T005, &s.evidence, &["--json"]).success();
    assert!(signer_of(&out).contains(&format!("key file {}", s.key.private.display())), "{out}");
    common::assert_every_line_verifies(&s.project.scratch, &s.allowed, &s.project.note_lines("HEAD"));
}

/// git signs with a key file whose name is not UTF-8 (a Latin-1 home directory): so does
/// speccoder, never taking the key for unset and writing unsigned lines.
#[test]
fn a_key_file_whose_name_is_not_utf8_signs_every_line_as_git_signs_with_it() {
    use std::os::unix::ffi::OsStrExt as _;
    let s = Setup::speckit(Evidence::Verified);
    let latin1 = s.project.scratch.join(std::ffi::OsStr::from_bytes(b"k\xe9y"));
    std::fs::copy(&s.key.private, &latin1).unwrap();
    s.project.git(&["config", "gpg.format", "ssh"]);
    let mut config = std::fs::read(s.project.root.join(".git/config")).unwrap();
    config.extend_from_slice(b"[user]\n\tsigningKey = ");
    config.extend_from_slice(latin1.as_os_str().as_bytes());
    config.push(b'\n');
    std::fs::write(s.project.root.join(".git/config"), config).unwrap();
    let out = s.project.attest(T005, &s.evidence, &[]).success();
    assert!(!out.stdout.contains("unsigned"), "{out}");
    common::assert_every_line_verifies(&s.project.scratch, &s.allowed, &s.project.note_lines("HEAD"));
}

#[test]
fn a_key_under_home_named_with_a_tilde_in_the_global_git_config_signs_every_line() {
    let s = Setup::speckit(Evidence::Verified);
    let ssh_dir = s.project.home.join(".ssh");
    std::fs::create_dir_all(&ssh_dir).unwrap();
    let key = common::ed25519(&ssh_dir, "id_ed25519");
    let allowed = common::allowed_signers(&s.project.scratch.join("home-allowed"), &[(PRINCIPAL, &key)]);
    std::fs::write(
        s.project.home.join(".gitconfig"),
        "[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = ~/.ssh/id_ed25519.pub\n",
    )
    .unwrap();
    s.project.attest(T005, &s.evidence, &[]).success();
    common::assert_every_line_verifies(&s.project.scratch, &allowed, &s.project.note_lines("HEAD"));
}

#[test]
fn a_key_literal_in_git_config_signs_through_ssh_keygen_with_the_key_held_by_an_agent() {
    let s = Setup::speckit(Evidence::Verified);
    let agent = Agent::start(&s.project.scratch_dir("agent"));
    agent.add(&s.key.private);
    std::fs::remove_file(&s.key.private).unwrap(); // only the agent holds it now
    s.project.git(&["config", "gpg.format", "ssh"]);
    s.project.git(&["config", "user.signingKey", &s.key.literal()]);
    let out = attest_with_agent(&s, Some(&agent), &["--json"]).success();
    let signer = signer_of(&out);
    assert!(signer.contains("key:: literal, through ssh-agent"), "{signer}");
    assert!(signer.contains("signed by ssh-keygen"), "{signer}");
    common::assert_every_line_verifies(&s.project.scratch, &s.allowed, &s.project.note_lines("HEAD"));
}

#[test]
fn a_public_key_file_whose_private_half_is_only_in_an_agent_signs_through_ssh_keygen() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    let agent = Agent::start(&s.project.scratch_dir("agent"));
    agent.add(&s.key.private);
    std::fs::remove_file(&s.key.private).unwrap();
    let out =
        attest_with_agent(&s, Some(&agent), &["--key", s.key.public.to_str().unwrap(), "--json"]).success();
    assert!(signer_of(&out).contains("signed by ssh-keygen"), "{out}");
    let lines = s.project.note_lines("HEAD");
    assert_eq!(lines.len(), 6);
    common::assert_every_line_verifies(&s.project.scratch, &s.allowed, &lines);
}

#[test]
fn without_a_key_the_lines_are_written_unsigned_and_the_command_says_how_to_fix_it() {
    let s = Setup::speckit(Evidence::Verified);
    let out = s.project.attest(T005, &s.evidence, &[]).success();
    assert!(out.stdout.contains("5 lines, 0 signed"), "{out}");
    assert!(out.stdout.contains("unsigned: no signing key configured"), "{out}");
    assert!(out.stdout.contains("git config user.signingKey"), "{out}");
    assert!(out.stdout.contains("--key KEY"), "{out}");
    assert!(out.stdout.contains("speccoder attest sign"), "{out}");
    for line in s.project.note_lines("HEAD") {
        assert_eq!(line.envelope["signatures"], serde_json::json!([]));
    }
}

/// A `--key` written as a path that does not exist is named as such (exit 13, nothing written),
/// not taken for a gpg key id that user.signingKey names; and a project whose signer is `none`
/// says how to sign anyway, and signs with a `--key` given.
#[test]
fn a_missing_key_file_is_named_and_signer_none_says_how_to_sign_anyway() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let missing = p.scratch.join("no-such-key");
    let before = p.snapshot();
    let out = p.attest(T005, &s.evidence, &["--key", missing.to_str().unwrap()]).failure(13);
    assert!(out.stderr.contains(&format!("the --key file {} does not exist", missing.display())), "{out}");
    assert!(!out.stderr.contains("user.signingKey"), "{out}");
    assert_eq!(p.snapshot(), before);

    p.attest(T005, &s.evidence, &["--signer", "none"]).success();
    p.write("speccoder.toml", "[attest]\nsigner = \"none\"\n");
    p.git(&["add", "speccoder.toml"]);
    p.git(&["commit", "-q", "-m", "unsigned by policy"]);
    let out = p.speccoder(&["attest", "sign", "HEAD~"]).failure(13);
    assert!(out.stderr.contains("`--key KEY` or `--signer ssh|openpgp|sigstore` signs them anyway"), "{out}");
    let key = s.key.private.to_str().unwrap();
    let out = p.speccoder(&["attest", "sign", "HEAD~", "--key", key]).success();
    assert!(out.stdout.contains("5 signed now"), "{out}");
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &p.note_lines("HEAD~"));
}

/// An SSH public key literal whose key does not decode.
const BAD_LITERAL: &str = "key::ssh-ed25519 AAAAnope";

/// A key that cannot be used (a file that cannot be read or is no key, a literal that does not
/// parse) is advised about where it was named: `--key` when it came from the flag,
/// `user.signingKey` when git's configuration named it.
#[cfg(unix)]
#[test]
fn an_unusable_key_file_is_advised_about_as_the_flag_or_the_git_setting_that_named_it() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let fifo = p.scratch.join("key-fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let text = p.scratch.join("key.txt");
    std::fs::write(&text, "not a key\n").unwrap();
    let before = p.snapshot();
    for (signer, key, says) in [
        ("ssh", fifo.to_str().unwrap(), "check --key"),
        ("ssh", "/dev/zero", "check --key"),
        ("ssh", text.to_str().unwrap(), "point --key at an OpenSSH private key"),
        ("openpgp", fifo.to_str().unwrap(), "check --key"),
        ("openpgp", text.to_str().unwrap(), "point --key at a file"),
        ("ssh", BAD_LITERAL, "given as --key is not an OpenSSH public key"),
        ("ssh", BAD_LITERAL, "give --key `key::ssh-ed25519 AAAA… comment`"),
    ] {
        let out = p.attest(T005, &s.evidence, &["--signer", signer, "--key", key]).failure(13);
        assert!(out.stderr.contains(says), "{out}");
        assert!(!out.stderr.contains("user.signingKey"), "{out}");
    }
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", fifo.to_str().unwrap()]);
    let out = p.attest(T005, &s.evidence, &[]).failure(13);
    assert!(out.stderr.contains("check user.signingKey"), "{out}");
    p.git(&["config", "user.signingKey", BAD_LITERAL]);
    let out = p.attest(T005, &s.evidence, &[]).failure(13);
    assert!(out.stderr.contains("set user.signingKey to `key::ssh-ed25519 AAAA… comment`"), "{out}");
    assert!(!out.stderr.contains("--key"), "{out}");
    assert_eq!(p.snapshot(), before);
}

#[test]
fn attest_sign_signs_the_unsigned_lines_later_leaving_the_payloads_unchanged() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    let p = &s.project;
    p.attest(T005, &s.evidence, &[]).success();
    let task_commit = p.rev("HEAD");
    let initial = p.rev("HEAD~1");
    p.git(&["notes", "--ref", NOTES_REF, "add", "-m", "another commit's note", &initial]);
    let other_note = p.note(&initial).unwrap();
    // Work goes on: the task commit is no longer HEAD.
    p.write("src/tags/store.rs", "pub fn add() {}\n");
    p.git(&["add", "src/tags/store.rs"]);
    p.git(&["commit", "-qm", "more work"]);
    let unsigned = p.note_lines(&task_commit);
    let before = p.snapshot();

    let out =
        p.speccoder(&["attest", "sign", &task_commit, "--key", s.key.private.to_str().unwrap(), "--json"]);
    let out = out.success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["command"], "attest sign");
    assert_eq!(report["commit"], task_commit);
    assert_eq!(report["target"], T005);
    assert_eq!(report["branch"], Value::Null, "signing moves no branch");
    assert_eq!(report["lines"].as_array().unwrap().len(), 6);

    let signed = p.note_lines(&task_commit);
    assert_eq!(payloads(&signed), payloads(&unsigned));
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &signed);
    assert_eq!(p.note(&initial).unwrap(), other_note);
    let after = p.snapshot();
    assert_eq!((after.head, after.index, after.worktree), (before.head, before.index, before.worktree));

    // Signing again changes nothing.
    let note = p.note(&task_commit).unwrap();
    let again =
        p.speccoder(&["attest", "sign", &task_commit, "--key", s.key.private.to_str().unwrap()]).success();
    assert!(again.stdout.contains("every line was signed already"), "{again}");
    assert_eq!(p.note(&task_commit).unwrap(), note);
}

/// The report of `attest sign --key <key> --json` in `p`, which must succeed.
#[track_caller]
fn sign_json(p: &Project, key: &common::Key) -> Value {
    let out = p.speccoder(&["attest", "sign", "--key", key.private.to_str().unwrap(), "--json"]).success();
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// `[{"line": n, "count": 1}]` for each of lines 1 to 5.
fn one_other_on_each_line() -> Value {
    serde_json::json!((1..=5).map(|n| serde_json::json!({"line": n, "count": 1})).collect::<Vec<_>>())
}

#[test]
fn attest_sign_adds_its_signature_beside_a_junk_one_keeps_it_and_verify_then_holds() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.attest(T005, &s.evidence, &["--signer", "none"]).success();
    // Whoever can write notes puts a signature that is no signature on every line.
    let unsigned = p.note_lines("HEAD");
    let junked: Vec<Vec<u8>> = unsigned
        .iter()
        .map(|l| {
            let mut envelope = l.envelope.clone();
            envelope["signatures"] = serde_json::json!([{"keyid": "x", "sig": "AAAA"}]);
            serde_json::to_vec(&envelope).unwrap()
        })
        .collect();
    p.write_note("HEAD", &junked);
    let allowed = s.allowed.to_str().unwrap();
    let verify = || p.speccoder(&["attest", "verify", "--allowed-signers", allowed]);
    assert_ne!(verify().code(), Some(0), "junk is no signature");

    // A line flooded with as many signatures as a line may carry takes no more: nothing is signed.
    let mut flooded = junked.clone();
    let mut envelope = unsigned[2].envelope.clone();
    envelope["signatures"] = serde_json::json!(vec![serde_json::json!({"keyid": "x", "sig": "AAAA"}); 16]);
    flooded[2] = serde_json::to_vec(&envelope).unwrap();
    p.write_note("HEAD", &flooded);
    let before = p.note("HEAD");
    let out = p.speccoder(&["attest", "sign", "--key", s.key.private.to_str().unwrap()]).failure(14);
    assert!(out.stderr.contains("line 3 of the note of") && out.stderr.contains("16 signatures"), "{out}");
    assert_eq!(p.note("HEAD"), before, "nothing was signed");
    p.write_note("HEAD", &junked);

    let report = sign_json(p, &s.key);
    assert_eq!(report["signed_now"], serde_json::json!([1, 2, 3, 4, 5]), "{report}");
    assert_eq!(report["signed_before"], serde_json::json!([]), "{report}");
    assert_eq!(report["other_signatures"], one_other_on_each_line(), "{report}");
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("line 1, 2, 3, 4, 5 carries signatures that do not verify"), "{report}");
    let signed = p.note_lines("HEAD");
    assert_eq!(payloads(&signed), payloads(&unsigned));
    for line in &signed {
        assert_eq!(line.signatures.len(), 2, "the junk is kept, ours added: {:?}", line.envelope);
        assert_eq!(line.envelope["signatures"][0], serde_json::json!({"keyid": "x", "sig": "AAAA"}));
    }
    verify().success();
}

#[test]
fn attest_sign_adds_its_signature_beside_another_keys_and_names_the_lines_carrying_it() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.attest(T005, &s.evidence, &["--signer", "none"]).success();
    // Bob signs every line first, with his own key, valid but not Ada's.
    let bob = common::ed25519(&p.scratch, "bob");
    let report = sign_json(p, &bob);
    assert_eq!(report["signed_now"], serde_json::json!([1, 2, 3, 4, 5]), "{report}");
    let allowed = s.allowed.to_str().unwrap();
    p.speccoder(&["attest", "verify", "--allowed-signers", allowed]).failure(26);

    let out = p.speccoder(&["attest", "sign", "--key", s.key.private.to_str().unwrap()]).success();
    assert!(out.stdout.contains("5 lines, 5 signed by this signer (5 signed now, 0 signed before)"), "{out}");
    assert_eq!(out.stdout.matches("(signed now, 1 other signature(s) kept)").count(), 5, "{out}");
    assert!(
        out.stdout
            .contains("line 1, 2, 3, 4, 5 carries signatures that do not verify with this signer's key"),
        "{out}"
    );
    assert!(!out.stdout.contains("signed already"), "{out}");
    for line in p.note_lines("HEAD") {
        assert_eq!(line.signatures.len(), 2, "Bob's and Ada's: {:?}", line.envelope);
    }
    p.speccoder(&["attest", "verify", "--allowed-signers", allowed]).success();
}

#[test]
fn attest_sign_run_twice_has_nothing_to_sign_the_second_time_and_changes_nothing() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.attest(T005, &s.evidence, &["--signer", "none"]).success();
    sign_json(p, &s.key);
    let (notes, note) = (p.rev(NOTES_REF), p.note("HEAD"));

    let report = sign_json(p, &s.key);
    assert_eq!(report["signed_now"], serde_json::json!([]), "{report}");
    assert_eq!(report["signed_before"], serde_json::json!([1, 2, 3, 4, 5]), "{report}");
    assert_eq!(report["other_signatures"], serde_json::json!([]), "{report}");
    assert!(report["warnings"][0].as_str().unwrap().starts_with("nothing to sign"), "{report}");
    let out = p.speccoder(&["attest", "sign", "--key", s.key.private.to_str().unwrap()]).success();
    assert!(out.stdout.contains("(0 signed now, 5 signed before)"), "{out}");
    assert!(out.stdout.contains("warning: nothing to sign"), "{out}");
    assert_eq!((p.rev(NOTES_REF), p.note("HEAD")), (notes, note), "nothing changed");
}

#[test]
fn attest_sign_defaults_to_head_and_takes_the_key_from_git_config() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.attest(T005, &s.evidence, &["--signer", "none"]).success();
    let unsigned = p.note_lines("HEAD");
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", s.key.private.to_str().unwrap()]);
    let out = p.speccoder(&["attest", "sign"]).success();
    let head = p.rev("HEAD");
    assert!(out.stdout.starts_with(&format!("attest sign {T005}: {} (verified)\n", &head[..12])), "{out}");
    assert!(out.stdout.contains("5 lines, 5 signed"), "{out}");
    let signed = p.note_lines("HEAD");
    assert_eq!(payloads(&signed), payloads(&unsigned));
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &signed);
}

/// A configured key that cannot sign (a `key::` literal with no agent holding it) stops the
/// command before anything is written: a key was configured, so unsigned lines would be a
/// silent downgrade. With the agent, the same configuration signs.
#[test]
fn a_key_literal_without_an_agent_writes_nothing_and_with_the_agent_it_signs() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", &s.key.literal()]);
    let before = p.snapshot();
    let out = attest_with_agent(&s, None, &[]).failure(13);
    assert!(out.stderr.contains("ssh-agent"), "{out}");
    assert_eq!(p.snapshot(), before, "no commit, no note, no index change");

    let agent = Agent::start(&p.scratch_dir("agent"));
    agent.add(&s.key.private);
    let out = attest_with_agent(&s, Some(&agent), &[]).success();
    assert!(out.stdout.contains("5 lines, 5 signed"), "{out}");
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &p.note_lines("HEAD"));
}

#[test]
fn attest_sign_without_a_key_refuses_and_changes_nothing() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.attest(T005, &s.evidence, &[]).success();
    let before = p.snapshot();
    let note = p.note("HEAD");
    let out = p.speccoder(&["attest", "sign"]);
    assert_ne!(out.code(), Some(0), "{out}");
    assert!(out.stderr.contains("no signing key configured"), "{out}");
    assert_eq!(p.snapshot(), before);
    assert_eq!(p.note("HEAD"), note);
}

#[test]
fn attest_sign_on_a_commit_without_a_note_says_so_and_writes_nothing() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let before = p.snapshot();
    let out = p.speccoder(&["attest", "sign", "HEAD", "--key", s.key.private.to_str().unwrap()]).failure(14);
    assert!(out.stderr.contains("has no note in refs/notes/speccoder"), "{out}");
    assert_eq!(p.snapshot(), before);
}

#[test]
fn a_broken_key_file_is_a_configuration_error_and_nothing_is_written() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let broken = p.scratch.join("not-a-key");
    std::fs::write(&broken, "this is no key\n").unwrap();
    let before = p.snapshot();
    let out = p.attest(T005, &s.evidence, &["--key", broken.to_str().unwrap()]).failure(13);
    // Without gpg.format the key file's content decides the backend; this one is neither kind.
    assert!(out.stderr.contains("not-a-key is not a usable"), "{out}");
    assert_eq!(p.snapshot(), before);
}

/// A certificate as the signing key (`--key <key>-cert.pub`; `ssh-keygen -Y sign` finds the
/// private key beside it, and every signature carries the certificate): a second `attest sign`
/// knows those signatures for its own and signs nothing, and `ssh-keygen` accepts them from a
/// line naming the certificate itself and from a cert-authority line of its CA.
#[test]
fn attest_sign_with_a_certificate_signs_each_line_once() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.attest(T005, &s.evidence, &["--signer", "none"]).success();
    let ca = common::ed25519(&p.scratch, "ca");
    // Valid forever, as `ssh-keygen -s` makes it without -V.
    let cert = common::certify(&ca, &s.key, "ada-id", PRINCIPAL, &[]);
    let sign = || p.speccoder(&["attest", "sign", "--key", cert.to_str().unwrap()]).success();
    sign();
    let note = p.note("HEAD").unwrap();
    let again = sign();
    assert!(again.stdout.contains("every line was signed already"), "{again}");
    assert_eq!(p.note("HEAD").unwrap(), note, "the second run signed again");
    let lines = p.note_lines("HEAD");
    let allowed = p.scratch.join("cert_allowed");
    for trust in [common::cert_line(&cert), format!("cert-authority {}", ca.public_line)] {
        std::fs::write(&allowed, format!("{PRINCIPAL} {trust}\n")).unwrap();
        common::assert_every_line_verifies(&p.scratch, &allowed, &lines);
    }
}

/// git hands the configuration of its command line (`git -c key=value`) to an alias's program in
/// `GIT_CONFIG_PARAMETERS`, and a CI sets configuration as `GIT_CONFIG_COUNT` with
/// `GIT_CONFIG_KEY_<n>` and `GIT_CONFIG_VALUE_<n>`, which git reads before the command line's.
/// With no identity in any configuration file, the identity and the signing key found there
/// make the task commit and sign every line, as git takes them (`git var`).
#[test]
fn an_identity_and_a_signing_key_given_to_git_s_command_line_or_environment_make_and_sign_the_tick() {
    for via in ["an alias", "GIT_CONFIG_COUNT", "GIT_CONFIG_COUNT under GIT_CONFIG_PARAMETERS"] {
        let s = Setup::speckit(Evidence::Verified);
        let p = &s.project;
        p.git(&["config", "--unset", "user.name"]);
        p.git(&["config", "--unset", "user.email"]);
        p.store_kit_held_out_named_by(T005, &s.evidence);
        let key = s.key.private.to_str().unwrap();
        let settings = [
            ("user.name", "Grace Hopper"),
            ("user.email", "grace@example.com"),
            ("gpg.format", "ssh"),
            ("user.signingKey", key),
        ];
        let attest = ["attest", T005, "--evidence", s.evidence.to_str().unwrap(), "--json"];
        // The same program under git (an alias) or alone, in the same environment.
        let run = |program: &[&str], env: &[(String, String)]| {
            let mut cmd = if program[0] == "git" {
                let alias = format!("alias.sc=!\"{}\"", common::speccoder_bin().display());
                let mut args = vec!["-c".to_owned(), alias];
                for (k, v) in settings {
                    args.extend(["-c".to_owned(), format!("{k}={v}")]);
                }
                args.extend(program[1..].iter().map(|a| (*a).to_owned()));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                common::git_command(&p.root, &p.home, &args)
            } else {
                common::speccoder_command(&p.root, &p.home, program)
            };
            cmd.envs(env.iter().map(|(k, v)| (k, v)));
            common::run(cmd)
        };
        let mut env = Vec::new();
        let (out, git_says) = if via == "an alias" {
            (
                run(&[&["git", "sc"][..], &attest].concat(), &env),
                run(&["git", "var", "GIT_COMMITTER_IDENT"], &env),
            )
        } else {
            let mut count = settings.to_vec();
            if via.contains("PARAMETERS") {
                count[0].1 = "Someone Else";
                env.push(("GIT_CONFIG_PARAMETERS".to_owned(), "'user.name'='Grace Hopper'".to_owned()));
            }
            env.push(("GIT_CONFIG_COUNT".to_owned(), count.len().to_string()));
            for (i, (k, v)) in count.iter().enumerate() {
                env.push((format!("GIT_CONFIG_KEY_{i}"), (*k).to_owned()));
                env.push((format!("GIT_CONFIG_VALUE_{i}"), (*v).to_owned()));
            }
            let git = common::run({
                let mut cmd = common::git_command(&p.root, &p.home, &["var", "GIT_COMMITTER_IDENT"]);
                cmd.envs(env.iter().map(|(k, v)| (k, v)));
                cmd
            });
            (run(&attest, &env), git)
        };
        assert!(
            git_says.stdout.starts_with("Grace Hopper <grace@example.com> "),
            "{via}: git takes it\n{git_says}"
        );
        assert_eq!(out.code(), Some(0), "{via}\n{out}");
        let who = p.git(&["log", "-1", "--format=%an <%ae>, %cn <%ce>"]);
        assert_eq!(who.trim(), "Grace Hopper <grace@example.com>, Grace Hopper <grace@example.com>", "{via}");
        assert!(signer_of(&out).contains(&format!("key file {key}")), "{via}\n{out}");
        common::assert_every_line_verifies(&p.scratch, &s.allowed, &p.note_lines("HEAD"));
    }
}

/// `GIT_CONFIG_PARAMETERS` as `git -c key=value -c key` hands it on: a key given alone after a
/// value, which git refuses ("missing value for"), never reads as the value before it. Each
/// command that reads the key refuses it as git does (exit 13), naming the key, where it is set
/// and that it needs a value, and writes nothing: no tick signed by the user's own key or made
/// under the user's identity, no check against the user's allowed-signers file.
#[test]
fn a_key_given_alone_after_a_value_on_git_s_command_line_is_refused_as_git_refuses_it() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let other = common::ed25519(&p.scratch, "other");
    p.git(&["config", "--global", "gpg.format", "ssh"]);
    p.git(&["config", "--global", "user.signingKey", s.key.private.to_str().unwrap()]);
    p.git(&["config", "--global", "gpg.ssh.allowedSignersFile", s.allowed.to_str().unwrap()]);
    let given_alone = |key: &str, value: &str| format!("'{key}'='{value}' '{key}'");
    let accept = ["accept", &super::speckit_task("T001"), "--reason", "scaffold"];
    let before = p.snapshot();
    let other_key = other.private.to_str().unwrap();
    for (key, value) in
        [("user.signingKey", other_key), ("user.name", "Grace"), ("user.email", "g@x"), ("gpg.format", "ssh")]
    {
        let params = given_alone(key, value);
        let mut git =
            common::git_command(&p.root, &p.home, &["commit", "-q", "--allow-empty", "-S", "-m", "x"]);
        git.env("GIT_CONFIG_PARAMETERS", &params);
        let git = common::run(git);
        let refusal = format!("missing value for '{}'", key.to_lowercase());
        assert!(!git.status.success() && git.stderr.contains(&refusal), "git refuses {params}\n{git}");
        let mut ours = common::speccoder_command(&p.root, &p.home, &accept);
        ours.env("GIT_CONFIG_PARAMETERS", &params);
        let out = common::run(ours);
        assert_eq!(out.code(), Some(13), "{params}\n{out}");
        let named = format!("`{}` is given without a value", key.to_lowercase());
        for part in [&named, "GIT_CONFIG_PARAMETERS", &refusal] {
            assert!(out.stderr.contains(part), "{params}: says {part:?}\n{out}");
        }
    }
    assert_eq!(p.snapshot(), before, "a refusal wrote something");

    // The user's own trust file is never read in place of the one given alone.
    p.speccoder(&accept).success();
    let key = "gpg.ssh.allowedSignersFile";
    let params = given_alone(key, s.allowed.to_str().unwrap());
    let mut git = common::git_command(&p.root, &p.home, &["config", "--type=path", "--get", key]);
    git.env("GIT_CONFIG_PARAMETERS", &params);
    let git = common::run(git);
    assert!(!git.status.success() && git.stderr.contains("missing value for"), "git refuses it\n{git}");
    let mut verify = common::speccoder_command(&p.root, &p.home, &["attest", "verify", "--branch", "--all"]);
    verify.env("GIT_CONFIG_PARAMETERS", &params);
    let out = common::run(verify);
    assert_eq!(out.code(), Some(13), "{out}");
    assert!(out.stderr.contains("`gpg.ssh.allowedsignersfile` is given without a value"), "{out}");
    p.speccoder(&["attest", "verify", "--branch", "--all"]).success();
}

/// Each line of `lines` written by hand, as another tool may write it: members out of this
/// crate's order, the payload and each signature in URL-safe base64 without padding, a signature
/// object with a member DSSE readers ignore, white space, an unknown envelope member. Each as the
/// text before its `signatures` array closes and the text from there on.
fn written_otherwise(lines: &[NoteLine]) -> Vec<(String, String)> {
    use base64::Engine as _;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let json = |text: &str| Value::from(text).to_string();
    lines
        .iter()
        .map(|l| {
            let sigs: Vec<String> = l
                .signatures
                .iter()
                .map(|(keyid, sig)| {
                    format!(r#"{{"note":"kept?", "sig":"{}","keyid":{}}}"#, b64(sig), json(keyid))
                })
                .collect();
            let head = format!(
                r#"{{"payloadType":{} , "payload":"{}","signatures":[ {}"#,
                json(&l.payload_type),
                b64(&l.payload),
                sigs.join(" ,")
            );
            (head, r#"],"zz":{ "y" : 1.50 }}"#.to_owned())
        })
        .collect()
}

/// The signature objects inserted into `line`, which must be `head`, `,` and one object, `tail`.
#[track_caller]
fn one_inserted(line: &[u8], (head, tail): &(String, String)) -> String {
    let line = std::str::from_utf8(line).unwrap();
    let middle = line.strip_prefix(head.as_str()).and_then(|m| m.strip_suffix(tail.as_str()));
    let added =
        middle.and_then(|m| m.strip_prefix(',')).unwrap_or_else(|| panic!("{line}\nwas\n{head}{tail}"));
    let object: serde_json::Map<String, Value> = serde_json::from_str(added).unwrap();
    assert_eq!(object.keys().collect::<Vec<_>>(), ["keyid", "sig"], "{added}");
    added.to_owned()
}

#[test]
fn approve_and_sign_add_their_signature_leaving_every_other_byte_of_each_line_as_written() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    s.attest_signed(&[]);
    let mut written = written_otherwise(&p.note_lines("HEAD"));
    let text =
        |w: &[(String, String)]| w.iter().map(|(h, t)| format!("{h}{t}").into_bytes()).collect::<Vec<_>>();
    p.write_note("HEAD", &text(&written));
    let (bob, carol) = (common::ed25519(&p.scratch, "bob"), common::ed25519(&p.scratch, "carol"));
    let allowed = common::allowed_signers(
        &p.scratch.join("allowed_three"),
        &[(PRINCIPAL, &s.key), ("bob@example.com", &bob), ("carol@example.com", &carol)],
    );
    let allowed = allowed.to_str().unwrap();
    p.speccoder(&["attest", "verify", "--allowed-signers", allowed]).success();

    let key = |k: &common::Key| k.private.to_str().unwrap().to_owned();
    let out = p
        .speccoder(&[
            "attest",
            "approve",
            "HEAD",
            "--allowed-signers",
            allowed,
            "--key",
            &key(&bob),
            "--json",
        ])
        .success();
    let covering = serde_json::from_str::<Value>(&out.stdout).unwrap()["line"].as_u64().unwrap() as usize - 1;
    let note = p.note("HEAD").unwrap();
    let lines: Vec<&[u8]> = note.strip_suffix(b"\n").unwrap().split(|b| *b == b'\n').collect();
    assert_eq!(lines.len(), written.len());
    for (i, (line, w)) in lines.iter().zip(&mut written).enumerate() {
        if i == covering {
            w.0 = format!("{},{}", w.0, one_inserted(line, w));
        } else {
            assert_eq!(*line, format!("{}{}", w.0, w.1).as_bytes(), "line {} is not approved", i + 1);
        }
    }

    p.speccoder(&["attest", "sign", "--key", &key(&carol)]).success();
    let note = p.note("HEAD").unwrap();
    let lines: Vec<&[u8]> = note.strip_suffix(b"\n").unwrap().split(|b| *b == b'\n').collect();
    assert_eq!(lines.len(), written.len());
    for (line, w) in lines.iter().zip(&written) {
        one_inserted(line, w);
    }
    p.speccoder(&["attest", "verify", "--allowed-signers", allowed]).success();
}
