//! `speccoder accept` and `speccoder skip` end to end: real repositories, real ssh-keygen keys, the
//! built binary, and `attest verify --branch` judging what they wrote (and forgeries of it).

use crate::common;
use crate::decide_support;

use decide_support::{PRINCIPAL, Project, UNIT, codes, row};
use serde_json::Value;
use speccoder_attest::model::dsse::Envelope;

const T001: &str = "001-bookmark-tags/T001";
const T006: &str = "001-bookmark-tags/T006";

fn trailers(p: &Project, rev: &str) -> String {
    p.git(&["log", "-1", "--format=%(trailers:only,unfold)", rev])
}

#[test]
fn an_accepted_task_is_ticked_with_its_decider_and_verifies_as_evidenced() {
    let p = Project::new();
    let out = p.signed(&[
        "accept",
        T001,
        "--reason",
        "set up by hand; nothing to test",
        "--by",
        "Grace Hopper",
        "--json",
    ]);
    let report = out.expect(0).json();
    assert_eq!(report["verdict"], "attested");
    assert_eq!(report["decider"]["by"], "Grace Hopper");
    assert_eq!(p.git(&["rev-parse", "HEAD"]), report["commit"]);
    assert_eq!(
        trailers(&p, "HEAD"),
        "Spec-Task: 001-bookmark-tags/T001\nVerdict: attested\nAccepted-By: Grace Hopper\nReason: set up by hand; nothing to test"
    );
    let tasks = std::fs::read_to_string(p.root.join("specs/001-bookmark-tags/tasks.md")).unwrap();
    assert!(tasks.contains("- [X] T001 Create the tag module skeleton"), "{tasks}");
    assert_eq!(p.git(&["status", "--porcelain"]), "");

    let statements = p.statements("HEAD");
    assert_eq!(statements.len(), 1, "a decision is one task-verification line");
    let predicate = &statements[0]["predicate"];
    assert_eq!(
        predicate["decider"],
        serde_json::json!({ "by": "Grace Hopper", "reason": "set up by hand; nothing to test" })
    );
    assert!(predicate.get("trace").is_none() && predicate.get("spec").is_none(), "{predicate}");

    let verified = p.verify(&[]).expect(0).json();
    let tick = row(&verified, T001);
    assert_eq!(tick["outcome"], "evidenced");
    assert_eq!(tick["verdict"], "attested");
    let shown = tick["findings"][0]["message"].as_str().unwrap();
    assert!(shown.contains("Grace Hopper") && shown.contains("asserted, not proven"), "{shown}");
    assert_eq!(tick["signers"][0]["principals"][0], PRINCIPAL);
    p.fsck();
}

#[test]
fn accept_takes_the_decider_from_git_user_name_when_by_is_absent() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "trivial"]).expect(0);
    assert!(trailers(&p, "HEAD").contains("Accepted-By: Ada Lovelace"));
    let v = p.verify(&["--require-verified"]).expect(26).json();
    assert_eq!(row(&v, T001)["reason"], "not_verified", "--require-verified still fails an attested tick");
}

#[test]
fn a_skip_does_not_tick_and_is_listed_as_skipped_never_as_verified() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    let head = p.git(&["rev-parse", "HEAD"]);
    let report = p
        .signed(&["skip", T006, "--reason", "the list view moves to feature 002", "--json"])
        .expect(0)
        .json();
    let reference = "refs/speccoder/skipped/001-bookmark-tags/T006";
    assert_eq!(report["reference"], reference);
    assert_eq!(p.git(&["rev-parse", "HEAD"]), head, "the branch does not move");
    assert_eq!(p.git(&["status", "--porcelain"]), "");
    let skip = p.git(&["rev-parse", reference]);
    assert_eq!(skip, report["commit"]);
    assert_eq!(p.git(&["rev-parse", &format!("{skip}^")]), head);
    assert_eq!(p.git(&["rev-parse", &format!("{skip}^{{tree}}")]), p.git(&["rev-parse", "HEAD^{tree}"]));
    assert_eq!(
        trailers(&p, &skip),
        "Spec-Task: 001-bookmark-tags/T006\nVerdict: skipped\nSkipped-By: Ada Lovelace\nReason: the list view moves to feature 002"
    );
    let body = p.git(&["log", "-1", "--format=%B", &skip]);
    assert!(body.starts_with("001-bookmark-tags/T006: skip Show each bookmark's tags"), "{body}");
    assert!(body.contains("it stays open"), "{body}");
    let statements = p.statements(&skip);
    assert_eq!(statements.len(), 1);
    assert_eq!(statements[0]["predicate"]["verdict"], "skipped");

    let v = p.verify(&[]).expect(0).json();
    let skipped = row(&v, T006);
    assert_eq!(skipped["outcome"], "skipped");
    assert_eq!(skipped["commit"], skip.as_str());
    assert_eq!(v["totals"]["skipped"], 1);
    assert_eq!(v["totals"]["evidenced"], 1);
    p.fsck();
}

