//! Raw signatures with an SSH key, as plain DSSE readers verify them (securesystemslib,
//! slsa-verifier, in-toto-golang): the signature scheme's own bytes over the message, not an
//! SSHSIG. Ed25519 signs the message itself (its 64 bytes); ECDSA P-256 signs its SHA-256, written
//! as DER, which pyca/cryptography and Go's `ecdsa.VerifyASN1` read. The public key goes with it as
//! SubjectPublicKeyInfo PEM. `attest export` signs its verification summary so.
//!
//! A key file ssh-key reads signs in-process; a key held only in ssh-agent signs through the
//! agent protocol's sign request, which returns exactly these signatures in SSH's encoding
//! (`ssh-keygen -Y sign` wraps everything in SSHSIG, so it cannot make them).

use std::path::Path;

use ed25519_dalek::pkcs8::EncodePublicKey as _;
use ssh_key::public::KeyData;
use ssh_key::{Algorithm, EcdsaCurve, PublicKey, Signature};
use ssh_signature::Verifier as _;

use super::error::SshSignError;
use super::verify::fingerprint;

/// How long ssh-agent may take to answer one request (a key added with `ssh-add -c` waits for
/// its user's confirmation).
#[cfg(unix)]
const AGENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// Refuses a key whose raw signatures DSSE readers do not verify: anything but ed25519 and
/// ecdsa-sha2-nistp256.
///
/// # Errors
/// [`SshSignError::RawScheme`], naming the key.
pub fn check_scheme(public: &PublicKey) -> Result<(), SshSignError> {
    match public.algorithm() {
        Algorithm::Ed25519 | Algorithm::Ecdsa { curve: EcdsaCurve::NistP256 } => Ok(()),
        other => Err(SshSignError::RawScheme {
            algorithm: other.as_str().to_owned(),
            keyid: fingerprint(public.key_data()),
        }),
    }
}

/// `sig`, an SSH signature of `message` by `public` (made in-process or by an agent), as the raw
/// bytes a DSSE reader verifies: Ed25519's 64 bytes, or ECDSA P-256's `(r, s)` as DER. It is
/// verified with `public` first: a signature by another key, or over other bytes, is never
/// returned.
///
/// # Errors
/// A scheme other than those two ([`SshSignError::RawScheme`]), or a signature that does not
/// verify ([`SshSignError::RawOutput`]).
pub fn to_raw(public: &PublicKey, message: &[u8], sig: &Signature) -> Result<Vec<u8>, SshSignError> {
    check_scheme(public)?;
    let refused = |reason: String| SshSignError::RawOutput { keyid: fingerprint(public.key_data()), reason };
    if sig.algorithm() != public.algorithm() {
        return Err(refused(format!("it is a {} signature", sig.algorithm().as_str())));
    }
    public.key_data().verify(message, sig).map_err(|e| refused(e.to_string()))?;
    match sig.algorithm() {
        Algorithm::Ecdsa { .. } => {
            let ecdsa = p256::ecdsa::Signature::try_from(sig).map_err(|e| refused(e.to_string()))?;
            Ok(ecdsa.to_der().as_bytes().to_vec())
        }
        _ => Ok(sig.as_bytes().to_vec()),
    }
}

/// The signature of `message` by the private half of `public`, made by the ssh-agent listening at
/// `socket` (the raw scheme of the key: for ECDSA P-256, over the message's SHA-256).
///
/// # Errors
/// [`SshSignError::Agent`]: the agent cannot be reached, does not hold the key, or refuses.
pub fn agent_sign(socket: &Path, public: &PublicKey, message: &[u8]) -> Result<Signature, SshSignError> {
    let failed = |reason: String| SshSignError::Agent {
        socket: socket.to_owned(),
        keyid: fingerprint(public.key_data()),
        reason,
    };
    let mut client = connect(socket).map_err(|e| failed(format!("cannot connect: {e}")))?;
    client.sign(public, message).map_err(|e| {
        failed(match e {
            ssh_agent_client_rs::Error::RemoteFailure => {
                "the agent refused (it does not hold the key, or its user declined)".to_owned()
            }
            other => other.to_string(),
        })
    })
}

/// A client of the agent at `socket`, whose every read and write gives up after
/// [`AGENT_TIMEOUT`].
#[cfg(unix)]
fn connect(socket: &Path) -> std::io::Result<ssh_agent_client_rs::Client> {
    let stream = std::os::unix::net::UnixStream::connect(socket)?;
    stream.set_read_timeout(Some(AGENT_TIMEOUT))?;
    stream.set_write_timeout(Some(AGENT_TIMEOUT))?;
    Ok(ssh_agent_client_rs::Client::with_read_write(Box::new(stream)))
}

/// A client of the agent at `socket` (a named pipe).
#[cfg(not(unix))]
fn connect(socket: &Path) -> std::io::Result<ssh_agent_client_rs::Client> {
    ssh_agent_client_rs::Client::connect(socket).map_err(|e| std::io::Error::other(e.to_string()))
}

