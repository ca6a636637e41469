//! Trees as a read-only file source, with trees cached by id across commits.

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

/// Trees by id, as stored and as decoded; trees are immutable, so entries never go stale.
///
/// Most reads look up one name per tree on the way to a file (`specs/<unit>/tasks.md`). In a
/// history where every commit has its own `specs/` tree of a thousand units, decoding each such
/// tree into items for one lookup cost more than the rest of verifying the tick, so the first
/// lookups in a tree scan its stored bytes ([`Repo::tree_entry`]); trees looked up more often (the
/// head's) and listings are decoded ([`Repo::tree_items`]).
#[derive(Default)]
pub(crate) struct TreeCache {
    raw: HashMap<ObjectId, RawTree>,
    raw_bytes: usize,
    decoded: HashMap<ObjectId, Items>,
    decoded_entries: usize,
}

/// A tree as stored, and how often a name was looked up in it by scanning.
struct RawTree {
    data: Arc<[u8]>,
    scans: usize,
}

/// After this many scans of one tree its next lookup decodes it, and later ones search the sorted
/// entries: the head's trees serve lookups for every tick, and scanning a thousand units each
/// time would make the cost of a branch grow with the square of its ticks.
const SCANS_BEFORE_DECODING: usize = 8;

/// Past this many bytes of stored trees the raw cache starts over (bounds memory on huge histories).
const MAX_RAW_BYTES: usize = 8 * 1024 * 1024;
/// Past this many decoded entries the decoded cache starts over.
const MAX_DECODED_ENTRIES: usize = 1_000_000;

impl Repo {
    /// The stored bytes of tree `id` (cached) and how often it was scanned, counting this time
    /// when `scan` is set.
    fn raw_tree(&self, id: ObjectId, scan: bool) -> Result<(Arc<[u8]>, usize), GitError> {
        if let Some(raw) = self.trees.borrow_mut().raw.get_mut(&id) {
            raw.scans += usize::from(scan);
            return Ok((Arc::clone(&raw.data), raw.scans));
        }
        let data: Arc<[u8]> = self.read_kind(id, gix::object::Kind::Tree)?.into();
        let mut cache = self.trees.borrow_mut();
        if cache.raw_bytes + data.len() > MAX_RAW_BYTES {
            cache.raw.clear();
            cache.raw_bytes = 0;
        }
        cache.raw_bytes += data.len();
        let scans = usize::from(scan);
        cache.raw.insert(id, RawTree { data: Arc::clone(&data), scans });
        Ok((data, scans))
    }

    /// The mode and object of the entry `name` in tree `id`: the first one in stored order when a
    /// (malformed) tree has several, as git's lookup finds; a tree with an entry that does not
    /// parse is an error. The first lookups in a tree scan its stored entries without decoding
    /// them; a tree looked up more often is decoded once and searched from then on.
    pub(crate) fn tree_entry(
        &self,
        id: ObjectId,
        name: &[u8],
    ) -> Result<Option<(EntryMode, ObjectId)>, GitError> {
        let decoded = self.trees.borrow().decoded.get(&id).cloned();
        if let Some(items) = decoded {
            return Ok(find(&items, name));
        }
        let (data, scans) = self.raw_tree(id, true)?;
        if scans > SCANS_BEFORE_DECODING {
            return Ok(find(&self.tree_items(id)?, name));
        }
        // The whole tree is read even after a match, so that a tree with an entry that does not
        // parse is refused however it is looked up (as decoding refuses it).
        let mut found = None;
        for entry in gix::objs::TreeRefIter::from_bytes(&data, self.object_hash()) {
            let entry =
                entry.map_err(|e| GitError::CorruptObject { id, kind: "tree", reason: e.to_string() })?;
            if found.is_none() && entry.filename == name {
                found = Some((entry.mode, entry.oid.to_owned()));
            }
        }
        Ok(found)
    }

    /// The decoded entries of tree `id`, sorted by name (cached).
    pub(crate) fn tree_items(&self, id: ObjectId) -> Result<Items, GitError> {
        if let Some(items) = self.trees.borrow().decoded.get(&id) {
            return Ok(Arc::clone(items));
        }
        let (data, _) = self.raw_tree(id, false)?;
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
        if cache.decoded_entries + items.len() > MAX_DECODED_ENTRIES {
            cache.decoded.clear();
            cache.decoded_entries = 0;
        }
        cache.decoded_entries += items.len();
        cache.decoded.insert(id, Arc::clone(&items));
        Ok(items)
    }

    /// A read-only view of the files of tree `id` (cheap: nothing is read until asked).
    pub fn tree(&self, id: ObjectId) -> GitTree<'_> {
        GitTree { repo: self, root: id }
    }
}

/// The first entry named `name` in sorted `items` (a stable sort keeps duplicates in stored
/// order, so this is the one a scan finds first).
fn find(items: &[TreeItem], name: &[u8]) -> Option<(EntryMode, ObjectId)> {
    let at = items.partition_point(|item| &*item.name < name);
    items.get(at).filter(|item| &*item.name == name).map(|item| (item.mode, item.id))
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
            match self.repo.tree_entry(current.1, component.as_bytes())? {
                Some(found) => current = found,
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