/// `--require-verified` does not accept a skip, but a skip is never anything but `skipped`: the
/// row stays `skipped` with the reason `not_verified`, the totals count it as skipped, and the run
/// fails (26), in JSON, text and Markdown alike, even when the skip is the only row. An `attested`
/// tick stays `unverifiable` (`not_verified`), and a skip commit under a tick is still no tick.
#[test]
fn under_require_verified_a_skip_stays_skipped_counts_as_skipped_and_fails_the_run() {
    let p = Project::new();
    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    let allowed = p.allowed.to_str().unwrap();
    let all = ["attest", "verify", "--branch", "--all", "--allowed-signers", allowed, "--require-verified"];
    let with = |extra: &[&str]| p.run(&[&all[..], extra].concat());

    let only_skip = with(&["--json"]).expect(26).json();
    let skipped = row(&only_skip, T006);
    assert_eq!(skipped["outcome"], "skipped", "{skipped:#}");
    assert_eq!(skipped["reason"], "not_verified", "{skipped:#}");
    assert_eq!(skipped["findings"][0]["code"], "not_verified", "{skipped:#}");
    let message = skipped["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("--require-verified") && message.contains("skip"), "{message}");
    assert_eq!(only_skip["totals"]["skipped"], 1, "{only_skip:#}");
    assert_eq!(only_skip["totals"]["skipped_not_accepted"], 1, "{only_skip:#}");
    assert_eq!(only_skip["totals"]["unverifiable"], 0, "{only_skip:#}");
    p.run(&all[..6]).expect(0); // without --require-verified: only a skip, checked and holding

    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    let v = with(&["--json"]).expect(26).json();
    assert_eq!(row(&v, T006)["outcome"], "skipped", "{v:#}");
    assert_eq!(row(&v, T001)["outcome"], "unverifiable", "an attested tick keeps failing as before");
    assert_eq!(row(&v, T001)["reason"], "not_verified");
    assert_eq!(v["totals"]["skipped"], 1, "{v:#}");
    assert_eq!(v["totals"]["unverifiable"], 1, "{v:#}");

    let text = with(&[]).expect(26).stdout;
    assert!(
        text.lines().any(|l| l.starts_with("skipped") && l.contains(T006) && l.ends_with("(not_verified)")),
        "{text}"
    );
    assert!(
        text.contains("2 checked: 0 evidenced, 0 stale, 1 unverifiable, 1 skipped (1 not accepted by --require-verified)"),
        "{text}"
    );
    let md = p.outside.join("report.md");
    with(&["--markdown", md.to_str().unwrap()]).expect(26);
    let md = std::fs::read_to_string(md).unwrap();
    assert!(
        md.contains("| skipped | ` 001-bookmark-tags/T006 ` |")
            && md.contains("` not_verified: --require-verified"),
        "{md}"
    );
}

#[test]
fn a_skip_of_an_openspec_task_escapes_the_dot_in_its_ref_name() {
    let p = Project::from_fixture("openspec");
    let change = p.git(&["ls-tree", "--name-only", "HEAD", "openspec/changes/"]);
    let unit =
        change.lines().map(|l| l.trim_start_matches("openspec/changes/")).find(|u| *u != "archive").unwrap();
    let target = format!("{unit}/1.1");
    p.signed(&["skip", &target, "--reason", "not needed"]).expect(0);
    let reference = format!("refs/speccoder/skipped/{unit}/1%2E1");
    let skip = p.git(&["rev-parse", &reference]);
    assert!(trailers(&p, &skip).contains(&format!("Spec-Task: {target}")));
    p.git(&["check-ref-format", &reference]);
    let allowed = p.allowed.to_str().unwrap();
    let v = p.run(&["attest", "verify", "--branch", "--all", "--json", "--allowed-signers", allowed]).json();
    assert_eq!(row(&v, &target)["outcome"], "skipped");
}

#[test]
fn a_skip_ref_the_published_tool_names_by_its_task_id_unescaped_is_one_skip_of_that_task() {
    let p = Project::from_fixture("openspec");
    let change = p.git(&["ls-tree", "--name-only", "HEAD", "openspec/changes/"]);
    let unit =
        change.lines().map(|l| l.trim_start_matches("openspec/changes/")).find(|u| *u != "archive").unwrap();
    let target = format!("{unit}/1.1");
    p.signed(&["skip", &target, "--reason", "not needed"]).expect(0);
    let escaped = format!("refs/speccoder/skipped/{unit}/1%2E1");
    let published = format!("refs/speccoder/skipped/{unit}/1.1");
    let skip = p.git(&["rev-parse", &escaped]);
    let allowed = p.allowed.to_str().unwrap();
    let verify = |code| {
        let v = p.run(&["attest", "verify", "--branch", "--all", "--json", "--allowed-signers", allowed]);
        let v = v.expect(code).json();
        let rows: Vec<Value> =
            v["ticks"].as_array().unwrap().iter().filter(|t| t["task"] == *target).cloned().collect();
        assert_eq!(rows.len(), 1, "one row for the task: {v:#}");
        rows[0].clone()
    };

    // The ref as speccoder 0.9.0 names it, the dot unescaped: the skip it points at.
    p.git(&["update-ref", &published, &skip]);
    p.git(&["update-ref", "-d", &escaped]);
    assert_eq!(verify(0)["outcome"], "skipped");

    // Both spellings at one commit: one skip, listed once.
    p.git(&["update-ref", &escaped, &skip]);
    assert_eq!(verify(0)["outcome"], "skipped");

    // Our own skip and undo know the published spelling: undo deletes both, naming each, since
    // the skip stays in force while either names it.
    let undone = p.run(&["skip", &target, "--undo"]).expect(0);
    for reference in [&escaped, &published] {
        assert!(undone.stdout.contains(&format!("deleted {reference} (was")), "{}", undone.stdout);
    }
    assert!(p.git(&["for-each-ref", "refs/speccoder/skipped/"]).is_empty(), "both spellings undone");
    let v = p.run(&["attest", "verify", "--branch", "--all", "--json", "--allowed-signers", allowed]);
    let v = v.expect(15).json();
    assert_eq!(v["ticks"], serde_json::json!([]), "nothing left to check: {v:#}");

    // A skip while the published spelling stands is a skip already; undo takes it alone too.
    p.git(&["update-ref", &published, &skip]);
    let again = p.signed(&["skip", &target, "--reason", "not needed at all"]).expect(14);
    assert!(
        again.stderr.contains("skipped already") && again.stderr.contains(&published),
        "{}",
        again.stderr
    );
    let undone = p.run(&["skip", &target, "--undo", "--json"]).expect(0).json();
    assert_eq!(undone["deleted"].as_array().map(Vec::len), Some(1), "{undone:#}");
    assert_eq!(undone["deleted"][0]["reference"], published.as_str());
    assert!(p.git(&["for-each-ref", "refs/speccoder/skipped/"]).is_empty(), "both spellings undone");

    // At two commits: two skips of one task, one row, refused as a conflict naming both refs.
    p.signed(&["skip", &target, "--reason", "not needed at all"]).expect(0);
    p.git(&["update-ref", &published, &skip]);
    assert_ne!(p.git(&["rev-parse", &escaped]), skip);
    let conflict = verify(26);
    assert_eq!(
        (conflict["outcome"].as_str(), conflict["reason"].as_str()),
        (Some("unverifiable"), Some("two_skips"))
    );
    let message = conflict["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains(&escaped) && message.contains(&published), "{message}");

    // An unescaped part that is no task id of the change is still no skip ref.
    p.git(&["update-ref", "-d", &escaped]);
    p.git(&["update-ref", &format!("refs/speccoder/skipped/{unit}/1.x"), &skip]);
    let v = p
        .run(&["attest", "verify", "--branch", "--all", "--json", "--allowed-signers", allowed])
        .expect(26)
        .json();
    assert_eq!(row(&v, &format!("{unit}/1.x"))["reason"], "bad_skip_ref");
    assert_eq!(row(&v, &target)["outcome"], "skipped");
}

#[test]
fn undo_deletes_the_skip_and_the_report_no_longer_lists_it() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    let out = p.run(&["skip", T006, "--undo", "--json"]).expect(0).json();
    assert_eq!(out["deleted"][0]["reference"], "refs/speccoder/skipped/001-bookmark-tags/T006");
    assert_eq!(out["on_remotes"], serde_json::json!([]), "no remote held it");
    assert!(
        !p.git_output(&["rev-parse", "--verify", "-q", "refs/speccoder/skipped/001-bookmark-tags/T006"])
            .status
            .success()
    );
    let v = p.verify(&[]).expect(0).json();
    assert!(v["ticks"].as_array().unwrap().iter().all(|t| t["task"] != T006), "{v:#}");
    // A skip can be recorded anew after an undo.
    p.signed(&["skip", T006, "--reason", "later still"]).expect(0);
}

#[test]
fn a_decision_note_with_a_test_result_line_is_rejected() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    let commit = p.git(&["rev-parse", "HEAD"]);
    let decision = p.note("HEAD");
    let test_result = serde_json::json!({
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [ { "name": T001, "digest": { "gitCommit": commit } } ],
        "predicateType": "https://in-toto.io/attestation/test-result/v0.1",
        "predicate": {
            "result": "PASSED",
            "configuration": [ { "name": "speccoder:phase/green", "digest": { "sha256": "a".repeat(64) } } ],
            "passedTests": ["tests/tags.rs"], "failedTests": [], "warnedTests": []
        }
    });
    p.set_note("HEAD", &[decision, p.signed_line(&test_result)]);
    let v = p.verify(&[]).expect(26).json();
    let tick = row(&v, T001);
    assert_eq!(tick["outcome"], "unverifiable");
    assert!(codes(tick).contains(&"decision_with_evidence".to_owned()), "{tick:#}");
}

/// A decision whose unsigned line someone filled with test evidence (a trace, a mutation score, a
/// clean monitor, a strength) is neither signed by `attest sign` nor evidenced by `attest verify`,
/// signed or not: a person's word must not pass a policy that asks for test evidence.
#[test]
fn a_decision_filled_with_test_evidence_is_neither_signed_nor_evidenced() {
    let p = Project::new();
    p.run(&["accept", T001, "--reason", "no tests", "--signer", "none"]).expect(0);
    let mut statement = p.statements("HEAD").remove(0);
    let predicate = statement["predicate"].as_object_mut().unwrap();
    predicate.insert("mutation".into(), serde_json::json!({ "caught": 50, "missed": 0 }));
    predicate.insert("monitor".into(), serde_json::json!({ "state": "clean", "findings": [] }));
    predicate.insert("strength".into(), serde_json::json!({ "combined": { "share": 1 } }));
    predicate.insert("run".into(), Value::Null);
    let unsigned = Envelope::unsigned(serde_json::to_vec(&statement).unwrap()).to_line();
    p.set_note("HEAD", &[String::from_utf8(unsigned).unwrap()]);
    let before = p.note("HEAD");

    let out = p.signed(&["attest", "sign"]).expect(26);
    assert!(out.stderr.contains("decision_with_tick_fields"), "{}", out.stderr);
    assert!(
        out.stderr.contains("found monitor, mutation, strength]"),
        "a null run claims nothing: {}",
        out.stderr
    );
    assert_eq!(p.note("HEAD"), before, "nothing signed");

    p.set_note("HEAD", &[p.signed_line(&statement)]);
    let v = p.verify(&[]).expect(26).json();
    let tick = row(&v, T001);
    assert_eq!(tick["reason"], "mismatch", "{tick:#}");
    assert!(codes(tick).contains(&"decision_with_tick_fields".to_owned()), "{tick:#}");
}

/// `attest sign` asks the claim question the verifier asks: a merge carrying a decision's
/// trailers, or a message with two `Verdict:` trailers, is not one plain claim, and its note,
/// however well it agrees otherwise, is not signed.
#[test]
fn attest_sign_refuses_a_commit_the_verifier_calls_not_one_claim() {
    let p = Project::new();
    p.run(&["accept", T001, "--reason", "no tests", "--signer", "none"]).expect(0);
    let statement = p.statements("HEAD").remove(0);
    let message = p.git(&["log", "-1", "--format=%B"]);
    let twice = message.replace("Verdict: attested", "Verdict:\nVerdict: attested");
    let amended = p.git(&["commit-tree", "HEAD^{tree}", "-p", "HEAD^", "-m", &twice]);
    p.git(&["checkout", "-q", "-b", "side", "HEAD^"]);
    p.git(&["commit", "-q", "--allow-empty", "-m", "side"]);
    p.git(&["checkout", "-q", "feature"]);
    p.git(&["merge", "-q", "--no-ff", "-m", &message, "side"]);
    let merge = p.git(&["rev-parse", "HEAD"]);
    for (commit, problem) in [(amended, "2 Verdict: trailers"), (merge, "a merge commit (2 parents)")] {
        let mut line = statement.clone();
        line["subject"][0]["digest"] = serde_json::json!({ "gitCommit": commit });
        line["predicate"]["tree"] = Value::String(p.git(&["rev-parse", &format!("{commit}^{{tree}}")]));
        let unsigned = Envelope::unsigned(serde_json::to_vec(&line).unwrap()).to_line();
        p.set_note(&commit, &[String::from_utf8(unsigned).unwrap()]);
        let before = p.note(&commit);
        let out = p.signed(&["attest", "sign", &commit]).expect(14);
        assert!(out.stderr.contains("not_one_claim") && out.stderr.contains(problem), "{}", out.stderr);
        assert_eq!(p.note(&commit), before, "nothing signed");
    }
}

