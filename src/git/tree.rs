//! Trees as a read-only file source.

use std::cell::RefCell;
use std::collections::HashMap;

use gix::ObjectId;
use gix::objs::tree::{EntryKind, EntryMode};

use super::error::GitError;
use super::path;
use super::repo::Repo;

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

    /// The entries of tree `id`, sorted by name (a stable sort: duplicates stay in stored order).
    pub(crate) fn tree_items(&self, id: ObjectId) -> Result<Vec<TreeItem>, GitError> {
        let mut items = Vec::new();
        self.for_each_entry(id, |entry| {
            items.push(TreeItem {
                name: entry.filename.to_vec().into_boxed_slice(),
                mode: entry.mode,
                id: entry.oid.to_owned(),
            });
        })?;
        items.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(items)
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

    /// A read-only view of the files of tree `id` (cheap: nothing is read until asked).
    pub fn tree(&self, id: ObjectId) -> GitTree<'_> {
        GitTree { repo: self, root: id, dirs: RefCell::default() }
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
}

impl GitTree<'_> {
    /// The tree this view reads.
    pub fn id(&self) -> ObjectId {
        self.root
    }

    /// The entry at `components` below the root, `None` when some component is absent or not a directory.
    fn lookup(&self, components: &[&str]) -> Result<Option<(EntryMode, ObjectId)>, GitError> {
        let Some((last, dirs)) = components.split_last() else {
            return Ok(Some((EntryKind::Tree.into(), self.root)));
        };
        match self.directory(dirs)? {
            Some((mode, id)) if mode.is_tree() => self.repo.tree_entry(id, last.as_bytes()),
            _ => Ok(None),
        }
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
        let found = match self.directory(above)? {
            Some((mode, id)) if mode.is_tree() => self.repo.tree_entry(id, last.as_bytes())?,
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

    /// The entries of directory `dir` (`""` is the root) as `(name, is_dir)` in name order; `None`
    /// when `dir` is absent or not a directory. Names that are not UTF-8 are left out.
    pub fn entries(&self, dir: &str) -> Result<Option<Vec<(String, bool)>>, GitError> {
        let components = path::components(dir)?;
        let Some((mode, id)) = self.directory(&components)? else {
            return Ok(None);
        };
        if !mode.is_tree() {
            return Ok(None);
        }
        let items = self.repo.tree_items(id)?;
        let mut out: Vec<(String, bool)> = items
            .iter()
            .filter_map(|item| {
                let name = std::str::from_utf8(&item.name).ok()?;
                Some((name.to_owned(), item.mode.is_tree()))
            })
            .collect();
        out.dedup_by(|a, b| a.0 == b.0);
        Ok(Some(out))
    }

    /// The names of the entries of directory `dir` that are not UTF-8, which [`Self::entries`]
    /// leaves out (no `&str` path can name them), decoded with U+FFFD for each invalid sequence,
    /// in name order; none when `dir` is absent or not a directory.
    pub fn undecodable_names(&self, dir: &str) -> Result<Vec<String>, GitError> {
        let components = path::components(dir)?;
        match self.directory(&components)? {
            Some((mode, id)) if mode.is_tree() => Ok(self
                .repo
                .tree_items(id)?
                .iter()
                .filter(|item| std::str::from_utf8(&item.name).is_err())
                .map(|item| String::from_utf8_lossy(&item.name).into_owned())
                .collect()),
            _ => Ok(Vec::new()),
        }
    }

    /// The entries of directory `dir` that differ between this tree and `other` (added, removed,
    /// or pointing to another object or mode), in git's name order, each with the directory it
    /// names on either side; nothing when `dir` is the same object in both. Neither side's entries
    /// are copied: the two sorted lists are walked side by side. Names that are not UTF-8 are
    /// left out.
    pub fn changed_entries(&self, other: &GitTree<'_>, dir: &str) -> Result<Vec<ChangedEntry>, GitError> {
        let components = path::components(dir)?;
        let tree_id = |view: &GitTree<'_>| -> Result<Option<ObjectId>, GitError> {
            Ok(view.directory(&components)?.filter(|(mode, _)| mode.is_tree()).map(|(_, id)| id))
        };
        let (ours, theirs) = (tree_id(self)?, tree_id(other)?);
        if ours == theirs {
            return Ok(Vec::new());
        }
        let (ours_data, theirs_data) = (self.repo.tree_data(ours)?, self.repo.tree_data(theirs)?);
        let (ours, theirs) =
            (self.repo.entry_refs(ours, &ours_data)?, self.repo.entry_refs(theirs, &theirs_data)?);
        let tree_of = |entry: Option<&gix::objs::tree::EntryRef<'_>>| {
            entry.filter(|e| e.mode.is_tree()).map(|e| e.oid.to_owned())
        };
        let (mut i, mut j) = (0, 0);
        let mut changed: Vec<ChangedEntry> = Vec::new();
        while i < ours.len() || j < theirs.len() {
            let (a, b) = (ours.get(i), theirs.get(j));
            let (in_ours, in_theirs) = match (a, b) {
                (Some(x), Some(y)) if x.cmp(y) == std::cmp::Ordering::Equal => (true, true),
                (Some(x), Some(y)) if x < y => (true, false),
                (Some(_), None) => (true, false),
                _ => (false, true),
            };
            let (a, b) = (a.filter(|_| in_ours), b.filter(|_| in_theirs));
            i += usize::from(in_ours);
            j += usize::from(in_theirs);
            if a.is_some() && a == b {
                continue;
            }
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
        Ok(changed)
    }

    /// The names of directory `dir` (`""` is the root) with the object each points to, in name
    /// order; `None` when `dir` is absent or not a directory. Comparing two trees' lists tells
    /// which entries differ without reading below them. Names that are not UTF-8 are left out.
    pub fn entry_ids(&self, dir: &str) -> Result<Option<Vec<(String, ObjectId)>>, GitError> {
        let components = path::components(dir)?;
        match self.directory(&components)? {
            Some((mode, id)) if mode.is_tree() => Ok(Some(
                self.repo
                    .tree_items(id)?
                    .into_iter()
                    .filter_map(|item| Some((String::from_utf8(item.name.into_vec()).ok()?, item.id)))
                    .collect(),
            )),
            _ => Ok(None),
        }
    }
}
