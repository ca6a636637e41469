//! Public keys from SubjectPublicKeyInfo and signature checks, through aws-lc-rs (the crypto
//! backend the sigstore crate itself builds with `rustls-tls`). The sigstore crate's own key type
//! hashes with one fixed digest per curve and keeps its prehash check private, while
//! certificates and timestamps name their digest; so we pick the exact algorithm here.

use aws_lc_rs::signature::{self, UnparsedPublicKey, VerificationAlgorithm};
use sha2::{Digest, Sha256, Sha384, Sha512};

use super::der::{self, Reader};

/// A digest named by a signature algorithm or a message imprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hash {
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    /// The digest of `data`.
    pub(crate) fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => Sha256::digest(data).to_vec(),
            Hash::Sha384 => Sha384::digest(data).to_vec(),
            Hash::Sha512 => Sha512::digest(data).to_vec(),
        }
    }

    /// The digest an AlgorithmIdentifier (its DER contents) names, if we support it.
    pub(crate) fn from_algorithm_identifier(alg_id: &[u8]) -> Option<Hash> {
        let oid = Reader::new(alg_id).expect(der::OID).ok()?;
        [
            ("2.16.840.1.101.3.4.2.1", Hash::Sha256),
            ("2.16.840.1.101.3.4.2.2", Hash::Sha384),
            ("2.16.840.1.101.3.4.2.3", Hash::Sha512),
        ]
        .into_iter()
        .find(|(dotted, _)| der::oid(dotted) == oid.value)
        .map(|(_, h)| h)
    }
}

/// The kind of a public key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyKind {
    P256,
    P384,
    P521,
    Ed25519,
    Rsa,
}

/// A public key we can check signatures with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PublicKey {
    kind: KeyKind,
    /// The key as aws-lc-rs takes it: the SPKI's BIT STRING contents.
    bits: Vec<u8>,
    /// The whole SubjectPublicKeyInfo.
    spki: Vec<u8>,
}

impl PublicKey {
    /// A key from DER SubjectPublicKeyInfo.
    pub(crate) fn from_spki(spki: &[u8]) -> Result<Self, String> {
        let top = der::parse(spki).map_err(|e| e.to_string())?;
        if top.tag != der::SEQUENCE {
            return Err("not a SubjectPublicKeyInfo".into());
        }
        let mut r = top.reader();
        let alg = r.expect(der::SEQUENCE).map_err(|e| e.to_string())?;
        let bits = r.expect(der::BIT_STRING).and_then(|b| b.bit_string()).map_err(|e| e.to_string())?;
        let mut a = alg.reader();
        let alg_oid = a.expect(der::OID).map_err(|e| e.to_string())?;
        let kind = if alg_oid.value == der::oid("1.2.840.10045.2.1") {
            let curve = a.expect(der::OID).map_err(|e| e.to_string())?;
            [
                ("1.2.840.10045.3.1.7", KeyKind::P256),
                ("1.3.132.0.34", KeyKind::P384),
                ("1.3.132.0.35", KeyKind::P521),
            ]
            .into_iter()
            .find(|(d, _)| der::oid(d) == curve.value)
            .map(|(_, k)| k)
            .ok_or("an elliptic curve we do not support")?
        } else if alg_oid.value == der::oid("1.3.101.112") {
            KeyKind::Ed25519
        } else if alg_oid.value == der::oid("1.2.840.113549.1.1.1") {
            KeyKind::Rsa
        } else {
            return Err("a public key algorithm we do not support".into());
        };
        Ok(PublicKey { kind, bits: bits.to_vec(), spki: spki.to_vec() })
    }

    /// An RSA key from a bare PKCS#1 RSAPublicKey (trusted roots write some CT keys this way).
    pub(crate) fn from_pkcs1_rsa(bytes: &[u8]) -> Self {
        PublicKey { kind: KeyKind::Rsa, bits: bytes.to_vec(), spki: Vec::new() }
    }

    /// The key's SubjectPublicKeyInfo (empty for a bare PKCS#1 key).
    pub(crate) fn spki(&self) -> &[u8] {
        &self.spki
    }

