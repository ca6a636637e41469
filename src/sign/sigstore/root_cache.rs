//! The cached public-good trusted root: used while younger than a day, refreshed through TUF
//! otherwise, and kept (with a warning) when the refresh fails. The cache is only ever replaced
//! whole ([`crate::output_file::write_whole`]) by a root that parsed, so a crash or a failed fetch
//! never leaves half a root.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::trusted_root::{
    PUBLIC_TUF_URL, RefreshFailure, TrustedRoot, TrustedRootError, default_cache_path,
};
use super::tuf;
use crate::model::digest::sha256_hex;

/// How long a cached root is used without asking the TUF repository again.
pub const CACHE_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// A way to fetch the root: the bytes of `trusted_root.json`, or why there are none.
pub type Fetch<'a> = &'a dyn Fn() -> Result<Vec<u8>, RefreshFailure>;

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
    resolve(&default_cache_path()?, CACHE_MAX_AGE, &tuf::fetch_public_good)
}

/// Refreshes the cache at [`default_cache_path`] through [`PUBLIC_TUF_URL`] now, fresh or not.
///
/// # Errors
/// [`TrustedRootError::Refresh`] when the fetch fails or the cache cannot be written; the cache is
/// then unchanged.
pub fn refresh_public_good_root() -> Result<Refreshed, TrustedRootError> {
    let cache = default_cache_path()?;
    refresh(&cache, &tuf::fetch_public_good).map_err(|failure| TrustedRootError::Refresh { failure, cache })
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
    match cache.is_file().then(|| TrustedRoot::from_file(cache)) {
        Some(Ok(root)) => {
            let warning = format!(
                "the Sigstore trusted root could not be refreshed from {PUBLIC_TUF_URL} ({failure}); verified against the cached copy at {}, last refreshed {}",
                crate::model::shown::one_line_path(cache),
                age.map_or_else(|| "at an unknown time".to_owned(), ago)
            );
            Ok(DefaultRoot { root, warning: Some(warning) })
        }
        _ => Err(TrustedRootError::NoDefault { failure, cache: cache.to_owned() }),
    }
}

/// Fetches the root, parses it, and writes it over `cache` whole.
///
/// # Errors
/// [`RefreshFailure`]: the directory, the fetch, what it fetched, the write.
pub fn refresh(cache: &Path, fetch: Fetch<'_>) -> Result<Refreshed, RefreshFailure> {
    if let Some(dir) = cache.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::output_file::make_dir(dir)?;
    }
    let bytes = fetch()?;
    let root = TrustedRoot::from_json(&bytes, &cache.display().to_string())
        .map_err(|e| RefreshFailure::NotUsable(Box::new(e)))?;
    crate::output_file::write_whole(cache, &bytes)?;
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
mod tests {
    //! The cache rules on real files and a real trusted root, with the fetch replaced by closures
    //! that count their calls: no network.

