//! Bad input and unusable repository states: each is refused with a clear message and exit code,
//! and nothing is written (no commit, no note, no ref moved, index and work tree as they were).

use serde_json::{Value, json};

use super::{Setup, T005, speckit_task};
use crate::common::{self, Evidence, NOTES_REF, Project};

/// A signed Spec Kit setup whose initial commit already carries someone else's note, so that a
/// refusal that touched the notes ref would show.
fn setup(kind: Evidence) -> Setup {
    let s = Setup::speckit(kind);
    s.project.git(&["notes", "--ref", NOTES_REF, "add", "-m", "an older note", "HEAD"]);
    s
}

/// Runs `attest target` with `evidence` and the key; asserts the exit code, that stderr holds
/// every one of `says`, and that the repository is exactly as before.
#[track_caller]
fn refused(s: &Setup, target: &str, evidence: &std::path::Path, code: i32, says: &[&str]) -> common::Run {
    let before = s.project.snapshot();
    let note_before = s.project.note("HEAD");
    let out = s.project.attest(target, evidence, &["--key", s.key.private.to_str().unwrap()]).failure(code);
    for text in says {
        assert!(out.stderr.contains(text), "stderr should say {text:?}\n{out}");
    }
    assert!(out.stderr.starts_with("speccoder attest: "), "{out}");
    assert_eq!(out.stdout, "", "{out}");
    assert_eq!(s.project.snapshot(), before, "the repository changed\n{out}");
    assert_eq!(s.project.note("HEAD"), note_before);
    out
}

pub(crate) fn evidence_with(s: &Setup, name: &str, edit: impl FnOnce(&mut Value)) -> std::path::PathBuf {
    let mut value = common::evidence_json(T005, Evidence::Verified);
    edit(&mut value);
    let red = std::fs::read(common::crate_root().join("fixtures/evidence/red.log")).unwrap();
    common::write_evidence_value(&s.project.scratch_dir(name), &value, &red)
}

#[test]
fn an_unknown_unit_is_refused_as_a_usage_error() {
    let s = setup(Evidence::Verified);
    let evidence =
        common::write_evidence(&s.project.scratch_dir("other"), "999-nothing/T001", Evidence::Verified);
    refused(&s, "999-nothing/T001", &evidence, 2, &["unit `999-nothing` not found"]);
}

#[test]
fn an_unknown_task_is_refused_and_the_known_tasks_are_listed() {
    let s = setup(Evidence::Verified);
    let target = speckit_task("T099");
    let evidence = common::write_evidence(&s.project.scratch_dir("other"), &target, Evidence::Verified);
    refused(&s, &target, &evidence, 2, &["task `T099` not found", "T001, T002"]);
}

/// A new unit whose directory is in the work tree but not in the index (untracked, or added with
/// `git add -N` only) is named as there but not staged, with the `git add` that brings it in;
/// after that `git add`, attest ticks its task.
#[test]
fn a_unit_in_the_work_tree_but_not_staged_is_named_with_the_git_add_that_brings_it_in() {
    for intent_to_add in [false, true] {
        let s = setup(Evidence::Verified);
        let p = &s.project;
        let dir = "specs/002-new";
        common::copy_dir(&p.root.join("specs").join(common::SPECKIT_UNIT), &p.root.join(dir));
        if intent_to_add {
            p.git(&["add", "-N", dir]);
        }
        let target = "002-new/T005";
        let evidence = common::write_evidence(&p.scratch_dir("new"), target, Evidence::Verified);
        let says = [
            "unit `002-new` is in the work tree (specs/002-new/tasks.md) but not committed or staged",
            "(`git add specs/002-new`)",
        ];
        let out = refused(&s, target, &evidence, 14, &says);
        assert!(!out.stderr.contains("not found"), "{out}");

        p.git(&["add", dir]);
        let key = s.key.private.to_str().unwrap();
        let out = p.attest(target, &evidence, &["--key", key]).success();
        assert!(out.stdout.contains("attest 002-new/T005"), "intent-to-add {intent_to_add}: {out}");
        assert_eq!(p.git(&["status", "--porcelain"]), "", "the new unit is in the task commit");
    }
}

