//! Work over many commits shared by threads. Commits are independent of each other, and reading
//! objects is most of what a commit costs, so each thread opens the repository for itself (its
//! own object caches) and takes the next unclaimed item until none is left.

use std::num::NonZero;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::git::Repo;

/// Below this many commits per thread no other thread is started: starting one with its own
/// caches costs about as much as checking a few commits.
const COMMITS_PER_THREAD: usize = 32;

/// At most this many threads work at once unless the caller asks for more.
const MAX_THREADS: usize = 8;

/// Runs `work` on as many threads as `len` items warrant, and returns the results in item order.
/// Each thread calls `work` once with its own `Repo` (this thread with `repo`) and a `claim`
/// function that hands out the next unclaimed item position (`None` when all are taken); `work`
/// returns what it did, each result with its position. The items hold `commits` commits in all.
/// `jobs` is the caller's `--jobs`; without it, one thread per core, at most [`MAX_THREADS`], and
/// none for fewer than [`COMMITS_PER_THREAD`] commits each.
pub(super) fn map<R: Send>(
    repo: &Repo,
    jobs: Option<NonZero<usize>>,
    len: usize,
    commits: usize,
    work: impl Fn(&Repo, &dyn Fn() -> Option<usize>) -> Vec<(usize, R)> + Sync,
) -> Vec<R> {
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
    let mut all = if threads == 1 {
        work(repo, &claim)
    } else {
        let handle = repo.handle();
        std::thread::scope(|scope| {
            // A thread that cannot be started leaves its share to the others (this one always
            // works), so a large `--jobs` never fails the run.
            let others: Vec<_> = (1..threads)
                .filter_map(|_| {
                    std::thread::Builder::new().spawn_scoped(scope, || work(&handle.open(), &claim)).ok()
                })
                .collect();
            let mut all = work(repo, &claim);
            for other in others {
                // A panic on another thread is a bug; it goes on here as it would have there.
                all.extend(other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
            }
            all
        })
    };
    // Every position was claimed by exactly one thread, which did it.
    all.sort_unstable_by_key(|(at, _)| *at);
    all.into_iter().map(|(_, result)| result).collect()
}
