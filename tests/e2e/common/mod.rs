//! The end-to-end test kit: real repositories in temporary directories, driven by the real `git`,
//! keys and verdicts from the real `ssh-keygen`, and the built `speccoder` binary, every process
//! isolated from the machine's configuration. Nothing here calls the crate's own encoders: PAE,
//! base64 and digests are computed independently, so a test checks our output as a peer would.
//!
//! The `e2e` suite declares it as `mod common;`; the `readers` suite and the benches include it by
//! path.

#![allow(dead_code)]

#[cfg(feature = "sigstore")]
pub mod sigstore_instance;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

/// The principal every test key is allowed as.
pub const PRINCIPAL: &str = "ada@example.com";
/// The SSHSIG namespace of every line.
pub const NAMESPACE: &str = "in-toto";
/// The DSSE payload type of every line.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";
/// The notes reference that holds the bundles.
pub const NOTES_REF: &str = "refs/notes/speccoder";
/// The Spec Kit fixture's unit and the OpenSpec fixture's change.
pub const SPECKIT_UNIT: &str = "001-bookmark-tags";
/// The OpenSpec fixture's change id.
pub const OPENSPEC_UNIT: &str = "add-tag-filter";

/// The crate's root (fixtures, schemas).
pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The hex sha256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// DSSE's pre-authentication encoding, written out here from the specification:
/// `DSSEv1 <len(type)> <type> <len(body)> <body>`, lengths in decimal bytes.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!("DSSEv1 {} {} {} ", payload_type.len(), payload_type, payload.len()).into_bytes();
    out.extend_from_slice(payload);
    out
}

// ---------------------------------------------------------------------------------------------
// Processes

/// What a finished process left: its status and its output as text.
#[derive(Debug)]
pub struct Run {
    /// The exit status.
    pub status: ExitStatus,
    /// stdout, lossily decoded.
    pub stdout: String,
    /// stderr, lossily decoded.
    pub stderr: String,
}

impl Run {
    fn from(out: std::process::Output) -> Run {
        Run {
            status: out.status,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// The exit code (`None` when killed by a signal).
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// Fails the test unless the process exited 0; returns `self` for chaining.
    #[track_caller]
    pub fn success(self) -> Run {
        assert!(self.status.success(), "expected success, got {}\n{self}", self.status);
        self
    }

    /// Fails the test unless the process exited with `code`.
    #[track_caller]
    pub fn failure(self, code: i32) -> Run {
        assert_eq!(self.code(), Some(code), "expected exit {code}\n{self}");
        self
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--- stdout\n{}--- stderr\n{}---", self.stdout, self.stderr)
    }
}

/// Clears `cmd`'s environment down to what a test grants: `PATH`, a private `HOME`, no system or
/// global git configuration, no agent, no telemetry, a fixed locale.
pub fn isolate(cmd: &mut Command, home: &Path) {
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("OPENSPEC_TELEMETRY", "0")
        .env("NO_COLOR", "1");
}

/// Runs `cmd` with an empty stdin and returns what happened.
pub fn run(mut cmd: Command) -> Run {
    cmd.stdin(Stdio::null());
    Run::from(cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}")))
}

/// Runs `cmd` with `input` on its stdin and returns what happened.
pub fn run_with_stdin(mut cmd: Command, input: &[u8]) -> Run {
    use std::io::Write as _;
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    // A command that stops reading early closes the pipe: what it did is in its output.
    let _ = child.stdin.take().map(|mut stdin| stdin.write_all(input));
    Run::from(child.wait_with_output().unwrap_or_else(|e| panic!("cannot wait for {cmd:?}: {e}")))
}

/// `git` in `dir`, isolated with `home`.
pub fn git_command(dir: &Path, home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    isolate(&mut cmd, home);
    cmd.current_dir(dir).args(args);
    cmd
}

/// The `speccoder` binary the tests run: the one named by `SPECCODER_BIN` when that is set (a
/// release build, as the stress tests want), else the one cargo built for this run (what CI
/// runs). It is checked once to be this checkout's version: checkouts that
/// share a `CARGO_TARGET_DIR` overwrite each other's `target/<profile>/speccoder`, and a test must
/// not pass or fail on another checkout's code.
pub fn speccoder_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let bin = std::env::var_os("SPECCODER_BIN")
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_speccoder")), PathBuf::from);
        let out = Command::new(&bin)
            .arg("--version")
            .output()
            .unwrap_or_else(|e| panic!("the speccoder binary {} runs: {e}", bin.display()));
        let found = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let expected = format!("speccoder {}", env!("CARGO_PKG_VERSION"));
        assert_eq!(
            found,
            expected,
            "{} is another checkout's build (it shares this CARGO_TARGET_DIR); rebuild it here \
             (touch src/main.rs and run the tests again)",
            bin.display()
        );
        bin
    })
}

