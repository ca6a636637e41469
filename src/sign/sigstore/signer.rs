//! The keyless signer: an identity token, a Fulcio certificate for an ephemeral P-256 key, the
//! DSSE signature, a Rekor `dsse` entry, and a Sigstore bundle v0.3 whose `dsseEnvelope` carries
//! our statement, so that the bundle itself verifies with any Sigstore client.

use std::sync::Mutex;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use sigstore::crypto::SigningScheme;

use super::bundle::MEDIA_TYPE_V03;
use super::config::SigstoreConfig;
use super::services;
use super::token::{self, TokenSource};
use crate::model::dsse::pae;
use crate::sign::{SignError, Signer, SignerKind};

/// The envelope `keyid` of a Sigstore signature.
pub const KEYID: &str = "sigstore";

/// Why a keyless signature could not be made; the message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum SigstoreSignError {
    /// No identity token could be had.
    #[error(
        "no OIDC identity token for Sigstore: set SIGSTORE_ID_TOKEN, run in GitHub Actions with `permissions: id-token: write`, or sign interactively from a terminal"
    )]
    NoToken,
    /// The interactive browser flow failed.
    #[error("the interactive Sigstore login failed: {reason}; set SIGSTORE_ID_TOKEN instead")]
    Interactive {
        /// The flow's reason.
        reason: String,
    },
    /// A service could not be reached.
    #[error(
        "cannot reach {service} at {url}: {reason}; check the network and `[attest.sigstore]` in speccoder.toml"
    )]
    Network {
        /// Fulcio, Rekor, or the CI's token service.
        service: &'static str,
        /// What was asked.
        url: String,
        /// The transport's reason.
        reason: String,
        /// Whether the connection itself failed (no network), as opposed to a later error.
        connect: bool,
    },
    /// A service refused.
    #[error("{service} refused ({status}): {body}")]
    Service {
        /// The service.
        service: &'static str,
        /// The HTTP status.
        status: u16,
        /// What it said (shortened).
        body: String,
    },
    /// A service answered something we cannot use.
    #[error("{service} answered unexpectedly: {reason}")]
    BadResponse {
        /// The service.
        service: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The ephemeral key failed.
    #[error("the ephemeral signing key failed: {reason}")]
    Key {
        /// The reason.
        reason: String,
    },
    /// `Signer::sign` was given bytes that are not a DSSE PAE.
    #[error("Sigstore signs DSSE envelopes only: the bytes to sign are not a DSSE PAE")]
    NotPae,
}

impl SigstoreSignError {
    pub(crate) fn network(service: &'static str, url: &str, e: &reqwest::Error) -> Self {
        SigstoreSignError::Network {
            service,
            url: url.to_owned(),
            reason: e.to_string(),
            connect: e.is_connect() || e.is_timeout(),
        }
    }

    pub(crate) fn service(service: &'static str, status: u16, body: &str) -> Self {
        SigstoreSignError::Service { service, status, body: body.chars().take(300).collect() }
    }

    pub(crate) fn bad_response(service: &'static str, reason: &str) -> Self {
        SigstoreSignError::BadResponse { service, reason: reason.to_owned() }
    }

    /// Whether the failure means "no network or no token here" rather than a broken service.
    #[must_use]
    pub fn is_unavailable(&self) -> bool {
        matches!(self, SigstoreSignError::NoToken | SigstoreSignError::Network { connect: true, .. })
    }
}

/// A signature and the bundle that carries it.
#[derive(Clone, Debug)]
pub struct SigstoreSignature {
    /// The DSSE signature (DER ECDSA); what goes base64-encoded into the envelope's `sig`.
    pub sig: Vec<u8>,
    /// The whole Sigstore bundle; what goes into the envelope's `sigstore` field.
    pub bundle: Value,
    /// Where the identity token came from.
    pub token_source: TokenSource,
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

