//! One OIDC issuer per signing certificate. Fulcio writes the issuer twice: the deprecated v1
//! extension (`1.3.6.1.4.1.57264.1.1`, the issuer's bytes as they are) and v2 (`.1.8`, a DER
//! UTF8String). `sigstore-verify` reads v2 when present, sigstore-python's identity policy reads
//! v1; a certificate whose two say different things would be one signature attributed to two
//! issuers, so it is refused, as is either extension given twice. Written here because the crate
//! reads one and never compares them; it only reads with x509-cert.

use x509_cert::Certificate;
use x509_cert::der::Decode as _;
use x509_cert::der::asn1::Utf8StringRef;
use x509_cert::der::oid::ObjectIdentifier;

/// The deprecated issuer extension: the issuer's bytes as they are.
const ISSUER_V1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.1");
/// The issuer extension: a DER UTF8String.
const ISSUER_V2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.8");

/// How much of an issuer a message quotes.
const QUOTED: usize = 200;

/// Checks that the signing certificate (`der`) names at most one OIDC issuer: each issuer
/// extension at most once, and when both are present, v1's bytes exactly v2's string.
///
/// # Errors
/// The certificate does not parse, an extension is given twice, v2 is not a UTF8String, or the
/// two name different issuers (both quoted, escaped).
pub(crate) fn check(der: &[u8]) -> Result<(), String> {
    let cert =
        Certificate::from_der(der).map_err(|e| format!("the signing certificate does not parse: {e}"))?;
    let extensions = cert.tbs_certificate.extensions.as_deref().unwrap_or_default();
    let values = |oid: ObjectIdentifier| -> Vec<&[u8]> {
        extensions.iter().filter(|e| e.extn_id == oid).map(|e| e.extn_value.as_bytes()).collect()
    };
    let (v1, v2) = (values(ISSUER_V1), values(ISSUER_V2));
    for (name, found) in [("v1 (1.3.6.1.4.1.57264.1.1)", &v1), ("v2 (1.3.6.1.4.1.57264.1.8)", &v2)] {
        if found.len() > 1 {
            return Err(format!(
                "the signing certificate carries the OIDC-issuer extension {name} {} times",
                found.len()
            ));
        }
    }
    let (Some(v1), Some(v2)) = (v1.first(), v2.first()) else { return Ok(()) };
    let v2 = Utf8StringRef::from_der(v2).map_err(|e| {
        format!("the signing certificate's OIDC-issuer extension v2 is not a UTF8String: {e}")
    })?;
    if *v1 == v2.as_bytes() {
        return Ok(());
    }
    Err(format!(
        "the signing certificate names two OIDC issuers: \"{}\" in extension v1 (1.3.6.1.4.1.57264.1.1) and \"{}\" in extension v2 (1.3.6.1.4.1.57264.1.8); verifiers that read one or the other would attribute the signature to different issuers",
        shown(&String::from_utf8_lossy(v1)),
        shown(v2.as_str())
    ))
}

/// An issuer from the certificate, made safe to show and short.
fn shown(text: &str) -> String {
    crate::model::shown::shown(text, QUOTED)
}

#[cfg(test)]
mod tests {
    use x509_cert::der::Encode as _;
    use x509_cert::der::asn1::{BitString, OctetString, UtcTime};
    use x509_cert::ext::Extension;
    use x509_cert::name::Name;
    use x509_cert::serial_number::SerialNumber;
    use x509_cert::spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
    use x509_cert::time::{Time, Validity};
    use x509_cert::{TbsCertificate, Version};

    use super::*;

    /// A certificate carrying `extensions` (OID, value bytes), as DER; its signature is not one,
    /// which the check never reads.
    fn cert_with(extensions: &[(ObjectIdentifier, Vec<u8>)]) -> Vec<u8> {
        let algorithm = AlgorithmIdentifierOwned {
            oid: ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.2"),
            parameters: None,
        };
        let time = Time::UtcTime(
            UtcTime::from_unix_duration(std::time::Duration::from_secs(1_700_000_000)).unwrap(),
        );
        let tbs = TbsCertificate {
            version: Version::V3,
            serial_number: SerialNumber::new(&[1]).unwrap(),
            signature: algorithm.clone(),
            issuer: Name::default(),
            validity: Validity { not_before: time, not_after: time },
            subject: Name::default(),
            subject_public_key_info: SubjectPublicKeyInfoOwned {
                algorithm: AlgorithmIdentifierOwned {
                    oid: ObjectIdentifier::new_unwrap("1.2.840.10045.2.1"),
                    parameters: None,
                },
                subject_public_key: BitString::from_bytes(&[4; 65]).unwrap(),
            },
            issuer_unique_id: None,
            subject_unique_id: None,
            extensions: Some(
                extensions
                    .iter()
                    .map(|(oid, value)| Extension {
                        extn_id: *oid,
                        critical: false,
                        extn_value: OctetString::new(value.clone()).unwrap(),
                    })
                    .collect(),
            ),
        };
        Certificate {
            tbs_certificate: tbs,
            signature_algorithm: algorithm,
            signature: BitString::from_bytes(&[0; 8]).unwrap(),
        }
        .to_der()
        .unwrap()
    }

    fn v1(issuer: &str) -> (ObjectIdentifier, Vec<u8>) {
        (ISSUER_V1, issuer.as_bytes().to_vec())
    }

    fn v2(issuer: &str) -> (ObjectIdentifier, Vec<u8>) {
        (ISSUER_V2, Utf8StringRef::new(issuer).unwrap().to_der().unwrap())
    }

    #[test]
    fn one_issuer_in_either_extension_or_the_same_in_both_passes() {
        let issuer = "https://issuer.test";
        for extensions in [vec![], vec![v1(issuer)], vec![v2(issuer)], vec![v1(issuer), v2(issuer)]] {
            assert_eq!(check(&cert_with(&extensions)), Ok(()), "{extensions:?}");
        }
    }

    #[test]
    fn two_issuers_are_refused_each_quoted_escaped() {
        let e =
            check(&cert_with(&[v1("https://evil.test\u{1b}[2K"), v2("https://issuer.test")])).unwrap_err();
        assert!(e.contains("names two OIDC issuers"), "{e}");
        assert!(e.contains("\"https://evil.test\\u{1b}[2K\" in extension v1"), "{e}");
        assert!(e.contains("\"https://issuer.test\" in extension v2"), "{e}");
        // v1 holding the DER form of v2's issuer is read as two issuers by a reader of its bytes.
        let der = (ISSUER_V1, v2("https://issuer.test").1);
        assert!(
            check(&cert_with(&[der, v2("https://issuer.test")])).unwrap_err().contains("two OIDC issuers")
        );
    }

    #[test]
    fn an_issuer_extension_given_twice_or_a_v2_that_is_no_utf8_string_is_refused() {
        let e = check(&cert_with(&[v2("https://issuer.test"), v2("https://evil.test")])).unwrap_err();
        assert!(e.contains("v2 (1.3.6.1.4.1.57264.1.8) 2 times"), "{e}");
        let e = check(&cert_with(&[v1("https://issuer.test"), v1("https://issuer.test")])).unwrap_err();
        assert!(e.contains("v1 (1.3.6.1.4.1.57264.1.1) 2 times"), "{e}");
        let raw = (ISSUER_V2, b"https://issuer.test".to_vec());
        let e = check(&cert_with(&[v1("https://issuer.test"), raw])).unwrap_err();
        assert!(e.contains("not a UTF8String"), "{e}");
    }
}
