//! `speccoder held-out store` and `speccoder held-out publish`.

use std::path::Path;

use speccoder_attest::attest::held_out::{self, HeldOutError, PublishReport, PublishRequest, StoreRequest};
use speccoder_attest::exit;
use speccoder_attest::git::Repo;
use speccoder_attest::model::shown::one_line_path;

use super::output::finish;
use crate::cli::HeldOutSub;

pub fn run(sub: HeldOutSub) -> u8 {
    match sub {
        HeldOutSub::Store(args) => {
            let repo = Repo::discover(".").map_err(HeldOutError::from);
            if let Err(code) =
                refuse_unnamable_store("held-out store", args.json, &repo, args.store.as_deref())
            {
                return code;
            }
            let result = repo.and_then(|repo| {
                let req =
                    StoreRequest { target: args.target, dir: args.source, run: args.run, store: args.store };
                held_out::store(&repo, &req)
            });
            if let Ok(report) = &result
                && !args.json
            {
                let what = if report.already_stored { "already stored" } else { "stored" };
                let plural = if report.files == 1 { "" } else { "s" };
                super::output::to_stderr(format_args!(
                    "{what}: {} file{plural} of {} in {}",
                    report.files,
                    report.target,
                    one_line_path(&report.set_dir)
                ));
            }
            finish("held-out store", args.json, result, |_| exit::OK)
        }
        HeldOutSub::Publish(args) => {
            let repo = Repo::discover(".").map_err(HeldOutError::from);
            if let Err(code) =
                refuse_unnamable_store("held-out publish", args.json, &repo, args.store.as_deref())
            {
                return code;
            }
            let result = repo.and_then(|repo| {
                let req = PublishRequest {
                    unit: args.unit,
                    store: args.store,
                    dry_run: args.dry_run,
                    trust: super::trust::trust_files(&args.trust),
                    signature_time: super::trust::signature_time(&args.trust),
                };
                held_out::publish(&repo, &req)
            });
            finish("held-out publish", args.json, result, PublishReport::exit_code)
        }
    }
}

/// With `--json`, refuses a store whose path the report would name and cannot, before anything is
/// done ([`super::output::refuse_unnamable_paths`]); a set's directory in it adds only a unit's
/// name and a digest, which are UTF-8.
fn refuse_unnamable_store(
    command: &str,
    json: bool,
    repo: &Result<Repo, HeldOutError>,
    given: Option<&Path>,
) -> Result<(), u8> {
    match repo {
        Ok(repo) if json => {
            super::output::refuse_unnamable_paths(command, json, &[held_out::store_path(repo, given)])
        }
        _ => Ok(()),
    }
}
