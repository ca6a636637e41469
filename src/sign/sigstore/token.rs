//! The OIDC identity token for keyless signing: `SIGSTORE_ID_TOKEN`, else the CI's ambient token
//! (GitHub Actions and others, through `sigstore-oidc`), else the interactive login at the
//! configured issuer when a person is at a terminal.

use std::io::IsTerminal as _;

use sigstore_sign::oidc::IdentityToken;
use sigstore_sign::{Signer, SigningContext};

use super::config::SigstoreConfig;
use super::error::SigstoreSignError;
use crate::model::shown::with_causes;

/// The environment variable holding a ready identity token.
pub const TOKEN_ENV: &str = "SIGSTORE_ID_TOKEN";

/// A signer holding an identity token from the first source that has one.
///
/// # Errors
/// A token that does not read, an ambient lookup or a login that fails, or no source at all.
pub(crate) async fn signer(
    context: &SigningContext,
    config: &SigstoreConfig,
) -> Result<Signer, SigstoreSignError> {
    let failed = |reason| SigstoreSignError::failed(config, reason);
    if let Some(jwt) = std::env::var(TOKEN_ENV).ok().filter(|v| !v.trim().is_empty()) {
        let token = IdentityToken::from_jwt(jwt.trim())
            .map_err(|e| failed(format!("{TOKEN_ENV} is not a JWT identity token: {e}")))?;
        return Ok(context.signer(token));
    }
    if let Some(token) = IdentityToken::detect_ambient().await.map_err(|e| failed(with_causes(&e)))? {
        return Ok(context.signer(token));
    }
    if config.interactive && std::io::stdin().is_terminal() {
        return context.authenticate().await.map_err(|e| failed(with_causes(&e)));
    }
    Err(SigstoreSignError::NoToken)
}
