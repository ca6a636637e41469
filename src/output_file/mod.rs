//! Writing a file a user named for a command's output (`attest verify --markdown FILE`, the
//! schemas of `speccoder schema`, `$GITHUB_STEP_SUMMARY`): the whole file or nothing (or, for a
//! summary, one append), and never through a symbolic link or into a FIFO that a checked branch
//! may have put at that path in the work tree; and a directory of files a user named
//! (`attest export --out DIR`, [`NewDir`]): all of them or none. What is wrong is said of the path
//! the user gave, never of a temporary file.

mod partial;
mod reason;
mod replaced;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::input::as_named;
use crate::model::shown::one_line;
use partial::Partial;
use replaced::Replaced;
pub use replaced::Unkept;

/// Why an output file was not written, said of the path the user gave, with what to do.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {problem}; {}", one_line(&.path.display().to_string()), .problem.advice(.path))]
pub struct OutputError {
    /// The file (or directory) as the user named it.
    pub path: PathBuf,
    /// What is wrong.
    pub problem: Problem,
}

impl crate::exit::ExitClass for OutputError {
    /// A file the user named for output that cannot be written: theirs to fix.
    fn class(&self) -> crate::exit::Class {
        crate::exit::Class::Config
    }
}

/// What is wrong with an output path, without the path and without advice (a caller that names
/// the path its own way, as `$GITHUB_STEP_SUMMARY`, adds its own).
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// A symbolic link is where the file would go.
    #[error("it is a symbolic link, which is never written through")]
    Symlink,
    /// Something other than a regular file is there (`directory`, `FIFO`, `device`, ...).
    #[error("it is a {0}, not a regular file")]
    NotRegular(&'static str),
    /// Where a directory was asked for, something else is there (`regular file`, `FIFO`, a
    /// `symbolic link` that does not lead to a directory, ...).
    #[error("it is a {0}, not a directory")]
    NotDirectory(&'static str),
    /// The directory the file would go into does not exist.
    #[error("the directory {} does not exist", one_line(&.0.display().to_string()))]
    NoDirectory(PathBuf),
    /// The directory the file would go into is something else.
    #[error("{} is not a directory", one_line(&.0.display().to_string()))]
    ParentNotDirectory(PathBuf),
    /// A directory on the way to it, below the current directory, is a symbolic link.
    #[error(
        "{} on the way to it is a symbolic link, which is never written through (a checked branch may have committed it)",
        one_line(&.0.display().to_string())
    )]
    LinkOnTheWay(PathBuf),
    /// A directory that already holds files, where a new one was asked for.
    #[error("it is a directory that is not empty")]
    NotEmpty,
    /// The path ends in no name of its own (`.`, `..`, `/`): no new directory can be put there.
    #[error("it ends in `.` or `..`, not in a name of its own")]
    NoName,
    /// The directory at the path is a mount point (a container's volume, a tmpfs, a directory
    /// bound there), which no directory renamed into place replaces.
    #[error(
        "it is a mount point (a file system, or a directory of one, mounted there), which no directory renamed into place can replace"
    )]
    MountPoint,
    /// The directory the path goes into does not let this user create in it, where the new
    /// directory is made beside the path and renamed into place.
    #[error(
        "its directory {} does not let this user create anything in it ({reason}), where the new directory is made and renamed into place",
        one_line(&.parent.display().to_string())
    )]
    ParentNotWritable {
        /// The directory the path goes into.
        parent: PathBuf,
        /// The system's reason.
        reason: std::io::ErrorKind,
        /// Whether the path is a directory already, which a new one can go into.
        there: bool,
    },
    /// The path lies inside the repository's git directory, where git keeps its refs and objects.
    #[error(
        "it lies inside the repository's git directory {}, whose files are git's own (a directory there breaks a ref)",
        one_line(&.0.display().to_string())
    )]
    InGitDirectory(PathBuf),
    /// The path is, or lies under, a work tree's `.git` file (a linked worktree's, a submodule's,
    /// a `--separate-git-dir` repository's), which stands there for the repository's git directory.
    #[error(
        "it lies inside the repository's git directory: {} is the `.git` file that leads its work tree there",
        one_line(&.0.display().to_string())
    )]
    InGitFile(PathBuf),
    /// The empty directory at the path is another user's, or the new directory put in its place
    /// could not be given its group or its permissions ([`Unkept`]).
    #[error("{0}")]
    Unkept(Unkept),
    /// A directory that must be this user's alone is not ([`make_own_dirs`]): another user owns
    /// it.
    #[error("it {0}")]
    NotOwn(crate::input::Foreign),
    /// The system's reason, and its kind, which the advice follows.
    #[error("{0}")]
    Io(String, std::io::ErrorKind),
}

impl Problem {
    /// What the user can do about `path`, which has this problem.
    #[must_use]
    pub fn advice(&self, path: &Path) -> std::borrow::Cow<'static, str> {
        let advice = match self {
            // A `.git` (a directory, or the file that leads a work tree to one) is never advised to
            // be removed: that would cut the work tree off its repository.
            Problem::Symlink | Problem::NotRegular(_) | Problem::NotDirectory(_) if through_dot_git(path) => {
                GIT_ADVICE
            }
            Problem::ParentNotDirectory(dir) if through_dot_git(dir) => GIT_ADVICE,
            Problem::MountPoint | Problem::ParentNotWritable { there: true, .. } => {
                let inside = path.join(NEW_INSIDE).display().to_string();
                return format!("name a new directory inside it instead, as {}", one_line(&inside)).into();
            }
            Problem::ParentNotWritable { there: false, .. } => {
                "write in a directory where this user may create files"
            }
            Problem::Symlink => "remove the link, or write elsewhere",
            Problem::LinkOnTheWay(_) => "name the directory it leads to, or write elsewhere",
            // A device is the system's (`/dev/null`): never advised to be removed.
            Problem::NotRegular("device") => "write to a regular file instead",
            Problem::NotRegular(_) | Problem::NotDirectory(_) | Problem::ParentNotDirectory(_) => {
                "remove it, or write elsewhere"
            }
            Problem::NoDirectory(_) => "create it first, or write elsewhere",
            Problem::NotEmpty => "name a new directory, or empty this one",
            Problem::NoName => "name the directory by its own name, as ../DIR",
            Problem::InGitDirectory(_) | Problem::InGitFile(_) => GIT_ADVICE,
            Problem::Unkept(Unkept::Owner(_)) => {
                "name a new directory instead, or an empty one of this user's own"
            }
            Problem::Unkept(Unkept::Attribute { .. }) => {
                "name a new directory instead, or an empty one whose group this user is in"
            }
            Problem::NotOwn(_) => "write in a directory of your own",
            Problem::Io(_, kind) => io_advice(*kind),
        };
        advice.into()
    }

    /// The system's reason for `e` ([`reason::of`]), and its kind.
    fn io(e: &std::io::Error) -> Problem {
        Problem::Io(reason::of(e), e.kind())
    }
}

/// What [`Problem::advice`] says of a failure of the system's of `kind`: a full disk or quota is
/// no matter of permissions.
fn io_advice(kind: std::io::ErrorKind) -> &'static str {
    use std::io::ErrorKind::{PermissionDenied, QuotaExceeded, StorageFull};
    match kind {
        StorageFull | QuotaExceeded => {
            "free space on its file system (or within the quota), or write elsewhere"
        }
        PermissionDenied => "check the path and its permissions",
        _ => "check the path, or write elsewhere",
    }
}

/// What [`Problem::advice`] says of a path inside a git directory or through a `.git`.
const GIT_ADVICE: &str = "choose a directory outside `.git`";

/// The name git gives a work tree's entry for its repository: the git directory, or a file that
/// leads to it.
const DOT_GIT: &str = ".git";

/// Whether `path`, as named, goes through (or ends in) an entry named `.git`.
fn through_dot_git(path: &Path) -> bool {
    path.components().any(|part| part.as_os_str() == DOT_GIT)
}