    /// Signs `payload` as a DSSE envelope of `payload_type`, and returns the signature with its
    /// Sigstore bundle.
    ///
    /// # Errors
    /// When no token can be had, a service cannot be reached or refuses, or answers nonsense.
    pub fn sign_bundle(
        &self,
        payload_type: &str,
        payload: &[u8],
    ) -> Result<SigstoreSignature, SigstoreSignError> {
        let client = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(self.config.timeout_secs))
            .connect_timeout(Duration::from_secs(self.config.timeout_secs.min(20)))
            .user_agent(concat!("speccoder/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| SigstoreSignError::Key { reason: format!("cannot start the HTTP client: {e}") })?;
        let (token, token_source) = token::identity_token(&self.config, &client)?;

        let key = SigningScheme::ECDSA_P256_SHA256_ASN1
            .create_signer()
            .map_err(|e| SigstoreSignError::Key { reason: e.to_string() })?;
        let spki = key
            .to_sigstore_keypair()
            .and_then(|k| k.public_key_to_der())
            .map_err(|e| SigstoreSignError::Key { reason: e.to_string() })?;
        let sign = |msg: &[u8]| key.sign(msg).map_err(|e| e.to_string());
        let csr =
            services::certificate_request(&spki, sign).map_err(|reason| SigstoreSignError::Key { reason })?;
        let cert = services::fulcio_certificate(&client, &self.config.fulcio_url, &token, &csr)?;

        let sig = key
            .sign(&pae(payload_type, payload))
            .map_err(|e| SigstoreSignError::Key { reason: e.to_string() })?;
        let envelope = json!({
            "payload": STANDARD.encode(payload),
            "payloadType": payload_type,
            "signatures": [{ "keyid": "", "sig": STANDARD.encode(&sig) }],
        });
        let entry =
            services::rekor_dsse_entry(&client, &self.config.rekor_url, &envelope.to_string(), &cert)?;
        let bundle = json!({
            "mediaType": MEDIA_TYPE_V03,
            "verificationMaterial": {
                "certificate": { "rawBytes": STANDARD.encode(&cert) },
                "tlogEntries": [entry],
            },
            "dsseEnvelope": envelope,
        });
        super::bundle::parse(&bundle).map_err(|reason| {
            SigstoreSignError::bad_response(
                "Rekor",
                &format!("the bundle built from the answers does not read back: {reason}"),
            )
        })?;
        Ok(SigstoreSignature { sig, bundle, token_source })
    }

    /// The bundle of the last [`Signer::sign`] call, taken out (the envelope builder puts it into
    /// `Envelope::sigstore`).
    pub fn take_bundle(&self) -> Option<Value> {
        self.last_bundle.lock().ok().and_then(|mut b| b.take())
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
        let (payload_type, payload) = split_pae(pae_bytes).ok_or(SigstoreSignError::NotPae)?;
        let signature = self.sign_bundle(payload_type, payload)?;
        if let Ok(mut last) = self.last_bundle.lock() {
            *last = Some(signature.bundle);
        }
        Ok(signature.sig)
    }

    fn take_bundle(&self) -> Option<Value> {
        SigstoreSigner::take_bundle(self)
    }

    fn signs_summary_only(&self) -> bool {
        true
    }
}

/// Reads `DSSEv1 <len> <type> <len> <body>` back into its type and body.
pub(crate) fn split_pae(pae_bytes: &[u8]) -> Option<(&str, &[u8])> {
    let rest = pae_bytes.strip_prefix(b"DSSEv1 ")?;
    let (type_len, rest) = read_len(rest)?;
    let (payload_type, rest) = (rest.get(..type_len)?, rest.get(type_len..)?);
    let rest = rest.strip_prefix(b" ")?;
    let (body_len, rest) = read_len(rest)?;
    (rest.len() == body_len).then_some((std::str::from_utf8(payload_type).ok()?, rest))
}

fn read_len(data: &[u8]) -> Option<(usize, &[u8])> {
    let space = data.iter().position(|&b| b == b' ')?;
    let digits = std::str::from_utf8(&data[..space]).ok()?;
    if digits.is_empty()
        || (digits.len() > 1 && digits.starts_with('0'))
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((digits.parse().ok()?, &data[space + 1..]))
}
