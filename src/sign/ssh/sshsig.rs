//! The SSHSIG format (OpenSSH `PROTOCOL.sshsig`): the armor, the binary blob, and the bytes a key
//! actually signs. Decoding is our own so that it is lenient where `ssh-keygen` is (armor line
//! width), strict where safety needs it (size, trailing bytes), and understands certificates.

use base64::Engine as _;
use ssh_key::{Certificate, PublicKey, Signature, public::KeyData};

/// The namespace every signature of ours is made in.
pub const NAMESPACE: &str = "in-toto";

/// The first line of an armored SSH signature.
pub const ARMOR_BEGIN: &str = "-----BEGIN SSH SIGNATURE-----";

/// The last line of an armored SSH signature.
pub const ARMOR_END: &str = "-----END SSH SIGNATURE-----";

/// Armored signatures larger than this are refused before decoding (real ones are a few KiB).
pub const MAX_ARMOR_LEN: usize = 64 * 1024;

const MAGIC: &[u8] = b"SSHSIG";
const VERSION: u32 = 1;
/// The ending of every OpenSSH certificate key type (`ssh-ed25519-cert-v01@openssh.com`).
pub const CERT_SUFFIX: &str = "-cert-v01@openssh.com";

/// The key a signature names as its signer: a plain public key or an OpenSSH certificate.
#[derive(Clone, Debug)]
pub enum SignerKey {
    /// A plain public key.
    Plain(KeyData),
    /// A certificate; the signature is made by its certified key.
    Certificate(Box<SignerCertificate>),
}

/// An OpenSSH certificate as a signature embeds it, with the bytes its CA signed.
#[derive(Clone, Debug)]
pub struct SignerCertificate {
    /// The certificate as ssh-key reads it. A `valid_before` of "forever" (0xffffffffffffffff,
    /// `PROTOCOL.certkeys`) reads as `i64::MAX` seconds, the latest time ssh-key 0.6 holds and
    /// later than any time checked.
    pub cert: Certificate,
    /// The certificate exactly as embedded (or as its line wrote it): what OpenSSH compares
    /// when an allowed-signers line names a certificate.
    blob: Vec<u8>,
    /// How many bytes of [`SignerCertificate::blob`] come before its CA signature: what the CA
    /// signed.
    signed_len: usize,
}

impl SignerCertificate {
    /// Whether the certificate's CA signature holds over the bytes the CA signed (which CA it
    /// is, and whether that CA is trusted, is the caller's question).
    #[must_use]
    pub fn ca_signature_holds(&self) -> bool {
        let signed = self.blob.get(..self.signed_len).unwrap_or_default();
        ssh_signature::Verifier::verify(self.cert.signature_key(), signed, self.cert.signature()).is_ok()
    }

    /// The certificate exactly as embedded or written: two certificates are the same one
    /// exactly when these bytes are equal, as OpenSSH's `sshkey_equal` holds them.
    #[must_use]
    pub fn blob(&self) -> &[u8] {
        &self.blob
    }
}

/// The certificate of an OpenSSH public-key line, `<type>-cert-v01@openssh.com <base64>
/// [comment]` (a `-cert.pub` file, an allowed-signers key), decoded as a signature's is (a
/// certificate valid "forever" too), and the line's comment. The type named must be the blob's,
/// as `ssh-keygen` insists.
///
/// # Errors
/// [`DecodeError::Malformed`] saying what is wrong with the line.
pub fn read_certificate_line(line: &str) -> Result<(SignerCertificate, &str), DecodeError> {
    let blanks = [' ', '\t'];
    let line = line.trim_matches(blanks);
    let (kind, rest) = line.split_once(blanks).ok_or_else(|| "no base64 follows the key type".to_owned())?;
    let rest = rest.trim_start_matches(blanks);
    let (text, comment) = rest.split_once(blanks).map_or((rest, ""), |(b, c)| (b, c.trim_matches(blanks)));
    let blob = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("the certificate is not valid base64: {e}"))?;
    if !kind.ends_with(CERT_SUFFIX) || Wire(&blob).string() != Some(kind.as_bytes()) {
        return Err(
            format!("the certificate is not of the type `{}` its line names", kind.escape_debug()).into()
        );
    }
    match parse_key(&blob)? {
        SignerKey::Certificate(cert) => Ok((*cert, comment)),
        SignerKey::Plain(_) => Err("the line holds a plain key, not a certificate".to_owned().into()),
    }
}

