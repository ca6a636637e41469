//! The Ed25519 key an in-process SSH signature is made with, expanded and checked against its
//! public half once, when loaded (`PrivateKey::sign` would redo both for every line).
//!
//! Builds with the `sigstore` feature link aws-lc (through aws-lc-rs), whose Ed25519 is about
//! twice as fast as ed25519-dalek's on x86-64 (measured: 15.6 against 33.9 µs a signature); they
//! sign with it. Other builds sign with ed25519-dalek. Ed25519 signatures are deterministic
//! (RFC 8032), so both make the same bytes; the tests below hold them to that.

use ssh_key::private::Ed25519Keypair;

/// An expanded Ed25519 signing key whose public half matched the key file's.
#[derive(Clone)]
pub(crate) struct Ed25519Key(Inner);

#[cfg(feature = "sigstore")]
type Inner = std::sync::Arc<aws_lc_rs::signature::Ed25519KeyPair>;
#[cfg(not(feature = "sigstore"))]
type Inner = ed25519_dalek::SigningKey;

impl Ed25519Key {
    /// The key of `pair`; `None` when its public half is not the one its seed derives.
    pub(crate) fn new(pair: &Ed25519Keypair) -> Option<Self> {
        let seed = pair.private.to_bytes();
        let public = pair.public.as_ref();
        #[cfg(feature = "sigstore")]
        let inner = aws_lc_rs::signature::Ed25519KeyPair::from_seed_and_public_key(&seed, public)
            .ok()
            .map(std::sync::Arc::new);
        #[cfg(not(feature = "sigstore"))]
        let inner = dalek(&seed, public);
        inner.map(Self)
    }

    /// The 64-byte signature of `message`.
    pub(crate) fn sign(&self, message: &[u8]) -> [u8; 64] {
        #[cfg(feature = "sigstore")]
        {
            // aws-lc's Ed25519 signatures are always 64 bytes.
            let mut raw = [0u8; 64];
            raw.copy_from_slice(self.0.sign(message).as_ref());
            raw
        }
        #[cfg(not(feature = "sigstore"))]
        {
            ed25519_dalek::Signer::sign(&self.0, message).to_bytes()
        }
    }
}

/// ed25519-dalek's key for `seed`, if `public` is the public key it derives.
#[cfg(any(test, not(feature = "sigstore")))]
fn dalek(seed: &[u8; 32], public: &[u8]) -> Option<ed25519_dalek::SigningKey> {
    let key = ed25519_dalek::SigningKey::from_bytes(seed);
    (key.verifying_key().as_bytes() == public).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssh_key::private::Ed25519PrivateKey;
    use ssh_key::public::Ed25519PublicKey;

    fn pair(seed: [u8; 32]) -> Ed25519Keypair {
        Ed25519Keypair::from(Ed25519PrivateKey::from_bytes(&seed))
    }

    /// With the `sigstore` feature this holds aws-lc to ed25519-dalek; without it, both sides are
    /// ed25519-dalek and only the wrapper is checked.
    #[test]
    fn the_signature_is_ed25519_dalek_s_byte_for_byte() {
        for (i, message) in [&b""[..], b"in-toto", &[0xa5; 5000]].into_iter().enumerate() {
            let seed = [i as u8 + 7; 32];
            let ours = Ed25519Key::new(&pair(seed)).expect("a consistent pair");
            let reference = ed25519_dalek::SigningKey::from_bytes(&seed);
            assert_eq!(ours.sign(message), ed25519_dalek::Signer::sign(&reference, message).to_bytes());
        }
    }

    #[test]
    fn a_pair_whose_public_half_is_not_its_seed_s_is_refused() {
        let mut mismatched = pair([1; 32]);
        mismatched.public = Ed25519PublicKey(pair([2; 32]).public.0);
        assert!(Ed25519Key::new(&mismatched).is_none());
        assert!(dalek(&[1; 32], &mismatched.public.0).is_none());
    }
}
