//! The signed certificate timestamp (RFC 6962) embedded in a Fulcio certificate: proof that the
//! certificate was published to a CT log the trusted root names. The sigstore crate has this check
//! but keeps it private, so it is done here over the precertificate bytes.

use sha2::{Digest, Sha256};

use super::crypto::Hash;
use super::der;
use super::trusted_root::LogKey;
use super::x509::{self, Cert};

/// Verifies that at least one embedded SCT of `leaf` was signed by a trusted CT log.
pub(crate) fn verify_embedded(leaf: &Cert, issuer: &Cert, ctlogs: &[LogKey]) -> Result<(), String> {
    let ext = leaf.extension_value(x509::SCT_LIST).ok_or("the certificate has no embedded SCT")?;
    let list = der::parse(ext).map_err(|e| format!("the SCT list is malformed ({e})"))?;
    if list.tag != der::OCTET_STRING {
        return Err("the SCT list is malformed".into());
    }
    let mut tls = Tls(list.value);
    let mut scts = Tls(tls.vec16()?);
    if !tls.0.is_empty() {
        return Err("trailing bytes after the SCT list".into());
    }
    let tbs = leaf.tbs_without_extension(x509::SCT_LIST)?;
    let issuer_key_hash = Sha256::digest(&issuer.spki);
    let mut reasons = Vec::new();
    while !scts.0.is_empty() {
        match verify_one(scts.vec16()?, &tbs, &issuer_key_hash, ctlogs) {
            Ok(()) => return Ok(()),
            Err(r) => reasons.push(r),
        }
    }
    Err(format!("no embedded SCT verifies ({})", reasons.join("; ")))
}

fn verify_one(sct: &[u8], tbs: &[u8], issuer_key_hash: &[u8], ctlogs: &[LogKey]) -> Result<(), String> {
    let mut r = Tls(sct);
    if r.take(1)? != [0] {
        return Err("an SCT of an unknown version".into());
    }
    let log_id = r.take(32)?;
    let timestamp = r.take(8)?;
    let extensions = r.vec16()?;
    let hash = match r.take(1)?[0] {
        4 => Hash::Sha256,
        5 => Hash::Sha384,
        6 => Hash::Sha512,
        _ => return Err("an SCT with an unsupported hash".into()),
    };
    r.take(1)?;
    let signature = r.vec16()?;
    let log = ctlogs
        .iter()
        .find(|l| l.key_id == log_id)
        .ok_or("an SCT from a CT log the trusted root does not name")?;
    let key = log.key.as_ref().ok_or("an SCT from a CT log whose key type we cannot check")?;
    let tbs_len = u32::try_from(tbs.len()).ok().filter(|&n| n < 1 << 24).ok_or("certificate too large")?;
    let ext_len = u16::try_from(extensions.len()).map_err(|_| "SCT extensions too large")?;
    let mut signed = vec![0u8, 0u8];
    signed.extend_from_slice(timestamp);
    signed.extend_from_slice(&[0, 1]);
    signed.extend_from_slice(issuer_key_hash);
    signed.extend_from_slice(&tbs_len.to_be_bytes()[1..]);
    signed.extend_from_slice(tbs);
    signed.extend_from_slice(&ext_len.to_be_bytes());
    signed.extend_from_slice(extensions);
    if key.verify(hash, &signed, signature) { Ok(()) } else { Err("an SCT signature does not verify".into()) }
}

/// A TLS-encoding reader.
struct Tls<'a>(&'a [u8]);

impl<'a> Tls<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("truncated SCT data".into());
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }

    fn vec16(&mut self) -> Result<&'a [u8], String> {
        let len = self.take(2)?;
        let n = usize::from(u16::from_be_bytes([len[0], len[1]]));
        self.take(n)
    }
}
