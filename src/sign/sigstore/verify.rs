//! Offline verification of a Sigstore bundle against the caller's trust, through
//! `sigstore-verify` (`Verifier::verify`, whose documentation lists what holds on `Ok`: signature,
//! subject digest, log entry and inclusion proof, SET, timestamps, certificate chain, SCT, identity
//! and issuer). Ours is only matching the bundle to our line, the certificate checks the crate
//! leaves out (keyUsage, `key_usage`; one OIDC issuer, `issuer`), and mapping its errors to our
//! outcomes.
//!
//! # Times
//! The crate decides the times a certificate is checked at; no caller can change them. They are
//! the bundle's *verified* times: each RFC 3161 timestamp that verifies against a trusted timestamp
//! authority (within that authority's `validFor`), and each Rekor v1 `integratedTime` whose SET
//! verifies with a log key valid then. At least one is needed (no fallback to the clock). At each,
//! the certificate and its whole chain must be valid and chain to a CA whose `validFor` contains
//! it. The clock is read only to refuse an `integratedTime` in the future and to leave out
//! trusted-root entries whose `validFor` has not started. None of these times is the signer's to
//! choose, unlike a commit date. [`CertificateTime::AlsoAt`] adds one check of ours: the signing
//! certificate's validity at the time given; Fulcio's certificates live ten minutes, so it passes
//! only for a bundle checked within them (`attest verify` does not ask for it, whatever
//! `--signature-time` says).

use sigstore_verify::types::{Bundle, DerPublicKey, Sha256Hash, SignatureContent};
use sigstore_verify::{
    CertificateError, Error as CrateError, Policy, PublicKeyVerificationPolicy, VerificationPolicy,
};
use time::OffsetDateTime;

use super::trusted_root::{TrustedRoot, TrustedRootError};
use crate::model::dsse::PAYLOAD_TYPE;

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
    /// A keyless signature by whoever a trusted CA certified, whose identity and issuer are then
    /// read from the certificate: only for keyless signing's check of the bundle it just made,
    /// when the token's issuer is not one whose certificate identity can be told beforehand.
    AnyKeyless,
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

    /// Keyless trust in whoever a CA of `trusted_root` certified ([`ExpectedSigner::AnyKeyless`]).
    #[must_use]
    pub fn keyless_any(trusted_root: TrustedRoot) -> Self {
        SigstoreTrust { trusted_root, signer: ExpectedSigner::AnyKeyless }
    }

    /// Managed-key trust from a PEM `PUBLIC KEY`.
    ///
    /// # Errors
    /// When the PEM holds no public key.
    pub fn public_key_pem(trusted_root: TrustedRoot, pem: &str) -> Result<Self, TrustedRootError> {
        let key = DerPublicKey::from_pem(pem).map_err(TrustedRootError::BadKey)?;
        Ok(SigstoreTrust { trusted_root, signer: ExpectedSigner::PublicKey(key.as_bytes().to_vec()) })
    }
}

/// What the bundle must have signed.
#[derive(Clone, Copy, Debug)]
pub enum Signed<'a> {
    /// Our use: a DSSE envelope whose payload is exactly `payload`, an in-toto statement one of
    /// whose subjects carries the `sha256` digest `artifact_sha256` (lowercase hex).
    Statement {
        /// The statement bytes, as our envelope carries them.
        payload: &'a [u8],
        /// The sha256 the subject must carry: for our lines, the task commit object's.
        artifact_sha256: &'a str,
    },
    /// An artifact: signed directly (message signature), or a DSSE statement's subject by digest.
    Artifact(&'a [u8]),
}

/// When the signing certificate must have been valid (see the module's "Times").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CertificateTime {
    /// At every verified time of the bundle (log and timestamp authority times): the default.
    #[default]
    Verified,
    /// At every verified time, and at this time too.
    AlsoAt(OffsetDateTime),
}

/// A bundle that verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigstoreVerified {
    /// The certificate identity that matched (for a managed key, `key SHA256:<hex of its SPKI>`).
    pub identity: String,
    /// The OIDC issuer that matched (empty for a managed key).
    pub issuer: String,
}

/// Why a bundle does not verify; each variant is one verifier outcome.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SigstoreVerifyError {
    /// The bundle cannot be read.
    #[error(
        "malformed Sigstore bundle: {0}; the envelope's `sigstore` field must hold a Sigstore bundle (v0.1 to v0.3 JSON)"
    )]
    Malformed(String),
    /// The signature does not verify, or signs something other than what is expected.
    #[error("bad Sigstore signature: {0}")]
    BadSignature(String),
    /// The signer is not the expected one, or its certificate does not lead to the trusted root.
    #[error(
        "untrusted Sigstore signer: {0}; check --certificate-identity, --certificate-oidc-issuer and that --sigstore-trusted-root is the root of the Sigstore instance that signed"
    )]
    UntrustedSigner(String),
    /// The transparency log does not prove that it recorded this signature.
    #[error(
        "Sigstore signature not proven in a trusted transparency log: {0}; check that --sigstore-trusted-root names the log that recorded it"
    )]
    NotInLog(String),
    /// The certificate was not valid at a time it had to be.
    #[error("expired Sigstore certificate: {0}")]
    Expired(String),
    /// A signed timestamp does not verify, or no verified time exists.
    #[error("bad Sigstore timestamp: {0}; check that --sigstore-trusted-root names the timestamp authority")]
    BadTimestamp(String),
    /// Something this verifier cannot check (a statement bound to no sha256/sha512 subject, a key
    /// algorithm, an entry kind).
    #[error("Sigstore bundle not checkable by this verifier: {0}")]
    Unsupported(String),
    /// A bundle over a statement that signs a plain message instead of a DSSE envelope (in the
    /// layout named): what `cosign sign-blob --bundle` makes of a blob. It binds no statement, so
    /// it cannot be checked as one's signature; never a pass.
    #[error(
        "the Sigstore bundle signs a plain message ({0}), not a DSSE envelope holding the statement, so it cannot be checked as the statement's signature"
    )]
    PlainMessage(&'static str),
}

