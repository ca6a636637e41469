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

use output::json_asked;
pub use output::{print_help, print_json_error, usage_failed};

/// Runs one subcommand and returns its exit code (a failure if its report could not be written
/// whole: [`output::delivered`]). `started_in` is the command line's `-C DIR`
/// (the process has already changed to it), for advice that names a command to run.
pub fn run(command: Command, started_in: Option<&std::path::Path>) -> u8 {
    if let Some(code) = refuse_a_project_below_the_top(&command) {
        return output::delivered(code);
    }
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

/// A command that reads the project (`attest` and its subcommands, `accept`, `skip`, `held-out`),
/// run inside a project below the work tree's top, is refused
/// ([`speccoder_attest::spec::project_below_top`]): the published speccoder reads that project
/// there, and this one would read the top's instead. Returns the exit code when it is refused.
fn refuse_a_project_below_the_top(command: &Command) -> Option<u8> {
    use speccoder_attest::exit::ExitClass as _;
    let name = match command {
        Command::Attest(_) => "attest",
        Command::Accept(_) => "accept",
        Command::Skip(_) => "skip",
        Command::HeldOut(_) => "held-out",
        _ => return None,
    };
    let cwd = std::env::current_dir().ok()?;
    let top = speccoder_attest::git::work_tree_of(&cwd)?;
    let refused = speccoder_attest::spec::project_below_top(&cwd, &top)?;
    if json_asked() {
        print_json_error(&refused.to_string(), refused.exit_code());
    }
    output::failed(name, &refused.to_string());
    Some(refused.exit_code())
}
