//! In-process verification of an armored SSH signature against the caller's allowed-signers file
//! and revoked keys, with the decisions `ssh-keygen -Y verify` makes (same order of checks, same
//! inclusive/exclusive time bounds), failing closed where ssh-key cannot check something.

use ssh_key::{Algorithm, EcdsaCurve, HashAlg, PublicKey, SshSig, certificate::CertType, public::KeyData};
use time::OffsetDateTime;

use super::allowed_signers::{AllowedSigner, AllowedSigners};
use super::revoked_keys::RevokedKeys;
use super::sshsig::{self, DecodeError, SignerCertificate, SignerKey, SshSignature};

/// A signature that verified and whose key the allowed-signers file trusts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SshVerified {
    /// The allowed principals whose line lists this key (or its CA) for this namespace, in file
    /// order, without duplicates; for a certificate, the certificate's principals those lines allow.
    pub principals: Vec<String>,
    /// The `SHA256:` fingerprint of the key that made the signature (the certified key for a certificate).
    pub fingerprint: String,
    /// The SSH name of that key's type, e.g. `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`.
    pub key_type: String,
    /// Present when the signature was made with a certificate.
    pub certificate: Option<CertificateInfo>,
}

/// What identifies the certificate a signature was made with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateInfo {
    /// The certificate's key id (`ssh-keygen -s … -I id`).
    pub key_id: String,
    /// The certificate's serial number.
    pub serial: u64,
    /// The `SHA256:` fingerprint of the CA key that issued it.
    pub ca_fingerprint: String,
}

/// Why a signature does not hold; each variant is one verifier outcome.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SshVerifyError {
    /// Not SSHSIG armor, or a blob that does not decode.
    #[error("malformed SSH signature: {reason}")]
    Malformed {
        /// What is malformed.
        reason: String,
    },
    /// The signature does not verify over these bytes, or was made for another namespace or hash.
    #[error("bad SSH signature: {reason}")]
    BadSignature {
        /// What did not verify.
        reason: String,
    },
    /// The signature verifies but the allowed-signers file does not trust the key for it.
    #[error("untrusted SSH signer {fingerprint}: {reason}")]
    UntrustedSigner {
        /// The signing key's fingerprint.
        fingerprint: String,
        /// Why each candidate line did not apply, or that none lists the key; names the file.
        reason: String,
    },
    /// The signing key (or the CA of its certificate) is in the revoked-keys list.
    #[error("revoked SSH key {fingerprint}: {reason}")]
    Revoked {
        /// The signing key's fingerprint.
        fingerprint: String,
        /// Which key was found revoked, and where.
        reason: String,
    },
    /// The signature may be fine but cannot be checked in-process (key type); fail closed.
    #[error("SSH signature cannot be checked in-process: {reason}")]
    Unsupported {
        /// What cannot be checked, and what to use instead.
        reason: String,
    },
}

/// Verifies `armored_sig` over `message` in `namespace`, trusted by `allowed` at time `at`.
pub fn verify(
    armored_sig: &[u8],
    message: &[u8],
    namespace: &str,
    allowed: &AllowedSigners,
    revoked: &RevokedKeys,
    at: OffsetDateTime,
) -> Result<SshVerified, SshVerifyError> {
    let sig = sshsig::parse_armored(armored_sig).map_err(|e| match e {
        DecodeError::Malformed(reason) => SshVerifyError::Malformed { reason },
        DecodeError::Unsupported(reason) => SshVerifyError::Unsupported { reason },
    })?;
    check_signature(&sig, message, namespace)?;
    let key = sig.signer.signing_key();
    let fingerprint = fingerprint(key);
    let principals = trusted_principals(&sig.signer, allowed, namespace, at)
        .map_err(|reason| SshVerifyError::UntrustedSigner { fingerprint: fingerprint.clone(), reason })?;
    if let Some(reason) = revocation(&sig.signer, revoked) {
        return Err(SshVerifyError::Revoked { fingerprint, reason });
    }
    Ok(SshVerified {
        principals,
        fingerprint,
        key_type: key.algorithm().as_str().to_owned(),
        certificate: match &sig.signer {
            SignerKey::Plain(_) => None,
            SignerKey::Certificate(c) => Some(CertificateInfo {
                key_id: c.cert.key_id().to_owned(),
                serial: c.cert.serial(),
                ca_fingerprint: self::fingerprint(c.cert.signature_key()),
            }),
        },
    })
}

