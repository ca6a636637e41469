//! The verifier policy end to end: real repositories, real `ssh-keygen` keys, the built binary.
//!
//! - every rule key, passing and failing, on one repository whose ticks differ in what they
//!   signed (held-out, mutation, strength, monitor, sandbox, verdict, signer, carried, a skip);
//! - approvals across two clones and a bare remote, each approval checked with
//!   `ssh-keygen -Y verify` over a PAE rebuilt here; the signer never approves their own tick;
//! - adoption of a repository with hand ticks through `policy init`;
//! - `--policy-rev` refused inside the checked range and read from the base;
//! - broken policies named by line and column; the policy's sha256 and source in every report;
//! - `policy check`: the units each rule judges, unknown principals, a shadowed rule;
//! - the policy's JSON Schema accepts the issue's example and refuses an unknown key.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Evidence, Key, PRINCIPAL, Project, Run, SPECKIT_UNIT};
use serde_json::{Value, json};

/// The second person.
const BOB: &str = "bob@example.com";

/// `<unit>/<task>` of the Spec Kit fixture.
fn task(id: &str) -> String {
    format!("{SPECKIT_UNIT}/{id}")
}

/// A project whose ticks are signed by Ada, with Ada (two keys), Bob and Carol in an
/// allowed-signers file outside the work tree.
struct Signed {
    p: Project,
    ada: Key,
    ada2: Key,
    bob: Key,
    allowed: PathBuf,
}

impl Signed {
    fn new() -> Signed {
        let p = Project::speckit();
        let keys = p.scratch_dir("keys");
        let ada = common::ed25519(&keys, "ada");
        let ada2 = common::ed25519(&keys, "ada2");
        let bob = common::ed25519(&keys, "bob");
        let allowed = common::allowed_signers(
            &p.scratch.join("allowed_signers"),
            &[(PRINCIPAL, &ada), (PRINCIPAL, &ada2), (BOB, &bob)],
        );
        p.git(&["config", "gpg.format", "ssh"]);
        p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
        p.git(&["config", "gpg.ssh.allowedSignersFile", allowed.to_str().unwrap()]);
        Signed { p, ada, ada2, bob, allowed }
    }

    /// Attests `target` with `evidence` (edited by `edit`), signed by `key` (Ada when `None`).
    fn attest(
        &self,
        target: &str,
        kind: Evidence,
        key: Option<&Key>,
        edit: impl FnOnce(&mut Value),
    ) -> String {
        self.attest_run(target, kind, key, edit).success();
        self.p.rev("HEAD")
    }

    /// [`Signed::attest`], its run whatever it ends with.
    fn attest_run(
        &self,
        target: &str,
        kind: Evidence,
        key: Option<&Key>,
        edit: impl FnOnce(&mut Value),
    ) -> Run {
        let mut evidence = common::evidence_json(target, kind);
        edit(&mut evidence);
        let red = std::fs::read(common::crate_root().join("fixtures/evidence/red.log")).unwrap();
        let dir = self.p.scratch_dir(&format!("evidence-{}", target.replace('/', "-")));
        let file = common::write_evidence_value(&dir, &evidence, &red);
        let extra: Vec<&str> = match key {
            Some(k) => vec!["--signer", "ssh", "--key", k.private.to_str().unwrap()],
            None => vec![],
        };
        self.p.attest(target, &file, &extra)
    }

    /// `attest approve rev` with `key`.
    fn approve(&self, rev: &str, key: &Key) -> common::Run {
        self.p.speccoder(&approve_args(rev, &self.allowed, key))
    }

    /// Writes `text` as a policy file outside the work tree.
    fn policy(&self, name: &str, text: &str) -> PathBuf {
        let path = self.p.scratch.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `attest policy check <policy> --allowed-signers <Ada and Bob>` plus `extra`.
    fn policy_check(&self, policy: &Path, extra: &[&str]) -> Run {
        let mut args = vec!["attest", "policy", "check", policy.to_str().unwrap()];
        args.extend(["--allowed-signers", self.allowed.to_str().unwrap()]);
        args.extend(extra);
        self.p.speccoder(&args)
    }

    /// `attest verify --branch --all` under `policy`, trusting Ada and Bob.
    fn verify_args<'a>(&'a self, policy: &'a Path) -> Vec<&'a str> {
        let (allowed, policy) = (self.allowed.to_str().unwrap(), policy.to_str().unwrap());
        vec!["attest", "verify", "--branch", "--all", "--allowed-signers", allowed, "--policy", policy]
    }

    /// [`Signed::verify_args`] with `--json`: the exit code and the report.
    fn verify(&self, policy: &Path) -> (Option<i32>, Value) {
        let mut args = self.verify_args(policy);
        args.push("--json");
        let out = self.p.speccoder(&args);
        let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
        (out.code(), report)
    }
}

/// `attest approve rev --json`, trusting `allowed`, signed with `key`.
fn approve_args<'a>(rev: &'a str, allowed: &'a Path, key: &'a Key) -> Vec<&'a str> {
    let (allowed, key) = (allowed.to_str().unwrap(), key.private.to_str().unwrap());
    vec!["attest", "approve", rev, "--allowed-signers", allowed, "--signer", "ssh", "--key", key, "--json"]
}

/// The row of `task` in `report`.
#[track_caller]
fn row<'r>(report: &'r Value, task: &str) -> &'r Value {
    report["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["task"] == task)
        .unwrap_or_else(|| panic!("no row for {task}: {report:#}"))
}

/// Each row's task with its outcome and reason, `outcome` alone when it has none.
fn outcomes(report: &Value) -> Vec<(String, String)> {
    report["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let outcome = t["outcome"].as_str().unwrap().to_owned();
            let shown = match t["reason"].as_str() {
                Some(reason) => format!("{outcome} {reason}"),
                None => outcome,
            };
            (t["task"].as_str().unwrap().to_owned(), shown)
        })
        .collect()
}

/// The repository of the rule-key table: six tasks whose signed evidence differs.
struct Table {
    s: Signed,
    /// `T1000`, `T1001`, ...: see [`Table::new`].
    t: Vec<String>,
}

impl Table {
    /// - T1000: verified, held-out 3/3, mutation 11/1, strength 0.91, monitor clean, sandbox
    ///   container; approved by Bob.
    /// - T1001: verified without held-out, mutation 3/1, no strength, monitor suspected, sandbox
    ///   off; "approved" by Ada's second key (her own principal: no approval).
    /// - T1002: regression_only, signed by Bob, no mutation.
    /// - T1003: accepted (attested), no evidence at all.
    /// - T1004: skipped.
    /// - T1005: verified, then amended and carried (`carried`).
    fn new() -> Table {
        let s = Signed::new();
        let t = s.p.add_speckit_tasks(6);
        let a = s.attest(&t[0], Evidence::WithHeldOut, None, |e| {
            e["strength"] = json!({ "visible": { "share": 0.8 }, "combined": { "share": 0.91 } });
            e["sandbox"] = json!({ "mode": "container" });
        });
        let b = s.attest(&t[1], Evidence::Verified, None, |e| {
            e["mutation"] = json!({ "caught": 3, "missed": 1 });
            e["monitor"] = json!({ "state": "suspected", "findings": [] });
        });
        s.attest(&t[2], Evidence::RegressionOnly, Some(&s.bob), |e| e["mutation"] = Value::Null);
        s.p.speccoder(&["accept", &t[3], "--reason", "scaffolding; nothing to test"]).success();
        s.attest(&t[5], Evidence::Verified, None, |_| {});
        // Another author date: the same change on a new commit, as a rebase or an amend leaves it.
        s.p.git(&["commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00Z"]);
        let carried = s.p.speccoder(&["attest", "carry", "--json"]).success();
        assert!(carried.stdout.contains(&t[5]), "{carried}");
        s.p.speccoder(&["skip", &t[4], "--reason", "moved to feature 002"]).success();
        let approved = s.approve(&a, &s.bob).success();
        assert!(approved.stdout.contains("\"signatures\":2"), "{approved}");
        s.approve(&b, &s.ada2).success();
        Table { s, t }
    }

    /// Verifies under one rule for the fixture's unit with `keys`, and returns the outcome of each
    /// of the six tasks in order, and the exit code.
    fn under(&self, keys: &str) -> (Vec<String>, Option<i32>) {
        let text = format!("version = 1\n[[rule]]\nname = \"r\"\nunits = [\"001-*\"]\n{keys}\n");
        let policy = self.s.policy("rule.toml", &text);
        let (code, report) = self.s.verify(&policy);
        let all = outcomes(&report);
        let of =
            |t: &String| all.iter().find(|(task, _)| task == t).map(|(_, o)| o.clone()).unwrap_or_default();
        for r in report["ticks"].as_array().unwrap() {
            assert_eq!(r["rule"], "r", "every row names its rule: {r:#}");
        }
        (self.t.iter().map(of).collect(), code)
    }
}

#[test]
fn each_rule_key_passes_what_the_signed_evidence_shows_and_fails_what_it_does_not() {
    let table = Table::new();
    let ok = "evidenced";
    let skip = "skipped";
    // A skip signs no run and no measurement: a rule that asks for one refuses it.
    let (no_phase, no_evidence) = ("skipped policy_phase", "skipped policy_evidence");
    let cases: Vec<(&str, [&str; 6])> = vec![
        ("", [ok, ok, ok, ok, skip, ok]),
        ("signers = [\"ada@example.com\"]", [ok, ok, "unverifiable policy_signer", ok, skip, ok]),
        ("signers = [\"*\"]", [ok, ok, ok, ok, skip, ok]),
        // Bob's approval of Ada's tick never makes Bob the one who ticked it.
        (
            "signers = [\"bob@example.com\"]",
            [
                "unverifiable policy_signer",
                "unverifiable policy_signer",
                ok,
                "unverifiable policy_signer",
                "skipped policy_signer",
                "unverifiable policy_signer",
            ],
        ),
        (
            "verdicts = [\"verified\"]",
            [ok, ok, "unverifiable policy_verdict", "unverifiable policy_verdict", skip, ok],
        ),
        (
            "phases = [\"green\", \"held_out\"]",
            [
                ok,
                "unverifiable policy_phase",
                "unverifiable policy_phase",
                "unverifiable policy_phase",
                no_phase,
                "unverifiable policy_phase",
            ],
        ),
        (
            "phases = [\"red\", \"green\"]",
            [ok, ok, "unverifiable policy_phase", "unverifiable policy_phase", no_phase, ok],
        ),
        (
            "approvals = { count = 1, by = [\"bob@example.com\"] }",
            [
                ok,
                "unverifiable policy_approval",
                "unverifiable policy_approval",
                "unverifiable policy_approval",
                "skipped policy_approval",
                "unverifiable policy_approval",
            ],
        ),
        (
            "signers = [\"ada@example.com\"]\napprovals = { count = 1 }",
            [
                ok,
                "unverifiable policy_approval",
                "unverifiable policy_signer",
                "unverifiable policy_approval",
                "skipped policy_approval",
                "unverifiable policy_approval",
            ],
        ),
        (
            "min_mutation_score = 0.9",
            [
                ok,
                "unverifiable policy_evidence",
                "unverifiable policy_evidence",
                "unverifiable policy_evidence",
                no_evidence,
                ok,
            ],
        ),
        (
            "min_strength = 0.9",
            [
                ok,
                "unverifiable policy_evidence",
                "unverifiable policy_evidence",
                "unverifiable policy_evidence",
                no_evidence,
                "unverifiable policy_evidence",
            ],
        ),
        (
            "monitor = [\"clean\"]",
            [ok, "unverifiable policy_evidence", ok, "unverifiable policy_evidence", no_evidence, ok],
        ),
        (
            "sandbox = [\"container\", \"vm\"]",
            [
                ok,
                "unverifiable policy_evidence",
                "unverifiable policy_evidence",
                "unverifiable policy_evidence",
                no_evidence,
                "unverifiable policy_evidence",
            ],
        ),
        ("carried = false", [ok, ok, ok, ok, skip, "unverifiable policy_carried"]),
        ("carried = true", [ok, ok, ok, ok, skip, ok]),
        ("skips = false", [ok, ok, ok, ok, "skipped policy_skip", ok]),
    ];
    for (keys, expected) in cases {
        let (found, code) = table.under(keys);
        assert_eq!(found, expected, "under `{keys}`");
        let fails = expected.iter().any(|o| o.contains("policy_"));
        assert_eq!(code, Some(if fails { 26 } else { 0 }), "under `{keys}`");
    }
}

#[test]
fn a_tick_no_rule_matches_fails_and_the_report_names_the_policy_everywhere() {
    let s = Signed::new();
    let target = task("T005");
    s.attest(&target, Evidence::Verified, None, |_| {});
    let text = "version = 1\n[[rule]]\nname = \"payments\"\nunits = [\"*-payments-*\"]\n";
    let policy = s.policy("other.toml", text);
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    let r = row(&report, &target);
    assert_eq!((r["outcome"].as_str(), r["reason"].as_str()), (Some("unverifiable"), Some("policy_no_rule")));
    assert!(r.get("rule").is_none(), "no rule judged it: {r:#}");
    assert_eq!(
        report["verifier_policy"],
        json!({ "sha256": common::sha256(text.as_bytes()), "source": policy.to_str().unwrap() })
    );
    // Text and Markdown name it too; without --policy nothing of it appears.
    let md = s.p.scratch.join("report.md");
    let mut args = s.verify_args(&policy);
    args.extend(["--markdown", md.to_str().unwrap()]);
    let text_out = s.p.speccoder(&args).failure(26);
    assert!(
        text_out.stdout.contains(&format!(
            "verifier policy: {} sha256:{}",
            policy.display(),
            common::sha256(text.as_bytes())
        )),
        "{text_out}"
    );
    assert!(text_out.stdout.contains("policy_no_rule"), "{text_out}");
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains(&common::sha256(text.as_bytes())), "{markdown}");
    assert!(markdown.contains("| rule |"), "{markdown}");
    let plain = s.p.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "--all",
        "--json",
        "--allowed-signers",
        s.allowed.to_str().unwrap(),
    ]);
    let plain: Value = serde_json::from_str(&plain.success().stdout).unwrap();
    assert!(
        plain.get("verifier_policy").is_none() && row(&plain, &target).get("rule").is_none(),
        "{plain:#}"
    );
    assert_eq!(row(&plain, &target)["outcome"], "evidenced");
}

