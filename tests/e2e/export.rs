//! `attest export`: the pack of a range that holds, checked with the peers a third party would
//! use and never with the crate's decoders: securesystemslib, run as docs/export.md's recipe says,
//! verifies the raw-key summary against the key the auditor trusts (ed25519 and ECDSA P-256, from
//! a key file and from ssh-agent) and refuses an edited one, or one another key signed;
//! sigstore-python verifies the keyless summary offline against the test Sigstore instance's
//! trusted root, bound to the `.commit` file; `git notes show`, `sha1sum` and `sha256sum` check
//! the notes and the commit object. A range that does not hold writes nothing.

use crate::common;
use crate::common::{Evidence, Key, PRINCIPAL, Project, SPECKIT_UNIT};

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// A project whose T005 is ticked `verified` and T006 `regression_only`, both signed by Ada,
/// with an origin whose URL carries a credential.
struct Ticked {
    p: Project,
    allowed: PathBuf,
    commits: Vec<String>,
}

impl Ticked {
    fn new() -> Ticked {
        let p = Project::speckit();
        let ada = common::ed25519(&p.scratch, "ada");
        let allowed = common::allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &ada)]);
        p.git(&["config", "gpg.format", "ssh"]);
        p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
        p.git(&["remote", "add", "origin", "https://ada:s3cret-token@git.example.com/acme/app.git"]);
        let mut commits = Vec::new();
        for (task, kind) in [("T005", Evidence::Verified), ("T006", Evidence::RegressionOnly)] {
            let target = format!("{SPECKIT_UNIT}/{task}");
            let evidence = common::write_evidence(&p.scratch_dir(&format!("ev-{task}")), &target, kind);
            p.attest(&target, &evidence, &[]).success();
            commits.push(p.rev("HEAD"));
        }
        Ticked { p, allowed, commits }
    }

    /// `speccoder attest export --branch --all --allowed-signers <ada> --out <out> <extra>`, with
    /// `env` set.
    fn export(&self, out: &Path, extra: &[&str], env: &[(&str, &Path)]) -> common::Run {
        let mut args = vec!["attest", "export", "--branch", "--all", "--allowed-signers"];
        args.push(self.allowed.to_str().unwrap());
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend_from_slice(extra);
        let mut cmd = common::speccoder_command(&self.p.root, &self.p.home, &args);
        cmd.envs(env.iter().copied());
        common::run(cmd)
    }
}

/// The securesystemslib recipe of docs/export.md ("The raw-key summary"), exactly as written,
/// run by an auditor who trusts the SSH public key `trusted` and holds the pack `pack`: `Ok` with
/// the key's scheme and keyid, or `Err` with why not.
fn documented_recipe_verifies(pack: &Path, trusted: &Path) -> Result<String, String> {
    let docs = std::fs::read_to_string(common::crate_root().join("docs/export.md")).unwrap();
    let from = docs.find("**securesystemslib**").expect("the recipe is documented");
    let recipe = docs[from..].split("```python\n").nth(1).and_then(|r| r.split("```").next()).unwrap();
    assert!(recipe.contains("open(\"vsa.pub\""), "the recipe reads the key the auditor trusts: {recipe}");
    let auditor = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(pack, auditor.path().join("pack")).unwrap();
    std::fs::copy(trusted, auditor.path().join("vsa.pub")).unwrap();
    let script = format!("{recipe}print(key.scheme, key.keyid)\n");
    let out = Command::new(common::peers_python())
        .arg("-c")
        .arg(script)
        .current_dir(auditor.path())
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() { Ok(said) } else { Err(said) }
}

/// docs/export.md's shell lines that write the PEM of the key the auditor trusts (`trusted`) and
/// compare the pack's copy with it, exactly as written (`python3` the peers' Python): whether
/// they found it the same.
fn documented_pem_is_the_pack_s(pack: &Path, trusted: &Path) -> bool {
    let docs = std::fs::read_to_string(common::crate_root().join("docs/export.md")).unwrap();
    let from = docs.find("A tool that reads a PEM key").expect("the lines are documented");
    let lines = docs[from..].split("```sh\n").nth(1).and_then(|r| r.split("```").next()).unwrap();
    let auditor = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(pack, auditor.path().join("pack")).unwrap();
    std::fs::copy(trusted, auditor.path().join("vsa.pub")).unwrap();
    let venv = common::peers_python().parent().unwrap().to_owned();
    let path = format!("{}:{}", venv.display(), std::env::var("PATH").unwrap_or_default());
    let status = Command::new("bash")
        .args(["-euc", lines])
        .env("PATH", path)
        .current_dir(auditor.path())
        .status()
        .unwrap();
    status.success()
}

/// docs/export.md's git and coreutils lines, exactly as written, run with `bash -e` beside the pack
/// `pack`: `Ok` with what they printed when every check held, `Err` with what they said.
fn documented_coreutils_lines_hold(pack: &Path) -> Result<String, String> {
    let docs = std::fs::read_to_string(common::crate_root().join("docs/export.md")).unwrap();
    let from = docs.find("## The head commit and the notes, with git and coreutils").expect("documented");
    let lines = docs[from..].split("```sh\n").nth(1).and_then(|r| r.split("```").next()).unwrap();
    let auditor = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(pack, auditor.path().join("pack")).unwrap();
    let out = Command::new("bash").args(["-euc", lines]).current_dir(auditor.path()).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() { Ok(said) } else { Err(said) }
}

/// Whether a DSSE verifier given the pack's own `vsa.pub.pem` and the envelope's `keyid` accepts
/// the pack's summary: what a forger who put their key in the pack counts on.
fn the_pack_s_own_key_verifies(pack: &Path) -> bool {
    const SCRIPT: &str = r#"
import json, sys
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey
envelope = Envelope.from_dict(json.load(open(sys.argv[1] + "/vsa.intoto.json")))
keyid = next(iter(envelope.signatures))
key = SSlibKey.from_crypto(load_pem_public_key(open(sys.argv[1] + "/vsa.pub.pem", "rb").read()), keyid=keyid)
envelope.verify([key], 1)
"#;
    Command::new(common::peers_python()).arg("-c").arg(SCRIPT).arg(pack).status().unwrap().success()
}

/// The files of `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

/// The statement a DSSE envelope (or a bundle's `dsseEnvelope`) carries.
fn payload_of(envelope: &Value) -> Value {
    serde_json::from_slice(&STANDARD.decode(envelope["payload"].as_str().unwrap()).unwrap()).unwrap()
}

/// `tool args...` run on `file`: its first word of output (a digest).
fn digest_by(tool: &str, file: &Path) -> String {
    let out = Command::new(tool).arg(file).output().unwrap();
    assert!(out.status.success(), "{tool} runs");
    String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap().to_owned()
}

