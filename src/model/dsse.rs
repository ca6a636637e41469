//! DSSE: the pre-authentication encoding and the envelope that carries a signed statement.
//!
//! `PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, LEN being the decimal
//! byte count. Readers accept standard and URL-safe base64, padded or not, and ignore unknown
//! members of the envelope and of a signature object (DSSE: consumers must ignore them); `keyid`
//! is a hint, never trust. A writer that adds a signature to a line it read changes nothing else
//! of it ([`add_to_line`]): unknown members, alphabets and order stay as written.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use std::borrow::Cow;

use serde::de::{Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

use super::clean::{shown_if_clean, unless_leaking};
use super::unique_members::UniqueMembers;

/// The payload type of every envelope we write: an in-toto statement.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// The most signatures an envelope may carry. A tick is signed by one signer, and a line that
/// several people countersign is rare; each signature costs a verification, so more than this is
/// a line built to stall a reader, never evidence.
pub const MAX_SIGNATURES: usize = 16;

/// The longest envelope line read: far above the largest statement a tick writes (every test
/// of two runs named), and small enough that a reader holds a line and what it parses into well
/// within its memory bound. A longer line is refused before it is parsed.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The longest JSON text of an envelope field other than `payload`, `signatures` and `sigstore`
/// (`payloadType`, and every field this reader does not know), checked before it is read.
pub const MAX_FIELD_BYTES: usize = 64 << 10;

/// The largest signature, decoded (the SSH and OpenPGP armor readers take no more); its base64
/// text is checked against it before it is decoded.
pub const MAX_SIGNATURE_BYTES: usize = 64 << 10;

/// The longest JSON text of a `sigstore` field (a Sigstore bundle: certificate, log entry with
/// its inclusion proof, timestamps and the signed summary), checked before it is parsed.
pub const MAX_SIGSTORE_BYTES: usize = 512 << 10;

/// The bytes a DSSE signature covers.
#[must_use]
pub fn pae(payload_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + payload_type.len() + body.len());
    out.extend_from_slice(b"DSSEv1 ");
    out.extend_from_slice(payload_type.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload_type.as_bytes());
    out.push(b' ');
    out.extend_from_slice(body.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(body);
    out
}

/// The body of `pae_bytes` when they are exactly [`pae`]`(payload_type, body)` for some body (the
/// length written in its shortest decimal form, as [`pae`] writes it); `None` otherwise. A signer
/// that must sign the statement itself (Sigstore's DSSE bundle) reads it back with this.
#[must_use]
pub fn pae_body<'a>(payload_type: &str, pae_bytes: &'a [u8]) -> Option<&'a [u8]> {
    let head = format!("DSSEv1 {} {payload_type} ", payload_type.len());
    let rest = pae_bytes.strip_prefix(head.as_bytes())?;
    let space = rest.iter().position(|&b| b == b' ')?;
    let (len, body) = (&rest[..space], &rest[space + 1..]);
    (len == body.len().to_string().as_bytes()).then_some(body)
}

/// Decodes base64 in any of the alphabets DSSE readers must accept (standard or URL-safe, with or
/// without padding).
///
/// # Errors
/// When the text is base64 in none of them.
pub fn decode_base64(text: &str) -> Result<Vec<u8>, EnvelopeError> {
    let url_safe = text.contains(['-', '_']);
    let padded = text.ends_with('=');
    let engine = match (url_safe, padded) {
        (false, true) => &STANDARD,
        (false, false) => &STANDARD_NO_PAD,
        (true, true) => &URL_SAFE,
        (true, false) => &URL_SAFE_NO_PAD,
    };
    engine.decode(text).map_err(|_| EnvelopeError::Base64)
}

/// One signature of an envelope, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// The signer's hint (a key fingerprint, `sigstore`); never used as trust.
    pub keyid: String,
    /// The signature bytes (SSHSIG armor, OpenPGP armor, or a Sigstore signature).
    pub sig: Vec<u8>,
}

impl Signature {
    /// The signature object as this crate writes a new one: canonical JSON, `keyid` and `sig`
    /// (standard base64) alone.
    #[must_use]
    pub fn json(&self) -> String {
        let value = serde_json::json!({ "keyid": self.keyid, "sig": STANDARD.encode(&self.sig) });
        String::from_utf8_lossy(&super::canonical::value_to_canonical(&value)).into_owned()
    }
}

