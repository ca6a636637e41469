//! Work over many commits shared by threads. Commits are independent of each other, and reading
//! objects is most of what a commit costs, so each thread opens the repository for itself, with
//! the caches of objects and pack deltas one for all ([`Repo::handle`]), and takes the next
//! unclaimed item until none is left.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::num::NonZero;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::git::Repo;

/// Below this many commits per thread no other thread is started: starting one with its own
/// repository costs about as much as checking a few commits.
const COMMITS_PER_THREAD: usize = 32;

/// At most this many threads work at once unless the caller asks for more.
const MAX_THREADS: usize = 8;

/// How many finished results per thread may wait to be taken by this thread.
const RESULTS_IN_FLIGHT: usize = 4;

/// Runs `work` on as many threads as `len` items warrant, and returns the results in item order
/// ([`stream`], collected).
pub(super) fn map<R: Send>(
    repo: &Repo,
    jobs: Option<NonZero<usize>>,
    len: usize,
    commits: usize,
    work: impl Fn(&Repo, &dyn Fn() -> Option<usize>, &dyn Fn(usize, R)) + Sync,
) -> Vec<R> {
    let mut all = Vec::with_capacity(len);
    stream(repo, jobs, len, commits, work, |result| all.push(result));
    all
}

/// Runs `work` on as many threads as `len` items warrant, and hands each result to `emit` on this
/// thread, in item order, as soon as it and every result before it are done: a caller can write
/// them out while later items are still being worked on. Each thread calls `work` once with its
/// own `Repo` (this thread with `repo`), a `claim` function that hands out the next unclaimed
/// item position (`None` when all are taken) and a `done` function that takes the result of an
/// item. The items hold `commits` commits in all. `jobs` is the caller's `--jobs`; without it,
/// one thread per core, at most [`MAX_THREADS`], and none for fewer than [`COMMITS_PER_THREAD`]
/// commits each. Results that come early wait for the ones before them: items are claimed in
/// order, and the other threads wait once [`RESULTS_IN_FLIGHT`] each are not taken yet.
pub(super) fn stream<R: Send>(
    repo: &Repo,
    jobs: Option<NonZero<usize>>,
    len: usize,
    commits: usize,
    work: impl Fn(&Repo, &dyn Fn() -> Option<usize>, &dyn Fn(usize, R)) + Sync,
    emit: impl FnMut(R),
) {
    let threads = match jobs {
        Some(jobs) => jobs.get().min(len),
        None => {
            let cores = std::thread::available_parallelism().map_or(1, NonZero::get);
            cores.min(MAX_THREADS).min(commits / COMMITS_PER_THREAD)
        }
    }
    .max(1);
    let next = AtomicUsize::new(0);
    let claim = || Some(next.fetch_add(1, Ordering::Relaxed)).filter(|at| *at < len);
    let order = RefCell::new(InOrder { next: 0, waiting: BTreeMap::new(), emit });
    if threads == 1 {
        work(repo, &claim, &|at, result| order.borrow_mut().put(at, result));
        return;
    }
    let handle = repo.handle();
    // Bounded, so that threads far ahead of a slow reader of the output wait instead of piling
    // results up.
    let (send, receive) = mpsc::sync_channel::<(usize, R)>(RESULTS_IN_FLIGHT * threads);
    std::thread::scope(|scope| {
        // A thread that cannot be started leaves its share to the others (this one always
        // works), so a large `--jobs` never fails the run.
        let others: Vec<_> = (1..threads)
            .filter_map(|_| {
                let send = send.clone();
                let (work, claim, handle) = (&work, &claim, &handle);
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || {
                        // The receiver lives until every result is in.
                        work(&handle.open(), claim, &|at, result| drop(send.send((at, result))));
                    })
                    .ok()
            })
            .collect();
        drop(send);
        // This thread works too, and writes out what the others finished between its items.
        work(repo, &claim, &|at, result| {
            let mut order = order.borrow_mut();
            order.put(at, result);
            while let Ok((at, result)) = receive.try_recv() {
                order.put(at, result);
            }
        });
        // The rest, as the others finish it; the channel closes when the last one is done.
        for (at, result) in receive {
            order.borrow_mut().put(at, result);
        }
        for other in others {
            // A panic on another thread is a bug; it goes on here as it would have there.
            other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
}

/// Results put back in item order.
struct InOrder<R, E> {
    /// The position of the next result to emit.
    next: usize,
    /// Results done before one ahead of them.
    waiting: BTreeMap<usize, R>,
    /// Where results go, in order.
    emit: E,
}

impl<R, E: FnMut(R)> InOrder<R, E> {
    /// Takes the result of item `at`, and emits every result that is now next in order.
    fn put(&mut self, at: usize, result: R) {
        if at != self.next {
            self.waiting.insert(at, result);
            return;
        }
        (self.emit)(result);
        self.next += 1;
        while let Some(result) = self.waiting.remove(&self.next) {
            (self.emit)(result);
            self.next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::git::test_support::Fixture;

    #[test]
    fn each_result_is_handed_on_in_order_as_soon_as_those_before_it_are_done() {
        let fixture = Fixture::new();
        let repo = fixture.repo();
        // One thread: each result leaves before the next item is claimed.
        let claimed = AtomicUsize::new(0);
        let mut seen = Vec::new();
        let work = |_: &Repo, claim: &dyn Fn() -> Option<usize>, done: &dyn Fn(usize, usize)| {
            while let Some(at) = claim() {
                claimed.fetch_add(1, Ordering::SeqCst);
                done(at, at);
            }
        };
        stream(&repo, NonZero::new(1), 10, 10, work, |at| seen.push((at, claimed.load(Ordering::SeqCst))));
        assert_eq!(seen, (0..10).map(|at| (at, at + 1)).collect::<Vec<_>>());
        // Several threads finishing out of order: the results still leave in item order.
        let mut all = Vec::new();
        let slow_on_some = |_: &Repo, claim: &dyn Fn() -> Option<usize>, done: &dyn Fn(usize, usize)| {
            while let Some(at) = claim() {
                if at % 7 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                done(at, at);
            }
        };
        stream(&repo, NonZero::new(4), 200, 200, slow_on_some, |at| all.push(at));
        assert_eq!(all, (0..200).collect::<Vec<_>>());
    }
}
