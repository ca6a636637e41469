//! Held-out sets: `speccoder held-out store` puts a set into the local store, and
//! `speccoder held-out publish` publishes the sets that closed tasks name.
//!
//! The store lives outside the work tree (default `<git common dir>/speccoder/held-out/`), so the
//! implementer never sees the tests. A set is `<store>/<unit>/<key>/manifest.json` plus
//! `<store>/<unit>/<key>/files/...`, where `<key>` is the manifest's sha256 (hex).
//!
//! Publishing reads every closed task on HEAD (a reachable commit with `Spec-Task:` and a
//! `Verdict:`), takes the manifest digests it names (its held_out test-result line, its `Held-Out:`
//! trailer), checks each named local set against its manifest, and writes one commit per unit to
//! `refs/speccoder/held-out/<unit>` whose tree holds every published set as `<key>/manifest.json`
//! and `<key>/files/...`. The ref only moves forward: a new commit's tree is the old tree plus
//! the new sets, written by compare-and-swap and retried when another publisher moved it first.
//! A manifest that is not valid or names a path outside its set stops the command before anything
//! is written; a set whose bytes no longer match its manifest is named as tampered and left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::attest::pipeline::split_target;
use crate::attest::{AttestError, read_bounded};
use crate::exit;
use crate::git::{GitError, Head, ObjectId, Repo, trailers};
use crate::model::bundle::{self, NOTES_REF};
use crate::model::digest::{is_sha256_hex, sha256_hex};
use crate::model::dsse::Envelope;
use crate::model::held_out::{FILES_DIR, HeldOutManifest, MANIFEST_FILE, check_set_path, manifest_digest};
use crate::model::refs;
use crate::model::statement::RawStatement;
use crate::model::test_result::{self, Phase, TestResult};
use crate::spec;

/// The largest held-out file read.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// The largest manifest read.
pub const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;
/// The most files one set may hold.
pub const MAX_SET_FILES: usize = 10_000;
/// How often publishing re-reads and retries after another publisher moved the ref.
pub const PUBLISH_TRIES: usize = 20;

/// The default store: `<git common dir>/speccoder/held-out`.
#[must_use]
pub fn default_store(repo: &Repo) -> PathBuf {
    repo.common_dir().join("speccoder").join("held-out")
}

/// Why a held-out command stopped. Nothing is written in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum HeldOutError {
    /// A failure shared with `speccoder attest`: target, unit, task, repository.
    #[error(transparent)]
    Attest(#[from] AttestError),
    /// `--store` points into the work tree.
    #[error(
        "the held-out store {store} is inside the work tree {workdir}, where the implementer would see the tests; use a directory outside it (the default is under the git directory)"
    )]
    StoreInWorkTree {
        /// The store asked for.
        store: PathBuf,
        /// The work tree.
        workdir: PathBuf,
    },
    /// The files to store cannot be taken.
    #[error("cannot store the held-out files of {dir}: {message}")]
    Source {
        /// The directory given.
        dir: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A stored set cannot be published at all; nothing was written.
    #[error(
        "the held-out set {path}: {message}; nothing was written (repair or remove that set, then run publish again)"
    )]
    BadSet {
        /// The set's directory.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A set with this key is stored already and does not match its manifest.
    #[error(
        "the stored set {path} does not hold what its manifest says ({message}); remove it and run store again"
    )]
    StoredDiffers {
        /// The set's directory.
        path: PathBuf,
        /// What differs.
        message: String,
    },
    /// The store cannot be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Other publishers kept moving the ref.
    #[error("{reference} kept moving while publishing ({tries} tries); run publish again")]
    Contention {
        /// The ref.
        reference: String,
        /// How often it was tried.
        tries: usize,
    },
}

