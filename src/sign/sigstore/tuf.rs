//! Sigstore's public-good TUF repository, the one place that fetches `trusted_root.json` over the
//! network. The sigstore crate's TUF client starts from the TUF root built into it, verifies the
//! chain of root, timestamp, snapshot and targets metadata and their expiry, fetches the target and
//! checks its SHA-256 against the signed targets metadata.

use std::path::Path;
use std::time::Duration;

use sigstore::trust::sigstore::SigstoreTrustRoot;

/// The public-good TUF repository.
pub const PUBLIC_TUF_URL: &str = "https://tuf-repo-cdn.sigstore.dev";

/// The TUF target that holds the trusted root, and the file name the fetch writes.
pub const TRUSTED_ROOT_TARGET: &str = "trusted_root.json";

/// How long one fetch may take before it counts as failed.
const FETCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Fetches the public-good root through TUF into `dir/trusted_root.json`; `dir` should be empty
/// (a file already there is kept only when its digest is the signed one).
///
/// # Errors
/// The reason, with its causes, when the repository cannot be reached, its metadata does not
/// verify or has expired, or the target is missing or does not match its signed digest.
pub fn fetch_public_good(dir: &Path) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    // The timer is made inside the runtime: it needs the runtime's clock.
    let fetch = async { tokio::time::timeout(FETCH_TIMEOUT, SigstoreTrustRoot::new(Some(dir))).await };
    match runtime.block_on(fetch) {
        Ok(Ok(_)) => Ok(()),
        // Offline, the TUF client blames the expired built-in root it could not update: say
        // what really happened when a plain request cannot connect either.
        Ok(Err(e)) => Err(runtime.block_on(unreachable()).unwrap_or_else(|| with_causes(&e))),
        Err(_) => Err(format!("no complete answer within {} seconds", FETCH_TIMEOUT.as_secs())),
    }
}

/// Why the repository cannot be reached, when a plain request for its timestamp cannot connect.
async fn unreachable() -> Option<String> {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().ok()?;
    match client.get(format!("{PUBLIC_TUF_URL}/timestamp.json")).send().await {
        Err(e) if e.is_connect() || e.is_timeout() => Some(format!("cannot reach it: {}", with_causes(&e))),
        _ => None,
    }
}

/// An error and each of its causes that adds something, joined by `: `.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}
