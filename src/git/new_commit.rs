//! Creating commits: the object alone, or the object plus a compare-and-swap of a branch.

use gix::ObjectId;
use gix::refs::transaction::{LogChange, RefEdit, RefLog};

use super::error::{GitError, GixResultExt};
use super::identity::Role;
use super::refs::{full_name, one_line, previous};
use super::repo::Repo;

/// A commit made but not yet written, so that its bytes can be signed first (`commit.gpgsign`).
pub struct NewCommit(gix::objs::Commit);

impl NewCommit {
    /// The commit object's bytes as git stores them (without the `object` header): what
    /// `git commit -S` signs.
    #[must_use]
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing into a Vec cannot fail.
        let _ = gix::objs::WriteTo::write_to(&self.0, &mut out);
        out
    }
}

impl Repo {
    /// Write a commit object with `parents`, `tree` and `message` (stored byte for byte), author
    /// and committer as git would take them; no reference moves.
    pub fn create_commit_detached(
        &self,
        parents: &[ObjectId],
        tree: ObjectId,
        message: &str,
    ) -> Result<ObjectId, GitError> {
        let commit = self.new_commit(parents, tree, message)?;
        self.write_commit(commit, None)
    }

    /// A commit of `tree` with `parents` and `message`, author and committer as git would take
    /// them, not yet written ([`Repo::write_commit`]).
    pub fn new_commit(
        &self,
        parents: &[ObjectId],
        tree: ObjectId,
        message: &str,
    ) -> Result<NewCommit, GitError> {
        if !self.inner.has_object(tree) {
            return Err(GitError::ObjectMissing { id: tree });
        }
        Ok(NewCommit(gix::objs::Commit {
            tree,
            parents: parents.iter().copied().collect(),
            author: self.signature(Role::Author)?,
            committer: self.signature(Role::Committer)?,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        }))
    }

    /// Writes `commit`, with `gpgsig` (an armored signature over [`NewCommit::bytes`]) as its
    /// signature header when given, as `git commit -S` writes it; no reference moves.
    pub fn write_commit(&self, commit: NewCommit, gpgsig: Option<String>) -> Result<ObjectId, GitError> {
        let mut commit = commit.0;
        if let Some(signature) = gpgsig {
            commit.extra_headers.push(("gpgsig".into(), signature.into()));
        }
        self.inner.write_object(&commit).map(gix::Id::detach).during(|| "write a commit".into())
    }

    /// Commit `tree` with `message` on top of `expected_head` and move `branch_ref` to it, only if
    /// the branch still points at `expected_head` ([`GitError::RefMoved`] otherwise). The reflog of
    /// the branch (and of HEAD when it is checked out here) records `commit: <subject>`.
    pub fn create_commit_on_branch(
        &self,
        branch_ref: &str,
        expected_head: ObjectId,
        tree: ObjectId,
        message: &str,
    ) -> Result<ObjectId, GitError> {
        let found = self.ref_target(branch_ref)?;
        if found != Some(expected_head) {
            return Err(GitError::RefMoved {
                name: branch_ref.to_owned(),
                expected: Some(expected_head),
                found,
            });
        }
        let id = self.create_commit_detached(&[expected_head], tree, message)?;
        self.advance_branch(branch_ref, expected_head, id, message)?;
        Ok(id)
    }

    /// Move `branch_ref` from `expected_head` to the commit `new` (written already, with
    /// `message`) by compare-and-swap ([`GitError::RefMoved`] when it moved meanwhile). The reflog
    /// of the branch, and of HEAD when the branch is checked out here, records `commit: <subject>`.
    pub fn advance_branch(
        &self,
        branch_ref: &str,
        expected_head: ObjectId,
        new: ObjectId,
        message: &str,
    ) -> Result<(), GitError> {
        let edit = self.branch_edit(branch_ref, expected_head, new, message)?;
        self.apply_ref_edit(edit, branch_ref, Some(expected_head))
    }

    /// The edit of [`Repo::advance_branch`].
    pub(crate) fn branch_edit(
        &self,
        branch_ref: &str,
        expected_head: ObjectId,
        new: ObjectId,
        message: &str,
    ) -> Result<RefEdit, GitError> {
        let branch = full_name(branch_ref)?;
        let subject = message.lines().next().unwrap_or("");
        let log = LogChange {
            mode: RefLog::AndReference,
            force_create_reflog: false,
            message: one_line(&format!("commit: {subject}")).into(),
        };
        let checked_out_here =
            self.inner.head_name().during(|| "read HEAD".into())?.is_some_and(|name| name == branch);
        // Going through HEAD lets the transaction log the move in HEAD's reflog too, as git does.
        let name = if checked_out_here { full_name("HEAD")? } else { branch };
        Ok(RefEdit::update_with_log(name, new, previous(Some(expected_head)), log).with_deref(true))
    }
}
