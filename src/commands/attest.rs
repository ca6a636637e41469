//! `speccoder attest` and `speccoder attest sign`.

use speccoder_attest::attest::pipeline::{AttestRequest, attest};
use speccoder_attest::attest::sign_later::sign_later;
use speccoder_attest::attest::{AttestError, Report};
use speccoder_attest::exit;
use speccoder_attest::git::Repo;

use super::signing::{signer_choice, signer_flag, sigstore_flags};
use crate::cli::{AttestArgs, AttestSub};

pub fn run(args: AttestArgs) -> u8 {
    let json = match args.sub {
        Some(AttestSub::Verify(v)) => return super::verify::run(&v),
        Some(AttestSub::Export(e)) => return super::export::run(&e),
        Some(AttestSub::Push(p)) => return super::team::push(&p),
        Some(AttestSub::Fetch(f)) => return super::team::fetch(&f),
        Some(AttestSub::Carry(c)) => return super::team::carry(&c),
        Some(AttestSub::Approve(a)) => return super::policy::approve_run(&a),
        Some(AttestSub::Policy(p)) => return super::policy::run(&p),
        Some(AttestSub::Sign(ref s)) => s.run.json,
        None => args.run.json,
    };
    let result = (|| -> Result<Report, AttestError> {
        let repo = Repo::discover(".")?;
        match args.sub {
            Some(
                AttestSub::Verify(_)
                | AttestSub::Export(_)
                | AttestSub::Push(_)
                | AttestSub::Fetch(_)
                | AttestSub::Carry(_)
                | AttestSub::Approve(_)
                | AttestSub::Policy(_),
            ) => Err(AttestError::Nothing(String::new())),
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
