//! Reading and writing the `sig` of an OpenPGP envelope signature: exactly one binary-mode
//! signature packet in `-----BEGIN PGP SIGNATURE-----` armor. Parsing never descends into
//! container packets, so a hostile signature cannot make us decompress anything.

use std::io::{Read, Write};

use sequoia_openpgp::armor::{self, Kind, ReaderMode};
use sequoia_openpgp::crypto::KeyPair;
use sequoia_openpgp::packet::Signature;
use sequoia_openpgp::packet::signature::subpacket::{SubpacketTag, SubpacketValue};
use sequoia_openpgp::parse::{PacketParserBuilder, PacketParserResult, Parse};
use sequoia_openpgp::serialize::stream::{Armorer, Message, Signer};
use sequoia_openpgp::types::{HashAlgorithm, SignatureType};
use sequoia_openpgp::{Fingerprint, KeyID, Packet, Result as PgpResult};

/// The armor line every OpenPGP envelope signature starts with (how a reader tells the kind).
pub const ARMOR_HEADER: &str = "-----BEGIN PGP SIGNATURE-----";

/// The armor line every OpenPGP envelope signature ends with.
const ARMOR_FOOTER: &str = "-----END PGP SIGNATURE-----";

/// The longest armored signature we read (an RSA-16384 signature is about 3 KiB).
const MAX_ARMORED_LEN: usize = 64 * 1024;

/// One parsed detached signature and its binary packet.
pub(crate) struct Detached {
    /// The signature packet.
    pub sig: Signature,
    /// The packet's bytes, without armor.
    pub binary: Vec<u8>,
}

/// Parses `armored` as one armored, detached, binary-mode signature; otherwise says why not.
pub(crate) fn parse_armored(armored: &[u8]) -> Result<Detached, NotDetached> {
    if armored.len() > MAX_ARMORED_LEN {
        return Err(NotDetached::TooLong(armored.len()));
    }
    if !armored.trim_ascii_start().starts_with(ARMOR_HEADER.as_bytes()) {
        return Err(NotDetached::NoHeader);
    }
    let footer = armored.windows(ARMOR_FOOTER.len()).position(|w| w == ARMOR_FOOTER.as_bytes());
    match footer.map(|at| &armored[at + ARMOR_FOOTER.len()..]) {
        None => return Err(NotDetached::NoFooter),
        Some(rest) if !rest.iter().all(u8::is_ascii_whitespace) => return Err(NotDetached::AfterFooter),
        Some(_) => {}
    }
    let mut binary = Vec::new();
    armor::Reader::from_bytes(armored, ReaderMode::Tolerant(Some(Kind::Signature)))
        .read_to_end(&mut binary)
        .map_err(NotDetached::Armor)?;
    let sig = single_signature(&binary)?;
    match sig.typ() {
        SignatureType::Binary => Ok(Detached { sig, binary }),
        SignatureType::Text => Err(NotDetached::TextMode),
        other => Err(NotDetached::NotOverDocument(other)),
    }
}

/// Why bytes are not one armored, detached, binary-mode signature, as a sentence fragment.
#[derive(Debug, thiserror::Error)]
pub enum NotDetached {
    /// Longer than a detached signature needs.
    #[error("it is {0} bytes long, more than the {MAX_ARMORED_LEN} bytes a detached signature needs")]
    TooLong(usize),
    /// No armor header.
    #[error("it does not start with {ARMOR_HEADER}")]
    NoHeader,
    /// No armor footer.
    #[error("it does not end with {ARMOR_FOOTER}")]
    NoFooter,
    /// Something after the armor footer.
    #[error("something follows its {ARMOR_FOOTER} line")]
    AfterFooter,
    /// The armor does not decode.
    #[error("the armor does not decode: {0}")]
    Armor(std::io::Error),
    /// The packets do not parse.
    #[error("the packets do not parse: {0}")]
    Packets(sequoia_openpgp::anyhow::Error),
    /// More than one signature packet.
    #[error("it holds more than one signature; an envelope signature is exactly one")]
    Several,
    /// No signature packet.
    #[error("it holds no signature packet")]
    NoSignature,
    /// A packet sequoia cannot read.
    #[error("its {tag} packet is unsupported or corrupt: {reason}")]
    Unsupported {
        /// The packet's tag.
        tag: sequoia_openpgp::packet::Tag,
        /// Why, as sequoia says.
        reason: String,
    },
    /// A packet that is not a signature.
    #[error("it holds a {0} packet, not only a signature")]
    NotOnlySignature(sequoia_openpgp::packet::Tag),
    /// A subpacket that does not parse.
    #[error("its {0:?} subpacket does not parse")]
    Subpacket(SubpacketTag),
    /// A text-mode signature.
    #[error(
        "it is a text-mode signature, which does not bind the exact bytes (line endings may change); sign in binary mode"
    )]
    TextMode,
    /// A signature of another type than a document's.
    #[error("it is a {0} signature, not a signature over a document")]
    NotOverDocument(SignatureType),
}

