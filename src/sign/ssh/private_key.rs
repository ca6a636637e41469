//! OpenSSH private key files, read by ssh-key, and the one shape OpenSSH writes that ssh-key 0.6
//! refuses: an unencrypted P-256 key whose private scalar starts with a zero byte, which OpenSSH's
//! `mpint` encoding leaves out (about one key in 256). ssh-key reads it from 0.7, still a release
//! candidate; until then this shape alone is read here, field by field with ssh-encoding, because
//! no released crate reads it, and the key is handed to ssh-key only when its parts agree.

use ssh_encoding::{Decode, Reader, pem};
use ssh_key::PrivateKey;
use ssh_key::private::{EcdsaKeypair, KeypairData};
use ssh_key::public::KeyData;
use zeroize::Zeroizing;

/// The PEM label of an OpenSSH private key file.
const LABEL: &str = "OPENSSH PRIVATE KEY";

/// The line width OpenSSH wraps a private key file's base64 at.
const LINE_WIDTH: usize = 70;

/// What an OpenSSH private key's binary form starts with (`PROTOCOL.key`).
const MAGIC: &[u8] = b"openssh-key-v1\0";

/// The key type and curve name of a P-256 key.
const P256_TYPE: &str = "ecdsa-sha2-nistp256";
const P256_CURVE: &str = "nistp256";

/// The bytes of a P-256 scalar.
const SCALAR_LEN: usize = 32;

/// The private key in the OpenSSH key file text `text`, as ssh-key reads it; failing that, as
/// OpenSSH wrote it when it is an unencrypted P-256 key with a short scalar.
///
/// # Errors
/// ssh-key's reason, when it cannot read the key and the key is not of that shape.
pub fn from_openssh(text: &str) -> Result<PrivateKey, ssh_key::Error> {
    PrivateKey::from_openssh(text).or_else(|refused| short_scalar_p256(text).ok_or(refused))
}

/// An unencrypted P-256 key whose scalar is shorter than 32 bytes, when the file holds one and
/// its scalar, its public point and its public key all name the same key.
fn short_scalar_p256(text: &str) -> Option<PrivateKey> {
    let mut reader = pem::Decoder::new_wrapped(text.trim().as_bytes(), LINE_WIDTH).ok()?;
    if reader.type_label() != LABEL {
        return None;
    }
    let mut magic = [0u8; MAGIC.len()];
    reader.read(&mut magic).ok()?;
    let unencrypted = magic == MAGIC
        && String::decode(&mut reader).ok()? == "none"
        && String::decode(&mut reader).ok()? == "none"
        && Vec::<u8>::decode(&mut reader).ok()?.is_empty()
        && u32::decode(&mut reader).ok()? == 1;
    if !unencrypted {
        return None;
    }
    let public = Vec::<u8>::decode(&mut reader).ok()?;
    let private = Zeroizing::new(Vec::<u8>::decode(&mut reader).ok()?);
    if !reader.is_finished() {
        return None;
    }
    let (scalar, point, comment) = private_section(&private)?;
    let secret = p256::SecretKey::from_bytes(&(*full_width(&scalar)?).into()).ok()?;
    let derived = p256::EncodedPoint::from(secret.public_key());
    if derived.as_bytes() != point.as_slice() {
        return None;
    }
    let keypair = EcdsaKeypair::NistP256 { public: derived, private: secret.into() };
    let key = PrivateKey::new(KeypairData::Ecdsa(keypair), comment).ok()?;
    let named = KeyData::decode(&mut public.as_slice()).ok()?;
    (named == *key.public_key().key_data()).then_some(key)
}

/// The scalar, public point and comment of an unencrypted P-256 private section, whose check
/// numbers agree and whose padding is OpenSSH's (1, 2, 3…, less than a block of 8).
fn private_section(mut section: &[u8]) -> Option<(Zeroizing<Vec<u8>>, Vec<u8>, String)> {
    let reader = &mut section;
    if !reader.len().is_multiple_of(8) || u32::decode(reader).ok()? != u32::decode(reader).ok()? {
        return None;
    }
    let p256 = String::decode(reader).ok()? == P256_TYPE && String::decode(reader).ok()? == P256_CURVE;
    if !p256 {
        return None;
    }
    let point = Vec::<u8>::decode(reader).ok()?;
    let scalar = Zeroizing::new(Vec::<u8>::decode(reader).ok()?);
    let comment = String::decode(reader).ok()?;
    let padding_is_openssh_s = reader.len() < 8 && reader.iter().zip(1u8..).all(|(&b, n)| b == n);
    padding_is_openssh_s.then_some((scalar, point, comment))
}

