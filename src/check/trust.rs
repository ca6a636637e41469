//! The caller's trust in signers: only what the caller gives, never what the checked tree
//! declares. Loaded here, on the floor, so that the verifier and `attest carry` (which must not
//! re-sign what its user would not accept) read it the same way.

use std::path::{Path, PathBuf};

use crate::git::{ObjectId, Repo};
use crate::sign::ssh::allowed_signers::{self, AllowedSigners};
use crate::sign::ssh::revoked_keys::RevokedKeys;

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

    /// What a report should warn of: a Sigstore root older than wanted, used because the
    /// refresh failed.
    #[must_use]
    pub fn warnings(&self) -> Vec<String> {
        #[cfg(feature = "sigstore")]
        if let Some(w) = self.sigstore.as_ref().and_then(|s| s.warning()) {
            return vec![w.to_owned()];
        }
        Vec::new()
    }

    /// Why the trust failed while checking (a Sigstore root that could not be had): then a run
    /// has no verdict.
    #[must_use]
    pub fn failure(&self) -> Option<String> {
        #[cfg(feature = "sigstore")]
        if let Some(reason) = self.sigstore.as_ref().and_then(|s| s.failure()) {
            return Some(reason.to_owned());
        }
        None
    }
}

/// The form `--allowed-signers-rev` takes, with an example naming the base in full (a short
/// `origin/main` is ambiguous where a tag of that name exists).
pub const REV_PATH_FORM: &str = "REV:PATH (e.g. refs/remotes/origin/main:.github/allowed_signers)";

/// `spec` as `--allowed-signers-rev` takes it: a revision and a path, both non-empty, split at the
/// first `:`; `None` for anything else.
#[must_use]
pub fn split_rev_path(spec: &str) -> Option<(&str, &str)> {
    spec.split_once(':').filter(|(rev, path)| !rev.is_empty() && !path.is_empty())
}

/// Why the trust cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// A trust file that the checked tree itself provides.
    #[error(
        "refusing {path}: it is `{tree_path}` of the tree being checked, so whoever wrote the branch chose the trust; pass a file from outside the repository, or --allowed-signers-rev <base>:{tree_path}"
    )]
    ProvidedByTree {
        /// The file given.
        path: PathBuf,
        /// Its path in the tree.
        tree_path: String,
    },
    /// `--allowed-signers-rev` names a revision inside the range being checked.
    #[error(
        "refusing --allowed-signers-rev {spec}: {rev} is part of the history being checked; name a revision the branch builds on (its base)"
    )]
    RevInRange {
        /// The argument.
        spec: String,
        /// The resolved commit.
        rev: String,
    },
    /// A malformed `REV:PATH`.
    #[error("--allowed-signers-rev takes {REV_PATH_FORM}, not `{0}`")]
    RevSpec(String),
    /// The file at `REV:PATH` is absent.
    #[error("--allowed-signers-rev {0}: no such file at that revision")]
    RevMissing(String),
    /// The entry at `REV:PATH` is not a regular file.
    #[error(
        "--allowed-signers-rev {spec}: it is {what} at that revision, not a regular file; name the file itself"
    )]
    RevNotFile {
        /// The argument.
        spec: String,
        /// What it is (`a symbolic link`, `a directory`, `a submodule`).
        what: &'static str,
    },
    /// The file at `REV:PATH` is larger than an allowed-signers file may be.
    #[error(
        "--allowed-signers-rev {spec}: it is {size} bytes at that revision, larger than the {max} bytes an allowed-signers file may be"
    )]
    RevTooLarge {
        /// The argument.
        spec: String,
        /// Its size, from the object's header.
        size: u64,
        /// The limit ([`crate::sign::ssh::allowed_signers::MAX_BYTES`]).
        max: u64,
    },
    /// An allowed-signers or revoked-keys file is broken.
    #[error("{0}")]
    File(String),
    /// The repository failed.
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
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
    refuse_in_tree(repo, path, checked_tree)?;
    crate::sign::openpgp::OpenPgpCerts::read(path).map_err(|e| TrustError::File(e.to_string()))
}

