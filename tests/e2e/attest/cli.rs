//! What the command prints: a short human summary, or the same facts as one JSON object; and `-C`.

use serde_json::Value;

use super::{Setup, T005};
use crate::common::{self, Evidence, NOTES_REF};

#[test]
fn the_human_summary_names_the_task_the_commit_every_line_and_the_signer() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    let out = s.attest_signed(&[]);
    let head = s.project.rev("HEAD");
    let lines = s.project.note_lines("HEAD");
    let keyid = &lines[0].signatures[0].0;
    let text = &out.stdout;
    assert!(text.starts_with(&format!("attest {T005} on main: {} (verified)\n", &head[..12])), "{text}");
    assert!(text.contains(&format!("note {} in {NOTES_REF}: 6 lines, 6 signed\n", &head[..12])), "{text}");
    for (name, line) in [
        "test-result/baseline",
        "test-result/red",
        "test-result/green",
        "test-result/held_out",
        "task-verification",
        "summary",
    ]
    .iter()
    .zip(&lines)
    {
        assert!(text.contains(&format!("{name:<22} sha256:{}\n", line.digest())), "{name}\n{text}");
    }
    assert!(text.contains(&format!("signer: ssh ed25519 {keyid}")), "{text}");
    assert!(!text.contains("unsigned") && !text.contains("withheld"), "{text}");
    assert!(text.lines().count() <= 12, "the summary is short\n{text}");
    assert_eq!(out.stderr, "");
}

