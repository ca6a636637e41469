//! Where `attest verify` puts its report: stdout (text, `--github`, `--json` with its exit code),
//! the `--markdown` file and `$GITHUB_STEP_SUMMARY`; what it says when one of those cannot be
//! written; and what a branch with nothing to check (no ticks, no commits yet) exits with.

use crate::common;

use std::path::Path;

use common::{Project, Run};
use serde_json::Value;

const TASKS: &str = "specs/001-bookmark-tags/tasks.md";

/// Ticks T001 by hand, without evidence, and commits it: a tick that does not hold (26).
fn tick_without_evidence(p: &Project) {
    let text = String::from_utf8(p.read(TASKS)).unwrap().replace("- [ ] T001", "- [X] T001");
    p.write(TASKS, text);
    p.git(&["commit", "-q", "-am", "Tick T001 by hand"]);
}

/// `speccoder attest verify <args>` with `$GITHUB_STEP_SUMMARY` set to `summary`.
fn verify_with_summary(p: &Project, summary: &Path, args: &[&str]) -> Run {
    let mut cmd = common::speccoder_command(&p.root, &p.home, &[&["attest", "verify"], args].concat());
    cmd.env("GITHUB_STEP_SUMMARY", summary);
    common::run(cmd)
}

/// The JSON report without its `exit_code`.
fn without_exit_code(mut report: Value) -> Value {
    report.as_object_mut().unwrap().remove("exit_code");
    report
}

