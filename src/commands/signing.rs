//! The signing flags every signing command shares (`--signer`, `--key`, `--sigstore-*`), turned
//! into the library's requests.

use speccoder_attest::attest::AttestError;
use speccoder_attest::attest::signing::{self, SignerChoice, SigstoreFlags};
use speccoder_attest::git::Repo;

use crate::cli::{SigningArgs, SigstoreArgs};

/// The `--sigstore-*` flags.
pub(crate) fn sigstore_flags(args: &SigningArgs) -> SigstoreFlags {
    sigstore_service_flags(&args.sigstore)
}

/// The `--sigstore-*` flags of a command that signs keylessly.
pub(crate) fn sigstore_service_flags(args: &SigstoreArgs) -> SigstoreFlags {
    SigstoreFlags {
        fulcio_url: args.fulcio_url.clone(),
        rekor_url: args.rekor_url.clone(),
        oidc_issuer: args.oidc_issuer.clone(),
        allow_http_loopback: args.allow_http_loopback,
    }
}

/// `--signer`, parsed.
pub(crate) fn signer_flag(args: &SigningArgs) -> Result<Option<SignerChoice>, AttestError> {
    args.signer.as_deref().map(|s| SignerChoice::parse(s).map_err(AttestError::BadSigner)).transpose()
}

/// `--signer`, else `[attest]` of speccoder.toml at HEAD (`signer`, and `sign_at` when a task is
/// being ticked: `at_tick`), else git's own key.
pub(crate) fn signer_choice(
    repo: &Repo,
    args: &SigningArgs,
    at_tick: bool,
) -> Result<SignerChoice, AttestError> {
    use speccoder_attest::git::Head;
    let flag = signer_flag(args)?;
    let policy = match flag.is_none().then(|| repo.head()).transpose()? {
        Some(Head::Branch { commit, .. } | Head::Detached(commit)) => {
            speccoder_attest::attest::read_policy(repo, commit)?.1
        }
        Some(Head::Unborn(_)) | None => None,
    };
    signing::requested(flag, policy.as_ref(), at_tick)
}
