//! `speccoder held-out store` and `speccoder held-out publish` end to end: real repositories, the
//! built binary, `git ls-tree -r` on the published refs and `git fsck --strict` on the result.

use crate::decide_support;

use std::path::{Path, PathBuf};

use decide_support::{Project, UNIT};
use serde_json::{Value, json};
use speccoder_attest::model::digest::sha256_hex;

const REF: &str = "refs/speccoder/held-out/001-bookmark-tags";

/// The Spec Kit project, whose git config trusts its signing key as `held-out publish` and `attest
/// verify` read trust by default (`gpg.ssh.allowedSignersFile`).
fn trusting_project() -> Project {
    let p = Project::new();
    p.git(&["config", "gpg.ssh.allowedSignersFile", p.allowed.to_str().unwrap()]);
    p
}

/// Writes held-out test files (path, text) into a new directory outside the work tree.
fn tests_dir(p: &Project, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = p.outside.join(name);
    for (path, text) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}

/// `held-out store TASK DIR`; the printed digest.
fn store(p: &Project, task: &str, dir: &Path) -> String {
    let out = p.run(&["held-out", "store", task, dir.to_str().unwrap()]).expect(0);
    out.stdout.trim().to_owned()
}

/// Closes `task` with evidence whose held_out phase names `manifest`.
fn close_with(p: &Project, task: &str, manifest: &str) {
    let held_out =
        json!({ "phase": "held_out", "result": "PASSED", "manifest": manifest, "passed": 1, "total": 1 });
    p.attest(task, json!({ "phases": [held_out] }));
}

/// The store directory of the unit.
fn store_dir(p: &Project, unit: &str) -> PathBuf {
    p.root.join(".git/speccoder/held-out").join(unit)
}

fn ls_tree(p: &Project, reference: &str) -> Vec<String> {
    p.git(&["ls-tree", "-r", "--name-only", reference]).lines().map(str::to_owned).collect()
}

fn key(digest: &str) -> &str {
    digest.strip_prefix("sha256:").unwrap()
}

#[test]
fn store_writes_the_set_beside_its_manifest_and_prints_the_manifest_digest() {
    let p = trusting_project();
    let dir =
        tests_dir(&p, "held", &[("tags_hidden.rs", "#[test] fn a() {}\n"), ("more/case.rs", "fn b() {}\n")]);
    let out = p.run(&[
        "held-out",
        "store",
        "001-bookmark-tags/T005",
        dir.to_str().unwrap(),
        "--run",
        "run-9",
        "--json",
    ]);
    let report = out.expect(0).json();
    let digest = report["manifest"].as_str().unwrap().to_owned();
    let set = store_dir(&p, UNIT).join(key(&digest));
    let manifest = std::fs::read(set.join("manifest.json")).unwrap();
    assert_eq!(format!("sha256:{}", sha256_hex(&manifest)), digest, "the digest is the manifest's own");
    let parsed: Value = serde_json::from_slice(&manifest).unwrap();
    assert_eq!(
        parsed,
        json!({
            "version": 1,
            "task": "001-bookmark-tags/T005",
            "run": "run-9",
            "files": [
                { "path": "more/case.rs", "sha256": sha256_hex("fn b() {}\n") },
                { "path": "tags_hidden.rs", "sha256": sha256_hex("#[test] fn a() {}\n") },
            ]
        })
    );
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/held-out-manifest.schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(schema_path).unwrap()).unwrap();
    assert!(jsonschema::validator_for(&schema).unwrap().is_valid(&parsed), "the manifest meets its schema");
    assert_eq!(std::fs::read_to_string(set.join("files/more/case.rs")).unwrap(), "fn b() {}\n");
    // Storing the same files again is a no-op that prints the same digest.
    let again =
        p.run(&["held-out", "store", "001-bookmark-tags/T005", dir.to_str().unwrap(), "--run", "run-9"]);
    assert_eq!(again.expect(0).stdout.trim(), digest);
    assert_eq!(p.git(&["status", "--porcelain"]), "", "nothing lands in the work tree");
}

/// A task commit by hand for `task` of the unit (`T004`), claiming `verdict` and naming `manifest`
/// in its `Held-Out:` trailer (no note); its box ticked in tasks.md when `tick`. The commit.
fn close_by_trailer(p: &Project, task: &str, verdict: &str, manifest: &str, tick: bool) -> String {
    let tasks = format!("specs/{UNIT}/tasks.md");
    if tick {
        let text = std::fs::read_to_string(p.root.join(&tasks)).unwrap();
        p.write(&tasks, &text.replace(&format!("- [ ] {task} "), &format!("- [x] {task} ")));
    }
    let message = format!(
        "Close {task}\n\nSpec-Task: {UNIT}/{task}\nVerdict: {verdict}\nHeld-Out: passed=1/1 manifest={manifest}\n"
    );
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "--allow-empty", "-m", &message]);
    p.git(&["rev-parse", "HEAD"])
}

#[test]
fn publishing_writes_exactly_the_sets_that_closed_tasks_name() {
    let p = trusting_project();
    let named =
        store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("hidden.rs", "A"), ("sub/x.rs", "X")]));
    let by_trailer = store(&p, "001-bookmark-tags/T004", &tests_dir(&p, "b", &[("b.rs", "B")]));
    let local_only = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "c", &[("c.rs", "C")]));
    close_with(&p, "001-bookmark-tags/T005", &named);
    // A task commit written by hand, ticking its box and naming its set only in its Held-Out:
    // trailer, with no note: anyone who can push can write one, so it closes nothing.
    let by_hand = close_by_trailer(&p, "T004", "regression_only", &by_trailer, true);

    let out = p.run(&["held-out", "publish", "--json"]).expect(0);
    let report = out.json();
    let unit = &report["units"][0];
    assert_eq!(unit["published"].as_array().unwrap().len(), 1, "{report:#}");
    assert_eq!(unit["kept_local"], json!([key(&local_only)]));
    assert_eq!(unit["not_closed"][0]["manifest"], json!(by_trailer), "{report:#}");
    assert_eq!(unit["not_closed"][0]["named_by"], json!([by_hand]), "{report:#}");
    assert!(unit["not_closed"][0]["reason"].as_str().unwrap().contains("has no note"), "{report:#}");

    let expected = vec![
        format!("{}/files/hidden.rs", key(&named)),
        format!("{}/files/sub/x.rs", key(&named)),
        format!("{}/manifest.json", key(&named)),
    ];
    assert_eq!(ls_tree(&p, REF), expected);
    assert_eq!(p.git(&["show", &format!("{REF}:{}/files/sub/x.rs", key(&named))]), "X");
    let published_manifest = p.git(&["show", &format!("{REF}:{}/manifest.json", key(&named))]);
    assert_eq!(sha256_hex(published_manifest.as_bytes()), key(&named));
    p.fsck();
}

#[test]
fn a_shallow_clone_whose_task_commits_lie_below_its_boundary_is_told_to_fetch_and_publishes_nothing() {
    let p = trusting_project();
    let named = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("hidden.rs", "A")]));
    close_with(&p, "001-bookmark-tags/T005", &named);
    p.git(&["commit", "-q", "--allow-empty", "-m", "A plain commit on top"]);
    // The clone's history stops at the plain commit, as `git clone --depth 1` leaves it.
    let top = p.git(&["rev-parse", "HEAD"]);
    std::fs::write(p.root.join(".git/shallow"), format!("{}\n", top.trim())).unwrap();
    let out = p.run(&["held-out", "publish"]).expect(14);
    assert!(
        out.stderr.contains("this clone is shallow") && out.stderr.contains(key(&named)),
        "{}",
        out.stderr
    );
    assert!(p.git(&["for-each-ref", REF]).is_empty(), "nothing published");
    std::fs::remove_file(p.root.join(".git/shallow")).unwrap();
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    assert_eq!(report["units"][0]["published"].as_array().unwrap().len(), 1, "{report:#}");
}

#[test]
fn a_shallow_boundary_only_another_branch_reaches_is_not_blamed_for_a_set_no_commit_names() {
    let p = trusting_project();
    let named = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("hidden.rs", "A")]));
    close_with(&p, "001-bookmark-tags/T005", &named);
    let unnamed = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "b", &[("other.rs", "B")]));
    // Another branch's commit on top of HEAD is the boundary, as `git clone --depth N
    // --no-single-branch` leaves it when that branch is longer than HEAD's history.
    p.git(&["checkout", "-q", "-b", "longer"]);
    p.git(&["commit", "-q", "--allow-empty", "-m", "A commit of another branch"]);
    let other = p.git(&["rev-parse", "HEAD"]);
    p.git(&["checkout", "-q", "-"]);
    std::fs::write(p.root.join(".git/shallow"), format!("{}\n", other.trim())).unwrap();
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    let unit = &report["units"][0];
    assert_eq!(unit["published"].as_array().unwrap().len(), 1, "{report:#}");
    assert_eq!(unit["kept_local"], json!([key(&unnamed)]), "as in the whole clone: {report:#}");
}