#[cfg(unix)]
#[test]
fn a_step_summary_that_is_a_link_a_fifo_or_a_directory_leaves_the_report_whole_and_exits_13() {
    let p = Project::speckit();
    let victim = p.scratch.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let link = p.scratch.join("link");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let fifo = p.scratch.join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let dir = p.scratch.join("dir");
    std::fs::create_dir(&dir).unwrap();
    let bad = [
        (&link, "it is a symbolic link, which is never written through"),
        (&fifo, "it is a FIFO, not a regular file"),
        (&dir, "it is a directory, not a regular file"),
    ];
    let github = ["--branch", "--all", "--github"];
    for (summary, says) in bad {
        // Nothing to check (15, or 0 with --allow-empty): the unusable summary makes it 13.
        for extra in [&[][..], &["--allow-empty"]] {
            let out = verify_with_summary(&p, summary, &[&github[..], extra].concat()).failure(13);
            assert!(out.stdout.starts_with("::stop-commands::"), "the report is printed: {out}");
            assert!(out.stdout.contains("0 checked: "), "{out}");
            let message = format!(
                "speccoder attest verify: cannot append the report to $GITHUB_STEP_SUMMARY ({}): {says}; set GITHUB_STEP_SUMMARY to a regular file",
                summary.display()
            );
            assert!(out.stderr.contains(&message), "{out}");
        }
    }
    let summary = p.scratch.join("summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    verify_with_summary(&p, &summary, &github).failure(15);
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.starts_with("# earlier step\n### speccoder attest verify\n"), "{written}");

    // A tick that does not hold: its annotation is printed, and 26 stays.
    tick_without_evidence(&p);
    for (summary, says) in bad {
        let out = verify_with_summary(&p, summary, &github).failure(26);
        let annotation = format!("::error file={TASKS},line=13,");
        assert!(out.stdout.lines().any(|l| l.starts_with(&annotation)), "{out}");
        assert!(out.stderr.contains(says), "{out}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
}

#[test]
fn a_markdown_report_whose_directory_does_not_exist_exits_13_naming_the_path_given_in_json_too() {
    let p = Project::speckit();
    let args = ["attest", "verify", "--branch", "--all", "--allow-empty", "--json"];
    let out = p.speccoder(&[&args[..], &["--markdown", "nodir/report.md"]].concat()).failure(13);
    assert_eq!(
        out.stderr.trim_end(),
        "speccoder attest verify: cannot write nodir/report.md: the directory nodir does not exist; create it first, or write elsewhere"
    );
    assert!(!out.stderr.contains("nodir/.tmp"), "no temporary file is named: {out}");
    let report: Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("one object: {e}\n{out}"));
    assert_eq!(report["exit_code"], 13, "{report:#}");
    assert_eq!(report["totals"]["checked"], 0, "{report:#}");
    let error = report["error"].as_str().unwrap_or_else(|| panic!("the reason is in the object: {report:#}"));
    assert!(error.contains("nodir/report.md") && error.contains("create it first"), "{error}");
}

/// A report written inside the git directory becomes a ref, or breaks one: it is refused there,
/// by any spelling of the path, and the report still reaches stdout.
#[test]
fn a_markdown_report_inside_the_git_directory_is_refused_and_nothing_is_written_there() {
    let p = Project::speckit();
    let args = ["attest", "verify", "--branch", "--all", "--allow-empty", "--markdown"];
    for path in [".git/refs/heads/report", "specs/../.git/report.md", "./.git/info/report.md"] {
        let out = p.speccoder(&[&args[..], &[path]].concat()).failure(13);
        assert!(out.stderr.contains("lies inside the repository's git directory"), "{path}: {out}");
        assert!(out.stderr.contains("choose a directory outside `.git`"), "{path}: {out}");
        assert!(!p.root.join(path).exists(), "{path}: nothing written");
        assert!(out.stdout.contains("checked"), "the report still reaches stdout: {out}");
    }
    let branches = p.git(&["for-each-ref", "--format=%(refname)", "refs/heads/"]);
    assert!(!branches.contains("report"), "no branch made of a report: {branches}");
    let summary = p.root.join(".git/refs/notes/summary");
    let out =
        verify_with_summary(&p, &summary, &["--branch", "--all", "--allow-empty", "--github"]).failure(13);
    assert!(out.stderr.contains("cannot append the report to $GITHUB_STEP_SUMMARY"), "{out}");
    assert!(out.stderr.contains("lies inside the repository's git directory"), "{out}");
    assert!(!summary.exists(), "no notes ref made of a step summary");
}

/// A directory link the branch committed leads a report's path out of the work tree: the report
/// and an export pack are refused there, and nothing is written where the link leads.
#[cfg(unix)]
#[test]
fn a_report_or_a_pack_is_never_written_through_a_directory_link_the_branch_committed() {
    let p = Project::speckit();
    let outside = p.scratch.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("review.md"), "precious").unwrap();
    std::os::unix::fs::symlink(&outside, p.root.join("reports")).unwrap();
    p.git(&["add", "reports"]);
    p.git(&["commit", "-q", "-m", "a link for the reports"]);
    let args = ["attest", "verify", "--branch", "--all", "--allow-empty", "--markdown"];
    for path in ["reports/review.md", "./reports/review.md", "specs/../reports/review.md"] {
        let out = p.speccoder(&[&args[..], &[path]].concat()).failure(13);
        assert!(out.stderr.contains("reports on the way to it is a symbolic link"), "{path}: {out}");
    }
    let absolute = p.root.join("reports/review.md");
    let out = p.speccoder(&[&args[..], &[absolute.to_str().unwrap()]].concat()).failure(13);
    assert!(out.stderr.contains("on the way to it is a symbolic link"), "{out}");
    assert_eq!(std::fs::read_to_string(outside.join("review.md")).unwrap(), "precious");
    let key = common::ed25519(&p.scratch, "ada");
    let export = ["attest", "export", "--branch", "--all", "--out", "reports/pack", "--vsa-key"];
    let out = p.speccoder(&[&export[..], &[key.private.to_str().unwrap()]].concat());
    assert_eq!(out.code(), Some(13), "{out}");
    assert!(out.stderr.contains("reports on the way to it is a symbolic link"), "{out}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1, "nothing written where the link leads");
}

#[test]
fn every_json_report_of_verify_carries_the_exit_code() {
    let p = Project::speckit();
    let json = |extra: &[&str]| {
        let out = p.speccoder(&[&["attest", "verify", "--json"][..], extra].concat());
        let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
        (out.code(), report)
    };
    let (code, empty) = json(&[]);
    assert_eq!((code, &empty["exit_code"]), (Some(15), &Value::from(15)), "{empty:#}");
    let (code, allowed) = json(&["--allow-empty"]);
    assert_eq!((code, &allowed["exit_code"]), (Some(0), &Value::from(0)), "{allowed:#}");
    assert_eq!(without_exit_code(empty), without_exit_code(allowed), "otherwise the same report");
    assert!(json(&[]).1.get("error").is_none(), "a report, not an error");

    tick_without_evidence(&p);
    let (code, failing) = json(&["--branch", "--all"]);
    assert_eq!((code, &failing["exit_code"]), (Some(26), &Value::from(26)), "{failing:#}");
}

#[test]
fn a_commit_named_alone_that_is_no_task_commit_has_nothing_to_check_as_its_range_has() {
    let p = Project::speckit();
    p.git(&["commit", "-q", "--allow-empty", "-m", "an ordinary commit"]);
    let alone = p.speccoder(&["attest", "verify", "HEAD", "--accept-unsigned"]).failure(15);
    let range = p.speccoder(&["attest", "verify", "HEAD~1..HEAD", "--accept-unsigned"]).failure(15);
    assert_eq!((&alone.stdout, &alone.stderr), (&range.stdout, &range.stderr), "the same words");
    assert!(alone.stderr.contains("nothing to check"), "{alone}");
    let json = p.speccoder(&["attest", "verify", "HEAD", "--accept-unsigned", "--json"]).failure(15);
    let report: Value = serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{e}\n{json}"));
    assert_eq!(report["ticks"], Value::Array(Vec::new()), "no row with an empty task: {report:#}");
    let github = p.speccoder(&["attest", "verify", "HEAD", "--accept-unsigned", "--github"]).failure(15);
    assert!(!github.stdout.contains("::error"), "{github}");
}

#[test]
fn a_branch_without_commits_has_nothing_to_check_in_both_modes() {
    let p = Project::uncommitted("speckit");
    for mode in [&[][..], &["--branch"], &["--branch", "HEAD"], &["--branch", "main"]] {
        let args = [&["attest", "verify"][..], mode].concat();
        let out = p.speccoder(&args).failure(15);
        assert!(
            out.stderr.contains("the branch refs/heads/main has no commits yet; nothing to check"),
            "{mode:?}: {out}"
        );
        assert!(out.stdout.contains("0 checked: "), "{mode:?}: {out}");
        p.speccoder(&[&args[..], &["--allow-empty"]].concat()).success();
        let out = p.speccoder(&[&args[..], &["--json"]].concat()).failure(15);
        let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
        assert_eq!(report["exit_code"], 15, "{mode:?}: {report:#}");
        assert_eq!(report["totals"]["checked"], 0, "{mode:?}: {report:#}");
    }
    // A name that is not the branch is still a mistyped name.
    let out = p.speccoder(&["attest", "verify", "--branch", "nosuch"]).failure(2);
    assert!(out.stderr.contains("unknown revision"), "{out}");
}

#[test]
fn a_task_trailer_longer_than_any_task_is_shown_cut_and_never_echoed_whole() {
    let p = Project::speckit();
    let long = format!("001-bookmark-tags/T{}", "9".repeat(1 << 20));
    let message = format!("A claim\n\nSpec-Task: {long}\nVerdict: verified\n");
    let file = p.scratch.join("message");
    std::fs::write(&file, message).unwrap();
    p.git(&["commit", "-q", "--allow-empty", "-F", file.to_str().unwrap()]);
    let out = p.speccoder(&["attest", "verify", "HEAD", "--accept-unsigned", "--json"]).failure(26);
    assert!(out.stdout.len() < 16 * 1024, "{} bytes", out.stdout.len());
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let finding = &report["ticks"][0]["findings"][0];
    assert_eq!(finding["code"], "not_one_claim", "{report:#}");
    assert!(report["ticks"][0]["task"].as_str().unwrap().ends_with('…'), "{report:#}");
}

#[test]
fn a_symmetric_range_is_a_usage_error_naming_the_forms_that_check_a_history() {
    let p = Project::speckit();
    let out = p.speccoder(&["attest", "verify", "HEAD~1...HEAD"]).failure(2);
    assert!(out.stderr.contains("`HEAD~1...HEAD` names the commits either side has"), "{out}");
    assert!(out.stderr.contains("`A..B`"), "{out}");
}

#[test]
fn a_branch_without_commits_still_reads_the_trust_it_is_given() {
    let p = Project::uncommitted("speckit");
    let verify =
        |extra: &[&str]| p.speccoder(&[&["attest", "verify", "--branch", "--json"][..], extra].concat());
    let junk = p.scratch.join("junk_signers");
    std::fs::write(&junk, "not a key\n").unwrap();
    let missing = p.scratch.join("missing_signers");
    for trust in [&junk, &missing] {
        let out = verify(&["--allowed-signers", trust.to_str().unwrap()]).failure(13);
        let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
        assert_eq!(report["exit_code"], 13, "{report:#}");
        assert!(out.stderr.contains(trust.to_str().unwrap()), "{out}");
    }
    let key = common::ed25519(&p.scratch, "ada");
    let good = common::allowed_signers(&p.scratch.join("allowed"), &[("ada@example.com", &key)]);
    let out = verify(&["--allowed-signers", good.to_str().unwrap()]).failure(15);
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(report["trust"], good.to_str().unwrap(), "{report:#}");
}

/// A Sigstore trusted root is trust only with the identity it is to check: given alone (a CI job
/// whose identity flags went missing, or whose path has a typo) it is a usage error, never a
/// green run that read nothing; given with them, a missing file is a trust file that cannot be
/// used.
#[test]
fn a_sigstore_trusted_root_alone_is_a_usage_error_and_with_its_identity_it_is_read_at_once() {
    let p = Project::speckit();
    let missing = p.scratch.join("missing_root.json");
    let root = [
        "attest",
        "verify",
        "--branch",
        "--all",
        "--json",
        "--sigstore-trusted-root",
        missing.to_str().unwrap(),
    ];
    let out = p.speccoder(&root).failure(2);
    assert!(out.stderr.contains("--certificate-identity"), "{out}");
    let identity =
        ["--certificate-identity", "ada@example.com", "--certificate-oidc-issuer", "https://issuer.test"];
    if cfg!(feature = "sigstore") {
        let out = p.speccoder(&[&root[..], &identity[..]].concat()).failure(13);
        assert!(out.stderr.contains("missing_root.json"), "{out}");
    }
}

#[test]
fn no_escape_sequence_from_a_commit_or_a_trust_file_reaches_the_terminal() {
    let p = Project::speckit();
    let hostile = "\u{1b}]0;owned\u{7}\u{1b}[2K\rall evidenced";
    let message = format!("chore\n\nSpec-Task: 001-bookmark-tags/T9 {hostile}\nVerdict: verified");
    p.git(&["commit", "-q", "--allow-empty", "-m", &message]);
    let raw = |s: &str| s.contains(['\u{1b}', '\u{7}', '\r']);
    for mode in [&[][..], &["--github"]] {
        let out = p.speccoder(&[&["attest", "verify"][..], mode].concat()).failure(26);
        assert!(!raw(&out.stdout) && !raw(&out.stderr), "{mode:?}: {out:?}");
        assert!(out.stdout.contains("T9 \\u{1b}]0;owned\\u{7}"), "{mode:?}: {out}");
    }
    let trust = p.scratch.join("allowed");
    std::fs::write(&trust, "ada@example.com \u{1b}]0;owned\u{7} ssh-ed25519 AAAA\n").unwrap();
    let out = p.speccoder(&["attest", "verify", "--allowed-signers", trust.to_str().unwrap()]).failure(13);
    assert!(!raw(&out.stderr) && out.stderr.contains("unknown option `\\u{1b}]0;owned"), "{out:?}");
}

#[test]
fn repository_text_in_the_markdown_report_forms_no_link_mention_or_reference() {
    let p = Project::speckit();
    let hostile = "see https://evil.example/login or www.evil.example, mail x@evil.example, cc @octocat #1";
    let message = format!("chore\n\nSpec-Task: 001-bookmark-tags/T9 {hostile}\nVerdict: verified");
    p.git(&["commit", "-q", "--allow-empty", "-m", &message]);
    let md = p.scratch.join("report.md");
    p.speccoder(&["attest", "verify", "--markdown", md.to_str().unwrap()]).failure(26);
    let text = std::fs::read_to_string(&md).unwrap();
    let row = text.lines().find(|l| l.contains("T9")).unwrap_or_else(|| panic!("{text}"));
    // The task cell is one code span, inside which GFM forms no autolink and GitHub no mention.
    let task = format!("| unverifiable | ` 001-bookmark-tags/T9 {hostile} ` | `");
    assert!(row.starts_with(&task), "{row}");
    // The value names more than one `/` (a URL), so the claim is not one: the reason quotes the
    // trailer, inside a code span of its own.
    let reason = row.split(" | ").nth(3).unwrap();
    assert!(reason.starts_with("`` malformed: ") && reason.ends_with(" ``"), "{row}");
    assert!(reason.contains("names more than one <unit>/<task>"), "{row}");
}

/// A task list line holding Azure Pipelines' `##vso[` and GitHub's legacy `##[` is quoted by the
/// Markdown report (`--markdown`, and the step summary of `--github`) as the text report quotes it,
/// its first `#` escaped: printed in a CI log (`cat report.md`), neither runs a command.
#[test]
fn a_workflow_command_in_repository_text_is_escaped_in_the_markdown_report_and_the_step_summary() {
    let p = Project::speckit();
    let mut text = String::from_utf8(p.read(TASKS)).unwrap();
    text.push_str("- [x] ##vso[task.setvariable variable=GATE]passed ##[group]g\n");
    p.write(TASKS, text);
    p.git(&["commit", "-q", "-am", "A line"]);
    let md = p.scratch.join("report.md");
    let summary = p.scratch.join("summary.md");
    let text = p.speccoder(&["attest", "verify", "--branch", "--all"]).failure(26);
    p.speccoder(&["attest", "verify", "--branch", "--all", "--markdown", md.to_str().unwrap()]).failure(26);
    verify_with_summary(&p, &summary, &["--branch", "--all", "--github"]).failure(26);
    let quoted = "\\u{23}#vso[task.setvariable variable=GATE]passed \\u{23}#[group]g";
    assert!(text.stdout.contains(quoted), "{text}");
    for file in [&md, &summary] {
        let written = std::fs::read_to_string(file).unwrap();
        assert!(!written.contains("##vso[") && !written.contains("##["), "{written}");
        let row =
            written.lines().find(|l| l.contains("unrecognized_tick")).unwrap_or_else(|| panic!("{written}"));
        assert!(row.contains("`\\u{23}#vso[task.setvariable`"), "quoted as the text report quotes it: {row}");
    }
}

#[test]
fn a_github_annotation_is_placed_on_its_task_line_even_when_the_spec_document_its_story_needs_is_gone() {
    let p = Project::speckit();
    // T007 belongs to story US2; a hand tick of it, then spec.md removed.
    let text = String::from_utf8(p.read(TASKS)).unwrap().replace("- [ ] T007", "- [X] T007");
    p.write(TASKS, text);
    p.git(&["rm", "-q", "specs/001-bookmark-tags/spec.md"]);
    p.git(&["commit", "-q", "-am", "Tick T007 by hand; spec.md gone"]);
    let out = p.speccoder(&["attest", "verify", "--branch", "--all", "--github"]).failure(26);
    let annotation = format!("::error file={TASKS},line=28,title=speccoder%3A 001-bookmark-tags/T007 is");
    assert!(out.stdout.lines().any(|l| l.starts_with(&annotation)), "{out}");
}

#[test]
fn a_note_s_text_that_would_break_its_line_stays_on_the_line_of_its_github_annotation() {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    let p = Project::speckit_signed_by_git_config();
    let target = format!("{}/T001", common::SPECKIT_UNIT);
    let evidence = common::write_evidence(&p.scratch_dir("T001"), &target, common::Evidence::Verified);
    p.attest(&target, &evidence, &[]).success();
    // The first note line's predicate type breaks its line four ways and holds a legacy command.
    let hostile = "https://x/\n::error::fake\r::warning::cr\u{2028}ls ##[group]g";
    let mut lines = p.note_raw_lines("HEAD");
    let mut line: Value = serde_json::from_slice(&lines[0]).unwrap();
    let mut statement = common::statement_of(&lines[0]);
    statement["predicateType"] = Value::String(hostile.to_owned());
    line["payload"] = Value::String(STANDARD.encode(serde_json::to_vec(&statement).unwrap()));
    lines[0] = serde_json::to_vec(&line).unwrap();
    p.write_note("HEAD", &lines);

    let out = p.speccoder(&["attest", "verify", "HEAD", "--github"]).failure(26);
    let annotations: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(annotations.len(), 1, "{out}");
    let quoted = "https://x/\\n::error::fake\\r::warning::cr\\u{2028}ls \\u{23}#[group]g";
    assert!(annotations[0].contains(&format!("does not know: {quoted}")), "{out}");
    assert!(!annotations[0].contains("%0A") && !annotations[0].contains("%0D"), "{out}");
    assert!(!out.stdout.contains("##["), "no legacy command, fenced or not: {out}");
}

/// A `--markdown` path into the git directory of a repository around this one (a submodule's
/// superproject, `../.git/refs/heads/x`) is refused as one into its own is: a file there breaks a
/// ref of that repository.
#[test]
fn a_markdown_report_into_the_git_directory_of_a_repository_around_this_one_is_refused() {
    let p = Project::speckit();
    tick_without_evidence(&p);
    let outer = p.root.parent().unwrap();
    let git = std::process::Command::new("git").args(["init", "-q"]).current_dir(outer).output().unwrap();
    assert!(git.status.success(), "{git:?}");
    let r = p.speccoder(&["attest", "verify", "--branch", "--markdown", "../.git/refs/heads/x"]);
    assert_eq!(r.code(), Some(26), "{r}");
    assert!(r.stderr.contains("lies inside the repository's git directory"), "{r}");
    assert!(!outer.join(".git/refs/heads/x").exists(), "nothing written in the outer repository's refs");
}
