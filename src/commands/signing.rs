//! The signing flags every signing command shares (`--signer`, `--key`, `--sigstore-*`), turned
//! into the library's request, which [`speccoder_attest::attest::signing::resolve`] resolves.

use speccoder_attest::attest::config::{SignerChoice, SignerParseError};
use speccoder_attest::attest::signing::{SignerRequest, SigstoreFlags};

use crate::cli::SigningArgs;

/// `--signer` (parsed), `--key` and the `--sigstore-*` flags.
pub(crate) fn signer_request(args: &SigningArgs) -> Result<SignerRequest, SignerParseError> {
    Ok(SignerRequest {
        signer: args.signer.as_deref().map(SignerChoice::parse).transpose()?,
        key: args.key.clone(),
        sigstore: SigstoreFlags {
            fulcio_url: args.sigstore.fulcio_url.clone(),
            rekor_url: args.sigstore.rekor_url.clone(),
            oidc_issuer: args.sigstore.oidc_issuer.clone(),
            allow_http_loopback: args.sigstore.allow_http_loopback,
        },
    })
}