#[test]
fn publishing_twice_is_a_no_op_and_the_ref_only_moves_forward() {
    let p = trusting_project();
    let first = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    close_with(&p, "001-bookmark-tags/T005", &first);
    p.run(&["held-out", "publish"]).expect(0);
    let tip = p.git(&["rev-parse", REF]);
    let again = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    assert_eq!(p.git(&["rev-parse", REF]), tip, "publishing again writes nothing");
    assert_eq!(again["units"][0]["commit"], Value::Null);
    assert_eq!(again["units"][0]["already_published"][0]["manifest"], first.as_str());

    let second = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "b", &[("b.rs", "B")]));
    close_with(&p, "001-bookmark-tags/T006", &second);
    p.run(&["held-out", "publish"]).expect(0);
    let new_tip = p.git(&["rev-parse", REF]);
    assert_eq!(p.git(&["rev-parse", &format!("{new_tip}^")]), tip, "the new commit sits on the old one");
    let listed = ls_tree(&p, REF);
    assert!(
        listed.contains(&format!("{}/files/a.rs", key(&first)))
            && listed.contains(&format!("{}/files/b.rs", key(&second)))
    );
    p.fsck();
}

#[test]
fn a_held_out_ref_that_names_a_tree_is_named_with_what_to_do_and_nothing_moves() {
    let p = trusting_project();
    let first = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    close_with(&p, "001-bookmark-tags/T005", &first);
    p.run(&["held-out", "publish"]).expect(0);
    let tree = p.git(&["rev-parse", &format!("{REF}^{{tree}}")]);
    p.git(&["update-ref", REF, tree.trim()]);
    for args in [&["held-out", "publish"][..], &["held-out", "publish", "--dry-run"]] {
        let out = p.run(args).expect(14);
        assert!(out.stderr.contains(&format!("{REF} names a tree, not a commit")), "{}", out.stderr);
        assert!(out.stderr.contains(&format!("git update-ref --no-deref -d {REF}")), "{}", out.stderr);
    }
    assert_eq!(p.git(&["rev-parse", REF]), tree, "nothing moved");
    // A blob too; and the exit is the one publish's --help lists for it.
    let blob = p.git_with_input(&["hash-object", "-w", "--stdin"], b"x\n");
    p.git(&["update-ref", REF, blob.trim()]);
    let out = p.run(&["held-out", "publish"]).expect(14);
    assert!(out.stderr.contains(&format!("{REF} names a blob, not a commit")), "{}", out.stderr);
    let help = p
        .run(&["held-out", "publish", "--help"])
        .expect(0)
        .stdout
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains(
            "a refs/speccoder/held-out/<unit> that names a blob, a tree or a tag instead of a commit"
        ),
        "{help}"
    );
}

#[test]
fn a_dry_run_says_what_would_be_published_and_writes_nothing() {
    let p = trusting_project();
    let digest = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    close_with(&p, "001-bookmark-tags/T005", &digest);
    let before = p.snapshot();
    let out = p.run(&["held-out", "publish", "--dry-run"]).expect(0);
    assert!(out.stdout.contains(&format!("would publish {digest}")), "{}", out.stdout);
    assert_eq!(p.snapshot(), before);
}

#[test]
fn publishing_one_unit_leaves_a_second_units_ref_untouched() {
    let p = trusting_project();
    let second_unit = "002-bookmark-tags-copy";
    std::fs::create_dir_all(p.root.join("specs").join(second_unit)).unwrap();
    for file in ["spec.md", "tasks.md"] {
        std::fs::copy(
            p.root.join("specs/001-bookmark-tags").join(file),
            p.root.join("specs").join(second_unit).join(file),
        )
        .unwrap();
    }
    p.commit_all("A second unit");
    let first = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    let other = store(&p, &format!("{second_unit}/T005"), &tests_dir(&p, "b", &[("b.rs", "B")]));
    close_with(&p, "001-bookmark-tags/T005", &first);
    close_with(&p, &format!("{second_unit}/T005"), &other);
    let other_ref = format!("refs/speccoder/held-out/{second_unit}");

    p.run(&["held-out", "publish", "--unit", UNIT]).expect(0);
    assert!(!p.git_output(&["rev-parse", "--verify", "-q", &other_ref]).status.success());
    p.run(&["held-out", "publish"]).expect(0);
    let other_tip = p.git(&["rev-parse", &other_ref]);
    assert_eq!(
        ls_tree(&p, &other_ref),
        [format!("{}/files/b.rs", key(&other)), format!("{}/manifest.json", key(&other))]
    );

    let third = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "c", &[("c.rs", "C")]));
    close_with(&p, "001-bookmark-tags/T006", &third);
    p.run(&["held-out", "publish", "--unit", UNIT]).expect(0);
    assert_eq!(p.git(&["rev-parse", &other_ref]), other_tip);
    assert_eq!(ls_tree(&p, REF).len(), 4);
    p.fsck();
}

#[test]
fn a_set_with_one_byte_changed_is_refused_named_and_left_out() {
    let p = trusting_project();
    let tampered =
        store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("hidden.rs", "assert!(true);")]));
    let intact = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "b", &[("b.rs", "B")]));
    close_with(&p, "001-bookmark-tags/T005", &tampered);
    close_with(&p, "001-bookmark-tags/T006", &intact);
    let file = store_dir(&p, UNIT).join(key(&tampered)).join("files/hidden.rs");
    std::fs::write(&file, "assert!(tru3);").unwrap();

    let out = p.run(&["held-out", "publish"]).expect(26);
    assert!(out.stdout.contains(&format!("TAMPERED, left out: {tampered}")), "{}", out.stdout);
    assert!(out.stdout.contains("files/hidden.rs has changed"), "{}", out.stdout);
    assert_eq!(
        ls_tree(&p, REF),
        [format!("{}/files/b.rs", key(&intact)), format!("{}/manifest.json", key(&intact))]
    );
    // A manifest edited after the fact no longer hashes to its key: tampered too.
    std::fs::write(&file, "assert!(true);").unwrap();
    let manifest = store_dir(&p, UNIT).join(key(&tampered)).join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap().replace("\"version\":1", "\"version\":1 ");
    std::fs::write(&manifest, text).unwrap();
    let out = p.run(&["held-out", "publish", "--json"]).expect(26);
    assert!(
        out.json()["units"][0]["tampered"][0]["reason"].as_str().unwrap().contains("not its key"),
        "{}",
        out.stdout
    );
    assert_eq!(out.json()["exit_code"], 26, "the report carries the exit code: {}", out.stdout);
}

/// A set of T005 changed by hand in the store (as an older build or a person leaves one): T005 is
/// closed by `speccoder attest` naming a set stored for it, whose manifest and files are then
/// replaced by `manifest` and `files`. The set's key.
fn hand_made_set(p: &Project, manifest: &[u8], files: &[(&str, &str)]) -> String {
    let seed = store(p, "001-bookmark-tags/T005", &tests_dir(p, "hand-made", &[("seed.rs", "S")]));
    close_with(p, "001-bookmark-tags/T005", &seed);
    let key = key(&seed).to_owned();
    let set = store_dir(p, UNIT).join(&key);
    std::fs::remove_dir_all(&set).unwrap();
    std::fs::create_dir_all(set.join("files")).unwrap();
    std::fs::write(set.join("manifest.json"), manifest).unwrap();
    for (path, text) in files {
        std::fs::write(set.join("files").join(path), text).unwrap();
    }
    key
}

#[test]
fn a_manifest_that_is_not_json_or_leaves_its_set_stops_publishing_before_anything_is_written() {
    let manifest = |path: &str| {
        format!(
            r#"{{"files":[{{"path":"{path}","sha256":"{}"}}],"task":"001-bookmark-tags/T005","version":1}}"#,
            sha256_hex("x")
        )
    };
    let cases: [(String, &str); 4] = [
        ("{ not json".to_owned(), "not a valid manifest"),
        (manifest("../../../../outside.rs"), "`.` or `..` component"),
        (manifest("/etc/passwd"), "is absolute"),
        (manifest("C:/x.rs"), "drive letter"),
    ];
    for (text, message) in cases {
        let p = trusting_project();
        let good = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "b", &[("b.rs", "B")]));
        close_with(&p, "001-bookmark-tags/T006", &good);
        let key = hand_made_set(&p, text.as_bytes(), &[]);
        let before = p.snapshot();
        let out = p.run(&["held-out", "publish"]).expect(13);
        assert!(out.stderr.contains(&key) && out.stderr.contains(message), "{text}: {}", out.stderr);
        assert!(out.stderr.contains("nothing was written"), "{}", out.stderr);
        assert_eq!(p.snapshot(), before, "{text}");
    }
}

