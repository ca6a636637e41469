//! Evidence written by the published speccoder, whose policy digest hashes in its own version:
//! real repositories whose notes carry the published recipe's digest for two recorded versions
//! (one under a `speccoder.toml` without `[attest]`, so the signer defaults to `"git"`), beside a
//! tick of our own. The published digests are computed here by `jq -S -c` and `sha256sum` from
//! objects written out by hand, never by the crate.

use crate::common;

use std::process::Command;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use common::*;
use serde_json::{Value, json};

const T005: &str = "001-bookmark-tags/T005";
const T006: &str = "001-bookmark-tags/T006";
const T007: &str = "001-bookmark-tags/T007";

/// The judge configuration of T005's parent: `[attest]` names its signer, and keys outside the
/// judge sections (`sign_at`, `[ui]`) are present.
const CONFIG_A: &str = r#"# judged under these
[tests]
command = "cargo test"
timeout = 600

[model]
provider = "anthropic"

[attest]
signer = "git"
sign_at = "tick"

[ui]
color = true
"#;

/// The published recipe's object for [`CONFIG_A`] at `version`, written out by hand (unsorted).
fn published_a(version: &str, timeout: u32) -> String {
    format!(
        r#"{{ "speccoder_version": "{version}",
             "tests": {{ "timeout": {timeout}, "command": "cargo test" }},
             "model": {{ "provider": "anthropic", "model": null }},
             "attest": {{ "signer": "git" }},
             "checks": null, "acceptance": null, "mutation": null,
             "monitor": null, "sandbox": null, "executor": null }}"#
    )
}

/// The judge configuration of T006's parent: no `[attest]` at all.
const CONFIG_B: &str = r#"[checks]
lint = ["cargo", "clippy"]

[model]
provider = "openai"
model = "gpt-x"

[sandbox]
mode = "off"
"#;

/// The published recipe's object for [`CONFIG_B`] at `version`: the signer is the default `git`.
fn published_b(version: &str) -> String {
    format!(
        r#"{{ "sandbox": {{ "mode": "off" }}, "speccoder_version": "{version}",
             "checks": {{ "lint": ["cargo", "clippy"] }},
             "model": {{ "model": "gpt-x", "provider": "openai" }},
             "attest": {{ "signer": "git" }},
             "tests": null, "acceptance": null, "mutation": null, "monitor": null, "executor": null }}"#
    )
}

/// sha256 of the canonical form of `json_text`, by the peers: `jq -S -c -j .` (keys sorted at
/// every depth, compact, no final newline) piped into `sha256sum`.
pub(crate) fn peer_digest(p: &Project, json_text: &str) -> String {
    let file = p.scratch.join("recipe.json");
    std::fs::write(&file, json_text).unwrap();
    let mut cmd = Command::new("bash");
    isolate(&mut cmd, &p.home);
    cmd.args(["-c", "set -o pipefail; jq -S -c -j . \"$1\" | sha256sum", "bash"]).arg(&file);
    let out = run(cmd).success();
    let digest = out.stdout.split_whitespace().next().unwrap_or_default().to_owned();
    assert_eq!(digest.len(), 64, "{out}");
    digest
}

/// A repository with three verified, signed ticks: T005 under [`CONFIG_A`] and T006 under
/// [`CONFIG_B`], their notes rewritten as the published tool at 0.7.2 and 0.9.0 would have written
/// them, and T007 as we write it.
struct History {
    p: Project,
    ada: Key,
    allowed: std::path::PathBuf,
    /// T005's task commit.
    c5: String,
    /// T006's task commit.
    c6: String,
}