#[test]
fn json_output_is_one_object_with_the_same_facts() {
    let s = Setup::speckit(Evidence::WithHeldOut);
    let out = s.attest_signed(&["--json"]);
    assert_eq!(out.stdout.trim_end().lines().count(), 1, "one line\n{out}");
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let p = &s.project;
    let lines = p.note_lines("HEAD");
    assert_eq!(report["command"], "attest");
    assert_eq!(report["commit"], p.rev("HEAD"));
    assert_eq!(report["branch"], "refs/heads/main");
    assert_eq!(report["target"], T005);
    assert_eq!(report["verdict"], "verified");
    assert_eq!(report["notes_ref"], NOTES_REF);
    assert_eq!(report["unsigned_reason"], Value::Null);
    assert_eq!(report["withheld"], serde_json::json!([]));
    assert_eq!(report["warnings"], serde_json::json!([]));
    let signer = report["signer"].as_str().unwrap();
    assert!(signer.starts_with(&format!("ssh ed25519 {}", lines[0].signatures[0].0)), "{signer}");
    let reported: Vec<(&str, &str, bool)> = report["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["name"].as_str().unwrap(), l["sha256"].as_str().unwrap(), l["signed"].as_bool().unwrap()))
        .collect();
    let names = [
        "test-result/baseline",
        "test-result/red",
        "test-result/green",
        "test-result/held_out",
        "task-verification",
        "summary",
    ];
    let digests: Vec<String> = lines.iter().map(common::NoteLine::digest).collect();
    let expected: Vec<(&str, &str, bool)> =
        names.iter().zip(&digests).map(|(n, d)| (*n, d.as_str(), true)).collect();
    assert_eq!(reported, expected);
}

#[test]
fn json_output_of_an_unsigned_tick_carries_the_reason() {
    let s = Setup::speckit(Evidence::Verified);
    let out = s.project.attest(T005, &s.evidence, &["--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["signer"], Value::Null);
    assert!(report["unsigned_reason"].as_str().unwrap().contains("no signing key configured"), "{out}");
    assert!(report["lines"].as_array().unwrap().iter().all(|l| l["signed"] == false));
}

#[test]
fn json_errors_are_one_object_with_the_message_and_the_exit_code() {
    let s = Setup::speckit(Evidence::Verified);
    let target = super::speckit_task("T099");
    let evidence = common::write_evidence(&s.project.scratch_dir("t099"), &target, Evidence::Verified);
    let out = s.project.attest(&target, &evidence, &["--json"]).failure(2);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["exit_code"], 2);
    assert!(report["error"].as_str().unwrap().contains("task `T099` not found"), "{out}");
}

/// A command line that cannot be run (a missing or unknown argument, a bad value, a `-C` that
/// does not exist) still prints its one JSON object when it asked for `--json`, with exit 2, and
/// the usual message on stderr.
#[test]
fn usage_errors_under_json_are_one_object_with_exit_code_2() {
    let s = Setup::speckit(Evidence::Verified);
    let cases: [(&[&str], &str); 5] = [
        (&["attest", T005, "--json"], "the following required arguments were not provided"),
        (&["skip", T005, "--json"], "--reason"),
        (&["attest", "verify", "--json", "--jobs", "0"], "invalid value '0' for '--jobs <N>'"),
        (&["attest", "push", "--bogus", "--json"], "unexpected argument '--bogus'"),
        (&["-C", "no-such-dir", "attest", "verify", "--json"], "cannot change to no-such-dir"),
    ];
    for (args, says) in cases {
        let out = s.project.speccoder(args).failure(2);
        let report: Value =
            serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"));
        assert_eq!(report["exit_code"], 2, "{args:?}");
        let error = report["error"].as_str().unwrap();
        assert!(error.contains(says) && !error.starts_with("error:"), "{args:?}: {error}");
        assert!(!error.contains("Usage:") && !error.contains("--help"), "the first paragraph only: {error}");
        assert!(out.stderr.contains(says), "{args:?}\n{out}");
    }
    // Without --json, stdout stays empty.
    assert_eq!(s.project.speccoder(&["attest", T005]).failure(2).stdout, "");
}

/// A repository gix cannot open is named with gix's reason, not taken for no repository at all:
/// a SHA-256 repository says that speccoder reads SHA-1 ones.
#[test]
fn a_sha256_repository_is_refused_as_unsupported_not_as_missing() {
    let s = Setup::speckit(Evidence::Verified);
    let dir = s.project.scratch_dir("sha256");
    let init = common::git_command(&dir, &s.project.home, &["init", "-q", "--object-format=sha256"]);
    assert_eq!(common::run(init).code(), Some(0));
    for args in [&["attest", "verify"][..], &["skip", T005, "--reason", "r"], &["attest", "fetch"]] {
        let out = s.project.speccoder_in(&dir, args).failure(14);
        assert!(out.stderr.contains("cannot be opened"), "{args:?}\n{out}");
        assert!(out.stderr.contains("SHA-1 repositories only"), "{args:?}\n{out}");
        assert!(!out.stderr.contains("no git repository found"), "{args:?}\n{out}");
    }
}

#[test]
fn dash_c_runs_in_another_directory() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let elsewhere = p.scratch_dir("elsewhere");
    let root = p.root.to_str().unwrap();
    let args = [
        "-C",
        root,
        "attest",
        T005,
        "--evidence",
        s.evidence.to_str().unwrap(),
        "--key",
        s.key.private.to_str().unwrap(),
    ];
    p.speccoder_in(&elsewhere, &args).success();
    common::assert_every_line_verifies(&p.scratch, &s.allowed, &p.note_lines("HEAD"));
    // `-C` works for `attest sign` too, and from a subdirectory of the work tree.
    let sub = p.root.join("specs");
    let out = p.speccoder_in(
        &elsewhere,
        &["-C", sub.to_str().unwrap(), "attest", "sign", "HEAD", "--key", s.key.private.to_str().unwrap()],
    );
    assert!(out.success().stdout.contains("every line was signed already"));
}

#[test]
fn dash_c_resolves_a_relative_evidence_path_against_that_directory() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let args =
        ["-C", "repo", "attest", T005, "--evidence", "../scratch/evidence/evidence.json", "--signer", "none"];
    p.speccoder_in(p.tmp(), &args).success();
    assert_eq!(p.note_lines("HEAD").len(), 5);
}

