//! The same verification as [`super::verify()`], done by the real `sqv` (for `--via-tools`
//! and differential tests): `sqv --keyring=<certs> --not-after=<at> <sig> <data>`. sqv judges the
//! key at the signature's creation time and refuses signatures made after `--not-after`, as we
//! do; it judges the signature's own expiry at the current time (we judge it at `at`), which
//! differs only for a signature carrying an expiration time and an `at` other than now.

use std::ffi::OsString;
use std::path::Path;

use time::OffsetDateTime;
use time::macros::format_description;

use super::certs::OpenPgpCerts;
use super::signature;
use super::verify::{OpenPgpVerifyError, issuer};
use crate::sign::tool::{self, SignatureTool, SignedFiles, SqvKind, ViaToolError};

/// Why the tool-based verification did not succeed.
pub type SqvError = ViaToolError<OpenPgpVerifyError>;

/// `sqv` as a verifier.
pub type Sqv = SignatureTool<SqvKind>;

impl Sqv {
    /// Verifies `armored_sig` over `message` against the keyring at `certs_path` at time `at`;
    /// on success, what sqv prints: the primary key fingerprint of the signing certificate.
    pub fn verify(
        &self,
        armored_sig: &[u8],
        message: &[u8],
        certs_path: &Path,
        at: OffsetDateTime,
    ) -> Result<String, SqvError> {
        let fail = |reason| self.fail(reason);
        let files = SignedFiles::write(armored_sig, message).map_err(|e| fail(e.to_string()))?;
        let not_after = not_after(at).ok_or_else(|| fail(format!("the time {at} cannot be given to sqv")))?;
        let mut keyring = OsString::from("--keyring=");
        keyring.push(certs_path.as_os_str());
        let run = self.command().args([keyring, OsString::from(format!("--not-after={not_after}"))]);
        let output = self.output(run.args([&files.signature, &files.message]))?;
        let stderr = tool::stderr_text(&output);
        if output.status.success() {
            let stdout = String::from_utf8_lossy(&output.stdout);
            return stdout
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| fail(format!("it succeeded but printed no fingerprint ({stderr})")));
        }
        if stderr.contains("Failed to parse keyring") {
            return Err(fail(format!("it cannot read {}: {stderr}", certs_path.display())));
        }
        // sqv rejects a signature with exit code 1; anything else (a panic's 101, a signal) is a
        // failure of the tool, which says nothing about the signature.
        if output.status.code() != Some(1) {
            return Err(fail(format!("it failed ({}) without a verdict: {stderr}", output.status)));
        }
        Err(SqvError::Rejected(outcome(&stderr)))
    }
}

