//! Trees as a read-only file source.

use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

use gix::ObjectId;
use gix::objs::tree::{EntryKind, EntryMode};

use super::convert::TreeFilters;
use super::error::GitError;
use super::path;
use super::repo::Repo;
use crate::model::shown::one_line;

/// Why [`Repo::files_below`] cannot list a tree's files.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilesBelowProblem {
    /// More entries than the caller takes.
    #[error("it holds more than {0} entries")]
    TooMany(usize),
    /// A name that is not UTF-8, in the directory named (`""`: the top; escaped when shown).
    #[error("{} holds a name that is not UTF-8", if .0.is_empty() { "its top".into() } else { one_line(.0) })]
    NotUtf8(String),
    /// An entry that is neither a file nor a directory: its path (escaped when shown) and what it is.
    #[error("{} is {}, not a file", one_line(.0), .1)]
    NotAFile(String, &'static str),
    /// A file that is executable: its path (escaped when shown).
    #[error("{} is executable", one_line(.0))]
    Executable(String),
    /// A directory git would not write so: its path (`""`: the top; escaped when shown), and why.
    #[error("{}{}", if .0.is_empty() { String::new() } else { format!("{}: ", one_line(.0)) }, .1)]
    Shape(String, TreeShapeProblem),
}

/// Why a tree is not one git writes: what `git fsck --strict` refuses in a tree. Git reads such a
/// tree its own way (a lookup finds the first of two entries of one name; a checkout or an
/// archive may take either), so a reader that must see what git sees refuses it instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeShapeProblem {
    /// Two entries of one name (escaped when shown).
    #[error("it holds {} twice", one_line(.0))]
    Duplicate(String),
    /// An entry stored after one that git sorts after it (both escaped when shown).
    #[error("its entries are out of git's order ({} before {})", one_line(.0), one_line(.1))]
    Unsorted(String, String),
    /// An entry whose mode git never writes (such as `100664`, or `040000` zero-padded).
    #[error("{} has mode {}, which git never writes", one_line(.0), .1)]
    Mode(String, String),
    /// A name git refuses in a tree (empty, `.`, `..`, holding `/`, or one git takes for `.git`).
    #[error("{} is not a name git takes in a tree", one_line(.0))]
    Name(String),
    /// An entry naming the null object.
    #[error("{} names the null object", one_line(.0))]
    NullId(String),
}

/// One entry of a decoded tree.
#[derive(Debug, Clone)]
pub(crate) struct TreeItem {
    /// The raw file name.
    pub name: Box<[u8]>,
    /// The recorded mode.
    pub mode: EntryMode,
    /// The object the entry points to.
    pub id: ObjectId,
}

impl Repo {
    /// The entries of tree `id` in stored order, each checked to parse, passed to `visit`.
    fn for_each_entry(
        &self,
        id: ObjectId,
        visit: impl FnMut(gix::objs::tree::EntryRef<'_>),
    ) -> Result<(), GitError> {
        let data = self.read_kind(id, gix::object::Kind::Tree)?;
        self.entry_refs(Some(id), &data)?.into_iter().for_each(visit);
        Ok(())
    }

    /// The raw bytes of tree `id`; nothing for an absent tree.
    fn tree_data(&self, id: Option<ObjectId>) -> Result<Vec<u8>, GitError> {
        id.map_or(Ok(Vec::new()), |id| self.read_kind(id, gix::object::Kind::Tree))
    }

    /// The entries of tree `id` parsed from its bytes `data`, in stored order, each checked to parse.
    fn entry_refs<'d>(
        &self,
        id: Option<ObjectId>,
        data: &'d [u8],
    ) -> Result<Vec<gix::objs::tree::EntryRef<'d>>, GitError> {
        gix::objs::TreeRefIter::from_bytes(data, self.object_hash())
            .map(|entry| {
                entry.map_err(|e| GitError::CorruptObject {
                    id: id.unwrap_or_else(|| ObjectId::null(self.object_hash())),
                    kind: "tree",
                    reason: e.to_string(),
                })
            })
            .collect()
    }

    /// The mode and object of the entry `name` in tree `id`: the first one in stored order when a
    /// (malformed) tree has several, as git's lookup finds. The whole tree is read even after a
    /// match, so that a tree with an entry that does not parse is refused however it is looked up.
    pub(crate) fn tree_entry(
        &self,
        id: ObjectId,
        name: &[u8],
    ) -> Result<Option<(EntryMode, ObjectId)>, GitError> {
        let mut found = None;
        self.for_each_entry(id, |entry| {
            if found.is_none() && entry.filename == name {
                found = Some((entry.mode, entry.oid.to_owned()));
            }
        })?;
        Ok(found)
    }

    /// Every entry of tree `id` by name, the first of each name in stored order (as
    /// [`Self::tree_entry`] finds it): for a tree a name is looked up in again and again.
    fn tree_index(&self, id: ObjectId) -> Result<Index, GitError> {
        let mut index = Index::new();
        self.for_each_entry(id, |entry| {
            let name = entry.filename.to_vec().into_boxed_slice();
            index.entry(name).or_insert_with(|| (entry.mode, entry.oid.to_owned()));
        })?;
        Ok(index)
    }

    /// The entries of tree `id`, sorted by name (a stable sort: duplicates stay in stored order).
    pub(crate) fn tree_items(&self, id: ObjectId) -> Result<Vec<TreeItem>, GitError> {
        let mut items = self.stored_items(id)?;
        items.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(items)
    }

    /// The entries of tree `id` in stored order.
    fn stored_items(&self, id: ObjectId) -> Result<Vec<TreeItem>, GitError> {
        let mut items = Vec::new();
        self.for_each_entry(id, |entry| {
            items.push(TreeItem {
                name: entry.filename.to_vec().into_boxed_slice(),
                mode: entry.mode,
                id: entry.oid.to_owned(),
            });
        })?;
        Ok(items)
    }

    /// The entries of tree `id` in stored order, when the tree is one git writes; otherwise what
    /// `git fsck --strict` would refuse in it first ([`TreeShapeProblem`]). For hostile trees,
    /// such as a fetched ref's, that must be read exactly as git reads them.
    ///
    /// # Errors
    /// A tree that cannot be read (the outer error); how it is not one git writes (the inner).
    pub(crate) fn strict_tree_items(
        &self,
        id: ObjectId,
    ) -> Result<Result<Vec<TreeItem>, TreeShapeProblem>, GitError> {
        let items = self.stored_items(id)?;
        let shown = |name: &[u8]| String::from_utf8_lossy(name).into_owned();
        let mut names = std::collections::HashSet::with_capacity(items.len());
        for (at, item) in items.iter().enumerate() {
            let problem = if !is_canonical_mode(item.mode) {
                Some(TreeShapeProblem::Mode(shown(&item.name), format!("{:o}", item.mode)))
            } else if !is_tree_name(&item.name, item.mode) {
                Some(TreeShapeProblem::Name(shown(&item.name)))
            } else if item.id.is_null() {
                Some(TreeShapeProblem::NullId(shown(&item.name)))
            } else if !names.insert(&item.name) {
                Some(TreeShapeProblem::Duplicate(shown(&item.name)))
            } else {
                let before = at.checked_sub(1).and_then(|i| items.get(i));
                before
                    .filter(|b| git_order(b, item).is_ge())
                    .map(|b| TreeShapeProblem::Unsorted(shown(&b.name), shown(&item.name)))
            };
            if let Some(problem) = problem {
                return Ok(Err(problem));
            }
        }
        Ok(Ok(items))
    }

    /// The blobs below `dir` (`""`: the whole tree) of tree `root`, at any depth, appended to
    /// `out`. Trees whose ids are in `seen` are not walked again (and every tree walked is added
    /// to it), so that listing many commits' trees reads each distinct tree once. Only trees are
    /// read: in a partial clone the blobs may well be missing.
    pub fn blobs_below(
        &self,
        root: ObjectId,
        dir: &str,
        seen: &mut std::collections::HashSet<ObjectId>,
        out: &mut Vec<ObjectId>,
    ) -> Result<(), GitError> {
        let Some((mode, id)) = self.tree(root).lookup(&path::components(dir)?)? else {
            return Ok(());
        };
        if mode.is_blob() {
            out.push(id);
            return Ok(());
        }
        let mut pending = vec![id];
        while let Some(tree) = pending.pop() {
            if !mode.is_tree() || !seen.insert(tree) {
                continue;
            }
            self.for_each_entry(tree, |entry| {
                if entry.mode.is_tree() {
                    pending.push(entry.oid.to_owned());
                } else if entry.mode.is_blob() {
                    out.push(entry.oid.to_owned());
                }
            })?;
        }
        Ok(())
    }

    /// The files below tree `id` at any depth (hostile input, such as a fetched ref's tree): each
    /// `/`-separated path with its blob, sorted by path; trees only are read, each as git reads it
    /// ([`Self::strict_tree_items`]). Stops at the first entry that is neither a regular file nor
    /// a directory (a symbolic link, a submodule, an executable file), a name that is not UTF-8, a
    /// tree git would not write so, or once more than `max` entries (files and directories) were
    /// seen.
    ///
    /// # Errors
    /// A tree that cannot be read (the outer error); what makes the listing unusable (the inner).
    pub fn files_below(
        &self,
        id: ObjectId,
        max: usize,
    ) -> Result<Result<Vec<(String, ObjectId)>, FilesBelowProblem>, GitError> {
        let mut files = Vec::new();
        let mut seen = 0usize;
        let mut pending = vec![(String::new(), id)];
        while let Some((dir, tree)) = pending.pop() {
            let items = match self.strict_tree_items(tree)? {
                Ok(items) => items,
                Err(problem) => return Ok(Err(FilesBelowProblem::Shape(dir, problem))),
            };
            for item in items {
                seen += 1;
                if seen > max {
                    return Ok(Err(FilesBelowProblem::TooMany(max)));
                }
                let Ok(name) = String::from_utf8(item.name.into_vec()) else {
                    return Ok(Err(FilesBelowProblem::NotUtf8(dir)));
                };
                let path = if dir.is_empty() { name } else { format!("{dir}/{name}") };
                match item.mode.kind() {
                    EntryKind::Tree => pending.push((path, item.id)),
                    EntryKind::Blob => files.push((path, item.id)),
                    EntryKind::BlobExecutable => return Ok(Err(FilesBelowProblem::Executable(path))),
                    EntryKind::Link => return Ok(Err(FilesBelowProblem::NotAFile(path, "a symbolic link"))),
                    EntryKind::Commit => return Ok(Err(FilesBelowProblem::NotAFile(path, "a submodule"))),
                }
            }
        }
        files.sort();
        Ok(Ok(files))
    }

    /// A read-only view of the files of tree `id` (cheap: nothing is read until asked).
    pub fn tree(&self, id: ObjectId) -> GitTree<'_> {
        GitTree::empty(self, id)
    }

    /// [`Self::tree`], starting from the directories `known` holds for tree `id`: a lookup
    /// below them reads none of the trees above them.
    pub fn tree_knowing<'a>(&'a self, id: ObjectId, known: &'a KnownDirs) -> GitTree<'a> {
        GitTree { known: Some(known), ..GitTree::empty(self, id) }
    }
}

