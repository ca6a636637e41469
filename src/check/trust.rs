//! The caller's trust in signers: only what the caller gives, never what the checked tree
//! declares. Loaded here, on the floor, so that the verifier and `attest carry` (which must not
//! re-sign what its user would not accept) read it the same way.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::exit::{Class, ExitClass};
use crate::git::{Head, ObjectId, Repo};
use crate::model::shown::{bytes_shown, shell_word};
use crate::sign::OwnKey;
use crate::sign::ssh::allowed_signers::{self, AllowedSigners, AllowedSignersError};
use crate::sign::ssh::revoked_keys::{RevokedKeys, RevokedKeysError};
use crate::sign::ssh::sshsig::NAMESPACE;

/// SSH trust: an allowed-signers file and the revoked keys.
#[derive(Debug)]
pub struct SshTrust {
    /// The parsed allowed-signers file.
    pub allowed: AllowedSigners,
    /// A file holding exactly those bytes, for `ssh-keygen` (`--via-tools`).
    pub allowed_path: PathBuf,
    /// The revoked keys (empty when none were given).
    pub revoked: RevokedKeys,
    /// The revoked-keys file, for `ssh-keygen`.
    pub revoked_path: Option<PathBuf>,
    /// Where the allowed signers came from, for the report.
    pub source: String,
    /// Keeps a temporary copy (from `--allowed-signers-rev`) alive.
    _temp: Option<tempfile::TempDir>,
}

impl SshTrust {
    /// A trust whose parsed file is `allowed`, and which gives `ssh-keygen` the file at
    /// `allowed_path`: for tests where the two differ.
    #[cfg(test)]
    pub(crate) fn read_as(allowed: AllowedSigners, allowed_path: PathBuf) -> SshTrust {
        let source = allowed_path.display().to_string();
        SshTrust {
            allowed,
            allowed_path,
            revoked: RevokedKeys::default(),
            revoked_path: None,
            source,
            _temp: None,
        }
    }
}

/// Whose signatures the caller trusts, and how they are checked: what [`crate::check::signatures`]
/// needs to say whether a line's signature holds. `attest verify` adds how it reports and counts
/// ticks; `attest carry` checks the evidence it would re-sign against it.
#[derive(Debug, Default)]
pub struct SignatureTrust {
    /// SSH trust, when an allowed-signers file was given or configured.
    pub ssh: Option<SshTrust>,
    /// OpenPGP certificates the caller trusts (`--openpgp-certs`).
    pub openpgp: Option<crate::sign::openpgp::OpenPgpCerts>,
    /// Sigstore trust: the expected identity and issuer, and a trusted root (resolved when a
    /// keyless line is first checked).
    #[cfg(feature = "sigstore")]
    pub sigstore: Option<crate::sign::sigstore::SigstoreTrustSource>,
    /// Check signatures with the real tools (`ssh-keygen -Y`, `sqv`) instead of in-process.
    pub via_tools: bool,
    /// Judge the keys behind an OpenPGP signature at the time of the check too, not only at the
    /// signature's as sqv does: expired or revoked by then, for any reason, they vouch for
    /// nothing (`expired_key`, `revoked_key`). `attest carry` sets it; the verifier does not.
    pub openpgp_keys_at_check: bool,
}

impl SignatureTrust {
    /// Whether the caller trusts nobody at all: no allowed signers, no OpenPGP certificates, no
    /// Sigstore identity. No signature can hold under such a trust.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        #[cfg(feature = "sigstore")]
        if self.sigstore.is_some() {
            return false;
        }
        self.ssh.is_none() && self.openpgp.is_none()
    }

    /// A trust in one key only, the signer's own (`attest sign`): under it exactly the
    /// signatures that verify with that key hold, checked as the verifier checks any (in-process);
    /// for a keyless signer, the bundles that verify under its trusted root.
    #[must_use]
    pub fn own_key(key: &OwnKey) -> SignatureTrust {
        let origin = "the signing key";
        let mut trust = SignatureTrust::default();
        match key {
            OwnKey::Ssh { key, certificate } => {
                trust.ssh = Some(SshTrust {
                    allowed: AllowedSigners::one_key(
                        key,
                        certificate.as_deref(),
                        NAMESPACE,
                        Path::new(origin),
                    ),
                    allowed_path: PathBuf::from(origin),
                    revoked: RevokedKeys::default(),
                    revoked_path: None,
                    source: origin.to_owned(),
                    _temp: None,
                });
            }
            OwnKey::OpenPgp(certs) => trust.openpgp = Some(certs.clone()),
            #[cfg(feature = "sigstore")]
            OwnKey::Sigstore(keyless) => {
                trust.sigstore = Some(crate::sign::sigstore::SigstoreTrustSource::given(keyless.clone()));
            }
        }
        trust
    }

    /// What a report should warn of: an allowed-signers time without `Z` (read in this
    /// machine's time zone), a Sigstore root older than wanted, used because the refresh failed.
    #[must_use]
    pub fn warnings(&self) -> Vec<String> {
        #[allow(unused_mut, reason = "a build without Sigstore adds nothing to it")]
        let mut warnings: Vec<String> = self.ssh.iter().flat_map(|ssh| ssh.allowed.notes()).collect();
        #[cfg(feature = "sigstore")]
        if let Some(w) = self.sigstore.as_ref().and_then(|s| s.warning()) {
            warnings.push(w.to_owned());
        }
        warnings
    }

    /// Why the trust failed while checking (a Sigstore root that could not be had): then a run
    /// has no verdict.
    #[must_use]
    pub fn failure(&self) -> Option<TrustFailure> {
        #[cfg(feature = "sigstore")]
        if let Some(failure) = self.sigstore.as_ref().and_then(|s| s.failure()) {
            return Some(failure);
        }
        None
    }
}

