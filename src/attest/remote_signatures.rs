//! The signatures another clone's copy of a note adds, as `attest fetch` checks them before it
//! joins them to ours ([`crate::model::bundle::merge`]), and `attest rejoin` those another copy of
//! a line adds ([`crate::model::bundle::join_copies`]): an SSH signature carries its key and is
//! checked with it (namespace `in-toto`, over the line's PAE); an OpenPGP signature is checked
//! against the OpenPGP certificates this clone trusts, and a signature of any other kind, or one
//! whose key this clone does not have, cannot be checked here and so is never added. Whether the
//! user's trust accepts a signature is not what decides that it joins (the verifier decides what
//! it counts for); that the signature is what it claims is, and that the trust revokes no key of
//! it ([`signatures::to_join`]: the user's revocations, whether or not the trust lists the key).
//! Those the trust accepts take a line's free places first.

use time::OffsetDateTime;

use crate::check::signatures::{self, ToJoin};
use crate::check::trust::SignatureTrust;
use crate::model::bundle::{SignatureCheck, Verified};
use crate::model::dsse::Signature;
use crate::sign::openpgp::{self, ARMOR_HEADER as OPENPGP_ARMOR};
use crate::sign::ssh::sshsig::{self, NAMESPACE};
use crate::sign::ssh::verify as ssh_verify;

/// Checks the signatures a remote copy of a line adds (see the module documentation).
pub struct RemoteSignatures<'t> {
    /// The user's trust: its OpenPGP certificates check OpenPGP signatures; it says which
    /// signatures it accepts, and which keys it revokes.
    pub trust: &'t SignatureTrust,
    /// The time OpenPGP signatures are checked at.
    pub now: OffsetDateTime,
    /// The time the trust judges keys at (as the verifier judges the line's).
    pub at: OffsetDateTime,
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

    fn verify(&self, pae: &[u8], sig: &Signature) -> Result<Verified, Refusal> {
        let key = self.signed(pae, sig)?;
        let trusted = match signatures::to_join(&sig.sig, pae, self.trust, self.at) {
            ToJoin::Trusted => true,
            ToJoin::Revoked(why) => return Err(Refusal::Revoked(why)),
            ToJoin::Other => false,
        };
        Ok(Verified { key, trusted })
    }
}

impl RemoteSignatures<'_> {
    /// The key that made `sig`, when it verifies over `pae` with the key it carries (SSH) or a
    /// certificate of the trust (OpenPGP).
    fn signed(&self, pae: &[u8], sig: &Signature) -> Result<String, Refusal> {
        if sshsig::looks_armored(&sig.sig) {
            let parsed = sshsig::parse_armored(&sig.sig).map_err(Refusal::SshDecode)?;
            ssh_verify::check_signature(&parsed, pae, NAMESPACE).map_err(Refusal::Ssh)?;
            return self.key(sig).ok_or(Refusal::SshKeyUnread);
        }
        if is_openpgp(&sig.sig) {
            let Some(certs) = self.trust.openpgp.as_ref() else { return Err(Refusal::NoOpenPgpCerts) };
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
    /// By a key the user's trust revokes: why, as the verifier says it.
    #[error("{0}")]
    Revoked(String),
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
