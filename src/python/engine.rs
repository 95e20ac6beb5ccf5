//! The engine's entry points for Python: `backward`, `autograd.grad`, gradient edges, the
//! running graph task's callbacks and queries.

use super::convert::{tensor_arg, tensor_list};
use super::errors::run_unnamed;
use super::hooks::from_py_err;
use super::settings::warn_create_graph_cycle;
use super::tensor::{to_object, PyTensor};
use crate::autograd::GradOptions;
use crate::core::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// Where a backward pass starts or stops: a tensor, a `GradientEdge` (a `(node, output
/// number)` pair), or a sequence of them.
fn root_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<crate::autograd::Root>> {
    use crate::autograd::{Edge, Root};
    let edge = |o: &Bound<'_, PyAny>| -> Option<Edge> {
        let (node, nr) = o
            .extract::<(PyRef<'_, super::node::PyNode>, usize)>()
            .ok()?;
        Some(Edge {
            node: node.inner.clone(),
            input_nr: nr,
        })
    };
    if obj.cast::<PyTensor>().is_ok() {
        return Ok(vec![Root::Tensor(tensor_arg(obj, what)?)]);
    }
    if let Some(e) = edge(obj) {
        return Ok(vec![Root::Edge(e)]);
    }
    obj.try_iter()?
        .map(|o| {
            let o = o?;
            match edge(&o) {
                Some(e) => Ok(Root::Edge(e)),
                None => tensor_arg(&o, what).map(Root::Tensor),
            }
        })
        .collect()
}

/// Optional gradients: None, a tensor, or a sequence of tensors/None.
fn optional_tensor_list(
    obj: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Vec<Option<Tensor>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(vec![]);
    };
    if obj.cast::<PyTensor>().is_ok() {
        return Ok(vec![Some(tensor_arg(obj, what)?)]);
    }
    obj.try_iter()?
        .map(|t| {
            let t = t?;
            if t.is_none() {
                Ok(None)
            } else {
                tensor_arg(&t, what).map(Some)
            }
        })
        .collect()
}

