//! Writing one file into the work tree: never through a symbolic link, replaced atomically.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::{GitError, io_error};

/// Write `bytes` to the repository-relative `rela` (already validated) below `workdir`, creating
/// missing directories, and return the file's path. The file is replaced by renaming a complete
/// new file over it, so readers see either the old or the new content.
pub(crate) fn write_file(
    workdir: &Path,
    rela: &str,
    bytes: &[u8],
    executable: bool,
) -> Result<PathBuf, GitError> {
    let unsafe_path = |reason| GitError::UnsafeWorktreePath { path: rela.to_owned(), reason };
    let parts: Vec<&str> = rela.split('/').collect();
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
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&dir).map_err(io_error("create the directory", &dir))?;
            }
            Err(err) => return Err(io_error("inspect", &dir)(err)),
        }
    }
    let target = dir.join(name);
    let old_permissions = match std::fs::symlink_metadata(&target) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(unsafe_path("it is a symbolic link"));
        }
        Ok(meta) if meta.is_file() => Some(meta.permissions()),
        Ok(_) => return Err(unsafe_path("it is a directory or special file")),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(io_error("inspect", &target)(err)),
    };
    // The new content goes to a file of a fixed name beside the target, then is renamed over it.
    // The name is ours alone, and the caller holds the index lock, so a file of that name is one a
    // writer left when it was stopped: it is replaced, never left behind for `git status` to show.
    let temp = dir.join(format!(".{name}.speccoder-new"));
    match std::fs::remove_file(&temp) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(io_error("remove the stale", &temp)(err)),
    }
    let written = write_new(&temp, bytes, old_permissions, executable)
        .map_err(io_error("write", &temp))
        .and_then(|()| std::fs::rename(&temp, &target).map_err(io_error("replace", &target)));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written.map(|()| target)
}

/// Creates `path` (never through a link, never over an existing file) holding `bytes`, with the
/// mode [`set_mode`] gives. No fsync, as git: `core.fsync` covers objects and refs, never
/// work-tree files.
fn write_new(
    path: &Path,
    bytes: &[u8],
    old: Option<std::fs::Permissions>,
    executable: bool,
) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)?;
    set_mode(&file, old, executable)
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
