//! The writer's integrity: files read only where they should be, the notes reference checked
//! before anything moves, "already ticked" decided at HEAD, an interrupted tick completed rather
//! than doubled, the index held as git holds it, the published `[attest]` table, and signing
//! that fails closed. Every case runs the real binary on a real repository and checks the
//! result with git itself.

use serde_json::json;

use super::{Setup, T005};
use crate::common::{self, Evidence, NOTES_REF};

/// Commits `text` as `speccoder.toml` (the project's policy at HEAD).
fn commit_config(s: &Setup, text: &str) {
    let p = &s.project;
    p.write("speccoder.toml", text);
    p.git(&["add", "speccoder.toml"]);
    p.git(&["commit", "-q", "-m", "speccoder.toml"]);
}

/// Runs attest for T005 with the key and asserts that it failed with `code`, said each of
/// `says`, and changed nothing a user can see.
#[track_caller]
pub(crate) fn refused(s: &Setup, evidence: &std::path::Path, code: i32, says: &[&str]) -> common::Run {
    let before = s.project.snapshot();
    let out = s.project.attest(T005, evidence, &["--key", s.key.private.to_str().unwrap()]).failure(code);
    for text in says {
        assert!(out.stderr.contains(text), "stderr should say {text:?}\n{out}");
    }
    assert_eq!(s.project.snapshot(), before, "the repository changed\n{out}");
    assert!(!s.project.root.join(".git/index.lock").exists(), "the index lock was released");
    out
}

/// Evidence for T005 whose red phase names `output` (written as is), in a directory of its own.
fn evidence_naming_red_output(s: &Setup, name: &str, output: &str) -> std::path::PathBuf {
    let mut value = common::evidence_json(T005, Evidence::Verified);
    value["phases"][1]["output"] = json!(output);
    let dir = s.project.scratch_dir(name);
    let path = dir.join("evidence.json");
    std::fs::write(&path, serde_json::to_vec(&value).unwrap()).unwrap();
    path
}

#[test]
fn a_speccoder_toml_that_is_not_toml_is_quoted_escaped_and_cut_short() {
    let s = Setup::speckit(Evidence::Verified);
    commit_config(&s, "[checks]\nx = \"\u{1b}[2K\u{1b}[1A\u{1b}[32mevidenced    T005\u{1b}[0m\" junk\n");
    let out = refused(&s, &s.evidence, 13, &["speccoder.toml", "line 2", "\\u{1b}[2K\\u{1b}[1A"]);
    assert!(!out.stderr.contains('\u{1b}'), "no escape sequence reaches the terminal\n{out}");
    assert_eq!(out.stderr.matches("speccoder.toml").count(), 1, "the file is named once\n{out}");

    commit_config(&s, &format!("[checks]\nx = {}\n", "a".repeat(100_000)));
    let out = refused(&s, &s.evidence, 13, &["speccoder.toml", "line 2", "…"]);
    assert!(out.stderr.len() < 2_000, "the 100 KB line is cut short: {} bytes", out.stderr.len());
}

/// Structure past what any configuration holds, or more bytes than are read of it, is refused
/// before it is parsed, saying what a configuration holds and to commit a smaller one.
#[test]
fn a_speccoder_toml_too_large_to_read_is_refused_saying_to_make_it_smaller_and_commit_it() {
    let s = Setup::speckit(Evidence::Verified);
    commit_config(&s, &format!("[checks]\nx = {}\n", "[".repeat(100_000)));
    let says =
        ["speccoder.toml", "more than 10000 tables and arrays", "line 2", "make it smaller", "commit it"];
    let out = refused(&s, &s.evidence, 13, &says);
    assert!(out.stderr.len() < 2_000, "{} bytes", out.stderr.len());
    commit_config(&s, &format!("# {}\n", "x".repeat(1 << 20)));
    let says = ["speccoder.toml", "more than the 1048576 bytes read of it", "make it smaller", "commit it"];
    refused(&s, &s.evidence, 13, &says);
}

#[cfg(unix)]
#[test]
fn a_red_output_behind_a_link_outside_the_evidence_directory_or_not_a_file_is_refused() {
    let s = Setup::speckit(Evidence::Verified);
    let secret = s.project.scratch.join("secret.txt");
    std::fs::write(&secret, "root:$6$saltsalt$notarealhash:19000:0:99999:7:::\n").unwrap();

    let linked = evidence_naming_red_output(&s, "linked", "red.log");
    std::os::unix::fs::symlink(&secret, linked.parent().unwrap().join("red.log")).unwrap();
    let out = refused(&s, &linked, 13, &["red.log", "symbolic link"]);
    assert!(!out.stderr.contains("notarealhash"), "{out}");

    let fifo = evidence_naming_red_output(&s, "fifo", "red.log");
    let made = std::process::Command::new("mkfifo").arg(fifo.parent().unwrap().join("red.log")).status();
    assert!(made.unwrap().success());
    refused(&s, &fifo, 13, &["red.log", "FIFO"]);

    let up = evidence_naming_red_output(&s, "up", "../secret.txt");
    refused(&s, &up, 13, &["../secret.txt", "no `..`"]);
    let absolute = evidence_naming_red_output(&s, "absolute", secret.to_str().unwrap());
    refused(&s, &absolute, 13, &["no absolute path"]);

    let inner = evidence_naming_red_output(&s, "inner-link", "logs/red.log");
    std::os::unix::fs::symlink(s.project.scratch.as_path(), inner.parent().unwrap().join("logs")).unwrap();
    refused(&s, &inner, 13, &["symbolic link"]);
}

#[cfg(unix)]
#[test]
fn an_evidence_file_that_is_a_link_or_a_fifo_is_refused_without_waiting() {
    let s = Setup::speckit(Evidence::Verified);
    let link = s.project.scratch.join("evidence-link.json");
    std::os::unix::fs::symlink(&s.evidence, &link).unwrap();
    refused(&s, &link, 13, &["evidence-link.json is a symbolic link"]);
    let fifo = s.project.scratch.join("evidence.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    refused(&s, &fifo, 13, &["evidence.fifo is a FIFO"]);
}

#[cfg(unix)]
#[test]
fn a_key_file_that_is_a_fifo_or_a_device_is_refused_without_waiting() {
    let s = Setup::speckit(Evidence::Verified);
    let fifo = s.project.scratch.join("key.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for (key, says) in [(fifo.to_str().unwrap(), "it is a FIFO"), ("/dev/zero", "it is a device")] {
        let before = s.project.snapshot();
        let out = s.project.attest(T005, &s.evidence, &["--key", key]).failure(13);
        assert!(out.stderr.contains(&format!("{says}, not a regular file")), "{key}\n{out}");
        assert_eq!(s.project.snapshot(), before, "the repository changed\n{out}");
    }
}

#[test]
fn an_integer_beyond_64_bits_in_the_evidence_is_refused_naming_the_field() {
    let s = Setup::speckit(Evidence::Verified);
    let mut value = common::evidence_json(T005, Evidence::Verified);
    value["mutation"] = json!({ "caught": "BIG", "missed": 0 });
    // 2^70, written as JSON writes an integer: a reader that takes it as a float loses digits.
    let text = serde_json::to_string(&value).unwrap().replace("\"BIG\"", "1180591620717411303424");
    let dir = s.project.scratch_dir("big");
    std::fs::write(dir.join("evidence.json"), text).unwrap();
    std::fs::copy(s.evidence.parent().unwrap().join("red.log"), dir.join("red.log")).unwrap();
    refused(&s, &dir.join("evidence.json"), 13, &["mutation.caught", "64-bit integer"]);
}

#[test]
fn a_notes_reference_that_cannot_take_a_note_stops_attest_before_anything_moves() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.git(&["symbolic-ref", NOTES_REF, "refs/heads/main"]);
    let out = refused(&s, &s.evidence, 14, &[NOTES_REF, "refs/heads/main", "symbolic reference"]);
    assert!(!out.stderr.contains("reset"), "no advice to reset when nothing moved\n{out}");
    p.git(&["symbolic-ref", "--delete", NOTES_REF]);

    let tree = p.rev("HEAD^{tree}");
    p.git(&["update-ref", NOTES_REF, &tree]);
    refused(&s, &s.evidence, 14, &[NOTES_REF, &tree, "points at a tree"]);
}

/// A FIFO or a link in place of the task list is never read (no wait on the FIFO, nothing read
/// through the link, even when it leads to the staged bytes): the refusal names what is there,
/// nothing is written, and it is left as it is.
#[cfg(unix)]
#[test]
fn a_task_list_replaced_by_a_fifo_or_a_link_is_refused_naming_it_without_waiting() {
    type Replace = fn(&std::path::Path, &std::path::Path);
    let cases: [(&str, Replace, &str); 2] = [
        (
            "fifo",
            |tasks, _| assert!(std::process::Command::new("mkfifo").arg(tasks).status().unwrap().success()),
            "the staged one: it is a FIFO, not a regular file;",
        ),
        (
            "link",
            |tasks, copy| std::os::unix::fs::symlink(copy, tasks).unwrap(),
            "the staged one: it is a symbolic link",
        ),
    ];
    for (name, replace, says) in cases {
        let s = Setup::speckit(Evidence::Verified);
        let tasks = s.project.root.join(format!("specs/{}/tasks.md", common::SPECKIT_UNIT));
        let copy = s.project.scratch_dir(name).join("tasks.md");
        std::fs::copy(&tasks, &copy).unwrap();
        std::fs::remove_file(&tasks).unwrap();
        replace(&tasks, &copy);
        refused(&s, &s.evidence, 14, &["cannot be compared with the staged one", says, "git checkout --"]);
        let left = std::fs::symlink_metadata(&tasks).unwrap().file_type();
        assert!(!left.is_file(), "the {name} is left as it is");
    }
}

