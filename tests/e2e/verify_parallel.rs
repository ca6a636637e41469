//! `attest verify` shares the task commits among threads when there are many: the report must be
//! the same, byte for byte, whatever the number of threads, with good and bad ticks mixed.
//!
//! The repository is made by the bench's generator (`examples/bench_synth.rs`, included here as a
//! module and run in-process): 80 ticks in 8 units, each signed as `speccoder attest` signs, then
//! packed by `git gc`. A few notes are then broken with `git notes`. On a terminal, both checks
//! that read it, `attest verify` and `attest export`, draw their progress on stderr.

use crate::common;

#[path = "../../examples/bench_synth.rs"]
#[allow(dead_code)]
mod bench_synth;

use std::path::{Path, PathBuf};

use common::{Run, git_command, run, speccoder_command};
use serde_json::Value;

const TICKS: usize = 80;

/// A synthetic repository of `TICKS` signed ticks in `dir`; returns (repo, allowed_signers).
fn synthetic(dir: &Path) -> (PathBuf, PathBuf) {
    let out = dir.join("synth");
    let args = bench_synth::Args { ticks: TICKS, units: None, out: out.clone(), pack: true };
    if let Err(e) = bench_synth::generate(&args) {
        panic!("the synthetic repository could not be made: {e}");
    }
    (out.join("repo"), out.join("allowed_signers"))
}

fn verify(repo: &Path, home: &Path, allowed: &Path, jobs: Option<&str>) -> Run {
    let mut args = vec![
        "attest",
        "verify",
        "--branch",
        "--all",
        "--json",
        "--allowed-signers",
        allowed.to_str().unwrap(),
    ];
    if let Some(jobs) = jobs {
        args.extend(["--jobs", jobs]);
    }
    run(speccoder_command(repo, home, &args))
}

fn git(repo: &Path, home: &Path, args: &[&str]) -> String {
    run(git_command(repo, home, args)).success().stdout
}

#[test]
fn the_report_is_the_same_on_one_thread_and_on_many() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let (repo, allowed) = synthetic(dir.path());

    // Break three ticks in three ways: a note removed, a note replaced by another commit's, and a
    // note whose second line is cut short.
    let commits: Vec<String> =
        git(&repo, &home, &["log", "--format=%H", "--grep=^Spec-Task:"]).lines().map(str::to_owned).collect();
    assert_eq!(commits.len(), TICKS);
    let (removed, moved, cut) = (&commits[7], &commits[70], &commits[75]);
    git(&repo, &home, &["notes", "--ref=speccoder", "remove", removed]);
    git(&repo, &home, &["notes", "--ref=speccoder", "copy", "-f", &commits[71], moved]);
    let note = git(&repo, &home, &["notes", "--ref=speccoder", "show", cut]);
    let mut lines: Vec<&str> = note.lines().collect();
    lines[1] = &lines[1][..lines[1].len() / 2];
    let cut_note = dir.path().join("cut-note");
    std::fs::write(&cut_note, lines.join("\n") + "\n").unwrap();
    git(&repo, &home, &["notes", "--ref=speccoder", "add", "-f", "-F", cut_note.to_str().unwrap(), cut]);

    let one = verify(&repo, &home, &allowed, Some("1")).failure(26);
    // stderr is not a terminal here: no progress line, however long the check took.
    assert!(one.stderr.is_empty(), "{}", one.stderr);
    for jobs in [Some("3"), None] {
        let many = verify(&repo, &home, &allowed, jobs).failure(26);
        assert!(one.stdout == many.stdout, "--jobs {jobs:?} reports otherwise than --jobs 1");
    }

    let report: Value = serde_json::from_str(&one.stdout).unwrap();
    let ticks = report["ticks"].as_array().unwrap();
    assert_eq!(ticks.len(), TICKS);
    let outcome_of = |commit: &str| {
        let tick =
            ticks.iter().find(|t| t["commit"] == commit).unwrap_or_else(|| panic!("no row for {commit}"));
        (tick["outcome"].as_str().unwrap().to_owned(), tick["reason"].as_str().unwrap_or("").to_owned())
    };
    assert_eq!(outcome_of(removed), ("unverifiable".to_owned(), "missing".to_owned()));
    assert_eq!(outcome_of(moved), ("unverifiable".to_owned(), "mismatch".to_owned()));
    assert_eq!(outcome_of(cut), ("unverifiable".to_owned(), "malformed".to_owned()));
    let evidenced = ticks.iter().filter(|t| t["outcome"] == "evidenced").count();
    assert_eq!(evidenced, TICKS - 3, "{}", one.stdout);
}

