//! The Sigstore trusted root (`trusted_root.json`, media type
//! `application/vnd.dev.sigstore.trustedroot+json;version=0.1`): the Fulcio CAs, Rekor logs, CT
//! logs and timestamp authorities a verifier trusts, each with its validity period. Parsed by
//! `sigstore-trust-root` and checked whole by `sigstore-verify` (keys, certificates, windows,
//! duplicate log ids) when it is read, so a root that loads is one the verifier can use.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::shown::one_line_path;

/// The public-good TUF repository, which `sigstore-trust-root` fetches the default root from.
pub const PUBLIC_TUF_URL: &str = "https://tuf-repo-cdn.sigstore.dev";

/// The largest trusted root read (the public-good one is about 7 KB).
pub(super) const MAX_ROOT_BYTES: u64 = 1 << 20;

/// A trusted root, parsed and prepared for verification.
#[derive(Clone)]
pub struct TrustedRoot {
    pub(crate) verifier: Arc<sigstore_verify::Verifier>,
    /// Where it came from, for messages.
    source: String,
}

impl std::fmt::Debug for TrustedRoot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrustedRoot").field("source", &self.source).finish_non_exhaustive()
    }
}

/// Why a trusted root cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TrustedRootError {
    /// The file cannot be read.
    #[error(
        "cannot read the Sigstore trusted root {}: {source}; pass --sigstore-trusted-root FILE with a readable trusted_root.json",
        one_line_path(path)
    )]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a trusted root we can use.
    #[error(
        "{source_name} is not a usable Sigstore trusted root: {reason}; pass a trusted_root.json as Sigstore publishes it (media type application/vnd.dev.sigstore.trustedroot+json)"
    )]
    Malformed {
        /// The file (or other source) name.
        source_name: String,
        /// What is wrong.
        reason: String,
    },
    /// A managed public key given as trust is not usable.
    #[error(
        "the Sigstore public key is not usable: {0}; pass a PEM `PUBLIC KEY` file (ECDSA, Ed25519 or RSA)"
    )]
    BadKey(#[source] sigstore_verify::types::Error),
    /// No file was given, the public-good root could not be fetched, and no usable copy is cached.
    #[error("no Sigstore trusted root: fetching the public-good root from its TUF repository {PUBLIC_TUF_URL} failed ({}), and {}", .failure, no_usable_copy(.cache, .unused.as_deref(), .failure))]
    NoDefault {
        /// Why the refresh failed.
        failure: RefreshFailure,
        /// The cache path that was looked at.
        cache: PathBuf,
        /// Why what is at the cache path was not used; `None` when nothing is there.
        unused: Option<Box<Unused>>,
    },
    /// No absolute directory to cache the public-good root in.
    #[error(
        "no cache directory for the Sigstore trusted root: XDG_CACHE_HOME and HOME are unset or not absolute paths; set HOME (or XDG_CACHE_HOME) to an absolute directory (`attest verify`, `attest export` and the other commands that check keyless signatures take --sigstore-trusted-root FILE, a trusted_root.json you trust, instead; `sigstore fetch-root` needs the cache)"
    )]
    NoCacheHome,
    /// An explicit refresh of the cached public-good root failed.
    #[error("cannot refresh the Sigstore public-good trusted root from its TUF repository {PUBLIC_TUF_URL}: {}; the cache at {} is unchanged; {}", .failure, one_line_path(.cache), .failure.advice())]
    Refresh {
        /// Why the refresh failed.
        failure: RefreshFailure,
        /// The cache path.
        cache: PathBuf,
    },
}

/// Why a file at the cache path was not used as the public-good root, and what makes it usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unused {
    /// Why, said of the file (`it is a FIFO, not a regular file`) or of its directory.
    pub why: String,
    /// What to do before the cache is refreshed (`remove it`).
    pub fix: String,
}

/// The rest of [`TrustedRootError::NoDefault`]'s message: that no copy is cached at `cache`, or
/// why the one there was not used ([`Unused`]), and what to do.
fn no_usable_copy(cache: &Path, unused: Option<&Unused>, failure: &RefreshFailure) -> String {
    let option = "pass --sigstore-trusted-root FILE with a trusted_root.json you trust";
    let (cache, advice) = (one_line_path(cache), failure.advice());
    match unused {
        None => format!("no usable copy is cached at {cache}; {option}, or {advice}"),
        Some(Unused { why, fix }) if *fix == advice => {
            format!("the file cached at {cache} was not used: {why}; {fix}, or {option}")
        }
        Some(Unused { why, fix }) => {
            format!("the file cached at {cache} was not used: {why}; {fix}, then {advice}, or {option}")
        }
    }
}

impl crate::exit::ExitClass for TrustedRootError {
    /// A root that cannot be had or used is the caller's trust to fix.
    fn class(&self) -> crate::exit::Class {
        match self {
            TrustedRootError::Read { .. }
            | TrustedRootError::Malformed { .. }
            | TrustedRootError::BadKey(_)
            | TrustedRootError::NoDefault { .. }
            | TrustedRootError::Refresh { .. }
            | TrustedRootError::NoCacheHome => crate::exit::Class::Config,
        }
    }
}