impl HeldOutError {
    /// The exit code for this failure.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            HeldOutError::Attest(AttestError::Git(
                GitError::Discover { .. } | GitError::NoWorkTree { .. },
            )) => exit::GIT_PRECONDITION,
            HeldOutError::Attest(e) => e.exit_code(),
            HeldOutError::StoreInWorkTree { .. } => exit::USAGE,
            HeldOutError::Source { .. }
            | HeldOutError::BadSet { .. }
            | HeldOutError::StoredDiffers { .. } => exit::CONFIG,
            HeldOutError::Contention { .. } => exit::GIT_PRECONDITION,
            HeldOutError::Io { .. } => exit::INTERNAL,
        }
    }
}

impl From<GitError> for HeldOutError {
    fn from(e: GitError) -> Self {
        HeldOutError::Attest(e.into())
    }
}

impl From<spec::SpecError> for HeldOutError {
    fn from(e: spec::SpecError) -> Self {
        HeldOutError::Attest(e.into())
    }
}

/// What `speccoder held-out store` was asked to do.
#[derive(Debug, Clone)]
pub struct StoreRequest {
    /// `<unit>/<task>` the set is for.
    pub target: String,
    /// The directory holding the held-out test files.
    pub dir: PathBuf,
    /// The run that uses the set.
    pub run: Option<String>,
    /// The store (default [`default_store`]).
    pub store: Option<PathBuf>,
}

/// What `speccoder held-out store` did.
#[derive(Debug, Clone, Serialize)]
pub struct StoreReport {
    /// Always `held-out store`.
    pub command: &'static str,
    /// `<unit>/<task>`.
    pub target: String,
    /// `sha256:<hex>`: what the evidence's held_out phase names.
    pub manifest: String,
    /// The set's directory in the store.
    pub set_dir: String,
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
/// that is not UTF-8, none at all), a store inside the work tree, a damaged set with the same key.
pub fn store(repo: &Repo, req: &StoreRequest) -> Result<StoreReport, HeldOutError> {
    let (unit, task_id) = split_target(&req.target)?;
    let head = head_commit(repo)?;
    let facts = spec::read_any_task(&repo.tree(repo.commit_tree(head)?), unit, task_id)?;
    let target = format!("{}/{}", facts.unit, facts.id);
    let run = req.run.as_deref().map(trailers::sanitize_value).filter(|r| !r.is_empty());
    let source_error = |message: String| HeldOutError::Source { dir: req.dir.clone(), message };
    let files = read_source(&req.dir).map_err(source_error)?;
    let manifest = HeldOutManifest::new(&target, run.as_deref(), &files)
        .map_err(|e| source_error(format!("the manifest {e}")))?;
    let bytes = manifest.to_bytes();
    let key = manifest_digest(&bytes);
    let unit_dir = store_root(repo, req.store.as_deref())?.join(&facts.unit);
    let set_dir = unit_dir.join(&key);
    let already_stored = if fs::symlink_metadata(&set_dir).is_ok() {
        check_stored(&set_dir, &key, &facts.unit)?;
        true
    } else {
        write_set(&unit_dir, &key, &bytes, &files)?;
        false
    };
    Ok(StoreReport {
        command: "held-out store",
        target,
        manifest: format!("sha256:{key}"),
        set_dir: set_dir.display().to_string(),
        files: files.len(),
        already_stored,
    })
}

/// What `speccoder held-out publish` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct PublishRequest {
    /// Only this unit.
    pub unit: Option<String>,
    /// The store (default [`default_store`]).
    pub store: Option<PathBuf>,
    /// Say what would be published, write nothing.
    pub dry_run: bool,
}

/// A set as published (or to be published).
#[derive(Debug, Clone, Serialize)]
pub struct SetInfo {
    /// `sha256:<hex>`.
    pub manifest: String,
    /// The task the manifest names.
    pub task: String,
    /// How many files it holds.
    pub files: usize,
    /// The closed tasks' commits that name it.
    pub named_by: Vec<String>,
}

/// A named set that was left out, and why.
#[derive(Debug, Clone, Serialize)]
pub struct LeftOut {
    /// `sha256:<hex>`.
    pub manifest: String,
    /// Why.
    pub reason: String,
    /// The closed tasks' commits that name it.
    pub named_by: Vec<String>,
}