#[test]
fn a_symbolic_link_in_a_set_stops_publishing_before_anything_is_written() {
    let p = trusting_project();
    let secret = p.outside.join("secret.rs");
    std::fs::write(&secret, "x").unwrap();
    let manifest = format!(
        r#"{{"files":[{{"path":"link.rs","sha256":"{}"}}],"task":"001-bookmark-tags/T005","version":1}}"#,
        sha256_hex("x")
    );
    let key = hand_made_set(&p, manifest.as_bytes(), &[]);
    std::os::unix::fs::symlink(&secret, store_dir(&p, UNIT).join(&key).join("files/link.rs")).unwrap();
    let before = p.snapshot();
    let out = p.run(&["held-out", "publish"]).expect(13);
    assert!(out.stderr.contains("files/link.rs is a symbolic link"), "{}", out.stderr);
    assert_eq!(p.snapshot(), before);
}

#[test]
fn bad_store_and_publish_requests_are_refused_with_a_clear_message_and_nothing_written() {
    let p = trusting_project();
    let good = tests_dir(&p, "good", &[("a.rs", "A")]);
    let empty = p.outside.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let linked = tests_dir(&p, "linked", &[("a.rs", "A")]);
    std::os::unix::fs::symlink(p.outside.join("good/a.rs"), linked.join("b.rs")).unwrap();
    let link_to_dir = p.outside.join("link-to-good");
    std::os::unix::fs::symlink(p.outside.join("good"), &link_to_dir).unwrap();
    let in_tree = p.root.join("held-store");
    let (good, empty, linked, link_to_dir, in_tree) = (
        good.to_str().unwrap(),
        empty.to_str().unwrap(),
        linked.to_str().unwrap(),
        link_to_dir.to_str().unwrap(),
        in_tree.to_str().unwrap(),
    );
    // Named with a trailing `/` or `/.`, with which the system follows it, the link is the same.
    let (link_slash, link_dot) = (format!("{link_to_dir}/"), format!("{link_to_dir}/."));
    let cases: [(&[&str], i32, &str); 10] = [
        (&["held-out", "store", "001-bookmark-tags/T005", link_to_dir], 13, "it is a symbolic link"),
        (&["held-out", "store", "001-bookmark-tags/T005", &link_slash], 13, "it is a symbolic link"),
        (&["held-out", "store", "001-bookmark-tags/T005", &link_dot], 13, "it is a symbolic link"),
        (&["held-out", "store", "999-nothing/T001", good], 2, "unit `999-nothing` not found"),
        (&["held-out", "store", "001-bookmark-tags/T099", good], 2, "task `T099` not found"),
        (&["held-out", "store", "001-bookmark-tags/T005", empty], 13, "holds no files"),
        (&["held-out", "store", "001-bookmark-tags/T005", linked], 13, "b.rs is a symbolic link"),
        (
            &["held-out", "store", "001-bookmark-tags/T005", good, "--store", in_tree],
            2,
            "inside the work tree",
        ),
        (&["held-out", "publish", "--unit", "999-nothing"], 2, "unit `999-nothing` not found"),
        (&["held-out", "publish", "--store", in_tree], 2, "inside the work tree"),
    ];
    for (args, code, message) in cases {
        let out = p.run(args);
        assert_eq!(out.code, code, "{args:?}: {out:?}");
        assert!(out.stderr.contains(message), "{args:?}: {}", out.stderr);
        assert!(!p.root.join(".git/speccoder").exists(), "{args:?} wrote to the store");
        assert_eq!(p.git(&["status", "--porcelain"]), "", "{args:?}");
    }
}

#[test]
fn a_store_inside_any_work_tree_of_the_repository_is_refused_naming_that_work_tree() {
    let p = trusting_project();
    let good = tests_dir(&p, "good", &[("a.rs", "A")]);
    // The implementer's work tree, linked to this repository by `git worktree add`.
    let agent = p.outside.join("agent-wt");
    p.git(&["worktree", "add", "-q", "-b", "agent", agent.to_str().unwrap()]);
    let agent = std::fs::canonicalize(&agent).unwrap();
    let main = std::fs::canonicalize(&p.root).unwrap();
    let from_agent = ["-C", agent.to_str().unwrap()];
    let cases: [(&[&str], PathBuf, &Path); 3] = [
        (&[], agent.join("store"), &agent),
        (&from_agent, main.join("store"), &main),
        (&from_agent, agent.join("deeper/store"), &agent),
    ];
    for (dir, store, holder) in cases {
        for command in [
            vec!["held-out", "store", "001-bookmark-tags/T006", good.to_str().unwrap()],
            vec!["held-out", "publish"],
        ] {
            let args: Vec<&str> =
                dir.iter().copied().chain(command).chain(["--store", store.to_str().unwrap()]).collect();
            let out = p.run(&args).expect(2);
            let named = format!("is inside the work tree {} of this repository", holder.display());
            assert!(out.stderr.contains(&named), "{args:?}: {}", out.stderr);
            assert!(!store.exists(), "{args:?}: nothing is stored");
        }
    }
    let agent_status = p.git(&["-C", agent.to_str().unwrap(), "status", "--porcelain"]);
    assert_eq!(agent_status, "", "the agent's work tree holds no tests");
    // The default store, under the shared git directory, serves every work tree.
    let out = p.run(&[
        "-C",
        agent.to_str().unwrap(),
        "held-out",
        "store",
        "001-bookmark-tags/T006",
        good.to_str().unwrap(),
    ]);
    let digest = out.expect(0).stdout.trim().to_owned();
    assert!(store_dir(&p, UNIT).join(key(&digest)).join("manifest.json").is_file());
}

