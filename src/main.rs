//! The `speccoder` binary: parse the command line, run, map the outcome to an exit code.

#![forbid(unsafe_code)]

mod cli;
mod commands;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

fn main() -> ExitCode {
    speccoder_attest::git::remove_locks_on_interrupt();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        // Help and the version are no failures; every other parse error is a usage error.
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) => {
            let rendered = e.render().to_string();
            usage_error_as_json(&rendered);
            let _ = e.print();
            return ExitCode::from(speccoder_attest::exit::USAGE);
        }
    };
    if let Some(dir) = &cli.dir
        && let Err(e) = std::env::set_current_dir(dir)
    {
        let message = format!("cannot change to {}: {e}", dir.display());
        usage_error_as_json(&message);
        eprintln!("speccoder: {message}");
        return ExitCode::from(speccoder_attest::exit::USAGE);
    }
    ExitCode::from(commands::run(cli.command, cli.dir.as_deref()))
}

/// A command line that asked for `--json` and could not be run gets its one JSON object on stdout
/// too, `{"error", "exit_code"}`, as every other failure does: a machine reading stdout is never
/// left with nothing. The message is the error's first paragraph, without clap's `error: `.
fn usage_error_as_json(message: &str) {
    let asked = std::env::args_os().skip(1).take_while(|arg| arg != "--").any(|arg| arg == "--json");
    if !asked {
        return;
    }
    let text = message.split("\n\n").next().unwrap_or(message).trim();
    let text = text.strip_prefix("error: ").unwrap_or(text);
    commands::print_json_error(text, speccoder_attest::exit::USAGE);
}
