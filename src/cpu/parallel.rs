//! The thread pool for parallel kernels: its size is settable (`set_num_threads`), and a forked
//! child process gets a fresh pool instead of deadlocking on its parent's threads.
//!
//! Kernels split their work into units with [`for_each_unit`]: the calling thread starts on
//! them at once and pool threads join in as they wake, so a parallel kernel never waits for a
//! sleeping thread to wake up before work begins. Its helpers are a team that watches for the
//! next call for a while after each (`cpu::team`); work that appears over time (the engine's
//! parallel phase), and kernels that find the team busy, get pool threads from a [`Crew`].

use super::team::Team;
use parking_lot::Mutex;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

/// The kernel threads (Note [The caller is one of the threads]).
#[derive(Clone)]
struct Pool {
    /// The calling thread's helpers: `threads - 1` workers (at least one).
    pool: Arc<ThreadPool>,
    /// `threads - 1` helpers for [`for_each_unit`] that spin between jobs (none at one thread).
    team: Option<Arc<Team>>,
    /// `threads` workers for [`install`], started on its first call.
    whole: Arc<std::sync::OnceLock<Arc<ThreadPool>>>,
    threads: usize,
    pid: u32,
}

// Note [The caller is one of the threads]
// Every parallel kernel and the engine's parallel phase run on the calling thread plus
// helpers (`for_each_unit`, `Crew`), as OpenMP runs a parallel region on the master thread
// plus `n - 1` workers, so `threads` threads need only `threads - 1` pool workers. A pool of
// `threads` workers left one more thread than cores: rayon's idle workers look for work and
// yield for a while after each job before they sleep, and the spare one kept preempting the
// two doing the work (a nanoGPT-style step at two threads: ~2,500 involuntary context
// switches a step, 77-87 ms; with one worker, 5 and 69 ms). `install` hands a whole closure to
// the pool (the `gemm` crate's parallel products), and the caller then only waits, so it gets
// a pool of its own with all `threads` workers.

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// The CPUs this process may use (asked once: the answer takes system calls and file reads).
fn default_threads() -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A rayon pool of `workers` threads named `name-{i}`.
fn workers(workers: usize, name: &'static str) -> Arc<ThreadPool> {
    let pool = ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(move |i| format!("{name}-{i}"))
        .build()
        .expect("a rayon thread pool can be created");
    Arc::new(pool)
}

fn build(threads: usize) -> Pool {
    Pool {
        pool: workers(threads.saturating_sub(1).max(1), "ferrograd"),
        team: (threads > 1).then(|| Arc::new(Team::new(threads - 1))),
        whole: Arc::default(),
        threads,
        pid: std::process::id(),
    }
}

/// The pool to run parallel work in (rebuilt after a `fork`).
fn pool() -> Pool {
    let mut guard = POOL.lock();
    let pid = std::process::id();
    let stale = guard.as_ref().is_none_or(|p| p.pid != pid);
    if stale {
        let threads = guard.as_ref().map_or_else(default_threads, |p| p.threads);
        // a forked child has none of the parent's threads, and their locks may be held by
        // threads that are gone: the old pool is forgotten, not shut down
        std::mem::forget(guard.take());
        *guard = Some(build(threads));
    }
    guard.as_ref().expect("pool built above").clone()
}

/// Number of threads parallel kernels use.
pub fn num_threads() -> usize {
    POOL.lock()
        .as_ref()
        .map_or_else(default_threads, |p| p.threads)
}

/// The thread count last asked for with [`set_num_threads`] (0: never asked).
static REQUESTED: AtomicUsize = AtomicUsize::new(0);

/// Sets the number of threads parallel kernels use (at least 1). As with PyTorch's OpenMP
/// pool, the request is remembered as given ([`requested_threads`]) while the pool itself is
/// capped at four threads per CPU: more only adds threads that wait (`set_num_threads(100000)`
/// would otherwise start 100,000 of them).
pub fn set_num_threads(threads: usize) {
    let threads = threads.max(1);
    REQUESTED.store(threads, Relaxed);
    *POOL.lock() = Some(build(threads.min(4 * default_threads())));
}

/// The thread count as set by [`set_num_threads`] (PyTorch's `get_num_threads`), or the
/// pool's when it was never set.
pub fn requested_threads() -> usize {
    match REQUESTED.load(Relaxed) {
        0 => num_threads(),
        n => n,
    }
}

