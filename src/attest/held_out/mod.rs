//! Held-out sets: `speccoder held-out store` puts a set into the local store, and
//! `speccoder held-out publish` publishes the sets that closed tasks name.
//!
//! The store lives outside the work tree (default `<git common dir>/speccoder/held-out/`), so the
//! implementer never sees the tests. A set is `<store>/<unit>/<key>/manifest.json` plus
//! `<store>/<unit>/<key>/files/...`, where `<key>` is the manifest's sha256 (hex).
//!
//! Publishing reads every closed task on HEAD (a reachable commit that is one plain claim of
//! `verified` or `regression_only`, its task's box ticked at HEAD), takes the manifest digests it names (its held_out test-result line, its `Held-Out:`
//! trailer), checks each named local set against its manifest, and writes one commit per unit to
//! `refs/speccoder/held-out/<unit>` whose tree holds every published set as `<key>/manifest.json`
//! and `<key>/files/...`. The ref only moves forward: a new commit's tree is the old tree plus
//! the new sets, written by compare-and-swap and retried when another publisher moved it first.
//! A manifest that is not valid or names a path outside its set stops the command before anything
//! is written; a set whose bytes no longer match its manifest is named as tampered and left out.
//!
//! Storing and publishing share what lies in `local.rs`: the local store (its root, refused
//! inside the work tree, and its bounds) and a stored set read back and checked against its
//! manifest. Neither command's file imports the other's.

mod claim;
mod error;
mod local;
mod publish;
mod store;

pub use claim::{check_claim, check_named_store};
pub use error::HeldOutError;
pub use local::{MAX_FILE_BYTES, MAX_MANIFEST_BYTES, MAX_SET_FILES, StoreProblem, default_store, store_path};
pub use publish::{LeftOut, PublishReport, PublishRequest, SetInfo, UnitPublish, publish};
pub use store::{StoreReport, StoreRequest, store};
