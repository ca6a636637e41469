//! Why keyless signing failed, shared by the signer and the token sources.

use super::config::SigstoreConfig;

/// Why a keyless signature could not be made; the message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum SigstoreSignError {
    /// No identity token could be had.
    #[error(
        "no OIDC identity token for Sigstore: set SIGSTORE_ID_TOKEN, run in CI with an ambient OIDC token (GitHub Actions: `permissions: id-token: write`), or sign interactively from a terminal"
    )]
    NoToken,
    /// The token, the login or a service failed: where, and why.
    #[error(
        "keyless signing {0}; check the network, the token, and the service URLs (--sigstore-fulcio-url, SPECCODER_SIGSTORE_FULCIO_URL or `git config speccoder.sigstore.fulcioUrl`, and the same for Rekor)"
    )]
    Failed(String),
    /// `Signer::sign` was given something other than one of our statements.
    #[error(
        "Sigstore signs in-toto statements only: the bytes to sign are not the PAE of an in-toto statement"
    )]
    NotAStatement,
}

impl SigstoreSignError {
    pub(crate) fn failed(config: &SigstoreConfig, reason: String) -> Self {
        SigstoreSignError::Failed(format!(
            "through Fulcio {} and Rekor {} failed: {reason}",
            config.fulcio_url, config.rekor_url
        ))
    }
}
