//! `cargo bench --bench notes_amplification`: hostile notes trees and a long note, read by the
//! release `speccoder`, with wall time and peak memory of each command (GNU `time`). It reports
//! and never fails on a time; under `cargo test` it runs small versions of each case once and
//! checks only that they end as they must.
//!
//! The cases (issue 21, item 3 and the linear note):
//!
//! 1. **Amplification.** Three small trees: a root of 256 fan-out entries
//!    `00`..`ff` that all name one tree of 256 fan-out entries, which all name one tree of 300
//!    notes. Walked naively that is 19.7 million notes. Read by `attest verify --branch --all`
//!    (every tick evidenced), by the same with one tick lacking evidence (which makes the verifier
//!    look through every note for evidence left behind), and by `held-out publish`.
//! 2. **Duplicated fan-out names.** The path to one real note, each of its 19 fan-out directories
//!    listed four times in its parent (a tree git never writes, but one it stores): a lookup that
//!    follows every match reads 4^19 trees. Read by `held-out publish` (one lookup per closed task)
//!    and `attest verify`.
//! 3. **A 30,000-line note.** A tick's note of 29,998 test-result lines, its task verification
//!    and a summary, signed by a trusted key, that names every other line by digest (in reverse
//!    order). Read by `attest verify HEAD`.
//!
//! The targets and the figures are in benches/README.md. Both hostile trees reach one tree object
//! more than once, which git never writes: they are refused (exit 14) as soon as a tree is reached
//! again. Commands run under `timeout -s KILL` (`BENCH_TIMEOUT` seconds, default 120), so that a
//! build without the bounds can be measured too. `SPECCODER_BIN` names another build to measure.

#[path = "../tests/e2e/common/mod.rs"]
#[allow(unused)]
mod common;

use std::process::Command;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use common::{Evidence, PAYLOAD_TYPE, Project, Run};
use serde_json::{Value, json};

const TASK: &str = "001-bookmark-tags/T005";

/// The sizes of one run of the bench.
struct Sizes {
    /// Fan-out entries of the amplification root and of its middle tree.
    fanout: usize,
    /// Notes in the amplification's bottom tree.
    notes: usize,
    /// How many times each fan-out directory is listed in case 2.
    duplicates: usize,
    /// Lines of the long note.
    lines: usize,
}

const MEASURED: Sizes = Sizes { fanout: 256, notes: 300, duplicates: 4, lines: 30_000 };
/// Under `cargo test`: small enough for a debug build of a reader without bounds.
const SMOKE: Sizes = Sizes { fanout: 4, notes: 4, duplicates: 2, lines: 300 };

/// What one command did: wall seconds, peak resident KiB, its exit code, and its output.
struct Measured {
    secs: f64,
    peak_kib: u64,
    code: Option<i32>,
    run: Run,
}

impl Measured {
    fn timed_out(&self) -> bool {
        self.code == Some(137)
    }

    fn line(&self) -> String {
        let first = self.run.stderr.lines().next().unwrap_or("").chars().take(150).collect::<String>();
        let mut summary = self.run.stdout.lines().last().unwrap_or("").to_owned();
        summary.truncate(120);
        let outcome = if self.timed_out() {
            "KILLED at the timeout".to_owned()
        } else {
            format!("exit {}", self.code.map_or("-".into(), |c| c.to_string()))
        };
        format!(
            "{:>8.2} s {:>8.1} MB  {outcome}\n      {}",
            self.secs,
            self.peak_kib as f64 / 1024.0,
            if first.is_empty() { summary } else { first }
        )
    }
}

/// Runs `speccoder args` in `p` under GNU time and `timeout -s KILL`.
fn measure(p: &Project, args: &[&str], timeout_secs: u64) -> Measured {
    let report = p.scratch.join("time.txt");
    let mut cmd = Command::new("/usr/bin/time");
    common::isolate(&mut cmd, &p.home);
    cmd.current_dir(&p.root)
        .args(["-f", "%e %M", "-o"])
        .arg(&report)
        .args(["timeout", "-s", "KILL", &timeout_secs.to_string()])
        .arg(common::speccoder_bin())
        .args(args);
    let run = common::run(cmd);
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let mut fields = text.lines().last().unwrap_or("").split_whitespace();
    let secs = fields.next().and_then(|s| s.parse().ok()).unwrap_or(f64::NAN);
    let peak_kib = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    Measured { secs, peak_kib, code: run.code(), run }
}

/// A Spec Kit project whose T005 is ticked with unsigned evidence; returns it and the task commit.
fn ticked_project() -> (Project, String) {
    let p = Project::speckit();
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), TASK, Evidence::Verified);
    p.attest(TASK, &evidence, &["--signer", "none"]).success();
    let commit = p.rev("HEAD");
    (p, commit)
}