#[test]
fn a_box_ticked_and_staged_by_hand_is_refused_and_left_as_it_is() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let tasks = format!("specs/{}/tasks.md", common::SPECKIT_UNIT);
    let text = String::from_utf8(p.read(&tasks)).unwrap();
    p.write(&tasks, text.replacen("- [ ] T005", "- [X] T005", 1));
    p.git(&["add", &tasks]);
    refused(&s, &s.evidence, 14, &["T005 is ticked in the staged", "not at HEAD"]);
}

/// T005 attested, then the index and the work tree put back to the task list before the tick:
/// what a writer killed after the branch and the note moved leaves. Returns the task list's path.
fn interrupted_tick() -> (Setup, String) {
    let s = Setup::speckit(Evidence::Verified);
    let tasks = format!("specs/{}/tasks.md", common::SPECKIT_UNIT);
    s.attest_signed(&[]);
    s.project.write(&tasks, s.project.git_bytes(&["show", &format!("HEAD~:{tasks}")]));
    s.project.git(&["add", &tasks]);
    (s, tasks)
}

/// A writer killed after the branch and the note moved but before the index was written leaves
/// a stale `index.lock`, and an index and work tree that still hold the task list before the
/// tick. The next attest names the lock; once it is removed, attest completes the tick: no second
/// commit, no second note, and `git status` clean.
#[test]
fn an_interrupted_tick_is_completed_by_the_next_attest_and_never_made_twice() {
    let (s, _) = interrupted_tick();
    let p = &s.project;
    let (commit, note) = (p.rev("HEAD"), p.note("HEAD"));
    // The state of the kill also leaves the lock.
    std::fs::write(p.root.join(".git/index.lock"), b"").unwrap();

    let key = s.key.private.to_str().unwrap();
    let out = p.attest(T005, &s.evidence, &["--key", key]).failure(14);
    assert!(out.stderr.contains(".git/index.lock"), "the stale lock is named\n{out}");
    std::fs::remove_file(p.root.join(".git/index.lock")).unwrap();

    let out = p.attest(T005, &s.evidence, &["--key", key]).success();
    assert!(out.stdout.contains("now show the tick"), "{out}");
    assert_eq!(p.rev("HEAD"), commit, "no second task commit");
    assert_eq!(p.note("HEAD"), note, "the note is as it was");
    assert_eq!(p.git(&["status", "--porcelain"]), "");
    assert_eq!(
        p.git(&["log", "--format=%H", "--grep", "Spec-Task: 001-bookmark-tags/T005"]).lines().count(),
        1
    );

    let out = p.attest(T005, &s.evidence, &["--key", key]).failure(14);
    assert!(out.stderr.contains("already ticked"), "{out}");
}

/// Whether `strace` can run here and trace a child (a container may forbid ptrace).
#[cfg(target_os = "linux")]
fn strace_works() -> bool {
    std::process::Command::new("strace")
        .args(["-f", "-o", "/dev/null", "true"])
        .status()
        .is_ok_and(|status| status.success())
}

/// The system calls of `calls` (strace's `trace=` list) that `speccoder attest` of [`T005`]
/// makes in `s`'s repository, in order, as `strace` shows each, from a run in a copy of the
/// repository, which is dropped after.
#[cfg(target_os = "linux")]
fn calls_of_an_attest(s: &Setup, calls: &str) -> Vec<String> {
    let p = &s.project;
    let copy = p.scratch.join("dry-run");
    common::copy_dir(&p.root, &copy);
    let trace = p.scratch.join("dry-run.trace");
    let filter = format!("trace={calls}");
    let args = ["-f", "-o", trace.to_str().unwrap(), "-e", filter.as_str()];
    let mut cmd = common::binary_command(std::path::Path::new("strace"), &copy, &p.home, &args);
    cmd.arg(common::speccoder_bin()).args(attest_args(s));
    common::run(cmd).success();
    std::fs::remove_dir_all(&copy).unwrap();
    let traced = std::fs::read_to_string(&trace).unwrap();
    let name = calls.split(',').next().unwrap_or(calls);
    traced.lines().filter(|l| l.contains(name)).map(str::to_owned).collect()
}

/// `attest T005 --evidence … --key …`, signed with `s`'s key.
#[cfg(target_os = "linux")]
fn attest_args(s: &Setup) -> Vec<String> {
    let (evidence, key) = (s.evidence.to_str().unwrap(), s.key.private.to_str().unwrap());
    ["attest", T005, "--evidence", evidence, "--key", key].map(str::to_owned).to_vec()
}

/// `speccoder attest` of [`T005`] in `s`'s repository under `strace`, which delivers `signal` at
/// the `when`-th of the system calls `calls`.
#[cfg(target_os = "linux")]
fn attest_interrupted(s: &Setup, calls: &str, signal: &str, when: usize) -> common::Run {
    let p = &s.project;
    let (filter, inject) = (format!("trace={calls}"), format!("inject={calls}:signal={signal}:when={when}"));
    let args = ["-f", "-o", "/dev/null", "-e", filter.as_str(), "-e", inject.as_str()];
    let mut cmd = common::binary_command(std::path::Path::new("strace"), &p.root, &p.home, &args);
    cmd.arg(common::speccoder_bin()).args(attest_args(s));
    common::run(cmd)
}

/// Every lock file below the git directory of `s`'s repository.
#[cfg(unix)]
fn lock_files(s: &Setup) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![s.project.root.join(".git")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "lock") {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

/// An interrupt or a hangup delivered as a reference's lock file is created (strace delivers it
/// at the `openat` that creates it) leaves no lock behind, and the next run is not stopped by one.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupt_or_a_hangup_as_a_reference_lock_is_created_leaves_no_lock_behind() {
    if !strace_works() {
        eprintln!("SKIPPED: strace cannot trace here, so no signal can be delivered at a lock's creation");
        return;
    }
    let locks = ["refs/notes/speccoder.lock", "HEAD.lock", "refs/heads/main.lock"];
    for (lock, signal) in locks.into_iter().flat_map(|lock| [(lock, "INT"), (lock, "HUP")]) {
        let s = Setup::speckit(Evidence::Verified);
        let opens = calls_of_an_attest(&s, "openat");
        let at = 1 + opens
            .iter()
            .position(|o| o.contains(&format!("{lock}\"")))
            .unwrap_or_else(|| panic!("{lock} is never opened: {opens:#?}"));
        let out = attest_interrupted(&s, "openat", signal, at);
        assert_ne!(out.code(), Some(0), "{lock}, SIG{signal}: {out}");
        assert_eq!(lock_files(&s), Vec::<String>::new(), "{lock}, SIG{signal}: {out}");
    }
}

/// An interrupt or a hangup that arrives as the branch moves (Ctrl-C, `SIGTERM`, `SIGQUIT`,
/// `SIGHUP`, delivered by `strace` at the rename that moves it) waits until the tick is whole: the
/// command ends as the signal says, with the branch, the task list and the index all showing the tick and no lock
/// left, so that the next `git commit` cannot take the tick back.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupt_or_a_hangup_as_the_branch_moves_ends_the_command_only_once_the_tick_is_whole() {
    if !strace_works() {
        eprintln!("SKIPPED: strace cannot trace here, so no signal can be delivered at the branch's rename");
        return;
    }
    for signal in ["INT", "TERM", "QUIT", "HUP"] {
        let s = Setup::speckit(Evidence::Verified);
        let p = &s.project;
        let renames = calls_of_an_attest(&s, "rename,renameat,renameat2");
        let at = 1 + renames
            .iter()
            .position(|r| r.contains(".git/refs/heads/main\")"))
            .unwrap_or_else(|| panic!("no rename moves the branch: {renames:#?}"));
        let out = attest_interrupted(&s, "rename,renameat,renameat2", signal, at);
        assert_ne!(out.code(), Some(0), "SIG{signal} ended the command: {out}");
        assert_eq!(
            p.git(&["status", "--porcelain"]),
            "",
            "SIG{signal}: the work tree and index show the tick"
        );
        assert_eq!(lock_files(&s), Vec::<String>::new(), "SIG{signal}: no lock left");
        assert!(p.git(&["log", "-1", "--format=%B"]).contains(&format!("Spec-Task: {T005}")), "SIG{signal}");
        p.speccoder(&[
            "attest",
            "verify",
            "--branch",
            "--all",
            "--allowed-signers",
            s.allowed.to_str().unwrap(),
        ])
        .success();
    }
}

