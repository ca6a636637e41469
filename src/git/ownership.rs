//! Another user's repository, as git judges it: who owns its work tree and git directory, and
//! whether `safe.directory` lets a command work in it. The one judgement of it: gix is given only
//! a repository this lets through, and told to trust it fully ([`Repo::discover_to_read`]).
//!
//! git reads `safe.directory` before it knows the repository, from protected configuration only:
//! the system's and the user's files, each with the files it includes (`include.path`; a
//! conditional include never matches there), then the command's ([`CommandScope`]), in that
//! order, never the repository's own. Each entry is compared as git compares it, byte for byte
//! after git resolves it ([`real_path`]).
//!
//! [`Repo::discover_to_read`]: super::Repo::discover_to_read

use std::path::{Path, PathBuf};

use gix::bstr::{BStr, BString, ByteSlice as _};

use super::command_config::CommandScope;
use super::error::GitError;

/// The key git reads.
const KEY: &str = "safe.directory";

/// The git directory and work tree git uses from `dir`: `GIT_DIR` and `GIT_WORK_TREE` when
/// `GIT_DIR` is set, else the ones found searching upwards; `None` when none is found.
pub(super) fn found(dir: &Path) -> Option<(PathBuf, Option<PathBuf>)> {
    match std::env::var_os("GIT_DIR").filter(|v| !v.is_empty()) {
        Some(git_dir) => Some((PathBuf::from(git_dir), std::env::var_os("GIT_WORK_TREE").map(PathBuf::from))),
        None => Some(gix::discover::upwards(dir).ok()?.0.into_repository_and_work_tree_directories()),
    }
}

/// Refuses the repository a command opens from `dir` when git refuses it ("detected dubious
/// ownership"): its work tree or git directory is not owned by the current user, as gix judges
/// ownership (`SUDO_UID` included), and no protected `safe.directory` entry after the last empty
/// one names it. No repository found is left to gix to say so.
///
/// # Errors
/// [`GitError::DubiousOwnership`] naming the path `safe.directory` must list; [`GitError::Open`]
/// when the system's or the user's configuration cannot be read.
pub(super) fn refuse_dubious(dir: &Path, scope: &CommandScope) -> Result<(), GitError> {
    let Some((git_dir, work_tree)) = found(dir) else { return Ok(()) };
    let foreign = |path: &Path| !gix::sec::identity::is_path_owned_by_current_user(path).unwrap_or(true);
    if !foreign(&git_dir) && !work_tree.as_deref().is_some_and(foreign) {
        return Ok(());
    }
    let path = work_tree.as_deref().unwrap_or(&git_dir);
    let entries =
        protected_entries(scope).map_err(|reason| GitError::Open { git_dir: git_dir.clone(), reason })?;
    match gix::path::into_bstr(path).ok().and_then(|path| real_path(&path)) {
        Some(resolved) if named(&entries, &resolved) => Ok(()),
        _ => Err(GitError::DubiousOwnership {
            path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned()),
        }),
    }
}

/// Every `safe.directory` entry of protected configuration, in the order git reads them: the
/// system's and the user's files with what they include, never by a condition, then the
/// command's. An entry without a value reads as empty, as git takes it.
fn protected_entries(scope: &CommandScope) -> Result<Vec<BString>, String> {
    let files = gix::config::File::from_globals().map_err(|e| {
        format!(
            "the system's or the user's git configuration cannot be read: {}",
            crate::model::shown::with_causes(&e)
        )
    })?;
    let mut entries = files.strings(KEY).unwrap_or_default();
    entries.extend(scope.safe_directories());
    Ok(entries)
}

/// Whether `entries` let git work in the repository at `path` (resolved by [`real_path`]): one
/// after the last empty entry (which drops those before it) names it.
fn named(entries: &[BString], path: &[u8]) -> bool {
    let after_last_empty = entries.iter().rposition(|entry| entry.is_empty()).map_or(0, |at| at + 1);
    entries[after_last_empty..].iter().any(|entry| names(entry.as_bstr(), path))
}

