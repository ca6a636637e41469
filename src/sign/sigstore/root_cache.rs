//! The cached public-good trusted root: used while younger than a day, refreshed through TUF
//! otherwise, and kept (with a warning) when the refresh fails. The cache is only ever replaced
//! whole ([`crate::output_file::write_whole_own`]) by a root that parsed, so a crash or a failed
//! fetch never leaves half a root.
//!
//! The cache stands in for a root verified through TUF, but it is only bytes read back: it is
//! used only while it and its directories are this user's alone ([`crate::input::read_own`]), and
//! it is written so ([`crate::output_file::make_own_dirs`]). A file there that anyone else could
//! have put or changed is no cache at all.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::trusted_root::{
    CACHE_DIRS, MAX_ROOT_BYTES, PUBLIC_TUF_URL, RefreshFailure, TrustedRoot, TrustedRootError, Unused,
    default_cache_path,
};
use super::tuf;
use crate::input::{Foreign, InputError};
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

/// The root at `cache` while younger than `max_age` and usable, else a fresh one from `fetch`
/// (written to `cache`), else the stale copy with a warning.
///
/// # Errors
/// [`TrustedRootError::NoDefault`] when `fetch` fails and `cache` holds no usable root (saying
/// why a file there was not used).
pub fn resolve(cache: &Path, max_age: Duration, fetch: Fetch<'_>) -> Result<DefaultRoot, TrustedRootError> {
    let cached = cached(cache);
    if let Cached::Usable(root, Some(age)) = &cached
        && *age < max_age
    {
        return Ok(DefaultRoot { root: root.clone(), warning: None });
    }
    let failure = match refresh(cache, fetch) {
        Ok(fresh) => return Ok(DefaultRoot { root: fresh.root, warning: None }),
        Err(failure) => failure,
    };
    let unused = match cached {
        Cached::Usable(root, age) => {
            let warning = format!(
                "the Sigstore trusted root could not be refreshed from {PUBLIC_TUF_URL} ({failure}); verified against the cached copy at {}, last refreshed {}",
                crate::model::shown::one_line_path(cache),
                age.map_or_else(|| "at an unknown time".to_owned(), ago)
            );
            return Ok(DefaultRoot { root, warning: Some(warning) });
        }
        Cached::Absent => None,
        Cached::Unusable(unused) => Some(Box::new(unused)),
    };
    Err(TrustedRootError::NoDefault { failure, cache: cache.to_owned(), unused })
}

/// What is at the cache path.
enum Cached {
    /// Nothing.
    Absent,
    /// A root, and how long ago it was written (`None` when dated in the future).
    Usable(TrustedRoot, Option<Duration>),
    /// A file that is not used, and why.
    Unusable(Unused),
}

/// The root at `cache`, read only when it and its directories are this user's alone.
fn cached(cache: &Path) -> Cached {
    let (bytes, meta) = match crate::input::read_own(cache, CACHE_DIRS, MAX_ROOT_BYTES) {
        Ok(read) => read,
        Err(InputError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Cached::Absent;
        }
        Err(refused) => return Cached::Unusable(unused(cache, &refused)),
    };
    match TrustedRoot::from_json(&bytes, &cache.display().to_string()) {
        Ok(root) => Cached::Usable(root, meta.modified().ok().and_then(age_since)),
        Err(TrustedRootError::Malformed { reason, .. }) => Cached::Unusable(Unused {
            why: format!("it is not a usable Sigstore trusted root: {reason}"),
            fix: "remove it".to_owned(),
        }),
        Err(other) => Cached::Unusable(Unused { why: other.to_string(), fix: "remove it".to_owned() }),
    }
}

/// Why the cache file was not read ([`crate::input::read_own`] refused it or a directory above
/// it), and what makes it usable.
fn unused(cache: &Path, refused: &InputError) -> Unused {
    let dir = crate::model::shown::shell_word(&refused.path().to_string_lossy());
    let (why, fix) = match refused {
        InputError::Io { source, .. } if refused.path() == cache => {
            (format!("it cannot be read ({source})"), "remove it".to_owned())
        }
        _ if refused.path() == cache => (refused.reason(), "remove it".to_owned()),
        InputError::NotOwn { problem: Foreign::Writable { .. }, .. } => (
            format!("its directory {refused}"),
            format!("make that directory writable by you alone (`chmod go-w {dir}`)"),
        ),
        InputError::NotOwn { .. } => {
            (format!("its directory {refused}"), "set XDG_CACHE_HOME to a directory of your own".to_owned())
        }
        _ => (refused.to_string(), "check the permissions of the cache directory".to_owned()),
    };
    Unused { why, fix }
}