type Error = SigstoreVerifyError;

/// Verifies a bundle over one of our statements (bound to the task commit) or an artifact, offline.
///
/// # Errors
/// The first check that fails, as one of the [`SigstoreVerifyError`] outcomes.
pub fn verify(
    bundle: &serde_json::Value,
    signed: Signed<'_>,
    trust: &SigstoreTrust,
    time: CertificateTime,
) -> Result<SigstoreVerified, SigstoreVerifyError> {
    if let Signed::Statement { .. } = signed
        && let Some(layout) = super::bundle_shape::plain_message(bundle)
    {
        return Err(Error::PlainMessage(layout));
    }
    super::bundle_shape::check(bundle).map_err(Error::Malformed)?;
    let bundle: Bundle =
        serde_json::from_value(bundle.clone()).map_err(|e| Error::Malformed(e.to_string()))?;
    // Before the crate reads the issuer: one it does not read could name another.
    if let Some(signing) = super::key_usage::certificates(&bundle).first() {
        super::issuer::check(signing).map_err(Error::Malformed)?;
    }
    let policy: Box<dyn Policy> = match &trust.signer {
        ExpectedSigner::Keyless { identity, issuer } => {
            Box::new(VerificationPolicy::new(identity.as_str(), issuer.as_str()))
        }
        ExpectedSigner::AnyKeyless => Box::new(VerificationPolicy::any_identity()),
        ExpectedSigner::PublicKey(spki) => {
            Box::new(PublicKeyVerificationPolicy::new(DerPublicKey::new(spki.clone())))
        }
    };
    let verifier = &trust.trusted_root.verifier;
    let result = match signed {
        Signed::Statement { payload, artifact_sha256 } => {
            match &bundle.content {
                SignatureContent::DsseEnvelope(env)
                    if env.payload_type == PAYLOAD_TYPE && env.payload.as_bytes() == payload => {}
                SignatureContent::DsseEnvelope(_) => {
                    return Err(Error::BadSignature(
                        "the bundle signs another statement than this line's".into(),
                    ));
                }
                _ => return Err(Error::PlainMessage("the bundle format's `messageSignature`")),
            }
            let digest = Sha256Hash::from_hex(artifact_sha256)
                .map_err(|e| Error::BadSignature(format!("the artifact digest: {e}")))?;
            verifier.verify(digest, &bundle, policy.as_ref())
        }
        Signed::Artifact(bytes) => verifier.verify(bytes, &bundle, policy.as_ref()),
    }
    .map_err(|e| from_crate(&e))?;
    let (identity, issuer) = match &trust.signer {
        ExpectedSigner::Keyless { identity, issuer } => (identity.clone(), issuer.clone()),
        ExpectedSigner::AnyKeyless => (
            result.identity().map(|san| san.as_str().to_owned()).unwrap_or_default(),
            result.issuer().unwrap_or_default().to_owned(),
        ),
        ExpectedSigner::PublicKey(spki) => {
            let identity = format!("key SHA256:{}", crate::model::digest::sha256_hex(spki));
            return Ok(SigstoreVerified { identity, issuer: String::new() });
        }
    };
    // The crate checked the chain; what it leaves out is ours.
    super::key_usage::check(&bundle).map_err(|e| Error::UntrustedSigner(e.to_string()))?;
    if let (CertificateTime::AlsoAt(at), Some(cert)) = (time, result.certificate()) {
        let (from, to) = (cert.not_before.as_second(), cert.not_after.as_second());
        if !(from..=to).contains(&at.unix_timestamp()) {
            return Err(Error::Expired(format!(
                "the certificate is valid from {} to {}, not at {at}",
                cert.not_before, cert.not_after
            )));
        }
    }
    Ok(SigstoreVerified { identity, issuer })
}

/// The crate's error as one of our outcomes.
fn from_crate(e: &CrateError) -> Error {
    let outcome: fn(String) -> Error = match e {
        CrateError::IdentityMismatch { .. } | CrateError::IssuerMismatch { .. } => Error::UntrustedSigner,
        CrateError::SignatureInvalid(_) | CrateError::ArtifactMismatch(_) | CrateError::Crypto(_) => {
            Error::BadSignature
        }
        CrateError::Certificate(CertificateError::Expired { .. } | CertificateError::NotYetValid { .. }) => {
            Error::Expired
        }
        CrateError::Certificate(CertificateError::Malformed(_)) => Error::Malformed,
        CrateError::Certificate(_) => Error::UntrustedSigner,
        CrateError::TransparencyLog(_) => Error::NotInLog,
        CrateError::Timestamp(_) => Error::BadTimestamp,
        CrateError::UnsupportedBundle(_) | CrateError::UnsupportedArtifact(_) => Error::Unsupported,
        _ => Error::Malformed,
    };
    outcome(e.to_string())
}
