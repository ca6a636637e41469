//! Reading a Sigstore bundle (v0.1 to v0.3, protobuf JSON) into the parts verification needs.
//! The bundle is hostile: every field is type-checked and base64 is decoded strictly.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

/// Bundle media types by version.
pub(crate) const MEDIA_TYPE_V03: &str = "application/vnd.dev.sigstore.bundle.v0.3+json";

/// The bundle format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Version {
    V01,
    V02,
    V03,
}

/// What identifies the signer.
#[derive(Clone, Debug)]
pub(crate) enum Material {
    /// A Fulcio certificate (DER) and any further certificates the bundle carried.
    Certificate { leaf: Vec<u8>, rest: Vec<Vec<u8>> },
    /// A managed key, named only by a hint.
    PublicKey,
}

/// What was signed.
#[derive(Clone, Debug)]
pub(crate) enum Content {
    /// A signature over an artifact; the digest is an unauthenticated hint.
    Message { digest: Option<(String, Vec<u8>)>, signature: Vec<u8> },
    /// A DSSE envelope with exactly one signature.
    Dsse { payload_type: String, payload: Vec<u8>, signature: Vec<u8> },
}

impl Content {
    /// The signature bytes.
    pub(crate) fn signature(&self) -> &[u8] {
        match self {
            Content::Message { signature, .. } | Content::Dsse { signature, .. } => signature,
        }
    }
}

/// An inclusion proof with its checkpoint.
#[derive(Clone, Debug)]
pub(crate) struct InclusionProof {
    pub(crate) log_index: u64,
    pub(crate) root_hash: Vec<u8>,
    pub(crate) tree_size: u64,
    pub(crate) hashes: Vec<Vec<u8>>,
    pub(crate) checkpoint: Option<String>,
}

/// One transparency log entry.
#[derive(Clone, Debug)]
pub(crate) struct TlogEntry {
    pub(crate) log_index: u64,
    pub(crate) log_id: Vec<u8>,
    pub(crate) kind: String,
    pub(crate) version: String,
    /// Seconds since the epoch; 0 when absent (Rekor v2 has none).
    pub(crate) integrated_time: i64,
    pub(crate) signed_entry_timestamp: Option<Vec<u8>>,
    pub(crate) proof: Option<InclusionProof>,
    pub(crate) body: Vec<u8>,
}

/// A bundle, read.
#[derive(Clone, Debug)]
pub(crate) struct Bundle {
    pub(crate) version: Version,
    pub(crate) material: Material,
    pub(crate) tlog: Vec<TlogEntry>,
    pub(crate) timestamps: Vec<Vec<u8>>,
    pub(crate) content: Content,
}

/// Reads a bundle; the error says which field is wrong.
pub(crate) fn parse(v: &Value) -> Result<Bundle, String> {
    let media = v.get("mediaType").and_then(Value::as_str).ok_or("`mediaType` is missing")?;
    let version = match media {
        "application/vnd.dev.sigstore.bundle+json;version=0.1" => Version::V01,
        "application/vnd.dev.sigstore.bundle+json;version=0.2" => Version::V02,
        "application/vnd.dev.sigstore.bundle+json;version=0.3" | MEDIA_TYPE_V03 => Version::V03,
        other => return Err(format!("unsupported bundle media type {other:?}")),
    };
    let vm = v.get("verificationMaterial").ok_or("`verificationMaterial` is missing")?;
    let material = if let Some(chain) = vm.get("x509CertificateChain") {
        let certs = chain
            .get("certificates")
            .and_then(Value::as_array)
            .ok_or("`x509CertificateChain.certificates` is missing")?;
        let mut ders = certs
            .iter()
            .enumerate()
            .map(|(i, c)| b64(c.get("rawBytes"), &format!("x509CertificateChain.certificates[{i}].rawBytes")))
            .collect::<Result<Vec<_>, _>>()?;
        if ders.is_empty() {
            return Err("the certificate chain is empty".into());
        }
        let leaf = ders.remove(0);
        Material::Certificate { leaf, rest: ders }
    } else if let Some(cert) = vm.get("certificate") {
        Material::Certificate { leaf: b64(cert.get("rawBytes"), "certificate.rawBytes")?, rest: Vec::new() }
    } else if vm.get("publicKey").is_some() {
        Material::PublicKey
    } else {
        return Err("`verificationMaterial` has no certificate and no public key".into());
    };
    let tlog = vm
        .get("tlogEntries")
        .map(|t| t.as_array().ok_or("`tlogEntries` is not a list"))
        .transpose()?
        .map(|a| {
            a.iter()
                .enumerate()
                .map(|(i, e)| tlog_entry(e, &format!("tlogEntries[{i}]")))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?
        .unwrap_or_default();
    let timestamps = match vm.get("timestampVerificationData").and_then(|t| t.get("rfc3161Timestamps")) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, t)| b64(t.get("signedTimestamp"), &format!("rfc3161Timestamps[{i}].signedTimestamp")))
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err("`rfc3161Timestamps` is not a list".into()),
    };
    let content = match (v.get("messageSignature"), v.get("dsseEnvelope")) {
        (Some(m), None) => {
            let digest = match m.get("messageDigest") {
                None | Some(Value::Null) => None,
                Some(d) => Some((
                    d.get("algorithm").and_then(Value::as_str).unwrap_or("").to_owned(),
                    b64(d.get("digest"), "messageSignature.messageDigest.digest")?,
                )),
            };
            Content::Message { digest, signature: b64(m.get("signature"), "messageSignature.signature")? }
        }
        (None, Some(d)) => {
            let sigs = d
                .get("signatures")
                .and_then(Value::as_array)
                .ok_or("`dsseEnvelope.signatures` is missing")?;
            let [sig] = sigs.as_slice() else {
                return Err(format!(
                    "the DSSE envelope has {} signatures; a Sigstore bundle has exactly one",
                    sigs.len()
                ));
            };
            Content::Dsse {
                payload_type: d
                    .get("payloadType")
                    .and_then(Value::as_str)
                    .ok_or("`dsseEnvelope.payloadType` is missing")?
                    .to_owned(),
                payload: b64(d.get("payload"), "dsseEnvelope.payload")?,
                signature: b64(sig.get("sig"), "dsseEnvelope.signatures[0].sig")?,
            }
        }
        _ => return Err("the bundle must have exactly one of `messageSignature` and `dsseEnvelope`".into()),
    };
    Ok(Bundle { version, material, tlog, timestamps, content })
}