fn history() -> History {
    let p = Project::speckit();
    let ada = ed25519(&p.scratch, "ada");
    let allowed = allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &ada)]);
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
    let mut commits = Vec::new();
    for (task, config) in [(T005, Some(CONFIG_A)), (T006, Some(CONFIG_B)), (T007, None)] {
        if let Some(config) = config {
            p.write("speccoder.toml", config);
            p.git(&["add", "speccoder.toml"]);
            p.git(&["commit", "-q", "-m", "Judge configuration"]);
        }
        let evidence = write_evidence(&p.scratch.join(task.replace('/', "-")), task, Evidence::Verified);
        p.attest(task, &evidence, &[]).success();
        commits.push(p.rev("HEAD"));
    }
    let h = History { c5: commits[0].clone(), c6: commits[1].clone(), p, ada, allowed };
    let d5 = peer_digest(&h.p, &published_a("0.7.2", 600));
    as_published(&h, &h.c5, &d5, "0.7.2", true);
    let d6 = peer_digest(&h.p, &published_b("0.9.0"));
    as_published(&h, &h.c6, &d6, "0.9.0", true);
    h
}

fn index_of(lines: &[Vec<u8>], predicate_type_suffix: &str) -> usize {
    lines
        .iter()
        .position(|l| statement_of(l)["predicateType"].as_str().unwrap().ends_with(predicate_type_suffix))
        .unwrap_or_else(|| panic!("no {predicate_type_suffix} line"))
}

/// Rewrites `commit`'s note as the published tool at `version` writes it: the task verification's
/// `policy_sha256` and the summary's policy are `digest`, the summary records `version` and names
/// the new task-verification line. Both lines are signed by ada when `signed`; otherwise every
/// line of the note is left unsigned.
fn as_published(h: &History, commit: &str, digest: &str, version: &str, signed: bool) {
    rewritten_under(&h.p, &h.ada, commit, (digest, version), signed, |_| {});
}

/// [`as_published`] in `p`, signed by `ada` when `signed`, the policy digest `digest` and the
/// recorded `version` whichever recipe they are, the task-verification statement edited by `edit`
/// too.
fn rewritten_under(
    p: &Project,
    ada: &Key,
    commit: &str,
    (digest, version): (&str, &str),
    signed: bool,
    edit: impl FnOnce(&mut Value),
) {
    let mut lines = p.note_raw_lines(commit);
    let (tv, s) = (index_of(&lines, "/task-verification/v0"), index_of(&lines, "/verification_summary/v1"));
    let mut statement = statement_of(&lines[tv]);
    let old_tv = sha256(&serde_json::to_vec(&statement).unwrap());
    statement["predicate"]["policy_sha256"] = json!(digest);
    edit(&mut statement);
    let new_tv = sha256(&serde_json::to_vec(&statement).unwrap());
    let mut summary = statement_of(&lines[s]);
    summary["predicate"]["verifier"]["version"] = json!({ "speccoder": version });
    summary["predicate"]["policy"]["digest"]["sha256"] = json!(digest);
    for input in summary["predicate"]["inputAttestations"].as_array_mut().unwrap() {
        if input["digest"]["sha256"] == old_tv {
            input["digest"]["sha256"] = json!(new_tv);
        }
    }
    lines[tv] = p.ssh_signed_line(&statement, ada);
    lines[s] = p.ssh_signed_line(&summary, ada);
    if !signed {
        for l in &mut lines {
            let mut env: Value = serde_json::from_slice(l).unwrap();
            env["signatures"] = json!([]);
            *l = serde_json::to_vec(&env).unwrap();
        }
    }
    p.write_note(commit, &lines);
}

/// Edits the summary of `commit`'s note in place with `f`, keeping its old signatures.
fn edit_summary(h: &History, commit: &str, f: impl FnOnce(&mut Value)) {
    let mut lines = h.p.note_raw_lines(commit);
    let s = index_of(&lines, "/verification_summary/v1");
    let mut statement = statement_of(&lines[s]);
    f(&mut statement);
    let mut env: Value = serde_json::from_slice(&lines[s]).unwrap();
    env["payload"] = json!(STANDARD.encode(serde_json::to_vec(&statement).unwrap()));
    lines[s] = serde_json::to_vec(&env).unwrap();
    h.p.write_note(commit, &lines);
}

