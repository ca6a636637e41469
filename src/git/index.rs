//! The index: held locked as `git commit` holds it, the task commit's tree built from it, and a
//! written file staged back into it.

use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Flags, Mode, Stage, Stat};
use gix::objs::tree::{EntryKind, EntryMode};

use super::convert;
use super::error::{GitError, GixResultExt};
use super::path;
use super::repo::Repo;
use super::worktree::{self, AsRead, Written};

/// How long to wait for another process's lock before giving up: the index's `index.lock`, and a
/// reference's lock file that nobody changes meanwhile ([`super::refs`]).
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The index of a work tree, locked (`index.lock` exists and is ours) from the moment it was read
/// until [`LockedIndex::stage_and_commit`] puts the new index in place or the value is dropped
/// (then the lock is removed and the index is left as it was). While it is held, no other git or
/// speccoder command can change the index, so a tree built from it is built from the truth.
pub struct LockedIndex<'r> {
    repo: &'r Repo,
    /// The work tree (a bare repository has no index to lock).
    workdir: PathBuf,
    lock: gix::lock::File,
    index: gix::index::File,
}

/// A file to write into the work tree and stage ([`LockedIndex::file_to_stage`]).
pub struct FileToStage {
    /// The repository-relative path (validated).
    path: String,
    /// The blob, in git's form.
    blob: Vec<u8>,
    /// What the work tree gets: the blob as `git checkout` converts it.
    worktree: Vec<u8>,
    /// The work-tree file as the writer read it: it is replaced only while it is still so.
    as_read: AsRead,
}

/// How [`LockedIndex::stage_and_commit`] left the work tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Staged {
    /// The work-tree file holds the staged blob, and `git status` shows it unchanged.
    Written,
    /// The work-tree file was changed after the writer read it (an edit saved meanwhile), so it
    /// was left as it is: the index holds the blob, and `git status` shows the edit (against the
    /// blob) as an unstaged change.
    EditKept,
}

impl FileToStage {
    /// The repository-relative path.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }
}

/// One path of a tree to write.
struct Item {
    path: BString,
    kind: EntryKind,
    id: ObjectId,
}

impl Repo {
    /// Locks this work tree's index as git does (`index.lock`), waiting a few seconds for another
    /// writer to finish, and reads it under the lock (an absent index reads as empty).
    ///
    /// # Errors
    /// [`GitError::IndexLocked`] when the lock stays taken, [`GitError::NoWorkTree`] in a bare
    /// repository, or an index that cannot be read.
    pub fn lock_index(&self) -> Result<LockedIndex<'_>, GitError> {
        let workdir = self.require_workdir()?.to_owned();
        let index_path = self.index_path();
        let lock = gix::lock::File::acquire_to_update_resource(
            &index_path,
            gix::lock::acquire::Fail::AfterDurationWithBackoff(LOCK_WAIT),
            None,
            0,
        )
        .map_err(|source| {
            if source.is_retryable() {
                GitError::IndexLocked {
                    path: std::path::absolute(&index_path).unwrap_or(index_path.clone()),
                    others: self.writer_ref_locks(),
                }
            } else {
                GitError::Gix { action: format!("lock the index {}", index_path.display()), source }
            }
        })?;
        let index = if index_path.exists() {
            self.inner.open_index().during(|| format!("read the index {}", index_path.display()))?
        } else {
            gix::index::File::from_state(gix::index::State::new(self.object_hash()), index_path)
        };
        Ok(LockedIndex { repo: self, workdir, lock, index })
    }

    /// Write a tree holding exactly `files` as regular (non-executable) files, whatever the index
    /// holds; for trees that are not a work tree's (the published held-out sets).
    pub fn tree_from_files(&self, files: &[(String, Vec<u8>)]) -> Result<ObjectId, GitError> {
        let mut blobs = Vec::with_capacity(files.len());
        for (path, bytes) in files {
            blobs.push((path.clone(), self.write_blob(bytes)?));
        }
        self.tree_with_blobs(None, &blobs)
    }

    /// Write the tree `base` (`None`: the empty tree) with each `(path, blob)` of `blobs` added as
    /// a regular (non-executable) file, replacing what was at that path; the blobs are written
    /// already, so a large tree grows without any file being read into memory (the published
    /// held-out sets).
    pub fn tree_with_blobs(
        &self,
        base: Option<ObjectId>,
        blobs: &[(String, ObjectId)],
    ) -> Result<ObjectId, GitError> {
        let mut items = Vec::with_capacity(blobs.len());
        for (path, id) in blobs {
            items.push(Item { path: path::file_path(path)?.into(), kind: EntryKind::Blob, id: *id });
        }
        let mut seen = HashSet::new();
        if let Some(twice) = items.iter().find(|item| !seen.insert(item.path.clone())) {
            return Err(GitError::InvalidPath {
                path: twice.path.to_str_lossy().into_owned(),
                reason: "it is given twice",
            });
        }
        self.write_tree_of(base.unwrap_or_else(|| self.empty_tree_id()), &items)
    }

    /// Writes the tree `base` with `items` and every directory above them.
    ///
    /// Built with gix's tree editor: gix has no API that writes the tree of an index as
    /// `git write-tree` does. The editor replaces whatever is in a path's way, so a file of
    /// `items` that would also be a directory of `items` is refused here first (an entry of
    /// `base` in the way is replaced).
    fn write_tree_of(&self, base: ObjectId, items: &[Item]) -> Result<ObjectId, GitError> {
        let files: HashSet<&[u8]> = items.iter().map(|item| item.path.as_slice()).collect();
        for item in items {
            let path = item.path.as_slice();
            for (at, _) in path.iter().enumerate().filter(|(_, byte)| **byte == b'/') {
                if files.contains(&path[..at]) {
                    return Err(GitError::PathConflict { path: path[..at].to_str_lossy().into_owned() });
                }
            }
        }
        let action = || "build a tree".to_owned();
        let mut editor = self.inner.edit_tree(base).during(action)?;
        for item in items {
            editor.upsert(item.path.as_bstr(), item.kind, item.id).during(action)?;
        }
        editor.write().map(gix::Id::detach).during(action)
    }
}

