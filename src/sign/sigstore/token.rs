//! The OIDC identity token for keyless signing: `SIGSTORE_ID_TOKEN`, else the CI's ambient token
//! (GitHub Actions and others, through `sigstore-oidc`), else the interactive login at the
//! configured issuer when a person is at a terminal. What the token says decides the identity and
//! issuer the certificate Fulcio returns must carry ([`TokenIdentity`]).

use std::io::IsTerminal as _;

use base64::Engine as _;
use sigstore_sign::oidc::{DefaultAuthCallback, IdentityToken, OAuthClient, OAuthConfig};
use sigstore_sign::{Signer, SigningContext};

use super::config::SigstoreConfig;
use super::error::SigstoreSignError;
use crate::model::shown::with_causes;

/// The environment variable holding a ready identity token.
pub const TOKEN_ENV: &str = "SIGSTORE_ID_TOKEN";

/// GitHub Actions' token issuer: Fulcio names the workflow, not the subject, as the identity.
const GITHUB_ACTIONS_ISSUER: &str = "https://token.actions.githubusercontent.com";

/// The certificate identity (SAN) and OIDC issuer Fulcio issues for a token whose mapping is
/// known: the `email` claim when there is one; for GitHub Actions the workflow URI
/// (`https://github.com/` and the `job_workflow_ref` claim). The issuer is the token's `iss`, or
/// for a federated login (Sigstore's Dex) the upstream issuer it names. Other CI issuers (GitLab,
/// Buildkite, ...) map claims in ways of their own: for them nothing is told beforehand, and the
/// certificate's identity is read from it and shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenIdentity {
    /// The identity the certificate must carry.
    pub identity: String,
    /// The OIDC issuer the certificate must name.
    pub issuer: String,
}

impl TokenIdentity {
    /// What `token` says, when its issuer's mapping is known.
    fn of(token: &IdentityToken) -> Option<TokenIdentity> {
        let claims = token.claims();
        let federated = claims.federated_claims.as_ref().and_then(|f| f.connector_id.clone());
        let issuer = federated.filter(|c| !c.is_empty()).unwrap_or_else(|| claims.iss.clone());
        let identity = if claims.iss == GITHUB_ACTIONS_ISSUER {
            claim(token.expose_secret(), "job_workflow_ref").map(|r| format!("https://github.com/{r}"))?
        } else {
            claims.email.clone().filter(|e| !e.is_empty())?
        };
        Some(TokenIdentity { identity, issuer })
    }
}

/// The string claim `name` of a JWT's payload, read without checking the token (Fulcio checks it):
/// for a claim sigstore-oidc's `TokenClaims` does not carry (`job_workflow_ref`).
fn claim(jwt: &str, name: &str) -> Option<String> {
    let payload = jwt.split('.').nth(1)?;
    let bytes =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    value.get(name)?.as_str().map(str::to_owned)
}

/// A signer holding an identity token from the first source that has one, and what the token says.
///
/// # Errors
/// A token that does not read, an ambient lookup or a login that fails, or no source at all.
pub(crate) async fn signer(
    context: &SigningContext,
    config: &SigstoreConfig,
) -> Result<(Signer, Option<TokenIdentity>), SigstoreSignError> {
    let token = token(config).await?;
    let said = TokenIdentity::of(&token);
    Ok((context.signer(token), said))
}

/// The identity token, from the first source that has one.
async fn token(config: &SigstoreConfig) -> Result<IdentityToken, SigstoreSignError> {
    let failed = |reason| SigstoreSignError::failed(config, reason);
    if let Some(jwt) = std::env::var(TOKEN_ENV).ok().filter(|v| !v.trim().is_empty()) {
        return IdentityToken::from_jwt(jwt.trim())
            .map_err(|e| failed(format!("{TOKEN_ENV} is not a JWT identity token: {e}")));
    }
    if let Some(token) = IdentityToken::detect_ambient().await.map_err(|e| failed(with_causes(&e)))? {
        return Ok(token);
    }
    if config.interactive && std::io::stdin().is_terminal() {
        let client =
            OAuthClient::new(OAuthConfig::dex(&config.oidc_issuer)).map_err(|e| failed(with_causes(&e)))?;
        return client.authenticate(DefaultAuthCallback).await.map_err(|e| failed(with_causes(&e)));
    }
    Err(SigstoreSignError::NoToken)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(claims: &serde_json::Value) -> String {
        let enc = |v: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
        format!("{}.{}.c2ln", enc(br#"{"alg":"none"}"#), enc(claims.to_string().as_bytes()))
    }

    fn said(claims: serde_json::Value) -> Option<TokenIdentity> {
        TokenIdentity::of(&IdentityToken::from_jwt(&jwt(&claims)).unwrap())
    }

    #[test]
    fn an_email_token_names_its_email_and_issuer_and_a_federated_one_its_upstream_issuer() {
        let base = serde_json::json!({"iss": "https://issuer.test", "sub": "s", "aud": "sigstore", "exp": 4102444800_u64});
        let mut email = base.clone();
        email["email"] = "ada@example.com".into();
        assert_eq!(
            said(email.clone()),
            Some(TokenIdentity { identity: "ada@example.com".into(), issuer: "https://issuer.test".into() })
        );
        email["federated_claims"] = serde_json::json!({"connector_id": "https://github.com/login/oauth"});
        assert_eq!(said(email).unwrap().issuer, "https://github.com/login/oauth");
    }

    #[test]
    fn a_github_actions_token_names_its_workflow_and_another_ci_token_nothing_beforehand() {
        let claims = serde_json::json!({"iss": GITHUB_ACTIONS_ISSUER, "sub": "repo:o/r:ref:refs/heads/main", "aud": "sigstore", "exp": 4102444800_u64, "job_workflow_ref": "o/r/.github/workflows/ci.yml@refs/heads/main"});
        assert_eq!(
            said(claims).unwrap().identity,
            "https://github.com/o/r/.github/workflows/ci.yml@refs/heads/main"
        );
        let gitlab = serde_json::json!({"iss": "https://gitlab.com", "sub": "project_path:o/r:ref_type:branch:ref:main", "aud": "sigstore", "exp": 4102444800_u64});
        assert_eq!(said(gitlab), None);
    }
}
