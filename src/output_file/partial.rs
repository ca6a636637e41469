//! The hidden directory beside an output path that a run writes into before one rename puts its
//! work in place ([`Partial`]), the mark beside it that says it is ours, and the tidying up of
//! those that killed runs left behind.

use std::path::{Path, PathBuf};

/// A hidden directory beside an output path, named `.<name>.partial-` and six letters or digits,
/// that only this run writes into, and its mark: the empty file of the same name and
/// [`MARK_SUFFIX`] beside it. The mark is made (and locked, while the run lives) before the
/// directory, and removed after it is removed or renamed into place, so that whenever a run is
/// killed, everything of it that is left is marked: the mark alone, or the mark and the hidden
/// directory, which the next [`Partial::beside`] of the same path removes
/// ([`remove_left_behind`]). Dropped, the directory is removed with what is in it, then the mark.
#[derive(Debug)]
pub(super) struct Partial {
    /// The directory.
    dir: PathBuf,
    /// The directory, opened: its owner, group and permissions are set through it, never through
    /// its path.
    handle: std::fs::File,
    /// Whether the directory was renamed into place: nothing is left of it to remove.
    placed: bool,
    /// The mark, open and locked while this run lives: one whose lock can be taken was left by a
    /// run that ended without removing it. Removed when dropped.
    mark: Option<tempfile::NamedTempFile>,
}

impl Partial {
    /// Makes the hidden directory for `path` in `parent` (the directory `path` goes into), with
    /// `mode` when given, and removes those that killed runs left there for the same path.
    ///
    /// # Errors
    /// The directory or its mark cannot be made, or the mark cannot be locked.
    pub(super) fn beside(
        parent: &Path,
        path: &Path,
        mode: Option<std::fs::Permissions>,
    ) -> std::io::Result<Partial> {
        let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let prefix = format!(".{}.partial-", cut_at(&name, PARTIAL_NAME_MAX));
        let mut tries = 1;
        let partial = loop {
            match Partial::made(parent, &prefix, mode.clone()) {
                Err(e) if taken_meanwhile(&e) && tries < MAKE_TRIES => tries += 1,
                made => break made?,
            }
        };
        if let Some(mark) = &partial.mark {
            remove_left_behind(parent, &prefix, &mark.as_file().metadata()?);
        }
        Ok(partial)
    }

    /// A new hidden directory in `parent` named `<prefix>` and six random letters or digits,
    /// with `mode` when given: its mark first, locked, then the directory.
    fn made(parent: &Path, prefix: &str, mode: Option<std::fs::Permissions>) -> std::io::Result<Partial> {
        let mark = tempfile::Builder::new()
            .prefix(prefix)
            .suffix(MARK_SUFFIX)
            .rand_bytes(PARTIAL_RANDOM_LEN)
            .tempfile_in(parent)?;
        mark.as_file().try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => std::io::Error::from(std::io::ErrorKind::WouldBlock),
            std::fs::TryLockError::Error(e) => e,
        })?;
        if unlinked(mark.as_file())? {
            return Err(std::io::ErrorKind::NotFound.into());
        }
        // The mark's own name is text (the output's name read lossily): `parent` need not be.
        let dir = mark
            .path()
            .file_name()
            .and_then(|marked| marked.to_str()?.strip_suffix(MARK_SUFFIX))
            .map(|name| parent.join(name))
            .ok_or_else(|| std::io::Error::other("a hidden directory's name"))?;
        dir_builder(mode).create(&dir)?;
        match open_dir(&dir) {
            Ok(handle) => Ok(Partial { dir, handle, placed: false, mark: Some(mark) }),
            Err(e) => {
                let _tidied = std::fs::remove_dir(&dir);
                Err(e)
            }
        }
    }

    /// The directory.
    pub(super) fn path(&self) -> &Path {
        &self.dir
    }

    /// The directory, opened: its owner, group and permissions are set through it, never through
    /// its path.
    pub(super) fn handle(&self) -> &std::fs::File {
        &self.handle
    }

    /// Forgets the directory, which was renamed into place, and removes its mark.
    pub(super) fn placed(mut self) {
        self.placed = true;
    }
}

impl Drop for Partial {
    /// Removes the directory, then its mark; a directory that cannot be removed keeps its mark,
    /// for the next run to tidy up.
    fn drop(&mut self) {
        let gone = self.placed
            || std::fs::remove_dir_all(&self.dir).is_ok()
            || std::fs::symlink_metadata(&self.dir).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
        if let Some(mark) = self.mark.take()
            && !gone
        {
            let _kept = mark.keep();
        }
    }
}

/// How many times [`Partial::beside`] starts over when another run's tidying took its mark
/// before it was locked (or held the lock a moment to tell whether a run lives), or a directory
/// of the name it drew is there already.
const MAKE_TRIES: usize = 3;

/// Whether `e`, making a hidden directory and its mark, says to start over with another name
/// ([`MAKE_TRIES`]).
fn taken_meanwhile(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{AlreadyExists, NotFound, WouldBlock};
    matches!(e.kind(), NotFound | WouldBlock | AlreadyExists)
}

/// How many bytes of an output's name start the name of the hidden directory beside it:
/// `.<name>.partial-`, six random characters and [`MARK_SUFFIX`] then fit wherever the name does
/// (255 bytes).
const PARTIAL_NAME_MAX: usize = 200;