/// A JSON value kept as the text it was read from (or written as, canonical), parsed only by
/// whoever needs its content: equal when the texts are equal, byte for byte.
#[derive(Debug, Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// The canonical text of `value`.
    ///
    /// # Errors
    /// Never in practice: canonical JSON is JSON.
    pub fn from_value(value: &Value) -> Result<Self, serde_json::Error> {
        let text = String::from_utf8_lossy(&super::canonical::value_to_canonical(value)).into_owned();
        RawValue::from_string(text).map(RawJson)
    }

    /// The JSON text.
    #[must_use]
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The value the text holds.
    ///
    /// # Errors
    /// A number serde_json cannot hold (the text itself is valid JSON).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.get())
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

/// A DSSE envelope as we read and write it, with its payload decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// The exact payload bytes that were signed (a canonical statement when we wrote it).
    pub payload: Vec<u8>,
    /// The payload's type; ours is [`PAYLOAD_TYPE`].
    pub payload_type: String,
    /// The signatures; empty means unsigned.
    pub signatures: Vec<Signature>,
    /// The Sigstore bundle that signed this line, when it was signed keylessly, as written.
    pub sigstore: Option<RawJson>,
    /// Envelope fields we do not know, by name, as written; kept and written back, never trusted.
    pub extra: BTreeMap<String, RawJson>,
}

/// Why a line is not a DSSE envelope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// The line is not a JSON object.
    #[error("not a JSON object: {0}")]
    Json(String),
    /// A required field is absent or has the wrong JSON type.
    #[error("envelope field `{0}` is missing or not of the expected type")]
    Field(&'static str),
    /// A base64 field does not decode.
    #[error("a base64 field of the envelope does not decode")]
    Base64,
    /// More signatures than [`MAX_SIGNATURES`].
    #[error("the envelope carries {0} signatures; at most {MAX_SIGNATURES} are read")]
    TooManySignatures(usize),
    /// The `sigstore` field (a Sigstore bundle) names a member twice in one of its objects, at any
    /// depth: the Sigstore reader would take the last, another verifier may take the first, so
    /// the bundle says two things and is read as neither ([`UniqueMembers`]).
    #[error("the Sigstore bundle (the envelope's `sigstore` field) at `{at}`: {reason}")]
    SigstoreMemberTwice {
        /// Where the object is in the bundle (`verificationMaterial.tlogEntries[0]`, `.` for the
        /// bundle itself), as the bundle names it (shown only when clean).
        at: String,
        /// What is named twice.
        reason: String,
    },
    /// A line, a field or a signature longer than its cap; nothing of it was parsed.
    #[error("{what} is {size} bytes, more than the {max} bytes read")]
    TooLarge {
        /// What: `the line`, `the field \`name\``, `a signature`, `the sigstore bundle`.
        what: String,
        /// Its size.
        size: usize,
        /// The cap.
        max: usize,
    },
}

/// `Err(TooLarge)` when `size` is over `max`.
fn within(what: impl FnOnce() -> String, size: usize, max: usize) -> Result<(), EnvelopeError> {
    if size > max {
        return Err(EnvelopeError::TooLarge { what: what(), size, max });
    }
    Ok(())
}

/// The JSON text of the envelope field `name`, or why it is missing.
fn field<'a>(raw: Option<&'a RawValue>, name: &'static str) -> Result<&'a str, EnvelopeError> {
    raw.map(RawValue::get).ok_or(EnvelopeError::Field(name))
}

/// An envelope's fields as they appear in its JSON object: the known ones kept as their JSON text
/// until each is read into its type, the others as values.
struct Fields<'a> {
    payload: Option<&'a RawValue>,
    payload_type: Option<&'a RawValue>,
    signatures: Option<&'a RawValue>,
    sigstore: Option<&'a RawValue>,
    extra: BTreeMap<String, &'a RawValue>,
}

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Fields<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
                let mut out = Fields {
                    payload: None,
                    payload_type: None,
                    signatures: None,
                    sigstore: None,
                    extra: BTreeMap::new(),
                };
                while let Some(key) = map.next_key::<String>()? {
                    let slot = match key.as_str() {
                        "payload" => &mut out.payload,
                        "payloadType" => &mut out.payload_type,
                        "signatures" => &mut out.signatures,
                        "sigstore" => &mut out.sigstore,
                        _ => {
                            let value: &RawValue = map.next_value()?;
                            if out.extra.insert(key.clone(), value).is_some() {
                                return Err(A::Error::custom(format!("the field `{key}` appears twice")));
                            }
                            continue;
                        }
                    };
                    if slot.replace(map.next_value()?).is_some() {
                        return Err(A::Error::custom(format!("the field `{key}` appears twice")));
                    }
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(Object)
    }
}

