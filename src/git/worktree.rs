//! One file of the work tree: read as a writer saw it, its new content written beside it before the
//! writer commits anything, and put in place (never through a symbolic link, replaced atomically)
//! only while the file is still as it was read.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::{GitError, io_error};
use crate::input::InputError;

/// A work-tree file as a writer read it: nothing there, or its bytes and what `stat` said of it
/// just before they were read.
///
/// A writer reads the file, then works for a while (a signer may wait seconds for a hardware
/// key's touch or a passphrase), then replaces the file: [`NewFile::put_in_place`] replaces it
/// only while it is still exactly this, content and `stat` alike, so an edit saved meanwhile is
/// never lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsRead(Option<(FileStat, Vec<u8>)>);

impl AsRead {
    /// The bytes read, or `None` when nothing was there.
    #[must_use]
    pub fn bytes(&self) -> Option<&[u8]> {
        self.0.as_ref().map(|(_, bytes)| bytes.as_slice())
    }

    /// Whether the file read had git's executable bit (the owner's `x`); `None` when nothing
    /// was there, or on a system without one.
    #[must_use]
    pub fn executable(&self) -> Option<bool> {
        let (stat, _) = self.0.as_ref()?;
        stat.executable()
    }

    /// Nothing there: for tests that stage a file whose place cannot be read.
    #[cfg(test)]
    pub(crate) fn absent() -> AsRead {
        AsRead(None)
    }
}

/// What `stat` (without following a link) says of a file, as far as it shows a change: an editor
/// that saves by renaming a new file into place changes the inode, one that writes in place
/// changes the times, and `chmod` changes the mode and the change time.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStat {
    #[cfg(unix)]
    unix: [i64; 8],
    #[cfg(not(unix))]
    other: (u64, Option<std::time::SystemTime>, bool),
}

impl FileStat {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> FileStat {
        use std::os::unix::fs::MetadataExt as _;
        // Device and inode numbers, mode and size are compared for equality only, so their bits
        // are kept whatever their sign as `i64`.
        #[allow(clippy::cast_possible_wrap)]
        let unix = [
            meta.dev() as i64,
            meta.ino() as i64,
            i64::from(meta.mode()),
            meta.size() as i64,
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
        ];
        FileStat { unix }
    }

    #[cfg(not(unix))]
    fn of(meta: &std::fs::Metadata) -> FileStat {
        FileStat { other: (meta.len(), meta.modified().ok(), meta.permissions().readonly()) }
    }

    /// The owner's `x` bit, the one git reads as a file's executable mode.
    #[cfg(unix)]
    fn executable(&self) -> Option<bool> {
        Some(self.unix[2] & 0o100 != 0)
    }

    #[cfg(not(unix))]
    fn executable(&self) -> Option<bool> {
        None
    }
}

/// The work-tree file `rela` (repository-relative) below `workdir` as it is now, read as every
/// user file is read ([`crate::input::read_regular_within`]: no link followed, never blocking, at
/// most `max` bytes), with what `stat` says of it. The `stat` is taken before the bytes are read,
/// so a change made while they are read shows in the next look.
///
/// # Errors
/// Something is there that cannot be read as a regular file (a link, a FIFO, a directory, no
/// permission, more than `max` bytes).
pub(crate) fn read_file(workdir: &Path, rela: &str, max: u64) -> Result<AsRead, InputError> {
    let path = workdir.join(rela);
    let not_found = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
    let stat = match std::fs::symlink_metadata(&path) {
        Ok(meta) => FileStat::of(&meta),
        Err(e) if not_found(&e) => return Ok(AsRead(None)),
        Err(source) => return Err(InputError::Io { path, source }),
    };
    match crate::input::read_regular_within(workdir, Path::new(rela), max) {
        Ok(bytes) => Ok(AsRead(Some((stat, bytes)))),
        Err(InputError::Io { source, .. }) if not_found(&source) => Ok(AsRead(None)),
        Err(e) => Err(e),
    }
}

