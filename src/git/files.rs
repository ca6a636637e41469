//! The files gix opens for speccoder, looked at before gix opens them: git's configuration, the
//! `HEAD` files the search for the repository reads, the repository's packed references and
//! index, and the attributes files of a path it converts.
//!
//! gix opens these blocking and reads them whole, so a FIFO there would stop a command forever
//! and a device (`/dev/zero`) would be read until memory runs out. Each is looked at with `stat`
//! (never opened): it must be absent or a regular file of at most a bound; anything else is
//! refused, naming the file. The look and gix's open are two steps: a file swapped in between
//! them is not caught (these are files of the user's own machine, not of a repository's history).
//! A configuration file's includes (`include.path`, `includeIf.<condition>.path`, whatever the
//! condition) are looked at too, as deep as git follows them.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use super::error::GitError;
use super::git_file::GitFile;
use super::limits::{REPOSITORY_FILE_LIMIT, SETTINGS_FILE_LIMIT};

/// How a symbolic link at the path is taken.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Links {
    /// Followed to what it names (git follows it for its configuration, index, `packed-refs`
    /// and the attributes files outside the work tree).
    Follow,
    /// Taken as no file at all (git and gix never read a `.gitattributes` of the work tree
    /// through a link).
    Absent,
}

/// Whether the file at `path` is absent or a regular file of at most `max` bytes.
///
/// # Errors
/// [`GitError::UnusableFile`] naming the file, what it is and why it was not read.
pub(super) fn check(path: &Path, file: GitFile, links: Links, max: u64) -> Result<(), GitError> {
    let looked = match links {
        Links::Follow => std::fs::metadata(path),
        Links::Absent => std::fs::symlink_metadata(path),
    };
    let refuse = |reason: String| GitError::UnusableFile {
        path: std::path::absolute(path).unwrap_or_else(|_| path.to_owned()),
        file,
        reason,
    };
    let meta = match looked {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        // A path through a regular file (`ENOTDIR`) names nothing, as for git.
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => return Ok(()),
        Err(e) => return Err(refuse(format!("it cannot be looked at ({e})"))),
    };
    if links == Links::Absent && meta.file_type().is_symlink() {
        return Ok(());
    }
    // `/dev/null` reads as empty, for git as for gix: the usual way to name no file at all
    // (`GIT_CONFIG_GLOBAL=/dev/null`, `core.attributesFile=/dev/null`).
    if is_dev_null(&meta) {
        return Ok(());
    }
    if !meta.is_file() {
        return Err(refuse(format!(
            "it is a {}, not a regular file",
            crate::input::kind_of(&meta.file_type())
        )));
    }
    if meta.len() > max {
        return Err(refuse(format!("it holds {} bytes, more than the {max} speccoder reads", meta.len())));
    }
    Ok(())
}