/// Writes `bytes` as the whole of the file at `path`. What is there must be a regular file or
/// nothing: a symbolic link, a FIFO, a directory or a device is refused and left as it is. The
/// bytes go to a new file in a hidden directory beside `path` ([`Partial`]), which is then renamed
/// over `path`, so the file is never seen half-written (and a link swapped in meanwhile is
/// replaced, not followed); a run killed half-way leaves only the hidden directory, which the next
/// write of `path` removes. An existing file keeps its permissions; a new one gets what any
/// program's new file gets (`rw-rw-rw-` less the umask). The new file is never more open than the
/// result.
///
/// # Errors
/// [`OutputError`]: something other than a regular file is there, its directory is missing, or
/// the write fails.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_whole_with(path, |file| file.write_all(bytes))
}

/// [`write_whole`] with the bytes `write` writes to the file (a report too large to hold whole).
///
/// # Errors
/// As [`write_whole`].
pub fn write_whole_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    write_whole_as(path, None, write)
}

/// [`write_whole`] for a file this user keeps for themself ([`crate::input::read_own`]): the new
/// file is readable and writable by this user alone (`rw-------`), whatever the file it replaces
/// allowed.
///
/// # Errors
/// As [`write_whole`].
pub fn write_whole_own(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_whole_as(path, own_file_mode(), |file| file.write_all(bytes))
}

/// [`write_whole_with`], the new file given `mode` when one is given, else the permissions of the
/// file it replaces (or a new file's).
fn write_whole_as(
    path: &Path,
    mode: Option<std::fs::Permissions>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    let fail = |problem: Problem| OutputError { path: path.to_owned(), problem };
    let dir = usable_parent(path).map_err(fail)?;
    let existing = existing_regular(path).map_err(fail)?.map(|meta| plain_mode(meta.permissions()));
    let permissions = mode.or(existing);
    let name = path.file_name().ok_or(Problem::NoName).map_err(fail)?;
    let partial = Partial::beside(dir, path, new_dir_mode()).map_err(|e| fail(Problem::io(&e)))?;
    let new = partial.path().join(name);
    let mut file =
        create_new(&new, permissions.clone().or_else(new_file_mode)).map_err(|e| fail(Problem::io(&e)))?;
    write(&mut file).map_err(|e| fail(Problem::io(&e)))?;
    // The umask narrowed the creation mode; an existing file's is restored whole.
    if let Some(permissions) = permissions {
        file.set_permissions(permissions).map_err(|e| fail(Problem::io(&e)))?;
    }
    drop(file);
    std::fs::rename(&new, path).map_err(|e| fail(Problem::io(&e)))
}

/// Puts the file `name` into `dir`, a directory the caller has judged (its own checks: no link on
/// the way, what may be replaced), written whole by `write` into a hidden directory beside it
/// ([`Partial`]) and renamed into place: over a file there when `replace`, else only where nothing
/// is (a file that appeared meanwhile fails the rename with [`std::io::ErrorKind::AlreadyExists`]
/// and is left as it is). A run killed half-way leaves only the hidden directory and its mark,
/// which the next put of the same file removes; never a file of a name of ours that nothing
/// tidies.
///
/// # Errors
/// The system's, with its reason and kind only ([`reason::of`]): never a temporary name.
pub fn put_file(
    dir: &Path,
    name: &std::ffi::OsStr,
    replace: bool,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let reasoned = |e: std::io::Error| std::io::Error::new(e.kind(), reason::of(&e));
    let path = dir.join(name);
    let partial = Partial::beside(dir, &path, None).map_err(reasoned)?;
    let mut file = tempfile::Builder::new().prefix(name).tempfile_in(partial.path()).map_err(reasoned)?;
    write(file.as_file_mut()).map_err(reasoned)?;
    let persisted = if replace { file.persist(&path) } else { file.persist_noclobber(&path) };
    persisted.map(drop).map_err(|e| reasoned(e.error))
}

/// Creates the file `path`, which must not exist, with `mode` when given (less the umask).
fn create_new(path: &Path, mode: Option<std::fs::Permissions>) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
        options.mode(mode.mode());
    }
    #[cfg(not(unix))]
    let _platform_s = mode;
    options.open(path)
}

/// Appends `bytes` to the regular file at `path`, creating it when absent: never
/// through a symbolic link, never into a FIFO or a device, and never blocking on one (the last
/// component is opened with `O_NOFOLLOW` and `O_NONBLOCK`, and the opened file must be a regular
/// file before a byte is written).
///
/// # Errors
/// [`OutputError`]: something other than a regular file is there, its directory is missing, or
/// the write fails.
pub fn append(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    append_with(path, |file| file.write_all(bytes))
}

/// [`append`] with the bytes `write` writes to the file.
///
/// # Errors
/// As [`append`].
pub fn append_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    let fail = |problem: Problem| OutputError { path: path.to_owned(), problem };
    usable_parent(path).map_err(fail)?;
    existing_regular(path).map_err(fail)?;
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    // Swapped in between the look and the open: a link (ELOOP) or a FIFO without a reader
    // (ENXIO) fails here; anything else that opened is caught by the look at the open file.
    let mut file = options.open(path).map_err(|e| {
        fail(match e.raw_os_error() {
            #[cfg(unix)]
            Some(libc::ELOOP) => Problem::Symlink,
            #[cfg(unix)]
            Some(libc::ENXIO) => Problem::NotRegular("FIFO"),
            _ => Problem::io(&e),
        })
    })?;
    let meta = file.metadata().map_err(|e| fail(Problem::io(&e)))?;
    if !meta.is_file() {
        return Err(fail(Problem::NotRegular(crate::input::kind_of(&meta.file_type()))));
    }
    write(&mut file).map_err(|e| fail(Problem::io(&e)))
}

/// Makes sure `dir` is a directory to write files into, creating it (and its parents) when
/// absent. A symbolic link to a directory is used as the directory it leads to (the user named
/// it); anything else already there is refused and left as it is.
///
/// # Errors
/// [`OutputError`]: something other than a directory is there, or it cannot be created.
pub fn make_dir(dir: &Path) -> Result<(), OutputError> {
    let fail = |problem: Problem| OutputError { path: dir.to_owned(), problem };
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) if meta.file_type().is_symlink() => match std::fs::metadata(dir) {
            Ok(target) if target.is_dir() => Ok(()),
            _ => Err(fail(Problem::NotDirectory("symbolic link"))),
        },
        Ok(meta) if meta.is_file() => Err(fail(Problem::NotDirectory("regular file"))),
        Ok(meta) => Err(fail(Problem::NotDirectory(crate::input::kind_of(&meta.file_type())))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(|e| fail(Problem::io(&e)))
        }
        Err(e) => Err(fail(Problem::io(&e))),
    }
}

/// Makes sure `dir` and the directories above it, `levels` in all, are this user's alone, for a
/// file this user keeps for themself ([`crate::input::read_own`] reads it with the same
/// `levels`): what is missing is created `rwx------`; one of this user's that others may write is
/// made writable by this user alone; one that is another user's, a symbolic link or no directory
/// is refused and left as it is.
///
/// # Errors
/// [`OutputError`]: a directory another user owns ([`Problem::NotOwn`]), a link or something
/// else where a directory should be, or one that cannot be created or changed.
pub fn make_own_dirs(dir: &Path, levels: usize) -> Result<(), OutputError> {
    let chain: Vec<&Path> = dir.ancestors().take(levels).filter(|at| !at.as_os_str().is_empty()).collect();
    for at in chain.into_iter().rev() {
        own_dir_made(at).map_err(|problem| OutputError { path: at.to_owned(), problem })?;
    }
    Ok(())
}

/// [`make_own_dirs`] for the one directory `at`, whose parent is ready.
fn own_dir_made(at: &Path) -> Result<(), Problem> {
    use crate::input::{Foreign, InputError, own_dir};
    match std::fs::symlink_metadata(at) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            own_dir_builder().create(at).map_err(|e| Problem::io(&e))?;
        }
        Err(e) => return Err(Problem::io(&e)),
        Ok(_) => {}
    }
    let judged = match own_dir(at) {
        Err(InputError::NotOwn { problem: Foreign::Writable { mode, .. }, .. }) => {
            close_to_others(at, mode).map_err(|e| Problem::io(&e))?;
            own_dir(at)
        }
        judged => judged,
    };
    judged.map_err(|refused| match refused {
        InputError::NotOwn { problem: Foreign::Link, .. } => Problem::Symlink,
        InputError::NotOwn { problem: Foreign::NotDirectory(kind), .. } => Problem::NotDirectory(kind),
        InputError::NotOwn { problem, .. } => Problem::NotOwn(problem),
        InputError::Io { source, .. } => Problem::io(&source),
        other => Problem::Io(other.reason(), std::io::ErrorKind::Other),
    })
}

