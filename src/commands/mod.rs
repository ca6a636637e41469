//! One function per subcommand: each turns its arguments into library calls and its result into
//! an exit code, printing what the user needs to know.

mod attest;
mod decide;
mod export;
mod held_out;
mod hooks;
mod output;
mod policy;
mod progress;
mod schema;
mod signing;
#[cfg(feature = "sigstore")]
mod sigstore;
mod team;
mod trust;
mod verify;

use crate::cli::Command;

pub use output::{print_help, print_json_error};

/// Runs one subcommand and returns its exit code (a failure if its report could not be written
/// whole: [`output::delivered`]). `started_in` is the command line's `-C DIR`
/// (the process has already changed to it), for advice that names a command to run.
pub fn run(command: Command, started_in: Option<&std::path::Path>) -> u8 {
    let code = match command {
        Command::Schema(args) => schema::run(&args, started_in),
        Command::Attest(args) => attest::run(*args),
        Command::Accept(args) => decide::accept(&args),
        Command::Skip(args) => decide::skip(&args),
        Command::HeldOut(sub) => held_out::run(sub),
        Command::Hooks(sub) => hooks::run(&sub),
        #[cfg(feature = "sigstore")]
        Command::Sigstore(sub) => sigstore::run(&sub),
    };
    output::delivered(code)
}
