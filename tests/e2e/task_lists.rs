//! `tasks.md` read as CommonMark renders it, end to end: the built binary on real repositories.
//! A task line in a code block or a comment is never ticked, line endings and a byte order mark
//! survive a tick, a checked box that is not a task fails `attest verify --branch` as
//! `unrecognized_tick`, and a symbolic link where a task list or a unit directory should be is
//! refused by `attest` and reported by `attest verify` as a row that fails the branch, as is a
//! submodule (a gitlink) there, or a task list stored through a filter (a Git LFS pointer, a
//! `filter` attribute of the tree). Checked with `git show`, `git diff`, `git ls-tree` and the
//! OpenSpec CLI.

use crate::common;

use std::path::PathBuf;

use serde_json::Value;

use common::{Evidence, Key, OPENSPEC_UNIT, PRINCIPAL, Project, SPECKIT_UNIT};

const TASKS: &str = "specs/001-bookmark-tags/tasks.md";
const T005_LINE: &str =
    "- [ ] T005 [US1] Implement adding a tag to a bookmark in src/tags/store.rs (FR-001, FR-002)";

/// A project with a key `ada` and its allowed-signers file.
struct Case {
    p: Project,
    key: Key,
    allowed: PathBuf,
}

impl Case {
    /// `attest carry --from old --to new --json` with the case's trust, which must refuse (exit
    /// 26): its report.
    fn carry_refused(&self, old: &str, new: &str) -> Value {
        let allowed = self.allowed.to_str().unwrap();
        let args = ["attest", "carry", "--from", old, "--to", new, "--allowed-signers", allowed, "--json"];
        let out = self.p.speccoder(&args);
        let report: Value =
            serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"));
        assert_eq!(out.code(), Some(26), "{report:#}");
        report
    }

    fn new(p: Project) -> Case {
        let key = common::ed25519(&p.scratch, "ada");
        let allowed = common::allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &key)]);
        Case { p, key, allowed }
    }

    fn speckit() -> Case {
        Case::new(Project::speckit())
    }

    /// Replaces `path` with `bytes` and commits it.
    fn commit_file(&self, path: &str, bytes: impl AsRef<[u8]>, message: &str) {
        self.p.write(path, bytes);
        self.p.git(&["add", path]);
        self.p.git(&["commit", "-q", "-m", message]);
    }

    /// `speccoder attest <unit>/<task>` with fresh evidence and the key.
    fn attest(&self, unit: &str, task: &str) -> common::Run {
        let target = format!("{unit}/{task}");
        let dir = self.p.scratch_dir(&format!("evidence-{unit}-{}", task.replace('.', "_")));
        let evidence = common::write_evidence(&dir, &target, Evidence::Verified);
        self.p.attest(&target, &evidence, &["--key", self.key.private.to_str().unwrap()])
    }

    /// `attest verify --branch <history> --json` against the key, `history` `--all` or
    /// `--base <rev>`: (exit code, report).
    fn verify_over(&self, history: &[&str]) -> (i32, common::Run) {
        let allowed = self.allowed.to_str().unwrap();
        let mut args = vec!["attest", "verify", "--branch"];
        args.extend(history);
        args.extend(["--json", "--allowed-signers", allowed]);
        let out = self.p.speccoder(&args);
        (out.code().unwrap_or(-1), out)
    }

    /// The verify report's rows as (task, outcome, reason).
    fn rows(&self) -> (i32, Vec<(String, String, String)>, Value) {
        self.rows_over(&["--all"])
    }

    /// [`Self::rows`] of the check of `history` ([`Self::verify_over`]).
    fn rows_over(&self, history: &[&str]) -> (i32, Vec<(String, String, String)>, Value) {
        let (code, out) = self.verify_over(history);
        let report: Value =
            serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"));
        let rows = report["ticks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
                (text(&t["task"]), text(&t["outcome"]), text(&t["reason"]))
            })
            .collect();
        (code, rows, report)
    }
}

/// The lines of `before` and `after` that differ, as (1-based line, before, after); both must have
/// the same number of `\n`-separated lines.
fn changed_lines(before: &[u8], after: &[u8]) -> Vec<(usize, String, String)> {
    let a: Vec<&[u8]> = before.split(|b| *b == b'\n').collect();
    let b: Vec<&[u8]> = after.split(|b| *b == b'\n').collect();
    assert_eq!(a.len(), b.len(), "the tick changed the number of lines");
    a.iter()
        .zip(&b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| {
            (i + 1, String::from_utf8_lossy(x).into_owned(), String::from_utf8_lossy(y).into_owned())
        })
        .collect()
}

#[test]
fn attest_ticks_the_real_task_and_never_its_copies_in_a_fence_or_a_comment() {
    let c = Case::speckit();
    let original = String::from_utf8(c.p.read(TASKS)).unwrap();
    let decoys = format!(
        "```\n{T005_LINE}\n```\n\n~~~~ markdown\n{T005_LINE}\n~~~~\n\n<!-- {T005_LINE} -->\n\n<!--\n{T005_LINE}\n-->\n\n"
    );
    let with_decoys = original.replacen("## Phase 1: Setup", &format!("{decoys}## Phase 1: Setup"), 1);
    c.commit_file(TASKS, &with_decoys, "Document the task format with examples");
    let before = c.p.git_bytes(&["show", &format!("HEAD:{TASKS}")]);

    c.attest(SPECKIT_UNIT, "T005").success();

    let after = c.p.git_bytes(&["show", &format!("HEAD:{TASKS}")]);
    let changed = changed_lines(&before, &after);
    let first = with_decoys.lines().position(|l| l == T005_LINE).unwrap();
    let last = with_decoys.lines().collect::<Vec<_>>().iter().rposition(|l| *l == T005_LINE).unwrap();
    assert_ne!(first, last, "the fixture must hold copies before the real line");
    assert_eq!(changed, [(last + 1, T005_LINE.to_owned(), T005_LINE.replacen("[ ]", "[X]", 1))]);
    // git's own diff of the task commit: one line out, one line in.
    let diff = c.p.git(&["diff", "--unified=0", "HEAD~1", "HEAD", "--", TASKS]);
    let edits: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"))
        .collect();
    assert_eq!(
        edits,
        [format!("-{T005_LINE}"), format!("+{}", T005_LINE.replacen("[ ]", "[X]", 1))],
        "{diff}"
    );
    assert!(diff.contains(&format!("@@ -{} +{} @@", last + 1, last + 1)), "{diff}");
    // The signed line is the real one.
    let lines = c.p.note_lines("HEAD");
    let tv = lines.iter().find(|l| l.predicate_type().ends_with("task-verification/v0")).unwrap();
    assert_eq!(tv.statement["predicate"]["task"]["line_hash"], common::sha256(T005_LINE.as_bytes()));
    let (code, rows, _) = c.rows();
    assert_eq!(code, 0, "{rows:?}");
    assert_eq!(rows, [(format!("{SPECKIT_UNIT}/T005"), "evidenced".into(), String::new())]);
}

#[test]
fn a_task_that_exists_only_in_a_fence_is_unknown_and_nothing_is_written() {
    let c = Case::speckit();
    let original = String::from_utf8(c.p.read(TASKS)).unwrap();
    let fenced = format!(
        "{original}\n```\n- [ ] T099 [US1] Only an example (FR-001)\n```\n<!--\n- [ ] T098 hidden\n-->\n"
    );
    c.commit_file(TASKS, fenced, "Add an example");
    let before = c.p.snapshot();
    for (task, why) in [("T099", "inside a fenced code block"), ("T098", "inside an HTML block or comment")] {
        let out = c.attest(SPECKIT_UNIT, task).failure(2);
        assert!(out.stderr.contains(&format!("task `{task}` not found")), "{out}");
        assert!(out.stderr.contains(why), "{out}");
        assert_eq!(c.p.snapshot(), before, "{out}");
    }
}

#[test]
fn cr_only_endings_and_a_byte_order_mark_survive_the_tick_and_the_verifier_agrees() {
    let c = Case::speckit();
    let original = String::from_utf8(c.p.read(TASKS)).unwrap();
    // Up to T004 with CRLF, from T004 on with lone CRs (T005 among them), behind a byte order mark.
    let (head, tail) = original.split_at(original.find("- [ ] T004").unwrap());
    let mixed = format!("\u{feff}{}{}", head.replace('\n', "\r\n"), tail.replace('\n', "\r"));
    assert!(mixed.contains(&format!("\r{T005_LINE}\r- [ ] T006")), "{mixed:?}");
    c.commit_file(TASKS, &mixed, "Line endings from elsewhere");

    c.attest(SPECKIT_UNIT, "T005").success();

    let after = c.p.git_bytes(&["show", &format!("HEAD:{TASKS}")]);
    let expected = mixed.replacen(T005_LINE, &T005_LINE.replacen("[ ]", "[X]", 1), 1);
    assert_eq!(String::from_utf8(after).unwrap(), expected, "only the box may change");
    // git splits at `\n` only: the CR-only tail is one line to it, and the only one changed.
    let stat = c.p.git(&["diff", "--numstat", "HEAD~1", "HEAD"]);
    assert_eq!(stat.trim(), format!("1\t1\t{TASKS}"), "{stat}");
    let (before, after) = (
        c.p.git_bytes(&["show", &format!("HEAD~1:{TASKS}")]),
        c.p.git_bytes(&["show", &format!("HEAD:{TASKS}")]),
    );
    let differing: Vec<usize> = (0..before.len()).filter(|&i| before[i] != after[i]).collect();
    assert_eq!((before.len(), differing.len()), (after.len(), 1), "exactly one byte changes");
    assert!(after.starts_with("\u{feff}".as_bytes()), "the byte order mark stays");
    let lines = c.p.note_lines("HEAD");
    let tv = lines.iter().find(|l| l.predicate_type().ends_with("task-verification/v0")).unwrap();
    assert_eq!(tv.statement["predicate"]["task"]["line_hash"], common::sha256(T005_LINE.as_bytes()));
    let (code, rows, _) = c.rows();
    assert_eq!((code, rows[0].1.as_str()), (0, "evidenced"), "{rows:?}");
}

