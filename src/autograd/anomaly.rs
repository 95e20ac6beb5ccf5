//! Anomaly detection (PyTorch's `detect_anomaly`): while it is on, every node remembers where
//! in the user's program it was made (and, when a backward made it, the node whose backward
//! did: its parent), a backward node whose results hold NaN is an error, and an error in a
//! node's backward is reported with the forward call that made the node, then with each
//! parent's.
//!
//! The core knows nothing of the language that called it: a binding installs a [`Reporter`]
//! that captures a traceback when a node is made and reports it when the node fails.

use super::node::Node;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::OnceLock;

const ENABLED: u8 = 1;
const CHECK_NAN: u8 = 2;

/// Global, as PyTorch's `AnomalyMode` (not per thread).
static MODE: AtomicU8 = AtomicU8::new(0);

/// What a binding does for anomaly detection: capture where a node is being made, and report
/// a node's failure with that capture (or without one).
pub trait Reporter: Send + Sync {
    /// The user's call stack now, as text (called when a node is made in anomaly mode).
    fn capture(&self) -> Option<String>;
    /// Reports that `node` failed in backward; `trace` is what [`Reporter::capture`] gave
    /// when it was made (`None`: it was made outside anomaly mode). `induced`: `node` is not
    /// the failing node but the parent whose backward made it (or made its parent...).
    fn report(&self, node: &str, trace: Option<&str>, induced: bool);
}

thread_local! {
    /// The nodes whose backward formula this thread is running (innermost last), kept in
    /// anomaly mode so that a node made meanwhile knows its parent.
    static EVALUATING: std::cell::RefCell<Vec<std::sync::Arc<Node>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// While alive (in anomaly mode), `node` is the one whose backward this thread runs.
pub(crate) struct Evaluating(bool);

impl Evaluating {
    /// Marks `node` as running its backward on this thread, when anomaly detection is on.
    pub(crate) fn new(node: &std::sync::Arc<Node>) -> Evaluating {
        let on = is_anomaly_enabled();
        if on {
            EVALUATING.with(|e| e.borrow_mut().push(node.clone()));
        }
        Evaluating(on)
    }
}

impl Drop for Evaluating {
    fn drop(&mut self) {
        if self.0 {
            EVALUATING.with(|e| e.borrow_mut().pop());
        }
    }
}

/// Records, on a node being made in anomaly mode, where it is made and the node whose
/// backward is making it (if any).
pub(crate) fn remember_origin(node: &Node) {
    if !is_anomaly_enabled() {
        return;
    }
    if let Some(trace) = REPORTER.get().and_then(|r| r.capture()) {
        node.set_forward_trace(trace);
    }
    if let Some(parent) = EVALUATING.with(|e| e.borrow().last().cloned()) {
        node.set_anomaly_parent(parent);
    }
}

static REPORTER: OnceLock<Box<dyn Reporter>> = OnceLock::new();

/// Installs the binding's reporter (once per process; later calls are ignored).
pub fn set_reporter(reporter: Box<dyn Reporter>) {
    let _ = REPORTER.set(reporter);
}

/// Turns anomaly detection on or off; `check_nan` also checks backward results for NaN.
pub fn set_anomaly_enabled(enabled: bool, check_nan: bool) {
    let mode = match (enabled, check_nan) {
        (false, _) => 0,
        (true, false) => ENABLED,
        (true, true) => ENABLED | CHECK_NAN,
    };
    MODE.store(mode, Relaxed);
}

/// Whether anomaly detection is on.
pub fn is_anomaly_enabled() -> bool {
    MODE.load(Relaxed) & ENABLED != 0
}

/// Whether anomaly detection checks backward results for NaN.
pub fn is_anomaly_check_nan_enabled() -> bool {
    MODE.load(Relaxed) & CHECK_NAN != 0
}

/// PyTorch's NaN check of a node's results, when anomaly detection checks for NaN.
pub(crate) fn check_results(node: &Node, results: &[Option<Tensor>]) -> Result<()> {
    if !is_anomaly_check_nan_enabled() {
        return Ok(());
    }
    for (i, g) in results.iter().enumerate() {
        let Some(g) = g else { continue };
        if g.dtype().is_floating_point() && g.to_f64_vec().iter().any(|v| v.is_nan()) {
            return Err(Error::runtime(format!(
                "Function '{}' returned nan values in its {i}th output.",
                node.name()
            )));
        }
    }
    Ok(())
}

/// Reports a node's failure in backward (with its forward trace, then its parents'), when
/// anomaly detection is on.
pub(crate) fn report_failure(node: &Node) {
    if !is_anomaly_enabled() {
        return;
    }
    let Some(r) = REPORTER.get() else { return };
    r.report(node.name(), node.forward_trace().as_deref(), false);
    let mut parent = node.anomaly_parent();
    while let Some(p) = parent {
        r.report(p.name(), p.forward_trace().as_deref(), true);
        parent = p.anomaly_parent();
    }
}