/// A directory a user named, filled whole or not at all: its files are written into a new
/// hidden directory beside it, made with the permissions the result will have, which one rename
/// then puts in its place. Until then nothing is at
/// the path but what was there (nothing, or an empty directory); a run that fails or is killed
/// half-way leaves no half-filled directory there (a kill, wherever it falls, leaves at most the
/// hidden `.<name>.partial-*` directory and its mark beside it ([`Partial`]), never the path
/// itself, and the next [`NewDir::create`] of the same path removes them: each mark is locked
/// while its run lives). Nothing is written through a symbolic link: the
/// files are new in a directory only this process made, and the rename replaces at most an empty
/// directory (a link or a file swapped in at the path makes it fail). An empty directory there is
/// replaced only when it is this user's, and the new one keeps its owner, group and permissions
/// ([`Replaced`]).
#[derive(Debug)]
pub struct NewDir {
    /// The directory as the user named it, without its `.` components ([`as_named`]).
    path: PathBuf,
    /// Where its files are written until [`NewDir::finish`].
    temp: Partial,
    /// The empty directory at the path when it was created, whose owner, group and permissions
    /// the new one keeps.
    replaced: Option<Replaced>,
}

impl NewDir {
    /// Whether a new directory can be made at `path`, read without its `.` components
    /// ([`as_named`]): nothing is there, or an empty directory (not a link to one, nor a mount
    /// point, which no rename replaces), and its parent is a directory. Whether the parent lets
    /// this user create in it, [`NewDir::create`] learns at once, making the directory beside.
    ///
    /// # Errors
    /// [`OutputError`]: a file, a link, a mount point, a directory with files in it, no parent
    /// directory, or a path that ends in no name (`.`, `..`).
    pub fn check(path: &Path) -> Result<(), OutputError> {
        let fail = |problem: Problem| OutputError { path: path.to_owned(), problem };
        let named = as_named(path);
        if named.file_name().is_none() {
            return Err(fail(Problem::NoName));
        }
        let parent = usable_parent(&named).map_err(fail)?;
        match std::fs::symlink_metadata(&named) {
            Ok(meta) if meta.file_type().is_symlink() => Err(fail(Problem::Symlink)),
            Ok(meta) if meta.is_dir() && mount_point(&meta, parent) => Err(fail(Problem::MountPoint)),
            Ok(meta) if meta.is_dir() => {
                let mut entries = std::fs::read_dir(&named).map_err(|e| fail(Problem::io(&e)))?;
                if entries.next().is_some() { Err(fail(Problem::NotEmpty)) } else { Ok(()) }
            }
            Ok(meta) if meta.is_file() => Err(fail(Problem::NotDirectory("regular file"))),
            Ok(meta) => Err(fail(Problem::NotDirectory(crate::input::kind_of(&meta.file_type())))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(fail(Problem::io(&e))),
        }
    }

    /// Starts a new directory at `path` ([`NewDir::check`]): its files go into a private
    /// directory beside it until [`NewDir::finish`]. An empty directory at `path` must be this
    /// user's, and the private one gets its group at once ([`Replaced::give_owner_and_group`]),
    /// before any file is written.
    ///
    /// # Errors
    /// [`OutputError`]: as [`NewDir::check`], the directory beside it cannot be made, or the empty
    /// directory at `path` is another user's or has a group the new one cannot be given
    /// ([`Problem::Unkept`]; the directory beside it is removed).
    pub fn create(path: &Path) -> Result<NewDir, OutputError> {
        Self::check(path)?;
        let path = &as_named(path);
        let fail = |problem: Problem| OutputError { path: path.clone(), problem };
        let parent = usable_parent(path).map_err(fail)?;
        let replaced =
            std::fs::symlink_metadata(path).ok().filter(std::fs::Metadata::is_dir).map(Replaced::of);
        let mode = replaced.as_ref().map(|old| writable_by_owner(old.permissions())).or_else(new_dir_mode);
        let temp = Partial::beside(parent, path, mode).map_err(|e| {
            use std::io::ErrorKind::{PermissionDenied, ReadOnlyFilesystem};
            fail(match e.kind() {
                reason @ (PermissionDenied | ReadOnlyFilesystem) => Problem::ParentNotWritable {
                    parent: parent.to_owned(),
                    reason,
                    there: replaced.is_some(),
                },
                _ => Problem::io(&e),
            })
        })?;
        if let Some(old) = &replaced {
            let writable = writable_by_owner(old.permissions());
            old.give_owner_and_group(temp.handle(), writable).map_err(|e| fail(Problem::Unkept(e)))?;
        }
        Ok(NewDir { path: path.clone(), temp, replaced })
    }

    /// The directory as the user named it, without its `.` components.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the file `name` (a plain file name) of the directory, whole. Each name is written
    /// once.
    ///
    /// # Errors
    /// [`OutputError`] naming the file as it will be in the directory: not a plain file name,
    /// written already, or the write fails.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<(), OutputError> {
        let fail = |problem: Problem| OutputError { path: self.path.join(name), problem };
        plain_name(name).map_err(fail)?;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.temp.path().join(name))
            .map_err(|e| fail(Problem::io(&e)))?;
        file.write_all(bytes).map_err(|e| fail(Problem::io(&e)))
    }

    /// Removes the file `name` written before, which the directory will not hold after all.
    ///
    /// # Errors
    /// [`OutputError`] naming the file: not a plain file name, or the removal fails.
    pub fn remove(&self, name: &str) -> Result<(), OutputError> {
        let fail = |problem: Problem| OutputError { path: self.path.join(name), problem };
        plain_name(name).map_err(fail)?;
        std::fs::remove_file(self.temp.path().join(name)).map_err(|e| fail(Problem::io(&e)))
    }

    /// Puts the directory at its path, by one rename over what is there (nothing, or an empty
    /// directory), with the permissions a plain `mkdir` gives it (the umask's), or the owner,
    /// group and permissions of the empty directory it replaces.
    ///
    /// # Errors
    /// [`OutputError`]: something other than an empty directory appeared at the path meanwhile
    /// (it is left as it is), the permissions cannot be given, or the rename fails; the files are
    /// removed, and nothing is left beside the path.
    pub fn finish(self) -> Result<(), OutputError> {
        if let Err(problem) = self.put_in_place() {
            // Whatever permissions it took (`r-x`), the drop can remove its files.
            if let Some(old) = &self.replaced {
                let _removable = self.temp.handle().set_permissions(writable_by_owner(old.permissions()));
            }
            return Err(OutputError { path: self.path.clone(), problem });
        }
        // Renamed: only its mark is left to remove, after it.
        self.temp.placed();
        Ok(())
    }

    /// Gives the directory the permissions of the one it replaces and renames it into place.
    fn put_in_place(&self) -> Result<(), Problem> {
        if let Some(old) = &self.replaced {
            old.give_permissions(self.temp.handle()).map_err(Problem::Unkept)?;
        }
        std::fs::rename(self.temp.path(), &self.path).map_err(|e| match e.kind() {
            std::io::ErrorKind::DirectoryNotEmpty => Problem::NotEmpty,
            // A mount point [`NewDir::check`] could not tell (one of the parent's own file
            // system, bound there).
            std::io::ErrorKind::ResourceBusy => Problem::MountPoint,
            _ => Problem::io(&e),
        })
    }
}

/// The name of the new directory [`Problem::MountPoint`] and [`Problem::ParentNotWritable`]
/// advise naming inside the directory the user named.
const NEW_INSIDE: &str = "pack";

/// Whether the directory `dir` (its metadata) is the root of a file system other than that of
/// `parent`, the directory it is in: a mount point. A bind mount of the parent's own file system
/// is not told here; its rename fails ([`NewDir::finish`]). Elsewhere than on Unix, never.
fn mount_point(dir: &std::fs::Metadata, parent: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        std::fs::metadata(parent).is_ok_and(|parent| parent.dev() != dir.dev())
    }
    #[cfg(not(unix))]
    {
        let _unused = (dir, parent);
        false
    }
}

