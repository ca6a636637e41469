//! Reading a file that a user or an evidence file named: only a regular file, never through a
//! symbolic link, never blocking on a FIFO or a device, and never more than a stated size.
//!
//! The checks are made on the opened file, not only on the path, so a file swapped in between
//! the look and the open is still refused: the last component is opened with `O_NOFOLLOW` and
//! `O_NONBLOCK`, and the open file must then be a regular file.
//!
//! The one exception is [`read_regular_through_links`], for the files a person names for their
//! own trust and keys (allowed signers, revoked keys, certificates, key files, a trusted root):
//! dotfile managers link those into place, so a link is followed there, but what it reaches must
//! still be a regular file of bounded size, opened without blocking.
//!
//! A file this user keeps for themself, which stands in for something verified when it was
//! written (the cached Sigstore trusted root), is read by [`read_own`]: as [`read_regular`]
//! reads, and only when it and its directories are this user's alone ([`own_dir`]), so that what
//! another user could have put or changed there is never taken as this user's own.

use std::fs::File;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

/// Why a named file was not read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}", line_of(.path))]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The path is a symbolic link, or passes through one.
    #[error("{} is a symbolic link or lies behind one; name the file itself", line_of(.path))]
    Symlink {
        /// The path as named.
        path: PathBuf,
    },
    /// The path names something other than a regular file.
    #[error("{} is a {kind}, not a regular file", line_of(.path))]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is (`directory`, `FIFO`, `device`, ...).
        kind: &'static str,
    },
    /// The file is larger than the reader accepts.
    #[error("{} is larger than {max} bytes", line_of(.path))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        max: u64,
    },
    /// A file or directory this user keeps for themself is not theirs alone.
    #[error("{} {problem}", line_of(.path))]
    NotOwn {
        /// The file or directory.
        path: PathBuf,
        /// What makes it not this user's alone.
        problem: Foreign,
    },
    /// A path that must stay inside a directory does not.
    #[error("`{}` must be a relative path inside {} (no absolute path, no `..`)", line_of(.path), line_of(.base))]
    OutsideBase {
        /// The path as named.
        path: PathBuf,
        /// The directory it must stay in.
        base: PathBuf,
    },
}

/// What makes a file or directory not this user's alone ([`read_own`], [`own_dir`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Foreign {
    /// Another user owns it (their user id).
    #[error("is owned by another user (uid {0})")]
    Owner(u32),
    /// Its group or other users may write it.
    #[error("may be written by {who} (mode {mode:o})")]
    Writable {
        /// `its group`, `other users`, or both.
        who: &'static str,
        /// Its permission bits.
        mode: u32,
    },
    /// Where a directory was asked for, a symbolic link is: it leads wherever its owner chose.
    #[error("is a symbolic link")]
    Link,
    /// Where a directory was asked for, something else is (`regular file`, `FIFO`, ...).
    #[error("is a {0}, not a directory")]
    NotDirectory(&'static str),
}

/// `path` as a message quotes it: on its line, whatever a file named in an evidence file holds
/// (a line break in it would start a line of its own in the message).
fn line_of(path: &Path) -> String {
    crate::model::shown::one_line(&path.to_string_lossy()).into_owned()
}

impl InputError {
    /// Why the file was not read, without its path: `it is a FIFO, not a regular file`, the
    /// system's reason, and so on; for a caller whose own message already names the file.
    #[must_use]
    pub fn reason(&self) -> String {
        match self {
            InputError::Io { source, .. } => source.to_string(),
            InputError::Symlink { .. } => "it is a symbolic link, or lies behind one".to_owned(),
            InputError::NotRegular { kind, .. } => format!("it is a {kind}, not a regular file"),
            InputError::TooLarge { max, .. } => format!("it is larger than {max} bytes"),
            InputError::NotOwn { problem, .. } => format!("it {problem}"),
            InputError::OutsideBase { .. } => self.to_string(),
        }
    }

