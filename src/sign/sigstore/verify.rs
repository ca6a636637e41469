//! Offline verification of a Sigstore bundle against the caller's trust: a trusted root, and the
//! certificate identity and OIDC issuer expected (or, for managed-key bundles, the public key).
//!
//! What holds when this returns `Ok`: the signature verifies over the content with the signer's
//! key; the content is the expected statement (or artifact); a trusted transparency log recorded
//! exactly this signature, signer and content, proven by its signed entry timestamp and/or an
//! inclusion proof up to a checkpoint the log signed; every verified time (the log's integrated
//! time, RFC 3161 timestamps) lies within the certificate's validity, within the validity of a
//! Fulcio CA of the trusted root that issued it, and within the log's and TSAs' validity; the
//! certificate carries a valid SCT from a trusted CT log; and its identity and issuer are the
//! caller's.
//!
//! Why not the sigstore crate's `Verifier`: in 0.15 it skips inclusion proofs, SETs and
//! checkpoints, knows no Rekor v2 entries or RFC 3161 timestamps, cannot verify managed-key
//! bundles, ignores the trusted root's validity periods, and accepts a DSSE bundle only when a
//! statement subject carries a sha256/sha512 digest of an artifact, which our statements (whose
//! subject is a git commit) never do.

use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use super::bundle::{self, Content, Material, Version};
use super::crypto::PublicKey;
use super::tlog::{self, LoggedSigner};
use super::trusted_root::{TrustedRoot, TrustedRootError};
use super::x509::{self, Cert};
use super::{sct, timestamp};
use crate::model::dsse::{PAYLOAD_TYPE, pae};

/// The caller's Sigstore trust.
#[derive(Clone, Debug)]
pub struct SigstoreTrust {
    /// The CAs, logs and timestamp authorities trusted.
    pub trusted_root: TrustedRoot,
    /// Who must have signed.
    pub signer: ExpectedSigner,
}

/// Who must have signed a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpectedSigner {
    /// A keyless signature: the certificate's identity (SAN) and OIDC issuer, compared exactly.
    Keyless {
        /// `--certificate-identity`, e.g. an email address or a workflow URI.
        identity: String,
        /// `--certificate-oidc-issuer`, e.g. `https://token.actions.githubusercontent.com`.
        issuer: String,
    },
    /// A managed key, as DER SubjectPublicKeyInfo.
    PublicKey(Vec<u8>),
}

impl SigstoreTrust {
    /// Keyless trust: a trusted root, an identity and an issuer.
    #[must_use]
    pub fn keyless(
        trusted_root: TrustedRoot,
        identity: impl Into<String>,
        issuer: impl Into<String>,
    ) -> Self {
        SigstoreTrust {
            trusted_root,
            signer: ExpectedSigner::Keyless { identity: identity.into(), issuer: issuer.into() },
        }
    }

    /// Managed-key trust from a PEM `PUBLIC KEY`.
    ///
    /// # Errors
    /// When the PEM holds no public key we can use.
    pub fn public_key_pem(trusted_root: TrustedRoot, pem: &str) -> Result<Self, TrustedRootError> {
        let bad = |reason: &str| TrustedRootError::BadKey { reason: reason.to_owned() };
        let spki =
            super::crypto::spki_from_pem(pem).ok_or_else(|| bad("no base64 PEM `PUBLIC KEY` block"))?;
        PublicKey::from_spki(&spki).map_err(|r| bad(&r))?;
        Ok(SigstoreTrust { trusted_root, signer: ExpectedSigner::PublicKey(spki) })
    }
}

/// What the bundle must have signed.
#[derive(Clone, Copy, Debug)]
pub enum Signed<'a> {
    /// Our use: a DSSE envelope whose payload is exactly these statement bytes.
    Statement(&'a [u8]),
    /// An artifact: signed directly (message signature), or a DSSE statement's subject by sha256.
    Artifact(&'a [u8]),
}

/// A bundle that verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigstoreVerified {
    /// The certificate identity that matched (for a managed key, `key SHA256:<hex of its SPKI>`).
    pub identity: String,
    /// The OIDC issuer that matched (empty for a managed key).
    pub issuer: String,
    /// The earliest verified signing time: Rekor's integrated time, or an RFC 3161 time.
    pub integrated_time: OffsetDateTime,
}