/// An index that lacks what HEAD holds (a `GIT_INDEX_FILE` naming a new one, or a unit removed
/// from it) is never advised to be filled with a `git add` of the unit, whose task commit would
/// delete every other file: it is named, with the `git reset` that fills it from HEAD, and after
/// that reset attest ticks the task and deletes nothing.
#[test]
fn an_index_that_lacks_what_head_holds_is_named_with_the_git_reset_that_fills_it() {
    let s = setup(Evidence::Verified);
    let p = &s.project;
    let before = p.snapshot();
    let fresh = p.scratch.join("fresh-index");
    let args = ["attest", T005, "--evidence", s.evidence.to_str().unwrap()];
    let mut cmd = common::speccoder_command(&p.root, &p.home, &args);
    cmd.env("GIT_INDEX_FILE", &fresh);
    let out = common::run(cmd).failure(14);
    for says in ["does not hold any file, which HEAD holds", "(GIT_INDEX_FILE names it)", "with `git reset`"]
    {
        assert!(out.stderr.contains(says), "stderr should say {says:?}\n{out}");
    }
    assert!(!out.stderr.contains("git add"), "{out}");
    assert_eq!(p.snapshot(), before);
    assert!(!fresh.exists());

    let dir = format!("specs/{}", common::SPECKIT_UNIT);
    p.git(&["rm", "-q", "-r", "--cached", &dir]);
    let says = [
        format!(
            "does not hold unit `{}` (specs/{}/tasks.md), which HEAD holds",
            common::SPECKIT_UNIT,
            common::SPECKIT_UNIT
        ),
        format!("with `git reset -- {dir}`"),
    ];
    let out = refused(&s, T005, &s.evidence, 14, &says.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!out.stderr.contains("git add"), "{out}");
    p.git(&["reset", "-q", "--", &dir]);
    p.attest(T005, &s.evidence, &["--key", s.key.private.to_str().unwrap()]).success();
    assert_eq!(p.git(&["diff-tree", "-r", "--no-commit-id", "--diff-filter=D", "--name-only", "HEAD"]), "");
}

#[test]
fn a_target_without_a_slash_is_refused_as_a_usage_error() {
    let s = setup(Evidence::Verified);
    refused(&s, "T005", &s.evidence, 2, &["is not <unit>/<task>"]);
}

#[test]
fn a_task_already_ticked_is_refused() {
    let s = setup(Evidence::Verified);
    s.attest_signed(&[]);
    // Attesting the same task again changes nothing.
    refused(&s, T005, &s.evidence, 14, &["already ticked", "specs/001-bookmark-tags/tasks.md"]);
    // Nor does a task that someone ticked by hand.
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(s.project.read(tasks)).unwrap();
    s.project.write(tasks, text.replace("- [ ] T006", "- [x] T006"));
    s.project.git(&["commit", "-qam", "tick T006 by hand"]);
    let target = speckit_task("T006");
    let evidence = common::write_evidence(&s.project.scratch_dir("t006"), &target, Evidence::Verified);
    refused(&s, &target, &evidence, 14, &["already ticked"]);
}

#[test]
fn an_evidence_file_that_breaks_the_schema_is_refused_naming_the_field() {
    let s = setup(Evidence::Verified);
    let bad_result = evidence_with(&s, "bad-result", |v| v["phases"][1]["result"] = json!("RED"));
    refused(&s, T005, &bad_result, 13, &["schema/evidence.schema.json", "`phases[1].result`", "RED"]);
    let unknown_field = evidence_with(&s, "unknown-field", |v| v["phases"][2]["pased"] = json!(["x"]));
    refused(&s, T005, &unknown_field, 13, &["`phases[2].pased`"]);
    let wrong_type = evidence_with(&s, "wrong-type", |v| v["acceptance"][0]["test"] = json!(7));
    refused(&s, T005, &wrong_type, 13, &["`acceptance[0].test`"]);
    let not_json = s.project.scratch_dir("not-json").join("evidence.json");
    std::fs::write(&not_json, "{\"task\": ").unwrap();
    refused(&s, T005, &not_json, 13, &["evidence.json"]);
}