/// Whether `meta` is that of `/dev/null` (the same character device, under whatever name).
fn is_dev_null(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
        meta.file_type().is_char_device()
            && std::fs::metadata("/dev/null").is_ok_and(|null| null.rdev() == meta.rdev())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// Looks at the files gix reads when it opens the repository git would use from `dir`, before
/// it opens them: the system's, the user's and the repository's configuration, a linked work
/// tree's `commondir` and `packed-refs` (the index, which gix reads only when asked, is looked at
/// once the repository is open and its work tree known: [`check_index`]). Each must be absent or a
/// regular file (through links, as git reads them) of a bounded size. A repository that is not
/// found is left to gix to say so.
///
/// # Errors
/// [`GitError::UnusableFile`] for the first file that is not.
pub(super) fn check_before_open(dir: &Path) -> Result<(), GitError> {
    for path in user_config_paths() {
        check_config(&path, GitFile::UserConfig, 0)?;
    }
    check_search(dir)?;
    let Some(git_dir) = git_dir_of(dir) else { return Ok(()) };
    let commondir = git_dir.join("commondir");
    check(&commondir, GitFile::CommonDir, Links::Follow, SETTINGS_FILE_LIMIT)?;
    let common = crate::input::read_regular_through_links(&commondir, SETTINGS_FILE_LIMIT)
        .ok()
        .and_then(|bytes| bytes.trim().to_path().ok().map(|p| git_dir.join(p)))
        .unwrap_or_else(|| git_dir.clone());
    check_config(&common.join("config"), GitFile::RepositoryConfig, 0)?;
    check_config(&git_dir.join("config.worktree"), GitFile::RepositoryConfig, 0)?;
    check(&common.join("packed-refs"), GitFile::PackedRefs, Links::Follow, REPOSITORY_FILE_LIMIT)?;
    Ok(())
}

/// Looks at the index at `path` ([`Repo::index_path`](super::Repo::index_path)) as
/// [`check_before_open`] looks at the files it names, before gix reads it.
///
/// # Errors
/// [`GitError::UnusableFile`] when it is not absent or a bounded regular file.
pub(super) fn check_index(path: &Path) -> Result<(), GitError> {
    check(path, GitFile::Index, Links::Follow, REPOSITORY_FILE_LIMIT)
}

/// How deep git follows configuration includes: a file may include files that include others, up
/// to this depth (git's `MAX_INCLUDE_DEPTH`).
const MAX_INCLUDE_DEPTH: usize = 10;

/// Looks at the configuration file at `path` (see [`check`]) and at every file it includes, at
/// any condition, to [`MAX_INCLUDE_DEPTH`]. A file that cannot be parsed is left to gix to refuse.
///
/// # Errors
/// [`GitError::UnusableFile`] for the first file that is not absent or a bounded regular file.
fn check_config(path: &Path, file: GitFile, depth: usize) -> Result<(), GitError> {
    check(path, file, Links::Follow, SETTINGS_FILE_LIMIT)?;
    if depth >= MAX_INCLUDE_DEPTH {
        return Ok(());
    }
    for included in includes(path) {
        check_config(&included, file, depth + 1)?;
    }
    Ok(())
}

/// The files the configuration at `path` includes, as paths (a relative one is relative to the
/// directory of `path`, `~/` is the home directory); none when it cannot be read or parsed.
fn includes(path: &Path) -> Vec<PathBuf> {
    let Ok(bytes) = crate::input::read_regular_through_links(path, SETTINGS_FILE_LIMIT) else {
        return Vec::new();
    };
    let meta = gix::config::file::Metadata::from(gix::config::Source::Local);
    let Ok(config) = gix::config::File::from_bytes_no_includes(&bytes, meta, Default::default()) else {
        return Vec::new();
    };
    let base = path.parent().unwrap_or(Path::new(""));
    let home = std::env::var_os("HOME").map(PathBuf::from);
    ["include", "includeIf"]
        .into_iter()
        .filter_map(|name| config.sections_by_name(name))
        .flatten()
        .flat_map(|section| section.values("path"))
        .filter_map(|value| {
            let value = value.to_path().ok()?;
            match value.strip_prefix("~") {
                Ok(rest) => Some(home.as_ref()?.join(rest)),
                Err(_) => Some(base.join(value)),
            }
        })
        .collect()
}

/// Looks at the files the search for the repository reads, from `dir` upwards, before the search
/// reads them: at each directory, `.git/HEAD`, or a `.git` file and the `HEAD` of the directory
/// it names, then the directory's own `HEAD` (a bare repository's). The look stops at the first
/// `HEAD` that is a regular file: the repository the search finds there. With `GIT_DIR` set,
/// only its `HEAD`.
///
/// # Errors
/// [`GitError::UnusableFile`] for the first file that is not absent or a bounded regular file;
/// [`GitError::GitFileNamesNone`] for a `.git` file that names no repository, where git stops.
fn check_search(dir: &Path) -> Result<(), GitError> {
    let head = |d: &Path| -> Result<bool, GitError> {
        let path = d.join("HEAD");
        check(&path, GitFile::Head, Links::Follow, SETTINGS_FILE_LIMIT)?;
        Ok(std::fs::metadata(&path).is_ok_and(|m| m.is_file()))
    };
    if let Some(git_dir) = std::env::var_os("GIT_DIR").filter(|v| !v.is_empty()) {
        return head(Path::new(&git_dir)).map(drop);
    }
    let start = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    for d in start.ancestors() {
        let dot_git = d.join(".git");
        let found = match std::fs::metadata(&dot_git) {
            Ok(meta) if meta.is_dir() => head(&dot_git)?,
            Ok(meta) if meta.is_file() => {
                check(&dot_git, GitFile::GitLink, Links::Follow, SETTINGS_FILE_LIMIT)?;
                // git stops at a `.git` file that names no repository; gix would search on.
                let names_one = match git_file_names(&dot_git) {
                    Some(target) => head(&d.join(&target))? && is_git_directory(&d.join(target)),
                    None => false,
                };
                if !names_one {
                    return Err(GitError::GitFileNamesNone { path: dot_git });
                }
                true
            }
            // Anything else at `.git` is no repository to the search: it reads nothing there.
            _ => false,
        };
        if found || head(d)? {
            return Ok(());
        }
    }
    Ok(())
}

/// The path a `.git` file names as git reads one: `gitdir: ` (with its space) and the path,
/// only line ends taken off its end; `None` when it does not read so (git: "invalid gitfile
/// format").
fn git_file_names(path: &Path) -> Option<PathBuf> {
    let bytes = crate::input::read_regular_through_links(path, SETTINGS_FILE_LIMIT).ok()?;
    let mut target = bytes.strip_prefix(b"gitdir: ")?;
    while let [rest @ .., b'\n' | b'\r'] = target {
        target = rest;
    }
    (!target.is_empty()).then_some(())?;
    target.to_path().ok().map(Path::to_owned)
}

/// Whether `dir` is a git directory as git's search takes one: `objects/` and `refs/`
/// directories in it, or in the common directory its `commondir` file names (a linked
/// worktree's), beside the `HEAD` the caller checked.
fn is_git_directory(dir: &Path) -> bool {
    let common = crate::input::read_regular_through_links(&dir.join("commondir"), SETTINGS_FILE_LIMIT)
        .ok()
        .and_then(|bytes| bytes.trim().to_path().ok().map(|p| dir.join(p)))
        .unwrap_or_else(|| dir.to_owned());
    common.join("objects").is_dir() && common.join("refs").is_dir()
}

/// The configuration files of the system and the user that gix reads, as gix names them.
fn user_config_paths() -> Vec<PathBuf> {
    use gix::config::Source;
    let mut paths: Vec<PathBuf> = [Source::GitInstallation, Source::System, Source::Git, Source::User]
        .into_iter()
        .filter_map(|source| source.storage_location(&mut |name| std::env::var_os(name)))
        .collect();
    paths.dedup();
    paths
}

/// The git directory of the repository gix will open from `dir` (`GIT_DIR`, else searching
/// upwards as [`Repo::discover_to_read`](super::Repo::discover_to_read) searches), or `None` when none is found.
fn git_dir_of(dir: &Path) -> Option<PathBuf> {
    if let Some(git_dir) = std::env::var_os("GIT_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(git_dir));
    }
    let (found, _) = gix::discover::upwards_opts(dir, discovery_from_environment()).ok()?;
    Some(found.into_repository_and_work_tree_directories().0)
}

/// The work tree of the repository a command opens from `dir`: `GIT_WORK_TREE` when it is set,
/// else the one found searching upwards as [`Repo::discover_to_read`](super::Repo::discover_to_read)
/// searches, or with `GIT_DIR` the repository's own (`core.worktree`); `None` for a bare
/// repository, or when none is found. Nothing
/// is read that [`check_before_open`] refuses (a FIFO as `.git/HEAD` would block the search):
/// `None` then, and the command's own opening says why.
pub fn work_tree_of(dir: &Path) -> Option<PathBuf> {
    if let Some(work_tree) = std::env::var_os("GIT_WORK_TREE").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(work_tree));
    }
    if std::env::var_os("GIT_DIR").is_some_and(|v| !v.is_empty()) {
        // The work tree then comes from the repository's configuration (`core.worktree`).
        return super::Repo::discover_to_read(dir).ok()?.workdir().map(Path::to_owned);
    }
    if check_before_open(dir).is_err() {
        return None;
    }
    let (found, _) = gix::discover::upwards_opts(dir, discovery_from_environment()).ok()?;
    found.into_repository_and_work_tree_directories().1
}