/// A rebase that rewords a decision's `Reason:` leaves a commit whose trailers the signed decider
/// no longer matches: carry refuses that task by name (exit 26, restore the trailer) and carries
/// the others.
#[test]
fn carry_refuses_a_reworded_reason_by_name_and_carries_the_other_decisions() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "no tests"]).expect(0);
    p.signed(&["accept", "001-bookmark-tags/T002", "--reason", "fixtures only"]).expect(0);
    let (first, second) = (p.git(&["rev-parse", "HEAD~1"]), p.git(&["rev-parse", "HEAD"]));
    p.git(&["checkout", "-q", "--detach", "main"]);
    p.write("unrelated.txt", "meanwhile\n");
    p.commit_all("an unrelated change below both decisions");
    p.git(&["cherry-pick", &first, &second]);
    let reworded =
        p.git(&["log", "-1", "--format=%B"]).replace("Reason: fixtures only", "Reason: fixtures, reviewed");
    p.git(&["commit", "-q", "--amend", "-m", &reworded]);
    p.git(&["checkout", "-q", "-B", "feature"]);

    let allowed = p.allowed.to_str().unwrap();
    let out = p.signed(&["attest", "carry", "--allowed-signers", allowed, "--json"]).expect(26);
    let report = out.json();
    let refused = &report["refused"][0];
    assert_eq!(refused["target"], "001-bookmark-tags/T002", "{report:#}");
    assert_eq!(refused["code"], "decision_differs", "{report:#}");
    let reason = refused["reason"].as_str().unwrap();
    assert!(
        reason.contains("Reason: `fixtures, reviewed`") && reason.contains("restore the trailer"),
        "{reason}"
    );
    assert_eq!(report["carried"][0]["target"], T001, "{report:#}");
    let v = p.verify(&[]).expect(26).json();
    assert_eq!(row(&v, T001)["outcome"], "evidenced", "{v:#}");
}

/// A task commit amended to name a second task (a second `Spec-Task:` trailer, or one folded onto
/// the first) is named as what it is: verify's row for the ticked task says `not_one_claim` and
/// names the commit, never "no commit names it any more", and carry refuses it by name instead of
/// finding nothing to carry.
#[test]
fn a_second_task_named_on_a_decision_commit_is_reported_and_refused_as_not_one_claim() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "no tests"]).expect(0);
    let message = p.git(&["log", "-1", "--format=%B"]);
    let allowed = p.allowed.to_str().unwrap();
    for second in ["\nSpec-Task: 001-bookmark-tags/T002", "\n  001-bookmark-tags/T002"] {
        let amended = message.replace(&format!("Spec-Task: {T001}"), &format!("Spec-Task: {T001}{second}"));
        p.git(&["commit", "-q", "--amend", "-m", &amended]);
        let commit = p.git(&["rev-parse", "HEAD"]);
        let v = p.verify(&[]).expect(26).json();
        let tick = row(&v, T001);
        assert_eq!(tick["reason"], "not_one_claim", "{second:?}: {tick:#}");
        assert_eq!(tick["commit"], commit.as_str(), "{tick:#}");
        assert_eq!(tick["findings"][0]["outcome"], "malformed", "{tick:#}");

        let report = p.signed(&["attest", "carry", "--allowed-signers", allowed, "--json"]).expect(26).json();
        let refused = &report["refused"][0];
        assert_eq!(
            (refused["target"].as_str(), refused["code"].as_str()),
            (Some(T001), Some("not_one_claim"))
        );
        assert_eq!(refused["to"], commit.as_str(), "{report:#}");
    }
}

/// A decision reworded to give a second decider above the signed one (an `Accepted-By:` and
/// `Reason:` pair nobody signed), or the other decision's `Skipped-By:`, names more than one
/// decider, as `git log` shows: verify's row says `not_one_claim`, never `evidenced`, and carry
/// refuses it by name instead of carrying the signed decision onto it.
#[test]
fn a_second_or_foreign_decider_on_a_decision_commit_is_not_one_claim_for_verify_and_carry() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    let message = p.git(&["log", "-1", "--format=%B"]);
    let signed = format!("Accepted-By: {}\nReason: by hand", p.git(&["config", "user.name"]));
    let allowed = p.allowed.to_str().unwrap();
    let second = "Accepted-By: Security Team\nReason: reviewed by the security team\n";
    for (added, problem) in
        [(second, "2 Accepted-By: trailers"), ("Skipped-By: Security Team\n", "a Skipped-By: trailer")]
    {
        let amended = message.replace(&signed, &format!("{added}{signed}"));
        assert_ne!(amended, message);
        p.git(&["commit", "-q", "--amend", "-m", &amended]);
        let commit = p.git(&["rev-parse", "HEAD"]);
        let report = p.signed(&["attest", "carry", "--allowed-signers", allowed, "--json"]).expect(26).json();
        let refused = &report["refused"][0];
        assert_eq!(
            (refused["target"].as_str(), refused["code"].as_str(), refused["to"].as_str()),
            (Some(T001), Some("not_one_claim"), Some(commit.as_str())),
            "{report:#}"
        );
        assert!(refused["reason"].as_str().unwrap().contains(problem), "{report:#}");
        let v = p.verify(&[]).expect(26).json();
        let tick = row(&v, T001);
        assert_eq!(tick["outcome"], "unverifiable", "{tick:#}");
        assert_eq!(tick["findings"][0]["code"], "not_one_claim", "{tick:#}");
        assert!(tick["findings"][0]["message"].as_str().unwrap().contains(problem), "{tick:#}");
    }
}

/// A `Held-Out:` trailer claims a held-out result, a `Run:` trailer a run and a `Regression-Only:`
/// trailer why a tick had no red run; a decision has none of them to claim.
#[test]
fn a_decision_commit_with_a_held_out_run_or_regression_only_trailer_is_a_mismatch() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    let mut statement = p.statements("HEAD").remove(0);
    let claim = format!(
        "Held-Out: passed=3/3 manifest=sha256:{}\nRun: run-1\nRegression-Only: already_passing",
        "a".repeat(64)
    );
    let message = format!("{}\n{claim}\n", p.git(&["log", "-1", "--format=%B"]));
    let forged = p.git(&["commit-tree", "HEAD^{tree}", "-p", "HEAD^", "-m", &message]);
    assert!(trailers(&p, &forged).ends_with(&claim), "{}", trailers(&p, &forged));
    p.git(&["update-ref", "refs/heads/feature", &forged]);
    statement["subject"][0]["digest"]["gitCommit"] = Value::String(forged.clone());
    p.set_note(&forged, &[p.signed_line(&statement)]);
    let v = p.verify(&[]).expect(26).json();
    let tick = row(&v, T001);
    let finding =
        tick["findings"].as_array().unwrap().iter().find(|f| f["code"] == "decision_with_tick_fields");
    let found = finding.and_then(|f| f["found"].as_str());
    assert_eq!(
        found,
        Some("the Held-Out: trailer, the Run: trailer, the Regression-Only: trailer"),
        "{tick:#}"
    );
}

#[test]
fn an_accepted_by_trailer_that_differs_from_the_signed_decider_is_a_mismatch() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand", "--by", "Ada"]).expect(0);
    let mut statement = p.statements("HEAD").remove(0);
    let message = p.git(&["log", "-1", "--format=%B"]).replace("Accepted-By: Ada", "Accepted-By: Mallory");
    let forged = p.git(&["commit-tree", "HEAD^{tree}", "-p", "HEAD^", "-m", &message]);
    p.git(&["update-ref", "refs/heads/feature", &forged]);
    statement["subject"][0]["digest"]["gitCommit"] = Value::String(forged.clone());
    p.set_note(&forged, &[p.signed_line(&statement)]);
    let v = p.verify(&[]).expect(26).json();
    let tick = row(&v, T001);
    assert_eq!(tick["reason"], "mismatch");
    let finding =
        tick["findings"].as_array().unwrap().iter().find(|f| f["code"] == "decider_mismatch").unwrap();
    assert_eq!((finding["expected"].as_str(), finding["found"].as_str()), (Some("Ada"), Some("Mallory")));
}

#[test]
fn a_skip_ref_at_a_commit_without_a_decision_note_is_unverifiable() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    // A skip commit without its note, a commit that is no task commit at all, and a commit whose
    // note is an accept rather than a skip.
    let message =
        "Skip T006\n\nSpec-Task: 001-bookmark-tags/T006\nVerdict: skipped\nSkipped-By: Ada\nReason: r\n";
    let bare = p.git(&["commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", message]);
    p.git(&["update-ref", "refs/speccoder/skipped/001-bookmark-tags/T006", &bare]);
    p.git(&["update-ref", "refs/speccoder/skipped/001-bookmark-tags/T005", "HEAD^"]);
    p.git(&["update-ref", "refs/speccoder/skipped/001-bookmark-tags/T007", "HEAD"]);
    let v = p.verify(&[]).expect(26).json();
    let no_note = row(&v, T006);
    assert_eq!(
        (no_note["outcome"].as_str(), no_note["reason"].as_str()),
        (Some("unverifiable"), Some("missing"))
    );
    assert!(codes(no_note).contains(&"note_missing".to_owned()), "{no_note:#}");
    let no_task_commit = row(&v, "001-bookmark-tags/T005");
    assert_eq!(no_task_commit["outcome"], "unverifiable");
    assert!(codes(no_task_commit).contains(&"no_spec_task".to_owned()), "{no_task_commit:#}");
    let not_a_skip = row(&v, "001-bookmark-tags/T007");
    assert_eq!(not_a_skip["outcome"], "unverifiable");
    let found = codes(not_a_skip);
    assert!(
        found.contains(&"skip_ref_mismatch".to_owned()) && found.contains(&"not_a_skip".to_owned()),
        "{found:?}"
    );
}

