//! Trailer-only bug tasks end to end: `speccoder attest <unit>/bug:<slug>` closes a Spec Kit bug
//! home with a commit that ticks nothing, anchored by the triad digest, and `attest verify` checks
//! it by the same rules as a tick, reporting a triad edited after the tick as stale.

use crate::decide_support;

use decide_support::{BUG, Project, codes, row};
use serde_json::{Value, json};
use speccoder_attest::spec::{self, FsTree};

const TARGET: &str = "001-bookmark-tags/bug:duplicate-tag-case";
const HOME: &str = ".specify/bugs/duplicate-tag-case";

fn triad(p: &Project) -> String {
    spec::bug_triad(&FsTree::new(&p.root), BUG).unwrap().triad_sha256
}

fn task_verification(p: &Project, rev: &str) -> Value {
    p.statements(rev)
        .into_iter()
        .find(|s| s["predicateType"] == "https://speccoder.dev/task-verification/v0")
        .unwrap()["predicate"]
        .clone()
}

#[test]
fn a_bug_is_closed_by_a_commit_that_ticks_nothing_and_is_anchored_by_its_triad() {
    let p = Project::new();
    p.write("src/tags/store.rs", "// normalise before comparing\n");
    p.git(&["add", "src/tags/store.rs"]);
    let staged = p.git(&["write-tree"]);
    let forged = "0".repeat(64);
    p.attest(TARGET, json!({ "bug": { "severity": "medium", "triad_sha256": forged } }));

    assert_eq!(p.git(&["rev-parse", "HEAD^{tree}"]), staged, "the commit is the staged tree, no tick");
    assert_eq!(p.git(&["diff", "--name-only", "HEAD^", "HEAD"]), "src/tags/store.rs");
    let trailers = p.git(&["log", "-1", "--format=%(trailers:only,unfold)"]);
    assert!(trailers.starts_with(&format!("Spec-Task: {TARGET}\nVerdict: regression_only")), "{trailers}");

    let predicate = task_verification(&p, "HEAD");
    assert_eq!(predicate["bug"], json!({ "home": HOME, "severity": "medium", "triad_sha256": triad(&p) }));
    assert_eq!(predicate["task"]["id"], "bug:duplicate-tag-case");
    assert_eq!(predicate["task"]["line_hash"], spec::bug_line_hash(BUG));
    assert_eq!(predicate["task"]["title"], "Adding a tag that differs only in case creates a second tag");
    assert_eq!(predicate["spec"], json!({ "section": null, "section_hash": triad(&p) }));

    let v = p.verify(&[]).expect(0).json();
    let tick = row(&v, TARGET);
    assert_eq!(tick["outcome"], "evidenced");
    assert_eq!(v["totals"]["checked"], 1);
    // The commit mode checks it too.
    let allowed = p.allowed.to_str().unwrap();
    let commits =
        p.run(&["attest", "verify", "HEAD", "--json", "--allowed-signers", allowed]).expect(0).json();
    assert_eq!(commits["ticks"][0]["outcome"], "evidenced");
    p.fsck();
}

#[test]
fn a_triad_edited_after_the_tick_makes_the_bug_stale() {
    let p = Project::new();
    p.attest(TARGET, json!({}));
    let closed_with = triad(&p);
    p.write(&format!("{HOME}/fix.md"), "# Fix: a different fix\n");
    p.commit_all("Rewrite the fix");
    let v = p.verify(&[]).expect(26).json();
    let tick = row(&v, TARGET);
    assert_eq!((tick["outcome"].as_str(), tick["reason"].as_str()), (Some("stale"), Some("stale")));
    let drift = tick["findings"].as_array().unwrap().iter().find(|f| f["code"] == "triad_changed").unwrap();
    assert_eq!(
        (drift["expected"].as_str(), drift["found"].as_str()),
        (Some(closed_with.as_str()), Some(triad(&p).as_str()))
    );
    // The modes over commits hold the bug task commit to the head's triad too.
    let allowed = p.allowed.to_str().unwrap();
    for mode in ["HEAD~1", "HEAD~2..HEAD"] {
        let commits =
            p.run(&["attest", "verify", mode, "--json", "--allowed-signers", allowed]).expect(26).json();
        let tick = &commits["ticks"][0];
        assert_eq!(
            (tick["outcome"].as_str(), tick["reason"].as_str()),
            (Some("stale"), Some("stale")),
            "{mode}"
        );
        assert!(
            tick["findings"].as_array().unwrap().iter().any(|f| f["code"] == "triad_changed"),
            "{mode}: {tick:#}"
        );
    }
}

