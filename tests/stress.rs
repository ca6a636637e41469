//! Stress and kill loops on real repositories, too slow for every `cargo test`: run them with
//! `cargo test --release --test stress -- --ignored --nocapture` (`SPECCODER_BIN` to test another
//! build). Each prints the counts it saw; a failed assertion names the round and the state.
//!
//! - eight writers in one work tree, rounds of eight attests started together: every attest that
//!   exits 0 is ticked at the tip, no tick exists twice, and fsck is clean;
//! - `speccoder attest` killed (SIGKILL) at random moments on fresh copies of one repository:
//!   every kill leaves either nothing or a state the next attest completes, never a second task
//!   commit, never a task commit without its note, never an fsck error.

#[path = "common/mod.rs"]
#[allow(unused)]
mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{Evidence, NOTES_REF, Project};

/// How many rounds the one-work-tree stress runs (`STRESS_ROUNDS`, default 50).
fn rounds() -> usize {
    std::env::var("STRESS_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(50)
}

/// A cheap pseudo-random sequence (xorshift), seeded from `STRESS_SEED` or the clock; the seed
/// is printed so that a failing run can be repeated.
struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let seed = std::env::var("STRESS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
        }) | 1;
        println!("seed {seed}");
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The targets ticked at `rev`'s task list among `targets`.
fn ticked_at(p: &Project, rev: &str, targets: &[String]) -> Vec<String> {
    let text = p.git(&["show", &format!("{rev}:specs/{}/tasks.md", common::SPECKIT_UNIT)]);
    targets
        .iter()
        .filter(|t| {
            let id = t.rsplit('/').next().unwrap();
            text.lines().any(|l| l.starts_with(&format!("- [X] {id} ")))
        })
        .cloned()
        .collect()
}

/// A repository checkout the loops inspect with git: `dir` with the test's `home`.
struct Checkout<'a> {
    dir: &'a Path,
    home: &'a Path,
}