/// Whether the entry names the repository at `path` (resolved), as git reads an entry: `*` names
/// every one; `~/` and `~user/` are expanded (`%(prefix)/` is not, and names none); a relative
/// path other than `.` (the current directory) names none. The rest is resolved by [`real_path`]
/// (an entry that does not resolve names none) and compared byte for byte: one ending in `/*`
/// names every path that starts with what comes before its `*`, any other the one it is.
fn names(entry: &BStr, path: &[u8]) -> bool {
    if entry == "*" {
        return true;
    }
    let home = gix::path::env::home_dir();
    let context = gix::config::path::interpolate::Context {
        git_install_dir: None,
        home_dir: home.as_deref(),
        home_for_user: Some(gix::config::path::interpolate::home_for_user),
    };
    let Ok(allowed) = gix::config::Path::from(std::borrow::Cow::Borrowed(entry)).interpolate(context) else {
        return false;
    };
    let Ok(allowed) = gix::path::into_bstr(allowed) else { return false };
    if !allowed.starts_with(b"/") && allowed.as_bytes() != b"." {
        return false;
    }
    let Some(resolved) = real_path(&allowed) else { return false };
    match resolved.strip_suffix(b"*") {
        Some(dir) if dir.ends_with(b"/") => path.starts_with(dir),
        _ => path == resolved.as_slice(),
    }
}

/// How many symbolic links git follows in resolving one path (`MAXSYMLINKS`, Linux's).
const MAX_LINKS: usize = 20;

/// `path` resolved as git resolves a path it compares with `safe.directory` (`real_pathdup`):
/// from the current directory when relative, component by component, empty ones and `.`
/// skipped, `..` dropping the last one resolved, each symbolic link followed. Only the last
/// component may be missing, and then nothing may follow it, not even a `/`: `<dir>/*/` and
/// `<dir>/missing/../repo` resolve to nothing. `None` where git's resolution fails.
fn real_path(path: &[u8]) -> Option<Vec<u8>> {
    if path.is_empty() {
        return None;
    }
    let mut resolved = if path.starts_with(b"/") {
        b"/".to_vec()
    } else {
        gix::path::into_bstr(std::env::current_dir().ok()?).ok()?.to_vec()
    };
    let mut remaining = path.to_vec();
    let mut links = 0;
    while !remaining.is_empty() {
        let next = next_component(&mut remaining);
        match next.as_slice() {
            b"" | b"." => continue,
            b".." => {
                strip_last_component(&mut resolved);
                continue;
            }
            _ => {}
        }
        if resolved.last() != Some(&b'/') {
            resolved.push(b'/');
        }
        resolved.extend_from_slice(&next);
        let at = gix::path::from_byte_slice(&resolved).ok()?;
        let target = match std::fs::symlink_metadata(at) {
            Ok(meta) if meta.file_type().is_symlink() => std::fs::read_link(at).ok()?,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && remaining.is_empty() => continue,
            Err(_) => return None,
        };
        if links > MAX_LINKS {
            return None;
        }
        links += 1;
        follow(&gix::path::into_bstr(target).ok()?, &mut resolved, &mut remaining);
    }
    Some(resolved)
}

/// Follows the link just resolved, to `target`, as git follows it: an absolute target starts
/// again from the root, a relative one from the link's directory, and what was left to resolve
/// is resolved after the target.
fn follow(target: &[u8], resolved: &mut Vec<u8>, remaining: &mut Vec<u8>) {
    if target.starts_with(b"/") {
        *resolved = b"/".to_vec();
    } else {
        strip_last_component(resolved);
    }
    let mut next = target.to_vec();
    if !remaining.is_empty() {
        next.push(b'/');
        next.extend_from_slice(remaining);
    }
    *remaining = next;
}

/// Takes the next component off `remaining` (the separators before it skipped), leaving what
/// follows it, starting at its separator.
fn next_component(remaining: &mut Vec<u8>) -> Vec<u8> {
    let start = remaining.iter().position(|&b| b != b'/').unwrap_or(remaining.len());
    let end = remaining[start..].iter().position(|&b| b == b'/').map_or(remaining.len(), |at| start + at);
    let next = remaining[start..end].to_vec();
    remaining.drain(..end);
    next
}

/// Drops the last component of the resolved path `path`, and the separators before it; the root
/// stays.
fn strip_last_component(path: &mut Vec<u8>) {
    let mut len = path.len();
    while len > 1 && path[len - 1] != b'/' {
        len -= 1;
    }
    while len > 1 && path[len - 1] == b'/' {
        len -= 1;
    }
    path.truncate(len);
}

#[cfg(test)]
mod tests {
    use super::{named, real_path};
    use gix::bstr::BString;
    use std::path::Path;

