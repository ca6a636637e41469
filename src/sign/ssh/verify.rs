//! In-process verification of an armored SSH signature against the caller's allowed-signers file
//! and revoked keys, with the decisions `ssh-keygen -Y verify` makes (same order of checks, same
//! inclusive/exclusive time bounds), failing closed where ssh-key cannot check something.

use ssh_key::{Algorithm, EcdsaCurve, HashAlg, PublicKey, SshSig, certificate::CertType, public::KeyData};
use time::OffsetDateTime;

use super::allowed_signers::{AllowedSigner, AllowedSigners};
use super::pattern::MAX_PATTERN_LEN;
use super::revoked_keys::RevokedKeys;
use super::sshsig::{self, DecodeError, SignerCertificate, SignerKey, SshSignature};

/// A signature that verified and whose key the allowed-signers file trusts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SshVerified {
    /// The allowed principals whose line lists this key (or its CA) for this namespace, in file
    /// order, without duplicates; for a certificate, the certificate's principals those lines allow.
    pub principals: Vec<String>,
    /// The `SHA256:` fingerprint of the key that made the signature (the certified key for a certificate).
    pub fingerprint: String,
    /// The SSH name of that key's type, e.g. `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`.
    pub key_type: String,
    /// Present when the signature was made with a certificate.
    pub certificate: Option<CertificateInfo>,
}

/// What identifies the certificate a signature was made with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateInfo {
    /// The certificate's key id (`ssh-keygen -s … -I id`).
    pub key_id: String,
    /// The certificate's serial number.
    pub serial: u64,
    /// The `SHA256:` fingerprint of the CA key that issued it.
    pub ca_fingerprint: String,
}

/// Why a signature does not hold; each variant is one verifier outcome.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SshVerifyError {
    /// Not SSHSIG armor, or a blob that does not decode.
    #[error("malformed SSH signature: {reason}")]
    Malformed {
        /// What is malformed.
        reason: String,
    },
    /// The signature does not verify over these bytes, or was made for another namespace or hash.
    #[error("bad SSH signature: {reason}")]
    BadSignature {
        /// What did not verify.
        reason: String,
    },
    /// The signature verifies but the allowed-signers file does not trust the key for it.
    #[error("untrusted SSH signer {fingerprint}: {reason}")]
    UntrustedSigner {
        /// The signing key's fingerprint.
        fingerprint: String,
        /// Why each candidate line did not apply, or that none lists the key; names the file.
        reason: String,
    },
    /// The signing key (or the CA of its certificate) is in the revoked-keys list.
    #[error("revoked SSH key {fingerprint}: {reason}")]
    Revoked {
        /// The signing key's fingerprint.
        fingerprint: String,
        /// Which key was found revoked, and where.
        reason: String,
    },
    /// The signature may be fine but cannot be checked in-process (key type); fail closed.
    #[error("SSH signature cannot be checked in-process: {reason}")]
    Unsupported {
        /// What cannot be checked, and what to use instead.
        reason: String,
    },
}

/// Verifies `armored_sig` over `message` in `namespace`, trusted by `allowed` at time `at`.
pub fn verify(
    armored_sig: &[u8],
    message: &[u8],
    namespace: &str,
    allowed: &AllowedSigners,
    revoked: &RevokedKeys,
    at: OffsetDateTime,
) -> Result<SshVerified, SshVerifyError> {
    let sig = read(armored_sig)?;
    check_signature(&sig, message, namespace)?;
    let key = sig.signer.signing_key();
    let fingerprint = fingerprint(key);
    let principals =
        trusted_principals(&sig.signer, allowed, namespace, at, CaSignature::Checked).map_err(|e| {
            SshVerifyError::UntrustedSigner { fingerprint: fingerprint.clone(), reason: e.to_string() }
        })?;
    if let Some(reason) = revocation(&sig.signer, revoked) {
        return Err(SshVerifyError::Revoked { fingerprint, reason });
    }
    Ok(SshVerified {
        principals,
        fingerprint,
        key_type: key.algorithm().as_str().to_owned(),
        certificate: match &sig.signer {
            SignerKey::Plain(_) => None,
            SignerKey::Certificate(c) => Some(CertificateInfo {
                key_id: c.cert.key_id().to_owned(),
                serial: c.cert.serial(),
                ca_fingerprint: self::fingerprint(c.cert.signature_key()),
            }),
        },
    })
}