/// [`discovery`] with the environment's `GIT_CEILING_DIRECTORIES` and
/// `GIT_DISCOVERY_ACROSS_FILESYSTEM`, as gix adds them when it opens the repository.
fn discovery_from_environment() -> gix::discover::upwards::Options<'static> {
    let mut options = discovery().apply_environment();
    if let Some(across) = std::env::var_os("GIT_DISCOVERY_ACROSS_FILESYSTEM")
        .and_then(|v| gix::config::Boolean::try_from(v.as_encoded_bytes().as_bstr()).ok())
    {
        options.cross_fs = across.0;
    }
    options
}

/// Refuses the repository gix finds from `dir` in a directory git never searches: a ceiling of
/// `GIT_CEILING_DIRECTORIES` above `dir`. git does not go up into a ceiling directory (starting
/// in one is fine); gix searches the ceiling itself too. Not searched with `GIT_DIR` set.
///
/// # Errors
/// [`GitError::BeyondCeiling`], as git finds no repository there.
pub(super) fn refuse_beyond_ceiling(dir: &Path) -> Result<(), GitError> {
    let options = discovery_from_environment();
    if std::env::var_os("GIT_DIR").is_some() || options.ceiling_dirs.is_empty() {
        return Ok(());
    }
    let ceilings = options.ceiling_dirs.clone();
    let Ok((found, _)) = gix::discover::upwards_opts(dir, options) else { return Ok(()) };
    let searched = match found {
        gix::discover::repository::Path::WorkTree(dir)
        | gix::discover::repository::Path::LinkedWorkTree { work_dir: dir, .. }
        | gix::discover::repository::Path::Repository(dir) => dir,
    };
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let (start, searched) = (real(dir), real(&searched));
    match ceilings.iter().find(|c| real(c) == searched) {
        Some(ceiling) if start != searched => {
            Err(GitError::BeyondCeiling { path: start, ceiling: ceiling.clone() })
        }
        _ => Ok(()),
    }
}

