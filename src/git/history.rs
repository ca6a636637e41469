//! History: walking commits, merge bases and ancestry.

use gix::ObjectId;
use gix::revision::walk::Sorting;
use gix::traverse::commit::simple::CommitTimeOrder;

use super::error::{GitError, GixResultExt};
use super::repo::Repo;

impl Repo {
    /// The commits reachable from `from` but from none of `stop_at`, following all parents,
    /// newest commit time first (like `git rev-list from ^stop...`).
    pub fn walk(&self, from: ObjectId, stop_at: &[ObjectId]) -> Result<Vec<ObjectId>, GitError> {
        let action = || format!("walk the history of {from}");
        let walk = self
            .inner
            .rev_walk([from])
            .sorting(Sorting::ByCommitTime(CommitTimeOrder::NewestFirst))
            .with_hidden(stop_at.iter().copied())
            .all()
            .during(action)?;
        walk.map(|info| info.map(|info| info.id).during(action)).collect()
    }

    /// The best common ancestor of `a` and `b`, `None` when their histories are unrelated.
    pub fn merge_base(&self, a: ObjectId, b: ObjectId) -> Result<Option<ObjectId>, GitError> {
        self.inner
            .merge_base(a, b)
            .map(|base| base.map(gix::Id::detach))
            .during(|| format!("find the merge base of {a} and {b}"))
    }

    /// Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor).
    pub fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> Result<bool, GitError> {
        if ancestor == descendant {
            return Ok(true);
        }
        Ok(self.merge_base(ancestor, descendant)? == Some(ancestor))
    }

    /// The first parent of commit `id`, `None` for a root commit.
    pub fn first_parent(&self, id: ObjectId) -> Result<Option<ObjectId>, GitError> {
        Ok(self.commit(id)?.parents.first().copied())
    }
}
