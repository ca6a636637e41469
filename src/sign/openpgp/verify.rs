//! In-process verification of an armored detached OpenPGP signature against the caller's trusted
//! certificates, under sequoia's `StandardPolicy`, with sqv's time semantics:
//!
//! - the certificate and the signing key are judged at the signature's creation time: bound by a
//!   valid self-signature, not expired, not revoked, flagged for signing (a hard revocation, such
//!   as "key compromised" or one without a reason, counts at every time; a soft one, such as
//!   "superseded" or "retired", only from its own creation on);
//! - the signature itself is judged at the caller's time `at`: made no later than `at` and not
//!   expired at `at`.

use std::time::SystemTime;

use sequoia_openpgp::anyhow;
use sequoia_openpgp::cert::prelude::*;
use sequoia_openpgp::packet::{Signature, key};
use sequoia_openpgp::parse::Parse;
use sequoia_openpgp::parse::stream::{
    DetachedVerifierBuilder, GoodChecksum, MessageLayer, MessageStructure, VerificationError,
    VerificationHelper,
};
use sequoia_openpgp::policy::{HashAlgoSecurity, Policy as _, StandardPolicy};
use sequoia_openpgp::types::RevocationStatus;
use sequoia_openpgp::{Cert, Error as PgpError, Fingerprint, KeyHandle, Packet};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::certs::{OpenPgpCerts, policy, principals};
use super::signature;

/// A signature that verified and was made by a key of a trusted certificate.
///
/// One key may be bound by several trusted certificates (a signing subkey whose holder made a
/// back-signature for each): nothing signed tells which of them made the signature, so each is
/// its signer. `fingerprint` and `user_ids` are the first of them by fingerprint, whatever the
/// order of the file; [`Self::also_bound_by`] the others (usually none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenPgpVerified {
    /// The primary key fingerprint of the trusted certificate (uppercase hex): the signer.
    pub fingerprint: String,
    /// The fingerprint of the (sub)key that made the signature (uppercase hex).
    pub signing_key_fingerprint: String,
    /// The certificate's principals: the user ids it validly bound at the signature's creation
    /// time and has revoked neither then nor since, lossily decoded.
    pub user_ids: Vec<String>,
    /// The signature's creation time, as the signature states it.
    pub signed_at: OffsetDateTime,
    /// Every other trusted certificate that validly binds the key that made the signature at
    /// its creation time ([`binds_for_signing`]), by fingerprint: its primary key fingerprint
    /// and principals, read as `fingerprint`'s and `user_ids`.
    pub also_bound_by: Vec<(String, Vec<String>)>,
}

impl OpenPgpVerified {
    /// Each certificate that may have made the signature, by fingerprint: its primary key
    /// fingerprint and principals.
    pub fn binders(&self) -> impl Iterator<Item = (&str, &[String])> {
        std::iter::once((self.fingerprint.as_str(), self.user_ids.as_slice()))
            .chain(self.also_bound_by.iter().map(|(f, u)| (f.as_str(), u.as_slice())))
    }
}

/// Why a signature does not hold; each variant is one verifier outcome.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpenPgpVerifyError {
    /// Not exactly one armored, detached, binary-mode OpenPGP signature.
    #[error("malformed OpenPGP signature: {reason}")]
    Malformed {
        /// What is malformed.
        reason: String,
    },
    /// The signature does not verify over these bytes, or the policy rejects it (e.g. SHA-1).
    #[error("bad OpenPGP signature: {reason}")]
    BadSignature {
        /// What did not verify.
        reason: String,
    },
    /// No trusted certificate holds a key that can be taken to have made the signature.
    #[error("untrusted OpenPGP signer {issuer}: {reason}")]
    UntrustedSigner {
        /// The issuer named by the signature (fingerprint or key id), or `unknown`.
        issuer: String,
        /// Why no trusted certificate applies; names the certificate file.
        reason: String,
    },
    /// The certificate or signing key had expired when the signature was made, or the signature
    /// has expired at the verification time.
    #[error("expired OpenPGP signature or key of {fingerprint}: {reason}")]
    Expired {
        /// The certificate's primary key fingerprint.
        fingerprint: String,
        /// What expired, and when.
        reason: String,
    },
    /// The certificate or the signing key is revoked.
    #[error("revoked OpenPGP key {fingerprint}: {reason}")]
    Revoked {
        /// The certificate's primary key fingerprint.
        fingerprint: String,
        /// What is revoked.
        reason: String,
    },
    /// The signature was made after the verification time, or before its key existed.
    #[error("OpenPGP signature not yet valid: {reason}")]
    NotYetValid {
        /// Which times disagree.
        reason: String,
    },
    /// The signature, or the key that made it, is of a kind the format does not allow and gpg 2.2
    /// and sqv cannot check (a v6 signature, a SHA3 hash, an RFC 9580 key algorithm).
    #[error("unsupported OpenPGP signature: {reason}")]
    Unsupported {
        /// What was used, and what to sign with instead.
        reason: String,
    },
    /// A trusted certificate holds the key, but its binding of the key is rejected (no
    /// back-signature, a hash or algorithm the policy rejects, a signature that does not verify).
    #[error("OpenPGP key binding rejected by {fingerprint}: {reason}")]
    BindingRejected {
        /// The certificate's primary key fingerprint.
        fingerprint: String,
        /// Which key, and why its binding is rejected.
        reason: String,
    },
    /// The key that made the signature is not flagged for signing (e.g. an encryption subkey).
    #[error("OpenPGP key of {fingerprint} is not signing-capable: {reason}")]
    NotSigningCapable {
        /// The certificate's primary key fingerprint.
        fingerprint: String,
        /// Which key made the signature.
        reason: String,
    },
}

