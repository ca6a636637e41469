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
    /// The trusted root the new bundle is to be checked against cannot be had.
    #[error(
        "keyless signing checks the bundle Fulcio and Rekor return against a Sigstore trusted root, and it cannot be had: {0}; for signing, name the root of the instance you sign with by --sigstore-signing-root FILE, SPECCODER_SIGSTORE_SIGNING_ROOT or `git config speccoder.sigstore.signingRoot`. Nothing was written"
    )]
    Root(#[source] super::TrustedRootError),
    /// The services returned a bundle that does not verify as the token's identity.
    #[error(transparent)]
    Returned(Box<ReturnedBundle>),
    /// `Signer::sign` was given something other than one of our statements.
    #[error(
        "Sigstore signs in-toto statements only: the bytes to sign are not the PAE of an in-toto statement"
    )]
    NotAStatement,
}

/// A bundle Fulcio and Rekor returned that does not verify as the token's identity.
#[derive(Debug, thiserror::Error)]
#[error(
    "keyless signing through Fulcio {fulcio} and Rekor {rekor} returned a bundle that does not verify as {identity} (issuer {issuer}), the identity token's, against the trusted root {root}: {reason}. Nothing was written; check the service URLs and that the trusted root is the one of the instance you sign with (--sigstore-signing-root)"
)]
pub struct ReturnedBundle {
    /// Fulcio's URL.
    pub fulcio: String,
    /// Rekor's URL.
    pub rekor: String,
    /// The identity the token says, made safe to show.
    pub identity: String,
    /// The issuer the token says, made safe to show.
    pub issuer: String,
    /// Where the trusted root came from.
    pub root: String,
    /// What the service returned wrongly, made safe to show.
    pub reason: String,
}

impl SigstoreSignError {
    pub(crate) fn failed(config: &SigstoreConfig, reason: String) -> Self {
        SigstoreSignError::Failed(format!(
            "through Fulcio {} and Rekor {} failed: {reason}",
            config.fulcio_url, config.rekor_url
        ))
    }
}
