//! Where keyless signing sends the identity token: Fulcio, Rekor and the OIDC issuer. Which URLs
//! may receive it is the producer's rule, not this adapter's: `attest::service_url` checks the
//! URLs the person signing chose and makes the configuration; the public-good instance is the
//! default.

/// The public-good Fulcio.
pub const PUBLIC_FULCIO_URL: &str = "https://fulcio.sigstore.dev";
/// The public-good Rekor.
pub const PUBLIC_REKOR_URL: &str = "https://rekor.sigstore.dev";
/// The public-good OIDC issuer for the interactive flow.
pub const PUBLIC_OIDC_ISSUER: &str = "https://oauth2.sigstore.dev/auth";

/// The services keyless signing talks to, and how it may get an identity token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigstoreConfig {
    /// Fulcio's base URL.
    pub fulcio_url: String,
    /// Rekor's base URL.
    pub rekor_url: String,
    /// The OIDC issuer of the interactive flow.
    pub oidc_issuer: String,
    /// Whether the interactive (browser) flow may be used when no token is in the environment.
    pub interactive: bool,
    /// The trusted root each new bundle is checked against before it is handed out; `None`: the
    /// public-good root, as `attest verify` resolves it without `--sigstore-trusted-root`.
    pub trusted_root: Option<std::path::PathBuf>,
}

impl Default for SigstoreConfig {
    fn default() -> Self {
        SigstoreConfig {
            fulcio_url: PUBLIC_FULCIO_URL.to_owned(),
            rekor_url: PUBLIC_REKOR_URL.to_owned(),
            oidc_issuer: PUBLIC_OIDC_ISSUER.to_owned(),
            interactive: true,
            trusted_root: None,
        }
    }
}