/// What publishing did for one unit.
#[derive(Debug, Clone, Serialize)]
pub struct UnitPublish {
    /// The unit.
    pub unit: String,
    /// `refs/speccoder/held-out/<unit>`.
    pub reference: String,
    /// Where the ref pointed before.
    pub previous: Option<String>,
    /// The new commit, when the ref moved.
    pub commit: Option<String>,
    /// Sets added now (or, with --dry-run, that would be).
    pub published: Vec<SetInfo>,
    /// Named sets the ref holds already.
    pub already_published: Vec<SetInfo>,
    /// Named sets whose files do not match their manifest: never published.
    pub tampered: Vec<LeftOut>,
    /// Named sets the local store does not hold.
    pub not_in_store: Vec<LeftOut>,
    /// Stored sets no closed task names: they stay local.
    pub kept_local: Vec<String>,
}

/// What `speccoder held-out publish` did.
#[derive(Debug, Clone, Serialize)]
pub struct PublishReport {
    /// Always `held-out publish`.
    pub command: &'static str,
    /// Nothing was written.
    pub dry_run: bool,
    /// The store read.
    pub store: String,
    /// One entry per unit with named or stored sets.
    pub units: Vec<UnitPublish>,
}

impl PublishReport {
    /// 0 when every named set that is stored was published (or is already), 26 when one was
    /// tampered.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        if self.units.iter().any(|u| !u.tampered.is_empty()) { exit::DOES_NOT_HOLD } else { exit::OK }
    }
}

impl std::fmt::Display for PublishReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.dry_run { "would publish" } else { "published" };
        if self.units.is_empty() {
            writeln!(f, "no closed task names a held-out set; nothing to publish")?;
        }
        for u in &self.units {
            match (&u.commit, self.dry_run, u.published.is_empty()) {
                (Some(c), _, _) => {
                    writeln!(f, "{}: {} -> {}", u.unit, u.reference, c.get(..12).unwrap_or(c))?
                }
                (None, true, false) => writeln!(f, "{}: {} would move", u.unit, u.reference)?,
                _ => writeln!(f, "{}: {} unchanged", u.unit, u.reference)?,
            }
            for s in &u.published {
                writeln!(f, "  {verb} {} ({}, {} files)", s.manifest, s.task, s.files)?;
            }
            for s in &u.already_published {
                writeln!(f, "  already published {} ({})", s.manifest, s.task)?;
            }
            for s in &u.tampered {
                writeln!(f, "  TAMPERED, left out: {}: {}", s.manifest, s.reason)?;
            }
            for s in &u.not_in_store {
                writeln!(f, "  not in the local store: {} ({})", s.manifest, s.reason)?;
            }
            for k in &u.kept_local {
                writeln!(f, "  kept local (no closed task names it): sha256:{k}")?;
            }
        }
        Ok(())
    }
}