/// T006, skipped at `skip_ref`, ticked by hand and committed: verify fails (26) with two rows of
/// it, the tick `ticked_without_evidence` (a skip record is no evidence left behind) naming the
/// skip record, then the skip. The report.
fn t006_ticked_by_hand_beside_its_skip(p: &Project, skip_ref: &str) -> Value {
    let tasks = p.root.join("specs/001-bookmark-tags/tasks.md");
    let text = std::fs::read_to_string(&tasks).unwrap().replace("- [ ] T006", "- [X] T006");
    std::fs::write(&tasks, text).unwrap();
    p.commit_all("Tick T006 by hand");
    let v = p.verify(&[]).expect(26).json();
    let rows: Vec<&Value> = v["ticks"].as_array().unwrap().iter().filter(|t| t["task"] == T006).collect();
    assert_eq!(rows.len(), 2, "{v:#}");
    assert_eq!(rows[0]["reason"], "ticked_without_evidence", "a skip record is no evidence left behind");
    let message = rows[0]["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains(&format!("`git show {skip_ref}`")), "names the skip record: {message}");
    v
}

#[test]
fn a_task_ticked_by_hand_after_its_skip_is_ticked_without_evidence_not_left_behind() {
    let p = Project::new();
    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    let v = t006_ticked_by_hand_beside_its_skip(&p, "refs/speccoder/skipped/001-bookmark-tags/T006");
    let rows: Vec<&Value> = v["ticks"].as_array().unwrap().iter().filter(|t| t["task"] == T006).collect();
    assert_eq!(rows[1]["outcome"], "skipped");
    assert!(codes(rows[1]).contains(&"skip_obsolete".to_owned()), "{:#}", rows[1]);
}

#[test]
fn a_task_ticked_by_hand_after_the_published_tool_s_skip_is_ticked_without_evidence_not_left_behind() {
    let p = Project::new();
    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    // The skip record as speccoder 0.9.0 writes it: no parent, no `Verdict:`, its note beside it.
    let skip_ref = "refs/speccoder/skipped/001-bookmark-tags/T006";
    let ours = p.git(&["rev-parse", skip_ref]);
    let message = format!(
        "speccoder: skip T006\n\nlater\n\nSpec-Task: {T006}\nSkipped-By: Ada (asserted)\nReason: later\n"
    );
    let published = p.git(&["commit-tree", "HEAD^{tree}", "-m", &message]);
    p.git(&["notes", "--ref=speccoder", "copy", &ours, &published]);
    p.git(&["update-ref", skip_ref, &published]);
    t006_ticked_by_hand_beside_its_skip(&p, skip_ref);

    // A task commit without a note is not told to carry the skip record's note over to it.
    let claim = format!("Do T006\n\nSpec-Task: {T006}\nVerdict: attested\n");
    p.git(&["commit", "-q", "--allow-empty", "-m", &claim]);
    let allowed = p.allowed.to_str().unwrap();
    let v = p.run(&["attest", "verify", "HEAD", "--json", "--allowed-signers", allowed]).json();
    let finding = &v["ticks"][0]["findings"][0];
    assert_eq!(finding["code"], "note_missing", "{v:#}");
    assert!(!finding["message"].as_str().unwrap().contains("carry"), "{finding:#}");
}

#[test]
fn a_skip_commit_put_on_the_branch_does_not_evidence_a_tick() {
    let p = Project::new();
    p.signed(&["skip", T001, "--reason", "later"]).expect(0);
    let skip = p.git(&["rev-parse", "refs/speccoder/skipped/001-bookmark-tags/T001"]);
    p.git(&["merge", "-q", "--ff-only", &skip]);
    let tasks = p.root.join("specs/001-bookmark-tags/tasks.md");
    let text = std::fs::read_to_string(&tasks).unwrap().replace("- [ ] T001", "- [X] T001");
    std::fs::write(&tasks, text).unwrap();
    p.commit_all("Tick T001 by hand");
    let v = p.verify(&[]).expect(26).json();
    let tick = row(&v, T001);
    assert_eq!(tick["outcome"], "unverifiable");
    assert!(codes(tick).contains(&"skip_is_no_tick".to_owned()), "{tick:#}");
}

#[test]
fn bad_decisions_are_refused_with_a_clear_message_and_nothing_written() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    let before = p.snapshot();
    let long_name = "n".repeat(201);
    let long_reason = "r".repeat(2001);
    let cases: [(&[&str], i32, &str); 12] = [
        (&["accept", "001-bookmark-tags/T002", "--reason", "  \n "], 2, "--reason is empty"),
        (&["accept", "001-bookmark-tags/T002", "--reason", "ok", "--by", " \u{7} "], 2, "--by is empty"),
        (
            &["skip", "001-bookmark-tags/T002", "--reason", "ok", "--by", &long_name],
            2,
            "--by is 201 characters as the commit's trailer carries it",
        ),
        (&["skip", "001-bookmark-tags/T002", "--reason", ""], 2, "--reason is empty"),
        (&["accept", "001-bookmark-tags/T002", "--reason", &long_reason], 2, "--reason is longer than 2000"),
        (&["accept", "999-nothing/T002", "--reason", "x"], 2, "unit `999-nothing` not found"),
        (&["skip", "001-bookmark-tags/T099", "--reason", "x"], 2, "task `T099` not found"),
        (&["accept", T001, "--reason", "again"], 14, "already ticked"),
        (&["skip", T001, "--reason", "x"], 14, "only an open task can be skipped"),
        (&["skip", T006, "--undo"], 14, "has no skip to undo"),
        (&["accept", "001-bookmark-tags/bug:duplicate-tag-case", "--reason", "x"], 2, "is a bug task"),
        (&["accept", "no-slash", "--reason", "x"], 2, "is not <unit>/<task>"),
    ];
    for (args, code, message) in cases {
        let out = p.signed(args);
        assert_eq!(out.code, code, "{args:?}: {out:?}");
        assert!(out.stderr.contains(message), "{args:?}: {}", out.stderr);
        assert_eq!(p.snapshot(), before, "{args:?} wrote something");
    }
    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    let before = p.snapshot();
    let twice = p.signed(&["skip", T006, "--reason", "again", "--json"]).expect(14);
    assert_eq!(twice.json()["exit_code"], 14);
    assert!(twice.stderr.contains("skipped already"), "{}", twice.stderr);
    assert_eq!(p.snapshot(), before);
}

/// What `--help` says of `accept` and `skip` is what they do: a reason over 2000 characters and an
/// empty name or one over 200 are usage errors (exit 2), as a bad argument value is; only no name
/// at all (no `--by`, no `user.name`) is configuration (exit 13).
#[test]
fn the_help_of_accept_and_skip_names_the_limits_of_reason_and_by_and_their_exit_codes() {
    let p = Project::new();
    for command in ["accept", "skip"] {
        let help =
            p.run(&[command, "--help"]).expect(0).stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        for said in [
            "an empty reason or one longer than 2000 characters, an empty `--by` or one longer than 200 characters;",
            "13 no name (no `--by` given and no `user.name`)",
            "at most 200 characters",
        ] {
            assert!(help.contains(said), "{command} --help lacks {said:?}: {help}");
        }
    }
    p.git(&["config", "--unset", "user.name"]);
    let out = p.signed(&["accept", T001, "--reason", "ok"]).expect(13);
    assert!(out.stderr.contains("no name to record as the decider"), "{}", out.stderr);
}

/// A decision whose note would be too large for a reader because of the task's title is refused
/// naming the title and the task list it comes from, never an evidence a decision does not have
/// (exit 13), and nothing is written.
#[test]
fn a_decision_whose_note_would_be_too_large_names_the_task_s_title_in_tasks_md_and_writes_nothing() {
    let p = Project::new();
    let tasks = p.root.join("specs/001-bookmark-tags/tasks.md");
    let long = format!("T002 {} ", "A".repeat(800_000));
    std::fs::write(&tasks, std::fs::read_to_string(&tasks).unwrap().replacen("T002 ", &long, 1)).unwrap();
    p.commit_all("A task whose title is long");
    let before = p.snapshot();
    for command in ["accept", "skip"] {
        let out = p.signed(&[command, "001-bookmark-tags/T002", "--reason", "ok"]).expect(13);
        for said in [
            "more than a reader takes",
            "is the task's title (the `predicate.task.title` field of the task-verification statement), which comes from specs/001-bookmark-tags/tasks.md: make that smaller",
        ] {
            assert!(out.stderr.contains(said), "{command}: {said:?} in {}", out.stderr);
        }
        assert!(!out.stderr.contains("evidence"), "{command}: {}", out.stderr);
        assert_eq!(p.snapshot(), before, "{command} wrote something");
    }
}

