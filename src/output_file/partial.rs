//! The hidden directory beside an output path that a run writes into before one rename puts its
//! work in place ([`Partial`]), and the tidying up of those that killed runs left behind.

use std::path::{Path, PathBuf};

/// A hidden directory beside an output path, named `.<name>.partial-` and six letters or digits,
/// that only this run writes into. It is locked while the run lives and marked as ours
/// ([`PARTIAL_MARKER`]), so that a run killed before its work was put in place leaves nothing but
/// it, which the next [`Partial::beside`] of the same path removes. Dropped, it is removed with
/// what is in it.
#[derive(Debug)]
pub(super) struct Partial {
    /// The directory.
    temp: tempfile::TempDir,
    /// The directory, opened and locked while this run lives: one whose lock can be taken was
    /// left by a run that ended without removing it.
    lock: std::fs::File,
}

impl Partial {
    /// Makes the hidden directory for `path` in `parent` (the directory `path` goes into), with
    /// `mode` when given, and removes those that killed runs left there for the same path.
    ///
    /// # Errors
    /// The directory cannot be made, locked or marked.
    pub(super) fn beside(
        parent: &Path,
        path: &Path,
        mode: Option<std::fs::Permissions>,
    ) -> std::io::Result<Partial> {
        let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let prefix = format!(".{}.partial-", cut_at(&name, PARTIAL_NAME_MAX));
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).rand_bytes(PARTIAL_RANDOM_LEN);
        if let Some(mode) = mode {
            builder.permissions(mode);
        }
        let temp = builder.tempdir_in(parent)?;
        let lock = open_dir(temp.path())?;
        lock.try_lock().map_err(std::io::Error::other)?;
        std::fs::OpenOptions::new().write(true).create_new(true).open(temp.path().join(PARTIAL_MARKER))?;
        remove_left_behind(parent, &prefix);
        Ok(Partial { temp, lock })
    }

    /// The directory.
    pub(super) fn path(&self) -> &Path {
        self.temp.path()
    }

    /// The directory, opened: its owner, group and permissions are set through it, never through
    /// its path.
    pub(super) fn handle(&self) -> &std::fs::File {
        &self.lock
    }

    /// Takes the mark away before the directory itself is renamed into place.
    ///
    /// # Errors
    /// The mark cannot be removed.
    pub(super) fn unmark(&self) -> std::io::Result<()> {
        std::fs::remove_file(self.temp.path().join(PARTIAL_MARKER))
    }

    /// Forgets the directory, which was renamed into place: nothing is left to remove.
    pub(super) fn keep(self) {
        let _moved = self.temp.keep();
    }
}

/// How many bytes of an output's name start the name of the hidden directory beside it:
/// `.<name>.partial-` and six random characters then fit wherever the name does (255 bytes).
const PARTIAL_NAME_MAX: usize = 200;

/// The longest start of `text` of at most `max` bytes that ends at a character's end.
fn cut_at(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The empty file that marks a hidden directory as one a [`Partial`] made, until its work is put
/// in place.
pub(super) const PARTIAL_MARKER: &str = ".speccoder-partial";

/// How many random letters and digits follow the prefix of a hidden directory's name: what
/// [`remove_left_behind`] recognises as one of ours.
const PARTIAL_RANDOM_LEN: usize = 6;

/// Removes the hidden directories in `parent` that runs killed before they finished left
/// behind, and only what shows it is one: named `<prefix>` and the six letters or digits a new one
/// gets, a directory (never a link) whose lock is free (a lock ends with the process that held
/// it), holding [`PARTIAL_MARKER`] and nothing but regular files. Anything else of such a name (a
/// user's own directory, one a checked branch committed) is left as it is: this only tidies up.
fn remove_left_behind(parent: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let named_ours =
            entry.file_name().to_str().and_then(|n| n.strip_prefix(prefix)).is_some_and(|rest| {
                rest.len() == PARTIAL_RANDOM_LEN && rest.bytes().all(|b| b.is_ascii_alphanumeric())
            });
        if !named_ours || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let left_behind = open_dir(&entry.path()).is_ok_and(|dir| dir.try_lock().is_ok());
        if left_behind && let Some(files) = files_of_a_partial(&entry.path()) {
            for file in files {
                let _tidied = std::fs::remove_file(file);
            }
            let _tidied = std::fs::remove_dir(entry.path());
        }
    }
}

/// The files of `dir` when it holds [`PARTIAL_MARKER`], empty, and regular files only (each looked
/// at as it is, never through a link); else none.
fn files_of_a_partial(dir: &Path) -> Option<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut marked = false;
    for entry in std::fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        if !entry.file_type().ok()?.is_file() {
            return None;
        }
        if entry.file_name() == PARTIAL_MARKER {
            // A marker with something in it is none this crate made: a user's file.
            if entry.metadata().ok()?.len() != 0 {
                return None;
            }
            marked = true;
        }
        files.push(entry.path());
    }
    marked.then_some(files)
}

/// Opens the directory `path` to lock it: never through a link, never blocking on a FIFO swapped
/// in after the look, and only a directory.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_cut_at_a_character_s_end() {
        assert_eq!(cut_at("aé", 2), "a");
        assert_eq!(cut_at("aé", 3), "aé");
    }
}
