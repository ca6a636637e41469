//! `speccoder attest` and `speccoder attest sign`.

use speccoder_attest::attest::pipeline::{AttestRequest, attest};
use speccoder_attest::attest::sign_later::sign_later;
use speccoder_attest::attest::signing::SignerChoice;
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
                let choice = signer_choice(&repo, &args.signing)?;
                attest(&repo, &AttestRequest { target, evidence, signer: choice, key: args.signing.key })
            }
        }
    })();
    super::finish("attest", json, result, |_| exit::OK, AttestError::exit_code)
}

/// `--signer`, else `[attest] signer` from speccoder.toml at HEAD, else auto.
pub(crate) fn signer_choice(repo: &Repo, args: &SigningArgs) -> Result<SignerChoice, AttestError> {
    let configured = match &args.signer {
        Some(s) => Some(s.clone()),
        None => match repo.head()? {
            speccoder_attest::git::Head::Branch { commit, .. }
            | speccoder_attest::git::Head::Detached(commit) => {
                let (_, table) = speccoder_attest::attest::read_policy(repo, commit)?;
                table
                    .as_ref()
                    .and_then(|t| t.get("attest"))
                    .and_then(|a| a.get("signer"))
                    .and_then(|s| s.as_str())
                    .map(str::to_owned)
            }
            speccoder_attest::git::Head::Unborn(_) => None,
        },
    };
    match configured {
        None => Ok(SignerChoice::Auto),
        Some(s) => SignerChoice::parse(&s).map_err(AttestError::BadSigner),
    }
}