/// The built `speccoder` binary in `dir`, isolated with `home`.
pub fn speccoder_command<S: AsRef<OsStr>>(dir: &Path, home: &Path, args: &[S]) -> Command {
    binary_command(speccoder_bin(), dir, home, args)
}

/// The `speccoder` binary `bin` (another build than [`speccoder_bin`]) in `dir`, isolated with
/// `home`.
pub fn binary_command<S: AsRef<OsStr>>(bin: &Path, dir: &Path, home: &Path, args: &[S]) -> Command {
    let mut cmd = Command::new(bin);
    isolate(&mut cmd, home);
    cmd.current_dir(dir).args(args);
    cmd
}

// ---------------------------------------------------------------------------------------------
// Repositories

/// A temporary directory holding a repository (`repo/`), a private home (`home/`) and a scratch
/// directory outside the work tree for keys and evidence (`scratch/`).
pub struct Project {
    tmp: tempfile::TempDir,
    /// The work tree of the main worktree.
    pub root: PathBuf,
    /// The private HOME of every process of this project.
    pub home: PathBuf,
    /// Files that must not be inside the repository (keys, evidence, signatures).
    pub scratch: PathBuf,
}

/// What must not change when a command refuses: refs, HEAD, index and work tree.
#[derive(Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// `git for-each-ref` (every ref with its object).
    pub refs: String,
    /// `git rev-parse --verify -q HEAD` and `git symbolic-ref -q HEAD`.
    pub head: String,
    /// `git ls-files --stage` (the index).
    pub index: String,
    /// `git status --porcelain --untracked-files=all` and `git diff` (the work tree).
    pub worktree: String,
}

impl Project {
    /// A repository holding `fixtures/speckit`, one commit on `main`.
    pub fn speckit() -> Project {
        Project::from_fixture("speckit")
    }

    /// [`Project::speckit`] whose ticks git's configuration signs and trusts: `gpg.format=ssh`,
    /// `user.signingKey` a new ed25519 key of [`PRINCIPAL`], `gpg.ssh.allowedSignersFile` a file
    /// that lists it.
    pub fn speckit_signed_by_git_config() -> Project {
        let p = Project::speckit();
        let ada = ed25519(&p.scratch_dir("keys"), "ada");
        let trust = allowed_signers(&p.scratch.join("trust"), &[(PRINCIPAL, &ada)]);
        p.git(&["config", "gpg.format", "ssh"]);
        p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
        p.git(&["config", "gpg.ssh.allowedSignersFile", trust.to_str().unwrap()]);
        p
    }

    /// A repository holding `fixtures/openspec`, one commit on `main`.
    pub fn openspec() -> Project {
        Project::from_fixture("openspec")
    }

    /// A repository holding `fixtures/<name>`, committed once on `main`.
    pub fn from_fixture(name: &str) -> Project {
        let project = Project::uncommitted(name);
        project.git(&["add", "-A"]);
        project.git(&["commit", "-q", "-m", "Initial project"]);
        project
    }

    /// `git init` on `main` with `fixtures/<name>` copied in and nothing committed (an unborn
    /// branch). The repository's config names the committer; commits are never signed by git.
    pub fn uncommitted(name: &str) -> Project {
        let tmp = tempfile::tempdir().expect("a temporary directory");
        let root = tmp.path().join("repo");
        let home = tmp.path().join("home");
        let scratch = tmp.path().join("scratch");
        for dir in [&root, &home, &scratch] {
            std::fs::create_dir_all(dir).unwrap();
        }
        copy_dir(&crate_root().join("fixtures").join(name), &root);
        let project = Project { tmp, root, home, scratch };
        project.git(&["init", "-q", "-b", "main"]);
        for (key, value) in [
            ("user.name", "Ada Lovelace"),
            ("user.email", PRINCIPAL),
            ("commit.gpgsign", "false"),
            ("core.autocrlf", "false"),
        ] {
            project.git(&["config", key, value]);
        }
        project
    }

