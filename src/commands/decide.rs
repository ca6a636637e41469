//! `speccoder accept` and `speccoder skip [--undo]`.

use speccoder_attest::attest::decide::{self, DecideError, DecisionRequest};
use speccoder_attest::attest::signing::SignerError;
use speccoder_attest::exit;
use speccoder_attest::git::Repo;

use super::output::finish;
use super::signing::signer_request;
use crate::cli::{AcceptArgs, SigningArgs, SkipArgs};

pub fn accept(args: &AcceptArgs) -> u8 {
    let result = request(&args.target, &args.reason, args.by.clone(), &args.run.signing)
        .and_then(|(repo, req)| decide::accept(&repo, &req));
    finish("accept", args.run.json, result, |_| exit::OK)
}

pub fn skip(args: &SkipArgs) -> u8 {
    if args.undo {
        let result = Repo::discover(".")
            .map_err(DecideError::from)
            .and_then(|repo| decide::undo_skip(&repo, &args.target));
        return finish("skip --undo", args.run.json, result, |_| exit::OK);
    }
    let reason = args.reason.as_deref().unwrap_or("");
    let result = request(&args.target, reason, args.by.clone(), &args.run.signing)
        .and_then(|(repo, req)| decide::skip(&repo, &req));
    finish("skip", args.run.json, result, |_| exit::OK)
}

fn request(
    target: &str,
    reason: &str,
    by: Option<String>,
    signing: &SigningArgs,
) -> Result<(Repo, DecisionRequest), DecideError> {
    let repo = Repo::discover(".")?;
    let signing = signer_request(signing).map_err(SignerError::from)?;
    let req = DecisionRequest { target: target.to_owned(), reason: reason.to_owned(), by, signing };
    Ok((repo, req))
}
