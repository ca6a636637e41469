//! RFC 3161 signed timestamps over the bundle's signature, checked against the trusted root's
//! timestamp authorities. The sigstore crate (0.15) does not verify timestamps; Rekor v2 entries
//! carry no integrated time, so these tokens are their only proof of when the signature existed.

use time::OffsetDateTime;

use super::crypto::Hash;
use super::der::{self, Reader, Tlv};
use super::trusted_root::Authority;
use super::x509;

const SIGNED_DATA: &str = "1.2.840.113549.1.7.2";
const TST_INFO: &str = "1.2.840.113549.1.9.16.1.4";
const ATTR_CONTENT_TYPE: &str = "1.2.840.113549.1.9.3";
const ATTR_MESSAGE_DIGEST: &str = "1.2.840.113549.1.9.4";

/// The parts of a timestamp token that are checked.
struct Token<'a> {
    tst_info: &'a [u8],
    signed_attrs: Tlv<'a>,
    digest_alg: Tlv<'a>,
    sig_alg: Tlv<'a>,
    signature: &'a [u8],
    issuer_serial: Option<(&'a [u8], &'a [u8])>,
}

/// Verifies one `signedTimestamp` (a DER TimeStampResp, or a bare token) over `signature` and
/// returns its generation time.
pub(crate) fn verify(bytes: &[u8], signature: &[u8], tsas: &[Authority]) -> Result<OffsetDateTime, String> {
    let token = parse(bytes).map_err(|e| format!("the timestamp is malformed ({e})"))?;
    let (imprint_alg, imprint, gen_time) =
        tst_info(token.tst_info).map_err(|e| format!("the timestamp is malformed ({e})"))?;
    if imprint_alg.digest(signature) != imprint {
        return Err("the timestamp is over other data than the bundle's signature".into());
    }
    check_signed_attrs(&token)?;
    let mut reasons = Vec::new();
    for tsa in tsas {
        match check_tsa(&token, tsa, gen_time) {
            Ok(()) => return Ok(gen_time),
            Err(r) => reasons.push(r),
        }
    }
    if reasons.is_empty() {
        reasons.push("the trusted root names no timestamp authority".into());
    }
    Err(format!("no trusted timestamp authority signed the timestamp ({})", reasons.join("; ")))
}

fn parse(bytes: &[u8]) -> Result<Token<'_>, der::DerError> {
    let top = der::parse(bytes)?;
    let mut r = top.reader();
    // A TimeStampResp starts with its PKIStatusInfo; a bare token with the content type OID.
    let content_info = if r.peek_tag() == Some(der::SEQUENCE) {
        let status = r.expect(der::SEQUENCE)?;
        let code = status.reader().expect(der::INTEGER)?.small_uint()?;
        if code > 1 {
            return Err(der::DerError(format!("the timestamp authority refused (status {code})")));
        }
        r.expect(der::SEQUENCE)?
    } else {
        top
    };
    let mut ci = content_info.reader();
    if *ci.expect(der::OID)?.value != der::oid(SIGNED_DATA)[..] {
        return Err(der::DerError("not CMS SignedData".into()));
    }
    let signed_data = Reader::new(ci.expect(der::ctx(0))?.value).expect(der::SEQUENCE)?;
    let mut sd = signed_data.reader();
    sd.expect(der::INTEGER)?;
    sd.expect(der::SET)?;
    let encap = sd.expect(der::SEQUENCE)?;
    let mut e = encap.reader();
    if *e.expect(der::OID)?.value != der::oid(TST_INFO)[..] {
        return Err(der::DerError("the signed content is not a TSTInfo".into()));
    }
    let tst_info = Reader::new(e.expect(der::ctx(0))?.value).expect(der::OCTET_STRING)?.value;
    sd.optional(der::ctx(0))?;
    sd.optional(der::ctx(1))?;
    let signer_infos = sd.expect(der::SET)?;
    let mut infos = signer_infos.reader();
    let info = infos.expect(der::SEQUENCE)?;
    if !infos.is_empty() {
        return Err(der::DerError("more than one signer".into()));
    }
    let mut si = info.reader();
    si.expect(der::INTEGER)?;
    let sid = si.any()?;
    let issuer_serial = if sid.tag == der::SEQUENCE {
        let mut s = sid.reader();
        let issuer = s.expect(der::SEQUENCE)?;
        let serial = s.expect(der::INTEGER)?;
        Some((issuer.raw, serial.value))
    } else {
        None
    };
    let digest_alg = si.expect(der::SEQUENCE)?;
    let signed_attrs = si.expect(der::ctx(0))?;
    let sig_alg = si.expect(der::SEQUENCE)?;
    let signature = si.expect(der::OCTET_STRING)?.value;
    Ok(Token { tst_info, signed_attrs, digest_alg, sig_alg, signature, issuer_serial })
}

