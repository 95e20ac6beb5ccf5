//! A team of helper threads for parallel kernels that keep watching for the next job for a
//! short while after each one before they sleep, as OpenMP's threads do
//! (Note [Helpers that spin before they sleep]).
//!
//! One caller at a time owns the team ([`Team::run`]); a caller that finds it taken (a nested
//! parallel kernel, or another thread's) is told so and runs its work another way.

use parking_lot::{Condvar, Mutex};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

// Note [Helpers that spin before they sleep]
// Sampling from a small GPT runs a product of 16-64 rows every 40-90 µs, with small
// single-threaded ops (layer norm, GELU, attention of one sequence) between them. Split over two
// cores such a product takes 25-50 µs; a helper thread that went to sleep after the previous
// one takes tens of microseconds to wake on a virtual machine (futex wake, scheduler), so the
// second core came too late to help and the products ran on one thread. PyTorch's OpenMP
// threads busy-wait after a parallel region before they sleep, and so do these: a helper
// watches the job counter for `SPIN` after each job, and only then sleeps on a condition
// variable, from which a new job wakes it. The cost is a core kept busy for at most `SPIN` after
// the last parallel kernel: nothing while this process has the machine to itself, which is how
// benchmarks and training runs use it.

/// How long a helper keeps watching for the next job after finishing one.
const SPIN: Duration = Duration::from_micros(300);

/// The helper threads of one pool; dropping it lets them exit.
pub(crate) struct Team {
    shared: Arc<Shared>,
}

/// What a team's helpers share with the callers.
struct Shared {
    /// Bumped when a job is posted: helpers watch it.
    epoch: AtomicU64,
    /// Set while a caller owns the team.
    busy: AtomicBool,
    /// Helpers asleep on `wake` (or about to be).
    sleepers: AtomicUsize,
    /// Set when the team is dropped: helpers exit.
    shutdown: AtomicBool,
    job: Mutex<Job>,
    /// Wakes sleeping helpers for a new job or for shutdown.
    wake: Condvar,
    /// Signalled when the last running helper leaves a closed job.
    idle: Condvar,
}

/// The posted job.
#[derive(Default)]
struct Job {
    /// The helpers' task, borrowed from [`Team::run`]'s caller (lifetime erased: called only
    /// while the job is open, see `run`).
    task: Option<TaskPtr>,
    /// Helpers still wanted for the job.
    wanted: usize,
    /// Helpers inside the task.
    running: usize,
    /// What a helper's panic carried, raised again by `run`.
    panic: Option<Box<dyn Any + Send>>,
}

/// A pointer to a caller's `Sync` task.
#[derive(Clone, Copy)]
struct TaskPtr(*const (dyn Fn() + Sync));
// SAFETY: the task is `Sync`, and helpers call it only while the caller keeps it alive (`run`)
unsafe impl Send for TaskPtr {}

impl Team {
    /// Starts `helpers` threads named `ferrograd-team-{i}`.
    pub(crate) fn new(helpers: usize) -> Team {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            busy: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
            job: Mutex::new(Job::default()),
            wake: Condvar::new(),
            idle: Condvar::new(),
        });
        for i in 0..helpers {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(format!("ferrograd-team-{i}"))
                .spawn(move || shared.serve())
                .expect("a helper thread can be started");
        }
        Team { shared }
    }

    /// Runs `task` on the calling thread and on up to `helpers` team threads, returning once
    /// every thread that started it has left it (a helper's panic is raised here). `task` must
    /// return when nothing is left to do, without waiting for other threads. Returns `false`
    /// without running anything if another caller owns the team.
    pub(crate) fn run(&self, task: &(dyn Fn() + Sync), helpers: usize) -> bool {
        let s = &*self.shared;
        if s.busy.swap(true, Ordering::Acquire) {
            return false;
        }
        // SAFETY: only the lifetime is erased; helpers take the task under the lock while the
        // job is open, and `Close` (also run when unwinding) closes it and waits for them
        let ptr = unsafe {
            std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync)>(task)
        };
        {
            let mut job = s.job.lock();
            job.task = Some(TaskPtr(ptr));
            job.wanted = helpers;
        }
        s.epoch.fetch_add(1, Ordering::SeqCst);
        if s.sleepers.load(Ordering::SeqCst) > 0 {
            let _job = s.job.lock();
            s.wake.notify_all();
        }
        /// Closes the job and waits for its running helpers: spinning first, as a helper is
        /// usually about to finish its last unit.
        struct Close<'a>(&'a Shared);
        impl Drop for Close<'_> {
            fn drop(&mut self) {
                let s = self.0;
                let mut job = s.job.lock();
                job.task = None;
                job.wanted = 0;
                let mut spins = 0u32;
                while job.running > 0 {
                    if spins < 1 << 12 {
                        spins += 1;
                        parking_lot::MutexGuard::unlocked(&mut job, std::hint::spin_loop);
                    } else {
                        s.idle.wait(&mut job);
                    }
                }
                let panic = job.panic.take();
                drop(job);
                s.busy.store(false, Ordering::Release);
                if let Some(payload) = panic {
                    if !std::thread::panicking() {
                        std::panic::resume_unwind(payload);
                    }
                }
            }
        }
        let close = Close(s);
        task();
        drop(close);
        true
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        let s = &*self.shared;
        s.shutdown.store(true, Ordering::SeqCst);
        let _job = s.job.lock();
        s.wake.notify_all();
    }
}