/// Whether the file `rela` below `workdir` is still exactly `as_read`: the same `stat` and the
/// same bytes (anything that cannot be read as before counts as a change).
fn still_as_read(workdir: &Path, rela: &str, as_read: &AsRead) -> bool {
    // A file longer than the one read is a change: reading one byte more is enough to see it.
    let max = as_read.bytes().map_or(0, |b| u64::try_from(b.len()).unwrap_or(u64::MAX));
    read_file(workdir, rela, max).is_ok_and(|now| now == *as_read)
}

/// What [`NewFile::put_in_place`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Written {
    /// The file now holds the new bytes; its path.
    Replaced(PathBuf),
    /// The file was no longer as it was read (someone saved an edit meanwhile): it was left as
    /// it is, and nothing was written.
    ChangedSinceRead,
}

/// The name of the file [`prepare_file`] writes beside `name` before it is renamed over `name`.
fn temp_name(name: &str) -> String {
    format!(".{name}{TEMP_SUFFIX}")
}

/// The end of [`temp_name`]'s names.
const TEMP_SUFFIX: &str = ".speccoder-new";

/// Whether the file name `name` is one [`prepare_file`] writes before its rename: a file of that
/// name that outlives a run was left by one that was stopped.
pub(crate) fn is_temp_name(name: &str) -> bool {
    name.strip_prefix('.').and_then(|rest| rest.strip_suffix(TEMP_SUFFIX)).is_some_and(|n| !n.is_empty())
}

/// The new content of a work-tree file, complete in a file beside it ([`prepare_file`]), which
/// [`NewFile::put_in_place`] renames over the file. A writer prepares it before it commits
/// anything, so that a directory this user may not write stops it while nothing is written.
/// Dropped unused, or when an interrupt ends the command, the new file is removed: it is one of
/// gix's registered temporary files, removed on a signal as its lock files are.
#[derive(Debug)]
pub(crate) struct NewFile {
    /// The complete new file beside the target, closed.
    temp: gix::tempfile::Handle<gix::tempfile::handle::Closed>,
    /// The repository-relative path of the file it replaces.
    rela: String,
}

/// Writes `bytes` into a new file beside the repository-relative `rela` (already validated) below
/// `workdir`, creating missing directories, with `rela`'s read bits and git's executable bit as
/// `executable` says: the file [`NewFile::put_in_place`] renames over `rela`. Creating it is the
/// proof, with the very operation the rename needs, that this user may write `rela`'s directory.
///
/// # Errors
/// A directory on the way is a link or a file ([`GitError::UnsafeWorktreePath`]), or the new file
/// cannot be created and written ([`GitError::Permission`] where the system refused it).
pub(crate) fn prepare_file(
    workdir: &Path,
    rela: &str,
    bytes: &[u8],
    executable: bool,
) -> Result<NewFile, GitError> {
    let (dir, name) = checked_dir(workdir, rela, Missing::Create)?;
    let target = dir.join(name);
    let old_permissions = match std::fs::symlink_metadata(&target) {
        Ok(meta) if meta.is_file() => Some(meta.permissions()),
        // Anything else there now (nothing, or what the user put there since it was read) is
        // found changed before the rename, and left in place.
        Ok(_) => None,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(io_error("inspect", &target)(err)),
    };
    // The name is ours alone, and the caller holds the index lock, so a file of that name is one
    // a writer left when it was stopped: it is replaced, never left behind for `git status`.
    let temp = dir.join(temp_name(name));
    match std::fs::remove_file(&temp) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) if std::fs::symlink_metadata(&temp).is_ok_and(|meta| meta.is_dir()) => {
            let path = rela.rsplit_once('/').map_or(String::new(), |(parent, _)| format!("{parent}/"));
            return Err(GitError::DirectoryInTheWay { path: path + &temp_name(name) });
        }
        Err(err) => return Err(io_error("remove the stale", &temp)(err)),
    }
    let keep = gix::tempfile::ContainingDirectory::Exists;
    let mut file = gix::tempfile::writable_at(&temp, keep, gix::tempfile::AutoRemove::Tempfile)
        .map_err(io_error("create", &temp))?;
    file.with_mut(|file| write_new(file.as_file_mut(), bytes, old_permissions, executable))
        .and_then(|written| written)
        .map_err(io_error("write", &temp))?;
    let temp = file.close().map_err(io_error("close", &temp))?;
    Ok(NewFile { temp, rela: rela.to_owned() })
}

