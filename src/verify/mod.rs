//! The verifier wing: reads what `speccoder attest` writes (and whatever a careless or hostile
//! writer could write instead) and says precisely what holds, against the caller's own trust. It
//! stands on the model, the spec formats, the repository adapter and the signers, and never on
//! the producer.

pub mod bugs;
pub mod bundle;
pub mod commit;
pub mod decisions;
pub mod outcome;
pub mod report;
pub mod run;
pub mod signatures;
#[cfg(feature = "sigstore")]
pub mod sigstore_trust;
pub mod trust;
pub mod unread;

pub use run::{BranchOptions, VerifyError, verify_branch, verify_commits};
