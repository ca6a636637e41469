//! Parallel writers: two `speccoder attest` processes in two worktrees of one repository, started
//! together, must both keep their notes (the notes ref moves by compare-and-swap with retries).

use std::process::Stdio;

use super::speckit_task;
use crate::common::{self, Evidence, NOTES_REF, PRINCIPAL, Project};

#[test]
fn two_attest_runs_in_two_worktrees_at_the_same_time_both_keep_their_notes() {
    let p = Project::speckit();
    let key = common::ed25519(&p.scratch, "ada");
    let allowed = common::allowed_signers(&p.scratch.join("allowed"), &[(PRINCIPAL, &key)]);
    let second = p.tmp().join("second");
    p.git(&["worktree", "add", "-q", "-b", "second", second.to_str().unwrap()]);
    let trees = [(p.root.clone(), "refs/heads/main"), (second.clone(), "refs/heads/second")];

    for round in 0..4 {
        let tasks = [format!("T00{}", 2 * round + 1), format!("T00{}", 2 * round + 2)];
        let mut children = Vec::new();
        for ((dir, _), task) in trees.iter().zip(&tasks) {
            let target = speckit_task(task);
            let evidence = common::write_evidence(
                &p.scratch_dir(&format!("{round}-{task}")),
                &target,
                Evidence::Verified,
            );
            let args = [
                "attest",
                &target,
                "--evidence",
                evidence.to_str().unwrap(),
                "--key",
                key.private.to_str().unwrap(),
            ];
            let mut cmd = common::speccoder_command(dir, &p.home, &args);
            cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
            children.push(cmd.spawn().unwrap());
        }
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        for ((dir, branch), task) in trees.iter().zip(&tasks) {
            let commit = p.git_in(dir, &["rev-parse", branch]).trim().to_owned();
            let message =
                p.git_in(dir, &["log", "-1", "--format=%(trailers:key=Spec-Task,valueonly)", branch]);
            assert_eq!(message.trim(), speckit_task(task), "round {round}");
            let lines = p.note_lines(&commit);
            assert_eq!(lines.len(), 5, "round {round}, {task}");
            common::assert_every_line_verifies(&p.scratch, &allowed, &lines);
            assert_eq!(p.git_in(dir, &["status", "--porcelain"]), "", "round {round}, {task}");
        }
        let notes = p.git(&["notes", "--ref", NOTES_REF, "list"]);
        assert_eq!(notes.lines().count(), 2 * (round + 1), "round {round}: {notes}");
    }
    p.git_run(&["fsck", "--strict", "--no-dangling", "--no-progress"]).success();
}

/// Eight worktrees of one repository, each on its own branch, attest their own tasks at the same
/// time for ten rounds: every attest succeeds, every task commit keeps its note (the notes
/// reference they share moves by compare-and-swap), and `git fsck --strict` stays clean.
#[test]
fn eight_worktrees_attesting_at_once_for_ten_rounds_all_succeed_with_every_note() {
    const TREES: usize = 8;
    const ROUNDS: usize = 10;
    let p = Project::speckit();
    let key = common::ed25519(&p.scratch, "ada");
    let targets = p.add_speckit_tasks(TREES * ROUNDS);
    let mut trees = Vec::new();
    for i in 0..TREES {
        let dir = p.tmp().join(format!("tree-{i}"));
        p.git(&["worktree", "add", "-q", "-b", &format!("w{i}"), dir.to_str().unwrap()]);
        trees.push((dir, format!("refs/heads/w{i}")));
    }
    for round in 0..ROUNDS {
        let mut children = Vec::new();
        for (i, (dir, _)) in trees.iter().enumerate() {
            let target = &targets[round * TREES + i];
            let evidence =
                common::write_evidence(&p.scratch_dir(&format!("{round}-{i}")), target, Evidence::Verified);
            let args = [
                "attest",
                target,
                "--evidence",
                evidence.to_str().unwrap(),
                "--key",
                key.private.to_str().unwrap(),
            ];
            let mut cmd = common::speccoder_command(dir, &p.home, &args);
            cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
            children.push(cmd.spawn().unwrap());
        }
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "round {round}: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    for (i, (dir, branch)) in trees.iter().enumerate() {
        let commits = p.git_in(dir, &["rev-list", &format!("main..{branch}")]);
        assert_eq!(commits.lines().count(), ROUNDS, "worktree {i}");
        for commit in commits.lines() {
            assert_eq!(p.note_lines(commit).len(), 5, "worktree {i}, commit {commit}");
        }
        assert_eq!(p.git_in(dir, &["status", "--porcelain"]), "", "worktree {i}");
    }
    let notes = p.git(&["notes", "--ref", NOTES_REF, "list"]);
    assert_eq!(notes.lines().count(), TREES * ROUNDS);
    p.git_run(&["fsck", "--strict", "--no-dangling", "--no-progress"]).success();
}
