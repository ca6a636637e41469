//! `speccoder sigstore fetch-root`.

use serde::Serialize;
use speccoder_attest::check::trust::refresh_sigstore_cache;
use speccoder_attest::exit;
use speccoder_attest::git::Repo;
use speccoder_attest::model::shown::in_line;
use speccoder_attest::sign::sigstore::PUBLIC_TUF_URL;

use crate::cli::SigstoreSub;

/// What a refresh wrote.
#[derive(Debug, Serialize)]
struct Fetched {
    /// The TUF repository the root came through.
    tuf_repository: &'static str,
    /// The cache file.
    #[serde(serialize_with = "in_line")]
    path: String,
    /// The SHA-256 of the file, in hex.
    sha256: String,
}

impl std::fmt::Display for Fetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "fetched the Sigstore public-good trusted root through {}", self.tuf_repository)?;
        writeln!(f, "  path: {}", self.path)?;
        writeln!(f, "  sha256: {}", self.sha256)
    }
}

/// Runs one `speccoder sigstore` subcommand; `fetch-root` run in a repository refuses a cache
/// its tree at HEAD holds.
pub fn run(sub: &SigstoreSub) -> u8 {
    match sub {
        SigstoreSub::FetchRoot(args) => {
            let repo = Repo::discover_to_read(".").ok();
            let result = refresh_sigstore_cache(repo.as_ref()).map(|r| Fetched {
                tuf_repository: PUBLIC_TUF_URL,
                path: r.path.display().to_string(),
                sha256: r.sha256,
            });
            super::output::finish("sigstore fetch-root", args.json, result, |_| exit::OK)
        }
    }
}