impl SignerKey {
    /// The key whose private half made the signature (the certified key for a certificate).
    #[must_use]
    pub fn signing_key(&self) -> &KeyData {
        match self {
            Self::Plain(k) => k,
            Self::Certificate(c) => c.cert.public_key(),
        }
    }
}

/// A decoded SSHSIG blob. Nothing in it is verified yet.
#[derive(Clone, Debug)]
pub struct SshSignature {
    /// The signer's key as embedded in the signature.
    pub signer: SignerKey,
    /// The namespace the signer claims to have signed in (never empty).
    pub namespace: String,
    /// The hash algorithm name as written (`sha256` or `sha512` when honest).
    pub hash_alg: String,
    /// The signature over the SSHSIG signed-data of the message (namespace, empty reserved, hash).
    pub signature: Signature,
}

/// Why an armored signature cannot be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Not SSHSIG, or not well-formed; the text says what.
    Malformed(String),
    /// Well-formed as far as we can tell, but ssh-key cannot represent it; the text says what.
    Unsupported(String),
}

impl From<String> for DecodeError {
    fn from(reason: String) -> Self {
        Self::Malformed(reason)
    }
}

/// Whether the first word of `line` is an OpenSSH certificate key type.
#[must_use]
pub fn is_certificate_line(line: &str) -> bool {
    line.split_whitespace().next().is_some_and(|t| t.ends_with(CERT_SUFFIX))
}

/// Whether `bytes` starts like an armored SSH signature (after leading whitespace).
#[must_use]
pub fn looks_armored(bytes: &[u8]) -> bool {
    bytes.trim_ascii_start().starts_with(ARMOR_BEGIN.as_bytes())
}

/// Decodes an armored SSHSIG; the error says what is malformed or cannot be represented.
pub fn parse_armored(armored: &[u8]) -> Result<SshSignature, DecodeError> {
    let blob = dearmor(armored)?;
    parse_blob(&blob)
}