/// `name` is a plain file name: no directory, no `..`.
fn plain_name(name: &str) -> Result<(), Problem> {
    if Path::new(name).file_name().and_then(|n| n.to_str()) == Some(name) {
        Ok(())
    } else {
        Err(Problem::Io("not a plain file name".to_owned(), std::io::ErrorKind::InvalidInput))
    }
}

/// Refuses `path` when it lies inside one of `git_dirs` (a repository's git directory, and the
/// common one its worktrees share), or is or goes through an entry named `.git` (a git directory,
/// or the `.git` file of a linked worktree, a submodule or a `--separate-git-dir` repository,
/// which leads its work tree to the git directory), as the file system resolves them: a directory
/// written there becomes a ref, or breaks one, and git fails on it; a file written over a `.git`
/// file cuts its work tree off the repository. The nearest ancestor of `path` that exists is
/// resolved (links, `..`); the rest is as named.
///
/// # Errors
/// [`OutputError`] with [`Problem::InGitDirectory`] or [`Problem::InGitFile`].
pub fn refuse_in_git_dir(path: &Path, git_dirs: &[&Path]) -> Result<(), OutputError> {
    let Some(resolved) = resolved(path) else { return Ok(()) };
    let fail = |problem| Err(OutputError { path: path.to_owned(), problem });
    for dir in git_dirs.iter().filter_map(|dir| std::fs::canonicalize(dir).ok()) {
        if resolved.starts_with(&dir) {
            return fail(Problem::InGitDirectory(dir));
        }
    }
    // Only the names up to the nearest one that exists can be there: what is below is as named.
    for entry in resolved.ancestors().filter(|entry| entry.file_name().is_some_and(|n| n == DOT_GIT)) {
        match std::fs::symlink_metadata(entry) {
            Ok(meta) if meta.is_dir() => return fail(Problem::InGitDirectory(entry.to_owned())),
            Ok(_) => return fail(Problem::InGitFile(entry.to_owned())),
            Err(_) => {}
        }
    }
    Ok(())
}

/// `path` as the file system resolves it: its nearest existing ancestor canonical, and the names
/// below it as given; `None` when it cannot be made absolute, or a `..` follows a missing name.
fn resolved(path: &Path) -> Option<PathBuf> {
    let full = std::path::absolute(as_named(path)).ok()?;
    let mut below = Vec::new();
    let mut at = full.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return Some(below.iter().rev().fold(real, |real, name| real.join(name)));
        }
        below.push(at.file_name()?);
        at = at.parent()?;
    }
}

/// The directory `path` goes into (`.` for a bare name), which must exist and be a directory,
/// reached through no symbolic link below the current directory ([`link_on_the_way`]).
fn usable_parent(path: &Path) -> Result<&Path, Problem> {
    let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if let Some(link) = link_on_the_way(dir) {
        return Err(Problem::LinkOnTheWay(link));
    }
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(dir),
        Ok(_) => Err(Problem::ParentNotDirectory(dir.to_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Problem::NoDirectory(dir.to_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            Err(Problem::ParentNotDirectory(dir.to_owned()))
        }
        Err(e) => Err(Problem::io(&e)),
    }
}

/// The first symbolic link among the directories of `dir` that lie below the current directory
/// ([`link_below`] it): the current directory is where a checked branch's work tree is, and a
/// link the branch committed there could lead a write anywhere. Above it, or elsewhere, the
/// directories are the user's own.
#[must_use]
pub fn link_on_the_way(dir: &Path) -> Option<PathBuf> {
    link_below(&std::env::current_dir().ok()?, dir, &[])
}

/// The most links one path is followed through, as Linux's `ELOOP` limit.
const MAX_LINKS_FOLLOWED: usize = 40;

/// The first symbolic link on the way to `dir` (a relative `dir` is read from `base`) that lies
/// below `base` and in none of the directories `own` (the user's own even there, as a git
/// directory is), as [`link_on_the_way`] looks below the current directory, and as a work tree
/// roots the hooks directory `core.hooksPath` names. Each name is resolved as the file system
/// resolves it: a link above `base` or in `own` is followed, and a `..` goes up from where the
/// names before it lead, so that no spelling (`.git/../.githooks`, `../repo/.githooks`, `base`
/// reached through a link) passes a link below `base`. The link is named from `base` for a
/// relative `dir`, in full for an absolute one; `None` when `base` does not exist.
#[must_use]
pub fn link_below(base: &Path, dir: &Path, own: &[&Path]) -> Option<PathBuf> {
    use std::path::Component;
    let base = std::fs::canonicalize(base).ok()?;
    let own: Vec<PathBuf> =
        own.iter().flat_map(|d| [std::fs::canonicalize(d).ok(), located(d)]).flatten().collect();
    let mut pending: Vec<PathBuf> = parts(&base.join(dir));
    let (mut at, mut followed) = (PathBuf::new(), 0);
    while let Some(part) = pending.pop() {
        match part.components().next() {
            Some(Component::Normal(name)) => at.push(name),
            Some(Component::ParentDir) => {
                at.pop();
                continue;
            }
            Some(Component::RootDir | Component::Prefix(_)) => {
                at.push(&part);
                continue;
            }
            Some(Component::CurDir) | None => continue,
        }
        if !std::fs::symlink_metadata(&at).is_ok_and(|meta| meta.file_type().is_symlink()) {
            continue;
        }
        if at.starts_with(&base) && !own.iter().any(|own| at.starts_with(own)) {
            let relative = at.strip_prefix(&base).ok().filter(|_| dir.is_relative()).map(Path::to_path_buf);
            return Some(relative.unwrap_or(at));
        }
        followed += 1;
        let target = std::fs::read_link(&at).ok().filter(|_| followed <= MAX_LINKS_FOLLOWED)?;
        at.pop();
        pending.extend(parts(&target));
    }
    None
}

/// The components of `path`, last first (to be popped in order), each as a path of its own.
fn parts(path: &Path) -> Vec<PathBuf> {
    path.components().rev().map(|part| PathBuf::from(part.as_os_str())).collect()
}

/// Where `path` lies: its parent as the file system resolves it, and its own name, not followed.
fn located(path: &Path) -> Option<PathBuf> {
    let path = std::path::absolute(path).ok()?;
    Some(std::fs::canonicalize(path.parent()?).ok()?.join(path.file_name()?))
}

/// What is at `path`: a regular file (its metadata) or nothing; anything else is refused.
fn existing_regular(path: &Path) -> Result<Option<std::fs::Metadata>, Problem> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Problem::Symlink),
        Ok(meta) if !meta.is_file() => Err(Problem::NotRegular(crate::input::kind_of(&meta.file_type()))),
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Problem::io(&e)),
    }
}

/// The mode a new output file is created with, `rw-rw-rw-` less the umask (the kernel takes it
/// off), as any program's new file is.
#[cfg(unix)]
fn new_file_mode() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(std::fs::Permissions::from_mode(0o666))
}

/// The mode a new output directory is created with, `rwxrwxrwx` less the umask, as `mkdir` makes
/// it.
#[cfg(unix)]
fn new_dir_mode() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(std::fs::Permissions::from_mode(0o777))
}

/// The mode of a file this user keeps for themself, `rw-------`.
#[cfg(unix)]
fn own_file_mode() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(std::fs::Permissions::from_mode(0o600))
}

/// What creates the directories of such a file, and those above them: `rwx-------`.
#[cfg(unix)]
fn own_dir_builder() -> std::fs::DirBuilder {
    use std::os::unix::fs::DirBuilderExt as _;
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true).mode(0o700);
    builder
}

/// Takes group and others' write off the directory `dir` of mode `mode`.
#[cfg(unix)]
fn close_to_others(dir: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & !0o022))
}

/// `permissions` with the owner's read, write and search added: the files of a new directory are
/// written into it before it gets the permissions of the one it replaces.
#[cfg(unix)]
fn writable_by_owner(permissions: std::fs::Permissions) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::Permissions::from_mode(permissions.mode() | 0o700)
}

/// `permissions` without the set-user-ID, set-group-ID and sticky bits: a file replaced keeps who
/// may read and write it, never a privilege its former owner gave it.
#[cfg(unix)]
fn plain_mode(permissions: std::fs::Permissions) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::Permissions::from_mode(permissions.mode() & 0o777)
}

/// Elsewhere the permissions are the platform's.
#[cfg(not(unix))]
fn plain_mode(permissions: std::fs::Permissions) -> std::fs::Permissions {
    permissions
}

