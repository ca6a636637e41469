//! Writing a file a user named for a command's output (`attest verify --markdown FILE`): the
//! whole file or nothing, and never through a symbolic link or into a FIFO that a checked branch
//! may have put at that path in the work tree.

use std::io::Write as _;
use std::path::Path;

/// Why the output file was not written; the text says why, without the path.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {reason}", .path.display())]
pub struct OutputError {
    /// The file.
    pub path: std::path::PathBuf,
    /// Why not.
    pub reason: String,
}

/// Writes `bytes` as the whole of the file at `path`. What is there must be a regular file or
/// nothing: a symbolic link, a FIFO, a directory or a device is refused and left as it is. The
/// bytes go to a temporary file in the same directory, which is then renamed over `path`, so
/// the file is never seen half-written (and a link swapped in meanwhile is replaced, not
/// followed). An existing file keeps its permissions; a new one is made `rw-r--r--`.
///
/// # Errors
/// [`OutputError`]: something other than a regular file is there, or the write fails.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let fail = |reason: String| OutputError { path: path.to_owned(), reason };
    let permissions = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(fail("it is a symbolic link; name the file itself".to_owned()));
        }
        Ok(meta) if !meta.is_file() => {
            return Err(fail(format!(
                "it is a {}, not a regular file",
                crate::input::kind_of(&meta.file_type())
            )));
        }
        Ok(meta) => Some(meta.permissions()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(fail(e.to_string())),
    };
    let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(|e| fail(e.to_string()))?;
    temp.write_all(bytes).map_err(|e| fail(e.to_string()))?;
    if let Some(permissions) = permissions.or_else(new_file_permissions) {
        temp.as_file().set_permissions(permissions).map_err(|e| fail(e.to_string()))?;
    }
    temp.persist(path).map_err(|e| fail(e.error.to_string()))?;
    Ok(())
}

/// `rw-r--r--`, the mode a new output file gets (a temporary file starts private).
#[cfg(unix)]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(std::fs::Permissions::from_mode(0o644))
}

/// Elsewhere a new file keeps the temporary file's permissions.
#[cfg(not(unix))]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_and_an_existing_one_are_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        write_whole(&path, b"first").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        write_whole(&path, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second, longer");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["report.md"], "no temporary file is left");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o644, "a new report is readable by others, as a plain write makes it");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_a_fifo_or_a_directory_at_the_path_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let fifo = dir.path().join("fifo.md");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        for (path, says) in [
            (&link, "it is a symbolic link"),
            (&fifo, "it is a FIFO, not a regular file"),
            (&dir.path().to_owned(), "it is a directory, not a regular file"),
        ] {
            let err = write_whole(path, b"report").unwrap_err().to_string();
            assert!(err.contains(says), "{err}");
        }
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }
}
