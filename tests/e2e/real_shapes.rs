//! Real shapes: `fixtures/real-shapes/` holds Spec Kit features and OpenSpec changes written in
//! the shapes real projects give them (Spanish, Portuguese, Japanese, Chinese and Korean text,
//! story headings in those languages, `[P]`/`[USn]` labels in either order, `*` bullets,
//! continuation lines, sub-bullets and code blocks inside items, `1.1.1` ids, a feature without
//! spec.md, hand-made directory names, duplicated ids, letter-suffixed requirement ids, an
//! 800-task list, an archived change, a feature archived by hand). Each is attested by the built
//! binary with a real ssh-keygen key and verified, every note line checked by `ssh-keygen -Y
//! verify`, every hash recomputed here from `git show`, and each refusal checked by its message.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use common::{Evidence, Key, PRINCIPAL, Project, Run, sha256};

/// A repository holding `fixtures/real-shapes`, with a key `ada` and its allowed-signers file.
struct Shapes {
    p: Project,
    key: Key,
    allowed: PathBuf,
}

/// A verify report's rows: task -> (outcome, reason, finding codes).
type Rows = BTreeMap<String, (String, String, Vec<String>)>;

impl Shapes {
    fn new() -> Shapes {
        let p = Project::from_fixture("real-shapes");
        let key = common::ed25519(&p.scratch, "ada");
        let allowed = common::allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &key)]);
        Shapes { p, key, allowed }
    }

    /// `speccoder attest <target>` with fresh verified evidence, the key and `extra` arguments.
    fn attest(&self, target: &str, extra: &[&str]) -> Run {
        let dir = self.p.scratch_dir(&format!("evidence-{}", sha256(target.as_bytes())));
        let evidence = common::write_evidence(&dir, target, Evidence::Verified);
        let mut args = vec!["--key", self.key.private.to_str().unwrap()];
        args.extend_from_slice(extra);
        self.p.attest(target, &evidence, &args)
    }

    /// `attest verify --branch --all` against the key, with `extra` arguments.
    fn verify(&self, extra: &[&str]) -> Run {
        let mut args = vec!["attest", "verify", "--branch", "--all", "--allowed-signers"];
        args.push(self.allowed.to_str().unwrap());
        args.extend_from_slice(extra);
        self.p.speccoder(&args)
    }

    /// The JSON report of `attest verify --branch --all --json`: (exit code, report, rows).
    fn report(&self) -> (i32, Value, Rows) {
        let out = self.verify(&["--json"]);
        let report: Value = serde_json::from_str(out.stdout.trim())
            .unwrap_or_else(|e| panic!("not one JSON report ({e}):\n{out}"));
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        let rows = report["ticks"]
            .as_array()
            .unwrap_or_else(|| panic!("no ticks:\n{out}"))
            .iter()
            .map(|t| {
                let codes = t["findings"].as_array().unwrap().iter().map(|f| text(&f["code"])).collect();
                (text(&t["task"]), (text(&t["outcome"]), text(&t["reason"]), codes))
            })
            .collect();
        (out.code().unwrap_or(-1), report, rows)
    }

    /// Replaces `path` with `bytes` and commits it.
    fn commit_file(&self, path: &str, bytes: impl AsRef<[u8]>, message: &str) {
        self.p.write(path, bytes);
        self.p.git(&["add", path]);
        self.p.git(&["commit", "-q", "-m", message]);
    }

    /// The task-verification predicate of `rev`'s note.
    fn predicate(&self, rev: &str) -> Value {
        let lines = self.p.note_lines(rev);
        let line = lines
            .iter()
            .find(|l| l.predicate_type() == "https://speccoder.dev/task-verification/v0")
            .unwrap_or_else(|| panic!("{rev} has no task-verification line"));
        line.statement["predicate"].clone()
    }

    /// `git show <rev>:<path>` as bytes.
    fn show(&self, rev: &str, path: &str) -> Vec<u8> {
        self.p.git_bytes(&["show", &format!("{rev}:{path}")])
    }
}

/// The row of `task`, failing the test with every row when there is none.
fn row<'r>(rows: &'r Rows, task: &str) -> &'r (String, String, Vec<String>) {
    rows.get(task).unwrap_or_else(|| panic!("no row {task}: {rows:#?}"))
}

