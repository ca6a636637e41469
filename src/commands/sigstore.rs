//! `speccoder sigstore fetch-root`.

use serde::Serialize;
use speccoder_attest::check::trust::refresh_sigstore_cache;
use speccoder_attest::exit;
use speccoder_attest::git::Repo;
use speccoder_attest::model::shown::{exact_path, one_line_path};
use speccoder_attest::sign::sigstore::{PUBLIC_TUF_URL, default_cache_path};

use crate::cli::SigstoreSub;

/// What a refresh wrote.
#[derive(Debug, Serialize)]
struct Fetched {
    /// The TUF repository the root came through.
    tuf_repository: &'static str,
    /// The cache file, exactly ([`exact_path`]).
    #[serde(serialize_with = "exact_path")]
    path: std::path::PathBuf,
    /// The SHA-256 of the file, in hex.
    sha256: String,
}

impl std::fmt::Display for Fetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "fetched the Sigstore public-good trusted root through {}", self.tuf_repository)?;
        writeln!(f, "  path: {}", one_line_path(&self.path))?;
        writeln!(f, "  sha256: {}", self.sha256)
    }
}

/// Runs one `speccoder sigstore` subcommand; `fetch-root` run in a repository refuses a cache
/// its tree at HEAD holds.
pub fn run(sub: &SigstoreSub) -> u8 {
    match sub {
        SigstoreSub::FetchRoot(args) => {
            // With `--json`, a cache path that is not UTF-8 is refused before anything is fetched.
            if let Ok(cache) = default_cache_path()
                && let Err(code) =
                    super::output::refuse_unnamable_paths("sigstore fetch-root", args.json, &[cache])
            {
                return code;
            }
            let repo = Repo::discover_to_read(".").ok();
            let result = refresh_sigstore_cache(repo.as_ref()).map(|r| Fetched {
                tuf_repository: PUBLIC_TUF_URL,
                path: r.path,
                sha256: r.sha256,
            });
            super::output::finish("sigstore fetch-root", args.json, result, |_| exit::OK)
        }
    }
}