#[test]
fn a_renamed_or_look_alike_tick_fails_the_branch_as_unrecognized_tick() {
    let c = Case::speckit();
    c.attest(SPECKIT_UNIT, "T005").success();
    let (code, rows, _) = c.rows();
    assert_eq!(code, 0, "{rows:?}");

    // T006 ticked by hand, without evidence: the branch fails.
    let tasks = String::from_utf8(c.p.read(TASKS)).unwrap();
    c.commit_file(TASKS, tasks.replace("- [ ] T006", "- [x] T006"), "tick T006 by hand");
    let (code, rows, _) = c.rows();
    assert_eq!(code, 26);
    assert!(rows.contains(&(
        format!("{SPECKIT_UNIT}/T006"),
        "unverifiable".into(),
        "ticked_without_evidence".into()
    )));

    // Renamed out of the reader's sight, the ticks still fail the branch, each by its line.
    let tasks = String::from_utf8(c.p.read(TASKS)).unwrap();
    let line_of = |needle: &str| tasks.lines().position(|l| l.starts_with(needle)).unwrap() + 1;
    let (t006, t007, t008) = (line_of("- [x] T006"), line_of("- [ ] T007"), line_of("- [ ] T008"));
    let hidden = tasks
        .replace("- [x] T006", "- [x] \u{422}006")
        .replace("- [ ] T007", "- [x] T007:")
        .replace("- [ ] T008", "+ [x] T008");
    c.commit_file(TASKS, &hidden, "hide the ticks");
    let (code, rows, report) = c.rows();
    assert_eq!(code, 26, "{rows:?}");
    assert!(rows.contains(&(format!("{SPECKIT_UNIT}/T005"), "evidenced".into(), String::new())), "{rows:?}");
    for (line, says) in [(t006, "U+0422"), (t007, "`T007` must be followed by a space"), (t008, "`+` bullet")]
    {
        let task = format!("{SPECKIT_UNIT}/tasks.md:{line}");
        let row = report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == task.as_str());
        let row = row.unwrap_or_else(|| panic!("no row {task}: {rows:?}"));
        assert_eq!(
            (row["outcome"].as_str(), row["reason"].as_str()),
            (Some("unverifiable"), Some("unrecognized_tick"))
        );
        let finding = &row["findings"][0];
        assert_eq!(finding["code"], "unrecognized_tick");
        let message = finding["message"].as_str().unwrap();
        assert!(message.contains(&format!("{TASKS} line {line}")) && message.contains(says), "{message}");
        assert_eq!(finding["found"].as_str(), hidden.lines().nth(line - 1), "{finding}");
    }
    assert_eq!(report["totals"]["unverifiable"], 3, "{report}");

    // The text report names them too.
    let allowed = c.allowed.to_str().unwrap();
    let text =
        c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers", allowed]).failure(26);
    assert!(
        text.stdout.contains(&format!("unverifiable {SPECKIT_UNIT}/tasks.md:{t007} - (unrecognized_tick)")),
        "{text}"
    );
}

#[test]
fn a_box_written_with_references_look_alikes_emphasis_or_in_html_fails_the_branch_as_unrecognized_tick() {
    let c = Case::speckit();
    c.attest(SPECKIT_UNIT, "T005").success();
    let tasks = String::from_utf8(c.p.read(TASKS)).unwrap();
    assert!(tasks.ends_with('\n'));
    let end = tasks.lines().count();
    // Each appended after a blank line: (the text, the 1-based line of its box after `end`).
    for (shape, at) in [
        ("- [&#120;] T006 done\n", 2),
        ("- &#x2705; T006 done\n", 2),
        ("- [\u{2715}] T006 done\n", 2),
        ("- [x\u{200b}] T006 done\n", 2),
        ("- **[X]** T006 done\n", 2),
        ("<div>\n[x] T006 done\n</div>\n", 3),
        ("<table><tr><td>T006 done</td><td>[x]</td></tr></table>\n", 2),
    ] {
        c.commit_file(TASKS, format!("{tasks}\n{shape}"), "mark T006 done");
        let (code, rows, _) = c.rows();
        assert_eq!(code, 26, "{shape:?}: {rows:?}");
        let row = (
            format!("{SPECKIT_UNIT}/tasks.md:{}", end + at),
            "unverifiable".into(),
            "unrecognized_tick".into(),
        );
        assert!(rows.contains(&row), "{shape:?}: {rows:?}");
    }
    // In a comment, or as a label or in inline code, nothing reads as done.
    let quiet = "<div>\n<!-- [x] T006 done -->\n</div>\n\nWrite `[x] T006` when done; [P] marks T007.\n";
    c.commit_file(TASKS, format!("{tasks}\n{quiet}"), "prose");
    let (code, rows, _) = c.rows();
    assert_eq!(code, 0, "{rows:?}");
}

#[test]
fn a_tick_hidden_in_a_comment_fails_the_branch_too() {
    let c = Case::speckit();
    c.attest(SPECKIT_UNIT, "T005").success();
    let tasks = String::from_utf8(c.p.read(TASKS)).unwrap();
    let line = tasks.lines().position(|l| l.starts_with("- [ ] T006")).unwrap() + 1;
    c.commit_file(TASKS, tasks.replace("- [ ] T006", "<!-- - [x] T006"), "hide a tick in a comment");
    let (code, rows, _) = c.rows();
    assert_eq!(code, 26, "{rows:?}");
    assert!(
        rows.contains(&(
            format!("{SPECKIT_UNIT}/tasks.md:{line}"),
            "unverifiable".into(),
            "unrecognized_tick".into()
        )),
        "{rows:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_task_list_is_refused_by_attest_and_by_verify() {
    let c = Case::speckit();
    c.attest(SPECKIT_UNIT, "T005").success();
    // tasks.md becomes a link to a copy elsewhere in the tree (mode 120000 in git).
    let real = c.p.read(TASKS);
    c.p.write("elsewhere/tasks.md", &real);
    std::fs::remove_file(c.p.root.join(TASKS)).unwrap();
    std::os::unix::fs::symlink("../../elsewhere/tasks.md", c.p.root.join(TASKS)).unwrap();
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "link the task list"]);
    let entry = c.p.git(&["ls-tree", "HEAD", TASKS]);
    assert!(entry.starts_with("120000 blob "), "{entry}");

    // The unit's task list cannot be read: a row of its own that fails the branch (no longer a
    // configuration error that hides every other row).
    refused_task_list(&c, "is a symbolic link");
}

/// `attest` of T006 fails saying the task list `is_what`, and writes nothing; the branch check
/// has one row for it, `tasks_unreadable`, that says the same; its report is returned.
fn refused_task_list(c: &Case, is_what: &str) -> Value {
    let says = format!("`{TASKS}` {is_what}");
    let before = c.p.snapshot();
    let out = c.attest(SPECKIT_UNIT, "T006").failure(13);
    assert!(out.stderr.contains(&says), "{out}");
    assert_eq!(c.p.snapshot(), before);
    let (code, rows, report) = c.rows();
    assert_eq!((code, &report["exit_code"]), (26, &Value::from(26)), "{report:#}");
    let unit_row =
        (format!("{SPECKIT_UNIT}/tasks.md"), "unverifiable".to_owned(), "tasks_unreadable".to_owned());
    assert_eq!(rows, [unit_row], "{report:#}");
    let message = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains(&says), "{message}");
    report
}

#[cfg(unix)]
#[test]
fn a_symlinked_unit_directory_is_refused_by_attest_and_by_verify() {
    let c = Case::speckit();
    std::os::unix::fs::symlink(SPECKIT_UNIT, c.p.root.join("specs/002-linked")).unwrap();
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "link a unit"]);
    let entry = c.p.git(&["ls-tree", "HEAD", "specs/002-linked"]);
    assert!(entry.starts_with("120000 blob "), "{entry}");

    // A link where a unit would be is a row of its own, never read through nor skipped.
    refused_unit(
        &c,
        "002-linked",
        "is a symbolic link",
        "it is a symbolic link where a unit directory would be",
    );
}

#[cfg(unix)]
#[test]
fn a_link_where_another_unit_or_the_units_directory_would_be_stops_no_writer_and_is_a_row_of_its_own() {
    let c = Case::speckit();
    std::fs::create_dir_all(c.p.root.join("docs/changes")).unwrap();
    std::os::unix::fs::symlink("docs", c.p.root.join("openspec")).unwrap();
    std::os::unix::fs::symlink(SPECKIT_UNIT, c.p.root.join("specs/002-linked")).unwrap();
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "links where units would be"]);

    // Another unit's link is no concern of this tick.
    c.attest(SPECKIT_UNIT, "T005").success();
    let (code, rows, report) = c.rows();
    assert_eq!(code, 26, "{report:#}");
    let strays: Vec<&str> = rows
        .iter()
        .filter(|(_, _, reason)| reason == "not_a_unit")
        .map(|(task, _, _)| task.as_str())
        .collect();
    assert_eq!(strays, ["openspec", "specs/002-linked"], "{report:#}");
    let evidenced = (format!("{SPECKIT_UNIT}/T005"), "evidenced".to_owned(), String::new());
    assert!(rows.contains(&evidenced), "{report:#}");
}

#[cfg(unix)]
#[test]
fn a_link_or_submodule_named_as_a_unit_is_a_row_of_its_own_whatever_its_name_holds() {
    let c = Case::speckit();
    std::fs::create_dir_all(c.p.root.join("openspec/changes/archive")).unwrap();
    let links = ["specs/002-tab\there", "specs/003-new\nline", "specs/004-\u{1b}[2J", "specs/005-blank "];
    let links =
        links.into_iter().chain(["openspec/changes/tab\there", "openspec/changes/archive/2025-01-01-a\nb"]);
    for link in links {
        std::os::unix::fs::symlink("/tmp", c.p.root.join(link)).unwrap();
    }
    // Names no unit is shaped as stand where no unit would be, whatever they hold.
    std::os::unix::fs::symlink("/tmp", c.p.root.join("specs/notes\tx")).unwrap();
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "links named as units, in names no unit can have"]);
    commit_gitlink(&c, "specs/006-sub\tmodule");

    let (code, rows, report) = c.rows();
    assert_eq!(code, 26, "{report:#}");
    let strays: Vec<&str> = rows.iter().map(|(task, _, _)| task.as_str()).collect();
    let expected = [
        "openspec/changes/archive/2025-01-01-a\\nb",
        "openspec/changes/tab\\there",
        "specs/002-tab\\there",
        "specs/003-new\\nline",
        "specs/004-\\u{1b}[2J",
        "specs/005-blank ",
        "specs/006-sub\\tmodule",
    ];
    assert_eq!(strays, expected, "{report:#}");
    for row in report["ticks"].as_array().unwrap() {
        let message = row["findings"][0]["message"].as_str().unwrap();
        assert!(message.contains("and its name cannot be a unit's: it "), "{message}");
        assert!(message.ends_with("under a name a unit can have"), "{message}");
    }
    // The policy a project adopts names each of them, made inert as the report makes them.
    let init = c.p.speccoder(&["attest", "policy", "init"]).success();
    for stray in expected {
        assert!(init.stdout.contains(&format!("# - {stray}: verify fails it as `not_a_unit`")), "{init}");
    }
    assert!(!init.stdout.contains('\u{1b}'), "{init}");
}

#[test]
fn each_feature_moved_into_an_archive_of_specs_by_hand_is_a_row_of_its_own() {
    let c = Case::speckit();
    let features = ["000-proto", "002-login", "003-billing"];
    for feature in features {
        c.p.write(&format!("specs/archive/{feature}/tasks.md"), "- [x] T001 done\n- [x] T002 done\n");
    }
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "archive three features by hand"]);
    let (code, rows, report) = c.rows();
    assert_eq!(code, 26, "{report:#}");
    let strays: Vec<&str> = rows
        .iter()
        .filter(|(_, _, reason)| reason == "not_a_unit")
        .map(|(task, _, _)| task.as_str())
        .collect();
    let expected: Vec<String> = features.iter().map(|f| format!("specs/archive/{f}/tasks.md")).collect();
    assert_eq!(strays, expected, "{report:#}");
}

