//! A read-only view of a project's files, so that the same spec code reads a git tree, the work
//! tree on disk, or files held in memory.
//!
//! Paths are project-relative and `/`-separated: non-empty components, none of them `.` or `..`,
//! no leading `/`, no NUL. `""` names the project root (only meaningful for [`SourceTree::entries`]).

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use super::error::{SpecError, shown};

/// A read-only file tree addressed by project-relative `/`-separated paths.
pub trait SourceTree {
    /// Bytes of the file at a project-relative `/`-separated path; Ok(None) when absent (or not a file).
    fn file(&self, path: &str) -> Result<Option<Vec<u8>>, SpecError>;
    /// Entries directly under `dir` ("" = root): (name, is_dir); Ok(None) when `dir` is absent.
    fn entries(&self, dir: &str) -> Result<Option<Vec<(String, bool)>>, SpecError>;
    /// Whether the entry at `path` is a symbolic link. No tree follows a link ([`Self::file`] and
    /// [`Self::entries`] see nothing there), so a reader asks this to refuse a link where a file or
    /// directory should be, instead of taking it for absent.
    fn is_link(&self, path: &str) -> Result<bool, SpecError>;
    /// The names of the entries directly under `dir` that are not UTF-8, which [`Self::entries`]
    /// leaves out (no path can name them), each decoded with U+FFFD for every invalid sequence;
    /// none when `dir` is absent. A reader that must skip nothing reports them.
    fn undecodable(&self, dir: &str) -> Result<Vec<String>, SpecError>;
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
    files: BTreeMap<String, Vec<u8>>,
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
        self.files.insert(path, bytes.into());
        Ok(())
    }

    /// Removes the file at `path` and returns its bytes, if it was there.
    pub fn remove(&mut self, path: &str) -> Option<Vec<u8>> {
        self.files.remove(path)
    }

    /// Every file's path, in byte order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}

impl SourceTree for MemTree {
    fn file(&self, path: &str) -> Result<Option<Vec<u8>>, SpecError> {
        check_rel_path(path, false)?;
        Ok(self.files.get(path).cloned())
    }

    fn entries(&self, dir: &str) -> Result<Option<Vec<(String, bool)>>, SpecError> {
        check_rel_path(dir, true)?;
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let mut found: BTreeMap<&str, bool> = BTreeMap::new();
        for (path, _) in self.files.range(prefix.clone()..) {
            let Some(rest) = path.strip_prefix(&prefix) else {
                break;
            };
            let (name, is_dir) = match rest.split_once('/') {
                Some((name, _)) => (name, true),
                None => (rest, false),
            };
            let slot = found.entry(name).or_insert(false);
            *slot |= is_dir;
        }
        if found.is_empty() && !dir.is_empty() {
            return Ok(None);
        }
        Ok(Some(found.into_iter().map(|(name, is_dir)| (name.to_owned(), is_dir)).collect()))
    }

    /// Files in memory are never links.
    fn is_link(&self, path: &str) -> Result<bool, SpecError> {
        check_rel_path(path, false)?;
        Ok(false)
    }

    /// Paths in memory are UTF-8.
    fn undecodable(&self, dir: &str) -> Result<Vec<String>, SpecError> {
        check_rel_path(dir, true)?;
        Ok(Vec::new())
    }
}