/// T002's title made so long that the note of its acceptance (signed with the project's key when
/// `signed`) comes to `room` bytes below the longest line a reader takes, give or take a few;
/// returns the decision commit, HEAD. Sized once with a short title, then made with the title
/// that fills the room (a title's character takes 4/3 bytes of the line, as base64), so it holds
/// whatever the statement's other fields take.
fn a_decision_near_the_line_cap(p: &Project, signed: bool, room: usize) -> String {
    let tasks = p.root.join("specs/001-bookmark-tags/tasks.md");
    let original = std::fs::read_to_string(&tasks).unwrap();
    let decide = |title: usize| {
        let long = format!("T002 {} ", "A".repeat(title));
        std::fs::write(&tasks, original.replacen("T002 ", &long, 1)).unwrap();
        p.commit_all("A task whose title is long");
        let args = ["accept", "001-bookmark-tags/T002", "--reason", "ok"];
        let run = if signed { p.signed(&args) } else { p.run(&[&args[..], &["--signer", "none"]].concat()) };
        run.expect(0);
        p.note("HEAD").len()
    };
    let (known, cap) = (1_000, speccoder_attest::model::dsse::MAX_LINE_BYTES);
    let measured = decide(known);
    p.git(&["reset", "-q", "--hard", "HEAD~2"]);
    let line = decide(known + (cap - room - measured) * 3 / 4);
    assert!(line <= cap - room + 8 && line + room + 8 >= cap, "{line} bytes, {room} below {cap}?");
    p.git(&["rev-parse", "HEAD"])
}

/// `attest sign` of a note whose line the signature would make longer than a reader takes names
/// the note's largest part (the task's title, as the note of the commit holds it) and to record
/// the task again, never only that the note is too large (exit 13), and signs nothing.
#[test]
fn attest_sign_of_a_note_a_signature_would_make_too_large_names_its_largest_part_and_signs_nothing() {
    let p = Project::new();
    let commit = a_decision_near_the_line_cap(&p, false, 200);
    let before = p.snapshot();
    let out = p.signed(&["attest", "sign"]).expect(13);
    for said in [
        "more than a reader takes".to_owned(),
        format!(
            "is the task's title (the `predicate.task.title` field of the task-verification statement), as the note of {commit} holds it"
        ),
        "record the task again with less there".to_owned(),
    ] {
        assert!(out.stderr.contains(&said), "{said:?} in {}", out.stderr);
    }
    assert_eq!(p.snapshot(), before, "nothing signed");
}

/// `attest carry` of a note whose re-issued statements would make a line longer than a reader
/// takes (the old line and `carried`) names the note's largest part (the task's title, as the old
/// commit's note holds it) and to record the task again (exit 13), and writes nothing.
#[test]
fn attest_carry_of_a_note_its_re_issue_would_make_too_large_names_its_largest_part_and_writes_nothing() {
    let p = Project::new();
    let old = a_decision_near_the_line_cap(&p, true, 100);
    p.git(&["commit", "-q", "--amend", "--no-edit", "--date=2020-01-01T00:00:00Z"]);
    let before = p.snapshot();
    let allowed = p.allowed.to_str().unwrap();
    let out = p.signed(&["attest", "carry", "--from", &old, "--to", "HEAD", "--allowed-signers", allowed]);
    let out = out.expect(13);
    for said in [
        "more than a reader takes".to_owned(),
        format!(
            "is the task's title (the `predicate.task.title` field of the task-verification statement), as the note of {old} holds it"
        ),
        "record the task again with less there".to_owned(),
    ] {
        assert!(out.stderr.contains(&said), "{said:?} in {}", out.stderr);
    }
    assert_eq!(p.snapshot(), before, "nothing carried");
}