/// `armored_sig` decoded as both paths judge its shape: `Malformed` (or `Unsupported`), saying why,
/// when it is not one SSHSIG this verifier reads.
fn read(armored_sig: &[u8]) -> Result<SshSignature, SshVerifyError> {
    sshsig::parse_armored(armored_sig).map_err(|e| match e {
        DecodeError::Malformed(reason) => SshVerifyError::Malformed { reason },
        DecodeError::Unsupported(reason) => SshVerifyError::Unsupported { reason },
    })
}

/// Why `armored_sig` is malformed as [`verify`] reads it, judged before `ssh-keygen` runs
/// (`--via-tools`), so that both paths refuse it alike and with the same reason; `None` when it
/// decodes, or only this build cannot represent it (which `ssh-keygen` may check).
#[must_use]
pub fn malformed(armored_sig: &[u8]) -> Option<SshVerifyError> {
    read(armored_sig).err().filter(|e| matches!(e, SshVerifyError::Malformed { .. }))
}

/// [`SshVerifyError::Revoked`] when `revoked` revokes the key `armored_sig` carries, or its
/// certificate's CA, by the revocation [`verify`] applies, whether or not any allowed-signers line
/// trusts the key: a join never adds a signature the caller's trust revokes. `None` when no
/// revocation names it, or the signature does not decode. The signature itself is not verified.
#[must_use]
pub fn revoked_key(armored_sig: &[u8], revoked: &RevokedKeys) -> Option<SshVerifyError> {
    let sig = sshsig::parse_armored(armored_sig).ok()?;
    let reason = revocation(&sig.signer, revoked)?;
    Some(SshVerifyError::Revoked { fingerprint: fingerprint(sig.signer.signing_key()), reason })
}

/// The fingerprint of the key `armored_sig` carries and the principals `allowed` trusts it as
/// for `namespace` at `at`, when it trusts it and `revoked` does not revoke it. The signature
/// itself is not verified: this tells a signature that does not verify by a key the caller trusts
/// (the signed bytes or the signature were changed) from one by a key nobody vouched for.
#[must_use]
pub fn trusted_claim(
    armored_sig: &[u8],
    namespace: &str,
    allowed: &AllowedSigners,
    revoked: &RevokedKeys,
    at: OffsetDateTime,
) -> Option<(String, Vec<String>)> {
    let sig = sshsig::parse_armored(armored_sig).ok()?;
    let principals = trusted_principals(&sig.signer, allowed, namespace, at, CaSignature::Checked).ok()?;
    if revocation(&sig.signer, revoked).is_some() {
        return None;
    }
    Some((fingerprint(sig.signer.signing_key()), principals))
}

/// The fingerprint of the key `armored_sig` carries and the principals the lines of `allowed` (none:
/// no file was given) that list it, or its certificate's CA, would give it whatever restricts
/// those lines (namespaces, valid-after, valid-before) and whether a revocation names the key:
/// who a signature the trust refuses claims to be, for a message. Nothing is judged here: whether
/// the trust accepts the signature, and why not, is [`verify`]'s (and `ssh-keygen`'s) verdict.
#[must_use]
pub fn listed_as(
    armored_sig: &[u8],
    allowed: Option<&AllowedSigners>,
    at: OffsetDateTime,
) -> Option<(String, Vec<String>)> {
    let sig = sshsig::parse_armored(armored_sig).ok()?;
    let mut principals: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (_, given) in allowed.into_iter().flat_map(|a| listing(&sig.signer, a, at, CaSignature::Checked)) {
        principals.extend(given.into_iter().flatten().filter(|p| seen.insert(p.clone())));
    }
    Some((fingerprint(sig.signer.signing_key()), principals))
}

/// This verifier's reading of the allowed-signers file for one key, for `ssh-keygen` to confirm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToConfirm {
    /// The principals the lines that apply list, in file order, once each; otherwise why none.
    pub listed: Result<Vec<String>, String>,
    /// The principals a line would give the key but for a rule of this verifier's own that
    /// `ssh-keygen` does not apply (a certificate's critical option), each with `file:line: why`.
    pub refused: Vec<(String, String)>,
}

