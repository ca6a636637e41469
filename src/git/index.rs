//! The index: building the task commit's tree from it, and staging a written file back into it.

use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, SystemTime};

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Flags, Mode, Stage, Stat};
use gix::objs::tree::{Entry, EntryKind, EntryMode};

use super::error::{GitError, GixResultExt, io_error};
use super::path;
use super::repo::Repo;
use super::worktree;

/// One version of the index file on disk: its size and times, and on Unix its device and inode.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct IndexStamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    file: (u64, u64, i64, i64),
}

impl IndexStamp {
    fn of(meta: &std::fs::Metadata) -> IndexStamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt as _;
        IndexStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            file: (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// One path of the future tree.
struct Item {
    path: BString,
    mode: EntryMode,
    id: ObjectId,
}

/// How long to wait for another process's `index.lock` before giving up.
const INDEX_LOCK_WAIT: Duration = Duration::from_secs(3);

impl Repo {
    /// The index as it is on disk now (empty when there is no index file yet).
    fn read_index(&self) -> Result<gix::index::File, GitError> {
        let path = self.index_path();
        if !path.exists() {
            return Ok(gix::index::File::from_state(gix::index::State::new(self.object_hash()), path));
        }
        // The checksum at the end is not verified, as git does not verify it when it reads the
        // index (only `git fsck` does): hashing the file costs a pass over it and gix hashes
        // through a 64 KiB stack buffer, 16 fresh pages in a process as short as a tick.
        let skip_hash = true;
        gix::index::File::at(&path, self.object_hash(), skip_hash, gix::index::decode::Options::default())
            .during(|| format!("read the index {}", path.display()))
    }

    /// The index as it is on disk now, parsed once for as long as the file stays the same: a tick
    /// builds two trees from it and then updates it. (The index is only ever replaced by renaming
    /// a new file over it, so a file with the same inode, size and times is the one already parsed.)
    fn index_for_trees(&self) -> Result<Rc<gix::index::File>, GitError> {
        let path = self.index_path();
        let seen = std::fs::metadata(&path).ok().map(|m| IndexStamp::of(&m));
        let mut cached = self.index_cache.borrow_mut();
        if let Some((stamp, index)) = cached.as_ref()
            && seen.as_ref() == Some(stamp)
        {
            return Ok(Rc::clone(index));
        }
        let index = Rc::new(self.read_index()?);
        *cached = seen.map(|stamp| (stamp, Rc::clone(&index)));
        Ok(index)
    }

    /// Write the tree of the current index (HEAD's tree plus what is staged) with each
    /// `(path, bytes)` of `overrides` replacing that file's content, keeping its mode; a path not in
    /// the index is added as a regular file. Refuses an index with unresolved conflicts.
    pub fn tree_from_index_with(&self, overrides: &[(String, Vec<u8>)]) -> Result<ObjectId, GitError> {
        let index = self.index_for_trees()?;
        refuse_unmerged(&index)?;
        let mut items = Vec::with_capacity(index.entries().len() + overrides.len());
        for entry in index.entries() {
            if entry.flags.intersects(Flags::INTENT_TO_ADD | Flags::REMOVE) {
                continue; // git's write-tree leaves intent-to-add entries out
            }
            let path = entry.path(&index);
            let mode = entry.mode.to_tree_entry_mode().ok_or_else(|| GitError::InvalidIndex {
                reason: format!("`{path}` has the unknown mode {:o}", entry.mode.bits()),
            })?;
            // A sparse index records a whole directory as one entry named `dir/`.
            let path =
                if entry.mode.is_sparse() { path.strip_suffix(b"/").unwrap_or(path).as_bstr() } else { path };
            items.push(Item { path: path.to_owned(), mode, id: entry.id });
        }
        for (path, bytes) in overrides {
            let path = path::file_path(path)?;
            let id = self.write_blob(bytes)?;
            match items.iter_mut().find(|item| item.path == path.as_bytes()) {
                Some(item) => {
                    if !item.mode.is_blob() {
                        return Err(GitError::NotAFile { path, kind: mode_name(item.mode) });
                    }
                    item.id = id;
                }
                None => items.push(Item { path: path.into(), mode: EntryKind::Blob.into(), id }),
            }
        }
        items.sort_by(|a, b| a.path.cmp(&b.path));
        self.write_tree_level(&items, 0)
    }

    /// Write a tree holding exactly `files` as regular (non-executable) files, whatever the index
    /// holds; for trees that are not a work tree's (the published held-out sets).
    pub fn tree_from_files(&self, files: &[(String, Vec<u8>)]) -> Result<ObjectId, GitError> {
        let mut items = Vec::with_capacity(files.len());
        for (path, bytes) in files {
            items.push(Item {
                path: path::file_path(path)?.into(),
                mode: EntryKind::Blob.into(),
                id: self.write_blob(bytes)?,
            });
        }
        items.sort_by(|a, b| a.path.cmp(&b.path));
        if let Some(pair) = items.windows(2).find(|w| w[0].path == w[1].path) {
            return Err(GitError::InvalidPath {
                path: pair[0].path.to_str_lossy().into_owned(),
                reason: "it is given twice",
            });
        }
        self.write_tree_level(&items, 0)
    }

    /// Write the tree for `items`, which all share their first `base` bytes (a directory prefix
    /// ending in `/`), and return its id.
    fn write_tree_level(&self, items: &[Item], base: usize) -> Result<ObjectId, GitError> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut at = 0;
        while at < items.len() {
            let rest = &items[at].path[base..];
            if rest.is_empty() || rest.starts_with(b"/") {
                return Err(GitError::InvalidIndex {
                    reason: format!("`{}` has an empty path component", items[at].path),
                });
            }
            match rest.find_byte(b'/') {
                None => {
                    entries.push(Entry { mode: items[at].mode, filename: rest.into(), oid: items[at].id });
                    at += 1;
                }
                Some(slash) => {
                    let dir = &rest[..=slash];
                    let end = at + items[at..].iter().take_while(|i| i.path[base..].starts_with(dir)).count();
                    let id = self.write_tree_level(&items[at..end], base + slash + 1)?;
                    entries.push(Entry {
                        mode: EntryKind::Tree.into(),
                        filename: rest[..slash].into(),
                        oid: id,
                    });
                    at = end;
                }
            }
        }
        let mut names: Vec<&BString> = entries.iter().map(|e| &e.filename).collect();
        names.sort();
        if let Some(pair) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(GitError::PathConflict { path: pair[0].to_str_lossy().into_owned() });
        }
        entries.sort();
        let tree = gix::objs::Tree { entries };
        let mut bytes = Vec::new();
        gix::objs::WriteTo::write_to(&tree, &mut bytes)
            .map_err(io_error("encode a tree for", self.git_dir()))?;
        self.write_once(gix::object::Kind::Tree, &bytes)
    }