#[test]
fn an_evidence_file_with_text_after_its_object_is_refused_naming_where_the_text_starts() {
    let s = setup(Evidence::Verified);
    let good = evidence_with(&s, "good", |_| {});
    // The pretty-printed object ends in a line `}` with no newline after it.
    let object = std::fs::read(&good).unwrap();
    assert!(object.ends_with(b"\n}"));
    let last_line = object.iter().filter(|b| **b == b'\n').count() + 1;
    for (name, tail, column) in [
        ("second-object", &b" {\"verdict\": \"regression_only\"} THIS IS NOT JSON {{{"[..], 3),
        ("nul", &b"\0"[..], 2),
        ("next-line", &b"\n\nx"[..], 1),
    ] {
        let path = good.with_file_name(format!("{name}.json"));
        std::fs::write(&path, [&object[..], tail].concat()).unwrap();
        let line = last_line + tail.iter().filter(|b| **b == b'\n').count();
        let at = format!("at line {line} column {column}");
        refused(&s, T005, &path, 13, &["there is text after the evidence object", &at]);
    }
    // Whitespace after the object is JSON and is accepted.
    let mut spaced = std::fs::read(&good).unwrap();
    spaced.extend_from_slice(b" \n\t\r\n  \n");
    std::fs::write(&good, spaced).unwrap();
    s.project.attest(T005, &good, &["--key", s.key.private.to_str().unwrap()]).success();
}

#[test]
fn an_evidence_file_that_breaks_a_rule_or_names_another_task_is_refused() {
    let s = setup(Evidence::Verified);
    let red_passed = evidence_with(&s, "red-passed", |v| v["phases"][1]["result"] = json!("PASSED"));
    refused(&s, T005, &red_passed, 13, &["a red run must be FAILED"]);
    let other = evidence_with(&s, "other-task", |v| v["task"] = json!(speckit_task("T006")));
    refused(&s, T005, &other, 13, &["is for task `001-bookmark-tags/T006`, not `001-bookmark-tags/T005`"]);
}

#[test]
fn a_red_output_file_that_does_not_exist_is_refused_naming_it() {
    let s = setup(Evidence::Verified);
    std::fs::remove_file(s.evidence.parent().unwrap().join("red.log")).unwrap();
    refused(&s, T005, &s.evidence, 13, &["red.log", "cannot read", "inside the evidence file's directory"]);
}

#[test]
fn a_detached_head_is_refused() {
    let s = setup(Evidence::Verified);
    s.project.git(&["checkout", "-q", "--detach"]);
    refused(&s, T005, &s.evidence, 14, &["HEAD is detached", "check out a branch"]);
}

#[test]
fn an_unborn_branch_is_refused() {
    // A fresh repository with the project staged but never committed.
    let project = Project::uncommitted("speckit");
    project.git(&["add", "-A"]);
    let key = common::ed25519(&project.scratch, "ada");
    let evidence = common::write_evidence(&project.scratch_dir("evidence"), T005, Evidence::Verified);
    let s = Setup { allowed: project.scratch.join("unused"), project, key, evidence };
    refused(&s, T005, &s.evidence, 14, &["refs/heads/main has no commits yet"]);
    assert_eq!(s.project.snapshot().refs, "");
}

#[test]
fn an_orphan_branch_in_a_repository_with_history_is_refused() {
    let s = setup(Evidence::Verified);
    s.project.git(&["checkout", "-q", "--orphan", "fresh"]);
    refused(&s, T005, &s.evidence, 14, &["refs/heads/fresh has no commits yet"]);
}

#[test]
fn a_tasks_file_that_is_not_utf8_is_refused() {
    let s = setup(Evidence::Verified);
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let mut bytes = s.project.read(tasks);
    let at = bytes.windows(4).position(|w| w == b"T008").unwrap();
    bytes.splice(at + 5..at + 5, [0xff, 0xfe]);
    s.project.write(tasks, &bytes);
    s.project.git(&["commit", "-qam", "a stray byte"]);
    refused(&s, T005, &s.evidence, 13, &[tasks, "is not valid UTF-8"]);
}