/// Elsewhere the permissions are the platform's.
#[cfg(not(unix))]
fn writable_by_owner(permissions: std::fs::Permissions) -> std::fs::Permissions {
    permissions
}

/// Elsewhere the file gets the platform's permissions.
#[cfg(not(unix))]
fn own_file_mode() -> Option<std::fs::Permissions> {
    None
}

/// Elsewhere the directories get the platform's permissions.
#[cfg(not(unix))]
fn own_dir_builder() -> std::fs::DirBuilder {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    builder
}

/// Elsewhere no mode is judged ([`crate::input::own_dir`]), so none is changed.
#[cfg(not(unix))]
fn close_to_others(_dir: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

/// Elsewhere a new file gets the temporary file's permissions.
#[cfg(not(unix))]
fn new_file_mode() -> Option<std::fs::Permissions> {
    None
}

/// Elsewhere a new directory gets the temporary directory's permissions.
#[cfg(not(unix))]
fn new_dir_mode() -> Option<std::fs::Permissions> {
    None
}

#[cfg(test)]
mod tests {
    use super::partial::MARK_SUFFIX;
    use super::*;

    /// Leaves in `dir` what a run killed half-way leaves: the hidden directory `name` holding
    /// `files` (each empty), and its mark beside it, unlocked.
    fn left_by_a_kill(dir: &Path, name: &str, files: &[&str]) -> PathBuf {
        let left = dir.join(name);
        std::fs::create_dir(&left).unwrap();
        for file in files {
            std::fs::write(left.join(file), "").unwrap();
        }
        std::fs::write(dir.join(format!("{name}{MARK_SUFFIX}")), "").unwrap();
        left
    }

    /// A link below the base is found however the path spells its way to it (a `..` after a
    /// directory the user's own link leads to, out of the base and back, the base through a
    /// link), and is named from the base for a relative path; a link in an own directory or
    /// above the base is followed.
    #[cfg(unix)]
    #[test]
    fn a_link_below_the_base_is_found_however_the_path_spells_it_and_an_own_link_is_followed() {
        use std::os::unix::fs::symlink;
        let (top, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let base = top.path().join("repo");
        std::fs::create_dir_all(base.join(".git/real")).unwrap();
        symlink(elsewhere.path(), base.join(".githooks")).unwrap();
        symlink(base.join(".git/real"), base.join(".git/hooks")).unwrap();
        symlink(&base, top.path().join("alias")).unwrap();
        let own = [base.join(".git")];
        let own: Vec<&Path> = own.iter().map(PathBuf::as_path).collect();
        let found = |dir: &str| link_below(&base, Path::new(dir), &own);
        for dir in [".githooks", ".git/../.githooks", ".git/hooks/../../.githooks", "../repo/.githooks/x"] {
            assert_eq!(found(dir), Some(PathBuf::from(".githooks")), "{dir}");
        }
        let through_alias = top.path().join("alias/.git/../.githooks");
        assert_eq!(
            found(through_alias.to_str().unwrap()),
            Some(base.canonicalize().unwrap().join(".githooks"))
        );
        assert_eq!(found(".git/hooks"), None, "a link in an own directory is followed");
        assert_eq!(found(".git/hooks/../real"), None);
        assert_eq!(link_below(&base, Path::new(".git/hooks"), &[]), Some(PathBuf::from(".git/hooks")));
    }

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
            let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
            let plain = dir.path().join("plain");
            std::fs::write(&plain, b"").unwrap();
            assert_eq!(mode(&path), mode(&plain), "a new report gets what a plain write gives (the umask's)");
            std::fs::remove_file(&plain).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
            write_whole(&path, b"third").unwrap();
            assert_eq!(mode(&path), 0o600, "an existing report keeps its permissions");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o6755)).unwrap();
            write_whole(&path, b"fourth").unwrap();
            let full = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
            assert_eq!(full, 0o755, "never set-user-ID or set-group-ID");
        }
    }

    #[test]
    fn a_write_killed_half_way_leaves_only_a_hidden_directory_which_the_next_write_removes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        // What a run killed before its rename leaves: its hidden directory, marked, lock free.
        left_by_a_kill(dir.path(), ".report.md.partial-k1ll3d", &["report.md"]);
        // A user's own file of a like name is no directory of ours.
        std::fs::write(dir.path().join(".report.md.partial-abc123"), "mine").unwrap();
        write_whole(&path, b"whole").unwrap();
        let mut names: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, [".report.md.partial-abc123", "report.md"]);
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
    }

    #[test]
    fn a_write_that_fails_half_way_leaves_the_old_file_and_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        write_whole(&path, b"old").unwrap();
        let failing = |out: &mut dyn Write| {
            out.write_all(b"half")?;
            Err(std::io::Error::other("the report broke off"))
        };
        let err = write_whole_with(&path, failing).unwrap_err();
        assert_eq!(err.path, path, "said of the path given, never of the hidden directory: {err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing beside it");
    }

    #[test]
    fn a_missing_directory_is_named_as_given_never_as_a_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nodir/report.md");
        let err = write_whole(&path, b"report").unwrap_err();
        assert!(matches!(err.problem, Problem::NoDirectory(ref d) if d == &dir.path().join("nodir")));
        let text = err.to_string();
        assert!(text.starts_with(&format!("cannot write {}: the directory", path.display())), "{text}");
        assert!(!text.contains("nodir/.tmp"), "{text}");
        assert!(append(&path, b"report").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_never_advised_to_be_removed_and_a_fifo_a_user_made_is() {
        let err = append(Path::new("/dev/null"), b"x").unwrap_err().to_string();
        assert!(
            err.ends_with("it is a device, not a regular file; write to a regular file instead"),
            "{err}"
        );
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let err = append(&fifo, b"x").unwrap_err().to_string();
        assert!(err.ends_with("remove it, or write elsewhere"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn an_append_goes_to_a_regular_file_only_and_never_waits_on_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.md");
        append(&path, b"one\n").unwrap();
        append(&path, b"two\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\n");
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(matches!(append(&fifo, b"x").unwrap_err().problem, Problem::NotRegular("FIFO")));
        assert!(matches!(append(&link, b"x").unwrap_err().problem, Problem::Symlink));
        assert!(matches!(append(dir.path(), b"x").unwrap_err().problem, Problem::NotRegular("directory")));
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\n");
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

    #[test]
    fn a_new_directory_or_file_whose_name_is_as_long_as_a_name_can_be_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("é".repeat(127));
        let pack = NewDir::create(&out).unwrap();
        pack.write("a.txt", b"a").unwrap();
        pack.finish().unwrap();
        assert_eq!(std::fs::read(out.join("a.txt")).unwrap(), b"a");
        let file = dir.path().join("ü".repeat(127));
        write_whole(&file, b"f").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"f");
    }

    #[test]
    fn a_path_that_would_break_the_message_s_line_is_quoted_on_one_line() {
        let err = NewDir::create(Path::new("/nonexistent-parent\nsigned by: someone/pack")).unwrap_err();
        assert!(!err.to_string().contains('\n'), "{err}");
    }

    #[test]
    fn a_new_directory_appears_whole_at_its_path_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let names = |path: &Path| -> Vec<String> {
            let mut n: Vec<String> = std::fs::read_dir(path)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            n.sort();
            n
        };
        let out = dir.path().join("pack");
        let pack = NewDir::create(&out).unwrap();
        pack.write("a.json", b"{}").unwrap();
        pack.write("b.txt", b"b").unwrap();
        assert!(!out.exists(), "nothing is at the path before it is finished");
        assert!(pack.write("a.json", b"again").is_err(), "a name is written once");
        assert!(pack.write("../escape", b"x").is_err());
        pack.write("dropped", b"not kept after all").unwrap();
        pack.remove("dropped").unwrap();
        assert!(pack.remove("dropped").is_err(), "a file not there is not removed");
        assert!(pack.remove("../pack").is_err());
        pack.finish().unwrap();
        assert_eq!(names(&out), ["a.json", "b.txt"]);
        assert_eq!(names(dir.path()), ["pack"], "no temporary directory is left");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
            let (plain_dir, plain_file) = (dir.path().join("plain"), dir.path().join("plain.txt"));
            std::fs::create_dir(&plain_dir).unwrap();
            std::fs::write(&plain_file, b"").unwrap();
            assert_eq!(mode(&out), mode(&plain_dir), "as a plain mkdir makes it (the umask's)");
            assert_eq!(mode(&out.join("a.json")), mode(&plain_file));
            std::fs::remove_dir(&plain_dir).unwrap();
            std::fs::remove_file(&plain_file).unwrap();
            // An empty directory the user made private stays private; one made read-only is
            // filled all the same, then read-only again.
            let private = dir.path().join("private");
            for kept in [0o700, 0o555] {
                std::fs::create_dir(&private).unwrap();
                std::fs::set_permissions(&private, std::fs::Permissions::from_mode(kept)).unwrap();
                let pack = NewDir::create(&private).unwrap();
                pack.write("a", b"a").unwrap();
                pack.finish().unwrap();
                assert_eq!(mode(&private), kept);
                std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
                std::fs::remove_dir_all(&private).unwrap();
            }
        }

        // Dropped before it is finished (a failure half-way): nothing at the path, nothing beside.
        let second = dir.path().join("second");
        let half = NewDir::create(&second).unwrap();
        half.write("a.json", b"{}").unwrap();
        drop(half);
        assert_eq!(names(dir.path()), ["pack"]);

        // A run killed half-way left its private directory: the next run of the same path
        // removes it, and leaves one a live run holds, and another path's.
        for left in [".second.partial-k1ll3d", ".other.partial-k1ll3d"] {
            left_by_a_kill(dir.path(), left, &["a.json"]);
        }
        #[cfg(unix)]
        {
            // A link named like a left-behind directory, marked, is never followed, nor removed.
            let elsewhere = tempfile::tempdir().unwrap();
            std::fs::write(elsewhere.path().join("keep"), "keep").unwrap();
            let link = dir.path().join(".second.partial-l1nk3d");
            std::os::unix::fs::symlink(elsewhere.path(), &link).unwrap();
            let mark = dir.path().join(format!(".second.partial-l1nk3d{MARK_SUFFIX}"));
            std::fs::write(&mark, "").unwrap();
            drop(NewDir::create(&second).unwrap());
            assert!(elsewhere.path().join("keep").exists() && link.exists() && mark.exists());
            std::fs::remove_file(&link).unwrap();
            std::fs::remove_file(&mark).unwrap();
            left_by_a_kill(dir.path(), ".second.partial-k1ll3d", &[]);
        }
        let live = NewDir::create(&second).unwrap();
        assert_eq!(names(dir.path()).len(), 5, "{:?}", names(dir.path()));
        assert!(!dir.path().join(".second.partial-k1ll3d").exists());
        let next = NewDir::create(&second).unwrap();
        assert!(live.temp.path().exists() && next.temp.path().exists(), "a live run's directory is kept");
        drop((live, next));
        assert_eq!(names(dir.path()).len(), 3, "{:?}", names(dir.path()));
        std::fs::remove_dir_all(dir.path().join(".other.partial-k1ll3d")).unwrap();
        std::fs::remove_file(dir.path().join(format!(".other.partial-k1ll3d{MARK_SUFFIX}"))).unwrap();
        assert_eq!(names(dir.path()), ["pack"]);

        // An empty directory is replaced; one with files in it is refused, before and after.
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let filled = NewDir::create(&empty).unwrap();
        filled.write("x", b"x").unwrap();
        filled.finish().unwrap();
        assert_eq!(names(&empty), ["x"]);
        let err = NewDir::create(&out).unwrap_err();
        assert!(matches!(err.problem, Problem::NotEmpty), "{err}");
        assert!(err.to_string().contains("name a new directory"), "{err}");
        let late = dir.path().join("late");
        let racing = NewDir::create(&late).unwrap();
        std::fs::create_dir(&late).unwrap();
        std::fs::write(late.join("theirs"), "theirs").unwrap();
        assert!(matches!(racing.finish().unwrap_err().problem, Problem::NotEmpty));
        assert_eq!(names(&late), ["theirs"], "what appeared there meanwhile is left as it is");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_or_a_file_where_a_new_directory_goes_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::create_dir(&target).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(NewDir::check(&link).unwrap_err().problem, Problem::Symlink));
        let file = dir.path().join("file");
        std::fs::write(&file, "precious").unwrap();
        assert!(matches!(NewDir::check(&file).unwrap_err().problem, Problem::NotDirectory("regular file")));
        assert!(matches!(
            NewDir::check(&dir.path().join("no/such")).unwrap_err().problem,
            Problem::NoDirectory(_)
        ));
        // A link swapped in after the check: the rename fails and writes nothing through it.
        let swapped = dir.path().join("swapped");
        let pack = NewDir::create(&swapped).unwrap();
        pack.write("x", b"x").unwrap();
        std::os::unix::fs::symlink(&target, &swapped).unwrap();
        assert!(pack.finish().is_err());
        assert!(std::fs::read_dir(&target).unwrap().next().is_none(), "nothing went through the link");
        assert_eq!(std::fs::read(&file).unwrap(), b"precious");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_mount_point_is_refused_before_any_work_naming_a_new_directory_inside_it() {
        // `/proc` is a file system of its own on every Linux: no rename replaces it.
        let err = NewDir::check(Path::new("/proc")).unwrap_err();
        assert!(matches!(err.problem, Problem::MountPoint), "{err}");
        let text = err.to_string();
        assert!(text.starts_with("cannot write /proc: it is a mount point"), "{text}");
        assert!(text.ends_with("; name a new directory inside it instead, as /proc/pack"), "{text}");
        // An empty directory on its parent's own file system is none.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        NewDir::check(&dir.path().join("empty")).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_directory_this_user_may_not_create_in_is_named_as_the_reason_at_once() {
        // Nobody creates a directory in `/sys`, root neither (permission, or a read-only mount).
        let err = NewDir::create(Path::new("/sys/pack")).unwrap_err();
        assert!(
            matches!(err.problem, Problem::ParentNotWritable { ref parent, there: false, .. } if parent == Path::new("/sys")),
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.starts_with("cannot write /sys/pack: its directory /sys does not let this user create"),
            "{text}"
        );
        assert!(text.ends_with("; write in a directory where this user may create files"), "{text}");
        // A directory that is there already is advised a new one inside it.
        let problem = Problem::ParentNotWritable {
            parent: "/srv".into(),
            reason: std::io::ErrorKind::PermissionDenied,
            there: true,
        };
        let advice = problem.advice(Path::new("/srv/out"));
        assert_eq!(advice, "name a new directory inside it instead, as /srv/out/pack");
    }

    #[test]
    fn a_directory_named_like_a_left_behind_one_is_removed_only_when_it_shows_it_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("pack");
        let fill = |name: &str, files: &[&str]| {
            std::fs::create_dir(dir.path().join(name)).unwrap();
            for file in files {
                std::fs::write(dir.path().join(name).join(file), "x").unwrap();
            }
        };
        let mark = |name: &str, text: &str| {
            std::fs::write(dir.path().join(format!("{name}{MARK_SUFFIX}")), text).unwrap();
        };
        // A user's own directories, and one a checked branch could commit, of such names: without
        // a mark (empty, too), or whatever is in it.
        fill(".pack.partial-mine", &["data.txt"]);
        fill(".pack.partial-", &[]);
        fill(".pack.partial-abc123", &["data.txt"]);
        fill(".pack.partial-3mpty0", &[]);
        fill(".pack.partial-xyz789", &[]);
        mark(".pack.partial-xyz789", "");
        std::fs::create_dir(dir.path().join(".pack.partial-xyz789/sub")).unwrap();
        // A mark with something in it is none of ours: the user's directory beside it stays.
        fill(".pack.partial-n0tm1n", &["notes.txt"]);
        mark(".pack.partial-n0tm1n", "not empty");
        // A mark that is a directory is none either.
        std::fs::create_dir(dir.path().join(format!(".pack.partial-d1rm4k{MARK_SUFFIX}"))).unwrap();
        // One a killed run left.
        left_by_a_kill(dir.path(), ".pack.partial-k1ll3d", &["a.intoto.jsonl"]);
        let made = NewDir::create(&out).unwrap();
        made.write("a", b"a").unwrap();
        made.finish().unwrap();
        assert_eq!(
            names_in(dir.path()),
            [
                ".pack.partial-",
                ".pack.partial-3mpty0",
                ".pack.partial-abc123",
                &format!(".pack.partial-d1rm4k{MARK_SUFFIX}"),
                ".pack.partial-mine",
                ".pack.partial-n0tm1n",
                &format!(".pack.partial-n0tm1n{MARK_SUFFIX}"),
                ".pack.partial-xyz789",
                &format!(".pack.partial-xyz789{MARK_SUFFIX}"),
                "pack"
            ]
        );
        assert!(dir.path().join(".pack.partial-mine/data.txt").exists());
        assert!(dir.path().join(".pack.partial-n0tm1n/notes.txt").exists());
        assert_eq!(names_in(&out), ["a"], "no mark reaches the directory");
    }

    /// Wherever a kill falls, what it leaves beside the path is marked, and the next run of the
    /// same path removes it: a mark alone (killed before its directory was made, or after it was
    /// renamed into place), a mark and an empty directory (killed before a file was written), a
    /// mark and a directory with files in it given `r-x` (killed just before its rename).
    #[cfg(unix)]
    #[test]
    fn whatever_a_kill_leaves_beside_the_path_the_next_run_of_it_removes() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        for name in [".pack.partial-m4rk00", ".report.md.partial-m4rk00"] {
            std::fs::write(dir.path().join(format!("{name}{MARK_SUFFIX}")), "").unwrap();
        }
        left_by_a_kill(dir.path(), ".pack.partial-3mpty0", &[]);
        let renaming = left_by_a_kill(dir.path(), ".pack.partial-r3nam3", &["a.json", "b.txt"]);
        std::fs::set_permissions(&renaming, std::fs::Permissions::from_mode(0o555)).unwrap();
        left_by_a_kill(dir.path(), ".report.md.partial-wr1t3n", &[]);
        let pack = NewDir::create(&dir.path().join("pack")).unwrap();
        pack.write("a", b"a").unwrap();
        pack.finish().unwrap();
        write_whole(&dir.path().join("report.md"), b"r").unwrap();
        assert_eq!(names_in(dir.path()), ["pack", "report.md"]);
        assert_eq!(names_in(&dir.path().join("pack")), ["a"]);
    }

    /// In a directory whose name is not UTF-8, a file and a new directory are written whole, and
    /// what a kill left there is removed.
    #[cfg(unix)]
    #[test]
    fn a_file_and_a_directory_are_written_in_a_directory_whose_name_is_not_utf8() {
        use std::os::unix::ffi::OsStrExt as _;
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join(std::ffi::OsStr::from_bytes(b"not-utf8-\xff"));
        std::fs::create_dir(&dir).unwrap();
        left_by_a_kill(&dir, ".pack.partial-k1ll3d", &["a"]);
        write_whole(&dir.join("report.md"), b"r").unwrap();
        let pack = NewDir::create(&dir.join("pack")).unwrap();
        pack.write("a", b"a").unwrap();
        pack.finish().unwrap();
        assert_eq!(names_in(&dir), ["pack", "report.md"]);
    }

    /// The names in `dir`, sorted.
    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    /// Where a test that runs again as `nobody` ([`run_as_nobody`]) finds the directory it works in.
    #[cfg(target_os = "linux")]
    const AS_NOBODY_DIR: &str = "SPECCODER_TEST_AS_NOBODY_DIR";

    /// `nobody`'s user and group ids when this test runs as root, whom no file mode binds, and
    /// `setpriv` can run it again as `nobody` (who may run this binary where it lies); else `None`.
    #[cfg(target_os = "linux")]
    fn nobody_when_root() -> Option<(u32, u32)> {
        use std::os::unix::fs::MetadataExt as _;
        let probe = tempfile::tempdir().ok()?;
        if std::fs::metadata(probe.path()).ok()?.uid() != 0 {
            return None;
        }
        let ran = |program: &str, args: &[&str]| {
            let out = std::process::Command::new(program).args(args).output().ok()?;
            out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        };
        let (uid, gid): (u32, u32) =
            (ran("id", &["-u", "nobody"])?.parse().ok()?, ran("id", &["-g", "nobody"])?.parse().ok()?);
        let exe = std::env::current_exe().ok()?;
        let (reuid, regid) = (format!("--reuid={uid}"), format!("--regid={gid}"));
        ran("setpriv", &[&reuid, &regid, "--clear-groups", "test", "-x", exe.to_str()?])?;
        Some((uid, gid))
    }

    /// Runs this binary's test `name` again as `nobody` (`uid`, `gid`, no other group), with `dir`
    /// in [`AS_NOBODY_DIR`], and asserts that it passed.
    #[cfg(target_os = "linux")]
    #[track_caller]
    fn run_as_nobody(name: &str, (uid, gid): (u32, u32), dir: &Path) {
        let out = std::process::Command::new("setpriv")
            .args([format!("--reuid={uid}"), format!("--regid={gid}"), "--clear-groups".to_owned()])
            .arg(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(AS_NOBODY_DIR, dir)
            .output()
            .unwrap();
        let said =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && said.contains("1 passed"), "as nobody: {said}");
    }

    /// As a user whom modes bind (`nobody`, when the tests run as root), an empty directory of
    /// theirs made `r-x` is filled and `r-x` again, and nothing is left beside it: its mark is
    /// taken away before its permissions are given.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_empty_directory_its_owner_made_read_only_is_filled_and_nothing_is_left_beside_it() {
        use std::os::unix::fs::PermissionsExt as _;
        let fill = |dir: &Path| {
            let out = dir.join("out");
            std::fs::create_dir(&out).unwrap();
            std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o555)).unwrap();
            let pack = NewDir::create(&out).unwrap();
            pack.write("a", b"a").unwrap();
            pack.finish().unwrap();
            assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777, 0o555);
            assert_eq!(std::fs::read(out.join("a")).unwrap(), b"a");
            assert_eq!(names_in(dir), ["out"], "nothing is left beside it");
        };
        if let Some(dir) = std::env::var_os(AS_NOBODY_DIR) {
            return fill(Path::new(&dir));
        }
        let dir = tempfile::tempdir().unwrap();
        match nobody_when_root() {
            Some(nobody) => {
                std::os::unix::fs::chown(dir.path(), Some(nobody.0), Some(nobody.1)).unwrap();
                run_as_nobody(
                    "output_file::tests::an_empty_directory_its_owner_made_read_only_is_filled_and_nothing_is_left_beside_it",
                    nobody,
                    dir.path(),
                );
            }
            None => fill(dir.path()),
        }
    }

    /// As `nobody`, in a directory anyone may create in: root's empty directory, which nobody
    /// could write into, and nobody's own of root's group, are refused before anything is
    /// written, saying what to do, and left as they are. Only root makes them, so only a run as
    /// root tells.
    #[cfg(target_os = "linux")]
    #[test]
    fn another_user_s_empty_directory_or_one_whose_group_cannot_be_kept_is_refused_and_nothing_is_left() {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        if let Some(dir) = std::env::var_os(AS_NOBODY_DIR) {
            let dir = Path::new(&dir);
            let before = names_in(dir);
            let err = NewDir::create(&dir.join("theirs")).unwrap_err();
            assert!(matches!(err.problem, Problem::Unkept(Unkept::Owner(0))), "{err}");
            let text = err.to_string();
            assert!(text.contains("it is an empty directory of another user (uid 0)"), "{text}");
            assert!(
                text.ends_with("; name a new directory instead, or an empty one of this user's own"),
                "{text}"
            );
            assert_eq!(names_in(dir), before, "nothing is left beside it");
            let err = NewDir::create(&dir.join("grouped")).unwrap_err();
            assert!(matches!(err.problem, Problem::Unkept(Unkept::Attribute { .. })), "{err}");
            let text = err.to_string();
            assert!(
                text.contains("whose group (gid 0) the new directory put in its place could not be given"),
                "{text}"
            );
            assert!(text.ends_with("or an empty one whose group this user is in"), "{text}");
            assert_eq!(names_in(dir), before, "nothing is left beside it");
            return;
        }
        let Some(nobody) = nobody_when_root() else { return };
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let (theirs, grouped) = (dir.path().join("theirs"), dir.path().join("grouped"));
        std::fs::create_dir(&theirs).unwrap();
        std::fs::create_dir(&grouped).unwrap();
        std::os::unix::fs::chown(&grouped, Some(nobody.0), Some(0)).unwrap();
        std::fs::set_permissions(&grouped, std::fs::Permissions::from_mode(0o770)).unwrap();
        let (theirs_was, grouped_was) =
            (std::fs::metadata(&theirs).unwrap(), std::fs::metadata(&grouped).unwrap());
        run_as_nobody(
            "output_file::tests::another_user_s_empty_directory_or_one_whose_group_cannot_be_kept_is_refused_and_nothing_is_left",
            nobody,
            dir.path(),
        );
        for (path, was) in [(&theirs, theirs_was), (&grouped, grouped_was)] {
            let now = std::fs::metadata(path).unwrap();
            assert_eq!((now.ino(), now.uid(), now.gid()), (was.ino(), was.uid(), was.gid()), "{path:?}");
        }
    }

    /// A group `dir` can be given other than its own (one this user is in, or any as root), given.
    #[cfg(unix)]
    fn another_group_given(dir: &Path) -> Option<u32> {
        use std::os::unix::fs::MetadataExt as _;
        let own = std::fs::metadata(dir).unwrap().gid();
        let out = std::process::Command::new("id").arg("-G").output().ok()?;
        let mine = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|g| g.parse().ok())
            .collect::<Vec<u32>>();
        mine.into_iter()
            .chain([4242])
            .filter(|&gid| gid != own)
            .find(|&gid| std::os::unix::fs::chown(dir, None, Some(gid)).is_ok())
    }

    /// A team's empty directory (its group, set-group-ID) is replaced by one of the same owner,
    /// group and permissions, whose files get the group too. Where this user can give no other
    /// group (not root, in one group), there is nothing to tell.
    #[cfg(unix)]
    #[test]
    fn an_empty_directory_s_owner_group_and_set_group_id_bit_are_kept_by_the_new_one() {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        let dir = tempfile::tempdir().unwrap();
        let team = dir.path().join("team");
        std::fs::create_dir(&team).unwrap();
        let Some(gid) = another_group_given(&team) else { return };
        std::fs::set_permissions(&team, std::fs::Permissions::from_mode(0o2770)).unwrap();
        let was = std::fs::metadata(&team).unwrap();
        let pack = NewDir::create(&team).unwrap();
        pack.write("a", b"a").unwrap();
        pack.finish().unwrap();
        let now = std::fs::metadata(&team).unwrap();
        assert_eq!((now.uid(), now.gid(), now.mode() & 0o7777), (was.uid(), gid, 0o2770));
        assert_eq!(std::fs::metadata(team.join("a")).unwrap().gid(), gid, "its files get its group");
        assert_eq!(names_in(dir.path()), ["team"]);
    }

    /// A full disk or quota is advised as space, a refusal as permissions, anything else neither.
    #[cfg(unix)]
    #[test]
    fn a_full_disk_is_advised_to_free_space_and_only_a_refusal_to_check_permissions() {
        let advice = |code: i32| {
            let problem = Problem::io(&std::io::Error::from_raw_os_error(code));
            (problem.to_string(), problem.advice(Path::new("out")).into_owned())
        };
        for code in [libc::ENOSPC, libc::EDQUOT] {
            let (text, advice) = advice(code);
            assert!(advice.starts_with("free space on its file system"), "{text}: {advice}");
        }
        assert!(advice(libc::ENOSPC).0.contains("No space left on device"));
        for code in [libc::EACCES, libc::EPERM] {
            assert_eq!(advice(code).1, "check the path and its permissions");
        }
        for code in [libc::EIO, libc::EROFS, libc::ENAMETOOLONG] {
            let (text, advice) = advice(code);
            assert_eq!(advice, "check the path, or write elsewhere", "{text}");
        }
    }

    #[test]
    fn an_empty_directory_named_with_a_trailing_dot_is_filled_as_the_directory_it_names() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let pack = NewDir::create(&empty.join(".")).unwrap();
        pack.write("a", b"a").unwrap();
        pack.finish().unwrap();
        assert_eq!(std::fs::read(empty.join("a")).unwrap(), b"a");
        // `./` inside names the same directory too.
        let inner = dir.path().join("inner");
        std::fs::create_dir(&inner).unwrap();
        let pack = NewDir::create(&dir.path().join(".").join("inner").join(".")).unwrap();
        pack.finish().unwrap();
        assert!(inner.is_dir());
        // `.` alone names no directory a new one can replace: refused before anything is written.
        let err = NewDir::check(Path::new(".")).unwrap_err();
        assert!(matches!(err.problem, Problem::NoName), "{err}");
        assert!(err.to_string().contains("name the directory by its own name"), "{err}");
    }

    #[test]
    fn a_path_at_or_under_a_work_tree_s_git_file_is_refused_as_inside_the_git_directory_never_advised_removed()
     {
        let dir = tempfile::tempdir().unwrap();
        // A linked worktree's (a submodule's, a `--separate-git-dir` repository's) `.git` file.
        let work_tree = dir.path().join("wt");
        std::fs::create_dir(&work_tree).unwrap();
        let git_file = work_tree.join(".git");
        std::fs::write(&git_file, "gitdir: /elsewhere/.git/worktrees/wt\n").unwrap();
        for path in
            [git_file.clone(), git_file.join("pack"), work_tree.join("./.git/pack/."), git_file.join("a/b")]
        {
            let err = refuse_in_git_dir(&path, &[]).unwrap_err();
            assert!(matches!(err.problem, Problem::InGitFile(_)), "{err}");
            let text = err.to_string();
            assert!(text.contains("it lies inside the repository's git directory"), "{text}");
            assert!(text.ends_with("; choose a directory outside `.git`"), "{text}");
        }
        // A `.git` directory no caller named is a git directory all the same.
        let other = dir.path().join("other/.git");
        std::fs::create_dir_all(other.join("refs")).unwrap();
        let err = refuse_in_git_dir(&other.join("refs/pack"), &[]).unwrap_err();
        assert!(matches!(err.problem, Problem::InGitDirectory(_)), "{err}");
        // A name that only starts like it, or a `.git` below what exists (nothing there yet), is not.
        std::fs::write(work_tree.join(".gitignore"), "").unwrap();
        refuse_in_git_dir(&work_tree.join(".gitignore"), &[]).unwrap();
        refuse_in_git_dir(&work_tree.join("new/.git"), &[]).unwrap();
        // Whatever else refuses a path through a `.git`, its advice never says to remove it: that
        // would cut the work tree off its repository.
        for err in [
            NewDir::check(&git_file).unwrap_err(),
            NewDir::check(&git_file.join("pack")).unwrap_err(),
            write_whole(&git_file.join("report.md"), b"r").unwrap_err(),
        ] {
            let text = err.to_string();
            assert!(!text.contains("remove"), "{text}");
            assert!(text.ends_with("; choose a directory outside `.git`"), "{text}");
        }
        assert_eq!(std::fs::read(&git_file).unwrap(), b"gitdir: /elsewhere/.git/worktrees/wt\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_inside_a_git_directory_is_refused_however_it_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join("repo/.git");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        let common = dir.path().join("main/.git");
        std::fs::create_dir_all(common.join("refs/notes")).unwrap();
        let dirs = [git.as_path(), common.as_path()];
        let inside = [
            git.join("refs/heads/pack"),
            common.join("refs/notes/speccoder"),
            git.join("refs/heads/../heads/./pack"),
            dir.path().join("repo/./.git/pack/."),
        ];
        for path in &inside {
            let err = refuse_in_git_dir(path, &dirs).unwrap_err();
            assert!(matches!(err.problem, Problem::InGitDirectory(_)), "{err}");
            assert!(err.to_string().contains("choose a directory outside `.git`"), "{err}");
        }
        // Through a link that leads into it, too.
        let link = dir.path().join("refs-link");
        std::os::unix::fs::symlink(git.join("refs"), &link).unwrap();
        assert!(refuse_in_git_dir(&link.join("heads/pack"), &dirs).is_err());
        // Beside it, or in a directory whose name only starts like it, is not inside.
        std::fs::create_dir_all(dir.path().join("repo/.gitx")).unwrap();
        for path in [
            dir.path().join("repo/pack"),
            dir.path().join("repo/.gitx/pack"),
            dir.path().join("repo/.git-pack"),
        ] {
            refuse_in_git_dir(&path, &dirs).unwrap();
        }
    }
}
