//! Sigstore's public-good TUF repository, the one place that fetches `trusted_root.json` over the
//! network: `sigstore-trust-root` starts from the TUF root built into it, verifies the chain of
//! root, timestamp, snapshot and targets metadata and their expiry, fetches the target and checks
//! it against its signed length and hashes, each request bounded in time. The only async code of
//! verification, run on a runtime made for it.

use std::time::Duration;

use sigstore_trust_root::{TrustedRoot, TufConfig};

use super::root_cache::FetchFailed;

/// The public-good TUF repository.
pub const PUBLIC_TUF_URL: &str = "https://tuf-repo-cdn.sigstore.dev";

/// How long one request of a fetch may take before it counts as failed.
const FETCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Fetches the public-good root through TUF: `trusted_root.json`, as parsed. The TUF metadata is
/// verified from the built-in root on every fetch and kept nowhere: a day's cache of the result is
/// ours (`root_cache`).
///
/// # Errors
/// The reason, with its causes, when the repository cannot be reached, its metadata does not
/// verify or has expired, or the target is missing or does not match its signed digest.
pub fn fetch_public_good() -> Result<Vec<u8>, FetchFailed> {
    let config = TufConfig::production()
        .without_cache()
        .with_http_client(super::net::http_client(FETCH_TIMEOUT).map_err(|e| FetchFailed(e.to_string()))?);
    let root = super::net::runtime()
        .map_err(|e| FetchFailed(e.to_string()))?
        .block_on(TrustedRoot::from_tuf(config))
        .map_err(|e| FetchFailed(crate::model::shown::with_causes(&e)))?;
    serde_json::to_vec_pretty(&root).map_err(|e| FetchFailed(format!("cannot encode the fetched root: {e}")))
}
