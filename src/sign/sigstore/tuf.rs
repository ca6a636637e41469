//! Sigstore's public-good TUF repository, the one place that fetches `trusted_root.json` over the
//! network: `sigstore-trust-root` starts from the TUF root built into it, verifies the chain of
//! root, timestamp, snapshot and targets metadata and their expiry, fetches the target and checks
//! it against its signed length and hashes, each request bounded in time. The only async code of
//! verification, run on a runtime made for it.

use sigstore_trust_root::{TrustedRoot, TufConfig};

use super::trusted_root::RefreshFailure;

/// Fetches the public-good root through TUF: `trusted_root.json`, as parsed. The TUF metadata is
/// verified from the built-in root on every fetch and kept nowhere: a day's cache of the result is
/// ours (`root_cache`).
///
/// # Errors
/// When the repository cannot be reached, its metadata does not verify or has expired, or the
/// target is missing or does not match its signed digest.
pub fn fetch_public_good() -> Result<Vec<u8>, RefreshFailure> {
    let config = TufConfig::production().without_cache();
    let root =
        super::net::runtime().map_err(RefreshFailure::Runtime)?.block_on(TrustedRoot::from_tuf(config))?;
    serde_json::to_vec_pretty(&root).map_err(RefreshFailure::Encode)
}