#[test]
fn a_subcommand_named_after_dash_c_given_to_attest_runs_that_subcommand() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let elsewhere = p.scratch_dir("elsewhere");
    let (root, key) = (p.root.to_str().unwrap(), s.key.private.to_str().unwrap());
    let tick = ["attest", "-C", root, T005, "--evidence", s.evidence.to_str().unwrap(), "--key", key];
    p.speccoder_in(&elsewhere, &tick).success();
    let allowed = s.allowed.to_str().unwrap();
    let verify = p.speccoder_in(&elsewhere, &["attest", "-C", root, "verify", "--allowed-signers", allowed]);
    assert!(verify.stdout.contains("1 evidenced"), "{verify}");
    verify.success();
    let sign = p.speccoder_in(&elsewhere, &["attest", "-C", root, "sign", "--key", key]);
    assert!(sign.stdout.contains("every line was signed already"), "{sign}");
    sign.success();
    // attest's own arguments before a subcommand would be dropped unread: a usage error.
    for args in
        [&["attest", "--key", key, "sign"][..], &["attest", T005, "verify"], &["attest", "--json", "verify"]]
    {
        let out = p.speccoder(args).failure(2);
        assert!(out.stderr.contains("is an argument of `speccoder attest <UNIT/TASK>`"), "{args:?}: {out}");
    }
}

#[test]
fn dash_c_to_a_missing_directory_is_a_usage_error() {
    let s = Setup::speckit(Evidence::Verified);
    let before = s.project.snapshot();
    let out = s.project.speccoder(&["-C", "no-such-dir", "attest", "sign"]).failure(2);
    assert!(out.stderr.contains("cannot change to no-such-dir"), "{out}");
    assert_eq!(s.project.snapshot(), before);
}

#[test]
fn dash_c_to_a_directory_outside_any_repository_names_that_directory() {
    let s = Setup::speckit(Evidence::Verified);
    let outside = tempfile::tempdir().unwrap();
    let out = s.project.speccoder(&["-C", outside.path().to_str().unwrap(), "attest", "verify"]).failure(14);
    let said = format!("no git repository found at or above {}:", outside.path().display());
    assert!(out.stderr.contains(&said), "{out}");
}

/// A closed standard descriptor is open on `/dev/null` (std's start-up does it) before any file
/// is opened, so nothing printed can land in a file of ours. Seen here through `/proc/self/fd/0`
/// as the evidence file: with stdin closed it would not exist; open, it is a link to
/// `/dev/null`, which the evidence reader refuses as a link.
#[cfg(target_os = "linux")]
#[test]
fn a_closed_standard_descriptor_is_open_on_dev_null_before_any_file_is() {
    let s = Setup::speckit(Evidence::Verified);
    let before = s.project.snapshot();
    let mut cmd = std::process::Command::new("sh");
    common::isolate(&mut cmd, &s.project.home);
    cmd.current_dir(&s.project.root)
        .args(["-c", r#"exec "$0" "$@" <&-"#])
        .arg(common::speccoder_bin())
        .args(["attest", super::T005, "--evidence", "/proc/self/fd/0"]);
    let out = common::run(cmd).failure(13);
    assert!(!out.stderr.contains("No such file"), "stdin was left closed\n{out}");
    assert!(out.stderr.contains("/proc/self/fd/0 is a symbolic link"), "{out}");
    assert_eq!(s.project.snapshot(), before);
}

/// SIGPIPE is ignored (std's start-up ignores it): a reader of stdout that went away makes the
/// report's write fail quietly, instead of killing the process with the signal or panicking.
/// (The tick, written before the report, stands either way.)
#[cfg(unix)]
#[test]
fn a_reader_gone_from_stdout_does_not_kill_the_process_by_sigpipe() {
    use std::os::unix::process::ExitStatusExt as _;
    let s = Setup::speckit(Evidence::Verified);
    let key = s.key.private.to_str().unwrap();
    let mut cmd =
        common::speccoder_command(&s.project.root, &s.project.home, &["attest", super::T005, "--key", key]);
    cmd.arg("--evidence").arg(&s.evidence);
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), None, "{status}");
    assert_eq!(status.code(), Some(0), "no panic (exit 101) on the closed pipe: {status}");
    assert_eq!(s.project.note_lines("HEAD").len(), 5);
}