#[test]
fn unstaged_changes_to_the_tasks_file_are_refused() {
    let s = setup(Evidence::Verified);
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let mut text = s.project.read(tasks);
    text.extend_from_slice(b"- [ ] T009 A task not yet staged\n");
    s.project.write(tasks, &text);
    refused(&s, T005, &s.evidence, 14, &["has unstaged changes", "git add"]);
}

/// `chmod +x tasks.md` is a change `git status` shows (` M`, "mode change" in `git diff`) where
/// git reads the executable bit (`core.fileMode`, true by default): it is refused as unstaged,
/// and the mode stays. Staged, it is kept: the tick keeps the executable mode. Where git ignores
/// the bit (`core.fileMode` false), `git status` is clean, so the tick goes ahead and the file
/// keeps its bit.
#[cfg(unix)]
#[test]
fn an_executable_bit_git_sees_is_an_unstaged_change_and_is_never_reverted() {
    use std::os::unix::fs::PermissionsExt;
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let mode =
        |s: &Setup| std::fs::metadata(s.project.root.join(tasks)).unwrap().permissions().mode() & 0o777;
    let chmod = |s: &Setup, to: u32| {
        std::fs::set_permissions(s.project.root.join(tasks), std::fs::Permissions::from_mode(to)).unwrap();
    };

    let s = setup(Evidence::Verified);
    chmod(&s, 0o755);
    assert_eq!(
        s.project.git(&["status", "--porcelain"]),
        format!(" M {tasks}\n"),
        "git sees the mode change"
    );
    refused(&s, T005, &s.evidence, 14, &[tasks, "has unstaged changes", &format!("git add {tasks}")]);
    assert_eq!(mode(&s), 0o755, "the executable bit stays");
    s.project.git(&["add", tasks]);
    s.attest_signed(&[]);
    assert_eq!(mode(&s), 0o755);
    assert_eq!(s.project.git(&["status", "--porcelain"]), "");
    assert!(
        s.project.git(&["ls-tree", "HEAD", tasks]).starts_with("100755 "),
        "the tick keeps the staged mode"
    );

    let s = setup(Evidence::Verified);
    s.project.git(&["config", "core.fileMode", "false"]);
    chmod(&s, 0o755);
    assert_eq!(s.project.git(&["status", "--porcelain"]), "", "git ignores the bit");
    s.attest_signed(&[]);
    assert_eq!(mode(&s), 0o755, "the bit git does not see is kept");
    assert_eq!(s.project.git(&["status", "--porcelain"]), "");
    assert!(s.project.git(&["ls-tree", "HEAD", tasks]).starts_with("100644 "));
}

#[test]
fn a_leaking_value_anywhere_else_in_the_evidence_stops_the_command_before_anything_is_written() {
    let s = setup(Evidence::Verified);
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit, &[&str]); 4] = [
        (
            "executor-path",
            |v| v["executor"]["agent"] = json!("/home/ada/.local/bin/agent"),
            &["task-verification statement would leak", "`predicate.executor.agent`", "nothing was written"],
        ),
        (
            "test-token",
            |v| v["phases"][2]["passed"] = json!(["tags::adds", "ghp_0123456789abcdefghijABCDEFGHIJ012345"]),
            &["test-result/green statement would leak", "`predicate.passedTests[1]`"],
        ),
        (
            "acceptance-url",
            |v| v["acceptance"][0]["test"] = json!("https://ada:hunter2@ci.example.com/tags"),
            &["would leak", "a URL with a user name and password", "`predicate.trace["],
        ),
        ("run-id", |v| v["run"] = json!("run-7 /tmp/ada-run"), &["would leak", "commit message"]),
    ];
    for (name, edit, says) in cases {
        let evidence = evidence_with(&s, name, edit);
        let out = refused(&s, T005, &evidence, 13, says);
        for secret in ["/home/ada", "ghp_", "hunter2", "/tmp/ada"] {
            assert!(!out.stderr.contains(secret), "the message repeats the leak\n{out}");
        }
    }
}