impl NewFile {
    /// Renames the new file over its target below `workdir` when the target is still `as_read`
    /// (else the new file is removed and nothing is written: [`Written::ChangedSinceRead`]), so
    /// readers see either the old or the new content; the check is made right before the rename.
    ///
    /// # Errors
    /// A directory on the way became a link or a file, or the rename failed.
    pub(crate) fn put_in_place(self, workdir: &Path, as_read: &AsRead) -> Result<Written, GitError> {
        let (dir, name) = checked_dir(workdir, &self.rela, Missing::Refuse)?;
        if !still_as_read(workdir, &self.rela, as_read) {
            return Ok(Written::ChangedSinceRead);
        }
        let target = dir.join(name);
        match self.temp.persist(&target) {
            Ok(()) => Ok(Written::Replaced(target)),
            Err(e) => Err(io_error("replace", &target)(e.error)),
        }
    }
}

/// What [`checked_dir`] does with a directory on the way that is not there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missing {
    /// Creates it.
    Create,
    /// Refuses it: it was there when the new file was made.
    Refuse,
}

/// The directory of the repository-relative `rela` below `workdir`, and its file name: each
/// directory on the way a real directory, never a link or a file, a missing one as `missing` says.
fn checked_dir<'a>(workdir: &Path, rela: &'a str, missing: Missing) -> Result<(PathBuf, &'a str), GitError> {
    let unsafe_path = |reason| GitError::UnsafeWorktreePath { path: rela.to_owned(), reason };
    let parts: Vec<&'a str> = rela.split('/').collect();
    let Some((name, dirs)) = parts.split_last() else {
        return Err(unsafe_path("it names no file"));
    };
    let mut dir = workdir.to_path_buf();
    for part in dirs {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(unsafe_path("one of its directories is a symbolic link"));
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(unsafe_path("one of its directories is a file")),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && missing == Missing::Create => {
                std::fs::create_dir(&dir).map_err(io_error("create the directory", &dir))?;
            }
            Err(err) => return Err(io_error("inspect", &dir)(err)),
        }
    }
    Ok((dir, *name))
}

/// Fills the new `file` (created never through a link, never over an existing file) with `bytes`,
/// with the mode [`set_mode`] gives. No fsync, as git: `core.fsync` covers objects and refs, never
/// work-tree files.
fn write_new(
    file: &mut std::fs::File,
    bytes: &[u8],
    old: Option<std::fs::Permissions>,
    executable: bool,
) -> std::io::Result<()> {
    file.write_all(bytes)?;
    set_mode(file, old, executable)
}

/// The mode a file of mode `base` gets: git's executable bit set or cleared, read bits kept.
#[cfg(unix)]
fn new_mode(base: u32, executable: bool) -> u32 {
    if executable { base | ((base & 0o444) >> 2) | 0o100 } else { base & !0o111 }
}

#[cfg(unix)]
fn set_mode(
    file: &std::fs::File,
    old: Option<std::fs::Permissions>,
    executable: bool,
) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let base = old.map_or(0o644, |p| p.mode() & 0o777);
    file.set_permissions(std::fs::Permissions::from_mode(new_mode(base, executable)))
}

#[cfg(not(unix))]
fn set_mode(
    file: &std::fs::File,
    old: Option<std::fs::Permissions>,
    _executable: bool,
) -> std::io::Result<()> {
    match old {
        Some(p) => file.set_permissions(p),
        None => Ok(()),
    }
}