#[test]
fn a_store_named_by_store_that_is_not_a_directory_is_refused_with_13_and_nothing_written() {
    let p = trusting_project();
    let good = tests_dir(&p, "good", &[("a.rs", "A")]);
    let plain = p.outside.join("plainfile");
    std::fs::write(&plain, "not a directory\n").unwrap();
    let missing = p.outside.join("no-such-store");
    let (good, plain, missing) = (good.to_str().unwrap(), plain.to_str().unwrap(), missing.to_str().unwrap());
    let below_plain = format!("{plain}/store");
    let cases: [(&[&str], &str); 5] = [
        (&["held-out", "store", "001-bookmark-tags/T005", good, "--store", plain], "is not a directory"),
        (
            &["held-out", "store", "001-bookmark-tags/T005", good, "--store", "/dev/null"],
            "is not a directory",
        ),
        (
            &["held-out", "store", "001-bookmark-tags/T005", good, "--store", &below_plain],
            "cannot be created",
        ),
        (&["held-out", "publish", "--store", missing], "does not exist"),
        (&["held-out", "publish", "--store", plain], "is not a directory"),
    ];
    for (args, message) in cases {
        let out = p.run(args);
        assert_eq!(out.code, 13, "{args:?}: {out:?}");
        assert!(out.stderr.contains(message), "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("the store option must name a directory"), "{args:?}: {}", out.stderr);
        assert_eq!(std::fs::read_to_string(p.outside.join("plainfile")).unwrap(), "not a directory\n");
        assert!(!p.outside.join("no-such-store").exists(), "{args:?}");
    }
    // A --store that does not exist yet is created by store, and then publish reads it.
    let manifest = p
        .run(&["held-out", "store", "001-bookmark-tags/T005", good, "--store", missing])
        .expect(0)
        .stdout
        .trim()
        .to_owned();
    // attest reads the same option's store, refused alike when it is no directory.
    let out = attest_naming(&p, "001-bookmark-tags/T005", &manifest, &["--held-out-store", plain]).expect(13);
    assert!(out.stderr.contains("is not a directory"), "{}", out.stderr);
    attest_naming(&p, "001-bookmark-tags/T005", &manifest, &["--held-out-store", missing]).expect(0);
    p.run(&["held-out", "publish", "--store", missing]).expect(0);
    assert!(ls_tree(&p, REF).iter().any(|f| f.starts_with(key(&manifest))));
}

#[test]
fn store_and_publish_stream_a_set_larger_than_the_memory_they_may_use() {
    let p = trusting_project();
    // Three files of 40 MiB (each under the 64 MiB limit), 120 MiB in all, under an address
    // space of 96 MiB: a command that held the set in memory would fail.
    let dir = p.outside.join("large");
    std::fs::create_dir_all(&dir).unwrap();
    let chunk: Vec<u8> = (0..1024 * 1024).map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    for n in 0..3u8 {
        let mut file = std::fs::File::create(dir.join(format!("big{n}.bin"))).unwrap();
        for _ in 0..40 {
            std::io::Write::write_all(&mut file, &chunk).unwrap();
        }
        std::io::Write::write_all(&mut file, &[n]).unwrap();
    }
    const LIMIT_KIB: u64 = 96 * 1024;
    let task = "001-bookmark-tags/T005";
    let stored = p.run_limited(LIMIT_KIB, &["held-out", "store", task, dir.to_str().unwrap()]);
    assert_eq!(stored.code, 0, "{stored:?}");
    let manifest = stored.stdout.trim().to_owned();
    close_with(&p, task, &manifest);
    let published = p.run_limited(LIMIT_KIB, &["held-out", "publish"]);
    assert_eq!(published.code, 0, "{published:?}");
    let files = ls_tree(&p, REF);
    assert_eq!(files.len(), 4, "{files:?}");
    // The published blobs are the files, byte for byte.
    let blob = p.git(&["rev-parse", &format!("{REF}:{}/files/big2.bin", key(&manifest))]);
    assert_eq!(p.git(&["cat-file", "-s", &blob]), (40 * 1024 * 1024 + 1).to_string());
    p.git(&["fsck", "--strict"]);
}

#[test]
fn a_staging_directory_a_killed_store_left_is_cleared_by_a_later_store_once_abandoned() {
    let p = trusting_project();
    let first = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    // What a store killed while writing leaves beside the sets: one long ago, one just now (it
    // could be another store's, still writing).
    let unit_dir = store_dir(&p, UNIT);
    let abandoned = unit_dir.join(".incoming-0000-1-1");
    let recent = unit_dir.join(".incoming-0000-2-2");
    for dir in [&abandoned, &recent] {
        std::fs::create_dir_all(dir.join("files")).unwrap();
        std::fs::write(dir.join("files/half.rs"), "fn half(").unwrap();
    }
    let touched =
        std::process::Command::new("touch").args(["-d", "2 hours ago"]).arg(&abandoned).status().unwrap();
    assert!(touched.success());

    let second = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "b", &[("b.rs", "B")]));
    assert!(!abandoned.exists(), "the abandoned staging directory is removed");
    assert!(recent.exists(), "a recent one may be another store's, and stays");
    for digest in [&first, &second] {
        assert!(unit_dir.join(key(digest)).join("manifest.json").is_file());
    }
    close_with(&p, "001-bookmark-tags/T005", &first);
    p.run(&["held-out", "publish"]).expect(0);
    assert_eq!(
        ls_tree(&p, REF),
        [format!("{}/files/a.rs", key(&first)), format!("{}/manifest.json", key(&first))]
    );
}

