//! Repository text in `--json` and in messages: a note, a trust file, a verifier policy, a task
//! list or a commit's trailer can hold escape sequences, line breaks, Unicode line separators,
//! bidirectional controls and zero-width characters; every string of a report arrives quoted
//! (`\u{1b}`, `\n`, `\u{2028}`, `\u{202e}`), so that a CI step printing a value (`jq -r`) prints
//! inert text on one line. The commit message speccoder writes shows such characters escaped too.

use crate::common;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use common::{Evidence, PRINCIPAL, Project, SPECKIT_UNIT, acts_or_hides, inert_failure, inert_json};

const TASKS: &str = "specs/001-bookmark-tags/tasks.md";

/// Text that acts on a terminal, reorders, breaks a line and starts a workflow command: a
/// directory's or a file's name.
const HOSTILE: &str = "h\u{1b}[31m\u{202e}x\u{2028}::error::y\n::error::z";

/// [`HOSTILE`] as every report quotes it.
const QUOTED: &str = "h\\u{1b}[31m\\u{202e}x\\u{2028}::error::y\\n::error::z";

/// `path` as a command-line argument.
fn arg(path: &std::path::Path) -> &str {
    path.to_str().unwrap()
}

/// The Spec Kit fixture signing with the key `ada`, made in a directory named with [`HOSTILE`]
/// that git's `user.signingKey` names; git's `gpg.ssh.allowedSignersFile` trusts it as
/// [`PRINCIPAL`], and `bob`, made beside it, as `bob@example.com`.
fn signing_from_a_hostile_directory() -> (Project, common::Key, std::path::PathBuf) {
    let p = Project::speckit();
    let keys = p.scratch_dir(&format!("keys{HOSTILE}"));
    let (ada, bob) = (common::ed25519(&keys, "ada"), common::ed25519(&keys, "bob"));
    let trust =
        common::allowed_signers(&p.scratch.join("trust"), &[(PRINCIPAL, &ada), ("bob@example.com", &bob)]);
    p.git(&["config", "gpg.format", "ssh"]);
    p.git(&["config", "user.signingKey", arg(&ada.private)]);
    p.git(&["config", "gpg.ssh.allowedSignersFile", arg(&trust)]);
    (p, bob, keys)
}

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
fn a_json_error_quotes_a_path_from_git_s_configuration_as_its_message_on_stderr_does() {
    let p = Project::speckit();
    let hooks = p.scratch.join(format!("hooks{HOSTILE}"));
    std::fs::write(&hooks, "a file, not a directory").unwrap();
    p.git(&["config", "core.hooksPath", arg(&hooks)]);
    let out = p.speccoder(&["hooks", "install", "--json"]).failure(14);
    let said = inert_failure(&out);
    assert!(said.contains(&format!("hooks{QUOTED}")), "{said}");
    assert!(out.stderr.contains(&format!("hooks{QUOTED}")), "{out}");
    let trust = p.scratch.join(format!("trust{HOSTILE}"));
    p.git(&["config", "gpg.ssh.allowedSignersFile", arg(&trust)]);
    let out = p.speccoder(&["attest", "verify", "--json"]).failure(13);
    assert!(inert_failure(&out).contains(&format!("trust{QUOTED}")), "{out}");
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

#[test]
fn the_reports_of_schema_and_sigstore_fetch_root_name_a_directory_exactly_and_quote_it_on_failure() {
    let p = Project::speckit();
    let out = p.scratch.join(format!("schemas{HOSTILE}"));
    // Written: the report names the directory and each file exactly (`json_paths`).
    let mut report = report_of(&p.speccoder(&["schema", "--out", arg(&out), "--json"]).success());
    let files = report.as_object_mut().unwrap().remove("files").unwrap();
    let evidence = out.join("evidence.schema.json");
    assert!(files.as_array().unwrap().iter().any(|f| f.as_str() == Some(arg(&evidence))), "{files}");
    inert_but_the_exact_path(report, "dir", &out);
    // `--check` of a directory that holds none: each file and the advice name the directory.
    let missing = out.join("none");
    let said =
        inert_failure(&p.speccoder(&["schema", "--check", "--out", arg(&missing), "--json"]).failure(26));
    assert!(said.contains(&format!("{QUOTED}/none/evidence.schema.json cannot be read")), "{said}");

    // The cache directory cannot be made (a file is where it goes): no network is needed.
    let cache = p.scratch_dir(&format!("cache{HOSTILE}"));
    std::fs::write(cache.join("speccoder"), "a file where the cache's directory goes").unwrap();
    let mut fetch = common::speccoder_command(&p.root, &p.home, &["sigstore", "fetch-root", "--json"]);
    fetch.env("XDG_CACHE_HOME", &cache);
    let refused = common::run(fetch);
    assert_ne!(refused.code(), Some(0), "{refused}");
    let said = inert_failure(&refused);
    assert!(said.contains(&format!("the cache at {}", arg(&cache).replace(HOSTILE, QUOTED))), "{said}");
}

/// The report `run` printed.
fn report_of(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{run}"))
}

/// `report`'s field `path` (a path of this machine) asserted to be `exact`, as a script that reads
/// it finds the file (`json_paths`), and every other string inert.
#[track_caller]
fn inert_but_the_exact_path(mut report: Value, path: &str, exact: &std::path::Path) -> String {
    let named = report.as_object_mut().unwrap().remove(path).unwrap_or_else(|| panic!("{path}: {report}"));
    assert_eq!(std::path::Path::new(named.as_str().unwrap()), exact, "{report}");
    common::inert_value(&report)
}

#[test]
fn the_reports_of_held_out_store_and_publish_quote_a_source_and_a_file_name_and_name_the_store_exactly() {
    let (p, _, _) = signing_from_a_hostile_directory();
    let target = format!("{SPECKIT_UNIT}/T001");
    let store = p.scratch.join(format!("store{HOSTILE}"));
    let source = p.scratch_dir("held");
    std::fs::write(source.join("held_out.rs"), "#[test] fn held_out() {}\n").unwrap();
    let stored = p.speccoder(&["held-out", "store", &target, arg(&source), "--store", arg(&store), "--json"]);
    let key = common::held_out_manifest(&target).replace("sha256:", "");
    inert_but_the_exact_path(report_of(&stored.success()), "set_dir", &store.join(SPECKIT_UNIT).join(&key));
    let missing = p.scratch.join(format!("none{HOSTILE}"));
    let refused = p.speccoder(&["held-out", "store", &target, arg(&missing), "--json"]);
    assert_ne!(refused.code(), Some(0), "{refused}");
    assert!(inert_failure(&refused).contains(&format!("none{QUOTED}")), "{refused}");

    // T001 closed with evidence naming the set; a file of a hostile name added to it since.
    let evidence = common::write_evidence(&p.scratch_dir("e"), &target, Evidence::WithHeldOut);
    p.attest(&target, &evidence, &["--held-out-store", arg(&store)]).success();
    let files = store.join(SPECKIT_UNIT).join(key).join("files");
    std::fs::write(files.join(format!("f{HOSTILE}.rs")), "fn x() {}\n").unwrap();
    // The set is left out as tampered (26), the report names the file.
    let published = p.speccoder(&["held-out", "publish", "--store", arg(&store), "--json"]).failure(26);
    let said = inert_but_the_exact_path(report_of(&published), "store", &store);
    assert!(said.contains(&format!("files/f{QUOTED}.rs is not in the manifest")), "{said}");
    let refused = p.speccoder(&["held-out", "publish", "--store", arg(&missing), "--json"]);
    assert_ne!(refused.code(), Some(0), "{refused}");
    assert!(inert_failure(&refused).contains(&format!("none{QUOTED}")), "{refused}");
}

#[test]
fn the_reports_of_approve_and_export_quote_a_key_file_and_name_the_output_directory_exactly() {
    let (p, bob, keys) = signing_from_a_hostile_directory();
    let target = format!("{SPECKIT_UNIT}/T001");
    let evidence = common::write_evidence(&p.scratch_dir("e"), &target, Evidence::Verified);
    p.attest(&target, &evidence, &[]).success();
    let missing = keys.join("none");
    for key in [&bob.private, &missing] {
        let approve =
            p.speccoder(&["attest", "approve", "HEAD", "--signer", "ssh", "--key", arg(key), "--json"]);
        let said = if key == &missing { inert_failure(&approve) } else { inert_json(&approve.success()) };
        assert!(said.contains(&format!("keys{QUOTED}/")), "{said}");
    }
    let pack = p.scratch.join(format!("pack{HOSTILE}"));
    for key in [&bob.private, &missing] {
        let export = p.speccoder(&[
            "attest",
            "export",
            "--branch",
            "--all",
            "--out",
            arg(&pack),
            "--vsa-key",
            arg(key),
            "--json",
        ]);
        let said = if key == &missing {
            inert_failure(&export)
        } else {
            inert_but_the_exact_path(report_of(&export.success()), "out", &pack)
        };
        assert!(said.contains(&format!("keys{QUOTED}/")), "{said}");
    }
}

#[test]
fn the_report_of_carry_quotes_the_subject_of_a_commit_a_rebase_dropped_and_the_signers_key_file() {
    let (p, _, _) = signing_from_a_hostile_directory();
    let subject = "Store h\u{1b}[31m\u{202e}x\u{2028}::error::y";
    p.git(&["checkout", "-q", "-b", "feature"]);
    p.write("src/tags/store.rs", "pub fn add() {}\n");
    p.git(&["add", "-A"]);
    p.git(&["commit", "-q", "-m", subject]);
    let target = format!("{SPECKIT_UNIT}/T001");
    let evidence = common::write_evidence(&p.scratch_dir("e"), &target, Evidence::Verified);
    p.attest(&target, &evidence, &[]).success();
    let mut rebase = common::git_command(&p.root, &p.home, &["rebase", "-q", "-i", "main"]);
    rebase.env("GIT_SEQUENCE_EDITOR", "sed -i '1s/^pick/drop/'");
    common::run(rebase).success();
    let said = inert_json(&p.speccoder(&["attest", "carry", "--json"]).failure(26));
    assert!(said.contains("series_differs"), "{said}");
    assert!(said.contains("(`Store h\\u{1b}[31m\\u{202e}x\\u{2028}::error::y`)"), "{said}");
    assert!(said.contains(&format!("keys{QUOTED}/ada")), "{said}");
}
