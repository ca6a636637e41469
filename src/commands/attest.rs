//! `speccoder attest` and `speccoder attest sign`.

use speccoder_attest::attest::pipeline::{AttestRequest, attest};
use speccoder_attest::attest::sign_later::sign_later;
use speccoder_attest::attest::signing::{self, SignerChoice};
use speccoder_attest::attest::{AttestError, Report};
use speccoder_attest::exit;
use speccoder_attest::git::Repo;

use crate::cli::{AttestArgs, AttestSub, SigningArgs};

pub fn run(args: AttestArgs) -> u8 {
    let json = match &args.sub {
        Some(AttestSub::Verify(_)) => {
            let Some(AttestSub::Verify(v)) = args.sub else { return exit::INTERNAL };
            return super::verify::run(&v);
        }
        Some(AttestSub::Sign(s)) => s.json,
        None => args.json,
    };
    let result = (|| -> Result<Report, AttestError> {
        // Everything `attest` writes is stored as one pack when the branch moves.
        let repo = Repo::discover(".")?.holding_new_objects();
        match args.sub {
            Some(AttestSub::Verify(_)) => Err(AttestError::Nothing(String::new())),
            Some(AttestSub::Sign(s)) => {
                let choice = signer_choice(&repo, &s.signing)?;
                sign_later(&repo, &s.rev, choice, s.signing.key.as_deref())
            }
            None => {
                let (Some(target), Some(evidence)) = (args.target, args.evidence) else {
                    return Err(AttestError::Target(String::new()));
                };
                let signer = signer_flag(&args.signing)?;
                attest(&repo, &AttestRequest { target, evidence, signer, key: args.signing.key })
            }
        }
    })();
    super::output::finish("attest", json, result, |_| exit::OK, AttestError::exit_code)
}

/// `--signer`, parsed.
fn signer_flag(args: &SigningArgs) -> Result<Option<SignerChoice>, AttestError> {
    args.signer.as_deref().map(|s| SignerChoice::parse(s).map_err(AttestError::BadSigner)).transpose()
}

/// `--signer`, else `[attest] signer` from speccoder.toml at HEAD, else auto.
pub(crate) fn signer_choice(repo: &Repo, args: &SigningArgs) -> Result<SignerChoice, AttestError> {
    use speccoder_attest::git::Head;
    let flag = signer_flag(args)?;
    let policy = match flag.is_none().then(|| repo.head()).transpose()? {
        Some(Head::Branch { commit, .. } | Head::Detached(commit)) => {
            speccoder_attest::attest::read_policy(repo, commit)?.1
        }
        Some(Head::Unborn(_)) | None => None,
    };
    signing::requested(flag, policy.as_ref())
}
