//! The Sigstore trusted root (`trusted_root.json`, media type
//! `application/vnd.dev.sigstore.trustedroot+json;version=0.1`): the Fulcio CAs, Rekor logs, CT
//! logs and timestamp authorities a verifier trusts, each with its validity period. The file is
//! the caller's trust and still hostile input: every field is checked, and a malformed file is an
//! error that names it.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::crypto::PublicKey;
use super::x509::Cert;

/// A trusted root, parsed.
#[derive(Clone, Debug)]
pub struct TrustedRoot {
    pub(crate) tlogs: Vec<LogKey>,
    pub(crate) ctlogs: Vec<LogKey>,
    pub(crate) cas: Vec<Authority>,
    pub(crate) tsas: Vec<Authority>,
    /// Where it came from, for messages.
    pub(crate) source: String,
}

/// A closed validity interval; `start` absent only when the file gave no `validFor` at all.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Validity {
    start: Option<OffsetDateTime>,
    end: Option<OffsetDateTime>,
}

impl Validity {
    /// Whether `at` lies in the interval, both ends included.
    pub(crate) fn contains(&self, at: OffsetDateTime) -> bool {
        self.start.is_none_or(|s| s <= at) && self.end.is_none_or(|e| at <= e)
    }
}

/// A transparency log (Rekor or CT) key.
#[derive(Clone, Debug)]
pub(crate) struct LogKey {
    /// `host[:port]` of the log's base URL: the name its checkpoints are signed under.
    pub(crate) origin: Option<String>,
    /// The log id (SHA-256 of the key, as the file gives it).
    pub(crate) key_id: Vec<u8>,
    /// The key; `None` when its algorithm is one we cannot check.
    pub(crate) key: Option<PublicKey>,
    pub(crate) valid: Validity,
}

/// A certificate authority (Fulcio) or timestamp authority: its chain, leaf-most first.
#[derive(Clone, Debug)]
pub(crate) struct Authority {
    pub(crate) chain: Vec<Cert>,
    pub(crate) valid: Validity,
}

/// Why a trusted root cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TrustedRootError {
    /// The file cannot be read.
    #[error("cannot read the Sigstore trusted root {}: {source}; pass --sigstore-trusted-root FILE with a readable trusted_root.json", path.display())]
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
        /// What is wrong, and where in the file.
        reason: String,
    },
    /// A managed public key given as trust is not usable.
    #[error(
        "the Sigstore public key is not usable: {reason}; pass a PEM `PUBLIC KEY` file (ECDSA, Ed25519 or RSA)"
    )]
    BadKey {
        /// What is wrong.
        reason: String,
    },
    /// No file was given, the public-good root could not be fetched, and no usable copy is cached.
    #[error("no Sigstore trusted root: fetching the public-good root from its TUF repository {url} failed ({reason}), and no usable copy is cached at {}; pass --sigstore-trusted-root FILE with a trusted_root.json you trust, or run again where {url} is reachable", cache.display())]
    NoDefault {
        /// The TUF repository asked.
        url: &'static str,
        /// Why the fetch failed.
        reason: String,
        /// The cache path that was looked at.
        cache: PathBuf,
    },
    /// An explicit refresh of the cached public-good root failed.
    #[error("cannot refresh the Sigstore public-good trusted root from its TUF repository {url}: {reason}; the cache at {} is unchanged; run again where {url} is reachable", cache.display())]
    Refresh {
        /// The TUF repository asked.
        url: &'static str,
        /// Why the fetch failed.
        reason: String,
        /// The cache path.
        cache: PathBuf,
    },
}

impl TrustedRoot {
    /// Reads and parses a `trusted_root.json` file.
    ///
    /// # Errors
    /// When the file cannot be read or is not a trusted root; the error names the file.
    pub fn from_file(path: &Path) -> Result<Self, TrustedRootError> {
        let bytes =
            std::fs::read(path).map_err(|source| TrustedRootError::Read { path: path.to_owned(), source })?;
        Self::from_json(&bytes, &path.display().to_string())
    }

    /// Parses trusted-root JSON; `source_name` names it in errors.
    ///
    /// # Errors
    /// When the bytes are not a trusted root.
    pub fn from_json(bytes: &[u8], source_name: &str) -> Result<Self, TrustedRootError> {
        parse(bytes, source_name)
            .map_err(|reason| TrustedRootError::Malformed { source_name: source_name.to_owned(), reason })
    }

    /// Where the file came from.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// `$XDG_CACHE_HOME/speccoder/sigstore/trusted_root.json` (`~/.cache/...` without XDG_CACHE_HOME).
#[must_use]
pub fn default_cache_path() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("speccoder").join("sigstore").join("trusted_root.json")
}

