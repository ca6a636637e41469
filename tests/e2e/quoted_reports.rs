//! Repository text in the `--json` report of every command but `attest verify` and `attest
//! policy check` (`quoted_json`): a unit directory's name, git's `user.name`, a remote's name and
//! URL, a trust file's principal, each can hold line breaks, Unicode line
//! separators, escape sequences and characters that reorder or hide; every string of a report
//! arrives quoted (`\u{2028}`, `\u{1b}`, `\u{202e}`), on success and on failure, so that a CI step
//! printing a value (`jq -r`) prints inert text on one line; the text reports quote it the same.
//! A path of this machine (a hooks directory) is named exactly instead (`json_paths`).

use crate::common;

use common::{Evidence, Project, acts_or_hides, inert_failure, inert_json};

/// A unit directory's name that holds a line separator and a workflow command after it: git
/// takes it, speccoder refuses it as a unit (a `Spec-Task:` trailer would write it otherwise).
const BAD_UNIT: &str = "001-bookmark\u{2028}::error title=pwned::tags";

/// The Spec Kit fixture's unit.
const UNIT: &str = common::SPECKIT_UNIT;

/// Text that acts on a terminal, reorders and hides: a name, a reason.
const HOSTILE: &str = "Ada \u{1b}[31m\u{202e}red\u{200b}\u{2029}::error::x";

/// The Spec Kit fixture signing with a key of its own.
fn signing_project() -> (Project, common::Key) {
    let p = Project::speckit();
    let keys = p.scratch_dir("keys");
    let ada = common::ed25519(&keys, "ada");
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
    (p, ada)
}

/// `speccoder attest` of `task` in [`UNIT`], `--json`: its report, asserted inert.
#[track_caller]
fn attest(p: &Project, task: &str) -> String {
    let target = format!("{UNIT}/{task}");
    let evidence = common::write_evidence(&p.scratch_dir(task), &target, Evidence::Verified);
    inert_json(&p.attest(&target, &evidence, &["--json"]).success())
}

#[test]
fn the_reports_of_attest_accept_and_skip_quote_a_unit_name_and_a_deciders_name_and_reason() {
    let p = signing_project().0;
    p.git(&["config", "user.name", HOSTILE]);
    attest(&p, "T001");

    // A unit directory whose name breaks a line is refused, its name quoted in the message.
    let unit_dir = format!("specs/{BAD_UNIT}");
    p.git(&["mv", &format!("specs/{UNIT}"), &unit_dir]);
    p.git(&["commit", "-q", "-m", "A unit whose name breaks a line"]);
    let target = format!("{BAD_UNIT}/T002");
    let evidence = common::write_evidence(&p.scratch_dir("bad"), &target, Evidence::Verified);
    let refused = p.attest(&target, &evidence, &["--json"]);
    assert_ne!(refused.code(), Some(0), "{refused}");
    let said = inert_failure(&refused);
    let quoted = "001-bookmark\\u{2028}::error title=pwned::tags";
    assert!(said.contains(quoted) && said.contains("blank other than one space"), "{said}");
    p.git(&["mv", &unit_dir, &format!("specs/{UNIT}")]);
    p.git(&["commit", "-q", "-m", "The unit's name again"]);

    let reason = format!("by hand {HOSTILE}");
    for command in ["accept", "skip"] {
        let task = if command == "accept" { "T002" } else { "T003" };
        let target = format!("{UNIT}/{task}");
        let said = inert_json(&p.speccoder(&[command, &target, "--reason", &reason, "--json"]).success());
        assert!(said.contains(&format!("{UNIT}/{task}")), "{said}");
        // The reason and git's user.name, as the decision's trailers and statement keep them.
        assert!(said.contains("by hand Ada [31m\\u{202e}red\\u{200b} ::error::x"), "{said}");
        assert!(said.contains("\nAda [31m\\u{202e}red\\u{200b} ::error::x"), "{said}");
    }
    let undo = p.speccoder(&["skip", &format!("{UNIT}/T003"), "--undo", "--json"]).success();
    assert!(inert_json(&undo).contains(&format!("{UNIT}/T003")), "{undo}");

    // A failure: the task is ticked already.
    let target = format!("{UNIT}/T001");
    let evidence = common::write_evidence(&p.scratch_dir("again"), &target, Evidence::Verified);
    let again = p.attest(&target, &evidence, &["--json"]);
    assert_ne!(again.code(), Some(0), "{again}");
    inert_failure(&again);
}

#[test]
fn the_reports_of_attest_and_accept_name_a_branch_that_holds_a_token_by_what_it_holds() {
    let p = signing_project().0;
    p.git(&["checkout", "-q", "-b", "ci/ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k"]);
    let mut said = Vec::new();
    for json in [false, true] {
        let task = if json { "T002" } else { "T001" };
        let extra: &[&str] = if json { &["--json"] } else { &[] };
        let target = format!("{UNIT}/{task}");
        let evidence = common::write_evidence(&p.scratch_dir(task), &target, Evidence::Verified);
        said.push(p.attest(&target, &evidence, extra).success().stdout);
        let target = format!("{UNIT}/T00{}", if json { 4 } else { 3 });
        let mut args = vec!["accept", &target, "--reason", "checked by hand"];
        args.extend(extra);
        said.push(p.speccoder(&args).success().stdout);
    }
    for report in said {
        assert!(!report.contains("R8x2Kq9LmZ4vT7nB3cW6"), "{report}");
        assert!(report.contains("(a value not shown, as it holds a GitHub token)"), "{report}");
    }
}

