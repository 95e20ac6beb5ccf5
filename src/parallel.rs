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

/// Runs `f` with the kernel pool's thread count. With more threads than one, `f` runs inside
/// the pool, so its rayon calls use the pool. With one, `f` runs right here on the calling
/// thread (handing it to the pool's thread and waiting would cost a thread wake-up, tens of
/// microseconds on a virtual machine), outside any pool: given `1`, `f` must make no rayon
/// calls, which would go to rayon's global pool whatever `set_num_threads` said.
pub fn install<R: Send>(f: impl FnOnce(usize) -> R + Send) -> R {
    let (pool, threads) = pool();
    if threads == 1 {
        return f(1);
    }
    pool.install(|| f(threads))
}

/// Calls `f(offset, block)` on the consecutive `chunk`-element blocks of `out` (`offset` is the
/// block's first index): in parallel on the kernel pool when it has more than one thread, in
/// order on the calling thread otherwise.
pub fn for_each_block<U: Send>(out: &mut [U], chunk: usize, f: impl Fn(usize, &mut [U]) + Sync) {
    use rayon::prelude::*;
    install(|threads| {
        let f = |(i, block): (usize, &mut [U])| f(i * chunk, block);
        if threads > 1 {
            out.par_chunks_mut(chunk).enumerate().for_each(f);
        } else {
            out.chunks_mut(chunk).enumerate().for_each(f);
        }
    })
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
        let mut v = vec![0usize; 10];
        for_each_block(&mut v, 4, |at, b| {
            b.iter_mut().enumerate().for_each(|(i, x)| *x = at + i)
        });
        assert_eq!(v, (0..10).collect::<Vec<_>>());
        set_num_threads(default_threads());
    }
}