/// (outcome, reason) of `task`'s row.
fn outcome(rows: &Rows, task: &str) -> (String, String) {
    let (outcome, reason, _) = row(rows, task);
    (outcome.clone(), reason.clone())
}

fn evidenced() -> (String, String) {
    ("evidenced".to_owned(), String::new())
}

fn unverifiable(reason: &str) -> (String, String) {
    ("unverifiable".to_owned(), reason.to_owned())
}

/// The finding of `task`'s row with `code`, as JSON.
fn finding<'r>(report: &'r Value, task: &str, code: &str) -> &'r Value {
    let tick = crate::decide_support::row(report, task);
    tick["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
        .unwrap_or_else(|| panic!("row {task} has no {code} finding: {tick:#}"))
}

/// The line of `text` that holds `needle`.
fn line_with<'t>(text: &'t str, needle: &str) -> &'t str {
    text.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no line holds {needle:?}"))
}

/// Every unit attested here, with the task list its tick changes, the spec whose text the story
/// hash covers (`None`: no story), and whether that story is the whole spec.md.
const ATTESTED: [(&str, &str, Option<&str>, bool); 16] = [
    (
        "001-marcadores-etiquetas/T004",
        "specs/001-marcadores-etiquetas/tasks.md",
        Some("specs/001-marcadores-etiquetas/spec.md"),
        true,
    ),
    ("002-favoritos-sincronizados/T002", "specs/002-favoritos-sincronizados/tasks.md", None, false),
    ("003-tag-search/T004", "specs/003-tag-search/tasks.md", Some("specs/003-tag-search/spec.md"), false),
    (
        "004-export-reports/T004",
        "specs/004-export-reports/tasks.md",
        Some("specs/004-export-reports/spec.md"),
        true,
    ),
    (
        "005-notification-settings/T003",
        "specs/005-notification-settings/tasks.md",
        Some("specs/005-notification-settings/spec.md"),
        true,
    ),
    (
        "006-import-bookmarks/T003",
        "specs/006-import-bookmarks/tasks.md",
        Some("specs/006-import-bookmarks/spec.md"),
        false,
    ),
    ("007-no-spec/T002", "specs/007-no-spec/tasks.md", None, false),
    (
        "008-duplicated-ids/T001",
        "specs/008-duplicated-ids/tasks.md",
        Some("specs/008-duplicated-ids/spec.md"),
        false,
    ),
    ("009-long-list/T400", "specs/009-long-list/tasks.md", Some("specs/009-long-list/spec.md"), false),
    (
        "010-clarified-requirements/T002",
        "specs/010-clarified-requirements/tasks.md",
        Some("specs/010-clarified-requirements/spec.md"),
        false,
    ),
    (
        "20250314-093000-offline-mode/T001",
        "specs/20250314-093000-offline-mode/tasks.md",
        Some("specs/20250314-093000-offline-mode/spec.md"),
        false,
    ),
    ("auth-rework/T001", "specs/auth-rework/tasks.md", Some("specs/auth-rework/spec.md"), false),
    (
        "scs-hybrid--production-docker/T003",
        "specs/scs-hybrid--production-docker/tasks.md",
        Some("specs/scs-hybrid--production-docker/spec.md"),
        false,
    ),
    ("add-dark-mode/1.1.1", "openspec/changes/add-dark-mode/tasks.md", None, false),
    ("add-japanese-locale/2.1", "openspec/changes/add-japanese-locale/tasks.md", None, false),
    ("migrar-armazenamento-local/1.2", "openspec/changes/migrar-armazenamento-local/tasks.md", None, false),
];

/// The rows that hold whatever is attested: ticks by hand, a ticked id on two lines, a feature
/// archived by hand, an OpenSpec change archived with its boxes ticked.
fn hand_rows() -> Vec<(&'static str, (String, String))> {
    vec![
        ("007-no-spec/T001", unverifiable("ticked_without_evidence")),
        ("008-duplicated-ids/T003", unverifiable("duplicate_task")),
        ("initial-setup/1.1", unverifiable("ticked_without_evidence")),
        ("initial-setup/1.2", unverifiable("ticked_without_evidence")),
        ("scs-hybrid--production-docker/T001", unverifiable("ticked_without_evidence")),
        ("specs/archive/000-first-prototype/tasks.md", unverifiable("not_a_unit")),
    ]
}