/// Why a trust failed while checking: the Sigstore trusted root that could not be had (shared by
/// the trust, which keeps it, and the run that fails on it).
#[cfg(feature = "sigstore")]
pub type TrustFailure = std::sync::Arc<crate::sign::sigstore::TrustedRootError>;
/// Why a trust failed while checking: never, in a build without Sigstore.
#[cfg(not(feature = "sigstore"))]
pub type TrustFailure = std::convert::Infallible;

/// The form `--allowed-signers-rev` takes, with an example naming the base in full (a short
/// `origin/main` is ambiguous where a tag of that name exists).
pub const REV_PATH_FORM: &str = "REV:PATH (e.g. refs/remotes/origin/main:.github/allowed_signers)";

/// `spec` as `--allowed-signers-rev` takes it: a revision and a path, both non-empty, split at the
/// first `:`, the path one a tree can hold (relative, without an empty, `.` or `..` part); `None`
/// for anything else.
#[must_use]
pub fn split_rev_path(spec: &str) -> Option<(&str, &str)> {
    spec.split_once(':').filter(|(rev, path)| !rev.is_empty() && crate::git::is_tree_path(path))
}

/// A file that a `--…-rev REV:PATH` flag reads from a revision outside the checked history: the
/// flag, what the file is, what it chooses, and how large it may be.
#[derive(Debug)]
pub struct RevFile {
    /// The flag, e.g. `--allowed-signers-rev`.
    pub flag: &'static str,
    /// The flag that gives the same file by its path instead, e.g. `--allowed-signers`.
    pub file_flag: &'static str,
    /// What the file is, with its article: `an allowed-signers file`.
    pub kind: &'static str,
    /// What a file of the checked tree would choose: `the trust`.
    pub chooses: &'static str,
    /// The largest file read, in bytes (checked from the object's header before it is read).
    pub max: u64,
}

/// `--allowed-signers-rev`.
pub const ALLOWED_SIGNERS_REV: RevFile = RevFile {
    flag: "--allowed-signers-rev",
    file_flag: "--allowed-signers",
    kind: "an allowed-signers file",
    chooses: "the trust",
    max: allowed_signers::MAX_BYTES,
};