/// Publishes every stored set that a closed task on HEAD names (see the module documentation).
///
/// # Errors
/// An unknown `--unit`, an unborn HEAD, a store inside the work tree, a set whose manifest is not
/// valid or names a path outside the set (then nothing is written), a repository failure.
pub fn publish(repo: &Repo, req: &PublishRequest) -> Result<PublishReport, HeldOutError> {
    let head = head_commit(repo)?;
    if let Some(unit) = &req.unit {
        spec::locate_unit(&repo.tree(repo.commit_tree(head)?), unit)?;
    }
    let root = store_root(repo, req.store.as_deref())?;
    let named = named_sets(repo, head, req.unit.as_deref())?;
    let mut units: BTreeSet<String> = named.keys().cloned().collect();
    match &req.unit {
        Some(unit) => {
            units.insert(unit.clone());
        }
        None => units.extend(list_dir(&root).into_iter().filter(|n| spec::check_unit_name(n).is_ok())),
    }

    // Read and check everything first: a set that cannot be published at all stops the command.
    let mut plans = Vec::new();
    for unit in units {
        let unit_dir = root.join(&unit);
        let local: BTreeSet<String> = list_dir(&unit_dir).into_iter().filter(|n| is_sha256_hex(n)).collect();
        let empty = BTreeMap::new();
        let wanted = named.get(&unit).unwrap_or(&empty);
        let mut plan =
            Plan { unit: unit.clone(), ready: Vec::new(), tampered: Vec::new(), not_in_store: Vec::new() };
        for (key, named_by) in wanted {
            let left_out = |reason: String| LeftOut {
                manifest: format!("sha256:{key}"),
                reason,
                named_by: named_by.iter().map(ToString::to_string).collect(),
            };
            if !local.contains(key) {
                plan.not_in_store.push(left_out(format!("no set {key} under {}", unit_dir.display())));
                continue;
            }
            let set_dir = unit_dir.join(key);
            match read_set(&set_dir, key, &unit) {
                Ok(set) => plan.ready.push((set, named_by.clone())),
                Err(SetProblem::Tampered(reason)) => plan.tampered.push(left_out(reason)),
                Err(SetProblem::Invalid(message)) => {
                    return Err(HeldOutError::BadSet { path: set_dir, message });
                }
            }
        }
        let kept_local: Vec<String> = local.iter().filter(|k| !wanted.contains_key(*k)).cloned().collect();
        plans.push((plan, kept_local));
    }

    let mut report = PublishReport {
        command: "held-out publish",
        dry_run: req.dry_run,
        store: root.display().to_string(),
        units: Vec::new(),
    };
    for (plan, kept_local) in plans {
        let reference = refs::held_out_ref(&plan.unit);
        let sets: Vec<&ReadySet> = plan.ready.iter().map(|(s, _)| s).collect();
        let outcome = if req.dry_run || sets.is_empty() {
            let previous = repo.ref_target(&reference)?;
            let present = published_keys(repo, previous)?;
            let added = sets.iter().filter(|s| !present.contains(&s.key)).map(|s| s.key.clone()).collect();
            Written { previous, commit: None, added }
        } else {
            write_sets(repo, &reference, &plan.unit, &sets)?
        };
        let info = |(s, named_by): &(ReadySet, Vec<ObjectId>)| SetInfo {
            manifest: format!("sha256:{}", s.key),
            task: s.task.clone(),
            files: s.files.len(),
            named_by: named_by.iter().map(ToString::to_string).collect(),
        };
        let (published, already): (Vec<_>, Vec<_>) =
            plan.ready.iter().partition(|(s, _)| outcome.added.contains(&s.key));
        report.units.push(UnitPublish {
            unit: plan.unit,
            reference,
            previous: outcome.previous.map(|c| c.to_string()),
            commit: outcome.commit.map(|c| c.to_string()),
            published: published.into_iter().map(info).collect(),
            already_published: already.into_iter().map(info).collect(),
            tampered: plan.tampered,
            not_in_store: plan.not_in_store,
            kept_local,
        });
    }
    Ok(report)
}

/// A set read from the store and found to match its manifest.
#[derive(Debug, Clone)]
struct ReadySet {
    key: String,
    task: String,
    manifest: Vec<u8>,
    files: Vec<(String, Vec<u8>)>,
}

/// The sets of one unit, checked.
struct Plan {
    unit: String,
    ready: Vec<(ReadySet, Vec<ObjectId>)>,
    tampered: Vec<LeftOut>,
    not_in_store: Vec<LeftOut>,
}

/// Why a stored set is not published.
#[derive(Debug)]
enum SetProblem {
    /// The set cannot be read as a set at all (bad manifest, a path leaving it): stop everything.
    Invalid(String),
    /// Its bytes differ from its manifest: leave it out and name it.
    Tampered(String),
}

/// What one publication did.
struct Written {
    previous: Option<ObjectId>,
    commit: Option<ObjectId>,
    added: Vec<String>,
}

