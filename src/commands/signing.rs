//! The signing flags every signing command shares (`--signer`, `--key`, `--sigstore-*`), turned
//! into the library's request, which [`speccoder_attest::attest::signing::resolve`] resolves.

use speccoder_attest::attest::config::{SignerChoice, SignerParseError};
use speccoder_attest::attest::signing::{SignerRequest, SigstoreFlags};

use crate::cli::{SigningArgs, SigstoreArgs};

/// `--signer` (parsed), `--key` and the `--sigstore-*` flags.
pub(crate) fn signer_request(args: &SigningArgs) -> Result<SignerRequest, SignerParseError> {
    Ok(SignerRequest {
        signer: args.signer.as_deref().map(SignerChoice::parse).transpose()?,
        key: args.key.clone(),
        sigstore: sigstore_service_flags(&args.sigstore),
    })
}

/// The `--sigstore-*` flags of a command that signs keylessly.
pub(crate) fn sigstore_service_flags(args: &SigstoreArgs) -> SigstoreFlags {
    SigstoreFlags {
        fulcio_url: args.fulcio_url.clone(),
        rekor_url: args.rekor_url.clone(),
        oidc_issuer: args.oidc_issuer.clone(),
        allow_http_loopback: args.allow_http_loopback,
        trusted_root: args.signing_root.clone(),
    }
}