fn tst_info(bytes: &[u8]) -> Result<(Hash, &[u8], OffsetDateTime), der::DerError> {
    let mut t = der::parse(bytes)?.reader();
    t.expect(der::INTEGER)?;
    t.expect(der::OID)?;
    let imprint = t.expect(der::SEQUENCE)?;
    let mut i = imprint.reader();
    let alg = i.expect(der::SEQUENCE)?;
    let hashed = i.expect(der::OCTET_STRING)?.value;
    t.expect(der::INTEGER)?;
    let gen_time = der::time(&t.expect(der::GENERALIZED_TIME)?)?;
    let hash = Hash::from_algorithm_identifier(alg.value)
        .ok_or_else(|| der::DerError("unsupported imprint digest".into()))?;
    Ok((hash, hashed, gen_time))
}

/// The signed attributes must name the TSTInfo content type and carry its digest.
fn check_signed_attrs(token: &Token<'_>) -> Result<(), String> {
    let hash = Hash::from_algorithm_identifier(token.digest_alg.value)
        .ok_or("the timestamp's digest algorithm is not supported")?;
    let (mut content_type_ok, mut digest_ok) = (false, false);
    let mut attrs = token.signed_attrs.reader();
    while !attrs.is_empty() {
        let attr = attrs.expect(der::SEQUENCE).map_err(|e| e.to_string())?;
        let mut a = attr.reader();
        let oid = a.expect(der::OID).map_err(|e| e.to_string())?;
        let values = a.expect(der::SET).map_err(|e| e.to_string())?;
        let first = values.reader().any().map_err(|e| e.to_string())?;
        if *oid.value == der::oid(ATTR_CONTENT_TYPE)[..] {
            content_type_ok = first.tag == der::OID && *first.value == der::oid(TST_INFO)[..];
        } else if *oid.value == der::oid(ATTR_MESSAGE_DIGEST)[..] {
            digest_ok = first.tag == der::OCTET_STRING && *first.value == hash.digest(token.tst_info)[..];
        }
    }
    if content_type_ok && digest_ok {
        Ok(())
    } else {
        Err("the timestamp's signed attributes do not match its content".into())
    }
}

/// The TSA's signing certificate (first of its chain) signed the token, the chain holds, and the
/// authority and its certificates were valid at the generation time.
fn check_tsa(token: &Token<'_>, tsa: &Authority, at: OffsetDateTime) -> Result<(), String> {
    let [signer, rest @ ..] = tsa.chain.as_slice() else { return Err("empty TSA chain".into()) };
    if let Some((issuer, serial)) = token.issuer_serial
        && (issuer != signer.issuer.as_slice() || serial != signer.serial.as_slice())
    {
        return Err("the timestamp names another signing certificate".into());
    }
    // Signed attributes are signed as a SET (tag 0x31), not with their implicit [0] tag.
    let signed = der::encode(der::SET, token.signed_attrs.value);
    let key = signer.public_key()?;
    if !key.verify_with_algorithm(token.sig_alg.value, &signed, token.signature)
        && !ecdsa_by_digest_alg(&key, token, &signed)
    {
        return Err("the timestamp's signature does not verify".into());
    }
    if !tsa.valid.contains(at) {
        return Err(format!("the timestamp authority is not trusted at {at} (outside its validFor)"));
    }
    if !signer.valid_at(at) {
        return Err(format!("the TSA certificate was not valid at {at}"));
    }
    if !signer.has_eku(x509::EKU_TIME_STAMPING, false) {
        return Err("the TSA certificate is not for time stamping".into());
    }
    if !rest.is_empty() {
        x509::verify_chain(signer, rest, at)?;
    }
    Ok(())
}

/// Some TSAs name plain `ecPublicKey` as the signature algorithm; the digest is then the
/// signer info's digest algorithm.
fn ecdsa_by_digest_alg(key: &super::crypto::PublicKey, token: &Token<'_>, signed: &[u8]) -> bool {
    let Ok(oid) = Reader::new(token.sig_alg.value).expect(der::OID) else { return false };
    *oid.value == der::oid("1.2.840.10045.2.1")[..]
        && Hash::from_algorithm_identifier(token.digest_alg.value)
            .is_some_and(|h| key.verify(h, signed, token.signature))
}