/// Why a bundle does not verify; each variant is one verifier outcome.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SigstoreVerifyError {
    /// The bundle cannot be read.
    #[error(
        "malformed Sigstore bundle: {reason}; the envelope's `sigstore` field must hold a Sigstore bundle (v0.1 to v0.3 JSON)"
    )]
    Malformed {
        /// What is wrong.
        reason: String,
    },
    /// The signature does not verify, or signs something other than what is expected.
    #[error("bad Sigstore signature: {reason}")]
    BadSignature {
        /// What did not verify.
        reason: String,
    },
    /// The signer is not the expected one, or its certificate does not lead to the trusted root.
    #[error(
        "untrusted Sigstore signer: {reason}; check --certificate-identity, --certificate-oidc-issuer and that --sigstore-trusted-root is the root of the Sigstore instance that signed"
    )]
    UntrustedSigner {
        /// Why the signer is not trusted.
        reason: String,
    },
    /// The transparency log does not prove that it recorded this signature.
    #[error(
        "Sigstore signature not proven in a trusted transparency log: {reason}; check that --sigstore-trusted-root names the log that recorded it"
    )]
    NotInLog {
        /// What failed.
        reason: String,
    },
    /// The certificate was not valid at the verified signing time.
    #[error("expired Sigstore certificate: {reason}")]
    Expired {
        /// What was not valid when.
        reason: String,
    },
    /// A signed timestamp does not verify, or no verified time exists.
    #[error(
        "bad Sigstore timestamp: {reason}; check that --sigstore-trusted-root names the timestamp authority"
    )]
    BadTimestamp {
        /// What failed.
        reason: String,
    },
    /// Something this verifier cannot check (a key algorithm, for instance).
    #[error("Sigstore bundle not checkable by this verifier: {reason}")]
    Unsupported {
        /// What is not supported.
        reason: String,
    },
}

impl SigstoreVerifyError {
    /// A stable reason code for reports.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Malformed { .. } => "malformed_sigstore_bundle",
            Self::BadSignature { .. } => "bad_signature",
            Self::UntrustedSigner { .. } => "untrusted_signer",
            Self::NotInLog { .. } => "not_in_log",
            Self::Expired { .. } => "expired_certificate",
            Self::BadTimestamp { .. } => "bad_timestamp",
            Self::Unsupported { .. } => "unsupported_sigstore_bundle",
        }
    }
}

type Error = SigstoreVerifyError;

fn malformed(reason: impl Into<String>) -> Error {
    Error::Malformed { reason: reason.into() }
}
fn bad_sig(reason: impl Into<String>) -> Error {
    Error::BadSignature { reason: reason.into() }
}
fn untrusted(reason: impl Into<String>) -> Error {
    Error::UntrustedSigner { reason: reason.into() }
}
fn not_in_log(reason: impl Into<String>) -> Error {
    Error::NotInLog { reason: reason.into() }
}

/// Verifies a bundle that signs one of our statements (a DSSE envelope whose payload is exactly
/// `expected_payload`), offline.
///
/// # Errors
/// The first check that fails, as one of the [`SigstoreVerifyError`] outcomes.
pub fn verify(
    bundle: &serde_json::Value,
    expected_payload: &[u8],
    trust: &SigstoreTrust,
) -> Result<SigstoreVerified, SigstoreVerifyError> {
    verify_bundle(bundle, Signed::Statement(expected_payload), trust)
}

