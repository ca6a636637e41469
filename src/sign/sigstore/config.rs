//! Where the Sigstore services are: the public-good instance by default, a private instance's
//! URLs from `[attest.sigstore]` in `speccoder.toml` (the caller fills [`SigstoreConfig`]).

/// The public-good Fulcio.
pub const PUBLIC_FULCIO_URL: &str = "https://fulcio.sigstore.dev";
/// The public-good Rekor.
pub const PUBLIC_REKOR_URL: &str = "https://rekor.sigstore.dev";
/// The public-good OIDC issuer for the interactive flow.
pub const PUBLIC_OIDC_ISSUER: &str = "https://oauth2.sigstore.dev/auth";

/// The services keyless signing talks to, and how it may get an identity token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigstoreConfig {
    /// Fulcio's base URL (`[attest.sigstore] fulcio_url`).
    pub fulcio_url: String,
    /// Rekor's base URL (`[attest.sigstore] rekor_url`).
    pub rekor_url: String,
    /// The OIDC issuer of the interactive flow (`[attest.sigstore] oidc_issuer`).
    pub oidc_issuer: String,
    /// The OAuth client id of the interactive flow.
    pub oidc_client_id: String,
    /// Whether the interactive (browser) flow may be used when no token is in the environment.
    pub interactive: bool,
    /// Seconds to wait for each service.
    pub timeout_secs: u64,
}

impl Default for SigstoreConfig {
    fn default() -> Self {
        SigstoreConfig {
            fulcio_url: PUBLIC_FULCIO_URL.to_owned(),
            rekor_url: PUBLIC_REKOR_URL.to_owned(),
            oidc_issuer: PUBLIC_OIDC_ISSUER.to_owned(),
            oidc_client_id: "sigstore".to_owned(),
            interactive: true,
            timeout_secs: 60,
        }
    }
}
