//! Repository text in `--json` and in messages: a note, a trust file, a verifier policy, a task
//! list or a commit's trailer can hold escape sequences, line breaks, Unicode line separators,
//! bidirectional controls and zero-width characters; every string of a report arrives quoted
//! (`\u{1b}`, `\n`, `\u{2028}`, `\u{202e}`), so that a CI step printing a value (`jq -r`) prints
//! inert text on one line. The commit message speccoder writes shows such characters escaped too.

use crate::common;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use common::{Evidence, PRINCIPAL, Project, SPECKIT_UNIT, acts_or_hides, inert_json};

const TASKS: &str = "specs/001-bookmark-tags/tasks.md";

/// Rewrites `rev`'s note: the first line's `payloadType` and the second line's `predicateType`
/// hold `hostile`.
fn note_with_hostile_types(p: &Project, rev: &str, hostile: &str) {
    let mut lines = p.note_raw_lines(rev);
    let mut first: Value = serde_json::from_slice(&lines[0]).unwrap();
    first["payloadType"] = Value::String(hostile.to_owned());
    lines[0] = serde_json::to_vec(&first).unwrap();
    let mut second: Value = serde_json::from_slice(&lines[1]).unwrap();
    let mut statement: Value =
        serde_json::from_slice(&STANDARD.decode(second["payload"].as_str().unwrap()).unwrap()).unwrap();
    statement["predicateType"] = Value::String(format!("https://e/{hostile}"));
    second["payload"] = Value::String(STANDARD.encode(serde_json::to_vec(&statement).unwrap()));
    lines[1] = serde_json::to_vec(&second).unwrap();
    p.write_note(rev, &lines);
}

#[test]
fn every_string_of_a_json_report_over_hostile_repository_text_arrives_quoted_and_on_one_line() {
    let p = Project::speckit();
    let keys = p.scratch_dir("keys");
    let ada = common::ed25519(&keys, "ada");
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", ada.private.to_str().unwrap()]);
    // A trust file whose principal holds ESC, a bidi override and a line separator.
    let trust =
        common::allowed_signers(&p.scratch.join("trust"), &[("\"a\u{1b}[31m\u{202e}b\u{2028}c\"", &ada)]);
    // T001 wraps onto a second line, which a finding quotes when it changes.
    let wrapped = String::from_utf8(p.read(TASKS))
        .unwrap()
        .replace("in src/tags/mod.rs\n", "in src/tags/mod.rs\n  under the tags folder\n");
    p.write(TASKS, wrapped);
    p.git(&["commit", "-q", "-am", "Wrap T001"]);
    for id in ["T001", "T002"] {
        let evidence =
            common::write_evidence(&p.scratch_dir(id), &format!("{SPECKIT_UNIT}/{id}"), Evidence::Verified);
        p.attest(&format!("{SPECKIT_UNIT}/{id}"), &evidence, &[]).success();
    }
    // A note line whose types carry a line break, a workflow command and ESC.
    note_with_hostile_types(&p, "HEAD", "x\n::error title=pwned::from a note\u{1b}[2J");
    // The ticked T001's wrapped line edited at the head to hold the same.
    let tasks = String::from_utf8(p.read(TASKS)).unwrap().replace(
        "under the tags folder",
        "under \u{2028}::error::x\u{1b}[2J \u{202e}the\u{200b} tags folder",
    );
    p.write(TASKS, tasks);
    p.git(&["commit", "-q", "-am", "Edit T001"]);
    // A verifier policy whose rule name reorders and hides.
    let policy = p.scratch.join("policy.toml");
    std::fs::write(
        &policy,
        "version = 1\n[[rule]]\nname = \"r\\u202eX\\u200bY\\u2028Z\"\nunits = [\"*\"]\nsigners = [\"nobody@example.com\"]\n",
    )
    .unwrap();
    let (trust, policy) = (trust.to_str().unwrap(), policy.to_str().unwrap());

    let branch = p.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "--all",
        "--json",
        "--allowed-signers",
        trust,
        "--policy",
        policy,
    ]);
    let said = inert_json(&branch.failure(26));
    for quoted in [
        "a\\u{1b}[31m\\u{202e}b\\u{2028}c",
        "x\\n::error title=pwned::from a note\\u{1b}[2J",
        "https://e/x\\n::error",
        "under \\u{2028}::error::x\\u{1b}[2J \\u{202e}the\\u{200b} tags folder",
        "r\\u{202e}X\\u{200b}Y\\u{2028}Z",
    ] {
        assert!(said.contains(quoted), "{quoted} is in the report, quoted: {said}");
    }

    // A hand commit whose Spec-Task trailer holds an OSC 8 link and a bidi override.
    p.git(&[
        "commit",
        "--allow-empty",
        "-q",
        "-m",
        "hand\n\nSpec-Task: 001-bookmark-tags/T003\u{1b}]8;;http://x\u{1b}\\\u{202e}\nVerdict: verified",
    ]);
    let said = inert_json(&p.speccoder(&["attest", "verify", "HEAD", "--json", "--allowed-signers", trust]));
    assert!(said.contains("T003\\u{1b}]8;;http://x\\u{1b}\\\\u{202e}"), "{said}");

    let check = p.speccoder(&["attest", "policy", "check", policy, "--json", "--allowed-signers", trust]);
    let said = inert_json(&check.success());
    assert!(said.contains("r\\u{202e}X\\u{200b}Y\\u{2028}Z"), "{said}");
    assert!(!said.contains(PRINCIPAL), "only the hostile principal is trusted: {said}");
}

