//! The `speccoder` binary: parse the command line, run, map the outcome to an exit code.

#![forbid(unsafe_code)]

mod cli;
mod commands;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    if let Some(dir) = &cli.dir
        && let Err(e) = std::env::set_current_dir(dir)
    {
        eprintln!("speccoder: cannot change to {}: {e}", dir.display());
        return ExitCode::from(speccoder_attest::exit::USAGE);
    }
    ExitCode::from(commands::run(cli.command))
}
