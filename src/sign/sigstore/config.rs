//! Where keyless signing sends the identity token: Fulcio, Rekor and the OIDC issuer. Only the
//! person signing chooses them (flags, the environment, their git config), never the checked-in
//! `speccoder.toml`, which whoever writes the branch controls; without a choice, Sigstore's
//! public-good instance. Every URL is `https`; plain `http` only to a loopback address and only
//! when explicitly allowed (for tests).

/// The public-good Fulcio.
pub const PUBLIC_FULCIO_URL: &str = "https://fulcio.sigstore.dev";
/// The public-good Rekor.
pub const PUBLIC_REKOR_URL: &str = "https://rekor.sigstore.dev";
/// The public-good OIDC issuer for the interactive flow.
pub const PUBLIC_OIDC_ISSUER: &str = "https://oauth2.sigstore.dev/auth";

/// One service URL the signer can be pointed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// Fulcio, which receives the identity token.
    Fulcio,
    /// Rekor, which receives the signed envelope and certificate.
    Rekor,
    /// The OIDC issuer of the interactive login.
    OidcIssuer,
}

impl Endpoint {
    /// All of them.
    pub const ALL: [Endpoint; 3] = [Endpoint::Fulcio, Endpoint::Rekor, Endpoint::OidcIssuer];

    /// The command-line flag.
    #[must_use]
    pub fn flag(self) -> &'static str {
        match self {
            Endpoint::Fulcio => "--sigstore-fulcio-url",
            Endpoint::Rekor => "--sigstore-rekor-url",
            Endpoint::OidcIssuer => "--sigstore-oidc-issuer",
        }
    }

    /// The environment variable.
    #[must_use]
    pub fn env_var(self) -> &'static str {
        match self {
            Endpoint::Fulcio => "SPECCODER_SIGSTORE_FULCIO_URL",
            Endpoint::Rekor => "SPECCODER_SIGSTORE_REKOR_URL",
            Endpoint::OidcIssuer => "SPECCODER_SIGSTORE_OIDC_ISSUER",
        }
    }

    /// The git configuration key (per user, as git keeps them: `git config --global ...`).
    #[must_use]
    pub fn git_key(self) -> &'static str {
        match self {
            Endpoint::Fulcio => "speccoder.sigstore.fulcioUrl",
            Endpoint::Rekor => "speccoder.sigstore.rekorUrl",
            Endpoint::OidcIssuer => "speccoder.sigstore.oidcIssuer",
        }
    }

    /// The key the old `[attest.sigstore]` table of `speccoder.toml` used, now refused.
    #[must_use]
    pub fn old_toml_key(self) -> &'static str {
        match self {
            Endpoint::Fulcio => "fulcio_url",
            Endpoint::Rekor => "rekor_url",
            Endpoint::OidcIssuer => "oidc_issuer",
        }
    }

    fn public_good(self) -> &'static str {
        match self {
            Endpoint::Fulcio => PUBLIC_FULCIO_URL,
            Endpoint::Rekor => PUBLIC_REKOR_URL,
            Endpoint::OidcIssuer => PUBLIC_OIDC_ISSUER,
        }
    }
}

/// The services keyless signing talks to, and how it may get an identity token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigstoreConfig {
    /// Fulcio's base URL.
    pub fulcio_url: String,
    /// Rekor's base URL.
    pub rekor_url: String,
    /// The OIDC issuer of the interactive flow.
    pub oidc_issuer: String,
    /// Whether the interactive (browser) flow may be used when no token is in the environment.
    pub interactive: bool,
    /// Seconds to wait for each service.
    pub timeout_secs: u64,
}

impl Default for SigstoreConfig {
    fn default() -> Self {
        SigstoreConfig {
            fulcio_url: PUBLIC_FULCIO_URL.to_owned(),
            rekor_url: PUBLIC_REKOR_URL.to_owned(),
            oidc_issuer: PUBLIC_OIDC_ISSUER.to_owned(),
            interactive: true,
            timeout_secs: 60,
        }
    }
}

impl SigstoreConfig {
    /// The configuration from the first source that sets each endpoint: `pick` returns the value
    /// and a description of where it came from (`--sigstore-fulcio-url`, `git config
    /// speccoder.sigstore.fulcioUrl`); unset endpoints are the public-good instance's.
    ///
    /// # Errors
    /// A URL that is not `https` (or `http` to a loopback address with `allow_http_loopback`),
    /// naming where it came from.
    pub fn from_sources(
        pick: impl Fn(Endpoint) -> Option<(String, String)>,
        allow_http_loopback: bool,
    ) -> Result<Self, String> {
        let mut config = SigstoreConfig::default();
        for endpoint in Endpoint::ALL {
            let url = match pick(endpoint) {
                Some((url, from)) => {
                    check_url(&url, allow_http_loopback).map_err(|why| format!("{from} = {url:?}: {why}"))?;
                    url
                }
                None => endpoint.public_good().to_owned(),
            };
            match endpoint {
                Endpoint::Fulcio => config.fulcio_url = url,
                Endpoint::Rekor => config.rekor_url = url,
                Endpoint::OidcIssuer => config.oidc_issuer = url,
            }
        }
        Ok(config)
    }
}

/// Whether `url` may receive a credential: `https://host...`, or `http://` to 127.0.0.0/8,
/// `localhost` or `[::1]` when `allow_http_loopback`; never with user information.
///
/// # Errors
/// Why not, and what to use instead.
pub fn check_url(url: &str, allow_http_loopback: bool) -> Result<(), String> {
    let (scheme, rest) = url.split_once("://").ok_or("not a URL (no scheme); use https://HOST")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.is_empty() {
        return Err("no host".into());
    }
    if authority.contains('@') {
        return Err("user information in a service URL is refused".into());
    }
    match scheme.to_ascii_lowercase().as_str() {
        "https" => Ok(()),
        "http" if !allow_http_loopback => Err(
            "plain http would send the identity token unencrypted; use https (http is allowed only to a loopback address, with --sigstore-allow-http-loopback, for tests)"
                .into(),
        ),
        "http" if is_loopback(authority) => Ok(()),
        "http" => Err("plain http is allowed only to a loopback address (127.0.0.0/8, localhost, [::1])".into()),
        other => Err(format!("the scheme {other:?} is not https")),
    }
}

/// Whether `host[:port]` names the loopback interface.
fn is_loopback(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_allowed_loopback_http_may_receive_a_token() {
        for ok in ["https://fulcio.example", "https://fulcio.example:8443/x"] {
            assert_eq!(check_url(ok, false), Ok(()), "{ok}");
        }
        for loopback in ["http://127.0.0.1:8080", "http://localhost", "http://[::1]:9/x", "http://127.8.9.1"] {
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
    fn the_first_source_wins_and_the_rest_is_public_good() {
        let config = SigstoreConfig::from_sources(
            |e| (e == Endpoint::Rekor).then(|| ("https://rekor.example".into(), "test".into())),
            false,
        )
        .unwrap();
        assert_eq!(config.rekor_url, "https://rekor.example");
        assert_eq!(config.fulcio_url, PUBLIC_FULCIO_URL);
        assert_eq!(config.oidc_issuer, PUBLIC_OIDC_ISSUER);
        let err = SigstoreConfig::from_sources(
            |_| Some(("http://evil.example".into(), "git config speccoder.sigstore.fulcioUrl".into())),
            true,
        )
        .unwrap_err();
        assert!(err.starts_with("git config speccoder.sigstore.fulcioUrl = \"http://evil.example\""), "{err}");
    }
}
