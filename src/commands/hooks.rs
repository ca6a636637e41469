//! `speccoder hooks install`.

use speccoder_attest::attest::hooks::{self, HookError};
use speccoder_attest::git::Repo;

use crate::cli::HooksSub;

pub fn run(sub: &HooksSub) -> u8 {
    match sub {
        HooksSub::Install(args) => {
            let result = Repo::discover(".").map_err(HookError::from).and_then(|repo| {
                // The hook runs this very program; a copy on PATH when it has moved since.
                let program = std::env::current_exe().and_then(std::fs::canonicalize).ok();
                hooks::install(&repo, program.as_deref())
            });
            super::output::finish("hooks install", args.json, result, |_| speccoder_attest::exit::OK)
        }
    }
}