#[test]
fn store_refuses_names_git_takes_for_dot_git_or_dot_gitmodules_and_stores_nothing() {
    let p = trusting_project();
    for (name, what) in [
        ("GIT~1/c", "`.git`"),
        (".git./c", "`.git`"),
        (".git /c", "`.git`"),
        ("\u{200c}.git/c", "`.git`"),
        (".gitmodules", "`.gitmodules`"),
        ("sub/.GITMODULES", "`.gitmodules`"),
        ("GITMOD~1", "`.gitmodules`"),
    ] {
        let dir = tests_dir(
            &p,
            "held",
            &[("a.rs", "t\n"), (name, "[submodule \"x\"]\n\turl = --upload-pack=touch\n")],
        );
        let out = p.run(&["held-out", "store", "001-bookmark-tags/T005", dir.to_str().unwrap()]).expect(13);
        // The name as messages quote it: an invisible character as its escape.
        let quoted = speccoder_attest::model::shown::shown(name, 100);
        assert!(out.stderr.contains(&quoted) && out.stderr.contains(what), "{name:?}: {}", out.stderr);
        assert!(!p.root.join(".git/speccoder").exists(), "{name:?} was stored");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn store_says_a_refused_name_on_one_line_whatever_it_holds() {
    let p = trusting_project();
    let dir = tests_dir(&p, "held", &[("a.rs", "t\n"), ("x\n::error::pwned", "t\n")]);
    let out = p.run(&["held-out", "store", "001-bookmark-tags/T005", dir.to_str().unwrap()]).expect(13);
    assert_eq!(out.stderr.trim_end().lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.contains("the file x\\n::error::pwned"), "{}", out.stderr);
}

#[test]
fn store_refuses_names_that_differ_only_in_case_or_normalization_and_stores_nothing() {
    let p = trusting_project();
    let (nfc, nfd) = ("caf\u{e9}.rs", "cafe\u{301}.rs");
    for pair in [("A.rs", "a.rs"), ("Dir/x.rs", "dir/y.rs"), (nfc, nfd)] {
        let dir = tests_dir(&p, "held", &[(pair.0, "one\n"), (pair.1, "two\n")]);
        let out = p.run(&["held-out", "store", "001-bookmark-tags/T005", dir.to_str().unwrap()]).expect(13);
        assert!(
            out.stderr.contains("differ only in letter case or Unicode normalization"),
            "{pair:?}: {}",
            out.stderr
        );
        assert!(!p.root.join(".git/speccoder").exists(), "{pair:?} was stored");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_stored_set_an_older_build_let_in_with_a_git_name_is_named_with_its_path_not_an_internal_error() {
    let p = trusting_project();
    let good = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "b", &[("b.rs", "B")]));
    close_with(&p, "001-bookmark-tags/T006", &good);
    let manifest = format!(
        r#"{{"files":[{{"path":"GIT~1/c","sha256":"{}"}}],"task":"001-bookmark-tags/T005","version":1}}"#,
        sha256_hex("x\n")
    );
    let key = hand_made_set(&p, manifest.as_bytes(), &[]);
    let set = store_dir(&p, UNIT).join(&key);
    std::fs::create_dir_all(set.join("files/GIT~1")).unwrap();
    std::fs::write(set.join("files/GIT~1/c"), "x\n").unwrap();
    let before = p.snapshot();
    let out = p.run(&["held-out", "publish"]).expect(13);
    assert!(out.stderr.contains(&key) && out.stderr.contains("GIT~1/c"), "{}", out.stderr);
    assert!(out.stderr.contains("`.git`"), "{}", out.stderr);
    assert_eq!(p.snapshot(), before);
}

#[test]
fn store_refuses_a_run_that_would_leak_as_attest_refuses_the_evidences_run_and_stores_nothing() {
    let p = trusting_project();
    let dir = tests_dir(&p, "held", &[("a.rs", "A"), ("tmp/home/b.rs", "B")]);
    let dir = dir.to_str().unwrap();
    for run in ["/home/alice/run", "run-/tmp/x", "ghp_0123456789abcdefghijABCDEFGHIJ012345"] {
        let out = p.run(&["held-out", "store", "001-bookmark-tags/T006", dir, "--run", run]).expect(13);
        assert!(out.stderr.contains("would leak") && out.stderr.contains("--run"), "{run}: {}", out.stderr);
        // Named as the manifest's field: a pointer (`/run`) would read as the directory.
        assert!(out.stderr.contains("in its `run` field, bytes "), "{run}: {}", out.stderr);
        assert!(!out.stderr.contains(run), "the message does not repeat the leak: {}", out.stderr);
        assert!(!p.root.join(".git/speccoder").exists(), "{run} was stored");
    }
    // Relative paths that merely hold `tmp` or `home` are no leak.
    store(&p, "001-bookmark-tags/T006", Path::new(dir));
}

#[test]
fn a_stored_set_whose_run_would_leak_is_never_published() {
    let p = trusting_project();
    let manifest = format!(
        r#"{{"files":[{{"path":"a.rs","sha256":"{}"}}],"run":"/home/alice/run","task":"001-bookmark-tags/T005","version":1}}"#,
        sha256_hex("A")
    );
    let key = hand_made_set(&p, manifest.as_bytes(), &[("a.rs", "A")]);
    let before = p.snapshot();
    let out = p.run(&["held-out", "publish"]).expect(13);
    assert!(out.stderr.contains(&key) && out.stderr.contains("would leak"), "{}", out.stderr);
    assert!(!out.stderr.contains("/home/alice"), "{}", out.stderr);
    assert_eq!(p.snapshot(), before);
}

/// `attest TASK` with evidence whose held_out phase names `manifest`, plus `extra` arguments; the
/// run as it went.
fn attest_naming(p: &Project, task: &str, manifest: &str, extra: &[&str]) -> decide_support::Run {
    let held_out =
        json!({ "phase": "held_out", "result": "PASSED", "manifest": manifest, "passed": 1, "total": 1 });
    let evidence = p.evidence(task, json!({ "phases": [held_out] }));
    let mut args = vec!["attest", task, "--evidence", evidence.to_str().unwrap()];
    args.extend(extra);
    p.signed(&args)
}

#[test]
fn a_held_out_store_option_that_cannot_serve_is_refused_though_the_evidence_names_no_set() {
    let p = trusting_project();
    let evidence = p.evidence("001-bookmark-tags/T005", json!({}));
    let plain = p.outside.join("plainfile");
    std::fs::write(&plain, "not a directory\n").unwrap();
    let (missing, inside) = (p.outside.join("no-such-store"), p.root.join("store"));
    std::fs::create_dir_all(&inside).unwrap();
    let before = p.snapshot();
    for (store, code) in [(&missing, 13), (&plain, 13), (&inside, 2)] {
        let args = ["attest", "001-bookmark-tags/T005", "--evidence", evidence.to_str().unwrap()];
        let out = p.signed(&[&args[..], &["--held-out-store", store.to_str().unwrap()]].concat());
        assert_eq!(out.code, code, "{store:?}: {}", out.stderr);
        assert_eq!(p.snapshot(), before, "nothing written");
    }
}

#[test]
fn attest_refuses_a_held_out_set_stored_for_another_task_and_writes_nothing() {
    let p = trusting_project();
    let other = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "a", &[("a.rs", "A")]));
    let before = p.snapshot();
    let out = attest_naming(&p, "001-bookmark-tags/T005", &other, &[]).expect(13);
    assert!(out.stderr.contains(&other), "{}", out.stderr);
    assert!(
        out.stderr.contains("stored for 001-bookmark-tags/T006, not for 001-bookmark-tags/T005"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("speccoder held-out store 001-bookmark-tags/T005 DIR"), "{}", out.stderr);
    assert_eq!(p.snapshot(), before, "nothing written");
}

#[test]
fn attest_refuses_a_digest_no_stored_set_has_and_writes_nothing() {
    let p = trusting_project();
    store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    let of_nothing = format!("sha256:{}", sha256_hex(b""));
    let before = p.snapshot();
    let out = attest_naming(&p, "001-bookmark-tags/T005", &of_nothing, &[]).expect(13);
    assert!(out.stderr.contains(&of_nothing) && out.stderr.contains("does not hold"), "{}", out.stderr);
    assert!(out.stderr.contains("--held-out-store DIR"), "{}", out.stderr);
    assert_eq!(p.snapshot(), before, "nothing written");
}

#[test]
fn attest_refuses_a_stored_set_changed_after_storing_and_writes_nothing() {
    let p = trusting_project();
    let digest = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    let set = store_dir(&p, UNIT).join(key(&digest));
    std::fs::write(set.join("files/a.rs"), "B").unwrap();
    let before = p.snapshot();
    let out = attest_naming(&p, "001-bookmark-tags/T005", &digest, &[]).expect(13);
    assert!(out.stderr.contains(&digest) && out.stderr.contains("files/a.rs has changed"), "{}", out.stderr);
    // A file added beside the manifest's is no longer the set either.
    std::fs::write(set.join("files/a.rs"), "A").unwrap();
    std::fs::write(set.join("files/extra.rs"), "E").unwrap();
    let out = attest_naming(&p, "001-bookmark-tags/T005", &digest, &[]).expect(13);
    assert!(out.stderr.contains("files/extra.rs is not in the manifest"), "{}", out.stderr);
    assert_eq!(p.snapshot(), before, "nothing written");
}

#[test]
fn attest_finds_the_set_in_the_store_held_out_store_names_and_only_there() {
    let p = trusting_project();
    let elsewhere = p.outside.join("store");
    let dir = tests_dir(&p, "a", &[("a.rs", "A")]);
    let out = p.run(&[
        "held-out",
        "store",
        "001-bookmark-tags/T005",
        dir.to_str().unwrap(),
        "--store",
        elsewhere.to_str().unwrap(),
    ]);
    let digest = out.expect(0).stdout.trim().to_owned();
    // The default store does not hold it.
    attest_naming(&p, "001-bookmark-tags/T005", &digest, &[]).expect(13);
    // A store inside the work tree is refused as `held-out store --store` refuses it.
    let inside = p.root.join("store");
    let out =
        attest_naming(&p, "001-bookmark-tags/T005", &digest, &["--held-out-store", inside.to_str().unwrap()]);
    assert!(out.expect(2).stderr.contains("inside the work tree"));
    attest_naming(&p, "001-bookmark-tags/T005", &digest, &["--held-out-store", elsewhere.to_str().unwrap()])
        .expect(0);
    assert_eq!(p.verify(&[]).expect(0).json()["totals"]["evidenced"], 1);
}

#[test]
fn a_commit_written_by_hand_naming_another_tasks_set_releases_nothing() {
    let p = trusting_project();
    let for_t5 = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    // T006 closed by hand, naming T005's set in its trailer: no note, so it closes nothing.
    let commit = close_by_trailer(&p, "T006", "regression_only", &for_t5, true);
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    let unit = &report["units"][0];
    assert_eq!(unit["not_closed"][0]["named_by"], json!([commit]), "{report:#}");
    assert!(unit["other_task"].as_array().unwrap().is_empty(), "{report:#}");
    assert!(!p.git_output(&["rev-parse", "--verify", "-q", REF]).status.success(), "nothing published");
    // Its own task's tick names it: published for T005 alone.
    close_with(&p, "001-bookmark-tags/T005", &for_t5);
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    let unit = &report["units"][0];
    assert_eq!(unit["published"][0]["manifest"], for_t5.as_str(), "{report:#}");
    assert_eq!(unit["published"][0]["named_by"].as_array().unwrap().len(), 1, "{report:#}");
}

/// A clone of `p` that fetched the held-out ref, changes `path` of the published tree to `text`
/// and pushes the ref back, as a hostile remote's copy would arrive.
fn change_published(p: &Project, path: &str, text: &str) {
    let clone = p.outside.join("clone");
    let clone = clone.to_str().unwrap();
    if !Path::new(clone).exists() {
        p.git(&["clone", "-q", p.root.to_str().unwrap(), clone]);
        p.git(&["-C", clone, "config", "user.name", "Mallory"]);
        p.git(&["-C", clone, "config", "user.email", "m@example.com"]);
    }
    p.git(&["-C", clone, "fetch", "-q", "origin", &format!("+{REF}:{REF}")]);
    p.git(&["-C", clone, "checkout", "-q", "--detach", REF]);
    let file = Path::new(clone).join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, text).unwrap();
    p.git(&["-C", clone, "add", "-A"]);
    p.git(&["-C", clone, "commit", "-q", "-m", "Change a published set"]);
    p.git(&["-C", clone, "push", "-q", "origin", &format!("HEAD:{REF}")]);
}

#[test]
fn verify_fails_a_tick_whose_published_set_was_changed_and_passes_one_not_yet_published() {
    let p = trusting_project();
    let digest = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    close_with(&p, "001-bookmark-tags/T005", &digest);
    // Not published yet: no failure. Published intact: no failure.
    p.verify(&[]).expect(0);
    p.run(&["held-out", "publish"]).expect(0);
    p.verify(&[]).expect(0);
    let tick = p.git(&["rev-parse", "HEAD"]);
    for mode in [vec![], vec!["--branch"]] {
        let allowed = p.allowed.to_str().unwrap();
        let mut args = vec!["attest", "verify", "--allowed-signers", allowed];
        args.extend(mode);
        p.run(&args).expect(0);
    }

    change_published(&p, &format!("{}/files/a.rs", key(&digest)), "B");
    let report = p.verify(&[]).expect(26).json();
    let text = report.to_string();
    assert!(text.contains("held_out_published_tampered"), "{report:#}");
    assert!(
        text.contains(&format!("the published held-out set {digest} in {REF}: files/a.rs has changed")),
        "{report:#}"
    );
    // Every mode checks it: one commit, a range, the branch.
    let allowed = p.allowed.to_str().unwrap();
    for mode in [vec![tick.as_str()], vec!["main..HEAD"]] {
        let mut args = vec!["attest", "verify", "--allowed-signers", allowed];
        args.extend(mode);
        let out = p.run(&args).expect(26);
        assert!(out.stdout.contains("held_out_published_tampered"), "{}", out.stdout);
    }

    // A file added beside the manifest's, or a manifest edited: no longer the set either.
    change_published(&p, &format!("{}/files/a.rs", key(&digest)), "A");
    p.verify(&[]).expect(0);
    change_published(&p, &format!("{}/files/extra.rs", key(&digest)), "E");
    let text = p.verify(&[]).expect(26).json().to_string();
    assert!(text.contains("files/extra.rs is not in the manifest"), "{text}");
}