/// `attest verify --branch --all` with the trust and `extra`.
fn run_verify(h: &History, extra: &[&str]) -> Run {
    let allowed = h.allowed.to_str().unwrap();
    let mut args = vec!["attest", "verify", "--branch", "--all", "--allowed-signers", allowed];
    args.extend_from_slice(extra);
    h.p.speccoder(&args)
}

/// [`run_verify`] with `--json`: the exit code and the report.
fn verify(h: &History, extra: &[&str]) -> (i32, Value) {
    let out = run_verify(h, &[extra, &["--json"]].concat());
    let report = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"));
    (out.code().unwrap_or(-1), report)
}

#[track_caller]
fn tick<'r>(report: &'r Value, task: &str) -> &'r Value {
    report["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["task"] == task)
        .unwrap_or_else(|| panic!("no tick for {task}: {report:#}"))
}

fn codes(tick: &Value) -> Vec<&str> {
    tick["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect()
}

#[test]
fn published_notes_at_two_versions_verify_beside_our_own_and_the_reports_name_the_recipe() {
    let h = history();
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 0, "{report:#}");
    for (task, policy) in [
        (T005, json!({"recipe": "published", "speccoder_version": "0.7.2"})),
        (T006, json!({"recipe": "published", "speccoder_version": "0.9.0"})),
        (T007, json!({"recipe": "version_free"})),
    ] {
        let t = tick(&report, task);
        assert_eq!(t["outcome"], "evidenced", "{t:#}");
        assert_eq!(t["policy"], policy, "{t:#}");
    }

    // The same with ssh-keygen as the checker.
    let (code, report) = verify(&h, &["--via-tools"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(tick(&report, T006)["policy"]["speccoder_version"], "0.9.0");

    // The text and the Markdown say it too.
    let md = h.p.scratch.join("report.md");
    let out = run_verify(&h, &["--markdown", md.to_str().unwrap()]).success();
    for expected in [
        "    policy: published recipe, speccoder 0.7.2\n",
        "    policy: published recipe, speccoder 0.9.0\n",
        "    policy: version-free recipe\n",
    ] {
        assert!(out.stdout.contains(expected), "{expected:?} in\n{out}");
    }
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains("| reason | policy |"), "{markdown}");
    assert!(markdown.contains("| ` published recipe, speccoder 0.7.2 ` |"), "{markdown}");
    assert!(markdown.contains("| ` published recipe, speccoder 0.9.0 ` |"), "{markdown}");
    assert!(markdown.contains("| ` version-free recipe ` |"), "{markdown}");
}

#[test]
fn unsigned_published_notes_verify_only_when_unsigned_evidence_is_accepted() {
    let h = history();
    as_published(&h, &h.c5, &peer_digest(&h.p, &published_a("0.7.2", 600)), "0.7.2", false);
    as_published(&h, &h.c6, &peer_digest(&h.p, &published_b("0.9.0")), "0.9.0", false);
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 26);
    assert_eq!(tick(&report, T005)["reason"], "unsigned", "{report:#}");
    let (code, report) = verify(&h, &["--accept-unsigned"]);
    assert_eq!(code, 0, "{report:#}");
    for (task, version) in [(T005, "0.7.2"), (T006, "0.9.0")] {
        let t = tick(&report, task);
        assert_eq!((&t["outcome"], &t["accepted_unsigned"]), (&json!("evidenced"), &json!(true)), "{t:#}");
        assert_eq!(t["policy"]["speccoder_version"], version);
    }
}

#[test]
fn a_published_digest_of_another_judge_section_is_a_policy_mismatch_showing_both_digests() {
    let h = history();
    // Signed, recorded as 0.7.2, but judged under `timeout = 601`: not the parent's configuration.
    let other = peer_digest(&h.p, &published_a("0.7.2", 601));
    as_published(&h, &h.c5, &other, "0.7.2", true);
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 26);
    let t = tick(&report, T005);
    assert_eq!((&t["outcome"], &t["reason"]), (&json!("unverifiable"), &json!("mismatch")), "{t:#}");
    assert_eq!(codes(t), ["policy_mismatch"], "{t:#}");
    assert_eq!(t["policy"], Value::Null);
    let finding = &t["findings"][0];
    let message = finding["message"].as_str().unwrap();
    let real = peer_digest(&h.p, &published_a("0.7.2", 600));
    assert!(
        message.contains(&format!(
            "the published recipe with speccoder 0.7.2 (the version the summary records) gives {real}"
        )),
        "{message}"
    );
    let ours = finding["found"].as_str().unwrap();
    assert!(message.contains(&format!("the version-free recipe gives {ours}")), "{message}");
    assert_eq!(finding["expected"], other.as_str(), "the signed digest is the expected one");
    // The other published tick still holds.
    assert_eq!(tick(&report, T006)["outcome"], "evidenced");
}