#[derive(Serialize, Deserialize)]
struct WireSignature {
    #[serde(default)]
    keyid: String,
    sig: String,
}

impl Envelope {
    /// An unsigned envelope around `payload`, with our payload type.
    #[must_use]
    pub fn unsigned(payload: Vec<u8>) -> Self {
        Envelope {
            payload,
            payload_type: PAYLOAD_TYPE.to_owned(),
            signatures: Vec::new(),
            sigstore: None,
            extra: BTreeMap::new(),
        }
    }

    /// The bytes a signature over this envelope covers.
    #[must_use]
    pub fn pae(&self) -> Vec<u8> {
        pae(&self.payload_type, &self.payload)
    }

    /// Reads one envelope from its JSON text. Each field is read once, straight into its type; a
    /// field that appears twice is refused (readers that keep the first and the last would see
    /// two envelopes), and unknown fields are kept as written. Every cap ([`MAX_LINE_BYTES`],
    /// [`MAX_FIELD_BYTES`], [`MAX_SIGNATURES`], [`MAX_SIGNATURE_BYTES`], [`MAX_SIGSTORE_BYTES`]) is
    /// checked on the text before the part it bounds is decoded.
    ///
    /// # Errors
    /// When the text is not an envelope: bad JSON, a missing or repeated field, bad base64, a cap
    /// exceeded.
    pub fn parse(line: &[u8]) -> Result<Self, EnvelopeError> {
        read(line).map(|read| read.envelope)
    }

    /// [`Envelope::parse`], with the JSON text of each signature object as `line` holds it, in the
    /// order of `signatures`: what a join copies from another copy of a line ([`add_to_line`]).
    ///
    /// # Errors
    /// As [`Envelope::parse`].
    pub fn parse_with_signature_texts(line: &[u8]) -> Result<(Self, Vec<&str>), EnvelopeError> {
        read(line).map(|read| (read.envelope, read.signatures))
    }

    /// The envelope as one JSON line (no trailing newline), keys sorted: the payload in standard
    /// base64, each signature as [`Signature::json`], the `sigstore` bundle and unknown fields as
    /// they were read (as canonical JSON when this crate made them). For a line this crate makes;
    /// a signature added to a line read is written into that line's text ([`add_to_line`]).
    #[must_use]
    pub fn to_line(&self) -> Vec<u8> {
        let text = |value: Value| super::canonical::value_to_canonical(&value);
        let sigs: Vec<String> = self.signatures.iter().map(Signature::json).collect();
        let mut fields: Vec<(&str, Vec<u8>)> = vec![
            ("payload", text(Value::String(STANDARD.encode(&self.payload)))),
            ("payloadType", text(Value::String(self.payload_type.clone()))),
            ("signatures", format!("[{}]", sigs.join(",")).into_bytes()),
        ];
        if let Some(bundle) = &self.sigstore {
            fields.push(("sigstore", bundle.get().as_bytes().to_vec()));
        }
        fields.extend(self.extra.iter().map(|(name, raw)| (name.as_str(), raw.get().as_bytes().to_vec())));
        fields.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut out = vec![b'{'];
        for (i, (name, value)) in fields.into_iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend(text(Value::String(name.to_owned())));
            out.push(b':');
            out.extend(value);
        }
        out.push(b'}');
        out
    }
}

/// An envelope read from a line, with the JSON text of its `signatures` array and of each
/// signature object in it, as the line holds them (slices of it).
struct Read<'a> {
    envelope: Envelope,
    array: &'a str,
    signatures: Vec<&'a str>,
}

