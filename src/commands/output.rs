//! How a command's result reaches the user: its report on stdout (text, or JSON with `--json`),
//! its failure on stderr, and its exit code. A reader that went away (`speccoder ... | head`)
//! ends the output quietly: the exit code still tells how the command went.

use std::io::Write as _;

use speccoder_attest::exit::ExitClass;
use speccoder_attest::model::shown::{ci_safe, terminal_safe};

/// Prints a command's result (`--json`: one JSON object, carrying the exit code as
/// [`print_json_report`] adds it; otherwise its Display) and returns its exit code; a failure goes
/// to stderr as `speccoder <command>: <message>` (and to stdout as `{"error", "exit_code"}` with
/// `--json`).
pub(crate) fn finish<R, E>(command: &str, json: bool, result: Result<R, E>, code: impl Fn(&R) -> u8) -> u8
where
    R: serde::Serialize + std::fmt::Display,
    E: std::fmt::Display + ExitClass,
{
    match result {
        Ok(report) => {
            let exit_code = code(&report);
            if json {
                print_json_report(&report, exit_code);
            } else {
                to_stdout_text(&report.to_string());
            }
            exit_code
        }
        Err(e) => {
            let exit_code = e.exit_code();
            if json {
                print_json_error(&e.to_string(), exit_code);
            }
            let message = e.to_string();
            to_stderr(format_args!("speccoder {command}: {message}"));
            if message.contains("`git ")
                && let Some(top) = work_tree_top_above_cwd()
            {
                to_stderr(format_args!(
                    "  (the paths above are from the top of the work tree: run those git commands in {})",
                    top.display()
                ));
            }
            exit_code
        }
    }
}

/// The top of the work tree the current directory is below (not at): where the repository paths
/// in a message, and the git commands it advises with them, hold, as git's own paths do not
/// (git shows paths from the current directory).
fn work_tree_top_above_cwd() -> Option<std::path::PathBuf> {
    let repo = speccoder_attest::git::Repo::discover(".").ok()?;
    let top = std::fs::canonicalize(repo.workdir()?).ok()?;
    let cwd = std::env::current_dir().ok()?.canonicalize().ok()?;
    (cwd != top && cwd.starts_with(&top)).then_some(top)
}

/// Prints a report as the one JSON object `--json` promises, with `exit_code` (the process's exit
/// code) added beside its own fields: a machine reading stdout learns how the command went from
/// the object alone, whether it is a report (a tick that does not hold: 26) or a failure
/// ([`print_json_error`]).
pub(crate) fn print_json_report<R: serde::Serialize>(report: &R, exit_code: u8) {
    /// The report's own fields, in their order, then `exit_code`.
    #[derive(serde::Serialize)]
    struct WithExitCode<'a, R> {
        #[serde(flatten)]
        report: &'a R,
        exit_code: u8,
    }
    let json = serde_json::to_string(&WithExitCode { report, exit_code }).unwrap_or_default();
    to_stdout(format_args!("{json}"));
}

/// Prints a failure as the one JSON object `--json` promises: `{"error": …, "exit_code": …}`.
pub fn print_json_error(message: &str, exit_code: u8) {
    to_stdout(format_args!("{}", serde_json::json!({ "error": message, "exit_code": exit_code })));
}

/// Writes one line to stdout.
pub(crate) fn to_stdout(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Writes the human-readable `text` to stdout, as it may reach a terminal or a CI log
/// ([`ci_safe`]).
pub(crate) fn to_stdout_text(text: &str) {
    let _ = std::io::stdout().lock().write_all(ci_safe(text).as_bytes());
}

/// Writes GitHub workflow commands (`attest verify --github`, whose report between them is fenced
/// off by `::stop-commands::`) to stdout, as they may reach a terminal ([`terminal_safe`]).
pub(crate) fn to_stdout_workflow(text: &str) {
    let _ = std::io::stdout().lock().write_all(terminal_safe(text).as_bytes());
}

/// Writes one line to stderr, as it may reach a terminal or a CI log ([`ci_safe`]).
pub(crate) fn to_stderr(line: std::fmt::Arguments<'_>) {
    let line = line.to_string();
    let _ = writeln!(std::io::stderr().lock(), "{}", ci_safe(&line));
}