#[test]
fn a_triad_edited_on_a_later_branch_is_found_through_its_home() {
    let p = Project::new();
    p.attest(TARGET, json!({}));
    p.git(&["checkout", "-q", "main"]);
    p.git(&["merge", "-q", "--ff-only", "feature"]);
    p.git(&["checkout", "-q", "-b", "later"]);
    p.write(&format!("{HOME}/test.md"), "# Test: another test\n");
    p.commit_all("Change the bug's test");
    let v = p.verify(&[]).expect(26).json();
    assert_eq!(row(&v, TARGET)["outcome"], "stale");
    // Without a change to the home, a bug closed before the base is not this branch's business.
    p.git(&["checkout", "-q", "-b", "unrelated", "main"]);
    p.write("README.md", "hello\n");
    p.commit_all("Unrelated");
    assert_eq!(p.verify(&[]).code, 15);
}

#[test]
fn a_forged_triad_in_a_resigned_note_is_a_mismatch() {
    let p = Project::new();
    p.attest(TARGET, json!({}));
    let lines: Vec<String> = p.note("HEAD").lines().map(str::to_owned).collect();
    let mut statements = p.statements("HEAD");
    let at = statements
        .iter()
        .position(|s| s["predicateType"] == "https://speccoder.dev/task-verification/v0")
        .unwrap();
    statements[at]["predicate"]["bug"]["triad_sha256"] = Value::String("1".repeat(64));
    // Every line re-signed, the summary naming the forged line: only the anchor is wrong.
    let forged = p.signed_line(&statements[at]);
    let digest = speccoder_attest::model::digest::sha256_hex(
        speccoder_attest::model::dsse::Envelope::parse(forged.as_bytes()).unwrap().payload,
    );
    let last = statements.len() - 1;
    for input in statements[last]["predicate"]["inputAttestations"].as_array_mut().unwrap() {
        if input["name"] == "task-verification" {
            input["digest"]["sha256"] = Value::String(digest.clone());
        }
    }
    let summary = p.signed_line(&statements[last]);
    let mut new_lines = lines;
    new_lines[at] = forged;
    new_lines[last] = summary;
    p.set_note("HEAD", &new_lines);
    let v = p.verify(&[]).expect(26).json();
    let tick = row(&v, TARGET);
    assert_eq!(tick["reason"], "mismatch");
    assert!(codes(tick).contains(&"triad_mismatch".to_owned()), "{tick:#}");
}

#[test]
fn bad_bug_closures_are_refused_and_nothing_is_written() {
    let p = Project::new();
    std::fs::remove_file(p.root.join(".specify/bugs/duplicate-tag-case/fix.md")).unwrap();
    p.commit_all("Drop the fix");
    let before = p.snapshot();
    let evidence = p.evidence(TARGET, json!({}));
    let out = p.signed(&["attest", TARGET, "--evidence", evidence.to_str().unwrap()]).expect(13);
    assert!(out.stderr.contains(".specify/bugs/duplicate-tag-case/fix.md"), "{}", out.stderr);
    let unknown = p.evidence("999-nothing/bug:duplicate-tag-case", json!({}));
    let out =
        p.signed(&["attest", "999-nothing/bug:duplicate-tag-case", "--evidence", unknown.to_str().unwrap()]);
    assert!(out.expect(2).stderr.contains("unit `999-nothing` not found"));
    let not_object = p.evidence(TARGET, json!({ "bug": ["x"] }));
    p.git(&["checkout", "-q", "HEAD^", "--", ".specify"]);
    let out = p.signed(&["attest", TARGET, "--evidence", not_object.to_str().unwrap()]).expect(13);
    assert!(out.stderr.contains("`bug` field must be a JSON object"), "{}", out.stderr);
    p.git(&["reset", "-q", "--hard"]);
    assert_eq!(p.snapshot(), before);
}

#[test]
fn closing_an_unchanged_bug_again_is_refused_but_a_reopened_one_can_be_closed() {
    let p = Project::new();
    p.attest(TARGET, json!({}));
    let before = p.snapshot();
    let evidence = p.evidence(TARGET, json!({}));
    let out = p.signed(&["attest", TARGET, "--evidence", evidence.to_str().unwrap()]).expect(14);
    assert!(out.stderr.contains("was closed already"), "{}", out.stderr);
    assert_eq!(p.snapshot(), before);
    p.write(&format!("{HOME}/assessment.md"), "# It came back\n");
    p.commit_all("Reopen the bug");
    assert_eq!(p.verify(&[]).expect(26).json()["ticks"][0]["outcome"], "stale");
    p.attest(TARGET, json!({}));
    assert_eq!(row(&p.verify(&[]).expect(0).json(), TARGET)["outcome"], "evidenced");
}