/// Verifies `armored_sig` over `message`, made by a key of one of `certs`, at time `at`.
pub fn verify(
    armored_sig: &[u8],
    message: &[u8],
    certs: &OpenPgpCerts,
    at: OffsetDateTime,
) -> Result<OpenPgpVerified, OpenPgpVerifyError> {
    let malformed = |reason: String| OpenPgpVerifyError::Malformed { reason };
    let detached = checkable(armored_sig, certs)?;
    let policy = policy();
    let helper = Helper { certs, outcome: None };
    let mut verifier = DetachedVerifierBuilder::from_bytes(&detached.binary)
        .and_then(|b| b.with_policy(&policy, SystemTime::from(at), helper))
        .map_err(|e| malformed(format!("the signature does not parse: {e}")))?;
    verifier
        .verify_bytes(message)
        .map_err(|e| malformed(format!("the signature could not be checked: {e}")))?;
    verifier
        .into_helper()
        .outcome
        .unwrap_or_else(|| Err(malformed("the verifier reported no result for the signature".to_owned())))
}

/// Hands sequoia the trusted certificates and keeps the verdict on the one signature.
struct Helper<'c> {
    certs: &'c OpenPgpCerts,
    outcome: Option<Result<OpenPgpVerified, OpenPgpVerifyError>>,
}

impl VerificationHelper for Helper<'_> {
    fn get_certs(&mut self, ids: &[KeyHandle]) -> sequoia_openpgp::Result<Vec<Cert>> {
        Ok(self
            .certs
            .certs()
            .iter()
            .filter(|c| c.keys().any(|k| ids.iter().any(|id| id.aliases(k.key().key_handle()))))
            .cloned()
            .collect())
    }

    fn check(&mut self, structure: MessageStructure) -> sequoia_openpgp::Result<()> {
        let file = self.certs.path().display().to_string();
        for layer in structure {
            if let MessageLayer::SignatureGroup { results } = layer {
                // One result: `checkable` lets one signature through. sequoia checks it with the
                // certificates in the file's order and reports the first that holds; `verified`
                // reports every certificate binding its key, whatever their order.
                self.outcome = results.into_iter().next().map(|r| match r {
                    Ok(good) => Ok(verified(&good, self.certs)),
                    Err(e) => Err(classify(e, &file)),
                });
            }
        }
        Ok(())
    }
}

fn verified(good: &GoodChecksum<'_>, certs: &OpenPgpCerts) -> OpenPgpVerified {
    signer(certs, good.ka.cert(), &good.ka.key().fingerprint(), good.sig)
}

/// The signers of `sig`, made by the key `key` of `cert`, as a verification reports them:
/// `cert` and every other certificate of `certs` that validly binds `key` at the signature's
/// creation time ([`binds_for_signing`]), by fingerprint, so that neither the order of the file
/// nor the path that verified it chooses among them.
fn signer(certs: &OpenPgpCerts, cert: &Cert, key: &Fingerprint, sig: &Signature) -> OpenPgpVerified {
    let signed_at = creation_time(sig);
    let others = certs.certs().iter().filter(|c| c.fingerprint() != cert.fingerprint());
    let mut binders: Vec<&Cert> = others.filter(|c| binds_for_signing(c, key, signed_at)).collect();
    binders.push(cert);
    binders.sort_by_cached_key(|c| c.fingerprint().to_hex());
    let mut each = binders.into_iter().map(|c| (c.fingerprint().to_hex(), principals(c, signed_at)));
    let (fingerprint, user_ids) = each.next().unwrap_or_else(|| (cert.fingerprint().to_hex(), Vec::new()));
    OpenPgpVerified {
        fingerprint,
        signing_key_fingerprint: key.to_hex(),
        user_ids,
        signed_at: OffsetDateTime::from(signed_at),
        also_bound_by: each.collect(),
    }
}

/// Whether `cert` binds the key `key` at `at` so that a signature it made then holds, as the
/// verifier judges the certificate sequoia checks a signature with: bound under [`policy`], the
/// certificate and the key alive, neither revoked, the key flagged for signing.
fn binds_for_signing(cert: &Cert, key: &Fingerprint, at: SystemTime) -> bool {
    let policy = policy();
    let Some(ka) = cert.keys().key_handle(key.clone()).next() else { return false };
    ka.with_policy(&policy, at).is_ok_and(|ka| {
        ka.valid_cert().alive().is_ok()
            && ka.alive().is_ok()
            && !matches!(ka.valid_cert().revocation_status(), RevocationStatus::Revoked(_))
            && !matches!(ka.revocation_status(), RevocationStatus::Revoked(_))
            && ka.for_signing()
    })
}

/// The signer of `armored_sig` when another verifier (sqv) accepted it as made by the certificate
/// `fingerprint` of `certs`: the same report as [`verify`]'s, read from the same certificates, so
/// that both paths give a signer the same principals, and the same certificates binding its key
/// whichever of them sqv named. `None` when `certs` has no such
/// certificate holding a key the signature names, or the signature is of a shape
/// [`refused_before_checking`] refuses: either is a disagreement with sqv, never a signer.
#[must_use]
pub fn signer_of(armored_sig: &[u8], certs: &OpenPgpCerts, fingerprint: &str) -> Option<OpenPgpVerified> {
    let sig = signature::parse_armored(armored_sig).ok()?.sig;
    let cert = certs.by_fingerprint(fingerprint)?;
    let key = cert.keys().key_handles(sig.get_issuers()).next()?.key().fingerprint();
    Some(signer(certs, cert, &key, &sig))
}

