//! The keyless signer, through `sigstore-sign`: an identity token, a Fulcio certificate for an
//! ephemeral P-256 key, the DSSE signature over exactly our statement bytes
//! (`Signer::sign_raw_statement`, payload type in-toto), a Rekor `dsse` entry, and the Sigstore
//! bundle v0.3 that travels in the envelope's `sigstore` field. The only async code of signing,
//! run on a runtime made for the one signature. What Fulcio and Rekor return is checked before it
//! is handed out, by the one Sigstore verifier (`verify`), against the trusted root and as the
//! identity and issuer the token says.

use std::sync::Mutex;

use serde_json::Value;
use sigstore_sign::{SigningContext, SigningServices};
use sigstore_verify::types::SignatureContent;

use super::config::SigstoreConfig;
use super::error::{ReturnedBundle, SigstoreSignError};
use super::token::{self, TokenIdentity};
use super::{
    CertificateTime, Signed, SigstoreTrust, SigstoreVerified, SigstoreVerifyError, TrustedRoot, verify,
};
use crate::model::dsse::{PAYLOAD_TYPE, pae_body};
use crate::model::shown::{one_line, with_causes};
use crate::sign::{SignError, Signer, SignerKind};

/// The envelope `keyid` of a Sigstore signature.
pub const KEYID: &str = "sigstore";

/// A signature and the bundle that carries it.
#[derive(Clone, Debug)]
pub struct SigstoreSignature {
    /// The DSSE signature (DER ECDSA); what goes base64-encoded into the envelope's `sig`.
    pub sig: Vec<u8>,
    /// The whole Sigstore bundle; what goes into the envelope's `sigstore` field.
    pub bundle: Value,
}

/// Keyless Sigstore signing: one login, one certificate and one log entry per signature, each
/// bundle checked before it is handed out.
pub struct SigstoreSigner {
    config: SigstoreConfig,
    last_bundle: Mutex<Option<Value>>,
    /// The certificate identity and issuer of the last bundle made, which verified.
    signed_as: Mutex<Option<SigstoreVerified>>,
}

impl SigstoreSigner {
    /// A signer for the services in `config`.
    #[must_use]
    pub fn new(config: SigstoreConfig) -> Self {
        SigstoreSigner { config, last_bundle: Mutex::new(None), signed_as: Mutex::new(None) }
    }

    /// Signs the in-toto statement `payload` as a DSSE envelope, and returns the signature with
    /// its Sigstore bundle, once the bundle verifies, against the configured trusted root, as the
    /// identity and issuer the token says (so the certificate is for the key that signed and for
    /// the token's identity, chains to a trusted CA, and the log entry is this signature's).
    ///
    /// # Errors
    /// When the trusted root cannot be had, no token can be had, a service cannot be reached or
    /// refuses, or what the services return does not verify.
    pub fn sign_statement(&self, payload: &[u8]) -> Result<SigstoreSignature, SigstoreSignError> {
        let failed = |reason| SigstoreSignError::failed(&self.config, reason);
        let root = self.trusted_root()?;
        let subject = subject_sha256(payload).ok_or(SigstoreSignError::NotAStatement)?;
        let context = SigningContext::new(
            SigningServices::new(&self.config.fulcio_url, &self.config.rekor_url)
                .with_oidc_url(&self.config.oidc_issuer),
        );
        let (bundle, said) = super::net::runtime().map_err(|e| failed(e.to_string()))?.block_on(async {
            let (signer, said) = token::signer(&context, &self.config).await?;
            let bundle = signer.sign_raw_statement(payload).await.map_err(|e| failed(with_causes(&e)))?;
            Ok::<_, SigstoreSignError>((bundle, said))
        })?;
        let SignatureContent::DsseEnvelope(envelope) = &bundle.content else {
            return Err(failed("the bundle made holds no DSSE envelope".into()));
        };
        let sig = envelope.signature.sig.as_bytes().to_vec();
        let bundle =
            serde_json::to_value(&bundle).map_err(|e| failed(format!("cannot encode the bundle: {e}")))?;
        let verified = self.check(&bundle, payload, &subject, root, said)?;
        if let Ok(mut signed_as) = self.signed_as.lock() {
            *signed_as = Some(verified);
        }
        Ok(SigstoreSignature { sig, bundle })
    }

    /// The trusted root new bundles are checked against: the configured file, else the
    /// public-good root as `attest verify` resolves it.
    fn trusted_root(&self) -> Result<TrustedRoot, SigstoreSignError> {
        match &self.config.trusted_root {
            Some(path) => TrustedRoot::from_file(path),
            None => super::public_good_root().map(|found| found.root),
        }
        .map_err(SigstoreSignError::Root)
    }