/// After an interrupted tick the index still holds the task list before it. A writer for another
/// task must not commit that index as it is, which would take the finished tick back at HEAD:
/// it refuses, naming the tick and how to bring the index up to HEAD, and once that is done the
/// other task is ticked beside it.
#[test]
fn an_interrupted_tick_is_never_taken_back_by_the_next_task_commit() {
    let (s, tasks) = interrupted_tick();
    let p = &s.project;
    let key = s.key.private.to_str().unwrap();
    let before = p.snapshot();
    let out = p.speccoder(&["accept", "001-bookmark-tags/T006", "--reason", "shown by hand", "--key", key]);
    let out = out.failure(14);
    assert!(out.stderr.contains("would untick 001-bookmark-tags/T005, which HEAD ticks"), "{out}");
    assert!(out.stderr.contains(&format!("git checkout HEAD -- {tasks}")), "{out}");
    assert_eq!(p.snapshot(), before, "nothing was written\n{out}");
    assert!(!p.root.join(".git/index.lock").exists(), "the index lock was released");

    p.git(&["checkout", "HEAD", "--", &tasks]);
    p.speccoder(&["accept", "001-bookmark-tags/T006", "--reason", "shown by hand", "--key", key]).success();
    let at_head = p.git(&["show", &format!("HEAD:{tasks}")]);
    assert!(at_head.contains("- [X] T005") && at_head.contains("- [X] T006"), "{at_head}");
}

/// A checkout of another branch that lands while the command signs (`git symbolic-ref`, which
/// takes no index lock, run by the signing program itself) is found under HEAD's lock: neither
/// `attest` nor `accept` publishes anything, on the branch it read or on the one HEAD names
/// now, and neither stages the tick in that branch's index, where a plain `git commit` would
/// take it without a note. Both stop with exit 14, saying HEAD moved and to run again.
#[test]
fn a_branch_checked_out_while_the_command_signs_gets_nothing_and_neither_does_the_one_read() {
    use std::os::unix::fs::PermissionsExt;
    let runs: [&[&str]; 2] =
        [&["attest", T005, "--evidence", ""], &["accept", T005, "--reason", "shown by hand"]];
    for args in runs {
        let s = Setup::speckit(Evidence::Verified);
        let p = &s.project;
        p.git(&["branch", "other"]);
        let key = common::ssh_key(&p.scratch, "rsa-ada", "rsa");
        let program = p.scratch.join("checks-out-other");
        let script = format!(
            "#!/bin/sh\ngit -C '{}' symbolic-ref HEAD refs/heads/other\nexec ssh-keygen \"$@\"\n",
            p.root.display()
        );
        std::fs::write(&program, script).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        p.git(&["config", "gpg.format", "ssh"]);
        p.git(&["config", "user.signingKey", key.private.to_str().unwrap()]);
        p.git(&["config", "gpg.ssh.program", program.to_str().unwrap()]);
        let before = p.snapshot();
        let evidence = s.evidence.to_str().unwrap();
        let args: Vec<&str> = args.iter().map(|a| if a.is_empty() { evidence } else { a }).collect();

        let out = p.speccoder(&args).failure(14);

        assert!(out.stderr.contains("HEAD moved meanwhile"), "{out}");
        assert!(out.stderr.contains("refs/heads/main") && out.stderr.contains("refs/heads/other"), "{out}");
        assert!(out.stderr.contains("run the command again"), "{out}");
        assert_eq!(p.git(&["symbolic-ref", "HEAD"]).trim(), "refs/heads/other", "{out}");
        let now = p.snapshot();
        assert_eq!(
            (now.refs, now.index, now.worktree),
            (before.refs, before.index, before.worktree),
            "{out}"
        );
        assert!(!p.root.join(".git/index.lock").exists() && !p.root.join(".git/HEAD.lock").exists());
    }
}

/// Runs `speccoder args` in `p`'s work tree under a file-size limit of `kib` KiB (`ulimit -f`),
/// with `SIGXFSZ` ignored, so that a write past it fails with `EFBIG` as a full disk fails a write.
fn speccoder_under_file_size_limit(p: &common::Project, kib: u64, args: &[&str]) -> common::Run {
    let script = r#"trap '' XFSZ; ulimit -f "$1" && shift && exec "$@""#;
    let limit = kib.to_string();
    let mut all = vec!["-c", script, "bash", limit.as_str(), common::speccoder_bin().to_str().unwrap()];
    all.extend(args);
    common::run(common::binary_command(std::path::Path::new("bash"), &p.root, &p.home, &all))
}

/// The index of a large project outgrows a file-size limit (`ulimit -f`; a full disk or quota
/// fails the same way) after the task commit and its note are written. That is the environment's
/// doing, exit 14 as a refused permission is, never an internal error; a writer for another task
/// then names the tick left unstaged (its work tree ticked, its index not), not "unstaged
/// changes"; and the same `attest` run again, with room, finishes it.
#[test]
fn an_index_the_file_size_limit_stops_is_the_environments_and_the_next_writer_names_its_tick() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    for i in 0..3000 {
        p.write(&format!("many/a_file_with_a_longish_name_{i}"), format!("{i}\n"));
    }
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", "many files"]);
    let index_kib = std::fs::metadata(p.root.join(".git/index")).unwrap().len() / 1024;
    assert!(index_kib > 200, "the index ({index_kib} KiB) is larger than the limit");
    let key = s.key.private.to_str().unwrap();
    let evidence = s.evidence.to_str().unwrap();

    let attest = ["attest", T005, "--evidence", evidence, "--key", key];
    let out = speccoder_under_file_size_limit(p, 100, &attest).failure(14);
    assert!(out.stderr.contains("the task commit and its note were written"), "{out}");
    assert!(out.stderr.contains("no room") && out.stderr.contains("ulimit -f"), "{out}");
    let tasks = format!("specs/{}/tasks.md", common::SPECKIT_UNIT);
    assert_eq!(p.git(&["status", "--porcelain", "--", &tasks]), format!("MM {tasks}\n"));

    let before = p.snapshot();
    let out = p.speccoder(&["accept", "001-bookmark-tags/T006", "--reason", "shown by hand", "--key", key]);
    let out = out.failure(14);
    assert!(out.stderr.contains("would untick 001-bookmark-tags/T005, which HEAD ticks"), "{out}");
    assert!(!out.stderr.contains("has unstaged changes"), "{out}");
    assert_eq!(p.snapshot(), before, "nothing was written\n{out}");

    let out = p.speccoder(&attest).success();
    assert!(out.stdout.contains("now show the tick"), "{out}");
    assert_eq!(p.git(&["status", "--porcelain"]), "");
}

/// Commits each of `side_files` on a new branch `side`, then `main's line` as `shared.txt` on the
/// branch checked out before: two branches whose `shared.txt` conflicts.
fn diverged(p: &common::Project, side_files: &[(&str, &str)]) {
    let main = p.git(&["symbolic-ref", "--short", "HEAD"]).trim().to_owned();
    let commit_file = |name: &str, text: &str| {
        p.write(name, text);
        p.git(&["add", name]);
        p.git(&["commit", "-q", "-m", name]);
    };
    p.git(&["checkout", "-q", "-b", "side"]);
    for (name, text) in side_files {
        commit_file(name, text);
    }
    p.git(&["checkout", "-q", &main]);
    commit_file("shared.txt", "main's line\n");
}

/// A rebase or a bisect detaches HEAD while it runs. The writer names the operation and how to
/// finish it, never "check out a branch", which would leave the operation open on another branch.
#[test]
fn a_rebase_or_bisect_in_progress_is_named_rather_than_the_detached_head_it_leaves() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    diverged(p, &[("shared.txt", "the side's line\n")]);
    let before = p.snapshot();

    assert_ne!(p.git_run(&["rebase", "side"]).code(), Some(0), "the rebase stops on a conflict");
    let out = refused(&s, &s.evidence, 14, &["a rebase is in progress", "git rebase --abort"]);
    assert!(!out.stderr.contains("check out a branch"), "{out}");
    p.git(&["rebase", "--abort"]);

    p.git(&["bisect", "start", "HEAD", "HEAD~2"]);
    let out = refused(&s, &s.evidence, 14, &["a bisect is in progress", "git bisect reset"]);
    assert!(!out.stderr.contains("check out a branch"), "{out}");
    p.git(&["bisect", "reset"]);
    assert_eq!(p.snapshot(), before, "nothing was written");
}

