//! What an interrupt (SIGINT, SIGTERM, SIGQUIT) does to the lock files a command holds, and the
//! few writes during which it waits.
//!
//! gix removes every lock file it registered when such a signal arrives, then ends the process
//! as the signal would have ([`remove_locks_on_interrupt`]). That is right before a command has
//! changed anything, and wrong in two places. Once it has moved a branch: `index.lock` removed,
//! the index still without the tick, and the next `git commit` would take the tick back. And while
//! gix creates a lock file, which it registers for removal only once it is created: a signal in
//! between leaves the lock behind. [`HeldSignals`] keeps the signals pending on the writing thread
//! around both: each reference transaction and the taking of the index lock, and a tick's
//! reference update until its index is written.

/// Has gix remove its lock files (`index.lock`, a reference's `.lock`) when the process is
/// interrupted (SIGINT, SIGTERM, SIGQUIT), then end as the signal would have, as git does: a
/// Ctrl-C while a signer waits for a passphrase or a touch must not leave every git command
/// blocked. Call it once, before any lock is taken.
pub fn remove_locks_on_interrupt() {
    gix::tempfile::signal::setup(
        gix::tempfile::signal::handler::Mode::DeleteTempfilesOnTerminationAndRestoreDefaultBehaviour,
    );
}

/// SIGINT, SIGTERM and SIGQUIT held pending on this thread while it lives: one that arrives
/// meanwhile is delivered when it is dropped (the mask this thread had before is put back). The
/// command is one thread while it writes, so a signal sent to the process waits too. Held, a
/// signal cannot stop a command that waits for a lock; it waits at most the seconds a lock is
/// waited for.
#[must_use = "the signals are held only while this lives"]
pub struct HeldSignals {
    /// The mask to put back (`None`: none was changed, as where the mask cannot be set).
    #[cfg(unix)]
    previous: Option<nix::sys::signal::SigSet>,
}

impl HeldSignals {
    /// Holds the signals gix's handler acts on, from now until the value is dropped.
    pub fn hold() -> HeldSignals {
        #[cfg(unix)]
        {
            use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
            let mut held = SigSet::empty();
            for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGQUIT] {
                held.add(signal);
            }
            let mut previous = SigSet::empty();
            let changed = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&held), Some(&mut previous));
            HeldSignals { previous: changed.ok().map(|()| previous) }
        }
        #[cfg(not(unix))]
        HeldSignals {}
    }
}

impl Drop for HeldSignals {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(previous) = self.previous.take() {
            let _ = nix::sys::signal::pthread_sigmask(
                nix::sys::signal::SigmaskHow::SIG_SETMASK,
                Some(&previous),
                None,
            );
        }
    }
}
