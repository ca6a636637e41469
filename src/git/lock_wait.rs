//! How a writer waits for git's lock files: for how long, with which pauses, and how it tells a
//! lock another writer keeps taking from one a stopped command left behind. The index, the
//! references and the fetch lock wait the same way.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use super::error::GitError;

/// How long to wait for another process's lock before giving up: the index's `index.lock`, and a
/// reference's lock file that nobody changes meanwhile ([`super::refs`]).
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(5);

/// One lock file seen in the way of an update, to tell a lock that other writers keep taking
/// and releasing (each time a new file) from one that nobody changes: a command stopped while it
/// held it left it behind, and waiting longer cannot help. A lock counts as the same while its
/// path and modification time stay the same.
#[derive(Debug, Default)]
pub(crate) struct StuckLock {
    seen: Option<(PathBuf, Option<SystemTime>, Instant)>,
}

impl StuckLock {
    /// Whether the lock `err` names ([`GitError::RefLocked`]) has been the same file for
    /// [`LOCK_WAIT`], as long as the index lock of another command is waited for.
    pub(crate) fn left_behind(&mut self, err: &GitError) -> bool {
        let GitError::RefLocked { lock, .. } = err else { return false };
        let modified = std::fs::metadata(lock).and_then(|m| m.modified()).ok();
        match &self.seen {
            Some((path, at, since)) if path == lock && *at == modified => since.elapsed() >= LOCK_WAIT,
            _ => {
                self.seen = Some((lock.clone(), modified, Instant::now()));
                false
            }
        }
    }
}

/// A lock file taken as git takes it, by `try_once` (one of gix's lock acquisitions, failing at
/// once when the lock is taken), tried again after each of gix's lock waits ([`Backoff`], as for a
/// reference) for [`LOCK_WAIT`]. Each try runs with the interrupts held ([`super::HeldSignals`]):
/// one delivered while gix creates the lock file, before it registers it for removal, would leave
/// it behind. Between tries an interrupt ends the command at once. `None`: it stayed taken.
///
/// # Errors
/// The lock file cannot be made.
pub(super) fn take_waiting<T>(
    mut try_once: impl FnMut() -> Result<T, gix::Error>,
) -> Result<Option<T>, gix::Error> {
    let started = Instant::now();
    let mut backoff = Backoff::new();
    loop {
        let tried = {
            let _held = super::HeldSignals::hold();
            try_once()
        };
        match tried {
            Ok(lock) => return Ok(Some(lock)),
            Err(source) if source.is_retryable() && started.elapsed() < LOCK_WAIT => backoff.wait(),
            Err(source) if source.is_retryable() => return Ok(None),
            Err(source) => return Err(source),
        }
    }
}

/// The waits between attempts to move a reference: gix's quadratic backoff with jitter, the one
/// its lock files wait with (longer after each attempt, and spread so that writers racing for one
/// reference fall out of step).
pub(super) struct Backoff(gix::lock::backoff::Quadratic<fn(usize) -> usize>);

impl Backoff {
    /// Waits from the first, shortest step on.
    pub(super) fn new() -> Self {
        Backoff(gix::lock::backoff::Quadratic::default_with_random())
    }

    /// Waits the next step before another attempt.
    pub(super) fn wait(&mut self) {
        if let Some(step) = self.0.next() {
            std::thread::sleep(step);
        }
    }
}