impl Checkout<'_> {
    /// git's stdout; fails the test when git fails.
    fn git(&self, args: &[&str]) -> String {
        let out = common::run(common::git_command(self.dir, self.home, args));
        assert!(out.status.success(), "git {args:?} in {}\n{out}", self.dir.display());
        out.stdout
    }

    fn rev(&self, rev: &str) -> String {
        self.git(&["rev-parse", "--verify", rev]).trim().to_owned()
    }

    fn has_note(&self, rev: &str) -> bool {
        common::run(common::git_command(self.dir, self.home, &["notes", "--ref", NOTES_REF, "show", rev]))
            .status
            .success()
    }

    /// The commits on HEAD's history that carry `Spec-Task: <target>`.
    fn task_commits(&self, target: &str) -> Vec<String> {
        self.git(&["log", "--format=%H", "--fixed-strings", "--grep", &format!("Spec-Task: {target}")])
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

#[test]
#[ignore = "a stress loop; run with --ignored"]
fn eight_writers_in_one_work_tree_never_lose_or_double_a_tick() {
    let p = Project::speckit();
    let key = common::ed25519(&p.scratch, "ada");
    let rounds = rounds();
    let targets = p.add_speckit_tasks(8 * rounds);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut succeeded = Vec::new();
    for round in 0..rounds {
        let mut children = Vec::new();
        for target in &targets[round * 8..round * 8 + 8] {
            let dir = p.scratch_dir(&format!("{round}-{}", target.replace('/', "-")));
            let evidence = common::write_evidence(&dir, target, Evidence::Verified);
            let args = [
                "attest",
                target,
                "--evidence",
                evidence.to_str().unwrap(),
                "--key",
                key.private.to_str().unwrap(),
            ];
            let mut cmd = common::speccoder_command(&p.root, &p.home, &args);
            cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
            children.push((target.clone(), cmd.spawn().unwrap()));
        }
        for (target, child) in children {
            let out = child.wait_with_output().unwrap();
            let code = out.status.code().map_or("signal".to_owned(), |c| c.to_string());
            *counts.entry(format!("exit {code}")).or_default() += 1;
            if out.status.success() {
                succeeded.push(target);
            } else {
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(
                    out.status.code() == Some(14) && stderr.contains("holds the index"),
                    "round {round}, {target}: only a busy index may refuse a writer: {stderr}"
                );
            }
        }
        let ticked = ticked_at(&p, "HEAD", &targets);
        for target in &succeeded {
            assert!(ticked.contains(target), "round {round}: {target} exited 0 but is not ticked at HEAD");
        }
        assert_eq!(
            p.git(&["status", "--porcelain"]),
            "",
            "round {round}: the index and work tree match HEAD"
        );
    }
    let checkout = Checkout { dir: &p.root, home: &p.home };
    for target in &succeeded {
        let commits = checkout.task_commits(target);
        assert_eq!(commits.len(), 1, "{target} has one task commit");
        assert_eq!(p.note_lines(&commits[0]).len(), 5, "{target}'s commit has its note");
    }
    p.git_run(&["fsck", "--strict", "--no-dangling", "--no-progress"]).success();
    println!(
        "{} attests in {rounds} rounds: {counts:?}; {} ticked, no tick twice",
        8 * rounds,
        succeeded.len()
    );
}

/// Where one kill left the repository, before the next attest ran.
fn end_state(p: &Checkout<'_>, base: &str, target: &str) -> &'static str {
    let head = p.rev("HEAD");
    let lock = stale_locks(p.dir) > 0;
    if head == base {
        return if lock { "nothing visible, stale lock" } else { "nothing visible" };
    }
    assert_eq!(p.rev("HEAD~"), base, "the branch moved by exactly the task commit");
    assert_eq!(p.task_commits(target).len(), 1);
    assert!(p.has_note("HEAD"), "the task commit {head} has its note");
    let clean = p.git(&["status", "--porcelain"]).is_empty();
    match (clean, lock) {
        (true, false) => "complete",
        (true, true) => "complete, stale lock",
        (false, true) => "committed with note, index not yet written, stale lock",
        (false, false) => "committed with note, index not yet written",
    }
}

/// How many lock files (`*.lock`) a stopped writer left in the git directory `dir/.git`.
fn stale_locks(dir: &Path) -> usize {
    let out =
        std::process::Command::new("find").arg(dir.join(".git")).args(["-name", "*.lock"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().count()
}

/// Runs `cmd` (a fresh one from `make` each time) as a user would after a crash: when it stops
/// naming a lock file to remove ("... remove PATH"), removes that file and runs it again.
fn run_removing_named_locks(mut make: impl FnMut() -> std::process::Command) -> (common::Run, usize) {
    let mut removed = 0;
    loop {
        let out = common::run(make());
        let named =
            out.stderr.rsplit_once("remove ").map(|(_, path)| path.trim().trim_end_matches('.').to_owned());
        match named {
            Some(path) if out.status.code() == Some(14) && path.ends_with(".lock") && removed < 4 => {
                std::fs::remove_file(&path).unwrap_or_else(|e| panic!("remove {path}: {e}\n{out}"));
                removed += 1;
            }
            _ => return (out, removed),
        }
    }
}

/// Copies the directory tree `from` to `to` (the repository and its `.git`), as `cp -a` does.
fn copy_tree(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp").arg("-a").arg(from).arg(to).status().unwrap();
    assert!(status.success());
}

#[test]
#[ignore = "a kill loop; run with --ignored"]
fn attest_killed_at_any_moment_leaves_nothing_or_a_tick_the_next_run_completes() {
    let kills: usize = std::env::var("STRESS_KILLS").ok().and_then(|n| n.parse().ok()).unwrap_or(300);
    let template = Project::speckit();
    let key = common::ed25519(&template.scratch, "ada");
    let target = "001-bookmark-tags/T005";
    let evidence = common::write_evidence(&template.scratch_dir("evidence"), target, Evidence::WithHeldOut);
    let base = template.rev("HEAD");
    // How long an undisturbed attest takes here: kills are spread over it and a little beyond.
    let started = Instant::now();
    let probe = template.tmp().join("probe");
    copy_tree(&template.root, &probe);
    let args =
        ["attest", target, "--evidence", evidence.to_str().unwrap(), "--key", key.private.to_str().unwrap()];
    assert!(common::speccoder_command(&probe, &template.home, &args).output().unwrap().status.success());
    let span = started.elapsed().as_micros().max(1000) as u64 * 5 / 4;
    println!("an attest takes about {} µs here; kills land within {span} µs", span * 4 / 5);

    let mut rng = Rng::new();
    let mut states: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut named_locks: BTreeMap<usize, usize> = BTreeMap::new();
    for kill in 0..kills {
        let copy = template.tmp().join(format!("kill-{kill}"));
        copy_tree(&template.root, &copy);
        let p = Checkout { dir: &copy, home: &template.home };
        let mut child = common::speccoder_command(&copy, &template.home, &args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.next() % span));
        let _ = child.kill();
        let _ = child.wait();
        let state = end_state(&p, &base, target);
        *states.entry(state).or_default() += 1;

        // What a user does next: attest again, and remove each stale lock the message names; a
        // finished tick is refused as ticked already, anything else ends in the tick.
        let (out, removed) =
            run_removing_named_locks(|| common::speccoder_command(&copy, &template.home, &args));
        *named_locks.entry(removed).or_default() += 1;
        assert_eq!(stale_locks(&copy), 0, "kill {kill} ({state}): every lock was named and removed\n{out}");
        if state.starts_with("complete") {
            assert_eq!(out.status.code(), Some(14), "kill {kill} ({state})\n{out}");
            assert!(out.stderr.contains("already ticked"), "kill {kill} ({state})\n{out}");
        } else {
            assert!(out.status.success(), "kill {kill} ({state}): the next attest failed\n{out}");
        }
        assert_eq!(p.task_commits(target).len(), 1, "kill {kill} ({state}): one task commit");
        assert_eq!(p.rev("HEAD~"), base, "kill {kill} ({state})");
        assert!(p.has_note("HEAD"), "kill {kill} ({state}): the task commit has its note");
        assert_eq!(p.git(&["status", "--porcelain"]), "", "kill {kill} ({state})");
        p.git(&["fsck", "--strict", "--no-dangling", "--no-progress"]);
        std::fs::remove_dir_all(&copy).unwrap();
    }
    let notes = template.git(&["notes", "--ref", NOTES_REF, "list"]);
    assert_eq!(notes, "", "the template was never written");
    println!("{kills} kills, end states before the next attest: {states:?}");
    println!("lock files the next attests named and the user removed (count: runs): {named_locks:?}");
    println!("after the next attest: {kills} with one task commit and its note, 0 duplicates, fsck clean");
}
