//! The cached public-good trusted root: used while younger than a day, refreshed through TUF
//! otherwise, and kept (with a warning) when the refresh fails. The cache is only ever replaced by
//! renaming a complete file that parsed, so a crash or a failed fetch never leaves half a root.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::trusted_root::{TrustedRoot, TrustedRootError, default_cache_path};
use super::tuf::{self, PUBLIC_TUF_URL, TRUSTED_ROOT_TARGET};
use crate::model::digest::sha256_hex;

/// How long a cached root is used without asking the TUF repository again.
pub const CACHE_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// A way to fetch the root: it writes `trusted_root.json` into the fresh, empty directory given.
pub type Fetch<'a> = &'a dyn Fn(&Path) -> Result<(), String>;

/// The default root for verification, and what the report should say about it.
#[derive(Clone, Debug)]
pub struct DefaultRoot {
    /// The root.
    pub root: TrustedRoot,
    /// Set when the refresh failed and an older cached copy is used instead.
    pub warning: Option<String>,
}

/// A cache just refreshed.
#[derive(Clone, Debug)]
pub struct Refreshed {
    /// The cache file.
    pub path: PathBuf,
    /// The SHA-256 of its bytes, in hex.
    pub sha256: String,
    /// The root it holds.
    pub root: TrustedRoot,
}

/// The public-good root for verification: the cache at [`default_cache_path`] while fresh, else
/// refreshed through [`PUBLIC_TUF_URL`].
///
/// # Errors
/// [`TrustedRootError::NoDefault`] when the refresh fails and no usable copy is cached.
pub fn public_good_root() -> Result<DefaultRoot, TrustedRootError> {
    resolve(&default_cache_path(), CACHE_MAX_AGE, &tuf::fetch_public_good)
}

/// Refreshes the cache at [`default_cache_path`] through [`PUBLIC_TUF_URL`] now, fresh or not.
///
/// # Errors
/// [`TrustedRootError::Refresh`] when the fetch fails or the cache cannot be written; the cache is
/// then unchanged.
pub fn refresh_public_good_root() -> Result<Refreshed, TrustedRootError> {
    let cache = default_cache_path();
    refresh(&cache, &tuf::fetch_public_good).map_err(|failure| TrustedRootError::Refresh {
        url: PUBLIC_TUF_URL,
        advice: failure.advice(),
        reason: failure.reason,
        cache,
    })
}

/// The root at `cache` while younger than `max_age` and parsable, else a fresh one from `fetch`
/// (written to `cache`), else the stale copy with a warning.
///
/// # Errors
/// [`TrustedRootError::NoDefault`] when `fetch` fails and `cache` holds no usable root.
pub fn resolve(cache: &Path, max_age: Duration, fetch: Fetch<'_>) -> Result<DefaultRoot, TrustedRootError> {
    let age = age_of(cache);
    if age.is_some_and(|a| a < max_age)
        && let Ok(root) = TrustedRoot::from_file(cache)
    {
        return Ok(DefaultRoot { root, warning: None });
    }
    let failure = match refresh(cache, fetch) {
        Ok(fresh) => return Ok(DefaultRoot { root: fresh.root, warning: None }),
        Err(failure) => failure,
    };
    let reason = &failure.reason;
    match cache.is_file().then(|| TrustedRoot::from_file(cache)) {
        Some(Ok(root)) => {
            let warning = format!(
                "the Sigstore trusted root could not be refreshed from {PUBLIC_TUF_URL} ({reason}); verified against the cached copy at {}, last refreshed {}",
                cache.display(),
                age.map_or_else(|| "at an unknown time".to_owned(), ago)
            );
            Ok(DefaultRoot { root, warning: Some(warning) })
        }
        _ => Err(TrustedRootError::NoDefault {
            url: PUBLIC_TUF_URL,
            advice: failure.advice(),
            reason: failure.reason,
            cache: cache.to_owned(),
        }),
    }
}

/// Why a refresh failed, as a sentence fragment, and whether the fault is the cache on this
/// machine rather than the fetch.
#[derive(Debug)]
pub struct RefreshFailure {
    /// What failed: the directory, the fetch, the file it left, the rename.
    pub reason: String,
    /// The cache directory could not be made or written; the network was never asked.
    pub local: bool,
}

impl RefreshFailure {
    fn local(reason: String) -> Self {
        RefreshFailure { reason, local: true }
    }

    /// What to do about it.
    #[must_use]
    pub fn advice(&self) -> String {
        if self.local {
            "make the cache directory writable (it follows XDG_CACHE_HOME, else HOME/.cache)".to_owned()
        } else {
            format!("run again where {PUBLIC_TUF_URL} is reachable")
        }
    }
}

/// Fetches into a fresh directory beside `cache`, parses the result, and renames it over `cache`.
///
/// # Errors
/// [`RefreshFailure`]: the directory, the fetch, the file it left, the rename.
pub fn refresh(cache: &Path, fetch: Fetch<'_>) -> Result<Refreshed, RefreshFailure> {
    let dir = cache.parent().filter(|d| !d.as_os_str().is_empty()).ok_or_else(|| {
        RefreshFailure::local(format!("the cache path {} has no directory", cache.display()))
    })?;
    std::fs::create_dir_all(dir).map_err(|e| {
        RefreshFailure::local(format!("cannot create the cache directory {}: {e}", dir.display()))
    })?;
    let temp = tempfile::Builder::new().prefix(".fetch-").tempdir_in(dir).map_err(|e| {
        RefreshFailure::local(format!("cannot create a temporary directory in {}: {e}", dir.display()))
    })?;
    let remote = |reason: String| RefreshFailure { reason, local: false };
    fetch(temp.path()).map_err(remote)?;
    let fetched = temp.path().join(TRUSTED_ROOT_TARGET);
    let bytes = std::fs::read(&fetched)
        .map_err(|e| remote(format!("the fetch left no readable {TRUSTED_ROOT_TARGET}: {e}")))?;
    let root = TrustedRoot::from_json(&bytes, &cache.display().to_string())
        .map_err(|e| remote(format!("the fetched file is not usable: {e}")))?;
    std::fs::File::open(&fetched)
        .and_then(|f| f.sync_all())
        .map_err(|e| RefreshFailure::local(format!("cannot flush the fetched root to disk: {e}")))?;
    std::fs::rename(&fetched, cache).map_err(|e| {
        RefreshFailure::local(format!("cannot move the fetched root to {}: {e}", cache.display()))
    })?;
    Ok(Refreshed { path: cache.to_owned(), sha256: sha256_hex(&bytes), root })
}

/// How long ago `path` was written; `None` when it is missing or dated in the future.
fn age_of(path: &Path) -> Option<Duration> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    SystemTime::now().duration_since(modified).ok()
}

/// `5 hours ago`, `3 days ago`.
fn ago(age: Duration) -> String {
    match age.as_secs() / 3600 {
        hours @ 0..48 => format!("{hours} hours ago"),
        hours => format!("{} days ago", hours / 24),
    }
}

#[cfg(test)]
mod tests;