/// The principals `allowed` lists the key of `armored_sig` (or its certificate's CA) under for
/// `namespace` at `at`, every line that lists it read with its own options as [`verify`] reads
/// it, otherwise why none; and those this verifier refuses where `ssh-keygen` would not. The
/// signature itself, the CA's signature over a certificate (and whether this build could check
/// it) and revocation are left to the caller: `ssh-keygen`, which confirms each principal one by
/// one (`--via-tools`), so that both paths give a key the principals of every line that lists it.
#[must_use]
pub fn principals_to_confirm(
    armored_sig: &[u8],
    namespace: &str,
    allowed: &AllowedSigners,
    at: OffsetDateTime,
) -> ToConfirm {
    let sig = match sshsig::parse_armored(armored_sig) {
        Ok(sig) => sig,
        Err(DecodeError::Malformed(reason) | DecodeError::Unsupported(reason)) => {
            return ToConfirm { listed: Err(reason), refused: Vec::new() };
        }
    };
    let read = read_lines(&sig.signer, allowed, namespace, at, CaSignature::LeftToTheTool);
    let file = allowed.path.display().to_string();
    let mut refused = Vec::new();
    for (line, why) in &read.refusals {
        if let LineRefusal::CriticalOption { principals, .. } = why {
            let said = format!("{file}:{line}: {why}");
            refused.extend(principals.iter().map(|p| (p.clone(), said.clone())));
        }
    }
    let listed = trusted_unless_refused(&sig.signer, file, read).map_err(|e| e.to_string());
    ToConfirm { listed, refused }
}

/// The cryptographic part: namespace, hash, key type, and the signature over `message`.
pub(crate) fn check_signature(
    sig: &SshSignature,
    message: &[u8],
    namespace: &str,
) -> Result<(), SshVerifyError> {
    let bad = |reason: String| SshVerifyError::BadSignature { reason };
    if sig.namespace != namespace {
        return Err(bad(format!(
            "it was made for namespace \"{}\", not \"{namespace}\"",
            sig.namespace.escape_debug()
        )));
    }
    let hash_alg = match sig.hash_alg.as_str() {
        "sha512" => HashAlg::Sha512,
        "sha256" => HashAlg::Sha256,
        other => {
            return Err(bad(format!("hash algorithm \"{}\" is not sha256 or sha512", other.escape_debug())));
        }
    };
    let key = sig.signer.signing_key();
    if let Some(reason) = unsupported(key, "signing key") {
        return Err(SshVerifyError::Unsupported { reason });
    }
    if sig.signature.algorithm() == (Algorithm::Rsa { hash: None }) {
        return Err(bad(
            "an RSA signature with SHA-1 (ssh-rsa) is not accepted; sign again with a current ssh-keygen"
                .to_owned(),
        ));
    }
    let rebuilt = SshSig::new(key.clone(), namespace, hash_alg, sig.signature.clone())
        .map_err(|e| bad(format!("the signature does not fit its key: {e}")))?;
    PublicKey::from(key.clone()).verify(namespace, message, &rebuilt).map_err(|_| {
        bad("the signature does not verify over these bytes (changed content or wrong key)".to_owned())
    })
}

/// `Some(reason)` when signatures of `key` cannot be checked in-process.
fn unsupported(key: &KeyData, role: &str) -> Option<String> {
    match key.algorithm() {
        Algorithm::Ed25519 | Algorithm::Rsa { .. } | Algorithm::Ecdsa { curve: EcdsaCurve::NistP256 } => None,
        other => Some(format!(
            "the {role} is {}, which this build does not check in-process; verify with --via-tools (ssh-keygen)",
            other.as_str()
        )),
    }
}

/// The `SHA256:` fingerprint of a key, as `ssh-keygen -l` prints it.
pub(crate) fn fingerprint(key: &KeyData) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// Who checks the CA's signature over a certificate while the lines are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaSignature {
    /// This verifier, which must be able to (its key of a kind this build checks).
    Checked,
    /// `ssh-keygen`, which reads no certificate whose CA signature fails.
    LeftToTheTool,
}

/// The principals trusted for this signer; otherwise why no line applies.
fn trusted_principals(
    signer: &SignerKey,
    allowed: &AllowedSigners,
    namespace: &str,
    at: OffsetDateTime,
    ca: CaSignature,
) -> Result<Vec<String>, Untrusted> {
    let read = read_lines(signer, allowed, namespace, at, ca);
    trusted_unless_refused(signer, allowed.path.display().to_string(), read)
}

