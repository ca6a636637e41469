//! The OpenPGP certificates a verifier trusts: one file holding one or more certificates, armored
//! (several armor blocks may follow each other) or binary, as `gpg --export` writes them.
//!
//! Copies of one certificate (the same primary key fingerprint), such as an older export and a
//! newer one appended after the key was revoked, are merged into one before any signature is
//! checked, as sqv and gpg do: a revocation, a newer self-signature (e.g. one that sets an
//! expiry) or a subkey revocation in any copy applies.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};

use sequoia_openpgp::cert::CertParser;
use sequoia_openpgp::parse::Parse;
use sequoia_openpgp::{Cert, Fingerprint};

/// The trusted certificates, secret key material removed, one per primary key fingerprint (copies
/// merged); never empty.
#[derive(Clone, Debug)]
pub struct OpenPgpCerts {
    certs: Vec<Cert>,
    path: PathBuf,
}

/// Why a certificate file cannot be used as the trusted set.
#[derive(Debug, thiserror::Error)]
pub enum OpenPgpCertsError {
    /// The file could not be read.
    #[error("cannot read the OpenPGP certificates {}: {source}; check the path of the trusted keyring", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The file is not an OpenPGP keyring.
    #[error("{} is not an OpenPGP certificate or keyring ({reason}); export the trusted keys with `gpg --export --armor <fingerprint> > {}`", path.display(), path.display())]
    NotOpenPgp {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The file holds no certificate at all.
    #[error("{} holds no OpenPGP certificate; export the trusted keys with `gpg --export --armor <fingerprint> > {}`", path.display(), path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// The largest certificates file read: a keyring export of many certificates, photos included.
pub const MAX_BYTES: u64 = 64 << 20;

impl OpenPgpCerts {
    /// Reads the certificates in the file at `path`: a regular file of at most [`MAX_BYTES`] (a
    /// link to one is followed), never blocking on a FIFO or a device.
    pub fn read(path: &Path) -> Result<Self, OpenPgpCertsError> {
        let bytes = crate::input::read_regular_through_links(path, MAX_BYTES)
            .map_err(|e| OpenPgpCertsError::Unreadable { path: path.to_owned(), source: e.into_io() })?;
        Self::parse(&bytes, path)
    }

    /// Parses certificates from `bytes`; `path` names their origin in messages. Copies of one
    /// certificate are merged (sequoia's [`Cert::merge_public`]), kept at the place of the first.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Self, OpenPgpCertsError> {
        let not_openpgp = |reason: String| OpenPgpCertsError::NotOpenPgp { path: path.to_owned(), reason };
        let parser = CertParser::from_bytes(bytes).map_err(|e| not_openpgp(e.to_string()))?;
        let mut certs: Vec<Cert> = Vec::new();
        let mut index: HashMap<Fingerprint, usize> = HashMap::new();
        for (n, cert) in parser.enumerate() {
            let cert =
                cert.map_err(|e| not_openpgp(format!("certificate #{} does not parse: {e}", n + 1)))?;
            let cert = cert.strip_secret_key_material();
            match index.entry(cert.fingerprint()) {
                Entry::Occupied(at) => {
                    // The index holds only positions in `certs`.
                    let Some(first) = certs.get_mut(*at.get()) else { continue };
                    let merged = first.clone().merge_public(cert).map_err(|e| {
                        not_openpgp(format!(
                            "certificate #{} cannot be merged with an earlier copy of {}: {e}",
                            n + 1,
                            at.key().to_hex()
                        ))
                    })?;
                    *first = merged;
                }
                Entry::Vacant(slot) => {
                    slot.insert(certs.len());
                    certs.push(cert);
                }
            }
        }
        if certs.is_empty() {
            return Err(OpenPgpCertsError::Empty { path: path.to_owned() });
        }
        Ok(Self { certs, path: path.to_owned() })
    }

    /// The file the certificates were read from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The primary key fingerprints of the certificates, uppercase hex, each once, in the order of
    /// their first copy in the file.
    #[must_use]
    pub fn fingerprints(&self) -> Vec<String> {
        self.certs.iter().map(|c| c.fingerprint().to_hex()).collect()
    }

    /// The certificates themselves.
    pub(crate) fn certs(&self) -> &[Cert] {
        &self.certs
    }
}