/// A stdout that cannot take the report (a full disk: `/dev/full`) is no reader that went away:
/// the command says so on stderr and fails, whether it succeeded (`attest`: the tick stands) or
/// not, with text and with `--json`; a report cut short is never taken for a whole one.
#[cfg(target_os = "linux")]
#[test]
fn a_report_that_cannot_be_written_to_stdout_fails_the_command_and_says_so() {
    let s = Setup::speckit(Evidence::Verified);
    let to_full_disk = |args: &[&str]| {
        let mut cmd = common::speccoder_command(&s.project.root, &s.project.home, args);
        cmd.stdout(std::fs::File::create("/dev/full").unwrap());
        common::run(cmd)
    };
    let key = s.key.private.to_str().unwrap();
    let evidence = s.evidence.to_str().unwrap();
    let out = to_full_disk(&["attest", super::T005, "--key", key, "--evidence", evidence]).failure(1);
    assert!(out.stderr.contains("could not be written to standard output (No space left on device"), "{out}");
    assert!(out.stderr.contains("the command itself succeeded"), "{out}");
    assert_eq!(s.project.note_lines("HEAD").len(), 5, "the tick and its note stand");
    let allowed = s.allowed.to_str().unwrap();
    for json in [&[][..], &["--json"]] {
        let mut args = vec!["attest", "verify", "--branch", "--allowed-signers", allowed];
        args.extend(json);
        let out = to_full_disk(&args).failure(1);
        assert!(out.stderr.contains("could not be written to standard output"), "{args:?}: {out}");
    }
    let mut args = vec!["attest", "verify", "--branch", "--allowed-signers", allowed];
    let held = s.project.speccoder(&args).success();
    assert!(held.stdout.contains("T005"), "the same check holds when stdout takes it: {held}");
    args.push("--json");
    s.project.speccoder(&args).success();
}

