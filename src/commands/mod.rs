//! One function per subcommand: each turns its arguments into library calls and its result into
//! an exit code, printing what the user needs to know.

mod attest;
mod decide;
mod held_out;
mod schema;
#[cfg(feature = "sigstore")]
mod sigstore;
mod verify;

use crate::cli::Command;

/// Prints a command's result (`--json`: one JSON object; otherwise its Display) and returns its
/// exit code; a failure goes to stderr as `speccoder <command>: <message>` (and to stdout as
/// `{"error", "exit_code"}` with `--json`).
pub(crate) fn finish<R, E>(
    command: &str,
    json: bool,
    result: Result<R, E>,
    code: impl Fn(&R) -> u8,
    error_code: impl Fn(&E) -> u8,
) -> u8
where
    R: serde::Serialize + std::fmt::Display,
    E: std::fmt::Display,
{
    match result {
        Ok(report) => {
            if json {
                crate::commands::to_stdout(format_args!(
                    "{}",
                    serde_json::to_string(&report).unwrap_or_default()
                ));
            } else {
                let text = report.to_string();
                crate::commands::to_stdout_raw(&text);
            }
            code(&report)
        }
        Err(e) => {
            let exit_code = error_code(&e);
            if json {
                crate::commands::to_stdout(format_args!(
                    "{}",
                    serde_json::json!({ "error": e.to_string(), "exit_code": exit_code })
                ));
            }
            crate::commands::to_stderr(format_args!("speccoder {command}: {e}"));
            exit_code
        }
    }
}

/// Writes one line to stdout. A reader that went away (`speccoder ... | head`) ends the output
/// quietly: the exit code still tells how the command went.
pub(crate) fn to_stdout(line: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Writes `text` to stdout as it is, quietly when the reader went away (as [`to_stdout`]).
pub(crate) fn to_stdout_raw(text: &str) {
    use std::io::Write as _;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Writes one line to stderr, quietly when nobody reads it any more.
pub(crate) fn to_stderr(line: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Runs one subcommand and returns its exit code.
pub fn run(command: Command) -> u8 {
    match command {
        Command::Schema(args) => schema::run(&args),
        Command::Attest(args) => attest::run(*args),
        Command::Accept(args) => decide::accept(&args),
        Command::Skip(args) => decide::skip(&args),
        Command::HeldOut(sub) => held_out::run(sub),
        #[cfg(feature = "sigstore")]
        Command::Sigstore(sub) => sigstore::run(&sub),
    }
}
