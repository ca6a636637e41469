//! How the backend reaches the network: the async Sigstore crates run on a runtime made for one
//! call, and each request goes through the HTTP client the crate makes for that service, which
//! bounds its time, so that a silent or slow server cannot hang a command.

/// A runtime made for one call into the async Sigstore crates: nothing async runs otherwise.
pub(crate) fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}
