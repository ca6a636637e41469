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
use std::time::SystemTime;

use sequoia_openpgp::cert::CertParser;
use sequoia_openpgp::cert::amalgamation::ValidAmalgamation as _;
use sequoia_openpgp::packet::Tag;
use sequoia_openpgp::parse::{PacketParser, PacketParserEOF, PacketParserResult, Parse};
use sequoia_openpgp::policy::{AsymmetricAlgorithm, StandardPolicy};
use sequoia_openpgp::types::{HashAlgorithm, RevocationStatus};
use sequoia_openpgp::{Cert, Fingerprint, Packet};

use crate::model::shown::shell_word;

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
    #[error("{} is not an OpenPGP certificate or keyring ({reason}); export the trusted keys with `gpg --export --armor <fingerprint> > {}`", path.display(), shell_word(&path.to_string_lossy()))]
    NotOpenPgp {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The file holds more packets than any trust file needs.
    #[error("{} holds more than {limit} OpenPGP packets (keys, user IDs and signatures together), more than any trust file needs, so it is refused; keep only what verification needs, each signer's minimal certificate: `gpg --export-options export-minimal --export --armor <fingerprint>… > {}`", path.display(), shell_word(&path.to_string_lossy()))]
    TooManyPackets {
        /// The file.
        path: PathBuf,
        /// [`MAX_PACKETS`].
        limit: usize,
    },
    /// A certificate has more user IDs and subkeys than any real one.
    #[error("{}: the certificate {fingerprint} has {count} user IDs, user attributes and subkeys, more than the {limit} any real certificate has, so the file is refused; export it again from gpg with the user ID its signer uses only (`--export-options export-minimal` alone keeps every user ID the key signed): `gpg --export-options export-minimal --export-filter keep-uid='mbox = <email>' --export --armor {fingerprint}`", path.display())]
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
    /// Bytes that are neither a certificate nor white space follow the last certificate.
    #[error("{} holds {count} bytes after its last certificate that are not OpenPGP data (sequoia would skip them, as text around an armor block); remove them, or export the trusted keys again: `gpg --export --armor <fingerprint> > {}`", path.display(), shell_word(&path.to_string_lossy()))]
    TrailingBytes {
        /// The file.
        path: PathBuf,
        /// How many bytes follow the last certificate.
        count: usize,
    },
    /// The file holds no certificate at all.
    #[error("{} holds no OpenPGP certificate; export the trusted keys with `gpg --export --armor <fingerprint> > {}`", path.display(), shell_word(&path.to_string_lossy()))]
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

/// sequoia's `StandardPolicy`, narrowed to what the format (an armored detached v4 signature) allows
/// and gpg 2.2 and sqv can check: no SHA3 hash, no key algorithm of RFC 9580 (Ed25519, Ed448, the
/// post-quantum ones; the Ed25519 of gpg is EdDSA, algorithm 22, and stays), no v6 key or signature.
/// Every OpenPGP judgement of this crate is made under it.
pub(super) fn policy() -> StandardPolicy<'static> {
    let mut policy = StandardPolicy::new();
    for hash in [HashAlgorithm::SHA3_256, HashAlgorithm::SHA3_512] {
        policy.reject_hash(hash);
    }
    for algorithm in [
        AsymmetricAlgorithm::Ed25519,
        AsymmetricAlgorithm::Ed448,
        AsymmetricAlgorithm::MLDSA65_Ed25519,
        AsymmetricAlgorithm::MLDSA87_Ed448,
        AsymmetricAlgorithm::SLHDSA128s,
        AsymmetricAlgorithm::SLHDSA128f,
        AsymmetricAlgorithm::SLHDSA256s,
    ] {
        policy.reject_asymmetric_algo(algorithm);
    }
    for tag in [Tag::Signature, Tag::OnePassSig, Tag::PublicKey, Tag::PublicSubkey] {
        policy.reject_packet_tag_version(tag, 6);
    }
    policy
}

