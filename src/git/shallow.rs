//! Shallow clones: the commits whose parents this clone does not have, and the history a command
//! needs beyond them.

use gix::ObjectId;

use super::error::GitError;
use super::repo::Repo;

impl Repo {
    /// The commits at the shallow boundary (listed in `shallow` in the git directory: their
    /// parents were not fetched), sorted; empty for a clone with its whole history.
    pub fn shallow_boundary(&self) -> Result<Vec<ObjectId>, GitError> {
        let commits = self.inner.shallow_commits().map_err(|source| GitError::Gix {
            action: "read the shallow boundary (`shallow` in the git directory)".into(),
            source,
        })?;
        let mut ids: Vec<ObjectId> = commits.map(|c| c.iter().copied().collect()).unwrap_or_default();
        ids.sort();
        Ok(ids)
    }
}
