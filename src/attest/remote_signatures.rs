//! The signatures another clone's copy of a note adds, as `attest fetch` checks them before it
//! joins them to ours ([`crate::model::bundle::merge`]): an SSH signature carries its key and is
//! checked with it (namespace `in-toto`, over the line's PAE); an OpenPGP signature is checked
//! against the OpenPGP certificates this clone trusts, and a signature of any other kind, or one
//! whose key this clone does not have, cannot be checked here and so is never added. Trust is not
//! the question (the verifier decides it); that the signature is what it claims is.

use time::OffsetDateTime;

use crate::model::bundle::SignatureCheck;
use crate::model::dsse::Signature;
use crate::sign::openpgp::{self, ARMOR_HEADER as OPENPGP_ARMOR, OpenPgpCerts};
use crate::sign::ssh::sshsig::{self, NAMESPACE};
use crate::sign::ssh::verify as ssh_verify;

/// Checks the signatures a remote copy of a line adds (see the module documentation).
pub struct RemoteSignatures<'t> {
    /// The OpenPGP certificates this clone trusts, if any.
    pub openpgp: Option<&'t OpenPgpCerts>,
    /// The time OpenPGP signatures are checked at.
    pub now: OffsetDateTime,
}

impl SignatureCheck for RemoteSignatures<'_> {
    fn key(&self, sig: &Signature) -> Option<String> {
        if sshsig::looks_armored(&sig.sig) {
            let parsed = sshsig::parse_armored(&sig.sig).ok()?;
            return Some(format!("SSH key {}", ssh_verify::fingerprint(parsed.signer.signing_key())));
        }
        if is_openpgp(&sig.sig) {
            let issuers = openpgp::issuer_key_ids(&sig.sig).ok()?;
            return issuers.first().map(|id| format!("OpenPGP key {id}"));
        }
        None
    }

    type Refusal = Refusal;

    fn verify(&self, pae: &[u8], sig: &Signature) -> Result<String, Refusal> {
        if sshsig::looks_armored(&sig.sig) {
            let parsed = sshsig::parse_armored(&sig.sig).map_err(Refusal::SshDecode)?;
            ssh_verify::check_signature(&parsed, pae, NAMESPACE).map_err(Refusal::Ssh)?;
            return self.key(sig).ok_or(Refusal::SshKeyUnread);
        }
        if is_openpgp(&sig.sig) {
            let Some(certs) = self.openpgp else { return Err(Refusal::NoOpenPgpCerts) };
            openpgp::verify(&sig.sig, pae, certs, self.now).map_err(Refusal::OpenPgp)?;
            return self.key(sig).ok_or(Refusal::NoIssuer);
        }
        Err(Refusal::UnknownKind)
    }
}

/// Why a remote copy's signature is not added.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// An SSH signature that does not decode, or of a kind this build does not check.
    #[error("{}", undecoded(.0))]
    SshDecode(sshsig::DecodeError),
    /// An SSH signature that does not verify.
    #[error(transparent)]
    Ssh(ssh_verify::SshVerifyError),
    /// An SSH signature whose key cannot be read back.
    #[error("an SSH signature whose key cannot be read")]
    SshKeyUnread,
    /// An OpenPGP signature, and no certificates to check it with.
    #[error("an OpenPGP signature, and this clone has no OpenPGP certificates to check it with")]
    NoOpenPgpCerts,
    /// An OpenPGP signature that does not verify.
    #[error(transparent)]
    OpenPgp(openpgp::OpenPgpVerifyError),
    /// An OpenPGP signature that names no issuer.
    #[error("an OpenPGP signature that names no issuer")]
    NoIssuer,
    /// Neither SSH nor OpenPGP.
    #[error("a signature of a kind that cannot be checked here (neither SSH nor OpenPGP armor)")]
    UnknownKind,
}

/// Why an SSH signature was not decoded, as a sentence fragment.
fn undecoded(e: &sshsig::DecodeError) -> String {
    match e {
        sshsig::DecodeError::Malformed(why) => format!("a malformed SSH signature ({why})"),
        sshsig::DecodeError::Unsupported(why) => {
            format!("an SSH signature that cannot be checked here ({why})")
        }
    }
}

fn is_openpgp(sig: &[u8]) -> bool {
    sig.trim_ascii_start().starts_with(OPENPGP_ARMOR.as_bytes())
}
