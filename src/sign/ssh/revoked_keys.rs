//! A revoked-keys list (`--revoked FILE`): one public key per line, `#` comments and blank lines
//! allowed. OpenSSH's binary KRL format is recognised and refused with a clear message.

use std::path::{Path, PathBuf};

use ssh_key::{PublicKey, public::KeyData};

use super::sshsig::{DecodeError, is_certificate_line, read_certificate_line};

/// The first bytes of an OpenSSH key revocation list (KRL).
const KRL_MAGIC: &[u8] = b"SSHKRL\n\0";

/// A set of revoked public keys, from one file or more; a certificate line revokes the key it
/// certifies.
#[derive(Clone, Debug, Default)]
pub struct RevokedKeys {
    /// The files they came from (none for the empty default), named in messages.
    pub files: Vec<PathBuf>,
    /// The revoked keys, in file order, each with the index in `files` of the file listing it.
    pub keys: Vec<(KeyData, usize)>,
}

/// Why a revoked-keys file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RevokedKeysError {
    /// The file could not be read.
    #[error("cannot read the revoked-keys file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The file is a binary KRL.
    #[error("{}: KRL not supported, use a plain list: one public key per line, as in a .pub file", path.display())]
    Krl {
        /// The file.
        path: PathBuf,
    },
    /// One line is not a public key.
    #[error("{}:{line}: {reason}; each line must be one public key as in a .pub file (or a # comment)", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: LineProblem,
    },
}

/// The largest revoked-keys file read (a key list or a KRL).
pub const MAX_BYTES: u64 = 16 << 20;

impl RevokedKeys {
    /// Reads and parses the file at `path`: a regular file of at most [`MAX_BYTES`] (a link to
    /// one is followed), never blocking on a FIFO or a device.
    pub fn read(path: &Path) -> Result<Self, RevokedKeysError> {
        let bytes = crate::input::read_regular_through_links(path, MAX_BYTES)
            .map_err(|e| RevokedKeysError::Read { path: path.to_owned(), source: e.into_io() })?;
        Self::parse(&bytes, path)
    }

    /// Parses file content; `path` only names the file in messages.
    pub fn parse(content: &[u8], path: &Path) -> Result<Self, RevokedKeysError> {
        if content.starts_with(KRL_MAGIC) {
            return Err(RevokedKeysError::Krl { path: path.to_owned() });
        }
        let mut keys = Vec::new();
        for (index, raw) in content.split(|&b| b == b'\n').enumerate() {
            let fail = |reason: LineProblem| RevokedKeysError::Line {
                path: path.to_owned(),
                line: index + 1,
                reason,
            };
            let text = std::str::from_utf8(raw)
                .map_err(|_| fail(LineProblem::NotUtf8))?
                .trim_matches(|c: char| c.is_ascii_whitespace());
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            keys.push((parse_key(text).map_err(fail)?, 0));
        }
        Ok(Self { files: vec![path.to_owned()], keys })
    }

    /// The file that lists `key` as revoked; `None` when none does.
    #[must_use]
    pub fn listing(&self, key: &KeyData) -> Option<&Path> {
        let (_, file) = self.keys.iter().find(|(k, _)| k == key)?;
        self.files.get(*file).map(PathBuf::as_path)
    }

    /// Whether `key` is listed.
    #[must_use]
    pub fn contains(&self, key: &KeyData) -> bool {
        self.listing(key).is_some()
    }

    /// Adds the keys `other` revokes: a key revoked by either set is revoked.
    pub fn extend(&mut self, other: RevokedKeys) {
        let base = self.files.len();
        self.files.extend(other.files);
        self.keys.extend(other.keys.into_iter().map(|(key, file)| (key, base + file)));
    }

    /// The revoked keys as a plain list, one OpenSSH public key per line, as `ssh-keygen -Y
    /// verify -r` reads it.
    #[must_use]
    pub fn to_list(&self) -> String {
        self.keys
            .iter()
            .filter_map(|(key, _)| PublicKey::from(key.clone()).to_openssh().ok())
            .map(|line| format!("{line}\n"))
            .collect()
    }
}

fn parse_key(text: &str) -> Result<KeyData, LineProblem> {
    if is_certificate_line(text) {
        let (cert, _) = read_certificate_line(text).map_err(|e| match e {
            DecodeError::Malformed(reason) | DecodeError::Unsupported(reason) => {
                LineProblem::Certificate(reason)
            }
        })?;
        return Ok(cert.cert.public_key().clone());
    }
    let key = PublicKey::from_openssh(text).map_err(LineProblem::Key)?;
    if let KeyData::Other(_) = key.key_data() {
        return Err(LineProblem::UnknownType(key.algorithm().as_str().to_owned()));
    }
    Ok(key.key_data().clone())
}

/// What is wrong with a line of a revoked-keys file.
#[derive(Debug, thiserror::Error)]
pub enum LineProblem {
    /// The line is not UTF-8.
    #[error("the line is not UTF-8 text")]
    NotUtf8,
    /// A certificate line that does not decode: why.
    #[error("the certificate cannot be read ({0})")]
    Certificate(String),
    /// A public key line that does not decode.
    #[error("the public key cannot be read ({0})")]
    Key(ssh_key::Error),
    /// A key of a type ssh-key does not know.
    #[error("`{0}` is not a known key type")]
    UnknownType(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM1F1IGYRsN7+kLL4bWpeHeS4XOi9t/MahTtaUesxggT";

    #[test]
    fn a_plain_list_with_comments_and_blanks_is_read() {
        let r = RevokedKeys::parse(format!("# gone\n\n{KEY} old laptop\n").as_bytes(), Path::new("rev"))
            .expect("parses");
        assert_eq!(r.keys.len(), 1);
        assert!(r.contains(PublicKey::from_openssh(KEY).expect("key").key_data()));
    }

    #[test]
    fn a_krl_is_refused_with_advice() {
        let err = RevokedKeys::parse(b"SSHKRL\n\0\0\0\0\x01", Path::new("keys.krl")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "keys.krl: KRL not supported, use a plain list: one public key per line, as in a .pub file"
        );
    }

    /// A certificate revokes the key it certifies, one valid forever (the default of
    /// `ssh-keygen -s`) too.
    #[test]
    fn a_certificate_valid_forever_revokes_its_key() {
        use crate::sign::ssh::test_support::{certify, keygen, public_line};
        let dir = tempfile::tempdir().unwrap();
        let (ca, ada) = (keygen(dir.path(), "ca", "ed25519"), keygen(dir.path(), "ada", "ed25519"));
        let cert = std::fs::read(certify(&ca, &ada, "ada-id", "ada@example.com", &[])).unwrap();
        let r = RevokedKeys::parse(&cert, Path::new("rev")).expect("a certificate line is read");
        assert!(r.contains(PublicKey::from_openssh(&public_line(&ada)).unwrap().key_data()));
    }

    #[test]
    fn a_bad_line_is_named_by_file_and_line() {
        let err = RevokedKeys::parse(format!("{KEY}\nnot a key\n").as_bytes(), Path::new("rev")).unwrap_err();
        assert!(err.to_string().starts_with("rev:2: the public key cannot be read"), "{err}");
    }
}
