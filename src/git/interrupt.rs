//! What an interrupt (SIGINT, SIGTERM, SIGQUIT) or a hangup (SIGHUP: a closed terminal, a dropped
//! ssh session) does to the lock files a command holds, and the few writes during which it waits.
//!
//! gix removes every lock file it registered when an interrupt arrives, then ends the process as
//! the signal would have ([`remove_locks_on_interrupt`]). gix's handler does not act on a hangup,
//! so a thread of our own waits for one and does the same, as git does on all four. That is right
//! before a command has changed anything, and wrong in two places. Once it has moved a branch:
//! `index.lock` removed, the index still without the tick, and the next `git commit` would take
//! the tick back. And while gix creates a lock file, which it registers for removal only once it is
//! created: a signal in between leaves the lock behind. [`HeldSignals`] keeps the signals pending
//! on the writing thread around both: each reference transaction and the taking of the index lock,
//! and a tick's reference update until its index is written. A hangup, whichever thread it
//! reaches, waits for every held section to end (the last one to close ends the process itself),
//! and none opens after.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, LazyLock, Mutex, MutexGuard, PoisonError};

/// The sections [`HeldSignals`] holds now, and whether a hangup waits for them to end.
struct Sections {
    /// How many [`HeldSignals`] live, on any thread (nested ones each count).
    open: usize,
    /// A hangup is ending the process once `open` is 0.
    hangup: bool,
}

/// [`Sections`], and the condition told of each change of it.
static SECTIONS: (Mutex<Sections>, Condvar) =
    (Mutex::new(Sections { open: 0, hangup: false }), Condvar::new());

/// Set by the handler as a hangup arrives, on the thread it arrives on: a hangup held on the
/// writing thread is known there the moment the thread lets it through.
static HUNG_UP: LazyLock<Arc<AtomicBool>> = LazyLock::new(Arc::default);

/// [`SECTIONS`] locked (a thread that panicked holding it changed nothing half-way).
fn sections() -> MutexGuard<'static, Sections> {
    SECTIONS.0.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether a hangup arrived that has not ended the process yet.
fn hangup_pending(sections: &Sections) -> bool {
    sections.hangup || HUNG_UP.load(Ordering::SeqCst)
}

/// Has gix remove its lock files (`index.lock`, a reference's `.lock`) when the process is
/// interrupted (SIGINT, SIGTERM, SIGQUIT) or hung up (SIGHUP), then end as the signal would have,
/// as git does: a Ctrl-C or a closed terminal while a signer waits for a passphrase or a touch must
/// not leave every git command blocked. A process started with SIGHUP ignored (`nohup`) keeps
/// ignoring it, where the system says so (`/proc/self/status`). Call it once, before any lock is
/// taken.
pub fn remove_locks_on_interrupt() {
    gix::tempfile::signal::setup(
        gix::tempfile::signal::handler::Mode::DeleteTempfilesOnTerminationAndRestoreDefaultBehaviour,
    );
    #[cfg(unix)]
    if !hangup_ignored() {
        remove_locks_on_hangup();
    }
}

/// Whether this process was started with SIGHUP ignored, as `nohup` starts one: the `SigIgn`
/// mask of `/proc/self/status`. Where that cannot be read (a system without it), `false`.
#[cfg(unix)]
fn hangup_ignored() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return false };
    let mask = status.lines().find_map(|line| line.strip_prefix("SigIgn:"));
    mask.and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (signal_hook::consts::SIGHUP - 1)) != 0)
}

