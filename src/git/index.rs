//! The index: held locked as `git commit` holds it, the task commit's tree built from it, and a
//! written file staged back into it.

use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Flags, Mode, Stage, Stat};
use gix::objs::tree::{EntryKind, EntryMode};

use super::convert;
use super::error::{GitError, GixResultExt, io_error};
use super::limits::OBJECT_SIZE_LIMIT;
use super::line_ends;
use super::lock_wait::take_waiting;
use super::path;
use super::repo::Repo;
use super::worktree::{self, AsRead, NewFile, Written};

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
#[derive(Debug)]
pub struct FileToStage {
    /// The repository-relative path (validated).
    path: String,
    /// The blob, in git's form.
    blob: Vec<u8>,
    /// What the work tree gets (the file as read with the blob's changed lines, or the blob as
    /// `git checkout` converts it), written beside the file.
    new_file: NewFile,
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
        let lock = self.take_index_lock(&index_path)?;
        let index = if index_path.exists() {
            self.read_index(&index_path)?
        } else {
            gix::index::File::from_state(gix::index::State::new(self.object_hash()), index_path)
        };
        Ok(LockedIndex { repo: self, workdir, lock, index })
    }

    /// Reads the index at `path` ([`Repo::index_path`], which gix's own reading would not take
    /// for a relative `GIT_INDEX_FILE`) as gix reads an index: `index.threads` and
    /// `index.skipHash` as configured, no allocation above [`OBJECT_SIZE_LIMIT`].
    ///
    /// # Errors
    /// [`GitError::IndexUnreadable`] when gix cannot read it.
    fn read_index(&self, path: &Path) -> Result<gix::index::File, GitError> {
        let config = self.inner.config_snapshot();
        let threads = config.string("index.threads");
        let options = gix::index::decode::Options {
            // An unreadable count only changes how fast the index is read.
            thread_limit: threads.and_then(|value| {
                gix::config::tree::Index::THREADS.try_into_index_threads(value.as_bstr()).ok()
            }),
            min_extension_block_in_bytes_for_threading: 0,
            expected_checksum: None,
            alloc_limit_bytes: Some(OBJECT_SIZE_LIMIT),
        };
        let skip_hash = config.boolean("index.skipHash").unwrap_or(false);
        gix::index::File::at(path, self.object_hash(), skip_hash, options).map_err(|e| {
            GitError::IndexUnreadable {
                path: std::path::absolute(path).unwrap_or_else(|_| path.to_owned()),
                reason: e.to_string(),
            }
        })
    }

    /// `index.lock`, taken as git takes it ([`take_waiting`]).
    ///
    /// # Errors
    /// [`GitError::IndexLocked`] when the lock stays taken, or the lock cannot be made.
    fn take_index_lock(&self, index_path: &Path) -> Result<gix::lock::File, GitError> {
        let taken = take_waiting(|| {
            gix::lock::File::acquire_to_update_resource(
                index_path,
                gix::lock::acquire::Fail::Immediately,
                None,
                0,
            )
        });
        match taken {
            Ok(Some(lock)) => Ok(lock),
            Ok(None) => Err(GitError::IndexLocked {
                path: std::path::absolute(index_path).unwrap_or(index_path.to_owned()),
                others: self.writer_ref_locks(),
            }),
            Err(source) => {
                let action = format!("lock the index {}", index_path.display());
                Err(GitError::gix(action, source, Some(index_path)))
            }
        }
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
    /// [`LockedIndex::stage_and_commit`]: the bytes the work tree gets are made now and written
    /// into a new file beside `path`, so that a conversion that fails or a directory this user may
    /// not write stops a writer before it publishes anything. `as_read` is the work-tree file as
    /// the writer read it ([`Self::read_worktree_file`]): only that file is replaced, by itself
    /// with only the lines `blob` changes changed where git reads that back as `blob`
    /// ([`Self::with_lines_changed`]), else by `blob` as `git checkout` converts it.
    ///
    /// # Errors
    /// An unusable path, an index entry there that is no file, [`GitError::Convert`] (a
    /// conversion gix refuses, or a smudge driver that fails), or the new file cannot be written
    /// beside `path` ([`GitError::Permission`] where the system refused it).
    pub fn file_to_stage(&self, path: &str, blob: Vec<u8>, as_read: AsRead) -> Result<FileToStage, GitError> {
        let path = path::file_path(path)?;
        let executable = self.executable_in_worktree(&path, &as_read)?;
        let worktree = match self.with_lines_changed(&path, &blob, &as_read)? {
            Some(kept) => kept,
            None => convert::to_worktree(self.repo, &self.index, &path, &blob)?,
        };
        let new_file = worktree::prepare_file(&self.workdir, &path, &worktree, executable)?;
        Ok(FileToStage { path, blob, new_file, as_read })
    }

    /// Whether the work-tree file `path` (read as `as_read`) is written executable: as its index
    /// entry says (a new path: not), or as it is on disk where git ignores the executable bits
    /// (`core.fileMode` false), as `git status` does not see them there.
    ///
    /// # Errors
    /// The index has unresolved conflicts, `path`'s entry is no file, or an entry is in the way.
    fn executable_in_worktree(&self, path: &str, as_read: &AsRead) -> Result<bool, GitError> {
        let index = &self.index;
        refuse_unmerged(index)?;
        let executable = match index.entry_by_path_and_stage(path.as_bytes().as_bstr(), Stage::Unconflicted) {
            Some(entry) if entry.mode == Mode::FILE_EXECUTABLE => true,
            Some(entry) if entry.mode == Mode::FILE => false,
            Some(entry) => {
                let kind = entry.mode.to_tree_entry_mode().map_or("special entry", mode_name);
                return Err(GitError::NotAFile { path: path.to_owned(), kind });
            }
            None => {
                refuse_in_the_way(index, path)?;
                false
            }
        };
        match as_read.executable() {
            Some(on_disk) if !self.trusts_file_mode() => Ok(on_disk),
            _ => Ok(executable),
        }
    }

    /// The work-tree file `as_read` with each line `blob` changes against the staged blob of `path`
    /// changed, every line keeping its end ([`line_ends::carry_changed_lines`]), when git
    /// converts the file at its line ends alone and reads the result back as `blob`: a CRLF file
    /// that `core.autocrlf=input`, `eol=lf` or `text=auto` stores as LF keeps its CRLF, as git
    /// keeps it. `None` otherwise (nothing read or staged there, lines that do not correspond, an
    /// encoding or a filter driver): the file is then `blob` as `git checkout` converts it.
    fn with_lines_changed(
        &self,
        path: &str,
        blob: &[u8],
        as_read: &AsRead,
    ) -> Result<Option<Vec<u8>>, GitError> {
        let rela: &BStr = path.as_bytes().as_bstr();
        let (Some(on_disk), Some(entry)) =
            (as_read.bytes(), self.index.entry_by_path_and_stage(rela, Stage::Unconflicted))
        else {
            return Ok(None);
        };
        if !convert::at_line_ends_only(self.repo, &self.index, path)? {
            return Ok(None);
        }
        let Ok(staged) = self.repo.blob_within(entry.id, OBJECT_SIZE_LIMIT as u64)? else {
            return Ok(None);
        };
        let Some(kept) = line_ends::carry_changed_lines(&staged, blob, on_disk) else {
            return Ok(None);
        };
        let reads_back = convert::to_git(self.repo, &self.index, path, &kept).is_ok_and(|git| git == blob);
        Ok(reads_back.then_some(kept))
    }

    /// Write `file` into the work tree (in the work tree's form) and stage it: the index entry gets
    /// its blob (git's form) and the written file's stat, so `git status` shows the file as
    /// unchanged against a commit whose tree has this blob. The file keeps its index mode. Every
    /// other entry git could take as clean while its file changed unseen is smudged first, as git
    /// smudges it ([`smudge_racily_clean`]). The new index then replaces the old one and the lock
    /// is released.
    ///
    /// When the work-tree file is no longer as the writer read it, it is not touched
    /// ([`Staged::EditKept`]): the index entry still gets the blob, with no stat (as
    /// `git read-tree` leaves one), so git compares the file's content and shows the edit.
    pub fn stage_and_commit(mut self, file: FileToStage) -> Result<Staged, GitError> {
        let FileToStage { path, blob, new_file, as_read } = file;
        let (staged, stat) = match new_file.put_in_place(&self.workdir, &as_read)? {
            Written::Replaced(written) => (Staged::Written, stat_of(&written)?),
            Written::ChangedSinceRead => (Staged::EditKept, Stat::default()),
        };
        let id = self.repo.write_blob(&blob)?;
        let index = &mut self.index;
        smudge_racily_clean(index);
        let rela: &BStr = path.as_bytes().as_bstr();
        match index.entry_index_by_path_and_stage(rela, Stage::Unconflicted) {
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
        let io = |action: &'static str| io_error(action, index_path.clone());
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

    /// Whether the index marks `path` assume-unchanged (`git update-index --assume-unchanged`):
    /// git then takes the work-tree file as the staged one without looking, so `git status` shows
    /// no change of it and `git add` stages none.
    pub fn assumed_unchanged(&self, path: &str) -> bool {
        self.index
            .entry_by_path_and_stage(path.as_bytes().as_bstr(), Stage::Unconflicted)
            .is_some_and(|entry| entry.flags.contains(Flags::ASSUME_VALID))
    }

    /// The staged files that are a writer's temporary file beside a task list
    /// ([`worktree::is_temp_name`]): left in the work tree by a run that was stopped, then staged
    /// with everything else (`git add -A`). A task commit must not hold them. Each path exactly,
    /// for advice that removes it: one that is not UTF-8 too.
    pub fn staged_leftovers(&self) -> Vec<BString> {
        self.index
            .entries()
            .iter()
            .map(|entry| entry.path(&self.index))
            .filter(|path| {
                let name = path.rsplit_str("/").next().unwrap_or(path);
                name.to_str().is_ok_and(worktree::is_temp_name)
            })
            .map(ToOwned::to_owned)
            .collect()
    }

    /// The path of the index this lock guards.
    pub fn path(&self) -> PathBuf {
        self.repo.index_path()
    }
}

/// Smudges every entry git could take as clean when its file changed unseen, as git does before
/// it writes an index (`ce_smudge_racily_clean_entry`): an entry whose stat was taken no earlier
/// than the second the index was last written. git compares such an entry's content, since an
/// edit saved in that second at the same size has the same stat; the index written now is newer,
/// so git would trust the stat and never see the edit. A smudged entry (its stat's size 0) has its
/// content compared by every git until git refreshes it; an entry of an unchanged file costs git
/// one hash. The entry staged after this holds the stat of the file just written with its blob.
fn smudge_racily_clean(index: &mut gix::index::File) {
    let read_at = index.timestamp();
    let seconds_only = gix::index::entry::stat::Options::default();
    for entry in index.entries_mut() {
        let in_work_tree = !(entry.mode.is_submodule()
            || entry.mode.is_sparse()
            || entry.flags.contains(Flags::SKIP_WORKTREE));
        if in_work_tree && entry.stat.is_racy(read_at, seconds_only) {
            entry.stat.size = 0;
        }
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

#[cfg(test)]
mod tests {
    //! The task commit's tree comes from the index; staging the ticked file leaves `git status` clean.

    use crate::exit::ExitClass as _;
    use crate::git::test_support::Fixture;
    use crate::git::{AsRead, GitError, Head, ObjectId, Repo, Staged};

    /// Stages `bytes` as `path` under a fresh index lock, as a writer does: the work-tree file read
    /// (as nothing there when it cannot be read: the write refuses such a place), the file prepared
    /// ([`crate::git::LockedIndex::file_to_stage`]), then written and staged.
    fn stage(repo: &Repo, path: &str, bytes: &[u8]) -> Result<(), GitError> {
        let index = repo.lock_index()?;
        let as_read = index.read_worktree_file(path, 1 << 20).unwrap_or_else(|_| AsRead::absent());
        let file = index.file_to_stage(path, bytes.to_vec(), as_read)?;
        assert_eq!(index.stage_and_commit(file)?, Staged::Written, "nothing changed the file meanwhile");
        Ok(())
    }

    /// Reads `path`, prepares its tick, runs `meanwhile` (someone else's change to the work tree
    /// while a writer signs), then writes and stages: what a writer does around its signing.
    fn stage_around(repo: &Repo, path: &str, bytes: &[u8], meanwhile: impl FnOnce()) -> Staged {
        let index = repo.lock_index().unwrap();
        let as_read = index.read_worktree_file(path, 1 << 20).unwrap();
        let file = index.file_to_stage(path, bytes.to_vec(), as_read).unwrap();
        meanwhile();
        index.stage_and_commit(file).unwrap()
    }

    /// A repository with a regular, an executable, a symlinked and a submodule entry, plus a
    /// staged-but-uncommitted change and an unstaged one.
    fn busy_fixture() -> Fixture {
        let fx = Fixture::new();
        fx.write("specs/001-x/tasks.md", "- [ ] T001 first\n- [ ] T002 second\n");
        fx.write_executable("bin/run.sh", "#!/bin/sh\necho hi\n");
        fx.write("README.md", "readme\n");
        fx.git(&["add", "."]);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("README.md", fx.path().join("link")).unwrap();
            fx.git(&["add", "link"]);
        }
        let gitlink = "1111111111111111111111111111111111111111";
        fx.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{gitlink},vendor/sub")]);
        fx.git(&["commit", "-q", "-m", "base"]);
        // Staged: a new file and a modification. Unstaged: a later edit of README.md.
        fx.write("src/new.rs", "fn main() {}\n");
        fx.write("README.md", "readme, staged\n");
        fx.git(&["add", "src/new.rs", "README.md"]);
        fx.write("README.md", "readme, staged, then edited again\n");
        fx
    }

    #[test]
    fn the_tree_of_an_unchanged_index_is_exactly_what_git_write_tree_writes() {
        let fx = busy_fixture();
        let ours = fx.repo().lock_index().unwrap().tree_with(&[]).unwrap();
        assert_eq!(ours, fx.rev(fx.git(&["write-tree"]).trim()));
    }

    #[test]
    fn an_override_replaces_only_that_file_and_keeps_staged_changes_and_modes() {
        let fx = busy_fixture();
        let ticked = b"- [X] T001 first\n- [ ] T002 second\n".to_vec();
        let tree = fx
            .repo()
            .lock_index()
            .unwrap()
            .tree_with(&[("specs/001-x/tasks.md".to_owned(), ticked.clone())])
            .unwrap();

        // What git builds from a copy of the index with the same blob staged.
        let copy = fx.path().join(".git/index-copy");
        std::fs::copy(fx.path().join(".git/index"), &copy).unwrap();
        let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(&ticked));
        let blob = String::from_utf8(blob).unwrap();
        let mut cmd = fx.command(&[
            "update-index",
            "--cacheinfo",
            &format!("100644,{},specs/001-x/tasks.md", blob.trim()),
        ]);
        cmd.env("GIT_INDEX_FILE", &copy);
        assert!(crate::git::test_support::run(cmd, None).status.success());
        let mut cmd = fx.command(&["write-tree"]);
        cmd.env("GIT_INDEX_FILE", &copy);
        let expected = String::from_utf8(crate::git::test_support::run(cmd, None).stdout).unwrap();
        assert_eq!(tree.to_string(), expected.trim());

        let listing = fx.git(&["ls-tree", "-r", &tree.to_string()]);
        assert!(listing.contains("100755 blob"), "the executable bit is kept: {listing}");
        assert!(listing.contains("160000 commit 1111111111111111111111111111111111111111\tvendor/sub"));
        assert!(listing.contains("\tsrc/new.rs"), "the staged new file is in the tree");
        #[cfg(unix)]
        assert!(listing.contains("120000 blob"), "the symlink is kept: {listing}");
        let readme = fx.git(&["cat-file", "-p", &format!("{tree}:README.md")]);
        assert_eq!(readme, "readme, staged\n", "the staged content, not the work tree's");
    }

    #[test]
    fn an_override_of_an_executable_keeps_it_executable_and_a_new_path_becomes_a_regular_file() {
        let fx = busy_fixture();
        let tree = fx
            .repo()
            .lock_index()
            .unwrap()
            .tree_with(&[
                ("bin/run.sh".to_owned(), b"#!/bin/sh\necho changed\n".to_vec()),
                ("docs/new.md".to_owned(), b"new\n".to_vec()),
            ])
            .unwrap();
        let listing = fx.git(&["ls-tree", "-r", &tree.to_string()]);
        assert!(listing.lines().any(|l| l.starts_with("100755 blob") && l.ends_with("\tbin/run.sh")));
        assert!(listing.lines().any(|l| l.starts_with("100644 blob") && l.ends_with("\tdocs/new.md")));
    }

    #[test]
    fn overriding_a_symlink_or_submodule_or_a_bad_path_is_refused() {
        let fx = busy_fixture();
        let repo = fx.repo();
        let over = |path: &str| repo.lock_index().unwrap().tree_with(&[(path.to_owned(), b"x".to_vec())]);
        assert!(matches!(over("vendor/sub"), Err(GitError::NotAFile { .. })));
        #[cfg(unix)]
        assert!(matches!(over("link"), Err(GitError::NotAFile { .. })));
        for bad in ["../x", "/etc/passwd", "a//b", ".git/config", "a/./b", ""] {
            assert!(matches!(over(bad), Err(GitError::InvalidPath { .. })), "{bad:?} is refused");
        }
        assert!(matches!(over("README.md/inner"), Err(GitError::PathConflict { .. })));
    }

    #[test]
    fn an_index_with_unresolved_conflicts_is_refused() {
        let fx = Fixture::new();
        fx.commit_file("f.txt", "base\n", "base");
        fx.git(&["checkout", "-q", "-b", "other"]);
        fx.commit_file("f.txt", "other\n", "other");
        fx.git(&["checkout", "-q", "main"]);
        fx.commit_file("f.txt", "main\n", "main");
        let merge = fx.git_output(&["merge", "-q", "other"], None);
        assert!(!merge.status.success(), "the merge conflicts");
        let repo = fx.repo();
        match repo.lock_index().unwrap().tree_with(&[]) {
            Err(GitError::Unmerged { paths }) => assert_eq!(paths, vec!["f.txt".to_owned()]),
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert!(matches!(stage(&repo, "g.txt", b"x"), Err(GitError::Unmerged { .. })));
    }

    #[test]
    fn ticking_committing_and_staging_leaves_git_status_clean_and_fsck_happy() {
        let fx = Fixture::new();
        fx.write("specs/001-x/tasks.md", "- [ ] T001 first\n");
        fx.write_executable("bin/run.sh", "#!/bin/sh\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "base"]);
        fx.write("src/lib.rs", "// staged\n");
        fx.git(&["add", "src/lib.rs"]);

        let repo = fx.repo();
        let Head::Branch { name, commit: head } = repo.head().unwrap() else { panic!("on a branch") };
        let ticked = b"- [X] T001 first\n".to_vec();
        let tree = repo
            .lock_index()
            .unwrap()
            .tree_with(&[("specs/001-x/tasks.md".to_owned(), ticked.clone())])
            .unwrap();
        let commit = repo
            .create_commit_on_branch(name.text().unwrap(), head, tree, "Tick T001\n\nSpec-Task: 001-x/T001\n")
            .unwrap();
        stage(&repo, "specs/001-x/tasks.md", &ticked).unwrap();

        assert_eq!(fx.rev("HEAD"), commit);
        assert_eq!(fx.git(&["status", "--porcelain", "--untracked-files=all"]), "");
        assert_eq!(std::fs::read(fx.path().join("specs/001-x/tasks.md")).unwrap(), ticked);
        assert_eq!(fx.git(&["diff", "HEAD", "--stat"]), "", "the index equals the new commit");
        fx.assert_fsck_clean();
    }

    #[test]
    fn an_edit_saved_in_the_second_its_file_and_the_index_were_written_stays_visible_to_git() {
        let fx = Fixture::new();
        fx.commit_file("tasks.md", "- [ ] T001\n", "base");
        fx.commit_file("a.txt", "a1\n", "a");
        let moment = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_767_225_600);
        let set_mtime = |rela: &str| {
            let file = std::fs::File::options().write(true).open(fx.path().join(rela)).unwrap();
            file.set_modified(moment).unwrap();
        };
        fx.write("a.txt", "a2\n");
        set_mtime("a.txt");
        fx.git(&["add", "a.txt"]);
        fx.write("a.txt", "a3\n"); // the same size, saved in the same second
        set_mtime("a.txt");
        set_mtime(".git/index");
        stage(&fx.repo(), "tasks.md", b"- [X] T001\n").unwrap();
        assert_eq!(fx.git(&["status", "--porcelain"]), "MM a.txt\nM  tasks.md\n");
    }

    #[test]
    fn staging_keeps_the_executable_bit_and_adds_untracked_paths() {
        let fx = Fixture::new();
        fx.write("run.sh", "#!/bin/sh\n");
        fx.git(&["add", "run.sh"]);
        fx.git(&["update-index", "--chmod=+x", "run.sh"]);
        fx.git(&["commit", "-q", "-m", "base"]);
        let repo = fx.repo();
        stage(&repo, "run.sh", b"#!/bin/sh\necho 2\n").unwrap();
        stage(&repo, "notes/new.md", b"new\n").unwrap();
        let staged = fx.git(&["ls-files", "-s"]);
        assert!(staged.lines().any(|l| l.starts_with("100755 ") && l.ends_with("\trun.sh")), "{staged}");
        assert!(
            staged.lines().any(|l| l.starts_with("100644 ") && l.ends_with("\tnotes/new.md")),
            "{staged}"
        );
        // Staged but not committed: status shows exactly these two, and no work-tree difference.
        assert_eq!(fx.git(&["diff", "--name-only"]), "");
        assert_eq!(fx.git(&["status", "--porcelain"]), "A  notes/new.md\nM  run.sh\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(fx.path().join("run.sh")).unwrap().permissions().mode();
            assert_ne!(mode & 0o100, 0, "the work-tree file stays executable");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_staged_file_is_replaced_whole_and_the_index_holds_its_stat() {
        let fx = Fixture::new();
        fx.write("specs/001-x/tasks.md", "- [ ] T001 first\n- [ ] T002 second\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "base"]);
        let path = fx.path().join("specs/001-x/tasks.md");
        // A second name for the file: the old inode keeps the old content, as after git's checkout.
        let other_name = fx.path().join("tasks-link.md");
        std::fs::hard_link(&path, &other_name).unwrap();
        let repo = fx.repo();
        let ticked = b"- [X] T001 first\n- [ ] T002 second\n";
        stage(&repo, "specs/001-x/tasks.md", ticked).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), ticked);
        assert_eq!(std::fs::read(&other_name).unwrap(), b"- [ ] T001 first\n- [ ] T002 second\n");
        assert_eq!(
            fx.git(&["diff", "--name-only", "--", "specs"]),
            "",
            "the index holds the new file's stat"
        );
        assert_eq!(fx.git(&["show", ":specs/001-x/tasks.md"]).as_bytes(), ticked);
    }

    #[test]
    fn the_new_content_a_stopped_writer_left_beside_the_file_is_replaced_and_never_left_behind() {
        let fx = Fixture::new();
        fx.write("specs/001-x/tasks.md", "- [ ] T001 first\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "base"]);
        // What a writer killed between creating its new file and renaming it leaves.
        let leftover = fx.path().join("specs/001-x/.tasks.md.speccoder-new");
        std::fs::write(&leftover, "- [X] T001 half writ").unwrap();

        stage(&fx.repo(), "specs/001-x/tasks.md", b"- [X] T001 first\n").unwrap();

        assert!(!leftover.exists(), "the leftover was used and renamed away");
        assert_eq!(std::fs::read(fx.path().join("specs/001-x/tasks.md")).unwrap(), b"- [X] T001 first\n");
        assert_eq!(fx.git(&["status", "--porcelain", "--untracked-files=all"]), "M  specs/001-x/tasks.md\n");
    }

    #[test]
    fn a_directory_where_the_new_file_goes_is_named_with_its_removal_never_an_internal_error() {
        let fx = Fixture::new();
        fx.commit_file("specs/001-x/tasks.md", "- [ ] T001\n", "base");
        std::fs::create_dir_all(fx.path().join("specs/001-x/.tasks.md.speccoder-new/inner")).unwrap();
        let repo = fx.repo();
        let index = repo.lock_index().unwrap();
        let as_read = index.read_worktree_file("specs/001-x/tasks.md", 1 << 20).unwrap();
        let err = index.file_to_stage("specs/001-x/tasks.md", b"- [X] T001\n".to_vec(), as_read).unwrap_err();
        let GitError::DirectoryInTheWay { path } = &err else { panic!("{err:?}") };
        assert_eq!(path, "specs/001-x/.tasks.md.speccoder-new");
        assert_eq!(crate::exit::ExitClass::exit_code(&err), crate::exit::GIT_PRECONDITION);
        assert!(err.to_string().contains("`rm -r -- specs/001-x/.tasks.md.speccoder-new`"), "{err}");
    }

    #[test]
    fn the_new_file_is_written_beside_the_file_when_prepared_and_removed_when_dropped_unused() {
        let fx = Fixture::new();
        fx.commit_file("specs/001-x/tasks.md", "- [ ] T001\n", "base");
        let repo = fx.repo();
        let index = repo.lock_index().unwrap();
        let as_read = index.read_worktree_file("specs/001-x/tasks.md", 1 << 20).unwrap();
        let file = index.file_to_stage("specs/001-x/tasks.md", b"- [X] T001\n".to_vec(), as_read).unwrap();
        let new = fx.path().join("specs/001-x/.tasks.md.speccoder-new");
        assert_eq!(std::fs::read(&new).unwrap(), b"- [X] T001\n", "written before anything is committed");
        // A writer that stops before it commits (a signer that fails) drops what it prepared.
        drop(file);
        drop(index);
        assert!(!new.exists(), "the new file is removed");
        assert_eq!(fx.git(&["status", "--porcelain", "--untracked-files=all"]), "");
    }

    #[test]
    fn an_edit_saved_after_the_file_was_read_is_kept_and_the_index_still_gets_the_blob() {
        let fx = Fixture::new();
        fx.commit_file("tasks.md", "- [ ] T001\n", "base");
        let staged = stage_around(&fx.repo(), "tasks.md", b"- [X] T001\n", || {
            fx.write("tasks.md", "- [ ] T001\n- [ ] T002 my note\n");
        });
        assert_eq!(staged, Staged::EditKept);
        assert_eq!(
            std::fs::read_to_string(fx.path().join("tasks.md")).unwrap(),
            "- [ ] T001\n- [ ] T002 my note\n"
        );
        assert_eq!(fx.git(&["show", ":tasks.md"]), "- [X] T001\n", "the index holds the blob");
        // git compares the content (the entry has no stat) and shows the edit against the blob.
        assert_eq!(fx.git(&["status", "--porcelain"]), "MM tasks.md\n");
        let diff = fx.git(&["diff", "--", "tasks.md"]);
        assert!(diff.contains("-- [X] T001\n+- [ ] T001\n+- [ ] T002 my note"), "{diff}");
        assert!(!fx.path().join(".tasks.md.speccoder-new").exists(), "no new file is left beside it");
    }

    #[cfg(unix)]
    #[test]
    fn a_file_whose_stat_changed_after_it_was_read_is_kept_even_with_the_same_content() {
        use std::os::unix::fs::PermissionsExt;
        let fx = Fixture::new();
        fx.commit_file("tasks.md", "- [ ] T001\n", "base");
        let path = fx.path().join("tasks.md");
        let staged = stage_around(&fx.repo(), "tasks.md", b"- [X] T001\n", || {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        });
        assert_eq!(staged, Staged::EditKept);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "- [ ] T001\n");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o755, "the mode stays");
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_tasks_file_is_still_ticked_and_stays_read_only() {
        use std::os::unix::fs::PermissionsExt;
        let fx = Fixture::new();
        fx.commit_file("tasks.md", "- [ ] T001\n", "base");
        let path = fx.path().join("tasks.md");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        stage(&fx.repo(), "tasks.md", b"- [X] T001\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "- [X] T001\n");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o444);
        assert_eq!(fx.git(&["status", "--porcelain"]), "M  tasks.md\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_put_in_the_place_of_a_tracked_file_is_never_written_through() {
        let fx = Fixture::new();
        fx.commit_file("tasks.md", "- [ ] T001\n", "base");
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim.md");
        std::fs::write(&victim, "- [ ] T001\n").unwrap();
        std::fs::remove_file(fx.path().join("tasks.md")).unwrap();
        std::os::unix::fs::symlink(&victim, fx.path().join("tasks.md")).unwrap();
        let repo = fx.repo();
        let index = repo.lock_index().unwrap();
        // A link is never read as the file; whatever stands where a file was read (or was absent) is
        // someone's change, left in place.
        let file = index.file_to_stage("tasks.md", b"- [X] T001\n".to_vec(), AsRead::absent()).unwrap();
        assert_eq!(index.stage_and_commit(file).unwrap(), Staged::EditKept);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "- [ ] T001\n");
        assert!(std::fs::symlink_metadata(fx.path().join("tasks.md")).unwrap().file_type().is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn staging_never_writes_through_a_symbolic_link() {
        let fx = Fixture::new();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), fx.path().join("specs")).unwrap();
        fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let result = stage(&repo, "specs/tasks.md", b"x");
        assert!(matches!(result, Err(GitError::UnsafeWorktreePath { .. })), "{result:?}");
        assert!(!outside.path().join("tasks.md").exists());
    }

    #[test]
    fn a_tree_built_with_overrides_of_an_empty_index_holds_just_those_files() {
        let fx = Fixture::new();
        let repo = fx.repo();
        let tree = repo.lock_index().unwrap().tree_with(&[("a/b.txt".to_owned(), b"b\n".to_vec())]).unwrap();
        assert_eq!(fx.git(&["ls-tree", "-r", "--name-only", &tree.to_string()]), "a/b.txt\n");
        let empty = repo.lock_index().unwrap().tree_with(&[]).unwrap();
        assert_eq!(empty, ObjectId::empty_tree(repo.object_hash()));
    }

    #[test]
    fn a_sparse_index_gives_the_same_tree_as_git_write_tree() {
        let fx = Fixture::new();
        fx.write("specs/001-x/tasks.md", "- [ ] T001\n");
        fx.write("other/deep/file.txt", "other\n");
        fx.write("top.txt", "top\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "base"]);
        fx.git(&["sparse-checkout", "init", "--cone", "--sparse-index"]);
        fx.git(&["sparse-checkout", "set", "specs"]);
        let staged = fx.git(&["ls-files", "--sparse", "-s"]);
        assert!(staged.contains("040000 ") && staged.contains("\tother/"), "the index is sparse: {staged}");
        let repo = fx.repo();
        let ours = repo.lock_index().unwrap().tree_with(&[]).unwrap();
        assert_eq!(ours, fx.rev(fx.git(&["write-tree"]).trim()));
        let ticked = repo
            .lock_index()
            .unwrap()
            .tree_with(&[("specs/001-x/tasks.md".to_owned(), b"- [X] T001\n".to_vec())])
            .unwrap();
        assert_eq!(fx.git(&["show", &format!("{ticked}:other/deep/file.txt")]), "other\n");
        assert_eq!(fx.git(&["show", &format!("{ticked}:specs/001-x/tasks.md")]), "- [X] T001\n");
    }

    #[test]
    fn a_tree_from_files_alone_equals_what_git_builds_from_the_same_files() {
        let fx = Fixture::new();
        let repo = fx.repo();
        let files = vec![
            ("001-x/manifest.json".to_owned(), b"{}\n".to_vec()),
            ("001-x/files/tests/a.rs".to_owned(), b"#[test] fn a() {}\n".to_vec()),
            ("001-x.json".to_owned(), b"[]\n".to_vec()),
        ];
        let tree = repo.tree_from_files(&files).unwrap();
        let scratch = fx.path().join(".git/scratch-index");
        for (path, bytes) in &files {
            let blob =
                String::from_utf8(fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(bytes))).unwrap();
            let mut cmd = fx.command(&[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("100644,{},{path}", blob.trim()),
            ]);
            cmd.env("GIT_INDEX_FILE", &scratch);
            assert!(crate::git::test_support::run(cmd, None).status.success());
        }
        let mut cmd = fx.command(&["write-tree"]);
        cmd.env("GIT_INDEX_FILE", &scratch);
        let by_git = String::from_utf8(crate::git::test_support::run(cmd, None).stdout).unwrap();
        assert_eq!(tree.to_string(), by_git.trim());
        let twice = vec![files[0].clone(), files[0].clone()];
        assert!(matches!(repo.tree_from_files(&twice), Err(GitError::InvalidPath { .. })));
        let clash = vec![("a".to_owned(), vec![]), ("a/b".to_owned(), vec![])];
        assert!(matches!(repo.tree_from_files(&clash), Err(GitError::PathConflict { .. })));
    }

    #[test]
    fn staging_a_file_outside_the_sparse_checkout_is_refused() {
        let fx = Fixture::new();
        fx.write("specs/tasks.md", "- [ ] T001\n");
        fx.write("other/file.txt", "other\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "base"]);
        fx.git(&["sparse-checkout", "init", "--cone", "--sparse-index"]);
        fx.git(&["sparse-checkout", "set", "specs"]);
        let repo = fx.repo();
        assert!(matches!(stage(&repo, "other/new.txt", b"x"), Err(GitError::InvalidPath { .. })));
        stage(&repo, "specs/tasks.md", b"- [X] T001\n").unwrap();
        assert_eq!(fx.git(&["status", "--porcelain"]), "M  specs/tasks.md\n");
    }

    #[test]
    fn an_index_whose_checksum_does_not_match_is_refused_and_left_as_it_is() {
        let fx = busy_fixture();
        let index = fx.path().join(".git/index");
        let mut bytes = std::fs::read(&index).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&index, &bytes).unwrap();
        let err = fx.repo().lock_index().err().expect("a damaged index is refused");
        assert_eq!(err.class(), crate::exit::Class::GitPrecondition, "the repository's state: {err}");
        let said = err.to_string();
        let absolute = std::path::absolute(&index).unwrap();
        assert!(said.contains(&format!("`rm {} && git reset`", absolute.display())), "{said}");
        assert_eq!(std::fs::read(&index).unwrap(), bytes, "nothing was written");
        assert!(!fx.path().join(".git/index.lock").exists(), "the lock was released");
    }

    #[test]
    fn a_second_writer_waits_for_the_lock_and_then_gives_up_naming_the_index() {
        let fx = busy_fixture();
        let repo = fx.repo();
        let held = repo.lock_index().unwrap();
        let started = std::time::Instant::now();
        match fx.repo().lock_index() {
            Err(GitError::IndexLocked { path, .. }) => assert_eq!(path, held.path()),
            other => panic!("expected the lock to be refused, got {:?}", other.map(|_| ())),
        }
        assert!(started.elapsed() >= std::time::Duration::from_secs(1), "it waited before giving up");
        let git_add = fx.git_output(&["add", "README.md"], None);
        assert!(!git_add.status.success(), "git itself sees the lock");
        drop(held);
        assert!(!fx.path().join(".git/index.lock").exists(), "dropping the lock removes it");
        fx.repo().lock_index().unwrap();
    }

    #[test]
    fn a_lock_released_without_staging_leaves_the_index_byte_for_byte() {
        let fx = busy_fixture();
        let before = std::fs::read(fx.path().join(".git/index")).unwrap();
        let repo = fx.repo();
        let index = repo.lock_index().unwrap();
        index.tree_with(&[("specs/001-x/tasks.md".to_owned(), b"- [X] T001 first\n".to_vec())]).unwrap();
        drop(index);
        assert_eq!(std::fs::read(fx.path().join(".git/index")).unwrap(), before);
    }

    #[test]
    fn a_tree_built_after_git_changed_the_index_sees_the_change() {
        let fx = busy_fixture();
        let repo = fx.repo();
        let before = repo.lock_index().unwrap().tree_with(&[]).unwrap();
        fx.write("later.txt", "staged after the first tree\n");
        fx.git(&["add", "later.txt"]);
        let after = repo.lock_index().unwrap().tree_with(&[]).unwrap();
        assert_ne!(after, before);
        assert_eq!(after, fx.rev(fx.git(&["write-tree"]).trim()));
    }

    #[test]
    fn staging_after_git_changed_the_index_keeps_the_change() {
        let fx = busy_fixture();
        let repo = fx.repo();
        repo.lock_index().unwrap().tree_with(&[]).unwrap();
        fx.write("later.txt", "staged after the tree was built\n");
        fx.git(&["add", "later.txt"]);
        stage(&repo, "notes/new.md", b"new\n").unwrap();
        let staged = fx.git(&["diff", "--cached", "--name-only"]);
        assert!(staged.lines().any(|p| p == "later.txt"), "git's change is kept: {staged}");
        assert!(staged.lines().any(|p| p == "notes/new.md"), "ours is staged: {staged}");
        assert_eq!(fx.git(&["status", "--porcelain", "--", "later.txt", "notes/new.md"]).lines().count(), 2);
    }
}
