//! What storing and publishing share: the checked-out commit both start from, the local store
//! (where it is, refused inside the work tree, and the bounds on what it holds), and a stored set
//! read back and checked against its manifest and its key.

use std::fs;
use std::path::{Path, PathBuf};

use super::error::HeldOutError;
use crate::attest::bounded::{open_bounded, read_bounded};
use crate::git::{Head, ObjectId, Repo, resolve_path};
use crate::input::SizedFile;
use crate::model::clean::{self, LeakAt};
use crate::model::digest::Sha256Reader;
use crate::model::held_out::{
    FILES_DIR, HeldOutManifest, MANIFEST_FILE, ManifestFile, SetDifference, manifest_digest,
};
use crate::model::shown::{one_line, one_line_path};

pub use crate::model::held_out::{MAX_FILE_BYTES, MAX_MANIFEST_BYTES, MAX_SET_FILES};

/// The default store: `<git common dir>/speccoder/held-out`.
#[must_use]
pub fn default_store(repo: &Repo) -> PathBuf {
    repo.common_dir().join("speccoder").join("held-out")
}

/// A set read from the store and found to match its manifest. Its files stay on disk (a set may
/// hold [`MAX_SET_FILES`] files of [`MAX_FILE_BYTES`] each): only their paths and digests are
/// kept, and a publisher streams each file again, checking its digest as it writes it.
#[derive(Debug, Clone)]
pub(super) struct ReadySet {
    pub(super) key: String,
    pub(super) task: String,
    pub(super) manifest: Vec<u8>,
    /// The set's `files/` directory.
    pub(super) files_dir: PathBuf,
    pub(super) files: Vec<ManifestFile>,
}

/// Why a stored set is not published.
#[derive(Debug)]
pub(super) enum SetProblem {
    /// The set cannot be read as a set at all (bad manifest, a path leaving it): stop everything.
    Invalid(String),
    /// Its bytes differ from its manifest: leave it out and name it.
    Tampered(String),
}

/// The checked-out commit; an unborn branch is refused.
pub(super) fn head_commit(repo: &Repo) -> Result<ObjectId, HeldOutError> {
    match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => Ok(commit),
        Head::Unborn(name) => Err(HeldOutError::Unborn(name.to_string())),
    }
}

/// Refuses `unit` when the project at `head` names its format (`[spec] format` of its
/// `speccoder.toml`) and `head`'s tree holds the unit in the other one
/// ([`crate::attest::config::ensure_unit_format`]).
///
/// # Errors
/// speccoder.toml at `head` cannot be read, its `[spec]` is malformed, or the unit is the other
/// format's.
pub(super) fn ensure_unit_format(repo: &Repo, head: ObjectId, unit: &str) -> Result<(), HeldOutError> {
    use crate::attest::config;
    let (_, policy) = config::read_policy(repo, head)?;
    let format = config::spec_format(policy.as_ref())?;
    Ok(config::ensure_unit_format(format, &repo.tree(repo.commit_tree(head)?), unit)?)
}

/// The store's root as the held-out commands use and name it: `given`, or the default
/// ([`default_store`]), resolved as far as it exists ([`resolve_path`]).
#[must_use]
pub fn store_path(repo: &Repo, given: Option<&Path>) -> PathBuf {
    resolve_path(given.unwrap_or(&default_store(repo)))
}

/// What a command does with the store, and so what a `--store` it is given must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StoreUse {
    /// `held-out store` writes into it: a directory, or a path one can be created at.
    Write,
    /// `held-out publish` reads it: an existing directory.
    Read,
}

/// The store's root: `given` (refused when it is not a directory or, for `use_`, cannot become
/// one) or the default, which needs to exist only once something was stored. Either is refused
/// inside any work tree of the repository, the main one and every linked one, where an
/// implementer working there would see the tests ([`Repo::work_tree_holding`]).
pub(super) fn store_root(repo: &Repo, given: Option<&Path>, use_: StoreUse) -> Result<PathBuf, HeldOutError> {
    let store = store_path(repo, given);
    if let Some(workdir) = repo.work_tree_holding(&store)? {
        return Err(match given {
            Some(_) => HeldOutError::StoreInWorkTree { store, workdir },
            None => HeldOutError::DefaultStoreInWorkTree { store, workdir },
        });
    }
    if given.is_some() {
        usable_store(&store, use_)
            .map_err(|reason| HeldOutError::StoreNotDirectory { store: store.clone(), reason })?;
    }
    Ok(store)
}