#[test]
fn a_thread_count_outside_1_to_256_is_a_usage_error_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    for jobs in ["0", "257", "many"] {
        let out =
            run(speccoder_command(dir.path(), dir.path(), &["attest", "verify", "--jobs", jobs])).failure(2);
        assert!(out.stderr.contains("--jobs"), "{out}");
    }
}

/// A synthetic repository as [`synthetic`] makes it, with a home, for runs on a terminal.
struct TerminalRun {
    dir: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
    allowed: PathBuf,
}

impl TerminalRun {
    /// `None` (the test is skipped) without `script`.
    fn new() -> Option<Self> {
        if which("script").is_none() {
            eprintln!(
                "SKIPPED: script (util-linux) is not installed, so no terminal can be given to the run"
            );
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let (repo, allowed) = synthetic(dir.path());
        Some(TerminalRun { dir, home, repo, allowed })
    }

    /// What a terminal shows of `speccoder <args>` (stdout and stderr: `script` gives the run a
    /// terminal and copies what it shows to its own stdout), its progress shown `when`.
    fn shown(&self, args: &str, when: Shown) -> String {
        let command = format!("'{}' {args}", common::speccoder_bin().display());
        let mut on_terminal = common::binary_command(
            Path::new("script"),
            &self.repo,
            &self.home,
            &["-qec", &command, "/dev/null"],
        );
        // A terminal that moves the cursor, as a person's does (without TERM, nothing is drawn).
        on_terminal.env("TERM", "xterm");
        let after_ms = match when {
            Shown::AtOnce => "0",
            Shown::Never => "3600000",
        };
        on_terminal.env("SPECCODER_PROGRESS_AFTER_MS", after_ms);
        run(on_terminal).success().stdout
    }
}

/// When a run's progress is shown: at once, or never within a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    AtOnce,
    Never,
}

#[test]
fn a_check_shows_its_progress_on_a_terminal_when_it_runs_long_and_its_report_unchanged() {
    let Some(t) = TerminalRun::new() else { return };
    let piped = verify(&t.repo, &t.home, &t.allowed, Some("1")).success();
    let args =
        format!("attest verify --branch --all --json --jobs 1 --allowed-signers '{}'", t.allowed.display());
    for when in [Shown::AtOnce, Shown::Never] {
        let shown = t.shown(&args, when);
        let drawn = shown.contains(&format!(" of {TICKS} ticks"));
        assert_eq!(drawn, when == Shown::AtOnce, "{when:?}: {shown}");
        // Whatever was drawn, stdout's JSON is the same object: the progress went to stderr, and
        // was taken away before the report's end.
        let json_start = shown.find("{\"mode\"").unwrap_or_else(|| panic!("no report: {shown}"));
        let report: String =
            shown[json_start..].chars().filter(|c| *c != '\r').take_while(|c| *c != '\n').collect();
        let printed: Value = serde_json::from_str(&report).unwrap_or_else(|e| panic!("{e}: {report}"));
        let piped: Value = serde_json::from_str(&piped.stdout).unwrap();
        assert_eq!(printed, piped);
    }
}

#[test]
fn an_export_shows_its_progress_on_a_terminal_and_clears_it_before_its_summary() {
    let Some(t) = TerminalRun::new() else { return };
    let key = t.dir.path().join("vsa-key");
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "vsa", "-f"])
        .arg(&key)
        .status()
        .unwrap();
    assert!(made.success());
    for when in [Shown::AtOnce, Shown::Never] {
        let pack = t.dir.path().join(format!("pack-{when:?}"));
        let shown = t.shown(
            &format!(
                "attest export --branch --all --jobs 1 --allowed-signers '{}' --vsa-key '{}' --out '{}'",
                t.allowed.display(),
                key.display(),
                pack.display()
            ),
            when,
        );
        let exported = shown.find("exported ").unwrap_or_else(|| panic!("no pack: {shown}"));
        let (during, after) = shown.split_at(exported);
        if when == Shown::AtOnce {
            assert!(during.contains(&format!(" of {TICKS} ticks")), "{shown}");
            // Taken away (carriage return, erase the line) before the export says what it wrote.
            assert!(during.ends_with("\r\u{1b}[2K"), "{shown:?}");
        } else {
            assert!(!during.contains(" ticks"), "never drawn: {shown}");
        }
        assert!(!after.contains(&format!(" of {TICKS} ticks")), "no progress after the check: {shown}");
        assert_eq!(files_in(&pack), TICKS + 3, "the notes, the head commit and the summary's two files");
    }
}

/// How many files `dir` holds.
fn files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

/// Where `program` is on `PATH`.
fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(program)).find(|p| p.is_file())
}
