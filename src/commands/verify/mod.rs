//! `speccoder attest verify`: the check ([`check`]) with its rows written as they are decided
//! ([`streamed`]).

pub(super) mod check;
mod streamed;

use std::time::Instant;

use speccoder_attest::exit::ExitClass;
use speccoder_attest::git::Repo;

use crate::cli::VerifyArgs;
use streamed::Streamed;

pub fn run(args: &VerifyArgs) -> u8 {
    let started = Instant::now();
    let fail = |code: u8, msg: String| {
        if args.json {
            super::output::print_json_error(&msg, code);
        }
        super::output::failed("attest verify", &msg);
        code
    };
    let repo = match Repo::discover_to_read(".") {
        Ok(r) => r,
        Err(e) => return fail(e.exit_code(), e.to_string()),
    };
    let prepared = match check::prepare(&repo, &args.request()) {
        Ok(p) => p,
        Err(e) => return fail(e.exit_code(), e.to_string()),
    };
    let mut out = Streamed::new(args, &repo, started);
    match prepared.run_into(&repo, &mut out) {
        Ok(()) => out.close(args, prepared.unborn.as_deref()),
        Err(e) => {
            let code = e.exit_code();
            if !out.fail(&e.to_string(), code) {
                return fail(code, e.to_string());
            }
            super::output::failed("attest verify", &e.to_string());
            code
        }
    }
}
