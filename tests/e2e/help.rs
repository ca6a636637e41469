//! What `--help` says of exit codes is what the documentation says: every command's `--help` ends
//! its description with an `Exit codes:` paragraph, and docs/cli.md's section on that command holds
//! the same paragraph; `speccoder --help` ends with the codes every command shares, which
//! docs/cli.md and README list in the same words. Compared word for word, code spans and line
//! breaks aside (Markdown marks the one and wraps the other), so that a change made to one and not
//! to the other fails here. The commands are found by walking `--help` itself: a new subcommand
//! without its paragraph, or without its section, fails too.

use crate::common;

use std::collections::BTreeMap;

/// `text` without code-span backticks, its whitespace runs as single spaces.
fn normalized(text: &str) -> String {
    text.replace('`', "").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The paragraph of `text` that starts with `Exit codes`, normalized; `None` when there is none.
#[track_caller]
fn exit_codes(text: &str) -> Option<String> {
    let mut found = text.split("\n\n").map(str::trim).filter(|p| p.starts_with("Exit codes"));
    let first = found.next().map(normalized);
    assert!(found.next().is_none(), "one exit-code paragraph, not several:\n{text}");
    first
}

/// `speccoder <path> --help`.
fn help(path: &[String]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let run = common::run(common::speccoder_command(dir.path(), dir.path(), &args)).success();
    run.stdout
}

/// The subcommands `help` lists under `Commands:` (clap's own `help` left out).
fn subcommands(help: &str) -> Vec<String> {
    let Some((_, listed)) = help.split_once("\nCommands:\n") else { return Vec::new() };
    listed
        .lines()
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// Every command path and its `--help`, from `speccoder` down.
fn every_help() -> BTreeMap<Vec<String>, String> {
    let mut found = BTreeMap::new();
    let mut pending = vec![Vec::new()];
    while let Some(path) = pending.pop() {
        let text = help(&path);
        for sub in subcommands(&text) {
            pending.push([path.clone(), vec![sub]].concat());
        }
        found.insert(path, text);
    }
    found
}

/// docs/cli.md's sections (`## ` headings) by the command they describe: the heading's words after
/// `speccoder` up to the first argument, option or placeholder (`attest verify [REV | A..B] ...`
/// is `attest verify`).
fn doc_sections(markdown: &str) -> BTreeMap<String, String> {
    markdown
        .split("\n## ")
        .skip(1)
        .filter_map(|section| {
            let heading = section.lines().next()?.strip_prefix("`speccoder ")?;
            let words: Vec<&str> = heading
                .split(['`', ' '])
                .take_while(|w| {
                    !w.is_empty()
                        && !w.starts_with(['<', '[', '-', '|'])
                        && !w.starts_with(char::is_uppercase)
                })
                .collect();
            Some((words.join(" "), section.to_owned()))
        })
        .collect()
}

#[test]
fn every_commands_help_lists_the_exit_codes_docs_cli_md_lists_for_it() {
    let root = common::crate_root();
    let markdown = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    let sections = doc_sections(&markdown);
    let mut compared = Vec::new();
    for (path, text) in every_help() {
        let name = path.join(" ");
        let Some(listed) = exit_codes(&text) else {
            assert!(!subcommands(&text).is_empty(), "`speccoder {name} --help` lists no exit codes:\n{text}");
            continue;
        };
        if path.is_empty() {
            continue;
        }
        let section = sections.get(&name).unwrap_or_else(|| panic!("docs/cli.md has no section on `{name}`"));
        assert_eq!(
            exit_codes(section).as_deref(),
            Some(listed.as_str()),
            "`speccoder {name}`: docs/cli.md, then --help"
        );
        compared.push(name);
    }
    for command in ["attest", "attest verify", "attest carry", "held-out store", "hooks install", "schema"] {
        assert!(compared.iter().any(|c| c == command), "{command} was compared: {compared:?}");
    }
    let extra: Vec<&String> = sections.keys().filter(|name| !compared.contains(name)).collect();
    assert!(extra.is_empty(), "docs/cli.md describes commands --help does not list: {extra:?}");
}

#[test]
fn the_shared_exit_codes_read_the_same_in_help_docs_cli_md_and_readme() {
    let root = common::crate_root();
    let listed = exit_codes(&help(&[])).expect("`speccoder --help` lists the shared exit codes");
    assert!(listed.starts_with("Exit codes, shared with"), "{listed}");
    for doc in ["docs/cli.md", "README.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        let shared = text.split("\n\n").map(str::trim).find(|p| p.starts_with("Exit codes, shared with"));
        assert_eq!(shared.map(normalized).as_deref(), Some(listed.as_str()), "{doc}");
    }
}

#[test]
fn a_value_that_starts_with_a_dash_after_its_option_gets_a_tip_that_works_never_clap_s_double_dash() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["accept", "001-x/T001", "--reason", "-x", "--signer", "none"];
    let out = common::run(common::speccoder_command(dir.path(), dir.path(), &args)).failure(2);
    assert!(out.stderr.contains("tip: to give '-x' as the value of --reason, write '--reason=-x'"), "{out}");
    assert!(!out.stderr.contains("use '-- -x'"), "{out}");
    // A word of several letters, which clap names by its first (`-d`): the tip gives the word.
    let args = ["accept", "001-x/T001", "--reason", "-dash", "--signer", "none"];
    let out = common::run(common::speccoder_command(dir.path(), dir.path(), &args)).failure(2);
    assert!(
        out.stderr.contains("tip: to give '-dash' as the value of --reason, write '--reason=-dash'"),
        "{out}"
    );
    assert!(!out.stderr.contains("'-- -d'"), "{out}");
    // A flag that takes no value keeps clap's own tip.
    let args = ["attest", "verify", "--json", "-x"];
    let out = common::run(common::speccoder_command(dir.path(), dir.path(), &args)).failure(2);
    assert!(!out.stderr.contains("as the value of"), "{out}");
}

#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_beside_an_unknown_one_is_a_usage_error_never_a_panic() {
    use std::os::unix::ffi::OsStrExt as _;
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = common::speccoder_command(
        dir.path(),
        dir.path(),
        &["accept", "001-x/T001", "--reason", "-x", "--by"],
    );
    cmd.arg(std::ffi::OsStr::from_bytes(b"\xff"));
    let out = common::run(cmd).failure(2);
    assert!(out.stderr.contains("tip: to give '-x' as the value of --reason, write '--reason=-x'"), "{out}");
    assert!(!out.stderr.contains("panicked"), "{out}");
}

