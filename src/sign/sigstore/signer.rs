//! The keyless signer, through `sigstore-sign`: an identity token, a Fulcio certificate for an
//! ephemeral P-256 key, the DSSE signature over exactly our statement bytes
//! (`Signer::sign_raw_statement`, payload type in-toto), a Rekor `dsse` entry, and the Sigstore
//! bundle v0.3 that travels in the envelope's `sigstore` field. The only async code of signing,
//! run on a runtime made for the one signature.

use std::sync::Mutex;

use serde_json::Value;
use sigstore_sign::{SigningContext, SigningServices};
use sigstore_verify::types::SignatureContent;

use super::config::SigstoreConfig;
use super::error::SigstoreSignError;
use super::token;
use crate::model::dsse::{PAYLOAD_TYPE, pae_body};
use crate::model::shown::with_causes;
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

/// Keyless Sigstore signing: one login, one certificate and one log entry per signature.
pub struct SigstoreSigner {
    config: SigstoreConfig,
    last_bundle: Mutex<Option<Value>>,
}

impl SigstoreSigner {
    /// A signer for the services in `config`.
    #[must_use]
    pub fn new(config: SigstoreConfig) -> Self {
        SigstoreSigner { config, last_bundle: Mutex::new(None) }
    }

    /// Signs the in-toto statement `payload` as a DSSE envelope, and returns the signature with
    /// its Sigstore bundle.
    ///
    /// # Errors
    /// When no token can be had, a service cannot be reached or refuses, or answers nonsense.
    pub fn sign_statement(&self, payload: &[u8]) -> Result<SigstoreSignature, SigstoreSignError> {
        let failed = |reason| SigstoreSignError::failed(&self.config, reason);
        let context = SigningContext::new(
            SigningServices::new(&self.config.fulcio_url, &self.config.rekor_url)
                .with_oidc_url(&self.config.oidc_issuer),
        );
        let bundle = super::net::runtime().map_err(|e| failed(e.to_string()))?.block_on(async {
            let signer = token::signer(&context, &self.config).await?;
            signer.sign_raw_statement(payload).await.map_err(|e| failed(with_causes(&e)))
        })?;
        let SignatureContent::DsseEnvelope(envelope) = &bundle.content else {
            return Err(failed("the bundle made holds no DSSE envelope".into()));
        };
        let sig = envelope.signature.sig.as_bytes().to_vec();
        let bundle =
            serde_json::to_value(&bundle).map_err(|e| failed(format!("cannot encode the bundle: {e}")))?;
        Ok(SigstoreSignature { sig, bundle })
    }
}

impl Signer for SigstoreSigner {
    fn kind(&self) -> SignerKind {
        SignerKind::Sigstore
    }

    fn keyid(&self) -> String {
        KEYID.to_owned()
    }

    fn describe(&self) -> String {
        format!("sigstore keyless (Fulcio {}, Rekor {})", self.config.fulcio_url, self.config.rekor_url)
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
}
