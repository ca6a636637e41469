//! Sigstore's public-good TUF repository, the one place that fetches `trusted_root.json` over the
//! network: `sigstore-trust-root` starts from the TUF root built into it, verifies the chain of
//! root, timestamp, snapshot and targets metadata and their expiry, fetches the target and checks
//! it against its signed length and hashes. The only async code of verification, run on a runtime
//! made for it.

use std::path::Path;
use std::time::Duration;

use sigstore_trust_root::{TrustedRoot, TufConfig};

/// The public-good TUF repository.
pub const PUBLIC_TUF_URL: &str = "https://tuf-repo-cdn.sigstore.dev";

/// The TUF target that holds the trusted root, and the file name the fetch writes.
pub const TRUSTED_ROOT_TARGET: &str = "trusted_root.json";

/// How long one fetch may take before it counts as failed.
const FETCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Fetches the public-good root through TUF and writes it as `dir/trusted_root.json`. The TUF
/// metadata is verified from the built-in root on every fetch and kept nowhere: a day's cache of
/// the result is ours (`root_cache`).
///
/// # Errors
/// The reason, with its causes, when the repository cannot be reached, its metadata does not
/// verify or has expired, or the target is missing or does not match its signed digest.
pub fn fetch_public_good(dir: &Path) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let config = TufConfig::production().without_cache();
    // The timer is made inside the runtime: it needs the runtime's clock.
    let fetch = async { tokio::time::timeout(FETCH_TIMEOUT, TrustedRoot::from_tuf(config)).await };
    let root = match runtime.block_on(fetch) {
        Ok(Ok(root)) => root,
        Ok(Err(e)) => return Err(super::error::with_causes(&e)),
        Err(_) => return Err(format!("no complete answer within {} seconds", FETCH_TIMEOUT.as_secs())),
    };
    let json =
        serde_json::to_vec_pretty(&root).map_err(|e| format!("cannot encode the fetched root: {e}"))?;
    std::fs::write(dir.join(TRUSTED_ROOT_TARGET), json)
        .map_err(|e| format!("cannot write {TRUSTED_ROOT_TARGET} in {}: {e}", dir.display()))
}