/// Evidence that lists so much that the note would be too large for a reader is refused naming
/// the evidence field that makes it so, and the evidence file, and nothing is written.
#[test]
fn a_note_too_large_for_a_reader_names_the_evidence_field_that_makes_it_so_and_nothing_is_written() {
    let s = setup(Evidence::Verified);
    let evidence = evidence_with(&s, "many-tests", |v| {
        let names: Vec<String> =
            (0..30_000).map(|i| format!("tags::case_{i:06}_{}", "x".repeat(30))).collect();
        v["phases"][2]["passed"] = json!(names);
    });
    let file = format!("`phases[2].passed` in the evidence file {}", evidence.display());
    refused(
        &s,
        T005,
        &evidence,
        13,
        &[
            "more than a reader takes",
            "is the `predicate.passedTests` field of the test-result/green statement",
            &file,
        ],
    );
}

#[test]
fn a_missing_evidence_flag_or_target_is_a_usage_error() {
    let s = setup(Evidence::Verified);
    let before = s.project.snapshot();
    s.project.speccoder(&["attest", T005]).failure(2);
    s.project.speccoder(&["attest", "--evidence", s.evidence.to_str().unwrap()]).failure(2);
    assert_eq!(s.project.snapshot(), before);
}

#[test]
fn a_directory_that_is_no_repository_is_refused() {
    let s = setup(Evidence::Verified);
    let elsewhere = s.project.scratch_dir("not-a-repo");
    let out = s.project.speccoder_in(
        &elsewhere,
        &[
            "attest",
            T005,
            "--evidence",
            s.evidence.to_str().unwrap(),
            "--key",
            s.key.private.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code(), Some(14), "{out}");
    assert!(out.stderr.contains("no git repository found"), "{out}");
}

#[test]
fn a_repository_without_a_committer_identity_is_refused_as_a_configuration_error() {
    let s = setup(Evidence::Verified);
    s.project.git(&["config", "--unset", "user.name"]);
    s.project.git(&["config", "--unset", "user.email"]);
    refused(&s, T005, &s.evidence, 13, &["identity configured", "git config user.name"]);
}

#[test]
fn attest_sign_of_an_unknown_revision_is_refused() {
    let s = setup(Evidence::Verified);
    let before = s.project.snapshot();
    let out =
        s.project.speccoder(&["attest", "sign", "no-such-branch", "--key", s.key.private.to_str().unwrap()]);
    let out = out.failure(2);
    assert!(out.stderr.contains("no-such-branch"), "{out}");
    assert_eq!(s.project.snapshot(), before);
}

#[test]
fn evidence_whose_integrity_or_monitor_the_specification_rules_out_is_refused_as_its_schema_refuses_it() {
    // Carried as recorded, they would make a tick every verifier calls malformed; the published
    // schema says so first, and accepts the evidence as it was before the edit.
    let s = setup(Evidence::Verified);
    let schema = common::schema_validator("evidence.schema.json");
    let fails_schema = |path: &std::path::Path| {
        let value: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        !schema.is_valid(&value)
    };
    assert!(!fails_schema(&s.evidence), "the unedited evidence meets the schema");
    let no_findings = evidence_with(&s, "integrity", |v| v["integrity"] = json!({}));
    refused(&s, T005, &no_findings, 13, &["rules out", "integrity", "fix the evidence file"]);
    let findings_text =
        evidence_with(&s, "monitor", |v| v["monitor"] = json!({"state": "clean", "findings": "none"}));
    refused(&s, T005, &findings_text, 13, &["rules out", "monitor"]);
    let state = evidence_with(&s, "state", |v| v["monitor"] = json!({"state": "fine", "findings": []}));
    refused(&s, T005, &state, 13, &["rules out", "clean|suspected|unreviewed|off", "fine"]);
    for refused_file in [&no_findings, &findings_text, &state] {
        assert!(fails_schema(refused_file), "{}", refused_file.display());
    }
}
