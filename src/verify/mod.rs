//! The verifier wing: reads what `speccoder attest` writes (and whatever a careless or hostile
//! writer could write instead) and says precisely what holds, against the caller's own trust. It
//! stands on the model, the spec formats, the repository adapter, the signers and the rules of
//! agreement ([`crate::check`]), and never on the producer.
//!
//! From the bottom up: [`trust`] (the caller's trust in signers, [`crate::check::trust`], and how
//! the verifier applies it); [`commit`] (one task commit: its note, its signatures, the rules of
//! agreement); [`report`] (a row per tick, built from a commit's report, and the renderings);
//! [`decisions`] and [`bugs`] (the rows of skips and closed bug tasks); [`rewritten`] (evidence a
//! rebase left on commits the branch no longer holds); [`box_setters`] (which commit set each
//! box the head ticks); [`drift`] (a cited requirement or a bug's triad worded otherwise at the
//! head); [`run`] (over commits or a branch). [`completeness`] says what a clone lacks (shallow history, unfetched notes) and fills
//! in a partial clone; [`github`] renders a report as GitHub workflow commands. [`policy`] judges
//! the rows by the caller's verifier policy. [`error`] is why a run could not happen at all.
//! [`held`] is what `attest export` takes of a report that holds. `held_out` checks the
//! published copy of a held-out set a tick names.

mod ancestry;
mod box_setters;
pub mod bugs;
pub mod commit;
pub mod completeness;
pub mod decisions;
mod drift;
pub mod error;
pub mod github;
pub mod held;
mod held_out;
mod parallel;
pub mod policy;
pub mod render;
pub mod report;
pub mod rewritten;
pub mod run;
pub mod trust;
pub mod unread;

pub use error::VerifyError;
pub use run::{
    BranchOptions, Checked, verify_branch, verify_branch_into, verify_commits, verify_commits_into,
};