/// `attest` of a task of `unit` fails saying `specs/<unit>` `is_what`, and writes nothing; the
/// branch check has one row for it, `not_a_unit`, that says `row_says`.
fn refused_unit(c: &Case, unit: &str, is_what: &str, row_says: &str) {
    let before = c.p.snapshot();
    let out = c.attest(unit, "T005").failure(13);
    assert!(out.stderr.contains(&format!("`specs/{unit}` {is_what}")), "{out}");
    assert_eq!(c.p.snapshot(), before);
    let (code, rows, report) = c.rows();
    assert_eq!(code, 26, "{report:#}");
    let row = (format!("specs/{unit}"), "unverifiable".to_owned(), "not_a_unit".to_owned());
    assert_eq!(rows, [row], "{report:#}");
    let message = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains(row_says), "{message}");
}

/// Records a submodule's commit (a gitlink, mode 160000) at `path`, as `git submodule add` would,
/// with an empty directory in the work tree as an uninitialized submodule has, and commits it.
fn commit_gitlink(c: &Case, path: &str) {
    let commit = c.p.rev("HEAD");
    c.p.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{commit},{path}")]);
    std::fs::create_dir(c.p.root.join(path)).unwrap();
    c.p.git(&["commit", "-q", "-m", "a submodule"]);
    let entry = c.p.git(&["ls-tree", "HEAD", path]);
    assert!(entry.starts_with("160000 commit "), "{entry}");
}

#[test]
fn a_gitlink_where_the_task_list_should_be_is_refused_by_attest_and_a_row_of_verify() {
    let c = Case::speckit();
    c.attest(SPECKIT_UNIT, "T005").success();
    c.p.git(&["rm", "-q", TASKS]);
    commit_gitlink(&c, TASKS);
    // The unit's task list cannot be read: a row of its own that fails the branch, never nothing.
    let report = refused_task_list(&c, "is a submodule");
    let message = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("speccoder does not read into submodules"), "{message}");
    let allowed = c.allowed.to_str().unwrap();
    let text =
        c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allowed-signers", allowed]).failure(26);
    let row = format!("unverifiable {SPECKIT_UNIT}/tasks.md ");
    let line = text.stdout.lines().find(|l| l.contains(&row)).unwrap_or_else(|| panic!("{text}"));
    assert!(line.ends_with("(tasks_unreadable)"), "{text}");
}

/// A Git LFS pointer as `git lfs track` stores a file: its first line names the specification
/// `version` (the one git-lfs writes, or the older `hawser` one).
fn lfs_pointer(version: &str) -> String {
    let oid = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393";
    format!("version https://{version}/spec/v1\noid sha256:{oid}\nsize 2143\n")
}

/// `attest verify --branch --allow-empty` as a CI gate runs it: the exit code and stdout.
fn gate(c: &Case) -> common::Run {
    let allowed = c.allowed.to_str().unwrap();
    c.p.speccoder(&["attest", "verify", "--branch", "--allow-empty", "--allowed-signers", allowed])
}

#[test]
fn a_hand_ticked_task_list_stored_in_git_lfs_fails_the_gate_even_with_allow_empty() {
    let c = Case::speckit();
    // Every task ticked by hand, and the list stored as `git lfs track` stores it: the pointer,
    // and the attribute that makes a checkout show the ticked list.
    let ticked = String::from_utf8(c.p.read(TASKS)).unwrap().replace("- [ ] T0", "- [X] T0");
    assert!(ticked.matches("- [X] T0").count() > 1, "the fixture ticks several tasks");
    c.p.write(".gitattributes", "specs/**/tasks.md filter=lfs diff=lfs merge=lfs -text\n");
    c.p.git(&["add", ".gitattributes"]);
    c.commit_file(TASKS, lfs_pointer("git-lfs.github.com"), "mark all tasks done");

    let says = "is stored through a filter (the tree's `.gitattributes` give it `filter=lfs`)";
    let report = refused_task_list(&c, says);
    let message = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("store the task list as plain text"), "{message}");
    let out = gate(&c).failure(26);
    assert!(out.stdout.contains(&format!("{SPECKIT_UNIT}/tasks.md")), "{out}");
}

#[test]
fn a_git_lfs_pointer_is_refused_as_a_task_list_whatever_the_attributes_say() {
    for version in ["git-lfs.github.com", "hawser.github.com"] {
        let c = Case::speckit();
        c.commit_file(TASKS, lfs_pointer(version), "a pointer, no attribute");
        refused_task_list(&c, "is stored through a filter (it is a Git LFS pointer)");
        gate(&c).failure(26);
    }
}

#[test]
fn a_plain_text_task_list_the_tree_gives_a_filter_is_refused_by_attest_and_a_row_of_verify() {
    let c = Case::speckit();
    c.attest(SPECKIT_UNIT, "T005").success();
    // A directory's own attributes file, relative to it, as git reads it; no driver is configured.
    c.commit_file("specs/.gitattributes", "*/tasks.md filter=crypt\n", "encrypt the task lists");
    refused_task_list(&c, "is stored through a filter (the tree's `.gitattributes` give it `filter=crypt`)");
    gate(&c).failure(26);
    // Unset again below it, the list is read as it is stored.
    c.commit_file(&format!("specs/{SPECKIT_UNIT}/.gitattributes"), "tasks.md -filter\n", "plain again");
    let (code, rows, report) = c.rows();
    let evidenced = (format!("{SPECKIT_UNIT}/T005"), "evidenced".to_owned(), String::new());
    assert_eq!((code, rows), (0, vec![evidenced]), "{report:#}");
}

#[cfg(unix)]
#[test]
fn a_pointer_git_lfs_smudges_fails_the_gate_under_a_linked_attributes_file_or_an_old_version() {
    let c = Case::speckit();
    // `.gitattributes` committed as a link whose target is the rule: git reads its blob as rules
    // for a tree (`git check-attr --source`), and a clone's checkout runs git-lfs over the list.
    let rule = "specs/**/tasks.md filter=lfs diff=lfs merge=lfs -text";
    std::os::unix::fs::symlink(rule, c.p.root.join(".gitattributes")).unwrap();
    c.p.git(&["add", ".gitattributes"]);
    let by_git =
        |rev: &str| c.p.git(&["check-attr", "--source", rev, "filter", "--", TASKS]).trim().to_owned();
    let before = by_git("HEAD");
    c.commit_file(TASKS, format!("\n{}", lfs_pointer("git-lfs.github.com")), "tasks done, as a pointer");
    assert_eq!(
        (before, by_git("HEAD")),
        (format!("{TASKS}: filter: unspecified"), format!("{TASKS}: filter: lfs"))
    );
    refused_task_list(&c, "is stored through a filter (the tree's `.gitattributes` give it `filter=lfs`)");
    gate(&c).failure(26);

    // Without the attribute, a pointer git-lfs still reads: a blank line first, the alpha version.
    let c = Case::speckit();
    let alpha = lfs_pointer("git-lfs.github.com")
        .replace("https://git-lfs.github.com/spec/v1", "http://git-media.io/v/2");
    c.commit_file(TASKS, format!("\n \n{alpha}"), "tasks done, as an alpha pointer");
    refused_task_list(&c, "is stored through a filter (it is a Git LFS pointer)");
    gate(&c).failure(26);
}

#[test]
fn a_large_real_attributes_file_is_read_and_one_that_cannot_be_is_a_row_naming_it() {
    let c = Case::speckit();
    c.attest(SPECKIT_UNIT, "T005").success();
    // A generated one of a large project: 40,000 `linguist-generated` lines, 1.7 MiB.
    let rules: String =
        (0..40_000).map(|i| format!("vendor/gen/file{i:06}.js linguist-generated\n")).collect();
    c.commit_file(".gitattributes", &rules, "mark generated files");
    let evidenced = (format!("{SPECKIT_UNIT}/T005"), "evidenced".to_owned(), String::new());
    let (code, rows, report) = c.rows();
    assert_eq!((code, rows), (0, vec![evidenced]), "{report:#}");
    c.attest(SPECKIT_UNIT, "T001").success();

    // The unit's own attributes file, its blob missing from the clone: a row of that unit, which
    // names the file.
    let at = format!("specs/{SPECKIT_UNIT}/.gitattributes");
    c.commit_file(&at, "*.md diff\n", "an attributes file of the unit");
    let blob = c.p.git(&["rev-parse", &format!("HEAD:{at}")]);
    let blob = blob.trim();
    std::fs::remove_file(c.p.root.join(format!(".git/objects/{}/{}", &blob[..2], &blob[2..]))).unwrap();
    let says = format!("the attributes file `{at}` cannot be read (");
    let (code, rows, report) = c.rows();
    let unit_row =
        (format!("{SPECKIT_UNIT}/tasks.md"), "unverifiable".to_owned(), "tasks_unreadable".to_owned());
    assert_eq!((code, rows), (26, vec![unit_row]), "{report:#}");
    let finding = &report["ticks"][0]["findings"][0];
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("the ticks of unit {SPECKIT_UNIT} cannot be checked: {says}")),
        "{message}"
    );
    assert!(message.contains(&format!("commit `{at}` as an attributes file git reads")), "{message}");
    assert_eq!(finding["found"], Value::from(at), "{report:#}");
}

#[test]
fn a_gitlink_where_a_unit_directory_should_be_is_refused_by_attest_and_a_row_of_verify() {
    let c = Case::speckit();
    commit_gitlink(&c, "specs/002-vendored");
    // A submodule where a unit would be is a row of its own, never read into nor skipped.
    let says = "it is a submodule (another repository) where a unit directory would be";
    refused_unit(&c, "002-vendored", "is a submodule", says);
}