/// The checked-out commit; an unborn branch is refused.
fn head_commit(repo: &Repo) -> Result<ObjectId, HeldOutError> {
    match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => Ok(commit),
        Head::Unborn(name) => Err(AttestError::Unborn(name).into()),
    }
}

/// The store's root: `given` (refused inside the work tree) or the default.
fn store_root(repo: &Repo, given: Option<&Path>) -> Result<PathBuf, HeldOutError> {
    let Some(given) = given else { return Ok(resolve(&default_store(repo))) };
    let store = resolve(given);
    if let Some(workdir) = repo.workdir() {
        let workdir = resolve(workdir);
        let inside_git = [repo.common_dir(), repo.git_dir()].iter().any(|d| store.starts_with(resolve(d)));
        if store.starts_with(&workdir) && !inside_git {
            return Err(HeldOutError::StoreInWorkTree { store, workdir });
        }
    }
    Ok(store)
}

/// `path` made absolute, `.` and `..` resolved, links resolved as far as the path exists.
fn resolve(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut lexical = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.clone();
    let mut rest = Vec::new();
    while fs::symlink_metadata(&existing).is_err() {
        match (existing.file_name().map(ToOwned::to_owned), existing.parent().map(Path::to_owned)) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return lexical,
        }
    }
    let mut out = fs::canonicalize(&existing).unwrap_or(existing);
    out.extend(rest.iter().rev());
    out
}

/// Names of the entries of `dir` that are UTF-8 (none when `dir` cannot be read).
fn list_dir(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect()
}

/// Every regular file below `dir` as (`/`-separated relative path, bytes); a symbolic link, a
/// special file, a name that is not UTF-8 or an empty directory tree is refused.
fn read_source(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err("it is not a directory".into()),
        Err(e) => return Err(e.to_string()),
    }
    let files = walk(dir, |rel, what| match what {
        Entry::Link => Err(format!("{rel} is a symbolic link; copy the file itself into the directory")),
        Entry::Special => Err(format!("{rel} is not a regular file")),
        Entry::File => Ok(()),
    })?;
    if files.is_empty() {
        return Err("it holds no files".into());
    }
    let mut out = Vec::with_capacity(files.len());
    for rel in files {
        check_set_path(&rel).map_err(|e| format!("the file {rel}: {e}"))?;
        let bytes = read_bounded(&dir.join(&rel), MAX_FILE_BYTES)
            .map_err(|e| format!("{rel} cannot be read: {e}"))?
            .ok_or_else(|| format!("{rel} is larger than {MAX_FILE_BYTES} bytes"))?;
        out.push((rel, bytes));
    }
    Ok(out)
}

/// What a walk found at a path.
enum Entry {
    File,
    Link,
    Special,
}