/// Why `store` cannot serve as the store for `use_` (links followed, as every later use of the
/// path follows them).
fn usable_store(store: &Path, use_: StoreUse) -> Result<(), StoreProblem> {
    let followed = fs::metadata(store);
    if followed.is_err() {
        link_to_nothing(store)?;
    }
    match followed {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(StoreProblem::NotADirectory),
        Err(e) if use_ == StoreUse::Read => Err(match e.kind() {
            std::io::ErrorKind::NotFound => StoreProblem::Missing,
            _ => StoreProblem::Unreadable(e),
        }),
        // Written by `store`: created as needed below the nearest part of it that exists, which
        // must be a directory.
        Err(_) => match store.ancestors().skip(1).find_map(|a| fs::metadata(a).ok().map(|m| (a, m))) {
            Some((_, meta)) if meta.is_dir() => Ok(()),
            Some((above, _)) => Err(StoreProblem::AboveNotADirectory(above.to_owned())),
            None => Ok(()),
        },
    }
}

/// Refuses a `store` that cannot be followed because the nearest part of it that exists (links
/// not followed) is a symbolic link that leads nowhere: creating the store there would fail with
/// "File exists".
fn link_to_nothing(store: &Path) -> Result<(), StoreProblem> {
    let nearest = store.ancestors().find(|a| fs::symlink_metadata(a).is_ok());
    let Some(link) = nearest.filter(|a| fs::symlink_metadata(a).is_ok_and(|m| m.file_type().is_symlink()))
    else {
        return Ok(());
    };
    match fs::metadata(link) {
        Ok(_) => Ok(()),
        Err(error) => Err(StoreProblem::LinkToNothing {
            link: link.to_owned(),
            target: fs::read_link(link).unwrap_or_default(),
            error,
        }),
    }
}

/// Why a `--store` cannot serve, as a sentence fragment after its path.
#[derive(Debug, thiserror::Error)]
pub enum StoreProblem {
    /// Something that is not a directory is there.
    #[error("is not a directory")]
    NotADirectory,
    /// Nothing is there (`held-out publish` reads an existing store).
    #[error("does not exist")]
    Missing,
    /// It cannot be read.
    #[error("cannot be read: {0}")]
    Unreadable(std::io::Error),
    /// It is, or lies below, a symbolic link that cannot be followed (it points to nothing).
    #[error(
        "leads through the symbolic link {} to {}, which cannot be followed ({error}): create the directory the link points to, or remove the link",
        one_line_path(.link), one_line_path(.target)
    )]
    LinkToNothing {
        /// The link.
        link: PathBuf,
        /// What it points to.
        target: PathBuf,
        /// Why it cannot be followed.
        error: std::io::Error,
    },
    /// It cannot be created: the nearest part of it that exists is not a directory.
    #[error("cannot be created: {} is not a directory", one_line_path(.0))]
    AboveNotADirectory(PathBuf),
}

/// The first leak in a manifest's strings (its task, its run, its paths), by the clean check every
/// statement of the evidence goes through: a published set lands in a ref meant to be pushed.
pub(super) fn manifest_leak(manifest: &HeldOutManifest) -> Result<(), LeakAt> {
    // A manifest is strings and numbers only: it always becomes a JSON value.
    serde_json::to_value(manifest).map_or(Ok(()), |value| clean::check_value(&value))
}

