//! Whether the keys behind an OpenPGP signature are still valid at a later time: the certificate
//! and the key that made the signature, judged under sequoia's `StandardPolicy` at the caller's
//! time rather than at the signature's (as [`verify`](super::verify()) and sqv judge them). Expired
//! by then, or revoked by then for any reason (a soft one such as "superseded" or "retired"
//! included, from its own creation on), the keys vouch for nothing any more: `attest carry` does
//! not re-sign what they signed.

use std::time::SystemTime;

use sequoia_openpgp::Cert;
use sequoia_openpgp::cert::prelude::*;
use sequoia_openpgp::packet::Signature;
use sequoia_openpgp::types::RevocationStatus;
use time::OffsetDateTime;

use super::certs::{OpenPgpCerts, policy};
use super::signature;
use super::verify::{OpenPgpVerifyError, creation_time, issuer, rfc3339};
use crate::model::shown::shown;

/// Checks that the certificate `signer` of `certs` (the primary key fingerprint the signature
/// verified against, as [`verify`](super::verify()) or sqv report it), and its key that made
/// `armored_sig`, are bound, not expired and not revoked at `at`. Another certificate binding the
/// same key vouches for nothing here. The signature itself is not verified here: call this for a
/// signature [`verify`](super::verify()) (or sqv) accepted.
///
/// # Errors
/// [`OpenPgpVerifyError::Expired`] or [`OpenPgpVerifyError::Revoked`] naming the certificate's
/// fingerprint, what expired or was revoked and when; [`OpenPgpVerifyError::UntrustedSigner`]
/// when no certificate holds the key or does not bind it at `at`;
/// [`OpenPgpVerifyError::Malformed`] for bytes that are not one detached signature.
pub fn keys_valid_at(
    armored_sig: &[u8],
    certs: &OpenPgpCerts,
    signer: &str,
    at: OffsetDateTime,
) -> Result<(), OpenPgpVerifyError> {
    let detached = signature::parse_armored(armored_sig)
        .map_err(|e| OpenPgpVerifyError::Malformed { reason: e.to_string() })?;
    let sig = &detached.sig;
    let issuers = sig.get_issuers();
    let held = certs.by_fingerprint(signer).and_then(|c| {
        let key = c.keys().find(|k| issuers.iter().any(|i| i.aliases(k.key().key_handle())))?;
        Some((c, key.key().key_handle()))
    });
    let Some((cert, handle)) = held else {
        return Err(OpenPgpVerifyError::UntrustedSigner {
            issuer: issuer(sig),
            reason: format!(
                "the certificate {signer} in {} does not hold the key that made the signature",
                certs.path().display()
            ),
        });
    };
    let judged = Judged { sig, cert, at: SystemTime::from(at.replace_nanosecond(0).unwrap_or(at)) };
    let policy = policy();
    let vc = cert.with_policy(&policy, judged.at).map_err(|e| judged.unbound("the certificate", &e))?;
    if let RevocationStatus::Revoked(revs) = vc.revocation_status() {
        return Err(judged.revoked("the certificate", &revs));
    }
    if vc.alive().is_err() {
        return Err(judged.expired("the certificate", vc.primary_key().key_expiration_time()));
    }
    let Some(ka) = vc.keys().key_handle(handle).next() else {
        return Err(judged.unbound("the signing key", &"the certificate does not bind it"));
    };
    if ka.primary() {
        return Ok(());
    }
    let key = format!("subkey {}", ka.key().fingerprint().to_hex());
    if let RevocationStatus::Revoked(revs) = ka.revocation_status() {
        return Err(judged.revoked(&key, &revs));
    }
    if ka.alive().is_err() {
        return Err(judged.expired(&key, ka.key_expiration_time()));
    }
    Ok(())
}

/// The signature whose keys are judged, their certificate and the time they are judged at.
struct Judged<'a> {
    /// The signature.
    sig: &'a Signature,
    /// The certificate holding the key that made it.
    cert: &'a Cert,
    /// The time the keys are judged at.
    at: SystemTime,
}

