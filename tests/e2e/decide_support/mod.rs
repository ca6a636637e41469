//! Helpers for the decision, held-out and bug-task tests: a copy of `fixtures/speckit` as a real
//! git repository in a temporary directory, a real ed25519 key made by `ssh-keygen` with an
//! allowed-signers file trusting it, and the built `speccoder` run in an isolated environment.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use speccoder_attest::model::dsse::{Envelope, Signature};

/// The signer's principal in the allowed-signers file.
pub const PRINCIPAL: &str = "ada@example.com";
/// The fixture's unit.
pub const UNIT: &str = "001-bookmark-tags";
/// The fixture's bug.
pub const BUG: &str = "duplicate-tag-case";

/// What one run of `speccoder` did.
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Standard output as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"))
    }

    /// Asserts the exit code and returns self.
    #[track_caller]
    pub fn expect(self, code: i32) -> Self {
        assert_eq!(self.code, code, "{self:?}");
        self
    }
}

/// A Spec Kit project under git on branch `feature` (started from `main`), with a trusted key.
pub struct Project {
    _tmp: tempfile::TempDir,
    /// The work tree.
    pub root: PathBuf,
    /// A scratch directory outside the work tree.
    pub outside: PathBuf,
    /// The isolated HOME.
    pub home: PathBuf,
    /// The private key file.
    pub key: PathBuf,
    /// The allowed-signers file trusting the key for [`PRINCIPAL`].
    pub allowed: PathBuf,
}

impl Project {
    /// The Spec Kit fixture committed on `main`, then branch `feature` checked out.
    pub fn new() -> Project {
        Project::from_fixture("speckit")
    }

