//! How the backend reaches the network: the async Sigstore crates run on a runtime made for one
//! call, and every request goes through one HTTP client whose time is bounded.

use std::time::Duration;

/// A runtime made for one call into the async Sigstore crates: nothing async runs otherwise.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    let builder = tokio::runtime::Builder::new_current_thread().enable_all().build();
    builder.map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// The HTTP client of the Sigstore services and the TUF repository: each request bounded by
/// `timeout` (and its connection by 20 s), so that a silent or slow server cannot hang a command.
pub(crate) fn http_client(timeout: Duration) -> Result<sigstore_sign::reqwest::Client, String> {
    sigstore_sign::reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(20)))
        .user_agent(concat!("speccoder/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("cannot start the HTTP client: {e}"))
}
