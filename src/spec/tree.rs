//! A read-only view of a project's files, so that the same spec code reads a git tree, the work
//! tree on disk, or files held in memory.
//!
//! Paths are project-relative and `/`-separated: non-empty components, none of them `.` or `..`,
//! no leading `/`, no NUL. `""` names the project root (only meaningful for [`SourceTree::entries`]).

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use super::error::{SpecError, shown};

/// What stands at a path of a [`SourceTree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A regular file, which [`SourceTree::file`] reads.
    File,
    /// A FIFO, a socket or a device (only in a work tree): never opened, as opening one could
    /// block or read without end.
    Special,
    /// A directory, which [`SourceTree::entries`] lists.
    Dir,
    /// A symbolic link: never followed, so nothing is read through it.
    Link,
    /// A submodule: in a git tree a gitlink (mode 160000, another repository's commit), in the
    /// work tree a directory holding a `.git` entry (a submodule's checkout or a nested
    /// repository). Never read into: its files are another repository's.
    Submodule,
}

/// A read-only file tree addressed by project-relative `/`-separated paths.
pub trait SourceTree {
    /// Bytes of the file at a project-relative `/`-separated path; Ok(None) when absent (or not a file).
    fn file(&self, path: &str) -> Result<Option<Vec<u8>>, SpecError>;
    /// [`Self::file`] when the file holds at most `max` bytes, else `Err` of its size. A tree that
    /// reads from storage tells the size before it reads (this default reads first: for files
    /// already in memory).
    fn file_within(&self, path: &str, max: u64) -> Result<Option<Result<Vec<u8>, u64>>, SpecError> {
        Ok(self.file(path)?.map(|bytes| {
            let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
            if size > max { Err(size) } else { Ok(bytes) }
        }))
    }
    /// Entries directly under `dir` ("" = root), each with its kind; Ok(None) when `dir` is absent
    /// or no [`EntryKind::Dir`].
    fn entries(&self, dir: &str) -> Result<Option<Vec<(String, EntryKind)>>, SpecError>;
    /// The kind of the entry at `path`; Ok(None) when absent. No tree follows a link or enters a
    /// submodule ([`Self::file`] and [`Self::entries`] see nothing there), so a reader asks this to
    /// refuse one where a file or directory should be, instead of taking it for absent.
    fn kind(&self, path: &str) -> Result<Option<EntryKind>, SpecError>;
    /// The entries directly under `dir` whose names are not UTF-8, which [`Self::entries`] leaves
    /// out (no path can name them), each name decoded with U+FFFD for every invalid sequence, with
    /// its kind; none when `dir` is absent. A reader that must skip nothing reports them.
    fn undecodable(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, SpecError>;
    /// The driver a `filter` attribute of the tree names for the file at `path` (`lfs`,
    /// `git-crypt`, any): its stored bytes are then not the text people read, which a reader
    /// refuses rather than reads. `None` when no filter applies.
    fn filter_driver(&self, path: &str) -> Result<Option<String>, SpecError>;
}

/// The first symbolic link or submodule on the way to `path` (itself included), with its kind:
/// nothing below it is read through it, and whatever lies below it is another place's (a
/// submodule's checkout is the commit the tree names).
///
/// # Errors
/// A tree that cannot be read.
pub fn link_or_submodule_on_the_way(
    tree: &dyn SourceTree,
    path: &str,
) -> Result<Option<(String, EntryKind)>, SpecError> {
    let mut upto = 0;
    for component in path.split('/') {
        upto += component.len();
        let at = path.get(..upto).unwrap_or(path);
        if let Some(kind @ (EntryKind::Link | EntryKind::Submodule)) = tree.kind(at)? {
            return Ok(Some((at.to_owned(), kind)));
        }
        upto += 1;
    }
    Ok(None)
}

/// Checks that `path` is a plain project-relative path (`""` allowed only when `root_ok`).
pub(crate) fn check_rel_path(path: &str, root_ok: bool) -> Result<(), SpecError> {
    let bad = |reason| Err(SpecError::BadPath { path: shown(path, 200), reason });
    if path.is_empty() {
        return if root_ok { Ok(()) } else { bad("it is empty") };
    }
    if path.starts_with('/') {
        return bad("it is absolute");
    }
    if path.contains('\0') {
        return bad("it contains a NUL byte");
    }
    for component in path.split('/') {
        match component {
            "" => return bad("it has an empty component"),
            "." | ".." => return bad("it has a `.` or `..` component"),
            _ => {}
        }
    }
    Ok(())
}

/// Joins a directory path and a name (`""` is the root).
pub(crate) fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") }
}

