//! Sigstore's public-good TUF repository, the one place that fetches `trusted_root.json` over the
//! network: `sigstore-trust-root` starts from the TUF root built into it, verifies the chain of
//! root, timestamp, snapshot and targets metadata and their expiry, fetches the target and checks
//! it against its signed length and hashes, each request bounded in time. The only async code of
//! verification, run on a runtime made for it.

use sigstore_trust_root::{TrustedRoot, TufConfig};

/// The public-good TUF repository.
pub const PUBLIC_TUF_URL: &str = "https://tuf-repo-cdn.sigstore.dev";

/// Why a fetch of the root brought nothing.
#[derive(Debug, thiserror::Error)]
pub enum FetchFailed {
    /// The async runtime cannot start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The repository cannot be reached, its metadata does not verify, or the target is wrong.
    #[error(transparent)]
    Tuf(#[from] sigstore_trust_root::Error),
    /// The root fetched cannot be written out again as JSON.
    #[error("cannot encode the fetched root: {0}")]
    Encode(#[source] serde_json::Error),
}

/// Fetches the public-good root through TUF: `trusted_root.json`, as parsed. The TUF metadata is
/// verified from the built-in root on every fetch and kept nowhere: a day's cache of the result is
/// ours (`root_cache`).
///
/// # Errors
/// When the repository cannot be reached, its metadata does not verify or has expired, or the
/// target is missing or does not match its signed digest.
pub fn fetch_public_good() -> Result<Vec<u8>, FetchFailed> {
    let config = TufConfig::production().without_cache();
    let root =
        super::net::runtime().map_err(FetchFailed::Runtime)?.block_on(TrustedRoot::from_tuf(config))?;
    serde_json::to_vec_pretty(&root).map_err(FetchFailed::Encode)
}
