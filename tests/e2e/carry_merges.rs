//! `attest carry` over merges that `git rebase --rebase-merges` makes again: a criss-cross
//! history (two merges each merging the other's side), whose merges git merges by a virtual base,
//! is carried when every merge is made again as it was, and refused naming the merge whose own
//! change the rebase dropped. A merge whose conflict is in tasks.md alone, resolved by hand, is
//! carried when it is resolved again alike and refused when otherwise; verify agrees with carry.

use crate::common;

use serde_json::Value;

use common::{Evidence, Project, SPECKIT_UNIT};

/// `p` commits `text` to `file` with `subject`.
fn commit(p: &Project, file: &str, text: &str, subject: &str) {
    p.write(file, text);
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", subject]);
}

/// Merges `other` into the branch checked out, with no fast-forward; `edit` (a file and its
/// text) is written into the merge before it is committed: its own change. The merge's id.
fn merge(p: &Project, other: &str, edit: Option<(&str, &str)>) -> String {
    p.git(&["merge", "-q", "--no-ff", "--no-commit", other]);
    if let Some((file, text)) = edit {
        p.write(file, text);
        p.git(&["add", "-A"]);
    }
    p.git(&["commit", "-q", "-m", &format!("Merge {other}")]);
    p.rev("HEAD")
}

/// A criss-cross history on `feature`: `A` on feature and `B` on side, feature merging side
/// (M1), side merging `A` (M2, with `side_edit` as its own change), feature merging side again
/// (M3, over two merge bases); T001 ticked after it; then main moves and feature is rebased
/// onto it with `--rebase-merges`. Signed with a key git's configuration trusts. The project,
/// M2 and the old task commit.
fn criss_cross_rebased(side_edit: Option<(&str, &str)>) -> (Project, String, String) {
    let p = Project::speckit_signed_by_git_config();
    p.git(&["checkout", "-q", "-b", "side"]);
    commit(&p, "src/b.rs", "pub fn b() {}\n", "B");
    p.git(&["checkout", "-q", "-b", "feature", "main"]);
    commit(&p, "src/a.rs", "pub fn a() {}\n", "A");
    let a = p.rev("HEAD");
    merge(&p, "side", None);
    p.git(&["checkout", "-q", "side"]);
    let m2 = merge(&p, &a, side_edit);
    p.git(&["checkout", "-q", "feature"]);
    merge(&p, "side", None);
    assert_eq!(p.git(&["merge-base", "--all", "HEAD^1", "HEAD^2"]).lines().count(), 2, "a criss-cross");
    let target = format!("{SPECKIT_UNIT}/T001");
    let evidence = common::write_evidence(&p.scratch_dir("e"), &target, Evidence::Verified);
    p.attest(&target, &evidence, &[]).success();
    let old = p.rev("HEAD");
    p.git(&["checkout", "-q", "main"]);
    commit(&p, "src/main_moves.rs", "pub fn moved() {}\n", "Main moves");
    p.git(&["checkout", "-q", "feature"]);
    p.git(&["rebase", "-q", "--rebase-merges", "main"]);
    assert_ne!(p.rev("HEAD"), old, "rebased");
    (p, m2, old)
}

#[test]
fn a_criss_cross_history_made_again_by_rebase_merges_is_carried_and_verifies() {
    let (p, _, old) = criss_cross_rebased(None);
    let out = p.speccoder(&["attest", "carry", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["carried"][0]["from"], old.as_str(), "{report:#}");
    p.speccoder(&["attest", "verify", "HEAD"]).success();
}

#[test]
fn a_criss_cross_merge_whose_own_change_rebase_merges_dropped_is_refused_naming_it() {
    let (p, m2, _) = criss_cross_rebased(Some(("src/b.rs", "pub fn b() { /* its own */ }\n")));
    assert!(!p.read("src/b.rs").starts_with(b"pub fn b() { /*"), "the rebase dropped the edit");
    let out = p.speccoder(&["attest", "carry", "--json"]).failure(26);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let row = &report["refused"][0];
    assert_eq!(row["code"], "series_differs", "{report:#}");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.contains(&m2) && reason.contains("a merge of the series"), "{reason}");
    let verify = p.speccoder(&["attest", "verify", "HEAD"]);
    assert_ne!(verify.code(), Some(0), "verify agrees: no evidence holds for the new commit\n{verify}");
}