    /// Write `bytes` to `path` in the work tree and stage it: the index entry gets the new blob and
    /// the written file's stat, so `git status` shows the file as unchanged against a commit whose
    /// tree has these bytes. The file keeps its index mode; the index is replaced atomically.
    pub fn stage_worktree_file(&self, path: &str, bytes: &[u8]) -> Result<(), GitError> {
        let path = path::file_path(path)?;
        let workdir = self.require_workdir()?.to_owned();
        let index_path = self.index_path();
        let mut lock = gix::lock::File::acquire_to_update_resource(
            &index_path,
            gix::lock::acquire::Fail::AfterDurationWithBackoff(INDEX_LOCK_WAIT),
            None,
            0,
        )
        .map_err(|source| {
            if source.is_retryable() {
                GitError::IndexLocked { path: index_path.clone() }
            } else {
                GitError::Gix { action: format!("lock the index {}", index_path.display()), source }
            }
        })?;
        // Read under the lock. The parse the trees were built from serves when the file is still
        // the one parsed, as it is unless another process replaced the index meanwhile.
        let mut index = gix::index::File::clone(&*self.index_for_trees()?);
        refuse_unmerged(&index)?;
        let rela: &BStr = path.as_bytes().as_bstr();
        let existing = index.entry_index_by_path_and_stage(rela, Stage::Unconflicted);
        let executable = match existing {
            Some(at) => {
                let mode = index.entry(at).mode;
                if mode == Mode::FILE_EXECUTABLE {
                    true
                } else if mode == Mode::FILE {
                    false
                } else {
                    let kind = mode.to_tree_entry_mode().map_or("special entry", mode_name);
                    return Err(GitError::NotAFile { path, kind });
                }
            }
            None => {
                refuse_in_the_way(&index, &path)?;
                false
            }
        };
        let file = worktree::write_file(&workdir, &path, bytes, executable)?;
        let id = self.write_blob(bytes)?;
        let stat = stat_of(&file)?;
        match existing {
            Some(at) => {
                let entry = &mut index.entries_mut()[at];
                entry.id = id;
                entry.stat = stat;
                entry.flags.remove(Flags::INTENT_TO_ADD | Flags::REMOVE);
            }
            None => {
                index.dangerously_push_entry(stat, id, Flags::empty(), Mode::FILE, rela);
                index.sort_entries();
            }
        }
        // The cached trees no longer describe the entries; git rebuilds them when needed.
        index.remove_tree();
        let skip_hash = self.inner.config_snapshot().boolean("index.skipHash").unwrap_or(false);
        let options = gix::index::write::Options { skip_hash, ..Default::default() };
        self.flush_new_objects()?;
        // gix writes the index field by field; buffered, that is one system call instead of hundreds.
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, &mut lock);
        index.write_to(&mut out, options).during(|| format!("write the index {}", index_path.display()))?;
        out.into_inner().map_err(|e| GitError::Io {
            action: "write the index",
            path: index_path.clone(),
            source: e.into_error(),
        })?;
        lock.commit()
            .map_err(|e| GitError::Io {
                action: "replace the index",
                path: index_path.clone(),
                source: e.error,
            })
            .map(drop)
    }
}