/// Checks what every pack holds besides its summary: the notes byte for byte as `git notes show`
/// prints them, the commit object whose sha1 is the head and whose sha256 the summary's subject
/// names, and every note line named by its payload's sha256. Returns the summary statement.
#[track_caller]
fn check_pack(t: &Ticked, out: &Path, statement: &Value, summary_files: &[&str]) {
    let head = t.p.rev("HEAD");
    let mut expected: Vec<String> = t.commits.iter().map(|c| format!("{c}.intoto.jsonl")).collect();
    expected.push(format!("{head}.commit"));
    expected.extend(summary_files.iter().map(|f| (*f).to_owned()));
    expected.sort();
    assert_eq!(files(out), expected);
    let commit_file = out.join(format!("{head}.commit"));
    assert_eq!(digest_by("sha1sum", &commit_file), head, "the .commit file is the object git hashes");
    let raw = t.p.git_bytes(&["cat-file", "commit", &head]);
    assert_eq!(
        std::fs::read(&commit_file).unwrap(),
        [format!("commit {}\0", raw.len()).as_bytes(), &raw].concat()
    );
    let subject = &statement["subject"][0];
    assert_eq!(subject["digest"]["gitCommit"], head.as_str());
    assert_eq!(subject["digest"]["sha256"], digest_by("sha256sum", &commit_file).as_str());

    let mut inputs = Vec::new();
    for commit in &t.commits {
        let file = out.join(format!("{commit}.intoto.jsonl"));
        let note = t.p.note(commit).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), note, "the note of {commit}, byte for byte");
        for (i, line) in note.split(|&b| b == b'\n').filter(|l| !l.is_empty()).enumerate() {
            let envelope: Value = serde_json::from_slice(line).unwrap();
            let payload = STANDARD.decode(envelope["payload"].as_str().unwrap()).unwrap();
            inputs.push(json!({"name": format!("{commit}.intoto.jsonl#{}", i + 1), "digest": {"sha256": common::sha256(&payload)}}));
        }
    }
    let schema = common::schema_validator("statement-verification-summary.schema.json");
    let errors: Vec<String> = schema.iter_errors(statement).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "the summary meets its schema: {errors:?}");
    assert_eq!(subject["name"], format!("git+https://git.example.com/acme/app.git@{head}"));
    let p = &statement["predicate"];
    assert_eq!(statement["predicateType"], "https://slsa.dev/verification_summary/v1");
    assert_eq!(p["verifier"]["version"]["speccoder"], env!("CARGO_PKG_VERSION"));
    let time = p["timeVerified"].as_str().unwrap();
    assert!(time.len() == 20 && time.ends_with('Z') && time.as_bytes()[10] == b'T', "RFC 3339 UTC: {time}");
    assert_eq!(p["inputAttestations"], Value::Array(inputs));
    assert_eq!(p["verifier"]["id"], "https://speccoder.dev/verifier/v0");
    assert_eq!(p["verificationResult"], "PASSED");
    assert_eq!(p["verifiedLevels"], json!(["SPECCODER_REGRESSION_ONLY"]), "the lowest level of the range");
    assert_eq!(p["resourceUri"], format!("git+https://git.example.com/acme/app.git@{head}"));
    assert!(!statement.to_string().contains("s3cret"), "no credential leaves in the summary");
}

#[test]
fn an_ssh_key_summary_verifies_with_securesystemslib_and_an_edited_one_does_not() {
    let t = Ticked::new();
    for kind in ["ed25519", "ecdsa"] {
        let key = common::ssh_key(&t.p.scratch, &format!("vsa-{kind}"), kind);
        let out = t.p.scratch.join(format!("pack-{kind}"));
        let run = t.export(&out, &["--vsa-key", key.private.to_str().unwrap(), "--json"], &[]).success();
        let report: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(report["exit_code"], 0);
        assert_eq!(report["level"], "SPECCODER_REGRESSION_ONLY");
        let envelope_file = out.join("vsa.intoto.json");
        let envelope: Value = serde_json::from_slice(&std::fs::read(&envelope_file).unwrap()).unwrap();
        check_pack(&t, &out, &payload_of(&envelope), &["vsa.intoto.json", "vsa.pub.pem"]);
        // The keyid is the key's SHA256: fingerprint, as ssh-keygen prints it.
        let fingerprint = Command::new("ssh-keygen").args(["-l", "-f"]).arg(&key.public).output().unwrap();
        let fingerprint =
            String::from_utf8_lossy(&fingerprint.stdout).split_whitespace().nth(1).unwrap().to_owned();
        assert_eq!(envelope["signatures"][0]["keyid"], fingerprint.as_str());
        assert_eq!(report["keyid"], fingerprint.as_str());

        let said = documented_recipe_verifies(&out, &key.public).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let scheme = if kind == "ed25519" { "ed25519" } else { "ecdsa-sha2-nistp256" };
        assert_eq!(said.trim(), format!("{scheme} {fingerprint}"), "{kind}");
        assert!(documented_pem_is_the_pack_s(&out, &key.public), "{kind}: the PEM derived is the pack's");

        // An edited summary (another level) is refused.
        let mut statement = payload_of(&envelope);
        statement["predicate"]["verifiedLevels"] = json!(["SPECCODER_VERIFIED"]);
        let mut edited = envelope.clone();
        edited["payload"] = json!(STANDARD.encode(serde_json::to_vec(&statement).unwrap()));
        let edited_pack = t.p.scratch.join(format!("edited-{kind}"));
        common::copy_dir(&out, &edited_pack);
        std::fs::write(edited_pack.join("vsa.intoto.json"), edited.to_string()).unwrap();
        let refused = documented_recipe_verifies(&edited_pack, &key.public).unwrap_err();
        assert!(refused.contains("VerificationError"), "{kind}: {refused}");
        // So is a summary another key signed, even under the trusted key's keyid with that other
        // key put in the pack as vsa.pub.pem, which a verifier trusting the pack's key accepts.
        let other = common::ssh_key(&t.p.scratch, &format!("other-{kind}"), kind);
        let forged = t.p.scratch.join(format!("forged-{kind}"));
        t.export(&forged, &["--vsa-key", other.private.to_str().unwrap()], &[]).success();
        let refused = documented_recipe_verifies(&forged, &key.public).unwrap_err();
        assert!(refused.contains("VerificationError"), "{kind}: {refused}");
        let mut forgery: Value =
            serde_json::from_slice(&std::fs::read(forged.join("vsa.intoto.json")).unwrap()).unwrap();
        forgery["signatures"][0]["keyid"] = json!(fingerprint);
        std::fs::write(forged.join("vsa.intoto.json"), forgery.to_string()).unwrap();
        assert!(the_pack_s_own_key_verifies(&forged), "{kind}: the forgery holds for the pack's own key");
        assert!(!documented_pem_is_the_pack_s(&forged, &key.public), "{kind}: the forger's key is not yours");
        let refused = documented_recipe_verifies(&forged, &key.public).unwrap_err();
        assert!(refused.contains("VerificationError"), "{kind}: {refused}");
    }
}

