//! The lock that lets one `speccoder attest fetch` or `attest push` of a repository run at a time.

use super::error::GitError;
use super::lock_wait::take_waiting;
use super::repo::Repo;

/// The file in the repository's common git directory whose lock file, `speccoder-fetch.lock`, a
/// fetch or push holds; the file itself is never written.
const FETCH_RESOURCE: &str = "speccoder-fetch";

/// `speccoder-fetch.lock` in the repository's common git directory, ours while this lives. A
/// fetch stages the remote's references in one namespace and moves the remote-tracking copies
/// they are merged against, and a push moves those copies too (and fetches when the remote
/// moved): two at once would read each other's half-done work as deletions on the remote. It is
/// removed when dropped, and when an interrupt or a hangup ends the command
/// ([`super::remove_locks_on_interrupt`]); only a kill that cannot be caught leaves it.
#[must_use = "the lock is held only while this lives"]
#[derive(Debug)]
pub struct FetchLock {
    /// The lock file, removed when this is dropped.
    _held: gix::lock::Marker,
}

impl Repo {
    /// Takes the fetch lock ([`FetchLock`]), waiting a few seconds for another fetch or push to
    /// finish, as for the index.
    ///
    /// # Errors
    /// [`GitError::FetchLocked`] when it stays taken (a run that holds it, or a killed run that
    /// left it), or the lock file cannot be made.
    pub fn lock_fetch(&self) -> Result<FetchLock, GitError> {
        let resource = self.common_dir().join(FETCH_RESOURCE);
        let taken = take_waiting(|| {
            gix::lock::Marker::acquire_to_hold_resource(
                &resource,
                gix::lock::acquire::Fail::Immediately,
                None,
                0,
            )
        });
        let lock = || {
            let lock = resource.with_extension("lock");
            std::path::absolute(&lock).unwrap_or(lock)
        };
        match taken {
            Ok(Some(marker)) => Ok(FetchLock { _held: marker }),
            Ok(None) => Err(GitError::FetchLocked { lock: lock() }),
            Err(source) => {
                let lock = lock();
                Err(GitError::gix(format!("take the lock {}", lock.display()), source, Some(&lock)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::git::GitError;
    use crate::git::test_support::Fixture;

    #[test]
    fn a_second_fetch_waits_for_the_lock_then_gives_up_naming_it_and_dropping_it_removes_it() {
        let fx = Fixture::new();
        let held = fx.repo().lock_fetch().unwrap();
        let lock = fx.path().join(".git/speccoder-fetch.lock");
        assert!(lock.exists());
        match fx.repo().lock_fetch() {
            Err(GitError::FetchLocked { lock: named }) => {
                assert_eq!(named.canonicalize().unwrap(), lock.canonicalize().unwrap());
            }
            other => panic!("expected the lock to be refused, got {other:?}"),
        }
        drop(held);
        assert!(!lock.exists(), "dropping the lock removes it");
        drop(fx.repo().lock_fetch().unwrap());
    }

    #[test]
    fn a_lock_a_killed_fetch_left_is_named_with_its_remedy() {
        let fx = Fixture::new();
        let lock = fx.path().join(".git/speccoder-fetch.lock");
        std::fs::write(&lock, b"").unwrap();
        let err = fx.repo().lock_fetch().expect_err("the lock is taken");
        let shown = err.to_string();
        assert!(shown.contains("If no such command is running"), "{shown}");
        assert!(
            shown.contains(&format!("remove {}", std::path::absolute(&lock).unwrap().display())),
            "{shown}"
        );
        assert_eq!(crate::exit::ExitClass::class(&err), crate::exit::Class::GitPrecondition);
        assert!(lock.exists(), "a lock that is not ours is left");
    }
}