#[test]
fn an_edited_version_is_a_policy_mismatch_unsigned_and_a_bad_signature_signed() {
    let h = history();
    // Signed: the edit breaks the summary's signature, the worst finding.
    edit_summary(&h, &h.c6, |s| s["predicate"]["verifier"]["version"]["speccoder"] = json!("0.9.1"));
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 26);
    let t = tick(&report, T006);
    assert_eq!((&t["outcome"], &t["reason"]), (&json!("unverifiable"), &json!("bad_signature")), "{t:#}");
    assert!(codes(t).contains(&"bad_signature") && codes(t).contains(&"policy_mismatch"), "{t:#}");

    // Unsigned and accepted: the digest no longer matches the recorded version.
    as_published(&h, &h.c5, &peer_digest(&h.p, &published_a("0.7.2", 600)), "0.7.2", false);
    edit_summary(&h, &h.c5, |s| s["predicate"]["verifier"]["version"]["speccoder"] = json!("0.7.3"));
    let (code, report) = verify(&h, &["--accept-unsigned"]);
    assert_eq!(code, 26);
    let t = tick(&report, T005);
    assert_eq!((&t["outcome"], &t["reason"]), (&json!("unverifiable"), &json!("mismatch")), "{t:#}");
    assert_eq!(t["outcome"], "unverifiable", "{t:#}");
    let mismatch = t["findings"].as_array().unwrap().iter().find(|f| f["code"] == "policy_mismatch");
    let message = mismatch.unwrap_or_else(|| panic!("{t:#}"))["message"].as_str().unwrap();
    let at_edited = peer_digest(&h.p, &published_a("0.7.3", 600));
    assert!(
        message.contains(&format!("speccoder 0.7.3 (the version the summary records) gives {at_edited}")),
        "{message}"
    );

    // A summary that records no version leaves only the version-free recipe, and says so.
    edit_summary(&h, &h.c5, |s| {
        s["predicate"]["verifier"].as_object_mut().unwrap().remove("version");
    });
    let (_, report) = verify(&h, &["--accept-unsigned"]);
    let message = tick(&report, T005)["findings"][0]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("the summary records no speccoder version"), "{message}");
}

