//! Stress and kill loops on real repositories, too slow for every `cargo test`: run them with
//! `cargo test --release --test e2e stress:: -- --ignored --nocapture` (`SPECCODER_BIN` to test another
//! build). Each prints the counts it saw; a failed assertion names the round and the state.
//!
//! - eight writers in one work tree, rounds of eight started together (three `attest`, three
//!   `accept`, two `skip`): every one that exits 0 is recorded (ticked at the tip with its note, or
//!   a skip ref with its note), none twice, and fsck is clean;
//! - eight worktrees of one repository publishing held-out sets at once, round after round: every
//!   publish exits 0, and the ref ends with every set, one commit per set in one line;
//! - each writing command killed (SIGKILL) at random moments on fresh copies of one repository,
//!   then run again as a user would: every kill leaves either nothing or a state the next run
//!   completes, and never an fsck error:
//!   - `attest` and `accept`: never a second task commit, never a task commit without its note;
//!   - `skip`: never a skip ref whose commit has no note;
//!   - `attest carry`: never a rewritten commit with part of a note;
//!   - `held-out store`: never a partial set where a set belongs;
//!   - `held-out publish`: never a published ref without the set.

use crate::common;

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
fn eight_writers_in_one_work_tree_never_lose_or_double_a_decision() {
    let p = Project::speckit();
    let key = common::ed25519(&p.scratch, "ada");
    let rounds = rounds();
    let targets = p.add_speckit_tasks(8 * rounds);
    let key_path = key.private.to_str().unwrap();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let (mut ticked, mut skipped) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut children = Vec::new();
        for (slot, target) in targets[round * 8..round * 8 + 8].iter().enumerate() {
            let dir = p.scratch_dir(&format!("{round}-{}", target.replace('/', "-")));
            let evidence = common::write_evidence(&dir, target, Evidence::Verified);
            let kind = ["attest", "accept", "skip"][slot % 3];
            let args: Vec<&str> = match kind {
                "attest" => {
                    vec!["attest", target, "--evidence", evidence.to_str().unwrap(), "--key", key_path]
                }
                other => vec![other, target, "--reason", "decided in the stress loop", "--key", key_path],
            };
            let mut cmd = common::speccoder_command(&p.root, &p.home, &args);
            cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
            children.push((kind, target.clone(), cmd.spawn().unwrap()));
        }
        for (kind, target, child) in children {
            let out = child.wait_with_output().unwrap();
            let code = out.status.code().map_or("signal".to_owned(), |c| c.to_string());
            *counts.entry(format!("{kind}: exit {code}")).or_default() += 1;
            if out.status.success() {
                if kind == "skip" { skipped.push(target) } else { ticked.push((kind, target)) }
            } else {
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(
                    out.status.code() == Some(14) && stderr.contains("holds the index"),
                    "round {round}, {kind} {target}: only a busy index may refuse a writer: {stderr}"
                );
            }
        }
        let at_head = ticked_at(&p, "HEAD", &targets);
        for (kind, target) in &ticked {
            assert!(
                at_head.contains(target),
                "round {round}: {kind} {target} exited 0 but is not ticked at HEAD"
            );
        }
        for target in &skipped {
            assert!(!at_head.contains(target), "round {round}: the skipped {target} is not ticked");
        }
        assert_eq!(
            p.git(&["status", "--porcelain"]),
            "",
            "round {round}: the index and work tree match HEAD"
        );
    }
    let checkout = Checkout { dir: &p.root, home: &p.home };
    for (kind, target) in &ticked {
        let commits = checkout.task_commits(target);
        assert_eq!(commits.len(), 1, "{target} has one task commit");
        let lines = if *kind == "attest" { 5 } else { 1 };
        assert_eq!(p.note_lines(&commits[0]).len(), lines, "{target}'s commit has its note");
    }
    for target in &skipped {
        let skip = checkout.rev(&format!("refs/speccoder/skipped/{target}"));
        assert!(checkout.has_note(&skip), "the skip of {target} has its note");
    }
    p.git_run(&["fsck", "--strict", "--no-dangling", "--no-progress"]).success();
    println!(
        "{} writers in {rounds} rounds (attest, accept and skip): {counts:?}; \
         {} ticked, {} skipped, none twice",
        8 * rounds,
        ticked.len(),
        skipped.len()
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
/// naming lock files to remove ("... remove PATH and PATH"), removes them and runs it again.
/// Returns the last run and how many lock files were removed.
fn run_removing_named_locks(mut make: impl FnMut() -> std::process::Command) -> (common::Run, usize) {
    let mut removed = 0;
    for _ in 0..4 {
        let out = common::run(make());
        let named: Vec<String> = out
            .stderr
            .rsplit_once("remove ")
            .map(|(_, paths)| paths.trim().trim_end_matches('.').split(" and ").map(str::to_owned).collect())
            .unwrap_or_default();
        if out.status.code() != Some(14) || named.is_empty() || !named.iter().all(|p| p.ends_with(".lock")) {
            return (out, removed);
        }
        for path in &named {
            std::fs::remove_file(path).unwrap_or_else(|e| panic!("remove {path}: {e}\n{out}"));
        }
        removed += named.len();
    }
    (common::run(make()), removed)
}

/// Copies the directory tree `from` to `to` (the repository and its `.git`), as `cp -a` does.
fn copy_tree(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp").arg("-a").arg(from).arg(to).status().unwrap();
    assert!(status.success());
}

/// The number of kills of each kill loop (`STRESS_KILLS`, default 300).
fn kills() -> usize {
    std::env::var("STRESS_KILLS").ok().and_then(|n| n.parse().ok()).unwrap_or(300)
}

/// One command killed at random moments, each time on a fresh copy of `template`'s repository.
///
/// For each kill: `start` runs the command in the copy, a SIGKILL lands at a random moment of
/// about one undisturbed run, `state` names (and checks) where the kill left the copy, and `next`
/// does what a user does next and checks the result, naming what it had to do. Returns the counts
/// of both names.
fn kill_loop(
    template: &Project,
    start: impl Fn(&Path) -> std::process::Command,
    state: impl Fn(&Checkout<'_>) -> &'static str,
    next: impl Fn(&Checkout<'_>, &'static str) -> String,
) -> (BTreeMap<&'static str, usize>, BTreeMap<String, usize>) {
    // How long an undisturbed run takes here: kills are spread over it and a little beyond.
    let probe = template.tmp().join("probe");
    copy_tree(&template.root, &probe);
    let started = Instant::now();
    let out = common::run(start(&probe));
    let span = started.elapsed().as_micros().max(1000) as u64 * 5 / 4;
    assert!(out.status.success(), "an undisturbed run succeeds\n{out}");
    std::fs::remove_dir_all(&probe).unwrap();
    println!("a run takes about {} µs here; kills land within {span} µs", span * 4 / 5);

    let mut rng = Rng::new();
    let mut states: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut nexts: BTreeMap<String, usize> = BTreeMap::new();
    for kill in 0..kills() {
        let copy = template.tmp().join(format!("kill-{kill}"));
        copy_tree(&template.root, &copy);
        let p = Checkout { dir: &copy, home: &template.home };
        let mut child =
            start(&copy).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(Duration::from_micros(rng.next() % span));
        let _ = child.kill();
        let _ = child.wait();
        let left = state(&p);
        *states.entry(left).or_default() += 1;
        *nexts.entry(next(&p, left)).or_default() += 1;
        assert_eq!(stale_locks(&copy), 0, "kill {kill} ({left}): no lock file is left");
        p.git(&["fsck", "--strict", "--no-dangling", "--no-progress"]);
        std::fs::remove_dir_all(&copy).unwrap();
    }
    (states, nexts)
}

/// The kill loop of a command that ticks `target` in a task commit with a note (`attest`,
/// `accept`): every kill leaves the branch where it was or moved by exactly the task commit,
/// which has its note, and the next run (removing each stale lock it names) ends in one task
/// commit with its note and a clean work tree.
fn tick_kill_loop(template: &Project, target: &str, args: &[&str]) {
    let base = template.rev("HEAD");
    let start = |dir: &Path| common::speccoder_command(dir, &template.home, args);
    let (states, nexts) = kill_loop(
        template,
        start,
        |p| end_state(p, &base, target),
        |p, left| {
            let (out, removed) = run_removing_named_locks(|| start(p.dir));
            if left.starts_with("complete") {
                assert_eq!(out.status.code(), Some(14), "{left}\n{out}");
                assert!(out.stderr.contains("already ticked"), "{left}\n{out}");
            } else {
                assert!(out.status.success(), "{left}: the next run failed\n{out}");
            }
            assert_eq!(p.task_commits(target).len(), 1, "{left}: one task commit");
            assert_eq!(p.rev("HEAD~"), base, "{left}");
            assert!(p.has_note("HEAD"), "{left}: the task commit has its note");
            assert_eq!(p.git(&["status", "--porcelain"]), "", "{left}");
            format!("{removed} lock files named and removed")
        },
    );
    let notes = template.git(&["notes", "--ref", NOTES_REF, "list"]);
    assert_eq!(notes, "", "the template was never written");
    println!("{} kills of {}; where each kill left the copy: {states:?}", kills(), args[0]);
    println!("the next run: {nexts:?}");
    println!("after it: one task commit with its note each, no duplicate, no lock left, fsck clean");
}

#[test]
#[ignore = "a kill loop; run with --ignored"]
fn attest_killed_at_any_moment_leaves_nothing_or_a_tick_the_next_run_completes() {
    let template = Project::speckit();
    let key = common::ed25519(&template.scratch, "ada");
    let target = "001-bookmark-tags/T005";
    let evidence = common::write_evidence(&template.scratch_dir("evidence"), target, Evidence::WithHeldOut);
    common::store_kit_held_out(&template.root.join(".git"), target);
    let args =
        ["attest", target, "--evidence", evidence.to_str().unwrap(), "--key", key.private.to_str().unwrap()];
    tick_kill_loop(&template, target, &args);
}

#[test]
#[ignore = "a kill loop; run with --ignored"]
fn accept_killed_at_any_moment_leaves_nothing_or_a_tick_the_next_run_completes() {
    let template = Project::speckit();
    let key = common::ed25519(&template.scratch, "ada");
    let target = "001-bookmark-tags/T005";
    let args = ["accept", target, "--reason", "checked by hand", "--key", key.private.to_str().unwrap()];
    tick_kill_loop(&template, target, &args);
}

#[test]
#[ignore = "a kill loop; run with --ignored"]
fn skip_killed_at_any_moment_leaves_nothing_or_a_skip_with_its_note() {
    let template = Project::speckit();
    let key = common::ed25519(&template.scratch, "ada");
    let target = "001-bookmark-tags/T005";
    let reference = format!("refs/speccoder/skipped/{target}");
    let base = template.rev("HEAD");
    let args = ["skip", target, "--reason", "out of scope", "--key", key.private.to_str().unwrap()];
    let start = |dir: &Path| common::speccoder_command(dir, &template.home, &args);
    let skip_of = |p: &Checkout<'_>| {
        let out =
            common::run(common::git_command(p.dir, p.home, &["rev-parse", "--verify", "-q", &reference]));
        out.status.success().then(|| out.stdout.trim().to_owned())
    };
    let (states, nexts) = kill_loop(
        &template,
        start,
        |p| {
            assert_eq!(p.rev("HEAD"), base, "a skip never moves the branch");
            let notes = p.git(&["notes", "--ref", NOTES_REF, "list"]).lines().count();
            let lock = stale_locks(p.dir) > 0;
            match (skip_of(p), notes > 0) {
                (Some(commit), _) => {
                    assert!(p.has_note(&commit), "the skip ref's commit {commit} has its note");
                    if lock { "complete, stale lock" } else { "complete" }
                }
                (None, true) if lock => "nothing visible but a note on a commit no ref names, stale lock",
                (None, true) => "nothing visible but a note on a commit no ref names",
                (None, false) if lock => "nothing visible, stale lock",
                (None, false) => "nothing visible",
            }
        },
        |p, left| {
            let (out, removed) = run_removing_named_locks(|| start(p.dir));
            if left.starts_with("complete") {
                assert_eq!(out.status.code(), Some(14), "{left}\n{out}");
                assert!(out.stderr.contains("is skipped already"), "{left}\n{out}");
            } else {
                assert!(out.status.success(), "{left}: the next skip failed\n{out}");
            }
            let commit = skip_of(p).expect("the skip ref exists");
            assert!(p.has_note(&commit), "{left}: the skip has its note");
            assert_eq!(p.rev("HEAD"), base, "{left}");
            assert_eq!(p.git(&["status", "--porcelain"]), "", "{left}");
            format!("{removed} lock files named and removed")
        },
    );
    println!("{} kills of skip; where each kill left the copy: {states:?}", kills());
    println!("the next skip: {nexts:?}");
    println!("after it: the skip ref with its note each, the branch unmoved, no lock left, fsck clean");
}

/// Evidence for `target` in `dir` whose held_out phase names the set `digest`.
fn evidence_naming_set(dir: &Path, target: &str, digest: &str) -> std::path::PathBuf {
    let path = common::write_evidence(dir, target, Evidence::WithHeldOut);
    let mut evidence: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    for phase in evidence["phases"].as_array_mut().unwrap() {
        if phase["phase"] == "held_out" {
            phase["manifest"] = serde_json::json!(digest);
        }
    }
    std::fs::write(&path, serde_json::to_vec(&evidence).unwrap()).unwrap();
    path
}

/// Makes `p` trust `key` as git's `gpg.ssh.allowedSignersFile`, which `held-out publish` reads
/// (it releases a set only for a tick whose note verifies against the publisher's trust).
fn trust_in_config(p: &Project, key: &common::Key) {
    let allowed = common::allowed_signers(&p.scratch.join("allowed_signers"), &[(common::PRINCIPAL, key)]);
    p.git(&["config", "gpg.ssh.allowedSignersFile", allowed.to_str().unwrap()]);
}

/// A repository whose T005 is closed naming a held-out set that `held-out store` writes from
/// `tests`, with the store still empty, and whose config trusts `key`; the set's digest.
fn closed_with_unstored_set(template: &Project, key: &common::Key) -> (std::path::PathBuf, String) {
    trust_in_config(template, key);
    let target = "001-bookmark-tags/T005";
    let tests = template.scratch_dir("held-out-tests");
    for i in 0..20 {
        std::fs::write(tests.join(format!("hidden_{i}.rs")), format!("#[test] fn hidden_{i}() {{}}\n"))
            .unwrap();
    }
    let stored = template.speccoder(&["held-out", "store", target, tests.to_str().unwrap()]).success();
    let digest = stored.stdout.trim().to_owned();
    let path = evidence_naming_set(&template.scratch_dir("evidence"), target, &digest);
    // attest finds the set stored; the store is emptied after.
    template.attest(target, &path, &["--key", key.private.to_str().unwrap()]).success();
    std::fs::remove_dir_all(template.root.join(".git/speccoder")).unwrap();
    (tests, digest)
}

/// The files of the published set `digest` on the held-out ref; empty when there is no ref.
fn published(p: &Checkout<'_>, digest: &str) -> Vec<String> {
    let reference = format!("refs/speccoder/held-out/{}", common::SPECKIT_UNIT);
    let key = digest.strip_prefix("sha256:").unwrap();
    let out =
        common::run(common::git_command(p.dir, p.home, &["ls-tree", "-r", "--name-only", &reference, key]));
    out.stdout.lines().map(str::to_owned).collect()
}

#[test]
#[ignore = "a kill loop; run with --ignored"]
fn held_out_store_killed_at_any_moment_leaves_no_set_or_a_whole_one() {
    let template = Project::speckit();
    let key = common::ed25519(&template.scratch, "ada");
    let (tests, digest) = closed_with_unstored_set(&template, &key);
    let set = Path::new(".git/speccoder/held-out")
        .join(common::SPECKIT_UNIT)
        .join(digest.strip_prefix("sha256:").unwrap());
    let store = ["held-out", "store", "001-bookmark-tags/T005", tests.to_str().unwrap()];
    let start = |dir: &Path| common::speccoder_command(dir, &template.home, &store);
    let (states, nexts) = kill_loop(
        &template,
        start,
        |p| {
            let unit_dir = p.dir.join(".git/speccoder/held-out").join(common::SPECKIT_UNIT);
            let leftovers = std::fs::read_dir(&unit_dir)
                .map(|entries| {
                    entries
                        .filter(|e| {
                            e.as_ref().unwrap().file_name().to_string_lossy().starts_with(".incoming-")
                        })
                        .count()
                })
                .unwrap_or(0);
            match (p.dir.join(&set).exists(), leftovers > 0) {
                (true, _) => {
                    let files = std::fs::read_dir(p.dir.join(&set).join("files")).unwrap().count();
                    assert_eq!(files, 20, "a stored set is whole");
                    assert!(p.dir.join(&set).join("manifest.json").is_file());
                    if leftovers > 0 { "complete, a staging directory left" } else { "complete" }
                }
                (false, true) => "nothing visible but a staging directory",
                (false, false) => "nothing visible",
            }
        },
        |p, left| {
            let again = common::run(start(p.dir));
            assert!(again.status.success(), "{left}: the next store failed\n{again}");
            assert_eq!(again.stdout.trim(), digest, "{left}");
            let publish = common::run(common::speccoder_command(p.dir, p.home, &["held-out", "publish"]));
            assert!(publish.status.success(), "{left}: publishing after it failed\n{publish}");
            assert_eq!(published(p, &digest).len(), 21, "{left}: the set is published whole");
            "stored again and published".to_owned()
        },
    );
    println!("{} kills of held-out store; where each kill left the store: {states:?}", kills());
    println!("the next store, then publish: {nexts:?}");
    println!("after them: the whole set stored and published each time, fsck clean");
}

#[test]
#[ignore = "a kill loop; run with --ignored"]
fn held_out_publish_killed_at_any_moment_leaves_no_ref_or_the_whole_set() {
    let template = Project::speckit();
    let key = common::ed25519(&template.scratch, "ada");
    let (tests, digest) = closed_with_unstored_set(&template, &key);
    template.speccoder(&["held-out", "store", "001-bookmark-tags/T005", tests.to_str().unwrap()]).success();
    let start = |dir: &Path| common::speccoder_command(dir, &template.home, &["held-out", "publish"]);
    let (states, nexts) = kill_loop(
        &template,
        start,
        |p| match (published(p, &digest).len(), stale_locks(p.dir) > 0) {
            (0, false) => "nothing visible",
            (0, true) => "nothing visible, stale lock",
            (21, false) => "complete",
            (21, true) => "complete, stale lock",
            (n, _) => panic!("a published ref holds {n} of the set's 21 files"),
        },
        |p, left| {
            let (again, removed) = run_removing_named_locks(|| start(p.dir));
            assert!(again.status.success(), "{left}: the next publish failed\n{again}");
            assert_eq!(published(p, &digest).len(), 21, "{left}: the set is published whole");
            let already = again.stdout.contains("already");
            assert_eq!(already, left.starts_with("complete"), "{left}: the next publish\n{again}");
            format!("{removed} lock files named and removed")
        },
    );
    println!("{} kills of held-out publish; where each kill left the ref: {states:?}", kills());
    println!("the next publish: {nexts:?}");
    println!("after it: the whole set on the ref each time, fsck clean");
}

#[test]
#[ignore = "a stress loop; run with --ignored"]
fn eight_publishers_in_eight_worktrees_never_lose_each_others_sets() {
    let p = Project::speckit();
    let key = common::ed25519(&p.scratch, "ada");
    trust_in_config(&p, &key);
    let rounds = rounds().min(10);
    let targets = p.add_speckit_tasks(8 * rounds);
    let key_path = key.private.to_str().unwrap();
    let reference = format!("refs/speccoder/held-out/{}", common::SPECKIT_UNIT);
    let worktrees: Vec<std::path::PathBuf> = (0..8)
        .map(|i| {
            let dir = p.tmp().join(format!("wt-{i}"));
            p.git(&["worktree", "add", "-q", "-b", &format!("wt-{i}"), dir.to_str().unwrap(), "main"]);
            dir
        })
        .collect();
    let mut digests = Vec::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for round in 0..rounds {
        // Each worktree closes its own task of the round, naming a set of its own.
        for (i, dir) in worktrees.iter().enumerate() {
            let target = &targets[round * 8 + i];
            let scratch = p.scratch_dir(&format!("{round}-{i}"));
            let tests = scratch.join("tests");
            std::fs::create_dir_all(&tests).unwrap();
            std::fs::write(tests.join("hidden.rs"), format!("#[test] fn hidden_{round}_{i}() {{}}\n"))
                .unwrap();
            let stored = common::run(common::speccoder_command(
                dir,
                &p.home,
                &["held-out", "store", target, tests.to_str().unwrap()],
            ))
            .success();
            let digest = stored.stdout.trim().to_owned();
            let evidence = evidence_naming_set(&scratch, target, &digest);
            let args = ["attest", target, "--evidence", evidence.to_str().unwrap(), "--key", key_path];
            common::run(common::speccoder_command(dir, &p.home, &args)).success();
            digests.push(digest);
        }
        // Then all eight publish at once, each the one new set its branch names.
        let children: Vec<_> = worktrees
            .iter()
            .map(|dir| {
                common::speccoder_command(dir, &p.home, &["held-out", "publish"])
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            let code = out.status.code().map_or("signal".to_owned(), |c| c.to_string());
            *counts.entry(format!("exit {code}")).or_default() += 1;
            assert!(out.status.success(), "round {round}: {}", String::from_utf8_lossy(&out.stderr));
        }
        let published = p.git(&["ls-tree", "--name-only", &reference]);
        for digest in &digests {
            let key = digest.strip_prefix("sha256:").unwrap();
            assert!(published.lines().any(|l| l == key), "round {round}: set {key} is published");
        }
        let commits = p.git(&["rev-list", "--count", &reference]);
        assert_eq!(
            commits.trim(),
            (8 * (round + 1)).to_string(),
            "round {round}: one commit per new set, in one line"
        );
    }
    p.git_run(&["fsck", "--strict", "--no-dangling", "--no-progress"]).success();
    println!(
        "{} publishes in {rounds} rounds of eight worktrees at once: {counts:?}; \
         all {} sets on the ref, one commit each",
        8 * rounds,
        digests.len()
    );
}

#[test]
#[ignore = "a kill loop; run with --ignored"]
fn carry_killed_at_any_moment_leaves_the_rewritten_commit_with_no_note_or_the_whole_one() {
    let template = Project::speckit();
    let key = common::ed25519(&template.scratch, "ada");
    let target = "001-bookmark-tags/T005";
    let evidence = common::write_evidence(&template.scratch_dir("evidence"), target, Evidence::WithHeldOut);
    template.attest(target, &evidence, &["--key", key.private.to_str().unwrap()]).success();
    let attested = template.rev("HEAD");
    // A rewrite git does not carry notes over: the same change, another author date.
    template.git(&["commit", "-q", "--amend", "--no-edit", "--date=2030-01-01T00:00:00Z"]);
    let rewritten = template.rev("HEAD");
    assert_ne!(attested, rewritten);
    // Carry re-signs only evidence the carrier trusts.
    let allowed =
        common::allowed_signers(&template.scratch.join("allowed_signers"), &[(common::PRINCIPAL, &key)]);
    let args = [
        "attest",
        "carry",
        "--key",
        key.private.to_str().unwrap(),
        "--allowed-signers",
        allowed.to_str().unwrap(),
    ];
    let start = |dir: &Path| common::speccoder_command(dir, &template.home, &args);
    let (states, nexts) = kill_loop(
        &template,
        start,
        |p| {
            assert_eq!(p.rev("HEAD"), rewritten, "carrying never moves the branch");
            assert!(p.has_note(&attested), "the old commit keeps its note");
            let lock = stale_locks(p.dir) > 0;
            match (p.has_note(&rewritten), lock) {
                (true, false) => "complete",
                (true, true) => "complete, stale lock",
                (false, true) => "nothing visible, stale lock",
                (false, false) => "nothing visible",
            }
        },
        |p, left| {
            let (out, removed) = run_removing_named_locks(|| start(p.dir));
            assert!(out.status.success(), "{left}: the next carry failed\n{out}");
            let lines = common::run(common::git_command(
                p.dir,
                p.home,
                &["notes", "--ref", NOTES_REF, "show", &rewritten],
            ));
            assert_eq!(
                lines.stdout.lines().count(),
                6,
                "{left}: the rewritten commit has the whole note\n{lines}"
            );
            format!("{removed} lock files named and removed")
        },
    );
    println!("{} kills of attest carry; where each kill left the copy: {states:?}", kills());
    println!("the next carry: {nexts:?}");
    println!("after it: the rewritten commit with its whole note each, the old one with its own, fsck clean");
}
