//! The one sha256 of the crate: every hash we write or check is lowercase hex of sha256.

use sha2::{Digest, Sha256};

/// Lowercase hex sha256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    hex::encode(Sha256::digest(bytes.as_ref()))
}

/// A reader that hashes what passes through it: the sha256 of a stream (a held-out file copied
/// or written as a blob) without holding it in memory.
#[derive(Debug)]
pub struct Sha256Reader<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: std::io::Read> Sha256Reader<R> {
    /// Hashes what is read from `inner`.
    pub fn new(inner: R) -> Self {
        Sha256Reader { inner, hasher: Sha256::new() }
    }

    /// The reader hashed.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Lowercase hex sha256 of everything read so far.
    #[must_use]
    pub fn hex(self) -> String {
        hex::encode(self.hasher.finalize())
    }
}

impl<R: std::io::Read> std::io::Read for Sha256Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Lowercase hex sha256 of a git object as git hashes it: `<kind> <decimal length>\0` and then
/// `data` (for a commit, its raw bytes). In a SHA-256 repository this is the object id itself.
#[must_use]
pub fn git_object_sha256(kind: &str, data: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(format!("{kind} {}\0", data.len()).as_bytes());
    hasher.update(data);
    hex::encode(hasher.finalize())
}

/// Whether `s` is a lowercase hex sha256 (64 characters of `0-9a-f`).
#[must_use]
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_input_has_the_well_known_digest() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert!(is_sha256_hex(&sha256_hex(b"x")));
        assert!(!is_sha256_hex("E3B0"));
        let mut reader = Sha256Reader::new(&b"abc"[..]);
        std::io::copy(&mut reader, &mut std::io::sink()).unwrap();
        assert_eq!(reader.hex(), sha256_hex(b"abc"));
    }

    #[test]
    fn a_git_object_is_hashed_with_its_header_as_git_does() {
        // `printf hello | git hash-object --stdin` in a repository made with `--object-format=sha256`
        assert_eq!(
            git_object_sha256("blob", b"hello"),
            "8aec4e4876f854f688d0ebfc8f37598f38e5fd6903cccc850ca36591175aeb60"
        );
    }
}