/// The blob inside the armor, read as `ssh-keygen -Y verify` reads it (OpenSSH's
/// `sshsig_dearmor`), so that both accept the same signatures: the header and a `\n` at the very
/// start, the body up to the first `\n` and footer, anything after the footer ignored, one NUL
/// allowed as the body's last byte and dropped (`sshbuf_dup_string` takes it as the string's end),
/// and the body's base64 read with white space anywhere in it (C's `isspace`, as `b64_pton` skips
/// it). A NUL anywhere else is not base64 and refuses the armor, as it does in `ssh-keygen`.
fn dearmor(armored: &[u8]) -> Result<Vec<u8>, DecodeError> {
    if armored.len() > MAX_ARMOR_LEN {
        return Err(DecodeError::Malformed(format!(
            "the signature is {} bytes, more than the {MAX_ARMOR_LEN} an SSH signature can need",
            armored.len()
        )));
    }
    let after_header = armored
        .strip_prefix(ARMOR_BEGIN.as_bytes())
        .and_then(|rest| rest.strip_prefix(b"\n"))
        .ok_or_else(|| format!("the signature does not start with the line {ARMOR_BEGIN}"))?;
    let footer = [b"\n", ARMOR_END.as_bytes()].concat();
    let end = after_header
        .windows(footer.len())
        .position(|w| w == footer.as_slice())
        .ok_or_else(|| format!("the signature has no line {ARMOR_END} after its header"))?;
    let body = &after_header[..end];
    let body = body.strip_suffix(b"\0").unwrap_or(body);
    let b64: Vec<u8> =
        body.iter().copied().filter(|b| !matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')).collect();
    if b64.is_empty() {
        return Err(DecodeError::Malformed("the signature armor is empty".to_owned()));
    }
    base64::engine::general_purpose::STANDARD
        .decode(&b64)
        .map_err(|e| DecodeError::Malformed(format!("the signature armor is not valid base64: {e}")))
}

fn parse_blob(blob: &[u8]) -> Result<SshSignature, DecodeError> {
    let mut r = Wire(blob);
    if r.take(MAGIC.len()) != Some(MAGIC) {
        return Err(DecodeError::Malformed("the signature blob does not start with SSHSIG".to_owned()));
    }
    let version = r.u32().ok_or_else(truncated)?;
    if version != VERSION {
        return Err(DecodeError::Malformed(format!(
            "SSHSIG version {version} is not supported (only {VERSION})"
        )));
    }
    let key_blob = r.string().ok_or_else(truncated)?;
    let namespace = utf8(r.string().ok_or_else(truncated)?, "namespace")?;
    let _reserved = r.string().ok_or_else(truncated)?;
    let hash_alg = utf8(r.string().ok_or_else(truncated)?, "hash algorithm")?;
    let sig_blob = r.string().ok_or_else(truncated)?;
    if !r.0.is_empty() {
        return Err(format!("{} unexpected bytes after the signature", r.0.len()).into());
    }
    if namespace.is_empty() {
        return Err(DecodeError::Malformed("the signature has an empty namespace".to_owned()));
    }
    Ok(SshSignature {
        signer: parse_key(key_blob)?,
        namespace,
        hash_alg,
        signature: parse_signature(sig_blob)?,
    })
}

/// The most runs of eight 0xff bytes [`valid_forever`] tries: an honest certificate has one.
const FOREVER_CANDIDATES: usize = 8;

/// A certificate whose `valid_before` is OpenSSH's "forever", read by ssh-key with that field
/// lowered to `i64::MAX`, and the lowered bytes. The field is found by trying each run of eight
/// 0xff bytes: only lowering `valid_before` itself makes the blob decode with that value and
/// encode back to exactly the lowered bytes. `None` for anything else (ssh-key 0.6 has no way to
/// read the field, and ssh-key 0.7, which has, is not released).
fn valid_forever(blob: &[u8]) -> Option<(Certificate, Vec<u8>)> {
    const FOREVER: [u8; 8] = [0xff; 8];
    let lowered = i64::MAX.to_be_bytes();
    let mut found = None;
    let candidates = blob.windows(8).enumerate().filter(|(_, w)| *w == FOREVER).map(|(at, _)| at);
    for at in candidates.take(FOREVER_CANDIDATES) {
        let mut read = blob.to_vec();
        read[at..at + 8].copy_from_slice(&lowered);
        if let Ok(cert) = Certificate::from_bytes(&read)
            && cert.valid_before() == i64::MAX.unsigned_abs()
            && cert.to_bytes().ok().as_ref() == Some(&read)
        {
            if found.is_some() {
                return None;
            }
            found = Some((cert, read));
        }
    }
    found
}

fn parse_key(blob: &[u8]) -> Result<SignerKey, DecodeError> {
    let algorithm = Wire(blob).string().ok_or_else(truncated)?;
    // ssh-key's decoders accept some non-canonical length prefixes; re-encoding finds them, so
    // that one key has one encoding here as it has in OpenSSH.
    let non_canonical = || DecodeError::Malformed("the signer's key is not canonically encoded".to_owned());
    if algorithm.ends_with(CERT_SUFFIX.as_bytes()) {
        let (cert, read) = match Certificate::from_bytes(blob) {
            Ok(cert) => (cert, blob.to_vec()),
            // ssh-key 0.6 keeps certificate times as i64 seconds and cannot hold ssh-keygen's
            // "forever" (0xffffffffffffffff), the default when a certificate is made without -V.
            Err(ssh_key::Error::Time) => valid_forever(blob).ok_or_else(|| {
                DecodeError::Malformed(
                    "the signer's certificate has a validity time beyond any date, and not the \"forever\" of ssh-keygen".to_owned(),
                )
            })?,
            Err(e) => return Err(DecodeError::Malformed(format!("the signer's certificate cannot be decoded: {e}"))),
        };
        if cert.to_bytes().ok().as_ref() != Some(&read) {
            return Err(non_canonical());
        }
        // The blob ends with the CA signature as a string; everything before it is signed.
        let signature_len = ssh_encoding::Encode::encoded_len_prefixed(cert.signature())
            .map_err(|e| format!("the signer's certificate cannot be encoded again: {e}"))?;
        let signed_len = blob.len().saturating_sub(signature_len);
        Ok(SignerKey::Certificate(Box::new(SignerCertificate { cert, blob: blob.to_vec(), signed_len })))
    } else {
        let key = PublicKey::from_bytes(blob)
            .map_err(|e| format!("the signer's public key cannot be decoded: {e}"))?;
        if key.to_bytes().ok().as_deref() != Some(blob) {
            return Err(non_canonical());
        }
        Ok(SignerKey::Plain(key.key_data().clone()))
    }
}

fn parse_signature(blob: &[u8]) -> Result<Signature, DecodeError> {
    let sig = Signature::try_from(blob)
        .map_err(|e| DecodeError::Malformed(format!("the signature value cannot be decoded: {e}")))?;
    // ssh-key re-encodes security-key ECDSA signatures differently; those are refused later as
    // not checkable in-process, so they skip the canonical-form check here.
    if sig.algorithm() == ssh_key::Algorithm::SkEcdsaSha2NistP256 {
        return Ok(sig);
    }
    // The decoder does not insist on consuming everything; re-encoding shows any leftovers.
    match Vec::<u8>::try_from(sig.clone()) {
        Ok(again) if again == blob => Ok(sig),
        _ => {
            Err(DecodeError::Malformed("the signature value has trailing or non-canonical bytes".to_owned()))
        }
    }
}

fn truncated() -> String {
    "the signature blob is truncated".to_owned()
}

fn utf8(bytes: &[u8], what: &str) -> Result<String, DecodeError> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| DecodeError::Malformed(format!("the signature's {what} is not UTF-8")))
}