    /// `fixtures/<name>` committed on `main`, then branch `feature` checked out.
    pub fn from_fixture(name: &str) -> Project {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        let outside = tmp.path().join("outside");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        crate::common::copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name), &root);
        let key = tmp.path().join("id_ed25519");
        let out = Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", PRINCIPAL, "-f"])
            .arg(&key)
            .stdin(Stdio::null())
            .output()
            .expect("ssh-keygen runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
        let allowed = tmp.path().join("allowed_signers");
        std::fs::write(&allowed, format!("{PRINCIPAL} namespaces=\"in-toto\" {public}")).unwrap();
        let p = Project { _tmp: tmp, root, outside, home, key, allowed };
        p.git(&["init", "-q", "-b", "main"]);
        p.git(&["config", "user.name", "Ada Lovelace"]);
        p.git(&["config", "user.email", PRINCIPAL]);
        p.git(&["config", "commit.gpgsign", "false"]);
        p.git(&["add", "-A"]);
        p.git(&["commit", "-q", "-m", "The project"]);
        p.git(&["checkout", "-q", "-b", "feature"]);
        p
    }

    fn isolate(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LANG", "C")
            .current_dir(&self.root)
            .stdin(Stdio::null());
    }

    /// `git args` in the work tree, isolated; the output.
    pub fn git_output(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new("git");
        cmd.args(args);
        self.isolate(&mut cmd);
        cmd.output().expect("git runs")
    }

    /// `git args`, which must succeed; its standard output, trimmed.
    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_output(args);
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// `git args` with `stdin` as input, which must succeed; its standard output, trimmed.
    #[track_caller]
    pub fn git_with_input(&self, args: &[&str], stdin: &[u8]) -> String {
        let mut cmd = Command::new("git");
        cmd.args(args);
        self.isolate(&mut cmd);
        let mut child =
            cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), stdin).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// The `speccoder` under test (see `common::speccoder_bin`) with `args`, isolated, in the
    /// work tree.
    pub fn run(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new(crate::common::speccoder_bin());
        cmd.args(args);
        self.isolate(&mut cmd);
        let out = cmd.output().expect("speccoder runs");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Like [`Project::run`], with the process's address space limited to `max_kib` KiB
    /// (`ulimit -v`): a command that holds more than that in memory at once fails.
    pub fn run_limited(&self, max_kib: u64, args: &[&str]) -> Run {
        let mut cmd = Command::new("bash");
        let bin = crate::common::speccoder_bin();
        cmd.args(["-c", r#"ulimit -v "$1" && shift && exec "$@""#, "bash", &max_kib.to_string()]);
        cmd.arg(bin).args(args);
        self.isolate(&mut cmd);
        let out = cmd.output().expect("bash runs");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Like [`Project::run`], signing with the project's key.
    pub fn signed(&self, args: &[&str]) -> Run {
        let key = self.key.to_str().unwrap();
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--signer", "ssh", "--key", key]);
        self.run(&all)
    }

    /// `attest verify --branch --base main --json` against the project's trust (`extra` added).
    pub fn verify(&self, extra: &[&str]) -> Run {
        let allowed = self.allowed.to_str().unwrap();
        let mut args =
            vec!["attest", "verify", "--branch", "--base", "main", "--json", "--allowed-signers", allowed];
        args.extend(extra);
        self.run(&args)
    }

    /// Writes `text` to the project-relative `path`.
    pub fn write(&self, path: &str, text: &str) {
        let full = self.root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    /// `git add -A` and a commit with `message`.
    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// A `regression_only` evidence file for `task` outside the work tree, with `extra` fields
    /// (phases appended when `extra` has `phases`); returns its path.
    pub fn evidence(&self, task: &str, extra: Value) -> PathBuf {
        let mut e = serde_json::json!({
            "task": task,
            "verdict": "regression_only",
            "regression": { "code": "no_behaviour", "detail": "checked by the suite" },
            "phases": [ { "phase": "green", "result": "PASSED", "configuration": "cargo test" } ],
        });
        if let Value::Object(more) = extra {
            for (k, v) in more {
                if k == "phases" {
                    e["phases"].as_array_mut().unwrap().extend(v.as_array().unwrap().iter().cloned());
                } else {
                    e[k] = v;
                }
            }
        }
        let path = self.outside.join(format!("evidence-{}.json", task.replace(['/', ':'], "_")));
        std::fs::write(&path, serde_json::to_vec_pretty(&e).unwrap()).unwrap();
        path
    }

    /// `speccoder attest TASK --evidence FILE`, signed; must succeed.
    #[track_caller]
    pub fn attest(&self, task: &str, extra: Value) -> Run {
        let evidence = self.evidence(task, extra);
        self.signed(&["attest", task, "--evidence", evidence.to_str().unwrap()]).expect(0)
    }

    /// The note of `rev` in refs/notes/speccoder.
    pub fn note(&self, rev: &str) -> String {
        self.git(&["notes", "--ref=speccoder", "show", rev])
    }

    /// The statement (parsed) of each line of the note of `rev`.
    pub fn statements(&self, rev: &str) -> Vec<Value> {
        self.note(rev)
            .lines()
            .map(|l| {
                let env = Envelope::parse(l.as_bytes()).unwrap();
                serde_json::from_slice(&env.payload).unwrap()
            })
            .collect()
    }

    /// One envelope line over `statement` (its JSON with sorted keys), signed by `ssh-keygen -Y
    /// sign` with the project's key.
    pub fn signed_line(&self, statement: &Value) -> String {
        let mut env = Envelope::unsigned(serde_json::to_vec(statement).unwrap());
        let data = self.outside.join("pae.bin");
        std::fs::write(&data, env.pae()).unwrap();
        let _ = std::fs::remove_file(data.with_extension("bin.sig"));
        let out = Command::new("ssh-keygen")
            .args(["-Y", "sign", "-n", "in-toto", "-f"])
            .arg(&self.key)
            .arg(&data)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let sig = std::fs::read(data.with_extension("bin.sig")).unwrap();
        env.signatures.push(Signature { keyid: "test".into(), sig });
        String::from_utf8(env.to_line()).unwrap()
    }

    /// Replaces the note of `rev` with `lines`, one per line.
    pub fn set_note(&self, rev: &str, lines: &[String]) {
        let mut text = lines.join("\n");
        text.push('\n');
        self.git_with_input(
            &["notes", "--ref=speccoder", "add", "-f", "--no-stripspace", "-F", "-", rev],
            text.as_bytes(),
        );
    }

    /// Every ref under refs/ with its target, HEAD and the index: what "nothing written" compares.
    pub fn snapshot(&self) -> String {
        let refs = self.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
        let status = self.git(&["status", "--porcelain"]);
        format!("{refs}\nHEAD {}\n{status}", self.git(&["rev-parse", "HEAD"]))
    }

    /// `git fsck --strict` finds nothing.
    #[track_caller]
    pub fn fsck(&self) {
        let out = self.git_output(&["fsck", "--strict", "--no-dangling"]);
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && text.trim().is_empty(), "git fsck --strict: {text}");
    }
}

/// The row of `task` in a verify report.
#[track_caller]
pub fn row<'a>(report: &'a Value, task: &str) -> &'a Value {
    report["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["task"] == task)
        .unwrap_or_else(|| panic!("no row for {task} in {report:#}"))
}

/// The finding codes of a row.
pub fn codes(row: &Value) -> Vec<String> {
    row["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_owned()).collect()
}