/// Every line of an allowed-signers file that lists a signer's key (or its certificate's CA), read.
struct LinesRead {
    /// The principals of the lines that apply, in file order, once each.
    principals: Vec<String>,
    /// Each other line (its number), and why it does not apply.
    refusals: Vec<(usize, LineRefusal)>,
}

/// Reads each line of `allowed` that lists `signer`'s key (or its CA) for `namespace` at `at`.
fn read_lines(
    signer: &SignerKey,
    allowed: &AllowedSigners,
    namespace: &str,
    at: OffsetDateTime,
    ca: CaSignature,
) -> LinesRead {
    let mut principals: Vec<String> = Vec::new();
    // The principals already taken, so that a line listing tens of thousands stays linear.
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut refusals = Vec::new();
    for (line, candidates) in listing(signer, allowed, at, ca) {
        match candidates
            .and_then(|c| line_applies(line, namespace, at).map(|()| c).map_err(LineRefusal::from))
        {
            Ok(found) => {
                for p in found {
                    if seen.insert(p.clone()) {
                        principals.push(p);
                    }
                }
            }
            Err(why) => refusals.push((line.line, why)),
        }
    }
    LinesRead { principals, refusals }
}

/// Each line of `allowed` that lists `signer`'s key (or its certificate's CA), with the principals
/// it gives the signer before the line's own restrictions (namespaces, valid-after, valid-before),
/// otherwise why none. As OpenSSH's `check_allowed_keys_line`: a line without cert-authority names
/// the signer's key exactly (a plain key the plain key, a certificate the very same certificate);
/// a cert-authority line names the CA of the signer's certificate.
fn listing<'a>(
    signer: &'a SignerKey,
    allowed: &'a AllowedSigners,
    at: OffsetDateTime,
    ca: CaSignature,
) -> impl Iterator<Item = (&'a AllowedSigner, Result<Vec<String>, LineRefusal>)> + 'a {
    allowed.signers.iter().filter_map(move |line| {
        let candidates = match (signer, line.cert_authority) {
            (SignerKey::Plain(key), false) if line.certificate.is_none() && line.key.key_data() == key => {
                listed_principals(line)
            }
            (SignerKey::Certificate(cert), false) if line.certificate.as_deref() == Some(cert.blob()) => {
                ca_signed(cert, ca).and_then(|()| listed_principals(line))
            }
            (SignerKey::Certificate(cert), true) if line.key.key_data() == cert.cert.signature_key() => {
                ca_signed(cert, ca).and_then(|()| certificate_principals(cert, line, at))
            }
            _ => return None,
        };
        Some((line, candidates))
    })
}

/// The principals `read` found for `signer` in `file`; otherwise why none.
fn trusted_unless_refused(
    signer: &SignerKey,
    file: String,
    read: LinesRead,
) -> Result<Vec<String>, Untrusted> {
    let LinesRead { principals, refusals } = read;
    if !principals.is_empty() {
        return Ok(principals);
    }
    Err(match (signer, refusals.is_empty()) {
        (SignerKey::Plain(_), true) => Untrusted::KeyNotListed { file },
        (SignerKey::Certificate(c), true) => {
            Untrusted::CaNotListed { file, ca: fingerprint(c.cert.signature_key()) }
        }
        (_, false) => Untrusted::Refused { file, refusals },
    })
}

/// Why no line of the allowed-signers file trusts a signer.
#[derive(Debug, thiserror::Error)]
enum Untrusted {
    /// No line lists the key.
    #[error("no line of {file} lists this key; add `<principal> <the .pub line>` to trust it")]
    KeyNotListed {
        /// The allowed-signers file.
        file: String,
    },
    /// No line names the certificate itself, and no cert-authority line its CA.
    #[error(
        "no line of {file} names this certificate, and no cert-authority line its CA {ca} (a line of the plain key does not trust a certificate of it); add `<principals> cert-authority <CA .pub line>` to trust the CA, or `<principal> <the -cert.pub line>` to trust this certificate alone"
    )]
    CaNotListed {
        /// The allowed-signers file.
        file: String,
        /// The CA's fingerprint.
        ca: String,
    },
    /// Lines list the key or its CA, and each refuses the signature.
    #[error("{}", each_refusal(.file, .refusals))]
    Refused {
        /// The allowed-signers file.
        file: String,
        /// Each line that lists the key or CA (its number) and why it does not apply.
        refusals: Vec<(usize, LineRefusal)>,
    },
}

