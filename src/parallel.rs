//! The thread pool for parallel kernels: its size is settable (`set_num_threads`), and a forked
//! child process gets a fresh pool instead of deadlocking on its parent's threads.

use parking_lot::Mutex;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::Arc;

struct Pool {
    pool: Arc<ThreadPool>,
    threads: usize,
    pid: u32,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn build(threads: usize) -> Pool {
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("ferrograd-{i}"))
        .build()
        .expect("a rayon thread pool can be created");
    Pool {
        pool: Arc::new(pool),
        threads,
        pid: std::process::id(),
    }
}

/// The pool to run parallel work in (rebuilt after a `fork`).
fn pool() -> (Arc<ThreadPool>, usize) {
    let mut guard = POOL.lock();
    let pid = std::process::id();
    let stale = guard.as_ref().is_none_or(|p| p.pid != pid);
    if stale {
        let threads = guard.as_ref().map_or_else(default_threads, |p| p.threads);
        *guard = Some(build(threads));
    }
    let p = guard.as_ref().expect("pool built above");
    (p.pool.clone(), p.threads)
}

/// Number of threads parallel kernels use.
pub fn num_threads() -> usize {
    POOL.lock()
        .as_ref()
        .map_or_else(default_threads, |p| p.threads)
}

/// Sets the number of threads parallel kernels use (at least 1).
pub fn set_num_threads(threads: usize) {
    *POOL.lock() = Some(build(threads.max(1)));
}

/// Runs `f` inside the kernel thread pool; `f` gets the pool's thread count. Always inside the
/// pool, even with one thread: rayon calls made outside any pool would use rayon's global pool,
/// whatever `set_num_threads` said.
pub fn install<R: Send>(f: impl FnOnce(usize) -> R + Send) -> R {
    let (pool, threads) = pool();
    pool.install(|| f(threads))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_count_is_settable() {
        set_num_threads(2);
        assert_eq!(num_threads(), 2);
        assert_eq!(install(|n| n), 2);
        set_num_threads(1);
        assert_eq!(install(|n| n), 1);
        set_num_threads(default_threads());
    }
}
