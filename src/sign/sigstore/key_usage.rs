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
pub(crate) fn check(bundle: &Bundle) -> Result<(), String> {
    let certs: Vec<&[u8]> = match &bundle.verification_material.content {
        VerificationMaterialContent::Certificate(c) => vec![c.raw_bytes.as_bytes()],
        VerificationMaterialContent::X509CertificateChain { certificates } => {
            certificates.iter().map(|c| c.raw_bytes.as_bytes()).collect()
        }
        _ => Vec::new(),
    };
    for (i, der) in certs.into_iter().enumerate() {
        let what =
            if i == 0 { "the signing certificate".to_owned() } else { format!("chain certificate {i}") };
        let cert = Certificate::from_der(der).map_err(|e| format!("{what} does not parse: {e}"))?;
        let usage: Option<(bool, KeyUsage)> =
            cert.tbs_certificate.get().map_err(|e| format!("{what} has an unreadable keyUsage: {e}"))?;
        match (i, usage) {
            (0, Some((_, ku))) if ku.digital_signature() => {}
            (0, Some(_)) => return Err(format!("{what}'s keyUsage does not allow digitalSignature")),
            (0, None) => {
                return Err(format!("{what} has no keyUsage (Sigstore's profile requires digitalSignature)"));
            }
            (_, Some((_, ku))) if !ku.key_cert_sign() => {
                return Err(format!("{what} is a CA whose keyUsage does not allow keyCertSign"));
            }
            _ => {}
        }
    }
    Ok(())
}