impl Shared {
    /// A helper's life: wait for a job (spinning, then asleep), join it if still wanted, repeat
    /// until the team is dropped.
    fn serve(&self) {
        // from the first value, not the current: a job posted before this thread started is
        // still joined if it is open
        let mut seen = 0;
        loop {
            seen = self.next_epoch(seen);
            if self.shutdown.load(Ordering::Acquire) {
                return;
            }
            let task = {
                let mut job = self.job.lock();
                match job.task {
                    Some(task) if job.wanted > 0 => {
                        job.wanted -= 1;
                        job.running += 1;
                        task
                    }
                    _ => continue,
                }
            };
            // SAFETY: the job was open when this helper registered as running, and `run`
            // waits for running helpers before its task can go away
            let outcome = catch_unwind(AssertUnwindSafe(|| unsafe { (*task.0)() }));
            let mut job = self.job.lock();
            if let Err(payload) = outcome {
                job.panic.get_or_insert(payload);
            }
            job.running -= 1;
            if job.running == 0 {
                self.idle.notify_all();
            }
        }
    }

    /// Waits until the job counter moves past `seen` (or shutdown) and returns its new value:
    /// watching it for [`SPIN`], then asleep on `wake`.
    fn next_epoch(&self, seen: u64) -> u64 {
        let moved = || {
            let now = self.epoch.load(Ordering::SeqCst);
            (now != seen || self.shutdown.load(Ordering::SeqCst)).then_some(now)
        };
        let start = Instant::now();
        let mut polls = 0u32;
        loop {
            if let Some(now) = moved() {
                return now;
            }
            std::hint::spin_loop();
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(64) && start.elapsed() >= SPIN {
                break;
            }
        }
        let mut job = self.job.lock();
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let now = loop {
            if let Some(now) = moved() {
                break now;
            }
            self.wake.wait(&mut job);
        };
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_join_a_job_and_a_busy_team_refuses_a_second_caller() {
        let team = Team::new(1);
        for _ in 0..200 {
            let next = AtomicUsize::new(0);
            let done = AtomicUsize::new(0);
            let take = || loop {
                if next.fetch_add(1, Ordering::Relaxed) >= 64 {
                    return;
                }
                done.fetch_add(1, Ordering::Relaxed);
            };
            assert!(team.run(&take, 1));
            assert_eq!(done.load(Ordering::Relaxed), 64);
        }
        // a nested call finds the team taken
        let inner = AtomicBool::new(true);
        let outer = || {
            if team.run(&|| {}, 1) {
                inner.store(false, Ordering::Relaxed);
            }
        };
        assert!(team.run(&outer, 0));
        assert!(inner.load(Ordering::Relaxed));
        // after a long idle spell the helpers sleep, and a new job still wakes one
        std::thread::sleep(SPIN * 4);
        let seen = Mutex::new(std::collections::HashSet::new());
        let task = || {
            seen.lock().insert(std::thread::current().id());
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(team.run(&task, 1));
        assert_eq!(seen.lock().len(), 2);
    }

    #[test]
    fn a_helpers_panic_is_raised_in_the_caller() {
        let team = Team::new(1);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            team.run(
                &|| {
                    if std::thread::current().name() == Some("ferrograd-team-0") {
                        panic!("in a helper");
                    }
                    std::thread::sleep(Duration::from_millis(50));
                },
                1,
            )
        }));
        assert!(caught.is_err());
        // the team is free again
        assert!(team.run(&|| {}, 1));
    }
}