/// A fenced copy of a task line is skipped and openspec still reads the change; once a schema of
/// the project's own tracks the change's tasks in `checklist.md`, where openspec then counts a hand
/// tick, speccoder reads the change no more: `attest` refuses it and the branch check fails on it.
#[test]
fn an_openspec_tick_skips_a_fenced_copy_and_a_change_whose_schema_tracks_another_file_is_refused() {
    let openspec = common::openspec();
    let c = Case::new(Project::openspec());
    let path = format!("openspec/changes/{OPENSPEC_UNIT}/tasks.md");
    let original = String::from_utf8(c.p.read(&path)).unwrap();
    let fenced = original.replacen(
        "## 1. Implementation\n",
        "```\n- [ ] 1.2 an example\n```\n\n## 1. Implementation\n",
        1,
    );
    c.commit_file(&path, &fenced, "An example task line");
    let run_openspec = |args: &[&str]| {
        let mut cmd = std::process::Command::new(&openspec);
        common::isolate(&mut cmd, &c.p.home);
        cmd.current_dir(&c.p.root).args(args);
        common::run(cmd)
    };
    run_openspec(&["validate", OPENSPEC_UNIT, "--strict", "--no-interactive"]).success();

    c.attest(OPENSPEC_UNIT, "1.2").success();

    let after = String::from_utf8(c.p.git_bytes(&["show", &format!("HEAD:{path}")])).unwrap();
    assert!(after.contains("```\n- [ ] 1.2 an example\n```"), "{after}");
    assert!(after.contains("- [x] 1.2 Implement filter by tag"), "{after}");
    assert_eq!(after.matches("[x]").count(), 1, "{after}");
    let out = run_openspec(&["validate", OPENSPEC_UNIT, "--strict", "--no-interactive"]).success();
    assert!(out.stdout.contains("is valid"), "{out}");
    // OpenSpec counts the fenced line as an open task: one of seven done, never two.
    let list = run_openspec(&["list", "--json"]).success();
    let listed: Value = serde_json::from_str(list.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {list}"));
    let change = listed["changes"].as_array().unwrap().iter().find(|ch| ch["name"] == OPENSPEC_UNIT).unwrap();
    assert_eq!(
        (change["completedTasks"].as_u64(), change["totalTasks"].as_u64()),
        (Some(1), Some(6)),
        "{change}"
    );
    let (code, rows, _) = c.rows();
    assert_eq!((code, rows.len()), (0, 1), "{rows:?}");

    let schema = "name: checklist\nversion: 1\nartifacts:\n  - id: tasks\n    generates: checklist.md\n    \
                  description: The change's checklist\n    template: tasks.md\napply:\n  requires: [tasks]\n  \
                  tracks: checklist.md\n";
    c.p.write("openspec/schemas/checklist/schema.yaml", schema);
    c.p.write("openspec/config.yaml", "schema: checklist\n");
    let checklist = format!("openspec/changes/{OPENSPEC_UNIT}/checklist.md");
    c.p.write(&checklist, "## 1. Work\n\n- [x] 1.1 Ticked by hand\n- [ ] 1.2 Open\n");
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "Track the tasks in a checklist"]);
    let list = run_openspec(&["list", "--json"]).success();
    let listed: Value = serde_json::from_str(list.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {list}"));
    let change = listed["changes"].as_array().unwrap().iter().find(|ch| ch["name"] == OPENSPEC_UNIT).unwrap();
    assert_eq!(
        (change["completedTasks"].as_u64(), change["totalTasks"].as_u64()),
        (Some(1), Some(2)),
        "openspec counts the checklist: {change}"
    );
    let (code, rows, report) = c.rows();
    let place = format!("openspec/changes/{OPENSPEC_UNIT}");
    assert_eq!(code, 26, "{report:#}");
    assert_eq!(rows, [(place.clone(), "unverifiable".to_owned(), "not_a_unit".to_owned())], "{report:#}");
    let says = report["ticks"][0]["findings"][0]["message"].as_str().unwrap_or_default();
    for part in ["has its tasks counted in `checklist.md`", "`openspec/schemas/checklist/schema.yaml`"] {
        assert!(says.contains(part), "{part:?}: {report:#}");
    }
    let head = c.p.rev("HEAD");
    let out = c.attest(OPENSPEC_UNIT, "1.3").failure(13);
    assert!(out.stderr.contains("has its tasks counted in `checklist.md`"), "{out}");
    assert_eq!(c.p.rev("HEAD"), head, "nothing written");
}

/// `openspec archive` moves a change to `openspec/changes/archive/<date>-<id>/`, and its boxes stay
/// claims: an evidenced tick still verifies there (per branch and per commit, the task line read
/// at the head from the archive), a box ticked by hand in the archived change fails the branch,
/// and a writer refuses the archived change's tasks.
#[test]
fn an_archived_openspec_change_is_still_checked_and_never_ticked() {
    let c = Case::new(Project::openspec());
    c.attest(OPENSPEC_UNIT, "1.1").success();
    let task_commit = c.p.rev("HEAD");
    let path = format!("openspec/changes/{OPENSPEC_UNIT}/tasks.md");
    let text = String::from_utf8(c.p.read(&path)).unwrap();
    c.commit_file(&path, text.replacen("- [ ] 1.2", "- [x] 1.2", 1), "Tick 1.2 by hand");

    openspec_archive(&c);
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "Archive the change"]);
    assert!(!c.p.root.join(format!("openspec/changes/{OPENSPEC_UNIT}")).exists(), "archived");

    let (code, rows, _) = c.rows();
    let row = |task: &str| rows.iter().find(|r| r.0 == format!("{OPENSPEC_UNIT}/{task}")).cloned();
    assert_eq!(code, 26, "{rows:?}");
    assert_eq!(row("1.1").map(|r| r.1), Some("evidenced".to_owned()), "{rows:?}");
    assert_eq!(
        row("1.2").map(|r| (r.1, r.2)),
        Some(("unverifiable".into(), "ticked_without_evidence".into()))
    );

    let allowed = c.allowed.to_str().unwrap();
    let one = c.p.speccoder(&["attest", "verify", &task_commit, "--allowed-signers", allowed]);
    assert_eq!(one.code(), Some(0), "the task line is read at the head from the archive\n{one}");

    let out = c.attest(OPENSPEC_UNIT, "1.3").failure(14);
    assert!(out.stderr.contains("archived at openspec/changes/archive/"), "{out}");
    assert!(out.stderr.contains("git mv openspec/changes/archive/"), "{out}");
}

/// Runs `openspec archive` on the case's change, leaving what it did uncommitted.
fn openspec_archive(c: &Case) {
    let mut archive = std::process::Command::new(common::openspec());
    common::isolate(&mut archive, &c.p.home);
    archive.current_dir(&c.p.root).args(["archive", OPENSPEC_UNIT, "--yes"]);
    common::run(archive).success();
}

/// `openspec archive` run and not committed leaves HEAD and the index with the active change and
/// the work tree with its archived copy: attest, accept and skip each name the archive and what
/// to do, before and after the deleted task list is staged, and write nothing; the directory
/// brought back as the message says, the tick is made.
#[test]
fn a_change_archived_in_the_work_tree_and_not_committed_is_named_as_archived_by_every_writer() {
    let c = Case::new(Project::openspec());
    openspec_archive(&c);
    let active = format!("openspec/changes/{OPENSPEC_UNIT}");
    let target = format!("{OPENSPEC_UNIT}/1.2");
    let key = c.key.private.to_str().unwrap().to_owned();
    let says_archived = |out: &common::Run| {
        let said = &out.stderr;
        assert!(
            said.contains(&format!(
                "`{OPENSPEC_UNIT}`, whose directory {active}/ is gone from the work tree"
            )) && said.contains("appears archived at openspec/changes/archive/")
                && said.contains("commit the archive (`git add -A openspec`, then `git commit`)")
                && said.contains(&format!("`git restore --source=HEAD --staged --worktree -- {active}`"))
                && !said.contains("unstaged changes")
                && !said.contains("no task list yet"),
            "{out}"
        );
    };
    let before = c.p.snapshot();
    says_archived(&c.attest(OPENSPEC_UNIT, "1.2").failure(14));
    says_archived(&c.p.speccoder(&["accept", &target, "--reason", "by hand", "--key", &key]).failure(14));
    says_archived(&c.p.speccoder(&["skip", &target, "--reason", "later", "--key", &key]).failure(14));
    assert_eq!(c.p.snapshot(), before, "nothing written");

    c.p.git(&["add", &format!("{active}/tasks.md")]);
    let before = c.p.snapshot();
    says_archived(&c.attest(OPENSPEC_UNIT, "1.2").failure(14));
    says_archived(&c.p.speccoder(&["accept", &target, "--reason", "by hand", "--key", &key]).failure(14));
    assert_eq!(c.p.snapshot(), before, "nothing written");

    c.p.git(&["restore", "--source=HEAD", "--staged", "--worktree", "--", &active]);
    c.attest(OPENSPEC_UNIT, "1.2").success();
}

/// A branch that archives a change takes back none of the ticks its archived copy keeps (the
/// same run lists them evidenced, read from the copy); a tick the copy drops is still named.
#[test]
fn archiving_a_change_on_a_branch_takes_back_only_the_ticks_its_archived_copy_drops() {
    let c = Case::new(Project::openspec());
    c.attest(OPENSPEC_UNIT, "1.1").success();
    c.attest(OPENSPEC_UNIT, "1.2").success();
    c.p.git(&["checkout", "-q", "-b", "archive-it"]);
    openspec_archive(&c);
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "Archive the change"]);
    let (code, rows, report) = c.rows_over(&["--base", "main"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(rows.iter().filter(|r| r.1 == "evidenced").count(), 2, "{rows:?}");
    assert!(!report["warnings"].to_string().contains(OPENSPEC_UNIT), "no tick taken back: {report:#}");

    let copy = c.p.git(&["ls-tree", "--name-only", "HEAD", "openspec/changes/archive/"]).trim().to_owned();
    let tasks = format!("{copy}/tasks.md");
    let text = String::from_utf8(c.p.read(&tasks)).unwrap();
    c.commit_file(&tasks, text.replacen("- [x] 1.2", "- [ ] 1.2", 1), "Untick 1.2 in the archived copy");
    let (code, _, report) = c.rows_over(&["--base", "main"]);
    assert_eq!(code, 0, "{report:#}");
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains(&format!("{OPENSPEC_UNIT}/1.2 is ticked at the base and not at the head")),
        "{report:#}"
    );
    assert!(!warnings.contains("takes the tick back") && !warnings.contains("/1.1 "), "{report:#}");
}

/// The OpenSpec case with an archived copy of its change (`2026-01-01`) whose 1.2 is ticked by
/// hand, then 1.2 attested in the active change and its tick taken back: (the commit before the
/// copy, the task commit). The copy is no unit while the change is active.
fn archived_copy_ticked_then_1_2_attested_and_taken_back() -> (Case, String, String) {
    let c = Case::new(Project::openspec());
    let start = c.p.rev("HEAD");
    let active = format!("openspec/changes/{OPENSPEC_UNIT}");
    let copy = format!("openspec/changes/archive/2026-01-01-{OPENSPEC_UNIT}");
    common::copy_dir(&c.p.root.join(&active), &c.p.root.join(&copy));
    let copied = format!("{copy}/tasks.md");
    let text = String::from_utf8(c.p.read(&copied)).unwrap();
    c.p.git(&["add", &copy]);
    c.commit_file(&copied, text.replacen("- [ ] 1.2", "- [x] 1.2", 1), "An archived copy, 1.2 ticked");
    c.attest(OPENSPEC_UNIT, "1.2").success();
    let evidence = c.p.rev("HEAD");
    let tasks = format!("{active}/tasks.md");
    let ticked = String::from_utf8(c.p.read(&tasks)).unwrap();
    c.commit_file(&tasks, ticked.replacen("- [x] 1.2", "- [ ] 1.2", 1), "Take the tick back");
    (c, start, evidence)
}