#[test]
fn a_principal_holding_a_workflow_command_is_printed_by_policy_init_as_a_policy_that_reads_back_whole() {
    let (p, ada) = signing_project();
    let principal = "release##[bot]@example.com";
    let trust = common::allowed_signers(&p.scratch.join("trust"), &[(principal, &ada)]);
    let trust = trust.to_str().unwrap();
    let printed = p.speccoder(&["attest", "policy", "init", "--allowed-signers", trust]).success().stdout;
    assert!(!printed.contains("##["), "no workflow command on stdout:\n{printed}");
    let policy = p.scratch.join("policy.toml");
    std::fs::write(&policy, &printed).unwrap();
    let check = p.speccoder(&[
        "attest",
        "policy",
        "check",
        policy.to_str().unwrap(),
        "--allowed-signers",
        trust,
        "--json",
    ]);
    let check: serde_json::Value = serde_json::from_str(&check.success().stdout).unwrap();
    assert_eq!(
        check["rules"][0]["unknown_principals"],
        serde_json::json!([]),
        "the trust's principal: {check:#}"
    );
    let table: toml::Table = toml::from_str(&printed).unwrap();
    let signers = &table["rule"].as_array().unwrap()[0]["signers"];
    assert_eq!(signers.as_array().unwrap()[0].as_str(), Some(principal), "{printed}");
}

#[test]
fn the_reports_of_policy_init_quote_a_principal_and_its_policy_hides_nothing() {
    let (p, ada) = signing_project();
    let tasks = format!("specs/{UNIT}/tasks.md");
    let ticked = String::from_utf8(p.read(&tasks)).unwrap().replacen("- [ ] T001", "- [x] T001", 1);
    p.write(
        &tasks,
        ticked + "\n- [x] T001 the same id twice\n- [x] T002 \u{202e}x\u{200b}\n- [x] T002 again\n",
    );
    p.git(&["commit", "-q", "-am", "Ticked by hand"]);
    let principal = "a\u{202e}b\u{2028}::error::c\u{200b}";
    let trust = common::allowed_signers(&p.scratch.join("trust"), &[(principal, &ada)]);
    let run =
        p.speccoder(&["attest", "policy", "init", "--json", "--allowed-signers", trust.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&run.success().stdout).unwrap();
    let policy = report["policy"].as_str().unwrap().to_owned();
    let mut without_policy = report.clone();
    without_policy["policy"] = serde_json::Value::Null;
    let said = common::inert_value(&without_policy);
    assert!(said.contains("001-bookmark-tags/T002: verify fails it as `duplicate_task`"), "{said}");
    assert!(said.contains("a\\u{202e}b\\u{2028}::error::c\\u{200b}"), "{said}");
    // Every line of the policy quotes what the repository and the trust hold; only its own
    // lines break, and the principal reads back as the trust names it.
    for line in policy.lines() {
        assert!(!line.chars().any(acts_or_hides), "{line:?} in\n{policy}");
    }
    let table: toml::Table = toml::from_str(&policy).unwrap();
    let signers = &table["rule"].as_array().unwrap()[0]["signers"];
    assert_eq!(signers.as_array().unwrap()[0].as_str(), Some(principal), "{policy}");
}

#[test]
fn the_reports_of_push_and_fetch_quote_a_remote_name_and_hooks_install_names_its_hook_exactly() {
    let p = Project::speckit();
    let bare = p.scratch.join("remote.git");
    p.git(&["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    let remote = "o\u{202e}x\u{200b}y";
    let quoted = "o\\u{202e}x\\u{200b}y";
    p.git(&["remote", "add", remote, bare.to_str().unwrap()]);
    let said = inert_json(&p.speccoder(&["attest", "push", remote, "--json"]).success());
    assert!(said.contains(quoted), "{said}");
    let said = inert_json(&p.speccoder(&["attest", "fetch", remote, "--json"]).success());
    assert!(said.contains(quoted), "{said}");

    let hooks = format!("hooks\u{2028}::error::{remote}");
    p.git(&["config", "core.hooksPath", &hooks]);
    // A path of this machine is named exactly, for a script to find the file (`json_paths`).
    let run = p.speccoder(&["hooks", "install", "--json"]).success();
    let said: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        std::path::Path::new(said["path"].as_str().unwrap()),
        p.root.join(&hooks).join("post-rewrite")
    );
}

#[test]
fn the_text_report_of_hooks_install_shows_a_hooks_directory_that_breaks_its_line_on_one_line() {
    let p = Project::speckit();
    p.git(&["config", "core.hooksPath", "hooks\nFAKE LINE\r\u{2028}x"]);
    let out = p.speccoder(&["hooks", "install"]).success().stdout;
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("hooks install: installed "), "{out}");
    assert!(out.contains("/hooks\\nFAKE LINE\\r\\u{2028}x/post-rewrite (runs `"), "{out}");
}
