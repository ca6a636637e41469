//! What one tick writes, checked as a peer would check it.

use serde_json::{Value, json};

use super::{Setup, T005};
use crate::common::{self, Evidence, NOTES_REF, NoteLine, OPENSPEC_UNIT, Project, sha256};

const TEST_RESULT: &str = "https://in-toto.io/attestation/test-result/v0.1";
const TASK_VERIFICATION: &str = "https://speccoder.dev/task-verification/v0";
const SUMMARY: &str = "https://slsa.dev/verification_summary/v1";

/// The line of the original fixture's tasks.md that holds `id`.
fn fixture_task_line(id: &str) -> String {
    let text = std::fs::read_to_string(
        common::crate_root().join("fixtures/speckit/specs/001-bookmark-tags/tasks.md"),
    )
    .unwrap();
    text.lines().find(|l| l.contains(&format!(" {id} "))).unwrap().to_owned()
}

fn predicate_types(lines: &[NoteLine]) -> Vec<&str> {
    lines.iter().map(NoteLine::predicate_type).collect()
}

fn phase_of(line: &NoteLine) -> &str {
    line.statement["predicate"]["configuration"][0]["name"].as_str().unwrap()
}

#[test]
fn a_verified_tick_with_held_out_writes_six_lines_that_each_verify_with_ssh_keygen() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    s.attest_signed(&[]);
    let lines = s.project.note_lines("HEAD");
    assert_eq!(
        predicate_types(&lines),
        [TEST_RESULT, TEST_RESULT, TEST_RESULT, TEST_RESULT, TASK_VERIFICATION, SUMMARY]
    );
    let phases: Vec<&str> = lines[..4].iter().map(phase_of).collect();
    assert_eq!(
        phases,
        [
            "speccoder:phase/baseline",
            "speccoder:phase/red",
            "speccoder:phase/green",
            "speccoder:phase/held_out"
        ]
    );
    common::assert_every_line_verifies(&s.project.scratch, &s.allowed, &lines);
}

#[test]
fn a_line_does_not_verify_for_another_key_or_over_changed_bytes() {
    // The peer check has teeth: the same signatures fail for a stranger's key and altered bytes.
    let s = Setup::speckit(Evidence::Verified);
    s.attest_signed(&[]);
    let line = &s.project.note_lines("HEAD")[0];
    let sig = &line.signatures[0].1;
    let stranger = common::ed25519(&s.project.scratch, "mallory");
    let wrong = common::allowed_signers(&s.project.scratch.join("wrong"), &[(common::PRINCIPAL, &stranger)]);
    assert!(
        !common::ssh_verify(&s.project.scratch, &wrong, common::PRINCIPAL, sig, &line.pae()).status.success()
    );
    let mut altered = line.pae();
    *altered.last_mut().unwrap() ^= 1;
    assert!(
        !common::ssh_verify(&s.project.scratch, &s.allowed, common::PRINCIPAL, sig, &altered)
            .status
            .success()
    );
    // Only the PAE verifies, not the bare payload.
    assert!(
        !common::ssh_verify(&s.project.scratch, &s.allowed, common::PRINCIPAL, sig, &line.payload)
            .status
            .success()
    );
}

#[test]
fn git_notes_show_prints_the_bundle_byte_for_byte() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    s.attest_signed(&[]);
    let p = &s.project;
    let head = p.rev("HEAD");
    let listed = p.git(&["notes", "--ref", NOTES_REF, "list", &head]);
    let blob = p.git_bytes(&["cat-file", "blob", listed.trim()]);
    let shown = p.note("HEAD").unwrap();
    assert_eq!(shown, blob);
    // One envelope per line, each ending in exactly one newline, nothing else.
    let lines = common::parse_bundle(&blob);
    let rejoined: Vec<u8> = lines.iter().flat_map(|l| [l.raw.as_slice(), b"\n"].concat()).collect();
    assert_eq!(rejoined, blob);
    assert_eq!(lines.len(), 6);
    // The notes ref holds this one note and nothing else.
    assert_eq!(p.git(&["notes", "--ref", NOTES_REF, "list"]).lines().count(), 1);
}