/// A trust or policy file given by its path, which is refused where the checked tree holds it
/// ([`refuse_in_tree`]).
#[derive(Debug, Clone, Copy)]
pub enum GivenFile {
    /// A file a `--…-rev REV:PATH` flag can read from the base instead (`--allowed-signers`,
    /// `--policy`).
    WithRev(&'static RevFile),
    /// A file of trust no flag reads from a revision (`--revoked`, `--openpgp-certs`,
    /// `--sigstore-trusted-root`).
    Trust,
    /// A file whose `--…-rev` flag the command does not take (`attest carry`, `attest fetch`):
    /// the base's copy, given by the flag that takes a path.
    CopyOf(&'static RevFile),
    /// The cached public-good Sigstore trusted root, where no flag named a root.
    SigstoreCache,
    /// The same cache, which `sigstore fetch-root` would write: only where it is can change.
    SigstoreCacheRefreshed,
}

impl GivenFile {
    /// What the file chooses.
    fn chooses(self) -> &'static str {
        match self {
            GivenFile::WithRev(file) | GivenFile::CopyOf(file) => file.chooses,
            GivenFile::Trust => "the trust",
            GivenFile::SigstoreCache | GivenFile::SigstoreCacheRefreshed => "the Sigstore trusted root",
        }
    }

    /// What to do instead of using the file at `tree_path` ([`GivenFile::instead`]).
    fn advice(self, tree_path: &str, in_submodule: bool) -> String {
        match self {
            GivenFile::SigstoreCacheRefreshed => {
                "set XDG_CACHE_HOME to a directory outside the work tree, then run `speccoder sigstore fetch-root` again"
                    .to_owned()
            }
            _ => format!("pass a file from outside the repository{}", self.instead(tree_path, in_submodule)),
        }
    }

    /// The rest of the advice for the file at `tree_path` of the checked tree: its `--…-rev`
    /// flag, or how to take the base's copy out of the repository; none of these for a file in
    /// a submodule, which no revision of this repository holds.
    fn instead(self, tree_path: &str, in_submodule: bool) -> String {
        match self {
            GivenFile::WithRev(_) | GivenFile::Trust | GivenFile::CopyOf(_) if in_submodule => String::new(),
            GivenFile::WithRev(file) => format!(", or {} <base>:{tree_path}", file.flag),
            GivenFile::Trust => {
                format!(
                    " (the base's copy: `git show <base>:{} > FILE`, FILE outside the repository)",
                    shell_word(tree_path)
                )
            }
            GivenFile::CopyOf(file) => format!(
                " (the base's copy: `git show <base>:{} > FILE`, FILE outside the repository, then {} FILE)",
                shell_word(tree_path),
                file.file_flag
            ),
            GivenFile::SigstoreCache | GivenFile::SigstoreCacheRefreshed => {
                " to --sigstore-trusted-root, or set XDG_CACHE_HOME to a directory outside the work tree"
                    .to_owned()
            }
        }
    }
}

/// Why the trust cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// A trust (or policy) file that the checked tree itself provides.
    #[error(
        "refusing {}{}: it is {}`{tree_path}` of the tree being checked, so whoever wrote the branch chose {}; {}",
        .path.display(), .given_by.map(|by| format!(" (from {by})")).unwrap_or_default(),
        if *.in_submodule { "in the submodule " } else { "" },
        .file.chooses(), .file.advice(tree_path, *.in_submodule)
    )]
    ProvidedByTree {
        /// The file given.
        path: PathBuf,
        /// What named it, when known: `git's gpg.ssh.allowedSignersFile setting`.
        given_by: Option<&'static str>,
        /// Its path in the tree, or the path of the submodule it lies in.
        tree_path: String,
        /// Whether `tree_path` is a submodule (a gitlink), whose files no revision of this
        /// repository holds: no `--…-rev` copy is offered.
        in_submodule: bool,
        /// What the file is.
        file: GivenFile,
    },
    /// A trust (or policy) file whose place in a work tree is not UTF-8: the checked tree is asked
    /// by text, and a text with U+FFFD in place of a byte names another place, so whether the
    /// tree provides the file cannot be told, and it is refused.
    #[error(
        "refusing {}{}: its place in the work tree, `{place}`, is not UTF-8 (each such byte shown as \\xNN), so speccoder cannot tell whether the tree being checked provides it, which would let whoever wrote the branch choose {}; {}",
        .path.display(), .given_by.map(|by| format!(" (from {by})")).unwrap_or_default(),
        .file.chooses(), .file.advice(place, true)
    )]
    PlaceNotUtf8 {
        /// The file given.
        path: PathBuf,
        /// What named it, when known.
        given_by: Option<&'static str>,
        /// Its place below the work tree, each byte that is not UTF-8 escaped.
        place: String,
        /// What the file is.
        file: GivenFile,
    },
    /// A `--…-rev` flag names a revision inside the range being checked.
    #[error(
        "refusing {} {spec}: {rev} is part of the history being checked, or builds on it (a merge of the branch), so the branch wrote some of its files; name a revision outside it (for `attest verify --branch`, the base the branch builds on; where all HEAD reaches is judged (`held-out publish`), a trust branch of its own), or a file with {}",
        .file.flag, .file.file_flag
    )]
    RevInRange {
        /// The argument.
        spec: String,
        /// The resolved commit.
        rev: String,
        /// The flag.
        file: &'static RevFile,
    },
    /// A malformed `REV:PATH`.
    #[error("{} takes {REV_PATH_FORM}, not `{spec}`", .file.flag)]
    RevSpec {
        /// The argument.
        spec: String,
        /// The flag.
        file: &'static RevFile,
    },
    /// The file at `REV:PATH` is absent.
    #[error("{} {spec}: no such file at that revision", .file.flag)]
    RevMissing {
        /// The argument.
        spec: String,
        /// The flag.
        file: &'static RevFile,
    },
    /// The entry at `REV:PATH` is not a regular file.
    #[error(
        "{} {spec}: it is {what} at that revision, not a regular file; name the file itself",
        .file.flag
    )]
    RevNotFile {
        /// The argument.
        spec: String,
        /// What it is (`a symbolic link`, `a directory`, `a submodule`).
        what: &'static str,
        /// The flag.
        file: &'static RevFile,
    },
    /// The file at `REV:PATH` is larger than such a file may be.
    #[error(
        "{} {spec}: it is {size} bytes at that revision, larger than the {} bytes {} may be",
        .file.flag, .file.max, .file.kind
    )]
    RevTooLarge {
        /// The argument.
        spec: String,
        /// Its size, from the object's header.
        size: u64,
        /// The flag, and the limit.
        file: &'static RevFile,
    },
    /// An allowed-signers file is broken.
    #[error(transparent)]
    AllowedSigners(#[from] crate::sign::ssh::allowed_signers::AllowedSignersError),
    /// A revoked-keys file is broken.
    #[error(transparent)]
    RevokedKeys(#[from] crate::sign::ssh::revoked_keys::RevokedKeysError),
    /// A trust file that cannot be read, with what named it.
    #[error("{source}; check {given_by}")]
    Unreadable {
        /// What named the file ([`GivenPath::given_by`]).
        given_by: &'static str,
        /// Why it cannot be read, naming it.
        source: Box<TrustError>,
    },
    /// The OpenPGP certificates file is broken.
    #[error(transparent)]
    OpenPgpCerts(#[from] crate::sign::openpgp::OpenPgpCertsError),
    /// The Sigstore trusted root given cannot be used.
    #[cfg(feature = "sigstore")]
    #[error(transparent)]
    SigstoreRoot(#[from] crate::sign::sigstore::TrustedRootError),
    /// Keyless trust was asked of a build without Sigstore.
    #[error("{}", crate::sign::SIGSTORE_MISSING_REASON)]
    SigstoreMissing,
    /// The copy of a trust file `ssh-keygen` reads cannot be written.
    #[error("{0}")]
    Copy(std::io::Error),
    /// The checked tree cannot be read where a trust file's place is looked up.
    #[error(transparent)]
    Tree(Box<crate::spec::SpecError>),
    /// The repository failed.
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
}

impl ExitClass for TrustError {
    fn class(&self) -> Class {
        match self {
            TrustError::ProvidedByTree { .. }
            | TrustError::PlaceNotUtf8 { .. }
            | TrustError::RevInRange { .. }
            | TrustError::RevSpec { .. }
            | TrustError::RevMissing { .. }
            | TrustError::RevNotFile { .. }
            | TrustError::RevTooLarge { .. }
            | TrustError::AllowedSigners(_)
            | TrustError::RevokedKeys(_)
            | TrustError::Unreadable { .. }
            | TrustError::OpenPgpCerts(_)
            | TrustError::SigstoreMissing
            | TrustError::Copy(_) => Class::Config,
            #[cfg(feature = "sigstore")]
            TrustError::SigstoreRoot(_) => Class::Config,
            TrustError::Tree(e) => e.class(),
            TrustError::Git(e) => e.class(),
        }
    }
}

/// Loads the OpenPGP certificates the caller trusts, refusing a file the checked tree provides.
///
/// # Errors
/// A file of the checked tree, or one that is not OpenPGP (the error names it).
pub fn load_openpgp(
    repo: &Repo,
    path: &Path,
    checked_tree: ObjectId,
) -> Result<crate::sign::openpgp::OpenPgpCerts, TrustError> {
    refuse_in_tree(repo, path, checked_tree, GivenFile::Trust)?;
    Ok(crate::sign::openpgp::OpenPgpCerts::read(path)?)
}

/// A trust file on disk, with what named it, for the advice when it cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenPath {
    /// The file.
    pub path: PathBuf,
    /// What named it: `the path given to --revoked`, `git's gpg.ssh.revocationFile setting`.
    pub given_by: &'static str,
}

impl GivenPath {
    /// [`refuse_in_tree`] for this file, its refusal naming what gave it.
    fn refuse_in_tree(&self, repo: &Repo, checked_tree: ObjectId, file: GivenFile) -> Result<(), TrustError> {
        refuse_in_tree(repo, &self.path, checked_tree, file).map_err(|e| match e {
            TrustError::ProvidedByTree { path, tree_path, in_submodule, file, .. } => {
                TrustError::ProvidedByTree {
                    path,
                    given_by: Some(self.given_by),
                    tree_path,
                    in_submodule,
                    file,
                }
            }
            TrustError::PlaceNotUtf8 { path, place, file, .. } => {
                TrustError::PlaceNotUtf8 { path, given_by: Some(self.given_by), place, file }
            }
            e => e,
        })
    }

    /// `e`, a failure to read this file, with the advice to check what named it; any other
    /// failure (a line that does not parse, named by the file and line) as it is.
    fn unreadable(&self, e: impl Into<TrustError>, read_failed: bool) -> TrustError {
        let e = e.into();
        if read_failed { TrustError::Unreadable { given_by: self.given_by, source: Box::new(e) } } else { e }
    }
}

/// Where the SSH trust comes from.
#[derive(Debug, Clone)]
pub enum AllowedSource {
    /// A file on disk (`--allowed-signers`, or git's `gpg.ssh.allowedSignersFile`).
    File(GivenPath),
    /// A file at a revision (`--allowed-signers-rev REV:PATH`).
    Rev(String),
}

impl SshTrust {
    /// Loads SSH trust, refusing a file the checked tree provides (an allowed-signers file with the
    /// advice `in_tree` gives). `revoked` lists every revoked-keys file that applies: a key any of
    /// them lists is revoked.
    ///
    /// `checked_tree` is the tree under review; `in_range` says whether a commit is part of the
    /// checked history.
    ///
    /// # Errors
    /// See [`TrustError`].
    pub fn load(
        repo: &Repo,
        source: &AllowedSource,
        revoked: &[GivenPath],
        checked_tree: ObjectId,
        in_range: &dyn Fn(ObjectId) -> bool,
        in_tree: GivenFile,
    ) -> Result<SshTrust, TrustError> {
        let temp_dir = || tempfile::tempdir().map_err(TrustError::Copy);
        let mut temp = None;
        let (allowed, allowed_path, label) = match source {
            AllowedSource::File(given) => {
                let path = &given.path;
                given.refuse_in_tree(repo, checked_tree, in_tree)?;
                let allowed = AllowedSigners::read(path).map_err(|e| {
                    let read_failed = matches!(e, AllowedSignersError::Read { .. });
                    given.unreadable(e, read_failed)
                })?;
                (allowed, path.clone(), path.display().to_string())
            }
            AllowedSource::Rev(spec) => {
                let (commit, bytes) = read_rev_file(repo, spec, &ALLOWED_SIGNERS_REV, in_range)?;
                let dir = temp.insert(temp_dir()?);
                let path = dir.path().join("allowed_signers");
                std::fs::write(&path, &bytes).map_err(TrustError::Copy)?;
                let allowed = AllowedSigners::parse(&bytes, Path::new(spec.as_str()))?;
                (allowed, path, format!("{spec} ({commit})"))
            }
        };
        let mut revoked_keys = RevokedKeys::default();
        for given in revoked {
            given.refuse_in_tree(repo, checked_tree, GivenFile::Trust)?;
            revoked_keys.extend(RevokedKeys::read(&given.path).map_err(|e| {
                let read_failed = matches!(e, RevokedKeysError::Read { .. });
                given.unreadable(e, read_failed)
            })?);
        }
        // ssh-keygen reads one revoked-keys file: several are given to it as one list.
        let revoked_path = match revoked {
            [] => None,
            [one] => Some(one.path.clone()),
            _ => {
                let dir = match &mut temp {
                    Some(dir) => dir,
                    None => temp.insert(temp_dir()?),
                };
                let path = dir.path().join("revoked_keys");
                std::fs::write(&path, revoked_keys.to_list()).map_err(TrustError::Copy)?;
                Some(path)
            }
        };
        Ok(SshTrust {
            allowed,
            allowed_path,
            revoked: revoked_keys,
            revoked_path,
            source: label,
            _temp: temp,
        })
    }
}

/// The file `spec` (`REV:PATH`) names for `flag`, and the commit `REV` resolved to: refused when
/// that commit is part of the checked history (`in_range`), and held to what the file given
/// directly must be: a regular file (a link or a directory there is named as such, not as absent)
/// of at most `flag.max` bytes, its size checked from the object's header before it is read. A
/// partial clone fetches the file from its promisor remote first.
///
/// # Errors
/// [`TrustError::RevSpec`], [`TrustError::RevInRange`], [`TrustError::RevMissing`],
/// [`TrustError::RevNotFile`], [`TrustError::RevTooLarge`], or a revision or repository that
/// cannot be read.
pub fn read_rev_file(
    repo: &Repo,
    spec: &str,
    flag: &'static RevFile,
    in_range: &dyn Fn(ObjectId) -> bool,
) -> Result<(ObjectId, Vec<u8>), TrustError> {
    use gix::objs::tree::EntryKind;
    let (rev, file) =
        split_rev_path(spec).ok_or_else(|| TrustError::RevSpec { spec: spec.to_owned(), file: flag })?;
    let commit = repo.rev_parse_peeled(rev)?;
    if in_range(commit) {
        return Err(TrustError::RevInRange { spec: spec.to_owned(), rev: commit.to_string(), file: flag });
    }
    let view = repo.tree(repo.commit_tree(commit)?);
    let not_file = |what| Err(TrustError::RevNotFile { spec: spec.to_owned(), what, file: flag });
    let missing = || TrustError::RevMissing { spec: spec.to_owned(), file: flag };
    match view.entry_kind(file)? {
        None => return Err(missing()),
        Some(EntryKind::Blob | EntryKind::BlobExecutable) => {}
        Some(EntryKind::Link) => return not_file("a symbolic link"),
        Some(EntryKind::Tree) => return not_file("a directory"),
        Some(EntryKind::Commit) => return not_file("a submodule"),
    }
    let id = view.entry_id(file)?.ok_or_else(missing)?;
    // A partial clone leaves the file's contents on its promisor remote until they are read.
    repo.fetch_missing_objects(&[id])?;
    let size = repo.object_size(id)?;
    if size > flag.max {
        return Err(TrustError::RevTooLarge { spec: spec.to_owned(), size, file: flag });
    }
    Ok((commit, repo.blob(id)?))
}

/// Refuses `path` when it lies in one of the repository's work trees (the main one or a linked
/// one: each may hold the branch under review) and the checked tree has a file at that place, or
/// a submodule at or above it (its checkout is the commit the branch names), or when a symbolic
/// link on the way to it lies where the checked tree has an entry or a submodule above it
/// (whether the file is there yet or not: a cache is written where it is missing): either way the
/// branch under review would be choosing its own trust (or rules); `file` says what the file is,
/// for the advice.
///
/// # Errors
/// [`TrustError::ProvidedByTree`], or a tree or the list of work trees that cannot be read.
pub fn refuse_in_tree(
    repo: &Repo,
    path: &Path,
    checked_tree: ObjectId,
    file: GivenFile,
) -> Result<(), TrustError> {
    let full = std::fs::canonicalize(path).ok();
    let links = links_on_the_way(path);
    if full.is_none() && links.is_empty() {
        return Ok(());
    }
    let tree = repo.tree(checked_tree);
    let refused = |(tree_path, in_submodule)| TrustError::ProvidedByTree {
        path: path.to_owned(),
        given_by: None,
        tree_path,
        in_submodule,
        file,
    };
    for work_tree in repo.work_trees()? {
        let Ok(root) = std::fs::canonicalize(&work_tree) else { continue };
        // The place exactly: a text with U+FFFD in place of a byte would ask the tree of another.
        let in_tree = |place: &Path| -> Option<Result<String, TrustError>> {
            let rel = place.strip_prefix(&root).ok()?;
            let Some(rel) = rel.to_str() else {
                let place = bytes_shown(rel.as_os_str().as_encoded_bytes());
                return Some(Err(TrustError::PlaceNotUtf8 {
                    path: path.to_owned(),
                    given_by: None,
                    place,
                    file,
                }));
            };
            let rel = rel.replace('\\', "/");
            (!rel.is_empty() && !rel.starts_with(".git/")).then_some(Ok(rel))
        };
        if let Some(rel) = full.as_deref().and_then(in_tree).transpose()?
            && let Some(tree_path) = provided_at(&tree, rel, |rel| Ok(tree.file(rel)?.is_some()))?
        {
            return Err(refused(tree_path));
        }
        for rel in links.iter().filter_map(|link| in_tree(link)) {
            let rel = rel?;
            if let Some(tree_path) = provided_at(&tree, rel, |rel| Ok(tree.entry_kind(rel)?.is_some()))? {
                return Err(refused(tree_path));
            }
        }
    }
    Ok(())
}

/// Where the checked `tree` provides the place `rel`: `rel` itself when `found` there, else the
/// submodule (a gitlink) at or above it, whose checkout holds what the commit it names holds
/// (`true` beside it).
fn provided_at(
    tree: &crate::git::GitTree<'_>,
    rel: String,
    found: impl Fn(&str) -> Result<bool, crate::git::GitError>,
) -> Result<Option<(String, bool)>, TrustError> {
    if found(&rel)? {
        return Ok(Some((rel, false)));
    }
    let on_the_way =
        crate::spec::link_or_submodule_on_the_way(tree, &rel).map_err(|e| TrustError::Tree(Box::new(e)))?;
    Ok(on_the_way.and_then(|(at, kind)| (kind == crate::spec::EntryKind::Submodule).then_some((at, true))))
}

/// Where each symbolic link on the way to `path` lies (its directory resolved, itself not
/// followed), from the first component to the last.
fn links_on_the_way(path: &Path) -> Vec<PathBuf> {
    let Ok(absolute) = std::path::absolute(path) else { return Vec::new() };
    let mut so_far = PathBuf::new();
    let mut links = Vec::new();
    for component in absolute.components() {
        so_far.push(component);
        let is_link = std::fs::symlink_metadata(&so_far).is_ok_and(|m| m.file_type().is_symlink());
        if let (true, Some(dir), Some(name)) = (is_link, so_far.parent(), so_far.file_name())
            && let Ok(dir) = std::fs::canonicalize(dir)
        {
            links.push(dir.join(name));
        }
    }
    links
}

/// The time at which an SSH signature's key must be trusted: its `valid-after`/`valid-before`
/// window and its certificate's validity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SignatureTime {
    /// Each task commit's committer date, as `git verify-commit` checks. The signer chose that
    /// date, so a retired key or an expired certificate still signs by backdating the commit.
    #[default]
    Commit,
    /// This one time, the time of verification: what a CI gate wants.
    Now(time::OffsetDateTime),
}

impl SignatureTime {
    /// The time to check a signature of the task commit committed at `committer_seconds` at.
    #[must_use]
    pub fn at(self, committer_seconds: i64) -> time::OffsetDateTime {
        match self {
            SignatureTime::Commit => time::OffsetDateTime::from_unix_timestamp(committer_seconds)
                .unwrap_or(time::OffsetDateTime::UNIX_EPOCH),
            SignatureTime::Now(now) => now,
        }
    }
}

/// What to do when a command that checks signatures finds no signer trusted: the trust files
/// `attest verify` reads, as the commands that take all of them (`attest approve`, `attest
/// rejoin`, `held-out publish`) are given them. Each such command's message ends with it and
/// `then run speccoder <command> again`.
pub const CONFIGURE_TRUST: &str = "Configure the trust `attest verify` reads: git's gpg.ssh.allowedSignersFile, or pass --allowed-signers FILE (--allowed-signers-rev REV:PATH, --openpgp-certs FILE, --certificate-identity and --certificate-oidc-issuer for keyless evidence);";

/// The caller's trust as the command line gives it (the trust flags of `attest verify`, `attest
/// approve` and `attest policy`): files and identities, never anything the checked tree holds.
#[derive(Debug, Clone, Default)]
pub struct TrustFiles {
    /// `--allowed-signers FILE`; with neither this nor a revision, git's
    /// `gpg.ssh.allowedSignersFile`.
    pub allowed_signers: Option<PathBuf>,
    /// `--allowed-signers-rev REV:PATH`.
    pub allowed_signers_rev: Option<String>,
    /// `--revoked FILE`: revoked SSH keys, besides those of git's `gpg.ssh.revocationFile`.
    pub revoked: Option<PathBuf>,
    /// `--openpgp-certs FILE`.
    pub openpgp_certs: Option<PathBuf>,
    /// `--sigstore-trusted-root FILE` (read only with the identity and issuer).
    pub sigstore_trusted_root: Option<PathBuf>,
    /// `--certificate-identity`.
    pub certificate_identity: Option<String>,
    /// `--certificate-oidc-issuer`.
    pub certificate_oidc_issuer: Option<String>,
    /// `--via-tools`: check with `ssh-keygen -Y` and `sqv`.
    pub via_tools: bool,
    /// The command takes `--allowed-signers-rev`, which the refusal of an allowed-signers file of
    /// the checked tree then advises; else it advises a copy from outside the repository.
    pub rev_flag: bool,
}

impl SignatureTrust {
    /// The one loader of the caller's trust: `files` read from outside the checked history only.
    /// `checked_tree` is the tree under review (a trust file it holds is refused); `in_range`
    /// says whether a commit is part of the checked history (an `--allowed-signers-rev` revision
    /// there is refused). Without a Sigstore trusted root, the public-good one is resolved when a
    /// keyless line is first checked.
    ///
    /// # Errors
    /// See [`TrustError`].
    pub fn load(
        repo: &Repo,
        files: &TrustFiles,
        checked_tree: ObjectId,
        in_range: &dyn Fn(ObjectId) -> bool,
    ) -> Result<SignatureTrust, TrustError> {
        let given = |path: &PathBuf, given_by| GivenPath { path: path.clone(), given_by };
        let source = match (&files.allowed_signers, &files.allowed_signers_rev) {
            (Some(p), _) => Some(AllowedSource::File(given(p, "the path given to --allowed-signers"))),
            (None, Some(spec)) => Some(AllowedSource::Rev(spec.clone())),
            (None, None) => repo
                .config_path("gpg.ssh.allowedSignersFile")?
                .map(|p| AllowedSource::File(given(&p, "git's gpg.ssh.allowedSignersFile setting"))),
        };
        // The keys revoked by `--revoked` and by git's `gpg.ssh.revocationFile`, both.
        let mut revoked: Vec<GivenPath> =
            files.revoked.iter().map(|p| given(p, "the path given to --revoked")).collect();
        if let Some(configured) = repo.config_path("gpg.ssh.revocationFile")?
            && !revoked.iter().any(|r| r.path == configured)
        {
            revoked.push(given(&configured, "git's gpg.ssh.revocationFile setting"));
        }
        let ssh = source
            .map(|source| {
                let in_tree = if files.rev_flag { GivenFile::WithRev } else { GivenFile::CopyOf };
                SshTrust::load(repo, &source, &revoked, checked_tree, in_range, in_tree(&ALLOWED_SIGNERS_REV))
            })
            .transpose()?;
        let openpgp =
            files.openpgp_certs.as_ref().map(|path| load_openpgp(repo, path, checked_tree)).transpose()?;
        #[cfg(not(feature = "sigstore"))]
        if files.certificate_identity.is_some() {
            return Err(TrustError::SigstoreMissing);
        }
        Ok(SignatureTrust {
            ssh,
            openpgp,
            #[cfg(feature = "sigstore")]
            sigstore: load_sigstore(repo, files, checked_tree)?,
            via_tools: files.via_tools,
            openpgp_keys_at_check: false,
        })
    }

    /// The caller's trust for a command that judges no history of its own (`attest carry`,
    /// `attest fetch` and `push`, `attest policy`): `files` as [`SignatureTrust::load`] reads
    /// them, a file that the tree at HEAD holds refused (the branch would choose whom the
    /// command trusts; an unborn branch holds none), any revision taken.
    ///
    /// # Errors
    /// See [`TrustError`].
    pub fn load_outside_head(repo: &Repo, files: &TrustFiles) -> Result<SignatureTrust, TrustError> {
        SignatureTrust::load(repo, files, head_tree(repo)?, &|_| false)
    }

    /// The principals the trust names, each once: the SSH allowed-signers principals, the OpenPGP
    /// fingerprints and user ids, the Sigstore identity. For `attest policy` to tell a policy's
    /// principals that no trust file names.
    #[must_use]
    pub fn principals(&self, files: &TrustFiles) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut add = |p: &str| {
            if seen.insert(p.to_owned()) {
                out.push(p.to_owned());
            }
        };
        if let Some(ssh) = &self.ssh {
            ssh.allowed
                .signers
                .iter()
                .flat_map(|s| s.principals.accepted().unwrap_or_default())
                .for_each(&mut add);
        }
        if let Some(pgp) = &self.openpgp {
            pgp.fingerprints().iter().chain(pgp.user_ids().iter()).for_each(|p| add(p));
        }
        if let Some(identity) = files.certificate_identity.as_deref() {
            add(identity);
        }
        out
    }
}

