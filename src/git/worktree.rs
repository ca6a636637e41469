//! Writing one file into the work tree: never through a symbolic link, replaced atomically.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::{GitError, io_error};

/// Write `bytes` to the repository-relative `rela` (already validated) below `workdir`, creating
/// missing directories, and return the file's path. Readers see either the old or the new
/// content: a file that differs from `bytes` in exactly one byte (a ticked box) gets that byte
/// written in place, any other file is replaced by rename.
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
    if let Some(old) = &old_permissions
        && mode_kept(old, executable)
        && write_one_byte_in_place(&target, bytes).map_err(io_error("write", &target))?
    {
        return Ok(target);
    }
    let mut temp = tempfile::Builder::new()
        .prefix(".speccoder-")
        .tempfile_in(&dir)
        .map_err(io_error("create a temporary file in", &dir))?;
    temp.write_all(bytes).map_err(io_error("write", temp.path().to_owned()))?;
    // No fsync: git never syncs work-tree files (core.fsync covers objects and refs), and the tick
    // is in the committed tree already; a sync here only cost ~10 ms of every attest.
    set_mode(temp.as_file(), old_permissions, executable).map_err(io_error("set the mode of", &target))?;
    temp.persist(&target).map_err(|e| GitError::Io {
        action: "replace",
        path: target.clone(),
        source: e.error,
    })?;
    Ok(target)
}

/// Writes the one byte by which the regular file at `target` differs from `bytes`, in place, and
/// says whether it did; a file of another length, or differing in more than one byte, is left
/// untouched for the caller to replace.
///
/// Why in place: one byte cannot be seen half-written, and it spares a new inode, a rename over
/// the old file and the old inode's release (about a third of a millisecond of every tick on
/// ext4), and keeps the file's inode, links and extended attributes as they were.
#[cfg(unix)]
fn write_one_byte_in_place(target: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    use std::io::Read as _;
    use std::os::unix::fs::{FileExt as _, OpenOptionsExt as _};
    // No following a link put in the file's place since it was inspected.
    let opened =
        std::fs::OpenOptions::new().read(true).write(true).custom_flags(libc::O_NOFOLLOW).open(target);
    let mut file = match opened {
        Ok(file) => file,
        // A read-only file is replaced instead, as before: that needs only the directory's permission.
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Ok(false),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() != bytes.len() as u64 {
        return Ok(false);
    }
    let mut old = Vec::with_capacity(bytes.len() + 1);
    file.read_to_end(&mut old)?;
    if old.len() != bytes.len() {
        return Ok(false); // it changed size since the stat
    }
    let Some(at) = old.iter().zip(bytes).position(|(a, b)| a != b) else {
        return Ok(true); // already these bytes
    };
    if old[at + 1..] != bytes[at + 1..] {
        return Ok(false);
    }
    file.write_all_at(&bytes[at..=at], at as u64)?;
    Ok(true)
}

#[cfg(not(unix))]
fn write_one_byte_in_place(_target: &Path, _bytes: &[u8]) -> std::io::Result<bool> {
    Ok(false)
}

/// Whether the mode [`set_mode`] would give the file is the one it has.
#[cfg(unix)]
fn mode_kept(old: &std::fs::Permissions, executable: bool) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let base = old.mode() & 0o777;
    new_mode(base, executable) == base
}

#[cfg(not(unix))]
fn mode_kept(_old: &std::fs::Permissions, _executable: bool) -> bool {
    true
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
