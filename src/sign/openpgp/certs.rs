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
use sequoia_openpgp::parse::{PacketParser, PacketParserEOF, PacketParserResult, Parse};
use sequoia_openpgp::{Cert, Fingerprint, Packet};

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
    /// The file holds more packets than any trust file needs.
    #[error("{} holds more than {limit} OpenPGP packets (keys, user IDs and signatures together), more than any trust file needs, so it is refused; keep only what verification needs, each signer's minimal certificate: `gpg --export-options export-minimal --export --armor <fingerprint>… > {}`", path.display(), path.display())]
    TooManyPackets {
        /// The file.
        path: PathBuf,
        /// [`MAX_PACKETS`].
        limit: usize,
    },
    /// A certificate has more user IDs and subkeys than any real one.
    #[error("{}: the certificate {fingerprint} has {count} user IDs, user attributes and subkeys, more than the {limit} any real certificate has, so the file is refused; export it again from gpg, which leaves out what its key never signed: `gpg --export-options export-minimal --export --armor {fingerprint}`", path.display())]
    TooManyComponents {
        /// The file.
        path: PathBuf,
        /// The certificate's primary key fingerprint.
        fingerprint: String,
        /// Its user IDs, user attributes and subkeys.
        count: usize,
        /// [`MAX_COMPONENTS`].
        limit: usize,
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

/// The most OpenPGP packets a certificates file or a key file may hold. sequoia keeps a parsed
/// packet in many times its size on the wire, so [`MAX_BYTES`] alone would let a flooded
/// certificate (one key with hundreds of thousands of third-party certifications or user IDs, as
/// keyservers have served) take gigabytes. A real trust file (a team's certificates, each with its
/// user IDs, subkeys and at most a few hundred certifications) holds far fewer.
pub const MAX_PACKETS: usize = 10_000;

/// The most user IDs, user attributes and subkeys one certificate may have. The time to check a
/// signature grows with the square of its certificate's user IDs (sequoia validates each against
/// the others), and anyone can append user IDs and subkeys the key never bound to a certificate a
/// keyserver serves. A real certificate has a few of each, a few dozen after years of new
/// addresses and rotated subkeys.
pub const MAX_COMPONENTS: usize = 100;

/// The user IDs, user attributes and subkeys of `cert`, when there are more than
/// [`MAX_COMPONENTS`].
pub(super) fn too_many_components(cert: &Cert) -> Option<usize> {
    let count = cert.userids().count() + cert.user_attributes().count() + cert.keys().subkeys().count();
    (count > MAX_COMPONENTS).then_some(count)
}

/// Why [`read_certs`] stopped.
#[derive(Debug)]
pub(super) enum ReadCertsError {
    /// More than [`MAX_PACKETS`] packets.
    TooManyPackets,
    /// sequoia's reason the bytes are not certificates.
    NotOpenPgp(String),
}

/// The marker error [`LimitedPackets`] ends with, told apart from sequoia's own by its type.
#[derive(Debug, thiserror::Error)]
#[error("more than {MAX_PACKETS} OpenPGP packets")]
struct PacketLimit;

/// The certificates (or secret keys) in `bytes`, binary or armored (several armor blocks may
/// follow each other), as sequoia's [`CertParser`] reads them, from at most [`MAX_PACKETS`]
/// packets: one more ends the reading with [`ReadCertsError::TooManyPackets`] before it is kept.
///
/// # Errors
/// The bytes do not start as OpenPGP data.
pub(super) fn read_certs(
    bytes: &[u8],
) -> Result<impl Iterator<Item = Result<Cert, ReadCertsError>> + '_, ReadCertsError> {
    let next = match PacketParser::from_bytes(bytes) {
        Ok(first @ PacketParserResult::Some(_)) => Some(first),
        // As CertParser: input without a first packet has no further block either.
        Ok(PacketParserResult::EOF(_)) => None,
        Err(e) => return Err(ReadCertsError::NotOpenPgp(e.to_string())),
    };
    Ok(CertParser::from_iter(LimitedPackets { next, count: 0 }).map(|cert| {
        cert.map_err(|e| match e.downcast_ref::<PacketLimit>() {
            Some(PacketLimit) => ReadCertsError::TooManyPackets,
            None => ReadCertsError::NotOpenPgp(e.to_string()),
        })
    }))
}