/// The tree at HEAD (an unborn branch's: the empty tree).
fn head_tree(repo: &Repo) -> Result<ObjectId, crate::git::GitError> {
    Ok(match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => repo.commit_tree(commit)?,
        Head::Unborn(_) => repo.empty_tree_id(),
    })
}

/// Refuses the cache of the public-good Sigstore trusted root where the checked tree provides it
/// ([`refuse_in_tree`]): a cache home inside the work tree (`XDG_CACHE_HOME=$PWD/.cache`) would
/// let the branch under review commit the root it is checked against. Without a cache home the
/// resolution itself says so, when a keyless line needs the root.
///
/// # Errors
/// [`TrustError::ProvidedByTree`], or a tree that cannot be read.
#[cfg(feature = "sigstore")]
pub fn refuse_sigstore_cache_in_tree(repo: &Repo, checked_tree: ObjectId) -> Result<(), TrustError> {
    refuse_cache_in_tree(repo, checked_tree, GivenFile::SigstoreCache)
}

/// [`refuse_sigstore_cache_in_tree`], advising as `file` is used.
#[cfg(feature = "sigstore")]
fn refuse_cache_in_tree(repo: &Repo, checked_tree: ObjectId, file: GivenFile) -> Result<(), TrustError> {
    let Ok(path) = crate::sign::sigstore::default_cache_path() else { return Ok(()) };
    let cache = GivenPath {
        path,
        given_by: "the Sigstore trusted-root cache, which follows XDG_CACHE_HOME, else HOME/.cache",
    };
    cache.refuse_in_tree(repo, checked_tree, file)
}