/// `file:line: why` for each refusal, joined by `; `.
fn each_refusal(file: &str, refusals: &[(usize, LineRefusal)]) -> String {
    let each: Vec<String> = refusals.iter().map(|(line, why)| format!("{file}:{line}: {why}")).collect();
    each.join("; ")
}

/// Why a line that lists the signer's key, or its certificate's CA, does not trust the signature.
#[derive(Debug, thiserror::Error)]
enum LineRefusal {
    /// Every principal of the line is vetoed by a negation of the same line (or a pattern is
    /// longer than OpenSSH considers, which makes the line match nothing).
    #[error(
        "no principal of \"{0}\" holds: each is vetoed by a negation of the same line (or a pattern is longer than {MAX_PATTERN_LEN} bytes, which OpenSSH matches nothing with; shorten it)"
    )]
    NegatedOnly(String),
    /// The line's principals and wildcard negations are too many to tell which principal holds.
    #[error(
        "the line lists too many principals and wildcard negations to tell which principal holds; list fewer"
    )]
    TooCostly,
    /// The CA's key is of a kind this build does not check ([`unsupported`]'s reason).
    #[error("{0}")]
    UnsupportedCa(String),
    /// A host certificate.
    #[error("the signer's certificate is a host certificate, not a user certificate")]
    HostCertificate,
    /// A critical option this verifier does not honour (`ssh-keygen` ignores it).
    #[error("the signer's certificate carries the critical option \"{}\", which this verifier does not honour; issue the certificate without it", .option.escape_debug())]
    CriticalOption {
        /// The option's name.
        option: String,
        /// The certificate's principals the line allows, which it would trust but for the option.
        principals: Vec<String>,
    },
    /// The time checked cannot be compared with a certificate's validity.
    #[error("the time checked is before 1970")]
    Before1970,
    /// The certificate is not valid at the time checked.
    #[error("the signer's certificate \"{}\" is not valid at {at}", .key_id.escape_debug())]
    NotValidAt {
        /// The certificate's key id.
        key_id: String,
        /// The time checked.
        at: OffsetDateTime,
    },
    /// The CA's signature over the certificate does not hold.
    #[error("the signer's certificate does not carry a valid signature of its CA")]
    CaSignature,
    /// The certificate names no principals.
    #[error("the signer's certificate names no principals")]
    NoPrincipals,
    /// None of the certificate's principals is one the line allows.
    #[error("the certificate's principals ({certificate}) match none of the line's principals \"{line}\"")]
    PrincipalsUnmatched {
        /// The certificate's principals, joined by commas.
        certificate: String,
        /// The line's principals, as written.
        line: String,
    },
    /// The line's own restrictions.
    #[error(transparent)]
    Restricted(#[from] Restricted),
}

/// The line's own restrictions: namespaces, valid-after, valid-before.
fn line_applies(line: &AllowedSigner, namespace: &str, at: OffsetDateTime) -> Result<(), Restricted> {
    if let Some(ns) = &line.namespaces
        && !ns.matches(namespace)
    {
        return Err(Restricted::Namespace { allowed: ns.to_string(), namespace: namespace.to_owned() });
    }
    if let Some(after) = line.valid_after.filter(|t| at < t.at) {
        return Err(Restricted::NotYet { from: after.at, at });
    }
    if let Some(before) = line.valid_before.filter(|t| at > t.at) {
        return Err(Restricted::NoLonger { until: before.at, at });
    }
    Ok(())
}

/// A restriction of an allowed-signers line that the signature does not meet.
#[derive(Debug, thiserror::Error)]
enum Restricted {
    /// The line allows other namespaces.
    #[error("the key is allowed only for namespaces \"{allowed}\", not \"{namespace}\"")]
    Namespace {
        /// The line's namespaces, as written.
        allowed: String,
        /// The signature's.
        namespace: String,
    },
    /// Before the line's `valid-after`.
    #[error("the key is trusted only from {from} (valid-after), and the time checked is {at}")]
    NotYet {
        /// `valid-after`.
        from: OffsetDateTime,
        /// The time checked.
        at: OffsetDateTime,
    },
    /// After the line's `valid-before`.
    #[error("the key was trusted only until {until} (valid-before), and the time checked is {at}")]
    NoLonger {
        /// `valid-before`.
        until: OffsetDateTime,
        /// The time checked.
        at: OffsetDateTime,
    },
}