#[test]
fn broken_policies_are_named_by_file_line_and_column_and_exit_13() {
    let s = Signed::new();
    s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    let deep = format!("version = 1\n{}a = 1\n", "a.".repeat(300));
    let cases = [
        (
            "version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nsigner = [\"x\"]\n",
            "5:1",
            "unknown field `signer`",
        ),
        ("version = 1\n[[rule]]\nname = \"a\"\nunits = [\"ok\", \"[a-\"]\n", "4:", "not a glob"),
        (
            "version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nmin_strength = \"high\"\n",
            "5:",
            "invalid type",
        ),
        ("version = 2\n", "1:", "version 2"),
        ("version = 1\n[baseline]\ncommit = \"main\"\nreason = \"r\"\n", "3:", "full commit id"),
        (deep.as_str(), "2:1", "this key has 300 dots"),
    ];
    for (text, at, what) in cases {
        let policy = s.policy("broken.toml", text);
        let (code, report) = s.verify(&policy);
        assert_eq!(code, Some(13), "{text}: {report:#}");
        let error = report["error"].as_str().unwrap();
        assert!(error.contains(&format!("{}:{at}", policy.display())), "{text}: {error}");
        assert!(error.contains(what), "{text}: {error}");
        let check = s.p.speccoder(&["attest", "policy", "check", policy.to_str().unwrap()]).failure(13);
        assert!(check.stderr.contains(&format!("broken.toml:{at}")), "{check}");
    }
    // A policy in the checked tree is refused as a trust file is: the branch would choose its rules.
    s.p.write("policy.toml", "version = 1\n");
    s.p.git(&["add", "policy.toml"]);
    s.p.git(&["commit", "-q", "-m", "a policy of its own"]);
    let (code, report) = s.verify(&s.p.root.join("policy.toml"));
    assert_eq!(code, Some(13), "{report:#}");
    assert!(report["error"].as_str().unwrap().contains("--policy-rev <base>:policy.toml"), "{report:#}");
}

/// A list that, empty, no tick could ever meet is refused where the policy is read (exit 13, at
/// its rule's header, as `units = []` is), saying what to write instead; `phases = []` asks for no
/// phase, as leaving it out does, and reads.
#[test]
fn an_empty_list_no_tick_could_meet_is_refused_when_the_policy_is_read_naming_what_to_write() {
    let s = Signed::new();
    s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    let cases = [
        ("units = []", "has no units", "units = [\"<glob>\"]"),
        ("units = [\"*\"]\nsigners = []", "`signers = []`: no signer meets it", "leave `signers` out"),
        (
            "units = [\"*\"]\nverdicts = []",
            "`verdicts = []`: no verdict meets it",
            "verdicts = [\"verified\"]",
        ),
        (
            "units = [\"*\"]\napprovals = { count = 1, by = [] }",
            "`approvals.by = []`: no approval counts",
            "leave `by` out",
        ),
        ("units = [\"*\"]\nmonitor = []", "`monitor = []`", "monitor = [\"clean\"]"),
        ("units = [\"*\"]\nsandbox = []", "`sandbox = []`", "sandbox = [\"<mode>\"]"),
    ];
    for (keys, what, instead) in cases {
        let text = format!("version = 1\n\n  [[rule]]\nname = \"a\"\n{keys}\n");
        let policy = s.policy("empty.toml", &text);
        let (code, report) = s.verify(&policy);
        assert_eq!(code, Some(13), "{keys}: {report:#}");
        let error = report["error"].as_str().unwrap();
        let at = format!("{}:3:3: rule `a` ", policy.display());
        assert!(error.contains(&at) && error.contains(what) && error.contains(instead), "{keys}: {error}");
        let check = s.policy_check(&policy, &[]).failure(13);
        assert!(check.stderr.contains("empty.toml:3:3: rule `a` ") && check.stderr.contains(what), "{check}");
    }
    let policy =
        s.policy("phases.toml", "version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\nphases = []\n");
    s.policy_check(&policy, &[]).success();
    let (code, report) = s.verify(&policy);
    assert_eq!(
        (code, row(&report, &task("T005"))["outcome"].as_str()),
        (Some(0), Some("evidenced")),
        "{report:#}"
    );
}

