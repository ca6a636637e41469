//! The SSH backend: SSHSIG over the DSSE PAE bytes, namespace `in-toto`, sha512, armored as
//! `ssh-keygen -Y sign` writes it. [`SshSigner`] signs (in-process for ed25519 and P-256,
//! through `ssh-keygen -Y sign` for RSA, agent-held and other keys); [`verify::verify`] checks a
//! signature in-process against an [`allowed_signers::AllowedSigners`] file (its principal
//! [`pattern`]s, options and validity) and [`revoked_keys::RevokedKeys`];
//! [`keygen::SshKeygen`] checks the same through the real `ssh-keygen`. [`sshsig`] reads and
//! writes the signature format itself. [`raw`] makes the raw signatures plain DSSE readers verify
//! (`attest export`'s verification summary), in-process or through ssh-agent.

pub mod allowed_signers;
pub mod error;
pub mod keygen;
pub mod pattern;
pub mod private_key;
pub mod raw;
pub mod revoked_keys;
pub mod signer;
pub mod sshsig;
pub mod verify;

#[cfg(test)]
pub(crate) mod test_support;

pub use error::SshSignError;
pub use signer::SshSigner;