fn tlog_entry(e: &Value, at: &str) -> Result<TlogEntry, String> {
    let kv = e.get("kindVersion").ok_or_else(|| format!("`{at}.kindVersion` is missing"))?;
    let proof = match e.get("inclusionProof") {
        None | Some(Value::Null) => None,
        Some(p) => Some(InclusionProof {
            log_index: uint(p.get("logIndex"), &format!("{at}.inclusionProof.logIndex"))?,
            root_hash: b64(p.get("rootHash"), &format!("{at}.inclusionProof.rootHash"))?,
            tree_size: uint(p.get("treeSize"), &format!("{at}.inclusionProof.treeSize"))?,
            hashes: p
                .get("hashes")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .enumerate()
                        .map(|(i, h)| b64(Some(h), &format!("{at}.inclusionProof.hashes[{i}]")))
                        .collect::<Result<Vec<_>, String>>()
                })
                .transpose()?
                .unwrap_or_default(),
            checkpoint: p
                .get("checkpoint")
                .and_then(|c| c.get("envelope"))
                .and_then(Value::as_str)
                .map(str::to_owned),
        }),
    };
    let integrated_time = match e.get("integratedTime") {
        None | Some(Value::Null) => 0,
        t => i64::try_from(uint(t, &format!("{at}.integratedTime"))?)
            .map_err(|_| format!("`{at}.integratedTime` is too large"))?,
    };
    Ok(TlogEntry {
        log_index: uint(e.get("logIndex"), &format!("{at}.logIndex"))?,
        log_id: b64(e.get("logId").and_then(|l| l.get("keyId")), &format!("{at}.logId.keyId"))?,
        kind: kv.get("kind").and_then(Value::as_str).unwrap_or("").to_owned(),
        version: kv.get("version").and_then(Value::as_str).unwrap_or("").to_owned(),
        integrated_time,
        signed_entry_timestamp: e
            .get("inclusionPromise")
            .map(|p| {
                b64(p.get("signedEntryTimestamp"), &format!("{at}.inclusionPromise.signedEntryTimestamp"))
            })
            .transpose()?,
        proof,
        body: b64(e.get("canonicalizedBody"), &format!("{at}.canonicalizedBody"))?,
    })
}

/// A protobuf-JSON int64 (a string, or a number) that must not be negative.
fn uint(v: Option<&Value>, at: &str) -> Result<u64, String> {
    let n = match v {
        Some(Value::String(s)) => s.parse::<i128>().map_err(|_| format!("`{at}` is not an integer"))?,
        Some(Value::Number(n)) => {
            n.as_i64().map(i128::from).ok_or_else(|| format!("`{at}` is not an integer"))?
        }
        _ => return Err(format!("`{at}` is missing")),
    };
    u64::try_from(n).map_err(|_| format!("`{at}` is negative or too large ({n})"))
}

/// Strict standard base64 of a JSON string; line breaks are ignored, as other Sigstore clients
/// (and the `base64` tool's wrapped output) have them.
pub(crate) fn b64(v: Option<&Value>, at: &str) -> Result<Vec<u8>, String> {
    let s = v.and_then(Value::as_str).ok_or_else(|| format!("`{at}` is missing or not a string"))?;
    let decoded = if s.contains(['\n', '\r']) {
        STANDARD.decode(s.replace(['\n', '\r'], ""))
    } else {
        STANDARD.decode(s)
    };
    decoded.map_err(|_| format!("`{at}` is not valid base64"))
}