/// A short `mpint` scalar at its full 32 bytes, zeros in front; `None` for a scalar ssh-key reads
/// itself (32 bytes, or 33 with the sign byte) or one too long for P-256.
fn full_width(mpint: &[u8]) -> Option<Zeroizing<[u8; SCALAR_LEN]>> {
    if mpint.is_empty() || mpint.len() >= SCALAR_LEN || mpint[0] == 0 || mpint[0] & 0x80 != 0 {
        return None;
    }
    let mut scalar = Zeroizing::new([0u8; SCALAR_LEN]);
    scalar[SCALAR_LEN - mpint.len()..].copy_from_slice(mpint);
    Some(scalar)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssh_encoding::Encode;
    use ssh_key::PublicKey;
    use ssh_key::public::EcdsaPublicKey;
    use std::path::Path;

    fn fixture(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ssh").join(name);
        std::fs::read_to_string(path).expect("fixture")
    }

    /// The fixture's public key, as the file's public part and as its point.
    fn fixture_public() -> (Vec<u8>, Vec<u8>) {
        let public = PublicKey::from_openssh(fixture("p256-short-scalar.pub").trim()).expect("public key");
        let point = public.key_data().ecdsa().expect("ecdsa").as_sec1_bytes().to_vec();
        (public.to_bytes().expect("encodes"), point)
    }

    /// An unencrypted OpenSSH key file with `fields` as its private section, padded as OpenSSH
    /// pads it, and `public` as its public part.
    fn key_file(public: &[u8], checks: (u32, u32), fields: &[Vec<u8>]) -> String {
        let mut section = Vec::new();
        checks.0.encode(&mut section).expect("encodes");
        checks.1.encode(&mut section).expect("encodes");
        for field in fields {
            field.as_slice().encode(&mut section).expect("encodes");
        }
        section.extend((1u8..).take((8 - section.len() % 8) % 8));
        let mut binary = MAGIC.to_vec();
        for field in [&b"none"[..], b"none", b""] {
            field.encode(&mut binary).expect("encodes");
        }
        1u32.encode(&mut binary).expect("encodes");
        public.encode(&mut binary).expect("encodes");
        section.encode(&mut binary).expect("encodes");
        armored(&binary)
    }

    /// The binary form of a key file, armored as OpenSSH writes it.
    fn armored(binary: &[u8]) -> String {
        let base64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, binary);
        let lines: Vec<&str> =
            base64.as_bytes().chunks(LINE_WIDTH).map(|c| std::str::from_utf8(c).expect("ascii")).collect();
        format!("-----BEGIN {LABEL}-----\n{}\n-----END {LABEL}-----\n", lines.join("\n"))
    }

    #[test]
    fn a_p256_key_whose_scalar_openssh_wrote_short_is_read_as_its_public_key_names_it() {
        let text = fixture("p256-short-scalar");
        assert!(PrivateKey::from_openssh(&text).is_err(), "ssh-key reads it now: this module can go");
        let key = from_openssh(&text).expect("read here");
        let public = PublicKey::from_openssh(fixture("p256-short-scalar.pub").trim()).expect("public key");
        assert_eq!(key.public_key().key_data(), public.key_data());
        assert_eq!(key.comment(), public.comment());
        let private = key.key_data().ecdsa().expect("ecdsa").private_key_bytes();
        assert_eq!(private.len(), SCALAR_LEN);
        assert_eq!(private[0], 0, "the scalar's left-out byte is a zero in front");
    }

    #[test]
    fn a_short_scalar_key_whose_parts_disagree_is_refused_with_ssh_key_s_reason() {
        let read = from_openssh(&fixture("p256-short-scalar")).expect("read here");
        let scalar = read.key_data().ecdsa().expect("ecdsa").private_key_bytes()[1..].to_vec();
        let (public, point) = fixture_public();
        let fields = |scalar: &[u8], point: &[u8]| -> Vec<Vec<u8>> {
            [P256_TYPE.as_bytes(), P256_CURVE.as_bytes(), point, scalar, b"a comment"]
                .map(<[u8]>::to_vec)
                .to_vec()
        };
        let honest = fields(&scalar, &point);
        assert!(from_openssh(&key_file(&public, (7, 7), &honest)).is_ok(), "the parts as written read");

        let mut other_scalar = scalar.clone();
        other_scalar[30] ^= 1;
        let another = p256::SecretKey::from_bytes(&[1u8; SCALAR_LEN].into()).expect("a scalar");
        let another_point = p256::EncodedPoint::from(another.public_key());
        let another_public = PublicKey::from(KeyData::Ecdsa(EcdsaPublicKey::NistP256(another_point)))
            .to_bytes()
            .expect("encodes");
        let refused = [
            ("another scalar", key_file(&public, (7, 7), &fields(&other_scalar, &point))),
            ("another point", key_file(&public, (7, 7), &fields(&scalar, another_point.as_bytes()))),
            ("another public key", key_file(&another_public, (7, 7), &honest)),
            ("check numbers that differ", key_file(&public, (7, 8), &honest)),
        ];
        for (what, text) in refused {
            let err = from_openssh(&text).expect_err(what);
            let ssh_key_s = PrivateKey::from_openssh(&text).expect_err(what);
            assert_eq!(err.to_string(), ssh_key_s.to_string(), "{what}");
        }
    }

    proptest::proptest! {
        /// A key file with its bytes edited is read or refused, never a panic; what this module
        /// reads where ssh-key refuses is the fixture's key, named by the file as written.
        #[test]
        fn an_edited_short_scalar_key_file_is_the_fixture_s_key_or_an_error(
            edits in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), 0u8..4, proptest::prelude::any::<u8>()), 1..4),
        ) {
            let text = fixture("p256-short-scalar");
            let base64: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
            let mut binary = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, base64).expect("base64");
            for (at, how, byte) in &edits {
                let i = at.index(binary.len() + 1);
                match how {
                    0 if i < binary.len() => binary[i] = *byte,
                    1 => binary.insert(i, *byte),
                    2 if i < binary.len() => { binary.remove(i); }
                    _ => binary.truncate(i),
                }
            }
            let edited = armored(&binary);
            if let (Ok(key), Err(_)) = (from_openssh(&edited), PrivateKey::from_openssh(&edited)) {
                let (public, _) = fixture_public();
                proptest::prop_assert_eq!(key.public_key().to_bytes().expect("encodes"), public);
            }
        }
    }

    #[test]
    fn only_a_scalar_ssh_key_refuses_for_its_length_is_widened() {
        assert_eq!(full_width(&[0x7f; 31]).map(|s| s[0]), Some(0));
        assert_eq!(full_width(&[0x01]).map(|s| s[31]), Some(1));
        for refused in [&[][..], &[0x7f; 32], &[0x00, 0x7f], &[0x80; 31], &[0x01; 40]] {
            assert!(full_width(refused).is_none(), "{refused:?}");
        }
    }
}