/// Checks that each of `histories` reports 1.2 `ticked_again`, naming `setter` and `evidence`.
#[track_caller]
fn expect_1_2_ticked_again(c: &Case, histories: &[&[&str]], setter: &str, evidence: &str) {
    let task = format!("{OPENSPEC_UNIT}/1.2");
    for history in histories {
        let (code, rows, report) = c.rows_over(history);
        let row: Vec<_> = rows.iter().filter(|r| r.0 == task).map(|r| (r.1.as_str(), r.2.as_str())).collect();
        assert_eq!((code, row), (26, vec![("unverifiable", "ticked_again")]), "{history:?}: {report:#}");
        let tick = report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == task.as_str()).unwrap();
        let message = tick["findings"][0]["message"].as_str().unwrap();
        assert!(message.contains(setter) && message.contains(evidence), "{message}");
    }
}

/// Deleting the active change makes its archived copy the unit without changing the copy: the
/// deletion shows the copy's ticks, and sets each box that the unit of its parent left open. A
/// tick taken back in the active change and ticked by hand in the copy is `ticked_again`, over
/// the whole history, the branch since its base and the deletion alone.
#[test]
fn an_archived_copy_that_becomes_the_unit_when_the_active_change_is_deleted_sets_its_ticks_again() {
    let (c, start, evidence) = archived_copy_ticked_then_1_2_attested_and_taken_back();
    c.p.git(&["rm", "-rq", &format!("openspec/changes/{OPENSPEC_UNIT}")]);
    c.p.git(&["commit", "-q", "-m", "Drop the active change: the archived copy is the unit"]);
    let dropped = c.p.rev("HEAD");
    expect_1_2_ticked_again(
        &c,
        &[&["--all"], &["--base", &start], &["--base", "HEAD~1"]],
        &dropped,
        &evidence,
    );
}

/// A change archived twice and active nowhere is no unit; deleting one copy makes the other the
/// unit, and the deletion sets the boxes it ticks that the unit of before left open.
#[test]
fn deleting_one_of_two_archived_copies_sets_the_ticks_of_the_other_again() {
    let (c, _, evidence) = archived_copy_ticked_then_1_2_attested_and_taken_back();
    let later = format!("openspec/changes/archive/2026-02-01-{OPENSPEC_UNIT}");
    c.p.git(&["mv", &format!("openspec/changes/{OPENSPEC_UNIT}"), &later]);
    c.p.git(&["commit", "-q", "-m", "Archive the change: two copies"]);
    c.p.git(&["rm", "-rq", &later]);
    c.p.git(&["commit", "-q", "-m", "Drop the later copy"]);
    let dropped = c.p.rev("HEAD");
    expect_1_2_ticked_again(&c, &[&["--all"], &["--base", "HEAD~1"]], &dropped, &evidence);
}

/// The OpenSpec case with 1.1 attested, then its change archived by `openspec archive` and
/// committed: (the case, the task commit, the archived copy's directory).
fn attested_then_archived() -> (Case, String, String) {
    let c = Case::new(Project::openspec());
    c.attest(OPENSPEC_UNIT, "1.1").success();
    let task_commit = c.p.rev("HEAD");
    openspec_archive(&c);
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "Archive the change"]);
    let copy = c.p.git(&["ls-tree", "--name-only", "HEAD", "openspec/changes/archive/"]).trim().to_owned();
    (c, task_commit, copy)
}

/// A new change made under an archived change's name (its own tasks, a delta spec more), its 1.1
/// ticked by hand in the one commit that makes it, while the archived copy stays (its boxes cleared, as the `not_a_unit` row
/// advises, or kept): that commit sets the box, so the archived change's task commit does not
/// evidence it (`ticked_again`, naming both). Moving the archived copy back instead keeps it
/// evidenced.
#[test]
fn a_change_made_anew_beside_its_archived_copy_is_credited_none_of_the_archived_change_s_evidence() {
    let active = format!("openspec/changes/{OPENSPEC_UNIT}");
    let task = format!("{OPENSPEC_UNIT}/1.1");
    for clear_the_copy in [true, false] {
        let (c, task_commit, copy) = attested_then_archived();
        let old_tasks = String::from_utf8(c.p.read(&format!("{copy}/tasks.md"))).unwrap();
        let line = old_tasks.lines().find(|l| l.contains(" 1.1 ")).unwrap();
        // The archived change's proposal and the requirement 1.1 cites, so that no other finding
        // than the box's setter is made.
        for kept in ["proposal.md", "specs/tags/spec.md"] {
            c.p.write(&format!("{active}/{kept}"), c.p.read(&format!("{copy}/{kept}")));
        }
        c.p.write(&format!("{active}/tasks.md"), format!("## 1. New\n{line}\n- [ ] 1.2 Sort by tag\n"));
        c.p.write(
            &format!("{active}/specs/sorting/spec.md"),
            "## ADDED Requirements\n\n### Requirement: Sort by tag\nThe list SHALL sort by tag.\n\n#### Scenario: sorted\n- **WHEN** a\n- **THEN** b\n",
        );
        if clear_the_copy {
            c.p.write(&format!("{copy}/tasks.md"), old_tasks.replace("- [x]", "- [ ]"));
        }
        c.p.git(&["add", "-A"]);
        c.p.git(&["commit", "-q", "-m", "A new change of the same name, 1.1 ticked by hand"]);
        let made = c.p.rev("HEAD");
        let (code, rows, report) = c.rows();
        let row: Vec<_> = rows.iter().filter(|r| r.0 == task).map(|r| (r.1.as_str(), r.2.as_str())).collect();
        assert_eq!((code, row), (26, vec![("unverifiable", "ticked_again")]), "{clear_the_copy}: {report:#}");
        let tick = report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == task.as_str()).unwrap();
        let message = tick["findings"][0]["message"].as_str().unwrap();
        assert!(message.contains(&made[..12]) && message.contains(&task_commit[..12]), "{message}");
    }

    let (c, _, copy) = attested_then_archived();
    c.p.git(&["mv", &copy, &active]);
    c.p.git(&["commit", "-q", "-m", "Work on the change again"]);
    let (code, rows, report) = c.rows();
    assert_eq!((code, rows), (0, vec![(task, "evidenced".to_owned(), String::new())]), "{report:#}");
}

/// A branch that leaves a ticked task list unreadable (a byte that is not UTF-8, UTF-16, a Git
/// LFS pointer, a directory) unticks nothing: its `tasks_unreadable` row says the list cannot be
/// read, and no warning tells each of the base's ticks as taken back by the branch. A branch that
/// does untick a task of a list it leaves readable is still named.
#[test]
fn a_task_list_a_branch_makes_unreadable_is_its_row_alone_never_a_tick_the_branch_takes_back() {
    let c = Case::speckit();
    let text = String::from_utf8(c.p.read(TASKS)).unwrap();
    let ticked = text.replacen("- [ ] T001 ", "- [x] T001 ", 1).replacen("- [ ] T002 ", "- [x] T002 ", 1);
    c.commit_file(TASKS, &ticked, "Ticked by hand");
    let utf16: Vec<u8> =
        [0xFF, 0xFE].into_iter().chain(ticked.encode_utf16().flat_map(u16::to_le_bytes)).collect();
    let unreadable: [(&str, Vec<u8>); 3] = [
        ("bad-byte", [ticked.as_bytes(), b"\xff trailing byte\n"].concat()),
        ("utf-16", utf16),
        ("lfs", lfs_pointer("git-lfs.github.com").into_bytes()),
    ];
    let taken_back = |report: &Value| {
        let warnings = report["warnings"].to_string();
        warnings.contains("this branch unticks it") || warnings.contains("takes the tick back")
    };
    for (name, bytes) in unreadable.iter().map(|(n, b)| (*n, Some(b))).chain([("directory", None)]) {
        c.p.git(&["checkout", "-q", "-B", name, "main"]);
        match bytes {
            Some(bytes) => c.commit_file(TASKS, bytes, name),
            None => {
                c.p.git(&["rm", "-q", TASKS]);
                c.commit_file(&format!("{TASKS}/tasks.md"), &ticked, "The task list, a directory");
            }
        }
        let (code, rows, report) = c.rows_over(&["--base", "main"]);
        let row =
            (format!("{SPECKIT_UNIT}/tasks.md"), "unverifiable".to_owned(), "tasks_unreadable".to_owned());
        assert_eq!((code, rows.contains(&row)), (26, true), "{name}: {report:#}");
        assert!(!taken_back(&report), "{name}: {report:#}");
    }

    c.p.git(&["checkout", "-q", "-B", "untick", "main"]);
    c.commit_file(TASKS, ticked.replacen("- [x] T002 ", "- [ ] T002 ", 1), "Untick T002");
    let (_, _, report) = c.rows_over(&["--base", "main"]);
    let warnings = report["warnings"].to_string();
    let says =
        format!("{SPECKIT_UNIT}/T002 is ticked at the base and not at the head: this branch unticks it");
    assert!(warnings.contains(&says) && !warnings.contains("T001 is ticked"), "{report:#}");
}

/// A branch that makes a new change under the name of an archived one, whose ticked copy stays:
/// the copy is no unit's at the head (its `not_a_unit` row says so once the branch touches it),
/// and the new change's list is another list, so none of the copy's ticks is told as taken back
/// by the branch.
#[test]
fn a_new_change_beside_its_archived_ticked_copy_takes_back_none_of_the_copy_s_ticks() {
    let (c, _, copy) = attested_then_archived();
    c.p.git(&["checkout", "-q", "-b", "anew"]);
    let active = format!("openspec/changes/{OPENSPEC_UNIT}");
    c.p.write(&format!("{active}/proposal.md"), c.p.read(&format!("{copy}/proposal.md")));
    c.commit_file(&format!("{active}/tasks.md"), "## 1. New\n- [ ] 1.1 Sort by tag\n", "A new change");
    let taken_back = |report: &Value| {
        let warnings = report["warnings"].to_string();
        warnings.contains("this branch unticks it") || warnings.contains("takes the tick back")
    };
    let (code, rows, report) = c.rows_over(&["--base", "main", "--allow-empty"]);
    assert_eq!((code, rows.len(), taken_back(&report)), (0, 0, false), "{report:#}");

    let proposal = format!("{copy}/proposal.md");
    let text = String::from_utf8(c.p.read(&proposal)).unwrap();
    c.commit_file(&proposal, text + "\nKept for the record.\n", "Touch the archived copy");
    let (code, rows, report) = c.rows_over(&["--base", "main"]);
    let row = (format!("{copy}/tasks.md"), "unverifiable".to_owned(), "not_a_unit".to_owned());
    assert_eq!((code, rows), (26, vec![row]), "{report:#}");
    assert!(!taken_back(&report), "{report:#}");
}