/// Where the SSH trust comes from.
#[derive(Debug, Clone)]
pub enum AllowedSource {
    /// A file on disk (`--allowed-signers`, or git's `gpg.ssh.allowedSignersFile`).
    File(PathBuf),
    /// A file at a revision (`--allowed-signers-rev REV:PATH`).
    Rev(String),
}

impl SshTrust {
    /// Loads SSH trust, refusing a file the checked tree provides. `revoked` lists every
    /// revoked-keys file that applies: a key any of them lists is revoked.
    ///
    /// `checked_tree` is the tree under review; `in_range` says whether a commit is part of the
    /// checked history.
    ///
    /// # Errors
    /// See [`TrustError`].
    pub fn load(
        repo: &Repo,
        source: &AllowedSource,
        revoked: &[PathBuf],
        checked_tree: ObjectId,
        in_range: &dyn Fn(ObjectId) -> bool,
    ) -> Result<SshTrust, TrustError> {
        let temp_dir = || tempfile::tempdir().map_err(|e| TrustError::File(e.to_string()));
        let mut temp = None;
        let (allowed, allowed_path, label) = match source {
            AllowedSource::File(path) => {
                refuse_in_tree(repo, path, checked_tree)?;
                let allowed = AllowedSigners::read(path).map_err(|e| TrustError::File(e.to_string()))?;
                (allowed, path.clone(), path.display().to_string())
            }
            AllowedSource::Rev(spec) => {
                let (rev, file) = split_rev_path(spec).ok_or_else(|| TrustError::RevSpec(spec.clone()))?;
                let commit = repo.rev_parse(rev)?;
                if in_range(commit) {
                    return Err(TrustError::RevInRange { spec: spec.clone(), rev: commit.to_string() });
                }
                let bytes = rev_file(repo, repo.commit_tree(commit)?, file, spec)?;
                let dir = temp.insert(temp_dir()?);
                let path = dir.path().join("allowed_signers");
                std::fs::write(&path, &bytes).map_err(|e| TrustError::File(e.to_string()))?;
                let allowed = AllowedSigners::parse(&bytes, Path::new(spec.as_str()))
                    .map_err(|e| TrustError::File(e.to_string()))?;
                (allowed, path, format!("{spec} ({commit})"))
            }
        };
        let mut revoked_keys = RevokedKeys::default();
        for path in revoked {
            refuse_in_tree(repo, path, checked_tree)?;
            revoked_keys.extend(RevokedKeys::read(path).map_err(|e| TrustError::File(e.to_string()))?);
        }
        // ssh-keygen reads one revoked-keys file: several are given to it as one list.
        let revoked_path = match revoked {
            [] => None,
            [one] => Some(one.clone()),
            _ => {
                let dir = match &mut temp {
                    Some(dir) => dir,
                    None => temp.insert(temp_dir()?),
                };
                let path = dir.path().join("revoked_keys");
                std::fs::write(&path, revoked_keys.to_list()).map_err(|e| TrustError::File(e.to_string()))?;
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

/// The trust files a caller names, before git's configuration fills in what they leave out.
#[derive(Debug, Clone, Default)]
pub struct TrustFiles {
    /// `--allowed-signers FILE` or `--allowed-signers-rev REV:PATH`; `None`: git's
    /// `gpg.ssh.allowedSignersFile`.
    pub allowed: Option<AllowedSource>,
    /// `--revoked FILE`: revoked SSH keys, besides those of git's `gpg.ssh.revocationFile`.
    pub revoked: Option<PathBuf>,
    /// `--openpgp-certs FILE`: trusted OpenPGP certificates.
    pub openpgp_certs: Option<PathBuf>,
}

impl SignatureTrust {
    /// The caller's SSH and OpenPGP trust, read as git reads it for `git verify-commit`: the
    /// allowed signers named, else git's `gpg.ssh.allowedSignersFile`; the keys revoked by
    /// `--revoked` and by git's `gpg.ssh.revocationFile`, both; the OpenPGP certificates named.
    /// The one loader of the verifier and of `attest carry`. Sigstore trust is the caller's to
    /// add.
    ///
    /// # Errors
    /// See [`TrustError`]; `checked_tree` and `in_range` as for [`SshTrust::load`].
    pub fn load(
        repo: &Repo,
        files: &TrustFiles,
        checked_tree: ObjectId,
        in_range: &dyn Fn(ObjectId) -> bool,
    ) -> Result<SignatureTrust, TrustError> {
        let source = match &files.allowed {
            Some(source) => Some(source.clone()),
            None => repo.config_path("gpg.ssh.allowedSignersFile")?.map(AllowedSource::File),
        };
        let mut revoked: Vec<PathBuf> = files.revoked.iter().cloned().collect();
        if let Some(configured) = repo.config_path("gpg.ssh.revocationFile")?
            && !revoked.contains(&configured)
        {
            revoked.push(configured);
        }
        let ssh = source
            .map(|source| SshTrust::load(repo, &source, &revoked, checked_tree, in_range))
            .transpose()?;
        let openpgp =
            files.openpgp_certs.as_ref().map(|path| load_openpgp(repo, path, checked_tree)).transpose()?;
        Ok(SignatureTrust { ssh, openpgp, ..SignatureTrust::default() })
    }
}

/// The allowed-signers file `file` of `tree` (from `--allowed-signers-rev spec`), held to what
/// `--allowed-signers` accepts: a regular file (a link or a directory there is named as such,
/// not as absent) of at most [`allowed_signers::MAX_BYTES`], its size checked from the object's
/// header before it is read.
///
/// # Errors
/// [`TrustError::RevMissing`], [`TrustError::RevNotFile`], [`TrustError::RevTooLarge`], or a
/// repository that cannot be read.
fn rev_file(repo: &Repo, tree: ObjectId, file: &str, spec: &str) -> Result<Vec<u8>, TrustError> {
    use gix::objs::tree::EntryKind;
    let view = repo.tree(tree);
    let not_file = |what| Err(TrustError::RevNotFile { spec: spec.to_owned(), what });
    match view.entry_kind(file)? {
        None => return Err(TrustError::RevMissing(spec.to_owned())),
        Some(EntryKind::Blob | EntryKind::BlobExecutable) => {}
        Some(EntryKind::Link) => return not_file("a symbolic link"),
        Some(EntryKind::Tree) => return not_file("a directory"),
        Some(EntryKind::Commit) => return not_file("a submodule"),
    }
    let id = view.entry_id(file)?.ok_or_else(|| TrustError::RevMissing(spec.to_owned()))?;
    let size = repo.object_size(id)?;
    if size > allowed_signers::MAX_BYTES {
        return Err(TrustError::RevTooLarge { spec: spec.to_owned(), size, max: allowed_signers::MAX_BYTES });
    }
    Ok(repo.blob(id)?)
}

/// Refuses `path` when it lies in the repository's work tree and the checked tree has a file at
/// that place: the branch under review would be choosing its own trust.
///
/// # Errors
/// [`TrustError::ProvidedByTree`], or a tree that cannot be read.
pub fn refuse_in_tree(repo: &Repo, path: &Path, checked_tree: ObjectId) -> Result<(), TrustError> {
    let Some(workdir) = repo.workdir() else { return Ok(()) };
    let (Ok(full), Ok(root)) = (std::fs::canonicalize(path), std::fs::canonicalize(workdir)) else {
        return Ok(());
    };
    let Ok(rel) = full.strip_prefix(&root) else { return Ok(()) };
    let rel = rel.to_string_lossy().replace('\\', "/");
    if rel.is_empty() || rel.starts_with(".git/") {
        return Ok(());
    }
    if repo.tree(checked_tree).file(&rel)?.is_some() {
        return Err(TrustError::ProvidedByTree { path: path.to_owned(), tree_path: rel });
    }
    Ok(())
}