/// Runs `f` with the kernel pool's thread count. With more threads than one, `f` runs inside
/// a pool of that many workers, so its rayon calls use them (Note [The caller is one of the
/// threads]). With one, `f` runs right here on the calling thread (handing it to a pool thread
/// and waiting would cost a thread wake-up, tens of microseconds on a virtual machine),
/// outside any pool: given `1`, `f` must make no rayon calls, which would go to rayon's global
/// pool whatever `set_num_threads` said.
pub fn install<R: Send>(f: impl FnOnce(usize) -> R + Send) -> R {
    let Pool { whole, threads, .. } = pool();
    if threads == 1 {
        return f(1);
    }
    whole
        .get_or_init(|| workers(threads, "ferrograd-whole"))
        .install(|| f(threads))
}

/// Calls `f(offset, block)` once on each consecutive `chunk`-element block of `out` (`offset`
/// is the block's first index), on the calling thread and pool threads (see
/// [`for_each_unit`]).
pub fn for_each_block<U: Send>(out: &mut [U], chunk: usize, f: impl Fn(usize, &mut [U]) + Sync) {
    let len = out.len();
    let base = SendPtr(out.as_mut_ptr());
    for_each_unit(len.div_ceil(chunk.max(1)), |i| {
        let at = i * chunk;
        // SAFETY: every unit index comes once, so the blocks handed out are disjoint parts of
        // `out`, which stays borrowed until all units are done
        let block = unsafe { std::slice::from_raw_parts_mut(base.at(at), chunk.min(len - at)) };
        f(at, block)
    })
}

/// A pointer into a buffer whose disjoint parts go to different threads.
struct SendPtr<U>(*mut U);
// SAFETY: only used by `for_each_block`, whose units touch disjoint parts of one `&mut [U]`
unsafe impl<U: Send> Send for SendPtr<U> {}
unsafe impl<U: Send> Sync for SendPtr<U> {}

impl<U> SendPtr<U> {
    /// The pointer `n` elements further.
    fn at(&self, n: usize) -> *mut U {
        self.0.wrapping_add(n)
    }
}

/// Calls `f(0)`, …, `f(units - 1)`, each exactly once, in parallel: the calling thread starts on
/// unit 0 at once, and up to `threads - 1` helpers, asked for when the call begins, take the
/// next units as they come (a sleeping thread's wake-up costs tens of microseconds on a virtual
/// machine, as long as a small product, so the helpers are the pool's team, which keeps
/// watching for work a while after each call: Note [Helpers that spin before they sleep]). Returns when every unit has run; a panic in a unit
/// is raised here, after the units already started have finished. Which thread runs a unit
/// varies, so results must not depend on it.
pub fn for_each_unit(units: usize, f: impl Fn(usize) + Sync) {
    let Pool {
        pool,
        team,
        threads,
        ..
    } = pool();
    let helpers = threads.min(units).saturating_sub(1);
    if helpers == 0 {
        (0..units).for_each(f);
        return;
    }
    // every participant takes the next unit until none is left (a unit whose closure panics
    // is not retaken: the panic is raised once all participants are out)
    let next = AtomicUsize::new(0);
    let take = || loop {
        let i = next.fetch_add(1, Relaxed);
        if i >= units {
            return;
        }
        f(i);
    };
    // the team, unless a caller already owns it (this call is nested in one of its units, or
    // another thread's kernel runs): then pool threads summoned one by one
    if team.is_some_and(|team| team.run(&take, helpers)) {
        return;
    }
    crew_on(pool, &take, |crew| {
        for _ in 0..helpers {
            crew.summon();
        }
        take()
    })
}

/// Runs `f` on each item of `work` (values owned by one item each, such as disjoint `&mut`
/// parts of buffers), one item per unit of [`for_each_unit`].
pub fn for_each_owned<W: Send>(work: Vec<W>, f: impl Fn(W) + Sync) {
    if work.len() == 1 {
        work.into_iter().for_each(f);
        return;
    }
    let slots: Vec<Mutex<Option<W>>> = work.into_iter().map(|w| Mutex::new(Some(w))).collect();
    for_each_unit(slots.len(), |k| {
        if let Some(w) = slots[k].lock().take() {
            f(w);
        }
    });
}

/// Pool threads summoned one at a time to help with work that appears over time (see
/// [`with_crew`]). A handle: clones summon for the same crew.
#[derive(Clone)]
pub struct Crew {
    shared: Arc<CrewShared>,
    pool: Arc<ThreadPool>,
}

/// What a [`Crew`]'s helpers share with [`with_crew`].
struct CrewShared {
    /// The helpers' task, borrowed from `with_crew`'s caller (lifetime erased: called only
    /// while the crew is open, see `with_crew`).
    task: *const (dyn Fn() + Sync),
    state: Mutex<CrewState>,
    /// Signalled when the last running helper finishes.
    idle: parking_lot::Condvar,
}

// SAFETY: `task` points to a `Sync` closure, called from pool threads only while `with_crew`
// keeps it alive; the rest is behind the mutex
unsafe impl Send for CrewShared {}
unsafe impl Sync for CrewShared {}

