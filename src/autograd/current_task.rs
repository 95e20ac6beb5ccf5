//! What code running inside a backward pass can ask of the graph task running it: its id,
//! whether it will execute a given node, and final callbacks (PyTorch's
//! `_current_graph_task_id`, `_will_engine_execute_node` and
//! `Variable._execution_engine.queue_callback`, on which `register_multi_grad_hook` is built).
//!
//! Final callbacks run in the order queued once the task's graph has run (a callback may queue
//! more; they run too). A reentrant backward is a graph task of its own: what is queued while
//! its nodes run waits for it, not for the outer one.

use super::node::Node;
use crate::core::error::{Error, Result};
use parking_lot::Mutex;
use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// A function to call when the running graph task has finished.
pub type FinalCallback = Box<dyn FnOnce() -> Result<()> + Send>;

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Whether tasks record which nodes they execute (see [`record_execution_sets`]).
static RECORD_EXECUTION: AtomicBool = AtomicBool::new(false);

/// One graph task's context, shared with the threads running its nodes.
pub(super) struct TaskContext {
    id: u64,
    callbacks: Mutex<Vec<FinalCallback>>,
    /// The addresses of the nodes the task executes (or captures), when recorded.
    executes: OnceLock<HashSet<usize>>,
    /// Whether the task is a `grad()` call (it captures gradients instead of accumulating).
    captures: AtomicBool,
    /// Whether the task runs the whole graph into `.grad` (a plain `backward()`): not a
    /// `grad()` call nor `backward(inputs=...)` (see [`is_checkpoint_valid`]).
    whole_graph: AtomicBool,
}

impl Default for TaskContext {
    fn default() -> Self {
        TaskContext {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            callbacks: Mutex::new(Vec::new()),
            executes: OnceLock::new(),
            captures: AtomicBool::new(false),
            whole_graph: AtomicBool::new(true),
        }
    }
}

thread_local! {
    /// The contexts of the graph tasks whose nodes this thread is running, innermost last.
    static CURRENT: RefCell<Vec<Arc<TaskContext>>> = const { RefCell::new(Vec::new()) };
}

/// While alive, this thread runs nodes of the task it was made for.
pub(super) struct Installed(());

impl Drop for Installed {
    fn drop(&mut self) {
        CURRENT.with(|c| c.borrow_mut().pop());
    }
}

impl TaskContext {
    /// Makes `context` this thread's current task until the result is dropped.
    pub(super) fn install(context: &Arc<TaskContext>) -> Installed {
        CURRENT.with(|c| c.borrow_mut().push(context.clone()));
        Installed(())
    }

    /// Marks the task as a `grad()` call or a `backward(inputs=...)` (see
    /// [`is_checkpoint_valid`]).
    pub(super) fn set_partial(&self) {
        self.whole_graph.store(false, Ordering::Relaxed);
    }

    /// Whether the task should record the nodes it executes ([`TaskContext::set_executes`]).
    pub(super) fn wants_execution_set() -> bool {
        RECORD_EXECUTION.load(Ordering::Relaxed)
    }

    /// Records the nodes the task executes or captures, and whether it is a `grad()` call.
    pub(super) fn set_executes(&self, nodes: impl Iterator<Item = *const Node>, captures: bool) {
        self.captures.store(captures, Ordering::Relaxed);
        let _ = self.executes.set(nodes.map(|n| n as usize).collect());
    }

    /// Calls the queued callbacks, and those they queue, until none is left; the first error
    /// stops the rest.
    pub(super) fn run_callbacks(&self) -> Result<()> {
        loop {
            let batch = std::mem::take(&mut *self.callbacks.lock());
            if batch.is_empty() {
                return Ok(());
            }
            for callback in batch {
                callback()?;
            }
        }
    }
}

fn current() -> Option<Arc<TaskContext>> {
    CURRENT.with(|c| c.borrow().last().cloned())
}

/// Queues `callback` to run when the graph task whose node is running on this thread finishes;
/// refused outside a backward pass, with PyTorch's message.
pub fn queue_callback(callback: FinalCallback) -> Result<()> {
    match current() {
        Some(task) => {
            task.callbacks.lock().push(callback);
            Ok(())
        }
        None => Err(Error::runtime(
            "Final callbacks can only be installed during backward pass.",
        )),
    }
}

/// The id of the graph task running on this thread, or `None` outside a backward pass.
pub fn current_graph_task_id() -> Option<u64> {
    current().map(|t| t.id)
}

/// Whether a reentrant checkpoint may run its backward here (PyTorch's
/// `torch.autograd._is_checkpoint_valid`): false while this thread runs nodes of a `grad()`
/// call or a `backward(inputs=...)`, outer tasks included, since the inner `backward()` a
/// reentrant checkpoint runs would accumulate into `.grad` instead of reaching the gradients
/// asked for.
pub fn is_checkpoint_valid() -> bool {
    CURRENT.with(|c| {
        c.borrow()
            .iter()
            .all(|t| t.whole_graph.load(Ordering::Relaxed))
    })
}

/// From now on, graph tasks record which nodes they execute, so that
/// [`will_engine_execute_node`] can answer (`register_multi_grad_hook` asks; a backward pass
/// then costs one set of node addresses more).
pub fn record_execution_sets() {
    RECORD_EXECUTION.store(true, Ordering::Relaxed);
}

/// Whether the graph task running on this thread executes (or captures the gradient of)
/// `node`; refused outside a backward pass, and for a task that began before
/// [`record_execution_sets`] was first called.
pub fn will_engine_execute_node(node: &Arc<Node>) -> Result<bool> {
    let task = current().ok_or_else(|| {
        Error::runtime("_will_engine_execute_node should only be called during the backward pass")
    })?;
    if task.captures.load(Ordering::Relaxed)
        && matches!(node.kind(), super::node::NodeKind::AccumulateGrad(_))
    {
        return Err(Error::runtime(
            "A leaf node was passed to _will_engine_execute_node but we are currently running autograd.grad(). This is currently not supported.",
        ));
    }
    let executes = task.executes.get().ok_or_else(|| {
        Error::runtime(
            "_will_engine_execute_node: this backward pass began before the engine was asked to \
             record the nodes it executes (register the multi-grad hook before the backward)",
        )
    })?;
    Ok(executes.contains(&(Arc::as_ptr(node) as usize)))
}

/// Whether backward passes may run independent branches on several threads (on by default).
static MULTITHREADING: AtomicBool = AtomicBool::new(true);

/// Allows or forbids running a backward pass's independent branches on several threads
/// (PyTorch's `torch.autograd.set_multithreading_enabled`); the gradients are the same either
/// way.
pub fn set_multithreading_enabled(enabled: bool) {
    MULTITHREADING.store(enabled, Ordering::Relaxed);
}

/// Whether backward passes may run independent branches on several threads.
pub fn is_multithreading_enabled() -> bool {
    MULTITHREADING.load(Ordering::Relaxed)
}
