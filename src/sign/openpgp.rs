//! The OpenPGP backend: an armored, detached, RFC 4880 (v4) signature over the DSSE PAE bytes,
//! readable by gpg 2.2 and sqv. [`OpenPgpSigner`] signs in-process from a secret key file or
//! through `gpg` for keys held in a keyring (as git does for `gpg.format=openpgp`);
//! [`verify`](fn@verify) checks a signature in-process against the caller's [`OpenPgpCerts`];
//! [`Sqv`] checks the same through the real `sqv`; [`keys_valid_at`] judges the keys behind a
//! signature at a later time (`attest carry`).
//!
//! The envelope `keyid` of an OpenPGP signature is the fingerprint of the certificate's primary
//! key (uppercase hex, as `gpg --list-keys` shows it), also when a signing subkey made the
//! signature: it names the certificate a verifier must trust, and it survives subkey rotation.

mod certs;
pub mod error;
mod gpg;
mod signature;
mod signer;
mod sqv;
mod validity;
mod verify;

#[cfg(test)]
pub(crate) mod test_support;

pub use certs::{MAX_COMPONENTS, MAX_PACKETS, OpenPgpCerts, OpenPgpCertsError};
pub use error::OpenPgpSignError;
pub use signature::{ARMOR_HEADER, issuer_key_ids};
pub use signer::{OpenPgpSigner, PASSPHRASE_ENV};
pub use sqv::{Sqv, SqvError, naming_signer};
pub use validity::keys_valid_at;
pub use verify::{
    OpenPgpVerified, OpenPgpVerifyError, refused_before_checking, signer_of, unbound_key, verify,
};