#[test]
fn every_unit_of_every_real_shape_attests_and_verifies_and_the_peers_agree() {
    let s = Shapes::new();
    for (target, tasks, story_spec, whole) in ATTESTED {
        let before = s.show("HEAD", tasks);
        let out = s.attest(target, &[]).success();
        assert_eq!(out.stdout.contains("names its story"), whole, "{target}: the fallback is said\n{out}");

        // One line changed, its box only; the trailers name the task.
        let numstat = s.p.git(&["diff", "--numstat", "HEAD~1", "HEAD"]);
        assert_eq!(numstat.trim(), format!("1\t1\t{tasks}"), "{target}");
        let after = s.show("HEAD", tasks);
        let (old, new) = (String::from_utf8(before).unwrap(), String::from_utf8(after).unwrap());
        let changed: Vec<(&str, &str)> = old.lines().zip(new.lines()).filter(|(a, b)| a != b).collect();
        let [(open, ticked)] = changed.as_slice() else { panic!("{target}: {changed:?}") };
        let id = target.rsplit_once('/').unwrap().1;
        assert!(open.contains(&format!("[ ] {id} ")), "{target}: {open}");
        let mark = if tasks.starts_with("openspec") { "[x]" } else { "[X]" };
        assert_eq!(open.replacen("[ ]", mark, 1), *ticked, "{target}");
        let message = s.p.scratch.join("message.txt");
        std::fs::write(&message, s.p.git(&["log", "-1", "--format=%B"])).unwrap();
        let trailers = s.p.git(&["interpret-trailers", "--parse", message.to_str().unwrap()]);
        assert!(trailers.contains(&format!("Spec-Task: {target}\n")), "{target}: {trailers}");

        // Every line verifies with ssh-keygen; the hashes are the line's and the story's.
        common::assert_every_line_verifies(&s.p.scratch, &s.allowed, &s.p.note_lines("HEAD"));
        let p = s.predicate("HEAD");
        assert_eq!(p["task"]["line_hash"], sha256(open.as_bytes()), "{target}");
        if whole {
            let spec = s.show("HEAD", story_spec.unwrap());
            assert_eq!(p["spec"]["section_hash"], sha256(&spec), "{target}: the whole spec.md, as before");
        }
        if story_spec.is_none() && tasks.starts_with("specs") {
            assert_eq!(p["spec"]["section_hash"], sha256(b""), "{target}: an unlabelled task");
        }
    }

    let (code, report, rows) = s.report();
    let mut expected: BTreeMap<String, (String, String)> =
        ATTESTED.iter().map(|(target, ..)| ((*target).to_owned(), evidenced())).collect();
    expected.extend(hand_rows().into_iter().map(|(task, o)| (task.to_owned(), o)));
    let got: BTreeMap<String, (String, String)> =
        rows.iter().map(|(task, (o, r, _))| (task.clone(), (o.clone(), r.clone()))).collect();
    assert_eq!(got, expected, "{report:#}");
    assert_eq!(code, 26, "hand ticks fail the branch");
    for (target, _, _, whole) in ATTESTED {
        assert_eq!(row(&rows, target).2.contains(&"story_fallback".to_owned()), whole, "{target}");
    }

    // Each task commit by itself, and the range of them, hold; git finds nothing wrong.
    let first = s.p.rev(&format!("HEAD~{}", ATTESTED.len()));
    let range = format!("{first}..HEAD");
    let allowed = s.allowed.to_str().unwrap();
    s.p.speccoder(&["attest", "verify", &range, "--allowed-signers", allowed]).success();
    s.p.git(&["fsck", "--strict"]);

    // The OpenSpec CLI still reads every change, and counts our ticks as done.
    let openspec = common::openspec();
    let run_openspec = |args: &[&str]| {
        let mut cmd = std::process::Command::new(&openspec);
        common::isolate(&mut cmd, &s.p.home);
        cmd.current_dir(&s.p.root).args(args);
        common::run(cmd)
    };
    run_openspec(&["validate", "--all", "--strict", "--no-interactive"]).success();
    let list = run_openspec(&["list", "--json"]).success();
    let listed: Value = serde_json::from_str(list.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {list}"));
    let change = |name: &str| {
        let change = listed["changes"].as_array().unwrap().iter().find(|c| c["name"] == name).cloned();
        change.map(|c| (c["completedTasks"].as_u64(), c["totalTasks"].as_u64()))
    };
    assert_eq!(change("add-dark-mode"), Some((Some(1), Some(7))), "{listed:#}");
    assert_eq!(change("migrar-armazenamento-local"), Some((Some(1), Some(3))), "{listed:#}");
}

#[test]
fn a_unit_whose_spec_or_task_list_cannot_be_read_is_that_unit_s_finding_and_every_other_row_is_reported() {
    let s = Shapes::new();
    s.attest("010-clarified-requirements/T002", &[]).success();
    s.attest("003-tag-search/T004", &[]).success();
    s.attest("010-clarified-requirements/T004", &[]).success();
    // spec.md of one unit stops being UTF-8, another unit's task list too.
    let spec = "specs/010-clarified-requirements/spec.md";
    let mut broken = s.show("HEAD", spec);
    broken.extend_from_slice(b"\n- \xff\xfe\n");
    s.commit_file(spec, &broken, "Save the spec in another encoding");
    let tasks = "specs/002-favoritos-sincronizados/tasks.md";
    let mut latin1 = s.show("HEAD", tasks);
    latin1.extend_from_slice(b"* [ ] T006 Documentar a sincroniza\xe7\xe3o\n");
    s.commit_file(tasks, &latin1, "Add a task in Latin-1");

    let (code, report, rows) = s.report();
    assert_eq!(
        code, 26,
        "a unit's unreadable file fails the branch as a finding, not as exit 13: {report:#}"
    );
    assert_eq!(report["exit_code"], 26);
    // The ticks whose requirements cannot be read at the head, each with the file named.
    for task in ["010-clarified-requirements/T002", "010-clarified-requirements/T004"] {
        assert_eq!(outcome(&rows, task), unverifiable("spec_unreadable"), "{report:#}");
        let message = finding(&report, task, "spec_unreadable")["message"].as_str().unwrap();
        assert!(message.contains(&format!("`{spec}` is not valid UTF-8")), "{message}");
    }
    // The task list that cannot be read: one row for the unit, naming the file.
    assert_eq!(outcome(&rows, "002-favoritos-sincronizados/tasks.md"), unverifiable("tasks_unreadable"));
    let message = finding(&report, "002-favoritos-sincronizados/tasks.md", "tasks_unreadable")["message"]
        .as_str()
        .unwrap();
    assert!(message.contains(&format!("`{tasks}` is not valid UTF-8")), "{message}");
    // Every other row is there: an evidenced tick, and a story tick by hand in a unit without
    // spec.md (no task commit, so no story text is needed to list it).
    assert_eq!(outcome(&rows, "003-tag-search/T004"), evidenced());
    assert_eq!(outcome(&rows, "007-no-spec/T001"), unverifiable("ticked_without_evidence"));
    for (task, o) in hand_rows() {
        assert_eq!(outcome(&rows, task), o, "{task}");
    }
    // The text report says the same, and so does the exit code.
    let text = s.verify(&[]).failure(26);
    let row_line = line_with(&text.stdout, "unverifiable 010-clarified-requirements/T002 ");
    assert!(row_line.ends_with("(spec_unreadable)"), "{text}");
    let row_line = line_with(&text.stdout, "unverifiable 002-favoritos-sincronizados/tasks.md ");
    assert!(row_line.ends_with("(tasks_unreadable)"), "{text}");
}

#[test]
fn a_task_commit_whose_spec_cannot_be_read_is_spec_unreadable_naming_the_file() {
    let s = Shapes::new();
    s.attest("003-tag-search/T004", &[]).success();
    let evidence = s.p.rev("HEAD");
    // The task commit amended with a spec.md that is not UTF-8, its note copied along.
    let spec = "specs/003-tag-search/spec.md";
    let mut broken = s.show("HEAD", spec);
    broken.extend_from_slice(b"\n\x81\n");
    s.p.write(spec, &broken);
    s.p.git(&["commit", "-q", "-a", "--amend", "--no-edit"]);
    s.p.git(&["notes", "--ref=speccoder", "copy", &evidence, "HEAD"]);
    let (code, report, rows) = s.report();
    assert_eq!(code, 26);
    assert_eq!(outcome(&rows, "003-tag-search/T004"), unverifiable("mismatch"), "{report:#}");
    // At the task commit and at the head, each naming the file and what needed it.
    let tick = crate::decide_support::row(&report, "003-tag-search/T004");
    let messages: Vec<&str> = tick["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "spec_unreadable")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    let broken = format!("`{spec}` is not valid UTF-8");
    // The requirements a tick is checked for drift are the ones its task's text cites at the task
    // commit: a task that cannot be read there names none, and its tick fails on that alone.
    assert_eq!(messages.len(), 1, "the task commit: {tick:#}");
    assert!(messages.iter().all(|m| m.contains(&broken)), "{messages:#?}");
    assert!(
        messages.iter().any(|m| m.starts_with("a spec document the task needs cannot be read at the task commit: task `T004` (`specs/003-tag-search/tasks.md` line 13) is labelled `[US1]`")),
        "{messages:#?}"
    );
}

#[test]
fn attest_and_accept_name_the_task_that_needs_a_missing_spec_and_why() {
    let s = Shapes::new();
    let before = s.p.snapshot();
    let expected = "task `T003` (`specs/007-no-spec/tasks.md` line 7) is labelled `[US1]`, so its story \
                    text is read from `specs/007-no-spec/spec.md`: `specs/007-no-spec/spec.md` is missing: \
                    restore spec.md, or remove the story label from the task line";
    let out = s.attest("007-no-spec/T003", &[]).failure(13);
    assert!(out.stderr.contains(expected), "{out}");
    let json = s.attest("007-no-spec/T003", &["--json"]).failure(13);
    let error: Value = serde_json::from_str(json.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(error["exit_code"], 13);
    assert!(error["error"].as_str().unwrap().contains(expected), "{error}");
    let accept = s.p.speccoder(&[
        "accept",
        "007-no-spec/T003",
        "--reason",
        "checked by hand",
        "--by",
        "Grace Hopper",
        "--key",
        s.key.private.to_str().unwrap(),
    ]);
    let accept = accept.failure(13);
    assert!(accept.stderr.contains(expected), "{accept}");
    assert_eq!(s.p.snapshot(), before, "nothing was written");
    // The unlabelled task of the same unit needs no spec.md.
    s.attest("007-no-spec/T002", &[]).success();
}

#[cfg(unix)]
#[test]
fn a_hand_named_feature_is_one_unit_for_attest_and_verify_and_hostile_names_are_refused_clearly() {
    let s = Shapes::new();
    s.p.git(&["checkout", "-q", "-b", "work"]);
    let out = s.attest("scs-hybrid--production-docker/T003", &[]).success();
    assert!(out.stdout.contains("scs-hybrid--production-docker/T003"), "{out}");
    // Only the touched unit, and its hand tick is not skipped.
    let out = s.p.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "--base",
        "main",
        "--json",
        "--allowed-signers",
        s.allowed.to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    let tasks: Vec<&str> =
        report["ticks"].as_array().unwrap().iter().map(|t| t["task"].as_str().unwrap()).collect();
    assert_eq!(
        tasks,
        ["scs-hybrid--production-docker/T001", "scs-hybrid--production-docker/T003"],
        "{report:#}"
    );
    assert_eq!(out.code(), Some(26), "{out}");

    // Directories whose names cannot be units' (written with git's plumbing, as a hostile
    // branch would) hold ticks: each is a row with its name escaped and cut, none is skipped.
    let tasks_blob = {
        let file = s.p.scratch.join("ticked.md");
        std::fs::write(&file, "- [x] T001 Done by someone\n").unwrap();
        s.p.git(&["hash-object", "-w", file.to_str().unwrap()]).trim().to_owned()
    };
    let long = "x".repeat(300);
    let hostile =
        [".drafts".to_owned(), "evil\u{1b}[31mred".to_owned(), long.clone(), "rtl\u{202e}gnp.exe".to_owned()];
    for name in &hostile {
        let path = format!("specs/{name}/tasks.md");
        s.p.git(&["update-index", "--add", "--cacheinfo", &format!("100644,{tasks_blob},{path}")]);
    }
    // A name that is not UTF-8: no path names it, so it is reported unread.
    let mut add = std::process::Command::new("git");
    common::isolate(&mut add, &s.p.home);
    add.current_dir(&s.p.root).args(["update-index", "--add", "--cacheinfo"]);
    let entry = [format!("100644,{tasks_blob},specs/latin").as_bytes(), b"\xe9t\xe9/tasks.md"].concat();
    add.arg(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&entry));
    common::run(add).success();
    // Committed from the index: no file system holds a 300-byte name, git's trees do.
    s.p.git(&["commit", "-q", "-m", "Hostile directory names"]);
    let (code, report, rows) = s.report();
    assert_eq!(code, 26);
    let strays: Vec<&String> =
        rows.iter().filter(|(_, (_, r, _))| r == "not_a_unit").map(|(t, _)| t).collect();
    assert_eq!(strays.len(), 6, "five hostile directories and the hand archive: {report:#}");
    assert!(rows.contains_key("specs/latin\u{fffd}t\u{fffd}"), "{rows:#?}");
    let shown = serde_json::to_string(&report).unwrap();
    assert!(!shown.contains('\u{1b}') && !shown.contains('\u{202e}'), "names are escaped");
    assert!(strays.iter().any(|t| t.contains("evil\\u{1b}[31mred")), "{strays:?}");
    assert!(strays.iter().all(|t| t.chars().count() < 240), "{strays:?}");

    // Asked for by name, each is refused with why, and nothing is written.
    let before = s.p.snapshot();
    for (name, why) in [
        (".drafts", "starts with `.`"),
        ("evil\u{1b}[31mred", "control character"),
        (long.as_str(), "longer than 255 bytes"),
        ("rtl\u{202e}gnp.exe", "bidirectional control character"),
        ("..", "contains `..`"),
    ] {
        let out = s.attest(&format!("{name}/T001"), &[]).failure(2);
        assert!(out.stderr.contains(why), "{name:?}: {out}");
        assert!(!out.stderr.contains('\u{1b}') && !out.stderr.contains('\u{202e}'), "{out}");
    }
    assert_eq!(s.p.snapshot(), before);
}

#[test]
fn letter_suffixed_requirements_and_tasks_are_defined_cited_traced_and_drift_alone() {
    let s = Shapes::new();
    let spec_path = "specs/010-clarified-requirements/spec.md";
    let spec = String::from_utf8(s.show("HEAD", spec_path)).unwrap();
    let mut commits = BTreeMap::new();
    for (task, cited) in [("T001", "FR-009"), ("T002", "FR-009a"), ("T002a", "FR-009a"), ("T003", "SC-002b")]
    {
        let out = s.attest(&format!("010-clarified-requirements/{task}"), &[]).success();
        assert!(!out.to_string().contains("it is not traced"), "{out}");
        let p = s.predicate("HEAD");
        let trace: Vec<(String, String)> = p["trace"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t.get("requirement_hash").is_some())
            .map(|t| {
                (
                    t["requirement"].as_str().unwrap().to_owned(),
                    t["requirement_hash"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let line = line_with(&spec, &format!("**{cited}**"));
        assert_eq!(trace, [(cited.to_owned(), sha256(line.trim_end().as_bytes()))], "{task}");
        commits.insert(task, s.p.rev("HEAD"));
    }
    let (code, _, rows) = s.report();
    assert_eq!(code, 26, "hand ticks elsewhere");
    for task in ["T001", "T002", "T002a", "T003"] {
        assert_eq!(outcome(&rows, &format!("010-clarified-requirements/{task}")), evidenced());
    }

    // Rewording FR-009a makes the tick citing it stale, and only that one.
    let reworded = spec.replace("of the whole account, not of one device", "of one device");
    s.commit_file(spec_path, &reworded, "Clarify FR-009a again");
    let (_, report, rows) = s.report();
    assert_eq!(outcome(&rows, "010-clarified-requirements/T002"), ("stale".to_owned(), "stale".to_owned()));
    assert_eq!(outcome(&rows, "010-clarified-requirements/T002a"), ("stale".to_owned(), "stale".to_owned()));
    let changed = finding(&report, "010-clarified-requirements/T002", "requirement_changed");
    assert!(changed["message"].as_str().unwrap().contains("requirement FR-009a changed"), "{changed}");
    assert_eq!(outcome(&rows, "010-clarified-requirements/T001"), evidenced(), "FR-009 did not change");
    assert_eq!(outcome(&rows, "010-clarified-requirements/T003"), evidenced());

    // Rewording FR-009 makes its own tick stale, never FR-009a's in its name.
    let again = reworded.replace("holds 100 items or more", "holds 200 items or more");
    s.commit_file(spec_path, &again, "Raise the limit");
    let (_, _, rows) = s.report();
    assert_eq!(outcome(&rows, "010-clarified-requirements/T001"), ("stale".to_owned(), "stale".to_owned()));
    assert_eq!(outcome(&rows, "010-clarified-requirements/T003"), evidenced());
}

#[test]
fn a_story_hashed_whole_is_said_by_attest_and_by_verify_and_hashed_as_before() {
    let s = Shapes::new();
    // Spanish, Chinese and Korean story headings are not `User Story n`: the whole spec.md.
    let text = s.attest("001-marcadores-etiquetas/T004", &[]).success();
    let spanish = "warning: the task is labelled [US1], but no heading of \
                   `specs/001-marcadores-etiquetas/spec.md` names its story (the form looked for: a \
                   heading (1 to 6 `#`) holding `User Story 1` in any letter case";
    assert!(text.stdout.contains(spanish), "{text}");
    assert!(
        text.stdout.contains("line 9 `### Historia de usuario 1 - Etiquetar un marcador (Prioridad: P1)`"),
        "{text}"
    );
    let json = s.attest("004-export-reports/T004", &["--json"]).success();
    let report: Value = serde_json::from_str(json.stdout.trim()).unwrap();
    let warnings: Vec<&str> =
        report["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    let said = warnings.iter().find(|w| w.contains("[US1]")).unwrap_or_else(|| panic!("{report:#}"));
    assert!(
        said.contains("`specs/004-export-reports/spec.md`") && said.contains("### 用户故事 1 - 导出月度报表"),
        "{said}"
    );
    assert_eq!(
        s.predicate("HEAD")["spec"],
        serde_json::json!({ "section": "US1", "section_hash": sha256(&s.show("HEAD", "specs/004-export-reports/spec.md")) })
    );
    s.attest("005-notification-settings/T003", &[]).success();
    // A Japanese spec with Spec Kit's own heading form: the story alone, nothing said.
    let quiet = s.attest("003-tag-search/T004", &[]).success();
    assert!(!quiet.stdout.contains("warning"), "{quiet}");
    let story = String::from_utf8(s.show("HEAD", "specs/003-tag-search/spec.md")).unwrap();
    let start = story.find("### User Story 1").unwrap();
    let end = story.find("### User Story 2").unwrap();
    // The lines up to the next story heading, joined by `\n`: one final newline fewer.
    let section = story[start..end].strip_suffix('\n').unwrap();
    assert_eq!(s.predicate("HEAD")["spec"]["section_hash"], sha256(section.as_bytes()));

    // verify carries the same note on each such row, which decides nothing.
    let (_, report, rows) = s.report();
    for task in ["001-marcadores-etiquetas/T004", "004-export-reports/T004", "005-notification-settings/T003"]
    {
        assert_eq!(outcome(&rows, task), evidenced(), "{report:#}");
        let note = finding(&report, task, "story_fallback");
        assert_eq!(note["outcome"], "ok");
        assert!(
            note["message"].as_str().unwrap().starts_with("the task is labelled [US1], but no heading of"),
            "{note}"
        );
    }
    assert!(!row(&rows, "003-tag-search/T004").2.contains(&"story_fallback".to_owned()));
    // In the same words as attest said it.
    let note =
        finding(&report, "001-marcadores-etiquetas/T004", "story_fallback")["message"].as_str().unwrap();
    let warned = text.stdout.lines().find_map(|l| l.trim_start().strip_prefix("warning: ")).unwrap();
    assert_eq!(note, warned);
    let text = s.verify(&[]).failure(26);
    assert!(text.stdout.contains("    story_fallback line "), "{text}");
    assert!(text.stdout.contains(&format!(": {warned}\n")), "{text}");
}

#[test]
fn messages_are_grammatical_and_show_the_form_of_a_task_line() {
    let s = Shapes::new();
    let out = s.attest("add-dark-mode/9.9", &[]).failure(2);
    assert!(
        out.stderr.contains(
            "task `9.9` not found in `openspec/changes/add-dark-mode/tasks.md`; tasks there: 1.1, 1.1.1, 1.1.2, 1.2, 2.1 (and 2 more); an OpenSpec task line reads `- [ ] 1.1 Title`"
        ),
        "{out}"
    );
    // A change whose boxes carry no ids, as some projects write them.
    s.commit_file(
        "openspec/changes/write-guide/tasks.md",
        "## 1. Guide\n- [ ] Write the user guide\n- [ ] 1.1: Review it\n",
        "A change without task ids",
    );
    let out = s.attest("write-guide/1.1", &[]).failure(2);
    for part in [
        "tasks there: none; boxes not read as tasks: line 3 `- [ ] 1.1: Review it` (`1.1:` is not an OpenSpec task id: the id `1.1` must be followed by a space)",
        "line 2 `- [ ] Write the user guide` (`Write` is not an OpenSpec task id",
        "an OpenSpec task line reads `- [ ] 1.1 Title`",
    ] {
        assert!(out.stderr.contains(part), "{part}\n{out}");
    }
    let out = s.attest("007-no-spec/T009", &[]).failure(2);
    assert!(out.stderr.contains("; a Spec Kit task line reads `- [ ] T001 Title`"), "{out}");
    let out = s.attest("add-dark-mode/T001", &[]).failure(2);
    assert!(out.stderr.contains("an OpenSpec task id is dot-separated numbers"), "{out}");
    assert!(!out.stderr.contains("a OpenSpec"), "{out}");
    let (_, report, _) = s.report();
    assert!(!serde_json::to_string(&report).unwrap().contains("a OpenSpec"));
}

#[test]
fn refusals_in_real_shapes_say_what_was_wrong_and_write_nothing() {
    let s = Shapes::new();
    let before = s.p.snapshot();
    let out = s.attest("008-duplicated-ids/T002", &[]).failure(13);
    assert!(
        out.stderr.contains(
            "task `T002` appears more than once in `specs/008-duplicated-ids/tasks.md` (lines 6, 7)"
        ),
        "{out}"
    );
    let out = s.attest("initial-setup/1.1", &[]).failure(14);
    assert!(
        out.stderr.contains("initial-setup/1.1 is already ticked in openspec/changes/archive/2025-02-01-initial-setup/tasks.md"),
        "{out}"
    );
    let out = s.attest("archive/T001", &[]).failure(2);
    assert!(out.stderr.contains("`specs/archive/` holds no `tasks.md`"), "{out}");
    assert_eq!(s.p.snapshot(), before);
}

#[test]
fn the_long_task_list_is_what_its_script_writes_and_one_tick_of_it_verifies() {
    let s = Shapes::new();
    let dir = common::crate_root().join("fixtures/real-shapes/specs/009-long-list");
    let mut script = std::process::Command::new("bash");
    common::isolate(&mut script, &s.p.home);
    script.current_dir(&dir).arg("gen-tasks.sh");
    let generated = common::run(script).success();
    let committed = std::fs::read_to_string(dir.join("tasks.md")).unwrap();
    assert_eq!(generated.stdout, committed, "run `bash gen-tasks.sh > tasks.md` in {}", dir.display());
    let tasks = committed.lines().filter(|l| l.starts_with("- [ ] T") || l.starts_with("* [ ] T")).count();
    assert_eq!(tasks, 800);
    s.attest("009-long-list/T800", &[]).success();
    let (_, _, rows) = s.report();
    assert_eq!(outcome(&rows, "009-long-list/T800"), evidenced());
}