/// `public` as a SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`), as securesystemslib,
/// slsa-verifier and openssl read a public key.
///
/// # Errors
/// A scheme other than ed25519 and P-256 ([`SshSignError::RawScheme`]), or a point that does not
/// decode ([`SshSignError::RawOutput`]).
pub fn spki_pem(public: &PublicKey) -> Result<String, SshSignError> {
    check_scheme(public)?;
    let refused = |reason: String| SshSignError::RawOutput { keyid: fingerprint(public.key_data()), reason };
    let line_ending = ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF;
    let pem = match public.key_data() {
        KeyData::Ed25519(key) => ed25519_dalek::VerifyingKey::try_from(key)
            .map_err(|e| refused(e.to_string()))?
            .to_public_key_pem(line_ending),
        KeyData::Ecdsa(key) => p256::ecdsa::VerifyingKey::try_from(key)
            .map_err(|e| refused(e.to_string()))?
            .to_public_key_pem(line_ending),
        _ => return Err(refused("not an ed25519 or P-256 key".to_owned())),
    };
    pem.map_err(|e| refused(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign::ssh::SshSigner;
    use crate::sign::ssh::test_support::{Agent, keygen};

    const MESSAGE: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 2 {}";

    /// Verifies `raw` over `message` with the SPKI PEM `pem`, through the curves' own crates.
    fn verifies(pem: &str, raw: &[u8], message: &[u8]) -> bool {
        use ed25519_dalek::pkcs8::DecodePublicKey as _;
        if let Ok(key) = ed25519_dalek::VerifyingKey::from_public_key_pem(pem) {
            let Ok(sig) = ed25519_dalek::Signature::from_slice(raw) else { return false };
            return ssh_signature::Verifier::verify(&key, message, &sig).is_ok();
        }
        let key = p256::ecdsa::VerifyingKey::from_public_key_pem(pem).expect("a P-256 SPKI PEM");
        let Ok(sig) = p256::ecdsa::DerSignature::try_from(raw) else { return false };
        ssh_signature::Verifier::verify(&key, message, &sig).is_ok()
    }

    #[test]
    fn an_ed25519_and_a_p256_key_file_sign_raw_signatures_their_pem_verifies() {
        let dir = tempfile::tempdir().expect("temp dir");
        for (kind, len) in [("ed25519", Some(64)), ("ecdsa", None)] {
            let signer = SshSigner::from_key_path(&keygen(dir.path(), kind, kind)).expect("loads");
            let raw = signer.sign_raw(MESSAGE).expect("signs");
            if let Some(len) = len {
                assert_eq!(raw.len(), len);
            } else {
                assert_eq!(raw[0], 0x30, "a DER SEQUENCE");
            }
            let pem = signer.public_key_pem().expect("a PEM");
            assert!(pem.starts_with("-----BEGIN PUBLIC KEY-----\n"), "{pem}");
            assert!(verifies(&pem, &raw, MESSAGE), "{kind}");
            assert!(!verifies(&pem, &raw, b"other bytes"), "{kind}");
        }
    }

    #[test]
    fn a_key_held_only_in_ssh_agent_signs_raw_through_the_agent() {
        let dir = tempfile::tempdir().expect("temp dir");
        let agent = Agent::start(dir.path());
        for kind in ["ed25519", "ecdsa"] {
            let key = keygen(dir.path(), &format!("agent-{kind}"), kind);
            agent.add(&key);
            std::fs::remove_file(&key).expect("the private key leaves the disk");
            let signer = SshSigner::from_key_path(&key.with_extension("pub"))
                .expect("the public key loads")
                .with_agent_socket(&agent.socket);
            assert!(!signer.signs_in_process());
            let raw = signer.sign_raw(MESSAGE).expect("the agent signs");
            assert!(verifies(&signer.public_key_pem().expect("a PEM"), &raw, MESSAGE), "{kind}");
        }
        // A key the agent does not hold is refused, naming the agent.
        let other = keygen(dir.path(), "not-in-agent", "ed25519");
        std::fs::remove_file(&other).expect("removed");
        let err = SshSigner::from_key_path(&other.with_extension("pub"))
            .expect("loads")
            .with_agent_socket(&agent.socket)
            .sign_raw(MESSAGE)
            .unwrap_err()
            .to_string();
        assert!(err.contains("the agent refused") && err.contains("ssh-add -l"), "{err}");
    }

    #[test]
    fn an_rsa_key_is_refused_for_raw_signatures_before_anything_is_signed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let signer =
            SshSigner::from_key_path(&keygen(dir.path(), "rsa", "rsa")).expect("loads").without_agent();
        let err = signer.sign_raw(MESSAGE).unwrap_err().to_string();
        assert!(err.contains("the ssh-rsa key"), "{err}");
        assert!(err.contains("ed25519 and ecdsa-sha2-nistp256"), "{err}");
        assert!(signer.public_key_pem().is_err());
    }

    #[test]
    fn a_signature_by_another_key_or_over_other_bytes_is_never_returned() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mine = ssh_key::PrivateKey::read_openssh_file(&keygen(dir.path(), "mine", "ed25519")).unwrap();
        let other = ssh_key::PrivateKey::read_openssh_file(&keygen(dir.path(), "other", "ed25519")).unwrap();
        let by_other: Signature = ssh_signature::Signer::try_sign(&other, MESSAGE).unwrap();
        let err = to_raw(mine.public_key(), MESSAGE, &by_other).unwrap_err().to_string();
        assert!(err.contains("does not verify with that key"), "{err}");
        let by_mine: Signature = ssh_signature::Signer::try_sign(&mine, MESSAGE).unwrap();
        assert!(to_raw(mine.public_key(), b"other", &by_mine).is_err());
        assert_eq!(to_raw(mine.public_key(), MESSAGE, &by_mine).unwrap().len(), 64);
    }
}
