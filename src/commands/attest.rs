//! `speccoder attest` and `speccoder attest sign`.

use speccoder_attest::attest::pipeline::{AttestRequest, attest};
use speccoder_attest::attest::sign_later::sign_later;
use speccoder_attest::attest::signing::{self, SignerChoice, SigstoreFlags};
use speccoder_attest::attest::{AttestError, Report};
use speccoder_attest::exit;
use speccoder_attest::git::Repo;

use crate::cli::{AttestArgs, AttestSub, SigningArgs};

pub fn run(args: AttestArgs) -> u8 {
    let json = match args.sub {
        Some(AttestSub::Verify(v)) => return super::verify::run(&v),
        Some(AttestSub::Push(p)) => return super::team::push(&p),
        Some(AttestSub::Fetch(f)) => return super::team::fetch(&f),
        Some(AttestSub::Carry(c)) => return super::team::carry(&c),
        Some(AttestSub::Sign(ref s)) => s.run.json,
        None => args.run.json,
    };
    let result = (|| -> Result<Report, AttestError> {
        let repo = Repo::discover(".")?;
        match args.sub {
            Some(AttestSub::Verify(_) | AttestSub::Push(_) | AttestSub::Fetch(_) | AttestSub::Carry(_)) => {
                Err(AttestError::Nothing(String::new()))
            }
            Some(AttestSub::Sign(s)) => {
                let signing = &s.run.signing;
                let choice = signer_choice(&repo, signing, false)?;
                sign_later(&repo, &s.rev, choice, signing.key.as_deref(), &sigstore_flags(signing))
            }
            None => {
                let (Some(target), Some(evidence)) = (args.target, args.evidence) else {
                    return Err(AttestError::Target(String::new()));
                };
                let signing = args.run.signing;
                let (signer, sigstore) = (signer_flag(&signing)?, sigstore_flags(&signing));
                attest(&repo, &AttestRequest { target, evidence, signer, key: signing.key, sigstore })
            }
        }
    })();
    super::output::finish("attest", json, result, |_| exit::OK, AttestError::exit_code)
}

/// The `--sigstore-*` flags.
pub(crate) fn sigstore_flags(args: &SigningArgs) -> SigstoreFlags {
    SigstoreFlags {
        fulcio_url: args.sigstore.fulcio_url.clone(),
        rekor_url: args.sigstore.rekor_url.clone(),
        oidc_issuer: args.sigstore.oidc_issuer.clone(),
        allow_http_loopback: args.sigstore.allow_http_loopback,
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