    /// Checks the bundle the services returned with the project's Sigstore verifier: as the
    /// identity and issuer the token says (`said`), or, when that cannot be told beforehand, as
    /// whoever a trusted CA certified (the certificate's identity is then shown).
    fn check(
        &self,
        bundle: &Value,
        payload: &[u8],
        subject: &str,
        root: TrustedRoot,
        said: Option<TokenIdentity>,
    ) -> Result<SigstoreVerified, SigstoreSignError> {
        let source = root.source().to_owned();
        let trust = match &said {
            Some(said) => SigstoreTrust::keyless(root, said.identity.clone(), said.issuer.clone()),
            None => SigstoreTrust::keyless_any(root),
        };
        let signed = Signed::Statement { payload, artifact_sha256: subject };
        let now = CertificateTime::AlsoAt(time::OffsetDateTime::now_utc());
        let unknown = || "(read from the certificate)".to_owned();
        verify(bundle, signed, &trust, now).map_err(|e| {
            SigstoreSignError::Returned(Box::new(ReturnedBundle {
                fulcio: self.config.fulcio_url.clone(),
                rekor: self.config.rekor_url.clone(),
                identity: said.as_ref().map_or_else(unknown, |s| one_line(&s.identity).into_owned()),
                issuer: said.as_ref().map_or_else(unknown, |s| one_line(&s.issuer).into_owned()),
                root: source,
                reason: one_line(&returned_wrongly(&e)).into_owned(),
            }))
        })
    }
}

/// What the services returned wrongly, as the verifier's outcome says.
fn returned_wrongly(e: &SigstoreVerifyError) -> String {
    let what = match e {
        SigstoreVerifyError::BadSignature(_) => {
            "the signature does not verify with the key of the certificate Fulcio returned (a certificate for another key), or Rekor's entry is for another signature"
        }
        SigstoreVerifyError::UntrustedSigner(_) => {
            "the certificate Fulcio returned is for another identity or issuer than the token's, or does not chain to a CA of the trusted root"
        }
        SigstoreVerifyError::NotInLog(_) => {
            "Rekor's entry does not prove this signature was logged (another body, a bad SET or inclusion proof, or an untrusted log)"
        }
        SigstoreVerifyError::Expired(_) => "the certificate Fulcio returned is not valid now",
        SigstoreVerifyError::Malformed(_)
        | SigstoreVerifyError::BadTimestamp(_)
        | SigstoreVerifyError::Unsupported(_)
        | SigstoreVerifyError::PlainMessage(_) => "the bundle does not verify",
    };
    format!("{what} ({e})")
}

/// The `sha256` digest of the statement's first subject (for our statements, the task commit
/// object's, or the head's in an export's summary).
fn subject_sha256(payload: &[u8]) -> Option<String> {
    let statement: Value = serde_json::from_slice(payload).ok()?;
    statement.pointer("/subject/0/digest/sha256")?.as_str().map(str::to_owned)
}

impl Signer for SigstoreSigner {
    fn kind(&self) -> SignerKind {
        SignerKind::Sigstore
    }

    fn keyid(&self) -> String {
        KEYID.to_owned()
    }

    /// The services, and once a bundle is made the certificate identity and issuer it signed as.
    fn describe(&self) -> String {
        let services = format!("Fulcio {}, Rekor {}", self.config.fulcio_url, self.config.rekor_url);
        match self.signed_as.lock().ok().and_then(|s| s.clone()) {
            Some(v) => format!(
                "sigstore keyless as {} (issuer {}; {services})",
                one_line(&v.identity),
                one_line(&v.issuer)
            ),
            None => format!("sigstore keyless ({services})"),
        }
    }

    fn sign(&self, pae_bytes: &[u8]) -> Result<Vec<u8>, SignError> {
        let payload = pae_body(PAYLOAD_TYPE, pae_bytes).ok_or(SigstoreSignError::NotAStatement)?;
        let signature = self.sign_statement(payload)?;
        if let Ok(mut last) = self.last_bundle.lock() {
            *last = Some(signature.bundle);
        }
        Ok(signature.sig)
    }

    /// The bundle of the last [`Signer::sign`] call, taken out (the envelope builder puts it into
    /// `Envelope::sigstore`).
    fn take_bundle(&self) -> Option<Value> {
        self.last_bundle.lock().ok().and_then(|mut b| b.take())
    }

    fn signs_summary_only(&self) -> bool {
        true
    }

    /// The trusted root new bundles are checked against, trusting any identity its CAs certify.
    fn own_key(&self) -> Result<Option<crate::sign::OwnKey>, SignError> {
        Ok(Some(crate::sign::OwnKey::Sigstore(SigstoreTrust::keyless_any(self.trusted_root()?))))
    }
}