/// The Spec Kit fixture's task list.
const TASKS: &str = "specs/001-bookmark-tags/tasks.md";

/// `task` appended to `tasks` as an open task line.
fn with_task(tasks: &str, task: &str) -> String {
    format!("{tasks}\n- [ ] {task} in src/extra.rs\n")
}

/// A merge whose parents both added a task line at the end of tasks.md, resolved by hand to
/// `resolution` (the list with both lines); T001 ticked after it; main moves and feature is
/// rebased onto it with `--rebase-merges`, the merge's conflict resolved again as
/// `again`. Signed with a key git's configuration trusts. The project, the merge and the old
/// task commit.
fn tasks_conflict_rebased(again: impl Fn(&str) -> String) -> (Project, String, String) {
    let p = Project::speckit_signed_by_git_config();
    let base = String::from_utf8(p.read(TASKS)).unwrap();
    p.git(&["checkout", "-q", "-b", "side"]);
    commit(&p, TASKS, &with_task(&base, "T091 Side task"), "Side task");
    p.git(&["checkout", "-q", "-b", "feature", "main"]);
    commit(&p, TASKS, &with_task(&base, "T090 Feature task"), "Feature task");
    assert!(!p.git_run(&["merge", "-q", "--no-ff", "side"]).status.success(), "tasks.md conflicts");
    let resolution = with_task(&with_task(&base, "T090 Feature task"), "T091 Side task");
    commit(&p, TASKS, &resolution, "Merge side, both tasks");
    let merge = p.rev("HEAD");
    let target = format!("{SPECKIT_UNIT}/T001");
    let evidence = common::write_evidence(&p.scratch_dir("e"), &target, Evidence::Verified);
    p.attest(&target, &evidence, &[]).success();
    let old = p.rev("HEAD");
    p.git(&["checkout", "-q", "main"]);
    commit(&p, "src/main_moves.rs", "pub fn moved() {}\n", "Main moves");
    p.git(&["checkout", "-q", "feature"]);
    let stopped = p.git_run(&["rebase", "-q", "--rebase-merges", "main"]);
    assert!(!stopped.status.success(), "the merge conflicts again: {stopped}");
    p.write(TASKS, again(&resolution));
    p.git(&["add", TASKS]);
    let mut go_on = common::git_command(&p.root, &p.home, &["rebase", "--continue"]);
    go_on.env("GIT_EDITOR", "true");
    common::run(go_on).success();
    (p, merge, old)
}

#[test]
fn a_merge_resolved_only_in_tasks_md_and_resolved_again_alike_is_carried_and_verifies() {
    let (p, _, old) = tasks_conflict_rebased(str::to_owned);
    let out = p.speccoder(&["attest", "carry", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["carried"][0]["from"], old.as_str(), "{report:#}");
    p.speccoder(&["attest", "verify", "HEAD"]).success();
    p.speccoder(&["attest", "verify", "--branch", "--base", "main"]).success();
}

#[test]
fn a_merge_resolved_only_in_tasks_md_and_resolved_again_otherwise_is_refused_by_carry_and_verify() {
    let (p, merge, _) = tasks_conflict_rebased(|r| r.replace("T091 Side task", "T091 Side task, reworded"));
    let out = p.speccoder(&["attest", "carry", "--json"]).failure(26);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let row = &report["refused"][0];
    assert_eq!(row["code"], "series_differs", "{report:#}");
    assert!(row["reason"].as_str().unwrap().contains(&merge), "{report:#}");
    let verify = p.speccoder(&["attest", "verify", "HEAD"]);
    assert_ne!(verify.code(), Some(0), "verify agrees: the tick claims no tree it saw\n{verify}");
}