/// Reads one envelope from its JSON text ([`Envelope::parse`]).
fn read(line: &[u8]) -> Result<Read<'_>, EnvelopeError> {
    within(|| "the line".to_owned(), line.len(), MAX_LINE_BYTES)?;
    let fields: Fields<'_> = serde_json::from_slice(line).map_err(|e| EnvelopeError::Json(e.to_string()))?;
    for (name, raw) in &fields.extra {
        within(
            || format!("the field `{}`", crate::model::shown::shown(name, 64)),
            raw.get().len(),
            MAX_FIELD_BYTES,
        )?;
    }
    let payload: Cow<'_, str> = serde_json::from_str(field(fields.payload, "payload")?)
        .map_err(|_| EnvelopeError::Field("payload"))?;
    let payload = decode_base64(&payload)?;
    let payload_type = field(fields.payload_type, "payloadType")?;
    within(|| "the field `payloadType`".to_owned(), payload_type.len(), MAX_FIELD_BYTES)?;
    let payload_type: String =
        serde_json::from_str(payload_type).map_err(|_| EnvelopeError::Field("payloadType"))?;
    let array = field(fields.signatures, "signatures")?;
    let texts: Vec<&RawValue> =
        serde_json::from_str(array).map_err(|_| EnvelopeError::Field("signatures"))?;
    if texts.len() > MAX_SIGNATURES {
        return Err(EnvelopeError::TooManySignatures(texts.len()));
    }
    let texts: Vec<&str> = texts.into_iter().map(RawValue::get).collect();
    let signatures = texts.iter().map(|t| read_signature(t)).collect::<Result<Vec<_>, EnvelopeError>>()?;
    let sigstore = match fields.sigstore {
        Some(raw) => {
            within(|| "the sigstore bundle".to_owned(), raw.get().len(), MAX_SIGSTORE_BYTES)?;
            each_member_once(raw.get())?;
            Some(RawJson(raw.to_owned()))
        }
        None => None,
    };
    let extra = fields.extra.into_iter().map(|(name, raw)| (name, RawJson(raw.to_owned()))).collect();
    let envelope = Envelope { payload, payload_type, signatures, sigstore, extra };
    Ok(Read { envelope, array, signatures: texts })
}

/// Refuses a Sigstore bundle's text that names a member twice in any of its objects, through the
/// one rule that refuses it in every JSON this crate reads ([`UniqueMembers`]): the bundle is
/// read as a value that keeps the last, and the Sigstore crate reads that value.
fn each_member_once(bundle: &str) -> Result<(), EnvelopeError> {
    let de = &mut serde_json::Deserializer::from_str(bundle);
    serde_path_to_error::deserialize::<_, UniqueMembers>(de).map(|_| ()).map_err(|e| {
        EnvelopeError::SigstoreMemberTwice {
            at: shown_if_clean(&e.path().to_string(), 120),
            reason: unless_leaking(e.into_inner().to_string()),
        }
    })
}

/// One signature object of the `signatures` array, its size checked before it is decoded; its
/// members other than `keyid` and `sig` are ignored.
fn read_signature(text: &str) -> Result<Signature, EnvelopeError> {
    // Base64 takes 4 bytes for every 3; the key id and the JSON around them get a field's room.
    let base64_max = MAX_SIGNATURE_BYTES.div_ceil(3) * 4;
    within(|| "a signature".to_owned(), text.len(), base64_max + MAX_FIELD_BYTES)?;
    // An object, never the array serde would also read into the struct.
    if !text.starts_with('{') {
        return Err(EnvelopeError::Field("signatures"));
    }
    let s: WireSignature = serde_json::from_str(text).map_err(|_| EnvelopeError::Field("signatures"))?;
    within(|| "a signature".to_owned(), s.sig.len(), base64_max)?;
    let sig = decode_base64(&s.sig)?;
    within(|| "a signature".to_owned(), sig.len(), MAX_SIGNATURE_BYTES)?;
    Ok(Signature { keyid: s.keyid, sig })
}