#[test]
fn the_commit_message_yields_exactly_the_intended_trailers() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    s.attest_signed(&[]);
    let p = &s.project;
    let message = p.git(&["log", "-1", "--format=%B"]);
    let file = p.scratch.join("message.txt");
    std::fs::write(&file, &message).unwrap();
    let trailers = p.git(&["interpret-trailers", "--parse", file.to_str().unwrap()]);
    assert_eq!(
        trailers,
        format!(
            "Spec-Task: {T005}\nVerdict: verified\nHeld-Out: passed=3/3 manifest={}\nRun: run-20261130-0007\n",
            common::held_out_manifest(T005)
        )
    );
    assert!(
        message.starts_with(
            "001-bookmark-tags/T005: Implement adding a tag to a bookmark in src/tags/store.rs (FR-001, FR-002)\n\n"
        ),
        "{message}"
    );
}

#[test]
fn a_tick_without_held_out_says_held_out_off() {
    let s = Setup::speckit(Evidence::Verified);
    s.attest_signed(&[]);
    let p = &s.project;
    assert_eq!(p.git(&["log", "-1", "--format=%(trailers:key=Held-Out,valueonly)"]).trim(), "off");
    assert_eq!(s.project.note_lines("HEAD").len(), 5);
}

#[test]
fn git_fsck_strict_is_clean_after_a_tick() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    s.attest_signed(&[]);
    let out = s.project.git_run(&["fsck", "--strict", "--no-dangling", "--no-progress"]).success();
    assert_eq!(out.stdout, "", "{out}");
    assert!(!out.stderr.contains("error") && !out.stderr.contains("warning"), "{out}");
}

/// A tick stores its new objects (the ticked tasks.md, its trees, the task commit, the note's
/// blob, tree and commit) as loose objects, as git itself writes them, and adds no pack;
/// `git gc` packs them later and everything still reads.
#[test]
fn a_tick_stores_its_objects_loose_as_git_does_and_git_gc_packs_them() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    let p = &s.project;
    let count = |what: &str| {
        p.git(&["count-objects", "-v"])
            .lines()
            .find_map(|l| l.strip_prefix(what).and_then(|n| n.trim().parse::<u64>().ok()))
            .unwrap_or_else(|| panic!("count-objects prints {what}"))
    };
    let (loose, packs) = (count("count:"), count("packs:"));
    s.attest_signed(&[]);
    assert_eq!(count("packs:"), packs, "no pack was added");
    assert!(count("count:") >= loose + 8, "the commit, the note and their trees and blobs are loose");
    for rev in ["HEAD", "HEAD^{tree}", "HEAD:specs/001-bookmark-tags/tasks.md", "refs/notes/speccoder"] {
        let id = p.rev(rev);
        let hex = id.to_string();
        assert!(p.root.join(".git/objects").join(&hex[..2]).join(&hex[2..]).is_file(), "{rev} is loose");
    }
    let note = p.git(&["notes", "--ref=speccoder", "show", "HEAD"]);
    p.git(&["gc", "-q"]);
    assert_eq!(count("count:"), 0, "git gc packed them");
    assert_eq!(p.git(&["notes", "--ref=speccoder", "show", "HEAD"]), note);
    let out = p.git_run(&["fsck", "--strict", "--no-dangling", "--no-progress"]).success();
    assert_eq!(out.stdout, "", "{out}");
}

#[test]
fn the_task_commit_ticks_exactly_one_box_and_leaves_the_work_tree_clean() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let before = p.rev("HEAD");
    s.attest_signed(&[]);
    assert_eq!(p.rev("HEAD~1"), before);
    assert_eq!(p.rev("refs/heads/main"), p.rev("HEAD"));
    assert_eq!(p.git(&["symbolic-ref", "HEAD"]).trim(), "refs/heads/main");
    let tasks = "specs/001-bookmark-tags/tasks.md";
    assert_eq!(p.git(&["diff", "--name-only", "HEAD~1", "HEAD"]).trim(), tasks);
    let old = p.git(&["show", &format!("HEAD~1:{tasks}")]);
    let new = p.git(&["show", &format!("HEAD:{tasks}")]);
    let line = fixture_task_line("T005");
    assert_eq!(new, old.replacen(&line, &line.replacen("- [ ]", "- [X]", 1), 1));
    assert_ne!(new, old);
    // Both reflogs record the commit, as for `git commit`.
    let subject = p.git(&["log", "-1", "--format=%s"]);
    let entry = format!("{} commit: {}", p.rev("HEAD"), subject.trim());
    assert_eq!(p.git(&["reflog", "-1", "--format=%H %gs", "HEAD"]).trim(), entry);
    assert_eq!(p.git(&["reflog", "-1", "--format=%H %gs", "main"]).trim(), entry);
    // The tick is committed, staged and in the work tree alike.
    assert_eq!(p.git(&["status", "--porcelain", "--untracked-files=all"]), "");
    assert_eq!(p.read(tasks), new.as_bytes());
}

