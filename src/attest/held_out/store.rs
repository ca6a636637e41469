//! `speccoder held-out store`: a directory of held-out test files becomes a set in the local
//! store, written beside its place and renamed there, so a set is whole or absent.

use std::fs;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::error::HeldOutError;
use super::local::{
    MAX_FILE_BYTES, SetProblem, StoreUse, WalkError, ensure_unit_format, head_commit, manifest_leak,
    read_set, store_root, walk,
};
use crate::attest::bounded::open_bounded;
use crate::attest::target::split_target;
use crate::git::{Repo, trailers};
use crate::model::digest::Sha256Reader;
use crate::model::held_out::{
    FILES_DIR, HeldOutManifest, MANIFEST_FILE, ManifestFile, check_set_path, manifest_digest,
};
use crate::model::refs;
use crate::model::shown::{exact_path, in_line, one_line, one_line_path};
use crate::spec;

/// What `speccoder held-out store` was asked to do.
#[derive(Debug, Clone)]
pub struct StoreRequest {
    /// `<unit>/<task>` the set is for.
    pub target: String,
    /// The directory holding the held-out test files.
    pub dir: PathBuf,
    /// The run that uses the set.
    pub run: Option<String>,
    /// The store (default [`super::default_store`]).
    pub store: Option<PathBuf>,
}

/// What `speccoder held-out store` did.
#[derive(Debug, Clone, Serialize)]
pub struct StoreReport {
    /// Always `held-out store`.
    pub command: &'static str,
    /// `<unit>/<task>`.
    #[serde(serialize_with = "in_line")]
    pub target: String,
    /// `sha256:<hex>`: what the evidence's held_out phase names.
    pub manifest: String,
    /// The set's directory in the store, exactly ([`exact_path`]).
    #[serde(serialize_with = "exact_path")]
    pub set_dir: PathBuf,
    /// How many files the set holds.
    pub files: usize,
    /// The same set was stored already; nothing was written.
    pub already_stored: bool,
}

impl std::fmt::Display for StoreReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.manifest)
    }
}

/// Copies the held-out files under `req.dir` into the store and writes the set's manifest.
///
/// # Errors
/// An unknown unit or task, files that cannot be taken (a symbolic link, a special file, a name
/// that is not UTF-8 or that git takes for its own, none at all), a manifest that would leak (an
/// absolute local path in `--run`), a store inside a work tree of the repository, a damaged set with the same key.
pub fn store(repo: &Repo, req: &StoreRequest) -> Result<StoreReport, HeldOutError> {
    let (unit, task_id) = split_target(&req.target)?;
    let head = head_commit(repo)?;
    ensure_unit_format(repo, head, unit)?;
    let facts = spec::read_any_task(&repo.tree(repo.commit_tree(head)?), unit, task_id)?;
    // A set of a unit whose held-out reference cannot be written could never be published.
    refs::checked_held_out_ref(&facts.unit)?;
    let target = format!("{}/{}", facts.unit, facts.id);
    let run = req.run.as_deref().map(trailers::sanitize_value).filter(|r| !r.is_empty());
    let paths = list_source(req)?;
    // The names, the task and the run are checked before anything is copied: the manifest they
    // make, with a placeholder for each digest (a digest is hex, never a leak).
    let placeholder = |path: &String| ManifestFile { path: path.clone(), sha256: "0".repeat(64) };
    checked_manifest(req, &target, run.as_deref(), paths.iter().map(placeholder).collect())?;
    let unit_dir = store_root(repo, req.store.as_deref(), StoreUse::Write)?.join(&facts.unit);
    let (key, already_stored) = write_set(req, &unit_dir, &paths, |listed| {
        checked_manifest(req, &target, run.as_deref(), listed).map(|m| m.to_bytes())
    })?;
    Ok(StoreReport {
        command: "held-out store",
        target,
        manifest: format!("sha256:{key}"),
        set_dir: unit_dir.join(&key),
        files: paths.len(),
        already_stored,
    })
}

/// The files of `req.dir` cannot be taken.
fn source_error(req: &StoreRequest, message: String) -> HeldOutError {
    HeldOutError::Source { dir: req.dir.clone(), message }
}

/// The manifest of `listed` for `target` and `run`, checked by the manifest's rules and the clean
/// check (naming where a leak comes from).
fn checked_manifest(
    req: &StoreRequest,
    target: &str,
    run: Option<&str>,
    listed: Vec<ManifestFile>,
) -> Result<HeldOutManifest, HeldOutError> {
    let manifest = HeldOutManifest::from_digests(target, run, listed)
        .map_err(|e| source_error(req, format!("the manifest {e}")))?;
    manifest_leak(&manifest).map_err(|leak| {
        let origin = match leak.pointer.split('/').nth(1) {
            Some("run") => "the command line's --run".to_owned(),
            Some("files") => format!("a file or folder name under {}", one_line_path(&req.dir)),
            _ => "the <unit>/<task> given on the command line".to_owned(),
        };
        HeldOutError::Leak { leak, origin }
    })?;
    Ok(manifest)
}