fn parse(bytes: &[u8], _name: &str) -> Result<TrustedRoot, String> {
    let root: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON ({e})"))?;
    let media = root.get("mediaType").and_then(Value::as_str).ok_or("`mediaType` is missing")?;
    if !media.starts_with("application/vnd.dev.sigstore.trustedroot") {
        return Err(format!("`mediaType` is {media:?}, not a trusted root"));
    }
    let tlogs = list(&root, "tlogs")?
        .iter()
        .enumerate()
        .map(|(i, v)| log_key(v, &format!("tlogs[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let ctlogs = list(&root, "ctlogs")?
        .iter()
        .enumerate()
        .map(|(i, v)| log_key(v, &format!("ctlogs[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let cas = list(&root, "certificateAuthorities")?
        .iter()
        .enumerate()
        .map(|(i, v)| authority(v, &format!("certificateAuthorities[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let tsas = list(&root, "timestampAuthorities")?
        .iter()
        .enumerate()
        .map(|(i, v)| authority(v, &format!("timestampAuthorities[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    if tlogs.is_empty() {
        return Err("it names no transparency log (`tlogs` is empty)".into());
    }
    Ok(TrustedRoot { tlogs, ctlogs, cas, tsas, source: _name.to_owned() })
}

fn list<'a>(root: &'a Value, field: &str) -> Result<&'a [Value], String> {
    match root.get(field) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(format!("`{field}` is not a list")),
    }
}

fn b64(v: &Value, at: &str) -> Result<Vec<u8>, String> {
    let s = v.as_str().ok_or_else(|| format!("`{at}` is missing or not a string"))?;
    STANDARD.decode(s).map_err(|_| format!("`{at}` is not base64"))
}

fn validity(v: Option<&Value>, at: &str) -> Result<Validity, String> {
    let Some(v) = v else { return Ok(Validity { start: None, end: None }) };
    let time = |field: &str| -> Result<Option<OffsetDateTime>, String> {
        match v.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => OffsetDateTime::parse(s, &Rfc3339)
                .map(Some)
                .map_err(|_| format!("`{at}.validFor.{field}` is not an RFC 3339 time")),
            Some(_) => Err(format!("`{at}.validFor.{field}` is not a string")),
        }
    };
    // A validity period must have its start: a missing start is a broken file, never "forever".
    let start = time("start")?.ok_or_else(|| format!("`{at}.validFor` has no `start`"))?;
    Ok(Validity { start: Some(start), end: time("end")? })
}

fn log_key(v: &Value, at: &str) -> Result<LogKey, String> {
    let pk = v.get("publicKey").ok_or_else(|| format!("`{at}.publicKey` is missing"))?;
    let raw = b64(pk.get("rawBytes").unwrap_or(&Value::Null), &format!("{at}.publicKey.rawBytes"))?;
    let details = pk.get("keyDetails").and_then(Value::as_str).unwrap_or("");
    let key = if details.starts_with("PKCS1_RSA") {
        Some(PublicKey::from_pkcs1_rsa(&raw))
    } else {
        PublicKey::from_spki(&raw).ok()
    };
    let key_id = b64(
        v.get("logId").and_then(|l| l.get("keyId")).unwrap_or(&Value::Null),
        &format!("{at}.logId.keyId"),
    )?;
    let origin = v.get("baseUrl").and_then(Value::as_str).map(url_authority);
    Ok(LogKey { origin, key_id, key, valid: validity(pk.get("validFor"), &format!("{at}.publicKey"))? })
}

fn authority(v: &Value, at: &str) -> Result<Authority, String> {
    let certs = v
        .get("certChain")
        .and_then(|c| c.get("certificates"))
        .and_then(Value::as_array)
        .ok_or_else(|| format!("`{at}.certChain.certificates` is missing"))?;
    if certs.is_empty() {
        return Err(format!("`{at}.certChain.certificates` is empty"));
    }
    let chain = certs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let here = format!("{at}.certChain.certificates[{i}]");
            Cert::parse(&b64(c.get("rawBytes").unwrap_or(&Value::Null), &format!("{here}.rawBytes"))?)
                .map_err(|e| format!("`{here}` is {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Authority { chain, valid: validity(v.get("validFor"), at)? })
}

/// `host[:port]` of a URL (`https://rekor.sigstore.dev` gives `rekor.sigstore.dev`).
pub(crate) fn url_authority(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?', '#']).next().unwrap_or("").to_owned()
}