/// Why a walk of a directory stopped.
#[derive(Debug, thiserror::Error)]
pub(super) enum WalkError {
    /// A directory or an entry cannot be read.
    #[error("{} cannot be read: {source}", one_line(.path))]
    Unreadable {
        /// The path, as the message names it.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A name that is not UTF-8.
    #[error("{} holds a name that is not UTF-8 ({})", one_line(&.dir.display().to_string()), one_line(.name))]
    NotUtf8 {
        /// The directory.
        dir: PathBuf,
        /// The name, lossily.
        name: String,
    },
    /// More files than a set may hold.
    #[error("more than {MAX_SET_FILES} files")]
    TooMany,
    /// A symbolic link (the relative path).
    #[error("{} is a symbolic link", one_line(.0))]
    Link(String),
    /// Neither a file, a directory nor a link (the relative path).
    #[error("{} is not a regular file", one_line(.0))]
    Special(String),
}

/// The relative paths of the regular files below `dir`; a symbolic link (never followed), a
/// special file or a name that is not UTF-8 is refused.
pub(super) fn walk(dir: &Path) -> Result<Vec<String>, WalkError> {
    let mut out = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(rel_dir) = pending.pop() {
        let full = if rel_dir.is_empty() { dir.to_owned() } else { dir.join(&rel_dir) };
        let unreadable = |source| WalkError::Unreadable { path: full.display().to_string(), source };
        for entry in fs::read_dir(&full).map_err(unreadable)? {
            let entry = entry.map_err(unreadable)?;
            let name = entry.file_name().into_string().map_err(|n| WalkError::NotUtf8 {
                dir: full.clone(),
                name: n.to_string_lossy().into_owned(),
            })?;
            let rel = if rel_dir.is_empty() { name } else { format!("{rel_dir}/{name}") };
            let kind =
                entry.file_type().map_err(|source| WalkError::Unreadable { path: rel.clone(), source })?;
            if kind.is_symlink() {
                return Err(WalkError::Link(rel));
            } else if kind.is_dir() {
                pending.push(rel);
            } else if kind.is_file() {
                out.push(rel);
                if out.len() > MAX_SET_FILES {
                    return Err(WalkError::TooMany);
                }
            } else {
                return Err(WalkError::Special(rel));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads the set at `set_dir` and checks it against its manifest and its key.
pub(super) fn read_set(set_dir: &Path, key: &str, unit: &str) -> Result<ReadySet, SetProblem> {
    use SetProblem::{Invalid, Tampered};
    match fs::symlink_metadata(set_dir) {
        Ok(m) if m.file_type().is_symlink() => return Err(Invalid("it is a symbolic link".into())),
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(Invalid("it is not a directory".into())),
        Err(e) => return Err(Invalid(format!("it cannot be read: {e}"))),
    }
    let manifest_path = set_dir.join(MANIFEST_FILE);
    match fs::symlink_metadata(&manifest_path) {
        Ok(m) if m.file_type().is_file() => {}
        Ok(_) => return Err(Invalid(format!("{MANIFEST_FILE} is not a regular file"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Tampered(format!("{MANIFEST_FILE} is missing")));
        }
        Err(e) => return Err(Invalid(format!("{MANIFEST_FILE} cannot be read: {e}"))),
    }
    let bytes = read_bounded(&manifest_path, MAX_MANIFEST_BYTES)
        .map_err(|e| Invalid(format!("{MANIFEST_FILE} cannot be read: {e}")))?
        .ok_or_else(|| Invalid(format!("{MANIFEST_FILE} is larger than {MAX_MANIFEST_BYTES} bytes")))?;
    let manifest = HeldOutManifest::parse(&bytes).map_err(|e| Invalid(format!("{MANIFEST_FILE}: {e}")))?;
    if let Err(leak) = manifest_leak(&manifest) {
        return Err(Invalid(format!("{MANIFEST_FILE} would leak {leak}, and the ref is meant to be pushed")));
    }
    if manifest.unit() != unit {
        return Err(Invalid(format!(
            "{MANIFEST_FILE} is for task {}, which is not of unit {unit}",
            manifest.task
        )));
    }
    let files_dir = set_dir.join(FILES_DIR);
    let present: Vec<String> = match fs::symlink_metadata(&files_dir) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(Invalid(format!("{FILES_DIR}/ is a symbolic link")));
        }
        Ok(m) if m.is_dir() => walk(&files_dir).map_err(|e| {
            Invalid(match e {
                WalkError::Link(rel) => {
                    format!("{FILES_DIR}/{rel} is a symbolic link; a set's files must lie inside it")
                }
                WalkError::Special(rel) => format!("{FILES_DIR}/{rel} is not a regular file"),
                other => other.to_string(),
            })
        })?,
        Ok(_) => return Err(Invalid(format!("{FILES_DIR} is not a directory"))),
        Err(_) => Vec::new(),
    };
    manifest.compare_paths(present.iter().map(String::as_str)).map_err(|d| Tampered(d.to_string()))?;
    for file in &manifest.files {
        stream_checked(&files_dir, file, |reader| std::io::copy(reader, &mut std::io::sink()))?
            .map_err(|e| Invalid(format!("{FILES_DIR}/{} cannot be read: {e}", file.path)))?;
    }
    let digest = manifest_digest(&bytes);
    if digest != key {
        return Err(Tampered(format!("{MANIFEST_FILE} has changed: its sha256 is {digest}, not its key")));
    }
    Ok(ReadySet {
        key: key.to_owned(),
        task: manifest.task,
        manifest: bytes,
        files_dir,
        files: manifest.files,
    })
}

/// Streams the file `file` of the set's `files_dir` through `consume` (a reader of exactly
/// `reader.get_ref().len()` bytes), hashing it on the way, and checks the digest against the
/// manifest's: a file larger than [`MAX_FILE_BYTES`] or with other bytes is tampered. Memory
/// stays bounded whatever the file's size. What `consume` returned, its error included (then the
/// digest is not checked).
pub(super) fn stream_checked<T, E>(
    files_dir: &Path,
    file: &ManifestFile,
    consume: impl FnOnce(&mut Sha256Reader<SizedFile>) -> Result<T, E>,
) -> Result<Result<T, E>, SetProblem> {
    use SetProblem::{Invalid, Tampered};
    let opened = open_bounded(&files_dir.join(&file.path), MAX_FILE_BYTES)
        .map_err(|e| Invalid(format!("{FILES_DIR}/{} cannot be read: {e}", file.path)))?
        .ok_or_else(|| Tampered(SetDifference::TooLarge(file.path.clone()).to_string()))?;
    let mut reader = Sha256Reader::new(opened);
    let out = match consume(&mut reader) {
        Ok(out) => out,
        Err(e) => return Ok(Err(e)),
    };
    file.compare(&reader.hex()).map_err(|d| Tampered(d.to_string()))?;
    Ok(Ok(out))
}