impl LockedIndex<'_> {
    /// Write the tree of the index (HEAD's tree plus what is staged) with each `(path, bytes)` of
    /// `overrides` replacing that file's content, keeping its mode; a path not in the index is
    /// added as a regular file. Refuses an index with unresolved conflicts.
    pub fn tree_with(&self, overrides: &[(String, Vec<u8>)]) -> Result<ObjectId, GitError> {
        refuse_unmerged(&self.index)?;
        let index = &self.index;
        let mut items = Vec::with_capacity(index.entries().len() + overrides.len());
        for entry in index.entries() {
            if entry.flags.intersects(Flags::INTENT_TO_ADD | Flags::REMOVE) {
                continue; // git's write-tree leaves intent-to-add entries out
            }
            let path = entry.path(index);
            let mode = entry.mode.to_tree_entry_mode().ok_or_else(|| GitError::InvalidIndex {
                reason: format!("`{path}` has the unknown mode {:o}", entry.mode.bits()),
            })?;
            // A sparse index records a whole directory as one entry named `dir/`.
            let path =
                if entry.mode.is_sparse() { path.strip_suffix(b"/").unwrap_or(path).as_bstr() } else { path };
            items.push(Item { path: path.to_owned(), kind: mode.kind(), id: entry.id });
        }
        for (path, bytes) in overrides {
            let path = path::file_path(path)?;
            let id = self.repo.write_blob(bytes)?;
            match items.iter_mut().find(|item| item.path == path.as_bytes()) {
                Some(item) => {
                    if !EntryMode::from(item.kind).is_blob() {
                        return Err(GitError::NotAFile { path, kind: mode_name(item.kind.into()) });
                    }
                    item.id = id;
                }
                None => items.push(Item { path: path.into(), kind: EntryKind::Blob, id }),
            }
        }
        self.repo.write_tree_of(self.repo.empty_tree_id(), &items)
    }

    /// The work-tree file `path` as it is now ([`AsRead`]), read as every user file is read (no
    /// link followed, never blocking, at most `max` bytes); hand it to
    /// [`LockedIndex::file_to_stage`] so that only this file is ever replaced.
    ///
    /// # Errors
    /// Something is there that cannot be read as a regular file (a link, a FIFO, a directory, no
    /// permission, more than `max` bytes).
    pub fn read_worktree_file(&self, path: &str, max: u64) -> Result<AsRead, crate::input::InputError> {
        worktree::read_file(&self.workdir, path, max)
    }

    /// Whether `git status` sees the mode of the work-tree file `as_read` (at `path`) differ from
    /// the index entry's: with `core.fileMode` true (git's default where the file system keeps the
    /// executable bit), an executable bit set or cleared against the entry's mode is an unstaged
    /// change (git's "mode change"), even when the content is unchanged.
    #[must_use]
    pub fn mode_changed(&self, path: &str, as_read: &AsRead) -> bool {
        let Some(on_disk) = as_read.executable() else {
            return false;
        };
        let Some(entry) = self.index.entry_by_path_and_stage(path.as_bytes().as_bstr(), Stage::Unconflicted)
        else {
            return false;
        };
        self.trusts_file_mode() && on_disk != (entry.mode == Mode::FILE_EXECUTABLE)
    }

    /// `core.fileMode` (default true): whether git reads the work tree's executable bits.
    fn trusts_file_mode(&self) -> bool {
        self.repo.config_bool("core.fileMode").unwrap_or(true)
    }

    /// `worktree`, the content of the work-tree file `path`, in git's form: converted as
    /// `git add` converts it (`core.autocrlf`, the `.gitattributes` `eol`, `ident` and `filter`
    /// attributes, the repository's clean drivers), so that it equals the staged blob exactly when
    /// `git status` calls the file unchanged.
    ///
    /// # Errors
    /// [`GitError::Convert`]: a conversion gix refuses, or a clean driver that fails.
    pub fn to_git_form(&self, path: &str, worktree: &[u8]) -> Result<Vec<u8>, GitError> {
        convert::to_git(self.repo, &self.index, path, worktree)
    }

    /// The file `path` holding the blob `blob` (git's form), ready for
    /// [`LockedIndex::stage_and_commit`]: the bytes the work tree gets are converted now, as
    /// `git checkout` converts them, so that a conversion that fails stops a writer before it
    /// publishes anything. `as_read` is the work-tree file as the writer read it
    /// ([`Repo::read_worktree_file`]): only that file is replaced.
    ///
    /// # Errors
    /// An unusable path, or [`GitError::Convert`]: a conversion gix refuses, or a smudge driver
    /// that fails.
    pub fn file_to_stage(&self, path: &str, blob: Vec<u8>, as_read: AsRead) -> Result<FileToStage, GitError> {
        let path = path::file_path(path)?;
        let worktree = convert::to_worktree(self.repo, &self.index, &path, &blob)?;
        Ok(FileToStage { path, blob, worktree, as_read })
    }

    /// Write `file` into the work tree (in the work tree's form) and stage it: the index entry gets
    /// its blob (git's form) and the written file's stat, so `git status` shows the file as
    /// unchanged against a commit whose tree has this blob. The file keeps its index mode. The new
    /// index then replaces the old one and the lock is released.
    ///
    /// When the work-tree file is no longer as the writer read it, it is not touched
    /// ([`Staged::EditKept`]): the index entry still gets the blob, with no stat (as
    /// `git read-tree` leaves one), so git compares the file's content and shows the edit.
    pub fn stage_and_commit(mut self, file: &FileToStage) -> Result<Staged, GitError> {
        let FileToStage { path, blob, worktree, as_read } = file;
        let path = path.clone();
        let trusts_file_mode = self.trusts_file_mode();
        let index = &mut self.index;
        refuse_unmerged(index)?;
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
                refuse_in_the_way(index, &path)?;
                false
            }
        };
        // Where git ignores the executable bits (`core.fileMode` false), the file keeps its own,
        // as `git status` does not see them: writing the index's would change the file unseen.
        let executable = match as_read.executable() {
            Some(on_disk) if !trusts_file_mode => on_disk,
            _ => executable,
        };
        let (staged, stat) = match worktree::write_file(&self.workdir, &path, worktree, executable, as_read)?
        {
            Written::Replaced(written) => (Staged::Written, stat_of(&written)?),
            Written::ChangedSinceRead => (Staged::EditKept, Stat::default()),
        };
        let id = self.repo.write_blob(blob)?;
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
        self.commit().map(|()| staged)
    }

    /// Writes the index as it is now in place of the old one, releasing the lock.
    fn commit(mut self) -> Result<(), GitError> {
        let index_path = self.repo.index_path();
        let skip_hash = self.repo.inner.config_snapshot().boolean("index.skipHash").unwrap_or(false);
        let options = gix::index::write::Options { skip_hash, ..Default::default() };
        let io = |action: &'static str| {
            let path = index_path.clone();
            move |source| GitError::Io { action, path, source }
        };
        let mut out = std::io::BufWriter::new(&mut self.lock);
        self.index
            .write_to(&mut out, options)
            .during(|| format!("write the index {}", index_path.display()))?;
        out.flush().map_err(io("write the index"))?;
        drop(out);
        self.lock.commit().map_err(|e| io("replace the index")(e.error)).map(drop)
    }

    /// Whether the index marks `path` as outside the sparse checkout (git's skip-worktree bit): the
    /// work tree does not hold it on purpose, so its absence there is no deletion.
    pub fn outside_sparse_checkout(&self, path: &str) -> bool {
        self.index
            .entry_by_path_and_stage(path.as_bytes().as_bstr(), Stage::Unconflicted)
            .is_some_and(|entry| entry.flags.contains(Flags::SKIP_WORKTREE))
    }

    /// The staged files that are a writer's temporary file beside a task list
    /// ([`worktree::is_temp_name`]): left in the work tree by a run that was stopped, then staged
    /// with everything else (`git add -A`). A task commit must not hold them.
    pub fn staged_leftovers(&self) -> Vec<String> {
        self.index
            .entries()
            .iter()
            .map(|entry| entry.path(&self.index))
            .filter(|path| {
                let name = path.rsplit_str("/").next().unwrap_or(path);
                name.to_str().is_ok_and(worktree::is_temp_name)
            })
            .map(|path| path.to_str_lossy().into_owned())
            .collect()
    }

    /// The path of the index this lock guards.
    pub fn path(&self) -> PathBuf {
        self.repo.index_path()
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
    let meta = gix::index::fs::Metadata::from_path_no_follow(file).map_err(|source| GitError::Io {
        action: "read the metadata of",
        path: file.to_owned(),
        source,
    })?;
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