/// A merge, cherry-pick or revert left open holds its half-done result in the index; a task
/// commit would take it in with one parent and leave the operation open. The writer refuses,
/// saying how to finish it, and changes nothing.
#[test]
fn a_merge_or_cherry_pick_in_progress_is_refused_before_anything_is_written() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    diverged(p, &[("side.txt", "from the side branch\n"), ("shared.txt", "the side's line\n")]);

    p.git(&["merge", "-q", "--no-commit", "--no-ff", "side~"]);
    let out = refused(&s, &s.evidence, 14, &["a merge is in progress", "git merge --abort"]);
    assert!(out.stderr.contains("nothing was written"), "{out}");
    p.git(&["merge", "--abort"]);

    // A conflicted cherry-pick, resolved and staged but not committed.
    assert_ne!(p.git_run(&["cherry-pick", "side"]).code(), Some(0), "the cherry-pick conflicts");
    p.write("shared.txt", "both lines\n");
    p.git(&["add", "shared.txt"]);
    refused(&s, &s.evidence, 14, &["a cherry-pick is in progress", "git cherry-pick --abort"]);
    p.git(&["cherry-pick", "--abort"]);

    s.attest_signed(&[]);
    assert_eq!(p.git(&["show", "-s", "--format=%P", "HEAD"]).split_whitespace().count(), 1);
    assert!(
        !p.git(&["ls-tree", "--name-only", "HEAD"]).contains("side.txt"),
        "the task commit holds no side change"
    );
}

/// A `packed-refs.lock` that a killed `git pack-refs` or `git gc` left holds up every reference
/// update gix makes: attest names that file and says to remove it (not that other writers kept
/// changing the notes), and once it is removed, attest goes through.
#[test]
fn a_packed_refs_lock_left_behind_is_named_and_removing_it_lets_attest_through() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let lock = p.root.join(".git/packed-refs.lock");
    std::fs::write(&lock, b"").unwrap();

    let key = s.key.private.to_str().unwrap();
    let out = p.attest(T005, &s.evidence, &["--key", key]).failure(14);
    assert!(out.stderr.trim_end().ends_with(&format!("remove {}", lock.display())), "{out}");
    assert!(!out.stderr.contains("concurrent changes"), "{out}");
    assert_eq!(p.git(&["status", "--porcelain"]), "", "nothing was ticked");

    std::fs::remove_file(&lock).unwrap();
    s.attest_signed(&[]);
}

/// Runs the git commands the refusal `stderr` advises (the first code span after "nothing was
/// written", commands joined by ` && `), as a user would copy them.
fn follow_advice(p: &common::Project, stderr: &str) {
    let advice = stderr.split("nothing was written").nth(1).and_then(|rest| rest.split('`').nth(1));
    let advice = advice.unwrap_or_else(|| panic!("no command advised: {stderr}"));
    for command in advice.split(" && ") {
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(words.first(), Some(&"git"), "{advice}");
        p.git(&words[1..]);
    }
}

/// In a sparse checkout that leaves the unit out, the task list is absent from the work tree on
/// purpose: the writer says so and how to bring it in, not that it has unstaged changes; the
/// advice works in cone mode, and in non-cone mode even where a pattern excludes the task list
/// itself (where `git sparse-checkout add <dir>` changes nothing).
#[test]
fn a_task_list_outside_the_sparse_checkout_is_named_as_such() {
    let dir = format!("specs/{}", common::SPECKIT_UNIT);
    let tasks = format!("/{dir}/tasks.md");
    let excluded = format!("!{dir}/tasks.md");
    let checkouts: [&[&str]; 3] =
        [&["--no-cone", "/outside.txt"], &["--no-cone", "/*", &excluded], &["--cone", "kept"]];
    for patterns in checkouts {
        let s = Setup::speckit(Evidence::Verified);
        let p = &s.project;
        p.write("outside.txt", "kept\n");
        p.write("kept/file.txt", "kept\n");
        p.git(&["add", "outside.txt", "kept"]);
        p.git(&["commit", "-q", "-m", "outside"]);
        p.git(&[&["sparse-checkout", "set"][..], patterns].concat());
        assert!(!p.root.join(&tasks[1..]).exists(), "{patterns:?}: the task list is outside the checkout");
        let out =
            refused(&s, &s.evidence, 14, &["is outside this sparse checkout", "git sparse-checkout add"]);
        assert!(!out.stderr.contains("unstaged"), "{out}");

        follow_advice(p, &out.stderr);
        assert!(p.root.join(&tasks[1..]).is_file(), "{patterns:?}: the advice brings the task list in");
        s.attest_signed(&[]);
    }
}

/// A task list marked skip-worktree by hand (`git update-index --skip-worktree`, to keep local
/// edits out of `git status`) where no sparse checkout is configured: `git sparse-checkout add`
/// would fail ("no sparse-checkout to add to"), so the writer says to clear the mark, and how to
/// bring the file back when the work tree lacks it.
#[test]
fn a_task_list_marked_skip_worktree_without_a_sparse_checkout_is_advised_to_clear_the_mark() {
    for absent in [false, true] {
        let s = Setup::speckit(Evidence::Verified);
        let p = &s.project;
        let tasks = format!("specs/{}/tasks.md", common::SPECKIT_UNIT);
        p.git(&["update-index", "--skip-worktree", &tasks]);
        if absent {
            std::fs::remove_file(p.root.join(&tasks)).unwrap();
        }
        let out =
            refused(&s, &s.evidence, 14, &["is marked skip-worktree", "no sparse checkout is configured"]);
        assert!(out.stderr.contains(&format!("git update-index --no-skip-worktree {tasks}")), "{out}");
        assert!(!out.stderr.contains("sparse-checkout add"), "{out}");

        follow_advice(p, &out.stderr);
        s.attest_signed(&[]);
        assert_eq!(p.git(&["status", "--porcelain"]), "", "absent: {absent}");
    }
}

/// A task list the index marks assume-unchanged (`git update-index --assume-unchanged`) with an
/// edit in the work tree: `git status` shows nothing and `git add` stages nothing while the mark
/// is set, so the writer names the mark and says to clear it; following that advice, then staging
/// the edit, lets the tick through with the edit in the task commit.
#[test]
fn an_edit_of_a_task_list_marked_assume_unchanged_is_refused_naming_the_mark_and_how_to_clear_it() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let tasks = format!("specs/{}/tasks.md", common::SPECKIT_UNIT);
    p.git(&["update-index", "--assume-unchanged", &tasks]);
    let mut edited = p.read(&tasks);
    edited.extend_from_slice(b"\nA note of my own.\n");
    p.write(&tasks, &edited);
    p.git(&["add", &tasks]);
    assert_eq!(p.git(&["status", "--porcelain"]), "", "git shows no change while the mark is set");
    assert_eq!(p.git(&["diff", "--cached", "--name-only"]), "", "and `git add` staged nothing");

    let out = refused(&s, &s.evidence, 14, &["marks it assume-unchanged"]);
    assert!(out.stderr.contains(&format!("`git update-index --no-assume-unchanged {tasks}`")), "{out}");
    assert_eq!(p.read(&tasks), edited, "the edit is left as it is");

    follow_advice(p, &out.stderr);
    p.git(&["add", &tasks]);
    s.attest_signed(&[]);
    let committed = p.git(&["show", &format!("HEAD:{tasks}")]);
    assert!(committed.contains("- [X] T005") && committed.contains("A note of my own."), "{committed}");
    assert_eq!(p.git(&["status", "--porcelain"]), "");
}

/// Completing an interrupted tick overwrites the task list only when its bytes are known to be
/// the index's or the tick's: a link the user put there (to a file with edits of their own) is
/// refused and left as it is, with the file behind it.
#[cfg(unix)]
#[test]
fn an_interrupted_tick_is_not_completed_over_a_task_list_it_cannot_read() {
    let (s, tasks) = interrupted_tick();
    let p = &s.project;
    let commit = p.rev("HEAD");
    let mine = p.scratch_dir("mine").join("tasks.md");
    std::fs::write(&mine, b"- [ ] T005 my own edit\n").unwrap();
    std::fs::remove_file(p.root.join(&tasks)).unwrap();
    std::os::unix::fs::symlink(&mine, p.root.join(&tasks)).unwrap();

    let out = p.attest(T005, &s.evidence, &["--key", s.key.private.to_str().unwrap()]).failure(14);
    assert!(out.stderr.contains("cannot be compared with the staged one: it is a symbolic link"), "{out}");
    assert!(
        std::fs::symlink_metadata(p.root.join(&tasks)).unwrap().file_type().is_symlink(),
        "the link stays"
    );
    assert_eq!(std::fs::read(&mine).unwrap(), b"- [ ] T005 my own edit\n", "the file behind it is untouched");
    assert_eq!(p.rev("HEAD"), commit, "no second task commit");
    assert!(!p.root.join(".git/index.lock").exists(), "the index lock was released");
}

