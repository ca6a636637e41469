//! Another user's repository, as git judges it: who owns its work tree and git directory, and
//! whether `safe.directory` lets a command work in it.
//!
//! git reads `safe.directory` from protected configuration only: the system's, the user's and
//! the command's ([`CommandScope`]), in that order, never the repository's own. gix judges the
//! system's and the user's entries itself (and ignores the repository's); the command's, which
//! gix does not read for it, are judged here, over what gix judges: an entry there that names
//! the repository opens it, and an empty one drops every entry before it.

use std::path::{Path, PathBuf};

use gix::bstr::{BStr, BString, ByteSlice as _};

use super::command_config::CommandScope;
use super::error::GitError;

/// What the command's `safe.directory` entries say of the repository a command opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CommandTrust {
    /// One names it (or every directory): it opens whoever owns it, its own configuration read
    /// as a repository of this user's is.
    Trusted,
    /// None speaks of it: the system's and the user's entries decide, as gix judges them.
    Undecided,
}

/// The git directory and work tree git uses from `dir`: `GIT_DIR` and `GIT_WORK_TREE` when
/// `GIT_DIR` is set, else the ones found searching upwards; `None` when none is found.
pub(super) fn found(dir: &Path) -> Option<(PathBuf, Option<PathBuf>)> {
    match std::env::var_os("GIT_DIR").filter(|v| !v.is_empty()) {
        Some(git_dir) => Some((PathBuf::from(git_dir), std::env::var_os("GIT_WORK_TREE").map(PathBuf::from))),
        None => Some(gix::discover::upwards(dir).ok()?.0.into_repository_and_work_tree_directories()),
    }
}

/// The path git names (and `safe.directory` must list) when the work tree or git directory is
/// not owned by the current user, as gix judges ownership (`SUDO_UID` included): the work tree,
/// or the git directory of a bare repository, resolved as git resolves it.
pub(super) fn owned_by_another_user(git_dir: &Path, work_tree: Option<&Path>) -> Option<PathBuf> {
    let foreign = |path: &Path| !gix::sec::identity::is_path_owned_by_current_user(path).unwrap_or(true);
    if !foreign(git_dir) && !work_tree.is_some_and(foreign) {
        return None;
    }
    Some(checked_path(git_dir, work_tree))
}

/// The path `safe.directory` is compared with: the work tree, or the git directory of a bare
/// repository, resolved as git resolves it.
fn checked_path(git_dir: &Path, work_tree: Option<&Path>) -> PathBuf {
    let path = work_tree.unwrap_or(git_dir);
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// What the command's `safe.directory` entries say of the repository a command opens from `dir`.
///
/// # Errors
/// [`GitError::DubiousOwnership`]: the repository is another user's, and the command's entries
/// drop every entry before them (an empty one) without naming it after, so git refuses it.
pub(super) fn command_trust(dir: &Path, scope: &CommandScope) -> Result<CommandTrust, GitError> {
    let entries = scope.safe_directories();
    if entries.is_empty() {
        return Ok(CommandTrust::Undecided);
    }
    let Some((git_dir, work_tree)) = found(dir) else { return Ok(CommandTrust::Undecided) };
    match verdict(&entries, &checked_path(&git_dir, work_tree.as_deref())) {
        Some(true) => Ok(CommandTrust::Trusted),
        None => Ok(CommandTrust::Undecided),
        Some(false) => match owned_by_another_user(&git_dir, work_tree.as_deref()) {
            Some(path) => Err(GitError::DubiousOwnership { path }),
            None => Ok(CommandTrust::Undecided),
        },
    }
}

/// What `entries`, read after the system's and the user's, say of the repository at `path`
/// (resolved): `Some(true)` when one after the last empty entry names it, `Some(false)` when an
/// empty entry drops the others and none after it names it, `None` when they say nothing.
fn verdict(entries: &[BString], path: &Path) -> Option<bool> {
    let last_empty = entries.iter().rposition(|entry| entry.is_empty());
    let after = &entries[last_empty.map_or(0, |at| at + 1)..];
    if after.iter().any(|entry| names(entry.as_bstr(), path)) {
        return Some(true);
    }
    last_empty.map(|_| false)
}

/// Whether the entry names the repository at `path`, as git reads an entry: `*` names every one;
/// `~/` and `~user/` are expanded (`%(prefix)/` is not, and names none); a relative path other
/// than `.` (the current directory) names none; `<dir>/*` names every one below `<dir>`; any
/// other names the one at its resolved path. A path that does not resolve names none.
fn names(entry: &BStr, path: &Path) -> bool {
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
    if !allowed.is_absolute() && allowed.as_os_str() != "." {
        return false;
    }
    let resolved = |p: &Path| std::fs::canonicalize(p).ok();
    if allowed.file_name().is_some_and(|name| name == "*") {
        let dir = allowed.parent().and_then(resolved);
        return dir.is_some_and(|dir| path != dir && path.starts_with(dir));
    }
    resolved(&allowed).is_some_and(|allowed| allowed == path)
}

#[cfg(test)]
mod tests {
    use super::verdict;
    use gix::bstr::BString;

    #[test]
    fn the_command_s_entries_name_a_repository_drop_those_before_an_empty_one_or_say_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        let repo = top.join("repo");
        std::fs::create_dir(&repo).unwrap();
        std::os::unix::fs::symlink(&repo, top.join("link")).unwrap();
        let at = |p: &str| p.replace("TOP", top.to_str().unwrap());
        let cases: [(&[&str], Option<bool>); 12] = [
            (&[], None),
            (&["TOP/other"], None),
            (&["TOP/repo"], Some(true)),
            (&["TOP/link"], Some(true)),
            (&["TOP/*"], Some(true)),
            (&["TOP/repo/*"], None),
            (&["TOP/rep*"], None),
            (&["repo"], None),
            (&["TOP/repo", ""], Some(false)),
            (&["", "*"], Some(true)),
            (&["*", "", "TOP/other"], Some(false)),
            (&["/*"], Some(true)),
        ];
        for (entries, says) in cases {
            let entries: Vec<BString> = entries.iter().map(|e| at(e).into()).collect();
            assert_eq!(verdict(&entries, &repo), says, "{entries:?}");
        }
    }
}