/// The principals of `cert` for a signature made at `signed_at`: its user IDs bound by a
/// self-signature valid under [`policy`] at that time and revoked neither then nor now (a user ID
/// revocation, whatever its reason, removes the user ID for good: the signer chooses the creation
/// time, the revocation says the user ID no longer speaks for the key), lossily decoded, each once.
pub(super) fn principals(cert: &Cert, signed_at: SystemTime) -> Vec<String> {
    let revoked = revoked_at(cert, SystemTime::now().max(signed_at));
    let mut out = Vec::new();
    bound_at(cert, signed_at, &revoked, &mut out);
    out
}

/// The user IDs of `cert` revoked at `at` under [`policy`].
fn revoked_at(cert: &Cert, at: SystemTime) -> Vec<sequoia_openpgp::packet::UserID> {
    let policy = policy();
    let Ok(valid) = cert.with_policy(&policy, at) else { return Vec::new() };
    let revoked = valid.userids().filter(|u| matches!(u.revocation_status(), RevocationStatus::Revoked(_)));
    revoked.map(|u| u.userid().clone()).collect()
}

/// Adds to `out` each user ID of `cert` bound by a self-signature valid under [`policy`] at `at`,
/// revoked neither then nor in `revoked`, lossily decoded, unless `out` holds it.
fn bound_at(cert: &Cert, at: SystemTime, revoked: &[sequoia_openpgp::packet::UserID], out: &mut Vec<String>) {
    let policy = policy();
    let Ok(then) = cert.with_policy(&policy, at) else { return };
    for uid in then.userids().revoked(false) {
        let text = String::from_utf8_lossy(uid.userid().value()).into_owned();
        if !revoked.contains(uid.userid()) && !out.contains(&text) {
            out.push(text);
        }
    }
}

/// The user IDs `cert` binds at any time a signature may say it was made ([`principals`] at that
/// time): now, or when one of its user IDs' own self-signatures was made (a binding holds from
/// then on, until it expires or is replaced), each once, in the order first found.
fn ever_bound(cert: &Cert) -> Vec<String> {
    let now = SystemTime::now();
    let mut times: Vec<SystemTime> = cert
        .userids()
        .flat_map(|u| u.self_signatures())
        .filter_map(|s| s.signature_creation_time())
        .collect();
    times.push(now);
    times.sort_unstable();
    times.dedup();
    let revoked_now = revoked_at(cert, now);
    let mut out = Vec::new();
    for at in times {
        // A self-signature dated after now is judged, as `principals` judges one, by then too.
        let later = if at > now { revoked_at(cert, at) } else { Vec::new() };
        let revoked = if at > now { &later } else { &revoked_now };
        bound_at(cert, at, revoked, &mut out);
    }
    out
}

/// Why [`read_certs`] stopped.
#[derive(Debug)]
pub(super) enum ReadCertsError {
    /// More than [`MAX_PACKETS`] packets.
    TooManyPackets,
    /// sequoia's reason the bytes are not certificates.
    NotOpenPgp(String),
    /// This many bytes, neither OpenPGP data nor white space, follow the last armor block.
    TrailingBytes(usize),
}