    /// The file or directory the error is about.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            InputError::Io { path, .. }
            | InputError::Symlink { path }
            | InputError::NotRegular { path, .. }
            | InputError::TooLarge { path, .. }
            | InputError::NotOwn { path, .. }
            | InputError::OutsideBase { path, .. } => path,
        }
    }

    /// This error as an I/O error for a caller whose error keeps one: the system's own error when
    /// there is one (so that "not found" stays "not found"), else [`InputError::reason`].
    #[must_use]
    pub fn into_io(self) -> std::io::Error {
        match self {
            InputError::Io { source, .. } => source,
            other => std::io::Error::other(other.reason()),
        }
    }
}

/// Reads the regular file at `path`, at most `max` bytes.
///
/// # Errors
/// [`InputError`]: a symbolic link, not a regular file, larger than `max`, or unreadable.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, InputError> {
    read_open(open_regular(path, Links::Refuse)?, path, max)
}

/// Reads the regular file at `path`, at most `max` bytes, following a symbolic link on the way
/// (the module's one exception: a person's own trust and key files).
///
/// # Errors
/// [`InputError`]: not a regular file, larger than `max`, or unreadable.
pub fn read_regular_through_links(path: &Path, max: u64) -> Result<Vec<u8>, InputError> {
    read_open(open_regular(path, Links::Follow)?, path, max)
}

/// Reads the regular file at `path`, at most `max` bytes, that this user keeps for themself, with
/// its metadata as opened: read as [`read_regular`] reads, and only when each of the `dirs`
/// directories above it ([`own_dir`]) and the opened file are this user's alone ([`judge_own`]).
///
/// # Errors
/// [`InputError::NotOwn`], or what [`read_regular`] refuses; a missing file or directory is an
/// [`InputError::Io`] of kind `NotFound`.
pub fn read_own(path: &Path, dirs: usize, max: u64) -> Result<(Vec<u8>, std::fs::Metadata), InputError> {
    let above: Vec<&Path> =
        path.ancestors().skip(1).take(dirs).filter(|dir| !dir.as_os_str().is_empty()).collect();
    for dir in above.iter().rev() {
        own_dir(dir)?;
    }
    let file = open_regular(path, Links::Refuse)?;
    let meta = file.metadata().map_err(|source| InputError::Io { path: path.to_owned(), source })?;
    judge_own(path, &meta, current_user())?;
    Ok((read_open(file, path, max)?, meta))
}

/// Whether `dir` is a directory of this user's alone: a directory, not a symbolic link to one,
/// that this user owns and no one else may write ([`judge_own`]).
///
/// # Errors
/// [`InputError::NotOwn`]; [`InputError::Io`] when it cannot be looked at (of kind `NotFound`
/// when it is missing).
pub fn own_dir(dir: &Path) -> Result<(), InputError> {
    let meta =
        std::fs::symlink_metadata(dir).map_err(|source| InputError::Io { path: dir.to_owned(), source })?;
    let not_own = |problem| InputError::NotOwn { path: dir.to_owned(), problem };
    if meta.file_type().is_symlink() {
        return Err(not_own(Foreign::Link));
    }
    if !meta.is_dir() {
        let kind = if meta.is_file() { "regular file" } else { kind_of(&meta.file_type()) };
        return Err(not_own(Foreign::NotDirectory(kind)));
    }
    judge_own(dir, &meta, current_user())
}

/// The one judgement of whether the file or directory of metadata `meta` is this user's alone:
/// `user` (this process's effective user id) owns it, and neither its group nor other users may
/// write it. Anyone who could write it could have put in it what they liked.
#[cfg(unix)]
fn judge_own(path: &Path, meta: &std::fs::Metadata, user: u32) -> Result<(), InputError> {
    use std::os::unix::fs::MetadataExt as _;
    let not_own = |problem| Err(InputError::NotOwn { path: path.to_owned(), problem });
    if meta.uid() != user {
        return not_own(Foreign::Owner(meta.uid()));
    }
    let who = match (meta.mode() & 0o020 != 0, meta.mode() & 0o002 != 0) {
        (true, true) => "its group and other users",
        (true, false) => "its group",
        (false, true) => "other users",
        (false, false) => return Ok(()),
    };
    not_own(Foreign::Writable { who, mode: meta.mode() & 0o7777 })
}