/// For a line naming the signer's key itself: the principals it lists.
fn listed_principals(line: &AllowedSigner) -> Result<Vec<String>, LineRefusal> {
    match line.principals.accepted() {
        None => Err(LineRefusal::TooCostly),
        Some(listed) if listed.is_empty() => Err(LineRefusal::NegatedOnly(line.principals.to_string())),
        Some(listed) => Ok(listed.into_iter().map(str::to_owned).collect()),
    }
}

/// That the CA signed the signer's certificate, as OpenSSH reads no certificate whose CA
/// signature fails, unless `ca` leaves that to `ssh-keygen`. Of a line naming the very
/// certificate, nothing more is asked: its validity, type, options and principals are not, as
/// `ssh-keygen` does not ask them of such a line (its own valid-after and valid-before still
/// apply).
fn ca_signed(signer: &SignerCertificate, ca: CaSignature) -> Result<(), LineRefusal> {
    if ca == CaSignature::LeftToTheTool {
        return Ok(());
    }
    if let Some(reason) = unsupported(signer.cert.signature_key(), "certificate's CA key") {
        return Err(LineRefusal::UnsupportedCa(reason));
    }
    if !signer.ca_signature_holds() {
        return Err(LineRefusal::CaSignature);
    }
    Ok(())
}

/// For a cert-authority line (its CA's signature checked first, [`ca_signed`]): the
/// certificate's principals the line allows, if it is valid at `at`.
fn certificate_principals(
    signer: &SignerCertificate,
    line: &AllowedSigner,
    at: OffsetDateTime,
) -> Result<Vec<String>, LineRefusal> {
    let cert = &signer.cert;
    if cert.cert_type() != CertType::User {
        return Err(LineRefusal::HostCertificate);
    }
    if let Some(option) = cert.critical_options().keys().next() {
        let principals =
            cert.valid_principals().iter().filter(|p| line.principals.matches(p)).cloned().collect();
        return Err(LineRefusal::CriticalOption { option: option.clone(), principals });
    }
    let now = u64::try_from(at.unix_timestamp()).map_err(|_| LineRefusal::Before1970)?;
    if now < cert.valid_after() || now >= cert.valid_before() {
        return Err(LineRefusal::NotValidAt { key_id: cert.key_id().to_owned(), at });
    }
    if cert.valid_principals().is_empty() {
        return Err(LineRefusal::NoPrincipals);
    }
    let allowed: Vec<String> =
        cert.valid_principals().iter().filter(|p| line.principals.matches(p)).cloned().collect();
    if allowed.is_empty() {
        return Err(LineRefusal::PrincipalsUnmatched {
            certificate: cert.valid_principals().join(","),
            line: line.principals.to_string(),
        });
    }
    Ok(allowed)
}

/// `Some(reason)` when the signing key or its certificate's CA is revoked.
fn revocation(signer: &SignerKey, revoked: &RevokedKeys) -> Option<String> {
    if let Some(file) = revoked.listing(signer.signing_key()) {
        return Some(format!(
            "the signing key is listed in {}; the key must not be trusted any more",
            file.display()
        ));
    }
    match signer {
        SignerKey::Certificate(c) => revoked.listing(c.cert.signature_key()).map(|file| {
            format!(
                "the certificate's CA {} is listed in {}",
                fingerprint(c.cert.signature_key()),
                file.display()
            )
        }),
        SignerKey::Plain(_) => None,
    }
}

#[cfg(test)]
mod tests {
    //! Tests of the in-process SSHSIG verifier, on signatures made by our signer and by `ssh-keygen`.

    use super::*;
    use crate::sign::Signer as _;
    use crate::sign::ssh::signer::SshSigner;
    use crate::sign::ssh::sshsig::{ARMOR_BEGIN, ARMOR_END, NAMESPACE};
    use crate::sign::ssh::test_support::{certify, keygen, public_line, tool_sign};
    use base64::Engine as _;
    use std::path::{Path, PathBuf};
    use time::macros::datetime;

    const MESSAGE: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 2 {}";
    const AT: OffsetDateTime = datetime!(2030-06-01 12:00 UTC);