impl Judged<'_> {
    /// `made at <signature time>, judged at <at>`.
    fn times(&self) -> String {
        format!(
            "the signature was made at {}, and the key is judged at {}",
            rfc3339(creation_time(self.sig)),
            rfc3339(self.at)
        )
    }

    /// `what` (the certificate, or a subkey) is revoked at the judged time by `revs`.
    fn revoked(&self, what: &str, revs: &[&Signature]) -> OpenPgpVerifyError {
        let said = revs.first().map_or_else(String::new, |rev| {
            let when = rev.signature_creation_time().map_or_else(|| "an unknown time".to_owned(), rfc3339);
            let why = match rev.reason_for_revocation() {
                Some((reason, [])) => format!("{reason}"),
                Some((reason, message)) => {
                    format!("{reason}: \"{}\"", shown(&String::from_utf8_lossy(message), 120))
                }
                None => "no reason given".to_owned(),
            };
            format!(" at {when} ({why})")
        });
        OpenPgpVerifyError::Revoked {
            fingerprint: self.cert.fingerprint().to_hex(),
            reason: format!("{what} was revoked{said}; {}", self.times()),
        }
    }

    /// `what` (the certificate, or a subkey) has expired at the judged time, at `expiry`.
    fn expired(&self, what: &str, expiry: Option<SystemTime>) -> OpenPgpVerifyError {
        let when = expiry.map_or_else(String::new, |t| format!(" at {}", rfc3339(t)));
        OpenPgpVerifyError::Expired {
            fingerprint: self.cert.fingerprint().to_hex(),
            reason: format!("{what} expired{when}; {}", self.times()),
        }
    }

    /// `what` is not validly bound at the judged time under the standard policy.
    fn unbound(&self, what: &str, why: &dyn std::fmt::Display) -> OpenPgpVerifyError {
        let fingerprint = self.cert.fingerprint().to_hex();
        OpenPgpVerifyError::UntrustedSigner {
            reason: format!(
                "{what} of {fingerprint} is not valid at {} under the standard policy ({why})",
                rfc3339(self.at)
            ),
            issuer: fingerprint,
        }
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::sign::openpgp::test_support::*;
    use crate::sign::openpgp::*;

    #[test]
    fn a_signing_subkey_expired_or_superseded_since_it_signed_fails_at_a_later_time_and_holds_at_the_signatures()
     {
        let gpg = GnuPg::new();
        // The clock frozen (`!`): a loaded machine would make the signature a second later.
        let signed_then = ["--faked-system-time", "20200601T000000!"];
        let ex = gpg.gen_key("Ex <ex@example.com>", "cert", "0", Some("20200101T000000"));
        gpg.ok(
            &["--faked-system-time", "20200101T000000", "--quick-add-key", &ex, "ed25519", "sign", "1y"],
            None,
        );
        let ex_sig = gpg.sign(&ex, PAE, &signed_then);
        let sup = gpg.gen_key("Sup <sup@example.com>", "cert", "0", Some("20200101T000000"));
        gpg.ok(&["--faked-system-time", "20200101T000000", "--quick-add-key", &sup, "ed25519", "sign"], None);
        let sup_sig = gpg.sign(&sup, PAE, &signed_then);
        let sup_sub = signature::parse_armored(&sup_sig).expect("detached").sig.get_issuers()[0].to_hex();
        assert_ne!(sup_sub, sup, "the subkey signs");
        // "Key is superseded" (gpg's reason 2), a soft revocation, made today.
        gpg.ok(&["--command-fd", "0", "--edit-key", &sup], Some(b"key 1\nrevkey\ny\n2\n\ny\nsave\n"));
        let (_, certs) = trust(&gpg, "ring.asc", &gpg.export(&[&ex, &sup]));

        for (name, sig, expected, says) in [
            ("expired", &ex_sig, "expired", "expired at 2020-12-31T00:00:00Z".to_owned()),
            ("superseded", &sup_sig, "revoked", format!("subkey {sup_sub} was revoked at ")),
        ] {
            let verified = verify(sig, PAE, &certs, now());
            assert_eq!(outcome(&verified), "ok", "{name}: judged at the signature's time, it holds");
            let signer = verified.as_ref().expect("verified").fingerprint.clone();
            assert!(
                keys_valid_at(sig, &certs, &signer, datetime!(2020-07-01 0:00 UTC)).is_ok(),
                "{name}: then"
            );
            let err = keys_valid_at(sig, &certs, &signer, now()).unwrap_err();
            assert_eq!(outcome(&Err(err.clone())), expected, "{name}: {err:?}");
            let err = err.to_string();
            assert!(err.contains(&says), "{name}: {err}");
            assert!(err.contains("the signature was made at 2020-06-01T00:00:00Z"), "{name}: {err}");
        }
        let err = keys_valid_at(&sup_sig, &certs, &sup, now()).unwrap_err().to_string();
        assert!(err.contains("Key is superseded") && err.contains(&sup), "{err}");
    }

    #[test]
    fn a_key_another_certificate_also_binds_is_judged_by_the_certificate_the_signature_verified_against() {
        use sequoia_openpgp::types::KeyFlags;

        let gpg = GnuPg::new();
        let ada = gpg.gen_key("Ada <ada@example.com>", "cert", "0", Some("20240101T000000"));
        gpg.ok(&["--faked-system-time", "20240101T000100", "--quick-add-key", &ada, "ed25519", "sign"], None);
        let sig = gpg.sign(&ada, PAE, &["--faked-system-time", "20240601T000000"]);
        let sub = signature::parse_armored(&sig).expect("detached").sig.get_issuers()[0].to_hex();
        // Ada's subkey superseded today: it vouches for nothing any more.
        gpg.ok(&["--command-fd", "0", "--edit-key", &ada], Some(b"key 1\nrevkey\ny\n2\n\ny\nsave\n"));
        // Mallory's certificate binds the same subkey, for authentication (no back-signature needed).
        let mallory = gpg.gen_key("Mallory <mallory@example.com>", "sign", "0", None);
        let mallory_too = bind_foreign_subkey(
            &gpg.export_secret(&mallory, false),
            &gpg.export(&[&ada]),
            &sub,
            KeyFlags::empty().set_authentication(),
        );
        let (trust_path, certs) = trust(&gpg, "ring.asc", &[mallory_too, gpg.export(&[&ada])].concat());

        let verified = verify(&sig, PAE, &certs, now()).expect("made while the subkey was valid");
        assert_eq!(verified.fingerprint, ada, "Mallory's binding cannot sign");
        assert_eq!(Sqv::default().verify(&sig, PAE, &trust_path, now()).expect("sqv accepts"), ada);
        let err = keys_valid_at(&sig, &certs, &verified.fingerprint, now()).unwrap_err();
        assert_eq!(outcome(&Err(err.clone())), "revoked", "{err:?}");
        assert!(err.to_string().contains(&format!("subkey {sub} was revoked")), "{err}");
    }
}
