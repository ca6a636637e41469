//! What `speccoder attest` checks of the held-out set its evidence names before it writes
//! anything: the store holds a set under that key, written for this very task, whose files and
//! manifest still match (the reader publishing uses, [`read_set`]).

use std::path::Path;

use super::error::HeldOutError;
use super::local::{SetProblem, StoreUse, read_set, store_root};
use crate::git::Repo;

/// Checks that a store named on the command line can serve, whatever the evidence claims: a
/// `--held-out-store` that does not exist, is no directory or lies in a work tree is refused as
/// when a claim is checked there, never passed over.
///
/// # Errors
/// The store option cannot serve.
pub fn check_named_store(repo: &Repo, store: &Path) -> Result<(), HeldOutError> {
    store_root(repo, Some(store), StoreUse::Read).map(|_| ())
}

/// Checks that the store (`store`, else the default) holds the set `manifest` (`sha256:<hex>`)
/// names, written for `target` (`<unit>/<task>` as the command line names it, `unit` its unit
/// part, a checked unit name) and intact.
///
/// # Errors
/// A store option that cannot serve, and [`HeldOutError::ClaimNotStored`],
/// [`HeldOutError::ClaimOtherTask`] or [`HeldOutError::ClaimDiffers`].
pub fn check_claim(
    repo: &Repo,
    store: Option<&Path>,
    target: &str,
    unit: &str,
    manifest: &str,
) -> Result<(), HeldOutError> {
    let key = manifest.strip_prefix("sha256:").unwrap_or(manifest);
    let root = store_root(repo, store, StoreUse::Read)?;
    let set_dir = root.join(unit).join(key);
    if std::fs::symlink_metadata(&set_dir).is_err() {
        return Err(HeldOutError::ClaimNotStored {
            manifest: manifest.to_owned(),
            store: root,
            target: target.to_owned(),
        });
    }
    let set = read_set(&set_dir, key, unit).map_err(|problem| HeldOutError::ClaimDiffers {
        manifest: manifest.to_owned(),
        path: set_dir.clone(),
        target: target.to_owned(),
        message: match problem {
            SetProblem::Invalid(m) | SetProblem::Tampered(m) => m,
        },
    })?;
    if set.task != target {
        return Err(HeldOutError::ClaimOtherTask {
            manifest: manifest.to_owned(),
            written_for: set.task,
            target: target.to_owned(),
        });
    }
    Ok(())
}