    fn trust(dir: &Path, text: &str) -> AllowedSigners {
        AllowedSigners::parse(text.as_bytes(), &dir.join("allowed_signers")).expect("allowed signers parse")
    }

    fn run(sig: &[u8], allowed: &AllowedSigners) -> Result<SshVerified, SshVerifyError> {
        verify(sig, MESSAGE, NAMESPACE, allowed, &RevokedKeys::default(), AT)
    }

    /// A certificate for kim@example.com, valid 2020 to 2099, with `extra` options.
    fn certify_kim(ca: &Path, key: &Path, extra: &[&str]) -> PathBuf {
        let mut options = vec!["-V", "20200101:20991231"];
        options.extend(extra);
        certify(ca, key, "cert-id", "kim@example.com", &options)
    }

    fn armor(blob: &[u8]) -> Vec<u8> {
        let b64 = base64::engine::general_purpose::STANDARD.encode(blob);
        let lines: Vec<&str> =
            b64.as_bytes().chunks(70).map(|c| std::str::from_utf8(c).expect("ascii")).collect();
        format!("{ARMOR_BEGIN}\n{}\n{ARMOR_END}\n", lines.join("\n")).into_bytes()
    }

    fn blob(armored: &[u8]) -> Vec<u8> {
        let text = std::str::from_utf8(armored).expect("ascii");
        let b64: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
        base64::engine::general_purpose::STANDARD.decode(b64).expect("base64")
    }