/// Why `armored_sig` is refused before any verifier runs ([`checkable`]), so that `--via-tools`
/// refuses it as [`verify`] does: sqv accepts some of these (a text-mode signature, two
/// signatures in one, text after the armor) and crashes on others (a SHA3 hash, no issuer).
/// `None` when a verifier may judge it.
#[must_use]
pub fn refused_before_checking(armored_sig: &[u8], certs: &OpenPgpCerts) -> Option<OpenPgpVerifyError> {
    checkable(armored_sig, certs).err()
}

/// `armored_sig` read as both paths read it before any verifier runs: exactly one armored,
/// detached, binary-mode signature ([`signature::parse_armored`]; else `Malformed`, saying why),
/// naming its issuer (sequoia's policy cannot require one; else [`no_issuer`]), inside the format
/// ([`outside_format`]; else `Unsupported`).
fn checkable(armored_sig: &[u8], certs: &OpenPgpCerts) -> Result<signature::Detached, OpenPgpVerifyError> {
    let detached = signature::parse_armored(armored_sig)
        .map_err(|e| OpenPgpVerifyError::Malformed { reason: e.to_string() })?;
    if detached.sig.get_issuers().is_empty() {
        return Err(no_issuer());
    }
    match outside_format(&detached.sig, certs) {
        Some(reason) => Err(OpenPgpVerifyError::Unsupported { reason }),
        None => Ok(detached),
    }
}

/// A signature that names no issuer: nothing to look up, and nothing to export.
fn no_issuer() -> OpenPgpVerifyError {
    OpenPgpVerifyError::UntrustedSigner {
        issuer: "unknown".to_owned(),
        reason: "the signature names no issuer (no issuer fingerprint or key id subpacket), so no certificate can be found for it; sign again with gpg or `speccoder attest --signer openpgp`, which name the signing key".to_owned(),
    }
}

/// What [`policy`] rejects in `sig` (or in a key of `certs` it names) that sequoia's standard
/// policy accepts: what the format leaves out, said with what was used and what to sign with.
fn outside_format(sig: &Signature, certs: &OpenPgpCerts) -> Option<String> {
    const CANNOT: &str =
        "which gpg 2.2 and sqv cannot check (the format is an armored detached v4 signature)";
    const SIGN_WITH: &str = "sign with a v4 key as gpg 2.2 makes it (ed25519, nistp256, nistp384, or RSA of 2048 bits or more) over SHA-256 or SHA-512, as `speccoder attest --signer openpgp` does";
    let (ours, standard) = (policy(), StandardPolicy::new());
    if ours.packet(&Packet::from(sig.clone())).is_err() {
        return Some(format!("a version {} signature, {CANNOT}; {SIGN_WITH}", sig.version()));
    }
    let hash_ok = |p: &StandardPolicy<'_>| p.signature(sig, HashAlgoSecurity::CollisionResistance).is_ok();
    if !hash_ok(&ours) && hash_ok(&standard) {
        return Some(format!("a signature over the hash {}, {CANNOT}; {SIGN_WITH}", sig.hash_algo()));
    }
    let at = creation_time(sig);
    certs.certs().iter().flat_map(|c| c.keys().key_handles(sig.get_issuers())).find_map(|ka| {
        let rejected = ka.clone().with_policy(&ours, at).is_err() && ka.clone().with_policy(&standard, at).is_ok();
        rejected.then(|| {
            let algorithm = ka.key().pk_algo();
            format!(
                "made by the key {} of {}, an RFC 9580 {algorithm} key (public-key algorithm {}), {CANNOT}; {SIGN_WITH}",
                ka.key().fingerprint().to_hex(),
                ka.cert().fingerprint().to_hex(),
                u8::from(algorithm)
            )
        })
    })
}

/// Turns sequoia's verdict into our outcome, with a reason a person can act on.
fn classify(error: VerificationError<'_>, file: &str) -> OpenPgpVerifyError {
    match error {
        VerificationError::MalformedSignature { error, .. } => {
            OpenPgpVerifyError::Malformed { reason: error.to_string() }
        }
        VerificationError::UnknownSignature { sig } => {
            OpenPgpVerifyError::Malformed { reason: format!("unsupported signature: {}", sig.error()) }
        }
        VerificationError::MissingKey { sig } if sig.get_issuers().is_empty() => no_issuer(),
        VerificationError::MissingKey { sig } => {
            let issuer = issuer(sig);
            OpenPgpVerifyError::UntrustedSigner {
                reason: format!(
                    "no certificate in {file} holds the key {issuer} that made the signature; add the signer's certificate (`gpg --export --armor {issuer}`) to trust it"
                ),
                issuer,
            }
        }
        VerificationError::UnboundKey { sig, cert, error } => unbound(sig, cert, &error, file),
        VerificationError::BadKey { sig, ka, error } => bad_key(sig, &ka, &error),
        VerificationError::BadSignature { sig, ka, error } => bad_signature(sig, &ka, &error),
        other => OpenPgpVerifyError::BadSignature { reason: other.to_string() },
    }
}

/// The key is in a trusted certificate but not validly bound to it at the signature's time.
fn unbound(sig: &Signature, cert: &Cert, error: &anyhow::Error, file: &str) -> OpenPgpVerifyError {
    let signed = rfc3339(creation_time(sig));
    if let Some(rejected) = binding_rejected(sig, cert) {
        return rejected;
    }
    if let Some(PgpError::NoBindingSignature(_)) = error.downcast_ref::<PgpError>() {
        // No self-signature existed yet at that time: the key (or its binding) is newer.
        return OpenPgpVerifyError::NotYetValid {
            reason: format!(
                "the signature claims to be made at {signed}, before the certificate {} bound its signing key",
                cert.fingerprint().to_hex()
            ),
        };
    }
    OpenPgpVerifyError::UntrustedSigner {
        issuer: issuer(sig),
        reason: format!(
            "the certificate {} in {file} does not validly bind the signing key at {signed} under the standard policy: {error}",
            cert.fingerprint().to_hex()
        ),
    }
}