/// A stdout or stderr closed when the command starts (`>&-`) is opened on `/dev/null` by Rust's
/// runtime before `main` (as git's `sanitize_stdfds` does), so the first file the command opens
/// (a lock file, an object) never takes descriptor 1 or 2: the report goes nowhere, as with
/// `>/dev/null`, and the command exits with its own code.
#[cfg(unix)]
#[test]
fn a_closed_stdout_or_stderr_never_lets_the_report_into_a_file_the_command_writes() {
    let s = Setup::speckit(Evidence::Verified);
    let with_closed = |args: &[&str], closed: &str| {
        let cmd = common::speccoder_command(&s.project.root, &s.project.home, args);
        let mut sh = std::process::Command::new("sh");
        sh.arg("-c").arg(format!("exec \"$0\" \"$@\" {closed}")).arg(cmd.get_program()).args(cmd.get_args());
        sh.current_dir(&s.project.root);
        for (key, value) in cmd.get_envs() {
            match value {
                Some(value) => sh.env(key, value),
                None => sh.env_remove(key),
            };
        }
        common::run(sh)
    };
    let key = s.key.private.to_str().unwrap();
    let evidence = s.evidence.to_str().unwrap();
    with_closed(&["attest", super::T005, "--key", key, "--evidence", evidence], ">&- 2>&-").success();
    assert_eq!(s.project.note_lines("HEAD").len(), 5, "the tick and its note are written");
    s.project.git(&["fsck", "--strict", "--no-progress"]);
    s.project.git(&["status", "--porcelain"]);
    let report = format!("attest {} on main:", super::T005);
    let mut dirs = vec![s.project.root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                dirs.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let found = bytes.windows(report.len()).any(|w| w == report.as_bytes());
                assert!(!found, "the report was written into {}", path.display());
            }
        }
    }
    let allowed = s.allowed.to_str().unwrap();
    for closed in [">&-", "2>&-"] {
        let out = with_closed(&["attest", "verify", "--branch", "--allowed-signers", allowed], closed);
        assert_eq!(out.code(), Some(0), "{closed}: {out}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn help_and_the_version_that_cannot_be_written_to_stdout_fail_and_say_so() {
    let p = common::Project::speckit();
    for args in
        [&["--help"][..], &["-h"], &["--version"], &["help", "attest"], &["attest", "verify", "--help"]]
    {
        let mut cmd = common::speccoder_command(&p.root, &p.home, args);
        cmd.stdout(std::fs::File::create("/dev/full").unwrap());
        let out = common::run(cmd).failure(1);
        let carried = if args == ["--version"] { "the version" } else { "the help" };
        assert!(
            out.stderr.contains(&format!("{carried} could not be written to standard output (No space left")),
            "{args:?}: {out}"
        );
        assert!(!out.stderr.contains("report") && !out.stderr.contains("stands"), "nothing was done: {out}");
        p.speccoder(args).success();
    }
}

/// `--help` on a terminal is styled as clap styles it, and plain where the person turned colour off:
/// `NO_COLOR` set to anything but empty, or `TERM=dumb` (anstream's rules, which clap prints by).
#[cfg(unix)]
#[test]
fn help_on_a_terminal_is_styled_unless_no_color_or_a_dumb_terminal_turns_it_off() {
    let on_path = |program: &str| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .any(|d| d.join(program).is_file())
    };
    if !on_path("script") {
        eprintln!("SKIPPED: script (util-linux) is not installed, so no terminal can be given to the run");
        return;
    }
    let p = common::Project::speckit();
    let shown = |env: &[(&str, &str)]| {
        let command = format!("'{}' --help", common::speccoder_bin().display());
        let args = ["-qec", command.as_str(), "/dev/null"];
        let mut on_terminal = common::binary_command(std::path::Path::new("script"), &p.root, &p.home, &args);
        on_terminal.env_remove("NO_COLOR").env("TERM", "xterm");
        on_terminal.envs(env.iter().copied());
        common::run(on_terminal).success().stdout
    };
    let styled = |text: &str| text.contains("\u{1b}[");
    assert!(styled(&shown(&[])), "styled on a terminal");
    assert!(styled(&shown(&[("NO_COLOR", "")])), "an empty NO_COLOR turns nothing off");
    for off in [[("NO_COLOR", "1")], [("TERM", "dumb")]] {
        let help = shown(&off);
        assert!(!styled(&help) && help.contains("Usage:"), "{off:?}: {help:?}");
    }
}

/// Each subcommand's help opens with the description written on it (its arguments are defined
/// lazily, and an argument struct's own description must not take that place).
#[test]
fn every_subcommand_s_help_opens_with_its_own_description() {
    for (args, first_line) in [
        (
            &["attest"][..],
            "Tick a finished task, commit it with trailers, and attach its signed evidence as a git note.",
        ),
        (
            &["attest", "verify"],
            "Check task commits, or every ticked task of a branch, against your own trust.",
        ),
        (
            &["attest", "sign"],
            "Sign the lines of a task commit's note that lack your signature, leaving the payloads unchanged.",
        ),
        (&["accept"], "Tick a task on a person's word, without test evidence (Verdict: attested)."),
        (&["skip"], "Record that a task is skipped, without ticking it; --undo removes the record."),
        (&["schema"], "Write the JSON Schemas generated from the wire types, or check the committed ones."),
        (
            &["held-out", "publish"],
            "Publish the stored sets that closed tasks on HEAD name to refs/speccoder/held-out/<unit>.",
        ),
    ] {
        let out = std::process::Command::new(common::speccoder_bin())
            .args(args)
            .arg("--help")
            .output()
            .expect("speccoder runs");
        assert!(out.status.success(), "{args:?} --help");
        let help = String::from_utf8_lossy(&out.stdout);
        assert_eq!(help.lines().next(), Some(first_line), "{args:?} --help:\n{help}");
    }
}