    /// Whether git works in the repository at `repo` with `entries` as the command's
    /// `safe.directory`, run from `repo` with nothing else configured and the repository taken
    /// for another user's (`GIT_TEST_ASSUME_DIFFERENT_OWNER`, which git reads for its own tests).
    fn git_works_in(repo: &Path, home: &Path, entries: &[String]) -> bool {
        let mut cmd = std::process::Command::new("git");
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
            .current_dir(repo);
        for entry in entries {
            cmd.arg("-c").arg(format!("safe.directory={entry}"));
        }
        cmd.args(["rev-parse", "--git-dir"]).output().unwrap().status.success()
    }

    #[test]
    fn an_entry_names_the_repository_exactly_where_git_s_entry_does() {
        let tmp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        let repo = top.join("top/repo");
        std::fs::create_dir_all(&repo).unwrap();
        let git = |args: &[&str]| std::process::Command::new("git").args(args).current_dir(&repo).output();
        assert!(git(&["init", "-q"]).unwrap().status.success());
        std::os::unix::fs::symlink(&repo, top.join("link")).unwrap();
        std::os::unix::fs::symlink(top.join("top"), top.join("uplink")).unwrap();
        let at = |p: &str| p.replace("TOP", top.to_str().unwrap());
        let cases: &[(&[&str], bool)] = &[
            (&[], false),
            (&["TOP/top/other"], false),
            (&["TOP/top/repo"], true),
            (&["TOP/top/repo/"], true),
            (&["TOP/top/repo/."], true),
            (&["TOP/top//repo"], true),
            (&["TOP/link"], true),
            (&["TOP/top/*"], true),
            (&["TOP/uplink/*"], true),
            (&["TOP/*"], true),
            (&["/*"], true),
            (&["*"], true),
            // git resolves `..` after the component before it, a file's too.
            (&["TOP/top/file/../repo"], true),
            // A `*` followed by anything is no pattern, and `<dir>/*` names what is below only.
            (&["TOP/top/*/"], false),
            (&["TOP/top/*/."], false),
            (&["TOP/top/*//"], false),
            (&["TOP/top/repo/*"], false),
            (&["TOP/top/rep*"], false),
            (&["TOP/link/*"], false),
            // A missing directory before `..` resolves to nothing, as in git.
            (&["TOP/top/missing/../repo"], false),
            (&["TOP/top/missing/.."], false),
            (&["repo"], false),
            (&["./"], false),
            (&["TOP/top/repo", ""], false),
            (&["", "*"], true),
            (&["*", "", "TOP/top/other"], false),
        ];
        std::fs::write(top.join("top/file"), "").unwrap();
        let resolved = real_path(repo.to_str().unwrap().as_bytes()).unwrap();
        assert_eq!(resolved, repo.to_str().unwrap().as_bytes());
        for (entries, says) in cases {
            let entries: Vec<String> = entries.iter().map(|e| at(e)).collect();
            let ours: Vec<BString> = entries.iter().map(|e| e.as_str().into()).collect();
            assert_eq!(git_works_in(&repo, &top, &entries), *says, "git: {entries:?}");
            assert_eq!(named(&ours, &resolved), *says, "ours: {entries:?}");
        }
        // `.` names the current directory: the repository's top, not a directory below it.
        std::fs::create_dir(repo.join("sub")).unwrap();
        assert!(git_works_in(&repo, &top, &[".".into()]));
        assert!(!git_works_in(&repo.join("sub"), &top, &[".".into()]));
        let here = real_path(b".").unwrap();
        assert!(named(&[".".into()], &here) && !named(&[".".into()], &resolved));
    }

    #[test]
    fn a_path_resolves_as_git_resolves_it_through_links_and_never_past_a_missing_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir(top.join("d")).unwrap();
        std::os::unix::fs::symlink("d", top.join("rel")).unwrap();
        std::os::unix::fs::symlink(top.join("nowhere/x"), top.join("dangling")).unwrap();
        let t = top.to_str().unwrap();
        let real = |p: &str| real_path(p.replace("TOP", t).as_bytes()).map(|r| String::from_utf8(r).unwrap());
        assert_eq!(real("TOP/rel/x").as_deref(), Some(format!("{t}/d/x").as_str()));
        assert_eq!(real("TOP/rel/../d").as_deref(), Some(format!("{t}/d").as_str()));
        assert_eq!(real("TOP/d/missing").as_deref(), Some(format!("{t}/d/missing").as_str()));
        assert_eq!(real("TOP/d/missing/"), None);
        assert_eq!(real("TOP/dangling"), None);
        assert_eq!(real("/").as_deref(), Some("/"));
        assert_eq!(real("/.."), Some("/".into()));
        assert_eq!(real(""), None);
    }
}