/// Files held in memory, keyed by project-relative path; directories are implied by the paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemTree {
    /// Every entry by path: a file's bytes, or `None` for a submodule.
    files: BTreeMap<String, Option<Vec<u8>>>,
}

impl MemTree {
    /// An empty tree.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A tree holding exactly these files; fails on the first path that is not plain.
    pub fn from_files<P, B, I>(files: I) -> Result<Self, SpecError>
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
        I: IntoIterator<Item = (P, B)>,
    {
        let mut tree = Self::new();
        for (path, bytes) in files {
            tree.insert(path, bytes)?;
        }
        Ok(tree)
    }

    /// Adds or replaces the file at `path` (e.g. a modification on top of a commit's tree).
    pub fn insert(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Result<(), SpecError> {
        let path = path.into();
        check_rel_path(&path, false)?;
        self.files.insert(path, Some(bytes.into()));
        Ok(())
    }

    /// Adds or replaces the entry at `path` with a submodule, as a gitlink stands in a git tree.
    pub fn insert_submodule(&mut self, path: impl Into<String>) -> Result<(), SpecError> {
        let path = path.into();
        check_rel_path(&path, false)?;
        self.files.insert(path, None);
        Ok(())
    }

    /// Removes the file at `path` and returns its bytes, if it was a file.
    pub fn remove(&mut self, path: &str) -> Option<Vec<u8>> {
        self.files.remove(path).flatten()
    }

    /// Every file's and submodule's path, in byte order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}

impl SourceTree for MemTree {
    fn file(&self, path: &str) -> Result<Option<Vec<u8>>, SpecError> {
        check_rel_path(path, false)?;
        Ok(self.files.get(path).cloned().flatten())
    }

    /// A name is a directory when a path goes on below it, whatever else it is.
    fn entries(&self, dir: &str) -> Result<Option<Vec<(String, EntryKind)>>, SpecError> {
        check_rel_path(dir, true)?;
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let mut found: BTreeMap<&str, EntryKind> = BTreeMap::new();
        for (path, bytes) in self.files.range(prefix.clone()..) {
            let Some(rest) = path.strip_prefix(&prefix) else {
                break;
            };
            let (name, kind) = match (rest.split_once('/'), bytes) {
                (Some((name, _)), _) => (name, EntryKind::Dir),
                (None, Some(_)) => (rest, EntryKind::File),
                (None, None) => (rest, EntryKind::Submodule),
            };
            let slot = found.entry(name).or_insert(kind);
            if kind == EntryKind::Dir {
                *slot = kind;
            }
        }
        if found.is_empty() && !dir.is_empty() {
            return Ok(None);
        }
        Ok(Some(found.into_iter().map(|(name, kind)| (name.to_owned(), kind)).collect()))
    }

    /// Files in memory are never links; a submodule is one where [`MemTree::insert_submodule`] put it.
    fn kind(&self, path: &str) -> Result<Option<EntryKind>, SpecError> {
        check_rel_path(path, false)?;
        if self.entries(path)?.is_some() {
            return Ok(Some(EntryKind::Dir));
        }
        Ok(self
            .files
            .get(path)
            .map(|bytes| if bytes.is_some() { EntryKind::File } else { EntryKind::Submodule }))
    }

    /// Paths in memory are UTF-8.
    fn undecodable(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, SpecError> {
        check_rel_path(dir, true)?;
        Ok(Vec::new())
    }

    /// Files in memory are their own text: no attributes apply to them.
    fn filter_driver(&self, path: &str) -> Result<Option<String>, SpecError> {
        check_rel_path(path, false)?;
        Ok(None)
    }
}

/// The work tree on disk under `root`.
///
/// Symbolic links are never followed and submodules never entered (as in a git tree, neither is a
/// file or a directory here), so nothing outside `root` or another repository's can be read
/// through the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsTree {
    /// The project root; every path is resolved under it.
    pub root: PathBuf,
}

impl FsTree {
    /// The work tree rooted at `root`.
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The on-disk path of a checked project-relative path; Ok(None) when a parent is no directory.
    fn resolve(&self, path: &str) -> Result<Option<PathBuf>, SpecError> {
        let mut at = self.root.clone();
        if path.is_empty() {
            return Ok(Some(at));
        }
        let mut components = path.split('/').peekable();
        while let Some(component) = components.next() {
            let mut parts = Path::new(component).components();
            if !matches!((parts.next(), parts.next()), (Some(Component::Normal(_)), None)) {
                return Err(SpecError::BadPath {
                    path: shown(path, 200),
                    reason: "a component is not a plain file name on this system",
                });
            }
            at.push(component);
            if components.peek().is_some() && kind_at(&at, path)? != Some(EntryKind::Dir) {
                return Ok(None);
            }
        }
        Ok(Some(at))
    }

    /// The on-disk path of the directory `dir` (checked): Ok(None) when it is absent or no
    /// [`EntryKind::Dir`]. The root is the caller's own choice and may be reached through a link.
    fn dir(&self, dir: &str) -> Result<Option<PathBuf>, SpecError> {
        check_rel_path(dir, true)?;
        let Some(at) = self.resolve(dir)? else {
            return Ok(None);
        };
        let is_dir = if dir.is_empty() { at.is_dir() } else { kind_at(&at, dir)? == Some(EntryKind::Dir) };
        Ok(is_dir.then_some(at))
    }
}

/// The kind of the entry at `at` (`path` names it in an error), not following a link; Ok(None)
/// when absent.
fn kind_at(at: &Path, path: &str) -> Result<Option<EntryKind>, SpecError> {
    match std::fs::symlink_metadata(at) {
        Ok(meta) => classify(at, path, meta.file_type()).map(Some),
        Err(e) if absent(&e) => Ok(None),
        Err(source) => Err(io_error(path, source)),
    }
}

/// The kind of the entry at `at` whose type, not following a link, is `found`: a directory is a
/// submodule when it holds a `.git` entry of any kind, looked at without following or opening it.
fn classify(at: &Path, path: &str, found: std::fs::FileType) -> Result<EntryKind, SpecError> {
    if found.is_symlink() {
        return Ok(EntryKind::Link);
    }
    if !found.is_dir() {
        return Ok(if found.is_file() { EntryKind::File } else { EntryKind::Special });
    }
    match std::fs::symlink_metadata(at.join(".git")) {
        Ok(_) => Ok(EntryKind::Submodule),
        Err(e) if absent(&e) => Ok(EntryKind::Dir),
        Err(source) => Err(io_error(path, source)),
    }
}

/// Whether an I/O error means "nothing there".
fn absent(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

fn io_error(path: &str, source: std::io::Error) -> SpecError {
    SpecError::Io { path: shown(path, 200), source }
}

impl SourceTree for FsTree {
    fn file(&self, path: &str) -> Result<Option<Vec<u8>>, SpecError> {
        Ok(self.file_within(path, u64::MAX)?.and_then(Result::ok))
    }

    fn file_within(&self, path: &str, max: u64) -> Result<Option<Result<Vec<u8>, u64>>, SpecError> {
        check_rel_path(path, false)?;
        let Some(at) = self.resolve(path)? else {
            return Ok(None);
        };
        if kind_at(&at, path)? != Some(EntryKind::File) {
            return Ok(None);
        }
        // Opened as every named input is (no link followed, never blocking, a regular file once
        // open), so an entry swapped in since it was looked at is refused, not read.
        match crate::input::read_regular(&at, max) {
            Ok(bytes) => Ok(Some(Ok(bytes))),
            Err(crate::input::InputError::TooLarge { .. }) => {
                let size = std::fs::symlink_metadata(&at).map_err(|source| io_error(path, source))?.len();
                Ok(Some(Err(size.max(max.saturating_add(1)))))
            }
            Err(crate::input::InputError::Io { source, .. }) if absent(&source) => Ok(None),
            Err(e) => Err(io_error(path, e.into_io())),
        }
    }

    /// Names that are not valid UTF-8 are left out: no `&str` path can address them.
    fn entries(&self, dir: &str) -> Result<Option<Vec<(String, EntryKind)>>, SpecError> {
        let Some(at) = self.dir(dir)? else {
            return Ok(None);
        };
        let reader = match std::fs::read_dir(&at) {
            Ok(reader) => reader,
            Err(e) if absent(&e) => return Ok(None),
            Err(source) => return Err(io_error(dir, source)),
        };
        let mut out = Vec::new();
        for entry in reader {
            let entry = entry.map_err(|source| io_error(dir, source))?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let path = join(dir, &name);
            let found = entry.file_type().map_err(|source| io_error(&path, source))?;
            let kind = classify(&entry.path(), &path, found)?;
            out.push((name, kind));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Some(out))
    }

    fn undecodable(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, SpecError> {
        let Some(at) = self.dir(dir)? else {
            return Ok(Vec::new());
        };
        let reader = match std::fs::read_dir(&at) {
            Ok(reader) => reader,
            Err(e) if absent(&e) => return Ok(Vec::new()),
            Err(source) => return Err(io_error(dir, source)),
        };
        let mut out = Vec::new();
        for entry in reader {
            let entry = entry.map_err(|source| io_error(dir, source))?;
            let name = entry.file_name();
            if name.to_str().is_none() {
                let path = join(dir, &name.to_string_lossy());
                let found = entry.file_type().map_err(|source| io_error(&path, source))?;
                let kind = classify(&entry.path(), &path, found)?;
                out.push((name.to_string_lossy().into_owned(), kind));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    fn kind(&self, path: &str) -> Result<Option<EntryKind>, SpecError> {
        check_rel_path(path, false)?;
        match self.resolve(path)? {
            Some(at) => kind_at(&at, path),
            None => Ok(None),
        }
    }

    /// The work tree holds each file as checked out, through its filter already: the text people
    /// read (a pointer git-lfs did not replace is told by its bytes).
    fn filter_driver(&self, path: &str) -> Result<Option<String>, SpecError> {
        check_rel_path(path, false)?;
        Ok(None)
    }
}

/// A git error reading `path`: a path git refuses to look up (a `\\` in a name, a `.git`
/// component) is [`SpecError::BadPath`], anything else a repository that cannot be read.
fn repository_error(path: &str, e: crate::git::GitError) -> SpecError {
    match e {
        crate::git::GitError::InvalidPath { reason, .. } => {
            SpecError::BadPath { path: shown(path, 200), reason }
        }
        e => SpecError::Repository {
            path: path.to_owned(),
            missing: e.missing_object(),
            corrupt: e.corrupt_object(),
            message: e.to_string(),
        },
    }
}

/// The kind of a git tree entry: a link is mode 120000, a submodule mode 160000 (a gitlink).
fn of_mode(kind: gix::objs::tree::EntryKind) -> EntryKind {
    use gix::objs::tree::EntryKind as Mode;
    match kind {
        Mode::Blob | Mode::BlobExecutable => EntryKind::File,
        Mode::Tree => EntryKind::Dir,
        Mode::Link => EntryKind::Link,
        Mode::Commit => EntryKind::Submodule,
    }
}

/// A git tree is a source tree: the verifier reads the spec at any commit this way.
impl SourceTree for crate::git::GitTree<'_> {
    fn file(&self, path: &str) -> Result<Option<Vec<u8>>, SpecError> {
        crate::git::GitTree::file(self, path).map_err(|e| repository_error(path, e))
    }

    fn file_within(&self, path: &str, max: u64) -> Result<Option<Result<Vec<u8>, u64>>, SpecError> {
        crate::git::GitTree::file_within(self, path, max).map_err(|e| repository_error(path, e))
    }

    fn entries(&self, dir: &str) -> Result<Option<Vec<(String, EntryKind)>>, SpecError> {
        let entries = crate::git::GitTree::entries(self, dir).map_err(|e| repository_error(dir, e))?;
        Ok(entries.map(|entries| entries.into_iter().map(|(name, kind)| (name, of_mode(kind))).collect()))
    }

    fn kind(&self, path: &str) -> Result<Option<EntryKind>, SpecError> {
        let kind = crate::git::GitTree::entry_kind(self, path).map_err(|e| repository_error(path, e))?;
        Ok(kind.map(of_mode))
    }

    fn undecodable(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, SpecError> {
        let names =
            crate::git::GitTree::undecodable_entries(self, dir).map_err(|e| repository_error(dir, e))?;
        Ok(names.into_iter().map(|(name, kind)| (name, of_mode(kind))).collect())
    }

    /// As this tree's own `.gitattributes` files give it ([`crate::git::GitTree::filter_driver`]);
    /// one that cannot be read makes `path` unreadable, never the repository.
    fn filter_driver(&self, path: &str) -> Result<Option<String>, SpecError> {
        crate::git::GitTree::filter_driver(self, path).map_err(|e| match e {
            crate::git::GitError::TreeAttributes { path: attributes, reason } => {
                SpecError::AttributesUnreadable { path: path.to_owned(), attributes, reason }
            }
            e => repository_error(path, e),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EntryKind::{Dir, File, Link, Submodule};

    fn mem() -> MemTree {
        MemTree::from_files([
            ("a.md", "top"),
            ("specs/001-x/spec.md", "spec"),
            ("specs/001-x/checklists/req.md", "list"),
            ("specs/001-x.txt", "odd"),
        ])
        .expect("plain paths")
    }

    #[test]
    fn a_memory_tree_lists_files_and_implied_directories() {
        let t = mem();
        assert_eq!(t.entries("").unwrap(), Some(vec![("a.md".into(), File), ("specs".into(), Dir)]));
        assert_eq!(
            t.entries("specs").unwrap(),
            Some(vec![("001-x".into(), Dir), ("001-x.txt".into(), File)])
        );
        assert_eq!(t.entries("specs/001-x/checklists/req.md").unwrap(), None);
        assert_eq!(t.entries("nothing").unwrap(), None);
        assert_eq!(t.file("specs/001-x/spec.md").unwrap(), Some(b"spec".to_vec()));
        assert_eq!(t.file("specs").unwrap(), None);
    }

    #[test]
    fn a_memory_tree_holds_a_submodule_as_an_entry_with_nothing_to_read() {
        let mut t = mem();
        t.insert_submodule("specs/002-y").unwrap();
        assert_eq!(
            t.entries("specs").unwrap(),
            Some(vec![("001-x".into(), Dir), ("001-x.txt".into(), File), ("002-y".into(), Submodule)])
        );
        assert_eq!(t.kind("specs/002-y").unwrap(), Some(Submodule));
        assert_eq!((t.file("specs/002-y").unwrap(), t.entries("specs/002-y").unwrap()), (None, None));
        assert_eq!(t.kind("specs/002-y/tasks.md").unwrap(), None);
        assert_eq!(t.kind("specs").unwrap(), Some(Dir));
        assert_eq!(t.kind("a.md").unwrap(), Some(File));
        assert_eq!(t.kind("nothing").unwrap(), None);
        assert_eq!(t.remove("specs/002-y"), None);
        assert_eq!(t.kind("specs/002-y").unwrap(), None);
    }

    #[test]
    fn an_empty_memory_tree_has_an_empty_root() {
        assert_eq!(MemTree::new().entries("").unwrap(), Some(vec![]));
    }

    #[test]
    fn paths_that_climb_or_are_absolute_are_refused_by_every_tree() {
        let fs = FsTree::new("/nonexistent-root");
        for bad in ["../etc/passwd", "/etc/passwd", "a//b", "a/./b", "a/..", "a/\0"] {
            assert!(matches!(mem().file(bad), Err(SpecError::BadPath { .. })), "{bad}");
            assert!(matches!(fs.file(bad), Err(SpecError::BadPath { .. })), "{bad}");
            assert!(matches!(fs.entries(bad), Err(SpecError::BadPath { .. })), "{bad}");
        }
        assert!(MemTree::new().insert("../x", "y").is_err());
        assert!(matches!(mem().file(""), Err(SpecError::BadPath { .. })));
    }

    #[test]
    fn a_work_tree_reads_files_and_directories_and_reports_absence() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("specs/001-x")).unwrap();
        std::fs::write(dir.path().join("specs/001-x/tasks.md"), "t").unwrap();
        let fs = FsTree::new(dir.path());
        assert_eq!(fs.file("specs/001-x/tasks.md").unwrap(), Some(b"t".to_vec()));
        assert_eq!(fs.file("specs/001-x").unwrap(), None);
        assert_eq!(fs.file("specs/001-x/tasks.md/deeper").unwrap(), None);
        assert_eq!(fs.file("specs/002-y/tasks.md").unwrap(), None);
        assert_eq!(fs.entries("specs").unwrap(), Some(vec![("001-x".into(), Dir)]));
        assert_eq!(fs.entries("specs/001-x/tasks.md").unwrap(), None);
        assert_eq!(fs.entries("missing").unwrap(), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_work_tree_never_follows_symbolic_links_out_of_the_root() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "s").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("specs")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("link.md")).unwrap();
        let fs = FsTree::new(dir.path());
        assert_eq!(fs.file("specs/secret.md").unwrap(), None);
        assert_eq!(fs.entries("specs").unwrap(), None);
        assert_eq!(fs.file("link.md").unwrap(), None);
        assert_eq!(fs.entries("").unwrap(), Some(vec![("link.md".into(), Link), ("specs".into(), Link)]));
    }

    #[cfg(unix)]
    #[test]
    fn a_work_tree_takes_a_directory_holding_git_for_a_submodule_and_never_enters_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for unit in ["001-x", "002-checkout", "003-nested", "004-fifo"] {
            std::fs::create_dir_all(root.join("specs").join(unit)).unwrap();
            std::fs::write(root.join("specs").join(unit).join("tasks.md"), "- [x] T001 a\n").unwrap();
        }
        std::fs::write(root.join("specs/002-checkout/.git"), "gitdir: ../../.git/modules/x\n").unwrap();
        std::fs::create_dir(root.join("specs/003-nested/.git")).unwrap();
        // A FIFO would block whoever opened it: the `.git` entry is only looked at.
        let fifo = std::process::Command::new("mkfifo").arg(root.join("specs/004-fifo/.git")).status();
        assert!(fifo.unwrap().success());
        let fs = FsTree::new(root);
        assert_eq!(
            fs.entries("specs").unwrap(),
            Some(vec![
                ("001-x".into(), Dir),
                ("002-checkout".into(), Submodule),
                ("003-nested".into(), Submodule),
                ("004-fifo".into(), Submodule),
            ])
        );
        for unit in ["002-checkout", "003-nested", "004-fifo"] {
            let at = format!("specs/{unit}");
            assert_eq!(fs.kind(&at).unwrap(), Some(Submodule), "{unit}");
            assert_eq!(fs.entries(&at).unwrap(), None, "{unit}");
            assert!(fs.undecodable(&at).unwrap().is_empty(), "{unit}");
            assert_eq!(fs.file(&format!("{at}/tasks.md")).unwrap(), None, "{unit}");
            assert_eq!(fs.kind(&format!("{at}/tasks.md")).unwrap(), None, "{unit}");
        }
        assert_eq!(fs.kind("specs/001-x").unwrap(), Some(Dir));
        assert_eq!(fs.kind("specs/001-x/tasks.md").unwrap(), Some(File));
        assert_eq!(fs.kind("specs/009-none").unwrap(), None);
        assert_eq!(fs.entries("").unwrap(), Some(vec![("specs".into(), Dir)]), "the root is read as it is");
    }

    #[test]
    fn a_git_tree_tells_a_gitlink_for_a_submodule_and_reads_nothing_through_it() {
        let fx = crate::git::test_support::Fixture::new();
        let other = fx.commit_file("other.md", "x\n", "a commit for the gitlinks to name").to_string();
        fx.write("specs/001-x/spec.md", "# spec\n");
        fx.git(&["add", "specs"]);
        for path in ["specs/001-x/tasks.md", "specs/002-y"] {
            fx.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{other},{path}")]);
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("001-x", fx.path().join("specs/003-link")).unwrap();
            fx.git(&["add", "specs/003-link"]);
        }
        fx.git(&["commit", "-q", "-m", "gitlinks"]);
        assert!(fx.git(&["ls-tree", "HEAD", "specs/002-y"]).starts_with("160000 commit "));
        let repo = fx.repo();
        let git = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
        let tree: &dyn SourceTree = &git;
        let mut specs = vec![("001-x".to_owned(), Dir), ("002-y".to_owned(), Submodule)];
        #[cfg(unix)]
        specs.push(("003-link".to_owned(), Link));
        assert_eq!(tree.entries("specs").unwrap(), Some(specs));
        assert_eq!(
            tree.entries("specs/001-x").unwrap(),
            Some(vec![("spec.md".into(), File), ("tasks.md".into(), Submodule)])
        );
        for path in ["specs/001-x/tasks.md", "specs/002-y"] {
            assert_eq!(tree.kind(path).unwrap(), Some(Submodule), "{path}");
            assert_eq!((tree.file(path).unwrap(), tree.entries(path).unwrap()), (None, None), "{path}");
        }
        assert_eq!(tree.kind("specs/002-y/tasks.md").unwrap(), None);
        assert_eq!(tree.kind("specs/001-x/spec.md").unwrap(), Some(File));
        assert_eq!(tree.kind("specs").unwrap(), Some(Dir));
    }

    #[cfg(unix)]
    #[test]
    fn a_work_tree_may_be_rooted_at_a_symbolic_link() {
        let real = tempfile::tempdir().unwrap();
        std::fs::create_dir(real.path().join("specs")).unwrap();
        std::fs::write(real.path().join("specs/a.md"), "a").unwrap();
        let holder = tempfile::tempdir().unwrap();
        let root = holder.path().join("project");
        std::os::unix::fs::symlink(real.path(), &root).unwrap();
        let fs = FsTree::new(root);
        assert_eq!(fs.entries("").unwrap(), Some(vec![("specs".into(), Dir)]));
        assert_eq!(fs.file("specs/a.md").unwrap(), Some(b"a".to_vec()));
    }
}