/// The work tree on disk under `root`.
///
/// Symbolic links are never followed (as in a git tree, a link is neither a file nor a directory
/// here), so nothing outside `root` can be read through the tree.
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
            if components.peek().is_some() && !self.is_real_dir(&at, path)? {
                return Ok(None);
            }
        }
        Ok(Some(at))
    }

    /// Whether `at` is a directory that is not a symbolic link.
    fn is_real_dir(&self, at: &Path, path: &str) -> Result<bool, SpecError> {
        match std::fs::symlink_metadata(at) {
            Ok(meta) => Ok(meta.file_type().is_dir()),
            Err(e) if absent(&e) => Ok(false),
            Err(source) => Err(io_error(path, source)),
        }
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
        check_rel_path(path, false)?;
        let Some(at) = self.resolve(path)? else {
            return Ok(None);
        };
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_file() => {}
            Ok(_) => return Ok(None),
            Err(e) if absent(&e) => return Ok(None),
            Err(source) => return Err(io_error(path, source)),
        }
        match std::fs::read(&at) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if absent(&e) => Ok(None),
            Err(source) => Err(io_error(path, source)),
        }
    }

    /// Names that are not valid UTF-8 are left out: no `&str` path can address them.
    fn entries(&self, dir: &str) -> Result<Option<Vec<(String, bool)>>, SpecError> {
        check_rel_path(dir, true)?;
        let Some(at) = self.resolve(dir)? else {
            return Ok(None);
        };
        // The root is the caller's own choice and may be reached through a link; below it, no
        // link is followed.
        let is_dir = if dir.is_empty() { at.is_dir() } else { self.is_real_dir(&at, dir)? };
        if !is_dir {
            return Ok(None);
        }
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
            let kind = entry.file_type().map_err(|source| io_error(&join(dir, &name), source))?;
            out.push((name, kind.is_dir()));
        }
        out.sort();
        Ok(Some(out))
    }

    fn undecodable(&self, dir: &str) -> Result<Vec<String>, SpecError> {
        check_rel_path(dir, true)?;
        let Some(at) = self.resolve(dir)? else {
            return Ok(Vec::new());
        };
        let reader = match std::fs::read_dir(&at) {
            Ok(reader) => reader,
            Err(e) if absent(&e) || e.kind() == ErrorKind::NotADirectory => return Ok(Vec::new()),
            Err(source) => return Err(io_error(dir, source)),
        };
        let mut out = Vec::new();
        for entry in reader {
            let name = entry.map_err(|source| io_error(dir, source))?.file_name();
            if name.to_str().is_none() {
                out.push(name.to_string_lossy().into_owned());
            }
        }
        out.sort();
        Ok(out)
    }

    fn is_link(&self, path: &str) -> Result<bool, SpecError> {
        check_rel_path(path, false)?;
        let Some(at) = self.resolve(path)? else {
            return Ok(false);
        };
        match std::fs::symlink_metadata(&at) {
            Ok(meta) => Ok(meta.file_type().is_symlink()),
            Err(e) if absent(&e) => Ok(false),
            Err(source) => Err(io_error(path, source)),
        }
    }
}

/// A git error reading `path`: a path git refuses to look up (a `\\` in a name, a `.git`
/// component) is [`SpecError::BadPath`], anything else a repository that cannot be read.
fn repository_error(path: &str, e: crate::git::GitError) -> SpecError {
    match e {
        crate::git::GitError::InvalidPath { reason, .. } => {
            SpecError::BadPath { path: shown(path, 200), reason }
        }
        e => SpecError::Repository { path: path.to_owned(), message: e.to_string() },
    }
}

/// A git tree is a source tree: the verifier reads the spec at any commit this way.
impl SourceTree for crate::git::GitTree<'_> {
    fn file(&self, path: &str) -> Result<Option<Vec<u8>>, SpecError> {
        crate::git::GitTree::file(self, path).map_err(|e| repository_error(path, e))
    }

    fn entries(&self, dir: &str) -> Result<Option<Vec<(String, bool)>>, SpecError> {
        crate::git::GitTree::entries(self, dir).map_err(|e| repository_error(dir, e))
    }

    /// A tree entry of mode 120000.
    fn is_link(&self, path: &str) -> Result<bool, SpecError> {
        let kind = crate::git::GitTree::entry_kind(self, path).map_err(|e| repository_error(path, e))?;
        Ok(kind == Some(gix::objs::tree::EntryKind::Link))
    }

    fn undecodable(&self, dir: &str) -> Result<Vec<String>, SpecError> {
        crate::git::GitTree::undecodable_names(self, dir).map_err(|e| repository_error(dir, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(t.entries("").unwrap(), Some(vec![("a.md".into(), false), ("specs".into(), true)]));
        assert_eq!(
            t.entries("specs").unwrap(),
            Some(vec![("001-x".into(), true), ("001-x.txt".into(), false)])
        );
        assert_eq!(t.entries("specs/001-x/checklists/req.md").unwrap(), None);
        assert_eq!(t.entries("nothing").unwrap(), None);
        assert_eq!(t.file("specs/001-x/spec.md").unwrap(), Some(b"spec".to_vec()));
        assert_eq!(t.file("specs").unwrap(), None);
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
        assert_eq!(fs.entries("specs").unwrap(), Some(vec![("001-x".into(), true)]));
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
        assert_eq!(fs.entries("").unwrap(), Some(vec![("link.md".into(), false), ("specs".into(), false)]));
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
        assert_eq!(fs.entries("").unwrap(), Some(vec![("specs".into(), true)]));
        assert_eq!(fs.file("specs/a.md").unwrap(), Some(b"a".to_vec()));
    }
}