/// Why no certificate of `certs` that holds the key that made `armored_sig` validly binds it, at
/// the signature's time or later: [`OpenPgpVerifyError::BindingRejected`]. For sqv's "not bound"
/// and "No binding signature", which do not say why, so that both paths give one verdict; `None`
/// when a certificate binds the key (at the signature's time, or since: a newer key).
#[must_use]
pub fn unbound_key(armored_sig: &[u8], certs: &OpenPgpCerts) -> Option<OpenPgpVerifyError> {
    let sig = signature::parse_armored(armored_sig).ok()?.sig;
    let holds = |c: &&Cert| c.keys().key_handles(sig.get_issuers()).next().is_some();
    let mut rejected = Vec::new();
    for cert in certs.certs().iter().filter(holds) {
        // One certificate that binds the key is enough: then it is not the binding.
        rejected.push(binding_rejected(&sig, cert)?);
    }
    rejected.into_iter().next()
}

/// [`OpenPgpVerifyError::BindingRejected`] when `cert` holds the key that made `sig` but binds it
/// validly under [`policy`] neither at the signature's time nor now, saying why; `None` when it
/// binds it at one of them.
fn binding_rejected(sig: &Signature, cert: &Cert) -> Option<OpenPgpVerifyError> {
    let ka = cert.keys().key_handles(sig.get_issuers()).next()?;
    let policy = policy();
    let bound = |t: SystemTime| ka.clone().with_policy(&policy, t);
    if bound(creation_time(sig)).is_ok() {
        return None;
    }
    let now = bound(SystemTime::now()).err()?;
    let key = if ka.primary() {
        "its primary key".to_owned()
    } else {
        format!("the subkey {}", ka.key().fingerprint().to_hex())
    };
    let why = unverifiable_binding(cert, &ka).unwrap_or_else(|| format!("{now:#}"));
    Some(OpenPgpVerifyError::BindingRejected {
        fingerprint: cert.fingerprint().to_hex(),
        reason: format!(
            "the certificate does not validly bind {key}, which made the signature: {why}; have its owner bind it again with a current gpg (`gpg --quick-add-key`), or trust another certificate"
        ),
    })
}

/// Why the binding signatures of `ka` in `cert` do not verify, where sequoia set them aside: a key
/// whose algorithm or curve this build cannot check, or a signing subkey's binding without the
/// back-signature (the subkey's own signature over the binding) that a signing subkey needs.
/// Checked by hand because sequoia drops such bindings without keeping why; it only explains a
/// rejection sequoia made, never decides one.
fn unverifiable_binding(cert: &Cert, ka: &ErasedKeyAmalgamation<'_, key::PublicParts>) -> Option<String> {
    use sequoia_openpgp::crypto::mpi::PublicKey;
    for key in [cert.primary_key().key().role_as_unspecified(), ka.key()] {
        let curve = match key.mpis() {
            PublicKey::ECDSA { curve, .. }
            | PublicKey::EdDSA { curve, .. }
            | PublicKey::ECDH { curve, .. } => Some(curve),
            _ => None,
        };
        if !key.pk_algo().is_supported() || curve.is_some_and(|c| !c.is_supported()) {
            let what = curve.map_or_else(|| key.pk_algo().to_string(), ToString::to_string);
            return Some(format!(
                "the key {} is {what}, which sqv and this verifier cannot check, so no signature binding it verifies",
                key.fingerprint().to_hex()
            ));
        }
    }
    let primary = cert.primary_key().key();
    let subkey = ka.key().role_as_subordinate();
    // A binding of this subkey by the primary key (its hash and signature check out) that flags it
    // for signing, with no embedded back-signature by the subkey that verifies.
    let binds = |s: &Signature| {
        let mut hash = s.hash_algo().context().map(|c| c.for_signature(s.version())).ok();
        hash.as_mut().is_some_and(|h| s.hash_subkey_binding(h, primary, subkey).is_ok())
            && hash.and_then(|h| h.into_digest().ok()).is_some_and(|d| s.verify_digest(primary, d).is_ok())
    };
    let no_backsig = |s: &Signature| {
        s.key_flags().is_some_and(|f| f.for_signing())
            && binds(s)
            && s.embedded_signatures().all(|b| b.verify_primary_key_binding(primary, subkey).is_err())
    };
    let mut bindings = ka.self_signatures().chain(cert.bad_signatures());
    (!ka.primary() && bindings.any(no_backsig)).then(|| {
        "its binding flags it for signing but carries no valid back-signature (the subkey's own signature that it belongs to this certificate), which a signing subkey needs".to_owned()
    })
}

/// The key was bound, but unusable at the signature's creation time.
fn bad_key(
    sig: &Signature,
    ka: &ValidErasedKeyAmalgamation<'_, key::PublicParts>,
    error: &anyhow::Error,
) -> OpenPgpVerifyError {
    let fingerprint = ka.cert().fingerprint().to_hex();
    let key = key_name(ka);
    let signed = rfc3339(creation_time(sig));
    match error.downcast_ref::<PgpError>() {
        Some(PgpError::Expired(t)) => {
            let what = if ka.valid_cert().alive().is_err() { "the certificate".to_owned() } else { key };
            return OpenPgpVerifyError::Expired {
                fingerprint,
                reason: format!(
                    "{what} expired at {}, before the signature was made at {signed}",
                    rfc3339(*t)
                ),
            };
        }
        Some(PgpError::NotYetLive(t)) => {
            return OpenPgpVerifyError::NotYetValid {
                reason: format!(
                    "{key} of {fingerprint} is valid only from {}, after the signature was made at {signed}",
                    rfc3339(*t)
                ),
            };
        }
        _ => {}
    }
    if let RevocationStatus::Revoked(_) = ka.valid_cert().revocation_status() {
        return OpenPgpVerifyError::Revoked {
            reason: format!("the certificate is revoked (as of the signature's creation time {signed})"),
            fingerprint,
        };
    }
    if let RevocationStatus::Revoked(_) = ka.revocation_status() {
        return OpenPgpVerifyError::Revoked {
            reason: format!("{key} is revoked (as of the signature's creation time {signed})"),
            fingerprint,
        };
    }
    if !ka.for_signing() {
        return OpenPgpVerifyError::NotSigningCapable {
            reason: format!(
                "the signature was made by {key}, which the certificate does not flag for signing"
            ),
            fingerprint,
        };
    }
    OpenPgpVerifyError::UntrustedSigner {
        issuer: fingerprint,
        reason: format!("{key} cannot be used: {error}"),
    }
}

