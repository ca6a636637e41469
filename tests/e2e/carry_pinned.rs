//! `attest carry` decides by the histories alone, whatever the environment, the configuration or
//! a checked-in file says about how git should write a patch or merge two commits: a context line
//! changed under the change is still another change with `GIT_DIFF_OPTS=-u0`, the pathspec
//! variables neither fail nor widen the walk, a submodule bumped elsewhere is still another change
//! when `.gitmodules` says `ignore = all`, and a merge that drops the implementation is still
//! refused when an attribute (checked in, in the work tree, the user's, `attr.tree`) or
//! `merge.default` names another merge, whose driver program never runs.

use crate::common;

use std::path::Path;

use serde_json::Value;

use common::{Evidence, Project, SPECKIT_UNIT};

/// `p` commits `text` to `file` with `subject`; the commit's id.
fn commit(p: &Project, file: &str, text: &str, subject: &str) -> String {
    p.write(file, text);
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", subject]);
    p.rev("HEAD")
}

/// Ticks T001 over what HEAD holds: the task commit.
fn tick(p: &Project) -> String {
    let target = format!("{SPECKIT_UNIT}/T001");
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target, Evidence::Verified);
    p.attest(&target, &evidence, &[]).success();
    p.rev("HEAD")
}

/// `lines` numbered lines, `line 1` to `line <lines>`, with `edits` (a line number and its text).
fn numbered(lines: usize, edits: &[(usize, &str)]) -> String {
    (1..=lines)
        .map(|n| {
            edits.iter().find(|(at, _)| *at == n).map_or(format!("line {n}\n"), |(_, t)| format!("{t}\n"))
        })
        .collect()
}

/// `attest carry --from old --to new --json` with `env` added to the test's environment: the
/// exit code and the report.
fn carry(p: &Project, old: &str, new: &str, env: &[(&str, &str)]) -> (Option<i32>, Value) {
    let mut cmd = common::speccoder_command(
        &p.root,
        &p.home,
        &["attest", "carry", "--from", old, "--to", new, "--json"],
    );
    cmd.envs(env.iter().copied());
    let out = common::run(cmd);
    let report = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"));
    (out.code(), report)
}

/// Asserts `carry` refused as `series_differs`.
#[track_caller]
fn assert_series_differs(case: &str, (code, report): (Option<i32>, Value)) {
    assert_eq!(code, Some(26), "{case}: {report:#}");
    assert_eq!(report["refused"][0]["code"], "series_differs", "{case}: {report:#}");
}

/// T001 ticked over an implementation that changes line 5 of `src/store.rs` on `feature`; main
/// then changes line 3, `main_edit`, and `feature` is rebased onto it. The project, the old and
/// the new task commit.
fn rebased_under(main_edit: Option<(usize, &str)>) -> (Project, String, String) {
    let p = Project::speckit_signed_by_git_config();
    commit(&p, "src/store.rs", &numbered(10, &[]), "The store");
    p.git(&["checkout", "-q", "-b", "feature"]);
    commit(&p, "src/store.rs", &numbered(10, &[(5, "line 5 implemented")]), "Implement");
    let old = tick(&p);
    p.git(&["checkout", "-q", "main"]);
    match main_edit {
        Some(edit) => commit(&p, "src/store.rs", &numbered(10, &[edit]), "Main changes the store"),
        None => commit(&p, "src/other.rs", "pub fn other() {}\n", "Main moves"),
    };
    p.git(&["checkout", "-q", "feature"]);
    p.git(&["rebase", "-q", "main"]);
    let new = p.rev("HEAD");
    assert_ne!(new, old, "rebased");
    (p, old, new)
}

#[test]
fn a_context_line_changed_under_the_change_is_refused_whatever_git_diff_opts_says() {
    let (p, old, new) = rebased_under(Some((3, "if false { // a guard main added")));
    assert_series_differs("as is", carry(&p, &old, &new, &[]));
    // git lets GIT_DIFF_OPTS override `-U3`: without the context, the two changes would be one.
    assert_series_differs("GIT_DIFF_OPTS=-u0", carry(&p, &old, &new, &[("GIT_DIFF_OPTS", "-u0")]));
}

#[test]
fn a_rebase_onto_a_moved_main_is_carried_whatever_the_pathspec_variables_say() {
    for var in ["GIT_ICASE_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_LITERAL_PATHSPECS"]
    {
        let (p, old, new) = rebased_under(None);
        let (code, report) = carry(&p, &old, &new, &[(var, "1")]);
        assert_eq!(code, Some(0), "{var}: {report:#}");
        assert_eq!(report["carried"][0]["from"], old.as_str(), "{var}: {report:#}");
    }
}