    /// Appends `count` open tasks (`T1000`, `T1001`, ...) to the Spec Kit fixture's task list,
    /// commits them, and returns their `<unit>/<task>` targets: room for many ticks.
    pub fn add_speckit_tasks(&self, count: usize) -> Vec<String> {
        let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
        let mut text = String::from_utf8(self.read(&tasks)).unwrap();
        text.push_str("\n## Phase 9: Many more\n\n");
        let ids: Vec<String> = (0..count).map(|i| format!("T{}", 1000 + i)).collect();
        for id in &ids {
            text.push_str(&format!("- [ ] {id} Extra task {id} in src/extra.rs\n"));
        }
        self.write(&tasks, text);
        self.git(&["add", &tasks]);
        self.git(&["commit", "-q", "-m", "More tasks"]);
        ids.iter().map(|id| format!("{SPECKIT_UNIT}/{id}")).collect()
    }

    /// The temporary directory everything lives in.
    pub fn tmp(&self) -> &Path {
        self.tmp.path()
    }

    /// Runs git in the work tree; fails the test on a non-zero exit; returns stdout.
    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.root, args)
    }

    /// Runs git in `dir` (another worktree); fails the test on a non-zero exit; returns stdout.
    #[track_caller]
    pub fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        let out = run(git_command(dir, &self.home, args));
        assert!(out.status.success(), "git {args:?} failed\n{out}");
        out.stdout
    }

    /// Runs git in the work tree and returns whatever happened.
    pub fn git_run(&self, args: &[&str]) -> Run {
        run(git_command(&self.root, &self.home, args))
    }

    /// Runs git and returns stdout as raw bytes (for byte-for-byte comparisons).
    #[track_caller]
    pub fn git_bytes(&self, args: &[&str]) -> Vec<u8> {
        let out = git_command(&self.root, &self.home, args).stdin(Stdio::null()).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    /// Runs `speccoder` in the work tree.
    pub fn speccoder<S: AsRef<OsStr>>(&self, args: &[S]) -> Run {
        self.speccoder_in(&self.root, args)
    }

    /// Runs `speccoder` in `dir`.
    pub fn speccoder_in<S: AsRef<OsStr>>(&self, dir: &Path, args: &[S]) -> Run {
        run(speccoder_command(dir, &self.home, args))
    }

    /// `speccoder attest <target> --evidence <file>` with `extra` arguments, in the work tree.
    /// Evidence that names the kit's held-out set for `target` ([`Evidence::WithHeldOut`]) finds
    /// it stored.
    pub fn attest(&self, target: &str, evidence: &Path, extra: &[&str]) -> Run {
        self.store_kit_held_out_named_by(target, evidence);
        let mut args: Vec<&OsStr> = vec!["attest".as_ref(), target.as_ref(), "--evidence".as_ref()];
        args.push(evidence.as_os_str());
        args.extend(extra.iter().map(OsStr::new));
        self.speccoder(&args)
    }

    /// Stores the kit's held-out set for `target` when `evidence` names it.
    pub fn store_kit_held_out_named_by(&self, target: &str, evidence: &Path) {
        // Only a regular file is read: a test may hand a FIFO or a link the command must refuse.
        let regular = std::fs::symlink_metadata(evidence).is_ok_and(|m| m.is_file());
        let named = regular
            && std::fs::read_to_string(evidence).is_ok_and(|e| e.contains(&held_out_manifest(target)));
        if named {
            store_kit_held_out(&self.root.join(".git"), target);
        }
    }

    /// The full id of `rev`.
    #[track_caller]
    pub fn rev(&self, rev: &str) -> String {
        self.git(&["rev-parse", "--verify", rev]).trim().to_owned()
    }

    /// The refs, HEAD, index and work tree as they are now.
    pub fn snapshot(&self) -> Snapshot {
        let text = |args: &[&str]| self.git_run(args).stdout;
        Snapshot {
            refs: text(&["for-each-ref", "--format=%(refname) %(objectname)"]),
            head: text(&["rev-parse", "--verify", "-q", "HEAD"]) + &text(&["symbolic-ref", "-q", "HEAD"]),
            index: text(&["ls-files", "--stage"]),
            worktree: text(&["status", "--porcelain", "--untracked-files=all"]) + &text(&["diff"]),
        }
    }

    /// The note of `rev` in `refs/notes/speccoder`, exactly as `git notes show` prints it.
    pub fn note(&self, rev: &str) -> Option<Vec<u8>> {
        let out = git_command(&self.root, &self.home, &["notes", "--ref", NOTES_REF, "show", rev])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        out.status.success().then_some(out.stdout)
    }

    /// The lines of `rev`'s note, decoded; fails the test when there is no note.
    #[track_caller]
    pub fn note_lines(&self, rev: &str) -> Vec<NoteLine> {
        let note = self.note(rev).unwrap_or_else(|| panic!("{rev} has no note in {NOTES_REF}"));
        parse_bundle(&note)
    }

    /// Writes `bytes` to `rela` in the work tree (directories created).
    pub fn write(&self, rela: &str, bytes: impl AsRef<[u8]>) {
        let path = self.root.join(rela);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// Reads `rela` from the work tree.
    pub fn read(&self, rela: &str) -> Vec<u8> {
        std::fs::read(self.root.join(rela)).unwrap_or_else(|e| panic!("read {rela}: {e}"))
    }

    /// A fresh directory under scratch.
    pub fn scratch_dir(&self, name: &str) -> PathBuf {
        let dir = self.scratch.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}

/// Replaces `from` (which must be there) with `to` in the work tree's file `path`, and commits
/// it with `message`.
#[track_caller]
pub fn edit_and_commit(p: &Project, path: &str, from: &str, to: &str, message: &str) {
    let text = String::from_utf8(p.read(path)).unwrap();
    assert!(text.contains(from), "{path} holds no {from:?}");
    p.write(path, text.replace(from, to));
    p.git(&["commit", "-q", "-am", message]);
}

/// The arguments after `git` of each `git update-ref` command `text` advises in a code span, as a
/// person copies them to run (the names in these tests are plain: no span quotes one).
pub fn advised_update_refs(text: &str) -> Vec<Vec<String>> {
    let spans = text.split('`').skip(1).step_by(2);
    let commands = spans.filter(|span| span.starts_with("git update-ref "));
    commands.map(|c| c.split_whitespace().skip(1).map(str::to_owned).collect()).collect()
}

/// Copies the directory tree `from` into `to` (regular files and directories only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Notes

/// One line of a bundle, decoded without the crate's code.
#[derive(Debug, Clone)]
pub struct NoteLine {
    /// The line's bytes, without its newline.
    pub raw: Vec<u8>,
    /// The envelope as JSON.
    pub envelope: Value,
    /// `payloadType`.
    pub payload_type: String,
    /// The decoded payload: the exact statement bytes that were signed.
    pub payload: Vec<u8>,
    /// The statement parsed from `payload`.
    pub statement: Value,
    /// `(keyid, decoded sig)` of each signature.
    pub signatures: Vec<(String, Vec<u8>)>,
}

impl NoteLine {
    /// The statement's `predicateType`.
    pub fn predicate_type(&self) -> &str {
        self.statement["predicateType"].as_str().unwrap_or_default()
    }

    /// sha256 of the payload (the statement bytes), as the summary names a line.
    pub fn digest(&self) -> String {
        sha256(&self.payload)
    }

    /// The PAE bytes of this line, computed by [`pae`].
    pub fn pae(&self) -> Vec<u8> {
        pae(&self.payload_type, &self.payload)
    }
}

impl Project {
    /// The raw lines of `rev`'s note (each without its newline); fails the test when there is no
    /// note.
    #[track_caller]
    pub fn note_raw_lines(&self, rev: &str) -> Vec<Vec<u8>> {
        let note = self.note(rev).unwrap_or_else(|| panic!("{rev} has no note in {NOTES_REF}"));
        note.strip_suffix(b"\n").unwrap().split(|b| *b == b'\n').map(<[u8]>::to_vec).collect()
    }

    /// Replaces `rev`'s note by `lines`, each followed by a newline.
    pub fn write_note(&self, rev: &str, lines: &[Vec<u8>]) {
        let mut bytes = Vec::new();
        for l in lines {
            bytes.extend_from_slice(l);
            bytes.push(b'\n');
        }
        self.write_note_bytes(rev, &bytes);
    }

    /// Replaces `rev`'s note by exactly `bytes`, with `git notes add -f --no-stripspace`.
    pub fn write_note_bytes(&self, rev: &str, bytes: &[u8]) {
        let file = self.scratch.join("note.jsonl");
        std::fs::write(&file, bytes).unwrap();
        self.git(&[
            "notes",
            "--ref=speccoder",
            "add",
            "-f",
            "--no-stripspace",
            "-F",
            file.to_str().unwrap(),
            rev,
        ]);
    }

    /// An envelope line over `statement` signed by `key` with `ssh-keygen -Y sign`.
    pub fn ssh_signed_line(&self, statement: &Value, key: &Key) -> Vec<u8> {
        self.ssh_signed_line_with(statement, &key.private)
    }

    /// An envelope line over `statement` signed with `ssh-keygen -Y sign -f signing`: a private
    /// key, or a certificate beside its private key.
    pub fn ssh_signed_line_with(&self, statement: &Value, signing: &Path) -> Vec<u8> {
        // serde_json's map is sorted and compact: the canonical bytes, computed without the crate.
        let payload = serde_json::to_vec(statement).unwrap();
        let data = self.scratch.join("pae.bin");
        std::fs::write(&data, pae(PAYLOAD_TYPE, &payload)).unwrap();
        let mut cmd = Command::new("ssh-keygen");
        isolate(&mut cmd, &self.home);
        cmd.args(["-Y", "sign", "-n", NAMESPACE, "-f"]).arg(signing).arg(&data);
        run(cmd).success();
        let sig = std::fs::read(self.scratch.join("pae.bin.sig")).unwrap();
        std::fs::remove_file(self.scratch.join("pae.bin.sig")).unwrap();
        let envelope = json!({
            "payload": STANDARD.encode(&payload),
            "payloadType": PAYLOAD_TYPE,
            "signatures": [{ "keyid": "test", "sig": STANDARD.encode(sig) }],
        });
        serde_json::to_vec(&envelope).unwrap()
    }
}

/// The statement inside the envelope line `raw`, decoded without the crate.
pub fn statement_of(raw: &[u8]) -> Value {
    let env: Value = serde_json::from_slice(raw).unwrap();
    serde_json::from_slice(&STANDARD.decode(env["payload"].as_str().unwrap()).unwrap()).unwrap()
}

/// Splits a bundle into lines and decodes each; fails the test on a blank line, a missing final
/// newline or a line that is not an envelope.
#[track_caller]
pub fn parse_bundle(bundle: &[u8]) -> Vec<NoteLine> {
    assert!(bundle.ends_with(b"\n"), "the bundle must end with a newline");
    bundle[..bundle.len() - 1]
        .split(|b| *b == b'\n')
        .enumerate()
        .map(|(i, raw)| {
            assert!(!raw.is_empty(), "line {} of the bundle is blank", i + 1);
            let envelope: Value =
                serde_json::from_slice(raw).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
            let payload = STANDARD.decode(envelope["payload"].as_str().expect("payload")).expect("base64");
            let statement = serde_json::from_slice(&payload).expect("the payload is JSON");
            let signatures = envelope["signatures"]
                .as_array()
                .expect("signatures is an array")
                .iter()
                .map(|s| {
                    let keyid = s["keyid"].as_str().unwrap_or_default().to_owned();
                    (keyid, STANDARD.decode(s["sig"].as_str().expect("sig")).expect("base64 sig"))
                })
                .collect();
            NoteLine {
                raw: raw.to_vec(),
                payload_type: envelope["payloadType"].as_str().expect("payloadType").to_owned(),
                envelope,
                payload,
                statement,
                signatures,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// SSH

/// A key pair made by `ssh-keygen`.
#[derive(Debug, Clone)]
pub struct Key {
    /// The private key file.
    pub private: PathBuf,
    /// The public key file (`<private>.pub`).
    pub public: PathBuf,
    /// The public key line (`ssh-ed25519 AAAA… comment`).
    pub public_line: String,
}

impl Key {
    /// `key::<public key line>`, as git's `user.signingKey` takes a key held in an agent.
    pub fn literal(&self) -> String {
        format!("key::{}", self.public_line)
    }
}

/// `ssh-keygen -t <kind>` (`ed25519`, `ecdsa`, `rsa`) without a passphrase, into `dir/name`.
#[track_caller]
pub fn ssh_key(dir: &Path, name: &str, kind: &str) -> Key {
    let private = dir.join(name);
    let mut cmd = Command::new("ssh-keygen");
    isolate(&mut cmd, dir);
    cmd.args(["-q", "-t", kind, "-N", "", "-C", name, "-f"]).arg(&private);
    match kind {
        "ecdsa" => {
            cmd.args(["-b", "256"]);
        }
        "rsa" => {
            cmd.args(["-b", "2048"]);
        }
        _ => {}
    }
    run(cmd).success();
    let public = dir.join(format!("{name}.pub"));
    let public_line = std::fs::read_to_string(&public).unwrap().trim().to_owned();
    Key { private, public, public_line }
}

/// An ed25519 key in `dir/name`.
pub fn ed25519(dir: &Path, name: &str) -> Key {
    ssh_key(dir, name, "ed25519")
}

/// `ssh-keygen -s <ca> -I <id> -n <principals> [extra] <key>.pub`: the certificate's path,
/// `<key>-cert.pub`, beside the private key, where `ssh-keygen -Y sign -f <certificate>` finds it.
#[track_caller]
pub fn certify(ca: &Key, key: &Key, id: &str, principals: &str, extra: &[&str]) -> PathBuf {
    let dir = key.private.parent().unwrap();
    let mut cmd = Command::new("ssh-keygen");
    isolate(&mut cmd, dir);
    cmd.args(["-q", "-s"]).arg(&ca.private).args(["-I", id, "-n", principals]).args(extra);
    cmd.arg(&key.public);
    run(cmd).success();
    let mut cert = key.private.clone().into_os_string();
    cert.push("-cert.pub");
    PathBuf::from(cert)
}

/// The line of the certificate file `cert` (`ssh-ed25519-cert-v01@openssh.com AAAA… comment`).
pub fn cert_line(cert: &Path) -> String {
    std::fs::read_to_string(cert).unwrap().trim().to_owned()
}

/// Writes an allowed-signers file at `path`: one `principal namespaces="in-toto" <key>` line each.
pub fn allowed_signers(path: &Path, entries: &[(&str, &Key)]) -> PathBuf {
    let text: String = entries
        .iter()
        .map(|(principal, key)| format!("{principal} namespaces=\"{NAMESPACE}\" {}\n", key.public_line))
        .collect();
    std::fs::write(path, text).unwrap();
    path.to_owned()
}

/// Runs gpg (batch, no passphrase) on the keyring in `home/.gnupg`, where a signer's gpg run with
/// that home finds it; insists that it succeeds.
pub fn gpg(home: &Path, args: &[&str]) -> Run {
    let gnupg = home.join(".gnupg");
    std::fs::create_dir_all(&gnupg).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&gnupg, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let mut cmd = Command::new("gpg");
    isolate(&mut cmd, home);
    cmd.env("GNUPGHOME", &gnupg)
        .args(["--batch", "--pinentry-mode", "loopback", "--passphrase", ""])
        .args(args);
    run(cmd).success()
}

/// `ssh-keygen -Y sign` of `data` with `key`, namespace in-toto.
pub fn ssh_sign(dir: &Path, home: &Path, key: &Key, data: &[u8]) -> Vec<u8> {
    ssh_sign_with(dir, home, key, data, &[])
}

/// [`ssh_sign`] with more options (`-O hashalg=sha256`).
pub fn ssh_sign_with(dir: &Path, home: &Path, key: &Key, data: &[u8], options: &[&str]) -> Vec<u8> {
    let file = tempfile::NamedTempFile::new_in(dir).unwrap();
    std::fs::write(file.path(), data).unwrap();
    let mut cmd = Command::new("ssh-keygen");
    isolate(&mut cmd, home);
    cmd.args(["-q", "-Y", "sign", "-n", NAMESPACE]).args(options).arg("-f").arg(&key.private);
    cmd.arg(file.path());
    run(cmd).success();
    let sig_path = PathBuf::from(format!("{}.sig", file.path().display()));
    let sig = std::fs::read(&sig_path).unwrap();
    std::fs::remove_file(sig_path).unwrap();
    sig
}

/// `ssh-keygen -Y verify -f allowed -I principal -n in-toto -s <sig>` with `data` on stdin.
pub fn ssh_verify(dir: &Path, allowed: &Path, principal: &str, sig: &[u8], data: &[u8]) -> Run {
    let sig_file = tempfile::NamedTempFile::new_in(dir).unwrap();
    let data_file = tempfile::NamedTempFile::new_in(dir).unwrap();
    std::fs::write(sig_file.path(), sig).unwrap();
    std::fs::write(data_file.path(), data).unwrap();
    let mut cmd = Command::new("ssh-keygen");
    isolate(&mut cmd, dir);
    cmd.args(["-Y", "verify", "-n", NAMESPACE, "-I", principal, "-f"])
        .arg(allowed)
        .arg("-s")
        .arg(sig_file.path())
        .stdin(std::fs::File::open(data_file.path()).unwrap());
    Run::from(cmd.output().expect("ssh-keygen runs"))
}

/// Fails the test unless every line of `lines` carries one signature that `ssh-keygen -Y verify`
/// accepts for [`PRINCIPAL`] over the PAE bytes computed here.
#[track_caller]
pub fn assert_every_line_verifies(dir: &Path, allowed: &Path, lines: &[NoteLine]) {
    assert!(!lines.is_empty(), "no lines");
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line.payload_type, PAYLOAD_TYPE, "line {}", i + 1);
        assert_eq!(line.signatures.len(), 1, "line {} should carry one signature", i + 1);
        let (keyid, sig) = &line.signatures[0];
        assert!(keyid.starts_with("SHA256:"), "line {} keyid {keyid}", i + 1);
        assert!(sig.starts_with(b"-----BEGIN SSH SIGNATURE-----"), "line {} is not SSHSIG armor", i + 1);
        let out = ssh_verify(dir, allowed, PRINCIPAL, sig, &line.pae());
        assert!(out.status.success(), "line {} does not verify with ssh-keygen\n{out}", i + 1);
        assert!(out.stdout.contains(PRINCIPAL), "{out}");
    }
}

/// The OpenSSH helpers of the library's own tests (keys, `ssh-keygen -Y`, a private `ssh-agent`
/// stopped by its own handle when dropped), shared by path so both suites run the agent one way.
#[allow(dead_code)]
#[path = "../../../src/sign/ssh/test_support.rs"]
mod ssh_tools;
#[allow(unused_imports)]
pub use ssh_tools::Agent;

// ---------------------------------------------------------------------------------------------
// Evidence

/// Which evidence file to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// `fixtures/evidence/verified.json`: baseline, red (with `red.log`), green.
    Verified,
    /// Baseline, red, green and a passed held-out run: six lines.
    WithHeldOut,
    /// `regression_only` (`already_passing`): baseline and green, no red.
    RegressionOnly,
}

/// The one file of the kit's held-out set, and its bytes.
const KIT_HELD_OUT_FILE: (&str, &[u8]) = ("held_out.rs", b"#[test] fn held_out() {}\n");

/// The manifest bytes of the kit's held-out set for `task` (`<unit>/<task>`), as `held-out store`
/// writes them (canonical JSON, written out here by hand).
pub fn held_out_manifest_bytes(task: &str) -> Vec<u8> {
    let (path, bytes) = KIT_HELD_OUT_FILE;
    format!(r#"{{"files":[{{"path":"{path}","sha256":"{}"}}],"task":"{task}","version":1}}"#, sha256(bytes))
        .into_bytes()
}

/// The held-out manifest digest [`Evidence::WithHeldOut`] names for `task`: the kit's set, which
/// [`Project::attest`] puts into the store first.
pub fn held_out_manifest(task: &str) -> String {
    format!("sha256:{}", sha256(&held_out_manifest_bytes(task)))
}

/// Writes the kit's held-out set for `task` into the default store of the repository whose
/// common git directory is `common_dir` (`<common dir>/speccoder/held-out/<unit>/<key>/`), as
/// `held-out store` would.
pub fn store_kit_held_out(common_dir: &Path, task: &str) {
    let manifest = held_out_manifest_bytes(task);
    let unit = task.split_once('/').map_or(task, |(unit, _)| unit);
    let set = common_dir.join("speccoder/held-out").join(unit).join(sha256(&manifest));
    let (path, bytes) = KIT_HELD_OUT_FILE;
    std::fs::create_dir_all(set.join("files")).unwrap();
    std::fs::write(set.join("files").join(path), bytes).unwrap();
    std::fs::write(set.join("manifest.json"), manifest).unwrap();
}

/// The evidence JSON of `kind` for `task` (`<unit>/<task>`).
pub fn evidence_json(task: &str, kind: Evidence) -> Value {
    let path = crate_root().join("fixtures/evidence/verified.json");
    let mut value: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    value["task"] = json!(task);
    let phases = value["phases"].as_array_mut().unwrap();
    match kind {
        Evidence::Verified => {}
        Evidence::WithHeldOut => phases.push(json!({
            "phase": "held_out", "result": "PASSED", "manifest": held_out_manifest(task), "passed": 3, "total": 3
        })),
        Evidence::RegressionOnly => {
            phases.retain(|p| p["phase"] != "red");
            value["verdict"] = json!("regression_only");
            value["regression"] = json!({
                "code": "already_passing",
                "detail": "the acceptance tests passed before the change"
            });
            // A row claims no more than its tick.
            value["acceptance"][0]["result"] = json!("regression_only");
        }
    }
    value
}

/// Writes `evidence` as `dir/evidence.json` and `red` as `dir/red.log` beside it; returns the
/// evidence file's path.
pub fn write_evidence_value(dir: &Path, evidence: &Value, red: &[u8]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("red.log"), red).unwrap();
    let path = dir.join("evidence.json");
    std::fs::write(&path, serde_json::to_vec_pretty(evidence).unwrap()).unwrap();
    path
}

/// Writes the evidence of `kind` for `task` into `dir` beside the bundled `red.log`.
pub fn write_evidence(dir: &Path, task: &str, kind: Evidence) -> PathBuf {
    let red = std::fs::read(crate_root().join("fixtures/evidence/red.log")).unwrap();
    write_evidence_value(dir, &evidence_json(task, kind), &red)
}

// ---------------------------------------------------------------------------------------------
// Peers

/// The first `name` on `PATH`, as the shell finds it (for a wrapper that runs the real one).
#[track_caller]
pub fn on_path(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("{name} is on PATH"))
}

/// The Python of the pinned Python peers (securesystemslib, sigstore-python):
/// `.peers/venv/bin/python`, which `scripts/peers.sh` makes. Fails the test (never skips it) when
/// it is not there; a Python on PATH is not taken, since it need not hold the pinned versions.
#[track_caller]
pub fn peers_python() -> PathBuf {
    let python = crate_root().join(".peers/venv/bin/python");
    assert!(
        python.is_file(),
        "the Python peers are missing: run `bash scripts/peers.sh` (it installs the pinned \
         securesystemslib and sigstore-python into .peers/venv)"
    );
    python
}

/// The pinned OpenSpec CLI: `.peers/node_modules/.bin/openspec`, else `openspec` on `PATH`.
/// Fails the test (never skips it) when neither is there.
#[track_caller]
pub fn openspec() -> PathBuf {
    let pinned = crate_root().join(".peers/node_modules/.bin/openspec");
    if pinned.is_file() {
        return pinned;
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join("openspec"))
        .find(|p| p.is_file());
    on_path.unwrap_or_else(|| {
        panic!(
            "the OpenSpec CLI is missing: run `bash scripts/peers.sh` (it installs the pinned \
             @fission-ai/openspec into .peers/), or put `openspec` on PATH"
        )
    })
}

/// The JSON Schema validator of `schema/<file>`.
pub fn schema_validator(file: &str) -> jsonschema::Validator {
    let path = crate_root().join("schema").join(file);
    let schema: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What hostile text holds: ESC, a line break, the Unicode separators, bidi controls and
/// zero-width characters.
pub fn acts_or_hides(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061C}'
                | '\u{200B}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{FEFF}'
                | '\u{00AD}'
        )
}

/// Every string of `value` (object keys too), as `jq -r` would print each.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k.clone());
            strings(v, out);
        }),
        _ => {}
    }
}