/// Every regular file below `dir` as a `/`-separated relative path, each a name a set may hold;
/// a symbolic link, a special file, a name that is not UTF-8 or an empty directory tree is
/// refused. Nothing is read yet.
fn list_source(req: &StoreRequest) -> Result<Vec<String>, HeldOutError> {
    let refuse = |message: String| source_error(req, message);
    // DIR itself is not followed either: a link there could point the copy anywhere. It is
    // looked at as named without a trailing `/` or `/.`, with which the system follows a link.
    match fs::symlink_metadata(crate::input::as_named(&req.dir)) {
        Ok(m) if m.is_dir() => {}
        Ok(m) if m.is_symlink() => {
            return Err(refuse("it is a symbolic link; name the directory it points to".into()));
        }
        Ok(_) => return Err(refuse("it is not a directory".into())),
        Err(e) => return Err(refuse(e.to_string())),
    }
    let files = walk(&req.dir).map_err(|e| match e {
        WalkError::Link(rel) => {
            refuse(format!("{} is a symbolic link; copy the file itself into the directory", one_line(&rel)))
        }
        other => refuse(other.to_string()),
    })?;
    if files.is_empty() {
        return Err(refuse("it holds no files".into()));
    }
    for rel in &files {
        check_set_path(rel).map_err(|e| refuse(format!("the file {}: {e}", one_line(rel))))?;
    }
    Ok(files)
}

/// Copies the file `rel` of `req.dir` to `dest`, streamed (never held in memory whole), and
/// returns the sha256 of what was copied.
fn copy_hashed(req: &StoreRequest, rel: &str, dest: &Path) -> Result<String, HeldOutError> {
    let source = req.dir.join(rel);
    let unreadable = |e: std::io::Error| source_error(req, format!("{rel} cannot be read: {e}"));
    let file = open_bounded(&source, MAX_FILE_BYTES)
        .map_err(unreadable)?
        .ok_or_else(|| source_error(req, format!("{rel} is larger than {MAX_FILE_BYTES} bytes")))?;
    let mut reader = Sha256Reader::new(file);
    let mut out =
        fs::File::create(dest).map_err(|source| HeldOutError::Io { path: dest.to_owned(), source })?;
    // A read error is the source's, a write error the store's.
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(unreadable(e)),
        };
        out.write_all(&buf[..n]).map_err(|source| HeldOutError::Io { path: dest.to_owned(), source })?;
    }
    Ok(reader.hex())
}

/// An existing set with the key just computed must be intact.
fn check_stored(set_dir: &Path, key: &str, unit: &str) -> Result<(), HeldOutError> {
    read_set(set_dir, key, unit).map(drop).map_err(|problem| HeldOutError::StoredDiffers {
        path: set_dir.to_owned(),
        message: match problem {
            SetProblem::Invalid(m) | SetProblem::Tampered(m) => m,
        },
    })
}

/// The name prefix of a set being written beside its place; the rest names the process and the
/// time (the key is known only once every file was copied and hashed).
const STAGING_PREFIX: &str = ".incoming-";

/// How long after its last change a staging directory is taken for one a killed store left
/// behind: far longer than any store takes.
const ABANDONED_AFTER: Duration = Duration::from_secs(60 * 60);

/// Removes the staging directories in `unit_dir` unchanged for [`ABANDONED_AFTER`]: a store
/// killed while writing leaves its staging directory, which no reader lists as a set, and the next
/// store that writes a set of the unit clears it. One that cannot be removed stays for a later one.
fn remove_abandoned_staging(unit_dir: &Path) {
    let Ok(entries) = fs::read_dir(unit_dir) else { return };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(STAGING_PREFIX) {
            continue;
        }
        // `DirEntry::metadata` does not follow a symbolic link, so only a real directory goes.
        let abandoned =
            entry.metadata().ok().filter(fs::Metadata::is_dir).and_then(|meta| meta.modified().ok());
        if abandoned
            .and_then(|changed| now.duration_since(changed).ok())
            .is_some_and(|age| age > ABANDONED_AFTER)
        {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Copies the files `paths` of `req.dir` into a staging directory beside the set's final place,
/// one at a time and hashing each as it is copied (memory stays bounded whatever the set's size),
/// makes the manifest of those digests with `manifest`, and renames the staging directory to the
/// set's key, so a set is whole or absent. A set with that key stored already is checked and
/// kept (the copy is dropped). The key, and whether the set was stored already.
fn write_set(
    req: &StoreRequest,
    unit_dir: &Path,
    paths: &[String],
    manifest: impl FnOnce(Vec<ManifestFile>) -> Result<Vec<u8>, HeldOutError>,
) -> Result<(String, bool), HeldOutError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| HeldOutError::Io { path, source }
    };
    fs::create_dir_all(unit_dir).map_err(io(unit_dir))?;
    remove_abandoned_staging(unit_dir);
    let nanos = SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let incoming = unit_dir.join(format!("{STAGING_PREFIX}{}-{nanos}", std::process::id()));
    let result = (|| {
        fs::create_dir(&incoming).map_err(io(&incoming))?;
        let mut listed = Vec::with_capacity(paths.len());
        for rel in paths {
            let path = incoming.join(FILES_DIR).join(rel);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(io(parent))?;
            }
            listed.push(ManifestFile { path: rel.clone(), sha256: copy_hashed(req, rel, &path)? });
        }
        let bytes = manifest(listed)?;
        let key = manifest_digest(&bytes);
        let unit = unit_dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let set_dir = unit_dir.join(&key);
        if fs::symlink_metadata(&set_dir).is_ok() {
            check_stored(&set_dir, &key, unit)?;
            return Ok((key, true));
        }
        let path = incoming.join(MANIFEST_FILE);
        fs::write(&path, &bytes).map_err(io(&path))?;
        match fs::rename(&incoming, &set_dir) {
            Ok(()) => Ok((key, false)),
            // Another store of the same set won the race: keep theirs if it is intact.
            Err(_) if fs::symlink_metadata(&set_dir).is_ok() => {
                check_stored(&set_dir, &key, unit).map(|()| (key, true))
            }
            Err(e) => Err(HeldOutError::Io { path: set_dir, source: e }),
        }
    })();
    if fs::symlink_metadata(&incoming).is_ok() {
        let _ = fs::remove_dir_all(&incoming);
    }
    result
}