#[test]
fn a_line_separator_quoted_by_an_error_is_escaped_on_stderr_and_in_json() {
    let p = Project::speckit();
    let tasks = String::from_utf8(p.read(TASKS)).unwrap()
        + "\n+ [ ] T099 x\u{2028}::error title=pwned::LS\u{2029}y\n";
    p.write(TASKS, tasks);
    p.git(&["commit", "-q", "-am", "A box that is no task"]);
    let target = format!("{SPECKIT_UNIT}/T099");
    let evidence = common::write_evidence(&p.scratch_dir("e"), &target, Evidence::Verified);
    for json in [false, true] {
        let extra: &[&str] = if json { &["--json"] } else { &[] };
        let out = p.attest(&target, &evidence, extra).failure(2);
        assert!(out.stderr.contains("boxes not read as tasks"), "{out}");
        assert!(out.stderr.contains("x\\u{2028}::error title=pwned::LS\\u{2029}y"), "{out}");
        assert!(!out.stderr.contains(['\u{2028}', '\u{2029}']), "{out}");
        if json {
            inert_json(&out);
        }
    }
    // A policy error quoting a rule name.
    let policy = p.scratch.join("policy.toml");
    std::fs::write(&policy, "version = 1\n[[rule]]\nname = \"r\\u2028::error::x\\u0007\"\nunits = [\"*\"]\n")
        .unwrap();
    let out = p.speccoder(&["attest", "policy", "check", policy.to_str().unwrap(), "--json"]).failure(13);
    assert!(out.stderr.contains("r\\u{2028}::error::x\\u{7}"), "{out}");
    assert!(!out.stderr.contains('\u{2028}'), "{out}");
    inert_json(&out);
}

#[test]
fn a_task_title_that_reorders_or_hides_is_escaped_in_the_commit_subject_whose_trailers_git_reads() {
    let p = Project::speckit();
    let tasks = String::from_utf8(p.read(TASKS)).unwrap().replace(
        "T001 Create the tag module skeleton",
        "T001 Fix login \u{202e}kcehc htua\u{202c} \u{200b}x \u{1b}[31mred skeleton",
    );
    p.write(TASKS, tasks);
    p.git(&["commit", "-q", "-am", "A title that hides"]);
    let target = format!("{SPECKIT_UNIT}/T001");
    let evidence = common::write_evidence(&p.scratch_dir("e"), &target, Evidence::Verified);
    p.attest(&target, &evidence, &[]).success();
    let subject = p.git(&["log", "-1", "--format=%s"]);
    assert!(subject.contains("Fix login \\u{202e}kcehc htua\\u{202c} \\u{200b}x [31mred"), "{subject}");
    assert!(!subject.trim_end().chars().any(acts_or_hides), "{subject:?}");
    let message = p.git(&["log", "-1", "--format=%B"]);
    let cmd = common::git_command(&p.root, &p.home, &["interpret-trailers", "--parse"]);
    let trailers = common::run_with_stdin(cmd, message.as_bytes()).success().stdout;
    assert!(trailers.contains(&format!("Spec-Task: {target}\n")), "{trailers}");
    assert!(trailers.contains("Verdict: verified\n"), "{trailers}");
}