/// A task line with two story labels, `T005 [US1][US2] ...` (as a real project writes one): this
/// crate binds the first, US1, and keeps `[US2]` in the title; the published speccoder read
/// every label, bound the last, US2, and took the title after them. A note under the published
/// recipe is judged by that reading (US2's story text, the bare title), ours by our own, and
/// neither passes for the other.
#[test]
fn a_published_note_on_a_line_of_two_story_labels_is_judged_by_the_story_the_published_tool_bound() {
    let p = Project::speckit();
    let ada = ed25519(&p.scratch, "ada");
    let allowed = allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &ada)]);
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
    p.write("speccoder.toml", CONFIG_B);
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(p.read(tasks)).unwrap();
    p.write(tasks, text.replacen("T005 [US1] Implement", "T005 [US1][US2] Implement", 1));
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", "Judge configuration; T005 labelled twice"]);
    let evidence = write_evidence(&p.scratch.join("t005"), T005, Evidence::Verified);
    p.attest(T005, &evidence, &[]).success();
    let commit = p.rev("HEAD");
    let verified = || {
        let args = ["attest", "verify", &commit, "--allowed-signers", allowed.to_str().unwrap(), "--json"];
        let out = p.speccoder(&args);
        let report: Value = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}:\n{out}"));
        (out.code().unwrap_or(-1), report["ticks"][0].clone())
    };
    // Ours: US1's story, `[US2]` in the title.
    let (code, t) = verified();
    assert_eq!((code, &t["outcome"]), (0, &json!("evidenced")), "{t:#}");
    let note = p.note_raw_lines(&commit);
    let ours = statement_of(&note[index_of(&note, "/task-verification/v0")]);
    assert_eq!(ours["predicate"]["spec"]["section"], "US1");
    let title = "Implement adding a tag to a bookmark in src/tags/store.rs (FR-001, FR-002)";
    assert_eq!(ours["predicate"]["task"]["title"], format!("[US2] {title}"));

    // US2's story text as "Hashes" cuts it, by hand: its heading up to the next `###`.
    let spec = String::from_utf8(p.read("specs/001-bookmark-tags/spec.md")).unwrap();
    let from = spec.find("### User Story 2").unwrap();
    let to = from + spec[from..].find("\n### ").unwrap();
    let us2 = sha256(&spec.as_bytes()[from..to]);
    let published_reading = |statement: &mut Value| {
        statement["predicate"]["task"]["title"] = json!(title);
        statement["predicate"]["spec"] = json!({ "section": "US2", "section_hash": us2 });
    };
    let published = peer_digest(&p, &published_b("0.9.0"));
    let summary = statement_of(&note[index_of(&note, "/verification_summary/v1")]);
    let version = summary["predicate"]["verifier"]["version"]["speccoder"].as_str().unwrap().to_owned();
    let version_free = ours["predicate"]["policy_sha256"].as_str().unwrap().to_owned();
    rewritten_under(&p, &ada, &commit, (&published, "0.9.0"), true, published_reading);
    let (code, t) = verified();
    assert_eq!((code, &t["outcome"]), (0, &json!("evidenced")), "{t:#}");
    assert_eq!(t["policy"], json!({"recipe": "published", "speccoder_version": "0.9.0"}), "{t:#}");

    // The published recipe over our reading, and ours over the published reading, do not hold.
    for (recipe, edit) in [(published.as_str(), None), (version_free.as_str(), Some(published_reading))] {
        p.write_note(&commit, &note);
        let version = if recipe == published { "0.9.0" } else { version.as_str() };
        rewritten_under(&p, &ada, &commit, (recipe, version), true, |s| edit.into_iter().for_each(|e| e(s)));
        let (code, t) = verified();
        assert_eq!(code, 26, "{t:#}");
        let found = codes(&t);
        assert!(found.contains(&"title_mismatch") && found.contains(&"section_hash_mismatch"), "{t:#}");
    }
}

/// A decision the published tool wrote (`speccoder task accept`) is one task-verification line,
/// which records no version while its digest hashes one in: it holds under the release whose
/// digest it is, and a digest of no release (or of another configuration) is a mismatch.
#[test]
fn a_published_decision_holds_under_the_release_its_digest_names_and_no_other() {
    let h = history();
    const T001: &str = "001-bookmark-tags/T001";
    h.p.speccoder(&["accept", T001, "--reason", "done by hand"]).success();
    let accepted = h.p.rev("HEAD");
    let as_release = |version: &str| {
        let digest = peer_digest(&h.p, &published_b(version));
        let mut lines = h.p.note_raw_lines(&accepted);
        assert_eq!(lines.len(), 1, "a decision is one line");
        let mut statement = statement_of(&lines[0]);
        statement["predicate"]["policy_sha256"] = json!(digest);
        lines[0] = h.p.ssh_signed_line(&statement, &h.ada);
        h.p.write_note(&accepted, &lines);
    };

    as_release("0.9.0");
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 0, "{report:#}");
    let t = tick(&report, T001);
    assert_eq!(t["outcome"], "evidenced", "{t:#}");
    assert_eq!(t["policy"], json!({"recipe": "published", "speccoder_version": "0.9.0"}), "{t:#}");
    as_release("0.7.2");
    assert_eq!(tick(&verify(&h, &[]).1, T001)["policy"]["speccoder_version"], "0.7.2");

    as_release("0.9.1-dev");
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 26, "{report:#}");
    let t = tick(&report, T001);
    assert_eq!(t["outcome"], "unverifiable", "{t:#}");
    let mismatch = t["findings"].as_array().unwrap().iter().find(|f| f["code"] == "policy_mismatch");
    let message = mismatch.unwrap_or_else(|| panic!("{t:#}"))["message"].as_str().unwrap();
    assert!(message.contains("no release of speccoder from 0.0.1 to 0.9.0"), "{message}");
}