/// A task list edited after a tick was interrupted is neither overwritten nor taken as the tick:
/// attest refuses, leaves the file as it is, and its advice (tick the box in the edited file,
/// stage it) keeps the edit beside the tick. Once staged so, the edit is the user's: the next
/// attest says the task is ticked already, and never puts HEAD's task list over the staged edit.
#[test]
fn a_task_list_edited_after_an_interrupted_tick_is_kept_and_the_advice_keeps_it_with_the_tick() {
    let (s, tasks) = interrupted_tick();
    let p = &s.project;
    let commit = p.rev("HEAD");
    let edited = format!("{}my own edit\n", String::from_utf8(p.read(&tasks)).unwrap());
    p.write(&tasks, &edited);

    let key = s.key.private.to_str().unwrap();
    let out = p.attest(T005, &s.evidence, &["--key", key]);
    let out = out.failure(14);
    assert!(out.stderr.contains("was edited since, so it is left as it is"), "{out}");
    assert!(out.stderr.contains(&format!("tick the task's box in your file and `git add {tasks}`")), "{out}");
    assert_eq!(String::from_utf8(p.read(&tasks)).unwrap(), edited, "the edit is untouched");
    assert_eq!(p.rev("HEAD"), commit, "no second task commit");
    assert!(!p.root.join(".git/index.lock").exists(), "the index lock was released");

    p.write(&tasks, edited.replacen("- [ ] T005", "- [X] T005", 1));
    p.git(&["add", &tasks]);
    let diff = p.git(&["diff", "HEAD", "--", &tasks]);
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"))
        .collect();
    assert_eq!(changed, ["+my own edit"], "only the edit differs from the tick\n{diff}");
    let out = p.attest(T005, &s.evidence, &["--key", key]).failure(14);
    assert!(out.stderr.contains("already ticked"), "{out}");
    assert_eq!(p.git(&["diff", "--cached", "HEAD", "--", &tasks]), diff, "the staged edit is still staged");
    assert_eq!(p.git(&["status", "--porcelain"]).trim(), format!("M  {tasks}"), "and the work tree holds it");
    assert_eq!(p.rev("HEAD"), commit, "no second task commit");
}

/// An edit staged after a tick was interrupted (a task added, say) is the user's: the same attest
/// neither completes over it nor calls the task simply ticked, a writer for another task does not
/// take the tick back, and the advice both give (tick the box in the file, stage it) keeps the
/// edit, the tick and the next task together.
#[test]
fn an_edit_staged_after_an_interrupted_tick_is_kept_and_the_advice_joins_it_with_the_tick() {
    let (s, tasks) = interrupted_tick();
    let p = &s.project;
    let commit = p.rev("HEAD");
    let key = s.key.private.to_str().unwrap();
    let edited = format!("{}- [ ] T099 my new task\n", String::from_utf8(p.read(&tasks)).unwrap());
    p.write(&tasks, &edited);
    p.git(&["add", &tasks]);
    let before = p.snapshot();

    let out = p.attest(T005, &s.evidence, &["--key", key]).failure(14);
    assert!(out.stderr.contains("was edited since, so it is left as it is"), "{out}");
    assert!(out.stderr.contains("tick the task's box in your file"), "{out}");
    assert_eq!(p.snapshot(), before, "the staged edit stays as it was\n{out}");

    let accept = ["accept", "001-bookmark-tags/T006", "--reason", "shown by hand", "--key", key];
    let out = p.speccoder(&accept).failure(14);
    assert!(out.stderr.contains("would untick 001-bookmark-tags/T005"), "{out}");
    assert!(out.stderr.contains("tick 001-bookmark-tags/T005 again in"), "{out}");
    assert_eq!(p.snapshot(), before, "nothing was written\n{out}");

    p.write(&tasks, edited.replacen("- [ ] T005", "- [X] T005", 1));
    p.git(&["add", &tasks]);
    p.speccoder(&accept).success();
    assert_eq!(p.rev("HEAD~"), commit, "one more commit, for T006");
    let at_head = p.git(&["show", &format!("HEAD:{tasks}")]);
    for line in ["- [X] T005", "- [X] T006", "- [ ] T099 my new task"] {
        assert!(at_head.contains(line), "{line}\n{at_head}");
    }
    assert_eq!(p.git(&["status", "--porcelain"]), "");
}