#[test]
fn the_summary_names_exactly_the_other_lines_by_the_sha256_of_their_statement_bytes() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    s.attest_signed(&[]);
    let lines = s.project.note_lines("HEAD");
    let (summary, others) = lines.split_last().unwrap();
    let predicate = &summary.statement["predicate"];
    let named: Vec<(String, String)> = predicate["inputAttestations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap().to_owned(), a["digest"]["sha256"].as_str().unwrap().to_owned()))
        .collect();
    let expected: Vec<(String, String)> = [
        "test-result/baseline",
        "test-result/red",
        "test-result/green",
        "test-result/held_out",
        "task-verification",
    ]
    .iter()
    .zip(others)
    .map(|(name, line)| ((*name).to_owned(), sha256(&line.payload)))
    .collect();
    assert_eq!(named, expected);
    assert_eq!(predicate["verificationResult"], "PASSED");
    assert_eq!(predicate["verifiedLevels"], json!(["SPECCODER_VERIFIED"]));
    assert_eq!(predicate["verifier"]["id"], "https://speccoder.dev/verifier/v0");
    assert_eq!(predicate["resourceUri"], format!("git:{}", s.project.rev("HEAD")));
    let policy = others[4].statement["predicate"]["policy_sha256"].as_str().unwrap();
    assert_eq!(predicate["policy"]["digest"]["sha256"], policy);
}

#[test]
fn every_statement_validates_against_its_generated_schema_and_names_the_task_at_its_commit() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    s.attest_signed(&[]);
    let p = &s.project;
    let head = p.rev("HEAD");
    // The commit object as git hashes it: `commit <len>\0` and the raw commit.
    let raw = p.git_bytes(&["cat-file", "commit", "HEAD"]);
    let mut object = format!("commit {}\0", raw.len()).into_bytes();
    object.extend(&raw);
    let commit_sha256 = common::sha256(&object);
    let validators = [
        (TEST_RESULT, common::schema_validator("statement-test-result.schema.json")),
        (TASK_VERIFICATION, common::schema_validator("statement-task-verification.schema.json")),
        (SUMMARY, common::schema_validator("statement-verification-summary.schema.json")),
    ];
    for (i, line) in p.note_lines("HEAD").iter().enumerate() {
        let (_, validator) = validators.iter().find(|(t, _)| *t == line.predicate_type()).unwrap();
        let errors: Vec<String> = validator.iter_errors(&line.statement).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "line {}: {errors:?}", i + 1);
        assert_eq!(line.statement["_type"], "https://in-toto.io/Statement/v1");
        assert_eq!(
            line.statement["subject"],
            json!([{ "name": T005, "digest": { "gitCommit": head, "sha256": commit_sha256 } }])
        );
        // The payload is the canonical encoding: keys sorted, no whitespace.
        assert_eq!(serde_json::to_vec(&line.statement).unwrap(), line.payload, "line {}", i + 1);
    }
}