/// A skip record as the published tool writes it (`speccoder task skip`): a commit with no parent
/// and no `Verdict:` trailer, at the head's tree, named by the skip ref, its one line's digest the
/// published recipe of the configuration there. It is listed as `skipped`; the same record whose
/// `Skipped-By:` is not the signed decider, or with a parent, is not.
#[test]
fn a_published_skip_record_is_listed_as_skipped() {
    let h = history();
    const T001: &str = "001-bookmark-tags/T001";
    const SKIP_REF: &str = "refs/speccoder/skipped/001-bookmark-tags/T001";
    h.p.speccoder(&["skip", T001, "--reason", "moves to 002"]).success();
    let ours = h.p.rev(SKIP_REF);
    let statement = statement_of(&h.p.note_raw_lines(&ours)[0]);
    let by = statement["predicate"]["decider"]["by"].as_str().unwrap().to_owned();
    let digest = peer_digest(&h.p, &published_b("0.9.0"));
    // The record with `skipped_by` as its Skipped-By: trailer and `parents`, its note re-signed.
    let record = |skipped_by: &str, parents: &[&str]| {
        let message = h.p.scratch.join("skip-message");
        std::fs::write(
            &message,
            format!(
                "speccoder: skip T001\n\nmoves to 002\n\nSpec-Task: {T001}\nSkipped-By: {skipped_by}\nReason: moves to 002\n"
            ),
        )
        .unwrap();
        let tree = h.p.rev("HEAD^{tree}");
        let mut args = vec!["commit-tree", tree.as_str(), "-F", message.to_str().unwrap()];
        for parent in parents {
            args.extend(["-p", parent]);
        }
        let id = h.p.git(&args).trim().to_owned();
        let mut line = statement.clone();
        line["subject"] = json!([{ "name": T001, "digest": { "gitCommit": id } }]);
        line["predicate"]["policy_sha256"] = json!(digest);
        h.p.write_note(&id, &[h.p.ssh_signed_line(&line, &h.ada)]);
        h.p.git(&["update-ref", SKIP_REF, &id]);
        id
    };

    let published = record(&by, &[]);
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 0, "{report:#}");
    let t = tick(&report, T001);
    assert_eq!(t["outcome"], "skipped", "{t:#}");
    assert_eq!(t["commit"], published.as_str(), "{t:#}");
    assert_eq!(t["policy"], json!({"recipe": "published", "speccoder_version": "0.9.0"}), "{t:#}");

    record("Someone Else", &[]);
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 26, "{report:#}");
    assert_eq!(tick(&report, T001)["outcome"], "unverifiable", "{report:#}");

    let head = h.p.rev("HEAD");
    record(&by, &[&head]);
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 26, "{report:#}");
    let t = tick(&report, T001);
    assert!(codes(t).contains(&"no_verdict"), "a skip with a parent says its verdict: {t:#}");
}

/// The root commit of `p`'s history and a commit beside it on branch `moved`: a main that moved.
pub(crate) fn move_main_beside_root(p: &Project) -> String {
    let root = p.git(&["rev-list", "--max-parents=0", "HEAD"]).trim().to_owned();
    let branch = p.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim().to_owned();
    p.git(&["checkout", "-q", "-b", "moved", &root]);
    p.write("NOTES.txt", "unrelated\n");
    p.git(&["add", "NOTES.txt"]);
    p.git(&["commit", "-q", "-m", "Unrelated"]);
    p.git(&["checkout", "-q", &branch]);
    root
}