#[test]
fn verify_names_a_held_out_ref_that_names_a_tree_with_what_to_do() {
    let p = trusting_project();
    let digest = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("a.rs", "A")]));
    close_with(&p, "001-bookmark-tags/T005", &digest);
    p.run(&["held-out", "publish"]).expect(0);
    let tree = p.git(&["rev-parse", &format!("{REF}^{{tree}}")]);
    p.git(&["update-ref", REF, &tree]);
    let text = p.verify(&[]).expect(26).json().to_string();
    assert!(text.contains(&format!("{REF} names a tree, not a commit")), "{text}");
    assert!(text.contains(&format!("git update-ref --no-deref -d {REF}")), "{text}");
}

/// A tree object written byte for byte from `(mode, name, object id in hex)` entries, in the
/// order given (duplicates and disorder kept, as a hostile remote could send it); its id.
fn raw_tree(p: &Project, entries: &[(&str, &str, &str)]) -> String {
    let mut raw = Vec::new();
    for (mode, name, id) in entries {
        raw.extend_from_slice(format!("{mode} {name}\0").as_bytes());
        let id = id.trim().as_bytes();
        let digit = |c: u8| char::from(c).to_digit(16).unwrap() as u8;
        raw.extend(id.chunks(2).map(|pair| digit(pair[0]) << 4 | digit(pair[1])));
    }
    p.git_with_input(&["hash-object", "-t", "tree", "-w", "--literally", "--stdin"], &raw).trim().to_owned()
}

/// Moves the held-out ref to a new commit on it whose tree is `tree`.
fn publish_tree(p: &Project, tree: &str) {
    let commit = p.git(&["commit-tree", "-p", REF, "-m", "Someone else's publish", tree]);
    p.git(&["update-ref", REF, commit.trim()]);
}

/// Stores, closes and publishes T005 with one file `a.rs`; its key and the ids of its
/// `manifest.json` and `files/a.rs` on the ref.
fn published_t005(p: &Project) -> (String, String, String) {
    let digest = store(p, "001-bookmark-tags/T005", &tests_dir(p, "a", &[("a.rs", "A")]));
    close_with(p, "001-bookmark-tags/T005", &digest);
    p.run(&["held-out", "publish"]).expect(0);
    let k = key(&digest).to_owned();
    let manifest = p.git(&["rev-parse", &format!("{REF}:{k}/manifest.json")]).trim().to_owned();
    let file = p.git(&["rev-parse", &format!("{REF}:{k}/files/a.rs")]).trim().to_owned();
    (k, manifest, file)
}

/// `attest verify`'s JSON report as text, which must be a failure (26) naming `code`.
fn verify_fails_with(p: &Project, code: &str) -> String {
    let text = p.verify(&[]).expect(26).json().to_string();
    assert!(text.contains(code), "{text}");
    text
}

#[test]
fn a_published_ref_whose_trees_hold_a_name_twice_fails_the_tick_whichever_copy_git_serves() {
    let p = trusting_project();
    let (k, manifest, good) = published_t005(&p);
    let evil = p.git_with_input(&["hash-object", "-w", "--stdin"], b"evil\n").trim().to_owned();
    let set_of =
        |files: &str| raw_tree(&p, &[("40000", "files", files), ("100644", "manifest.json", &manifest)]);
    for (first, second) in [(&evil, &good), (&good, &evil)] {
        let files = raw_tree(&p, &[("100644", "a.rs", first), ("100644", "a.rs", second)]);
        publish_tree(&p, &raw_tree(&p, &[("40000", &k, &set_of(&files))]));
        let text = verify_fails_with(&p, "held_out_published_tampered");
        assert!(text.contains("files/: it holds a.rs twice"), "{text}");
    }
    let (genuine, tampered) = (
        set_of(&raw_tree(&p, &[("100644", "a.rs", &good)])),
        set_of(&raw_tree(&p, &[("100644", "a.rs", &evil)])),
    );
    for (first, second) in [(&tampered, &genuine), (&genuine, &tampered)] {
        publish_tree(&p, &raw_tree(&p, &[("40000", &k, first), ("40000", &k, second)]));
        let text = verify_fails_with(&p, "held_out_published_tampered");
        assert!(text.contains(&format!("it holds {k} twice")), "{text}");
        assert!(text.contains(&format!("git update-ref --no-deref -d {REF}")), "{text}");
    }
}

#[test]
fn anything_beside_a_sets_manifest_and_files_or_beside_the_sets_fails_the_tick() {
    let p = trusting_project();
    let (k, manifest, _) = published_t005(&p);
    let files = p.git(&["rev-parse", &format!("{REF}:{k}/files")]).trim().to_owned();
    let attributes =
        p.git_with_input(&["hash-object", "-w", "--stdin"], b"* text eol=crlf\n").trim().to_owned();
    let set = raw_tree(
        &p,
        &[
            ("100644", ".gitattributes", &attributes),
            ("40000", "files", &files),
            ("100644", "manifest.json", &manifest),
        ],
    );
    publish_tree(&p, &raw_tree(&p, &[("40000", &k, &set)]));
    let text = verify_fails_with(&p, "held_out_published_tampered");
    assert!(text.contains("it holds .gitattributes beside manifest.json and files/"), "{text}");

    let intact = raw_tree(&p, &[("40000", "files", &files), ("100644", "manifest.json", &manifest)]);
    publish_tree(&p, &raw_tree(&p, &[("100644", ".gitattributes", &attributes), ("40000", &k, &intact)]));
    let text = verify_fails_with(&p, "held_out_published_tampered");
    assert!(text.contains("its tree holds .gitattributes, which is not a held-out set"), "{text}");
    publish_tree(&p, &raw_tree(&p, &[("40000", &k, &intact)]));
    p.verify(&[]).expect(0);
}