/// Refuse an index with entries in a conflict stage.
fn refuse_unmerged(index: &gix::index::File) -> Result<(), GitError> {
    let mut paths: Vec<String> = index
        .entries()
        .iter()
        .filter(|e| e.stage() != Stage::Unconflicted)
        .map(|e| e.path(index).to_str_lossy().into_owned())
        .collect();
    if paths.is_empty() {
        return Ok(());
    }
    paths.dedup();
    paths.truncate(10);
    Err(GitError::Unmerged { paths })
}

/// Refuse a new path when a tracked file is where one of its directories would be, or the path
/// is a tracked directory.
fn refuse_in_the_way(index: &gix::index::File, path: &str) -> Result<(), GitError> {
    let mut prefix = String::new();
    for part in path.split('/') {
        if !prefix.is_empty() {
            if index.entry_by_path(prefix.as_bytes().as_bstr()).is_some() {
                return Err(GitError::InvalidPath {
                    path: path.to_owned(),
                    reason: "a tracked file is in the way of its directory",
                });
            }
            prefix.push('/');
            if index.entry_by_path(prefix.as_bytes().as_bstr()).is_some() {
                return Err(GitError::InvalidPath {
                    path: path.to_owned(),
                    reason: "it lies outside the sparse checkout",
                });
            }
        }
        prefix.push_str(part);
    }
    if index.path_is_directory(path.as_bytes().as_bstr()) {
        return Err(GitError::InvalidPath { path: path.to_owned(), reason: "it is a tracked directory" });
    }
    Ok(())
}

/// The index stat of the file at `file`, read without following links.
fn stat_of(file: &Path) -> Result<Stat, GitError> {
    let meta = gix::index::fs::Metadata::from_path_no_follow(file)
        .map_err(io_error("read the metadata of", file))?;
    Stat::from_fs(&meta).map_err(|_| GitError::Io {
        action: "read the modification time of",
        path: file.to_owned(),
        source: std::io::Error::other("the time is before 1970"),
    })
}

/// How git calls what a tree entry mode stands for.
fn mode_name(mode: EntryMode) -> &'static str {
    match mode.kind() {
        EntryKind::Tree => "directory",
        EntryKind::Blob | EntryKind::BlobExecutable => "file",
        EntryKind::Link => "symbolic link",
        EntryKind::Commit => "submodule",
    }
}
