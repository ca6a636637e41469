//! Reading a file the user points at (evidence, red output, held-out files and manifests) with a
//! bound on how much of it is read, through [`crate::input`]: regular files only, never through a
//! symbolic link, never blocking.

use crate::input::{self, InputError, SizedFile};

/// Reads the regular file `path` when it holds at most `max` bytes; `Ok(None)` when it is
/// longer. A symbolic link, a FIFO or any other non-regular file is an error.
pub(crate) fn read_bounded(path: &std::path::Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    match input::read_regular(path, max) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(InputError::TooLarge { .. }) => Ok(None),
        Err(other) => Err(other.into_io()),
    }
}

/// Opens the regular file `path` to be read as a stream of at most `max` bytes (never held in
/// memory whole); `Ok(None)` when it is longer. A symbolic link, a FIFO or any other non-regular
/// file is an error.
pub(crate) fn open_bounded(path: &std::path::Path, max: u64) -> std::io::Result<Option<SizedFile>> {
    match input::open_regular_sized(path, max) {
        Ok(file) => Ok(Some(file)),
        Err(InputError::TooLarge { .. }) => Ok(None),
        Err(other) => Err(other.into_io()),
    }
}