/// Elsewhere a file has no owner or mode to judge.
#[cfg(not(unix))]
fn judge_own(_path: &Path, _meta: &std::fs::Metadata, _user: u32) -> Result<(), InputError> {
    Ok(())
}

/// This process's effective user id.
#[cfg(unix)]
fn current_user() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// Elsewhere there is none to compare.
#[cfg(not(unix))]
fn current_user() -> u32 {
    0
}

/// Reads at most `max` bytes of the opened regular `file`, named `path` in errors.
fn read_open(file: File, path: &Path, max: u64) -> Result<Vec<u8>, InputError> {
    let io = |source| InputError::Io { path: path.to_owned(), source };
    // The size only sizes the buffer (the file may grow while read); the bound is enforced on
    // what is read.
    let hint = file.metadata().map_or(0, |m| m.len()).min(max).saturating_add(1);
    let mut buf = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut buf).map_err(io)?;
    if buf.len() as u64 > max {
        return Err(InputError::TooLarge { path: path.to_owned(), max });
    }
    Ok(buf)
}

/// A regular file opened for reading as a stream, of at most a stated size: it yields exactly the
/// [`SizedFile::len`] bytes the open file held when opened, and a read fails when the file shrank
/// meanwhile (so a writer that was told the length up front never gets fewer bytes). A file that
/// grew is read only to that length; a caller that checks a digest of what it read sees the
/// change.
#[derive(Debug)]
pub struct SizedFile {
    file: std::io::Take<File>,
    len: u64,
    path: PathBuf,
}

impl SizedFile {
    /// How many bytes a read to the end yields.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file was empty when opened.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::io::Read for SizedFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        if n == 0 && !buf.is_empty() && self.file.limit() > 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("{} became shorter while it was read", line_of(&self.path)),
            ));
        }
        Ok(n)
    }
}

/// Opens the regular file at `path` to be read as a stream of at most `max` bytes (see
/// [`SizedFile`]), so that a large file is never held in memory whole.
///
/// # Errors
/// [`InputError`]: a symbolic link, not a regular file, larger than `max`, or unreadable.
pub fn open_regular_sized(path: &Path, max: u64) -> Result<SizedFile, InputError> {
    let file = open_regular(path, Links::Refuse)?;
    let len = file.metadata().map_err(|source| InputError::Io { path: path.to_owned(), source })?.len();
    if len > max {
        return Err(InputError::TooLarge { path: path.to_owned(), max });
    }
    Ok(SizedFile { file: file.take(len), len, path: path.to_owned() })
}

/// Reads the regular file `relative` inside `base`, at most `max` bytes: `relative` has no
/// absolute path and no `..`, and neither it nor any directory on the way is a symbolic link.
///
/// # Errors
/// [`InputError::OutsideBase`], or what [`read_regular`] refuses.
pub fn read_regular_within(base: &Path, relative: &Path, max: u64) -> Result<Vec<u8>, InputError> {
    let outside = || InputError::OutsideBase { path: relative.to_owned(), base: base.to_owned() };
    let parts: Vec<_> = relative.components().collect();
    if parts.is_empty() || parts.iter().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(outside());
    }
    let mut at = base.to_path_buf();
    for part in &parts[..parts.len() - 1] {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(InputError::Symlink { path: base.join(relative) });
            }
            Ok(_) => {}
            Err(source) => return Err(InputError::Io { path: at, source }),
        }
    }
    read_regular(&base.join(relative), max)
}

/// Whether a symbolic link as the last component of a path is followed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Links {
    /// A link is refused ([`InputError::Symlink`]).
    Refuse,
    /// A link is followed to the file it names.
    Follow,
}

/// Opens `path` for reading without blocking (and, unless `links` says to follow them, without
/// following a symbolic link), and checks on the open file that it is a regular file.
fn open_regular(path: &Path, links: Links) -> Result<File, InputError> {
    let opened = match links {
        Links::Refuse => open_nofollow(path),
        Links::Follow => open_nonblocking(path),
    };
    let file = opened.map_err(|source| {
        if links == Links::Refuse && is_symlink_refusal(&source, path) {
            InputError::Symlink { path: path.to_owned() }
        } else {
            InputError::Io { path: path.to_owned(), source }
        }
    })?;
    let meta = file.metadata().map_err(|source| InputError::Io { path: path.to_owned(), source })?;
    if !meta.is_file() {
        return Err(InputError::NotRegular { path: path.to_owned(), kind: kind_of(&meta.file_type()) });
    }
    Ok(file)
}

