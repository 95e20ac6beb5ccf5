//! The profiler's event recorder (what `torch.autograd.profiler.profile` reads): while it is
//! on, every op called from Python, every backward node the engine runs and every
//! `record_function` range becomes an event with its start, its duration and its self time
//! (the duration minus that of the events nested in it on the same thread). When it is off,
//! a range costs one atomic load.
//!
//! As PyTorch's, an op that records a backward node carries that node's sequence number, and
//! so do the engine's events for the node, with the thread the op ran on (`fwd_thread`): a
//! backward event can be traced to the forward op that made its node.
//!
//! With `record_shapes`, the caller notes an op's argument shapes ([`note_input_shapes`])
//! just before calling it, and the first range the call opens takes them.

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
    /// The sequence number of the backward node the op recorded, or of the node a backward
    /// event runs; -1 for other events.
    pub sequence_nr: i64,
    /// For a backward node's events: the thread of the op that recorded the node (0 else).
    pub fwd_thread: u64,
    /// The shapes of the op's arguments, when they were noted (an empty one for an argument
    /// that is not a tensor).
    pub input_shapes: Option<Vec<Vec<i64>>>,
}

struct Session {
    origin: Instant,
    events: Vec<Event>,
    threads: Vec<std::thread::ThreadId>,
    /// The thread each op that recorded a node ran on, by the node's sequence number.
    forward_threads: std::collections::HashMap<u64, u64>,
}

static ENABLED: AtomicBool = AtomicBool::new(false);
static SESSION: Mutex<Option<Session>> = Mutex::new(None);

/// An open range on this thread: its name, start, the time of the ranges nested in it, and the
/// sequence number it carries (-1: none yet) and whether it is a backward node's.
struct Open {
    name: String,
    start: Instant,
    nested_us: f64,
    sequence_nr: i64,
    backward: bool,
    input_shapes: Option<Vec<Vec<i64>>>,
}

thread_local! {
    static OPEN: RefCell<Vec<Open>> = const { RefCell::new(Vec::new()) };
    /// Argument shapes noted for the next range this thread opens.
    static NOTED: RefCell<Option<Vec<Vec<i64>>>> = const { RefCell::new(None) };
}

/// Notes the argument shapes of the op about to be called on this thread: the next range it
/// opens takes them (`None` forgets what was noted and not taken).
pub fn note_input_shapes(shapes: Option<Vec<Vec<i64>>>) {
    NOTED.with(|noted| *noted.borrow_mut() = shapes);
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
        forward_threads: std::collections::HashMap::new(),
    });
    ENABLED.store(true, Ordering::SeqCst);
}

/// Stops recording and returns the events, in the order they finished.
pub fn stop() -> Vec<Event> {
    ENABLED.store(false, Ordering::SeqCst);
    OPEN.with(|open| open.borrow_mut().clear());
    note_input_shapes(None);
    SESSION.lock().take().map(|s| s.events).unwrap_or_default()
}

/// Opens a range named `name()` on this thread, if recording (the name is only made then).
pub fn push(name: impl FnOnce() -> String) {
    push_numbered(name, None);
}

/// [`push`] for an event of the backward node numbered `sequence_nr`, if any.
fn push_numbered(name: impl FnOnce() -> String, sequence_nr: Option<u64>) {
    if !is_enabled() {
        return;
    }
    let name = name();
    let input_shapes = NOTED.with(|noted| noted.borrow_mut().take());
    OPEN.with(|open| {
        open.borrow_mut().push(Open {
            name,
            start: Instant::now(),
            nested_us: 0.0,
            sequence_nr: sequence_nr.map_or(-1, |s| s as i64),
            backward: sequence_nr.is_some(),
            input_shapes,
        })
    });
}

/// Called when a backward node numbered `sequence_nr` is made: the op running on this thread
/// (the innermost open `aten::` range that has no number yet) takes the node's number.
pub fn note_node(sequence_nr: u64) {
    if !is_enabled() {
        return;
    }
    OPEN.with(|open| {
        if let Some(op) = open.borrow_mut().last_mut() {
            if op.sequence_nr < 0 && !op.backward && op.name.starts_with("aten::") {
                op.sequence_nr = sequence_nr as i64;
            }
        }
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
    let fwd_thread = match (range.backward, range.sequence_nr) {
        (false, seq) if seq >= 0 => {
            session.forward_threads.insert(seq as u64, thread);
            0
        }
        (true, seq) => session
            .forward_threads
            .get(&(seq as u64))
            .copied()
            .unwrap_or(0),
        _ => 0,
    };
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
        sequence_nr: range.sequence_nr,
        fwd_thread,
        input_shapes: range.input_shapes,
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

    /// Opens a range named `name()` for running the backward node numbered `sequence_nr`.
    pub fn backward(name: impl FnOnce() -> String, sequence_nr: u64) -> Range {
        let open = is_enabled();
        if open {
            push_numbered(name, Some(sequence_nr));
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