/// The key ids (uppercase hex) of the keys an armored detached signature names as its issuer,
/// read from the signature alone, unverified: who it says made it.
///
/// # Errors
/// The signature does not parse ([`parse_armored`]).
pub fn issuer_key_ids(armored: &[u8]) -> Result<Vec<String>, NotDetached> {
    let detached = parse_armored(armored)?;
    let mut ids: Vec<String> =
        detached.sig.get_issuers().into_iter().map(|issuer| KeyID::from(issuer).to_hex()).collect();
    ids.dedup();
    Ok(ids)
}

/// The one signature packet that `binary` must consist of.
fn single_signature(binary: &[u8]) -> Result<Signature, NotDetached> {
    let mut ppr = PacketParserBuilder::from_bytes(binary)
        .map_err(NotDetached::Packets)?
        .max_recursion_depth(0)
        .build()
        .map_err(NotDetached::Packets)?;
    let mut found = None;
    while let PacketParserResult::Some(pp) = ppr {
        match &pp.packet {
            Packet::Signature(_) if found.is_none() => {}
            Packet::Signature(_) => return Err(NotDetached::Several),
            Packet::Unknown(u) => {
                return Err(NotDetached::Unsupported { tag: u.tag(), reason: u.error().to_string() });
            }
            other => return Err(NotDetached::NotOnlySignature(other.tag())),
        }
        let (packet, next) = pp.next().map_err(NotDetached::Packets)?;
        if let Packet::Signature(sig) = packet {
            found = Some(sig);
        }
        ppr = next;
    }
    let sig = found.ok_or(NotDetached::NoSignature)?;
    malformed_subpacket(&sig).map_or(Ok(sig), |tag| Err(NotDetached::Subpacket(tag)))
}

/// A subpacket of `sig` that cannot be used, in either area: a known kind whose body sequoia could
/// not read (kept as unknown bytes), or an issuer or recipient fingerprint of no known version.
/// sqv refuses such a signature even when the subpacket is in the unhashed area, which no
/// signature covers, so it is refused here too: `--via-tools` and the in-process check agree.
fn malformed_subpacket(sig: &Signature) -> Option<SubpacketTag> {
    sig.hashed_area().iter().chain(sig.unhashed_area().iter()).find_map(|sp| {
        let unreadable = match sp.value() {
            SubpacketValue::Unknown { .. } => !matches!(
                sp.tag(),
                SubpacketTag::Unknown(_) | SubpacketTag::Private(_) | SubpacketTag::Reserved(_)
            ),
            SubpacketValue::IssuerFingerprint(fp) | SubpacketValue::IntendedRecipient(fp) => {
                matches!(fp, Fingerprint::Unknown { .. })
            }
            _ => false,
        };
        unreadable.then(|| sp.tag())
    })
}

/// Signs `data` with `keypair`: one armored, detached, binary-mode signature over SHA-512, whose
/// version follows the key's (v4 for a v4 key).
pub(crate) fn sign_armored(keypair: KeyPair, data: &[u8]) -> PgpResult<Vec<u8>> {
    let mut out = Vec::new();
    {
        let message = Message::new(&mut out);
        let message = Armorer::new(message).kind(Kind::Signature).build()?;
        let mut signer =
            Signer::new(message, keypair)?.detached().hash_algo(HashAlgorithm::SHA512)?.build()?;
        signer.write_all(data)?;
        signer.finalize()?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::sign::openpgp::test_support::*;
    use crate::sign::openpgp::*;

    #[test]
    fn a_text_mode_signature_two_signatures_or_a_binary_signature_are_malformed() {
        let gpg = GnuPg::new();
        let jay = gpg.gen_key("Jay <jay@example.com>", "sign", "0", None);
        let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&jay]));
        let text = gpg.sign(&jay, PAE, &["--textmode"]);
        match verify(&text, PAE, &certs, now()) {
            Err(OpenPgpVerifyError::Malformed { reason }) => {
                assert!(reason.contains("text-mode signature"), "{reason}")
            }
            other => panic!("expected Malformed, got {other:?}"),
        }
        let one = gpg.sign(&jay, PAE, &[]);
        let two = rearmor(&[dearmor(&one), dearmor(&one)].concat());
        match verify(&two, PAE, &certs, now()) {
            Err(OpenPgpVerifyError::Malformed { reason }) => {
                assert!(reason.contains("more than one signature"), "{reason}")
            }
            other => panic!("expected Malformed, got {other:?}"),
        }
        match verify(&[one.clone(), one.clone()].concat(), PAE, &certs, now()) {
            Err(OpenPgpVerifyError::Malformed { reason }) => {
                assert!(reason.contains("something follows its -----END PGP SIGNATURE----- line"), "{reason}")
            }
            other => panic!("expected Malformed, got {other:?}"),
        }
        let binary = dearmor(&one);
        assert!(matches!(verify(&binary, PAE, &certs, now()), Err(OpenPgpVerifyError::Malformed { .. })));
    }
}