/// A closing commit rewritten by an amend has no note, and its evidence is on the old commit:
/// verify says to carry it (there is nothing to fetch), and carry does. When the bug home changed
/// underneath a rewrite, carry refuses with the steps that close the bug again (a bug task has no
/// box to clear).
#[test]
fn a_rewritten_bug_closing_is_told_to_carry_and_a_changed_home_to_close_it_again() {
    let p = Project::new();
    p.attest(TARGET, json!({}));
    let message = p.git(&["log", "-1", "--format=%B"]);
    p.git(&["commit", "-q", "--allow-empty", "--amend", "--date=2030-01-01T00:00:00", "-m", &message]);
    let v = p.verify(&[]).expect(26).json();
    let finding =
        row(&v, TARGET)["findings"].as_array().unwrap().iter().find(|f| f["code"] == "note_missing").cloned();
    let text = finding.unwrap()["message"].as_str().unwrap().to_owned();
    assert!(text.contains("run `speccoder attest carry`") && !text.contains("attest fetch"), "{text}");
    let allowed = p.allowed.to_str().unwrap();
    p.signed(&["attest", "carry", "--allowed-signers", allowed]).expect(0);
    assert_eq!(row(&p.verify(&[]).expect(0).json(), TARGET)["outcome"], "evidenced");

    // The home changed in the same rewrite: carry refuses, and says how to close the bug again.
    let old = p.git(&["rev-parse", "HEAD"]);
    p.write(&format!("{HOME}/fix.md"), "# Fix: a different fix\n");
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "--amend", "-m", &message]);
    let new = p.git(&["rev-parse", "HEAD"]);
    let out =
        p.signed(&["attest", "carry", "--from", &old, "--to", &new, "--allowed-signers", allowed]).expect(26);
    assert!(out.stdout.contains("to close it again"), "{}", out.stdout);
    assert!(!out.stdout.contains("clear its box"), "{}", out.stdout);
}

#[test]
fn a_verifier_policy_judges_a_bug_by_its_slug_never_by_the_unit_its_closing_names() {
    let p = Project::new();
    p.write("src/tags/store.rs", "// normalise before comparing\n");
    p.git(&["add", "src/tags/store.rs"]);
    p.attest(TARGET, json!({})).expect(0);
    let policy = |text: &str| {
        let path = p.outside.join("policy.toml");
        std::fs::write(&path, format!("version = 1\n{text}")).unwrap();
        path
    };
    let strict_bugs = policy(
        "[[rule]]\nname = \"bugs\"\nunits = [\"bug:*\"]\nphases = [\"held_out\"]\n\
         [[rule]]\nname = \"lenient\"\nunits = [\"*\"]\n",
    );
    let v = p.verify(&["--policy", strict_bugs.to_str().unwrap()]).expect(26).json();
    let tick = row(&v, TARGET);
    assert_eq!(tick["rule"], "bugs", "{tick:#}");
    assert_eq!(codes(tick)[0], "policy_phase", "{tick:#}");
    // A policy whose rules name units only has no rule for a bug: it is not waved through.
    let units_only = policy("[[rule]]\nname = \"bookmarks\"\nunits = [\"001-*\"]\n");
    let v = p.verify(&["--policy", units_only.to_str().unwrap()]).expect(26).json();
    assert_eq!(codes(row(&v, TARGET))[0], "policy_no_rule", "{v:#}");
}

/// The published speccoder's name of the fixture's bug, kept as a regression test: task
/// `bug:<slug>` of its unit `bugs/<slug>`, the home `.specify/bugs/<slug>`.
const PUBLISHED: &str = "bugs/duplicate-tag-case/bug:duplicate-tag-case";

/// A commit the published speccoder's `bug keep` makes for the fixture's bug, with the signed
/// decision it writes for it (its triad digest, of what the assessment says, is not ours), under
/// `policy_sha256`.
fn published_bug_kept(p: &Project, policy_sha256: &Value) -> String {
    let triad = format!("sha256:{}", "2".repeat(64));
    p.write("tests/tags_case.rs", "#[test]\nfn one_tag_per_case() {}\n");
    p.git(&["add", "-A"]);
    let message = format!(
        "speccoder: bug:{BUG} kept as a regression test by Ada (asserted)\n\nTags lose their case\n\nfixed upstream\n\nSpec-Task: {PUBLISHED}\nVerdict: attested\nAccepted-By: Ada (asserted)\nReason: fixed upstream\nBug: already_satisfied (native_speckit_bug) triad={triad}\n"
    );
    p.git(&["commit", "-q", "-m", &message]);
    let commit = p.git(&["rev-parse", "HEAD"]);
    let decision = json!({
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{ "name": PUBLISHED, "digest": { "gitCommit": commit } }],
        "predicateType": "https://speccoder.dev/task-verification/v0",
        "predicate": {
            "revision": 3, "verdict": "attested",
            "unit": { "format": "speckit", "feature": format!("bugs/{BUG}"), "dir": ".specify/bugs" },
            "task": { "id": format!("bug:{BUG}"), "line_hash": "", "title": "Tags lose their case" },
            "tree": p.git(&["rev-parse", "HEAD^{tree}"]),
            "decider": { "by": "Ada (asserted)", "reason": "fixed upstream" },
            "policy_sha256": policy_sha256, "time": "2026-12-07T10:00:00Z",
            "bug": { "home": "native_speckit_bug", "triad_sha256": triad, "outcome": "already_satisfied" },
            "acceptance": { "source": "kept_regression_test" },
        },
    });
    p.set_note("HEAD", &[p.signed_line(&decision)]);
    commit
}