/// The longest start of `text` of at most `max` bytes that ends at a character's end.
fn cut_at(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// What follows the name of a hidden directory in the name of its mark, the empty file beside it
/// that says a [`Partial`] made it.
pub(super) const MARK_SUFFIX: &str = ".speccoder-partial";

/// How many random letters and digits follow the prefix of a hidden directory's name: what
/// [`remove_left_behind`] recognises as one of ours.
const PARTIAL_RANDOM_LEN: usize = 6;

/// Removes what runs killed before they finished left in `parent`, and only what shows it is
/// theirs: a mark named `<prefix>`, the six letters or digits a new one gets and [`MARK_SUFFIX`],
/// an empty regular file (never a link) of the owner of `made` (the mark this run just made),
/// whose lock is free (a lock ends with the process that held it); with it, the hidden directory
/// of its name when that is there: a directory (never a link) of the same owner that holds
/// regular files only. A mark whose directory is anything else is left as it is, with it: this
/// only tidies up. A directory of such a name without its mark, whatever it holds, is never ours
/// (a run makes its mark before its directory and removes it after), and is left as it is.
fn remove_left_behind(parent: &Path, prefix: &str, made: &std::fs::Metadata) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().and_then(|name| marked_dir(name, prefix)) else {
            continue;
        };
        let mark = entry.path();
        let Ok(file) = open_mark(&mark) else { continue };
        let empty =
            file.metadata().is_ok_and(|meta| meta.is_file() && meta.len() == 0 && same_owner(&meta, made));
        // The lock is held until the mark is gone: a run that starts meanwhile cannot take it.
        if empty && file.try_lock().is_ok() && removed_dir(&parent.join(name), made) {
            let _tidied = std::fs::remove_file(&mark);
        }
        drop(file);
    }
}

/// The name of the hidden directory that `name` marks, when `name` is `<prefix>`, six letters or
/// digits and [`MARK_SUFFIX`].
fn marked_dir(name: &str, prefix: &str) -> Option<String> {
    let dir = name.strip_suffix(MARK_SUFFIX)?;
    let random = dir.strip_prefix(prefix)?;
    let drawn = random.len() == PARTIAL_RANDOM_LEN && random.bytes().all(|b| b.is_ascii_alphanumeric());
    drawn.then(|| dir.to_owned())
}

/// Removes the hidden directory `dir` of a mark left behind, when it holds regular files only and
/// is of the owner of `made`; true when it is gone (or was never made, or was renamed into place).
fn removed_dir(dir: &Path, made: &std::fs::Metadata) -> bool {
    let meta = match std::fs::symlink_metadata(dir) {
        Err(e) => return e.kind() == std::io::ErrorKind::NotFound,
        Ok(meta) => meta,
    };
    if !meta.is_dir() || !same_owner(&meta, made) {
        return false;
    }
    // A new directory given its permissions before a kill (`r-x`) is made writable again to be
    // emptied: it is ours, as its mark shows.
    let Ok(handle) = open_dir(dir) else { return false };
    if writable(&handle, &meta).is_err() {
        return false;
    }
    let Some(files) = regular_files_of(dir) else { return false };
    for file in files {
        let _tidied = std::fs::remove_file(file);
    }
    std::fs::remove_dir(dir).is_ok()
}

/// The files of `dir` when they are regular files only (each looked at as it is, never through a
/// link); else none.
fn regular_files_of(dir: &Path) -> Option<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        if !entry.file_type().ok()?.is_file() {
            return None;
        }
        files.push(entry.path());
    }
    Some(files)
}

/// What creates a hidden directory: with `mode` when given (less the umask).
fn dir_builder(mode: Option<std::fs::Permissions>) -> std::fs::DirBuilder {
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
        builder.mode(mode.mode());
    }
    #[cfg(not(unix))]
    let _platform_s = mode;
    builder
}

/// Opens the directory `path`: never through a link, never blocking on a FIFO swapped in after
/// the look, and only a directory.
fn open_dir(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Opens the mark `path` to lock it: never through a link, never blocking on a FIFO.
fn open_mark(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Whether the open `file` has no name left: another run's tidying removed the mark before this
/// run locked it.
#[cfg(unix)]
fn unlinked(file: &std::fs::File) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt as _;
    Ok(file.metadata()?.nlink() == 0)
}

/// Whether the files of metadata `a` and `b` have one owner.
#[cfg(unix)]
fn same_owner(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    a.uid() == b.uid()
}

/// Gives the directory `dir` (opened; of metadata `meta`) its owner's read, write and search,
/// when it lacks one, so that its files can be listed and removed.
#[cfg(unix)]
fn writable(dir: &std::fs::File, meta: &std::fs::Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = meta.permissions().mode();
    if mode & 0o700 == 0o700 {
        return Ok(());
    }
    dir.set_permissions(std::fs::Permissions::from_mode(mode | 0o700))
}

/// Elsewhere a removed name cannot be told from the open file: the lock is trusted.
#[cfg(not(unix))]
fn unlinked(_file: &std::fs::File) -> std::io::Result<bool> {
    Ok(false)
}

/// Elsewhere files have no owner to compare.
#[cfg(not(unix))]
fn same_owner(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    true
}

/// Elsewhere the directory is left as it is.
#[cfg(not(unix))]
fn writable(_dir: &std::fs::File, _meta: &std::fs::Metadata) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_cut_at_a_character_s_end() {
        assert_eq!(cut_at("aé", 2), "a");
        assert_eq!(cut_at("aé", 3), "aé");
    }
}