/// Why a refresh of the cached root failed.
#[derive(Debug, thiserror::Error)]
pub enum RefreshFailure {
    /// The cache directory cannot be made or the cache written: the fault is this machine's.
    #[error(transparent)]
    Cache(#[from] crate::output_file::OutputError),
    /// The async runtime of the fetch cannot start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The repository cannot be reached, its metadata does not verify, or the target is wrong.
    #[error(transparent)]
    Tuf(#[from] sigstore_trust_root::Error),
    /// The root fetched cannot be written out again as JSON.
    #[error("cannot encode the fetched root: {0}")]
    Encode(#[source] serde_json::Error),
    /// What it brought is not a root we can use.
    #[error("the fetched file is not usable: {0}")]
    NotUsable(#[source] Box<TrustedRootError>),
}

impl RefreshFailure {
    /// What to do about it.
    #[must_use]
    pub fn advice(&self) -> String {
        if let RefreshFailure::Cache(crate::output_file::OutputError {
            problem: crate::output_file::Problem::NotOwn(_),
            ..
        }) = self
        {
            "set XDG_CACHE_HOME to a directory of your own".to_owned()
        } else if let RefreshFailure::Cache(_) = self {
            "make the cache directory writable (it follows XDG_CACHE_HOME, else HOME/.cache)".to_owned()
        } else {
            format!("run again where {PUBLIC_TUF_URL} is reachable")
        }
    }
}

impl TrustedRoot {
    /// Reads and parses a `trusted_root.json` file (at most 1 MiB, a regular file).
    ///
    /// # Errors
    /// When the file cannot be read or is not a trusted root; the error names the file.
    pub fn from_file(path: &Path) -> Result<Self, TrustedRootError> {
        let bytes = crate::input::read_regular_through_links(path, MAX_ROOT_BYTES)
            .map_err(|e| TrustedRootError::Read { path: path.to_owned(), source: e.into_io() })?;
        Self::from_json(&bytes, &path.display().to_string())
    }

    /// Parses trusted-root JSON; `source_name` names it in errors.
    ///
    /// # Errors
    /// When the bytes are not a trusted root the verifier can use.
    pub fn from_json(bytes: &[u8], source_name: &str) -> Result<Self, TrustedRootError> {
        let bad =
            |reason: String| TrustedRootError::Malformed { source_name: source_name.to_owned(), reason };
        let text = std::str::from_utf8(bytes).map_err(|_| bad("not UTF-8".into()))?;
        let root =
            sigstore_verify::trust_root::TrustedRoot::from_json(text).map_err(|e| bad(e.to_string()))?;
        if !MEDIA_TYPES.contains(&root.media_type.as_str()) {
            return Err(bad(format!(
                "`mediaType` is {:?}, not a trusted root of a version this build reads ({})",
                crate::model::shown::shown(&root.media_type, 100),
                MEDIA_TYPES.join(", ")
            )));
        }
        if root.tlogs.is_empty() {
            return Err(bad("it names no transparency log (`tlogs` is empty)".into()));
        }
        // A keyless signature needs both a CA and a CT log (its certificate's SCT); a root of
        // managed keys needs neither. One without the other verifies no signature at all.
        if root.certificate_authorities.is_empty() != root.ctlogs.is_empty() {
            return Err(bad(
                "it names certificate authorities but no CT log, or CT logs but no certificate authority (`certificateAuthorities`, `ctlogs`): no keyless signature verifies against it".into(),
            ));
        }
        let verifier = sigstore_verify::Verifier::new(&root).map_err(|e| bad(e.to_string()))?;
        Ok(TrustedRoot { verifier: Arc::new(verifier), source: source_name.to_owned() })
    }

    /// Where the file came from.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// The trusted root media types this build reads, as Sigstore's protobuf-specs name them (and
/// sigstore-python takes them): a later version may mean fields this reader does not know.
const MEDIA_TYPES: [&str; 2] = [
    "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
    "application/vnd.dev.sigstore.trustedroot.v0.2+json",
];

/// How many directories above the cache file are the cache's own, `speccoder/sigstore/` and
/// `speccoder/` below the cache home: each must be this user's alone, as the file must
/// ([`crate::input::read_own`]).
pub(super) const CACHE_DIRS: usize = 2;

/// `$XDG_CACHE_HOME/speccoder/sigstore/trusted_root.json` (`$HOME/.cache/...` without it). A
/// relative XDG_CACHE_HOME is ignored, as the XDG base directory rules say, and a relative HOME
/// names no cache: resolved against the directory a command runs in, it would put the verifier's
/// trusted root inside the repository it checks.
///
/// # Errors
/// [`TrustedRootError::NoCacheHome`] when neither names an absolute directory.
pub fn default_cache_path() -> Result<PathBuf, TrustedRootError> {
    let absolute = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let base = absolute("XDG_CACHE_HOME")
        .or_else(|| absolute("HOME").map(|h| h.join(".cache")))
        .ok_or(TrustedRootError::NoCacheHome)?;
    Ok(base.join("speccoder").join("sigstore").join("trusted_root.json"))
}
