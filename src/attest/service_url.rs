//! Where keyless signing may send the identity token: the service URLs the person signing chose
//! (flags, environment, their git config; never the checked-in `speccoder.toml`), each checked
//! before any is used. Every URL is `https`; plain `http` only to a loopback address and only when
//! explicitly allowed (for tests). The producer's rule, beside the one that refuses the URLs in
//! `speccoder.toml` ([`super::signing`]): the Sigstore adapter only uses the configuration made
//! here.

use crate::model::clean;
use crate::model::shown::{SHOWN_MAX, shown};
use crate::sign::sigstore::SigstoreConfig;

/// The configuration with the URLs the person signing chose, `[Fulcio, Rekor, OIDC issuer]`, each
/// with where it came from (`--sigstore-fulcio-url`, `git config ...`); the others are the
/// public-good instance's.
///
/// # Errors
/// A URL that is not `https` (or `http` to a loopback address with `allow_http_loopback`), naming
/// where it came from.
pub fn sigstore_config(
    chosen: [Option<(String, String)>; 3],
    allow_http_loopback: bool,
) -> Result<SigstoreConfig, ServiceUrlError> {
    let check = |(url, from): (String, String)| match check_url(&url, allow_http_loopback) {
        Ok(()) => Ok(url),
        Err(problem) => Err(ServiceUrlError { from, url: url_shown(&url), problem }),
    };
    let [fulcio, rekor, oidc] = chosen.map(|c| c.map(check).transpose());
    let public = SigstoreConfig::default();
    Ok(SigstoreConfig {
        fulcio_url: fulcio?.unwrap_or(public.fulcio_url),
        rekor_url: rekor?.unwrap_or(public.rekor_url),
        oidc_issuer: oidc?.unwrap_or(public.oidc_issuer),
        ..public
    })
}

/// A service URL the person signing chose that may not receive the identity token, with where it
/// came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{from} = {url}: {problem}")]
pub struct ServiceUrlError {
    /// Where it came from (`--sigstore-fulcio-url`, `git config ...`).
    pub from: String,
    /// The URL as the refusal quotes it ([`url_shown`]): never its user information.
    pub url: String,
    /// Why it may not.
    pub problem: UrlProblem,
}

/// Why a URL may not receive a credential, and what to use instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlProblem {
    /// It does not parse as a URL.
    #[error("not a URL ({0}); use https://HOST")]
    NotAUrl(url::ParseError),
    /// It carries a user name or password.
    #[error("user information in a service URL is refused (it is not shown here): remove it")]
    UserInfo,
    /// It names no host.
    #[error("no host")]
    NoHost,
    /// Plain `http` without `--sigstore-allow-http-loopback`.
    #[error(
        "plain http would send the identity token unencrypted; use https (http is allowed only to a loopback address, with --sigstore-allow-http-loopback, for tests)"
    )]
    PlainHttp,
    /// Plain `http` to a host that is not a loopback address.
    #[error("plain http is allowed only to a loopback address (127.0.0.0/8, localhost, [::1])")]
    HttpNotLoopback,
    /// Another scheme than `https`.
    #[error("the scheme {0:?} is not https")]
    Scheme(String),
}

/// `url` as a refusal quotes it, in quotes: its user information (a password, a token as the user
/// name), when it has some, removed as the `url` crate reads it, and the rest only when it passes
/// the clean check (a URL that does not parse is checked as it is). It may come from a CI secret.
fn url_shown(url: &str) -> String {
    let with_user = |parsed: &url::Url| !parsed.username().is_empty() || parsed.password().is_some();
    let bare = url::Url::parse(url).ok().filter(with_user).map(|mut parsed| {
        // Neither fails for a URL that has a host, the only kind with user information.
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
        parsed.to_string()
    });
    let text = bare.as_deref().unwrap_or(url);
    match clean::check_str(text) {
        Ok(()) => format!("\"{}\"", shown(text, SHOWN_MAX)),
        Err(leak) => clean::not_shown(&leak),
    }
}

/// Whether `url` may receive a credential: `https://host...`, or `http://` to 127.0.0.0/8,
/// `localhost` or `[::1]` when `allow_http_loopback`; never with user information. Read by the
/// `url` crate, as the HTTP client that connects reads it, so the host checked is the host asked.
///
/// # Errors
/// Why not, and what to use instead.
pub fn check_url(url: &str, allow_http_loopback: bool) -> Result<(), UrlProblem> {
    let parsed = url::Url::parse(url).map_err(UrlProblem::NotAUrl)?;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(UrlProblem::UserInfo);
    }
    let loopback = match parsed.host() {
        None => return Err(UrlProblem::NoHost),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
    };
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if !allow_http_loopback => Err(UrlProblem::PlainHttp),
        "http" if loopback => Ok(()),
        "http" => Err(UrlProblem::HttpNotLoopback),
        other => Err(UrlProblem::Scheme(other.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_allowed_loopback_http_may_receive_a_token() {
        for ok in ["https://fulcio.example", "https://fulcio.example:8443/x"] {
            assert_eq!(check_url(ok, false), Ok(()), "{ok}");
        }
        for loopback in ["http://127.0.0.1:8080", "http://localhost", "http://[::1]:9/x", "http://127.8.9.1"]
        {
            assert!(check_url(loopback, false).is_err(), "{loopback} without the flag");
            assert_eq!(check_url(loopback, true), Ok(()), "{loopback} with the flag");
        }
        for bad in [
            "http://fulcio.example",
            "http://10.0.0.1",
            "http://127.0.0.1.example.com",
            "ftp://fulcio.example",
            "https://user:pw@fulcio.example",
            "fulcio.example",
            "https://",
        ] {
            assert!(check_url(bad, true).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_chosen_url_is_used_and_the_rest_is_public_good() {
        let config =
            sigstore_config([None, Some(("https://rekor.example".into(), "test".into())), None], false)
                .unwrap();
        assert_eq!(config.rekor_url, "https://rekor.example");
        assert_eq!(config.fulcio_url, SigstoreConfig::default().fulcio_url);
        assert_eq!(config.oidc_issuer, SigstoreConfig::default().oidc_issuer);
        let chosen = Some(("http://evil.example".into(), "git config speccoder.sigstore.fulcioUrl".into()));
        let err = sigstore_config([chosen, None, None], true).unwrap_err().to_string();
        assert!(
            err.starts_with("git config speccoder.sigstore.fulcioUrl = \"http://evil.example\""),
            "{err}"
        );
    }

    #[test]
    fn a_url_refused_for_its_user_information_is_named_without_it() {
        for (url, shown) in [
            ("https://ci:S3cr3tPassw0rdQ9@rekor.example.com", "\"https://rekor.example.com/\""),
            (
                "https://ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k@rekor.example.com/x",
                "\"https://rekor.example.com/x\"",
            ),
            (
                "https://ci:S3cr3tPassw0rdQ9@[::1",
                "(a value not shown, as it holds a URL with a user name and password)",
            ),
        ] {
            let chosen = Some((url.to_owned(), "SPECCODER_SIGSTORE_REKOR_URL".to_owned()));
            let err = sigstore_config([None, chosen, None], false).unwrap_err().to_string();
            assert!(err.starts_with(&format!("SPECCODER_SIGSTORE_REKOR_URL = {shown}: ")), "{err}");
            assert!(!err.contains("S3cr3t") && !err.contains("R8x2Kq9L"), "{err}");
        }
    }
}