    use std::cell::Cell;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, SystemTime};

    use super::*;

    const DAY: Duration = Duration::from_secs(24 * 60 * 60);

    fn production_root_bytes() -> Vec<u8> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/sigstore-conformance/production-trusted_root.json");
        std::fs::read(&path).unwrap_or_else(|e| panic!("the shared production root must load: {e}"))
    }

    /// The same root in other bytes (re-serialized), to tell a refreshed cache from the old one.
    fn other_root_bytes() -> Vec<u8> {
        let v: serde_json::Value = serde_json::from_slice(&production_root_bytes()).unwrap();
        let bytes = serde_json::to_vec(&v).unwrap();
        assert_ne!(bytes, production_root_bytes());
        bytes
    }

    /// A temporary directory and the cache path inside it (two levels down, not yet created).
    fn cache_in() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("speccoder/sigstore/trusted_root.json");
        (tmp, cache)
    }

    fn write_cache(cache: &Path, bytes: &[u8], age: Duration) {
        std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
        std::fs::write(cache, bytes).unwrap();
        let file = std::fs::File::options().write(true).open(cache).unwrap();
        file.set_modified(SystemTime::now() - age).unwrap();
    }

    /// A fetch that gives `bytes` and counts its calls.
    fn fetch_giving<'a>(
        bytes: &'a [u8],
        calls: &'a Cell<usize>,
    ) -> impl Fn() -> Result<Vec<u8>, RefreshFailure> + 'a {
        move || {
            calls.set(calls.get() + 1);
            Ok(bytes.to_vec())
        }
    }

    /// A fetch that failed as the TUF crate says it.
    fn failed(reason: &str) -> RefreshFailure {
        RefreshFailure::Tuf(sigstore_trust_root::Error::Tuf(reason.to_owned()))
    }

    /// A fetch that fails like a machine without network, counting its calls.
    fn fetch_failing(calls: &Cell<usize>) -> impl Fn() -> Result<Vec<u8>, RefreshFailure> + '_ {
        move || {
            calls.set(calls.get() + 1);
            Err(failed("error sending request: dns error: failed to lookup address"))
        }
    }

    /// The names in the cache directory (the cache file and anything left behind).
    fn entries(cache: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(cache.parent().unwrap())
            .map(|d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn a_fresh_cache_is_used_without_fetching() {
        let (_tmp, cache) = cache_in();
        write_cache(&cache, &production_root_bytes(), Duration::from_secs(3600));
        let calls = Cell::new(0);
        let got = resolve(&cache, DAY, &fetch_failing(&calls)).unwrap();
        assert_eq!(calls.get(), 0);
        assert!(got.warning.is_none());
        assert_eq!(got.root.source(), cache.display().to_string());
    }

    #[test]
    fn a_stale_cache_is_refreshed_and_replaced_atomically() {
        let (_tmp, cache) = cache_in();
        write_cache(&cache, &production_root_bytes(), DAY + Duration::from_secs(60));
        let calls = Cell::new(0);
        let fresh = other_root_bytes();
        let got = resolve(&cache, DAY, &fetch_giving(&fresh, &calls)).unwrap();
        assert_eq!(calls.get(), 1);
        assert!(got.warning.is_none());
        assert_eq!(std::fs::read(&cache).unwrap(), fresh);
        assert!(age_of(&cache).is_some_and(|a| a < Duration::from_secs(600)), "the refreshed cache is fresh");
        assert_eq!(entries(&cache), ["trusted_root.json"], "no temporary directory is left behind");
    }

    #[test]
    fn a_missing_cache_is_fetched_and_written_with_its_directories() {
        let (_tmp, cache) = cache_in();
        let calls = Cell::new(0);
        let bytes = production_root_bytes();
        let got = resolve(&cache, DAY, &fetch_giving(&bytes, &calls)).unwrap();
        assert_eq!(calls.get(), 1);
        assert!(got.warning.is_none());
        assert_eq!(std::fs::read(&cache).unwrap(), bytes);
        // A second run within the day does not fetch again.
        let again = Cell::new(0);
        resolve(&cache, DAY, &fetch_failing(&again)).unwrap();
        assert_eq!(again.get(), 0);
    }

    #[test]
    fn a_failed_refresh_falls_back_to_the_stale_cache_and_says_so() {
        let (_tmp, cache) = cache_in();
        let old = production_root_bytes();
        write_cache(&cache, &old, 3 * DAY);
        let calls = Cell::new(0);
        let got = resolve(&cache, DAY, &fetch_failing(&calls)).unwrap();
        assert_eq!(calls.get(), 1);
        let warning = got.warning.expect("a fallback is reported");
        for part in [PUBLIC_TUF_URL, "dns error", &cache.display().to_string(), "3 days ago"] {
            assert!(warning.contains(part), "the warning names {part:?}: {warning}");
        }
        assert_eq!(std::fs::read(&cache).unwrap(), old, "the cache is kept as it was");
        assert_eq!(entries(&cache), ["trusted_root.json"]);
    }

    #[test]
    fn a_failed_refresh_without_a_cache_is_an_error_naming_the_repository_the_reason_the_cache_and_the_option()
     {
        let (_tmp, cache) = cache_in();
        let calls = Cell::new(0);
        let err = resolve(&cache, DAY, &fetch_failing(&calls)).unwrap_err();
        assert_eq!(calls.get(), 1);
        assert!(matches!(err, TrustedRootError::NoDefault { .. }), "{err:?}");
        let msg = err.to_string();
        for part in
            [PUBLIC_TUF_URL, "dns error", &cache.display().to_string(), "--sigstore-trusted-root FILE"]
        {
            assert!(msg.contains(part), "the error names {part:?}: {msg}");
        }
        assert!(!cache.exists());
    }

    #[test]
    fn a_fetch_that_fails_halfway_leaves_no_partial_cache() {
        let (_tmp, cache) = cache_in();
        let half = || -> Result<Vec<u8>, RefreshFailure> {
            Err(failed("connection reset while reading trusted_root.json"))
        };
        let err = resolve(&cache, DAY, &half).unwrap_err();
        assert!(err.to_string().contains("connection reset"), "{err}");
        assert!(!cache.exists(), "no partial cache");
        assert!(entries(&cache).is_empty(), "nothing left behind: {:?}", entries(&cache));
    }

    #[test]
    fn a_fetched_file_that_is_not_a_trusted_root_never_replaces_the_cache() {
        let (_tmp, cache) = cache_in();
        let old = production_root_bytes();
        write_cache(&cache, &old, 2 * DAY);
        let calls = Cell::new(0);
        let got = resolve(&cache, DAY, &fetch_giving(b"{\"mediaType\": \"text/plain\"}", &calls)).unwrap();
        assert_eq!(calls.get(), 1);
        let warning = got.warning.expect("a fallback is reported");
        assert!(warning.contains("not usable"), "{warning}");
        assert_eq!(std::fs::read(&cache).unwrap(), old);
        assert_eq!(entries(&cache), ["trusted_root.json"]);
    }

    #[test]
    fn a_fresh_cache_that_does_not_parse_is_refreshed() {
        let (_tmp, cache) = cache_in();
        write_cache(&cache, b"{ half a root", Duration::from_secs(60));
        let calls = Cell::new(0);
        let bytes = production_root_bytes();
        let got = resolve(&cache, DAY, &fetch_giving(&bytes, &calls)).unwrap();
        assert_eq!(calls.get(), 1);
        assert!(got.warning.is_none());
        assert_eq!(std::fs::read(&cache).unwrap(), bytes);
    }

    #[test]
    fn a_broken_cache_and_a_failed_refresh_is_the_no_root_error() {
        let (_tmp, cache) = cache_in();
        write_cache(&cache, b"{ half a root", 2 * DAY);
        let calls = Cell::new(0);
        let err = resolve(&cache, DAY, &fetch_failing(&calls)).unwrap_err();
        assert!(matches!(err, TrustedRootError::NoDefault { .. }), "{err:?}");
    }

    #[test]
    fn an_explicit_refresh_fetches_even_when_fresh_and_reports_the_digest() {
        let (_tmp, cache) = cache_in();
        write_cache(&cache, &production_root_bytes(), Duration::from_secs(60));
        let calls = Cell::new(0);
        let fresh = other_root_bytes();
        let done = refresh(&cache, &fetch_giving(&fresh, &calls)).unwrap();
        assert_eq!(calls.get(), 1);
        assert_eq!(done.path, cache);
        assert_eq!(done.sha256, sha256_hex(&fresh));
        assert_eq!(std::fs::read(&cache).unwrap(), fresh);
    }

    #[test]
    fn a_cache_dated_in_the_future_counts_as_stale() {
        let (_tmp, cache) = cache_in();
        write_cache(&cache, &production_root_bytes(), Duration::ZERO);
        let file = std::fs::File::options().write(true).open(&cache).unwrap();
        file.set_modified(SystemTime::now() + DAY).unwrap();
        let calls = Cell::new(0);
        let got = resolve(&cache, DAY, &fetch_failing(&calls)).unwrap();
        assert_eq!(calls.get(), 1);
        assert!(got.warning.is_some_and(|w| w.contains("at an unknown time")));
    }

    #[test]
    fn a_cache_directory_that_cannot_be_made_is_said_to_be_local_and_nothing_is_fetched() {
        let (tmp, _) = cache_in();
        let blocker = tmp.path().join("not-a-directory");
        std::fs::write(&blocker, "a file where the cache directory would go").unwrap();
        let cache = blocker.join("sigstore/trusted_root.json");
        let calls = Cell::new(0);
        let failure = refresh(&cache, &fetch_failing(&calls)).unwrap_err();
        assert_eq!(calls.get(), 0, "the network is never asked");
        assert!(matches!(failure, RefreshFailure::Cache(_)), "{failure:?}");
        assert!(failure.advice().contains("cache directory writable"), "{}", failure.advice());
        let err = resolve(&cache, DAY, &fetch_failing(&calls)).unwrap_err().to_string();
        assert!(err.contains("cache directory writable") && !err.contains("is reachable"), "{err}");
    }
}