    #[test]
    fn garbage_signature_input_never_panics_and_never_verifies() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let (key, ca, kim) =
            (keygen(d, "alice", "ed25519"), keygen(d, "ca", "ed25519"), keygen(d, "kim", "ed25519"));
        let allowed = trust(
            d,
            &format!(
                "alice@example.com {}\n*@example.com cert-authority {}\n",
                public_line(&key),
                public_line(&ca)
            ),
        );
        let plain = SshSigner::from_key_path(&key).expect("loads").sign(MESSAGE).expect("signs");
        let cert = tool_sign(d, &certify_kim(&ca, &kim, &[]), NAMESPACE, MESSAGE);
        for good in [&plain, &cert] {
            assert!(run(good, &allowed).is_ok(), "the unmodified signature verifies");
            for len in 0..good.len() {
                let _ = run(&good[..len], &allowed);
            }
            let raw = blob(good);
            for len in 0..raw.len() {
                assert!(run(&armor(&raw[..len]), &allowed).is_err(), "truncated to {len}");
            }
            // One flipped bit per byte (low or high, alternating); debug-build crypto is slow.
            for i in 0..raw.len() {
                let flip = if i % 2 == 0 { 0x01 } else { 0x80 };
                let mut mutated = raw.clone();
                mutated[i] ^= flip;
                assert!(run(&armor(&mutated), &allowed).is_err(), "byte {i} ^ {flip:#x} still verifies");
            }
            let mut longer = raw.clone();
            longer.push(0);
            assert!(matches!(run(&armor(&longer), &allowed), Err(SshVerifyError::Malformed { .. })));
        }
        for junk in [
            &b""[..],
            b"\xff\xfe",
            b"-----BEGIN SSH SIGNATURE-----",
            b"-----BEGIN SSH SIGNATURE-----\n\n-----END SSH SIGNATURE-----",
        ] {
            assert!(matches!(run(junk, &allowed), Err(SshVerifyError::Malformed { .. })), "{junk:?}");
        }
    }

    #[test]
    fn an_untrusted_signer_is_told_which_line_refused_the_key_and_why() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "erin", "ed25519");
        let line = public_line(&key);
        let sig = SshSigner::from_key_path(&key).expect("loads").sign(MESSAGE).expect("signs");
        let allowed = trust(dir.path(), &format!("# x\nerin@example.com namespaces=\"git,file\" {line}\n"));
        let err = run(&sig, &allowed).unwrap_err().to_string();
        let file = dir.path().join("allowed_signers");
        assert!(
            err.ends_with(&format!(
                "{}:2: the key is allowed only for namespaces \"git,file\", not \"in-toto\"",
                file.display()
            )),
            "{err}"
        );
        let err = run(&sig, &trust(dir.path(), "")).unwrap_err().to_string();
        assert!(err.contains("no line of") && err.contains("add `<principal> <the .pub line>`"), "{err}");
    }

    #[test]
    fn principals_of_every_line_listing_the_key_are_returned_in_file_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = keygen(dir.path(), "multi", "ed25519");
        let line = public_line(&key);
        let sig = SshSigner::from_key_path(&key).expect("loads").sign(MESSAGE).expect("signs");
        let allowed = trust(
            dir.path(),
            &format!(
                "b@x,a@x,!c@x {line}\nz@x namespaces=\"file\" {line}\na@x,d@x valid-after=\"20200101Z\" {line}\n"
            ),
        );
        let v = run(&sig, &allowed).expect("trusted");
        assert_eq!(v.principals, ["b@x", "a@x", "d@x"]);
        assert_eq!(v.key_type, "ssh-ed25519");
        assert_eq!(v.certificate, None);
    }

    #[test]
    fn certificates_that_are_host_certificates_or_carry_critical_options_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let ca = keygen(d, "ca", "ed25519");
        let allowed = trust(d, &format!("*@example.com cert-authority {}\n", public_line(&ca)));
        let host = keygen(d, "host", "ed25519");
        let sig = tool_sign(d, &certify_kim(&ca, &host, &["-h"]), NAMESPACE, MESSAGE);
        let err = run(&sig, &allowed).unwrap_err().to_string();
        assert!(err.contains("is a host certificate"), "{err}");
        let forced = keygen(d, "forced", "ed25519");
        let sig =
            tool_sign(d, &certify_kim(&ca, &forced, &["-O", "force-command=/bin/true"]), NAMESPACE, MESSAGE);
        let err = run(&sig, &allowed).unwrap_err().to_string();
        assert!(err.contains("critical option \"force-command\""), "{err}");
    }

    #[test]
    fn a_certificate_signature_reports_the_certificate_and_its_ca() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let (ca, kim) = (keygen(d, "ca", "ed25519"), keygen(d, "kim", "ed25519"));
        let sig = tool_sign(d, &certify_kim(&ca, &kim, &["-z", "42"]), NAMESPACE, MESSAGE);
        let allowed = trust(d, &format!("*@example.com cert-authority {}\n", public_line(&ca)));
        let v = run(&sig, &allowed).expect("trusted");
        let kim_key = ssh_key::PublicKey::read_openssh_file(&kim.with_extension("pub")).expect("pub");
        let ca_key = ssh_key::PublicKey::read_openssh_file(&ca.with_extension("pub")).expect("pub");
        assert_eq!(v.principals, ["kim@example.com"]);
        assert_eq!(v.fingerprint, fingerprint(kim_key.key_data()));
        assert_eq!(
            v.certificate,
            Some(CertificateInfo {
                key_id: "cert-id".into(),
                serial: 42,
                ca_fingerprint: fingerprint(ca_key.key_data())
            })
        );
        let plain_line = trust(d, &format!("kim@example.com {}\n", public_line(&kim)));
        assert!(
            matches!(run(&sig, &plain_line), Err(SshVerifyError::UntrustedSigner { .. })),
            "a certificate does not match its plain key's line"
        );
    }

    #[test]
    fn a_certificate_valid_forever_verifies_and_its_ca_signature_still_binds_every_byte() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let (ca, kim) = (keygen(d, "ca", "ed25519"), keygen(d, "kim", "ed25519"));
        // Without -V, ssh-keygen writes valid_before 0xffffffffffffffff: "forever".
        let sig = tool_sign(d, &certify(&ca, &kim, "cert-id", "kim@example.com", &[]), NAMESPACE, MESSAGE);
        let allowed = trust(d, &format!("*@example.com cert-authority {}\n", public_line(&ca)));
        let v = run(&sig, &allowed).expect("a certificate valid forever verifies");
        assert_eq!(v.principals, ["kim@example.com"]);
        let late = datetime!(9999-12-31 23:59 UTC);
        assert!(verify(&sig, MESSAGE, NAMESPACE, &allowed, &RevokedKeys::default(), late).is_ok());

        // Another principal written into the certificate: the signature by kim's key still holds,
        // the CA's signature over the certificate does not.
        let mut forged = blob(&sig);
        let at = forged.windows(15).position(|w| w == b"kim@example.com").expect("the principal");
        forged[at + 2] = b'x';
        let err = run(&armor(&forged), &allowed).unwrap_err();
        assert!(err.to_string().contains("does not carry a valid signature of its CA"), "{err}");
    }
}