#[derive(Default)]
struct CrewState {
    /// Helpers inside the task.
    running: usize,
    /// Set when `with_crew` ends: helpers that start later do nothing.
    closed: bool,
    /// What a helper's panic carried, raised again by `with_crew`.
    panic: Option<Box<dyn std::any::Any + Send>>,
}

/// Runs `body` with a [`Crew`] whose helpers each run `task` once on a pool thread. `task`
/// must return when nothing is left for it to do instead of waiting for other threads (a pool
/// thread blocked in a wait could be the one some other work is queued behind). Returns once
/// no helper is inside `task`; helpers summoned but not started by then never call it. A
/// panic in a helper is raised here.
pub fn with_crew<R>(task: &(dyn Fn() + Sync), body: impl FnOnce(&Crew) -> R) -> R {
    crew_on(pool().pool, task, body)
}

/// [`with_crew`] with the crew's threads from `pool`.
fn crew_on<R>(pool: Arc<ThreadPool>, task: &(dyn Fn() + Sync), body: impl FnOnce(&Crew) -> R) -> R {
    // SAFETY: only the lifetime is erased; helpers call `task` only after finding the crew
    // open, under its lock, and `Close` (also run when unwinding) closes it and then waits
    // until no helper is inside `task`
    let task = unsafe {
        std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync)>(task)
    };
    let crew = Crew {
        shared: Arc::new(CrewShared {
            task,
            state: Mutex::new(CrewState::default()),
            idle: parking_lot::Condvar::new(),
        }),
        pool,
    };
    /// Closes the crew and waits for its running helpers: spinning a little first (a helper
    /// is usually about to finish a short unit, and a sleeping thread takes long to wake).
    struct Close<'a>(&'a CrewShared);
    impl Drop for Close<'_> {
        fn drop(&mut self) {
            let mut state = self.0.state.lock();
            state.closed = true;
            let mut spins = 0u32;
            while state.running > 0 {
                if spins < 1 << 12 {
                    spins += 1;
                    parking_lot::MutexGuard::unlocked(&mut state, std::hint::spin_loop);
                } else {
                    self.0.idle.wait(&mut state);
                }
            }
        }
    }
    let close = Close(&crew.shared);
    let result = body(&crew);
    drop(close);
    if let Some(payload) = crew.shared.state.lock().panic.take() {
        std::panic::resume_unwind(payload);
    }
    result
}

impl Crew {
    /// Asks a pool thread to run the task once, when it gets to it (nothing happens if the
    /// crew has closed by then).
    pub fn summon(&self) {
        let shared = self.shared.clone();
        self.pool.spawn(move || {
            {
                let mut state = shared.state.lock();
                if state.closed {
                    return;
                }
                state.running += 1;
            }
            // SAFETY: the crew was open when this helper registered as running, and
            // `with_crew` waits for running helpers before its task can go away
            let task = unsafe { &*shared.task };
            let outcome = catch_unwind(AssertUnwindSafe(task));
            let mut state = shared.state.lock();
            if let Err(payload) = outcome {
                state.panic.get_or_insert(payload);
            }
            state.running -= 1;
            if state.running == 0 {
                shared.idle.notify_all();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_count_is_settable() {
        set_num_threads(2);
        assert_eq!(num_threads(), 2);
        assert_eq!(install(|n| n), 2);
        // the calling thread is one of the two: one pool worker helps it (Note [The caller is
        // one of the threads]); `install` runs on a pool of two that its rayon calls share
        assert_eq!(pool().pool.current_num_threads(), 1);
        assert_eq!(install(|_| rayon::current_num_threads()), 2);
        set_num_threads(1);
        assert_eq!(install(|n| n), 1);
        let mut v = vec![0usize; 10];
        for_each_block(&mut v, 4, |at, b| {
            b.iter_mut().enumerate().for_each(|(i, x)| *x = at + i)
        });
        assert_eq!(v, (0..10).collect::<Vec<_>>());
        set_num_threads(3);
        let mut v = vec![0usize; 1000];
        for_each_block(&mut v, 7, |at, b| {
            b.iter_mut().enumerate().for_each(|(i, x)| *x += at + i)
        });
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
        set_num_threads(default_threads());
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn a_panicking_unit_is_raised_in_the_caller_after_the_others() {
        let done = AtomicUsize::new(0);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            for_each_unit(64, |i| {
                if i == 40 {
                    panic!("unit 40");
                }
                done.fetch_add(1, Relaxed);
            })
        }));
        assert!(caught.is_err());
        // units already taken finished before the call returned; none runs after it
        let after = done.load(Relaxed);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(done.load(Relaxed), after);
    }
}
