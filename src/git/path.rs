//! Repository-relative paths: `/`-separated, no empty, `.` or `..` components, never into `.git`.

use super::error::GitError;

/// Split a repository-relative path into its components, refusing anything that could escape the
/// tree or touch git's own directory. `""` (the root) yields no components.
pub(crate) fn components(path: &str) -> Result<Vec<&str>, GitError> {
    let refuse = |reason| GitError::InvalidPath { path: path.to_owned(), reason };
    if path.is_empty() {
        return Ok(Vec::new());
    }
    if path.starts_with('/') {
        return Err(refuse("it must be relative to the repository root"));
    }
    if path.contains('\0') {
        return Err(refuse("it contains a NUL byte"));
    }
    if path.contains('\\') {
        return Err(refuse("it must use `/` as separator"));
    }
    let trimmed = path.strip_suffix('/').unwrap_or(path);
    let parts: Vec<&str> = trimmed.split('/').collect();
    for part in &parts {
        match *part {
            "" => return Err(refuse("it has an empty component")),
            "." | ".." => return Err(refuse("it has a `.` or `..` component")),
            p if p.eq_ignore_ascii_case(".git") => return Err(refuse("it points into `.git`")),
            _ => {}
        }
    }
    Ok(parts)
}

/// Whether `path` names a file a tree can hold: [`file_path`] takes it.
#[must_use]
pub fn is_tree_path(path: &str) -> bool {
    file_path(path).is_ok()
}

/// Validate a path that must name a file (at least one component), returning it normalised.
pub(crate) fn file_path(path: &str) -> Result<String, GitError> {
    let parts = components(path)?;
    if parts.is_empty() || path.ends_with('/') {
        return Err(GitError::InvalidPath { path: path.to_owned(), reason: "it does not name a file" });
    }
    Ok(parts.join("/"))
}