/// The relative paths of the files below `dir`, each judged by `judge` (links and special files
/// are not followed); names that are not UTF-8 are refused.
fn walk(dir: &Path, judge: impl Fn(&str, Entry) -> Result<(), String>) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(rel_dir) = pending.pop() {
        let full = if rel_dir.is_empty() { dir.to_owned() } else { dir.join(&rel_dir) };
        let entries = fs::read_dir(&full).map_err(|e| format!("{} cannot be read: {e}", full.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{} cannot be read: {e}", full.display()))?;
            let name = entry.file_name().into_string().map_err(|n| {
                format!("{} holds a name that is not UTF-8 ({})", full.display(), n.to_string_lossy())
            })?;
            let rel = if rel_dir.is_empty() { name } else { format!("{rel_dir}/{name}") };
            let kind = entry.file_type().map_err(|e| format!("{rel} cannot be read: {e}"))?;
            if kind.is_symlink() {
                judge(&rel, Entry::Link)?;
            } else if kind.is_dir() {
                pending.push(rel);
            } else if kind.is_file() {
                judge(&rel, Entry::File)?;
                out.push(rel);
                if out.len() > MAX_SET_FILES {
                    return Err(format!("more than {MAX_SET_FILES} files"));
                }
            } else {
                judge(&rel, Entry::Special)?;
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads the set at `set_dir` and checks it against its manifest and its key.
fn read_set(set_dir: &Path, key: &str, unit: &str) -> Result<ReadySet, SetProblem> {
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
        Ok(m) if m.is_dir() => walk(&files_dir, |rel, what| match what {
            Entry::Link => {
                Err(format!("{FILES_DIR}/{rel} is a symbolic link; a set's files must lie inside it"))
            }
            Entry::Special => Err(format!("{FILES_DIR}/{rel} is not a regular file")),
            Entry::File => Ok(()),
        })
        .map_err(Invalid)?,
        Ok(_) => return Err(Invalid(format!("{FILES_DIR} is not a directory"))),
        Err(_) => Vec::new(),
    };
    let mut files = Vec::with_capacity(manifest.files.len());
    for file in &manifest.files {
        if present.binary_search(&file.path).is_err() {
            return Err(Tampered(format!("{FILES_DIR}/{} is missing", file.path)));
        }
        let data = read_bounded(&files_dir.join(&file.path), MAX_FILE_BYTES)
            .map_err(|e| Invalid(format!("{FILES_DIR}/{} cannot be read: {e}", file.path)))?
            .ok_or_else(|| {
                Tampered(format!("{FILES_DIR}/{} is larger than {MAX_FILE_BYTES} bytes", file.path))
            })?;
        let found = sha256_hex(&data);
        if found != file.sha256 {
            return Err(Tampered(format!(
                "{FILES_DIR}/{} has changed (manifest sha256 {}, found {found})",
                file.path, file.sha256
            )));
        }
        files.push((file.path.clone(), data));
    }
    if let Some(extra) = present.iter().find(|p| !manifest.files.iter().any(|f| &f.path == *p)) {
        return Err(Tampered(format!("{FILES_DIR}/{extra} is not in the manifest")));
    }
    let digest = manifest_digest(&bytes);
    if digest != key {
        return Err(Tampered(format!("{MANIFEST_FILE} has changed: its sha256 is {digest}, not its key")));
    }
    Ok(ReadySet { key: key.to_owned(), task: manifest.task, manifest: bytes, files })
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

/// Writes a new set beside its final place and renames it there, so a set is whole or absent.
fn write_set(
    unit_dir: &Path,
    key: &str,
    manifest: &[u8],
    files: &[(String, Vec<u8>)],
) -> Result<(), HeldOutError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| HeldOutError::Io { path, source }
    };
    fs::create_dir_all(unit_dir).map_err(io(unit_dir))?;
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let incoming = unit_dir.join(format!(".incoming-{key}-{}-{nanos}", std::process::id()));
    let result = (|| {
        fs::create_dir(&incoming).map_err(io(&incoming))?;
        for (rel, bytes) in files {
            let path = incoming.join(FILES_DIR).join(rel);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(io(parent))?;
            }
            fs::write(&path, bytes).map_err(io(&path))?;
        }
        let path = incoming.join(MANIFEST_FILE);
        fs::write(&path, manifest).map_err(io(&path))?;
        let set_dir = unit_dir.join(key);
        match fs::rename(&incoming, &set_dir) {
            Ok(()) => Ok(()),
            // Another store of the same set won the race: keep theirs if it is intact.
            Err(_) if fs::symlink_metadata(&set_dir).is_ok() => {
                let unit = unit_dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
                check_stored(&set_dir, key, unit)
            }
            Err(e) => Err(HeldOutError::Io { path: set_dir, source: e }),
        }
    })();
    if fs::symlink_metadata(&incoming).is_ok() {
        let _ = fs::remove_dir_all(&incoming);
    }
    result
}

/// Manifest digests (hex) named by the closed tasks reachable from `head`, by unit, each with the
/// commits that name it (newest first).
fn named_sets(
    repo: &Repo,
    head: ObjectId,
    only: Option<&str>,
) -> Result<BTreeMap<String, BTreeMap<String, Vec<ObjectId>>>, HeldOutError> {
    let mut out: BTreeMap<String, BTreeMap<String, Vec<ObjectId>>> = BTreeMap::new();
    for id in repo.walk(head, &[])? {
        let commit = repo.commit(id)?;
        let found = trailers::parse(&commit.message);
        let last = |key: &str| {
            found.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.trim().to_owned())
        };
        let (Some(target), Some(verdict)) = (last("Spec-Task"), last("Verdict")) else { continue };
        let Some((unit, _)) = target.split_once('/') else { continue };
        if verdict.is_empty() || only.is_some_and(|u| u != unit) || spec::check_unit_name(unit).is_err() {
            continue;
        }
        let mut digests: BTreeSet<String> = BTreeSet::new();
        if let Some(trailer) = last("Held-Out") {
            digests.extend(trailer_digest(&trailer));
        }
        if let Some(note) = repo.note(NOTES_REF, id)? {
            digests.extend(bundle::split(&note).into_iter().filter_map(held_out_digest));
        }
        for digest in digests {
            out.entry(unit.to_owned()).or_default().entry(digest).or_default().push(id);
        }
    }
    Ok(out)
}