/// Verifies a bundle over a statement or an artifact, offline.
///
/// # Errors
/// The first check that fails, as one of the [`SigstoreVerifyError`] outcomes.
pub fn verify_bundle(
    bundle: &serde_json::Value,
    signed: Signed<'_>,
    trust: &SigstoreTrust,
) -> Result<SigstoreVerified, SigstoreVerifyError> {
    let b = bundle::parse(bundle).map_err(malformed)?;
    let root = &trust.trusted_root;

    // The signer's key, and the certificate when keyless.
    let (cert, key) = match (&b.material, &trust.signer) {
        (Material::Certificate { leaf, rest }, ExpectedSigner::Keyless { .. }) => {
            let cert = Cert::parse(leaf).map_err(|e| malformed(format!("the signing certificate is {e}")))?;
            for extra in rest {
                let c = Cert::parse(extra).map_err(|e| malformed(format!("a chain certificate is {e}")))?;
                if c.is_self_issued() {
                    return Err(untrusted(
                        "the bundle carries a root certificate; roots come only from the trusted root",
                    ));
                }
            }
            if cert.is_ca() {
                return Err(untrusted("the signing certificate is a CA certificate"));
            }
            let key = cert.public_key().map_err(|reason| Error::Unsupported { reason })?;
            (Some(cert), key)
        }
        (Material::PublicKey, ExpectedSigner::PublicKey(spki)) => {
            (None, PublicKey::from_spki(spki).map_err(|reason| Error::Unsupported { reason })?)
        }
        (Material::Certificate { .. }, ExpectedSigner::PublicKey(_)) => {
            return Err(untrusted("the bundle is signed with a certificate, but the trust is a public key"));
        }
        (Material::PublicKey, ExpectedSigner::Keyless { .. }) => {
            return Err(untrusted(
                "the bundle is signed with a managed key, not keylessly; no certificate identity can match it",
            ));
        }
    };

    let artifact_sha256 = check_content(&b.content, signed, &key)?;

    // The transparency log entry.
    let [entry] = b.tlog.as_slice() else {
        return Err(not_in_log(format!(
            "the bundle has {} transparency log entries; exactly one is needed",
            b.tlog.len()
        )));
    };
    let log = root.tlogs.iter().find(|l| l.key_id == entry.log_id).ok_or_else(|| {
        not_in_log("the entry is from a log the trusted root does not name (another Sigstore instance?)")
    })?;
    let log_key =
        log.key.as_ref().ok_or_else(|| Error::Unsupported { reason: "the log's key type".into() })?;
    let logged = match (&cert, &trust.signer) {
        (Some(c), _) => LoggedSigner::Cert(&c.der),
        (None, ExpectedSigner::PublicKey(spki)) => LoggedSigner::Key(spki),
        (None, ExpectedSigner::Keyless { .. }) => return Err(untrusted("no certificate")),
    };
    tlog::check_body(entry, &b.content, artifact_sha256.as_ref().map(|d| &d[..]), logged)
        .map_err(|r| not_in_log(format!("the log entry does not match the bundle: {r}")))?;

    let mut times = Vec::new();
    match &entry.signed_entry_timestamp {
        Some(set) => {
            tlog::verify_set(entry, set, log_key).map_err(not_in_log)?;
            let t = OffsetDateTime::from_unix_timestamp(entry.integrated_time)
                .map_err(|_| malformed("the integrated time is out of range"))?;
            if !log.valid.contains(t) {
                return Err(not_in_log(format!(
                    "the log's key was not trusted at the integrated time {t} (outside its validFor)"
                )));
            }
            times.push(t);
        }
        None if b.version == Version::V01 => {
            return Err(malformed("a v0.1 bundle must carry an inclusion promise (SET)"));
        }
        None => {}
    }
    match &entry.proof {
        Some(proof) => {
            tlog::verify_inclusion(&entry.body, proof).map_err(not_in_log)?;
            match &proof.checkpoint {
                Some(cp) => tlog::verify_checkpoint(cp, proof, log, log_key).map_err(not_in_log)?,
                None if b.version >= Version::V02 => {
                    return Err(not_in_log("the inclusion proof has no checkpoint"));
                }
                None => {}
            }
        }
        None if b.version >= Version::V02 || entry.signed_entry_timestamp.is_none() => {
            return Err(not_in_log("the entry has no inclusion proof"));
        }
        None => {}
    }

    for ts in &b.timestamps {
        let t = timestamp::verify(ts, b.content.signature(), &root.tsas)
            .map_err(|reason| Error::BadTimestamp { reason })?;
        times.push(t);
    }
    // Rekor v2 entries carry no integrated time: the log's key must then be trusted at the
    // timestamps that vouch for the entry.
    if entry.signed_entry_timestamp.is_none()
        && let Some(t) = times.iter().find(|&&t| !log.valid.contains(t))
    {
        return Err(not_in_log(format!("the log's key was not trusted at {t} (outside its validFor)")));
    }
    let Some(&earliest) = times.iter().min() else {
        return Err(Error::BadTimestamp {
            reason: "the bundle has no verified time: neither a log's signed entry timestamp nor an RFC 3161 timestamp".into(),
        });
    };

    let Some(cert) = cert else {
        let spki = key.spki();
        return Ok(SigstoreVerified {
            identity: format!("key SHA256:{}", hex::encode(Sha256::digest(spki))),
            issuer: String::new(),
            integrated_time: earliest,
        });
    };
    let ExpectedSigner::Keyless { identity, issuer } = &trust.signer else {
        return Err(untrusted("a certificate, but no identity to match"));
    };
    let mut issuing_ca = None;
    for &t in &times {
        if !cert.valid_at(t) {
            return Err(Error::Expired {
                reason: format!(
                    "the certificate is valid from {} to {}, but was used at {t}",
                    cert.not_before, cert.not_after
                ),
            });
        }
        let found = root
            .cas
            .iter()
            .filter(|ca| ca.valid.contains(t))
            .find_map(|ca| x509::verify_chain(&cert, &ca.chain, t).ok().map(|i| &ca.chain[i]));
        issuing_ca = Some(found.ok_or_else(|| {
            untrusted(format!(
                "the certificate does not chain to a Fulcio CA of the trusted root valid at {t}"
            ))
        })?);
    }
    let issuing_ca = issuing_ca.ok_or_else(|| untrusted("no time to check the certificate at"))?;
    if !cert.has_eku(x509::EKU_CODE_SIGNING, true) {
        return Err(untrusted("the certificate is not for code signing"));
    }
    sct::verify_embedded(&cert, issuing_ca, &root.ctlogs).map_err(untrusted)?;
    let sans = cert.subject_alt_names();
    if !sans.iter().any(|s| s == identity) {
        return Err(untrusted(format!(
            "the certificate identity is {}, expected {identity}",
            sans.join(", ")
        )));
    }
    match cert.oidc_issuer() {
        Some(found) if &found == issuer => {}
        found => {
            return Err(untrusted(format!(
                "the certificate's OIDC issuer is {}, expected {issuer}",
                found.as_deref().unwrap_or("absent")
            )));
        }
    }
    Ok(SigstoreVerified { identity: identity.clone(), issuer: issuer.clone(), integrated_time: earliest })
}