/// `attest carry --json` with `allowed` as the trust: the exit code and the report.
pub(crate) fn carry(p: &Project, allowed: &std::path::Path) -> (i32, Value) {
    let out = p.speccoder(&["attest", "carry", "--json", "--allowed-signers", allowed.to_str().unwrap()]);
    let report = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"));
    (out.code().unwrap_or(-1), report)
}

/// A decision speccoder 0.9.0 wrote (`fixtures/published-0.9.0`, its digest the published recipe
/// with 0.9.0), rebased onto a main that moved with `speccoder.toml` unchanged, is carried, and
/// the carried evidence holds, as this crate writes it.
#[test]
fn a_decision_speccoder_0_9_0_wrote_is_carried_after_a_plain_rebase() {
    let p = Project::uncommitted("speckit");
    let fixture = crate_root().join("fixtures/published-0.9.0");
    let bundle = fixture.join("accept.bundle");
    p.git(&["fetch", "-q", "--update-head-ok", bundle.to_str().unwrap(), "refs/*:refs/*"]);
    p.git(&["reset", "-q", "--hard", "main"]);
    let carrier = ed25519(&p.scratch, "carrier");
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", carrier.private.to_str().unwrap()]);
    let allowed = allowed_signers(&p.scratch.join("allowed_signers"), &[(PRINCIPAL, &carrier)]);
    let published_key = std::fs::read_to_string(fixture.join("ada.pub")).unwrap();
    let trust = format!("{PRINCIPAL} namespaces=\"git,{NAMESPACE}\" {published_key}");
    std::fs::write(&allowed, std::fs::read_to_string(&allowed).unwrap() + &trust).unwrap();
    let branch = "speccoder/001-bookmark-tags";
    const T001: &str = "001-bookmark-tags/T001";
    let verify = || {
        let out = p.speccoder(&[
            "attest",
            "verify",
            "--branch",
            branch,
            "--all",
            "--json",
            "--allowed-signers",
            allowed.to_str().unwrap(),
        ]);
        let report: Value = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}:\n{out}"));
        (out.code().unwrap_or(-1), report)
    };
    let (code, report) = verify();
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(tick(&report, T001)["policy"], json!({"recipe": "published", "speccoder_version": "0.9.0"}));

    p.git(&["checkout", "-q", branch]);
    let old = p.rev("HEAD");
    move_main_beside_root(&p);
    p.git(&["rebase", "-q", "moved"]);
    let (code, report) = carry(&p, &allowed);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["carried"][0]["from"], old.as_str(), "{report:#}");
    let (code, report) = verify();
    assert_eq!(code, 0, "{report:#}");
    let t = tick(&report, T001);
    assert_eq!((&t["outcome"], &t["commit"]), (&json!("evidenced"), &json!(p.rev("HEAD"))), "{t:#}");
    assert_eq!(t["policy"], json!({"recipe": "version_free"}), "{t:#}");
}

/// Ticks the published tool wrote at 0.7.2 and 0.9.0, whose summaries record those versions,
/// rebased with the configuration unchanged, are carried beside our own, re-issued with the
/// version-free digest (the summary then records this crate's version), and hold again.
#[test]
fn published_ticks_are_carried_after_a_plain_rebase_and_re_issued_by_the_version_free_recipe() {
    let h = history();
    let root = move_main_beside_root(&h.p);
    h.p.git(&["rebase", "-q", "--onto", "moved", &root, "main"]);
    let (code, report) = carry(&h.p, &h.allowed);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["carried"].as_array().unwrap().len(), 3, "{report:#}");
    let (code, report) = verify(&h, &[]);
    assert_eq!(code, 0, "{report:#}");
    for task in [T005, T006, T007] {
        let t = tick(&report, task);
        assert_eq!(
            (&t["outcome"], &t["policy"]),
            (&json!("evidenced"), &json!({"recipe": "version_free"})),
            "{t:#}"
        );
    }
}