/// `accept` run where an `attest` tick was interrupted finishes that tick (the index and work tree
/// catch up) but does not report it as an acceptance, with a decider and reason it never
/// recorded: it says the task was ticked by that run, with its verdict (exit 14).
#[test]
fn accept_finishing_an_interrupted_attest_tick_says_so_and_records_no_acceptance() {
    let (s, _) = interrupted_tick();
    let p = &s.project;
    let (commit, note) = (p.rev("HEAD"), p.note("HEAD"));
    let key = s.key.private.to_str().unwrap();
    let out =
        p.speccoder(&["accept", T005, "--reason", "scaffolding only", "--key", key, "--json"]).failure(14);
    assert!(out.stderr.contains("(Verdict: verified)"), "{out}");
    assert!(out.stderr.contains("that tick is now finished"), "{out}");
    assert!(out.stderr.contains("no acceptance was recorded"), "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(report["exit_code"], 14, "{report:#}");
    assert_eq!(p.rev("HEAD"), commit, "no commit of its own");
    assert_eq!(p.note("HEAD"), note, "the note is as it was");
    assert_eq!(p.git(&["status", "--porcelain"]), "", "the interrupted tick is finished");
}

/// Run from a subdirectory (`specs/<unit>/`), a refusal whose advice names git commands with
/// paths from the top of the work tree says where those commands hold; from the top it does not.
#[test]
fn advice_given_in_a_subdirectory_says_its_paths_are_from_the_top_of_the_work_tree() {
    let (s, tasks) = interrupted_tick();
    let p = &s.project;
    p.write(&tasks, format!("{}my own edit\n", String::from_utf8(p.read(&tasks)).unwrap()));
    let args = [
        "attest",
        T005,
        "--evidence",
        s.evidence.to_str().unwrap(),
        "--key",
        s.key.private.to_str().unwrap(),
    ];
    let unit_dir = p.root.join("specs").join(common::SPECKIT_UNIT);
    let out = common::run(common::speccoder_command(&unit_dir, &p.home, &args)).failure(14);
    let top = p.root.canonicalize().unwrap();
    let hint = format!(
        "the paths above are from the top of the work tree: run those git commands in {}",
        top.display()
    );
    assert!(out.stderr.contains(&format!("`git add {tasks}`")), "{out}");
    assert!(out.stderr.contains(&hint), "{out}");
    let out = p.attest(T005, &s.evidence, &["--key", s.key.private.to_str().unwrap()]).failure(14);
    assert!(!out.stderr.contains("the paths above"), "{out}");
}

/// A writer killed inside its reference update leaves the index lock and the lock files of the
/// references it moves. The next run names them all in one message, so that one round of removing
/// them (no command holds them) is enough.
#[test]
fn the_lock_files_a_stopped_writer_left_are_named_together() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let branch = p.git(&["symbolic-ref", "HEAD"]).trim().to_owned();
    let locks = [
        ".git/index.lock".to_owned(),
        ".git/HEAD.lock".to_owned(),
        format!(".git/{branch}.lock"),
        ".git/refs/notes/speccoder.lock".to_owned(),
    ];
    for lock in &locks {
        p.write(lock, "");
    }
    let out = p.attest(T005, &s.evidence, &["--key", s.key.private.to_str().unwrap()]).failure(14);
    for lock in &locks {
        assert!(out.stderr.contains(&p.root.join(lock).display().to_string()), "{lock} is named\n{out}");
    }
    for lock in &locks {
        std::fs::remove_file(p.root.join(lock)).unwrap();
    }
    s.attest_signed(&[]);
}

/// `cmd` run by `nohup`: in its directory, with its environment, SIGHUP ignored.
#[cfg(unix)]
fn under_nohup(cmd: &std::process::Command) -> std::process::Command {
    let mut nohup = std::process::Command::new("nohup");
    nohup.env_clear().arg(cmd.get_program()).args(cmd.get_args());
    nohup.current_dir(cmd.get_current_dir().expect("the command runs in the project"));
    for (key, value) in cmd.get_envs() {
        if let Some(value) = value {
            nohup.env(key, value);
        }
    }
    nohup
}

/// `speccoder attest` of T005 with an RSA key, which signs through `ssh-keygen -Y sign`, and an
/// `ssh-keygen` first on `PATH` that runs the shell command `hook` before it signs: a signer that
/// takes a moment (a passphrase prompt, a touch) while the user does something.
#[cfg(unix)]
fn attest_with_signer_hook(s: &Setup, hook: &str) -> std::process::Command {
    use std::os::unix::fs::PermissionsExt;
    let p = &s.project;
    let rsa = common::ssh_key(&p.scratch, "rsa", "rsa");
    let bin = p.scratch_dir("bin");
    let script = format!(
        "#!/bin/sh\ncase \" $* \" in *\" -Y sign \"*) {hook};; esac\nexec '{real}' \"$@\"\n",
        real = common::on_path("ssh-keygen").display(),
    );
    std::fs::write(bin.join("ssh-keygen"), script).unwrap();
    std::fs::set_permissions(bin.join("ssh-keygen"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let args =
        ["attest", T005, "--evidence", s.evidence.to_str().unwrap(), "--key", rsa.private.to_str().unwrap()];
    let mut cmd = common::speccoder_command(&p.root, &p.home, &args);
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    cmd.env("PATH", path);
    cmd
}

/// The task list replaced by a link or a directory while the signer runs is the user's change
/// like any edit: it is left in place, the tick is committed, noted and staged, and the command
/// says so (exit 14), never "internal error" with advice that does not finish.
#[cfg(unix)]
#[test]
fn a_task_list_replaced_by_a_link_or_directory_while_the_signer_runs_is_left_and_said() {
    for (what, hook) in [
        ("link", "mv '{f}' '{f}.orig' && ln -s tasks.md.orig '{f}'"),
        ("directory", "mv '{f}' '{f}.orig' && mkdir '{f}'"),
    ] {
        let s = Setup::speckit(Evidence::Verified);
        let p = &s.project;
        let tasks = format!("specs/{}/tasks.md", common::SPECKIT_UNIT);
        let parent = p.rev("HEAD");
        let hook = hook.replace("{f}", &p.root.join(&tasks).display().to_string());
        let out = common::run(attest_with_signer_hook(&s, &hook)).failure(14);
        assert!(out.stderr.contains("was changed in the work tree while speccoder ran"), "{what}: {out}");
        let kind = std::fs::symlink_metadata(p.root.join(&tasks)).unwrap().file_type();
        assert!(if what == "link" { kind.is_symlink() } else { kind.is_dir() }, "{what}: left in place");
        assert_eq!(p.rev("HEAD~"), parent, "{what}: one task commit");
        assert!(p.git(&["show", &format!("HEAD:{tasks}")]).contains("- [X] T005"), "{what}");
        assert!(!p.note_lines("HEAD").is_empty(), "{what}: the tick has its note");
        assert_eq!(p.git(&["diff", "--cached"]), "", "{what}: the index holds the tick");
        assert!(!p.root.join(".git/index.lock").exists(), "{what}: the index lock was released");
    }
}

/// A kill while the ticked task list is written leaves the writer's temporary file beside it; a
/// `git add -A` then stages it. The next writer refuses to commit it (exit 14), naming it and the
/// `git rm` that removes it, and once that is done the tick is made without it.
#[test]
fn a_stopped_writers_temporary_file_staged_by_the_user_is_never_committed() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let leftover = format!("specs/{}/.tasks.md.speccoder-new", common::SPECKIT_UNIT);
    p.write(&leftover, p.read(&format!("specs/{}/tasks.md", common::SPECKIT_UNIT)));
    p.git(&["add", "-A"]);
    let before = p.snapshot();

    let out = p.attest(T005, &s.evidence, &["--key", s.key.private.to_str().unwrap()]).failure(14);
    assert!(out.stderr.contains(&format!("`git rm -f -- {leftover}`")), "{out}");
    assert_eq!(p.snapshot(), before, "nothing was written\n{out}");
    p.git(&["rm", "-q", "-f", "--", &leftover]);
    s.attest_signed(&[]);
    assert!(!p.git(&["ls-tree", "-r", "--name-only", "HEAD"]).contains(".speccoder-new"));
    assert_eq!(p.git(&["status", "--porcelain"]), "");
}

/// Ctrl-C (or a SIGTERM) while the signer waits for a passphrase or a touch: the command ends
/// as the signal says, and, as git does, removes the index lock it held, so that no git command
/// is left blocked by it. Nothing was written.
#[cfg(unix)]
#[test]
fn an_interrupt_while_the_signer_waits_removes_the_index_lock_and_writes_nothing() {
    use std::os::unix::process::ExitStatusExt;
    for signal in ["INT", "TERM"] {
        let s = Setup::speckit(Evidence::Verified);
        let p = &s.project;
        let before = p.snapshot();
        let status = signal_while_the_signer_waits(&s, signal, false);

        assert!(!status.success(), "SIG{signal}: {status:?}");
        assert!(status.signal().is_some(), "SIG{signal} ends the command as the signal does: {status:?}");
        assert!(!p.root.join(".git/index.lock").exists(), "SIG{signal}: the index lock was removed");
        assert_eq!(p.snapshot(), before, "SIG{signal}: nothing was written");
        p.write("other.txt", "a change of the user's\n");
        p.git(&["add", "other.txt"]);
    }
}

/// A closed terminal (`SIGHUP`) while the signer waits ends the command as the hangup does, as it
/// ends git: the lock files it held are removed and nothing was written, so the next attest
/// completes rather than stopping on a lock nobody holds.
#[cfg(unix)]
#[test]
fn a_closed_terminal_while_the_signer_waits_leaves_no_lock_and_the_next_attest_completes() {
    use std::os::unix::process::ExitStatusExt;
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let before = p.snapshot();
    let status = signal_while_the_signer_waits(&s, "HUP", false);

    assert_eq!(status.signal(), Some(1), "the hangup ends the command as it would have: {status:?}");
    assert_eq!(lock_files(&s), Vec::<String>::new(), "no lock file is left");
    assert_eq!(p.snapshot(), before, "nothing was written");
    s.attest_signed(&[]);
    assert!(p.git(&["log", "-1", "--format=%B"]).contains(&format!("Spec-Task: {T005}")));
}

/// A command started under `nohup` (SIGHUP ignored) keeps ignoring a hangup while the signer
/// waits, as it always did: the attest completes, and leaves no lock.
#[cfg(target_os = "linux")]
#[test]
fn a_command_started_under_nohup_ignores_a_hangup_and_completes() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let status = signal_while_the_signer_waits(&s, "HUP", true);

    assert!(status.success(), "the hangup is ignored: {status:?}");
    assert_eq!(lock_files(&s), Vec::<String>::new(), "no lock file is left");
    assert!(p.git(&["log", "-1", "--format=%B"]).contains(&format!("Spec-Task: {T005}")));
    assert_eq!(p.git(&["status", "--porcelain"]), "");
}

/// Runs `attest` of [`T005`] with a signer that waits (under `nohup` when `nohup`), and sends
/// `SIG<signal>` while it waits: how the command ended, once it has (the index locked meanwhile).
#[cfg(unix)]
fn signal_while_the_signer_waits(s: &Setup, signal: &str, nohup: bool) -> std::process::ExitStatus {
    let p = &s.project;
    let waiting = p.scratch.join("signer-waiting");
    let mut cmd = attest_with_signer_hook(s, &format!(": > '{}'; sleep 5", waiting.display()));
    if nohup {
        cmd = under_nohup(&cmd);
    }
    cmd.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !waiting.exists() {
        assert!(std::time::Instant::now() < deadline, "the signer was reached");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(p.root.join(".git/index.lock").exists(), "the index is locked while the signer waits");
    let sent =
        std::process::Command::new("kill").args([format!("-{signal}"), child.id().to_string()]).status();
    assert!(sent.unwrap().success());
    child.wait().unwrap()
}

/// A signer that takes a moment (a hardware key waiting for a touch, a passphrase prompt) while
/// the user's editor saves the task list: an RSA key signs through `ssh-keygen -Y sign`, and the
/// `ssh-keygen` first on `PATH` saves an edit of `tasks.md` before it signs. The tick and its
/// note are published and staged, but the edit is never overwritten: the work tree keeps it, and
/// attest says so (exit 14) and how to bring the edit and the tick together.
#[cfg(unix)]
#[test]
fn an_edit_saved_while_the_signer_runs_is_kept_and_the_user_is_told_how_to_add_the_tick() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let tasks = format!("specs/{}/tasks.md", common::SPECKIT_UNIT);
    let before = String::from_utf8(p.read(&tasks)).unwrap();
    let note_line = "- [ ] T099 my note, saved by my editor meanwhile\n";
    let hook = format!(
        "grep -q T099 '{file}' || printf '%s\\n' '{note_line}' >> '{file}'",
        file = p.root.join(&tasks).display(),
        note_line = note_line.trim_end(),
    );
    let parent = p.rev("HEAD");
    let cmd = attest_with_signer_hook(&s, &hook);
    let out = common::run(cmd).failure(14);

    for says in [
        "001-bookmark-tags/T005 is ticked by the task commit",
        "the index holds the ticked",
        "was changed in the work tree while speccoder ran",
        "so it was not overwritten: the work tree keeps your edit, without the tick",
        &format!("`git diff {tasks}`"),
        "tick the task's box again in your file",
    ] {
        assert!(out.stderr.contains(says), "stderr should say {says:?}\n{out}");
    }
    // The edit is kept, exactly as saved.
    assert_eq!(String::from_utf8(p.read(&tasks)).unwrap(), format!("{before}{note_line}"), "{out}");
    // The tick and its note are published and staged.
    assert_eq!(p.rev("HEAD~"), parent, "one task commit");
    assert!(p.git(&["show", &format!("HEAD:{tasks}")]).contains("- [X] T005"));
    assert!(!p.note_lines("HEAD").is_empty(), "the tick has its note");
    assert_eq!(p.git(&["diff", "--cached"]), "", "the index holds the tick");
    assert_eq!(p.git(&["status", "--porcelain"]), format!(" M {tasks}\n"), "git sees the edit");
    assert!(!p.root.join(".git/index.lock").exists(), "the index lock was released");

    // As the message says: the box ticked again, and the edit is all that is left to stage.
    let text = String::from_utf8(p.read(&tasks)).unwrap();
    p.write(&tasks, text.replacen("- [ ] T005", "- [X] T005", 1));
    let diff = p.git(&["diff", "HEAD", "--", &tasks]);
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"))
        .collect();
    assert_eq!(changed, [format!("+{}", note_line.trim_end())], "{diff}");
}

#[test]
fn an_index_held_by_another_command_is_waited_for_then_refused_naming_the_lock() {
    let s = Setup::speckit(Evidence::Verified);
    let lock = s.project.root.join(".git/index.lock");
    std::fs::write(&lock, b"").unwrap();
    let before = s.project.snapshot();
    let started = std::time::Instant::now();
    let out = s.project.attest(T005, &s.evidence, &["--key", s.key.private.to_str().unwrap()]).failure(14);
    assert!(started.elapsed() >= std::time::Duration::from_secs(2), "it waited for the lock");
    assert!(out.stderr.contains("another speccoder or git command holds the index"), "{out}");
    assert!(out.stderr.contains(".git/index.lock"), "{out}");
    std::fs::remove_file(&lock).unwrap();
    assert_eq!(s.project.snapshot(), before);
}

#[test]
fn a_speccoder_toml_as_the_published_tool_writes_it_attests_with_git_s_own_key() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    commit_config(
        &s,
        "[checks]\ncommand = \"cargo test\"\n\n[attest]\nenabled = true\nsigner = \"git\"\nsign_at = \"tick\"\n\n\
         [attest.sigstore]\nidentity = \"ada@example.com\"\nissuer = \"https://accounts.example.com\"\n",
    );
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", s.key.private.to_str().unwrap()]);
    let out = p.attest(T005, &s.evidence, &[]).success();
    assert!(out.stdout.contains("5 lines, 5 signed"), "{out}");
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &p.note_lines("HEAD"));
}