/// `approvals.count` beyond the people its `by` names (one person counts once, a name in any case
/// or Unicode form one person) can never hold: it is refused where the policy is read (exit 13,
/// at its rule's header), saying what to write, by `policy check` and `verify` alike.
#[test]
fn a_count_of_approvals_beyond_the_people_by_names_is_refused_when_the_policy_is_read() {
    let s = Signed::new();
    s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    for (by, count, people) in
        [(r#"["bob@example.com"]"#, 3, 1), (r#"["bob@example.com", "BOB@example.com"]"#, 2, 1)]
    {
        let text = format!(
            "version = 1\n\n  [[rule]]\nname = \"a\"\nunits = [\"*\"]\napprovals = {{ count = {count}, by = {by} }}\n"
        );
        let policy = s.policy("beyond.toml", &text);
        let said = format!(
            "beyond.toml:3:3: rule `a` has `approvals.count = {count}`, more than the {people} distinct people its `by` names"
        );
        let check = s.policy_check(&policy, &[]).failure(13);
        assert!(check.stderr.contains(&said), "{by}: {check}");
        assert!(check.stderr.contains(&format!("write count = {people} or less")), "{by}: {check}");
        let (code, report) = s.verify(&policy);
        assert_eq!(code, Some(13), "{by}: {report:#}");
        assert!(report["error"].as_str().unwrap().contains(&said), "{by}: {report:#}");
    }
    let text = "version = 1\n[[rule]]\nname = \"a\"\nunits = [\"*\"]\napprovals = { count = 2, by = [\"bob@example.com\", \"carol@example.com\"] }\n";
    s.policy_check(&s.policy("two.toml", text), &[]).success();
}

#[test]
fn the_policy_rev_is_read_from_the_base_and_refused_inside_the_checked_range() {
    let s = Signed::new();
    let text = "version = 1\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\nsigners = [\"ada@example.com\"]\n";
    s.p.write(".github/speccoder-policy.toml", text);
    s.p.git(&["add", "-A"]);
    s.p.git(&["commit", "-q", "-m", "The verifier policy"]);
    s.p.git(&["checkout", "-q", "-b", "feature"]);
    let target = task("T005");
    s.attest(&target, Evidence::Verified, None, |_| {});
    // The branch rewrites the policy to let anyone tick: the base's is the one read.
    s.p.write(".github/speccoder-policy.toml", "version = 1\n[[rule]]\nname = \"open\"\nunits = [\"*\"]\n");
    s.p.git(&["commit", "-q", "-am", "loosen the policy"]);
    let base = s.p.rev("main");
    let verify = |rev_path: &str| {
        s.p.speccoder(&[
            "attest",
            "verify",
            "--branch",
            "--base",
            "refs/heads/main",
            "--allowed-signers",
            s.allowed.to_str().unwrap(),
            "--policy-rev",
            rev_path,
            "--json",
        ])
    };
    let out = verify("refs/heads/main:.github/speccoder-policy.toml").success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(row(&report, &target)["rule"], "all");
    assert_eq!(report["verifier_policy"]["sha256"], common::sha256(text.as_bytes()));
    assert_eq!(
        report["verifier_policy"]["source"],
        format!("refs/heads/main:.github/speccoder-policy.toml ({base})")
    );
    for inside in ["HEAD:.github/speccoder-policy.toml", "HEAD~1:.github/speccoder-policy.toml"] {
        let out = verify(inside).failure(13);
        assert!(
            out.stdout.contains("refusing --policy-rev")
                && out.stdout.contains("part of the history being checked")
                && out.stdout.contains("or a file with --policy")
                && !out.stdout.contains("--allowed-signers"),
            "the advice names the policy's own flag: {out}"
        );
    }
    verify("refs/heads/main:.github/none.toml").failure(13);
    let usage = s.p.speccoder(&["attest", "verify", "--branch", "--policy-rev", "no-colon"]).failure(2);
    assert!(usage.stderr.contains("REV:PATH"), "{usage}");
}

#[test]
fn a_repository_with_hand_ticks_adopts_speccoder_through_policy_init() {
    let s = Signed::new();
    // Ticked by hand before adoption, and one tick with evidence.
    let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
    let text = String::from_utf8(s.p.read(&tasks)).unwrap();
    let ticked = text.replace("- [ ] T001 ", "- [x] T001 ").replace("- [ ] T002 ", "- [X] T002 ");
    s.p.write(&tasks, ticked);
    s.p.git(&["commit", "-q", "-am", "Ticked by hand"]);
    s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    let adoption = s.p.rev("HEAD");
    let base_args =
        ["attest", "verify", "--branch", "--all", "--allowed-signers", s.allowed.to_str().unwrap()];
    let before = s.p.speccoder(&base_args).failure(26);
    assert!(before.stdout.contains("ticked_without_evidence"), "{before}");

    let init = s
        .p
        .speccoder(&["attest", "policy", "init", "--allowed-signers", s.allowed.to_str().unwrap(), "--json"])
        .success();
    let init: Value = serde_json::from_str(&init.stdout).unwrap();
    assert_eq!(init["baseline"], adoption);
    assert_eq!(init["hand_ticks"], json!([task("T001"), task("T002")]));
    assert_eq!(init["principals"], json!([PRINCIPAL, BOB]));
    let policy_text = init["policy"].as_str().unwrap();
    for key in ["version", "[baseline]", "commit", "reason", "[[rule]]", "name", "units", "signers"] {
        let line = policy_text.lines().position(|l| l.starts_with(key)).unwrap_or_else(|| panic!("{key}"));
        assert!(
            policy_text.lines().nth(line - 1).unwrap().starts_with('#'),
            "a comment on {key}:\n{policy_text}"
        );
    }
    let policy = s.policy("adopted.toml", policy_text);
    let check = s.policy_check(&policy, &[]);
    assert!(check.success().stdout.contains("holds 2 hand ticks today"));

    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(row(&report, &task("T001"))["outcome"], "baseline");
    assert_eq!(row(&report, &task("T002"))["outcome"], "baseline");
    assert_eq!(row(&report, &task("T005"))["outcome"], "evidenced");
    assert_eq!(
        (report["totals"]["baseline"].as_u64(), report["totals"]["evidenced"].as_u64()),
        (Some(2), Some(1))
    );
    let text_out = s.p.speccoder(&s.verify_args(&policy)).success();
    assert!(text_out.stdout.contains("2 baseline (ticked by hand before adoption)"), "{text_out}");

    // After adoption, a hand tick follows the rules, and so does a baseline tick whose line changed.
    let text = String::from_utf8(s.p.read(&tasks)).unwrap();
    let after = text.replace("- [ ] T003 ", "- [x] T003 ").replace(
        "- [x] T001 Create the tag module skeleton",
        "- [x] T001 Create the tag module skeleton now",
    );
    s.p.write(&tasks, after);
    s.p.git(&["commit", "-q", "-am", "More by hand"]);
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    assert_eq!(row(&report, &task("T001"))["reason"], "ticked_without_evidence");
    assert_eq!(row(&report, &task("T002"))["outcome"], "baseline");
    assert_eq!(row(&report, &task("T003"))["reason"], "ticked_without_evidence");
}

#[test]
fn policy_init_counts_only_ticks_its_baseline_holds_and_names_the_boxes_it_will_not() {
    let s = Signed::new();
    let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
    let text = String::from_utf8(s.p.read(&tasks)).unwrap();
    // T001 ticked and duplicated below, T002 ticked alone, and a box under a bullet no reader takes.
    let ticked = text.replace("- [ ] T001 ", "- [x] T001 ").replace("- [ ] T002 ", "- [x] T002 ")
        + "\n- [ ] T001 the same id again\n+ [x] T090 a plus bullet\n";
    s.p.write(&tasks, ticked);
    s.p.git(&["commit", "-q", "-am", "Ticked by hand"]);
    let init = s.p.speccoder(&["attest", "policy", "init", "--json"]).success();
    let init: Value = serde_json::from_str(&init.stdout).unwrap();
    assert_eq!(init["hand_ticks"], json!([task("T002")]), "{init:#}");
    let unheld: Vec<&str> = init["unheld"].as_array().unwrap().iter().map(|u| u.as_str().unwrap()).collect();
    assert_eq!(unheld.len(), 2, "{init:#}");
    assert!(unheld[0].starts_with(&format!("{}: verify fails it as", task("T001"))), "{unheld:?}");
    assert!(unheld[0].contains("duplicate_task") && unheld[1].contains("unrecognized_tick"), "{unheld:?}");
    let policy_text = init["policy"].as_str().unwrap();
    assert!(policy_text.contains("(1 at this commit)") && policy_text.contains("# - "), "{policy_text}");
    let check = s.policy_check(&s.policy("adopted.toml", policy_text), &[]);
    assert!(check.success().stdout.contains("holds 1 hand ticks today"), "init and check agree");
}

/// Commits, beside the fixture's unit, boxes verify holds as no unit's (a hidden directory, a
/// change archived twice, a unit name with a line separator), a hand tick (T001) and a tick whose
/// commit claims it as an earlier tool wrote, with no note (T002).
fn adopt_with_boxes_verify_will_not_hold(s: &Signed) {
    s.p.write("specs/.old/tasks.md", "- [x] T001 legacy\n");
    for day in ["2025-01-01", "2025-02-01"] {
        s.p.write(&format!("openspec/changes/archive/{day}-add-x/tasks.md"), "- [x] 1.1 a\n");
    }
    s.p.write("specs/002-a\u{2028}b/tasks.md", "- [x] T001 a\n");
    s.p.git(&["add", "-A"]);
    edit_tasks(&s.p, "- [ ] T001 ", "- [x] T001 ", "Ticked by hand");
    let trailers = format!("Spec-Task: {}\nVerdict: verified", task("T002"));
    edit_tasks(&s.p, "- [ ] T002 ", "- [x] T002 ", &format!("T002 by an earlier tool\n\n{trailers}"));
}

#[test]
fn policy_init_names_every_box_verify_will_not_hold_and_counts_only_what_verify_holds() {
    let s = Signed::new();
    adopt_with_boxes_verify_will_not_hold(&s);
    let init = s.p.speccoder(&["attest", "policy", "init", "--json"]).success();
    let init: Value = serde_json::from_str(&init.stdout).unwrap();
    assert_eq!(init["hand_ticks"], json!([task("T001")]), "{init:#}");
    let unheld: Vec<&str> = init["unheld"].as_array().unwrap().iter().map(|u| u.as_str().unwrap()).collect();
    let named = |place: &str, code: &str| unheld.iter().any(|u| u.starts_with(place) && u.contains(code));
    assert!(named(&task("T002"), "`missing`"), "{unheld:#?}");
    for place in [
        "specs/.old/tasks.md",
        "openspec/changes/archive/2025-01-01-add-x/tasks.md",
        "openspec/changes/archive/2025-02-01-add-x/tasks.md",
        "specs/002-a\\u{2028}b/tasks.md",
    ] {
        assert!(named(place, "`not_a_unit`"), "{place}: {unheld:#?}");
    }
    assert_eq!(unheld.len(), 5, "{unheld:#?}");
    let policy_text = init["policy"].as_str().unwrap();
    assert!(policy_text.contains("(1 at this commit)"), "{policy_text}");
    let (_, report) = s.verify(&s.policy("adopted.toml", policy_text));
    assert_eq!(report["totals"]["baseline"], json!(1), "init counts what verify holds: {report:#}");
}

/// `attest policy init --json`, trusting Ada and Bob: the report, and its `unheld` sentences.
fn init_trusting_both(s: &Signed) -> (Value, Vec<String>) {
    let allowed = s.allowed.to_str().unwrap();
    let init = s.p.speccoder(&["attest", "policy", "init", "--allowed-signers", allowed, "--json"]).success();
    let init: Value = serde_json::from_str(&init.stdout).unwrap();
    let unheld = init["unheld"].as_array().unwrap().iter().map(|u| u.as_str().unwrap().to_owned()).collect();
    (init, unheld)
}

#[test]
fn policy_init_names_a_task_commit_s_tick_set_again_by_hand_as_verify_with_its_policy_fails_it() {
    let s = Signed::new();
    s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    edit_tasks(&s.p, "- [X] T005 ", "- [ ] T005 ", "Reopened");
    edit_tasks(&s.p, "- [ ] T005 ", "- [x] T005 ", "Ticked again by hand");
    edit_tasks(&s.p, "- [ ] T001 ", "- [x] T001 ", "Ticked by hand");
    let (init, unheld) = init_trusting_both(&s);
    assert_eq!(init["hand_ticks"], json!([task("T001")]), "{init:#}");
    let said = format!("{}: verify fails it as `ticked_again`: the box was set again by", task("T005"));
    assert!(unheld.len() == 1 && unheld[0].starts_with(&said), "{unheld:#?}");
    let policy_text = init["policy"].as_str().unwrap();
    assert!(policy_text.contains(&format!("# - {said}")), "{policy_text}");
    // Every row verify fails under the printed policy is a box init named.
    let (code, report) = s.verify(&s.policy("adopted.toml", policy_text));
    assert_eq!(code, Some(26), "{report:#}");
    assert_eq!(every_failure_is_named(&report, &unheld), 1, "{report:#}");
}

/// How many rows `report` fails, each checked to be named in `unheld` by its task and reason, as
/// `policy init` names a box verify will fail.
#[track_caller]
fn every_failure_is_named(report: &Value, unheld: &[String]) -> usize {
    let failing: Vec<&Value> =
        report["ticks"].as_array().unwrap().iter().filter(|t| t["outcome"] == "unverifiable").collect();
    for row in &failing {
        let place = format!(
            "{}: verify fails it as `{}`",
            row["task"].as_str().unwrap(),
            row["reason"].as_str().unwrap()
        );
        assert!(unheld.iter().any(|u| u.starts_with(&place)), "{place} in {unheld:#?}");
    }
    failing.len()
}

#[test]
fn policy_init_names_a_tick_set_again_by_a_second_task_commit_whose_evidence_proves_an_earlier_wording() {
    let s = Signed::new();
    let target = task("T005");
    let main = s.p.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim().to_owned();
    let stale = s.attest(&target, Evidence::Verified, None, |_| {});
    // On a branch from before that tick, FR-001 (which T005 cites) is reworded, and T005 attested
    // again, later: after the merge, that newer task commit is judged, and the older one proves the
    // earlier wording.
    s.p.git(&["checkout", "-q", "-b", "reworded", "HEAD~1"]);
    let spec = format!("specs/{SPECKIT_UNIT}/spec.md");
    common::edit_and_commit(
        &s.p,
        &spec,
        "**FR-001**: System MUST",
        "**FR-001**: System MAY",
        "Reword FR-001",
    );
    std::thread::sleep(std::time::Duration::from_millis(1100));
    s.attest(&target, Evidence::Verified, None, |_| {});
    s.p.git(&["checkout", "-q", &main]);
    s.p.git(&["merge", "-q", "--no-edit", "reworded"]);
    let (init, unheld) = init_trusting_both(&s);
    let said = format!("{target}: verify fails it as `ticked_again`: the box was set again by {stale}");
    assert!(unheld.len() == 1 && unheld[0].starts_with(&said), "{init:#}");
    assert!(unheld[0].contains("does not hold (stale)"), "verify's reason: {unheld:#?}");
    let (code, report) = s.verify(&s.policy("adopted.toml", init["policy"].as_str().unwrap()));
    assert_eq!(code, Some(26), "{report:#}");
    assert_eq!(every_failure_is_named(&report, &unheld), 1, "{report:#}");
}

/// A shallow clone whose history stops above a task commit: `policy init` and `policy check`
/// refuse as verify refuses it (14, fetch the whole history), never counting the tick whose task
/// commit lies beyond the boundary as a hand tick, nor telling it as evidence git removed (its note
/// fetched), nor the baseline as out of the head's history; with the whole history fetched, they
/// count what a complete clone counts.
#[test]
fn policy_init_and_check_refuse_a_shallow_clone_as_verify_does_and_count_as_a_complete_clone_once_it_is_whole()
 {
    let s = Signed::new();
    edit_tasks(&s.p, "- [ ] T001 ", "- [x] T001 ", "Ticked by hand");
    let adoption = s.p.rev("HEAD");
    s.attest(&task("T002"), Evidence::Verified, None, |_| {});
    s.p.git(&["commit", "-q", "--allow-empty", "-m", "A plain commit on top"]);
    let policy = baseline_policy(&s, &adoption);
    let init = ["attest", "policy", "init", "--json"];
    let complete: Value = serde_json::from_str(&s.p.speccoder(&init).success().stdout).unwrap();
    assert_eq!(complete["hand_ticks"], json!([task("T001")]), "{complete:#}");
    let (allowed, policy) = (s.allowed.to_str().unwrap(), policy.to_str().unwrap());
    let check = ["attest", "policy", "check", policy, "--allowed-signers", allowed];
    let verify = ["attest", "verify", "--branch", "--all", "--allowed-signers", allowed];

    let shallow = s.p.tmp().join("shallow");
    let url = format!("file://{}", s.p.root.display());
    s.p.git(&["clone", "-q", "--depth", "1", &url, shallow.to_str().unwrap()]);
    let refused = |args: &[&str]| {
        let out = s.p.speccoder_in(&shallow, args).failure(14);
        assert!(out.stderr.contains("this clone is shallow"), "{args:?}: {out}");
        assert!(out.stderr.contains("git fetch --unshallow"), "{args:?}: {out}");
        assert!(!out.stdout.contains("hand_ticks") && !out.stdout.contains("commit_unreachable"), "{out}");
        assert!(!out.stdout.contains("not in the history"), "{args:?}: {out}");
    };
    for args in [&init[..], &check, &verify] {
        refused(args);
    }
    // Its note fetched, T002's task commit is still beyond the boundary, not removed by git.
    s.p.git_in(&shallow, &["fetch", "-q", "origin", "refs/notes/speccoder:refs/notes/speccoder"]);
    for args in [&init[..], &check, &verify] {
        refused(args);
    }

    s.p.git_in(&shallow, &["fetch", "-q", "--unshallow", "origin"]);
    let whole: Value = serde_json::from_str(&s.p.speccoder_in(&shallow, &init).success().stdout).unwrap();
    assert_eq!(whole["hand_ticks"], complete["hand_ticks"], "{whole:#}");
    let checked = s.p.speccoder_in(&shallow, &check).success();
    assert!(checked.stdout.contains("holds 1 hand ticks today"), "{checked}");
}

/// `policy check` in a shallow clone whose head ticks nothing, of a policy whose baseline lies
/// beyond the boundary: refused (14, fetch the whole history), never told as a commit out of the
/// head's history; a complete clone's head history may truly lack it, and says so.
#[test]
fn policy_check_refuses_to_tell_a_baseline_beyond_the_shallow_boundary_out_of_the_head_s_history() {
    let s = Signed::new();
    edit_tasks(&s.p, "- [ ] T001 ", "- [x] T001 ", "Ticked by hand");
    let adoption = s.p.rev("HEAD");
    edit_tasks(&s.p, "- [x] T001 ", "- [ ] T001 ", "Reopened");
    s.p.git(&["commit", "-q", "--allow-empty", "-m", "A plain commit on top"]);
    let policy = baseline_policy(&s, &adoption);
    let check = ["attest", "policy", "check", policy.to_str().unwrap()];
    let shallow = s.p.tmp().join("shallow");
    let url = format!("file://{}", s.p.root.display());
    s.p.git(&["clone", "-q", "--depth", "1", &url, shallow.to_str().unwrap()]);
    let out = s.p.speccoder_in(&shallow, &check).failure(14);
    assert!(out.stderr.contains(&format!("the verifier policy's baseline {adoption} is not in it")), "{out}");
    assert!(out.stderr.contains("git fetch --unshallow"), "{out}");

    s.p.git_in(&shallow, &["fetch", "-q", "--unshallow", "origin"]);
    let whole = s.p.speccoder_in(&shallow, &check).success();
    assert!(whole.stdout.contains("holds 0 hand ticks today"), "{whole}");
    // Off the head's history in a complete clone, it is told as such.
    s.p.git(&["checkout", "-q", "--orphan", "elsewhere"]);
    s.p.git(&["commit", "-q", "-m", "Another history"]);
    let out = s.p.speccoder(&check).success();
    assert!(out.stdout.contains("is not in the history of the head"), "{out}");
}

#[test]
fn policy_check_names_a_task_list_it_cannot_read_shows_the_rest_and_accepts_what_init_printed() {
    let s = Signed::new();
    s.p.write("specs/003-latin/tasks.md", b"- [x] T001 caf\xe9\n");
    adopt_with_boxes_verify_will_not_hold(&s);
    let init = s.p.speccoder(&["attest", "policy", "init", "--json"]).success();
    let init: Value = serde_json::from_str(&init.stdout).unwrap();
    let policy = s.policy("adopted.toml", init["policy"].as_str().unwrap());
    let check: Value = serde_json::from_str(&s.policy_check(&policy, &["--json"]).success().stdout).unwrap();
    assert_eq!(check["baseline"]["holds"], init["hand_ticks"], "{check:#}");
    assert_eq!(check["rules"][0]["units"], json!([SPECKIT_UNIT, "003-latin"]), "{check:#}");
    let unreadable = check["unreadable"].to_string();
    assert!(unreadable.contains("003-latin") && unreadable.contains("UTF-8"), "{check:#}");
    let text = s.policy_check(&policy, &[]).success().stdout;
    assert!(text.contains("warning: the task list of unit 003-latin cannot be read"), "{text}");
    assert!(text.contains("holds 1 hand ticks today"), "{text}");
}

#[test]
fn policy_init_names_on_stderr_and_in_the_policy_each_trusted_principal_it_leaves_out() {
    let s = Signed::new();
    edit_tasks(&s.p, "- [ ] T001 ", "- [x] T001 ", "Ticked by hand");
    let long = format!("svc-{}@ci.example.org", "x".repeat(260));
    let trust = common::allowed_signers(&s.p.scratch.join("long"), &[(&long, &s.ada), (BOB, &s.bob)]);
    let init = s.p.speccoder(&["attest", "policy", "init", "--allowed-signers", trust.to_str().unwrap()]);
    let init = init.success();
    assert!(init.stderr.contains("left out of `signers`") && init.stderr.contains("279 bytes"), "{init}");
    let table: toml::Table = toml::from_str(&init.stdout).unwrap();
    assert_eq!(table["rule"].as_array().unwrap()[0]["signers"], toml::Value::from(vec![BOB]), "{init}");
    let commented = init.stdout.lines().filter(|l| l.starts_with('#') && l.contains("left out of `signers`"));
    assert_eq!(commented.count(), 1, "{}", init.stdout);
}

#[test]
fn policy_init_tells_trust_files_that_name_no_principal_from_no_trust_file_given() {
    let s = Signed::new();
    let nobody = s.p.scratch.join("nobody");
    std::fs::write(&nobody, "# nobody yet\n").unwrap();
    let given = s.p.speccoder(&["attest", "policy", "init", "--allowed-signers", nobody.to_str().unwrap()]);
    let given = given.success().stdout;
    assert!(given.contains("(the trust files\n# given to `policy init` name no principal:"), "{given}");
    assert!(!given.contains("no trust file was"), "a trust file was given:\n{given}");
    s.p.git(&["config", "--unset", "gpg.ssh.allowedSignersFile"]);
    let none = s.p.speccoder(&["attest", "policy", "init"]).success().stdout;
    assert!(none.contains("(no trust file was\n# given to `policy init`:"), "{none}");
    for printed in [&given, &none] {
        let table: toml::Table = toml::from_str(printed).unwrap();
        let signers = &table["rule"].as_array().unwrap()[0]["signers"];
        assert_eq!(signers, &toml::Value::from(vec!["*"]), "anyone the trust accepts: {printed}");
    }
}

#[test]
fn a_task_list_that_is_no_unit_s_names_no_rule_whatever_the_rules_match() {
    let s = Signed::new();
    s.p.write("specs/archive/001-old/tasks.md", "- [x] T001 Done long ago\n");
    s.p.git(&["add", "-A"]);
    s.p.git(&["commit", "-q", "-m", "An archive made by hand"]);
    let policy = s.policy("all.toml", "version = 1\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\n");
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    let stray = report["ticks"].as_array().unwrap().iter().find(|t| t["reason"] == "not_a_unit");
    let stray = stray.unwrap_or_else(|| panic!("a not_a_unit row: {report:#}"));
    assert!(stray["rule"].is_null(), "a place that is no unit's matches no unit glob: {stray:#}");
}

#[test]
fn a_unit_whose_name_may_pass_for_another_s_fails_whatever_rule_it_matches_and_policy_check_names_it() {
    let s = Signed::new();
    // `bookmark‐tags` with a hyphen U+2010: it reads as the fixture's unit, and the strict rule's
    // glob `*-tags` does not match it, so only the catch-all would judge it.
    let lookalike = "001-bookmark\u{2010}tags";
    s.p.git(&["mv", &format!("specs/{SPECKIT_UNIT}"), &format!("specs/{lookalike}")]);
    s.p.git(&["commit", "-q", "-m", "Rename the unit"]);
    s.attest(&format!("{lookalike}/T005"), Evidence::Verified, None, |_| {});
    let rules = "version = 1\n[[rule]]\nname = \"tags\"\nunits = [\"*-tags\"]\nphases = [\"held_out\"]\n\
        [[rule]]\nname = \"all\"\nunits = [\"*\"]\n";
    let policy = s.policy("tags.toml", rules);
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    let tick = row(&report, &format!("{lookalike}/T005"));
    assert_eq!((tick["rule"].as_str(), tick["reason"].as_str()), (Some("all"), Some("policy_mixed_script")));
    let check: Value = serde_json::from_str(&s.policy_check(&policy, &["--json"]).success().stdout).unwrap();
    assert_eq!(check["lookalike_units"][0]["unit"], lookalike, "{check:#}");
    let text = s.policy_check(&policy, &[]).success().stdout;
    assert!(text.contains(&format!("warning: unit {lookalike} may pass for another's")), "{text}");
}

#[test]
fn a_feature_named_as_a_bug_task_is_no_unit_so_the_rule_for_bugs_never_judges_its_ticks() {
    let s = Signed::new();
    // Trailer-only bug tasks are judged by the name `bug:<slug>`; a feature directory so named
    // must not choose their rule, which asks less than the catch-all.
    let named = "bug:bookmark-tags";
    s.p.git(&["mv", &format!("specs/{SPECKIT_UNIT}"), &format!("specs/{named}")]);
    s.p.git(&["commit", "-q", "-m", "Rename the unit"]);
    let refused = s.attest_run(&format!("{named}/T005"), Evidence::Verified, Some(&s.bob), |_| {}).failure(2);
    assert!(refused.stderr.contains("begins with `bug:`"), "{refused}");
    let tasks = format!("specs/{named}/tasks.md");
    common::edit_and_commit(&s.p, &tasks, "- [ ] T005 ", "- [X] T005 ", "Ticked by hand");
    let rules = "version = 1\n[[rule]]\nname = \"bugs\"\nunits = [\"bug:*\"]\nsigners = [\"*\"]\n\
        [[rule]]\nname = \"features\"\nunits = [\"*\"]\nsigners = [\"ada@example.com\"]\napprovals = { count = 1 }\n";
    let policy = s.policy("bugs.toml", rules);
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    let stray = row(&report, &tasks);
    assert_eq!((stray["reason"].as_str(), stray["rule"].as_str()), (Some("not_a_unit"), None), "{stray:#}");
    let said = stray["findings"][0]["message"].as_str().unwrap();
    assert!(said.contains("begins with `bug:`") && said.ends_with("rename the directory"), "{said}");
    assert!(report["ticks"].as_array().unwrap().iter().all(|t| t["rule"] != "bugs"), "{report:#}");
    let check: Value = serde_json::from_str(&s.policy_check(&policy, &["--json"]).success().stdout).unwrap();
    assert_eq!(check["rules"][0]["units"], json!([]), "{check:#}");
    let listed = check["not_units"][0].as_str().unwrap_or_default();
    assert!(listed.starts_with(&tasks) && listed.ends_with("rename the directory"), "{check:#}");
}

#[test]
fn a_unit_named_decomposed_is_judged_by_the_rule_whose_glob_names_it_composed() {
    let s = Signed::new();
    // `e` and U+0301, as macOS often writes a name; the rule writes `é` as one character.
    let decomposed = "001-cafe\u{301}";
    s.p.git(&["mv", &format!("specs/{SPECKIT_UNIT}"), &format!("specs/{decomposed}")]);
    s.p.git(&["commit", "-q", "-m", "Rename the unit"]);
    s.attest(&format!("{decomposed}/T005"), Evidence::Verified, None, |_| {});
    let rules = "version = 1\n[[rule]]\nname = \"cafe-strict\"\nunits = [\"*caf\u{e9}\"]\nphases = [\"held_out\"]\n\
        [[rule]]\nname = \"default\"\nunits = [\"*\"]\n";
    let policy = s.policy("cafe.toml", rules);
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    let tick = row(&report, &format!("{decomposed}/T005"));
    assert_eq!((tick["rule"].as_str(), tick["reason"].as_str()), (Some("cafe-strict"), Some("policy_phase")));
    let check: Value = serde_json::from_str(&s.policy_check(&policy, &["--json"]).success().stdout).unwrap();
    assert_eq!(check["rules"][0]["units"], json!([decomposed]), "{check:#}");
    assert_eq!(check["rules"][1]["units"], json!([]), "{check:#}");
}

/// Commits the fixture's task list with `from` replaced by `to`.
#[track_caller]
fn edit_tasks(p: &Project, from: &str, to: &str, message: &str) {
    common::edit_and_commit(p, &format!("specs/{SPECKIT_UNIT}/tasks.md"), from, to, message);
}

/// A policy whose baseline is `commit`, with one catch-all rule.
fn baseline_policy(s: &Signed, commit: &str) -> PathBuf {
    let text = format!(
        "version = 1\n[baseline]\ncommit = \"{commit}\"\nreason = \"adopted\"\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\n"
    );
    s.policy("baseline.toml", &text)
}

#[test]
fn a_baseline_of_thousands_of_hand_ticks_is_checked_reading_each_task_list_once() {
    // Read again for each tick, as it once was, 8,000 ticks of one list took minutes here.
    let count = 8_000;
    let s = Signed::new();
    let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
    let mut text = String::from_utf8(s.p.read(&tasks)).unwrap();
    text.push_str("\n## Done before adoption\n\n");
    for i in 0..count {
        text.push_str(&format!("- [x] T{} Ticked by hand\n", 10_000 + i));
    }
    s.p.write(&tasks, text);
    s.p.git(&["commit", "-q", "-am", "Ticked by hand"]);
    let policy = baseline_policy(&s, &s.p.rev("HEAD"));
    let check = s.policy_check(&policy, &[]).success();
    assert!(check.stdout.contains(&format!("holds {count} hand ticks today")), "{check}");
    let (code, report) = s.verify(&policy);
    assert_eq!((code, report["totals"]["baseline"].as_u64()), (Some(0), Some(count)), "{}", report["totals"]);
}

#[test]
fn a_baseline_tick_taken_back_and_ticked_again_by_hand_holds_no_more() {
    let s = Signed::new();
    edit_tasks(&s.p, "- [ ] T002 ", "- [x] T002 ", "Ticked by hand");
    let policy = baseline_policy(&s, &s.p.rev("HEAD"));
    let (code, report) = s.verify(&policy);
    assert_eq!((code, &row(&report, &task("T002"))["outcome"]), (Some(0), &json!("baseline")));

    edit_tasks(&s.p, "- [x] T002 ", "- [ ] T002 ", "Reopened: not done after all");
    edit_tasks(&s.p, "- [ ] T002 ", "- [x] T002 ", "Ticked again by hand, after the adoption");
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    assert_eq!(row(&report, &task("T002"))["reason"], "ticked_without_evidence");
    // The row says why the baseline does not hold it, and what to do.
    let said = row(&report, &task("T002"))["findings"][0]["message"].as_str().unwrap().to_owned();
    let why = format!("does not hold it: its box was set again by {}", s.p.rev("HEAD"));
    assert!(said.contains(&why) && said.contains("untick it in a new commit, then attest it"), "{said}");
    let check = s.policy_check(&policy, &[]);
    assert!(check.success().stdout.contains("holds 0 hand ticks today"));
}

#[test]
fn a_baseline_tick_taken_back_and_ticked_again_by_hand_holds_no_more_though_a_ticked_copy_stood_between() {
    let s = Signed::new();
    edit_tasks(&s.p, "- [ ] T002 ", "- [x] T002 ", "Ticked by hand");
    let policy = baseline_policy(&s, &s.p.rev("HEAD"));
    let tasks = format!("specs/{SPECKIT_UNIT}/tasks.md");
    let ticked = String::from_utf8(s.p.read(&tasks)).unwrap();
    s.p.write(&tasks, format!("{}\n- [x] T002 stray copy\n", ticked.replace("- [x] T002 ", "- [ ] T002 ")));
    s.p.git(&["commit", "-q", "-am", "Reopened: not done after all; a stray ticked copy"]);
    s.p.write(&tasks, &ticked);
    s.p.git(&["commit", "-q", "-am", "Ticked again by hand, the copy gone"]);
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    assert_eq!(row(&report, &task("T002"))["reason"], "ticked_without_evidence");
}

#[test]
fn a_baseline_tick_whose_wrapped_part_was_reworded_since_holds_no_more() {
    let s = Signed::new();
    let line = "- [ ] T002 ";
    let tasks = String::from_utf8(s.p.read(&format!("specs/{SPECKIT_UNIT}/tasks.md"))).unwrap();
    let whole = tasks.lines().find(|l| l.starts_with(line)).unwrap().to_owned();
    let ticked = whole.replacen("[ ]", "[x]", 1);
    edit_tasks(&s.p, &whole, &format!("{ticked}\n  and its store"), "Ticked by hand, wrapped");
    let policy = baseline_policy(&s, &s.p.rev("HEAD"));
    let (code, report) = s.verify(&policy);
    assert_eq!((code, &row(&report, &task("T002"))["outcome"]), (Some(0), &json!("baseline")));

    edit_tasks(&s.p, "\n  and its store", "\n  and every admin check removed", "Reworded after the adoption");
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    assert_eq!(row(&report, &task("T002"))["reason"], "ticked_without_evidence");
}

#[test]
fn a_baseline_naming_a_tree_or_an_annotated_tag_says_what_it_names_and_what_to_write_and_holds_nothing() {
    let s = Signed::new();
    edit_tasks(&s.p, "- [ ] T002 ", "- [x] T002 ", "Ticked by hand");
    let adoption = s.p.rev("HEAD");
    s.p.git(&["tag", "-a", "-m", "adopted", "adopted", "HEAD"]);
    let said = [
        (
            s.p.rev("HEAD^{tree}"),
            "names a tree, not a commit: no tick holds by it; write a commit's full id".to_owned(),
        ),
        (
            s.p.rev("adopted"),
            format!(
                "names an annotated tag, not a commit: no tick holds by it; write the commit it tags, {adoption},"
            ),
        ),
    ];
    for (id, says) in said {
        let policy = baseline_policy(&s, &id);
        let (code, report) = s.verify(&policy);
        // Nothing is held, as with any baseline in no history of the head: the tag is not peeled.
        assert_eq!(code, Some(26), "{report:#}");
        assert_eq!(row(&report, &task("T002"))["reason"], "ticked_without_evidence", "{report:#}");
        let warnings = report["warnings"].to_string();
        assert!(warnings.contains(&format!("baseline {id} {says}")), "{warnings}");
        assert!(!warnings.contains("not in the history"), "{warnings}");
        let check = s.policy_check(&policy, &[]).success();
        assert!(
            check.stdout.contains(&format!("  warning: the verifier policy's baseline {id} {says}")),
            "{check}"
        );
    }
}

#[test]
fn a_baseline_inside_the_history_under_review_holds_none_of_its_hand_ticks_and_says_so() {
    let s = Signed::new();
    s.p.git(&["checkout", "-q", "-b", "x"]);
    edit_tasks(&s.p, "- [ ] T002 ", "- [x] T002 ", "Done (by hand), on the branch");
    // The base's policy names the branch's own commit as the baseline.
    let policy = baseline_policy(&s, &s.p.rev("HEAD"));
    let mut args = s.verify_args(&policy);
    args.retain(|a| *a != "--all");
    args.extend(["--base", "main", "--json"]);
    let out = s.p.speccoder(&args);
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(out.code(), Some(26), "{report:#}");
    assert_eq!(row(&report, &task("T002"))["reason"], "ticked_without_evidence", "{report:#}");
    let inside = "inside the history under review";
    assert!(report["warnings"].to_string().contains(inside), "{report:#}");
    args.pop();
    let md = s.p.scratch.join("report.md");
    args.extend(["--markdown", md.to_str().unwrap()]);
    let text = s.p.speccoder(&args).failure(26);
    assert!(text.stdout.contains(inside), "{text}");
    assert!(std::fs::read_to_string(&md).unwrap().contains(inside), "the Markdown report warns too");
    // Checked whole (`--all`, no base), the same commit is the head's history, as documented.
    assert_eq!(row(&s.verify(&policy).1, &task("T002"))["outcome"], "baseline");
}

#[test]
fn a_baseline_is_placed_against_the_base_branch_itself_after_a_criss_cross_merge_or_with_no_shared_history() {
    // Criss-cross: main's own adoption commit B is no ancestor of the merge base gix picks (F1),
    // yet it is the base branch's: it holds.
    let s = Signed::new();
    s.p.git(&["checkout", "-q", "-b", "feat"]);
    s.p.write("a.txt", "a\n");
    s.p.git(&["add", "a.txt"]);
    // Both F1 and B are best common ancestors; gix takes the newer first (equal times leave the
    // pick to the walk's order), so F1 is dated an hour ahead to be the one picked.
    let mut f1 = common::git_command(&s.p.root, &s.p.home, &["commit", "-q", "-m", "F1"]);
    let ahead = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 3600;
    f1.env("GIT_COMMITTER_DATE", format!("{ahead} +0000"));
    assert!(common::run(f1).status.success());
    s.p.git(&["checkout", "-q", "main"]);
    edit_tasks(&s.p, "- [ ] T002 ", "- [x] T002 ", "adoption: T002 ticked by hand");
    let b = s.p.rev("HEAD");
    s.p.git(&["merge", "-q", "--no-edit", "feat", "-m", "main merges feat"]);
    s.p.git(&["checkout", "-q", "feat"]);
    s.p.git(&["merge", "-q", "--no-edit", &b, "-m", "feat merges B"]);
    let policy = baseline_policy(&s, &b);
    let mut args = s.verify_args(&policy);
    args.retain(|a| *a != "--all");
    args.extend(["--base", "main", "--json"]);
    let out = s.p.speccoder(&args);
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(row(&report, &task("T002"))["outcome"], "baseline", "{report:#}");
    // A branch that shares no history with main, checked against its default base: its own
    // commit named as the baseline holds nothing, as with `--base main`.
    s.p.git(&["checkout", "-q", "--orphan", "x"]);
    s.p.git(&["commit", "-q", "-m", "a root of its own"]);
    edit_tasks(&s.p, "- [ ] T003 ", "- [x] T003 ", "T003 by hand, on the branch");
    let policy = baseline_policy(&s, &s.p.rev("HEAD"));
    let mut args = s.verify_args(&policy);
    args.retain(|a| *a != "--all");
    args.push("--json");
    let out = s.p.speccoder(&args);
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(out.code(), Some(26), "{report:#}");
    assert_eq!(row(&report, &task("T003"))["reason"], "ticked_without_evidence", "{report:#}");
    assert!(report["warnings"].to_string().contains("inside the history under review"), "{report:#}");
}

#[test]
fn require_verified_fails_a_baseline_tick_as_it_fails_an_attested_one() {
    let s = Signed::new();
    edit_tasks(&s.p, "- [ ] T001 ", "- [x] T001 ", "Ticked by hand");
    let policy = baseline_policy(&s, &s.p.rev("HEAD"));
    assert_eq!(s.verify(&policy).0, Some(0));
    let mut args = s.verify_args(&policy);
    args.extend(["--require-verified", "--json"]);
    let out = s.p.speccoder(&args);
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(out.code(), Some(26), "{report:#}");
    let t001 = row(&report, &task("T001"));
    assert_eq!((&t001["outcome"], &t001["reason"]), (&json!("baseline"), &json!("not_verified")));
    let totals = &report["totals"];
    assert_eq!((&totals["baseline"], &totals["baseline_not_accepted"]), (&json!(1), &json!(1)));
    args.pop();
    let text = s.p.speccoder(&args).failure(26);
    assert!(text.stdout.contains("1 baseline (ticked by hand before adoption) (1 not accepted"), "{text}");
}

#[test]
fn policy_check_shows_the_units_of_each_rule_unknown_principals_and_shadowed_rules() {
    let s = Signed::new();
    let text = "version = 1\n\
        [[rule]]\nname = \"all\"\nunits = [\"*\"]\nsigners = [\"ada@example.com\", \"Ada@example.com\", \"zed@example.com\"]\n\
        [[rule]]\nname = \"late\"\nunits = [\"001-*\"]\napprovals = { count = 1, by = [\"bob@example.com\", \"*\"] }\n";
    let policy = s.policy("check.toml", text);
    let out = s.policy_check(&policy, &["--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["rules"][0]["units"], json!([SPECKIT_UNIT]));
    // An SSH principal is named exactly, as `verify` matches it: another case is unknown.
    assert_eq!(report["rules"][0]["unknown_principals"], json!(["Ada@example.com", "zed@example.com"]));
    assert_eq!(report["rules"][1]["units"], json!([]));
    assert_eq!(report["rules"][1]["taken_earlier"], json!([SPECKIT_UNIT]));
    assert_eq!(report["rules"][1]["shadowed_by"], "all");
    assert_eq!(report["rules"][1]["unknown_principals"], json!([]));
    assert_eq!(report["sha256"], common::sha256(text.as_bytes()));
    let shown = s.policy_check(&policy, &[]);
    let shown = shown.success().stdout;
    assert!(shown.contains("shadowed by rule all") && shown.contains("zed@example.com"), "{shown}");
}

#[test]
fn policy_commands_check_no_signature_and_so_refuse_the_flags_of_how_one_is_checked() {
    let s = Signed::new();
    let policy = s.policy("plain.toml", "version = 1\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\n");
    for flag in [&["--via-tools"][..], &["--signature-time", "now"]] {
        let refused = s.policy_check(&policy, flag).failure(2);
        assert!(refused.stderr.contains(flag[0]), "{refused}");
        let mut init = vec!["attest", "policy", "init"];
        init.extend(flag);
        s.p.speccoder(&init).failure(2);
    }
}

#[test]
fn the_schema_of_the_policy_accepts_the_example_and_refuses_an_unknown_key() {
    let example = r#"version = 1
[baseline]
commit = "0123456789abcdef0123456789abcdef01234567"
reason = "adopted after these tasks were ticked by hand"
[[rule]]
name = "payments"
units = ["*-payments-*"]
signers = ["alice@example.org"]
verdicts = ["verified"]
phases = ["green", "held_out"]
approvals = { count = 1, by = ["bob@example.org"] }
min_mutation_score = 0.8
min_strength = 0.9
monitor = ["clean"]
sandbox = ["container", "vm"]
carried = false
skips = false
[[rule]]
name = "default"
units = ["*"]
signers = ["*"]
"#;
    let validator = common::schema_validator("verifier-policy.schema.json");
    let as_json = |text: &str| serde_json::to_value(toml::from_str::<toml::Table>(text).unwrap()).unwrap();
    let mut value = as_json(example);
    assert!(
        validator.is_valid(&value),
        "{:?}",
        validator.iter_errors(&value).map(|e| e.to_string()).collect::<Vec<_>>()
    );
    value["rule"][0]["signer"] = json!(["x"]);
    assert!(!validator.is_valid(&value));
    assert!(!validator.is_valid(&as_json("version = 2\n")));
}

/// A bare remote, Ada's and Bob's clones, and a CI clone.
#[test]
fn an_approval_made_in_another_clone_travels_through_the_remote_and_verifies_with_ssh_keygen() {
    let s = Signed::new();
    let remote = s.p.tmp().join("remote.git");
    s.p.git_in(s.p.tmp(), &["init", "-q", "--bare", "-b", "main", remote.to_str().unwrap()]);
    s.p.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    let target = task("T005");
    let commit = s.attest(&target, Evidence::Verified, None, |_| {});
    s.p.speccoder(&["attest", "push", "origin"]).success();

    // Bob's clone: fetch, approve with his key, push.
    let bob_dir = s.p.tmp().join("bob");
    s.p.git_in(s.p.tmp(), &["clone", "-q", remote.to_str().unwrap(), bob_dir.to_str().unwrap()]);
    for (k, v) in [("user.name", "Bob"), ("user.email", BOB), ("commit.gpgsign", "false")] {
        s.p.git_in(&bob_dir, &["config", k, v]);
    }
    s.p.speccoder_in(&bob_dir, &["attest", "fetch", "origin"]).success();
    let approve = |dir: &Path, key: &Key| s.p.speccoder_in(dir, &approve_args(&commit, &s.allowed, key));
    let approved: Value = serde_json::from_str(&approve(&bob_dir, &s.bob).success().stdout).unwrap();
    assert_eq!((approved["signatures"].as_u64(), approved["unchanged"].as_bool()), (Some(2), Some(false)));
    // Again: his key is on the line already, nothing changes.
    let again: Value = serde_json::from_str(&approve(&bob_dir, &s.bob).success().stdout).unwrap();
    assert_eq!(again["unchanged"], true);
    s.p.speccoder_in(&bob_dir, &["attest", "push", "origin"]).success();

    // Ada fetches it; the policy's second signer holds; the signature is Bob's, by ssh-keygen.
    s.p.speccoder(&["attest", "fetch", "origin"]).success();
    let lines = s.p.note_lines(&commit);
    let summary = lines.last().unwrap();
    assert_eq!(summary.signatures.len(), 2, "the summary carries Ada's and Bob's signatures");
    let bob_allowed = common::allowed_signers(&s.p.scratch.join("bob_only"), &[(BOB, &s.bob)]);
    let checked =
        common::ssh_verify(&s.p.scratch, &bob_allowed, BOB, &summary.signatures[1].1, &summary.pae());
    assert!(checked.status.success(), "{checked}");
    for other in &lines[..lines.len() - 1] {
        assert_eq!(other.signatures.len(), 1, "only the covering line is approved");
    }
    let text = "version = 1\n[[rule]]\nname = \"two-person\"\nunits = [\"*\"]\nsigners = [\"ada@example.com\"]\napprovals = { count = 1, by = [\"bob@example.com\"] }\n";
    let policy = s.policy("two.toml", text);
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(row(&report, &target)["rule"], "two-person");
    s.p.git(&["fsck", "--strict"]);
    s.p.git_in(&remote, &["fsck", "--strict"]);

    // Ada cannot approve her own tick, with her key or another of hers.
    let own: Value = serde_json::from_str(&approve(&s.p.root, &s.ada).success().stdout).unwrap();
    assert_eq!(own["unchanged"], true);
    let text = "version = 1\n[[rule]]\nname = \"two\"\nunits = [\"*\"]\napprovals = { count = 2 }\n";
    approve(&s.p.root, &s.ada2).success();
    let (code, report) = s.verify(&s.policy("two-more.toml", text));
    assert_eq!(code, Some(26), "Ada's second key is no second person: {report:#}");
    assert_eq!(row(&report, &target)["reason"], "policy_approval");
}

/// The report of a run that printed one JSON object.
#[track_caller]
fn json_of(run: Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{run}"))
}

/// Ada's second key, which the trust lists under a pattern (`ada@*`, `*`, `ada@example.co?`) that
/// `ssh-keygen -Y verify -I ada@example.com` accepts it as, is Ada to `approvals`: her tick
/// "approved" with it fails `approvals = { count = 1 }`, in-process and through `ssh-keygen`
/// alike, and `attest approve` says why; Bob's approval then holds, and Bob's second key, under
/// `bob@*`, is Bob again: it counts once.
#[test]
fn a_key_the_trust_lets_sign_as_the_maker_through_a_pattern_approves_nothing_and_counts_once() {
    let s = Signed::new();
    let bob2 = common::ed25519(&s.p.scratch_dir("more-keys"), "bob2");
    let target = task("T005");
    let commit = s.attest(&target, Evidence::Verified, None, |_| {});
    let trust = |ada2_as: &str| {
        let entries = [(PRINCIPAL, &s.ada), (ada2_as, &s.ada2), (BOB, &s.bob), ("bob@*", &bob2)];
        common::allowed_signers(&s.p.scratch.join(format!("patterns-{}", ada2_as.len())), &entries)
    };
    let allowed = trust("ada@*");
    let approved = json_of(s.p.speccoder(&approve_args(&commit, &allowed, &s.ada2)).success());
    let warnings = approved["warnings"].to_string();
    assert!(
        warnings.contains("counts as no approval of the tick: its key and the key of ada@example.com")
            && warnings.contains("who made the tick, may be one person's"),
        "{approved}"
    );
    // ssh-keygen itself takes the second key's signature for ada@example.com's.
    let summary = s.p.note_lines(&commit).pop().unwrap();
    assert_eq!(summary.signatures.len(), 2);
    let as_ada =
        common::ssh_verify(&s.p.scratch, &allowed, PRINCIPAL, &summary.signatures[1].1, &summary.pae());
    assert!(as_ada.status.success(), "{as_ada}");

    let policy = |count: u32| {
        let text = format!(
            "version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\napprovals = {{ count = {count} }}\n"
        );
        s.policy(&format!("count-{count}.toml"), &text)
    };
    let verify = |allowed: &Path, policy: &Path, extra: &[&str]| {
        let (allowed, policy) = (allowed.to_str().unwrap(), policy.to_str().unwrap());
        let mut args = vec!["attest", "verify", "--branch", "--all", "--allowed-signers", allowed];
        args.extend(["--policy", policy, "--json"]);
        args.extend(extra);
        let report = json_of(s.p.speccoder(&args));
        (report["exit_code"].as_i64(), row(&report, &target)["reason"].clone())
    };
    let failed = (Some(26), json!("policy_approval"));
    for pattern in ["ada@*", "*", "ada@example.co?"] {
        for extra in [&[][..], &["--via-tools"]] {
            assert_eq!(verify(&trust(pattern), &policy(1), extra), failed, "{pattern} {extra:?}");
        }
    }

    let approved = json_of(s.p.speccoder(&approve_args(&commit, &allowed, &s.bob)).success());
    assert_eq!(approved["warnings"], json!([]), "{approved}");
    assert_eq!(verify(&allowed, &policy(1), &[]), (Some(0), Value::Null));
    let approved = json_of(s.p.speccoder(&approve_args(&commit, &allowed, &bob2)).success());
    let warnings = approved["warnings"].to_string();
    assert!(
        warnings.contains("bob@example.com (ssh key") && warnings.contains("one person counts once"),
        "{approved}"
    );
    for extra in [&[][..], &["--via-tools"]] {
        assert_eq!(verify(&allowed, &policy(2), extra), failed, "bob@* is bob@example.com: {extra:?}");
    }
}

/// `attest approve` writes a signature its own trust will not count as an approval (its exit codes
/// stay), and says why, in text and JSON: a second key the trust lists under the maker's
/// principal, a key it lists not at all. The maker approving again is told that the tick's own
/// signer never counts as its approver; Bob approving again only that nothing changed.
#[test]
fn approve_warns_of_a_signature_its_own_trust_will_not_count_and_says_why() {
    let s = Signed::new();
    let eve = common::ed25519(&s.p.scratch_dir("eve"), "eve");
    let commit = s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    let text = |key: &Key| {
        let args = approve_args(&commit, &s.allowed, key);
        s.p.speccoder(&args[..args.len() - 1]).success().stdout
    };
    let ada2 = text(&s.ada2);
    assert!(
        ada2.contains("  warning: under your trust this signature counts as no approval of the tick: its key and the key of ada@example.com (ssh key ")
            && ada2.contains("who made the tick, may be one person's: they share a principal"),
        "{ada2}"
    );
    let eve = json_of(s.approve(&commit, &eve).success());
    let warning = eve["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains("counts as no approval of the tick: untrusted SSH signer")
            && warning.contains("lists this key")
            && warning.contains("(untrusted_signer)"),
        "{eve}"
    );
    assert_eq!((eve["signatures"].as_u64(), eve["unchanged"].as_bool()), (Some(3), Some(false)), "written");

    let bob = text(&s.bob);
    assert!(!bob.contains("warning"), "Bob's approval counts: {bob}");
    let again = text(&s.bob);
    assert!(again.contains("a signature by this key already; nothing changed\n"), "{again}");
    assert!(!again.contains("own signer") && !again.contains("counts as no approval"), "{again}");
    let own = text(&s.ada);
    assert!(
        own.contains("nothing changed")
            && own.contains("this key made the tick, and the tick's own signer never counts as its approver"),
        "{own}"
    );
}

/// A covering line flooded with as many signatures as a line may carry takes no approval (exit
/// 14, nothing written), and the refusal says how many verify under the approver's trust and
/// what to do.
#[test]
fn approving_a_line_that_carries_sixteen_signatures_says_how_many_verify_under_your_trust_and_what_to_do() {
    let s = Signed::new();
    let commit = s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    s.approve(&commit, &s.bob).success();
    let mut lines = s.p.note_raw_lines(&commit);
    let last = lines.len() - 1;
    let mut summary: Value = serde_json::from_slice(&lines[last]).unwrap();
    for _ in 0..14 {
        summary["signatures"].as_array_mut().unwrap().push(json!({ "keyid": "x", "sig": "AAAA" }));
    }
    lines[last] = serde_json::to_vec(&summary).unwrap();
    s.p.write_note(&commit, &lines);
    let before = s.p.snapshot();
    let out = s.approve(&commit, &s.ada2).failure(14);
    assert!(
        out.stderr.contains("carries 16 signatures, the most a line may carry, 2 of them verifying under your trust: nothing was approved; the other 14 verify under no key your trust accepts"),
        "{out}"
    );
    assert!(
        out.stderr.contains("find who wrote them")
            && out.stderr.contains("`speccoder attest 001-bookmark-tags/T005 --evidence <the new evidence>`"),
        "{out}"
    );
    assert_eq!(s.p.snapshot(), before, "nothing approved");
}

#[test]
fn approve_refuses_a_note_it_cannot_verify_and_writes_nothing() {
    let s = Signed::new();
    let target = task("T005");
    let commit = s.attest(&target, Evidence::Verified, None, |_| {});
    // Bob trusts only himself: Ada's signatures do not verify for him.
    let bob_trust = common::allowed_signers(&s.p.scratch.join("bob_trust"), &[(BOB, &s.bob)]);
    let before = s.p.snapshot();
    let out = s.p.speccoder(&[
        "attest",
        "approve",
        &commit,
        "--allowed-signers",
        bob_trust.to_str().unwrap(),
        "--signer",
        "ssh",
        "--key",
        s.bob.private.to_str().unwrap(),
    ]);
    let out = out.failure(26);
    assert!(out.stderr.contains("untrusted_signer") && out.stderr.contains("nothing was approved"), "{out}");
    assert_eq!(s.p.snapshot(), before);
    // A note edited after signing is refused too, whatever the trust.
    let mut lines = s.p.note_raw_lines(&commit);
    let mut env: Value = serde_json::from_slice(&lines[0]).unwrap();
    env["payloadType"] = json!("application/vnd.in-toto+json ");
    lines[0] = serde_json::to_vec(&env).unwrap();
    s.p.write_note(&commit, &lines);
    let out = s.approve(&commit, &s.bob).failure(26);
    assert!(out.stdout.contains("nothing was signed"), "{out}");
    // No trust at all: nothing can be checked, so nothing is approved.
    s.p.git(&["config", "--unset", "gpg.ssh.allowedSignersFile"]);
    let out = s.p.speccoder(&[
        "attest",
        "approve",
        &commit,
        "--signer",
        "ssh",
        "--key",
        s.bob.private.to_str().unwrap(),
    ]);
    assert!(out.failure(13).stderr.contains("you trust no signer"));
}

/// A signature that names the approver's key but does not verify with it (anyone can write a
/// keyid) is no approval: `approve` adds the approver's own beside it.
#[test]
fn a_written_keyid_that_does_not_verify_stands_for_no_approval() {
    let s = Signed::new();
    let target = task("T005");
    let commit = s.attest(&target, Evidence::Verified, None, |_| {});
    let listed = std::process::Command::new("ssh-keygen").arg("-lf").arg(&s.bob.public).output().unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    let bob_keyid = listed.split_whitespace().nth(1).unwrap().to_owned();
    let mut lines = s.p.note_raw_lines(&commit);
    let last = lines.len() - 1;
    let mut summary: Value = serde_json::from_slice(&lines[last]).unwrap();
    summary["signatures"].as_array_mut().unwrap().push(json!({ "keyid": bob_keyid, "sig": "AAAA" }));
    lines[last] = serde_json::to_vec(&summary).unwrap();
    s.p.write_note(&commit, &lines);

    let approved: Value = serde_json::from_str(&s.approve(&commit, &s.bob).success().stdout).unwrap();
    assert_eq!((approved["signatures"].as_u64(), approved["unchanged"].as_bool()), (Some(3), Some(false)));
    let summary = s.p.note_lines(&commit).pop().unwrap();
    let bob_allowed = common::allowed_signers(&s.p.scratch.join("bob_only"), &[(BOB, &s.bob)]);
    let checked =
        common::ssh_verify(&s.p.scratch, &bob_allowed, BOB, &summary.signatures[2].1, &summary.pae());
    assert!(checked.status.success(), "{checked}");
}

/// Bob's approval of Ada's tick, verified (`--signature-time now`) under trusts that hold Bob's key
/// but do not accept it (a line expired, not valid yet, for another namespace; a revocation) and
/// one that lists it not at all: the finding says that his signature is on the covering line, who
/// it is (by the principal the trust gives his key, otherwise by the key) and why it does not
/// count, and advises what can help rather than approving again.
#[test]
fn an_approval_by_a_key_the_trust_does_not_accept_is_named_with_why_it_does_not_count_and_what_helps() {
    let s = Signed::new();
    let target = task("T005");
    let commit = s.attest(&target, Evidence::Verified, None, |_| {});
    s.approve(&commit, &s.bob).success();
    let listed = std::process::Command::new("ssh-keygen").arg("-lf").arg(&s.bob.public).output().unwrap();
    let bob_key = String::from_utf8(listed.stdout).unwrap().split_whitespace().nth(1).unwrap().to_owned();
    let text = "version = 1\n[[rule]]\nname = \"two\"\nunits = [\"*\"]\napprovals = { count = 1, by = [\"bob@example.com\"] }\n";
    let policy = s.policy("two.toml", text);
    let revoked = s.p.scratch.join("revoked_keys");
    std::fs::write(&revoked, format!("{}\n", s.bob.public_line)).unwrap();
    let ada = format!("{PRINCIPAL} namespaces=\"in-toto\" {}\n", s.ada.public_line);
    let bob = |options: &str| format!("{BOB} {options} {}\n", s.bob.public_line);
    let as_bob = format!("{BOB} (ssh key {bob_key}): ");
    let renew = "approving again with the same key cannot help: if you still trust the key, renew or correct its entry in your trust";
    let cases: Vec<(String, bool, Vec<String>)> = vec![
        (
            bob("namespaces=\"in-toto\",valid-before=\"20200101Z\""),
            false,
            vec![as_bob.clone(), "(valid-before)".into(), "(untrusted_signer)".into(), renew.into()],
        ),
        (
            bob("namespaces=\"in-toto\",valid-after=\"29990101Z\""),
            false,
            vec![as_bob.clone(), "(valid-after)".into(), renew.into()],
        ),
        (bob("namespaces=\"git\""), false, vec![as_bob.clone(), "namespaces \"git\"".into(), renew.into()]),
        (
            bob("namespaces=\"in-toto\""),
            true,
            vec![as_bob.clone(), "(revoked_key)".into(), "a revoked key never counts again".into()],
        ),
        (
            String::new(),
            false,
            vec![format!("ssh key {bob_key}, named by no principal of your trust: "), renew.into()],
        ),
    ];
    for (bob_line, revoke, said) in cases {
        let trust = s.p.scratch.join("trust");
        std::fs::write(&trust, format!("{ada}{bob_line}")).unwrap();
        let mut args = vec!["attest", "verify", "--branch", "--all", "--signature-time", "now"];
        args.extend(["--allowed-signers", trust.to_str().unwrap(), "--policy", policy.to_str().unwrap()]);
        if revoke {
            args.extend(["--revoked", revoked.to_str().unwrap()]);
        }
        let text = s.p.speccoder(&args).failure(26);
        args.push("--json");
        let out = s.p.speccoder(&args).failure(26);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        let row = row(&report, &target);
        assert_eq!(row["reason"], "policy_approval", "{bob_line}: {row:#}");
        let message = row["findings"][0]["message"].as_str().unwrap();
        let present = "0 approval(s) by bob@example.com on the covering line; it also carries 1 approval signature(s) your trust does not accept, which never count: ";
        assert!(message.contains(present), "{bob_line}: {message}");
        for part in &said {
            assert!(message.contains(part.as_str()), "{bob_line}: `{part}` in {message}");
        }
        assert!(!message.contains("add them with"), "{bob_line}: {message}");
        assert!(text.stdout.contains(present) && text.stdout.contains(said[0].as_str()), "{text}");
    }
}

/// An approval that would make the covering line longer than a reader takes is refused, naming
/// the note's largest part (here the signatures the summary line carries, which the note holds
/// already) and to record the task again (exit 13), as every writer of a note refuses one; and
/// nothing is written. The line is brought to a few hundred bytes below the cap with signatures
/// of a kind no verifier checks, which beside Ada's count for nothing, so the note is approvable
/// as it is.
#[test]
fn an_approval_that_would_make_the_note_too_large_for_a_reader_names_its_largest_part_and_writes_nothing() {
    let s = Signed::new();
    let commit = s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    let mut lines = s.p.note_raw_lines(&commit);
    let last = lines.len() - 1;
    let mut summary: Value = serde_json::from_slice(&lines[last]).unwrap();
    // Each entry, `,{"keyid":"pad","sig":"<base64>"}`, takes 25 bytes besides its base64; the
    // largest signature read is 64 KiB, 87380 bytes of base64 without padding.
    let (cap, room, most) = (speccoder_attest::model::dsse::MAX_LINE_BYTES, 200, 87_380);
    let mut left = cap - room - lines[last].len();
    let signatures = summary["signatures"].as_array_mut().unwrap();
    while left >= 25 + 4 {
        let base64 = (left - 25).min(most) / 4 * 4;
        signatures.push(json!({ "keyid": "pad", "sig": "A".repeat(base64) }));
        left -= 25 + base64;
    }
    let count = signatures.len();
    lines[last] = serde_json::to_vec(&summary).unwrap();
    assert!((cap - room - 40..=cap - room).contains(&lines[last].len()), "{}", lines[last].len());
    s.p.write_note(&commit, &lines);
    let before = s.p.snapshot();

    let out = s.p.speccoder(&approve_args(&commit, &s.allowed, &s.bob)[..9]).failure(13);
    for said in [
        "more than a reader takes".to_owned(),
        format!("is the signatures the summary line carries ({})", count + 1),
        "or record the task again".to_owned(),
        "nothing was approved".to_owned(),
    ] {
        assert!(out.stderr.contains(&said), "{said:?} in {out}");
    }
    assert_eq!(s.p.snapshot(), before, "nothing approved");
}

/// An approver whose signing key is a certificate (`--key <key>-cert.pub`, every signature
/// carrying it): a second `attest approve` finds the approval it made already on the line and
/// writes nothing.
#[test]
fn an_approval_made_with_a_certificate_is_found_by_the_second_run() {
    let s = Signed::new();
    let commit = s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    let ca = common::ed25519(&s.p.scratch, "ca");
    // A validity, unlike the other certificate tests' "forever": both are read as keys.
    let cert = common::certify(&ca, &s.bob, "bob-id", BOB, &["-V", "20200101:20991231"]);
    let (allowed, key) = (s.allowed.to_str().unwrap(), cert.to_str().unwrap());
    let approve = || {
        let args =
            ["attest", "approve", &commit, "--allowed-signers", allowed, "--signer", "ssh", "--key", key];
        let out = s.p.speccoder(&[&args[..], &["--json"]].concat()).success();
        serde_json::from_str::<Value>(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out}"))
    };
    let first = approve();
    assert_eq!((first["signatures"].as_u64(), first["unchanged"].as_bool()), (Some(2), Some(false)));
    let note = s.p.note(&commit).unwrap();
    let again = approve();
    assert_eq!(
        (again["signatures"].as_u64(), again["unchanged"].as_bool()),
        (Some(2), Some(true)),
        "{again:#}"
    );
    assert_eq!(s.p.note(&commit).unwrap(), note, "the second run approved again");
    let summary = s.p.note_lines(&commit).pop().unwrap();
    let bob_cert = s.p.scratch.join("bob_cert");
    std::fs::write(&bob_cert, format!("{BOB} {}\n", common::cert_line(&cert))).unwrap();
    let checked = common::ssh_verify(&s.p.scratch, &bob_cert, BOB, &summary.signatures[1].1, &summary.pae());
    assert!(checked.status.success(), "the approval is made with Bob's certificate: {checked}");
}

/// The trust an approval is checked against comes from outside what is approved: a revision
/// that builds on the approved commit holds files its author wrote, and is refused.
#[test]
fn approve_refuses_trust_from_a_revision_that_builds_on_the_approved_commit() {
    let s = Signed::new();
    let commit = s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    let trust = common::allowed_signers(&s.p.scratch.join("both"), &[(PRINCIPAL, &s.ada), (BOB, &s.bob)]);
    s.p.write("trust", std::fs::read(&trust).unwrap());
    s.p.git(&["add", "trust"]);
    s.p.git(&["commit", "-q", "-m", "the trust, on top of the tick"]);
    let before = s.p.snapshot();
    let bob_key = s.bob.private.to_str().unwrap();
    let args = [
        "attest",
        "approve",
        &commit,
        "--allowed-signers-rev",
        "HEAD:trust",
        "--signer",
        "ssh",
        "--key",
        bob_key,
    ];
    let out = s.p.speccoder(&args).failure(13);
    assert!(out.stderr.contains("or builds on it"), "{out}");
    assert_eq!(s.p.snapshot(), before, "nothing was approved");
}

#[test]
fn two_approvals_written_at_once_are_both_kept() {
    let s = Signed::new();
    let carol = common::ed25519(&s.p.scratch_dir("carol"), "carol");
    let allowed = common::allowed_signers(
        &s.p.scratch.join("allowed_signers"),
        &[(PRINCIPAL, &s.ada), (BOB, &s.bob), ("carol@example.com", &carol)],
    );
    let commit = s.attest(&task("T005"), Evidence::Verified, None, |_| {});
    for _ in 0..3 {
        let lines_before = s.p.note_lines(&commit).last().unwrap().signatures.len();
        let children: Vec<_> = [&s.bob, &carol]
            .iter()
            .map(|key| {
                let args = approve_args(&commit, &allowed, key);
                let mut cmd = common::speccoder_command(&s.p.root, &s.p.home, &args);
                cmd.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::piped());
                cmd.stderr(std::process::Stdio::piped()).spawn().unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        let summary = s.p.note_lines(&commit).last().unwrap().clone();
        assert_eq!(summary.signatures.len(), 3, "Ada's, Bob's and Carol's: neither approval lost");
        for (principal, sig) in
            [(BOB, &summary.signatures[1].1), ("carol@example.com", &summary.signatures[2].1)]
        {
            let one = common::ssh_verify(&s.p.scratch, &allowed, principal, sig, &summary.pae());
            let other = if principal == BOB { "carol@example.com" } else { BOB };
            let swapped = common::ssh_verify(&s.p.scratch, &allowed, other, sig, &summary.pae());
            assert!(one.status.success() || swapped.status.success(), "{one}");
        }
        if lines_before == 1 {
            // Once approved, a fresh start: drop the approvals and race again.
            let mut lines = s.p.note_raw_lines(&commit);
            let last = lines.len() - 1;
            let mut env: Value = serde_json::from_slice(&lines[last]).unwrap();
            env["signatures"].as_array_mut().unwrap().truncate(1);
            lines[last] = serde_json::to_vec(&env).unwrap();
            s.p.write_note(&commit, &lines);
        }
    }
    s.p.git(&["fsck", "--strict"]);
}

#[test]
fn a_renamed_unit_does_not_move_its_ticks_to_the_looser_rule_of_its_new_name() {
    let s = Signed::new();
    let target = task("T005");
    s.attest(&target, Evidence::Verified, None, |_| {});
    let text = "version = 1\n\
        [[rule]]\nname = \"strict\"\nunits = [\"001-*\"]\napprovals = { count = 1 }\n\
        [[rule]]\nname = \"loose\"\nunits = [\"x-*\"]\n";
    let policy = s.policy("rename.toml", text);
    let (code, report) = s.verify(&policy);
    assert_eq!(code, Some(26), "{report:#}");
    assert_eq!(row(&report, &target)["reason"], "policy_approval", "{report:#}");
    s.p.git(&["checkout", "-q", "-b", "feature"]);
    s.p.git(&["mv", &format!("specs/{SPECKIT_UNIT}"), "specs/x-bookmark-tags"]);
    s.p.git(&["commit", "-q", "-m", "Rename the unit"]);
    let allowed = s.allowed.to_str().unwrap();
    let policy = policy.to_str().unwrap();
    // The branch: the tick under its new name is one no task commit names, whatever rule matches
    // it, and the base's tick taken back with the old name is named.
    let args = ["attest", "verify", "--branch", "--base", "main", "--json", "--allowed-signers", allowed];
    let out = s.p.speccoder(&[&args[..], &["--policy", policy]].concat()).failure(26);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let renamed = row(&report, "x-bookmark-tags/T005");
    assert_eq!(
        (renamed["outcome"].as_str(), renamed["reason"].as_str()),
        (Some("unverifiable"), Some("ticked_without_evidence")),
        "{report:#}"
    );
    assert!(report["warnings"].to_string().contains("the unit was removed or renamed"), "{report:#}");
    // The task commit: its evidence names the old unit, which the head no longer has, and the rule
    // of the old name judges it.
    let out =
        s.p.speccoder(&["attest", "verify", "--json", "--allowed-signers", allowed, "--policy", policy]);
    let report: Value = serde_json::from_str(&out.failure(26).stdout).unwrap();
    let old = row(&report, &target);
    assert_eq!(
        (old["reason"].as_str(), old["rule"].as_str()),
        (Some("mismatch"), Some("strict")),
        "{report:#}"
    );
    assert_eq!(old["findings"][0]["code"], "task_gone_at_head", "{report:#}");
}

#[test]
fn a_second_task_commit_of_a_task_counts_as_a_second_claim_only_when_its_unit_s_rule_holds_for_it() {
    let s = Signed::new();
    let target = task("T005");
    let main = s.p.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim().to_owned();
    // Bob, whom the trust holds but the rule does not let sign, attests T005 on a branch.
    s.p.git(&["checkout", "-q", "-b", "bob"]);
    s.p.write("README.md", "bob's work\n");
    s.p.git(&["add", "README.md"]);
    s.p.git(&["commit", "-q", "-m", "Bob's work"]);
    let bobs = s.attest(&target, Evidence::Verified, Some(&s.bob), |_| {});
    // Ada attests it on the main line, later, and Bob's branch is merged in.
    s.p.git(&["checkout", "-q", &main]);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let adas = s.attest(&target, Evidence::Verified, None, |_| {});
    s.p.git(&["merge", "-q", "--no-edit", "bob"]);
    let open =
        s.policy("open.toml", "version = 1\n[[rule]]\nname = \"any\"\nunits = [\"*\"]\nsigners = [\"*\"]\n");
    let (code, report) = s.verify(&open);
    assert!(report["ticks"].is_array(), "{report:#}");
    assert_eq!(
        (code, row(&report, &target)["commit"].as_str()),
        (Some(0), Some(adas.as_str())),
        "{report:#}"
    );
    // Under a rule only Ada may sign by, Bob's tick is no second claim: it is a tick the rule's
    // evidence does not cover.
    let strict = s.policy(
        "strict.toml",
        "version = 1\n[[rule]]\nname = \"ada\"\nunits = [\"*\"]\nsigners = [\"ada@example.com\"]\n",
    );
    let (code, report) = s.verify(&strict);
    assert_eq!(code, Some(26), "{report:#}");
    let row = row(&report, &target);
    assert_eq!(row["reason"], "ticked_again", "{report:#}");
    assert!(row.to_string().contains(&bobs), "{report:#}");
    // `policy init` lets every trusted principal sign: Bob's noted tick is a second claim there.
    let (init, unheld) = init_trusting_both(&s);
    assert!(unheld.is_empty(), "{init:#}");
    assert_eq!(s.verify(&s.policy("adopted.toml", init["policy"].as_str().unwrap())).0, Some(0));
}

/// A key listed on several lines of the allowed-signers file has the principals of every one,
/// read alike in-process and with `--via-tools` (where `ssh-keygen -Y find-principals` prints
/// those of the first line only): the maker's key listed again under an approver's principal, an
/// approver's key listed again under the maker's, and `signers`/`by` naming a second line's
/// principal each come to the same verdict on both paths.
#[test]
fn a_key_listed_on_several_lines_has_each_line_s_principals_in_process_and_through_ssh_keygen_alike() {
    let s = Signed::new();
    let carol = common::ed25519(&s.p.scratch_dir("carol"), "carol");
    let people = [(PRINCIPAL, &s.ada), (BOB, &s.bob), ("carol@example.com", &carol)];
    let trust = |name: &str, second: &[(&str, &Key)]| {
        common::allowed_signers(&s.p.scratch.join(name), &[&people[..], second].concat())
    };
    let everyone = trust("everyone", &[]);
    let target = task("T005");
    let commit = s.attest(&target, Evidence::Verified, None, |_| {});
    for approver in [&s.bob, &carol] {
        s.p.speccoder(&approve_args(&commit, &everyone, approver)).success();
    }
    let two = "version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\napprovals = { count = 2 }\n";
    let named = "version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\nsigners = [\"release@example.com\"]\n\
        approvals = { count = 2, by = [\"bob@example.com\", \"dana@example.com\"] }\n";
    let cases = [
        ("Ada's key is Bob's too", trust("ada-is-bob", &[(BOB, &s.ada)]), two, "policy_approval"),
        ("Carol's key is Ada's too", trust("carol-is-ada", &[(PRINCIPAL, &carol)]), two, "policy_approval"),
        (
            "second principals named",
            trust("second", &[("release@example.com", &s.ada), ("dana@example.com", &carol)]),
            named,
            "",
        ),
    ];
    let mut differ = Vec::new();
    for (case, allowed, policy, reason) in cases {
        let policy = s.policy("several.toml", policy);
        let (allowed, policy) = (allowed.to_str().unwrap(), policy.to_str().unwrap());
        let verdicts: Vec<(Option<i32>, String)> = [&[][..], &["--via-tools"][..]]
            .iter()
            .map(|tools| {
                let args = ["attest", "verify", "--branch", "--all", "--json", "--allowed-signers", allowed];
                let out = s.p.speccoder(&[&args[..], &["--policy", policy], tools].concat());
                let report: Value =
                    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
                (out.code(), row(&report, &target)["reason"].as_str().unwrap_or_default().to_owned())
            })
            .collect();
        let expected = (Some(if reason.is_empty() { 0 } else { 26 }), reason.to_owned());
        if verdicts != [expected.clone(), expected.clone()] {
            differ.push(format!("{case}: expected {expected:?}, in-process then --via-tools {verdicts:?}"));
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

/// `lines` of a note with the signatures of its last line (the covering line) in reverse order,
/// as anyone who can write notes can write them: the order is no part of what was signed.
fn covering_reversed(mut lines: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let last = lines.len() - 1;
    let mut covering: Value = serde_json::from_slice(&lines[last]).unwrap();
    covering["signatures"].as_array_mut().unwrap().reverse();
    lines[last] = serde_json::to_vec(&covering).unwrap();
    lines
}

/// The outcome and reason of the one row of `task` under `policy`, and the exit code.
fn judged(s: &Signed, policy: &Path, task: &str) -> (Option<i32>, String, Value) {
    let (code, report) = s.verify(policy);
    let row = row(&report, task).clone();
    (code, format!("{} {}", row["outcome"].as_str().unwrap(), row["reason"].as_str().unwrap_or("-")), row)
}

/// Ada ticks and Bob approves. Reversing the covering line's two signatures, which no signature
/// covers, never makes Bob the one who ticked: who made the tick is who signed every line.
#[test]
fn a_reordered_covering_line_never_makes_the_approver_the_one_who_ticked() {
    let s = Signed::new();
    let t = s.p.add_speckit_tasks(1);
    let commit = s.attest(&t[0], Evidence::Verified, None, |_| {});
    s.approve(&commit, &s.bob).success();
    let bobs = s.policy("bob.toml", &format!("version = 1\n[[rule]]\nname = \"bob-ticks\"\nunits = [\"*\"]\nsigners = [\"{BOB}\"]\napprovals = {{ count = 1 }}\n"));
    let adas = s.policy("ada.toml", &format!("version = 1\n[[rule]]\nname = \"ada-ticks\"\nunits = [\"*\"]\nsigners = [\"{PRINCIPAL}\"]\napprovals = {{ count = 1, by = [\"{BOB}\"] }}\n"));
    let as_made = s.p.note_raw_lines(&commit);
    for lines in [as_made.clone(), covering_reversed(as_made.clone())] {
        s.p.write_note(&commit, &lines);
        let (code, shown, row) = judged(&s, &bobs, &t[0]);
        assert_eq!((code, shown.as_str()), (Some(26), "unverifiable policy_signer"), "{row:#}");
        assert!(row.to_string().contains(PRINCIPAL), "the finding names Ada as the maker: {row:#}");
        let (code, shown, row) = judged(&s, &adas, &t[0]);
        assert_eq!((code, shown.as_str()), (Some(0), "evidenced -"), "{row:#}");
        let signers: Vec<String> =
            row["signers"].as_array().unwrap().iter().map(|s| s["principals"].to_string()).collect();
        assert_eq!(signers.len(), 2, "the approver is reported beside the maker: {row:#}");
        assert!(signers.iter().any(|p| p.contains(BOB)), "{row:#}");
        assert!(row["maker"]["principals"].to_string().contains(PRINCIPAL), "Ada made it: {row:#}");
    }
    // Ada's signature taken off the covering line: Bob signed none of the rest, so no trusted
    // signer made the tick, and his signature counts for no approval of it.
    let mut stripped = as_made.clone();
    let last = stripped.len() - 1;
    let mut covering: Value = serde_json::from_slice(&stripped[last]).unwrap();
    covering["signatures"].as_array_mut().unwrap().remove(0);
    stripped[last] = serde_json::to_vec(&covering).unwrap();
    s.p.write_note(&commit, &stripped);
    let (code, shown, row) = judged(&s, &bobs, &t[0]);
    assert_eq!((code, shown.as_str()), (Some(26), "unverifiable policy_signer"), "{row:#}");
    assert!(row.to_string().contains("none signed the note's other lines too"), "{row:#}");
    assert!(row["maker"].is_null(), "no one is reported as the maker: {row:#}");
    let approvals = s.policy(
        "approvals.toml",
        "version = 1\n[[rule]]\nname = \"one\"\nunits = [\"*\"]\napprovals = { count = 1 }\n",
    );
    let (code, shown, row) = judged(&s, &approvals, &t[0]);
    assert_eq!((code, shown.as_str()), (Some(26), "unverifiable policy_approval"), "{row:#}");
}

/// A decision's maker is the signer its signed `decider.by` names, whatever the order of the
/// line's signatures; a bare name tells no approved decision's maker, and no rule picks one.
#[test]
fn a_decisions_maker_is_the_signer_its_decider_names_and_a_bare_name_tells_none_of_two() {
    let s = Signed::new();
    let t = s.p.add_speckit_tasks(2);
    s.p.speccoder(&["accept", &t[0], "--reason", "nothing to test", "--by", PRINCIPAL]).success();
    let named = s.p.rev("HEAD");
    s.p.speccoder(&["accept", &t[1], "--reason", "nothing to test"]).success();
    let bare = s.p.rev("HEAD");
    for commit in [&named, &bare] {
        s.approve(commit, &s.bob).success();
    }
    let rule = |name: &str, keys: &str| {
        s.policy(
            &format!("{name}.toml"),
            &format!("version = 1\n[[rule]]\nname = \"{name}\"\nunits = [\"*\"]\n{keys}\n"),
        )
    };
    let bobs = rule("bob", &format!("signers = [\"{BOB}\"]"));
    let adas = rule("ada", &format!("signers = [\"{PRINCIPAL}\"]\napprovals = {{ count = 1 }}"));
    let approved = rule("approved", "approvals = { count = 1 }");
    for reversed in [false, true] {
        for commit in [&named, &bare] {
            let lines = s.p.note_raw_lines(commit);
            s.p.write_note(commit, &if reversed { covering_reversed(lines) } else { lines });
        }
        let (code, report) = s.verify(&bobs);
        assert_eq!(code, Some(26), "{report:#}");
        assert_eq!(row(&report, &t[0])["reason"], "policy_signer", "{report:#}");
        assert_eq!(row(&report, &t[1])["reason"], "policy_signer", "{report:#}");
        let (code, report) = s.verify(&adas);
        assert_eq!(code, Some(26), "{report:#}");
        assert_eq!(row(&report, &t[0])["outcome"], "evidenced", "{report:#}");
        let untold = row(&report, &t[1]);
        assert_eq!(untold["reason"], "policy_signer", "{report:#}");
        assert!(untold.to_string().contains("cannot be told"), "{untold:#}");
        // Whichever of the two made the bare-named decision, the other approved it.
        let (code, report) = s.verify(&approved);
        assert_eq!(code, Some(0), "{report:#}");
    }
}

/// Ada's tick on `main` predates a rule that names only Bob, and a branch of Bob's touches its
/// unit: her tick is judged by the rule as it is now and fails, its finding saying that the
/// branch's base holds it and that the baseline holds no evidence; unticked and attested again
/// by Bob, it holds.
#[test]
fn a_tick_made_before_a_rule_was_tightened_fails_it_saying_the_base_holds_it_until_made_again() {
    let s = Signed::new();
    let t = s.p.add_speckit_tasks(2);
    let adas = s.attest(&t[0], Evidence::Verified, None, |_| {});
    s.p.git(&["checkout", "-q", "-b", "bob-s-branch"]);
    s.attest(&t[1], Evidence::Verified, Some(&s.bob), |_| {});
    let policy = s.policy(
        "bob.toml",
        &format!(
            "version = 1\n[baseline]\ncommit = \"{adas}\"\nreason = \"adopted\"\n[[rule]]\nname = \"bob\"\nunits = [\"*\"]\nsigners = [\"{BOB}\"]\n"
        ),
    );
    let since_main = || {
        let mut args = s.verify_args(&policy);
        args.retain(|a| *a != "--all");
        args.extend(["--base", "main", "--json"]);
        let out = s.p.speccoder(&args);
        let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
        (out.code(), report)
    };
    let (code, report) = since_main();
    assert_eq!((code, &row(&report, &t[1])["outcome"]), (Some(26), &json!("evidenced")), "{report:#}");
    let earlier = row(&report, &t[0]);
    assert_eq!(earlier["reason"], "policy_signer", "{report:#}");
    let said = earlier["findings"][0]["message"].as_str().unwrap();
    assert!(said.contains(&format!("its commit is in the history of the branch's base {adas}: a tick made before the branch is judged by the policy as it is now")), "{said}");
    assert!(said.contains("the policy's [baseline] holds hand ticks only, never evidence"), "{said}");
    // With no base, nothing is said of one.
    let (code, report) = s.verify(&policy);
    assert_eq!((code, &row(&report, &t[0])["reason"]), (Some(26), &json!("policy_signer")), "{report:#}");
    assert!(!row(&report, &t[0]).to_string().contains("branch's base"), "{report:#}");
    // Made again under the rule: unticked in a commit of its own, attested by Bob.
    let id = t[0].rsplit('/').next().unwrap();
    edit_tasks(&s.p, &format!("- [X] {id} "), &format!("- [ ] {id} "), "Reopened to attest it again");
    s.attest(&t[0], Evidence::Verified, Some(&s.bob), |_| {});
    let (code, report) = since_main();
    assert_eq!(code, Some(0), "{report:#}");
}

/// Ada decides; Bob amends her decision's commit and carries it, signing it afresh: the carried
/// decision is Bob's to `signers`, as carried evidence is, though its `by` still names Ada.
#[test]
fn a_decision_bob_carried_from_ada_s_is_made_by_bob_and_a_rule_naming_ada_says_so() {
    let s = Signed::new();
    let target = task("T001");
    s.p.speccoder(&["accept", &target, "--reason", "nothing to test", "--by", PRINCIPAL]).success();
    s.p.git(&["config", "user.signingKey", s.bob.private.to_str().unwrap()]);
    s.p.git(&["commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00Z"]);
    s.p.speccoder(&["attest", "carry", "--json"]).success();
    let rule = |name: &str, keys: &str| {
        s.policy(
            &format!("{name}.toml"),
            &format!("version = 1\n[[rule]]\nname = \"{name}\"\nunits = [\"*\"]\n{keys}\n"),
        )
    };
    let bobs = rule("bob", &format!("signers = [\"{BOB}\"]"));
    let anyone = rule("anyone", "signers = [\"*\"]");
    let adas = rule("ada", &format!("signers = [\"{PRINCIPAL}\"]"));
    let no_carry = rule("no-carry", &format!("signers = [\"{BOB}\"]\ncarried = false"));
    for policy in [&bobs, &anyone] {
        let (code, shown, row) = judged(&s, policy, &target);
        assert_eq!((code, shown.as_str()), (Some(0), "evidenced -"), "{row:#}");
        assert!(row["maker"]["principals"].to_string().contains(BOB), "Bob made it: {row:#}");
        assert!(row["carried"]["from"].is_string(), "{row:#}");
    }
    let (code, shown, row) = judged(&s, &adas, &target);
    assert_eq!((code, shown.as_str()), (Some(26), "unverifiable policy_signer"), "{row:#}");
    let said = row.to_string();
    assert!(said.contains("re-issued by `attest carry`"), "{row:#}");
    assert!(said.contains("name the carrier in `signers`"), "{row:#}");
    assert!(!said.contains("outside the trust") && !said.contains("the note was changed"), "{row:#}");
    let (code, shown, row) = judged(&s, &no_carry, &target);
    assert_eq!((code, shown.as_str()), (Some(26), "unverifiable policy_carried"), "{row:#}");
    // Ada approves the carried decision: nothing signed tells its carrier from its approver.
    s.approve(&s.p.rev("HEAD"), &s.ada).success();
    let (code, shown, row) = judged(&s, &bobs, &target);
    assert_eq!((code, shown.as_str()), (Some(26), "unverifiable policy_signer"), "{row:#}");
    assert!(row.to_string().contains("who re-issued the carried evidence cannot be told"), "{row:#}");
    let approved = rule("approved", "approvals = { count = 1 }");
    let (code, shown, row) = judged(&s, &approved, &target);
    assert_eq!((code, shown.as_str()), (Some(0), "evidenced -"), "{row:#}");
}

#[test]
fn evidence_bob_carried_from_ada_s_tick_is_signed_by_bob_and_every_report_says_where_it_came_from() {
    let s = Signed::new();
    let target = task("T001");
    let attested = s.attest(&target, Evidence::Verified, None, |_| {});
    // Bob amends Ada's task commit (the same change, another author date) and carries its
    // evidence, which `attest carry` signs afresh with his key.
    s.p.git(&["config", "user.signingKey", s.bob.private.to_str().unwrap()]);
    s.p.git(&["commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00Z"]);
    s.p.speccoder(&["attest", "carry", "--json"]).success();
    let bob_only = s.policy(
        "bob.toml",
        "version = 1\n[[rule]]\nname = \"bob\"\nunits = [\"*\"]\nsigners = [\"bob@example.com\"]\n",
    );
    let (code, report) = s.verify(&bob_only);
    let carried = &row(&report, &target)["carried"];
    assert_eq!((code, &carried["from"]), (Some(0), &json!(attested)), "{report:#}");
    assert_eq!(carried["patch_id"].as_str().map(str::len), Some(64), "{report:#}");
    let time = carried["time"].as_str().unwrap_or_default();
    assert!(time.ends_with('Z') && time.len() == 20, "{report:#}");

    let md = s.p.scratch.join("report.md");
    let mut args = s.verify_args(&bob_only);
    args.extend(["--markdown", md.to_str().unwrap()]);
    let text = s.p.speccoder(&args).success().stdout;
    let said = format!("    carried from {attested} ({time})");
    let signer = text.lines().position(|l| l.starts_with("    signed by bob@example.com")).unwrap();
    assert_eq!(text.lines().nth(signer + 1), Some(said.as_str()), "{text}");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains(&format!("carried from ` {} ({time}) `", &attested[..12])), "{md}");

    // A rule that refuses carried evidence refuses it.
    let no_carry =
        s.policy("no-carry.toml", "version = 1\n[[rule]]\nname = \"r\"\nunits = [\"*\"]\ncarried = false\n");
    let (code, report) = s.verify(&no_carry);
    assert_eq!((code, &row(&report, &target)["reason"]), (Some(26), &json!("policy_carried")), "{report:#}");
    // A tick attested where it stands names none.
    s.attest(&task("T002"), Evidence::Verified, None, |_| {});
    let (_, report) = s.verify(&bob_only);
    assert_eq!(row(&report, &task("T002"))["carried"], Value::Null, "{report:#}");
}