/// The cryptographic part: namespace, hash, key type, and the signature over `message`.
pub(crate) fn check_signature(
    sig: &SshSignature,
    message: &[u8],
    namespace: &str,
) -> Result<(), SshVerifyError> {
    let bad = |reason: String| SshVerifyError::BadSignature { reason };
    if sig.namespace != namespace {
        return Err(bad(format!(
            "it was made for namespace \"{}\", not \"{namespace}\"",
            sig.namespace.escape_debug()
        )));
    }
    let hash_alg = match sig.hash_alg.as_str() {
        "sha512" => HashAlg::Sha512,
        "sha256" => HashAlg::Sha256,
        other => {
            return Err(bad(format!("hash algorithm \"{}\" is not sha256 or sha512", other.escape_debug())));
        }
    };
    let key = sig.signer.signing_key();
    if let Some(reason) = unsupported(key, "signing key") {
        return Err(SshVerifyError::Unsupported { reason });
    }
    if sig.signature.algorithm() == (Algorithm::Rsa { hash: None }) {
        return Err(bad(
            "an RSA signature with SHA-1 (ssh-rsa) is not accepted; sign again with a current ssh-keygen"
                .to_owned(),
        ));
    }
    let rebuilt = SshSig::new(key.clone(), namespace, hash_alg, sig.signature.clone())
        .map_err(|e| bad(format!("the signature does not fit its key: {e}")))?;
    PublicKey::from(key.clone()).verify(namespace, message, &rebuilt).map_err(|_| {
        bad("the signature does not verify over these bytes (changed content or wrong key)".to_owned())
    })
}

/// `Some(reason)` when signatures of `key` cannot be checked in-process.
fn unsupported(key: &KeyData, role: &str) -> Option<String> {
    match key.algorithm() {
        Algorithm::Ed25519 | Algorithm::Rsa { .. } | Algorithm::Ecdsa { curve: EcdsaCurve::NistP256 } => None,
        other => Some(format!(
            "the {role} is {}, which this build does not check in-process; verify with --via-tools (ssh-keygen)",
            other.as_str()
        )),
    }
}

/// The `SHA256:` fingerprint of a key, as `ssh-keygen -l` prints it.
pub(crate) fn fingerprint(key: &KeyData) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// The principals trusted for this signer; otherwise why no line applies.
fn trusted_principals(
    signer: &SignerKey,
    allowed: &AllowedSigners,
    namespace: &str,
    at: OffsetDateTime,
) -> Result<Vec<String>, String> {
    let file = allowed.path.display();
    let mut principals: Vec<String> = Vec::new();
    // The principals already taken, so that a line listing tens of thousands stays linear.
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut refusals = Vec::new();
    for line in &allowed.signers {
        let candidates = match (signer, line.cert_authority) {
            (SignerKey::Plain(key), false) if line.key.key_data() == key => {
                let listed: Vec<String> = line.principals.positive().map(str::to_owned).collect();
                if listed.is_empty() {
                    Err(format!("the key is listed only under negated principals \"{}\"", line.principals))
                } else {
                    Ok(listed)
                }
            }
            (SignerKey::Certificate(cert), true) if line.key.key_data() == cert.cert.signature_key() => {
                certificate_principals(cert, line, at)
            }
            _ => continue,
        };
        match candidates.and_then(|c| line_applies(line, namespace, at).map(|()| c)) {
            Ok(found) => {
                for p in found {
                    if seen.insert(p.clone()) {
                        principals.push(p);
                    }
                }
            }
            Err(why) => refusals.push(format!("{file}:{}: {why}", line.line)),
        }
    }
    if !principals.is_empty() {
        return Ok(principals);
    }
    if refusals.is_empty() {
        return Err(match signer {
            SignerKey::Plain(_) => {
                format!("no line of {file} lists this key; add `<principal> <the .pub line>` to trust it")
            }
            SignerKey::Certificate(c) => format!(
                "no cert-authority line of {file} lists the certificate's CA {}; add `<principals> cert-authority <CA .pub line>` to trust it",
                fingerprint(c.cert.signature_key())
            ),
        });
    }
    Err(refusals.join("; "))
}

