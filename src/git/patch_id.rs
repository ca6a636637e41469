//! The identity of a change across rebase, amend and cherry-pick: `git patch-id --stable` of the
//! change a commit makes to its parent.

use std::process::Stdio;

use gix::ObjectId;

use super::error::GitError;
use super::repo::Repo;

impl Repo {
    /// `git patch-id --stable` of the change `commit` makes against `parent` (`None`: a root
    /// commit, against the empty tree), over a diff without context lines (`-U0`), so that a
    /// neighbouring line changed by someone else (another task ticked next to this one) does not
    /// make the same change look different; binary changes count by their full content. `None`
    /// when the commits' trees are equal (an empty change has no patch id).
    ///
    /// # Errors
    /// git cannot run, or fails (an object it needs is missing and cannot be fetched).
    pub fn patch_id(&self, commit: ObjectId, parent: Option<ObjectId>) -> Result<Option<String>, GitError> {
        let action = format!("computing the patch id of {commit}");
        let from = parent.map_or_else(|| self.empty_tree_id().to_string(), |p| p.to_string());
        let cannot_run = |e: std::io::Error| GitError::GitCommand {
            action: action.clone(),
            status: None,
            stderr: format!("the git program could not be run ({e}); install git and put it on PATH"),
        };
        let mut diff = self
            .git_command(&["diff-tree", "-p", "-U0", "--binary", "--no-color", &from, &commit.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(cannot_run)?;
        let diff_out = diff.stdout.take().map_or_else(Stdio::null, Stdio::from);
        let ids = self
            .git_command(&["patch-id", "--stable"])
            .stdin(diff_out)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(cannot_run);
        let diff_status = diff.wait().map_err(cannot_run)?;
        let ids = ids?;
        if !diff_status.success() {
            return Err(GitError::GitCommand {
                action,
                status: diff_status.code(),
                stderr: format!("`git diff-tree {from} {commit}` failed"),
            });
        }
        if !ids.status.success() {
            return Err(GitError::GitCommand {
                action,
                status: ids.status.code(),
                stderr: String::from_utf8_lossy(&ids.stderr).trim().to_owned(),
            });
        }
        // `<patch id> <commit id>`, or nothing for an empty change.
        Ok(String::from_utf8_lossy(&ids.stdout).split_whitespace().next().map(str::to_owned))
    }
}
