//! The verifier's trust: whose signatures the caller trusts ([`SignatureTrust`], on the floor,
//! shared with `attest carry`), and how the verifier applies it and counts ticks.

use crate::check::trust::SignatureTrust;

/// Everything the caller trusts, and how they want it applied.
#[derive(Debug, Default)]
pub struct Trust {
    /// Whose signatures hold, and how they are checked.
    pub signers: SignatureTrust,
    /// Unsigned lines count as holding (and the report says they were accepted unsigned).
    pub accept_unsigned: bool,
    /// `regression_only` and `attested` ticks fail too.
    pub require_verified: bool,
    /// How many threads check task commits (`None`: one per core, at most 8).
    pub jobs: Option<std::num::NonZeroUsize>,
    /// The time at which SSH validity windows and certificates are checked.
    pub signature_time: SignatureTime,
}

/// The time at which an SSH signature's key must be trusted: its `valid-after`/`valid-before`
/// window and its certificate's validity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SignatureTime {
    /// Each task commit's committer date, as `git verify-commit` checks. The signer chose that
    /// date, so a retired key or an expired certificate still signs by backdating the commit.
    #[default]
    Commit,
    /// This one time, the time of verification: what a CI gate wants.
    Now(time::OffsetDateTime),
}

impl Trust {
    /// What the report should warn of: a Sigstore root older than wanted, used because the
    /// refresh failed.
    #[must_use]
    pub fn warnings(&self) -> Vec<String> {
        self.signers.warnings()
    }

    /// Why the trust failed while verifying (a Sigstore root that could not be had): then the
    /// run has no verdict.
    #[must_use]
    pub fn failure(&self) -> Option<String> {
        self.signers.failure()
    }
}