#[test]
fn publish_refuses_a_set_the_ref_holds_other_bytes_of_or_cannot_read_and_never_calls_it_published() {
    let p = trusting_project();
    let (k, manifest, _) = published_t005(&p);
    let evil = p.git_with_input(&["hash-object", "-w", "--stdin"], b"evil\n").trim().to_owned();
    let files = raw_tree(&p, &[("100644", "a.rs", &evil)]);
    let set = raw_tree(&p, &[("40000", "files", &files), ("100644", "manifest.json", &manifest)]);
    publish_tree(&p, &raw_tree(&p, &[("40000", &k, &set)]));
    let tip = p.git(&["rev-parse", REF]);
    for args in [&["held-out", "publish", "--json"][..], &["held-out", "publish", "--json", "--dry-run"]] {
        let report = p.run(args).expect(26).json();
        let unit = &report["units"][0];
        assert_eq!(unit["already_published"], json!([]), "{report:#}");
        let reason = unit["differs_on_ref"][0]["reason"].as_str().unwrap();
        assert!(
            reason.contains(&format!("the copy in {REF} is not this set: files/a.rs has changed")),
            "{reason}"
        );
        assert!(reason.contains(&format!("git update-ref --no-deref -d {REF}")), "{reason}");
    }
    let text = p.run(&["held-out", "publish"]).expect(26).stdout;
    assert!(text.contains(&format!("DIFFERS ON THE REF, left as it is: sha256:{k}")), "{text}");
    assert_eq!(p.git(&["rev-parse", REF]), tip, "nothing moved");

    // The set's tree missing from the object store: said so, never called published.
    let missing = raw_tree(&p, &[("100644", "manifest.json", &manifest)]);
    publish_tree(&p, &raw_tree(&p, &[("40000", &k, &missing)]));
    std::fs::remove_file(p.root.join(".git/objects").join(&missing[..2]).join(&missing[2..])).unwrap();
    let report = p.run(&["held-out", "publish", "--json"]).expect(26).json();
    let reason = report["units"][0]["differs_on_ref"][0]["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("the copy in {REF} cannot be read")), "{reason}");
    assert!(reason.contains(&missing), "{reason}");
    verify_fails_with(&p, "held_out_published_unreadable");
}

#[test]
fn publish_leaves_a_ref_whose_tree_git_would_not_write_as_it_is_and_writes_nothing() {
    let p = trusting_project();
    let (k, _, _) = published_t005(&p);
    let set = p.git(&["rev-parse", &format!("{REF}:{k}")]).trim().to_owned();
    let (c, b) = ("c".repeat(64), "b".repeat(64));
    publish_tree(&p, &raw_tree(&p, &[("40000", &c, &set), ("40000", &b, &set)]));
    let second = store(&p, "001-bookmark-tags/T006", &tests_dir(&p, "b", &[("b.rs", "B")]));
    close_with(&p, "001-bookmark-tags/T006", &second);
    let tip = p.git(&["rev-parse", REF]);
    let report = p.run(&["held-out", "publish", "--json"]).expect(26).json();
    let unit = &report["units"][0];
    assert_eq!((&unit["commit"], &unit["published"]), (&Value::Null, &json!([])), "{report:#}");
    let reason = unit["differs_on_ref"][0]["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("its entries are out of git's order ({c} before {b})")), "{reason}");
    assert!(reason.contains(&format!("git update-ref --no-deref -d {REF}")), "{reason}");
    assert_eq!(p.git(&["rev-parse", REF]), tip, "nothing moved");

    // Deleting the ref, as the message says, lets publish write both sets again, as git writes them.
    p.git(&["update-ref", "-d", REF]);
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    assert_eq!(report["units"][0]["published"].as_array().unwrap().len(), 2, "{report:#}");
    p.verify(&[]).expect(0);
    let strict = p.outside.join("strict.git");
    let strict = strict.to_str().unwrap();
    p.git(&["init", "-q", "--bare", strict]);
    p.git(&["-C", strict, "config", "receive.fsckObjects", "true"]);
    p.git(&["push", "-q", strict, REF]);
}

#[test]
fn a_set_named_only_by_a_commit_that_does_not_close_its_task_is_left_unpublished_and_said_so() {
    let p = trusting_project();
    let secret = store(&p, "001-bookmark-tags/T007", &tests_dir(&p, "a", &[("t7.rs", "fn secret() {}")]));
    // T007 stays open: its box unticked, and the claim no verdict a tick carries.
    let bogus = close_by_trailer(&p, "T007", "not-a-verdict", &secret, false);
    let out = p.run(&["held-out", "publish"]).expect(0);
    assert!(
        out.stdout
            .contains(&format!("NOT A CLOSED TASK'S, left unpublished: {secret}: no closed task names it")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("claims `Verdict: not-a-verdict`"), "{}", out.stdout);
    assert!(!p.git_output(&["rev-parse", "--verify", "-q", REF]).status.success(), "nothing published");
    // A verified claim whose box is not ticked at HEAD closes nothing either.
    let unticked = close_by_trailer(&p, "T007", "verified", &secret, false);
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    let left = &report["units"][0]["not_closed"][0];
    assert_eq!(left["manifest"], secret.as_str(), "{report:#}");
    assert_eq!(left["named_by"], json!([unticked, bogus]), "{report:#}");
    assert!(left["reason"].as_str().unwrap().contains("not ticked in its task list at HEAD"), "{report:#}");
    assert!(report["units"][0]["published"].as_array().unwrap().is_empty(), "{report:#}");
    // Two Verdict: trailers are not one plain claim.
    p.git(&[
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        &format!("Close T007\n\nSpec-Task: {UNIT}/T007\nVerdict: attested\nVerdict: verified\nHeld-Out: manifest={secret}\n"),
    ]);
    let out = p.run(&["held-out", "publish"]).expect(0);
    assert!(
        out.stdout.contains("is not one plain claim: the commit message has 2 Verdict: trailers"),
        "{}",
        out.stdout
    );
    assert!(!p.git_output(&["rev-parse", "--verify", "-q", REF]).status.success(), "nothing published");
    // A verified claim written by hand, its box ticked by hand too, with no note: anyone who can
    // push can write it, so it releases nothing.
    let by_hand = close_by_trailer(&p, "T007", "verified", &secret, true);
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    let left = &report["units"][0]["not_closed"][0];
    assert_eq!(left["named_by"][0], json!(by_hand), "{report:#}");
    assert!(left["reason"].as_str().unwrap().contains("has no note in refs/notes/speccoder"), "{report:#}");
    assert!(!p.git_output(&["rev-parse", "--verify", "-q", REF]).status.success(), "nothing published");
    // Its tick closes it: now it is published.
    p.git(&["reset", "-q", "--hard", "HEAD~1"]);
    close_with(&p, "001-bookmark-tags/T007", &secret);
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    assert_eq!(report["units"][0]["published"][0]["manifest"], secret.as_str(), "{report:#}");
}

/// `attest TASK` with evidence whose held_out phase names `manifest`, its lines left unsigned
/// (`--signer none`), as `sign_at = "later"` leaves them until `attest sign`.
fn close_unsigned(p: &Project, task: &str, manifest: &str) {
    let held_out =
        json!({ "phase": "held_out", "result": "PASSED", "manifest": manifest, "passed": 1, "total": 1 });
    let evidence = p.evidence(task, json!({ "phases": [held_out] }));
    p.run(&["attest", task, "--evidence", evidence.to_str().unwrap(), "--signer", "none"]).expect(0);
}

#[test]
fn a_tick_whose_note_is_unsigned_or_signed_by_a_stranger_releases_its_set_only_once_a_trusted_key_signs_it() {
    let p = trusting_project();
    let secret = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("t5.rs", "fn secret() {}")]));
    close_unsigned(&p, "001-bookmark-tags/T005", &secret);
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    let left = &report["units"][0]["not_closed"][0];
    assert_eq!(left["manifest"], secret.as_str(), "{report:#}");
    let reason = left["reason"].as_str().unwrap();
    assert!(reason.contains("does not verify against your trust (unsigned line"), "{reason}");
    assert!(reason.contains("speccoder attest sign"), "{reason}");
    assert!(!p.git_output(&["rev-parse", "--verify", "-q", REF]).status.success(), "nothing published");
    // Signed by a key the publisher does not trust: still nothing.
    let stranger = p.outside.join("stranger");
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "eve@example.com", "-f"])
        .arg(&stranger)
        .stdin(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(made.success());
    p.run(&["attest", "sign", "--signer", "ssh", "--key", stranger.to_str().unwrap()]).expect(0);
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    let reason = report["units"][0]["not_closed"][0]["reason"].as_str().unwrap().to_owned();
    assert!(reason.contains("does not verify against your trust"), "{reason}");
    assert!(!p.git_output(&["rev-parse", "--verify", "-q", REF]).status.success(), "nothing published");
    // Trusting the stranger's key by --allowed-signers releases it; so does the project's own key.
    let theirs = p.outside.join("theirs_allowed");
    let public = std::fs::read_to_string(stranger.with_extension("pub")).unwrap();
    std::fs::write(&theirs, format!("eve@example.com namespaces=\"in-toto\" {public}")).unwrap();
    let dry =
        p.run(&["held-out", "publish", "--json", "--dry-run", "--allowed-signers", theirs.to_str().unwrap()]);
    assert_eq!(dry.expect(0).json()["units"][0]["published"][0]["manifest"], secret.as_str());
    p.signed(&["attest", "sign"]).expect(0);
    let report = p.run(&["held-out", "publish", "--json"]).expect(0).json();
    assert_eq!(report["units"][0]["published"][0]["manifest"], secret.as_str(), "{report:#}");
    p.fsck();
}

#[test]
fn publishing_with_no_trust_at_all_stops_and_says_what_to_configure_and_writes_nothing() {
    let p = Project::new();
    let secret = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("t5.rs", "fn secret() {}")]));
    // Nothing named yet: nothing to judge, so no trust is needed.
    p.run(&["held-out", "publish"]).expect(0);
    close_with(&p, "001-bookmark-tags/T005", &secret);
    let before = p.snapshot();
    let out = p.run(&["held-out", "publish"]).expect(13);
    assert!(out.stderr.contains("you trust no signer: nothing was published"), "{}", out.stderr);
    assert!(out.stderr.contains("--allowed-signers FILE"), "{}", out.stderr);
    assert_eq!(p.snapshot(), before);
    // A trust file the checked branch holds is not the publisher's own: refused.
    std::fs::copy(&p.allowed, p.root.join("allowed_signers")).unwrap();
    p.commit_all("Trust whoever wrote this");
    let out = p.run(&["held-out", "publish", "--allowed-signers", "allowed_signers"]).expect(13);
    assert!(out.stderr.contains("allowed_signers"), "{}", out.stderr);
    assert!(!p.git_output(&["rev-parse", "--verify", "-q", REF]).status.success(), "nothing published");
    p.run(&["held-out", "publish", "--allowed-signers", p.allowed.to_str().unwrap()]).expect(0);
    assert_eq!(ls_tree(&p, REF).len(), 2);
}

