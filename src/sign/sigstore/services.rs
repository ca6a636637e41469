//! Fulcio (a short-lived certificate for an ephemeral key) and Rekor (a `dsse` log entry) over
//! HTTPS. The sigstore crate's clients need an email claim in the token (CI tokens have none) and
//! cannot log DSSE entries, so these two requests are made here; the key is the crate's.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::crypto;
use super::der;
use super::signer::SigstoreSignError;

/// Builds a PKCS#10 request for `spki`, signed by `sign` (ECDSA P-256 with SHA-256, DER).
pub(crate) fn certificate_request(
    spki: &[u8],
    sign: impl Fn(&[u8]) -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, String> {
    let mut info = der::encode(der::INTEGER, &[0]);
    info.extend(der::encode(der::SEQUENCE, &[]));
    info.extend_from_slice(spki);
    info.extend(der::encode(der::ctx(0), &[]));
    let info = der::encode(der::SEQUENCE, &info);
    let signature = sign(&info)?;
    let mut bits = vec![0u8];
    bits.extend(signature);
    let mut req = info;
    req.extend(der::encode(der::SEQUENCE, &der::encode(der::OID, &der::oid("1.2.840.10045.4.3.2"))));
    req.extend(der::encode(der::BIT_STRING, &bits));
    Ok(der::encode(der::SEQUENCE, &req))
}

/// Asks Fulcio for a certificate; returns the leaf certificate's DER.
pub(crate) fn fulcio_certificate(
    client: &reqwest::blocking::Client,
    fulcio_url: &str,
    token: &str,
    csr_der: &[u8],
) -> Result<Vec<u8>, SigstoreSignError> {
    let url = format!("{}/api/v2/signingCert", fulcio_url.trim_end_matches('/'));
    let csr_pem = format!(
        "-----BEGIN CERTIFICATE REQUEST-----\n{}\n-----END CERTIFICATE REQUEST-----\n",
        STANDARD.encode(csr_der)
    );
    let body = json!({
        "credentials": { "oidcIdentityToken": token },
        "certificateSigningRequest": STANDARD.encode(csr_pem.as_bytes()),
    });
    let v = post_json(client, "Fulcio", &url, &body)?;
    let chain = v
        .get("signedCertificateEmbeddedSct")
        .or_else(|| v.get("signedCertificateDetachedSct"))
        .and_then(|c| c.get("chain"))
        .and_then(|c| c.get("certificates"))
        .and_then(Value::as_array)
        .ok_or_else(|| SigstoreSignError::bad_response("Fulcio", "no certificate chain in the response"))?;
    let leaf = chain
        .first()
        .and_then(Value::as_str)
        .ok_or_else(|| SigstoreSignError::bad_response("Fulcio", "an empty certificate chain"))?;
    crypto::pem_block(leaf, "CERTIFICATE")
        .ok_or_else(|| SigstoreSignError::bad_response("Fulcio", "the certificate is not PEM"))
}

/// Logs a DSSE envelope in Rekor; returns the bundle's `tlogEntries[0]`.
pub(crate) fn rekor_dsse_entry(
    client: &reqwest::blocking::Client,
    rekor_url: &str,
    envelope_json: &str,
    cert_der: &[u8],
) -> Result<Value, SigstoreSignError> {
    let url = format!("{}/api/v1/log/entries", rekor_url.trim_end_matches('/'));
    let body = json!({
        "apiVersion": "0.0.1",
        "kind": "dsse",
        "spec": { "proposedContent": {
            "envelope": envelope_json,
            "verifiers": [STANDARD.encode(crypto::cert_pem(cert_der).as_bytes())],
        }},
    });
    let v = post_json(client, "Rekor", &url, &body)?;
    let entry = v
        .as_object()
        .and_then(|o| o.values().next())
        .ok_or_else(|| SigstoreSignError::bad_response("Rekor", "no entry in the response"))?;
    tlog_entry_for_bundle(entry).map_err(|reason| SigstoreSignError::bad_response("Rekor", &reason))
}

/// Rekor's v1 API entry, rewritten as a bundle's `TransparencyLogEntry` (hex becomes base64,
/// integers become strings).
pub(crate) fn tlog_entry_for_bundle(entry: &Value) -> Result<Value, String> {
    let int = |v: Option<&Value>, what: &str| {
        v.and_then(Value::as_i64).map(|n| n.to_string()).ok_or(format!("no `{what}`"))
    };
    let hex_b64 = |v: Option<&Value>, what: &str| {
        v.and_then(Value::as_str)
            .and_then(|h| hex::decode(h).ok())
            .map(|b| STANDARD.encode(b))
            .ok_or(format!("`{what}` is not hex"))
    };
    let body = entry.get("body").and_then(Value::as_str).ok_or("no `body`")?;
    let decoded: Value = STANDARD
        .decode(body)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or("the body is not base64 JSON")?;
    let verification = entry.get("verification").ok_or("no `verification`")?;
    let proof = verification.get("inclusionProof").ok_or("no inclusion proof")?;
    let hashes = proof
        .get("hashes")
        .and_then(Value::as_array)
        .ok_or("no proof hashes")?
        .iter()
        .map(|h| hex_b64(Some(h), "hashes"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({
        "logIndex": int(entry.get("logIndex"), "logIndex")?,
        "logId": { "keyId": hex_b64(entry.get("logID"), "logID")? },
        "kindVersion": {
            "kind": decoded.get("kind").and_then(Value::as_str).unwrap_or("dsse"),
            "version": decoded.get("apiVersion").and_then(Value::as_str).unwrap_or("0.0.1"),
        },
        "integratedTime": int(entry.get("integratedTime"), "integratedTime")?,
        "inclusionPromise": { "signedEntryTimestamp": verification.get("signedEntryTimestamp").and_then(Value::as_str).ok_or("no SET")? },
        "inclusionProof": {
            "logIndex": int(proof.get("logIndex"), "inclusionProof.logIndex")?,
            "rootHash": hex_b64(proof.get("rootHash"), "rootHash")?,
            "treeSize": int(proof.get("treeSize"), "treeSize")?,
            "hashes": hashes,
            "checkpoint": { "envelope": proof.get("checkpoint").and_then(Value::as_str).ok_or("no checkpoint")? },
        },
        "canonicalizedBody": body,
    }))
}

fn post_json(
    client: &reqwest::blocking::Client,
    service: &'static str,
    url: &str,
    body: &Value,
) -> Result<Value, SigstoreSignError> {
    let response =
        client.post(url).json(body).send().map_err(|e| SigstoreSignError::network(service, url, &e))?;
    let status = response.status();
    let text = response.text().map_err(|e| SigstoreSignError::network(service, url, &e))?;
    if !status.is_success() {
        return Err(SigstoreSignError::service(service, status.as_u16(), &text));
    }
    serde_json::from_str(&text)
        .map_err(|_| SigstoreSignError::bad_response(service, "the response is not JSON"))
}