#[test]
fn a_base_or_all_beside_a_revision_is_a_usage_error_that_says_they_go_with_branch() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["attest", "verify", "HEAD", "--all"][..],
        &["attest", "verify", "HEAD~2..HEAD", "--base", "main"],
        &["attest", "export", "HEAD", "--all", "--out", "pack", "--vsa-key", "key"],
    ] {
        let out = common::run(common::speccoder_command(dir.path(), dir.path(), args)).failure(2);
        assert!(out.stderr.contains("--base and --all go with --branch"), "{args:?}: {out}");
    }
    // `--to` requires `--from`, which `--rewritten` excludes: refused, never `--rewritten` alone.
    let args = ["attest", "carry", "--to", "HEAD", "--rewritten"];
    let out = common::run(common::speccoder_command(dir.path(), dir.path(), &args)).failure(2);
    assert!(out.stderr.contains("'--to <NEW>' cannot be used with '--rewritten'"), "{out}");
}

#[test]
fn a_value_holding_a_line_break_or_a_bidi_control_is_quoted_in_a_usage_error_on_stderr_and_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| common::run(common::speccoder_command(dir.path(), dir.path(), args)).failure(2);
    for args in [
        &["attest", "verify", "--jobs", "1\n::error title=x::every tick holds"][..],
        &["attest", "verify", "HEAD", "feat\u{202e}\n::warning::pwn"],
        &["-C", "/nonexistent\n::error::from -C", "attest", "verify"],
        &["attest", "verify", "--signature-time", "x\n::add-mask::y", "--json"],
    ] {
        let out = run(args);
        assert!(!out.stderr.lines().any(|l| l.trim_start().starts_with("::")), "{args:?}: {out}");
        assert!(!out.stderr.contains('\u{202e}'), "{args:?}: {out}");
    }
    let out = run(&["attest", "verify", "HEAD", "feat\u{202e}x", "--json"]);
    assert!(out.stderr.contains("feat\\u{202e}x"), "{out}");
    let said = common::inert_failure(&out);
    assert!(said.contains("feat\\u{202e}x"), "{said}");
    let out = run(&["attest", "verify", "--signature-time", "x\n::add-mask::y", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let error = report["error"].as_str().unwrap();
    assert!(!error.contains('\n') && error.contains("'x\\n::add-mask::y'"), "one line: {error:?}");
}