/// The packets of an OpenPGP byte stream as [`CertParser::from_bytes`] reads them (the content of
/// unknown packets kept; after an armor block, the next one), counted: the packet after the
/// [`MAX_PACKETS`]th is a [`PacketLimit`] error, and nothing after it is read.
struct LimitedPackets<'a> {
    /// Where the next packet comes from: a parser on it, or the end of the last armor block.
    next: Option<PacketParserResult<'a>>,
    count: usize,
}

impl Iterator for LimitedPackets<'_> {
    type Item = sequoia_openpgp::Result<Packet>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut pp = match self.next.take()? {
            PacketParserResult::Some(pp) => pp,
            PacketParserResult::EOF(eof) => match next_block(eof)? {
                Ok(PacketParserResult::Some(pp)) => pp,
                Ok(PacketParserResult::EOF(_)) => return None,
                Err(e) => return Some(Err(e)),
            },
        };
        self.count += 1;
        if self.count > MAX_PACKETS {
            return Some(Err(PacketLimit.into()));
        }
        if let Packet::Unknown(_) = pp.packet {
            // As CertParser does: an unknown packet may be a signature it cannot read, kept whole.
            if let Err(e) = pp.buffer_unread_content() {
                return Some(Err(e));
            }
        }
        match pp.next() {
            Ok((packet, next)) => {
                self.next = Some(next);
                Some(Ok(packet))
            }
            Err(e) => Some(Err(e)),
        }
    }
}

/// A parser on what follows the armor block (or binary stream) that just ended, as `CertParser`
/// looks for the next block; `None` at the end of the input.
fn next_block(eof: PacketParserEOF<'_>) -> Option<sequoia_openpgp::Result<PacketParserResult<'_>>> {
    match PacketParser::from_buffered_reader(eof.into_reader()) {
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::UnexpectedEof) =>
        {
            None
        }
        other => Some(other),
    }
}

impl OpenPgpCerts {
    /// Reads the certificates in the file at `path`: a regular file of at most [`MAX_BYTES`] (a
    /// link to one is followed), never blocking on a FIFO or a device.
    pub fn read(path: &Path) -> Result<Self, OpenPgpCertsError> {
        let bytes = crate::input::read_regular_through_links(path, MAX_BYTES)
            .map_err(|e| OpenPgpCertsError::Unreadable { path: path.to_owned(), source: e.into_io() })?;
        Self::parse(&bytes, path)
    }

    /// Parses certificates from `bytes` (at most [`MAX_PACKETS`] packets); `path` names their
    /// origin in messages. Copies of one certificate are merged (sequoia's
    /// [`Cert::merge_public`]), kept at the place of the first.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Self, OpenPgpCertsError> {
        let not_openpgp = |reason: String| OpenPgpCertsError::NotOpenPgp { path: path.to_owned(), reason };
        let too_many = || OpenPgpCertsError::TooManyPackets { path: path.to_owned(), limit: MAX_PACKETS };
        let parser = read_certs(bytes).map_err(|e| match e {
            ReadCertsError::TooManyPackets => too_many(),
            ReadCertsError::NotOpenPgp(reason) => not_openpgp(reason),
        })?;
        let mut certs: Vec<Cert> = Vec::new();
        let mut index: HashMap<Fingerprint, usize> = HashMap::new();
        for (n, cert) in parser.enumerate() {
            let cert = cert.map_err(|e| match e {
                ReadCertsError::TooManyPackets => too_many(),
                ReadCertsError::NotOpenPgp(e) => {
                    not_openpgp(format!("certificate #{} does not parse: {e}", n + 1))
                }
            })?;
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
        // Checked once copies are merged: copies may each add some.
        for cert in &certs {
            if let Some(count) = too_many_components(cert) {
                return Err(OpenPgpCertsError::TooManyComponents {
                    path: path.to_owned(),
                    fingerprint: cert.fingerprint().to_hex(),
                    count,
                    limit: MAX_COMPONENTS,
                });
            }
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

    /// The user ids of the certificates, as written, each once.
    #[must_use]
    pub fn user_ids(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for uid in self.certs.iter().flat_map(Cert::userids) {
            let text = String::from_utf8_lossy(uid.userid().value()).into_owned();
            if !out.contains(&text) {
                out.push(text);
            }
        }
        out
    }

    /// The certificates themselves.
    pub(crate) fn certs(&self) -> &[Cert] {
        &self.certs
    }
}
