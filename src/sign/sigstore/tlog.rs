//! Transparency log checks: the entry records exactly this bundle's signature, signer and
//! content; its signed entry timestamp (SET) verifies under the log's key; its inclusion proof
//! leads to the root hash of a checkpoint that the log signed.
//!
//! The sigstore crate (0.15) leaves inclusion proofs and SETs unchecked (its own TODO) and knows
//! neither Rekor v2 entries (`hashedrekord` 0.0.2) nor `intoto` bodies, so these checks are ours.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::bundle::{Content, InclusionProof, TlogEntry};
use super::crypto::{self, PublicKey};
use super::trusted_root::LogKey;

/// Who the log must name as the signer.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LoggedSigner<'a> {
    /// A certificate, as DER.
    Cert(&'a [u8]),
    /// A public key, as SubjectPublicKeyInfo DER.
    Key(&'a [u8]),
}

/// Checks that the entry's body records this bundle: the same signature, signer and signed data.
/// `artifact_sha256` is the artifact's digest for a message signature.
pub(crate) fn check_body(
    entry: &TlogEntry,
    content: &Content,
    artifact_sha256: Option<&[u8]>,
    signer: LoggedSigner<'_>,
) -> Result<(), String> {
    let body: Value =
        serde_json::from_slice(&entry.body).map_err(|_| "the log entry body is not JSON".to_owned())?;
    let kind = body.get("kind").and_then(Value::as_str).unwrap_or("");
    let version = body.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if kind != entry.kind || version != entry.version {
        return Err(format!(
            "the entry says {}/{} but its body is {kind}/{version}",
            entry.kind, entry.version
        ));
    }
    let spec = body.get("spec").ok_or("the log entry body has no spec")?;
    let sig = content.signature();
    match (kind, version, content) {
        ("hashedrekord", "0.0.1", Content::Message { .. }) => {
            let digest = artifact_sha256.ok_or("no artifact to compare the logged digest with")?;
            let hash = spec.get("data").and_then(|d| d.get("hash"));
            expect_str(hash.and_then(|h| h.get("algorithm")), "sha256", "the logged digest algorithm")?;
            expect_str(
                hash.and_then(|h| h.get("value")),
                &hex::encode(digest),
                "the logged artifact digest",
            )?;
            let s = spec.get("signature");
            expect_bytes(s.and_then(|s| s.get("content")), sig, "the logged signature")?;
            expect_pem_signer(s.and_then(|s| s.get("publicKey")).and_then(|k| k.get("content")), signer)
        }
        ("hashedrekord", "0.0.2", _) => {
            let v = spec.get("hashedRekordV002").ok_or("the log entry body has no hashedRekordV002")?;
            let signed_digest = match content {
                Content::Message { .. } => {
                    artifact_sha256.ok_or("no artifact to compare the logged digest with")?.to_vec()
                }
                // Rekor v2 logs a DSSE envelope as a hashedrekord over its PAE.
                Content::Dsse { payload_type, payload, .. } => {
                    Sha256::digest(crate::model::dsse::pae(payload_type, payload)).to_vec()
                }
            };
            let data = v.get("data");
            expect_str(data.and_then(|d| d.get("algorithm")), "SHA2_256", "the logged digest algorithm")?;
            expect_bytes(data.and_then(|d| d.get("digest")), &signed_digest, "the logged digest")?;
            let s = v.get("signature");
            expect_bytes(s.and_then(|s| s.get("content")), sig, "the logged signature")?;
            expect_v2_verifier(s.and_then(|s| s.get("verifier")), signer)
        }
        ("dsse", "0.0.1", Content::Dsse { payload, .. }) => {
            // `envelopeHash` is over Rekor's own re-serialisation of the envelope; the payload
            // hash, signature and verifier below bind the same content without guessing that form.
            let ph = spec.get("payloadHash");
            expect_str(ph.and_then(|h| h.get("algorithm")), "sha256", "the logged payload hash algorithm")?;
            expect_str(
                ph.and_then(|h| h.get("value")),
                &hex::encode(Sha256::digest(payload)),
                "the logged payload hash",
            )?;
            let sigs = spec
                .get("signatures")
                .and_then(Value::as_array)
                .ok_or("the logged envelope has no signatures")?;
            let [logged] = sigs.as_slice() else {
                return Err("the logged envelope does not have exactly one signature".into());
            };
            expect_bytes(logged.get("signature"), sig, "the logged signature")?;
            expect_pem_signer(logged.get("verifier"), signer)
        }
        ("dsse", "0.0.2", Content::Dsse { payload, .. }) => {
            let v = spec.get("dsseV002").ok_or("the log entry body has no dsseV002")?;
            let ph = v.get("payloadHash");
            expect_str(ph.and_then(|h| h.get("algorithm")), "SHA2_256", "the logged payload hash algorithm")?;
            expect_bytes(
                ph.and_then(|h| h.get("digest")),
                &Sha256::digest(payload),
                "the logged payload hash",
            )?;
            let sigs = v
                .get("signatures")
                .and_then(Value::as_array)
                .ok_or("the logged envelope has no signatures")?;
            let [logged] = sigs.as_slice() else {
                return Err("the logged envelope does not have exactly one signature".into());
            };
            expect_bytes(logged.get("content"), sig, "the logged signature")?;
            expect_v2_verifier(logged.get("verifier"), signer)
        }
        ("intoto", "0.0.2", Content::Dsse { payload_type, payload, .. }) => {
            let c = spec.get("content").ok_or("the log entry body has no content")?;
            let ph = c.get("payloadHash");
            expect_str(ph.and_then(|h| h.get("algorithm")), "sha256", "the logged payload hash algorithm")?;
            expect_str(
                ph.and_then(|h| h.get("value")),
                &hex::encode(Sha256::digest(payload)),
                "the logged payload hash",
            )?;
            let env = c.get("envelope").ok_or("the log entry body has no envelope")?;
            expect_str(env.get("payloadType"), payload_type, "the logged payload type")?;
            if let Some(p) = env.get("payload") {
                // intoto 0.0.2 bodies base64-encode the envelope's base64 once more.
                expect_bytes(Some(p), STANDARD.encode(payload).as_bytes(), "the logged payload")?;
            }
            let sigs = env
                .get("signatures")
                .and_then(Value::as_array)
                .ok_or("the logged envelope has no signatures")?;
            let [logged] = sigs.as_slice() else {
                return Err("the logged envelope does not have exactly one signature".into());
            };
            expect_bytes(logged.get("sig"), STANDARD.encode(sig).as_bytes(), "the logged signature")?;
            expect_pem_signer(logged.get("publicKey"), signer)
        }
        _ => Err(format!("a {kind}/{version} log entry cannot record this kind of bundle content")),
    }
}

fn expect_str(v: Option<&Value>, want: &str, what: &str) -> Result<(), String> {
    match v.and_then(Value::as_str) {
        Some(s) if s == want => Ok(()),
        Some(s) => Err(format!("{what} is {s:?}, the bundle has {want:?}")),
        None => Err(format!("{what} is missing from the log entry")),
    }
}

fn expect_bytes(v: Option<&Value>, want: &[u8], what: &str) -> Result<(), String> {
    let got = v
        .and_then(Value::as_str)
        .and_then(|s| STANDARD.decode(s).ok())
        .ok_or_else(|| format!("{what} is missing from the log entry or not base64"))?;
    if got == want { Ok(()) } else { Err(format!("{what} differs from the bundle's")) }
}

/// A base64 PEM certificate or public key in a v1 body must be the bundle's signer.
fn expect_pem_signer(v: Option<&Value>, signer: LoggedSigner<'_>) -> Result<(), String> {
    let pem = v
        .and_then(Value::as_str)
        .and_then(|s| STANDARD.decode(s).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or("the logged signer is missing or not base64 PEM")?;
    let matches = match signer {
        LoggedSigner::Cert(der) => crypto::pem_block(&pem, "CERTIFICATE").is_some_and(|d| d == der),
        LoggedSigner::Key(spki) => crypto::spki_from_pem(&pem).is_some_and(|d| d == spki),
    };
    if matches { Ok(()) } else { Err("the logged signer (certificate or key) is not the bundle's".into()) }
}

/// The `verifier` of a v2 body must be the bundle's signer.
fn expect_v2_verifier(v: Option<&Value>, signer: LoggedSigner<'_>) -> Result<(), String> {
    let v = v.ok_or("the logged verifier is missing")?;
    match signer {
        LoggedSigner::Cert(der) => expect_bytes(
            v.get("x509Certificate").and_then(|c| c.get("rawBytes")),
            der,
            "the logged certificate",
        ),
        LoggedSigner::Key(spki) => {
            expect_bytes(v.get("publicKey").and_then(|c| c.get("rawBytes")), spki, "the logged public key")
        }
    }
}

/// Verifies the signed entry timestamp: the log's signature over the entry's canonical JSON.
pub(crate) fn verify_set(entry: &TlogEntry, set: &[u8], key: &PublicKey) -> Result<(), String> {
    let message = format!(
        r#"{{"body":"{}","integratedTime":{},"logID":"{}","logIndex":{}}}"#,
        STANDARD.encode(&entry.body),
        entry.integrated_time,
        hex::encode(&entry.log_id),
        entry.log_index
    );
    if key.verify(key.default_hash(), message.as_bytes(), set) {
        Ok(())
    } else {
        Err("the signed entry timestamp does not verify under the log's key".into())
    }
}

/// Verifies the RFC 6962 inclusion proof of the entry's body.
pub(crate) fn verify_inclusion(body: &[u8], proof: &InclusionProof) -> Result<(), String> {
    let leaf = hash_children(0x00, body, &[]);
    if proof.hashes.iter().any(|h| h.len() != 32) || proof.root_hash.len() != 32 {
        return Err("the inclusion proof has hashes that are not SHA-256".into());
    }
    if proof.log_index >= proof.tree_size {
        return Err("the inclusion proof's index is outside its tree".into());
    }
    let (mut fnode, mut snode) = (proof.log_index, proof.tree_size - 1);
    let mut r = leaf;
    for p in &proof.hashes {
        if snode == 0 {
            return Err("the inclusion proof is longer than its tree allows".into());
        }
        if fnode & 1 == 1 || fnode == snode {
            r = hash_children(0x01, p, &r);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            r = hash_children(0x01, &r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    if snode != 0 || r != proof.root_hash[..] {
        return Err("the inclusion proof does not lead to its root hash".into());
    }
    Ok(())
}

fn hash_children(prefix: u8, left: &[u8], right: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([prefix]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// Verifies a checkpoint (a signed note): it commits to the proof's tree size and root hash and
/// carries a signature by the log (its name, key hint and key); witness cosignatures are ignored.
pub(crate) fn verify_checkpoint(
    note: &str,
    proof: &InclusionProof,
    log: &LogKey,
    key: &PublicKey,
) -> Result<(), String> {
    let split = note.find("\n\n").ok_or("the checkpoint has no signature block")?;
    let (text, sigs) = (&note[..=split], &note[split + 2..]);
    let mut lines = text.lines();
    let origin = lines.next().filter(|l| !l.is_empty()).ok_or("the checkpoint has no origin")?;
    let size: u64 =
        lines.next().and_then(|l| l.parse().ok()).ok_or("the checkpoint's second line is not a tree size")?;
    let root = lines
        .next()
        .and_then(|l| STANDARD.decode(l).ok())
        .filter(|r| r.len() == 32)
        .ok_or("the checkpoint's third line is not a root hash")?;
    if size != proof.tree_size || root != proof.root_hash {
        return Err("the checkpoint is for another tree than the inclusion proof".into());
    }
    if let Some(name) = &log.origin
        && !origin.starts_with(name.as_str())
    {
        return Err(format!("the checkpoint's origin {origin:?} is not the log {name:?}"));
    }
    let hint = log.key_id.get(..4).ok_or("the log id is too short")?;
    for line in sigs.lines() {
        let Some(rest) = line.strip_prefix("\u{2014} ") else { continue };
        let Some((name, b64)) = rest.rsplit_once(' ') else { continue };
        if log.origin.as_deref().is_some_and(|n| n != name) {
            continue;
        }
        let Ok(bytes) = STANDARD.decode(b64) else { continue };
        if bytes.len() > 4
            && &bytes[..4] == hint
            && key.verify(key.default_hash(), text.as_bytes(), &bytes[4..])
        {
            return Ok(());
        }
    }
    Err("no signature of the log verifies the checkpoint".into())
}