#[test]
fn the_task_verification_records_hashes_computed_from_the_repository() {
    let s = Setup::speckit(Evidence::Verified);
    s.attest_signed(&[]);
    let p = &s.project;
    let lines = p.note_lines("HEAD");
    let tv = &lines.iter().find(|l| l.predicate_type() == TASK_VERIFICATION).unwrap().statement["predicate"];
    assert_eq!(tv["verdict"], "verified");
    assert_eq!(tv["tree"], p.rev("HEAD^{tree}"));
    assert_eq!(tv["task"]["id"], "T005");
    assert_eq!(tv["task"]["line_hash"], sha256(fixture_task_line("T005").as_bytes()));
    assert_eq!(
        tv["unit"],
        json!({ "format": "speckit", "feature": "001-bookmark-tags", "dir": "specs/001-bookmark-tags" })
    );
    assert_eq!(tv["spec"]["section"], "US1");
    let spec = std::fs::read_to_string(
        common::crate_root().join("fixtures/speckit/specs/001-bookmark-tags/spec.md"),
    )
    .unwrap();
    let requirement =
        |id: &str| spec.lines().find(|l| l.starts_with(&format!("- **{id}**"))).unwrap().trim_end();
    let traced: Vec<(&str, String)> = tv["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| Some((r["requirement"].as_str()?, r["requirement_hash"].as_str()?.to_owned())))
        .collect();
    assert_eq!(
        traced,
        [
            ("FR-001", sha256(requirement("FR-001").as_bytes())),
            ("FR-002", sha256(requirement("FR-002").as_bytes()))
        ]
    );
}

#[test]
fn the_red_excerpt_and_its_digests_are_those_of_the_red_output() {
    let s = Setup::speckit(Evidence::Verified);
    s.attest_signed(&[]);
    let red_log = std::fs::read(s.evidence.parent().unwrap().join("red.log")).unwrap();
    let lines = s.project.note_lines("HEAD");
    let red = &lines.iter().find(|l| l.predicate_type() == TASK_VERIFICATION).unwrap().statement["predicate"]
        ["red"];
    assert_eq!(red["withheld"], false);
    assert_eq!(red["kind"], "assertion");
    assert_eq!(red["output_sha256"], sha256(&red_log));
    assert_eq!(red["excerpt"], String::from_utf8(red_log.clone()).unwrap());
    assert_eq!(red["excerpt_sha256"], sha256(&red_log));
}

#[test]
fn a_red_output_holding_a_home_path_or_a_token_is_withheld_and_the_lines_are_still_signed() {
    for leaking in [
        "thread 'adds_a_tag' panicked at /home/ada/src/bookmarks/tests/tags.rs:9:5\n",
        "error: registry rejected token ghp_0123456789abcdefghijABCDEFGHIJ012345\n",
    ] {
        let s = Setup::speckit(Evidence::Verified);
        let red = format!("running 1 test\ntest adds_a_tag ... FAILED\n{leaking}");
        std::fs::write(s.evidence.parent().unwrap().join("red.log"), &red).unwrap();
        let out = s.attest_signed(&["--json"]);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["withheld"].as_array().unwrap().len(), 1, "{out}");
        let lines = s.project.note_lines("HEAD");
        let tv = lines.iter().find(|l| l.predicate_type() == TASK_VERIFICATION).unwrap();
        let predicate = &tv.statement["predicate"];
        assert_eq!(
            predicate["red"],
            json!({ "kind": "assertion", "excerpt": null, "excerpt_sha256": null,
                    "output_sha256": sha256(red.as_bytes()), "withheld": true })
        );
        for line in &lines {
            let text = String::from_utf8_lossy(&line.payload);
            assert!(!text.contains("/home/ada") && !text.contains("ghp_"), "{text}");
        }
        common::assert_every_line_verifies(&s.project.scratch, &s.allowed, &lines);
    }
}

#[test]
fn a_regression_only_tick_records_its_reason_in_the_trailer_the_predicate_and_the_summary_level() {
    let s = Setup::speckit(Evidence::RegressionOnly);
    s.attest_signed(&[]);
    let p = &s.project;
    let message = p.git(&["log", "-1", "--format=%B"]);
    let file = p.scratch.join("message.txt");
    std::fs::write(&file, &message).unwrap();
    assert_eq!(
        p.git(&["interpret-trailers", "--parse", file.to_str().unwrap()]),
        format!(
            "Spec-Task: {T005}\nVerdict: regression_only\n\
             Regression-Only: already_passing: the acceptance tests passed before the change\n\
             Held-Out: off\nRun: run-20261130-0007\n"
        )
    );
    let lines = p.note_lines("HEAD");
    assert_eq!(predicate_types(&lines), [TEST_RESULT, TEST_RESULT, TASK_VERIFICATION, SUMMARY]);
    let tv = &lines[2].statement["predicate"];
    assert_eq!(tv["verdict"], "regression_only");
    assert_eq!(tv["regression"]["code"], "already_passing");
    assert_eq!(lines[3].statement["predicate"]["verifiedLevels"], json!(["SPECCODER_REGRESSION_ONLY"]));
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &lines);
}