/// Starts a thread that waits for SIGHUP and then ends the process ([`end_on_hangup`]), its
/// handler setting [`HUNG_UP`] too; returns once the handler is in place. The thread holds the
/// interrupts itself for good, so that gix's handler never runs on it while the writing thread
/// holds them. Without a thread or a handler to be had, a hangup does what it did before.
#[cfg(unix)]
fn remove_locks_on_hangup() {
    use signal_hook::consts::SIGHUP;
    let (registered, told) = std::sync::mpsc::channel();
    let waiting = std::thread::Builder::new().name("hangup".into()).spawn(move || {
        let _ = mask(nix::sys::signal::SigmaskHow::SIG_BLOCK, &interrupts());
        let Ok(mut hangups) = signal_hook::iterator::Signals::new([SIGHUP]) else { return };
        let _ = signal_hook::flag::register(SIGHUP, Arc::clone(&HUNG_UP));
        let _ = registered.send(());
        if hangups.forever().next().is_some() {
            end_on_hangup();
        }
    });
    if waiting.is_ok() {
        let _ = told.recv();
    }
}

/// Waits until no [`HeldSignals`] lives (none opens once all have closed), removes the lock files
/// gix registered, and ends the process as SIGHUP does by default.
fn end_on_hangup() -> ! {
    let mut sections = sections();
    sections.hangup = true;
    let _closed = SECTIONS.1.wait_while(sections, |s| s.open > 0).unwrap_or_else(PoisonError::into_inner);
    gix::tempfile::registry::cleanup_tempfiles();
    #[cfg(unix)]
    let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGHUP);
    // Not reached on unix: emulating SIGHUP's default ends the process, or aborts it.
    std::process::abort();
}

/// SIGINT, SIGTERM and SIGQUIT: the signals gix's handler acts on.
#[cfg(unix)]
fn interrupts() -> nix::sys::signal::SigSet {
    use nix::sys::signal::{SigSet, Signal};
    [Signal::SIGINT, Signal::SIGTERM, Signal::SIGQUIT].into_iter().collect::<SigSet>()
}

/// Changes this thread's signal mask by `how` with `set`: the mask it had before (`None`: it could
/// not be changed).
#[cfg(unix)]
fn mask(
    how: nix::sys::signal::SigmaskHow,
    set: &nix::sys::signal::SigSet,
) -> Option<nix::sys::signal::SigSet> {
    let mut previous = nix::sys::signal::SigSet::empty();
    nix::sys::signal::pthread_sigmask(how, Some(set), Some(&mut previous)).ok().map(|()| previous)
}

/// SIGINT, SIGTERM, SIGQUIT and SIGHUP held pending on this thread while it lives: one that
/// arrives meanwhile is delivered when it is dropped (the mask this thread had before is put
/// back). The command is one thread while it writes, so a signal sent to the process waits too;
/// a hangup, whichever thread it reaches, waits until no `HeldSignals` lives. Held, a signal
/// cannot stop a command that waits for a lock; it waits at most the seconds a lock is waited for.
#[must_use = "the signals are held only while this lives"]
pub struct HeldSignals {
    /// The mask to put back (`None`: none was changed, as where the mask cannot be set).
    #[cfg(unix)]
    previous: Option<nix::sys::signal::SigSet>,
}

impl HeldSignals {
    /// Holds the signals gix's handler acts on and SIGHUP, from now until the value is dropped.
    /// A hangup that arrived while none was held ends the process here instead.
    pub fn hold() -> HeldSignals {
        let mut sections = sections();
        if sections.open == 0 && hangup_pending(&sections) {
            drop(sections);
            end_on_hangup();
        }
        sections.open += 1;
        drop(sections);
        #[cfg(unix)]
        {
            let mut held = interrupts();
            held.add(nix::sys::signal::Signal::SIGHUP);
            HeldSignals { previous: mask(nix::sys::signal::SigmaskHow::SIG_BLOCK, &held) }
        }
        #[cfg(not(unix))]
        HeldSignals {}
    }
}

impl Drop for HeldSignals {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(previous) = self.previous.take() {
            let _ = mask(nix::sys::signal::SigmaskHow::SIG_SETMASK, &previous);
        }
        let mut sections = sections();
        sections.open -= 1;
        let end = sections.open == 0 && hangup_pending(&sections);
        drop(sections);
        SECTIONS.1.notify_all();
        if end {
            end_on_hangup();
        }
    }
}