/// The manifest digest in a `Held-Out: passed=k/n manifest=sha256:<hex>` trailer.
fn trailer_digest(value: &str) -> Option<String> {
    value
        .split_whitespace()
        .find_map(|part| part.strip_prefix("manifest=sha256:"))
        .filter(|hex| is_sha256_hex(hex))
        .map(str::to_owned)
}

/// The manifest digest of a held_out test-result line of a bundle, when the line is one.
fn held_out_digest(line: &[u8]) -> Option<String> {
    let envelope = Envelope::parse(line).ok()?;
    let statement: RawStatement = serde_json::from_slice(&envelope.payload).ok()?;
    if statement.predicate_type != test_result::TYPE {
        return None;
    }
    let result: TestResult = serde_json::from_value(statement.predicate).ok()?;
    if result.phase() != Some(Phase::HeldOut) {
        return None;
    }
    result.configuration.first()?.digest.get("sha256").filter(|hex| is_sha256_hex(hex)).cloned()
}

/// The keys (top-level directories) of the tree `commit` holds; none without a commit.
fn published_keys(repo: &Repo, commit: Option<ObjectId>) -> Result<BTreeSet<String>, HeldOutError> {
    let Some(commit) = commit else { return Ok(BTreeSet::new()) };
    let entries = repo.tree(repo.commit_tree(commit)?).entries("")?.unwrap_or_default();
    Ok(entries.into_iter().filter(|(_, is_dir)| *is_dir).map(|(name, _)| name).collect())
}

/// Every regular file of tree `tree` as (path, bytes).
fn tree_files(repo: &Repo, tree: ObjectId) -> Result<Vec<(String, Vec<u8>)>, GitError> {
    let view = repo.tree(tree);
    let mut out = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(dir) = pending.pop() {
        for (name, is_dir) in view.entries(&dir)?.unwrap_or_default() {
            let path = if dir.is_empty() { name } else { format!("{dir}/{name}") };
            if is_dir {
                pending.push(path);
            } else if let Some(bytes) = view.file(&path)? {
                out.push((path, bytes));
            }
        }
    }
    Ok(out)
}

