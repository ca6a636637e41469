//! The trust and policy flags (`TrustArgs`, `PolicyArgs`), turned into the library's requests:
//! every command that checks signatures or judges ticks reads them through here, and then
//! through the library's one loader of each.

use speccoder_attest::check::trust::{SignatureTime, TrustFiles};
use speccoder_attest::check::verifier_policy::PolicySource;

use crate::cli::{PolicyArgs, SignatureTimeArg, TrustArgs, TrustFileArgs};

/// The trust files and identities of `args`, whose signatures are checked with the real tools
/// when `--via-tools` was given.
pub(crate) fn trust_files(args: &TrustArgs) -> TrustFiles {
    TrustFiles { via_tools: args.via_tools, ..principal_files(&args.files) }
}

/// The trust files and identities of `args`, read for their principals: no signature is checked.
pub(crate) fn principal_files(args: &TrustFileArgs) -> TrustFiles {
    TrustFiles {
        allowed_signers: args.allowed_signers.clone(),
        allowed_signers_rev: args.allowed_signers_rev.clone(),
        revoked: args.revoked.clone(),
        openpgp_certs: args.openpgp_certs.clone(),
        sigstore_trusted_root: args.sigstore_trusted_root.clone(),
        certificate_identity: args.certificate_identity.clone(),
        certificate_oidc_issuer: args.certificate_oidc_issuer.clone(),
        via_tools: false,
        rev_flag: true,
    }
}

/// `--signature-time`, with `now` read once.
pub(crate) fn signature_time(args: &TrustArgs) -> SignatureTime {
    match args.signature_time {
        SignatureTimeArg::Commit => SignatureTime::Commit,
        SignatureTimeArg::Now => SignatureTime::Now(time::OffsetDateTime::now_utc()),
    }
}

/// `--policy` or `--policy-rev`, when one was given.
pub(crate) fn policy_source(args: &PolicyArgs) -> Option<PolicySource> {
    match (&args.policy, &args.policy_rev) {
        (Some(path), _) => Some(PolicySource::File(path.clone())),
        (None, Some(spec)) => Some(PolicySource::Rev(spec.clone())),
        (None, None) => None,
    }
}
