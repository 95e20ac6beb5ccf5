//! The profiler's event recorder (what `torch.autograd.profiler.profile` reads): while it is
//! on, every op called from Python, every backward node the engine runs and every
//! `record_function` range becomes an event with its start, its duration and its self time
//! (the duration minus that of the events nested in it on the same thread). When it is off,
//! a range costs one atomic load.

use parking_lot::Mutex;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One finished range.
#[derive(Clone, Debug)]
pub struct Event {
    /// What ran (`aten::mul`, `autograd::engine::evaluate_function: MulBackward0`, a
    /// `record_function` label).
    pub name: String,
    /// Start, in microseconds since profiling began.
    pub start_us: f64,
    /// Wall time of the whole range, in microseconds.
    pub duration_us: f64,
    /// Wall time not spent in ranges nested in it, in microseconds.
    pub self_us: f64,
    /// A number for the thread it ran on (0 for the first thread seen).
    pub thread: u64,
    /// How deeply it was nested in other ranges of its thread (0: outermost).
    pub depth: usize,
}

struct Session {
    origin: Instant,
    events: Vec<Event>,
    threads: Vec<std::thread::ThreadId>,
}

static ENABLED: AtomicBool = AtomicBool::new(false);
static SESSION: Mutex<Option<Session>> = Mutex::new(None);

/// An open range on this thread: its name, start, and the time of the ranges nested in it.
struct Open {
    name: String,
    start: Instant,
    nested_us: f64,
}

thread_local! {
    static OPEN: RefCell<Vec<Open>> = const { RefCell::new(Vec::new()) };
}

/// Whether events are being recorded.
pub fn is_enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Starts recording (dropping the events of an earlier session).
pub fn start() {
    *SESSION.lock() = Some(Session {
        origin: Instant::now(),
        events: Vec::new(),
        threads: Vec::new(),
    });
    ENABLED.store(true, Ordering::SeqCst);
}

/// Stops recording and returns the events, in the order they finished.
pub fn stop() -> Vec<Event> {
    ENABLED.store(false, Ordering::SeqCst);
    OPEN.with(|open| open.borrow_mut().clear());
    SESSION.lock().take().map(|s| s.events).unwrap_or_default()
}

/// Opens a range named `name()` on this thread, if recording (the name is only made then).
pub fn push(name: impl FnOnce() -> String) {
    if !is_enabled() {
        return;
    }
    let name = name();
    OPEN.with(|open| {
        open.borrow_mut().push(Open {
            name,
            start: Instant::now(),
            nested_us: 0.0,
        })
    });
}

/// Closes the innermost open range of this thread and records it.
pub fn pop() {
    if !is_enabled() {
        return;
    }
    let end = Instant::now();
    let Some((range, depth)) = OPEN.with(|open| {
        let mut open = open.borrow_mut();
        let range = open.pop()?;
        let duration = (end - range.start).as_secs_f64() * 1e6;
        if let Some(parent) = open.last_mut() {
            parent.nested_us += duration;
        }
        Some((range, open.len()))
    }) else {
        return;
    };
    let mut session = SESSION.lock();
    let Some(session) = session.as_mut() else {
        return;
    };
    let id = std::thread::current().id();
    let thread = match session.threads.iter().position(|&t| t == id) {
        Some(i) => i,
        None => {
            session.threads.push(id);
            session.threads.len() - 1
        }
    } as u64;
    let duration_us = (end - range.start).as_secs_f64() * 1e6;
    session.events.push(Event {
        start_us: range
            .start
            .saturating_duration_since(session.origin)
            .as_secs_f64()
            * 1e6,
        self_us: (duration_us - range.nested_us).max(0.0),
        duration_us,
        name: range.name,
        thread,
        depth,
    });
}

/// A range open for as long as the guard lives (nothing at all when not recording).
pub struct Range {
    open: bool,
}

impl Range {
    /// Opens a range named `name()` if recording.
    pub fn new(name: impl FnOnce() -> String) -> Range {
        let open = is_enabled();
        if open {
            push(name);
        }
        Range { open }
    }
}

impl Drop for Range {
    fn drop(&mut self) {
        if self.open {
            pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_ranges_split_self_time() {
        start();
        {
            let _outer = Range::new(|| "outer".into());
            let _inner = Range::new(|| "inner".into());
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let events = stop();
        let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["inner", "outer"]);
        let (inner, outer) = (&events[0], &events[1]);
        assert!(inner.duration_us >= 2000.0 && outer.duration_us >= inner.duration_us);
        assert!(outer.self_us < outer.duration_us - 1900.0);
        assert_eq!((inner.depth, outer.depth), (1, 0));
        assert!(!is_enabled() && Range::new(|| unreachable!()).open.eq(&false));
    }
}
