//! Profiler bindings: start and stop recording, open and close `record_function` ranges.

use crate::core::profiler;
use pyo3::prelude::*;

/// A finished event: `(name, start_us, duration_us, self_us, thread, depth, sequence_nr,
/// fwd_thread, input_shapes)`.
type EventTuple = (
    String,
    f64,
    f64,
    f64,
    u64,
    usize,
    i64,
    u64,
    Option<Vec<Vec<i64>>>,
);

/// Starts recording events (ops called from Python, backward nodes, labelled ranges).
#[pyfunction]
#[pyo3(signature = () -> "None")]
pub(crate) fn _profiler_start() {
    profiler::start();
}

/// Stops recording; returns the events in the order they finished.
#[pyfunction]
#[pyo3(signature = () -> "list[tuple[str, float, float, float, int, int, int, int, list[list[int]] | None]]")]
pub(crate) fn _profiler_stop() -> Vec<EventTuple> {
    profiler::stop()
        .into_iter()
        .map(|e| {
            (
                e.name,
                e.start_us,
                e.duration_us,
                e.self_us,
                e.thread,
                e.depth,
                e.sequence_nr,
                e.fwd_thread,
                e.input_shapes,
            )
        })
        .collect()
}

/// Opens a labelled range on this thread (`record_function.__enter__`).
#[pyfunction]
#[pyo3(signature = (name: "str") -> "None")]
pub(crate) fn _profiler_push(name: String) {
    profiler::push(|| name);
}

/// Closes the innermost range on this thread (`record_function.__exit__`).
#[pyfunction]
#[pyo3(signature = () -> "None")]
pub(crate) fn _profiler_pop() {
    profiler::pop();
}

/// Notes the argument shapes of the op about to be called (`record_shapes`): the next event
/// this thread opens takes them; `None` forgets them.
#[pyfunction]
#[pyo3(signature = (shapes: "list[list[int]] | None") -> "None")]
pub(crate) fn _profiler_note_inputs(shapes: Option<Vec<Vec<i64>>>) {
    profiler::note_input_shapes(shapes);
}

/// Whether the profiler is recording.
#[pyfunction]
#[pyo3(signature = () -> "bool")]
pub(crate) fn _profiler_enabled() -> bool {
    profiler::is_enabled()
}