/// `autograd.grad(outputs, inputs, ...)`: gradients of `outputs` with respect to `inputs`, as a tuple.
#[pyfunction]
#[pyo3(signature = (outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=false, allow_unused=None, materialize_grads=false))]
#[allow(clippy::too_many_arguments)]
// Without `allow_unused=True` an input the outputs do not depend on is an error (or, with
// `materialize_grads=True`, gets zeros), so every gradient is a tensor; with it, such an input
// gets None.
// stub: (
//     outputs: _Tensors,
//     inputs: _Tensors,
//     grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
//     retain_graph: bool | None = None,
//     create_graph: bool = False,
//     allow_unused: Literal[False] | None = None,
//     materialize_grads: bool = False,
// ) -> tuple[Tensor, ...]
// stub: (
//     outputs: _Tensors,
//     inputs: _Tensors,
//     grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
//     retain_graph: bool | None = None,
//     create_graph: bool = False,
//     *,
//     allow_unused: bool | None = None,
//     materialize_grads: Literal[True],
// ) -> tuple[Tensor, ...]
// stub: (
//     outputs: _Tensors,
//     inputs: _Tensors,
//     grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
//     retain_graph: bool | None = None,
//     create_graph: bool = False,
//     allow_unused: bool | None = None,
//     materialize_grads: bool = False,
// ) -> tuple[Tensor | None, ...]
pub(crate) fn grad<'py>(
    py: Python<'py>,
    outputs: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
    grad_outputs: Option<&Bound<'py, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: Option<bool>,
    materialize_grads: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let outs = root_list(outputs, "outputs")?;
    let ins = tensor_list(inputs, "inputs")?;
    let mut gos = optional_tensor_list(grad_outputs, "grad_outputs")?;
    gos.truncate(outs.len().max(1)); // extra gradients are ignored, as PyTorch's zip
    let options = GradOptions {
        retain_graph,
        create_graph,
        allow_unused: allow_unused.unwrap_or(materialize_grads),
    };
    let results =
        py.detach(|| run_unnamed(|| crate::autograd::grad_from(&outs, &ins, &gos, options)))?;
    let items = results
        .into_iter()
        .zip(&ins)
        .map(|(r, input)| match (r, materialize_grads) {
            (Some(g), _) => to_object(py, g),
            (None, true) => to_object(py, input.zeros_like()),
            (None, false) => Ok(py.None()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

/// The gradient edge of a tensor (`autograd.graph.get_gradient_edge`): its node (the leaf's
/// AccumulateGrad for a leaf) and which output of it the tensor is.
#[pyfunction]
#[pyo3(signature = (tensor: "Tensor") -> "tuple[Node, int]")]
pub(crate) fn _gradient_edge(
    py: Python<'_>,
    tensor: PyRef<'_, PyTensor>,
) -> PyResult<(Py<PyAny>, usize)> {
    let Some(edge) = crate::autograd::gradient_edge(&tensor.inner) else {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "It is not possible to get the gradient edge for a Tensor that does not require gradients",
        ));
    };
    edge.node.record_output_meta(edge.input_nr, &tensor.inner);
    Ok((super::node::node_object(py, edge.node)?, edge.input_nr))
}

/// `autograd.grad` with respect to gradient edges `(node, output number)`.
#[pyfunction]
#[pyo3(signature = (outputs: "Tensor | Sequence[Tensor]", edges: "Sequence[tuple[Node, int]]", grad_outputs: "Tensor | Sequence[Tensor | None] | None" = None, retain_graph: "bool | None" = None, create_graph: "bool" = false, allow_unused: "bool" = false) -> "tuple[Tensor | None, ...]")]
pub(crate) fn _grad_to_edges<'py>(
    py: Python<'py>,
    outputs: &Bound<'py, PyAny>,
    edges: Vec<(PyRef<'py, super::node::PyNode>, usize)>,
    grad_outputs: Option<&Bound<'py, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let outs = root_list(outputs, "outputs")?;
    let mut gos = optional_tensor_list(grad_outputs, "grad_outputs")?;
    gos.truncate(outs.len().max(1));
    let edges: Vec<crate::autograd::Edge> = edges
        .iter()
        .map(|(node, nr)| crate::autograd::Edge {
            node: node.inner.clone(),
            input_nr: *nr,
        })
        .collect();
    let options = GradOptions {
        retain_graph,
        create_graph,
        allow_unused,
    };
    let results =
        py.detach(|| run_unnamed(|| crate::autograd::grad_to_edges(&outs, &edges, &gos, options)))?;
    let items = results
        .into_iter()
        .map(|r| match r {
            Some(g) => to_object(py, g),
            None => Ok(py.None()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

/// Counts an in-place change of `tensor` that autograd did not see (`autograd.graph
/// .increment_version`); inference tensors have no counter and are left alone.
#[pyfunction]
#[pyo3(signature = (tensor: "Tensor") -> "None")]
pub(crate) fn _increment_version(tensor: PyRef<'_, PyTensor>) {
    if !tensor.inner.is_inference() {
        tensor.inner.storage().bump_version("increment_version");
    }
}

/// `autograd.backward(tensors, grad_tensors, ...)`: accumulates into the leaves' `.grad`.
#[pyfunction]
#[pyo3(signature = (tensors: "_Tensors", grad_tensors: "Tensor | Sequence[Tensor | None] | None" = None, retain_graph: "bool | None" = None, create_graph: "bool" = false, inputs: "_Tensors | None" = None) -> "None")]
pub(crate) fn backward(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    grad_tensors: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let ts = root_list(tensors, "tensors")?;
    if create_graph {
        warn_create_graph_cycle(py)?;
    }
    let mut gs = optional_tensor_list(grad_tensors, "grad_tensors")?;
    gs.truncate(ts.len().max(1)); // extra gradients are ignored, as PyTorch's zip
    match inputs.filter(|i| !i.is_none()) {
        Some(inputs) => {
            let ins = root_list(inputs, "inputs")?;
            py.detach(|| {
                run_unnamed(|| {
                    crate::autograd::backward_from_to(&ts, &gs, &ins, retain_graph, create_graph)
                })
            })
        }
        None => py.detach(|| {
            run_unnamed(|| crate::autograd::backward_from(&ts, &gs, retain_graph, create_graph))
        }),
    }
}

/// `Variable._execution_engine.queue_callback(callback)`: `callback()` runs once the running
/// backward pass has finished (refused outside one).
#[pyfunction]
#[pyo3(signature = (callback: "Callable[[], object]") -> "None")]
pub(crate) fn _queue_callback(callback: Py<PyAny>) -> PyResult<()> {
    let call: crate::autograd::FinalCallback =
        Box::new(move || Python::attach(|py| callback.call0(py).map(drop).map_err(from_py_err)));
    run_unnamed(|| crate::autograd::queue_callback(call))
}

/// The id of the backward pass running on this thread, -1 outside one.
#[pyfunction]
#[pyo3(signature = () -> "int")]
pub(crate) fn _current_graph_task_id() -> i64 {
    crate::autograd::current_graph_task_id().map_or(-1, |id| id as i64)
}

/// Whether a reentrant checkpoint may run its backward here: false inside a `grad()` call or a
/// `backward(inputs=...)` (see [`crate::autograd::is_checkpoint_valid`]).
#[pyfunction]
#[pyo3(signature = () -> "bool")]
pub(crate) fn _is_checkpoint_valid() -> bool {
    crate::autograd::is_checkpoint_valid()
}

/// Whether the running backward pass executes `node` (see
/// [`crate::autograd::will_engine_execute_node`]).
#[pyfunction]
#[pyo3(signature = (node: "Node") -> "bool")]
pub(crate) fn _will_engine_execute_node(node: PyRef<'_, super::node::PyNode>) -> PyResult<bool> {
    run_unnamed(|| crate::autograd::will_engine_execute_node(&node.inner))
}

/// From now on, backward passes record the nodes they execute (for `_will_engine_execute_node`).
#[pyfunction]
#[pyo3(signature = () -> "None")]
pub(crate) fn _record_execution_sets() {
    crate::autograd::record_execution_sets();
}