    /// The digest Sigstore pairs with this key for signatures over whole messages.
    pub(crate) fn default_hash(&self) -> Hash {
        match self.kind {
            KeyKind::P384 => Hash::Sha384,
            KeyKind::P521 => Hash::Sha512,
            _ => Hash::Sha256,
        }
    }

    /// Whether `sig` (DER ECDSA, raw Ed25519, PKCS#1 v1.5 RSA) signs `msg` with `hash`.
    pub(crate) fn verify(&self, hash: Hash, msg: &[u8], sig: &[u8]) -> bool {
        let alg: &'static dyn VerificationAlgorithm = match (self.kind, hash) {
            (KeyKind::P256, Hash::Sha256) => &signature::ECDSA_P256_SHA256_ASN1,
            (KeyKind::P256, Hash::Sha384) => &signature::ECDSA_P256_SHA384_ASN1,
            (KeyKind::P384, Hash::Sha256) => &signature::ECDSA_P384_SHA256_ASN1,
            (KeyKind::P384, Hash::Sha384) => &signature::ECDSA_P384_SHA384_ASN1,
            (KeyKind::P521, Hash::Sha512) => &signature::ECDSA_P521_SHA512_ASN1,
            (KeyKind::Ed25519, _) => &signature::ED25519,
            (KeyKind::Rsa, Hash::Sha256) => &signature::RSA_PKCS1_2048_8192_SHA256,
            (KeyKind::Rsa, Hash::Sha384) => &signature::RSA_PKCS1_2048_8192_SHA384,
            (KeyKind::Rsa, Hash::Sha512) => &signature::RSA_PKCS1_2048_8192_SHA512,
            _ => return false,
        };
        UnparsedPublicKey::new(alg, &self.bits).verify(msg, sig).is_ok()
    }

    /// Whether `sig` signs `msg` under the signature algorithm `sig_alg` (AlgorithmIdentifier
    /// contents), as certificates and CMS signer infos name it.
    pub(crate) fn verify_with_algorithm(&self, sig_alg: &[u8], msg: &[u8], sig: &[u8]) -> bool {
        let Ok(oid) = Reader::new(sig_alg).expect(der::OID) else { return false };
        let hash = [
            ("1.2.840.10045.4.3.2", Some(Hash::Sha256)),
            ("1.2.840.10045.4.3.3", Some(Hash::Sha384)),
            ("1.2.840.10045.4.3.4", Some(Hash::Sha512)),
            ("1.2.840.113549.1.1.11", Some(Hash::Sha256)),
            ("1.2.840.113549.1.1.12", Some(Hash::Sha384)),
            ("1.2.840.113549.1.1.13", Some(Hash::Sha512)),
            ("1.3.101.112", None),
        ]
        .into_iter()
        .find(|(d, _)| der::oid(d) == oid.value);
        let is_ec_alg = oid.value.starts_with(&der::oid("1.2.840.10045.4")[..]);
        let is_ec_key = matches!(self.kind, KeyKind::P256 | KeyKind::P384 | KeyKind::P521);
        match hash {
            Some((_, None)) => self.kind == KeyKind::Ed25519 && self.verify(Hash::Sha512, msg, sig),
            Some((_, Some(h))) if is_ec_alg == is_ec_key && self.kind != KeyKind::Ed25519 => {
                self.verify(h, msg, sig)
            }
            _ => false,
        }
    }
}

/// The DER SubjectPublicKeyInfo inside a PEM `PUBLIC KEY` block.
pub(crate) fn spki_from_pem(pem: &str) -> Option<Vec<u8>> {
    pem_block(pem, "PUBLIC KEY")
}

/// The DER bytes of the first PEM block with the given label.
pub(crate) fn pem_block(pem: &str, label: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let start = pem.find(&begin)? + begin.len();
    let stop = start + pem[start..].find(&end)?;
    let body: String = pem[start..stop].chars().filter(|c| !c.is_whitespace()).collect();
    base64::engine::general_purpose::STANDARD.decode(body).ok()
}

/// A PEM `CERTIFICATE` block for DER bytes, lines of 64 characters, as Rekor stores it.
pub(crate) fn cert_pem(der_bytes: &[u8]) -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(der_bytes);
    let mut out = String::from("-----BEGIN CERTIFICATE-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(chunk));
        out.push('\n');
    }
    out.push_str("-----END CERTIFICATE-----\n");
    out
}