/// A revision that does not resolve is a usage error (exit 2) from every command that takes one,
/// named as it was given: the same failure exits the same whoever meets it.
#[test]
fn an_unknown_revision_exits_2_from_every_command_that_takes_one() {
    let s = Setup::speckit(Evidence::Verified);
    let commands: [&[&str]; 6] = [
        &["attest", "verify", "nosuch"],
        &["attest", "verify", "--branch", "--base", "nosuch"],
        &["attest", "sign", "nosuch"],
        &["attest", "approve", "nosuch"],
        &["attest", "carry", "--from", "nosuch", "--to", "HEAD"],
        &["attest", "policy", "init", "--baseline", "nosuch"],
    ];
    for args in commands {
        let out = s.project.speccoder(&[args, &["--json"]].concat()).failure(2);
        let report: Value =
            serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"));
        assert_eq!(report["exit_code"], 2, "{args:?}");
        assert!(report["error"].as_str().unwrap().contains("unknown revision `nosuch`"), "{args:?}\n{out}");
    }
}

/// An annotated tag names the commit it tags, for every command that takes a revision of a
/// commit, as git's commands read one.
#[test]
fn an_annotated_tag_names_its_commit_for_every_command_that_takes_one() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.attest(T005, &s.evidence, &["--signer", "none"]).success();
    p.git(&["tag", "-a", "v1", "-m", "the release"]);
    let allowed = s.allowed.to_str().unwrap();
    let key = s.key.private.to_str().unwrap();
    p.speccoder(&["attest", "sign", "v1", "--key", key]).success();
    let verified = p.speccoder(&["attest", "verify", "v1", "--allowed-signers", allowed, "--json"]).success();
    let report: Value = serde_json::from_str(&verified.stdout).unwrap();
    assert_eq!(report["ticks"][0]["outcome"], "evidenced", "{verified}");
    p.speccoder(&["attest", "verify", "v1^..v1", "--allowed-signers", allowed]).success();
    p.speccoder(&["attest", "verify", "--branch", "v1", "--base", "v1^", "--allowed-signers", allowed])
        .success();
}

/// `attest sign` with no key configured has nothing to sign with: a configuration to fix (exit
/// 13, as a key that cannot sign is), with the way to configure one, and nothing written.
#[test]
fn attest_sign_without_a_key_is_a_configuration_error() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.attest(T005, &s.evidence, &["--signer", "none"]).success();
    let before = p.snapshot();
    let out = p.speccoder(&["attest", "sign"]).failure(13);
    assert!(out.stderr.contains("no signing key configured"), "{out}");
    assert!(out.stderr.contains("git config user.signingKey"), "{out}");
    assert_eq!(p.snapshot(), before);
}

#[test]
fn a_bracket_read_as_a_second_or_misspelt_story_label_is_warned_of_and_binds_no_story() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let tasks = "specs/001-bookmark-tags/tasks.md";
    let text = String::from_utf8(std::fs::read(p.root.join(tasks)).unwrap()).unwrap();
    p.write(tasks, text.replacen("T005 [US1] Implement", "T005 [US1] [US2] Implement", 1));
    p.git(&["commit", "-qam", "two labels"]);
    let out = s.attest_signed(&["--json"]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let warned = report["warnings"].to_string();
    // It says which story the tick binds, the one the published speccoder read, and what to do.
    for said in [
        "starts with `[US2]`, which reads as a story label but binds no story",
        "this tick binds the story text of US1, the line's first story label",
        "(the published speccoder read the last label, US2, as the task's story)",
        "to bind another story, untick the task in a new commit, give its line that story's `[USn]` as its only story label, and run `speccoder attest` again",
    ] {
        assert!(warned.contains(said), "{said:?} in {report:#}");
    }
    let predicate = p.note_lines("HEAD").into_iter().find_map(|l| {
        l.statement["predicateType"]
            .as_str()?
            .contains("task-verification")
            .then(|| l.statement["predicate"].clone())
    });
    assert_eq!(predicate.unwrap()["spec"]["section"], "US1", "the first label alone binds its story");
}