/// A `user.name` too long for a name, or one that holds nothing a trailer can show, is named as
/// git's `user.name`, the default of `--by` (never as a `--by` that was not given), with what to
/// do (exit 13), and nothing is written; a name is counted as its trailer carries it, and the
/// message says so.
#[test]
fn a_user_name_too_long_or_blank_is_named_as_git_s_user_name_with_what_to_do_and_nothing_written() {
    let p = Project::new();
    let before = p.snapshot();
    p.git(&["config", "user.name", &"N".repeat(201)]);
    let out = p.signed(&["accept", T001, "--reason", "ok"]).expect(13);
    assert!(
        out.stderr.contains(
            "git's user.name (the decider's name when --by is not given) is 201 characters as the commit's trailer carries it"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("shorten it (`git config user.name NAME`) or pass --by NAME"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("speccoder accept: --by"), "{}", out.stderr);
    for blank in ["", " \u{7}\t "] {
        p.git(&["config", "user.name", blank]);
        let out = p.signed(&["accept", T001, "--reason", "ok"]).expect(13);
        assert!(
            out.stderr.contains(
                "git's user.name (the decider's name when --by is not given) holds no name that can be shown"
            ),
            "{blank:?}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("set `git config user.name`"), "{}", out.stderr);
    }
    // 175 characters typed, 210 as the trailer carries them: each U+202E is written `\u{202e}`.
    let hidden = format!("{}{}", "A".repeat(170), "\u{202e}".repeat(5));
    let out = p.signed(&["accept", T001, "--reason", "ok", "--by", &hidden]).expect(2);
    assert!(
        out.stderr.contains("--by is 210 characters as the commit's trailer carries it"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("written as its escape"), "{}", out.stderr);
    p.git(&["config", "user.name", "Ada Lovelace"]);
    assert_eq!(p.snapshot(), before);
    p.signed(&["accept", T001, "--reason", "ok", "--by", &"N".repeat(200)]).expect(0);
}

/// A `user.name` git commits with that is not UTF-8 is no name speccoder can record: it is named
/// as set but not UTF-8 (exit 13), never advised to be set, and nothing is written.
#[test]
fn a_user_name_that_is_not_utf8_is_refused_as_such_and_nothing_is_written() {
    let p = Project::new();
    let mut config = std::fs::read(p.root.join(".git/config")).unwrap();
    config.extend_from_slice(b"[user]\n\tname = Jos\xe9\n");
    std::fs::write(p.root.join(".git/config"), config).unwrap();
    let before = p.snapshot();
    let out = p.signed(&["accept", T001, "--reason", "ok"]).expect(13);
    assert!(out.stderr.contains("`user.name` is set, but its value is not UTF-8"), "{}", out.stderr);
    assert!(!out.stderr.contains("set `git config user.name`"), "{}", out.stderr);
    assert_eq!(p.snapshot(), before);
}

/// A skip is recorded on HEAD's commit: a new unit only the work tree holds (untracked, or staged
/// but not committed) is named as not committed, and once committed, the skip is recorded.
#[test]
fn a_skip_of_a_unit_not_committed_yet_says_to_commit_it() {
    let p = Project::new();
    common::copy_dir(&p.root.join("specs").join(UNIT), &p.root.join("specs/002-new"));
    for stage in [false, true] {
        if stage {
            p.git(&["add", "specs/002-new"]);
        }
        let before = p.snapshot();
        let out = p.signed(&["skip", "002-new/T006", "--reason", "later"]).expect(14);
        let says = "unit `002-new` is in the work tree (specs/002-new/tasks.md) but not committed";
        assert!(out.stderr.contains(says), "{}", out.stderr);
        assert!(out.stderr.contains("(`git add specs/002-new`, then `git commit`)"), "{}", out.stderr);
        assert_eq!(p.snapshot(), before);
    }
    p.git(&["commit", "-q", "-m", "A new unit"]);
    p.signed(&["skip", "002-new/T006", "--reason", "later"]).expect(0);
}

#[test]
fn a_skip_whose_notes_ref_is_locked_exits_as_repository_state_and_names_the_lock() {
    // The notes reference's own lock, and the packed references' lock a killed `git pack-refs`
    // or `git gc` leaves (gix's reference transaction takes it for every update while it exists).
    for lock in [".git/refs/notes/speccoder.lock", ".git/packed-refs.lock"] {
        let p = Project::new();
        let lock = p.root.join(lock);
        std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
        std::fs::write(&lock, "").unwrap();
        let out = p.signed(&["skip", T006, "--reason", "out of scope"]).expect(14);
        assert!(out.stderr.trim_end().ends_with(&format!("remove {}", lock.display())), "{}", out.stderr);
        assert!(!out.stderr.contains("concurrent changes"), "{}", out.stderr);
        let skipped = p
            .git_output(&["rev-parse", "--verify", "-q", "refs/speccoder/skipped/001-bookmark-tags/T006"])
            .status
            .success();
        assert!(!skipped, "no skip is recorded while the note cannot be written");
        std::fs::remove_file(&lock).unwrap();
        p.signed(&["skip", T006, "--reason", "out of scope"]).expect(0);
    }
}

/// git keeps references as files in directories: a reference named by the unit alone, or one
/// below the skip ref's own name, keeps the skip ref from being made. skip names the reference in
/// the way and the command that removes it (exit 14, nothing written), as `attest fetch` names a
/// `name_taken` conflict, and skips once it is gone.
#[test]
fn a_reference_in_the_way_of_the_skip_ref_is_named_with_the_update_ref_that_removes_it() {
    let unit_ref = format!("refs/speccoder/skipped/{UNIT}");
    let below = format!("refs/speccoder/skipped/{UNIT}/T007/x");
    for in_the_way in [unit_ref, below] {
        let p = Project::new();
        p.git(&["update-ref", &in_the_way, "HEAD"]);
        let before = p.snapshot();
        let out = p.signed(&["skip", "001-bookmark-tags/T007", "--reason", "later"]).expect(14);
        let says = format!(
            "{in_the_way} exists here, and git cannot keep a reference and a directory of references of one name"
        );
        assert!(out.stderr.contains(&says), "{}", out.stderr);
        let delete = format!("`git update-ref --no-deref -d {in_the_way}`");
        assert!(out.stderr.contains(&delete), "{}", out.stderr);
        assert_eq!(p.snapshot(), before, "nothing written");
        p.git(&["update-ref", "-d", &in_the_way]);
        p.signed(&["skip", "001-bookmark-tags/T007", "--reason", "later"]).expect(0);
    }
}

/// A symbolic reference in the way of the skip ref (`git symbolic-ref` naming a branch) is removed
/// by the command skip advises, and the branch it names is kept: git's plain `git update-ref -d`
/// follows the link and deletes the branch.
#[test]
fn a_symbolic_reference_in_the_way_of_the_skip_ref_is_removed_by_the_advice_and_its_branch_kept() {
    let p = Project::new();
    let in_the_way = format!("refs/speccoder/skipped/{UNIT}");
    let kept = p.git(&["rev-parse", "HEAD"]);
    p.git(&["update-ref", "refs/heads/keep", &kept]);
    p.git(&["symbolic-ref", &in_the_way, "refs/heads/keep"]);
    let out = p.signed(&["skip", "001-bookmark-tags/T007", "--reason", "later"]).expect(14);
    let advised = common::advised_update_refs(&out.stderr);
    assert_eq!(advised, [["update-ref", "--no-deref", "-d", in_the_way.as_str()]], "{}", out.stderr);

    for command in &advised {
        p.git(&command.iter().map(String::as_str).collect::<Vec<_>>());
    }
    assert_eq!(p.git(&["rev-parse", "refs/heads/keep"]), kept, "the branch the link named is kept");
    assert_eq!(p.git(&["for-each-ref", &in_the_way]), "", "the link is gone");
    p.signed(&["skip", "001-bookmark-tags/T007", "--reason", "later"]).expect(0);
}

/// Two skips of one task, one of them a symbolic reference naming a branch that points at the
/// other skip commit: verify's `two_skips` advises deleting either with `--no-deref`, and following
/// it for the symbolic one keeps the branch, leaving one skip.
#[test]
fn two_skips_one_a_symbolic_reference_are_settled_by_the_advice_without_deleting_its_branch() {
    let p = Project::from_fixture("openspec");
    let change = p.git(&["ls-tree", "--name-only", "HEAD", "openspec/changes/"]);
    let unit =
        change.lines().map(|l| l.trim_start_matches("openspec/changes/")).find(|u| *u != "archive").unwrap();
    let target = format!("{unit}/1.1");
    let (escaped, published) =
        (format!("refs/speccoder/skipped/{unit}/1%2E1"), format!("refs/speccoder/skipped/{unit}/1.1"));
    p.signed(&["skip", &target, "--reason", "not needed"]).expect(0);
    let first = p.git(&["rev-parse", &escaped]);
    p.run(&["skip", &target, "--undo"]).expect(0);
    p.signed(&["skip", &target, "--reason", "not needed at all"]).expect(0);
    p.git(&["update-ref", "refs/heads/first-skip", &first]);
    p.git(&["symbolic-ref", &published, "refs/heads/first-skip"]);

    let allowed = p.allowed.to_str().unwrap();
    let verify = |code| {
        let v = p.run(&["attest", "verify", "--branch", "--all", "--json", "--allowed-signers", allowed]);
        row(&v.expect(code).json(), &target).clone()
    };
    let conflict = verify(26);
    assert_eq!(conflict["reason"], "two_skips", "{conflict:#}");
    let message = conflict["findings"][0]["message"].as_str().unwrap();
    let advised = common::advised_update_refs(message);
    let delete = |name: &str| vec!["update-ref".to_owned(), "--no-deref".into(), "-d".into(), name.into()];
    assert_eq!(advised, [delete(&escaped), delete(&published)], "{message}");

    let symbolic: Vec<&str> = advised[1].iter().map(String::as_str).collect();
    p.git(&symbolic);
    assert_eq!(p.git(&["rev-parse", "refs/heads/first-skip"]), first, "the branch the link named is kept");
    assert_eq!(verify(0)["outcome"], "skipped");
}

/// An accept unticked in a later commit leaves the branch nothing to check, though its decision
/// commit is in range: the line on stderr says what is true (no task ticked at the head, so the
/// task commits in range decide nothing that holds there), never that the range holds no task
/// commit. A range of commits that names no task still says that.
#[test]
fn nothing_to_check_on_a_branch_whose_decision_was_unticked_says_no_task_is_ticked_at_the_head() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    let path = "specs/001-bookmark-tags/tasks.md";
    let tasks = std::fs::read_to_string(p.root.join(path)).unwrap();
    p.write(path, &tasks.replace("- [X] T001", "- [ ] T001"));
    p.commit_all("untick T001");
    let allowed = p.allowed.to_str().unwrap();
    let out = p.run(&["attest", "verify", "--branch", "--base", "main", "--allowed-signers", allowed]);
    let out = out.expect(15);
    assert!(!out.stderr.contains("task commit in range)"), "{}", out.stderr);
    assert!(out.stderr.contains("nothing to check (no task is ticked at the head"), "{}", out.stderr);
    let range = p.run(&["attest", "verify", "HEAD~1..HEAD", "--allowed-signers", allowed]).expect(15);
    assert!(range.stderr.contains("nothing to check (no task commit in range)"), "{}", range.stderr);
}

/// `skip --undo` deletes the skip here only: when a remote held it as last fetched or pushed, the
/// undo says so and gives the `git push <remote> --delete <ref>` that deletes it there (`--json`:
/// `on_remotes`), since a check of the remote's history still lists the skip.
#[test]
fn undo_of_a_pushed_skip_says_the_remote_still_holds_it_and_how_to_delete_it_there() {
    let p = Project::new();
    let remote = p.outside.join("remote.git");
    p.git(&["init", "-q", "--bare", remote.to_str().unwrap()]);
    p.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    p.git(&["push", "-q", "origin", "main", "feature"]);
    p.git(&["config", "gpg.ssh.allowedSignersFile", p.allowed.to_str().unwrap()]);
    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    p.run(&["attest", "push", "origin"]).expect(0);
    let reference = "refs/speccoder/skipped/001-bookmark-tags/T006";
    let undone = p.run(&["skip", T006, "--undo", "--json"]).expect(0).json();
    let on = &undone["on_remotes"];
    assert_eq!(on.as_array().map(Vec::len), Some(1), "{undone:#}");
    assert_eq!((on[0]["remote"].as_str(), on[0]["reference"].as_str()), (Some("origin"), Some(reference)));
    let delete = format!("git push origin --delete {reference}");
    assert_eq!(on[0]["delete"], delete.as_str());

    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    let text = p.run(&["skip", T006, "--undo"]).expect(0);
    assert!(text.stdout.contains(&format!("origin still holds {reference}")), "{}", text.stdout);
    assert!(text.stdout.contains(&format!("`{delete}`")), "{}", text.stdout);
    p.git(&["push", "-q", "origin", "--delete", reference]);
    p.run(&["attest", "fetch", "origin"]).expect(0);
    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    let undone = p.run(&["skip", T006, "--undo", "--json"]).expect(0).json();
    assert_eq!(undone["on_remotes"], serde_json::json!([]), "gone there too: {undone:#}");
}

/// The specification lets a decision carry the fields a tick may leave `null` as `null`: a `null`
/// claims nothing, so such a decision, signed, is evidenced.
#[test]
fn a_decision_carrying_tick_fields_as_null_claims_nothing_and_is_evidenced() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    let mut statement = p.statements("HEAD").remove(0);
    let predicate = statement["predicate"].as_object_mut().unwrap();
    for field in ["mutation", "model", "run", "strength", "sandbox", "executor"] {
        predicate.insert(field.into(), Value::Null);
    }
    p.set_note("HEAD", &[p.signed_line(&statement)]);
    let v = p.verify(&[]).expect(0).json();
    assert_eq!(row(&v, T001)["outcome"], "evidenced", "{v:#}");
}

/// The fixture's OpenSpec change with tasks numbered as OpenSpec numbers a task inserted between
/// others (`1.1a`, `1.2b` and `1.3c.`, its trailing `.` not part of the id), committed: the
/// project and the change.
fn openspec_with_lettered_ids() -> (Project, &'static str) {
    let p = Project::from_fixture("openspec");
    let unit = "add-tag-filter";
    let path = format!("openspec/changes/{unit}/tasks.md");
    let text = std::fs::read_to_string(p.root.join(&path)).unwrap();
    let text = text
        .replace("- [ ] 1.2 ", "- [ ] 1.1a Cover an empty tag in tests/tags_filter.rs\n- [ ] 1.2 ")
        .replace("- [ ] 1.3 ", "- [ ] 1.2b Keep the filter in the URL\n- [ ] 1.3 ")
        .replace("- [ ] 1.4 ", "- [ ] 1.3c. Show the tag count\n- [ ] 1.4 ");
    p.write(&path, &text);
    p.commit_all("Insert tasks between others");
    (p, unit)
}

#[test]
fn an_openspec_task_id_ending_in_letters_is_attested_accepted_skipped_and_verified() {
    let (p, unit) = openspec_with_lettered_ids();
    // OpenSpec reads the change as valid.
    let mut openspec = std::process::Command::new(common::openspec());
    common::isolate(&mut openspec, &p.home);
    openspec.current_dir(&p.root).args(["validate", unit, "--strict", "--no-interactive"]);
    common::run(openspec).success();

    p.attest(&format!("{unit}/1.1a"), serde_json::json!({}));
    p.signed(&["accept", &format!("{unit}/1.3c"), "--reason", "by hand"]).expect(0);
    let skipped =
        p.signed(&["skip", &format!("{unit}/1.2b"), "--reason", "later", "--json"]).expect(0).json();
    let reference = format!("refs/speccoder/skipped/{unit}/1%2E2b");
    assert_eq!(skipped["reference"], reference.as_str());
    p.git(&["check-ref-format", &reference]);
    let tasks = std::fs::read_to_string(p.root.join(format!("openspec/changes/{unit}/tasks.md"))).unwrap();
    for line in ["- [x] 1.1a Cover", "- [ ] 1.2b Keep", "- [x] 1.3c. Show"] {
        assert!(tasks.contains(line), "{line}: {tasks}");
    }
    let v = p.verify(&[]).expect(0).json();
    assert_eq!(row(&v, &format!("{unit}/1.1a"))["outcome"], "evidenced", "{v:#}");
    assert_eq!(row(&v, &format!("{unit}/1.3c"))["verdict"], "attested", "{v:#}");
    assert_eq!(row(&v, &format!("{unit}/1.2b"))["outcome"], "skipped", "{v:#}");

    // A box of such an id ticked by hand is a task ticked without evidence, not a box that is no task.
    p.run(&["skip", &format!("{unit}/1.2b"), "--undo"]).expect(0);
    let path = p.root.join(format!("openspec/changes/{unit}/tasks.md"));
    std::fs::write(&path, tasks.replace("- [ ] 1.2b Keep", "- [x] 1.2b Keep")).unwrap();
    p.commit_all("Tick 1.2b by hand");
    let v = p.verify(&[]).expect(26).json();
    assert_eq!(row(&v, &format!("{unit}/1.2b"))["reason"], "ticked_without_evidence", "{v:#}");
}

/// An OpenSpec change copied from the fixture's under each name of `units`, committed.
fn openspec_changes_named(units: &[&str]) -> Project {
    let p = Project::from_fixture("openspec");
    let from = p.root.join("openspec/changes/add-tag-filter");
    for unit in units {
        common::copy_dir(&from, &p.root.join("openspec/changes").join(unit));
    }
    p.commit_all("More changes");
    p
}

#[test]
fn the_published_tool_s_skip_of_a_unit_it_spells_unescaped_is_listed_refused_again_and_undone() {
    let units = ["add.v2", "étiquettes", "50%off"];
    let p = openspec_changes_named(&units);
    let allowed = p.allowed.to_str().unwrap();
    let verify = |code| {
        let v = p.run(&["attest", "verify", "--branch", "--all", "--json", "--allowed-signers", allowed]);
        v.expect(code).json()
    };
    for unit in units {
        let target = format!("{unit}/1.2");
        p.signed(&["skip", &target, "--reason", "not needed"]).expect(0);
        let ours =
            format!("refs/speccoder/skipped/{}/1%2E2", speccoder_attest::model::refs::escape_component(unit));
        let published = format!("refs/speccoder/skipped/{unit}/1.2");
        let skip = p.git(&["rev-parse", &ours]);
        // As speccoder 0.9.0 names it: the unit as it is, the task unescaped.
        p.git(&["update-ref", &published, &skip]);
        p.git(&["update-ref", "-d", &ours]);
        let rows = |v: &Value| v["ticks"].as_array().unwrap().iter().filter(|t| t["task"] == *target).count();
        let v = verify(0);
        assert_eq!((rows(&v), row(&v, &target)["outcome"].as_str()), (1, Some("skipped")), "{unit}: {v:#}");

        let again = p.signed(&["skip", &target, "--reason", "again"]).expect(14);
        assert!(again.stderr.contains("skipped already") && again.stderr.contains(&published), "{again:?}");

        p.git(&["update-ref", &ours, &skip]);
        let undone = p.run(&["skip", &target, "--undo", "--json"]).expect(0).json();
        let deleted: Vec<&str> =
            undone["deleted"].as_array().unwrap().iter().map(|d| d["reference"].as_str().unwrap()).collect();
        assert_eq!(deleted, [ours.as_str(), published.as_str()], "{unit}");
        assert!(
            p.git(&["for-each-ref", "refs/speccoder/skipped/"]).is_empty(),
            "{unit}: both spellings undone"
        );
    }
}

#[test]
fn a_unit_whose_name_git_refuses_in_a_reference_has_no_published_skip_to_look_for() {
    // 0.9.0 would write `refs/speccoder/skipped/a:b/1.2`, which git refuses: its skip fails.
    let p = openspec_changes_named(&["a:b", "old.lock"]);
    for unit in ["a:b", "old.lock"] {
        let published = format!("refs/speccoder/skipped/{unit}/1.2");
        assert!(!p.git_output(&["check-ref-format", &published]).status.success(), "{published}");
        let target = format!("{unit}/1.2");
        p.signed(&["skip", &target, "--reason", "not needed"]).expect(0);
        assert_eq!(row(&p.verify(&[]).expect(0).json(), &target)["outcome"], "skipped");
        let undone = p.run(&["skip", &target, "--undo", "--json"]).expect(0).json();
        assert_eq!(undone["deleted"].as_array().map(Vec::len), Some(1), "{undone:#}");
    }
}

/// Spec Kit units `a.b` and `a%2Eb`: our skip of `a.b/T006` is `refs/speccoder/skipped/a%2Eb/T006`,
/// which is also how the published speccoder names a skip of `a%2Eb/T006`. Its record's
/// `Spec-Task:` says whose it is, for verify, skip and undo alike.
#[test]
fn a_skip_ref_name_two_tasks_share_is_the_skip_of_the_task_its_record_names() {
    let p = Project::new();
    for unit in ["a.b", "a%2Eb"] {
        common::copy_dir(&p.root.join("specs").join(UNIT), &p.root.join("specs").join(unit));
    }
    p.commit_all("Two more features");
    p.signed(&["skip", "a.b/T006", "--reason", "later"]).expect(0);
    let shared = "refs/speccoder/skipped/a%2Eb/T006";
    let skip = p.git(&["rev-parse", shared]);
    let tasks = |v: &Value| -> Vec<String> {
        v["ticks"].as_array().unwrap().iter().map(|t| t["task"].as_str().unwrap().to_owned()).collect()
    };
    let v = p.verify(&[]).expect(0).json();
    assert_eq!(tasks(&v), ["a.b/T006"], "{v:#}");
    assert_eq!(row(&v, "a.b/T006")["outcome"], "skipped");

    // `a%2Eb/T006` is not skipped by a.b's skip: skip records it under our own spelling, and undo
    // leaves a.b's alone.
    p.signed(&["skip", "a%2Eb/T006", "--reason", "later too"]).expect(0);
    let own = "refs/speccoder/skipped/a%252Eb/T006";
    let v = p.verify(&[]).expect(0).json();
    assert_eq!(row(&v, "a%2Eb/T006")["outcome"], "skipped", "{v:#}");
    let undone = p.run(&["skip", "a%2Eb/T006", "--undo", "--json"]).expect(0).json();
    assert_eq!(undone["deleted"][0]["reference"], own);
    assert_eq!(undone["deleted"].as_array().map(Vec::len), Some(1), "{undone:#}");
    assert_eq!(p.git(&["rev-parse", shared]), skip, "a.b's skip stays");

    // The published speccoder's skip of `a%2Eb/T006` at that name: its record names that task.
    p.git(&["update-ref", "-d", shared]);
    let message = "speccoder: skip T006\n\nlater\n\nSpec-Task: a%2Eb/T006\nSkipped-By: Ada\nReason: later\n";
    let published = p.git(&["commit-tree", "HEAD^{tree}", "-m", message]);
    p.git(&["update-ref", shared, &published]);
    let v = p.verify(&[]).json();
    assert_eq!(tasks(&v), ["a%2Eb/T006"], "{v:#}");
    let again = p.signed(&["skip", "a%2Eb/T006", "--reason", "again"]).expect(14);
    assert!(again.stderr.contains("skipped already") && again.stderr.contains(shared), "{again:?}");
    let held = p.signed(&["skip", "a.b/T006", "--reason", "a.b's own"]).expect(14);
    assert!(held.stderr.contains("holds the published speccoder's skip of a%2Eb/T006"), "{held:?}");
    let undone = p.run(&["skip", "a%2Eb/T006", "--undo", "--json"]).expect(0).json();
    assert_eq!(undone["deleted"][0]["reference"], shared, "{undone:#}");
}

/// The message of the finding `code` on `task`'s row of `report`.
fn finding_message(report: &Value, task: &str, code: &str) -> String {
    let found = row(report, task)["findings"].as_array().unwrap().iter().find(|f| f["code"] == code).cloned();
    let found = found.unwrap_or_else(|| panic!("no {code} on {task}: {report:#}"));
    found["message"].as_str().unwrap().to_owned()
}

#[test]
fn a_decision_whose_task_was_reworded_or_removed_after_it_says_how_to_make_that_decision_anew() {
    let p = Project::new();
    p.signed(&["accept", T001, "--reason", "by hand"]).expect(0);
    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = std::fs::read_to_string(p.root.join(tasks)).unwrap();
    let reworded = text.replace("tag module skeleton", "tag module").replace("list view", "grid view");
    p.write(tasks, &reworded);
    p.commit_all("reword T001 and T006");
    let v = p.verify(&[]).expect(26).json();

    let accepted = finding_message(&v, T001, "line_changed_at_head");
    assert!(
        accepted.contains("after the acceptance")
            && accepted.ends_with(
                "untick the task and accept it again (`speccoder accept 001-bookmark-tags/T001 --reason <why>`)"
            ),
        "{accepted}"
    );
    let skipped = finding_message(&v, T006, "line_changed_at_head");
    assert!(
        skipped.contains("after the skip; the skip is for the old line: restore the line as it was skipped")
            && skipped.ends_with(
                "undo the skip (`speccoder skip 001-bookmark-tags/T006 --undo`) and skip the task again"
            ),
        "{skipped}"
    );

    // A skip of a task the head no longer lists is the branch's to undo, not a tick the range
    // holds.
    let without: String =
        reworded.lines().filter(|l| !l.contains("T006")).map(|l| format!("{l}\n")).collect();
    p.write(tasks, &without);
    p.commit_all("descope T006");
    let v = p.verify(&[]).expect(26).json();
    let gone = finding_message(&v, T006, "task_gone_at_head");
    assert!(
        gone.contains("removed or renumbered after the skip")
            && gone.contains("undo it (`speccoder skip 001-bookmark-tags/T006 --undo`), or restore the task")
            && !gone.contains("checks only the ticks"),
        "{gone}"
    );
}

/// Runs `openspec archive <change> --yes` in `p`'s work tree and commits what it did.
fn openspec_archive_committed(p: &Project, change: &str) {
    let mut archive = std::process::Command::new(common::openspec());
    common::isolate(&mut archive, &p.home);
    archive.current_dir(&p.root).args(["archive", change, "--yes"]);
    common::run(archive).success();
    p.commit_all("Archive the change");
}

/// `attest verify --branch <history> --json` against the project's trust: (exit code, report).
fn verify_over(p: &Project, history: &[&str]) -> (i32, Value) {
    let allowed = p.allowed.to_str().unwrap();
    let mut args = vec!["attest", "verify", "--branch", "--json", "--allowed-signers", allowed];
    args.extend(history);
    let out = p.run(&args);
    (out.code, out.json())
}

/// Checks that `report` lists the skip of `target` as a task gone at the head that says to undo
/// the skip or bring the unit back.
#[track_caller]
fn gone_skip_row(report: &Value, target: &str) {
    let tick = row(report, target);
    assert_eq!(tick["outcome"], "unverifiable", "{report:#}");
    assert!(codes(tick).contains(&"task_gone_at_head".to_owned()), "{tick:#}");
    let said = tick["findings"].to_string();
    assert!(
        said.contains(&format!("speccoder skip {target} --undo")) && said.contains("restore its directory"),
        "{said}"
    );
}

/// A skip whose unit was renamed (an OpenSpec change moved by hand) or removed (a Spec Kit
/// feature) keeps its ref: `attest verify --branch` lists it as a task gone at the head, as it
/// lists a skipped task whose line was removed, with `--all` and with a base the removal comes
/// after, never with one it comes before; `skip --undo` deletes it, and the row goes.
#[test]
fn a_skip_whose_unit_was_renamed_or_removed_is_a_row_that_says_to_undo_it_or_bring_the_unit_back() {
    let p = Project::from_fixture("openspec");
    let target = "add-tag-filter/1.2";
    p.signed(&["skip", target, "--reason", "not needed"]).expect(0);
    p.git(&["mv", "openspec/changes/add-tag-filter", "openspec/changes/tag-filter"]);
    p.commit_all("Rename the change by hand");
    for history in [&["--all"][..], &["--base", "main"]] {
        let (code, report) = verify_over(&p, history);
        assert_eq!(code, 26, "{history:?}: {report:#}");
        gone_skip_row(&report, target);
    }
    let (_, report) = verify_over(&p, &["--base", "HEAD"]);
    assert!(report["ticks"].as_array().unwrap().iter().all(|t| t["task"] != target), "{report:#}");
    p.run(&["skip", target, "--undo"]).expect(0);
    let (_, report) = verify_over(&p, &["--all"]);
    assert!(report["ticks"].as_array().unwrap().iter().all(|t| t["task"] != target), "{report:#}");

    let p = Project::new();
    p.signed(&["skip", T006, "--reason", "later"]).expect(0);
    p.git(&["rm", "-rq", &format!("specs/{UNIT}")]);
    p.commit_all("Drop the feature");
    let (code, report) = verify_over(&p, &["--base", "main"]);
    assert_eq!(code, 26, "{report:#}");
    gone_skip_row(&report, T006);
}

/// An archived change's skip is part of what the closed change recorded: `skip --undo` refuses
/// it (14) as `skip` refuses to record one, deletes nothing, and says to move the change back
/// first; the archived change still lists it as skipped. Moved back, the skip is undone.
#[test]
fn undo_of_the_skip_of_an_archived_change_s_task_is_refused_until_the_change_is_moved_back() {
    let p = Project::from_fixture("openspec");
    let target = "add-tag-filter/1.2";
    p.signed(&["skip", target, "--reason", "not needed"]).expect(0);
    openspec_archive_committed(&p, "add-tag-filter");
    let copy = p.git(&["ls-tree", "--name-only", "HEAD", "openspec/changes/archive/"]);
    let before = p.snapshot();
    let refused = p.run(&["skip", target, "--undo"]).expect(14);
    assert!(
        refused.stderr.contains(&format!("archived at {copy}"))
            && refused.stderr.contains(&format!("git mv {copy} openspec/changes/add-tag-filter"))
            && refused.stderr.contains("nothing was deleted"),
        "{refused:?}"
    );
    assert_eq!(p.snapshot(), before, "nothing deleted");
    let (code, report) = verify_over(&p, &["--all"]);
    assert_eq!((code, row(&report, target)["outcome"].as_str()), (0, Some("skipped")), "{report:#}");

    p.git(&["mv", &copy, "openspec/changes/add-tag-filter"]);
    p.commit_all("Work on the change again");
    p.run(&["skip", target, "--undo"]).expect(0);
    assert!(p.git(&["for-each-ref", "refs/speccoder/skipped/"]).is_empty());
}

/// A change archived twice, or more, and active nowhere is closed as one archived once is: `skip
/// --undo` of its task's skip is refused (14) the same way, naming every archived copy and saying
/// to move the latest back, and deletes nothing. Moved back, the skip is undone.
#[test]
fn undo_of_the_skip_of_a_change_archived_more_than_once_is_refused_as_for_one_archived_once() {
    let p = Project::from_fixture("openspec");
    let target = "add-tag-filter/1.2";
    p.signed(&["skip", target, "--reason", "not needed"]).expect(0);
    openspec_archive_committed(&p, "add-tag-filter");
    let latest = p.git(&["ls-tree", "--name-only", "HEAD", "openspec/changes/archive/"]);
    let mut earlier: Vec<String> = Vec::new();
    for date in ["2001-02-03", "2000-01-01"] {
        let copy = format!("openspec/changes/archive/{date}-add-tag-filter");
        let cp = std::process::Command::new("cp")
            .args(["-R", &latest, &copy])
            .current_dir(&p.root)
            .status()
            .unwrap();
        assert!(cp.success());
        p.commit_all("Archive the change again");
        earlier.insert(0, copy);
        let before = p.snapshot();
        let refused = p.run(&["skip", target, "--undo"]).expect(14);
        let all = earlier.iter().chain([&latest]).cloned().collect::<Vec<_>>().join(" and at ");
        assert!(
            refused
                .stderr
                .contains(&format!("belongs to the OpenSpec change archived at {all}, which is closed"))
                && refused.stderr.contains(&format!("git mv {latest} openspec/changes/add-tag-filter"))
                && refused.stderr.contains("nothing was deleted"),
            "{refused:?}"
        );
        assert_eq!(p.snapshot(), before, "nothing deleted");
    }

    p.git(&["mv", &latest, "openspec/changes/add-tag-filter"]);
    p.commit_all("Work on the change again");
    p.run(&["skip", target, "--undo"]).expect(0);
    assert!(p.git(&["for-each-ref", "refs/speccoder/skipped/"]).is_empty());
}