/// A cursor over SSH wire encoding (big-endian u32 lengths).
struct Wire<'a>(&'a [u8]);

impl<'a> Wire<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn string(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u32()?).ok()?;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_is_not_armor_is_refused_with_the_reason() {
        let malformed = |input: &[u8]| match parse_armored(input) {
            Err(DecodeError::Malformed(reason)) => reason,
            other => panic!("expected malformed, got {other:?}"),
        };
        let err = malformed(b"hello");
        assert!(err.contains("does not start with"), "{err}");
        let err = malformed(format!("{ARMOR_BEGIN}\n!!!\n{ARMOR_END}\n").as_bytes());
        assert!(err.contains("base64"), "{err}");
        let err = malformed(format!("{ARMOR_BEGIN}\nU1NIU0lH\n{ARMOR_END}").as_bytes());
        assert!(err.contains("truncated"), "{err}");
    }

    #[test]
    fn oversized_input_is_refused_before_decoding() {
        let big = vec![b'A'; MAX_ARMOR_LEN + 1];
        assert!(matches!(parse_armored(&big), Err(DecodeError::Malformed(r)) if r.contains("more than")));
    }

    #[test]
    fn the_armor_is_read_by_the_rules_of_ssh_keygen() {
        let read = dearmor;
        let sshsig = b"SSHSIG".to_vec();
        // What ssh-keygen -Y verify accepts: white space anywhere in the body (vertical tab and
        // form feed too), one NUL as the body's last byte, and anything after the footer.
        for accepted in [
            format!("{ARMOR_BEGIN}\nU1NIU0lH\n{ARMOR_END}\n"),
            format!("{ARMOR_BEGIN}\nU1N\r\x0bIU0\x0c l\tH\n{ARMOR_END}"),
            format!("{ARMOR_BEGIN}\nU1NIU0lH\0\n{ARMOR_END}\n"),
            format!("{ARMOR_BEGIN}\nU1NIU0lH\n\0\n{ARMOR_END}\n"),
            format!("{ARMOR_BEGIN}\nU1NIU0lH\n{ARMOR_END}trailing text\n{ARMOR_END}\n"),
        ] {
            assert_eq!(read(accepted.as_bytes()), Ok(sshsig.clone()), "{accepted:?}");
        }
        let mut binary_tail = format!("{ARMOR_BEGIN}\nU1NIU0lH\n{ARMOR_END}").into_bytes();
        binary_tail.extend([0xff, 0x00]);
        assert_eq!(read(&binary_tail), Ok(sshsig));
        // What it refuses: a header not at the very start or not ended by \n alone, a footer not
        // at the start of a line, a NUL anywhere but last in the body, or two of them.
        for refused in [
            format!("{ARMOR_BEGIN}\nU1NI\0U0lH\n{ARMOR_END}\n"),
            format!("{ARMOR_BEGIN}\nU1NIU0lH\0\0\n{ARMOR_END}\n"),
            format!("{ARMOR_BEGIN}\nU1NIU0lH\0 \n{ARMOR_END}\n"),
            format!("{ARMOR_BEGIN}\n\0\n{ARMOR_END}\n"),
            format!("\n{ARMOR_BEGIN}\nU1NIU0lH\n{ARMOR_END}\n"),
            format!("{ARMOR_BEGIN}\r\nU1NIU0lH\r\n{ARMOR_END}\r\n"),
            format!("{ARMOR_BEGIN} \nU1NIU0lH\n{ARMOR_END}\n"),
            format!("{ARMOR_BEGIN}\nU1NIU0lH{ARMOR_END}\n"),
            format!("{ARMOR_BEGIN}\n{ARMOR_END}\n"),
        ] {
            assert!(read(refused.as_bytes()).is_err(), "{refused:?}");
        }
    }

    #[test]
    fn armor_is_recognised_after_leading_whitespace() {
        assert!(looks_armored(b"\n  -----BEGIN SSH SIGNATURE-----\n"));
        assert!(!looks_armored(b"-----BEGIN PGP SIGNATURE-----"));
    }
}