/// The key was usable, but the signature is not alive at `at` or does not verify.
fn bad_signature(
    sig: &Signature,
    ka: &ValidErasedKeyAmalgamation<'_, key::PublicParts>,
    error: &anyhow::Error,
) -> OpenPgpVerifyError {
    let fingerprint = ka.cert().fingerprint().to_hex();
    let signed = rfc3339(creation_time(sig));
    match error.downcast_ref::<PgpError>() {
        Some(PgpError::Expired(t)) => OpenPgpVerifyError::Expired {
            fingerprint,
            reason: format!(
                "the signature made at {signed} expired at {}, before the verification time",
                rfc3339(*t)
            ),
        },
        Some(PgpError::NotYetLive(_)) => OpenPgpVerifyError::NotYetValid {
            reason: format!(
                "the signature was made at {signed}, after the verification time; check the signer's clock"
            ),
        },
        Some(PgpError::PolicyViolation(..)) => OpenPgpVerifyError::BadSignature {
            reason: format!("the standard policy rejects the signature: {error}"),
        },
        _ => OpenPgpVerifyError::BadSignature {
            reason: format!(
                "the signature by {} does not verify over these bytes (changed content or wrong key)",
                key_name(ka)
            ),
        },
    }
}

/// `the primary key` or `subkey <fingerprint>`.
fn key_name(ka: &ValidErasedKeyAmalgamation<'_, key::PublicParts>) -> String {
    if ka.primary() {
        "the primary key".to_owned()
    } else {
        format!("subkey {}", ka.key().fingerprint().to_hex())
    }
}

/// The issuer the signature names, preferring a fingerprint over a key id.
pub(super) fn issuer(sig: &Signature) -> String {
    let issuers = sig.get_issuers();
    issuers
        .iter()
        .find(|h| matches!(h, KeyHandle::Fingerprint(_)))
        .or_else(|| issuers.first())
        .map_or_else(|| "unknown".to_owned(), KeyHandle::to_hex)
}

/// The signature's creation time; sequoia has already refused signatures without one.
pub(super) fn creation_time(sig: &Signature) -> SystemTime {
    sig.signature_creation_time().unwrap_or(SystemTime::UNIX_EPOCH)
}