/// Whether `mode` is spelled as git writes it: `100644`, `100755`, `120000`, `40000` or `160000`.
fn is_canonical_mode(mode: EntryMode) -> bool {
    mode.as_bytes(&mut Default::default()) == mode.kind().as_octal_str()
}

/// Whether git takes `name` as the name of an entry of kind `mode` in a tree, as `git fsck`
/// checks it: not empty, `.` or `..`, no `/`, and nothing NTFS or HFS+ takes for `.git` (nor,
/// for a symbolic link, for `.gitmodules`).
fn is_tree_name(name: &[u8], mode: EntryMode) -> bool {
    use gix::validate::path::component::{Mode, Options};
    let options = Options { protect_windows: false, protect_hfs: true, protect_ntfs: true };
    let link = mode.is_link().then_some(Mode::Symlink);
    gix::validate::path::component(name.into(), link, options).is_ok()
}

/// Git's order of two tree entries: by name, a directory's name read with a `/` after it.
fn git_order(a: &TreeItem, b: &TreeItem) -> std::cmp::Ordering {
    gix::objs::tree::name_order(&a.name, a.mode.is_tree(), &b.name, b.mode.is_tree())
}

/// Directories some view of a tree resolved: for a directory path, the entry it names in each
/// tree (by the tree's id) where a lookup found it. Another view of the same tree (another
/// commit's, or the same commit read again later) starts from them instead of reading the trees
/// above them again, which for a unit is `specs/`, one entry per unit. Keyed by object id, so
/// what it holds is true of every tree with that id; by path first, so that a unit's path is
/// held once however many trees it is known in.
#[derive(Debug, Default)]
pub struct KnownDirs(HashMap<Box<str>, HashMap<ObjectId, Found>>);

/// What a lookup found at a path: the entry's mode and the object it names.
type Found = (EntryMode, ObjectId);

/// A tree's entries by name, the first of each name in stored order ([`Repo::tree_index`]).
type Index = HashMap<Box<[u8]>, Found>;

impl KnownDirs {
    /// Keeps what `view` resolved for the directory `path` (as `path::components` spells it,
    /// joined by `/`), when it resolved it to an entry; nothing else.
    pub fn remember(&mut self, view: &GitTree<'_>, path: &str) {
        let Some(Some(found)) = view.dirs.borrow().get(path).copied() else { return };
        match self.0.get_mut(path) {
            Some(trees) => {
                trees.insert(view.root, found);
            }
            None => {
                self.0.insert(path.into(), HashMap::from([(view.root, found)]));
            }
        }
    }

    /// Takes in what `other` holds.
    pub fn extend(&mut self, other: KnownDirs) {
        for (path, trees) in other.0 {
            self.0.entry(path).or_default().extend(trees);
        }
    }

    /// What a lookup of `path` finds in tree `tree`, when it is known.
    fn get(&self, tree: ObjectId, path: &str) -> Option<Found> {
        self.0.get(path)?.get(&tree).copied()
    }
}

/// An entry that differs between two trees' directories ([`GitTree::changed_entries`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedEntry {
    /// The entry's name.
    pub name: String,
    /// The directory it names in this tree (`None`: absent, or not a directory).
    pub ours: Option<ObjectId>,
    /// The directory it names in the other tree (`None`: absent, or not a directory).
    pub theirs: Option<ObjectId>,
}

/// The files of one tree, read from the object database as they are asked for.
#[derive(Clone)]
pub struct GitTree<'r> {
    repo: &'r Repo,
    root: ObjectId,
    /// Directories resolved so far, by path (`None`: absent). A reader asks for several files of
    /// one directory (a unit's `tasks.md`, `spec.md`, its listing), and each would otherwise read
    /// and scan every tree above it again, `specs/` with one entry per unit among them.
    dirs: RefCell<HashMap<String, Option<(EntryMode, ObjectId)>>>,
    /// Directories resolved by an earlier view of the same tree ([`Repo::tree_knowing`]).
    known: Option<&'r KnownDirs>,
    /// Whether [`Self::filter_driver`] reads the `.gitattributes` files on a path
    /// ([`Self::as_stored`] turns it off).
    reads_filters: bool,
    /// The trees a name was looked up in, by id: `None` after the first lookup, which scans the
    /// stored tree (one lookup costs least so); then every entry by name ([`Self::child`]).
    searched: RefCell<HashMap<ObjectId, Option<Index>>>,
    /// The attributes files [`Self::filter_driver`] read, by the files on a path's way: a real
    /// `.gitattributes` at the root governs every unit, and is parsed once a view.
    filters: RefCell<HashMap<Vec<(String, ObjectId)>, TreeFilters>>,
    /// How often this view read each tree, for the tests that hold it to a few reads a tree.
    #[cfg(test)]
    reads: RefCell<HashMap<ObjectId, usize>>,
}