/// Adds `sets` to the tree of `reference` in a new commit, by compare-and-swap; when another
/// publisher moved the ref first, reads it again and retries. Sets present already stay as they are.
fn write_sets(repo: &Repo, reference: &str, unit: &str, sets: &[&ReadySet]) -> Result<Written, HeldOutError> {
    for attempt in 0..PUBLISH_TRIES {
        let previous = repo.ref_target(reference)?;
        let present = published_keys(repo, previous)?;
        let added: Vec<&&ReadySet> = sets.iter().filter(|s| !present.contains(&s.key)).collect();
        if added.is_empty() {
            return Ok(Written { previous, commit: None, added: Vec::new() });
        }
        let mut files = match previous {
            Some(c) => tree_files(repo, repo.commit_tree(c)?)?,
            None => Vec::new(),
        };
        let mut message = format!("Publish held-out sets of {unit}\n\n");
        for set in &added {
            files.push((format!("{}/{MANIFEST_FILE}", set.key), set.manifest.clone()));
            files.extend(set.files.iter().map(|(p, b)| (format!("{}/{FILES_DIR}/{p}", set.key), b.clone())));
            message.push_str(&format!("sha256:{} {}\n", set.key, trailers::sanitize_value(&set.task)));
        }
        let tree = repo.tree_from_files(&files)?;
        let commit = repo.create_commit_detached(previous.as_slice(), tree, &message)?;
        let reflog = format!("held-out publish: {} sets", added.len());
        match repo.update_ref_cas(reference, previous, commit, &reflog) {
            Ok(()) => {
                let added = added.iter().map(|s| s.key.clone()).collect();
                return Ok(Written { previous, commit: Some(commit), added });
            }
            Err(GitError::RefMoved { .. } | GitError::RefLocked { .. }) => backoff(attempt),
            Err(e) => return Err(e.into()),
        }
    }
    Err(HeldOutError::Contention { reference: reference.to_owned(), tries: PUBLISH_TRIES })
}

/// Waits a little before retrying, spread so that racing publishers fall out of step.
fn backoff(attempt: usize) {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let base = 1u64 << attempt.min(5);
    std::thread::sleep(Duration::from_millis(base + u64::from(nanos % 1000) * base / 1000));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trailer_names_its_manifest_digest_only_when_well_formed() {
        let hex = "a".repeat(64);
        assert_eq!(trailer_digest(&format!("passed=3/3 manifest=sha256:{hex}")), Some(hex.clone()));
        assert_eq!(trailer_digest("off"), None);
        assert_eq!(trailer_digest("passed=1/1 manifest=sha256:ABC"), None);
    }

    #[test]
    fn a_relative_path_resolves_dots_and_keeps_what_does_not_exist_yet() {
        let dir = tempfile::tempdir().unwrap();
        let real = fs::canonicalize(dir.path()).unwrap();
        assert_eq!(resolve(&dir.path().join("a/../b/./c")), real.join("b/c"));
    }

    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    fn set(n: usize) -> ReadySet {
        let files = vec![(format!("t{n}.rs"), format!("test {n}").into_bytes())];
        let manifest = HeldOutManifest::new(&format!("001-x/T{n:03}"), None, &files).unwrap().to_bytes();
        ReadySet { key: manifest_digest(&manifest), task: format!("001-x/T{n:03}"), manifest, files }
    }

    #[test]
    fn concurrent_publishers_retry_and_never_lose_each_others_sets() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        git(dir.path(), &["config", "user.name", "P"]);
        git(dir.path(), &["config", "user.email", "p@example.com"]);
        let reference = refs::held_out_ref("001-x");
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let path = dir.path().to_owned();
                let reference = reference.clone();
                std::thread::spawn(move || {
                    let repo = Repo::discover(&path).unwrap();
                    for i in 0..12 {
                        let s = set(w * 100 + i);
                        write_sets(&repo, &reference, "001-x", &[&s]).unwrap();
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let repo = Repo::discover(dir.path()).unwrap();
        let keys = published_keys(&repo, repo.ref_target(&reference).unwrap()).unwrap();
        let expected: BTreeSet<String> =
            (0..2).flat_map(|w| (0..12).map(move |i| set(w * 100 + i).key)).collect();
        assert_eq!(keys, expected);
        // Every step moved the ref forward: 24 commits in one line.
        let tip = repo.ref_target(&reference).unwrap().unwrap();
        assert_eq!(repo.walk(tip, &[]).unwrap().len(), 24);
    }
}