/// The coreutils lines of docs/export.md hold for a pack as written, and fail for a pack missing a
/// note file, missing a note's last line, or holding a note the summary does not name: they
/// compare the summary's `inputAttestations` and the pack's lines both ways.
#[test]
fn the_documented_coreutils_lines_fail_a_pack_missing_a_note_file_or_a_line_or_with_one_more() {
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    let out = t.p.scratch.join("pack");
    t.export(&out, &["--vsa-key", key.private.to_str().unwrap()], &[]).success();
    let said = documented_coreutils_lines_hold(&out).unwrap_or_else(|e| panic!("the pack as written: {e}"));
    assert!(said.trim().is_empty(), "nothing differs: {said}");
    let altered = |name: &str, alter: &dyn Fn(&Path)| {
        let pack = t.p.scratch.join(name);
        common::copy_dir(&out, &pack);
        alter(&pack);
        documented_coreutils_lines_hold(&pack).expect_err(name)
    };
    let note = |pack: &Path, i: usize| pack.join(format!("{}.intoto.jsonl", t.commits[i]));
    let said = altered("missing-note", &|pack| std::fs::remove_file(note(pack, 0)).unwrap());
    assert!(said.contains(&format!("< {}.intoto.jsonl#1 ", t.commits[0])), "{said}");
    let said = altered("missing-line", &|pack| {
        let text = std::fs::read_to_string(note(pack, 1)).unwrap();
        let kept: Vec<&str> = text.lines().collect();
        assert!(kept.len() > 1, "a tick's note holds several lines");
        std::fs::write(note(pack, 1), kept[..kept.len() - 1].join("\n") + "\n").unwrap();
    });
    assert!(said.contains(&format!("< {}.intoto.jsonl#", t.commits[1])), "{said}");
    let said = altered("one-more", &|pack| {
        std::fs::copy(note(pack, 0), pack.join("0.intoto.jsonl")).map(drop).unwrap()
    });
    assert!(said.contains("> 0.intoto.jsonl#1 "), "{said}");
}