impl<'r> GitTree<'r> {
    /// A view of tree `id` that has resolved nothing yet.
    fn empty(repo: &'r Repo, id: ObjectId) -> Self {
        GitTree {
            repo,
            root: id,
            dirs: RefCell::default(),
            known: None,
            reads_filters: true,
            searched: RefCell::default(),
            filters: RefCell::default(),
            #[cfg(test)]
            reads: RefCell::default(),
        }
    }
}

impl GitTree<'_> {
    /// The tree this view reads.
    pub fn id(&self) -> ObjectId {
        self.root
    }

    /// This view, with files taken as stored: [`Self::filter_driver`] names no filter. For a
    /// reading of a task commit's tree (or a base's) that checks what a tick binds, whose claims
    /// are never listed from it: there the stored bytes are what the evidence binds, a filter can
    /// only make a task unreadable, and looking for `.gitattributes` in `specs/` would read that
    /// tree of one entry per unit for every tick. The tree whose ticks are listed is read with
    /// its filters.
    #[must_use]
    pub fn as_stored(mut self) -> Self {
        self.reads_filters = false;
        self
    }

    /// The entry `name` of tree `id`, as [`Repo::tree_entry`] finds it. The first lookup in a
    /// tree scans it; the second indexes it by name, and later ones read nothing: a reader that
    /// looks into each entry of a directory (`specs/`, one per unit; a change's delta folders)
    /// reads that directory's tree twice, not once an entry.
    fn child(&self, id: ObjectId, name: &str) -> Result<Option<Found>, GitError> {
        let mut searched = self.searched.borrow_mut();
        let found = match searched.get(&id) {
            Some(Some(index)) => return Ok(index.get(name.as_bytes()).copied()),
            Some(None) => {
                let index = self.read(id, Repo::tree_index)?;
                let found = index.get(name.as_bytes()).copied();
                searched.insert(id, Some(index));
                found
            }
            None => {
                searched.insert(id, None);
                self.read(id, |repo, id| repo.tree_entry(id, name.as_bytes()))?
            }
        };
        Ok(found)
    }

    /// `read(repo, id)`: every read of a tree by this view goes through here (counted in tests).
    fn read<T>(
        &self,
        id: ObjectId,
        read: impl FnOnce(&Repo, ObjectId) -> Result<T, GitError>,
    ) -> Result<T, GitError> {
        #[cfg(test)]
        {
            *self.reads.borrow_mut().entry(id).or_default() += 1;
        }
        read(self.repo, id)
    }

    /// How often this view read tree `id`.
    #[cfg(test)]
    pub(crate) fn reads_of(&self, id: ObjectId) -> usize {
        self.reads.borrow().get(&id).copied().unwrap_or_default()
    }

    /// The most reads of any one tree by this view.
    #[cfg(test)]
    pub(crate) fn most_reads_of_a_tree(&self) -> usize {
        self.reads.borrow().values().copied().max().unwrap_or_default()
    }

    /// The entry at `components` below the root, `None` when some component is absent or not a
    /// directory: found as a directory is, and remembered with it, so that what a diff of two
    /// trees learned ([`Self::changed_entries`]) answers a later lookup of the same path.
    fn lookup(&self, components: &[&str]) -> Result<Option<(EntryMode, ObjectId)>, GitError> {
        self.directory(components)
    }

    /// The entry at the directory path `dirs`, remembered in [`Self::dirs`].
    fn directory(&self, dirs: &[&str]) -> Result<Option<(EntryMode, ObjectId)>, GitError> {
        let Some((last, above)) = dirs.split_last() else {
            return Ok(Some((EntryKind::Tree.into(), self.root)));
        };
        let key = dirs.join("/");
        if let Some(known) = self.dirs.borrow().get(&key) {
            return Ok(*known);
        }
        if let Some(found) = self.known.and_then(|known| known.get(self.root, &key)) {
            self.dirs.borrow_mut().insert(key, Some(found));
            return Ok(Some(found));
        }
        let found = match self.directory(above)? {
            Some((mode, id)) if mode.is_tree() => self.child(id, last)?,
            _ => None,
        };
        self.dirs.borrow_mut().insert(key, found);
        Ok(found)
    }

    /// The object id of whatever is at `path` (a blob, a tree, a submodule commit); `None` when
    /// absent. Comparing two trees' ids for a directory tells whether anything below it changed.
    pub fn entry_id(&self, path: &str) -> Result<Option<ObjectId>, GitError> {
        let components = path::components(path)?;
        Ok(self.lookup(&components)?.map(|(_, id)| id))
    }

    /// The kind of the entry at `path` (file, executable, directory, symbolic link, submodule);
    /// `None` when absent. Tells a symbolic link apart from an absent file, which [`Self::file`]
    /// and [`Self::entries`] do not.
    pub fn entry_kind(&self, path: &str) -> Result<Option<EntryKind>, GitError> {
        let components = path::components(path)?;
        Ok(self.lookup(&components)?.map(|(mode, _)| mode.kind()))
    }

    /// The content of the regular file at `path`; `None` when absent or not a regular file (a
    /// directory, symbolic link or submodule).
    pub fn file(&self, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let components = path::components(path)?;
        if components.is_empty() {
            return Ok(None);
        }
        match self.lookup(&components)? {
            Some((mode, id)) if mode.is_blob() => self.repo.blob(id).map(Some),
            _ => Ok(None),
        }
    }

    /// [`Self::file`] when the file holds at most `max` bytes, else `Err` of its size, read from the
    /// object's header first ([`Repo::blob_within`]), so that a larger file is never read.
    pub fn file_within(&self, path: &str, max: u64) -> Result<Option<Result<Vec<u8>, u64>>, GitError> {
        let components = path::components(path)?;
        if components.is_empty() {
            return Ok(None);
        }
        match self.lookup(&components)? {
            Some((mode, id)) if mode.is_blob() => self.repo.blob_within(id, max).map(Some),
            _ => Ok(None),
        }
    }

    /// The driver the `filter` attribute names for the file at `path` (`filter=lfs`,
    /// `filter=git-crypt`, any name), as this tree's own `.gitattributes` files give it: the
    /// root's, then each directory's down to the file's, read from the tree alone (no work tree,
    /// no `info/attributes`, no user's or system's file), so the answer is the tree's, whoever
    /// asks. Each is read as `git check-attr --source` reads it ([`Self::attributes_blob`]), its
    /// patterns matched ignoring case, as a clone with `core.ignorecase` matches them. `None`
    /// when no `filter` value is set (unset, `-filter`, or no such file), and in a view
    /// [`as stored`](Self::as_stored).
    ///
    /// # Errors
    /// [`GitError::TreeAttributes`]: an attributes file on the way that cannot be read, or holds
    /// more than [`super::ATTRIBUTES_FILE_LIMIT`] bytes; a directory on the way that cannot be.
    pub fn filter_driver(&self, path: &str) -> Result<Option<String>, GitError> {
        let components = path::components(path)?;
        if !self.reads_filters {
            return Ok(None);
        }
        let mut files = Vec::new();
        for depth in 0..components.len() {
            let mut at = components[..depth].to_vec();
            at.push(".gitattributes");
            if let Some(id) = self.attributes_blob(&at)? {
                files.push((at.join("/"), id));
            }
        }
        if files.is_empty() {
            return Ok(None);
        }
        let mut filters = self.filters.borrow_mut();
        let filters = match filters.entry(files) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(new) => {
                let parsed = TreeFilters::new(self.repo, new.key())?;
                new.insert(parsed)
            }
        };
        filters.filter_of(self.repo, path)
    }

    /// The blob of the attributes file at `at` as `git check-attr --source` reads it: the
    /// entry's object whatever its mode, when that object is a blob. So a symbolic link's blob
    /// (its target) is read as rules, as is a gitlink naming a blob this repository holds; a
    /// directory, or a gitlink to a commit the repository lacks (a submodule's), is none. A file
    /// or link whose blob is missing is returned, for its reading to fail.
    fn attributes_blob(&self, at: &[&str]) -> Result<Option<ObjectId>, GitError> {
        Ok(match self.lookup(at)? {
            Some((mode, _)) if mode.is_tree() => None,
            Some((mode, id)) if mode.is_commit() => {
                let header = self.repo.inner.try_find_header(id).ok().flatten();
                header.filter(|h| h.kind() == gix::object::Kind::Blob).map(|_| id)
            }
            Some((_, id)) => Some(id),
            None => None,
        })
    }

    /// The entries of directory `dir` (`""` is the root) as `(name, kind)` in name order; `None`
    /// when `dir` is absent or not a directory. Names that are not UTF-8 are left out.
    pub fn entries(&self, dir: &str) -> Result<Option<Vec<(String, EntryKind)>>, GitError> {
        let components = path::components(dir)?;
        let Some((mode, id)) = self.directory(&components)? else {
            return Ok(None);
        };
        if !mode.is_tree() {
            return Ok(None);
        }
        let items = self.read(id, Repo::tree_items)?;
        let mut out: Vec<(String, EntryKind)> = items
            .iter()
            .filter_map(|item| {
                let name = std::str::from_utf8(&item.name).ok()?;
                Some((name.to_owned(), item.mode.kind()))
            })
            .collect();
        out.dedup_by(|a, b| a.0 == b.0);
        Ok(Some(out))
    }

    /// The entries of directory `dir` whose names are not UTF-8, which [`Self::entries`] leaves
    /// out (no `&str` path can name them), each name decoded with U+FFFD for each invalid
    /// sequence, with its kind, in name order; none when `dir` is absent or not a directory.
    pub fn undecodable_entries(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, GitError> {
        let components = path::components(dir)?;
        match self.directory(&components)? {
            Some((mode, id)) if mode.is_tree() => Ok(self
                .read(id, Repo::tree_items)?
                .iter()
                .filter(|item| std::str::from_utf8(&item.name).is_err())
                .map(|item| (String::from_utf8_lossy(&item.name).into_owned(), item.mode.kind()))
                .collect()),
            _ => Ok(Vec::new()),
        }
    }

    /// The entries of directory `dir` that differ between this tree and `other` (added, removed,
    /// or pointing to another object or mode), in git's name order, each with the directory it
    /// names on either side; nothing when `dir` is the same object in both. Neither side's entries
    /// are copied: the two sorted lists are walked side by side. Names that are not UTF-8 are
    /// left out. What a lookup of `dir/<name>` finds in this tree and in `other` is remembered for
    /// each name returned, as a lookup would have ([`KnownDirs::remember`] keeps it).
    pub fn changed_entries(&self, other: &GitTree<'_>, dir: &str) -> Result<Vec<ChangedEntry>, GitError> {
        let components = path::components(dir)?;
        let tree_id = |view: &GitTree<'_>| -> Result<Option<ObjectId>, GitError> {
            Ok(view.directory(&components)?.filter(|(mode, _)| mode.is_tree()).map(|(_, id)| id))
        };
        let (ours, theirs) = (tree_id(self)?, tree_id(other)?);
        if ours == theirs {
            return Ok(Vec::new());
        }
        let tree_data = |id: Option<ObjectId>| match id {
            Some(id) => self.read(id, |repo, id| repo.tree_data(Some(id))),
            None => Ok(Vec::new()),
        };
        let (ours_data, theirs_data) = (tree_data(ours)?, tree_data(theirs)?);
        let (ours, theirs) =
            (self.repo.entry_refs(ours, &ours_data)?, self.repo.entry_refs(theirs, &theirs_data)?);
        let changed = differing_entries(&ours, &theirs);
        let dir = components.join("/");
        self.remember_changed(&dir, &ours, &changed);
        other.remember_changed(&dir, &theirs, &changed);
        Ok(changed)
    }

    /// Remembers what a lookup of `<dir>/<name>` finds for each of `changed`, among the entries
    /// `ours` of `dir` in this tree: the first entry of the name in stored order, as
    /// [`Repo::tree_entry`] finds it. One pass over `ours`, each entry's name looked up among the
    /// few changed names by binary search, not hashed.
    fn remember_changed(&self, dir: &str, ours: &[gix::objs::tree::EntryRef<'_>], changed: &[ChangedEntry]) {
        let mut found: Vec<(&[u8], Option<Found>)> =
            changed.iter().map(|entry| (entry.name.as_bytes(), None)).collect();
        found.sort_unstable_by(|a, b| a.0.cmp(b.0));
        found.dedup_by(|a, b| a.0 == b.0);
        let at = |found: &[(&[u8], Option<Found>)], name: &[u8]| {
            found.binary_search_by(|(n, _)| (*n).cmp(name)).ok()
        };
        for entry in ours {
            if let Some(at) = at(&found, entry.filename) {
                found[at].1.get_or_insert_with(|| (entry.mode, entry.oid.to_owned()));
            }
        }
        let mut dirs = self.dirs.borrow_mut();
        for ChangedEntry { name, .. } in changed {
            let path = if dir.is_empty() { name.clone() } else { format!("{dir}/{name}") };
            dirs.insert(path, at(&found, name.as_bytes()).and_then(|at| found[at].1));
        }
    }

    /// The names of directory `dir` (`""` is the root) with the object each points to, in name
    /// order; `None` when `dir` is absent or not a directory. Comparing two trees' lists tells
    /// which entries differ without reading below them. Names that are not UTF-8 are left out.
    pub fn entry_ids(&self, dir: &str) -> Result<Option<Vec<(String, ObjectId)>>, GitError> {
        let components = path::components(dir)?;
        match self.directory(&components)? {
            Some((mode, id)) if mode.is_tree() => Ok(Some(
                self.read(id, Repo::tree_items)?
                    .into_iter()
                    .filter_map(|item| Some((String::from_utf8(item.name.into_vec()).ok()?, item.id)))
                    .collect(),
            )),
            _ => Ok(None),
        }
    }
}