/// How the repository is searched for upwards: git ignores ceiling directories that do not
/// contain the directory it starts from. gix adds the environment's (`GIT_CEILING_DIRECTORIES`,
/// `GIT_DISCOVERY_ACROSS_FILESYSTEM`) when it opens the repository; [`git_dir_of`] adds them
/// as gix adds them.
pub(super) fn discovery() -> gix::discover::upwards::Options<'static> {
    gix::discover::upwards::Options { match_ceiling_dir_or_error: false, ..Default::default() }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::exit::{Class, ExitClass as _};
    use crate::git::test_support::Fixture;
    use crate::git::{GitError, GitFile};

    /// `specs/x/tasks.md` converted into git's form, as `attest` converts it under the index lock.
    fn to_git(fixture: &Fixture) -> Result<Vec<u8>, GitError> {
        fixture.repo().lock_index()?.to_git_form("specs/x/tasks.md", b"- [ ] T001 a\n")
    }

    /// The attributes file a refusal names, and why, or the refusal's class is not configuration.
    #[track_caller]
    fn refused(result: Result<Vec<u8>, GitError>) -> (String, String) {
        let err = result.expect_err("the attributes file is refused");
        assert_eq!(err.class(), Class::Config, "{err}");
        match err {
            GitError::UnusableFile { path, file: GitFile::Attributes, reason } => {
                (path.to_string_lossy().into_owned(), reason)
            }
            other => panic!("{other}"),
        }
    }

    fn mkfifo(path: &Path) {
        assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
    }

    fn fixture() -> Fixture {
        let fixture = Fixture::new();
        fixture.commit_file("specs/x/tasks.md", "- [ ] T001 a\n", "init");
        fixture
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_a_device_or_a_long_attributes_file_is_refused_before_the_pipeline_reads_it() {
        let fixture = fixture();
        let in_unit = fixture.path().join("specs/.gitattributes");
        mkfifo(&in_unit);
        let (path, reason) = refused(to_git(&fixture));
        assert!(path.ends_with("specs/.gitattributes") && reason.contains("FIFO"), "{path}: {reason}");
        std::fs::remove_file(&in_unit).unwrap();

        let info = fixture.path().join(".git/info/attributes");
        std::fs::create_dir_all(info.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &info).unwrap();
        let (path, reason) = refused(to_git(&fixture));
        assert!(path.ends_with(".git/info/attributes") && reason.contains("device"), "{path}: {reason}");
        std::fs::remove_file(&info).unwrap();

        let configured = fixture.path().join("../attributes.fifo");
        mkfifo(&configured);
        fixture.git(&["config", "core.attributesFile", configured.to_str().unwrap()]);
        let (path, reason) = refused(to_git(&fixture));
        assert!(path.ends_with("attributes.fifo") && reason.contains("FIFO"), "{path}: {reason}");
        fixture.git(&["config", "--unset", "core.attributesFile"]);

        // `/dev/null`, the usual way to name no file, is read as the empty file it is.
        fixture.git(&["config", "core.attributesFile", "/dev/null"]);
        assert_eq!(to_git(&fixture).unwrap(), b"- [ ] T001 a\n");
        fixture.git(&["config", "--unset", "core.attributesFile"]);

        let top = fixture.path().join(".gitattributes");
        std::fs::File::create(&top).unwrap().set_len(crate::git::ATTRIBUTES_FILE_LIMIT + 1).unwrap();
        let (path, reason) = refused(to_git(&fixture));
        assert!(path.ends_with("/.gitattributes") && reason.contains("104857600 bytes"), "{path}: {reason}");
    }

    #[cfg(unix)]
    #[test]
    fn a_long_staged_attributes_file_the_work_tree_lacks_is_refused_and_a_linked_one_is_none() {
        let fixture = fixture();
        let mut long =
            b"*.md text\n".repeat(usize::try_from(crate::git::ATTRIBUTES_FILE_LIMIT / 10).unwrap());
        long.extend_from_slice(b"*.md text\n");
        fixture.commit_file("specs/.gitattributes", &long, "attributes");
        std::fs::remove_file(fixture.path().join("specs/.gitattributes")).unwrap();
        let (path, reason) = refused(to_git(&fixture));
        assert_eq!(path, "specs/.gitattributes");
        assert!(reason.starts_with("the staged blob") && reason.contains("104857600 bytes"), "{reason}");
        fixture.git(&["rm", "-q", "--cached", "specs/.gitattributes"]);

        // git reads no `.gitattributes` of the work tree through a link, and neither does gix.
        let fifo = fixture.path().join("../elsewhere.fifo");
        mkfifo(&fifo);
        std::os::unix::fs::symlink(&fifo, fixture.path().join("specs/x/.gitattributes")).unwrap();
        assert_eq!(to_git(&fixture).unwrap(), b"- [ ] T001 a\n");
    }
}