#[test]
fn store_refuses_files_whose_manifest_would_pass_the_4_mib_every_reader_accepts_and_writes_nothing() {
    let p = trusting_project();
    // 4,000 files with paths near 1,000 bytes: within 10,000 files and 1,024 bytes a path.
    let dir = p.outside.join("big");
    let deep = dir.join("a".repeat(240)).join("b".repeat(240)).join("c".repeat(240));
    std::fs::create_dir_all(&deep).unwrap();
    for i in 0..4_000 {
        std::fs::write(deep.join(format!("f{i:04}{}", "x".repeat(240))), "").unwrap();
    }
    let out = p.run(&["held-out", "store", "001-bookmark-tags/T006", dir.to_str().unwrap()]).expect(13);
    assert!(out.stderr.contains("more than the 4194304 bytes (4 MiB) every reader"), "{}", out.stderr);
    assert!(out.stderr.contains("store fewer files or give them shorter paths"), "{}", out.stderr);
    assert!(!store_dir(&p, UNIT).exists(), "nothing was written");
}

/// A copy of the unit under a valid name (204 bytes) that escapes to a 604-byte ref component.
fn long_named_unit(p: &Project) -> String {
    let unit = format!("001-{}", "é".repeat(100));
    for file in ["spec.md", "tasks.md"] {
        let text = std::fs::read_to_string(p.root.join(format!("specs/{UNIT}/{file}"))).unwrap();
        p.write(&format!("specs/{unit}/{file}"), &text);
    }
    p.commit_all("a unit with a long name");
    unit
}

#[test]
fn a_unit_whose_escaped_name_is_too_long_for_a_ref_file_is_refused_by_name_and_limit_before_anything_is_written()
 {
    let p = trusting_project();
    let unit = long_named_unit(&p);
    let limit = "more than the 250 bytes a reference file's name may hold";
    let dir = tests_dir(&p, "a", &[("a.rs", "A")]);
    let out = p.run(&["held-out", "store", &format!("{unit}/T005"), dir.to_str().unwrap()]).expect(13);
    assert!(
        out.stderr.contains(&format!("the unit {unit} escapes to a reference-name component of 604 bytes")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains(limit), "{}", out.stderr);
    assert!(!store_dir(&p, &unit).exists(), "nothing stored");
    // A set an older build stored for it, named by a closed task: publish names the unit too.
    let manifest = format!(
        r#"{{"files":[{{"path":"a.rs","sha256":"{}"}}],"task":"{unit}/T005","version":1}}"#,
        sha256_hex("A")
    );
    let key = sha256_hex(&manifest);
    let set = store_dir(&p, &unit).join(&key);
    std::fs::create_dir_all(set.join("files")).unwrap();
    std::fs::write(set.join("manifest.json"), &manifest).unwrap();
    std::fs::write(set.join("files/a.rs"), "A").unwrap();
    let tasks = format!("specs/{unit}/tasks.md");
    let text = std::fs::read_to_string(p.root.join(&tasks)).unwrap();
    p.write(&tasks, &text.replace("- [ ] T005 ", "- [x] T005 "));
    p.commit_all(&format!(
        "Close T005\n\nSpec-Task: {unit}/T005\nVerdict: verified\nHeld-Out: manifest=sha256:{key}\n"
    ));
    let out = p.run(&["held-out", "publish"]).expect(13);
    assert!(out.stderr.contains(limit) && out.stderr.contains(&unit), "{}", out.stderr);
    assert_eq!(p.git(&["for-each-ref", "refs/speccoder/"]), "", "no reference written");
    // A skip of a task of that unit escapes the unit the same way, and is refused the same way.
    let out = p.signed(&["skip", &format!("{unit}/T006"), "--reason", "not needed"]).expect(13);
    assert!(out.stderr.contains(limit) && out.stderr.contains(&unit), "{}", out.stderr);
    assert_eq!(p.git(&["for-each-ref", "refs/speccoder/"]), "", "no reference written");
    assert_eq!(p.git(&["notes", "--ref=speccoder", "list"]), "", "no note written");
}

#[test]
fn a_git_directory_inside_the_work_tree_under_another_name_is_no_place_for_a_store() {
    let p = trusting_project();
    // As `git init --separate-git-dir=<work tree>/meta` leaves it: `git status` lists `meta/`.
    let meta = p.root.join("meta");
    std::fs::rename(p.root.join(".git"), &meta).unwrap();
    std::fs::write(p.root.join(".git"), format!("gitdir: {}\n", meta.display())).unwrap();
    let good = tests_dir(&p, "good", &[("a.rs", "A")]);
    let store = ["held-out", "store", "001-bookmark-tags/T006", good.to_str().unwrap()];
    let out = p.run(&store).expect(2);
    assert!(out.stderr.contains("the default held-out store"), "{}", out.stderr);
    assert!(out.stderr.contains("under another name than .git"), "{}", out.stderr);
    assert!(out.stderr.contains("--store DIR"), "{}", out.stderr);
    p.run(&["held-out", "publish"]).expect(2);
    let other = meta.join("other");
    let out = p.run(&[&store[..], &["--store", other.to_str().unwrap()]].concat()).expect(2);
    assert!(out.stderr.contains("is inside the work tree"), "{}", out.stderr);
    assert!(!meta.join("speccoder").exists() && !other.exists(), "nothing stored inside the work tree");
    // A store outside the work tree serves.
    let outside = p.outside.join("store");
    p.run(&[&store[..], &["--store", outside.to_str().unwrap()]].concat()).expect(0);
}

#[test]
fn a_store_that_is_a_symbolic_link_to_nothing_is_named_as_one_with_what_to_do() {
    let p = trusting_project();
    let good = tests_dir(&p, "good", &[("a.rs", "A")]);
    let link = p.outside.join("store-link");
    std::os::unix::fs::symlink(p.outside.join("no-such-dir"), &link).unwrap();
    let said = format!(
        "leads through the symbolic link {} to {}",
        link.display(),
        p.outside.join("no-such-dir").display()
    );
    for (command, below) in [
        (vec!["held-out", "store", "001-bookmark-tags/T006", good.to_str().unwrap()], ""),
        (vec!["held-out", "publish"], ""),
        (vec!["held-out", "store", "001-bookmark-tags/T006", good.to_str().unwrap()], "deeper"),
    ] {
        let store = link.join(below);
        let args: Vec<&str> = command.iter().copied().chain(["--store", store.to_str().unwrap()]).collect();
        let out = p.run(&args).expect(13);
        assert!(out.stderr.contains(&said), "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("create the directory the link points to, or remove the link"),
            "{}",
            out.stderr
        );
        assert!(!out.stderr.contains("File exists"), "{}", out.stderr);
    }
    assert!(!p.outside.join("no-such-dir").exists(), "nothing created");
}

#[test]
fn a_trust_revision_head_reaches_is_refused_so_a_branch_that_wrote_itself_into_the_trust_releases_nothing() {
    let p = trusting_project();
    // The trust file committed on the branch, naming the project's key.
    std::fs::create_dir_all(p.root.join(".team")).unwrap();
    std::fs::copy(&p.allowed, p.root.join(".team/allowed")).unwrap();
    p.commit_all("Team trust");
    let secret = store(&p, "001-bookmark-tags/T005", &tests_dir(&p, "a", &[("t5.rs", "fn secret() {}")]));
    close_with(&p, "001-bookmark-tags/T005", &secret);
    let before = p.snapshot();
    for rev in ["HEAD:.team/allowed", "HEAD~1:.team/allowed"] {
        let out = p.run(&["held-out", "publish", "--allowed-signers-rev", rev]).expect(13);
        assert!(out.stderr.contains("is part of the history being checked"), "{rev}: {}", out.stderr);
        assert!(out.stderr.contains("a trust branch of its own"), "{}", out.stderr);
        assert_eq!(p.snapshot(), before, "{rev}");
    }
    // A trust branch of its own, which HEAD does not reach, is taken.
    let blob = p.git(&["hash-object", "-w", p.allowed.to_str().unwrap()]);
    let tree = p.git_with_input(&["mktree"], format!("100644 blob {blob}\tallowed\n").as_bytes());
    let commit = p.git(&["commit-tree", &tree, "-m", "trust"]);
    p.git(&["update-ref", "refs/heads/trust", &commit]);
    p.run(&["held-out", "publish", "--allowed-signers-rev", "trust:allowed"]).expect(0);
    assert_eq!(ls_tree(&p, REF).len(), 2);
}