/// A P-256 key file whose scalar OpenSSH wrote without its leading zero byte (about one key in
/// 256; `fixtures/ssh/p256-short-scalar`) signs the summary itself, with no agent to ask.
/// `speccoder attest export <history...> --allowed-signers <ada> --vsa-key <key> --json --out
/// <out>`: the `--json` report and the summary statement it wrote.
fn export_of(t: &Ticked, history: &[&str], key: &Key, out: &Path) -> (Value, Value) {
    let mut args = vec!["attest", "export"];
    args.extend_from_slice(history);
    args.extend(["--allowed-signers", t.allowed.to_str().unwrap(), "--json"]);
    args.extend(["--vsa-key", key.private.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let run = t.p.speccoder(&args).success();
    let envelope: Value =
        serde_json::from_slice(&std::fs::read(out.join("vsa.intoto.json")).unwrap()).unwrap();
    (serde_json::from_str(&run.stdout).unwrap(), payload_of(&envelope))
}

#[test]
fn a_summary_of_part_of_the_history_names_its_base_and_only_the_whole_history_names_the_head_alone() {
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    let (base, head) = (t.commits[0].clone(), t.p.rev("HEAD"));
    // The base is named by an annotated tag: the summary names the commit the verifier peeled.
    t.p.git(&["tag", "-a", "-m", "release", "v1", &base]);
    let published = "git+https://git.example.com/acme/app.git";
    for (how, history) in [("range", &["v1..HEAD"][..]), ("branch-base", &["--branch", "--base", "v1"])] {
        let out = t.p.scratch.join(format!("pack-{how}"));
        let (report, statement) = export_of(&t, history, &key, &out);
        let uri = format!("{published}@{base}..{head}");
        assert_eq!(statement["predicate"]["resourceUri"], uri.as_str(), "{how}");
        assert_eq!(statement["subject"][0]["name"], uri.as_str(), "{how}");
        assert_eq!(statement["subject"][0]["digest"]["gitCommit"], head.as_str(), "{how}");
        assert_eq!((&report["resource_uri"], &report["checked"]), (&json!(uri), &json!("range")), "{how}");
        assert_eq!(report["base"], base.as_str(), "{how}");
        // `A..B` is checked as `--branch --base A`: every tick of the units it touched, and the
        // summary still verifies.
        let inputs = statement["predicate"]["inputAttestations"].as_array().unwrap();
        let named = |c: &str| inputs.iter().any(|i| i["name"].as_str().unwrap().starts_with(c));
        assert_eq!((named(&t.commits[0]), named(&t.commits[1])), (true, true), "{how}");
        documented_recipe_verifies(&out, &key.public).unwrap();
    }
    // The text report says it too.
    let out = t.p.scratch.join("pack-text");
    let args = ["attest", "export", "v1..HEAD", "--allowed-signers", t.allowed.to_str().unwrap()];
    let flags = ["--vsa-key", key.private.to_str().unwrap(), "--out", out.to_str().unwrap()];
    let text = t.p.speccoder(&[&args[..], &flags].concat()).success().stdout;
    assert!(text.contains(&format!("about: {published}@{base}..{head} sha256:")), "{text}");
    assert!(text.contains(&format!("{base} does not, not the head's whole history")), "{text}");

    // One commit named alone is checked as `REV^..REV`, and named so.
    let (report, statement) = export_of(&t, &[&head], &key, &t.p.scratch.join("pack-one"));
    assert_eq!(statement["predicate"]["resourceUri"], format!("{published}@{base}..{head}"));
    assert_eq!((&report["checked"], &report["base"]), (&json!("range"), &json!(base)));
    // The whole history, and only it, is named by the head alone.
    for (how, history) in [("branch-all", &["--branch", "--all"][..]), ("default", &[])] {
        let (report, statement) = export_of(&t, history, &key, &t.p.scratch.join(format!("pack-{how}")));
        assert_eq!(statement["predicate"]["resourceUri"], format!("{published}@{head}"), "{how}");
        assert_eq!(statement["subject"][0]["name"], format!("{published}@{head}"), "{how}");
        assert_eq!((&report["checked"], &report["base"]), (&json!("history"), &Value::Null), "{how}");
    }
}

#[test]
fn a_p256_key_file_with_a_short_scalar_signs_the_summary_without_an_agent() {
    let t = Ticked::new();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ssh");
    let key = t.p.scratch.join("vsa-short-scalar");
    std::fs::copy(fixtures.join("p256-short-scalar"), &key).unwrap();
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let out = t.p.scratch.join("pack");
    let run = t.export(&out, &["--vsa-key", key.to_str().unwrap(), "--json"], &[]).success();
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let fingerprint = Command::new("ssh-keygen")
        .args(["-l", "-f"])
        .arg(fixtures.join("p256-short-scalar.pub"))
        .output()
        .unwrap();
    let fingerprint =
        String::from_utf8_lossy(&fingerprint.stdout).split_whitespace().nth(1).unwrap().to_owned();
    assert_eq!(report["keyid"], fingerprint.as_str());
    let said = documented_recipe_verifies(&out, &fixtures.join("p256-short-scalar.pub")).unwrap();
    assert!(said.starts_with("ecdsa-sha2-nistp256"), "{said}");
}

#[test]
fn a_skip_the_check_reads_is_listed_and_never_packed() {
    let t = Ticked::new();
    let target = format!("{SPECKIT_UNIT}/T001");
    t.p.speccoder(&["skip", &target, "--reason", "moves to feature 002"]).success();
    let key = common::ed25519(&t.p.scratch, "vsa");
    let out = t.p.scratch.join("pack");
    let verify = ["attest", "verify", "--branch", "--all", "--allowed-signers", t.allowed.to_str().unwrap()];
    let run = t.p.speccoder(&verify).success();
    assert!(run.stdout.contains("skipped"), "the check lists the skip: {run}");
    t.export(&out, &["--vsa-key", key.private.to_str().unwrap()], &[]).success();
    let envelope: Value =
        serde_json::from_slice(&std::fs::read(out.join("vsa.intoto.json")).unwrap()).unwrap();
    check_pack(&t, &out, &payload_of(&envelope), &["vsa.intoto.json", "vsa.pub.pem"]);
}

#[test]
fn a_key_held_only_in_ssh_agent_signs_the_summary_raw() {
    let t = Ticked::new();
    let agent = common::Agent::start(&t.p.scratch);
    for kind in ["ed25519", "ecdsa"] {
        let key = common::ssh_key(&t.p.scratch, &format!("agent-{kind}"), kind);
        agent.add(&key.private);
        std::fs::remove_file(&key.private).unwrap();
        for (how, given) in [("pub", key.public.to_str().unwrap().to_owned()), ("literal", key.literal())] {
            let out = t.p.scratch.join(format!("pack-{kind}-{how}"));
            t.export(&out, &["--vsa-key", &given], &[("SSH_AUTH_SOCK", &agent.socket)]).success();
            let said =
                documented_recipe_verifies(&out, &key.public).unwrap_or_else(|e| panic!("{kind} {how}: {e}"));
            assert!(said.contains("SHA256:"), "{said}");
        }
        // Without the agent the key cannot sign: exit 13, nothing written.
        let out = t.p.scratch.join(format!("no-agent-{kind}"));
        let run = t.export(&out, &["--vsa-key", key.public.to_str().unwrap()], &[]).failure(13);
        assert!(run.stderr.contains("no ssh-agent is reachable"), "{run}");
        assert!(!out.exists());
    }
}

#[cfg(feature = "sigstore")]
#[test]
fn a_keyless_summary_verifies_with_sigstore_python_offline_against_the_test_instance() {
    use crate::common::sigstore_instance::{self as instance, Instance};
    const EMAIL: &str = "ada@example.com";
    const ISSUER: &str = "https://issuer.test";
    let t = Ticked::new();
    let i = std::sync::Arc::new(Instance::new());
    let (url, _requests) = instance::serve_fulcio_and_rekor(&i, EMAIL, ISSUER);
    let out = t.p.scratch.join("keyless");
    let root = t.p.scratch.join("signing_root.json");
    std::fs::write(&root, i.trusted_root().to_string()).unwrap();
    let args = [
        &["--vsa-signer", "sigstore", "--sigstore-fulcio-url", &url, "--sigstore-rekor-url", &url][..],
        &["--sigstore-signing-root", root.to_str().unwrap()],
    ]
    .concat();
    let mut cmd = common::speccoder_command(
        &t.p.root,
        &t.p.home,
        &[
            &["attest", "export", "--branch", "--all", "--allowed-signers", t.allowed.to_str().unwrap()][..],
            &["--out", out.to_str().unwrap(), "--sigstore-allow-http-loopback"],
            &args,
        ]
        .concat(),
    );
    cmd.env("SIGSTORE_ID_TOKEN", "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2lzc3Vlci50ZXN0Iiwic3ViIjoiYWRhIiwiZW1haWwiOiJhZGFAZXhhbXBsZS5jb20iLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl");
    common::run(cmd).success();
    let bundle_file = out.join("vsa.sigstore.json");
    let bundle: Value = serde_json::from_slice(&std::fs::read(&bundle_file).unwrap()).unwrap();
    assert_eq!(bundle["mediaType"], "application/vnd.dev.sigstore.bundle.v0.3+json");
    check_pack(&t, &out, &payload_of(&bundle["dsseEnvelope"]), &["vsa.sigstore.json"]);
    documented_coreutils_lines_hold(&out).unwrap_or_else(|e| panic!("the coreutils lines: {e}"));

    // sigstore-python, offline, trusting the test instance only (a client trust config holding its
    // trusted root). Its `sigstore verify` command cannot be the peer: it reads the statement with
    // a model that takes sha* subject digests only and refuses `gitCommit`, which in-toto's
    // DigestSet allows. Its `Verifier.verify_dsse` checks everything else (the chain to the root,
    // the SCT, the Rekor entry and its SET, the DSSE signature, the identity), and the subject is
    // bound to the commit file with sha256sum.
    let trust = t.p.scratch.join("trust_config.json");
    let config = json!({
        "mediaType": "application/vnd.dev.sigstore.clienttrustconfig.v0.1+json",
        "trustedRoot": i.trusted_root(),
        "signingConfig": {"mediaType": "application/vnd.dev.sigstore.signingconfig.v0.2+json"}
    });
    std::fs::write(&trust, config.to_string()).unwrap();
    let verify = |bundle: &Path, identity: &str| sigstore_python_verifies(&trust, bundle, identity, ISSUER);
    let payload = verify(&bundle_file, EMAIL).unwrap_or_else(|e| panic!("sigstore-python refuses: {e}"));
    let statement: Value = serde_json::from_slice(&payload).unwrap();
    assert_eq!(statement, payload_of(&bundle["dsseEnvelope"]));
    let commit_file = out.join(format!("{}.commit", t.p.rev("HEAD")));
    assert_eq!(statement["subject"][0]["digest"]["sha256"], digest_by("sha256sum", &commit_file).as_str());

    let refused = verify(&bundle_file, "eve@example.com").unwrap_err();
    assert!(refused.contains("VerificationError"), "another identity is refused: {refused}");
    // An edited summary (another level) is refused.
    let mut edited = bundle.clone();
    let mut changed = statement.clone();
    changed["predicate"]["verifiedLevels"] = json!(["SPECCODER_VERIFIED"]);
    edited["dsseEnvelope"]["payload"] = json!(STANDARD.encode(serde_json::to_vec(&changed).unwrap()));
    let edited_file = t.p.scratch.join("edited.sigstore.json");
    std::fs::write(&edited_file, edited.to_string()).unwrap();
    let refused = verify(&edited_file, EMAIL).unwrap_err();
    assert!(refused.contains("VerificationError"), "an edited summary is refused: {refused}");
}

#[cfg(feature = "sigstore")]
#[test]
fn a_keyless_summary_whose_certificate_names_another_identity_is_refused_and_nothing_is_written() {
    use crate::common::sigstore_instance::{self as instance, Instance, Wrong};
    let t = Ticked::new();
    let i = std::sync::Arc::new(Instance::new());
    let (url, _requests) =
        instance::serve_answering(&i, "ada@example.com", "https://issuer.test", Wrong::OtherIdentity);
    let out = t.p.scratch.join("keyless");
    let root = t.p.scratch.join("signing_root.json");
    std::fs::write(&root, i.trusted_root().to_string()).unwrap();
    let mut cmd = common::speccoder_command(
        &t.p.root,
        &t.p.home,
        &[
            &["attest", "export", "--branch", "--all", "--allowed-signers", t.allowed.to_str().unwrap()][..],
            &["--out", out.to_str().unwrap(), "--sigstore-allow-http-loopback", "--vsa-signer", "sigstore"],
            &[
                "--sigstore-fulcio-url",
                &url,
                "--sigstore-rekor-url",
                &url,
                "--sigstore-signing-root",
                root.to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    cmd.env("SIGSTORE_ID_TOKEN", "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2lzc3Vlci50ZXN0Iiwic3ViIjoiYWRhIiwiZW1haWwiOiJhZGFAZXhhbXBsZS5jb20iLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl");
    let run = common::run(cmd).failure(13);
    assert!(run.stderr.contains("another identity or issuer than the token's"), "{run}");
    assert!(run.stderr.contains("mallory@evil.test"), "the wrong identity is named: {run}");
    assert!(!out.exists(), "nothing is written: {run}");
}

/// sigstore-python's verdict on the keyless bundle `bundle` for `identity` at `issuer`, offline,
/// trusting only the trusted root of the client trust config `trust`: the DSSE payload, or why
/// not.
#[cfg(feature = "sigstore")]
fn sigstore_python_verifies(
    trust: &Path,
    bundle: &Path,
    identity: &str,
    issuer: &str,
) -> Result<Vec<u8>, String> {
    const SCRIPT: &str = r#"
import sys
from sigstore.models import Bundle, ClientTrustConfig
from sigstore.verify import Verifier
from sigstore.verify.policy import Identity
trust, bundle, identity, issuer = sys.argv[1:]
root = ClientTrustConfig.from_json(open(trust).read()).trusted_root
verifier = Verifier(trusted_root=root)
kind, payload = verifier.verify_dsse(Bundle.from_json(open(bundle, "rb").read()), Identity(identity=identity, issuer=issuer))
assert kind == "application/vnd.in-toto+json", kind
sys.stdout.buffer.write(payload)
"#;
    let out = Command::new(common::peers_python())
        .arg("-c")
        .arg(SCRIPT)
        .args([trust, bundle])
        .args([identity, issuer])
        .output()
        .unwrap();
    if out.status.success() { Ok(out.stdout) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

#[test]
fn a_range_that_does_not_hold_writes_nothing_prints_the_report_and_exits_26() {
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    // T001 ticked by hand: a tick without evidence.
    let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
    let text = String::from_utf8(t.p.read(&tasks)).unwrap().replace("- [ ] T001", "- [X] T001");
    t.p.write(&tasks, text);
    t.p.git(&["commit", "-q", "-am", "Tick T001 by hand"]);
    let before = files(&t.p.scratch);
    let out = t.p.scratch.join("pack");
    let run = t.export(&out, &["--vsa-key", key.private.to_str().unwrap()], &[]).failure(26);
    assert!(run.stdout.contains("unverifiable 001-bookmark-tags/T001"), "the report is printed: {run}");
    assert!(run.stderr.contains("does not hold"), "{run}");
    assert_eq!(files(&t.p.scratch), before, "nothing at DIR, nothing beside it");
    // An empty directory given as DIR stays empty; --json prints the report with its exit code.
    std::fs::create_dir(&out).unwrap();
    let run = t.export(&out, &["--vsa-key", key.private.to_str().unwrap(), "--json"], &[]).failure(26);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["exit_code"], 26);
    assert_eq!(report["totals"]["unverifiable"], 1);
    assert!(files(&out).is_empty());
    // Both reports are the verifier's, byte for byte.
    let verify = ["attest", "verify", "--branch", "--all", "--allowed-signers", t.allowed.to_str().unwrap()];
    assert_eq!(t.p.speccoder(&[&verify[..], &["--json"]].concat()).failure(26).stdout, run.stdout);
    let text = t.export(&out, &["--vsa-key", key.private.to_str().unwrap()], &[]).failure(26);
    assert_eq!(t.p.speccoder(&verify).failure(26).stdout, text.stdout);
    // A DIR that cannot be written is said before the long check runs.
    std::fs::write(out.join("keep"), "keep").unwrap();
    let run = t.export(&out, &["--vsa-key", key.private.to_str().unwrap()], &[]).failure(13);
    assert!(run.stdout.is_empty() && run.stderr.contains("not empty"), "{run}");
}

#[test]
fn a_box_ticked_by_hand_in_the_history_a_summary_names_fails_the_export_with_or_without_a_range() {
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    let base = t.commits[0].clone();
    let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
    let text = String::from_utf8(t.p.read(&tasks)).unwrap().replace("- [ ] T001", "- [X] T001");
    t.p.write(&tasks, text);
    t.p.git(&["commit", "-q", "-am", "Tick T001 by hand"]);
    // The summary of `<head>` or `<base>..<head>` speaks for every tick of that history, the hand
    // tick among them, and not only for the task commits of the range.
    let range = format!("{base}..HEAD");
    let open = format!("{base}..");
    for history in [&[][..], &[range.as_str()], &[open.as_str()]] {
        let out = t.p.scratch.join("pack");
        let mut args = vec!["attest", "export", "--allowed-signers", t.allowed.to_str().unwrap()];
        args.extend_from_slice(history);
        args.extend(["--vsa-key", key.private.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let run = t.p.speccoder(&args).failure(26);
        assert!(run.stdout.contains("unverifiable 001-bookmark-tags/T001"), "{history:?}: {run}");
        assert!(!out.exists(), "{history:?}: nothing is written");
    }
    // One task commit named alone is checked as `REV^..REV`: the hand tick after it is not in it.
    let args = ["attest", "export", &t.commits[1], "--allowed-signers", t.allowed.to_str().unwrap()];
    let out = t.p.scratch.join("pack-one");
    let flags = ["--vsa-key", key.private.to_str().unwrap(), "--out", out.to_str().unwrap()];
    t.p.speccoder(&[&args[..], &flags].concat()).success();
    // `A...B` is refused as before.
    let args =
        ["attest", "export", &format!("{base}...HEAD"), "--allowed-signers", t.allowed.to_str().unwrap()];
    let out = t.p.scratch.join("pack-symmetric");
    let flags = ["--vsa-key", key.private.to_str().unwrap(), "--out", out.to_str().unwrap()];
    t.p.speccoder(&[&args[..], &flags].concat()).failure(2);
    assert!(!out.exists());
}

#[test]
fn a_commit_named_alone_fails_the_export_for_a_box_it_ticks_by_hand_and_a_root_commit_for_its_own() {
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    // The task commit of T007, then a commit that ticks T008 by hand (a task commit never takes a
    // box staged beside its tick).
    let target = format!("{SPECKIT_UNIT}/T007");
    let evidence = common::write_evidence(&t.p.scratch_dir("ev-T007"), &target, Evidence::Verified);
    t.p.attest(&target, &evidence, &[]).success();
    let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
    let text = String::from_utf8(t.p.read(&tasks)).unwrap().replace("- [ ] T008", "- [X] T008");
    t.p.write(&tasks, text);
    t.p.git(&["commit", "-q", "-am", "Tick T008 by hand"]);
    assert!(t.p.git(&["show", "HEAD", "--", &tasks]).contains("+- [X] T008"), "HEAD ticks T008 by hand");
    let before = files(&t.p.scratch);
    let out = t.p.scratch.join("pack");
    let export = |rev: &str| {
        let args = ["attest", "export", rev, "--allowed-signers", t.allowed.to_str().unwrap()];
        let flags = ["--vsa-key", key.private.to_str().unwrap(), "--out", out.to_str().unwrap()];
        t.p.speccoder(&[&args[..], &flags].concat()).failure(26)
    };
    // `REV` is checked as `REV^..REV` is: every box that commit ticks.
    for rev in ["HEAD", &format!("{}..HEAD", t.commits[1])] {
        let run = export(rev);
        assert!(run.stdout.contains("unverifiable 001-bookmark-tags/T008"), "{rev}: {run}");
        assert!(run.stderr.contains("nothing was written"), "{rev}: {run}");
        assert_eq!(files(&t.p.scratch), before, "{rev}: nothing at DIR, nothing beside it");
    }
    // A root commit's parent is the empty history: its own boxes, none with a task commit there.
    t.p.git(&["checkout", "-q", "--orphan", "elsewhere"]);
    t.p.git(&["commit", "-q", "-m", "One commit, its boxes ticked"]);
    let run = export("elsewhere");
    assert!(run.stdout.contains("unverifiable 001-bookmark-tags/T005"), "{run}");
    assert_eq!(files(&t.p.scratch), before, "nothing at DIR, nothing beside it");
}

#[test]
fn a_pack_inside_the_git_directory_is_refused_before_the_check_and_git_keeps_its_refs() {
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    // Packed refs (what `git gc` does) leave no file at a ref's own path.
    t.p.git(&["pack-refs", "--all"]);
    for out in [".git/refs/notes/speccoder", ".git/refs/heads/pack", "./.git/pack/."] {
        let run = t.export(Path::new(out), &["--vsa-key", key.private.to_str().unwrap()], &[]).failure(13);
        assert!(run.stdout.is_empty(), "refused before the check: {run}");
        assert!(
            run.stderr
                .contains(&format!("cannot write {out}: it lies inside the repository's git directory")),
            "{run}"
        );
        assert!(run.stderr.contains("choose a directory outside `.git`"), "{run}");
        assert!(!t.p.root.join(out).exists(), "{out}");
    }
    let refs = t.p.git(&["for-each-ref", "--format=%(refname)"]);
    assert!(!refs.contains("refs/heads/pack"), "{refs}");
    t.p.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "--all",
        "--allowed-signers",
        t.allowed.to_str().unwrap(),
    ])
    .success();
}

/// In a linked worktree `.git` is a file that leads git to the repository: a pack or a report at
/// it or under it is refused as one inside the git directory, never with advice to remove it, and
/// the work tree keeps its repository.
#[test]
fn a_pack_or_a_report_at_a_linked_worktree_s_git_file_is_refused_as_inside_the_git_directory() {
    let p = Project::speckit();
    let key = common::ed25519(&p.scratch, "vsa");
    let allowed = common::allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &key)]);
    let linked = p.scratch.join("linked");
    p.git(&["worktree", "add", "-q", "--detach", linked.to_str().unwrap(), "HEAD"]);
    let git_file = std::fs::read(linked.join(".git")).unwrap();
    let refused = |run: &common::Run, out: &str| {
        let says = format!("cannot write {out}: it lies inside the repository's git directory");
        assert!(run.stderr.contains(&says), "{run}");
        assert!(run.stderr.contains("choose a directory outside `.git`"), "{run}");
        assert!(!run.stderr.contains("remove"), "{run}");
    };
    for out in [".git/pack", ".git"] {
        let export =
            ["attest", "export", "--branch", "--all", "--allowed-signers", allowed.to_str().unwrap()];
        let flags = ["--vsa-key", key.private.to_str().unwrap(), "--out", out];
        refused(&p.speccoder_in(&linked, &[&export[..], &flags].concat()).failure(13), out);
    }
    let verify = ["attest", "verify", "--branch", "--all", "--allow-empty", "--markdown", ".git"];
    refused(&p.speccoder_in(&linked, &verify).failure(13), ".git");
    assert_eq!(std::fs::read(linked.join(".git")).unwrap(), git_file, "the work tree keeps its `.git` file");
    assert!(!p.git_in(&linked, &["rev-parse", "HEAD"]).is_empty(), "and git still finds its repository");
}

#[test]
fn an_empty_directory_named_with_a_trailing_dot_receives_the_pack() {
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    let empty = t.p.scratch.join("empty");
    std::fs::create_dir(&empty).unwrap();
    t.export(&empty.join("."), &["--vsa-key", key.private.to_str().unwrap()], &[]).success();
    assert!(files(&empty).contains(&"vsa.intoto.json".to_owned()), "{:?}", files(&empty));
    assert!(!files(&t.p.scratch).iter().any(|f| f.contains("partial")), "{:?}", files(&t.p.scratch));
}

/// Wherever a kill falls in an export, it leaves beside DIR only what is marked as ours, and the
/// next export to DIR removes it: the mark alone (killed before the hidden directory was made, or
/// just after it was renamed into place), the mark and an empty hidden directory (killed before a
/// file was written), the mark and the whole pack given its permissions (killed just before the
/// rename). A hidden directory of such a name without its mark, empty or not, is the user's.
#[cfg(unix)]
#[test]
fn whatever_a_killed_export_leaves_beside_dir_the_next_export_to_dir_removes() {
    use std::os::unix::fs::PermissionsExt as _;
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    let packs = t.p.scratch.join("packs");
    std::fs::create_dir(&packs).unwrap();
    let mark = |name: &str| std::fs::write(packs.join(format!("{name}.speccoder-partial")), "").unwrap();
    mark(".pack.partial-m4rk00");
    std::fs::create_dir(packs.join(".pack.partial-3mpty0")).unwrap();
    mark(".pack.partial-3mpty0");
    let renaming = packs.join(".pack.partial-r3nam3");
    std::fs::create_dir(&renaming).unwrap();
    for file in ["vsa.intoto.json", "vsa.pub.pem", "HEAD.commit"] {
        std::fs::write(renaming.join(file), "whole").unwrap();
    }
    std::fs::set_permissions(&renaming, std::fs::Permissions::from_mode(0o555)).unwrap();
    mark(".pack.partial-r3nam3");
    let users = [".pack.partial-us3r00", ".pack.partial-us3r01"];
    std::fs::create_dir(packs.join(users[0])).unwrap();
    std::fs::create_dir(packs.join(users[1])).unwrap();
    std::fs::write(packs.join(users[1]).join("notes.txt"), "mine").unwrap();

    t.export(&packs.join("pack"), &["--vsa-key", key.private.to_str().unwrap()], &[]).success();
    assert_eq!(files(&packs), [users[0], users[1], "pack"]);
    assert!(files(&packs.join("pack")).contains(&"vsa.intoto.json".to_owned()));
}

/// The `--json` report's `out` is the directory written, exactly, whatever its name holds (a
/// newline, an ESC), never its escaped text; the text report shows it escaped on one line. A DIR
/// that is not UTF-8, which no JSON string names exactly, is refused with `--json` before the
/// check (exit 2), nothing written, and exported to without it.
#[cfg(unix)]
#[test]
fn the_json_report_names_dir_exactly_and_one_not_utf8_is_refused_with_json_before_the_check() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    let key = key.private.to_str().unwrap();
    let out = t.p.scratch.join("pack\n\u{1b}[31m2");
    let run = t.export(&out, &["--vsa-key", key, "--json"], &[]).success();
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(Path::new(report["out"].as_str().unwrap()), out, "{run}");
    assert!(out.join("vsa.intoto.json").is_file());
    let text = t.p.scratch.join("pack\n3");
    let run = t.export(&text, &["--vsa-key", key], &[]).success();
    assert!(run.stdout.lines().next().unwrap().ends_with("/pack\\n3"), "{run}");

    let bad = t.p.scratch.join(OsStr::from_bytes(b"pack-\xff"));
    let args = |json: bool| {
        let mut args: Vec<&OsStr> =
            ["attest", "export", "--branch", "--all", "--vsa-key", key, "--allowed-signers"]
                .map(OsStr::new)
                .to_vec();
        args.extend([t.allowed.as_os_str(), OsStr::new("--out"), bad.as_os_str()]);
        args.extend(json.then_some(OsStr::new("--json")));
        args
    };
    let run = t.p.speccoder(&args(true)).failure(2);
    let said: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(said["exit_code"], 2, "{run}");
    assert!(said["error"].as_str().unwrap().contains("pack-\\xFF is not UTF-8"), "{run}");
    assert!(!run.stderr.contains("checked"), "refused before the check: {run}");
    assert!(!bad.exists());
    assert!(!files(&t.p.scratch).iter().any(|f| f.contains("partial")), "{:?}", files(&t.p.scratch));
    t.p.speccoder(&args(false)).success();
    assert!(bad.join("vsa.intoto.json").is_file());
}

#[test]
fn a_directory_or_key_that_cannot_be_used_is_refused_before_the_range_is_checked() {
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    let key = key.private.to_str().unwrap();
    let full = t.p.scratch.join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("keep"), "keep").unwrap();
    let run = t.export(&full, &["--vsa-key", key], &[]).failure(13);
    assert!(run.stderr.contains("it is a directory that is not empty"), "{run}");
    assert_eq!(files(&full), ["keep"]);
    let file = t.p.scratch.join("file");
    std::fs::write(&file, "precious").unwrap();
    t.export(&file, &["--vsa-key", key], &[]).failure(13);
    assert_eq!(std::fs::read(&file).unwrap(), b"precious");

    // A link at DIR, to an empty directory or to nowhere, is never written through.
    let empty = t.p.scratch.join("empty");
    std::fs::create_dir(&empty).unwrap();
    for (name, target) in [("link", empty.clone()), ("dangling", t.p.scratch.join("nowhere"))] {
        let link = t.p.scratch.join(name);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let run = t.export(&link, &["--vsa-key", key], &[]).failure(13);
        assert!(run.stderr.contains("symbolic link"), "{run}");
        assert_eq!(std::fs::read_link(&link).unwrap(), target);
    }
    assert!(files(&empty).is_empty());
    assert!(!t.p.scratch.join("nowhere").exists());
    // A mount point (`/proc`, a file system of its own), and a directory nobody may create in
    // (`/sys`): said why, before the check runs.
    #[cfg(target_os = "linux")]
    for (out, says) in [("/proc", "it is a mount point"), ("/sys/pack", "its directory /sys does not let")] {
        let run = t.export(Path::new(out), &["--vsa-key", key], &[]).failure(13);
        assert!(run.stdout.is_empty() && run.stderr.contains(says), "{out}: {run}");
    }

    let rsa = common::ssh_key(&t.p.scratch, "rsa", "rsa");
    let out = t.p.scratch.join("rsa-pack");
    let run = t.export(&out, &["--vsa-key", rsa.private.to_str().unwrap()], &[]).failure(13);
    assert!(run.stderr.contains("ed25519 and ecdsa-sha2-nistp256"), "{run}");
    assert!(!out.exists());
    let run = t.export(&out, &["--vsa-key", t.p.scratch.join("absent").to_str().unwrap()], &[]).failure(13);
    assert!(run.stderr.contains("--vsa-key"), "the advice names the flag: {run}");
    // One of --vsa-key and --vsa-signer is required.
    t.export(&out, &[], &[]).failure(2);
}

#[test]
fn a_branch_with_nothing_ticked_has_nothing_to_export() {
    let p = Project::speckit();
    let key = common::ed25519(&p.scratch, "vsa");
    let out = p.scratch.join("pack");
    let args = ["attest", "export", "--branch", "--all", "--out", out.to_str().unwrap(), "--vsa-key"];
    let run = p.speccoder(&[&args[..], &[key.private.to_str().unwrap()]].concat()).failure(15);
    assert!(run.stderr.contains("nothing to check"), "{run}");
    assert!(!out.exists());
}

#[test]
fn a_commit_named_alone_that_is_no_task_commit_has_nothing_to_export() {
    let p = Project::speckit();
    p.git(&["commit", "-q", "--allow-empty", "-m", "an ordinary commit"]);
    let key = common::ed25519(&p.scratch, "vsa");
    let out = p.scratch.join("pack");
    let args = ["attest", "export", "HEAD", "--out", out.to_str().unwrap(), "--vsa-key"];
    let run = p.speccoder(&[&args[..], &[key.private.to_str().unwrap()]].concat()).failure(15);
    assert!(run.stderr.contains("nothing to check"), "{run}");
    assert!(!out.exists());
}

#[test]
fn the_summary_names_the_verifier_policy_by_its_digest_and_never_by_a_local_path() {
    let t = Ticked::new();
    let key: Key = common::ed25519(&t.p.scratch, "vsa");
    let policy = t.p.scratch.join("speccoder-policy.toml");
    std::fs::write(&policy, "version = 1\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\nsigners = [\"*\"]\n")
        .unwrap();
    let out = t.p.scratch.join("pack");
    let policy_flag = ["--policy", policy.to_str().unwrap()];
    t.export(&out, &[&["--vsa-key", key.private.to_str().unwrap()][..], &policy_flag].concat(), &[])
        .success();
    let envelope: Value =
        serde_json::from_slice(&std::fs::read(out.join("vsa.intoto.json")).unwrap()).unwrap();
    let named = &payload_of(&envelope)["predicate"]["policy"];
    assert_eq!(named["digest"]["sha256"], digest_by("sha256sum", &policy).as_str());
    assert_eq!(named["uri"], "speccoder-policy.toml", "a local path never leaves the machine");
    // Nor does a relative one, whatever directories it names.
    std::fs::create_dir_all(t.p.scratch.join("acme-secret")).unwrap();
    std::fs::copy(&policy, t.p.scratch.join("acme-secret/policy.toml")).unwrap();
    let out = t.p.scratch.join("pack-relative");
    let relative = ["--policy", "../scratch/acme-secret/policy.toml"];
    t.export(&out, &[&["--vsa-key", key.private.to_str().unwrap()][..], &relative].concat(), &[]).success();
    let envelope = std::fs::read(out.join("vsa.intoto.json")).unwrap();
    let named = &payload_of(&serde_json::from_slice(&envelope).unwrap())["predicate"]["policy"];
    assert_eq!(named["uri"], "policy.toml", "{named:#}");
    // Without a policy, the built-in rules are named.
    let out = t.p.scratch.join("pack-built-in");
    t.export(&out, &["--vsa-key", key.private.to_str().unwrap()], &[]).success();
    let envelope: Value =
        serde_json::from_slice(&std::fs::read(out.join("vsa.intoto.json")).unwrap()).unwrap();
    assert_eq!(
        payload_of(&envelope)["predicate"]["policy"]["uri"],
        "https://speccoder.dev/policy/built-in/v0"
    );
}

#[test]
fn an_origin_url_with_control_characters_never_reaches_the_summary_or_the_terminal() {
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    t.p.git(&["remote", "set-url", "origin", "https://git.example.com/acme/\u{1b}]8;;evil\u{7}app.git"]);
    let out = t.p.scratch.join("pack");
    let run = t.export(&out, &["--vsa-key", key.private.to_str().unwrap()], &[]).success();
    assert!(!run.stdout.contains('\u{1b}') && !run.stderr.contains('\u{1b}'), "{run}");
    let envelope: Value =
        serde_json::from_slice(&std::fs::read(out.join("vsa.intoto.json")).unwrap()).unwrap();
    let statement = payload_of(&envelope);
    let head = t.p.rev("HEAD");
    assert_eq!(statement["predicate"]["resourceUri"], format!("git:{head}"), "named by the commit alone");
    assert_eq!(statement["subject"][0]["name"], format!("git:{head}"));
    assert!(!statement.to_string().contains("evil"));
}

#[test]
fn a_pack_made_under_a_private_umask_is_private_and_a_private_empty_directory_stays_private() {
    use std::os::unix::fs::PermissionsExt as _;
    let t = Ticked::new();
    let key = common::ed25519(&t.p.scratch, "vsa");
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    // `umask 077` then the export, as a user with a private umask runs it.
    let out = t.p.scratch.join("pack");
    let args = ["attest", "export", "--branch", "--all", "--allowed-signers", t.allowed.to_str().unwrap()];
    let mut args: Vec<&str> = args.to_vec();
    args.extend(["--vsa-key", key.private.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let bin = common::speccoder_bin().to_str().unwrap().to_owned();
    let mut shell = vec!["-c", "umask 077 && exec \"$0\" \"$@\"", &bin];
    shell.extend(&args);
    common::run(common::binary_command(Path::new("sh"), &t.p.root, &t.p.home, &shell)).success();
    assert_eq!(mode(&out), 0o700, "as mkdir makes it under umask 077");
    for name in files(&out) {
        assert_eq!(mode(&out.join(&name)), 0o600, "{name}");
    }
    // An empty directory the user made private, given as DIR, keeps its permissions.
    let private = t.p.scratch.join("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    t.export(&private, &["--vsa-key", key.private.to_str().unwrap()], &[]).success();
    assert_eq!(mode(&private), 0o700);
}
