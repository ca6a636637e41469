//! `speccoder attest` and `speccoder attest sign`.

use speccoder_attest::attest::pipeline::{AttestError, AttestRequest, attest};
use speccoder_attest::attest::sign_later::{SignLaterError, sign_later};
use speccoder_attest::attest::signing::SignerError;
use speccoder_attest::attest::target::BadTarget;
use speccoder_attest::exit;
use speccoder_attest::git::Repo;

use super::output::finish;
use super::signing::signer_request;
use crate::cli::{AttestArgs, AttestSub};

pub fn run(args: AttestArgs) -> u8 {
    match args.sub {
        Some(AttestSub::Verify(v)) => super::verify::run(&v),
        Some(AttestSub::Export(e)) => super::export::run(&e),
        Some(AttestSub::Push(p)) => super::team::push(&p),
        Some(AttestSub::Fetch(f)) => super::team::fetch(&f),
        Some(AttestSub::Carry(c)) => super::team::carry(&c),
        Some(AttestSub::Approve(a)) => super::policy::approve_run(&a),
        Some(AttestSub::Rejoin(r)) => super::team::rejoin(&r),
        Some(AttestSub::Policy(p)) => super::policy::run(&p),
        Some(AttestSub::Sign(s)) => {
            let result = (|| -> Result<_, SignLaterError> {
                let repo = Repo::discover(".")?;
                let signing = signer_request(&s.run.signing).map_err(SignerError::from)?;
                sign_later(&repo, &s.rev, &signing)
            })();
            finish("attest sign", s.run.json, result, |_| exit::OK)
        }
        None => {
            let result = (|| -> Result<_, AttestError> {
                let repo = Repo::discover(".")?;
                let (Some(target), Some(evidence)) = (args.target, args.evidence) else {
                    return Err(BadTarget(String::new()).into());
                };
                let signing = signer_request(&args.run.signing).map_err(SignerError::from)?;
                let held_out_store = args.held_out_store;
                attest(&repo, &AttestRequest { target, evidence, signing, held_out_store })
            })();
            finish("attest", args.run.json, result, |_| exit::OK)
        }
    }
}