/// Fetches the root, parses it, and writes it over `cache` whole, readable and writable by this
/// user alone, in directories that are this user's alone ([`crate::output_file::make_own_dirs`]).
///
/// # Errors
/// [`RefreshFailure`]: the directory (another user's, or one that cannot be made), the fetch, what
/// it fetched, the write.
pub fn refresh(cache: &Path, fetch: Fetch<'_>) -> Result<Refreshed, RefreshFailure> {
    if let Some(dir) = cache.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::output_file::make_own_dirs(dir, CACHE_DIRS)?;
    }
    let bytes = fetch()?;
    let root = TrustedRoot::from_json(&bytes, &cache.display().to_string())
        .map_err(|e| RefreshFailure::NotUsable(Box::new(e)))?;
    crate::output_file::write_whole_own(cache, &bytes)?;
    Ok(Refreshed { path: cache.to_owned(), sha256: sha256_hex(&bytes), root })
}

/// How long ago `modified` was; `None` when it is in the future.
fn age_since(modified: SystemTime) -> Option<Duration> {
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

    /// Writes `bytes` to `cache`, `age` old, in directories made as a user makes them: the file
    /// `rw-r--r--`, the directories `rwxr-xr-x` (whatever the umask), this user's alone.
    fn write_cache(cache: &Path, bytes: &[u8], age: Duration) {
        std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
        for dir in cache.ancestors().skip(1).take(CACHE_DIRS) {
            set_mode(dir, 0o755);
        }
        std::fs::write(cache, bytes).unwrap();
        set_mode(cache, 0o644);
        let file = std::fs::File::options().write(true).open(cache).unwrap();
        file.set_modified(SystemTime::now() - age).unwrap();
    }

    #[cfg(unix)]
    fn set_mode(path: &Path, mode: u32) {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// Elsewhere a file has no mode to set.
    #[cfg(not(unix))]
    fn set_mode(_path: &Path, _mode: u32) {}

    #[cfg(unix)]
    fn mode_of(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    /// How long ago `path` was written.
    fn age_of(path: &Path) -> Option<Duration> {
        age_since(std::fs::metadata(path).unwrap().modified().unwrap())
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

    /// The message of [`resolve`] with a fetch that fails, for the cache at `cache`.
    fn offline_error(cache: &Path) -> String {
        let calls = Cell::new(0);
        let err = resolve(cache, DAY, &fetch_failing(&calls)).unwrap_err();
        assert_eq!(calls.get(), 1);
        assert!(matches!(err, TrustedRootError::NoDefault { .. }), "{err:?}");
        err.to_string()
    }

    #[cfg(unix)]
    #[test]
    fn a_fresh_cache_file_others_may_write_is_never_used_and_is_replaced_by_one_only_this_user_can_write() {
        for mode in [0o666, 0o620, 0o602] {
            let (_tmp, cache) = cache_in();
            write_cache(&cache, &production_root_bytes(), Duration::from_secs(60));
            set_mode(&cache, mode);
            let calls = Cell::new(0);
            let fresh = other_root_bytes();
            let got = resolve(&cache, DAY, &fetch_giving(&fresh, &calls)).unwrap();
            assert_eq!(calls.get(), 1, "mode {mode:o}: fetched again");
            assert!(got.warning.is_none());
            assert_eq!(std::fs::read(&cache).unwrap(), fresh, "mode {mode:o}: replaced");
            assert_eq!(mode_of(&cache), 0o600, "mode {mode:o}: now this user's alone");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_file_others_may_write_and_a_failed_fetch_is_the_no_root_error_saying_why_and_what_to_do() {
        let (_tmp, cache) = cache_in();
        write_cache(&cache, &production_root_bytes(), 3 * DAY);
        set_mode(&cache, 0o666);
        let msg = offline_error(&cache);
        for part in [
            "dns error",
            &format!("the file cached at {} was not used", cache.display()),
            "it may be written by its group and other users (mode 666); remove it, then run again where",
            "--sigstore-trusted-root FILE",
        ] {
            assert!(msg.contains(part), "the error says {part:?}: {msg}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_directory_others_may_write_is_never_trusted_and_a_refresh_makes_it_this_users_alone() {
        let (tmp, cache) = cache_in();
        write_cache(&cache, &production_root_bytes(), Duration::from_secs(60));
        let sigstore = cache.parent().unwrap().to_owned();
        set_mode(&sigstore, 0o1777);
        let msg = offline_error(&cache);
        let part = format!(
            "its directory {} may be written by its group and other users (mode 1777); make that directory writable by you alone (`chmod go-w {}`)",
            sigstore.display(),
            sigstore.display()
        );
        assert!(msg.contains(&part), "{msg}");

        set_mode(&sigstore, 0o755);
        set_mode(&tmp.path().join("speccoder"), 0o775);
        let calls = Cell::new(0);
        let bytes = production_root_bytes();
        resolve(&cache, DAY, &fetch_giving(&bytes, &calls)).unwrap();
        assert_eq!(calls.get(), 1, "a cache below a directory others may write is fetched again");
        assert_eq!(mode_of(&tmp.path().join("speccoder")), 0o755, "the refresh took their write away");
        let again = Cell::new(0);
        resolve(&cache, DAY, &fetch_failing(&again)).unwrap();
        assert_eq!(again.get(), 0, "the refreshed cache is used");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_cache_is_written_for_this_user_alone_whatever_the_umask_allows() {
        let (tmp, cache) = cache_in();
        let calls = Cell::new(0);
        refresh(&cache, &fetch_giving(&production_root_bytes(), &calls)).unwrap();
        assert_eq!(mode_of(&cache), 0o600);
        assert_eq!(mode_of(cache.parent().unwrap()), 0o700);
        assert_eq!(mode_of(&tmp.path().join("speccoder")), 0o700);
    }

    #[cfg(unix)]
    #[test]
    fn a_refresh_never_writes_through_a_link_planted_at_the_cache_or_on_the_way() {
        let (tmp, cache) = cache_in();
        write_cache(&cache, &production_root_bytes(), 2 * DAY);
        let elsewhere = tmp.path().join("elsewhere.json");
        std::fs::write(&elsewhere, "theirs").unwrap();
        std::fs::remove_file(&cache).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &cache).unwrap();
        let calls = Cell::new(0);
        let failure = refresh(&cache, &fetch_giving(&production_root_bytes(), &calls)).unwrap_err();
        assert!(matches!(failure, RefreshFailure::Cache(_)), "{failure:?}");
        assert_eq!(std::fs::read(&elsewhere).unwrap(), b"theirs", "nothing written through the link");

        let (tmp, cache) = cache_in();
        let theirs = tmp.path().join("theirs");
        std::fs::create_dir_all(&theirs).unwrap();
        std::fs::create_dir_all(tmp.path().join("speccoder")).unwrap();
        std::os::unix::fs::symlink(&theirs, cache.parent().unwrap()).unwrap();
        let failure = refresh(&cache, &fetch_giving(&production_root_bytes(), &calls)).unwrap_err();
        assert!(matches!(failure, RefreshFailure::Cache(_)), "{failure:?}");
        assert!(failure.to_string().contains("symbolic link"), "{failure}");
        assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 0, "nothing written where the link leads");
    }

    #[cfg(unix)]
    #[test]
    fn an_unusable_cache_file_and_a_failed_fetch_say_that_a_file_is_there_and_why_it_was_not_used() {
        type Plant<'a> = &'a dyn Fn(&Path);
        let cases: [(&str, Plant<'_>, &str); 5] = [
            (
                "truncated JSON",
                &|c| std::fs::write(c, &production_root_bytes()[..500]).unwrap(),
                "it is not a usable Sigstore trusted root: ",
            ),
            (
                "FIFO",
                &|c| assert!(std::process::Command::new("mkfifo").arg(c).status().unwrap().success()),
                "it is a FIFO, not a regular file",
            ),
            ("directory", &|c| std::fs::create_dir(c).unwrap(), "it is a directory, not a regular file"),
            (
                "dangling link",
                &|c| std::os::unix::fs::symlink(c.with_extension("gone"), c).unwrap(),
                "it is a symbolic link",
            ),
            (
                "over the limit",
                &|c| std::fs::write(c, vec![b' '; (MAX_ROOT_BYTES + 1) as usize]).unwrap(),
                "it is larger than 1048576 bytes",
            ),
        ];
        for (what, make, why) in cases {
            let (_tmp, cache) = cache_in();
            write_cache(&cache, b"", 2 * DAY);
            std::fs::remove_file(&cache).unwrap();
            make(&cache);
            let msg = offline_error(&cache);
            let there = format!("the file cached at {} was not used: {why}", cache.display());
            assert!(msg.contains(&there), "{what}: {msg}");
            assert!(msg.contains("remove it, then run again where"), "{what}: {msg}");
        }
    }
}