/// A `tasks.md` below a unit's own (an old copy kept in a subdirectory) is read by no unit, so its
/// checked boxes are a row of their own, `not_a_unit`, never silently left out; one without a
/// checked box is nothing to report.
#[test]
fn a_task_list_inside_a_unit_s_directory_is_a_row_of_its_own() {
    let c = Case::speckit();
    let nested = format!("specs/{SPECKIT_UNIT}/drafts/v1/tasks.md");
    c.commit_file(&nested, "- [x] T001 kept from an old plan\n", "an old copy of the plan");
    c.commit_file(&format!("specs/{SPECKIT_UNIT}/drafts/tasks.md"), "- [ ] T002 open\n", "another");
    let (code, rows, report) = c.rows();
    assert_eq!(code, 26, "{report:#}");
    assert_eq!(rows, [(nested, "unverifiable".to_owned(), "not_a_unit".to_owned())], "{report:#}");
    let message = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains(&format!("inside the directory of unit `{SPECKIT_UNIT}`")), "{message}");
    assert!(message.contains(&format!("`{TASKS}`")), "{message}");
}

#[test]
fn an_openspec_tick_is_stale_once_the_statement_or_a_scenario_of_a_requirement_it_cites_changes() {
    let c = Case::new(Project::openspec());
    let delta = format!("openspec/changes/{OPENSPEC_UNIT}/specs/tags/spec.md");
    let original = String::from_utf8(c.p.read(&delta)).unwrap();
    // 1.2 "Implement filter by tag" cites the requirement "Filter by tag".
    c.attest(OPENSPEC_UNIT, "1.2").success();
    let evidenced = c.rows();
    assert_eq!((evidenced.0, evidenced.1[0].1.as_str()), (0, "evidenced"), "{evidenced:?}");
    // Another requirement's body changing is no drift of this tick.
    let other = original.replace("SHALL show the message", "SHALL display the message");
    c.commit_file(&delta, &other, "Reword the empty result requirement");
    assert_eq!(c.rows().1[0].1, "evidenced");
    // The cited requirement's statement weakened, its heading kept: stale.
    c.commit_file(&delta, other.replace("SHALL show only", "MAY show only"), "Weaken filter by tag");
    let (code, rows, report) = c.rows();
    assert_eq!((code, rows[0].1.as_str(), rows[0].2.as_str()), (26, "stale", "stale"), "{report:#}");
    let finding = &report["ticks"][0]["findings"][0];
    assert_eq!(finding["code"], "requirement_changed", "{report:#}");
    assert!(finding["message"].as_str().unwrap().contains("Filter by tag's heading"), "{report:#}");
    // Restored, then one of its scenarios rewritten: stale again.
    c.commit_file(&delta, &other, "Restore the statement");
    assert_eq!(c.rows().1[0].1, "evidenced");
    c.commit_file(&delta, other.replace("only the bookmarks tagged `rust`", "every bookmark"), "Scenario");
    assert_eq!(c.rows().1[0].1, "stale");
}

