//! How the backend reaches the network: the async Sigstore crates run on a runtime made for one
//! call, and every request goes through one HTTP client whose time is bounded.

use std::time::Duration;

/// A runtime made for one call into the async Sigstore crates: nothing async runs otherwise.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, NetError> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(NetError::Runtime)
}

/// Why the network side could not be set up.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NetError {
    /// The async runtime cannot start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The HTTP client cannot start.
    #[error("cannot start the HTTP client: {0}")]
    Client(sigstore_sign::reqwest::Error),
}

/// The HTTP client of the Sigstore services and the TUF repository: each request bounded by
/// `timeout` (and its connection by 20 s), so that a silent or slow server cannot hang a command.
pub(crate) fn http_client(timeout: Duration) -> Result<sigstore_sign::reqwest::Client, NetError> {
    sigstore_sign::reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(20)))
        .user_agent(concat!("speccoder/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(NetError::Client)
}
