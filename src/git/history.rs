//! History: walking commits, merge bases and ancestry.

use gix::ObjectId;
use gix::revision::walk::Sorting;
use gix::traverse::commit::simple::CommitTimeOrder;

use super::error::GitError;
use super::repo::Repo;

impl Repo {
    /// The commits reachable from `from` but from none of `stop_at`, following all parents,
    /// newest commit time first (like `git rev-list from ^stop...`).
    ///
    /// # Errors
    /// [`GitError::ObjectMissing`] or [`GitError::CorruptObject`] naming the first commit the walk
    /// needed and the repository lacks or cannot read (a shallow clone's missing parents are not
    /// needed), or another failure to read.
    pub fn walk(&self, from: ObjectId, stop_at: &[ObjectId]) -> Result<Vec<ObjectId>, GitError> {
        Ok(self.walk_at_most(from, stop_at, usize::MAX)?.unwrap_or_default())
    }

    /// The commits [`Repo::walk`] gives, when there are at most `most` of them; `None` when there
    /// are more, found without walking further than the first one beyond.
    ///
    /// # Errors
    /// As [`Repo::walk`].
    pub fn walk_at_most(
        &self,
        from: ObjectId,
        stop_at: &[ObjectId],
        most: usize,
    ) -> Result<Option<Vec<ObjectId>>, GitError> {
        self.walk_from_all(&[from], stop_at, most)
    }

    /// [`Repo::walk_at_most`] from each of the commits `from` at once.
    pub(super) fn walk_from_all(
        &self,
        from: &[ObjectId],
        stop_at: &[ObjectId],
        most: usize,
    ) -> Result<Option<Vec<ObjectId>>, GitError> {
        let action = || {
            format!(
                "walk the history of {}",
                from.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            )
        };
        let walk = self
            .inner
            .rev_walk(from.iter().copied())
            .sorting(Sorting::ByCommitTime(CommitTimeOrder::NewestFirst))
            .with_hidden(stop_at.iter().copied())
            .all()
            .map_err(|e| {
                self.unreadable_commit(from).unwrap_or_else(|| GitError::Gix { action: action(), source: e })
            })?;
        let mut walked = Vec::new();
        for info in walk {
            if walked.len() == most {
                return Ok(None);
            }
            match info {
                Ok(info) => walked.push(info.id),
                Err(e) => {
                    let unreadable = self.unreadable_commit(from).or_else(|| self.unreadable_parent(&walked));
                    return Err(unreadable.unwrap_or_else(|| GitError::Gix { action: action(), source: e }));
                }
            }
        }
        Ok(Some(walked))
    }

    /// Why the first of `ids` that cannot be read as a commit cannot: lacked
    /// ([`GitError::ObjectMissing`]) or damaged ([`GitError::CorruptObject`]), as
    /// [`Repo::commit`] tells them apart.
    fn unreadable_commit(&self, ids: &[ObjectId]) -> Option<GitError> {
        ids.iter().find_map(|id| self.commit(*id).err())
    }

    /// Why the first parent of the commits `walked` that cannot be read, and that a shallow
    /// clone does not explain, cannot: where a walk that failed stopped.
    fn unreadable_parent(&self, walked: &[ObjectId]) -> Option<GitError> {
        let boundary = self.shallow_boundary().unwrap_or_default();
        walked
            .iter()
            .filter(|id| boundary.binary_search(id).is_err())
            .find_map(|id| self.commit(*id).map_or_else(Some, |c| self.unreadable_commit(&c.parents)))
    }

    /// The best common ancestor of `a` and `b`, `None` when their histories are unrelated.
    ///
    /// # Errors
    /// As [`Repo::walk`]: a commit of either history the repository lacks or cannot read is
    /// named ([`GitError::ObjectMissing`], [`GitError::CorruptObject`]).
    pub fn merge_base(&self, a: ObjectId, b: ObjectId) -> Result<Option<ObjectId>, GitError> {
        match self.inner.merge_base(a, b) {
            Ok(base) => Ok(base.map(gix::Id::detach)),
            Err(e) => Err(self
                .unreadable_commit(&[a, b])
                .or_else(|| self.walk(a, &[]).and_then(|_| self.walk(b, &[])).err())
                .unwrap_or_else(|| GitError::Gix {
                    action: format!("find the merge base of {a} and {b}"),
                    source: e,
                })),
        }
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

#[cfg(test)]
mod tests {
    use crate::git::GitError;
    use crate::git::test_support::Fixture;

    #[test]
    fn a_walk_through_a_commit_the_repository_lacks_names_that_commit() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "one");
        let middle = fx.commit_file("a.txt", "b\n", "two");
        let head = fx.commit_file("a.txt", "c\n", "three");
        let hex = middle.to_string();
        std::fs::remove_file(fx.path().join(".git/objects").join(&hex[..2]).join(&hex[2..])).unwrap();
        let err = fx.repo().walk(head, &[]).unwrap_err();
        assert!(matches!(err, GitError::ObjectMissing { id, .. } if id == middle), "{err}");
        let err = fx.repo().walk(middle, &[]).unwrap_err();
        assert!(matches!(err, GitError::ObjectMissing { id, .. } if id == middle), "{err}");
    }

    #[test]
    fn a_walk_at_most_some_commits_gives_them_all_or_none_when_there_are_more() {
        let fx = Fixture::new();
        let first = fx.commit_file("a.txt", "a\n", "one");
        fx.commit_file("a.txt", "b\n", "two");
        let head = fx.commit_file("a.txt", "c\n", "three");
        let repo = fx.repo();
        assert_eq!(repo.walk_at_most(head, &[first], 2).unwrap().map(|w| w.len()), Some(2));
        assert_eq!(repo.walk_at_most(head, &[], 2).unwrap(), None);
        assert_eq!(repo.walk_at_most(head, &[], 3).unwrap(), Some(repo.walk(head, &[]).unwrap()));
    }
}
