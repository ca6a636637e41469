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

    fn verify(&self, pae: &[u8], sig: &Signature) -> Result<String, String> {
        if sshsig::looks_armored(&sig.sig) {
            let parsed = sshsig::parse_armored(&sig.sig).map_err(|e| match e {
                sshsig::DecodeError::Malformed(why) => format!("a malformed SSH signature ({why})"),
                sshsig::DecodeError::Unsupported(why) => {
                    format!("an SSH signature that cannot be checked here ({why})")
                }
            })?;
            ssh_verify::check_signature(&parsed, pae, NAMESPACE).map_err(|e| e.to_string())?;
            return self.key(sig).ok_or_else(|| "an SSH signature whose key cannot be read".to_owned());
        }
        if is_openpgp(&sig.sig) {
            let Some(certs) = self.openpgp else {
                return Err(
                    "an OpenPGP signature, and this clone has no OpenPGP certificates to check it with"
                        .to_owned(),
                );
            };
            openpgp::verify(&sig.sig, pae, certs, self.now).map_err(|e| e.to_string())?;
            return self.key(sig).ok_or_else(|| "an OpenPGP signature that names no issuer".to_owned());
        }
        Err("a signature of a kind that cannot be checked here (neither SSH nor OpenPGP armor)".to_owned())
    }
}

fn is_openpgp(sig: &[u8]) -> bool {
    sig.trim_ascii_start().starts_with(OPENPGP_ARMOR.as_bytes())
}
