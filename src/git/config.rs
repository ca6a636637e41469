//! Configuration values as gix resolves them (repository, includes, global, environment), and the
//! origin URL with credentials removed.

use std::path::PathBuf;

use gix::bstr::ByteSlice;

use super::error::GitError;
use super::repo::Repo;

impl Repo {
    /// The value of configuration `key` (`section.name` or `section.sub.name`), last one wins;
    /// `None` when unset or not UTF-8.
    pub fn config_string(&self, key: &str) -> Option<String> {
        let value = self.inner.config_snapshot().string(key)?;
        value.to_str().ok().map(str::to_owned)
    }

    /// The path in configuration `key` with `~` expanded, taken only from trusted configuration
    /// files; `None` when unset.
    pub fn config_path(&self, key: &str) -> Result<Option<PathBuf>, GitError> {
        self.inner.config_snapshot().trusted_path(key).map_err(|source| GitError::Gix {
            action: format!("read the path in configuration `{key}`"),
            source,
        })
    }

    /// The URL of remote `origin` without credentials: `user:password@` removed everywhere and
    /// any `user@` removed for http(s); `None` without an origin or for a URL with control
    /// characters or whitespace.
    pub fn origin_url_without_credentials(&self) -> Option<String> {
        strip_credentials(&self.config_string("remote.origin.url")?)
    }
}

/// `url` with its credentials removed (see [`Repo::origin_url_without_credentials`]).
pub fn strip_credentials(url: &str) -> Option<String> {
    if url.is_empty() || url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return None;
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return Some(strip_scp_like(url));
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return Some(url.to_owned());
    };
    let is_http = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    let user = match userinfo.split_once(':') {
        _ if is_http => None,
        Some((user, _password)) => Some(user),
        None => Some(userinfo),
    };
    Some(match user {
        Some(user) if !user.is_empty() => format!("{scheme}://{user}@{host}{tail}"),
        _ => format!("{scheme}://{host}{tail}"),
    })
}

/// `user:password@host:path` loses `user:password@`; `user@host:path` and paths stay.
fn strip_scp_like(url: &str) -> String {
    let first_segment = url.split('/').next().unwrap_or(url);
    match first_segment.rsplit_once('@') {
        Some((userinfo, _)) if userinfo.contains(':') => url[userinfo.len() + 1..].to_owned(),
        _ => url.to_owned(),
    }
}