/// `at` in UTC as sqv's `--not-after` reads it; `None` outside years 0 to 9999.
fn not_after(at: OffsetDateTime) -> Option<String> {
    let utc = at.to_offset(time::UtcOffset::UTC);
    utc.format(format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z"))
        .ok()
        .filter(|_| (0..=9999).contains(&utc.year()))
}

/// Our outcome for sqv's rejection message; what we cannot recognise is a bad signature.
fn outcome(stderr: &str) -> OpenPgpVerifyError {
    let has = |text: &str| stderr.contains(text);
    let reason = format!("sqv: {stderr}");
    let named = || named_key(stderr);
    if has("Missing key") {
        OpenPgpVerifyError::UntrustedSigner { issuer: named(), reason }
    } else if has("Not live until")
        || has("created after the --not-after date")
        || has("No binding signature at time")
    {
        OpenPgpVerifyError::NotYetValid { reason }
    } else if has("is not bound") {
        OpenPgpVerifyError::UntrustedSigner { issuer: named(), reason }
    } else if has("is revoked") {
        OpenPgpVerifyError::Revoked { fingerprint: named(), reason }
    } else if has("not signing capable") {
        OpenPgpVerifyError::NotSigningCapable { fingerprint: named(), reason }
    } else if has("Expired") {
        OpenPgpVerifyError::Expired { fingerprint: named(), reason }
    } else if has("Reading \"") || has("Malformed") {
        OpenPgpVerifyError::Malformed { reason }
    } else {
        OpenPgpVerifyError::BadSignature { reason }
    }
}

/// What [`named_key`] gives when sqv's message names no key.
const UNKNOWN: &str = "unknown";

/// The key sqv's message names first (`Missing key <id>`, `Signing key on <fingerprint> is
/// ...`): the first word of 16 hex digits or more, else `unknown`.
fn named_key(stderr: &str) -> String {
    stderr
        .split_whitespace()
        .map(|word| word.trim_end_matches([',', ':', ';', '.']))
        .find(|word| word.len() >= 16 && word.chars().all(|c| c.is_ascii_hexdigit()))
        .map_or_else(|| UNKNOWN.to_owned(), str::to_owned)
}

/// sqv's verdict `rejected` on `armored_sig`, with the key it is about named where sqv's message
/// names none (an expired signature: `Verifying signature: Expired on ...`), from the signature
/// itself: the certificate of `certs` holding the key it names as its issuer, as the in-process
/// verdict names it (an untrusted signer: that issuer, its fingerprint, else its key id).
#[must_use]
pub fn naming_signer(
    rejected: OpenPgpVerifyError,
    armored_sig: &[u8],
    certs: &OpenPgpCerts,
) -> OpenPgpVerifyError {
    let Ok(sig) = signature::parse_armored(armored_sig).map(|d| d.sig) else { return rejected };
    let holder = || {
        let holds = |c: &&sequoia_openpgp::Cert| c.keys().key_handles(sig.get_issuers()).next().is_some();
        certs.certs().iter().find(holds).map_or_else(|| issuer(&sig), |c| c.fingerprint().to_hex())
    };
    match rejected {
        OpenPgpVerifyError::Expired { fingerprint, reason } if fingerprint == UNKNOWN => {
            OpenPgpVerifyError::Expired { fingerprint: holder(), reason }
        }
        OpenPgpVerifyError::Revoked { fingerprint, reason } if fingerprint == UNKNOWN => {
            OpenPgpVerifyError::Revoked { fingerprint: holder(), reason }
        }
        OpenPgpVerifyError::NotSigningCapable { fingerprint, reason } if fingerprint == UNKNOWN => {
            OpenPgpVerifyError::NotSigningCapable { fingerprint: holder(), reason }
        }
        OpenPgpVerifyError::UntrustedSigner { issuer: named, reason } if named == UNKNOWN => {
            OpenPgpVerifyError::UntrustedSigner { issuer: issuer(&sig), reason }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verification_time_is_given_to_sqv_in_utc_seconds() {
        let at = time::macros::datetime!(2026-03-04 13:25:35.9 +02:00);
        assert_eq!(not_after(at).as_deref(), Some("2026-03-04T11:25:35Z"));
        let far = time::macros::datetime!(-0001-01-01 00:00 UTC);
        assert_eq!(not_after(far), None);
    }

    #[test]
    fn sqv_messages_map_to_our_outcomes_and_unknown_ones_to_a_bad_signature() {
        let kind = |s: &str| std::mem::discriminant(&outcome(s));
        let d = std::mem::discriminant;
        let untrusted = outcome(
            "Missing key 1358054AA6CA779C25BC779F2BBC413560DDBEF4, which is needed to verify signature.",
        );
        assert_eq!(
            untrusted,
            OpenPgpVerifyError::UntrustedSigner {
                issuer: "1358054AA6CA779C25BC779F2BBC413560DDBEF4".to_owned(),
                reason: "sqv: Missing key 1358054AA6CA779C25BC779F2BBC413560DDBEF4, which is needed to verify signature.".to_owned(),
            }
        );
        assert_eq!(
            kind("Signing key on ECDE is bad:; Invalid key: \"certificate is revoked\""),
            d(&OpenPgpVerifyError::Revoked { fingerprint: String::new(), reason: String::new() })
        );
        const FPR: &str = "41E820A306B36BE902B403274A72F79D551FA003";
        let bad = format!("Signing key on {FPR} is bad:;            Invalid key: \"certificate is revoked\"");
        assert!(
            matches!(outcome(&bad), OpenPgpVerifyError::Revoked { fingerprint, .. } if fingerprint == FPR)
        );
        let unbound = format!("Signing key on {FPR} is not bound:; No binding signature");
        assert!(
            matches!(outcome(&unbound), OpenPgpVerifyError::UntrustedSigner { issuer, .. } if issuer == FPR)
        );
        let expired = format!("Signing key on {FPR} is bad:; Expired on 2026-01-01T00:00:00Z");
        assert!(
            matches!(outcome(&expired), OpenPgpVerifyError::Expired { fingerprint, .. } if fingerprint == FPR)
        );
        assert_eq!(
            kind("Verifying signature:; Message has been manipulated"),
            d(&OpenPgpVerifyError::BadSignature { reason: String::new() })
        );
        assert_eq!(
            kind("Verifying signature:; Not live until 2039-12-31T23:30:00Z"),
            d(&OpenPgpVerifyError::NotYetValid { reason: String::new() })
        );
        assert_eq!(
            kind("something nobody has seen"),
            d(&OpenPgpVerifyError::BadSignature { reason: String::new() })
        );
    }

    use std::path::Path;

    use crate::sign::openpgp::test_support::{GnuPg, PAE, now, trust};
    use crate::sign::openpgp::verify;

    /// sqv says only `Expired on <time>` of an expired signature; the verdict names the
    /// certificate holding the key the signature names, as in-process does, never `unknown`.
    #[test]
    fn an_expired_signature_rejected_by_sqv_names_its_certificate_as_in_process() {
        let gpg = GnuPg::new();
        let stale = gpg.gen_key("Stale <stale@example.com>", "sign", "0", Some("20200101T000000"));
        let expired = ["--faked-system-time", "20200101T060000", "--default-sig-expire", "1d"];
        let sig = gpg.sign(&stale, PAE, &expired);
        let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&stale]));
        let in_process = verify(&sig, PAE, &certs, now()).expect_err("expired");
        assert!(
            matches!(&in_process, OpenPgpVerifyError::Expired { fingerprint, .. } if *fingerprint == stale)
        );
        let Err(SqvError::Rejected(by_sqv)) = Sqv::default().verify(&sig, PAE, &trust_path, now()) else {
            panic!("sqv rejects an expired signature");
        };
        assert!(matches!(&by_sqv, OpenPgpVerifyError::Expired { fingerprint, .. } if fingerprint == UNKNOWN));
        let named = naming_signer(by_sqv, &sig, &certs);
        let OpenPgpVerifyError::Expired { fingerprint, reason } = &named else { panic!("{named:?}") };
        assert_eq!((fingerprint, reason.contains("Expired on")), (&stale, true), "{named}");
        assert!(!named.to_string().contains(UNKNOWN), "{named}");
        // A verdict that names its key already is left as it is.
        let revoked = OpenPgpVerifyError::Revoked { fingerprint: "ABCD".repeat(4), reason: "r".to_owned() };
        assert_eq!(naming_signer(revoked.clone(), &sig, &certs), revoked);
    }

    #[test]
    fn a_missing_sqv_is_tool_missing_never_a_pass_and_a_bad_keyring_is_a_tool_error() {
        let gpg = GnuPg::new();
        let lee = gpg.gen_key("Lee <lee@example.com>", "sign", "0", None);
        let sig = gpg.sign(&lee, PAE, &[]);
        let (trust_path, _) = trust(&gpg, "trusted.asc", &gpg.export(&[&lee]));
        let missing = Sqv::at("/nonexistent/sqv");
        match missing.verify(&sig, PAE, &trust_path, now()) {
            Err(e @ SqvError::ToolMissing { .. }) => assert_eq!(
                e.to_string(),
                "`/nonexistent/sqv` was not found, so no OpenPGP signature was checked; install sqv (Debian/Ubuntu package `sqv`) or verify without --via-tools"
            ),
            other => panic!("expected ToolMissing, got {other:?}"),
        }
        let junk = gpg.write("junk", b"not a keyring");
        match Sqv::default().verify(&sig, PAE, &junk, now()) {
            Err(SqvError::Tool { reason, .. }) => {
                assert!(reason.contains(&junk.display().to_string()), "{reason}")
            }
            other => panic!("expected a tool error, got {other:?}"),
        }
        assert_eq!(
            Sqv::default().verify(&sig, PAE, Path::new(&trust_path), now()).expect("sqv accepts"),
            lee
        );
    }
}
