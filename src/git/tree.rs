//! Trees as a read-only file source, with decoded trees cached by id across commits.

use std::collections::HashMap;
use std::sync::Arc;

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

/// A decoded tree: its entries sorted by name bytes, duplicates kept in recorded order.
pub(crate) type Items = Arc<[TreeItem]>;

/// Decoded trees by id; trees are immutable, so entries never go stale.
#[derive(Default)]
pub(crate) struct TreeCache {
    map: HashMap<ObjectId, Items>,
    entries: usize,
}

/// Past this many cached entries the cache starts over (bounds memory on huge histories).
const MAX_CACHED_ENTRIES: usize = 1_000_000;

impl Repo {
    /// The decoded entries of tree `id` (cached).
    pub(crate) fn tree_items(&self, id: ObjectId) -> Result<Items, GitError> {
        if let Some(items) = self.trees.borrow().map.get(&id) {
            return Ok(Arc::clone(items));
        }
        let data = self.read_kind(id, gix::object::Kind::Tree)?;
        let mut items = Vec::new();
        for entry in gix::objs::TreeRefIter::from_bytes(&data, self.object_hash()) {
            let entry =
                entry.map_err(|e| GitError::CorruptObject { id, kind: "tree", reason: e.to_string() })?;
            items.push(TreeItem {
                name: entry.filename.to_vec().into_boxed_slice(),
                mode: entry.mode,
                id: entry.oid.to_owned(),
            });
        }
        items.sort_by(|a, b| a.name.cmp(&b.name));
        let items: Items = items.into();
        let mut cache = self.trees.borrow_mut();
        if cache.entries + items.len() > MAX_CACHED_ENTRIES {
            cache.map.clear();
            cache.entries = 0;
        }
        cache.entries += items.len();
        cache.map.insert(id, Arc::clone(&items));
        Ok(items)
    }

    /// A read-only view of the files of tree `id` (cheap: nothing is read until asked).
    pub fn tree(&self, id: ObjectId) -> GitTree<'_> {
        GitTree { repo: self, root: id }
    }
}

/// The first entry named `name` (git's lookup picks the first of duplicates too).
pub(crate) fn find<'a>(items: &'a [TreeItem], name: &[u8]) -> Option<&'a TreeItem> {
    let at = items.partition_point(|item| &*item.name < name);
    items.get(at).filter(|item| &*item.name == name)
}

/// The files of one tree: reads go through the repository's tree cache.
#[derive(Clone, Copy)]
pub struct GitTree<'r> {
    repo: &'r Repo,
    root: ObjectId,
}

impl GitTree<'_> {
    /// The tree this view reads.
    pub fn id(&self) -> ObjectId {
        self.root
    }

    /// The entry at `components` below the root, `None` when some component is absent or not a directory.
    fn lookup(&self, components: &[&str]) -> Result<Option<(EntryMode, ObjectId)>, GitError> {
        let mut current: (EntryMode, ObjectId) = (EntryKind::Tree.into(), self.root);
        for component in components {
            if !current.0.is_tree() {
                return Ok(None);
            }
            let items = self.repo.tree_items(current.1)?;
            match find(&items, component.as_bytes()) {
                Some(item) => current = (item.mode, item.id),
                None => return Ok(None),
            }
        }
        Ok(Some(current))
    }

    /// The object id of whatever is at `path` (a blob, a tree, a submodule commit); `None` when
    /// absent. Comparing two trees' ids for a directory tells whether anything below it changed.
    pub fn entry_id(&self, path: &str) -> Result<Option<ObjectId>, GitError> {
        let components = path::components(path)?;
        Ok(self.lookup(&components)?.map(|(_, id)| id))
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
        let Some((mode, id)) = self.lookup(&components)? else {
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
}