/// `sigstore fetch-root`: refreshes the cached public-good Sigstore trusted root, refused where
/// the tree at HEAD of `repo` (the repository the command runs in, if any) provides the cache
/// ([`refuse_sigstore_cache_in_tree`]), so that no branch's file is replaced or written through.
///
/// # Errors
/// [`TrustError::ProvidedByTree`], or the refresh's failure.
#[cfg(feature = "sigstore")]
pub fn refresh_sigstore_cache(repo: Option<&Repo>) -> Result<crate::sign::sigstore::Refreshed, TrustError> {
    if let Some(repo) = repo {
        refuse_cache_in_tree(repo, head_tree(repo)?, GivenFile::SigstoreCacheRefreshed)?;
    }
    Ok(crate::sign::sigstore::refresh_public_good_root()?)
}

/// The Sigstore trust of `files`: the identity and issuer, with the given trusted root or the
/// public-good one (cached, or fetched through TUF when a keyless line needs it; a cache the
/// checked tree provides is refused).
#[cfg(feature = "sigstore")]
fn load_sigstore(
    repo: &Repo,
    files: &TrustFiles,
    checked_tree: ObjectId,
) -> Result<Option<crate::sign::sigstore::SigstoreTrustSource>, TrustError> {
    use crate::sign::sigstore::{SigstoreTrust, SigstoreTrustSource, TrustedRoot, public_good_root};
    let (Some(identity), Some(issuer)) = (&files.certificate_identity, &files.certificate_oidc_issuer) else {
        return Ok(None);
    };
    Ok(Some(match &files.sigstore_trusted_root {
        Some(path) => {
            refuse_in_tree(repo, path, checked_tree, GivenFile::Trust)?;
            let root = TrustedRoot::from_file(path)?;
            SigstoreTrustSource::given(SigstoreTrust::keyless(root, identity.clone(), issuer.clone()))
        }
        None => {
            refuse_sigstore_cache_in_tree(repo, checked_tree)?;
            SigstoreTrustSource::lazy(identity.clone(), issuer.clone(), public_good_root)
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM1F1IGYRsN7+kLL4bWpeHeS4XOi9t/MahTtaUesxggT";

    /// A trust of the allowed-signers lines `text`.
    fn ssh_trust(text: &str) -> SignatureTrust {
        let allowed = AllowedSigners::parse(text.as_bytes(), Path::new("allowed_signers")).expect("parses");
        let ssh = SshTrust {
            allowed,
            allowed_path: PathBuf::from("allowed_signers"),
            revoked: RevokedKeys::default(),
            revoked_path: None,
            source: "allowed_signers".to_owned(),
            _temp: None,
        };
        SignatureTrust { ssh: Some(ssh), ..SignatureTrust::default() }
    }

    #[test]
    fn principals_are_listed_once_each_in_the_order_the_trust_names_them() {
        let trust = ssh_trust(&format!("b@x,a@x {KEY}\na@x,c@x,b@x {KEY}\n"));
        assert_eq!(trust.principals(&TrustFiles::default()), ["b@x", "a@x", "c@x"]);
    }

    #[test]
    fn a_trust_naming_many_principals_lists_them_without_comparing_each_to_every_other() {
        // 200,000 principals: comparing each with those listed before it would take 2·10^10
        // comparisons, minutes; a set of those seen takes one look each.
        let count = 200_000;
        let names: Vec<String> = (0..count).map(|i| format!("p{i}@x")).collect();
        let trust = ssh_trust(&format!("{} {KEY}\n", names.join(",")));
        assert_eq!(trust.principals(&TrustFiles::default()), names);
    }
}
