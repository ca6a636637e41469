//! Which work tree of a repository holds a path: the main one or a linked one (`git worktree
//! add`), whichever the command runs in. What one work tree holds, the person or program working
//! in any other may see (a held-out store), and a file there may be shared through the repository
//! (a hooks directory).

use std::fs;
use std::path::{Component, Path, PathBuf};

use super::error::GitError;
use super::repo::Repo;

impl Repo {
    /// The innermost work tree of the repository that holds `path` ([`resolve_path`]), if any
    /// (a linked one may lie inside another), among all of them ([`Repo::work_trees`]). A work
    /// tree's own `.git` directory is no part of what its user sees, so a path below it is not
    /// held; a git directory inside the work tree under another name (`git init
    /// --separate-git-dir=<work tree>/meta`) is, as `git status` lists it there.
    ///
    /// # Errors
    /// The work trees cannot be listed.
    pub fn work_tree_holding(&self, path: &Path) -> Result<Option<PathBuf>, GitError> {
        let path = resolve_path(path);
        let git_dirs = [resolve_path(self.common_dir()), resolve_path(self.git_dir())];
        let below_dot_git = |workdir: &Path| {
            git_dirs.iter().any(|d| {
                let first = d.strip_prefix(workdir).ok().and_then(|rest| rest.components().next());
                first == Some(Component::Normal(".git".as_ref())) && path.starts_with(d)
            })
        };
        Ok(self
            .work_trees()?
            .iter()
            .map(|workdir| resolve_path(workdir))
            .filter(|workdir| path.starts_with(workdir) && !below_dot_git(workdir))
            .max_by_key(|workdir| workdir.components().count()))
    }
}

/// `path` made absolute, `.` and `..` resolved, links resolved as far as the path exists.
#[must_use]
pub fn resolve_path(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut lexical = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.clone();
    let mut rest = Vec::new();
    while fs::symlink_metadata(&existing).is_err() {
        match (existing.file_name().map(ToOwned::to_owned), existing.parent().map(Path::to_owned)) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return lexical,
        }
    }
    let mut out = fs::canonicalize(&existing).unwrap_or(existing);
    out.extend(rest.iter().rev());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_resolves_dots_and_keeps_what_does_not_exist_yet() {
        let dir = tempfile::tempdir().unwrap();
        let real = fs::canonicalize(dir.path()).unwrap();
        assert_eq!(resolve_path(&dir.path().join("a/../b/./c")), real.join("b/c"));
    }
}