/// `line`, an envelope's JSON text, with the signature objects `added` appended inside its
/// `signatures` array and, when given, the Sigstore bundle `sigstore` as a new last member.
/// Nothing else of the line changes: the payload's text, every member and its order, each earlier
/// signature object as written (unknown members, base64 alphabet, padding), white space. Each
/// added text is a signature object: [`Signature::json`] for a new one, or as another copy of the
/// line holds it ([`Envelope::parse_with_signature_texts`]). Every writer that adds a signature to
/// a line it read writes the line this gives (`attest sign`, `attest approve`, the join of two
/// copies of a line), never the envelope again: a signature vouches for the payload, and a line
/// rewritten would drop what the others wrote into it.
///
/// # Errors
/// `line` is not an envelope ([`Envelope::parse`]), an added text is not one signature object on
/// one line, the line would carry more than [`MAX_SIGNATURES`], or `sigstore` is given for a line
/// that carries a bundle already (a line holds one).
pub fn add_to_line<S: AsRef<str>>(
    line: &[u8],
    added: &[S],
    sigstore: Option<&RawJson>,
) -> Result<Vec<u8>, EnvelopeError> {
    let read = read(line)?;
    addable(&read, added, sigstore)?;
    // The `]` closing the array, and the `}` closing the object (white space may follow it).
    let close = offset_in(line, read.array).map(|at| at + read.array.len() - 1);
    let end = line.iter().rposition(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
    let (Some(close), Some(end)) = (close, end) else {
        return Err(EnvelopeError::Field("signatures"));
    };
    let mut out = Vec::with_capacity(line.len() + added.iter().map(|t| t.as_ref().len() + 1).sum::<usize>());
    out.extend_from_slice(&line[..close]);
    for (i, text) in added.iter().enumerate() {
        if i > 0 || !read.signatures.is_empty() {
            out.push(b',');
        }
        out.extend_from_slice(text.as_ref().as_bytes());
    }
    out.extend_from_slice(&line[close..end]);
    if let Some(bundle) = sigstore {
        out.extend_from_slice(b",\"sigstore\":");
        out.extend_from_slice(bundle.get().as_bytes());
    }
    out.extend_from_slice(&line[end..]);
    Ok(out)
}

/// Whether `added` and `sigstore` can be added to the line `read` ([`add_to_line`]).
fn addable<S: AsRef<str>>(
    read: &Read<'_>,
    added: &[S],
    sigstore: Option<&RawJson>,
) -> Result<(), EnvelopeError> {
    let count = read.signatures.len() + added.len();
    if count > MAX_SIGNATURES {
        return Err(EnvelopeError::TooManySignatures(count));
    }
    for text in added.iter().map(AsRef::as_ref) {
        read_signature(text)?;
        // One JSON value, nothing around it, on one line.
        let alone = serde_json::from_str::<&RawValue>(text).is_ok_and(|raw| raw.get() == text);
        if !alone || text.contains('\n') {
            return Err(EnvelopeError::Field("signatures"));
        }
    }
    if let Some(bundle) = sigstore {
        if read.envelope.sigstore.is_some() {
            return Err(EnvelopeError::Json("the field `sigstore` appears twice".to_owned()));
        }
        if bundle.get().contains('\n') {
            return Err(EnvelopeError::Field("sigstore"));
        }
    }
    Ok(())
}

/// Where `part`, a slice of `line`'s text, begins in it; `None` when it is no slice of it.
fn offset_in(line: &[u8], part: &str) -> Option<usize> {
    let at = part.as_ptr().addr().checked_sub(line.as_ptr().addr())?;
    (at + part.len() <= line.len() && !part.is_empty()).then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pae_matches_the_dsse_specification_example() {
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
        );
    }

    #[test]
    fn pae_of_an_empty_body_and_an_empty_type_counts_zero() {
        assert_eq!(pae("t", b""), b"DSSEv1 1 t 0 ");
        assert_eq!(pae("", b"x"), b"DSSEv1 0  1 x");
        assert_eq!(pae("", b""), b"DSSEv1 0  0 ");
    }

    #[test]
    fn pae_counts_bytes_not_characters_for_a_non_ascii_type() {
        // "tÿpé" is 4 characters and 6 bytes.
        assert_eq!(pae("tÿpé", b"ab"), "DSSEv1 6 tÿpé 2 ab".as_bytes());
    }

    #[test]
    fn url_safe_and_standard_base64_read_the_same() {
        let payload = [0xfbu8, 0xff, 0xfe, 0x3e, 0x3f];
        let std_line = format!(
            r#"{{"payload":"{}","payloadType":"t","signatures":[{{"keyid":"k","sig":"{}"}}]}}"#,
            STANDARD.encode(payload),
            STANDARD.encode(payload)
        );
        let url_line = format!(
            r#"{{"payload":"{}","payloadType":"t","signatures":[{{"keyid":"k","sig":"{}"}}]}}"#,
            URL_SAFE_NO_PAD.encode(payload),
            URL_SAFE.encode(payload)
        );
        assert!(std_line.contains('+') || std_line.contains('/'));
        let a = Envelope::parse(std_line.as_bytes()).unwrap();
        let b = Envelope::parse(url_line.as_bytes()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.payload, payload);
    }

    #[test]
    fn an_envelope_round_trips_and_keeps_unknown_fields() {
        let mut env = Envelope::unsigned(b"{\"a\":1}".to_vec());
        env.signatures.push(Signature { keyid: "SHA256:x".into(), sig: b"sig".to_vec() });
        env.extra.insert("future".into(), RawJson::from_value(&Value::from(7)).unwrap());
        let line = env.to_line();
        assert_eq!(Envelope::parse(&line).unwrap(), env);
        assert!(!line.contains(&b'\n'));
    }

    #[test]
    fn a_signature_added_to_a_line_leaves_every_other_byte_as_written() {
        // Members out of order (as speccoder 0.9.0 writes them), URL-safe unpadded base64, white
        // space, an unknown member of the envelope and one of a signature object.
        let payload = URL_SAFE_NO_PAD.encode([0xfbu8, 0xff, 0x3e]);
        let ada =
            format!(r#"{{"note":"kept?", "sig":"{}","keyid":"ada"}}"#, URL_SAFE_NO_PAD.encode(b"a\xfb?"));
        let head = format!(r#"{{"payloadType":"t" , "payload":"{payload}","signatures":[ {ada} "#);
        let tail = r#"],"zz":{ "y" : 1.50 }} "#;
        let line = format!("{head}{tail}");
        let read = Envelope::parse(line.as_bytes()).unwrap();
        let bob = Signature { keyid: "bob".into(), sig: b"b".to_vec() };
        assert_eq!(bob.json(), r#"{"keyid":"bob","sig":"Yg=="}"#);
        let added = add_to_line(line.as_bytes(), &[bob.json()], None).unwrap();
        assert_eq!(String::from_utf8(added.clone()).unwrap(), format!("{head},{}{tail}", bob.json()));
        let again = Envelope::parse(&added).unwrap();
        assert_eq!(again.signatures, [read.signatures[0].clone(), bob]);
        assert_eq!((again.payload, again.extra), (read.payload, read.extra));
        // A join copies a signature object as the other copy writes it.
        let (_, texts) = Envelope::parse_with_signature_texts(line.as_bytes()).unwrap();
        assert_eq!(texts, [ada.as_str()]);
        let copied =
            add_to_line(br#"{"payload":"","payloadType":"t","signatures":[]}"#, &texts, None).unwrap();
        assert_eq!(
            copied,
            format!(r#"{{"payload":"","payloadType":"t","signatures":[{ada}]}}"#).into_bytes()
        );
    }

    #[test]
    fn a_keyless_signature_adds_its_bundle_as_the_last_member() {
        let line = b"{\"signatures\":[ ],\"payload\":\"e30\",\"payloadType\":\"t\"}\r";
        let sig = Signature { keyid: "sigstore".into(), sig: b"s".to_vec() };
        let bundle = RawJson::from_value(&serde_json::json!({"b": 1})).unwrap();
        let added = add_to_line(line, &[sig.json()], Some(&bundle)).unwrap();
        let expected = format!(
            "{{\"signatures\":[ {}],\"payload\":\"e30\",\"payloadType\":\"t\",\"sigstore\":{{\"b\":1}}}}\r",
            sig.json()
        );
        assert_eq!(String::from_utf8(added).unwrap(), expected);
        assert_eq!(Envelope::parse(expected.as_bytes()).unwrap().sigstore, Some(bundle.clone()));
        let twice = add_to_line(expected.as_bytes(), &[] as &[&str], Some(&bundle));
        assert!(matches!(twice, Err(EnvelopeError::Json(m)) if m.contains("`sigstore` appears twice")));
    }

    /// A line carrying `bundle` as its `sigstore` field.
    fn keyless(bundle: &str) -> String {
        format!(
            r#"{{"payload":"e30","payloadType":"t","signatures":[{{"keyid":"sigstore","sig":"c2ln"}}],"sigstore":{bundle}}}"#
        )
    }

    #[test]
    fn a_sigstore_bundle_naming_a_member_twice_at_any_depth_is_refused_where_it_is() {
        for (bundle, at, member) in [
            (r#"{"mediaType":"a","mediaType":"b"}"#, ".", "mediaType"),
            (
                r#"{"verificationMaterial":{"tlogEntries":[],"certificate":{},"tlogEntries":[{}]}}"#,
                "verificationMaterial",
                "tlogEntries",
            ),
            (
                r#"{"verificationMaterial":{"tlogEntries":[{"logIndex":"1","kindVersion":{},"logIndex":"2"}]}}"#,
                "verificationMaterial.tlogEntries[0]",
                "logIndex",
            ),
            (
                r#"{"dsseEnvelope":{"payload":"e30","payloadType":"t","payload":"W10"}}"#,
                "dsseEnvelope",
                "payload",
            ),
            (
                r#"{"dsseEnvelope":{"signatures":[{"sig":"a","keyid":"","sig":"b"}]}}"#,
                "dsseEnvelope.signatures[0]",
                "sig",
            ),
        ] {
            let line = keyless(bundle);
            let err = Envelope::parse(line.as_bytes()).unwrap_err();
            let said = err.to_string();
            assert!(
                said.starts_with(&format!("the Sigstore bundle (the envelope's `sigstore` field) at `{at}`: the member `{member}` is named twice")),
                "{bundle}: {said}"
            );
            // Every writer that adds to a line reads it so first: `attest sign`, `attest approve`,
            // the join of two copies.
            let sig = Signature { keyid: "k".into(), sig: b"s".to_vec() };
            assert_eq!(add_to_line(line.as_bytes(), &[sig.json()], None), Err(err), "{bundle}");
        }
        let once = keyless(r#"{"mediaType":"a","verificationMaterial":{"tlogEntries":[{"logIndex":"1"}]}}"#);
        assert!(Envelope::parse(once.as_bytes()).unwrap().sigstore.is_some());
    }

    #[test]
    fn a_member_named_twice_in_a_sigstore_bundle_is_named_without_its_secret() {
        let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
        let line = keyless(&format!(r#"{{"{token}":{{"x":1,"x":2}}}}"#));
        let said = Envelope::parse(line.as_bytes()).unwrap_err().to_string();
        assert!(said.contains("at `(a value not shown, as it holds a GitHub token)`"), "{said}");
        assert!(!said.contains(token), "{said}");
    }

    #[test]
    fn what_would_not_read_back_as_a_signature_is_never_added() {
        let one = r#"{"keyid":"k","sig":"c2ln"}"#;
        let full =
            format!(r#"{{"payload":"","payloadType":"t","signatures":[{}]}}"#, vec![one; 16].join(","));
        assert_eq!(add_to_line(full.as_bytes(), &[one], None), Err(EnvelopeError::TooManySignatures(17)));
        let empty = br#"{"payload":"","payloadType":"t","signatures":[]}"#;
        for bad in [r#"["k","c2ln"]"#, r#" {"sig":"c2ln"}"#, "{\"sig\":\n\"c2ln\"}", r#"{"sig":"%%"}"#, "{}"]
        {
            assert!(add_to_line(empty, &[bad], None).is_err(), "{bad}");
        }
        assert!(add_to_line(b"{}", &[one], None).is_err());
    }

    #[test]
    fn a_signature_object_s_unknown_members_are_ignored_and_an_array_is_no_signature() {
        let line = |sig: &str| format!(r#"{{"payload":"","payloadType":"t","signatures":[{sig}]}}"#);
        let read =
            Envelope::parse(line(r#"{"sig":"c2ln","cert":{"x":[1]},"keyid":"k"}"#).as_bytes()).unwrap();
        assert_eq!(read.signatures, [Signature { keyid: "k".into(), sig: b"sig".to_vec() }]);
        let array = Envelope::parse(line(r#"["k","c2ln"]"#).as_bytes());
        assert_eq!(array, Err(EnvelopeError::Field("signatures")));
    }

    #[test]
    fn sixteen_signatures_are_read_and_seventeen_are_refused_before_any_is_decoded() {
        let line = |n: usize, sig: &str| {
            let one = format!(r#"{{"keyid":"k","sig":"{sig}"}}"#);
            format!(r#"{{"payload":"","payloadType":"t","signatures":[{}]}}"#, vec![one; n].join(","))
        };
        assert_eq!(Envelope::parse(line(16, "c2ln").as_bytes()).unwrap().signatures.len(), 16);
        let refused = Envelope::parse(line(17, "%%").as_bytes());
        assert_eq!(refused, Err(EnvelopeError::TooManySignatures(17)));
    }

    #[test]
    fn a_field_written_twice_is_refused_and_unknown_fields_are_kept() {
        let twice = br#"{"payload":"","payload":"e30","payloadType":"t","signatures":[]}"#;
        assert!(
            matches!(Envelope::parse(twice), Err(EnvelopeError::Json(m)) if m.contains("`payload` appears twice"))
        );
        let twice = br#"{"payload":"","payloadType":"t","signatures":[],"x":1,"x":2}"#;
        assert!(Envelope::parse(twice).is_err());
        let kept =
            Envelope::parse(br#"{"payload":"","payloadType":"t","signatures":[],"x":{"y":[1]}}"#).unwrap();
        assert_eq!(kept.extra.get("x").map(RawJson::get), Some(r#"{"y":[1]}"#));
        let escaped =
            Envelope::parse(br#"{"pay\u006coad":"e30","payloadType":"t","signatures":[]}"#).unwrap();
        assert_eq!(escaped.payload, b"{}");
    }

    #[test]
    fn unknown_fields_and_the_sigstore_bundle_are_written_back_as_they_were_read() {
        let line =
            br#"{"payload":"e30","payloadType":"t","signatures":[],"sigstore":{ "b" : [1, 2] },"z":1.50}"#;
        let env = Envelope::parse(line).unwrap();
        assert_eq!(env.sigstore.as_ref().map(RawJson::get), Some(r#"{ "b" : [1, 2] }"#));
        let again = env.to_line();
        assert_eq!(
            String::from_utf8(again).unwrap(),
            r#"{"payload":"e30=","payloadType":"t","signatures":[],"sigstore":{ "b" : [1, 2] },"z":1.50}"#
        );
    }

    #[test]
    fn every_cap_is_checked_before_what_it_bounds_is_read() {
        let too_large =
            |line: String| matches!(Envelope::parse(line.as_bytes()), Err(EnvelopeError::TooLarge { .. }));
        let field = "x".repeat(MAX_FIELD_BYTES);
        assert!(too_large(format!(r#"{{"payload":"","payloadType":"t","signatures":[],"f":"{field}"}}"#)));
        assert!(too_large(format!(r#"{{"payload":"","payloadType":"{field}","signatures":[]}}"#)));
        let sig = "A".repeat(MAX_SIGNATURE_BYTES.div_ceil(3) * 4);
        assert!(too_large(format!(r#"{{"payload":"","payloadType":"t","signatures":[{{"sig":"{sig}"}}]}}"#)));
        let bundle = "x".repeat(MAX_SIGSTORE_BYTES);
        assert!(too_large(format!(
            r#"{{"payload":"","payloadType":"t","signatures":[],"sigstore":"{bundle}"}}"#
        )));
        let payload = "A".repeat(MAX_LINE_BYTES);
        assert!(too_large(format!(r#"{{"payload":"{payload}","payloadType":"t","signatures":[]}}"#)));
        // Just within: read.
        let sig = STANDARD.encode(vec![0u8; MAX_SIGNATURE_BYTES]);
        let ok = format!(r#"{{"payload":"","payloadType":"t","signatures":[{{"sig":"{sig}"}}]}}"#);
        assert_eq!(Envelope::parse(ok.as_bytes()).unwrap().signatures[0].sig.len(), MAX_SIGNATURE_BYTES);
    }

    #[test]
    fn broken_envelopes_are_errors_not_panics() {
        for bad in [
            &b""[..],
            b"[]",
            b"{}",
            b"{\"payload\":\"%%\",\"payloadType\":\"t\",\"signatures\":[]}",
            b"{\"payload\":\"\",\"payloadType\":1,\"signatures\":[]}",
            b"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":{}}",
            b"{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":1}]}",
            b"{\"payload\":\"\",\"payloadType\":\"t\"",
        ] {
            assert!(Envelope::parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn a_pae_body_is_read_back_from_exactly_its_pae() {
        let body = br#"{"_type":"https://in-toto.io/Statement/v1"}"#;
        assert_eq!(pae_body(PAYLOAD_TYPE, &pae(PAYLOAD_TYPE, body)), Some(&body[..]));
        assert_eq!(pae_body(PAYLOAD_TYPE, &pae(PAYLOAD_TYPE, b"")), Some(&b""[..]));
        assert_eq!(pae_body(PAYLOAD_TYPE, &pae("text/plain", body)), None);
        let mut longer = pae(PAYLOAD_TYPE, body);
        longer.push(b'x');
        assert_eq!(pae_body(PAYLOAD_TYPE, &longer), None);
        assert_eq!(pae_body(PAYLOAD_TYPE, b"DSSEv1 28 application/vnd.in-toto+json 04 abcd"), None);
    }
}
