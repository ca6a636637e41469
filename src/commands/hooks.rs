//! `speccoder hooks install`.

use speccoder_attest::attest::hooks::{self, HookError};
use speccoder_attest::git::Repo;

use crate::cli::HooksSub;

pub fn run(sub: &HooksSub) -> u8 {
    match sub {
        HooksSub::Install(args) => {
            // The hook runs this very program; a copy on PATH when it has moved since.
            let program = std::env::current_exe().and_then(std::fs::canonicalize).ok();
            let repo = Repo::discover(".").map_err(HookError::from);
            // With `--json`, a path the report would name that is not UTF-8 is refused first.
            if args.json
                && let Ok(repo) = &repo
                && let Ok(paths) = hooks::named_paths(repo, program.as_deref())
                && let Err(code) = super::output::refuse_unnamable_paths("hooks install", args.json, &paths)
            {
                return code;
            }
            let result = repo.and_then(|repo| hooks::install(&repo, program.as_deref()));
            super::output::finish("hooks install", args.json, result, |_| speccoder_attest::exit::OK)
        }
    }
}
