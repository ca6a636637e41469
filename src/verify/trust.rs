//! The verifier's trust: whose signatures the caller trusts ([`SignatureTrust`], on the floor,
//! shared with `attest carry`), and how the verifier applies it and counts ticks.

pub use crate::check::trust::SignatureTime;
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
    /// The verifier policy (`--policy`, `--policy-rev`): the rules that judge each unit's ticks.
    pub policy: Option<crate::model::verifier_policy::LoadedPolicy>,
    /// Who keeps each note the run reads (`attest export`'s pack); `None`: no one.
    pub keep_notes: Option<std::sync::Arc<dyn crate::model::held::NoteKeeper>>,
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
    pub fn failure(&self) -> Option<crate::check::trust::TrustFailure> {
        self.signers.failure()
    }
}