/// The JSON object `run` printed, asserted inert ([`inert_value`]). Returns every string,
/// joined by newlines.
#[track_caller]
pub fn inert_json(run: &Run) -> String {
    let report: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("one JSON object: {e}\n{run}"));
    inert_value(&report)
}

/// `report` asserted inert: no string (object keys too) holds a character that acts on a
/// terminal, breaks a line or hides; so no value a CI step prints is a line of its own (a
/// workflow command). Returns every string, joined by newlines.
#[track_caller]
pub fn inert_value(report: &Value) -> String {
    let mut all = Vec::new();
    strings(report, &mut all);
    for s in &all {
        assert!(!s.chars().any(acts_or_hides), "a raw character in {s:?} of {report:#}");
        assert!(!s.lines().skip(1).any(|l| l.trim_start().starts_with("::")), "{s:?}");
    }
    all.join("\n")
}

/// The `{"error", "exit_code"}` object a failed `run` printed, asserted inert: the message's own
/// lines (a list of findings) each quote what they show, and nothing else is raw. Returns every
/// string, joined by newlines.
#[track_caller]
pub fn inert_failure(run: &Run) -> String {
    let mut report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let error = report["error"].take();
    let error = error.as_str().unwrap_or_else(|| panic!("an error: {run}"));
    for line in error.lines() {
        assert!(!line.chars().any(acts_or_hides) && !line.trim_start().starts_with("::"), "{line:?}");
    }
    inert_value(&report) + "\n" + error
}
