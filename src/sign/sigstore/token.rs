//! The OIDC identity token for keyless signing: `SIGSTORE_ID_TOKEN`, else the GitHub Actions
//! ambient token (audience `sigstore`), else the interactive browser flow of the sigstore crate.

use std::io::IsTerminal as _;

use serde_json::Value;

use super::config::SigstoreConfig;
use super::signer::SigstoreSignError;

/// The environment variable holding a ready identity token.
pub const TOKEN_ENV: &str = "SIGSTORE_ID_TOKEN";

/// Where a token came from, for the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenSource {
    /// `SIGSTORE_ID_TOKEN`.
    Environment,
    /// GitHub Actions' ambient OIDC token.
    GitHubActions,
    /// The interactive browser flow.
    Interactive,
}

/// Whether a token can be had without asking a person (the environment or CI's ambient token).
#[must_use]
pub fn ambient_token_available() -> bool {
    env_nonempty(TOKEN_ENV).is_some()
        || (env_nonempty("ACTIONS_ID_TOKEN_REQUEST_URL").is_some()
            && env_nonempty("ACTIONS_ID_TOKEN_REQUEST_TOKEN").is_some())
}

fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

/// Gets an identity token, trying the sources in order.
///
/// # Errors
/// When no source gives a token; the error says which sources were tried and how to provide one.
pub fn identity_token(
    config: &SigstoreConfig,
    client: &reqwest::blocking::Client,
) -> Result<(String, TokenSource), SigstoreSignError> {
    if let Some(token) = env_nonempty(TOKEN_ENV) {
        return Ok((token, TokenSource::Environment));
    }
    if let (Some(url), Some(bearer)) =
        (env_nonempty("ACTIONS_ID_TOKEN_REQUEST_URL"), env_nonempty("ACTIONS_ID_TOKEN_REQUEST_TOKEN"))
    {
        return github_actions_token(client, &url, &bearer).map(|t| (t, TokenSource::GitHubActions));
    }
    if config.interactive && std::io::stdin().is_terminal() {
        return interactive_token(config).map(|t| (t, TokenSource::Interactive));
    }
    Err(SigstoreSignError::NoToken)
}

fn github_actions_token(
    client: &reqwest::blocking::Client,
    url: &str,
    bearer: &str,
) -> Result<String, SigstoreSignError> {
    let sep = if url.contains('?') { '&' } else { '?' };
    let full = format!("{url}{sep}audience=sigstore");
    let response = client
        .get(&full)
        .bearer_auth(bearer)
        .send()
        .map_err(|e| SigstoreSignError::network("GitHub Actions OIDC", url, &e))?;
    let status = response.status();
    let text = response.text().map_err(|e| SigstoreSignError::network("GitHub Actions OIDC", url, &e))?;
    if !status.is_success() {
        return Err(SigstoreSignError::service("GitHub Actions OIDC", status.as_u16(), &text));
    }
    let v: Value = serde_json::from_str(&text)
        .map_err(|_| SigstoreSignError::bad_response("GitHub Actions OIDC", "not JSON"))?;
    v.get("value")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| SigstoreSignError::bad_response("GitHub Actions OIDC", "no `value` in the response"))
}

/// The sigstore crate's interactive OAuth flow (opens a browser, listens on localhost).
fn interactive_token(config: &SigstoreConfig) -> Result<String, SigstoreSignError> {
    let provider = sigstore::fulcio::oauth::OauthTokenProvider::default()
        .with_issuer(&config.oidc_issuer)
        .with_client_id(&config.oidc_client_id);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| SigstoreSignError::Interactive { reason: e.to_string() })?;
    let (token, _email) = runtime
        .block_on(provider.get_token())
        .map_err(|e| SigstoreSignError::Interactive { reason: e.to_string() })?;
    Ok(token.to_string())
}
