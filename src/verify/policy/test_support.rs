//! What the tests of the verifier policy's modules share: OpenPGP trusts made in process.

use std::path::Path;
use std::time::{Duration, SystemTime};

use sequoia_openpgp::Cert;
use sequoia_openpgp::cert::CertBuilder;
use sequoia_openpgp::packet::UserID;
use sequoia_openpgp::packet::signature::SignatureBuilder;
use sequoia_openpgp::serialize::SerializeInto;
use sequoia_openpgp::types::SignatureType;

use crate::sign::openpgp::OpenPgpCerts;

/// A certificate made an hour ago that binds each of `user_ids` by its own self-signature.
pub fn cert(user_ids: &[&str]) -> Cert {
    let builder = user_ids.iter().fold(CertBuilder::new(), |b, uid| b.add_userid(*uid));
    let builder =
        builder.add_signing_subkey().set_creation_time(SystemTime::now() - Duration::from_secs(3600));
    builder.generate().expect("a certificate").0
}

/// `cert` with `user_id` bound by a self-signature made half an hour ago that expired a minute
/// later: bound then, not now.
pub fn with_expired_user_id(cert: &Cert, user_id: &str) -> Cert {
    let mut signer =
        cert.primary_key().key().clone().parts_into_secret().expect("secret").into_keypair().expect("a key");
    let uid = UserID::from(user_id);
    let made = SystemTime::now() - Duration::from_secs(1800);
    let binding = SignatureBuilder::new(SignatureType::PositiveCertification)
        .set_signature_creation_time(made)
        .expect("a time")
        .set_signature_validity_period(Duration::from_secs(60))
        .expect("a period");
    let sig = uid.bind(&mut signer, cert, binding).expect("bound");
    cert.clone().insert_packets([sequoia_openpgp::Packet::from(uid), sig.into()]).expect("inserted").0
}

/// The trust holding `certs` (public parts), as `--openpgp-certs` reads it, and their
/// fingerprints in order.
pub fn trust_of(certs: &[Cert]) -> (OpenPgpCerts, Vec<String>) {
    let bytes: Vec<u8> = certs.iter().flat_map(|c| c.to_vec().expect("serializes")).collect();
    let trust = OpenPgpCerts::parse(&bytes, Path::new("team.asc")).expect("a trust");
    (trust, certs.iter().map(|c| c.fingerprint().to_hex()).collect())
}