/// The line's own restrictions: namespaces, valid-after, valid-before.
fn line_applies(line: &AllowedSigner, namespace: &str, at: OffsetDateTime) -> Result<(), String> {
    if let Some(ns) = &line.namespaces
        && !ns.matches(namespace)
    {
        return Err(format!("the key is allowed only for namespaces \"{ns}\", not \"{namespace}\""));
    }
    if let Some(after) = line.valid_after.filter(|t| at < t.at) {
        return Err(format!(
            "the key is trusted only from {} (valid-after), and the time checked is {at}",
            after.at
        ));
    }
    if let Some(before) = line.valid_before.filter(|t| at > t.at) {
        return Err(format!(
            "the key was trusted only until {} (valid-before), and the time checked is {at}",
            before.at
        ));
    }
    Ok(())
}

/// For a cert-authority line: the certificate's principals the line allows, if it is valid at `at`.
fn certificate_principals(
    signer: &SignerCertificate,
    line: &AllowedSigner,
    at: OffsetDateTime,
) -> Result<Vec<String>, String> {
    let cert = &signer.cert;
    if let Some(reason) = unsupported(cert.signature_key(), "certificate's CA key") {
        return Err(reason);
    }
    if cert.cert_type() != CertType::User {
        return Err("the signer's certificate is a host certificate, not a user certificate".to_owned());
    }
    if let Some(option) = cert.critical_options().keys().next() {
        return Err(format!(
            "the signer's certificate carries the critical option \"{}\", which this verifier does not honour",
            option.escape_debug()
        ));
    }
    let now = u64::try_from(at.unix_timestamp()).map_err(|_| "the time checked is before 1970".to_owned())?;
    if now < cert.valid_after() || now >= cert.valid_before() {
        return Err(format!(
            "the signer's certificate \"{}\" is not valid at {at}",
            cert.key_id().escape_debug()
        ));
    }
    // The CA is the line's key (the caller matched it); its signature is checked over the bytes
    // it signed, as embedded.
    if !signer.ca_signature_holds() {
        return Err("the signer's certificate does not carry a valid signature of its CA".to_owned());
    }
    if cert.valid_principals().is_empty() {
        return Err("the signer's certificate names no principals".to_owned());
    }
    let allowed: Vec<String> =
        cert.valid_principals().iter().filter(|p| line.principals.matches(p)).cloned().collect();
    if allowed.is_empty() {
        return Err(format!(
            "the certificate's principals ({}) match none of the line's principals \"{}\"",
            cert.valid_principals().join(","),
            line.principals
        ));
    }
    Ok(allowed)
}

/// `Some(reason)` when the signing key or its certificate's CA is revoked.
fn revocation(signer: &SignerKey, revoked: &RevokedKeys) -> Option<String> {
    if let Some(file) = revoked.listing(signer.signing_key()) {
        return Some(format!(
            "the signing key is listed in {}; the key must not be trusted any more",
            file.display()
        ));
    }
    match signer {
        SignerKey::Certificate(c) => revoked.listing(c.cert.signature_key()).map(|file| {
            format!(
                "the certificate's CA {} is listed in {}",
                fingerprint(c.cert.signature_key()),
                file.display()
            )
        }),
        SignerKey::Plain(_) => None,
    }
}

#[cfg(test)]
mod tests;