/// The marker error [`next_block`] ends with when bytes follow the last armor block that hold
/// no other block: sequoia's armor reader skips text around armor blocks (as in a mail), so they
/// would be ignored without a word.
#[derive(Debug, thiserror::Error)]
#[error("{0} bytes after the last certificate")]
struct TrailingBytes(usize);

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
        cert.map_err(|e| {
            if let Some(TrailingBytes(count)) = e.downcast_ref::<TrailingBytes>() {
                return ReadCertsError::TrailingBytes(*count);
            }
            match e.downcast_ref::<PacketLimit>() {
                Some(PacketLimit) => ReadCertsError::TooManyPackets,
                None => ReadCertsError::NotOpenPgp(e.to_string()),
            }
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
/// looks for the next block; `None` at the end of the input or where only white space is left,
/// and a [`TrailingBytes`] error where other bytes are left that hold no further block.
fn next_block(eof: PacketParserEOF<'_>) -> Option<sequoia_openpgp::Result<PacketParserResult<'_>>> {
    use sequoia_openpgp::parse::buffered_reader::BufferedReader as _;
    let mut rest = eof.into_reader();
    // The input is in memory (at most `MAX_BYTES`): what is left is looked at whole.
    let left = match rest.data_eof() {
        Ok(left) if left.iter().all(u8::is_ascii_whitespace) => return None,
        Ok(left) => left.iter().skip_while(|b| b.is_ascii_whitespace()).count(),
        Err(e) => return Some(Err(e.into())),
    };
    match PacketParser::from_buffered_reader(rest) {
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::UnexpectedEof) =>
        {
            Some(Err(TrailingBytes(left).into()))
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
            ReadCertsError::TrailingBytes(count) => {
                OpenPgpCertsError::TrailingBytes { path: path.to_owned(), count }
            }
            ReadCertsError::NotOpenPgp(reason) => not_openpgp(reason),
        })?;
        let mut certs: Vec<Cert> = Vec::new();
        let mut index: HashMap<Fingerprint, usize> = HashMap::new();
        for (n, cert) in parser.enumerate() {
            let cert = cert.map_err(|e| match e {
                ReadCertsError::TooManyPackets => too_many(),
                ReadCertsError::TrailingBytes(count) => {
                    OpenPgpCertsError::TrailingBytes { path: path.to_owned(), count }
                }
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

    /// The one certificate `cert` (a secret key's, its secret material removed), read from
    /// `path`.
    pub(super) fn of(cert: &Cert, path: &Path) -> Self {
        Self { certs: vec![cert.clone().strip_secret_key_material()], path: path.to_owned() }
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

    /// The principals of the certificates now ([`principals`]: the user IDs each validly binds
    /// and has not revoked), as written, each once.
    #[must_use]
    pub fn user_ids(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for uid in self.certs.iter().flat_map(|c| principals(c, SystemTime::now())) {
            if !out.contains(&uid) {
                out.push(uid);
            }
        }
        out
    }

    /// Each certificate's primary key fingerprint and the user IDs it binds at any time a
    /// signature may say it was made: now, or when one of its user IDs' self-signatures was made
    /// (what [`principals`] gives at that time). A signature's time is its signer's to choose, so
    /// whether a name is bound by one certificate only is asked over all of them.
    #[must_use]
    pub fn bindings(&self) -> Vec<(String, Vec<String>)> {
        self.certs.iter().map(|c| (c.fingerprint().to_hex(), ever_bound(c))).collect()
    }

    /// The certificate holding a key (primary or subkey) whose key id is one of `key_ids`
    /// (uppercase hex, as [`super::issuer_key_ids`] reads them from a signature): its primary key
    /// fingerprint and principals now ([`principals`]). The signature is not verified: it says
    /// whose key a signature claims.
    #[must_use]
    pub fn holder_of(&self, key_ids: &[String]) -> Option<(String, Vec<String>)> {
        let cert = self.certs.iter().find(|c| {
            c.keys().any(|k| key_ids.iter().any(|id| k.key().keyid().to_hex().eq_ignore_ascii_case(id)))
        })?;
        Some((cert.fingerprint().to_hex(), principals(cert, SystemTime::now())))
    }

    /// The certificate whose primary key fingerprint is `fingerprint` (hex, any case).
    pub(crate) fn by_fingerprint(&self, fingerprint: &str) -> Option<&Cert> {
        self.certs.iter().find(|c| c.fingerprint().to_hex().eq_ignore_ascii_case(fingerprint))
    }

    /// The certificates themselves.
    pub(crate) fn certs(&self) -> &[Cert] {
        &self.certs
    }
}

#[cfg(test)]
mod tests {
    use sequoia_openpgp::Cert;
    use sequoia_openpgp::parse::Parse;
    use sequoia_openpgp::serialize::SerializeInto;

    use super::*;
    use crate::sign::openpgp::signature::parse_armored;
    use crate::sign::openpgp::test_support::*;
    use crate::sign::openpgp::*;

    #[test]
    fn copies_of_one_certificate_in_the_keyring_are_merged_so_a_newer_copys_revocation_or_expiry_applies() {
        let gpg = GnuPg::new();

        // A certificate revoked after the older copy was exported.
        let rv = gpg.gen_key("Rv <rv@example.com>", "sign", "1y", None);
        let rv_sig = gpg.sign(&rv, PAE, &[]);
        let rv_old = gpg.export(&[&rv]);
        gpg.import(&gpg.revocation(&rv));
        let rv_new = gpg.export(&[&rv]);

        // A certificate whose newer self-signature set an expiry that has passed since.
        let ex = gpg.gen_key("Ex <ex@example.com>", "sign", "0", Some("20200101T000000"));
        let ex_sig = gpg.sign(&ex, PAE, &[]);
        let ex_old = gpg.export(&[&ex]);
        gpg.ok(&["--faked-system-time", "20200201T000000", "--quick-set-expire", &ex, "1d"], None);
        let ex_new = gpg.export(&[&ex]);

        // A certificate whose signing subkey was revoked after the older copy was exported.
        let sk = gpg.gen_key("Sk <sk@example.com>", "cert", "0", None);
        let sk_sub = gpg.add_subkey(&sk, "sign");
        let sk_sig = gpg.sign(&sk, PAE, &[]);
        assert_eq!(parse_armored(&sk_sig).expect("detached").sig.get_issuers()[0].to_hex(), sk_sub);
        let sk_old = gpg.export(&[&sk]);
        gpg.revoke_first_subkey(&sk);
        let sk_new = gpg.export(&[&sk]);

        let cases = [
            ("revoked certificate", &rv, &rv_sig, &rv_old, &rv_new, "revoked"),
            ("expired by a newer self-signature", &ex, &ex_sig, &ex_old, &ex_new, "expired"),
            ("revoked signing subkey", &sk, &sk_sig, &sk_old, &sk_new, "revoked"),
        ];
        for (name, fpr, sig, old, new, expected) in cases {
            assert_eq!(agreed_outcome(&gpg, "old.asc", old, sig), "ok", "{name}: the older copy alone");
            assert_eq!(agreed_outcome(&gpg, "new.asc", new, sig), expected, "{name}: the newer copy alone");
            for (order, ring) in
                [("older first", [&old[..], new].concat()), ("newer first", [&new[..], old].concat())]
            {
                assert_eq!(agreed_outcome(&gpg, "ring.asc", &ring, sig), expected, "{name}, {order}");
                let (_, certs) = trust(&gpg, "ring.asc", &ring);
                assert_eq!(certs.fingerprints(), vec![fpr.clone()], "{name}, {order}: one certificate");
            }
            // Binary copies, as `gpg --export` without --armor writes them, merge the same way.
            let binary = [dearmor(old), dearmor(new)].concat();
            assert_eq!(agreed_outcome(&gpg, "ring.gpg", &binary, sig), expected, "{name}, binary");
        }
    }

    #[test]
    fn different_certificates_in_one_keyring_are_each_trusted_and_a_repeated_one_is_listed_once() {
        let gpg = GnuPg::new();
        let alice = gpg.gen_key("Alice <alice@example.com>", "sign", "0", None);
        let bob = gpg.gen_key("Bob <bob@example.com>", "sign", "0", None);
        let ring = [gpg.export(&[&alice]), gpg.export(&[&bob]), gpg.export(&[&alice])].concat();
        let (_, certs) = trust(&gpg, "ring.asc", &ring);
        assert_eq!(certs.fingerprints(), vec![alice.clone(), bob.clone()]);
        for who in [&alice, &bob] {
            let sig = gpg.sign(who, PAE, &[]);
            assert_eq!(agreed_outcome(&gpg, "ring.asc", &ring, &sig), "ok", "{who}");
            assert_eq!(&verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, who);
        }
    }

    /// `count` distinct user ID packets without a binding signature, binary, as anyone can append
    /// them to a certificate a keyserver serves.
    fn user_id_flood(count: usize) -> Vec<u8> {
        use sequoia_openpgp::Packet;
        use sequoia_openpgp::packet::UserID;
        (0..count)
            .flat_map(|n| Packet::from(UserID::from(format!("flood {n}"))).to_vec().expect("serializes"))
            .collect()
    }

    /// `count` copies of `sig`, binary, as a certificate flooded with certifications carries them.
    fn signature_flood(sig: &sequoia_openpgp::packet::Signature, count: usize) -> Vec<u8> {
        let one = sequoia_openpgp::Packet::from(sig.clone()).to_vec().expect("serializes");
        one.repeat(count)
    }

    /// A real certificate (several user IDs, a signing subkey, certifications by two other keys) and
    /// a keyring of several read as before. A certificate flooded to one packet past
    /// [`MAX_PACKETS`], or to more than [`MAX_COMPONENTS`] user IDs and subkeys, is refused, as a
    /// trust file and as a key file, naming the file, the limit and the minimal export; one at each
    /// limit still reads and checks signatures.
    #[test]
    fn a_certificate_past_the_packet_or_component_limit_is_refused_naming_the_file_and_real_ones_still_read()
    {
        let gpg = GnuPg::new();
        let ann = gpg.gen_key("Ann <ann@example.com>", "cert", "0", None);
        gpg.ok(&["--quick-add-uid", &ann, "Ann Work <ann@work.example>"], None);
        gpg.ok(&["--quick-add-uid", &ann, "Ann Home <ann@home.example>"], None);
        gpg.add_subkey(&ann, "sign");
        for who in ["Cy <cy@example.com>", "Di <di@example.com>"] {
            let certifier = gpg.gen_key(who, "sign", "0", None);
            gpg.ok(&["--default-key", &certifier, "--quick-sign-key", &ann], None);
        }
        let ann_cert = gpg.export(&[&ann]);
        let ring = [ann_cert.clone(), gpg.export(&["cy@example.com", "di@example.com"])].concat();
        let (_, certs) = trust(&gpg, "ring.asc", &ring);
        assert_eq!(certs.fingerprints().len(), 3);
        let sig = gpg.sign(&ann, PAE, &[]);
        assert_eq!(agreed_outcome(&gpg, "ann.asc", &ann_cert, &sig), "ok");

        // Ann's binary export: her key, three user IDs, a subkey and their signatures.
        let own = dearmor(&ann_cert);
        let own_packets = sequoia_openpgp::PacketPile::from_bytes(&own).expect("parses").children().count();
        let parsed = Cert::from_bytes(&own).expect("parses");
        let certification =
            parsed.userids().flat_map(|u| u.certifications()).next().expect("certified").clone();
        let own_components = parsed.userids().count() + parsed.keys().subkeys().count();
        assert_eq!(own_components, 4);

        let at_limit = [own.clone(), signature_flood(&certification, MAX_PACKETS - own_packets)].concat();
        let (_, certs) = trust(&gpg, "at-limit.gpg", &at_limit);
        assert_eq!(&verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, &ann);
        let flooded = [own.clone(), signature_flood(&certification, MAX_PACKETS - own_packets + 1)].concat();
        let path = gpg.write("flooded.gpg", &flooded);
        let err = OpenPgpCerts::read(&path).unwrap_err();
        assert!(matches!(err, OpenPgpCertsError::TooManyPackets { limit: MAX_PACKETS, .. }), "{err}");
        let err = err.to_string();
        assert!(
            err.starts_with(&format!("{} holds more than {MAX_PACKETS} OpenPGP packets", path.display())),
            "{err}"
        );
        assert!(err.contains("gpg --export-options export-minimal --export"), "{err}");

        let at_limit = [own.clone(), user_id_flood(MAX_COMPONENTS - own_components)].concat();
        let (_, certs) = trust(&gpg, "at-limit.gpg", &at_limit);
        assert_eq!(&verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, &ann);
        let flooded = [own, user_id_flood(MAX_COMPONENTS - own_components + 1)].concat();
        let path = gpg.write("flooded.gpg", &flooded);
        let err = OpenPgpCerts::read(&path).unwrap_err();
        assert!(
            matches!(err, OpenPgpCertsError::TooManyComponents { count, limit: MAX_COMPONENTS, .. } if count == MAX_COMPONENTS + 1),
            "{err}"
        );
        let err = err.to_string();
        assert!(
            err.starts_with(&format!("{}: the certificate {ann} has 101 user IDs", path.display())),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "gpg --export-options export-minimal --export-filter keep-uid='mbox = <email>' --export --armor {ann}"
            )),
            "{err}"
        );

        let secret = dearmor(&gpg.export_secret(&ann, true));
        for (flood, says) in [
            (
                signature_flood(&certification, MAX_PACKETS),
                format!("more than {MAX_PACKETS} OpenPGP packets"),
            ),
            (user_id_flood(MAX_COMPONENTS), format!("more than the {MAX_COMPONENTS} any real key has")),
        ] {
            let key_file = gpg.write("flooded.sec.gpg", &[secret.clone(), flood].concat());
            let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
            assert!(err.starts_with(&format!("{} is not a usable OpenPGP key", key_file.display())), "{err}");
            assert!(err.contains(&says) && err.contains("--export-options export-minimal"), "{err}");
        }
    }

    #[test]
    fn bytes_after_the_last_armored_certificate_or_key_are_refused_naming_the_file_and_white_space_is_not() {
        let gpg = GnuPg::new();
        let fpr = gpg.gen_key("Tj <tj@example.com>", "sign", "1y", None);
        let (public, secret) = (gpg.export(&[&fpr]), gpg.export_secret(&fpr, true));
        let path = Path::new("certs.asc");
        for junk in [&b"\0"[..], b"\xff\xfe\x80\n", b"\n\nhello\n"] {
            let bytes = [&public[..], junk].concat();
            let count = junk.iter().skip_while(|b| b.is_ascii_whitespace()).count();
            match OpenPgpCerts::parse(&bytes, path) {
                Err(OpenPgpCertsError::TrailingBytes { count: c, .. }) => assert_eq!(c, count, "{junk:?}"),
                other => panic!("{junk:?}: {:?}", other.map(|c| c.fingerprints())),
            }
            let err = single_cert_of(&[&secret[..], junk].concat()).expect_err("junk after a key");
            assert!(err.contains(&format!("it holds {count} bytes after its key")), "{err}");
        }
        let spaced = [&public[..], b"\n \t\r\n", &public[..], b"\n\n"].concat();
        assert_eq!(OpenPgpCerts::parse(&spaced, path).unwrap().fingerprints(), [fpr]);
    }

    /// The error of reading `bytes` as a signing key file, as text.
    fn single_cert_of(bytes: &[u8]) -> Result<(), String> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("key.asc");
        std::fs::write(&file, bytes).unwrap();
        OpenPgpSigner::from_key_file_with_passphrase(&file, None).map(|_| ()).map_err(|e| e.to_string())
    }

    #[test]
    fn a_user_id_the_certificate_revoked_or_never_bound_is_no_principal_whenever_the_signature_says_it_was_made()
     {
        let gpg = GnuPg::new();
        let ada = gpg.gen_key("Ada <ada@example.com>", "sign", "0", Some("20240101T000000"));
        let corp = "Ada <ada@corp.example>";
        gpg.ok(&["--faked-system-time", "20240101T000100", "--quick-add-uid", &ada, corp], None);
        gpg.ok(&["--faked-system-time", "20250101T000000", "--quick-revoke-uid", &ada, corp], None);
        // Dated before the revocation: the signer chooses that date.
        let sig = gpg.sign(&ada, PAE, &["--faked-system-time", "20240601T000000"]);
        let boss = gpg.gen_key("Boss <boss@example.com>", "sign", "0", None);
        // Boss's user ID and Boss's self-signature appended to Ada's certificate, as anyone can.
        let boss_cert = Cert::from_bytes(&gpg.export(&[&boss])).expect("parses");
        let boss_uid = boss_cert.userids().next().expect("a user id");
        let boss_sig = boss_uid.self_signatures().next().expect("self-signed").clone();
        let (forged, _) = Cert::from_bytes(&gpg.export(&[&ada]))
            .expect("parses")
            .insert_packets([Packet::from(boss_uid.userid().clone()), Packet::from(boss_sig)])
            .expect("inserted");
        assert_eq!(forged.userids().count(), 3, "the certificate carries all three user id packets");
        let (trust_path, certs) = trust(&gpg, "ring.asc", &forged.armored().to_vec().expect("armor"));

        let only_ada = vec!["Ada <ada@example.com>".to_owned()];
        assert_eq!(certs.user_ids(), only_ada, "policy init and policy check");
        assert_eq!(certs.holder_of(&[ada[24..].to_owned()]), Some((ada.clone(), only_ada.clone())));
        let verified = verify(&sig, PAE, &certs, now()).expect("verifies");
        assert_eq!(verified.user_ids, only_ada, "in-process");
        assert_eq!(Sqv::default().verify(&sig, PAE, &trust_path, now()).expect("sqv accepts"), ada);
        assert_eq!(signer_of(&sig, &certs, &ada).expect("the signer").user_ids, only_ada, "--via-tools");
    }
}