#[cfg(unix)]
fn open_nofollow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

#[cfg(not(unix))]
fn open_nofollow(path: &Path) -> std::io::Result<File> {
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::other("a symbolic link"));
    }
    File::open(path)
}

/// Whether the open failed because `path` is a symbolic link (`O_NOFOLLOW` gives `ELOOP`).
fn is_symlink_refusal(error: &std::io::Error, path: &Path) -> bool {
    #[cfg(unix)]
    if error.raw_os_error() == Some(libc::ELOOP) {
        return true;
    }
    let _ = error;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// `path` without its `.` components but a leading one and without a trailing `/` (`DIR/`,
/// `DIR/.` and `DIR/./` are `DIR`), as [`Path::components`] reads it: the entry it names, by a
/// name of its own. The system follows a symbolic link named with a trailing `/` or `/.`, and
/// reads a trailing `.` as a directory's entry for itself, which no rename replaces; a look at
/// the entry itself (`symlink_metadata`) is a look at this path.
#[must_use]
pub fn as_named(path: &Path) -> PathBuf {
    path.components().collect()
}

/// What a file that is not a regular file is, in a word.
#[must_use]
pub fn kind_of(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "device";
        }
        if kind.is_socket() {
            return "socket";
        }
    }
    if kind.is_dir() { "directory" } else { "special file" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_a_message_quotes_stays_on_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_regular(&dir.path().join("a\nspeccoder attest: ok"), 10).unwrap_err();
        let message = err.to_string();
        assert!(!message.contains('\n') && message.contains("a\\nspeccoder attest: ok"), "{message}");
    }

    #[test]
    fn a_regular_file_of_at_most_the_bound_is_read_whole_and_a_longer_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        for (len, max, whole) in
            [(0, 0, true), (5, 5, true), (6, 5, false), (70_000, 70_000, true), (70_001, 70_000, false)]
        {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            std::fs::write(&file, &bytes).unwrap();
            match read_regular(&file, max) {
                Ok(read) => assert!(whole && read == bytes, "{len} bytes against a bound of {max}"),
                Err(InputError::TooLarge { .. }) => assert!(!whole, "{len} bytes against {max}"),
                Err(other) => panic!("{other}"),
            }
        }
        assert!(matches!(read_regular(&dir.path().join("missing"), 10), Err(InputError::Io { .. })));
    }

    /// A directory holding `target` (with `content`), `link` to it and a FIFO `fifo`: the
    /// directory, the link and the FIFO.
    #[cfg(unix)]
    fn link_and_fifo(content: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("target"), content).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("target"), &link).unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        (dir, link, fifo)
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_a_fifo_and_a_directory_are_refused_without_blocking() {
        let (dir, link, fifo) = link_and_fifo("secret");
        assert!(matches!(read_regular(&link, 100), Err(InputError::Symlink { .. })));
        assert!(matches!(read_regular(&fifo, 100), Err(InputError::NotRegular { kind: "FIFO", .. })));
        assert!(matches!(
            read_regular(dir.path(), 100),
            Err(InputError::NotRegular { kind: "directory", .. })
        ));
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 100),
            Err(InputError::NotRegular { kind: "device", .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn through_links_a_link_to_a_file_is_read_but_a_fifo_a_device_or_a_long_file_is_not() {
        let (dir, link, fifo) = link_and_fifo("allowed");
        assert_eq!(read_regular_through_links(&link, 7).unwrap(), b"allowed");
        assert!(matches!(read_regular_through_links(&link, 6), Err(InputError::TooLarge { max: 6, .. })));
        let to_fifo = dir.path().join("to-fifo");
        std::os::unix::fs::symlink(&fifo, &to_fifo).unwrap();
        for (path, kind) in [(&fifo, "FIFO"), (&to_fifo, "FIFO"), (&dir.path().to_owned(), "directory")] {
            let err = read_regular_through_links(path, 100).unwrap_err();
            assert!(matches!(err, InputError::NotRegular { kind: k, .. } if k == kind), "{err}");
            assert_eq!(err.reason(), format!("it is a {kind}, not a regular file"));
        }
        let err = read_regular_through_links(Path::new("/dev/zero"), 100).unwrap_err();
        assert_eq!(err.reason(), "it is a device, not a regular file");
        let missing = read_regular_through_links(&dir.path().join("missing"), 100).unwrap_err();
        assert_eq!(missing.into_io().kind(), std::io::ErrorKind::NotFound);
    }

    #[cfg(unix)]
    #[test]
    fn a_path_inside_a_base_may_not_leave_it_or_pass_through_a_link() {
        let base = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "secret").unwrap();
        std::fs::create_dir(base.path().join("logs")).unwrap();
        std::fs::write(base.path().join("logs/red.log"), "red").unwrap();
        std::os::unix::fs::symlink(outside.path(), base.path().join("elsewhere")).unwrap();
        assert_eq!(read_regular_within(base.path(), Path::new("logs/red.log"), 10).unwrap(), b"red");
        assert_eq!(read_regular_within(base.path(), Path::new("./logs/red.log"), 10).unwrap(), b"red");
        for bad in ["../x", "logs/../../x", "/etc/passwd", ""] {
            let err = read_regular_within(base.path(), Path::new(bad), 10).unwrap_err();
            assert!(matches!(err, InputError::OutsideBase { .. }), "{bad}: {err}");
        }
        let err = read_regular_within(base.path(), Path::new("elsewhere/secret"), 10).unwrap_err();
        assert!(matches!(err, InputError::Symlink { .. }), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_file_is_this_users_own_only_when_this_user_owns_it_and_no_one_else_may_write_it() {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("own");
        std::fs::write(&file, "mine").unwrap();
        let mode = |m: u32| std::fs::set_permissions(&file, std::fs::Permissions::from_mode(m)).unwrap();
        mode(0o644);
        let meta = std::fs::metadata(&file).unwrap();
        assert!(judge_own(&file, &meta, meta.uid()).is_ok());
        // Another user's file: the judgement is told another user id than the owner's.
        let err = judge_own(&file, &meta, meta.uid().wrapping_add(1)).unwrap_err();
        assert!(
            matches!(err, InputError::NotOwn { problem: Foreign::Owner(uid), .. } if uid == meta.uid()),
            "{err}"
        );
        assert_eq!(err.reason(), format!("it is owned by another user (uid {})", meta.uid()));
        for (bits, who) in
            [(0o664, "its group"), (0o646, "other users"), (0o666, "its group and other users")]
        {
            mode(bits);
            let err = read_own(&file, 1, 100).unwrap_err();
            assert_eq!(err.reason(), format!("it may be written by {who} (mode {bits:o})"));
        }
        mode(0o600);
        let (bytes, meta) = read_own(&file, 1, 100).unwrap();
        assert_eq!((bytes.as_slice(), meta.len()), (&b"mine"[..], 4));
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_above_a_file_of_this_users_own_must_be_theirs_alone_and_no_link() {
        use std::os::unix::fs::PermissionsExt as _;
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("a/b");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        std::fs::write(&file, "mine").unwrap();
        for d in [base.path().join("a"), dir.clone()] {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(read_own(&file, 2, 100).is_ok());
        std::fs::set_permissions(base.path().join("a"), std::fs::Permissions::from_mode(0o1777)).unwrap();
        let err = read_own(&file, 2, 100).unwrap_err();
        assert_eq!(err.path(), base.path().join("a"));
        assert!(
            matches!(err, InputError::NotOwn { problem: Foreign::Writable { mode: 0o1777, .. }, .. }),
            "{err}"
        );
        assert!(read_own(&file, 1, 100).is_ok(), "only the directories asked for are judged");
        let link = base.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        let err = read_own(&link.join("f"), 1, 100).unwrap_err();
        assert!(matches!(err, InputError::NotOwn { problem: Foreign::Link, .. }), "{err}");
        let err = read_own(&base.path().join("a/missing/f"), 1, 100).unwrap_err();
        assert!(
            matches!(&err, InputError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
            "{err}"
        );
    }
}
