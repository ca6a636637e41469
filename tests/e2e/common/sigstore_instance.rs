//! A Sigstore instance made in the test: a Fulcio-like CA (a self-signed root), a CT log that
//! signs SCTs, and a Rekor-like log that signs entries (SET) and checkpoints, with the
//! `trusted_root.json` naming them. It issues keyless bundles v0.2/v0.3 for DSSE statements, each
//! piece built here from the standards (RFC 5280 certificates, RFC 6962 SCTs, Rekor `dsse`
//! v0.0.1 bodies, signed-note checkpoints), so that `sigstore-verify` checks them as it checks
//! real ones. Certificates are assembled field by field so a test can break one field (a critical
//! extension, an algorithm, a keyUsage, a pathLen) and nothing else.

#![allow(dead_code)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use sigstore_verify::crypto::KeyPair;
use x509_cert::der::asn1::{BitString, Ia5String, OctetString, UtcTime};
use x509_cert::der::oid::ObjectIdentifier;
use x509_cert::der::{Decode as _, Encode as _};
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages, SubjectAltName,
};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use x509_cert::time::{Time, Validity};
use x509_cert::{Certificate, TbsCertificate};

pub const ECDSA_SHA256: &str = "1.2.840.10045.4.3.2";
pub const ECDSA_SHA384: &str = "1.2.840.10045.4.3.3";
const CODE_SIGNING: &str = "1.3.6.1.5.5.7.3.3";
const FULCIO_ISSUER_V1: &str = "1.3.6.1.4.1.57264.1.1";
const FULCIO_ISSUER_V2: &str = "1.3.6.1.4.1.57264.1.8";
const SCT_LIST: &str = "1.3.6.1.4.1.11129.2.4.2";
const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn oid(s: &str) -> ObjectIdentifier {
    ObjectIdentifier::new_unwrap(s)
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// A key and its SubjectPublicKeyInfo.
pub struct Key {
    pub pair: KeyPair,
    pub spki: Vec<u8>,
}

impl Key {
    pub fn new() -> Key {
        let pair = KeyPair::generate_ecdsa_p256().unwrap();
        let spki = pair.public_key_der().unwrap().as_bytes().to_vec();
        Key { pair, spki }
    }

    /// ECDSA P-256 with SHA-256, DER.
    pub fn sign(&self, data: &[u8]) -> Vec<u8> {
        self.pair.sign(data).unwrap().as_bytes().to_vec()
    }
}

/// What a certificate to be made says; each field can be set wrong on purpose.
pub struct CertSpec {
    pub subject: String,
    pub ca: Option<Option<u8>>,
    pub key_usage: Option<KeyUsages>,
    pub code_signing: bool,
    pub email: Option<String>,
    pub oidc_issuer: Option<String>,
    /// The deprecated v1 issuer extension's value, when it is to say another issuer than v2
    /// (`oidc_issuer`); `None` writes both alike, as Fulcio does.
    pub oidc_issuer_v1: Option<String>,
    /// An extension of an OID no verifier knows, marked critical.
    pub unknown_critical: bool,
    /// The algorithm inside the TBS; the outer one (and the signature) is always ECDSA-SHA256.
    pub inner_algorithm: &'static str,
    pub valid_from: u64,
    pub valid_to: u64,
}

impl CertSpec {
    /// A CA: keyCertSign, and code signing in its extended key usage as Fulcio's have.
    pub fn ca(subject: &str, path_len: Option<u8>) -> CertSpec {
        CertSpec {
            subject: subject.to_owned(),
            ca: Some(path_len),
            key_usage: Some(KeyUsages::KeyCertSign),
            code_signing: true,
            email: None,
            oidc_issuer: None,
            oidc_issuer_v1: None,
            unknown_critical: false,
            inner_algorithm: ECDSA_SHA256,
            valid_from: now() - 86_400,
            valid_to: now() + 86_400 * 365,
        }
    }

    /// A Fulcio-like signing certificate: ten minutes, code signing, an email and an issuer. Its
    /// subject is empty and the email in a critical subjectAltName, as Fulcio issues them (RFC 5280
    /// 4.2.1.6 forbids a critical subjectAltName beside a subject, and sigstore-python checks it).
    pub fn leaf(email: &str, issuer: &str) -> CertSpec {
        CertSpec {
            subject: String::new(),
            ca: None,
            key_usage: Some(KeyUsages::DigitalSignature),
            code_signing: true,
            email: Some(email.to_owned()),
            oidc_issuer: Some(issuer.to_owned()),
            oidc_issuer_v1: None,
            unknown_critical: false,
            inner_algorithm: ECDSA_SHA256,
            valid_from: now() - 120,
            valid_to: now() + 480,
        }
    }
}

fn ext(id: &str, critical: bool, value: &impl x509_cert::der::Encode) -> Extension {
    Extension { extn_id: oid(id), critical, extn_value: OctetString::new(value.to_der().unwrap()).unwrap() }
}

fn utc(secs: u64) -> Time {
    Time::UtcTime(UtcTime::from_unix_duration(Duration::from_secs(secs)).unwrap())
}

/// A certificate authority of the test instance (or the signer of the next one down).
pub struct Issuer {
    pub key: Key,
    pub name: Name,
    pub der: Vec<u8>,
}

/// The test instance: a root CA, a CT log and a transparency log.
pub struct Instance {
    pub root: Issuer,
    pub ct: Key,
    pub log: Key,
}

impl Instance {
    pub fn new() -> Instance {
        let key = Key::new();
        let name: Name = "CN=speccoder test Fulcio root,O=speccoder test".parse().unwrap();
        let der = make_cert(&CertSpec::ca("", Some(1)), &name, &key.spki, &name, &key, None);
        Instance { root: Issuer { key, name, der }, ct: Key::new(), log: Key::new() }
    }

    /// A CA certificate under `issuer`.
    pub fn sub_ca(&self, issuer: &Issuer, subject: &str, path_len: Option<u8>) -> Issuer {
        self.sub_ca_with(issuer, &CertSpec::ca(subject, path_len))
    }

    /// A CA certificate under `issuer` as `spec` says.
    pub fn sub_ca_with(&self, issuer: &Issuer, spec: &CertSpec) -> Issuer {
        let key = Key::new();
        let name: Name = spec.subject.parse().unwrap();
        let der = make_cert(spec, &name, &key.spki, &issuer.name, &issuer.key, None);
        Issuer { key, name, der }
    }

    /// A signing certificate for `key` under `issuer`, carrying an SCT from the CT log.
    pub fn leaf(&self, spec: &CertSpec, key: &Key, issuer: &Issuer) -> Vec<u8> {
        self.leaf_for(spec, &key.spki, issuer)
    }

    /// A signing certificate for the public key `spki` under `issuer`, with an SCT.
    pub fn leaf_for(&self, spec: &CertSpec, spki: &[u8], issuer: &Issuer) -> Vec<u8> {
        let name: Name =
            if spec.subject.is_empty() { Name::default() } else { spec.subject.parse().unwrap() };
        make_cert(spec, &name, spki, &issuer.name, &issuer.key, Some((&self.ct, &issuer.key.spki)))
    }

    /// The `trusted_root.json` of this instance.
    pub fn trusted_root(&self) -> Value {
        let key_entry = |k: &Key| {
            json!({
                "rawBytes": STANDARD.encode(&k.spki),
                "keyDetails": "PKIX_ECDSA_P256_SHA_256",
                "validFor": {"start": "2020-01-01T00:00:00Z"}
            })
        };
        let log_id = |k: &Key| json!({"keyId": STANDARD.encode(sha256(&k.spki))});
        json!({
            "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
            "tlogs": [{"baseUrl": "https://rekor.test", "hashAlgorithm": "SHA2_256",
                       "publicKey": key_entry(&self.log), "logId": log_id(&self.log)}],
            "certificateAuthorities": [{"subject": {"organization": "speccoder test", "commonName": "root"},
                "uri": "https://fulcio.test",
                "certChain": {"certificates": [{"rawBytes": STANDARD.encode(&self.root.der)}]},
                "validFor": {"start": "2020-01-01T00:00:00Z"}}],
            "ctlogs": [{"baseUrl": "https://ctfe.test", "hashAlgorithm": "SHA2_256",
                        "publicKey": key_entry(&self.ct), "logId": log_id(&self.ct)}],
            "timestampAuthorities": []
        })
    }

    /// A keyless bundle of `payload` (an in-toto statement) signed by `key` with `chain` (the
    /// signing certificate first), logged as a Rekor `dsse` v0.0.1 entry with a SET and an
    /// inclusion proof in a one-entry tree. v0.3 carries the signing certificate alone, v0.2 the
    /// whole chain.
    pub fn bundle(&self, payload: &[u8], key: &Key, chain: &[&[u8]], v03: bool) -> (Value, Vec<u8>) {
        let sig = key.sign(&pae(PAYLOAD_TYPE, payload));
        let envelope = json!({
            "payload": STANDARD.encode(payload),
            "payloadType": PAYLOAD_TYPE,
            "signatures": [{"sig": STANDARD.encode(&sig), "keyid": ""}]
        });
        let entry = self.log_entry(&envelope.to_string(), payload, &sig, chain[0]).bundle_entry();
        let material = if v03 {
            json!({"certificate": {"rawBytes": STANDARD.encode(chain[0])}, "tlogEntries": [entry]})
        } else {
            let certs: Vec<Value> = chain.iter().map(|c| json!({"rawBytes": STANDARD.encode(c)})).collect();
            json!({"x509CertificateChain": {"certificates": certs}, "tlogEntries": [entry]})
        };
        let media = if v03 {
            "application/vnd.dev.sigstore.bundle.v0.3+json"
        } else {
            "application/vnd.dev.sigstore.bundle+json;version=0.2"
        };
        (json!({"mediaType": media, "verificationMaterial": material, "dsseEnvelope": envelope}), sig)
    }
}

/// A Rekor `dsse` v0.0.1 entry of the log, in a tree of one entry.
pub struct LogEntry {
    pub body: Vec<u8>,
    pub integrated: u64,
    pub log_id: [u8; 32],
    pub set: Vec<u8>,
    pub root_hash: [u8; 32],
    pub checkpoint: String,
}

impl LogEntry {
    /// As a bundle's `tlogEntries[0]`.
    pub fn bundle_entry(&self) -> Value {
        json!({
            "logIndex": "0",
            "logId": {"keyId": STANDARD.encode(self.log_id)},
            "kindVersion": {"kind": "dsse", "version": "0.0.1"},
            "integratedTime": self.integrated.to_string(),
            "inclusionPromise": {"signedEntryTimestamp": STANDARD.encode(&self.set)},
            "inclusionProof": {
                "logIndex": "0",
                "rootHash": STANDARD.encode(self.root_hash),
                "treeSize": "1",
                "hashes": [],
                "checkpoint": {"envelope": self.checkpoint}
            },
            "canonicalizedBody": STANDARD.encode(&self.body)
        })
    }

    /// As Rekor's v1 API answers `POST /api/v1/log/entries`.
    pub fn api_response(&self) -> Value {
        let mut map = serde_json::Map::new();
        map.insert(
            hex::encode(self.root_hash),
            json!({
                "body": STANDARD.encode(&self.body),
                "integratedTime": self.integrated,
                "logID": hex::encode(self.log_id),
                "logIndex": 0,
                "verification": {
                    "inclusionProof": {
                        "checkpoint": self.checkpoint,
                        "hashes": [],
                        "logIndex": 0,
                        "rootHash": hex::encode(self.root_hash),
                        "treeSize": 1
                    },
                    "signedEntryTimestamp": STANDARD.encode(&self.set)
                }
            }),
        );
        Value::Object(map)
    }
}

impl Instance {
    /// Logs a DSSE envelope (its JSON, payload and signature) signed with the certificate `cert`:
    /// the canonical body, its SET, and a checkpoint over a tree of that one entry.
    pub fn log_entry(&self, envelope_json: &str, payload: &[u8], sig: &[u8], cert: &[u8]) -> LogEntry {
        let body = serde_json::to_vec(&json!({
            "apiVersion": "0.0.1",
            "kind": "dsse",
            "spec": {
                "envelopeHash": {"algorithm": "sha256", "value": hex::encode(sha256(envelope_json.as_bytes()))},
                "payloadHash": {"algorithm": "sha256", "value": hex::encode(sha256(payload))},
                "signatures": [{"signature": STANDARD.encode(sig), "verifier": STANDARD.encode(pem(cert).as_bytes())}]
            }
        }))
        .unwrap();
        let integrated = now() - 60;
        let log_id = sha256(&self.log.spki);
        let set_payload = format!(
            r#"{{"body":"{}","integratedTime":{integrated},"logID":"{}","logIndex":0}}"#,
            STANDARD.encode(&body),
            hex::encode(log_id)
        );
        let set = self.log.sign(set_payload.as_bytes());
        let mut leaf = vec![0u8];
        leaf.extend_from_slice(&body);
        let root_hash = sha256(&leaf);
        let note = format!("rekor.test - speccoder test log\n1\n{}\n", STANDARD.encode(root_hash));
        let mut hint_sig = log_id[..4].to_vec();
        hint_sig.extend(self.log.sign(note.as_bytes()));
        let checkpoint = format!("{note}\n\u{2014} rekor.test {}\n", STANDARD.encode(hint_sig));
        LogEntry { body, integrated, log_id, set, root_hash, checkpoint }
    }
}

/// Serves HTTP on 127.0.0.1 for at most `for_at_most`: each request (method and path, body) is
/// recorded and answered by `answer` with a status and a JSON body. Returns the base URL and the
/// record.
pub fn serve(
    for_at_most: Duration,
    answer: impl Fn(&str, &[u8]) -> (u16, Value) + Send + 'static,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::Write as _;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let record = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&record);
    std::thread::spawn(move || {
        let end = std::time::Instant::now() + for_at_most;
        while std::time::Instant::now() < end {
            let Ok((mut conn, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            conn.set_nonblocking(false).unwrap();
            conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let (head, body) = read_request(&mut conn);
            log.lock().unwrap().push(format!("{head}\n{}", String::from_utf8_lossy(&body)));
            let (status, reply) = answer(head.lines().next().unwrap_or(""), &body);
            let reply = reply.to_string();
            let _ = write!(
                conn,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    (url, record)
}

/// Fulcio and Rekor of `instance` on 127.0.0.1 for two minutes, as keyless signing talks to them:
/// Fulcio issues a certificate for `email` at `issuer` to the key it is sent, and Rekor logs each
/// DSSE entry it is sent. Returns the base URL of both and the record of requests.
pub fn serve_fulcio_and_rekor(
    instance: &std::sync::Arc<Instance>,
    email: &'static str,
    issuer: &'static str,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    serve_answering(instance, email, issuer, Wrong::Nothing)
}

/// What a misbehaving Fulcio or Rekor returns wrongly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrong {
    /// Nothing: the services behave.
    Nothing,
    /// Fulcio certifies another key than the one sent.
    OtherKey,
    /// Fulcio certifies another identity (mallory@evil.test).
    OtherIdentity,
    /// Fulcio's chain leads to a CA outside the trusted root.
    OtherCa,
    /// Rekor's entry is for another envelope body.
    OtherBody,
    /// Rekor's SET does not verify.
    BrokenSet,
    /// Rekor's inclusion proof names another root hash.
    OtherRoot,
}

/// Fulcio and Rekor of `instance` as [`serve_fulcio_and_rekor`], returning `wrong`.
pub fn serve_answering(
    instance: &std::sync::Arc<Instance>,
    email: &'static str,
    issuer: &'static str,
    wrong: Wrong,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let service = std::sync::Arc::clone(instance);
    let stranger = Instance::new();
    serve(Duration::from_secs(120), move |line, body| {
        let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        if line.starts_with("POST /api/v2/signingCert") {
            let key_pem = request["publicKeyRequest"]["publicKey"]["content"].as_str().unwrap_or("");
            let b64: String = key_pem.lines().filter(|l| !l.starts_with("-----")).collect();
            let mut spki = STANDARD.decode(b64).unwrap();
            let (ca, who) = match wrong {
                Wrong::OtherCa => (&stranger, email),
                Wrong::OtherIdentity => (&*service, "mallory@evil.test"),
                _ => (&*service, email),
            };
            if wrong == Wrong::OtherKey {
                spki = Key::new().spki;
            }
            let cert = ca.leaf_for(&CertSpec::leaf(who, issuer), &spki, &ca.root);
            let chain = [pem(&cert), pem(&ca.root.der)];
            (201, json!({"signedCertificateEmbeddedSct": {"chain": {"certificates": chain}}}))
        } else if line.starts_with("POST /api/v1/log/entries") {
            let proposed = &request["spec"]["proposedContent"];
            let envelope_json = proposed["envelope"].as_str().unwrap();
            let envelope: Value = serde_json::from_str(envelope_json).unwrap();
            let payload = STANDARD.decode(envelope["payload"].as_str().unwrap()).unwrap();
            let sig = STANDARD.decode(envelope["signatures"][0]["sig"].as_str().unwrap()).unwrap();
            let cert_pem =
                String::from_utf8(STANDARD.decode(proposed["verifiers"][0].as_str().unwrap()).unwrap())
                    .unwrap();
            let b64: String = cert_pem.lines().filter(|l| !l.starts_with("-----")).collect();
            let cert = STANDARD.decode(b64).unwrap();
            let logged = if wrong == Wrong::OtherBody { b"{\"another\":1}".to_vec() } else { payload };
            let mut entry = service.log_entry(envelope_json, &logged, &sig, &cert);
            match wrong {
                Wrong::BrokenSet => entry.set[10] ^= 1,
                Wrong::OtherRoot => entry.root_hash[0] ^= 1,
                _ => {}
            }
            (201, entry.api_response())
        } else {
            (404, json!({}))
        }
    })
}

/// One HTTP request: its head, and as much body as its content-length says (at most 1 MiB).
fn read_request(conn: &mut std::net::TcpStream) -> (String, Vec<u8>) {
    use std::io::Read as _;
    let mut data = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    while data.len() < 1 << 20 {
        let Ok(n) = conn.read(&mut buf) else { break };
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
        let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
        let head = String::from_utf8_lossy(&data[..end]).into_owned();
        let len = head
            .lines()
            .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        if data.len() >= end + 4 + len {
            return (head, data[end + 4..end + 4 + len].to_vec());
        }
    }
    (String::from_utf8_lossy(&data).into_owned(), Vec::new())
}

pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!("DSSEv1 {} {payload_type} {} ", payload_type.len(), payload.len()).into_bytes();
    out.extend_from_slice(payload);
    out
}

pub fn pem(der: &[u8]) -> String {
    let b64 = STANDARD.encode(der);
    let lines: Vec<&str> = b64.as_bytes().chunks(64).map(|c| std::str::from_utf8(c).unwrap()).collect();
    format!("-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n", lines.join("\n"))
}

/// Assembles and signs a certificate. With `sct`, a CT log's SCT over the precertificate (the
/// same TBS without the SCT extension) is added, as RFC 6962 section 3.3 builds it.
fn make_cert(
    spec: &CertSpec,
    subject: &Name,
    spki: &[u8],
    issuer: &Name,
    issuer_key: &Key,
    sct: Option<(&Key, &[u8])>,
) -> Vec<u8> {
    let mut exts = Vec::new();
    if let Some(path_len) = spec.ca {
        exts.push(ext("2.5.29.19", true, &BasicConstraints { ca: true, path_len_constraint: path_len }));
    }
    if let Some(usage) = spec.key_usage {
        exts.push(ext("2.5.29.15", true, &KeyUsage(usage.into())));
    }
    if spec.code_signing {
        exts.push(ext("2.5.29.37", false, &ExtendedKeyUsage(vec![oid(CODE_SIGNING)])));
    }
    if let Some(email) = &spec.email {
        let san = SubjectAltName(vec![GeneralName::Rfc822Name(Ia5String::new(email).unwrap())]);
        exts.push(ext("2.5.29.17", true, &san));
    }
    if spec.ca.is_none() {
        // The issuer's key named, as Fulcio's leaves do and RFC 5280 4.2.1.1 asks of every
        // certificate but a self-signed one (sigstore-python requires it).
        let key_identifier = OctetString::new(&sha256(issuer_key.spki.as_slice())[..20]).unwrap();
        let aki = AuthorityKeyIdentifier {
            key_identifier: Some(key_identifier),
            authority_cert_issuer: None,
            authority_cert_serial_number: None,
        };
        exts.push(ext("2.5.29.35", false, &aki));
    }
    if let Some(iss) = &spec.oidc_issuer {
        // Fulcio writes both: the deprecated v1 extension holds the issuer's bytes as they are
        // (sigstore-python's identity policy reads that one), v2 a DER UTF8String.
        let v1 = OctetString::new(spec.oidc_issuer_v1.as_deref().unwrap_or(iss).as_bytes()).unwrap();
        exts.push(Extension { extn_id: oid(FULCIO_ISSUER_V1), critical: false, extn_value: v1 });
        exts.push(ext(FULCIO_ISSUER_V2, false, &x509_cert::der::asn1::Utf8StringRef::new(iss).unwrap()));
    }
    if spec.unknown_critical {
        exts.push(ext("1.3.6.1.4.1.55555.1.1", true, &x509_cert::der::asn1::Null));
    }
    let mut tbs = TbsCertificate {
        version: x509_cert::Version::V3,
        serial_number: SerialNumber::new(&sha256(spki)[..16]).unwrap(),
        signature: AlgorithmIdentifierOwned { oid: oid(spec.inner_algorithm), parameters: None },
        issuer: issuer.clone(),
        validity: Validity { not_before: utc(spec.valid_from), not_after: utc(spec.valid_to) },
        subject: subject.clone(),
        subject_public_key_info: SubjectPublicKeyInfoOwned::from_der(spki).unwrap(),
        issuer_unique_id: None,
        subject_unique_id: None,
        extensions: Some(exts),
    };
    if let Some((ct, issuer_spki)) = sct {
        let precert = tbs.to_der().unwrap();
        let timestamp_ms = (spec.valid_from + 1) * 1000;
        let mut signed = vec![0u8, 0u8];
        signed.extend(timestamp_ms.to_be_bytes());
        signed.extend([0u8, 1u8]);
        signed.extend(sha256(issuer_spki));
        signed.extend(&(precert.len() as u32).to_be_bytes()[1..]);
        signed.extend(&precert);
        signed.extend([0u8, 0u8]);
        let sig = ct.sign(&signed);
        let mut one = vec![0u8];
        one.extend(sha256(&ct.spki));
        one.extend(timestamp_ms.to_be_bytes());
        one.extend([0u8, 0u8, 4u8, 3u8]);
        one.extend((sig.len() as u16).to_be_bytes());
        one.extend(&sig);
        let mut list = ((one.len() + 2) as u16).to_be_bytes().to_vec();
        list.extend((one.len() as u16).to_be_bytes());
        list.extend(one);
        tbs.extensions.as_mut().unwrap().push(ext(SCT_LIST, false, &OctetString::new(list).unwrap()));
    }
    let signature = issuer_key.sign(&tbs.to_der().unwrap());
    let cert = Certificate {
        tbs_certificate: tbs,
        signature_algorithm: AlgorithmIdentifierOwned { oid: oid(ECDSA_SHA256), parameters: None },
        signature: BitString::from_bytes(&signature).unwrap(),
    };
    cert.to_der().unwrap()
}
