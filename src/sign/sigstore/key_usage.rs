//! The one certificate check `sigstore-verify` leaves out: keyUsage. rustls-webpki, which checks
//! the chain for it, ignores the extension by design (browsers do), while Sigstore's certificate
//! profile requires it: the signing certificate's keyUsage must be present and allow
//! digitalSignature, and a CA certificate's keyUsage, when present, must allow keyCertSign
//! (RFC 5280 4.2.1.3). Written here because no crate offers it; it only reads with x509-cert.

use sigstore_verify::types::Bundle;
use sigstore_verify::types::bundle::VerificationMaterialContent;
use x509_cert::Certificate;
use x509_cert::der::Decode as _;
use x509_cert::ext::pkix::KeyUsage;

/// Checks the keyUsage of every certificate the bundle carries, the signing certificate first.
///
/// # Errors
/// Which certificate has no keyUsage or the wrong one, or cannot be read.
pub(crate) fn check(bundle: &Bundle) -> Result<(), KeyUsageError> {
    for (index, der) in certificates(bundle).into_iter().enumerate() {
        let cert = Certificate::from_der(der).map_err(|e| KeyUsageError::Parse(index, e))?;
        let usage: Option<(bool, KeyUsage)> =
            cert.tbs_certificate.get().map_err(|e| KeyUsageError::Unreadable(index, e))?;
        match (index, usage) {
            (0, Some((_, ku))) if ku.digital_signature() => {}
            (0, Some(_)) => return Err(KeyUsageError::NoDigitalSignature),
            (0, None) => return Err(KeyUsageError::Missing),
            (_, Some((_, ku))) if !ku.key_cert_sign() => return Err(KeyUsageError::NoKeyCertSign(index)),
            _ => {}
        }
    }
    Ok(())
}

/// The certificates the bundle carries, as DER: the signing certificate first, then its chain
/// (none for a managed key).
pub(crate) fn certificates(bundle: &Bundle) -> Vec<&[u8]> {
    match &bundle.verification_material.content {
        VerificationMaterialContent::Certificate(c) => vec![c.raw_bytes.as_bytes()],
        VerificationMaterialContent::X509CertificateChain { certificates } => {
            certificates.iter().map(|c| c.raw_bytes.as_bytes()).collect()
        }
        _ => Vec::new(),
    }
}

/// A certificate of the bundle whose keyUsage Sigstore's profile refuses, by its place (0 is the
/// signing certificate, then the chain).
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeyUsageError {
    /// It does not parse.
    #[error("{} does not parse: {}", certificate(*.0), .1)]
    Parse(usize, x509_cert::der::Error),
    /// Its keyUsage cannot be read.
    #[error("{} has an unreadable keyUsage: {}", certificate(*.0), .1)]
    Unreadable(usize, x509_cert::der::Error),
    /// The signing certificate may not sign.
    #[error("the signing certificate's keyUsage does not allow digitalSignature")]
    NoDigitalSignature,
    /// The signing certificate has none.
    #[error("the signing certificate has no keyUsage (Sigstore's profile requires digitalSignature)")]
    Missing,
    /// A CA that may not sign certificates.
    #[error("{} is a CA whose keyUsage does not allow keyCertSign", certificate(*.0))]
    NoKeyCertSign(usize),
}

/// The certificate at `index`, as a message names it.
fn certificate(index: usize) -> String {
    if index == 0 { "the signing certificate".to_owned() } else { format!("chain certificate {index}") }
}