/// `t` as RFC 3339.
pub(super) fn rfc3339(t: SystemTime) -> String {
    OffsetDateTime::from(t).format(&Rfc3339).unwrap_or_else(|_| format!("{t:?}"))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use sequoia_openpgp::parse::Parse;
    use sequoia_openpgp::serialize::SerializeInto;

    use super::*;
    use crate::sign::Signer;
    use crate::sign::openpgp::sqv::{Sqv, SqvError};
    use crate::sign::openpgp::test_support::*;
    use crate::sign::openpgp::*;

    #[test]
    fn signatures_made_by_gpg_detach_sign_verify_in_process() {
        let gpg = GnuPg::new();
        let carol = gpg.gen_key("Carol <carol@example.com>", "sign", "0", None);
        let subkey = gpg.add_subkey(&carol, "sign");
        let sig = gpg.sign(&carol, PAE, &[]);
        let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&carol]));
        let verified = verify(&sig, PAE, &certs, now()).expect("gpg's signature verifies");
        assert_eq!(verified.fingerprint, carol);
        assert_eq!(verified.signing_key_fingerprint, subkey);
        assert_eq!(verified.user_ids, vec!["Carol <carol@example.com>".to_owned()]);
        assert!((now() - verified.signed_at).whole_seconds().abs() < 300, "{}", verified.signed_at);
        assert!(matches!(
            verify(&sig, TAMPERED, &certs, now()),
            Err(OpenPgpVerifyError::BadSignature { .. })
        ));
    }

    #[test]
    fn garbage_signatures_never_panic_and_never_verify() {
        let gpg = GnuPg::new();
        let kim = gpg.gen_key("Kim <kim@example.com>", "sign", "0", None);
        let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&kim]));
        let sig = gpg.sign(&kim, PAE, &[]);
        let at = now();
        verify(&sig, PAE, &certs, at).expect("the original verifies");
        let mut checked = 0;
        for len in 0..sig.len() {
            if verify(&sig[..len], PAE, &certs, at).is_ok() {
                // Cutting only trailing whitespace after the armor's end keeps it valid.
                assert!(sig[len..].iter().all(u8::is_ascii_whitespace), "truncated to {len} verifies");
            }
            checked += 1;
        }
        let binary = dearmor(&sig);
        for i in 0..binary.len() {
            for bit in 0..8 {
                let mut flipped = binary.clone();
                flipped[i] ^= 1 << bit;
                let result = verify(&rearmor(&flipped), PAE, &certs, at);
                // Bits of the unhashed area (e.g. the issuer key id) may change without harm.
                if let Ok(v) = result {
                    assert_eq!(v.fingerprint, kim, "byte {i} bit {bit}");
                }
                checked += 1;
            }
            let _ = verify(&rearmor(&binary[..i]), PAE, &certs, at);
        }
        for i in 0..sig.len() {
            let mut flipped = sig.clone();
            flipped[i] ^= 0x04;
            let _ = verify(&flipped, PAE, &certs, at);
            checked += 1;
        }
        assert!(checked > 1000, "{checked}");
        assert!(verify(&[0xff; 100_000], PAE, &certs, at).is_err());
    }

    #[test]
    fn in_process_verification_and_sqv_agree_on_a_corpus_of_good_and_bad_signatures() {
        let gpg = GnuPg::new();
        let alice = gpg.gen_key("Alice <alice@example.com>", "sign", "0", None);
        let mallory = gpg.gen_key("Mallory <mallory@example.com>", "sign", "0", None);
        let old = gpg.gen_key("Old <old@example.com>", "sign", "1d", Some("20200101T000000"));
        let stale = gpg.gen_key("Stale <stale@example.com>", "sign", "0", Some("20200101T000000"));
        let rita = gpg.gen_key("Rita <rita@example.com>", "sign", "0", None);
        let carol = gpg.gen_key("Carol <carol@example.com>", "sign", "0", None);
        let carol_auth = gpg.add_subkey(&carol, "auth");

        let revoked_home = GnuPg::new();
        revoked_home.import(&gpg.export(&[&rita]));
        revoked_home.import(&gpg.revocation(&rita));
        let trusted = [
            gpg.export(&[&alice]),
            gpg.export(&[&old, &stale]),
            gpg.export(&[&carol]),
            revoked_home.export(&[&rita]),
        ]
        .concat();
        let (trust_path, certs) = trust(&gpg, "trusted.asc", &trusted);
        assert_eq!(certs.fingerprints().len(), 5, "every armored block is read");

        let ours = OpenPgpSigner::from_key_file_with_passphrase(
            &secret_key_file(&gpg, &alice, "alice.asc", true),
            None,
        )
        .expect("key loads")
        .sign(PAE)
        .expect("signs");
        let in_2019 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_546_300_800);
        let corpus: Vec<(&str, Vec<u8>, &[u8], &str)> = vec![
            ("good, by gpg", gpg.sign(&alice, PAE, &[]), PAE, "ok"),
            ("good, by us", ours.clone(), PAE, "ok"),
            ("tampered data", ours, TAMPERED, "bad_signature"),
            ("a key not in the trusted set", gpg.sign(&mallory, PAE, &[]), PAE, "untrusted_signer"),
            (
                "made while valid by a key that has expired since",
                gpg.sign(&old, PAE, &["--faked-system-time", "20200101T060000"]),
                PAE,
                "ok",
            ),
            (
                "made after its key expired",
                sequoia_sign(&gpg.export_secret(&old, false), &old, SystemTime::now(), PAE),
                PAE,
                "expired",
            ),
            (
                "an expired signature",
                gpg.sign(
                    &stale,
                    PAE,
                    &["--faked-system-time", "20200101T060000", "--default-sig-expire", "1d"],
                ),
                PAE,
                "expired",
            ),
            ("a revoked key", gpg.sign(&rita, PAE, &[]), PAE, "revoked"),
            (
                "a subkey without the signing flag",
                sequoia_sign(&gpg.export_secret(&carol, false), &carol_auth, SystemTime::now(), PAE),
                PAE,
                "not_signing_capable",
            ),
            (
                "made in the future",
                gpg.sign(&alice, PAE, &["--faked-system-time", "20400101T000000"]),
                PAE,
                "not_yet_valid",
            ),
            (
                "dated before its key existed",
                sequoia_sign(&gpg.export_secret(&alice, false), &alice, in_2019, PAE),
                PAE,
                "not_yet_valid",
            ),
            (
                "armor around garbage",
                b"-----BEGIN PGP SIGNATURE-----\n\nbm9wZQ==\n-----END PGP SIGNATURE-----\n".to_vec(),
                PAE,
                "malformed",
            ),
        ];
        let verifier = GnuPg::new();
        verifier.import(&trusted);
        let at = now();
        for (name, sig, data, expected) in &corpus {
            let in_process = verify(sig, data, &certs, at);
            let by_sqv = Sqv::default().verify(sig, data, &trust_path, at);
            assert_eq!(outcome(&in_process), *expected, "{name}: {in_process:?}");
            assert_eq!(sqv_outcome(&by_sqv), *expected, "{name} (sqv): {by_sqv:?}");
            if let (Ok(ours), Ok(theirs)) = (&in_process, &by_sqv) {
                assert_eq!(&ours.fingerprint, theirs, "{name}");
            }
            if *expected == "ok" && name.starts_with("good") {
                assert!(verifier.verifies(sig, data), "{name}: gpg --verify accepts");
            }
        }
    }

    #[test]
    fn a_signature_with_a_subpacket_that_does_not_parse_is_refused_here_as_by_sqv_even_unhashed() {
        use sequoia_openpgp::Packet;
        use sequoia_openpgp::packet::signature::subpacket::{Subpacket, SubpacketTag, SubpacketValue};

        let gpg = GnuPg::new();
        let alice = gpg.gen_key("Alice <alice@example.com>", "sign", "0", None);
        let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&alice]));
        let good = gpg.sign(&alice, PAE, &[]);
        let Packet::Signature(mut sig) = Packet::from_bytes(&dearmor(&good)).expect("one packet") else {
            panic!("a signature packet");
        };
        // An issuer fingerprint of version 5 without its bytes, in the area no signature covers.
        let short = SubpacketValue::Unknown { tag: SubpacketTag::IssuerFingerprint, body: vec![5] };
        sig.unhashed_area_mut().add(Subpacket::new(short, false).expect("subpacket")).expect("added");
        let changed = rearmor(&Packet::from(sig).to_vec().expect("serialize"));

        assert_eq!(outcome(&verify(&good, PAE, &certs, now())), "ok");
        let in_process = verify(&changed, PAE, &certs, now());
        assert_eq!(outcome(&in_process), "malformed", "{in_process:?}");
        assert!(
            format!("{in_process:?}").contains("IssuerFingerprint subpacket does not parse"),
            "{in_process:?}"
        );
        let by_sqv = Sqv::default().verify(&changed, PAE, &trust_path, now());
        assert!(matches!(by_sqv, Err(SqvError::Rejected(_))), "sqv refuses it too: {by_sqv:?}");
    }

    #[test]
    fn signatures_gpg_2_2_and_sqv_cannot_check_are_unsupported_on_both_paths_and_gpgs_own_keys_still_verify()
    {
        use sequoia_openpgp::cert::CertBuilder;
        use sequoia_openpgp::types::HashAlgorithm;

        let gpg = GnuPg::new();
        let ada = gpg.gen_key("Ada <ada@example.com>", "sign", "0", Some("20240101T000000"));
        let sha3 = sequoia_sign_over(
            &gpg.export_secret(&ada, false),
            &ada,
            SystemTime::now(),
            PAE,
            HashAlgorithm::SHA3_256,
        );
        let created = SystemTime::now() - Duration::from_secs(3600);
        let (native, native_fpr) = v4_key_of_algorithm_27("Nat <nat@example.com>", created);
        let native_sig = sequoia_sign(&native, &native_fpr, SystemTime::now(), PAE);
        let native_cert = Cert::from_bytes(&native).expect("parses").armored().to_vec().expect("armor");
        let (v6, _) = CertBuilder::general_purpose(Some("Vera <vera@example.com>"))
            .set_profile(sequoia_openpgp::Profile::RFC9580)
            .expect("v6 profile")
            .set_creation_time(created)
            .generate()
            .expect("v6 key");
        let v6_signer = v6
            .keys()
            .subkeys()
            .find(|k| k.self_signatures().any(|s| s.key_flags().is_some_and(|f| f.for_signing())));
        let v6_signer = v6_signer.expect("a signing subkey").key().fingerprint().to_hex();
        let v6_sig = sequoia_sign(&v6.as_tsk().to_vec().expect("tsk"), &v6_signer, SystemTime::now(), PAE);
        let v6_cert = v6.armored().to_vec().expect("armor");

        for (name, material, sig, used) in [
            ("SHA3-256", gpg.export(&[&ada]), &sha3, "the hash SHA3-256"),
            ("algorithm 27", native_cert, &native_sig, "(public-key algorithm 27)"),
            ("v6", v6_cert, &v6_sig, "a version 6 signature"),
        ] {
            let (trust_path, certs) = trust(&gpg, "trusted.asc", &material);
            let in_process = verify(sig, PAE, &certs, now());
            assert_eq!(outcome(&in_process), "unsupported", "{name}: {in_process:?}");
            let said = in_process.unwrap_err().to_string();
            for part in [used, "gpg 2.2 and sqv cannot check", "sign with a v4 key"] {
                assert!(said.contains(part), "{name}: {said}");
            }
            // What --via-tools judges before sqv runs: the same verdict.
            assert_eq!(refused_before_checking(sig, &certs).map(|e| e.to_string()), Some(said), "{name}");
            let by_sqv = Sqv::default().verify(sig, PAE, &trust_path, now());
            assert!(by_sqv.is_err(), "{name}: sqv does not accept it either: {by_sqv:?}");
        }

        // gpg's own keys and hashes still verify, here and by sqv.
        for (algo, hash) in
            [("ed25519", "SHA256"), ("rsa2048", "SHA512"), ("nistp256", "SHA256"), ("nistp384", "SHA384")]
        {
            let uid = format!("{algo} <{algo}@example.com>");
            gpg.ok(&["--quick-gen-key", &uid, algo, "sign", "0"], None);
            let fpr = gpg.fingerprint(&uid);
            let sig = gpg.sign(&fpr, PAE, &["--digest-algo", hash]);
            assert_eq!(
                agreed_outcome(&gpg, "ok.asc", &gpg.export(&[&fpr]), &sig),
                "ok",
                "{algo} over {hash}"
            );
        }
    }

    #[test]
    fn a_key_whose_binding_is_rejected_is_binding_rejected_with_the_reason_on_both_paths() {
        use sequoia_openpgp::types::KeyFlags;

        let gpg = GnuPg::new();
        gpg.ok(
            &[
                "--faked-system-time",
                "20240101T000000",
                "--cert-digest-algo",
                "SHA1",
                "--quick-gen-key",
                "Old <old@example.com>",
                "ed25519",
                "sign",
                "0",
            ],
            None,
        );
        let old = gpg.fingerprint("Old <old@example.com>");
        let old_sig = gpg.sign(&old, PAE, &[]);
        let ada = gpg.gen_key("Ada <ada@example.com>", "cert", "0", None);
        let ada_sub = gpg.add_subkey(&ada, "sign");
        let mallory = gpg.gen_key("Mallory <mallory@example.com>", "sign", "0", None);
        let mallory_holds = bind_foreign_subkey(
            &gpg.export_secret(&mallory, false),
            &gpg.export(&[&ada]),
            &ada_sub,
            KeyFlags::empty().set_signing(),
        );
        let sub_sig = gpg.sign(&format!("{ada_sub}!"), PAE, &[]);

        for (name, material, sig, holder, why) in [
            ("SHA-1 self-signature", gpg.export(&[&old]), &old_sig, &old, "SHA1"),
            ("no back-signature", mallory_holds, &sub_sig, &mallory, "no valid back-signature"),
        ] {
            let (trust_path, certs) = trust(&gpg, "trusted.asc", &material);
            let in_process = verify(sig, PAE, &certs, now());
            assert_eq!(outcome(&in_process), "binding_rejected", "{name}: {in_process:?}");
            let said = in_process.clone().unwrap_err().to_string();
            assert!(said.contains(holder.as_str()) && said.contains(why), "{name}: {said}");
            // sqv says only "not bound"; --via-tools explains it with the same reading.
            let by_sqv = Sqv::default().verify(sig, PAE, &trust_path, now());
            assert!(
                matches!(
                    by_sqv,
                    Err(SqvError::Rejected(
                        OpenPgpVerifyError::NotYetValid { .. } | OpenPgpVerifyError::UntrustedSigner { .. }
                    ))
                ),
                "{name}: {by_sqv:?}"
            );
            assert_eq!(unbound_key(sig, &certs), in_process.err(), "{name}");
        }
    }

    #[test]
    fn a_signature_naming_no_issuer_is_untrusted_without_advice_to_export_a_key_named_unknown() {
        use sequoia_openpgp::Packet;
        use sequoia_openpgp::packet::signature::subpacket::SubpacketTag;

        let gpg = GnuPg::new();
        let ada = gpg.gen_key("Ada <ada@example.com>", "sign", "0", None);
        let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&ada]));
        let good = gpg.sign(&ada, PAE, &[]);
        let Packet::Signature(mut sig) = Packet::from_bytes(&dearmor(&good)).expect("one packet") else {
            panic!("a signature packet");
        };
        for tag in [SubpacketTag::Issuer, SubpacketTag::IssuerFingerprint] {
            sig.hashed_area_mut().remove_all(tag);
            sig.unhashed_area_mut().remove_all(tag);
        }
        let nameless = rearmor(&Packet::from(sig).to_vec().expect("serialize"));
        let in_process = verify(&nameless, PAE, &certs, now());
        assert_eq!(outcome(&in_process), "untrusted_signer", "{in_process:?}");
        let said = in_process.unwrap_err().to_string();
        assert!(said.contains("names no issuer") && !said.contains("--export --armor unknown"), "{said}");
        assert_eq!(refused_before_checking(&nameless, &certs).map(|e| e.to_string()), Some(said));
        // sqv 1 crashes on it: a failure of the tool, never a bad signature.
        match Sqv::default().verify(&nameless, PAE, &trust_path, now()) {
            Err(SqvError::Tool { reason, .. }) => assert!(reason.contains("without a verdict"), "{reason}"),
            Err(SqvError::Rejected(e)) => {
                assert!(!matches!(e, OpenPgpVerifyError::BadSignature { .. }), "{e:?}")
            }
            other => panic!("sqv accepted a signature naming no issuer: {other:?}"),
        }
    }

    /// Ada's signing subkey, which Mallory's certificate binds too with the subkey's own
    /// back-signature: a signature by it is made by both certificates, the first by fingerprint
    /// reported first, whatever the order of the file, and `--via-tools` reports the same whichever
    /// certificate sqv names. Bound by Mallory without the back-signature, it is Ada's alone.
    #[test]
    fn a_key_two_trusted_certificates_bind_signs_for_both_whatever_the_files_order_on_both_paths() {
        use sequoia_openpgp::types::KeyFlags;

        let gpg = GnuPg::new();
        let ada = gpg.gen_key("Ada <ada@example.com>", "sign", "0", None);
        let sub = gpg.add_subkey(&ada, "sign");
        let mallory = gpg.gen_key("Mallory <mal@example.com>", "sign", "0", None);
        let (ada_cert, mallory_secret) = (gpg.export(&[&ada]), gpg.export_secret(&mallory, false));
        let shared = bind_shared_subkey(&mallory_secret, &gpg.export_secret(&ada, false), &sub);
        let sig = gpg.sign(&format!("{sub}!"), PAE, &[]);
        let mut both = [ada.as_str(), mallory.as_str()];
        both.sort_unstable();

        let mut reported = Vec::new();
        for (name, material) in
            [("mallory-first", [shared.as_slice(), &ada_cert]), ("ada-first", [ada_cert.as_slice(), &shared])]
        {
            let (trust_path, certs) = trust(&gpg, &format!("{name}.asc"), &material.concat());
            let ours = verify(&sig, PAE, &certs, now()).expect("the subkey's signature verifies");
            assert_eq!(ours.binders().map(|(f, _)| f).collect::<Vec<_>>(), both, "{name}");
            assert_eq!(ours.signing_key_fingerprint, sub, "{name}");
            let named = Sqv::default().verify(&sig, PAE, &trust_path, now()).expect("sqv accepts");
            assert!(both.contains(&named.as_str()), "{name}: {named}");
            assert_eq!(signer_of(&sig, &certs, &named).as_ref(), Some(&ours), "{name}: --via-tools");
            reported.push(ours);
        }
        assert_eq!(reported[0], reported[1], "the order of the file changes nothing");

        let foreign = bind_foreign_subkey(&mallory_secret, &ada_cert, &sub, KeyFlags::empty().set_signing());
        for material in [[foreign.as_slice(), &ada_cert], [ada_cert.as_slice(), &foreign]] {
            let (_, certs) = trust(&gpg, "one-binds.asc", &material.concat());
            let ours = verify(&sig, PAE, &certs, now()).expect("verifies");
            assert_eq!((ours.fingerprint.as_str(), ours.also_bound_by.as_slice()), (ada.as_str(), &[][..]));
            assert_eq!(ours.user_ids, ["Ada <ada@example.com>"]);
        }
    }
}
