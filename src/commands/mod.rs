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
                println!("{}", serde_json::to_string(&report).unwrap_or_default());
            } else {
                // Rendered whole, then printed: printed piece by piece, line-buffered stdout
                // makes one write per line, and a reader on a pipe wakes up for each.
                let text = report.to_string();
                print!("{text}");
            }
            code(&report)
        }
        Err(e) => {
            let exit_code = error_code(&e);
            if json {
                println!("{}", serde_json::json!({ "error": e.to_string(), "exit_code": exit_code }));
            }
            eprintln!("speccoder {command}: {e}");
            exit_code
        }
    }
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