/// 1.2 cites "Filter by tag", which the change adds. Another requirement moved under a section of
/// its own, or the header spelled in other letter case, leaves 1.2's requirement where openspec
/// reads it: evidenced. The header turned into `## REMOVED Requirements` (openspec now reads the
/// change as removing it) is drift in every mode, the finding naming both sections. The delta spec
/// moved word for word to another capability's folder (openspec now applies the requirement to
/// that capability's spec) is drift too, the finding naming both capabilities.
#[test]
fn an_openspec_requirement_whose_delta_section_changes_after_the_tick_makes_it_stale_in_every_mode() {
    let c = Case::new(Project::openspec());
    c.attest(OPENSPEC_UNIT, "1.2").success();
    let task_commit = c.p.rev("HEAD");
    let delta = format!("openspec/changes/{OPENSPEC_UNIT}/specs/tags/spec.md");
    let text = String::from_utf8(c.p.read(&delta)).unwrap();
    let other = "### Requirement: Empty filter result";
    let moved = text.replace(other, &format!("## MODIFIED Requirements\n\n{other}"));
    c.commit_file(&delta, moved.replace("## ADDED Requirements", "## Added Requirements"), "Untouched");
    assert_eq!(c.rows().1[0].1, "evidenced", "{:#}", c.rows().2);
    c.commit_file(&delta, moved.replace("## ADDED Requirements", "## REMOVED Requirements"), "Removed");
    for (mode, report) in c.failed_in_every_mode(&task_commit) {
        let tick = &report["ticks"][0];
        assert_eq!(
            (&tick["task"], &tick["outcome"]),
            (&format!("{OPENSPEC_UNIT}/1.2").into(), &"stale".into())
        );
        let f = &tick["findings"][0];
        assert_eq!(f["code"], "requirement_changed", "{mode:?}: {f:#}");
        assert_eq!((&f["expected"], &f["found"]), (&"ADDED".into(), &"REMOVED".into()), "{f:#}");
        assert!(f["message"].as_str().unwrap().contains("## REMOVED Requirements"), "{f:#}");
    }
    let labels = format!("openspec/changes/{OPENSPEC_UNIT}/specs/labels/spec.md");
    c.p.git(&["rm", "-q", &delta]);
    c.commit_file(&labels, &text, "Move the delta, as at the tick, to the labels capability");
    let mut show = std::process::Command::new(common::openspec());
    common::isolate(&mut show, &c.p.home);
    show.current_dir(&c.p.root).args(["show", OPENSPEC_UNIT, "--json", "--deltas-only"]);
    let shown = common::run(show).success();
    assert!(shown.stdout.contains(r#""spec": "labels""#), "openspec applies it to labels: {shown}");
    let (code, rows, report) = c.rows();
    assert_eq!((code, rows[0].1.as_str()), (26, "stale"), "{report:#}");
    let f = &report["ticks"][0]["findings"][0];
    assert_eq!((&f["expected"], &f["found"]), (&"ADDED of tags".into(), &"ADDED of labels".into()), "{f:#}");
    assert!(f["message"].as_str().unwrap().contains("of capability labels at the head"), "{f:#}");
}

/// A requirement 1.3's title ("Add the tag selector to the list view") names, defined in the
/// change's delta spec only after the tick: wording the evidence never saw, so the tick is stale
/// in every mode, as a Spec Kit id defined after the tick is, and 1.1 (which names it not) holds.
#[test]
fn an_openspec_requirement_the_title_names_defined_only_after_the_tick_makes_it_stale_in_every_mode() {
    let c = Case::new(Project::openspec());
    c.attest(OPENSPEC_UNIT, "1.1").success();
    c.attest(OPENSPEC_UNIT, "1.3").success();
    let task_commit = c.p.rev("HEAD");
    let delta = format!("openspec/changes/{OPENSPEC_UNIT}/specs/tags/spec.md");
    let text = String::from_utf8(c.p.read(&delta)).unwrap();
    let selector = "\n### Requirement: Tag selector\nThe list view SHALL offer a selector of the tags \
                    bookmarks carry.\n\n#### Scenario: Opening the selector\n- **WHEN** the reader \
                    opens the selector\n- **THEN** it lists every tag a bookmark carries\n";
    c.commit_file(&delta, format!("{text}{selector}"), "Define the tag selector after the tick");
    for (mode, report) in c.failed_in_every_mode(&task_commit) {
        let ticks = report["ticks"].as_array().unwrap();
        let tick = |task: &str| ticks.iter().find(|t| t["task"] == format!("{OPENSPEC_UNIT}/{task}"));
        let stale = tick("1.3").unwrap_or_else(|| panic!("{mode:?}: {report:#}"));
        assert_eq!((&stale["outcome"], &stale["reason"]), (&"stale".into(), &"stale".into()), "{stale:#}");
        let findings = stale["findings"].as_array().unwrap();
        let f = findings.iter().find(|f| f["code"] == "requirement_changed").unwrap();
        let message = f["message"].as_str().unwrap();
        assert!(message.contains("Tag selector") && message.contains("defined after the tick"), "{f:#}");
        assert_eq!(f["expected"], "(not defined at the tick)", "{f:#}");
        if let Some(held) = tick("1.1") {
            assert_eq!(held["outcome"], "evidenced", "{mode:?}: {held:#}");
        }
    }
}

/// 1.3 names no requirement at the tick, but what its title names at the head is read from the
/// change's delta specs there: when they cannot be read, its drift cannot be told.
#[test]
fn an_openspec_tick_citing_nothing_is_spec_unreadable_when_the_head_s_delta_specs_cannot_be_read() {
    let c = Case::new(Project::openspec());
    c.attest(OPENSPEC_UNIT, "1.3").success();
    let delta = format!("openspec/changes/{OPENSPEC_UNIT}/specs/tags/spec.md");
    let mut text = c.p.read(&delta);
    text.extend_from_slice(b"\n### Requirement: Tag s\xe9lector\n");
    c.commit_file(&delta, text, "A requirement saved in Latin-1");
    let (code, rows, report) = c.rows();
    let row = (rows[0].1.as_str(), rows[0].2.as_str());
    assert_eq!((code, row), (26, ("unverifiable", "spec_unreadable")), "{report:#}");
    let message = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("names") && message.contains("not valid UTF-8"), "{message}");
}

/// A requirement heading as people write it and openspec reads it: a closing run of `#`s, the
/// keyword in lower case with no blank after `###`, the name in bold with a doubled blank. Each
/// names "Filter by tag" as the heading renders it, so 1.2 cites it and a rewording is drift.
#[test]
fn an_openspec_heading_with_closing_hashes_or_emphasis_is_cited_as_it_renders_and_its_rewording_is_stale() {
    for heading in ["### Requirement: Filter by tag ###", "###requirement: **Filter  by tag**"] {
        let c = Case::new(Project::openspec());
        let delta = format!("openspec/changes/{OPENSPEC_UNIT}/specs/tags/spec.md");
        let original = String::from_utf8(c.p.read(&delta)).unwrap();
        let shaped = original.replace("### Requirement: Filter by tag\n", &format!("{heading}\n"));
        assert_ne!(shaped, original, "the fixture's heading moved");
        c.commit_file(&delta, &shaped, "the heading as its author writes it");
        c.attest(OPENSPEC_UNIT, "1.2").success();
        let trace = c.predicate("HEAD")["trace"].clone();
        let row = trace.as_array().unwrap().iter().find(|r| r["requirement"] == "Filter by tag").cloned();
        assert_eq!(
            row.unwrap()["requirement_hash"],
            common::sha256(heading.as_bytes()),
            "{heading}: {trace}"
        );
        c.commit_file(&delta, shaped.replace("SHALL show only", "SHALL hide"), "reword after the tick");
        let (code, rows, report) = c.rows();
        assert_eq!((code, rows[0].1.as_str()), (26, "stale"), "{heading}: {report:#}");
        assert_eq!(report["ticks"][0]["findings"][0]["code"], "requirement_changed", "{report:#}");
    }
}

/// T006 of the fixture written over two lines, as a formatter wraps a long task.
const T006_FIRST: &str = "- [ ] T006 [US1] Show each bookmark's tags in the list view";
const T006_WRAPPED: &str = "  in src/ui/list.rs (SC-001)";

impl Case {
    /// The fixture with T006 wrapped onto a second line, committed.
    fn speckit_with_t006_wrapped() -> Case {
        let c = Case::speckit();
        let tasks = String::from_utf8(c.p.read(TASKS)).unwrap();
        let one_line = format!("{T006_FIRST} in src/ui/list.rs (SC-001)");
        assert!(tasks.contains(&one_line), "the fixture's T006 moved");
        c.commit_file(TASKS, tasks.replace(&one_line, &format!("{T006_FIRST}\n{T006_WRAPPED}")), "wrap T006");
        c
    }

    /// The JSON report of `attest verify` in every mode (`--branch --all`, over the commits, the
    /// task commit `task_commit` alone, the range from its parent to the head), each mode named,
    /// every run having failed (26).
    fn failed_in_every_mode(&self, task_commit: &str) -> Vec<(String, Value)> {
        let range = format!("{task_commit}~1..HEAD");
        let allowed = self.allowed.to_str().unwrap();
        let modes = [&["--branch", "--all"][..], &[], &[task_commit], &[range.as_str()]];
        let run = |mode: &[&str]| {
            let mut args = vec!["attest", "verify", "--json", "--allowed-signers", allowed];
            args.extend_from_slice(mode);
            let out = self.p.speccoder(&args);
            let report: Value =
                serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"));
            assert_eq!(out.code(), Some(26), "{mode:?}: {report:#}");
            (format!("{mode:?}"), report)
        };
        modes.into_iter().map(run).collect()
    }

    /// The task-verification predicate of the note at `rev`.
    fn predicate(&self, rev: &str) -> Value {
        let lines = self.p.note_lines(rev);
        let tv = lines.iter().find(|l| l.predicate_type().ends_with("task-verification/v0")).unwrap();
        tv.statement["predicate"].clone()
    }

    /// The row of `task` in the verify report, with the report's exit code.
    fn row(&self, task: &str) -> (i32, Value) {
        let (code, rows, report) = self.rows();
        let target = format!("{SPECKIT_UNIT}/{task}");
        let row = report["ticks"].as_array().unwrap().iter().find(|t| t["task"] == target.as_str()).cloned();
        (code, row.unwrap_or_else(|| panic!("no row {target}: {rows:?}")))
    }
}

/// The requirement ids a predicate's trace rows name, in order, without the acceptance rows.
fn traced(predicate: &Value) -> Vec<String> {
    let rows = predicate["trace"].as_array().unwrap();
    rows.iter()
        .filter(|row| row.get("scenario").is_none())
        .map(|row| row["requirement"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_wrapped_task_holds_while_untouched_and_fails_verify_once_its_wrapped_part_is_reworded() {
    let c = Case::speckit_with_t006_wrapped();
    c.attest(SPECKIT_UNIT, "T006").success();
    let p = c.predicate("HEAD");
    assert_eq!(
        p["task"]["line_hash"],
        common::sha256(T006_FIRST.as_bytes()),
        "the first line alone is hashed"
    );
    assert_eq!(p["task"]["title"], "Show each bookmark's tags in the list view");
    // Another commit above the tick leaves the task as it was: the tick holds.
    c.commit_file("README.md", "# Bookmarks\n", "a readme");
    let (code, row) = c.row("T006");
    assert_eq!((code, row["outcome"].as_str()), (0, Some("evidenced")), "{row}");

    let tasks = String::from_utf8(c.p.read(TASKS)).unwrap();
    let reworded = "  and also remove every authentication check from the admin API";
    c.commit_file(TASKS, tasks.replace(T006_WRAPPED, reworded), "reword T006 after its tick");
    let (code, row) = c.row("T006");
    assert_eq!(code, 26, "{row}");
    assert_eq!((row["outcome"].as_str(), row["reason"].as_str()), (Some("unverifiable"), Some("mismatch")));
    let finding = row["findings"].as_array().unwrap().iter().find(|f| f["code"] == "line_changed_at_head");
    let finding = finding.unwrap_or_else(|| panic!("no line_changed_at_head: {row}"));
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("wrapped part") && message.contains(&format!("{TASKS} line ")), "{finding}");
    assert!(message.ends_with("untick the task and attest it again"), "{finding}");
    assert_eq!(
        (finding["expected"].as_str(), finding["found"].as_str()),
        (Some(T006_WRAPPED), Some(reworded))
    );

    // Unwrapped again as it was: the wording is the tick's once more.
    c.commit_file(TASKS, &tasks, "take the rewording back");
    let (code, row) = c.row("T006");
    assert_eq!((code, row["outcome"].as_str()), (0, Some("evidenced")), "{row}");
}

/// What main's binary signed of T005 (its task, story and requirement rows), before this reader.
const T005_SIGNED_BEFORE: &str = r#"{"task":{"id":"T005","line_hash":"e7f7668be51deaff1b86a4e5bec8364106e6d87737f193ff7bf28d015141e1b3","title":"Implement adding a tag to a bookmark in src/tags/store.rs (FR-001, FR-002)"},"spec":{"section":"US1","section_hash":"2068d4bf0f3a33d03c090e6db3eaa3d7b65beeee5c4ad232911398356909c116"},"trace":[{"phase":"green","requirement":"FR-001","requirement_hash":"409f7403ac31f2fa425e0b9ea3de2d0fbb989468a913b5b1986005c340d98657","result":"verified"},{"phase":"green","requirement":"FR-002","requirement_hash":"4cfb4cf68a0a140885367ef2601a6594a809ed3da5a5d89b0752f97c890e3dd3","result":"verified"}]}"#;

#[test]
fn a_requirement_cited_on_a_wrapped_line_is_traced_and_its_rewrite_makes_the_tick_stale() {
    let c = Case::speckit_with_t006_wrapped();
    c.attest(SPECKIT_UNIT, "T006").success();
    assert_eq!(traced(&c.predicate("HEAD")), ["SC-001"]);
    // A one-line task signs what it signed before: these are main's binary's values, before a
    // wrapped task was read whole.
    c.attest(SPECKIT_UNIT, "T005").success();
    let p = c.predicate("HEAD");
    let requirement_rows: Vec<&Value> =
        p["trace"].as_array().unwrap().iter().filter(|row| row.get("scenario").is_none()).collect();
    let before: Value = serde_json::from_str(T005_SIGNED_BEFORE).unwrap();
    assert_eq!(serde_json::json!({"task": p["task"], "spec": p["spec"], "trace": requirement_rows}), before);

    let spec = "specs/001-bookmark-tags/spec.md";
    let text = String::from_utf8(c.p.read(spec)).unwrap();
    let sc = text.lines().find(|l| l.starts_with("- **SC-001**:")).unwrap();
    c.commit_file(spec, text.replace(sc, "- **SC-001**: Nothing is measured."), "rewrite SC-001");
    let (code, row) = c.row("T006");
    assert_eq!((code, row["outcome"].as_str()), (26, Some("stale")), "{row}");
    assert!(row["findings"].as_array().unwrap().iter().any(|f| f["code"] == "requirement_changed"), "{row}");
    assert_eq!(c.row("T005").1["outcome"], "evidenced");
}

#[test]
fn carry_refuses_a_commit_whose_task_wraps_onto_other_lines_than_the_attested_one() {
    let c = Case::speckit_with_t006_wrapped();
    // A fifth line, beyond the three lines of context a change's patch holds around the box.
    let tasks = String::from_utf8(c.p.read(TASKS)).unwrap();
    let far = "  and it keeps every authentication check";
    let long = format!("{T006_WRAPPED}\n  line three\n  line four\n{far}");
    c.commit_file(TASKS, tasks.replace(T006_WRAPPED, &long), "wrap T006 longer");
    c.attest(SPECKIT_UNIT, "T006").success();
    let old = c.p.rev("HEAD");
    // The same tick on a base whose task reads otherwise five lines below its box.
    c.p.git(&["checkout", "-q", "-b", "moved", "HEAD~1"]);
    let reworded = long.replace(far, "  and it removes every authentication check");
    let tasks = String::from_utf8(c.p.read(TASKS)).unwrap();
    c.commit_file(TASKS, tasks.replace(&long, &reworded), "reword T006's last line");
    c.p.git(&["cherry-pick", &old]);
    let new = c.p.rev("HEAD");
    let report = c.carry_refused(&old, &new);
    assert_eq!(report["refused"][0]["code"], "task_line_differs", "{report:#}");
    assert!(report.to_string().contains("wraps onto"), "{report:#}");
}

#[test]
fn a_task_commit_whose_task_the_head_no_longer_lists_is_told_what_is_gone_in_the_commit_modes() {
    let c = Case::speckit();
    c.attest(SPECKIT_UNIT, "T005").success();
    let original = String::from_utf8(c.p.read(TASKS)).unwrap();
    let without: String =
        original.lines().filter(|l| !l.contains("T005")).map(|l| format!("{l}\n")).collect();
    c.commit_file(TASKS, &without, "Descope T005");
    let allowed = c.allowed.to_str().unwrap();
    let out = c.p.speccoder(&["attest", "verify", "--allowed-signers", allowed]).failure(26);
    let says =
        format!("task `T005` is no longer in `{TASKS}` at the head (removed or renumbered after the tick)");
    assert!(out.stdout.contains(&says), "{out}");
    assert!(out.stdout.contains("`attest verify --branch` checks only the ticks the head holds"), "{out}");
    // The branch holds no tick of it: nothing fails there.
    c.p.speccoder(&["attest", "verify", "--branch", "--all", "--allow-empty", "--allowed-signers", allowed])
        .success();
}

/// Removes the loose object `REV:PATH` names from `c`'s object store; returns its id.
fn lose_object(c: &Case, spec: &str) -> String {
    let id = c.p.git(&["rev-parse", spec]).trim().to_owned();
    std::fs::remove_file(c.p.root.join(format!(".git/objects/{}/{}", &id[..2], &id[2..]))).unwrap();
    id
}

#[test]
fn a_task_list_lost_at_one_commit_leaves_the_earlier_ticks_unreadable_never_ticked_again_by_the_next() {
    // The task list's blob, then the unit's directory, lost at T002's task commit.
    for lost in [TASKS, "specs/001-bookmark-tags"] {
        let c = Case::speckit();
        for task in ["T001", "T002", "T003"] {
            c.attest(SPECKIT_UNIT, task).success();
        }
        let (t002, t003) = (c.p.rev("HEAD~1"), c.p.rev("HEAD"));
        let object = lose_object(&c, &format!("HEAD~1:{lost}"));
        let (code, rows, report) = c.rows();
        let row = |task: &str, outcome: &str, reason: &str| {
            (format!("{SPECKIT_UNIT}/{task}"), outcome.to_owned(), reason.to_owned())
        };
        let expected = vec![
            row("T001", "unverifiable", "tasks_unreadable"),
            row("T002", "unverifiable", "mismatch"),
            row("T003", "evidenced", ""),
        ];
        assert_eq!((code, rows), (14, expected), "{report:#}");
        let message = report["ticks"][0]["findings"][0]["message"].as_str().unwrap();
        assert!(message.contains(&format!("at {t002}")), "{message}");
        assert!(message.contains(&format!("object {object} is missing")), "{message}");
        assert!(message.contains(&format!("counts as set by {t003}")), "{message}");
        assert!(!message.contains("set again"), "no hand re-tick is claimed: {message}");
        assert!(
            report["warnings"].to_string().contains(&format!("object {object} is missing")),
            "{report:#}"
        );
    }
}

#[test]
fn a_task_list_or_spec_lost_at_the_head_is_a_row_naming_the_object_and_the_run_exits_14() {
    let spec = "specs/001-bookmark-tags/spec.md";
    let unit_row =
        (format!("{SPECKIT_UNIT}/tasks.md"), "unverifiable".to_owned(), "tasks_unreadable".to_owned());
    let t003_row = (format!("{SPECKIT_UNIT}/T003"), "unverifiable".to_owned(), "mismatch".to_owned());
    for (lost, expected) in [(TASKS, unit_row), (spec, t003_row)] {
        let c = Case::speckit();
        c.attest(SPECKIT_UNIT, "T003").success();
        let object = lose_object(&c, &format!("HEAD:{lost}"));
        let (code, rows, report) = c.rows();
        assert_eq!((code, rows), (14, vec![expected]), "{report:#}");
        let missing = format!("object {object} is missing");
        assert!(report["ticks"][0]["findings"][0]["message"].to_string().contains(&missing), "{report:#}");
        assert!(report["warnings"].to_string().contains(&missing), "{report:#}");
    }
}

/// The fixture's FR-001, and the same requirement wrapped over two lines as a formatter's
/// `proseWrap` writes a list item.
const FR_001: &str = "- **FR-001**: System MUST let a reader attach one or more tags to a saved bookmark.";
const FR_001_FIRST: &str = "- **FR-001**: System MUST let a reader attach";
const FR_001_WRAPPED: &str = "  one or more tags to a saved bookmark.";
const SPEC: &str = "specs/001-bookmark-tags/spec.md";

impl Case {
    /// The fixture with FR-001 wrapped onto a second line, committed.
    fn speckit_with_fr_001_wrapped() -> Case {
        let c = Case::speckit();
        let spec = String::from_utf8(c.p.read(SPEC)).unwrap();
        assert!(spec.contains(FR_001), "the fixture's FR-001 moved");
        c.commit_file(
            SPEC,
            spec.replace(FR_001, &format!("{FR_001_FIRST}\n{FR_001_WRAPPED}")),
            "wrap FR-001",
        );
        c
    }
}

#[test]
fn a_spec_kit_requirement_wrapped_over_two_lines_is_stale_once_its_second_line_changes() {
    let c = Case::speckit_with_fr_001_wrapped();
    c.attest(SPECKIT_UNIT, "T004").success();
    let p = c.predicate("HEAD");
    let row = p["trace"].as_array().unwrap().iter().find(|r| r["requirement"] == "FR-001").cloned();
    assert_eq!(
        row.unwrap()["requirement_hash"],
        common::sha256(FR_001_FIRST.as_bytes()),
        "requirement_hash stays the hash of the defining line"
    );
    // The next item, and a line after the list, are not FR-001's text.
    let spec = String::from_utf8(c.p.read(SPEC)).unwrap();
    c.commit_file(SPEC, spec.replace("store tags in lowercase", "store tags in UPPERCASE"), "reword FR-002");
    assert_eq!(c.row("T004").1["outcome"], "evidenced");
    c.commit_file(SPEC, &spec, "FR-002 back");

    c.commit_file(SPEC, spec.replace(FR_001_WRAPPED, "  NO tags, ever, to any bookmark."), "reword");
    let (code, row) = c.row("T004");
    assert_eq!((code, row["outcome"].as_str()), (26, Some("stale")), "{row}");
    let finding = row["findings"].as_array().unwrap().iter().find(|f| f["code"] == "requirement_changed");
    let finding = finding.unwrap_or_else(|| panic!("no requirement_changed: {row}"));
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("FR-001") && message.contains("wrap"), "{finding}");

    // Re-indented only, the wrapped text reads the same: the tick holds again.
    c.commit_file(SPEC, spec.replace(FR_001_WRAPPED, "    one or more tags to a saved bookmark."), "indent");
    let (code, row) = c.row("T004");
    assert_eq!((code, row["outcome"].as_str()), (0, Some("evidenced")), "{row}");
}

/// A requirement written as a table's row, as Spec Kit samples write their requirements
/// (`| FR-02 | Text search ... | P1 |`).
const FR_02_ROW: &str = "| FR-02 | Text search on display_name and bio fields (ILIKE) | P1 |";

#[test]
fn a_requirement_defined_by_a_table_row_is_traced_by_its_row_and_a_change_to_the_row_makes_the_tick_stale() {
    let c = Case::speckit();
    let spec = String::from_utf8(c.p.read(SPEC)).unwrap();
    let table = format!(
        "| ID | Requirement | Priority |\n|----|-------------|----------|\n{FR_02_ROW}\n| FR-03 | Filter by city | P1 |\n\n### Key Entities"
    );
    let spec = spec.replace("### Key Entities", &table);
    c.commit_file(SPEC, &spec, "FR-02 and FR-03 as a table's rows");
    let tasks = String::from_utf8(c.p.read(TASKS)).unwrap();
    c.commit_file(TASKS, tasks.replace("(FR-001, FR-002)", "(FR-02, FR-77)"), "T005 cites FR-02 and FR-77");
    let out = c.attest(SPECKIT_UNIT, "T005").success();
    // FR-02 is traced; FR-77, which nothing defines, is said untraced with what to write.
    assert!(!out.to_string().contains("cites FR-02,"), "{out}");
    let warned = "the task cites FR-77, which no requirement of `specs/001-bookmark-tags/spec.md` defines; it is not traced";
    assert!(out.to_string().contains(warned) && out.to_string().contains("`| FR-77 | text |`"), "{out}");
    let p = c.predicate("HEAD");
    assert_eq!(traced(&p), ["FR-02"]);
    let row = p["trace"].as_array().unwrap().iter().find(|r| r["requirement"] == "FR-02").cloned().unwrap();
    assert_eq!(
        row["requirement_hash"],
        common::sha256(FR_02_ROW.as_bytes()),
        "the row's line is its definition"
    );
    let task_commit = c.p.rev("HEAD");
    assert_eq!(c.row("T005").1["outcome"], "evidenced");

    // Another row reworded is not FR-02's text: the tick holds.
    c.commit_file(SPEC, spec.replace("Filter by city", "Filter by country"), "reword FR-03");
    assert_eq!(c.row("T005").1["outcome"], "evidenced");
    // A cell of its own row changed: the evidence proves an earlier wording, in every mode.
    let reworded = FR_02_ROW.replace("display_name and bio fields (ILIKE)", "display_name only (exact)");
    c.commit_file(SPEC, spec.replace(FR_02_ROW, &reworded), "reword FR-02");
    for (mode, report) in c.failed_in_every_mode(&task_commit) {
        let tick = &report["ticks"][0];
        assert_eq!(
            (&tick["outcome"], &tick["reason"]),
            (&"stale".into(), &"stale".into()),
            "{mode}: {tick:#}"
        );
        let findings = tick["findings"].as_array().unwrap();
        let f = findings
            .iter()
            .find(|f| f["code"] == "requirement_changed")
            .unwrap_or_else(|| panic!("{tick:#}"));
        assert!(f["message"].as_str().unwrap().contains("requirement FR-02 changed"), "{mode}: {f:#}");
        assert_eq!(f["found"], common::sha256(reworded.as_bytes()), "{mode}: {f:#}");
    }
}

#[test]
fn carry_refuses_a_commit_whose_wrapped_requirement_reads_otherwise_than_the_attested_one() {
    let c = Case::speckit_with_fr_001_wrapped();
    c.attest(SPECKIT_UNIT, "T004").success();
    let old = c.p.rev("HEAD");
    c.p.git(&["checkout", "-q", "-b", "reworded", "HEAD~1"]);
    let spec = String::from_utf8(c.p.read(SPEC)).unwrap();
    c.commit_file(SPEC, spec.replace(FR_001_WRAPPED, "  no tags at all."), "reword FR-001's second line");
    c.p.git(&["cherry-pick", &old]);
    let new = c.p.rev("HEAD");
    let report = c.carry_refused(&old, &new);
    assert_eq!(report["refused"][0]["code"], "requirement_differs", "{report:#}");
    assert!(report["refused"][0]["reason"].as_str().unwrap().contains("FR-001"), "{report:#}");
}

/// A project of its own below the top (its own `.specify/` or `openspec/`, as an app of a monorepo
/// keeps one) is one speccoder refuses to run inside, so the top's check reports each of its task
/// lists with checked boxes as a row of its own, `nested_project`, never passes over them; with
/// nothing ticked at the top they still fail the branch, never leave it with nothing to check. A
/// `specs/` without a project's root beside it is no project, and a list without a checked box
/// is nothing to report.
#[test]
fn a_ticked_task_list_of_a_project_nested_below_the_top_is_a_row_of_its_own() {
    let c = Case::speckit();
    let (speckit, openspec) =
        ("phase-1 of Hackathon/specs/001-uv-setup/tasks.md", "web/openspec/changes/add-y/tasks.md");
    c.p.write("phase-1 of Hackathon/.specify/memory/constitution.md", "c\n");
    c.p.write(speckit, "## Phase 1: Setup\n\n- [x] T001 Verify prerequisites by running `uv --version`.\n");
    c.p.write(openspec, "- [ ] 1.1 open\n- [x] 1.2 done\n");
    c.p.write("web/openspec/changes/add-z/tasks.md", "- [ ] 1.1 open\n");
    c.p.write("docs/specs/001-z/tasks.md", "- [x] T001 no project holds it\n");
    c.p.git(&["add", "-A"]);
    c.p.git(&["commit", "-q", "-m", "two projects below the top"]);
    let (code, rows, report) = c.rows();
    assert_eq!(code, 26, "{report:#}");
    let row = |task: &str| (task.to_owned(), "unverifiable".to_owned(), "nested_project".to_owned());
    assert_eq!(rows, [row(speckit), row(openspec)], "{report:#}");
    let finding = &report["ticks"][0]["findings"][0];
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("the project at `phase-1 of Hackathon/` (it holds `.specify/`)"), "{message}");
    assert!(message.contains("run from the top"), "{message}");
    assert_eq!(finding["found"], "checked boxes on line(s) 3", "{finding}");
    assert_eq!(report["ticks"][1]["findings"][0]["found"], "checked boxes on line(s) 2", "{report:#}");
}