#[test]
fn a_run_of_nothing_but_white_space_writes_no_run_trailer() {
    let s = Setup::speckit(Evidence::Verified);
    let mut evidence = common::evidence_json(T005, Evidence::Verified);
    evidence["run"] = json!(" ");
    let red = std::fs::read(common::crate_root().join("fixtures/evidence/red.log")).unwrap();
    let path = common::write_evidence_value(&s.project.scratch_dir("blank-run"), &evidence, &red);
    let key = s.key.private.to_str().unwrap();
    s.project.attest(T005, &path, &["--key", key]).success();
    let message = s.project.git(&["log", "-1", "--format=%B"]);
    let file = s.project.scratch.join("message.txt");
    std::fs::write(&file, &message).unwrap();
    let trailers = s.project.git(&["interpret-trailers", "--parse", file.to_str().unwrap()]);
    assert!(trailers.starts_with(&format!("Spec-Task: {T005}\nVerdict: verified\n")), "{trailers}");
    assert!(!trailers.contains("Run:"), "{trailers}");
}

#[test]
fn notes_of_other_commits_and_other_notes_refs_are_never_touched() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let initial = p.rev("HEAD");
    p.git(&["notes", "--ref", NOTES_REF, "add", "-m", "a note someone else wrote", &initial]);
    p.git(&["notes", "add", "-m", "an ordinary git note", &initial]);
    let theirs = p.note(&initial).unwrap();
    let ordinary = p.git(&["notes", "show", &initial]);
    s.attest_signed(&[]);
    assert_eq!(p.note(&initial).unwrap(), theirs);
    assert_eq!(p.git(&["notes", "show", &initial]), ordinary);
    assert_eq!(p.git(&["notes", "--ref", NOTES_REF, "list"]).lines().count(), 2);
    // The notes ref moved forward: the old notes commit is the new one's parent.
    let log = p.git(&["log", "--format=%s", NOTES_REF]);
    assert_eq!(log.lines().count(), 2, "{log}");
    assert_eq!(p.note_lines("HEAD").len(), 5);
}

#[test]
fn an_openspec_tick_keeps_the_change_valid_under_openspec_validate_strict() {
    let openspec = common::openspec();
    let p = Project::openspec();
    let key = common::ed25519(&p.scratch, "ada");
    let allowed = common::allowed_signers(&p.scratch.join("allowed"), &[(common::PRINCIPAL, &key)]);
    let target = format!("{OPENSPEC_UNIT}/1.2");
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target, Evidence::WithHeldOut);
    let validate = || {
        let mut cmd = std::process::Command::new(&openspec);
        common::isolate(&mut cmd, &p.home);
        cmd.current_dir(&p.root).args(["validate", OPENSPEC_UNIT, "--strict", "--no-interactive"]);
        common::run(cmd)
    };
    validate().success();
    p.attest(&target, &evidence, &["--key", key.private.to_str().unwrap()]).success();
    let tasks = String::from_utf8(p.read("openspec/changes/add-tag-filter/tasks.md")).unwrap();
    assert!(tasks.contains("- [x] 1.2 Implement filter by tag"), "{tasks}");
    assert_eq!(tasks.matches("[x]").count(), 1, "{tasks}");
    let out = validate().success();
    assert!(out.stdout.contains("is valid"), "{out}");
    let lines = p.note_lines("HEAD");
    let tv = &lines[4].statement["predicate"];
    assert_eq!(tv["unit"]["format"], "openspec");
    assert_eq!(tv["spec"]["section"], Value::Null);
    assert_eq!(lines[0].statement["subject"][0]["name"], target);
    common::assert_every_line_verifies(&p.scratch, &allowed, &lines);
    assert_eq!(p.git(&["status", "--porcelain"]), "");
}