/// The published tool reads `[attest]` through serde, which fills a table's keys from an array of
/// their values in order and reads a date where a string is expected as its text: such a file
/// means here what it means there, and an array it refuses is refused.
#[test]
fn an_attest_table_written_as_an_array_or_with_a_date_attests_as_the_published_tool_reads_it() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", s.key.private.to_str().unwrap()]);
    commit_config(&s, "attest = [true, \"none\", \"tick\"]\n");
    refused(
        &s,
        &s.evidence,
        13,
        &["`attest` in speccoder.toml: an array here", "this one has 3: write exactly 4"],
    );
    commit_config(&s, "attest = [false, \"git\", \"tick\", {}]\n");
    refused(&s, &s.evidence, 13, &["this project records no attestations"]);

    commit_config(&s, "attest = [true, \"none\", \"tick\", [\"ada@example.com\", \"https://x\"]]\n");
    let out = p.attest(T005, &s.evidence, &[]).success();
    assert!(out.stdout.contains("5 lines, 0 signed"), "`none`, the array's signer, despite git's key\n{out}");
    commit_config(&s, "[attest.sigstore]\nidentity = 2026-01-01T00:00:00Z\nissuer = \"https://x\"\n");
    let task = super::speckit_task("T006");
    let evidence = common::write_evidence(&p.scratch_dir("t006"), &task, Evidence::Verified);
    let out = p.attest(&task, &evidence, &[]).success();
    assert!(out.stdout.contains("5 lines, 5 signed"), "{out}");
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &p.note_lines("HEAD"));
}

#[test]
fn sign_at_later_writes_unsigned_lines_that_attest_sign_signs() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    commit_config(&s, "[attest]\nsign_at = \"later\"\n");
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", s.key.private.to_str().unwrap()]);
    let out = p.attest(T005, &s.evidence, &[]).success();
    assert!(out.stdout.contains("5 lines, 0 signed"), "{out}");
    assert!(out.stdout.contains("sign_at"), "{out}");
    let out = p.speccoder(&["attest", "sign"]).success();
    assert!(out.stdout.contains("5 lines, 5 signed"), "{out}");
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &p.note_lines("HEAD"));
    // A key given on the command line signs at the tick anyway.
    let t006 =
        common::write_evidence(&p.scratch_dir("t006"), &super::speckit_task("T006"), Evidence::Verified);
    let key = s.key.private.to_str().unwrap();
    let out = p.attest(&super::speckit_task("T006"), &t006, &["--key", key]).success();
    assert!(out.stdout.contains("5 lines, 5 signed"), "{out}");
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &p.note_lines("HEAD"));
}

/// A key or a value of `[attest]` is the checked-in file's text: an error quotes it cut short (and
/// on one line), on stderr and in `--json` alike, never the whole of it.
#[test]
fn a_huge_key_or_signer_of_speccoder_toml_is_quoted_cut_short_on_stderr_and_in_json() {
    let s = Setup::speckit(Evidence::Verified);
    let huge = "x".repeat(900_000);
    for (text, says) in [
        (format!("[attest]\nsigner = \"{huge}\"\n"), "unknown signer `xxxx"),
        (format!("[attest]\n{huge} = 1\n"), "unknown key"),
        (format!("[attest.sigstore]\n{huge} = 1\n"), "unknown key"),
    ] {
        commit_config(&s, &text);
        let out = refused(&s, &s.evidence, 13, &[says, "…"]);
        assert!(out.stderr.len() < 2_000, "{} bytes on stderr", out.stderr.len());
        let key = s.key.private.to_str().unwrap();
        let json = s.project.attest(T005, &s.evidence, &["--key", key, "--json"]).failure(13);
        let report: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
        let error = report["error"].as_str().unwrap();
        assert!(error.contains(says) && error.len() < 2_000, "{} bytes in --json", error.len());
    }
}

#[test]
fn a_project_that_turned_attestation_off_or_names_an_unknown_key_writes_nothing() {
    let s = Setup::speckit(Evidence::Verified);
    commit_config(&s, "[attest]\nenabled = false\n");
    refused(&s, &s.evidence, 13, &["enabled = false"]);
    commit_config(&s, "[attest]\nsigner = \"git\"\nsign_when = \"tick\"\n");
    refused(&s, &s.evidence, 13, &["`[attest] sign_when`", "unknown key"]);
    commit_config(&s, "[attest]\nsigner = \"x509\"\n");
    refused(&s, &s.evidence, 13, &["`[attest] signer`", "unknown signer `x509`"]);

    // `attest sign` and `attest approve` write a note's signatures too: they refuse alike, a
    // signer named on the command line included.
    let p = &s.project;
    commit_config(&s, "[attest]\nenabled = true\n");
    p.attest(T005, &s.evidence, &["--signer", "none"]).success();
    let tick = p.rev("HEAD");
    let (key, allowed) = (s.key.private.to_str().unwrap(), s.allowed.to_str().unwrap());
    let sign = ["attest", "sign", &tick, "--signer", "ssh", "--key", key];
    let approve = ["attest", "approve", &tick, "--allowed-signers", allowed, "--signer", "ssh", "--key", key];
    for (config, says) in [
        ("[attest]\nenabled = false\n", "enabled = false"),
        ("[attest]\nbogus = 1\n", "`[attest] bogus` in speccoder.toml: unknown key"),
    ] {
        commit_config(&s, config);
        let before = p.snapshot();
        for args in [&sign[..], &sign[..3], &approve[..]] {
            let out = p.speccoder(args).failure(13);
            assert!(out.stderr.contains(says), "{args:?} should say {says:?}\n{out}");
        }
        assert_eq!(p.snapshot(), before, "nothing was signed");
    }
    commit_config(&s, "[attest]\nenabled = true\n");
    let out = p.speccoder(&sign).success();
    assert!(out.stdout.contains("5 signed now"), "{out}");
}

#[test]
fn a_signer_asked_for_by_name_that_cannot_sign_writes_nothing() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let before = p.snapshot();
    let out = p.attest(T005, &s.evidence, &["--signer", "ssh"]).failure(13);
    assert!(out.stderr.contains("no key is configured"), "{out}");
    let out = p.attest(T005, &s.evidence, &["--signer", "openpgp"]).failure(13);
    assert!(out.stderr.contains("no key is configured"), "{out}");
    assert_eq!(p.snapshot(), before);
    // Without any key and without a signer named, the lines are written unsigned, with the hint.
    let out = p.attest(T005, &s.evidence, &[]).success();
    assert!(out.stdout.contains("5 lines, 0 signed") && out.stdout.contains("attest sign"), "{out}");
}

/// A moment in the past, the same for a file and the index.
fn racy_moment() -> std::time::SystemTime {
    std::time::UNIX_EPOCH + std::time::Duration::new(1_767_225_600, 123_456_789)
}

/// Sets the modification time of `rela` (below the work tree) to `at`.
fn set_mtime(p: &common::Project, rela: &str, at: std::time::SystemTime) {
    let file = std::fs::File::options().write(true).open(p.root.join(rela)).unwrap();
    file.set_modified(at).unwrap();
}

