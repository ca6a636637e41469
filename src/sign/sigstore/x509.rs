//! X.509 certificates as Sigstore uses them: Fulcio signing certificates and the CA and TSA
//! chains of a trusted root. Parsed with [`super::der`] so that signatures are checked over the
//! exact bytes that were signed.

use time::OffsetDateTime;

use super::crypto::PublicKey;
use super::der::{self, Reader, Tlv};

/// Fulcio's OIDC issuer extension (v2, a DER UTF8String).
const FULCIO_ISSUER_V2: &str = "1.3.6.1.4.1.57264.1.8";
/// Fulcio's deprecated OIDC issuer extension (v1, the raw string).
const FULCIO_ISSUER_V1: &str = "1.3.6.1.4.1.57264.1.1";
/// Fulcio's otherName SAN for username identities.
const FULCIO_USERNAME_SAN: &str = "1.3.6.1.4.1.57264.1.7";
/// The embedded SCT list (RFC 6962).
pub(crate) const SCT_LIST: &str = "1.3.6.1.4.1.11129.2.4.2";
/// Extended key usage: code signing.
pub(crate) const EKU_CODE_SIGNING: &str = "1.3.6.1.5.5.7.3.3";
/// Extended key usage: time stamping.
pub(crate) const EKU_TIME_STAMPING: &str = "1.3.6.1.5.5.7.3.8";

/// One certificate extension.
#[derive(Clone, Debug)]
pub(crate) struct Extension {
    oid: Vec<u8>,
    /// The extension's `extnValue` contents.
    value: Vec<u8>,
}

/// A parsed certificate, with the bytes its signature covers.
#[derive(Clone, Debug)]
pub(crate) struct Cert {
    /// The certificate's DER, as given.
    pub der: Vec<u8>,
    tbs: Vec<u8>,
    sig_alg: Vec<u8>,
    signature: Vec<u8>,
    /// The issuer Name (DER).
    pub issuer: Vec<u8>,
    /// The subject Name (DER).
    pub subject: Vec<u8>,
    /// The serial number's INTEGER contents.
    pub serial: Vec<u8>,
    /// Start of validity.
    pub not_before: OffsetDateTime,
    /// End of validity (inclusive).
    pub not_after: OffsetDateTime,
    /// The SubjectPublicKeyInfo (DER).
    pub spki: Vec<u8>,
    extensions: Vec<Extension>,
}

impl Cert {
    /// Parses a DER certificate.
    pub(crate) fn parse(der_bytes: &[u8]) -> Result<Cert, String> {
        Self::parse_inner(der_bytes).map_err(|e| format!("not an X.509 certificate ({e})"))
    }

    fn parse_inner(der_bytes: &[u8]) -> Result<Cert, der::DerError> {
        let top = der::parse(der_bytes)?;
        let mut r = top.reader();
        let tbs = r.expect(der::SEQUENCE)?;
        let sig_alg = r.expect(der::SEQUENCE)?;
        let signature = r.expect(der::BIT_STRING)?.bit_string()?;
        let mut t = tbs.reader();
        t.optional(der::ctx(0))?;
        let serial = t.expect(der::INTEGER)?;
        t.expect(der::SEQUENCE)?;
        let issuer = t.expect(der::SEQUENCE)?;
        let validity = t.expect(der::SEQUENCE)?;
        let subject = t.expect(der::SEQUENCE)?;
        let spki = t.expect(der::SEQUENCE)?;
        t.optional(der::ctx_prim(1))?;
        t.optional(der::ctx_prim(2))?;
        let mut extensions = Vec::new();
        if let Some(exts) = t.optional(der::ctx(3))? {
            let mut list = exts.reader().expect(der::SEQUENCE)?.reader();
            while !list.is_empty() {
                let ext = list.expect(der::SEQUENCE)?;
                let mut e = ext.reader();
                let oid = e.expect(der::OID)?;
                e.optional(der::BOOLEAN)?;
                let value = e.expect(der::OCTET_STRING)?;
                extensions.push(Extension { oid: oid.value.to_vec(), value: value.value.to_vec() });
            }
        }
        let mut v = validity.reader();
        let not_before = der::time(&v.any()?)?;
        let not_after = der::time(&v.any()?)?;
        Ok(Cert {
            der: der_bytes.to_vec(),
            tbs: tbs.raw.to_vec(),
            sig_alg: sig_alg.value.to_vec(),
            signature: signature.to_vec(),
            issuer: issuer.raw.to_vec(),
            subject: subject.raw.to_vec(),
            serial: serial.value.to_vec(),
            not_before,
            not_after,
            spki: spki.raw.to_vec(),
            extensions,
        })
    }

    /// The certificate's public key.
    pub(crate) fn public_key(&self) -> Result<PublicKey, String> {
        PublicKey::from_spki(&self.spki)
    }

    /// Whether `at` lies within the validity period (both ends inclusive).
    pub(crate) fn valid_at(&self, at: OffsetDateTime) -> bool {
        self.not_before <= at && at <= self.not_after
    }

    /// Whether subject and issuer are the same name (a root or other self-issued certificate).
    pub(crate) fn is_self_issued(&self) -> bool {
        self.issuer == self.subject
    }

    /// Whether `issuer` names this certificate's issuer and its key signed it.
    pub(crate) fn signed_by(&self, issuer: &Cert) -> bool {
        self.issuer == issuer.subject
            && issuer
                .public_key()
                .is_ok_and(|k| k.verify_with_algorithm(&self.sig_alg, &self.tbs, &self.signature))
    }