/// `git mktree` of `entries` (`(mode, kind, id, name)`); returns the tree id.
fn mktree(p: &Project, entries: &[(&str, &str, String, String)]) -> String {
    let text: String =
        entries.iter().map(|(mode, kind, id, name)| format!("{mode} {kind} {id}\t{name}\n")).collect();
    git_stdin(p, &["mktree"], text.as_bytes())
}

/// A tree object written as given (duplicate names kept): `git hash-object -t tree --literally`.
fn literal_tree(p: &Project, entries: &[(&str, String)]) -> String {
    let mut bytes = Vec::new();
    for (name, id) in entries {
        bytes.extend_from_slice(b"40000 ");
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&hex::decode(id).unwrap());
    }
    git_stdin(p, &["hash-object", "-t", "tree", "--literally", "-w", "--stdin"], &bytes)
}

fn git_stdin(p: &Project, args: &[&str], input: &[u8]) -> String {
    let file = p.scratch.join("stdin.bin");
    std::fs::write(&file, input).unwrap();
    let mut cmd = common::git_command(&p.root, &p.home, args);
    cmd.stdin(std::fs::File::open(&file).unwrap());
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Points `refs/notes/speccoder` at a new notes commit of `tree` on top of the current one.
fn set_notes_tree(p: &Project, tree: &str) {
    let parent = p.rev(common::NOTES_REF);
    let commit = p.git(&["commit-tree", "-p", &parent, "-m", "hostile notes", tree]);
    p.git(&["update-ref", common::NOTES_REF, commit.trim()]);
}

/// Case 1: the amplification tree, beside the real note of `commit` (kept flat at the root).
fn amplify(p: &Project, commit: &str, s: &Sizes) {
    let note_blob = p.git(&["rev-parse", &format!("{}:{commit}", common::NOTES_REF)]).trim().to_owned();
    let hex_names = |n: usize, width: usize| (0..n).map(move |i| format!("{i:0width$x}"));
    let bottom: Vec<_> = hex_names(s.notes, 36).map(|n| ("100644", "blob", note_blob.clone(), n)).collect();
    let bottom = mktree(p, &bottom);
    let middle: Vec<_> = hex_names(s.fanout, 2).map(|n| ("040000", "tree", bottom.clone(), n)).collect();
    let middle = mktree(p, &middle);
    let mut root: Vec<_> = hex_names(s.fanout, 2).map(|n| ("040000", "tree", middle.clone(), n)).collect();
    root.push(("100644", "blob", note_blob, commit.to_owned()));
    let root = mktree(p, &root);
    let size: usize = [&bottom, &middle, &root]
        .iter()
        .map(|t| p.git(&["cat-file", "-s", t]).trim().parse::<usize>().unwrap())
        .sum();
    println!("  the three trees hold {size} bytes");
    set_notes_tree(p, &root);
}

/// Case 2: the note of `commit` down 19 fan-out levels, each level listed `s.duplicates` times.
fn duplicate_fanouts(p: &Project, commit: &str, s: &Sizes) {
    let note_blob = p.git(&["rev-parse", &format!("{}:{commit}", common::NOTES_REF)]).trim().to_owned();
    let mut tree = mktree(p, &[("100644", "blob", note_blob, commit[38..].to_owned())]);
    for level in (0..19).rev() {
        let name = &commit[level * 2..level * 2 + 2];
        let entries: Vec<(&str, String)> = (0..s.duplicates).map(|_| (name, tree.clone())).collect();
        tree = literal_tree(p, &entries);
    }
    set_notes_tree(p, &tree);
}

/// Case 3: the note of `commit` made `s.lines` lines long, its summary signed by `key`.
fn long_note(p: &Project, commit: &str, key: &common::Key, s: &Sizes) {
    let lines = p.note_lines(commit);
    let find = |suffix: &str| lines.iter().find(|l| l.predicate_type().contains(suffix)).unwrap();
    let baseline = find("test-result");
    let tv = find("task-verification");
    let mut summary = find("verification_summary").statement.clone();
    let mut payloads: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..s.lines - 2 {
        let mut statement = baseline.statement.clone();
        statement["predicate"]["passedTests"] = json!([format!("case-{i}")]);
        payloads.push(("test-result/baseline".into(), serde_json::to_vec(&statement).unwrap()));
    }
    payloads.push(("task-verification".into(), tv.payload.clone()));
    let inputs: Vec<Value> = payloads
        .iter()
        .rev()
        .map(|(name, payload)| json!({"name": name, "digest": {"sha256": common::sha256(payload)}}))
        .collect();
    summary["predicate"]["inputAttestations"] = Value::Array(inputs);
    let summary = serde_json::to_vec(&summary).unwrap();
    let pae_file = p.scratch.join("summary.pae");
    std::fs::write(&pae_file, common::pae(PAYLOAD_TYPE, &summary)).unwrap();
    let mut sign = Command::new("ssh-keygen");
    common::isolate(&mut sign, &p.home);
    sign.args(["-Y", "sign", "-n", common::NAMESPACE, "-f"]).arg(&key.private).arg(&pae_file);
    common::run(sign).success();
    let sig = std::fs::read(p.scratch.join("summary.pae.sig")).unwrap();
    let envelope = |payload: &[u8], sigs: Value| {
        serde_json::to_vec(
            &json!({"payload": STANDARD.encode(payload), "payloadType": PAYLOAD_TYPE, "signatures": sigs}),
        )
        .unwrap()
    };
    let mut note = Vec::new();
    for (_, payload) in &payloads {
        note.extend_from_slice(&envelope(payload, json!([])));
        note.push(b'\n');
    }
    note.extend_from_slice(&envelope(&summary, json!([{"keyid": "bench", "sig": STANDARD.encode(sig)}])));
    note.push(b'\n');
    p.write_note_bytes(commit, &note);
    println!("  the note holds {} lines, {} bytes", s.lines, note.len());
}

fn tick_by_hand(p: &Project, task: &str) {
    let tasks = format!("specs/{}/tasks.md", common::SPECKIT_UNIT);
    let text = String::from_utf8(p.read(&tasks)).unwrap();
    p.write(&tasks, text.replacen(&format!("- [ ] {task}"), &format!("- [X] {task}"), 1));
    p.git(&["commit", "-q", "-am", &format!("tick {task} by hand")]);
}

fn main() {
    // `cargo bench` passes `--bench`; a filter that names something else skips this bench.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if args.iter().any(|a| !"notes_amplification".contains(a.as_str())) {
        return;
    }
    let measuring = std::env::args().any(|a| a == "--bench");
    let (sizes, timeout) = if measuring {
        (&MEASURED, std::env::var("BENCH_TIMEOUT").ok().and_then(|t| t.parse().ok()).unwrap_or(120))
    } else {
        (&SMOKE, 120)
    };
    let verify = ["attest", "verify", "--branch", "--all", "--accept-unsigned"];
    let publish = ["held-out", "publish", "--dry-run"];
    println!("notes bench, speccoder measured: {}", common::speccoder_bin().display());

    println!("case 1: amplification ({} -> {} -> {} entries)", sizes.fanout, sizes.fanout, sizes.notes);
    let (p, commit) = ticked_project();
    amplify(&p, &commit, sizes);
    let all_evidenced = measure(&p, &verify, timeout);
    println!("  verify, every tick evidenced      {}", all_evidenced.line());
    let published = measure(&p, &publish, timeout);
    println!("  held-out publish                  {}", published.line());
    tick_by_hand(&p, "T006");
    let lacking = measure(&p, &verify, timeout);
    println!("  verify, one tick lacking evidence {}", lacking.line());

    println!("case 2: duplicated fan-out names ({} per level, 19 levels)", sizes.duplicates);
    let (p, commit) = ticked_project();
    duplicate_fanouts(&p, &commit, sizes);
    let published_dup = measure(&p, &publish, timeout);
    println!("  held-out publish                  {}", published_dup.line());
    let verified_dup = measure(&p, &verify, timeout);
    println!("  verify                            {}", verified_dup.line());

    println!("case 3: a {}-line note", sizes.lines);
    let (p, commit) = ticked_project();
    let key = common::ed25519(&p.scratch, "ada");
    let allowed = common::allowed_signers(&p.scratch.join("allowed_signers"), &[(common::PRINCIPAL, &key)]);
    long_note(&p, &commit, &key, sizes);
    let allowed = allowed.to_str().unwrap();
    let long = measure(&p, &["attest", "verify", "HEAD", "--json", "--allowed-signers", allowed], timeout);
    println!("  verify HEAD                       {}", long.line());

    if !measuring {
        // A hostile tree is refused as one git never writes (exit 14), never read as evidence
        // that holds; a lookup that needs no reused tree still works; the long note is judged.
        for (what, m) in [
            ("amplified verify", &all_evidenced),
            ("amplified verify, a tick lacking evidence", &lacking),
            ("duplicated verify", &verified_dup),
            ("duplicated publish", &published_dup),
        ] {
            assert_eq!(m.code, Some(14), "{what}\n{}", m.run);
            assert!(m.run.stderr.contains("is not one git writes"), "{what}\n{}", m.run);
        }
        assert_eq!(published.code, Some(0), "{}", published.run);
        assert_eq!(long.code, Some(26), "{}", long.run);
        assert!(long.run.stdout.contains("lines_not_read"), "{}", long.run);
    }
}