/// `Spec-Task: bugs/<slug>/bug:<slug>` is one name (the published speccoder's unit `bugs/<slug>`
/// has a `/`), not two: `attest verify` of the commit, and `--branch` alone and beside a bug
/// closing of our own, each give it a row that says its anchor is not one this verifier checks,
/// and fails; the rest of its note holds. Our own closing of the same bug stays evidenced, and
/// carry refuses to re-sign the record, saying how to close the bug with ours.
#[test]
fn the_published_speccoder_s_kept_bug_is_one_task_and_a_row_that_fails_never_passed_over() {
    let p = Project::new();
    // The policy digest of this configuration, as our own closing signs it, then taken back.
    p.attest(TARGET, json!({}));
    let policy_sha256 = task_verification(&p, "HEAD")["policy_sha256"].clone();
    p.git(&["reset", "-q", "--hard", "HEAD^"]);
    let kept = published_bug_kept(&p, &policy_sha256);
    let published_row = |report: &Value| {
        let tick = row(report, PUBLISHED).clone();
        assert_eq!(tick["outcome"], "unverifiable", "{tick:#}");
        assert_eq!(tick["commit"], kept.as_str());
        let failing: Vec<&Value> =
            tick["findings"].as_array().unwrap().iter().filter(|f| f["outcome"] != "ok").collect();
        assert_eq!(failing.len(), 1, "{tick:#}");
        assert_eq!(failing[0]["code"], "published_bug_unanchored", "{tick:#}");
        let message = failing[0]["message"].as_str().unwrap();
        assert!(
            message.contains(HOME) && message.contains("attest <unit>/bug:duplicate-tag-case"),
            "{message}"
        );
    };

    let allowed = p.allowed.to_str().unwrap();
    published_row(
        &p.run(&["attest", "verify", &kept, "--json", "--allowed-signers", allowed]).expect(26).json(),
    );
    let alone = p.verify(&[]).expect(26).json();
    assert_eq!(alone["totals"]["checked"], 1, "{alone:#}");
    published_row(&alone);

    p.attest(TARGET, json!({}));
    let beside = p.verify(&[]).expect(26).json();
    published_row(&beside);
    assert_eq!(row(&beside, TARGET)["outcome"], "evidenced");
    let everything =
        p.run(&["attest", "verify", "--branch", "--all", "--json", "--allowed-signers", allowed]);
    published_row(&everything.expect(26).json());

    // Carry does not re-sign it after a rewrite, and says how to close the bug with our record.
    p.git(&["checkout", "-q", "-b", "rewritten", &kept]);
    p.git(&["commit", "-q", "--amend", "--no-edit", "--date=2030-01-01T00:00:00"]);
    let new = p.git(&["rev-parse", "HEAD"]);
    let carry = ["attest", "carry", "--from", &kept, "--to", &new, "--allowed-signers", allowed, "--json"];
    let refused = p.signed(&carry).expect(26).json()["refused"][0].clone();
    assert_eq!(refused["code"], "evidence_does_not_hold", "{refused:#}");
    let reason = refused["reason"].as_str().unwrap();
    assert!(reason.contains("published_bug_unanchored"), "{reason}");
    assert!(reason.contains("`speccoder attest <unit>/bug:duplicate-tag-case --evidence"), "{reason}");
}

/// A bug's closing ticks nothing, so a box ticked by hand and staged would be the commit's only
/// tick, with no evidence: refused (14), naming the task, with nothing written.
#[test]
fn a_bug_closing_never_takes_a_staged_hand_tick_and_nothing_is_written() {
    let p = Project::new();
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let open = String::from_utf8(std::fs::read(p.root.join(tasks)).unwrap()).unwrap();
    p.write(tasks, &open.replacen("- [ ] T006", "- [X] T006", 1));
    p.git(&["add", tasks]);
    let before = p.snapshot();
    let evidence = p.evidence(TARGET, json!({}));
    let out = p.signed(&["attest", TARGET, "--evidence", evidence.to_str().unwrap()]).expect(14);
    assert!(out.stderr.contains("would also tick 001-bookmark-tags/T006"), "{}", out.stderr);
    assert!(out.stderr.contains(&format!("`git restore --staged -- {tasks}`")), "{}", out.stderr);
    assert_eq!(p.snapshot(), before);
}