    fn extension(&self, dotted: &str) -> Option<&Extension> {
        let oid = der::oid(dotted);
        self.extensions.iter().find(|e| e.oid == oid)
    }

    /// The raw `extnValue` contents of an extension.
    pub(crate) fn extension_value(&self, dotted: &str) -> Option<&[u8]> {
        self.extension(dotted).map(|e| e.value.as_slice())
    }

    /// Whether basicConstraints says this is a CA.
    pub(crate) fn is_ca(&self) -> bool {
        let Some(ext) = self.extension("2.5.29.19") else { return false };
        let Ok(seq) = der::parse(&ext.value) else { return false };
        matches!(seq.reader().optional(der::BOOLEAN), Ok(Some(b)) if *b.value == [0xff])
    }

    /// Whether the certificate may be used for `eku` (no EKU extension means no restriction only
    /// when `required` is false).
    pub(crate) fn has_eku(&self, eku: &str, required: bool) -> bool {
        let Some(ext) = self.extension("2.5.29.37") else { return !required };
        let want = der::oid(eku);
        let Ok(seq) = der::parse(&ext.value) else { return false };
        let mut r = seq.reader();
        while let Ok(oid) = r.expect(der::OID) {
            if *oid.value == want[..] {
                return true;
            }
        }
        false
    }

    /// The subject alternative names: email addresses, URIs, DNS names and Fulcio usernames.
    pub(crate) fn subject_alt_names(&self) -> Vec<String> {
        let Some(ext) = self.extension("2.5.29.17") else { return Vec::new() };
        let Ok(seq) = der::parse(&ext.value) else { return Vec::new() };
        let mut r = seq.reader();
        let mut out = Vec::new();
        while let Ok(name) = r.any() {
            match name.tag {
                0x81 | 0x82 | 0x86 => out.push(String::from_utf8_lossy(name.value).into_owned()),
                0xa0 => {
                    if let Some(user) = other_name_utf8(&name) {
                        out.push(user);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The OIDC issuer Fulcio recorded, from the v2 extension or else the deprecated v1 one.
    pub(crate) fn oidc_issuer(&self) -> Option<String> {
        if let Some(v) = self.extension_value(FULCIO_ISSUER_V2) {
            let tlv = der::parse(v).ok()?;
            return (tlv.tag == der::UTF8_STRING).then(|| String::from_utf8_lossy(tlv.value).into_owned());
        }
        self.extension_value(FULCIO_ISSUER_V1).map(|v| String::from_utf8_lossy(v).into_owned())
    }

    /// The TBSCertificate without the extension `dotted`: what a precertificate's SCT signs.
    pub(crate) fn tbs_without_extension(&self, dotted: &str) -> Result<Vec<u8>, String> {
        let drop = der::oid(dotted);
        let tbs = der::parse(&self.tbs).map_err(|e| e.to_string())?;
        let mut r = tbs.reader();
        let mut fields = Vec::new();
        while !r.is_empty() {
            let field = r.any().map_err(|e| e.to_string())?;
            if field.tag != der::ctx(3) {
                fields.extend_from_slice(field.raw);
                continue;
            }
            let list = field.reader().expect(der::SEQUENCE).map_err(|e| e.to_string())?;
            let mut l = list.reader();
            let mut kept = Vec::new();
            while !l.is_empty() {
                let ext = l.expect(der::SEQUENCE).map_err(|e| e.to_string())?;
                let oid = ext.reader().expect(der::OID).map_err(|e| e.to_string())?;
                if *oid.value != drop[..] {
                    kept.extend_from_slice(ext.raw);
                }
            }
            fields.extend(der::encode(der::ctx(3), &der::encode(der::SEQUENCE, &kept)));
        }
        Ok(der::encode(der::SEQUENCE, &fields))
    }
}

fn other_name_utf8(name: &Tlv<'_>) -> Option<String> {
    let mut r = name.reader();
    let oid = r.expect(der::OID).ok()?;
    if *oid.value != der::oid(FULCIO_USERNAME_SAN)[..] {
        return None;
    }
    let explicit = r.expect(der::ctx(0)).ok()?;
    let s = Reader::new(explicit.value).expect(der::UTF8_STRING).ok()?;
    Some(String::from_utf8_lossy(s.value).into_owned())
}

/// Checks that `leaf` chains through `chain` (issuer of the leaf first, the root last, as a
/// trusted root lists it) with every certificate valid at `at`. The chain may start at any
/// of its certificates: a leaf issued by the root itself is fine.
pub(crate) fn verify_chain(leaf: &Cert, chain: &[Cert], at: OffsetDateTime) -> Result<usize, String> {
    let start = chain
        .iter()
        .position(|ca| leaf.signed_by(ca))
        .ok_or("no certificate of the trusted chain issued the certificate")?;
    let mut child = leaf;
    for ca in &chain[start..] {
        if !ca.is_ca() {
            return Err("a certificate of the trusted chain is not a CA".into());
        }
        if !child.signed_by(ca) {
            return Err("the trusted chain is broken: a certificate does not verify under the next".into());
        }
        if !ca.valid_at(at) {
            return Err(format!("the CA certificate was not valid at {at}"));
        }
        child = ca;
    }
    Ok(start)
}