#[test]
fn a_submodule_bumped_to_another_commit_is_another_change_though_gitmodules_ignores_it() {
    let [a, b, c] = ["1", "2", "3"].map(|d| d.repeat(40));
    let p = Project::speckit_signed_by_git_config();
    p.write(".gitmodules", "[submodule \"vendor\"]\n\tpath = vendor\n\turl = https://example.invalid/vendor.git\n\tignore = all\n");
    p.git(&["add", ".gitmodules"]);
    p.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{a},vendor")]);
    p.git(&["commit", "-q", "-m", "Vendor at A"]);
    p.git(&["checkout", "-q", "-b", "feature"]);
    p.git(&["update-index", "--cacheinfo", &format!("160000,{b},vendor")]);
    p.git(&["commit", "-q", "-m", "Bump vendor"]);
    let old = tick(&p);
    p.git(&["checkout", "-q", "-b", "again", "main"]);
    p.git(&["commit", "-q", "--allow-empty", "-m", "Main moves"]);
    p.git(&["update-index", "--cacheinfo", &format!("160000,{c},vendor")]);
    p.git(&["commit", "-q", "-m", "Bump vendor"]);
    p.git(&["cherry-pick", &old]);
    let new = p.rev("HEAD");
    assert_eq!(p.git(&["rev-parse", &format!("{new}:vendor")]).trim(), c, "the judged bump is gone");
    assert_series_differs("ignore = all", carry(&p, &old, &new, &[]));
    // Nor does the user's configuration hide it.
    p.git(&["config", "diff.ignoreSubmodules", "all"]);
    assert_series_differs("diff.ignoreSubmodules", carry(&p, &old, &new, &[]));
}

/// The implementation (line 10 of `src/x.rs`) ticked on `feature`; `again` is made from main's
/// base by a commit of its own and a `git merge -s ours` of a branch holding the implementation,
/// which drops it, then the implementation and the task commit are cherry-picked onto it. `base`
/// is committed with `src/x.rs` first (a `.gitattributes` beside it, say). The project, the old and
/// the new task commit.
fn dropped_by_a_merge(base: &[(&str, &str)]) -> (Project, String, String) {
    let p = Project::speckit_signed_by_git_config();
    for (file, text) in base {
        p.write(file, text);
    }
    let base = commit(&p, "src/x.rs", &numbered(20, &[]), "The code");
    p.git(&["checkout", "-q", "-b", "feature"]);
    let implementation = commit(&p, "src/x.rs", &numbered(20, &[(10, "line 10 implemented")]), "Implement");
    let old = tick(&p);
    p.git(&["checkout", "-q", "-b", "side", &base]);
    p.git(&["cherry-pick", "-x", &implementation]);
    p.git(&["checkout", "-q", "-b", "again", &base]);
    commit(&p, "src/x.rs", &numbered(20, &[(1, "line 1 moved on")]), "Main moves");
    p.git(&["merge", "-q", "-s", "ours", "--no-edit", "side"]);
    p.git(&["cherry-pick", &implementation, &old]);
    let new = p.rev("HEAD");
    (p, old, new)
}

/// A merge driver that records each of its runs in `marker` and keeps our side, as the common
/// "keep ours" recipe does.
fn keep_driver(marker: &Path) -> String {
    format!("sh -c 'echo ran >> \"{}\"; exit 0'", marker.display())
}

#[test]
fn a_merge_driver_a_checked_in_attribute_or_merge_default_names_never_runs_nor_changes_the_verdict() {
    let attributes = [(".gitattributes", "src/** merge=keep\n")];
    for (case, base, default) in
        [("a checked-in attribute", &attributes[..], None), ("merge.default", &[], Some("keep"))]
    {
        let (p, old, new) = dropped_by_a_merge(base);
        assert_series_differs(case, carry(&p, &old, &new, &[]));
        let marker = p.scratch.join("driver-ran");
        p.git(&["config", "merge.keep.driver", &keep_driver(&marker)]);
        if let Some(default) = default {
            p.git(&["config", "merge.default", default]);
        }
        assert_series_differs(case, carry(&p, &old, &new, &[]));
        assert!(!marker.exists(), "{case}: the driver ran");
    }
}

#[test]
fn attributes_of_the_work_tree_the_user_or_attr_tree_do_not_change_how_carry_merges() {
    let binary = "src/** merge=binary\n";
    for case in ["the work tree's", "core.attributesFile", "attr.tree"] {
        let (p, old, new) = dropped_by_a_merge(&[]);
        match case {
            "core.attributesFile" => {
                let file = p.scratch.join("attributes");
                std::fs::write(&file, binary).unwrap();
                p.git(&["config", "core.attributesFile", file.to_str().unwrap()]);
            }
            "attr.tree" => {
                // A tree git reads attributes from instead of the work tree's (git 2.43 or later).
                p.git(&["checkout", "-q", "-b", "attributes"]);
                commit(&p, ".gitattributes", binary, "Merge the sources as binary files");
                p.git(&["checkout", "-q", "again"]);
                p.git(&["config", "attr.tree", "attributes"]);
            }
            _ => {
                commit(&p, ".gitattributes", binary, "Merge the sources as binary files");
            }
        }
        assert_series_differs(case, carry(&p, &old, &new, &[]));
    }
}