/// The entries that differ between the entry lists `ours` and `theirs` of one directory in two
/// trees (added, removed, or pointing to another object or mode), in git's name order, each with
/// the directory it names on either side. The two sorted lists are walked side by side; an entry
/// the same on both sides, nearly all of them, costs one comparison. Names that are not UTF-8
/// are left out.
fn differing_entries(
    ours: &[gix::objs::tree::EntryRef<'_>],
    theirs: &[gix::objs::tree::EntryRef<'_>],
) -> Vec<ChangedEntry> {
    use std::cmp::Ordering;
    let tree_of = |entry: Option<&gix::objs::tree::EntryRef<'_>>| {
        entry.filter(|e| e.mode.is_tree()).map(|e| e.oid.to_owned())
    };
    let (mut i, mut j) = (0, 0);
    let mut changed: Vec<ChangedEntry> = Vec::new();
    loop {
        let (a, b) = match (ours.get(i), theirs.get(j)) {
            (None, None) => break,
            (Some(x), Some(y)) if x == y => {
                (i, j) = (i + 1, j + 1);
                continue;
            }
            (Some(x), Some(y)) => match x.cmp(y) {
                Ordering::Equal => (Some(x), Some(y)),
                Ordering::Less => (Some(x), None),
                Ordering::Greater => (None, Some(y)),
            },
            (a, b) => (a, b),
        };
        i += usize::from(a.is_some());
        j += usize::from(b.is_some());
        let Some(name) = a.or(b).and_then(|entry| std::str::from_utf8(entry.filename).ok()) else {
            continue;
        };
        let (ours, theirs) = (tree_of(a), tree_of(b));
        match changed.last_mut().filter(|last| last.name == name) {
            // A file and a directory of one name sort apart: one entry for the name.
            Some(last) => {
                last.ours = last.ours.or(ours);
                last.theirs = last.theirs.or(theirs);
            }
            None => changed.push(ChangedEntry { name: name.to_owned(), ours, theirs }),
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    //! Trees as a file source, history walks, and where a (linked) work tree keeps its data.

    use super::{EntryKind, KnownDirs};
    use crate::git::test_support::Fixture;
    use crate::git::{GitError, ObjectId, Repo};

    #[test]
    fn a_tree_reads_files_and_lists_directories_like_git_ls_tree() {
        let fx = Fixture::new();
        fx.write("specs/001-x/spec.md", "# spec\n");
        fx.write("specs/001-x/tasks.md", "- [ ] T001\n");
        fx.write("specs/002-y/tasks.md", "- [ ] T001\n");
        fx.write_executable("run.sh", "#!/bin/sh\n");
        #[cfg(unix)]
        std::os::unix::fs::symlink("run.sh", fx.path().join("link")).unwrap();
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "files"]);
        let repo = fx.repo();
        let tree = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);

        assert_eq!(tree.file("specs/001-x/tasks.md").unwrap().unwrap(), b"- [ ] T001\n");
        assert_eq!(tree.file("run.sh").unwrap().unwrap(), b"#!/bin/sh\n");
        assert_eq!(tree.file("specs/001-x/absent.md").unwrap(), None);
        assert_eq!(tree.file("specs").unwrap(), None, "a directory is not a file");
        assert_eq!(tree.file("run.sh/inner").unwrap(), None, "a file has no children");
        #[cfg(unix)]
        assert_eq!(tree.file("link").unwrap(), None, "a symbolic link is not a regular file");
        assert!(matches!(tree.file("../etc/passwd"), Err(GitError::InvalidPath { .. })));

        let specs = tree.entries("specs").unwrap().unwrap();
        assert_eq!(specs, vec![("001-x".to_owned(), EntryKind::Tree), ("002-y".to_owned(), EntryKind::Tree)]);
        let files = tree.entries("specs/001-x/").unwrap().unwrap();
        assert_eq!(
            files,
            vec![("spec.md".to_owned(), EntryKind::Blob), ("tasks.md".to_owned(), EntryKind::Blob)]
        );
        assert_eq!(tree.entries("run.sh").unwrap(), None);
        assert_eq!(tree.entries("nowhere").unwrap(), None);
        let root: Vec<String> = tree.entries("").unwrap().unwrap().into_iter().map(|e| e.0).collect();
        let by_git: Vec<String> =
            fx.git(&["ls-tree", "--name-only", "HEAD"]).lines().map(str::to_owned).collect();
        assert_eq!(root, by_git);
    }

    #[test]
    fn many_commits_share_cached_trees_and_each_sees_its_own_content() {
        let fx = Fixture::new();
        let mut commits = Vec::new();
        for i in 0..30 {
            commits.push(fx.commit_file("specs/001-x/tasks.md", format!("version {i}\n"), &format!("c{i}")));
        }
        let repo = fx.repo();
        for (i, id) in commits.iter().enumerate() {
            let tree = repo.tree(repo.commit(*id).unwrap().tree);
            assert_eq!(
                tree.file("specs/001-x/tasks.md").unwrap().unwrap(),
                format!("version {i}\n").into_bytes()
            );
        }
    }

    #[test]
    fn a_missing_tree_is_an_error_naming_the_object() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "a");
        let repo = fx.repo();
        let missing = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        let err = repo.tree(missing).file("a.txt").unwrap_err();
        assert!(matches!(err, GitError::ObjectMissing { id, .. } if id == missing), "{err}");
    }

    /// `git rev-list` output as ids.
    fn rev_list(fx: &Fixture, args: &[&str]) -> Vec<ObjectId> {
        let mut all = vec!["rev-list"];
        all.extend_from_slice(args);
        fx.git(&all).lines().map(|l| ObjectId::from_hex(l.as_bytes()).unwrap()).collect()
    }

    #[test]
    fn walking_history_matches_git_rev_list_including_merges_and_stops() {
        let fx = Fixture::new();
        let root = fx.commit_file("a.txt", "1\n", "root");
        let a = fx.commit_file("a.txt", "2\n", "a");
        fx.git(&["checkout", "-q", "-b", "side"]);
        let s1 = fx.commit_file("s.txt", "1\n", "s1");
        fx.git(&["checkout", "-q", "main"]);
        let b = fx.commit_file("b.txt", "1\n", "b");
        fx.git(&["merge", "-q", "--no-edit", "side"]);
        let merge = fx.rev("HEAD");
        let c = fx.commit_file("c.txt", "1\n", "c");
        let repo = fx.repo();

        assert_eq!(repo.walk(c, &[]).unwrap(), rev_list(&fx, &[&c.to_string()]));
        let stop = [a];
        assert_eq!(repo.walk(c, &stop).unwrap(), rev_list(&fx, &[&c.to_string(), &format!("^{a}")]));
        assert_eq!(repo.walk(c, &[s1, b]).unwrap(), vec![c, merge]);
        assert_eq!(repo.merge_base(s1, b).unwrap(), Some(a));
        assert_eq!(fx.git(&["merge-base", &s1.to_string(), &b.to_string()]).trim(), a.to_string());
        assert!(repo.is_ancestor(root, c).unwrap());
        assert!(repo.is_ancestor(s1, c).unwrap());
        assert!(repo.is_ancestor(c, c).unwrap());
        assert!(!repo.is_ancestor(c, s1).unwrap());
        assert!(!repo.is_ancestor(s1, b).unwrap());
        assert_eq!(repo.first_parent(merge).unwrap(), Some(b));
        assert_eq!(repo.first_parent(root).unwrap(), None);
        assert_eq!(repo.commit(merge).unwrap().parents, vec![b, s1]);
    }

    #[test]
    fn unrelated_histories_have_no_merge_base() {
        let fx = Fixture::new();
        let a = fx.commit_file("a.txt", "1\n", "a");
        fx.git(&["checkout", "-q", "--orphan", "other"]);
        let b = fx.commit_file("b.txt", "1\n", "b");
        let repo = fx.repo();
        assert_eq!(repo.merge_base(a, b).unwrap(), None);
        assert!(!repo.is_ancestor(a, b).unwrap());
    }

    #[test]
    fn a_linked_worktree_has_its_own_git_dir_and_shares_refs_and_notes_with_the_main_one() {
        let fx = Fixture::new();
        let base = fx.commit_file("a.txt", "a\n", "base");
        let linked = fx.path().parent().unwrap().join("linked");
        fx.git(&["worktree", "add", "-q", "-b", "wt", linked.to_str().unwrap()]);
        let main = fx.repo();
        let wt = Repo::discover(&linked).unwrap();
        assert_eq!(wt.workdir().unwrap().canonicalize().unwrap(), linked.canonicalize().unwrap());
        assert_ne!(wt.git_dir(), main.git_dir());
        assert_eq!(wt.common_dir().canonicalize().unwrap(), main.common_dir().canonicalize().unwrap());
        assert_eq!(
            wt.head().unwrap(),
            crate::git::Head::Branch { name: "refs/heads/wt".into(), commit: base }
        );
        wt.update_note(crate::git::NOTES_REF, base, |_| {
            Ok::<_, std::convert::Infallible>(Some(b"from wt".to_vec()))
        })
        .unwrap();
        assert_eq!(main.note(crate::git::NOTES_REF, base).unwrap().unwrap(), b"from wt");
        assert_eq!(fx.git(&["notes", "--ref=speccoder", "show", &base.to_string()]), "from wt");
    }

    /// A tree object written as raw entries (`mode name\0id`), as a hostile writer could store it.
    fn raw_tree(fx: &Fixture, entries: &[(&str, &str, ObjectId)]) -> ObjectId {
        let mut raw = Vec::new();
        for (mode, name, id) in entries {
            raw.extend_from_slice(format!("{mode} {name}\0").as_bytes());
            raw.extend_from_slice(id.as_bytes());
        }
        let out = fx.git_bytes(&["hash-object", "-t", "tree", "-w", "--literally", "--stdin"], Some(&raw));
        ObjectId::from_hex(String::from_utf8(out).unwrap().trim().as_bytes()).unwrap()
    }

    #[test]
    fn a_lookup_finds_the_first_of_duplicate_names_and_stops_there() {
        let fx = Fixture::new();
        let blob = |text: &str| {
            let out = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(text.as_bytes()));
            ObjectId::from_hex(String::from_utf8(out).unwrap().trim().as_bytes()).unwrap()
        };
        let (first, second, other) = (blob("first\n"), blob("second\n"), blob("other\n"));
        let tree = raw_tree(&fx, &[("100644", "b", other), ("100644", "a", first), ("100644", "a", second)]);
        let repo = fx.repo();
        // A view scans the stored tree first, then looks names up in its index: both find the first.
        let view = repo.tree(tree);
        for _ in 0..4 {
            assert_eq!(repo.tree(tree).file("a").unwrap().unwrap(), b"first\n");
            assert_eq!(view.file("a").unwrap().unwrap(), b"first\n");
            assert_eq!(view.file("b").unwrap().unwrap(), b"other\n");
        }
        assert_eq!(repo.tree(tree).entry_id("a").unwrap(), Some(first));
        assert_eq!(
            repo.tree(tree).file("b").unwrap().unwrap(),
            b"other\n",
            "an unsorted tree is searched whole"
        );
        let names: Vec<String> =
            repo.tree(tree).entries("").unwrap().unwrap().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "b"], "a listing names each entry once, sorted");
    }

    #[test]
    fn a_strict_reading_takes_the_trees_git_writes_and_refuses_each_one_git_fsck_strict_refuses() {
        use super::TreeShapeProblem as P;
        let fx = Fixture::new();
        let out = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"x\n"));
        let blob = ObjectId::from_hex(String::from_utf8(out).unwrap().trim().as_bytes()).unwrap();
        let dir = raw_tree(&fx, &[("100644", "x", blob)]);
        let repo = fx.repo();
        let strict = |entries: &[(&str, &str, ObjectId)]| {
            let tree = raw_tree(&fx, entries);
            let fsck = fx.git_output(&["fsck", "--strict", "--no-dangling", "--no-progress"], None);
            let refused_by_git = String::from_utf8_lossy(&fsck.stderr).contains(&tree.to_string());
            (repo.strict_tree_items(tree).unwrap().map(|items| items.len()), refused_by_git)
        };
        // `a` file, `a-b`, `a` directory: git's order reads a directory's name with a `/` after it.
        let kept =
            [("100644", "a", blob), ("100644", "a-b", blob), ("40000", "a.d", dir), ("40000", "a0", dir)];
        assert_eq!(strict(&kept), (Ok(4), false));
        type Entries<'a> = &'a [(&'a str, &'a str, ObjectId)];
        let cases: [(Entries<'_>, P); 8] = [
            (&[("100644", "a", blob), ("100644", "a", blob)], P::Duplicate("a".into())),
            (
                &[("100644", "a", blob), ("100644", "a.b", blob), ("40000", "a", dir)],
                P::Duplicate("a".into()),
            ),
            (&[("100644", "b", blob), ("100644", "a", blob)], P::Unsorted("b".into(), "a".into())),
            (&[("40000", "a", dir), ("100644", "a-b", blob)], P::Unsorted("a".into(), "a-b".into())),
            (&[("100664", "a", blob)], P::Mode("a".into(), "100664".into())),
            (&[("040000", "a", dir)], P::Mode("a".into(), "040000".into())),
            (&[("100644", ".GIT", blob)], P::Name(".GIT".into())),
            (&[("100644", "a/b", blob)], P::Name("a/b".into())),
        ];
        for (entries, problem) in cases {
            let (read, refused_by_git) = strict(entries);
            assert_eq!(read, Err(problem.clone()), "{entries:?}");
            assert!(refused_by_git, "git fsck --strict takes {entries:?}, which is refused as {problem}");
        }
    }

    /// A repository of units `001-x` and `002-y`, and a commit ticking `001-x` on their commit.
    fn two_units_and_a_tick() -> (Fixture, ObjectId, ObjectId) {
        let fx = Fixture::new();
        fx.write("specs/001-x/tasks.md", "- [ ] T001\n");
        fx.write("specs/002-y/tasks.md", "- [ ] T001\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "units"]);
        let parent = fx.rev("HEAD");
        let commit = fx.commit_file("specs/001-x/tasks.md", "- [x] T001\n", "tick");
        (fx, parent, commit)
    }

    #[test]
    fn a_view_knowing_a_unit_directory_reads_no_tree_above_it() {
        let (fx, parent, commit) = two_units_and_a_tick();
        let repo = fx.repo();
        let (ours, theirs) = (repo.commit(commit).unwrap().tree, repo.commit(parent).unwrap().tree);
        let view = repo.tree(ours);
        let changed = view.changed_entries(&repo.tree(theirs), "specs").unwrap();
        assert_eq!(changed.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["001-x"]);
        let mut known = KnownDirs::default();
        known.remember(&view, "specs/001-x");
        known.remember(&view, "specs/002-y");
        // The `specs` tree of the commit is gone: only a view knowing `specs/001-x` reads below it.
        let specs = fx.rev(&format!("{commit}:specs")).to_string();
        std::fs::remove_file(fx.path().join(".git/objects").join(&specs[..2]).join(&specs[2..])).unwrap();
        let repo = fx.repo();
        let knowing = repo.tree_knowing(ours, &known);
        assert_eq!(knowing.file("specs/001-x/tasks.md").unwrap().unwrap(), b"- [x] T001\n");
        let unknown = knowing.file("specs/002-y/tasks.md");
        assert!(matches!(unknown, Err(GitError::ObjectMissing { .. })), "{unknown:?}");
        assert!(matches!(repo.tree(ours).file("specs/001-x/tasks.md"), Err(GitError::ObjectMissing { .. })));
        assert!(
            matches!(repo.tree_knowing(theirs, &known).file("specs/001-x/tasks.md"), Ok(Some(_))),
            "another tree is read as it is"
        );
    }

    #[test]
    fn a_diff_of_two_trees_answers_later_lookups_of_the_changed_entries_in_both_without_reading_again() {
        let (fx, parent, commit) = two_units_and_a_tick();
        let repo = fx.repo();
        let (ours, theirs) =
            (repo.tree(repo.commit(commit).unwrap().tree), repo.tree(repo.commit(parent).unwrap().tree));
        assert_eq!(ours.changed_entries(&theirs, "specs").unwrap().len(), 1);
        for (view, rev) in [(&ours, commit), (&theirs, parent)] {
            let specs = fx.rev(&format!("{rev}:specs"));
            let read_before = view.reads_of(specs);
            assert_eq!(view.entry_id("specs/001-x").unwrap(), Some(fx.rev(&format!("{rev}:specs/001-x"))));
            assert_eq!(view.reads_of(specs), read_before, "the lookup in {rev} read `specs` again");
        }
    }

    #[test]
    fn a_known_directory_is_the_one_a_lookup_finds_among_duplicate_names() {
        let fx = Fixture::new();
        let unit = |text: &str| {
            let out = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(text.as_bytes()));
            let blob = ObjectId::from_hex(String::from_utf8(out).unwrap().trim().as_bytes()).unwrap();
            raw_tree(&fx, &[("100644", "tasks.md", blob)])
        };
        let (first, second) = (unit("- [ ] T001\n"), unit("- [x] T001\n"));
        let root = |specs: ObjectId| raw_tree(&fx, &[("40000", "specs", specs)]);
        // The first `001-x` is the parent's, the second differs: the lookup finds the first.
        let ours = root(raw_tree(&fx, &[("40000", "001-x", first), ("40000", "001-x", second)]));
        let theirs = root(raw_tree(&fx, &[("40000", "001-x", first)]));
        let repo = fx.repo();
        let view = repo.tree(ours);
        let changed = view.changed_entries(&repo.tree(theirs), "specs").unwrap();
        assert_eq!(changed.iter().map(|c| c.ours).collect::<Vec<_>>(), [Some(second)]);
        let mut known = KnownDirs::default();
        known.remember(&view, "specs/001-x");
        let looked_up = repo.tree(ours).file("specs/001-x/tasks.md").unwrap();
        assert_eq!(looked_up.as_deref(), Some(&b"- [ ] T001\n"[..]));
        assert_eq!(repo.tree_knowing(ours, &known).file("specs/001-x/tasks.md").unwrap(), looked_up);
    }

    #[test]
    fn a_tree_with_an_entry_that_does_not_parse_is_an_error_naming_it_however_often_it_is_read() {
        let fx = Fixture::new();
        let out = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"x\n"));
        let blob = ObjectId::from_hex(String::from_utf8(out).unwrap().trim().as_bytes()).unwrap();
        let tree = raw_tree(&fx, &[("100644", "a", blob), ("999999999", "b", blob), ("100644", "c", blob)]);
        let repo = fx.repo();
        // A new view scans the tree; one that looked into it before indexes it: the answer is the same.
        let view = repo.tree(tree);
        for name in ["a", "c", "a", "a", "c"] {
            for found in [repo.tree(tree).file(name), view.file(name)] {
                match found {
                    Err(GitError::CorruptObject { id, kind: "tree", .. }) => assert_eq!(id, tree),
                    other => panic!("expected a corrupt-tree error for {name}, got {other:?}"),
                }
            }
        }
    }

    #[test]
    fn a_view_reads_each_tree_as_often_however_many_of_its_entries_it_looks_into() {
        let most_reads = |units: usize| {
            let fx = Fixture::new();
            for n in 0..units {
                fx.write(&format!("specs/{n:03}-x/tasks.md"), "- [ ] T001\n");
            }
            fx.git(&["add", "."]);
            fx.git(&["commit", "-q", "-m", "units"]);
            let repo = fx.repo();
            let view = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
            for n in 0..units {
                assert!(view.file(&format!("specs/{n:03}-x/tasks.md")).unwrap().is_some());
                assert_eq!(view.entry_id(&format!("specs/{n:03}-absent")).unwrap(), None);
            }
            view.most_reads_of_a_tree()
        };
        assert_eq!(most_reads(40), most_reads(4), "`specs` is read as often for 40 units as for 4");
        assert!(most_reads(4) <= 2, "a scan, then an index");
    }

    /// Objects read the same as `git cat-file` shows them, whether loose and small (read directly),
    /// loose and large, or packed (both through gix).
    #[test]
    fn loose_large_and_packed_objects_read_as_git_cat_file_shows_them() {
        let fx = Fixture::new();
        let small = fx.commit_file("small.md", "- [ ] T001\n", "small");
        let large_text: String = (0..40_000).map(|i| format!("{i:x}\n")).collect();
        let large = fx.commit_file("large.txt", &large_text, "large");
        let blob = |commit: ObjectId, path: &str| {
            let repo = fx.repo();
            repo.tree(repo.commit(commit).unwrap().tree).file(path).unwrap().unwrap()
        };
        let large_id = fx.rev("HEAD:large.txt").to_string();
        let loose_file = fx.path().join(".git/objects").join(&large_id[..2]).join(&large_id[2..]);
        assert!(
            std::fs::metadata(&loose_file).unwrap().len() > 64 * 1024,
            "the large blob is a large loose file"
        );
        assert_eq!(blob(small, "small.md"), fx.git_bytes(&["cat-file", "blob", "HEAD:small.md"], None));
        assert_eq!(blob(large, "large.txt"), fx.git_bytes(&["cat-file", "blob", "HEAD:large.txt"], None));
        fx.git(&["gc", "-q", "--prune=now"]);
        assert!(!loose_file.exists(), "git gc packed the objects");
        assert_eq!(blob(small, "small.md"), b"- [ ] T001\n");
        assert_eq!(blob(large, "large.txt"), large_text.as_bytes());
    }

    #[test]
    fn a_damaged_loose_object_is_an_error_naming_it() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.md", "a\n", "a");
        let id = fx.rev("HEAD:a.md");
        let hex = id.to_string();
        let file = fx.path().join(".git/objects").join(&hex[..2]).join(&hex[2..]);
        let mut bytes = std::fs::read(&file).unwrap();
        bytes.truncate(bytes.len() / 2);
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        std::fs::write(&file, &bytes).unwrap();
        let repo = fx.repo();
        let err = repo.tree(repo.commit(commit).unwrap().tree).file("a.md").unwrap_err();
        assert!(matches!(&err, GitError::CorruptObject { id: bad, .. } if *bad == id), "{err}");
        assert!(err.to_string().contains("git fsck"), "{err}");
    }

    /// The `filter` driver of `path` in the tree of HEAD, and what `git check-attr` says of it
    /// there (`git check-attr --source` reads the tree's own attributes files, as the tree does).
    fn filter_of(fx: &Fixture, path: &str) -> (Option<String>, String) {
        let repo = fx.repo();
        let tree = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
        let by_git = fx.git(&["check-attr", "--source", "HEAD", "filter", "--", path]);
        (tree.filter_driver(path).unwrap(), by_git.trim().rsplit(": ").next().unwrap().to_owned())
    }

    #[test]
    fn a_tree_s_own_attributes_files_name_a_path_s_filter_as_git_reads_them() {
        let fx = Fixture::new();
        fx.write("specs/001-x/tasks.md", "- [ ] T001\n");
        fx.write("specs/002-y/tasks.md", "- [ ] T001\n");
        fx.write("specs/003-z/tasks.md", "- [ ] T001\n");
        fx.write("specs/001-x/spec.md", "# spec\n");
        fx.write("specs/002-y/spec.md", "# spec\n");
        fx.write(".gitattributes", "[attr]secret filter=crypt\nspecs/**/tasks.md filter=lfs -text\n");
        fx.write("specs/002-y/.gitattributes", "tasks.md -filter\nspec.md secret\n");
        fx.write("specs/003-z/.gitattributes", "*.md secret\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "attributes"]);
        let expected = [
            ("specs/001-x/tasks.md", Some("lfs"), "lfs"),
            ("specs/002-y/tasks.md", None, "unset"),
            ("specs/002-y/spec.md", Some("crypt"), "crypt"),
            ("specs/003-z/tasks.md", Some("crypt"), "crypt"),
            ("specs/001-x/spec.md", None, "unspecified"),
            ("tasks.md", None, "unspecified"),
        ];
        for (path, driver, by_git) in expected {
            assert_eq!(filter_of(&fx, path), (driver.map(str::to_owned), by_git.to_owned()), "{path}");
        }
        // A view of files as stored reads no attributes file, not even `specs/`'s tree.
        let repo = fx.repo();
        let stored = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree).as_stored();
        assert_eq!(stored.filter_driver("specs/001-x/tasks.md").unwrap(), None);
        assert_eq!(stored.most_reads_of_a_tree(), 0);
        // Work-tree and repository attributes are not the tree's: never read.
        fx.write("specs/001-x/.gitattributes", "spec.md filter=worktree\n");
        fx.write(".git/info/attributes", "*.md filter=info\n");
        assert_eq!(filter_of(&fx, "specs/001-x/spec.md").0, None);
    }

    #[test]
    fn the_attributes_files_on_the_way_to_many_units_are_parsed_once_a_view() {
        let fx = Fixture::new();
        fx.write(".gitattributes", "specs/002-*/tasks.md filter=lfs\n");
        fx.write("specs/003-z/.gitattributes", "tasks.md filter=crypt\n");
        let units = ["001-x", "002-y", "003-z", "004-w"];
        for unit in units {
            fx.write(&format!("specs/{unit}/tasks.md"), "- [ ] T001\n");
        }
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "units"]);
        let repo = fx.repo();
        let tree = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
        let drivers: Vec<Option<String>> =
            units.iter().map(|u| tree.filter_driver(&format!("specs/{u}/tasks.md")).unwrap()).collect();
        assert_eq!(drivers, [None, Some("lfs".to_owned()), Some("crypt".to_owned()), None]);
        assert_eq!(tree.filters.borrow().len(), 2, "the root's file alone, and with 003-z's");
    }

    #[test]
    fn an_attributes_file_as_large_as_git_reads_is_read_and_a_larger_one_refused_naming_it() {
        let fx = Fixture::new();
        // A real generated one: 40,000 `linguist-generated` lines, 1.7 MiB.
        let mut rules: String =
            (0..40_000).map(|i| format!("vendor/gen/file{i:06}.js linguist-generated\n")).collect();
        rules.push_str("specs/**/tasks.md filter=lfs\n");
        assert!(rules.len() as u64 > crate::git::SETTINGS_FILE_LIMIT);
        fx.write(".gitattributes", &rules);
        fx.write("specs/001-x/tasks.md", "- [ ] T001\n");
        // One past git's bound (`ATTR_MAX_FILE_SIZE`), sparse on disk.
        fx.write("specs/.gitattributes", "");
        let large =
            std::fs::File::options().write(true).open(fx.path().join("specs/.gitattributes")).unwrap();
        large.set_len(crate::git::ATTRIBUTES_FILE_LIMIT + 1).unwrap();
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "attributes files"]);
        let repo = fx.repo();
        let tree = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
        assert_eq!(tree.filter_driver("other/tasks.md").unwrap().as_deref(), None);
        let err = tree.filter_driver("specs/001-x/tasks.md").unwrap_err();
        let GitError::TreeAttributes { path, reason } = &err else { panic!("{err:?}") };
        assert_eq!(path, "specs/.gitattributes", "{err}");
        assert!(
            reason.contains("holds 104857600 bytes, and git reads none of 104857600 bytes or more"),
            "{err}"
        );
        // The large one gone, the real one names the filter, as git says.
        fx.git(&["rm", "-q", "specs/.gitattributes"]);
        fx.git(&["commit", "-q", "-m", "no large one"]);
        assert_eq!(filter_of(&fx, "specs/001-x/tasks.md"), (Some("lfs".to_owned()), "lfs".to_owned()));
    }

    #[test]
    fn an_attributes_file_is_read_whatever_its_mode_as_git_reads_a_tree_s() {
        let fx = Fixture::new();
        fx.write("specs/001-x/tasks.md", "- [ ] T001\n");
        fx.write("specs/002-y/tasks.md", "- [ ] T001\n");
        fx.write("specs/003-z/tasks.md", "- [ ] T001\n");
        fx.write("specs/003-z/.gitattributes/rules", "* filter=in-a-directory\n");
        #[cfg(unix)]
        std::os::unix::fs::symlink("tasks.md filter=linked", fx.path().join("specs/001-x/.gitattributes"))
            .unwrap();
        fx.git(&["add", "."]);
        // A gitlink naming a blob of this repository, whose text git reads as rules.
        let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"tasks.md filter=gitlink\n"));
        let blob = String::from_utf8(blob).unwrap();
        let entry = format!("160000,{},specs/002-y/.gitattributes", blob.trim());
        fx.git(&["update-index", "--add", "--cacheinfo", &entry]);
        fx.git(&["commit", "-q", "-m", "attributes files of every mode"]);
        #[cfg(unix)]
        assert_eq!(filter_of(&fx, "specs/001-x/tasks.md"), (Some("linked".to_owned()), "linked".to_owned()));
        assert_eq!(
            filter_of(&fx, "specs/002-y/tasks.md"),
            (Some("gitlink".to_owned()), "gitlink".to_owned())
        );
        assert_eq!(filter_of(&fx, "specs/003-z/tasks.md"), (None, "unspecified".to_owned()));
        // A gitlink to a commit this repository lacks (a submodule's) is none, for git too.
        let entry = format!("160000,{},specs/002-y/.gitattributes", "1".repeat(40));
        fx.git(&["update-index", "--cacheinfo", &entry]);
        fx.git(&["commit", "-q", "-m", "a submodule"]);
        assert_eq!(filter_of(&fx, "specs/002-y/tasks.md"), (None, "unspecified".to_owned()));
    }

    #[test]
    fn an_attributes_pattern_matches_whatever_the_case_as_in_a_clone_that_ignores_case() {
        let fx = Fixture::new();
        fx.write("Specs/001-X/Tasks.md", "- [ ] T001\n");
        fx.write(".gitattributes", "specs/*/TASKS.MD filter=lfs\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "attributes of another case"]);
        let by_git = |ignorecase: &str| {
            let config = format!("core.ignorecase={ignorecase}");
            let args =
                ["-c", &config, "check-attr", "--source", "HEAD", "filter", "--", "Specs/001-X/Tasks.md"];
            fx.git(&args).trim().rsplit(": ").next().unwrap().to_owned()
        };
        assert_eq!((by_git("false"), by_git("true")), ("unspecified".to_owned(), "lfs".to_owned()));
        assert_eq!(filter_of(&fx, "Specs/001-X/Tasks.md").0.as_deref(), Some("lfs"));
    }

    #[test]
    fn an_attributes_pattern_a_clone_that_minds_case_matches_is_matched_too() {
        let fx = Fixture::new();
        fx.write("specs/001-x/tasks.md", "- [ ] T001\n");
        // Without regard to case, `[!T]` excludes `t` as well.
        fx.write(".gitattributes", "specs/*/[!T]asks.md filter=done\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "a negated class"]);
        let (ours, by_git) = filter_of(&fx, "specs/001-x/tasks.md");
        assert_eq!((ours.as_deref(), by_git.as_str()), (Some("done"), "done"));
    }
}