/// Checks the content signature and that the content is what is expected; returns the artifact's
/// sha256 for a message signature.
fn check_content(content: &Content, signed: Signed<'_>, key: &PublicKey) -> Result<Option<[u8; 32]>, Error> {
    match (content, signed) {
        (Content::Message { digest, signature }, Signed::Artifact(artifact)) => {
            let sha: [u8; 32] = Sha256::digest(artifact).into();
            if let Some((alg, hint)) = digest
                && (alg != "SHA2_256" || hint[..] != sha)
            {
                return Err(bad_sig("the bundle's message digest is not the artifact's sha256"));
            }
            if !key.verify(key.default_hash(), artifact, signature) {
                return Err(bad_sig("the signature does not verify over the artifact"));
            }
            Ok(Some(sha))
        }
        (Content::Message { .. }, Signed::Statement(_)) => Err(malformed(
            "the bundle signs a plain message, not a DSSE envelope; speccoder's Sigstore lines are DSSE bundles",
        )),
        (Content::Dsse { payload_type, payload, signature }, signed) => {
            if !key.verify(key.default_hash(), &pae(payload_type, payload), signature) {
                return Err(bad_sig("the DSSE signature does not verify over the envelope"));
            }
            match signed {
                Signed::Statement(expected) => {
                    if payload_type != PAYLOAD_TYPE || payload[..] != *expected {
                        return Err(bad_sig("the bundle signs another statement than this line's"));
                    }
                }
                Signed::Artifact(artifact) => {
                    let want = hex::encode(Sha256::digest(artifact));
                    let statement: serde_json::Value = serde_json::from_slice(payload)
                        .map_err(|_| malformed("the DSSE payload is not JSON"))?;
                    let matched =
                        statement.get("subject").and_then(|s| s.as_array()).is_some_and(|subjects| {
                            subjects.iter().any(|s| {
                                s.get("digest").and_then(|d| d.get("sha256")).and_then(|v| v.as_str())
                                    == Some(want.as_str())
                            })
                        });
                    if !matched {
                        return Err(bad_sig("no subject of the signed statement is the artifact"));
                    }
                }
            }
            Ok(None)
        }
    }
}