/// Stages `staged` as `a.txt`, then saves `unstaged` (the same size) in the same instant, the
/// index's own time too: git cannot trust the entry's stat, so it compares the content and shows
/// the unstaged edit (`MM`).
#[track_caller]
fn racily_clean_edit(p: &common::Project, staged: &str, unstaged: &str) {
    assert_eq!(staged.len(), unstaged.len(), "same size");
    p.write("a.txt", staged);
    set_mtime(p, "a.txt", racy_moment());
    p.git(&["add", "a.txt"]);
    p.write("a.txt", unstaged);
    set_mtime(p, "a.txt", racy_moment());
    set_mtime(p, ".git/index", racy_moment());
    assert_eq!(p.git(&["--no-optional-locks", "status", "--porcelain"]), "MM a.txt\n", "git sees the edit");
    set_mtime(p, ".git/index", racy_moment());
}

/// An edit saved in the same instant as the staged file it changes, at the same size, is seen by
/// git only through the index's time. The writer writes a newer index, and smudges that entry as
/// git does, so the edit stays visible (`git status`, `git add -A`) after attest and after accept,
/// and the ticked task list alone is clean.
#[test]
fn an_edit_saved_in_the_instant_its_file_was_staged_stays_visible_after_a_tick() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.write("a.txt", "a1\n");
    p.git(&["add", "a.txt"]);
    p.git(&["commit", "-q", "-m", "a.txt"]);

    racily_clean_edit(p, "a2\n", "a3\n");
    s.attest_signed(&[]);
    assert_eq!(p.git(&["show", "HEAD:a.txt"]), "a2\n", "the task commit holds what was staged");
    assert_eq!(p.git(&["status", "--porcelain"]), " M a.txt\n", "the edit is seen, nothing else");

    racily_clean_edit(p, "a4\n", "a5\n");
    let key = s.key.private.to_str().unwrap();
    p.speccoder(&["accept", "001-bookmark-tags/T006", "--reason", "shown by hand", "--key", key]).success();
    assert_eq!(p.git(&["show", "HEAD:a.txt"]), "a4\n");
    assert_eq!(p.git(&["status", "--porcelain"]), " M a.txt\n", "the edit is seen, nothing else");
    p.git(&["add", "-A"]);
    assert_eq!(p.git(&["diff", "--cached", "--name-only"]), "a.txt\n", "git add takes the edit");
}

/// Runs attest for T005 with the key under `timeout 30` (killed 5 s later if it holds the signal),
/// and returns it with how long it took.
fn attest_timed(s: &Setup) -> (common::Run, std::time::Duration) {
    let p = &s.project;
    let (key, evidence) = (s.key.private.to_str().unwrap(), s.evidence.to_str().unwrap());
    let bin = common::speccoder_bin().to_str().unwrap();
    let args = ["-k", "5", "30", bin, "attest", T005, "--evidence", evidence, "--key", key];
    let started = std::time::Instant::now();
    let out = common::run(common::binary_command(std::path::Path::new("timeout"), &p.root, &p.home, &args));
    (out, started.elapsed())
}

/// A branch lock a killed git left behind stops attest after 5 s unchanged, naming it, however
/// long `core.filesRefLockTimeout` says to wait (`-1`: for ever): speccoder does not read it, as
/// it would hold the interrupts and every other lock all that time.
#[test]
fn a_stale_branch_lock_is_named_in_seconds_whatever_git_is_told_to_wait_for_it() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.git(&["config", "core.filesRefLockTimeout", "-1"]);
    let branch = p.git(&["symbolic-ref", "HEAD"]).trim().to_owned();
    let lock = p.root.join(format!(".git/{branch}.lock"));
    std::fs::write(&lock, b"").unwrap();

    let (out, took) = attest_timed(&s);
    let out = out.failure(14);
    assert!(took < std::time::Duration::from_secs(10), "took {took:?}\n{out}");
    assert!(out.stderr.contains(&lock.display().to_string()), "{out}");
    assert_eq!(p.git(&["status", "--porcelain"]), "", "nothing was ticked");
}

/// `core.filesRefLockTimeout` and `core.packedRefsTimeout` that git itself refuses are not read,
/// so they neither fail the tick after signing nor change how long a lock is waited for.
#[test]
fn lock_timeouts_git_would_refuse_leave_the_tick_alone() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.git(&["config", "core.filesRefLockTimeout", "5s"]);
    p.git(&["config", "core.packedRefsTimeout", "5s"]);

    let (out, _) = attest_timed(&s);
    out.success();
}

/// Adds 400 copies of its first line to the reflog `log` (under `.git/logs`), past 32 KiB.
fn grow_reflog(p: &common::Project, log: &str) {
    let path = p.root.join(".git/logs").join(log);
    let text = std::fs::read_to_string(&path).unwrap();
    let first = text.lines().next().unwrap();
    std::fs::write(&path, format!("{text}{}", format!("{first}\n").repeat(400))).unwrap();
}

/// A reflog the file-size limit (`ulimit -f`; a full disk or quota fails the same way) stops
/// inside the reference transaction, which is not atomic (the notes reference is written before
/// the branch): the writer stops at once, exit 14 saying there was no room and what may have
/// been written, never retrying its own half-written update as if another writer had moved the
/// notes; and the same attest run again with room completes the tick.
#[test]
fn a_reflog_the_file_size_limit_stops_ends_the_tick_at_once_and_the_next_run_completes_it() {
    for log in ["refs/heads/main", "refs/notes/speccoder"] {
        let s = Setup::speckit(Evidence::Verified);
        let p = &s.project;
        p.git(&["notes", &format!("--ref={NOTES_REF}"), "add", "-m", "seed", "HEAD"]);
        let branch = p.git(&["symbolic-ref", "HEAD"]).trim().to_owned();
        grow_reflog(p, if log == "refs/heads/main" { &branch } else { log });
        let notes_moves = || p.git(&["reflog", "show", NOTES_REF]).lines().count();
        let (moves, head) = (notes_moves(), p.git(&["rev-parse", "HEAD"]));
        let key = s.key.private.to_str().unwrap();
        let attest = ["attest", T005, "--evidence", s.evidence.to_str().unwrap(), "--key", key];

        let out = speccoder_under_file_size_limit(p, 32, &attest).failure(14);
        assert!(out.stderr.contains("no room") && out.stderr.contains("ulimit -f"), "{log}: {out}");
        assert!(out.stderr.contains("completes the tick"), "{log}: {out}");
        assert!(!out.stderr.contains("concurrent"), "{log}: {out}");
        assert!(notes_moves() <= moves + 1, "{log}: the notes moved once at most\n{out}");
        assert_eq!(p.git(&["rev-parse", "HEAD"]), head, "{log}: the branch did not move");

        p.speccoder(&attest).success();
        assert_eq!(p.git(&["status", "--porcelain"]), "", "{log}: the tick is whole");
    }
}

/// A box of another task ticked by hand and staged is never taken into a task commit, where it
/// would hold no evidence: `attest` and `accept` refuse (14), naming the task and how to clear
/// it from the index, with nothing written. In the task's own list the box is cleared in the file
/// and staged; another list is unstaged (the work tree keeps its tick), and then the task commit
/// changes its own box alone.
#[test]
fn a_staged_hand_tick_of_another_task_never_rides_in_a_task_commit_and_nothing_is_written() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let key = s.key.private.to_str().unwrap();
    let tasks = format!("specs/{}/tasks.md", common::SPECKIT_UNIT);
    let other = "specs/002-other/tasks.md";
    p.write(other, "# Tasks\n\n- [ ] T001 Another unit's task in src/other.rs\n");
    p.git(&["add", other]);
    p.git(&["commit", "-q", "-m", "A second unit"]);
    let open = String::from_utf8(p.read(&tasks)).unwrap();
    p.write(&tasks, open.replacen("- [ ] T006", "- [X] T006", 1));
    p.git(&["add", &tasks]);

    let says = ["would also tick 001-bookmark-tags/T006", &format!("`git add -- {tasks}`")];
    refused(&s, &s.evidence, 14, &says);
    let accept = ["accept", "001-bookmark-tags/T005", "--reason", "shown by hand", "--key", key];
    let before = p.snapshot();
    let out = p.speccoder(&accept).failure(14);
    assert!(says.iter().all(|said| out.stderr.contains(said)), "{out}");
    assert_eq!(p.snapshot(), before, "nothing was written\n{out}");
    assert!(!p.root.join(".git/index.lock").exists(), "the index lock was released");

    p.write(&tasks, &open);
    p.git(&["add", &tasks]);
    p.write(other, "# Tasks\n\n- [x] T001 Another unit's task in src/other.rs\n");
    p.git(&["add", other]);
    let restore = format!("`git restore --staged -- {other}`");
    refused(&s, &s.evidence, 14, &["would also tick 002-other/T001", &restore]);

    p.git(&["restore", "--staged", "--", other]);
    s.attest_signed(&[]);
    let boxes = p.git(&["diff", "HEAD~1", "HEAD", "--", "specs"]);
    let set: Vec<&str> = boxes.lines().filter(|l| l.starts_with("+- [")).collect();
    assert_eq!(set.len(), 1, "{boxes}");
    assert!(set[0].starts_with("+- [X] T005"), "{boxes}");
    assert!(String::from_utf8(p.read(other)).unwrap().contains("- [x] T001"), "the work tree keeps it");
}
