//! `speccoder attest push`, `attest fetch`, `attest carry` and `attest rejoin`: the evidence that
//! travels with the team.

use speccoder_attest::attest::carry::{self, CarryError, CarryRequest};
use speccoder_attest::attest::rejoin::{RejoinError, RejoinRequest, rejoin as rejoin_note};
use speccoder_attest::attest::signing::SignerError;
use speccoder_attest::attest::sync::{self, SyncError};
use speccoder_attest::check::trust::TrustFiles;
use speccoder_attest::git::Repo;

use crate::cli::{AttestCarryArgs, AttestFetchArgs, AttestPushArgs, RejoinArgs};

pub fn push(args: &AttestPushArgs) -> u8 {
    let result = Repo::discover(".").map_err(SyncError::from).and_then(|repo| {
        sync::push(&repo, args.remote.as_deref(), args.dry_run, &fetch_trust(&args.openpgp_certs))
    });
    super::output::finish_with(
        "attest push",
        args.json,
        result,
        |_| speccoder_attest::exit::OK,
        |e| match e {
            // What the remote said when it refused the push, line by line (made inert already).
            SyncError::Rejected { remote_said, .. } => {
                super::output::JsonFields::from_iter([("remote_said".to_owned(), remote_said.clone().into())])
            }
            _ => super::output::JsonFields::new(),
        },
    )
}

pub fn fetch(args: &AttestFetchArgs) -> u8 {
    let result = Repo::discover(".")
        .map_err(SyncError::from)
        .and_then(|repo| sync::fetch(&repo, args.remote.as_deref(), &fetch_trust(&args.openpgp_certs)));
    super::output::finish("attest fetch", args.json, result, sync::FetchReport::exit_code)
}

/// The trust a fetch checks joined notes against: git's SSH settings, and the OpenPGP
/// certificates given.
fn fetch_trust(openpgp_certs: &Option<std::path::PathBuf>) -> TrustFiles {
    TrustFiles { openpgp_certs: openpgp_certs.clone(), ..TrustFiles::default() }
}

/// The most bytes of rewritten commits read on stdin: about 200,000 lines of two commit ids, more
/// than any rebase rewrites.
const REWRITTEN_MAX_BYTES: u64 = 16 << 20;

/// `--rewritten`'s stdin, as text of at most [`REWRITTEN_MAX_BYTES`].
fn read_rewritten() -> Result<String, CarryError> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    let stdin = std::io::stdin().lock();
    stdin
        .take(REWRITTEN_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CarryError::Stdin(e.to_string()))?;
    if bytes.len() as u64 > REWRITTEN_MAX_BYTES {
        return Err(CarryError::Stdin(format!("it is more than {REWRITTEN_MAX_BYTES} bytes")));
    }
    String::from_utf8(bytes).map_err(|_| CarryError::Stdin("it is not UTF-8 text".to_owned()))
}

pub fn carry(args: &AttestCarryArgs) -> u8 {
    let result = (|| -> Result<carry::CarryReport, CarryError> {
        let repo = Repo::discover(".")?;
        let rewritten = if args.rewritten { Some(read_rewritten()?) } else { None };
        let request = CarryRequest {
            pair: args.from.clone().zip(args.to.clone()),
            rewritten,
            signing: super::signing::signer_request(&args.run.signing).map_err(SignerError::from)?,
            trust: TrustFiles {
                allowed_signers: args.allowed_signers.clone(),
                revoked: args.revoked.clone(),
                openpgp_certs: args.openpgp_certs.clone(),
                ..TrustFiles::default()
            },
        };
        carry::carry(&repo, &request)
    })();
    super::output::finish("attest carry", args.run.json, result, carry::CarryReport::exit_code)
}

pub fn rejoin(args: &RejoinArgs) -> u8 {
    let result = Repo::discover(".").map_err(RejoinError::from).and_then(|repo| {
        let request = RejoinRequest {
            rev: args.rev.clone(),
            notes_ref: args.notes_ref.clone(),
            trust: super::trust::trust_files(&args.trust),
            signature_time: super::trust::signature_time(&args.trust),
        };
        rejoin_note(&repo, &request)
    });
    super::output::finish("attest rejoin", args.json, result, |_| speccoder_attest::exit::OK)
}
