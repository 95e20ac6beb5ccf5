//! The Python view of a graph node (`tensor.grad_fn`).

use crate::autograd::Node;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// A node of the backward graph: `AddBackward0`, `AccumulateGrad`, ...
#[pyclass(name = "Node", module = "ferrograd.autograd.graph", frozen)]
pub struct PyNode {
    pub(crate) inner: Arc<Node>,
}

#[pymethods]
impl PyNode {
    fn __repr__(&self) -> String {
        format!(
            "<{} object at {:#x}>",
            self.inner.name(),
            Arc::as_ptr(&self.inner) as usize
        )
    }

    /// The node's class name in PyTorch (`MulBackward0`).
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// The class name, as `type(grad_fn).__name__` gives it in PyTorch.
    #[getter]
    fn __name__(&self) -> String {
        self.inner.name().to_string()
    }

    /// `((node, input_nr), ...)` for each input; `(None, 0)` where an input needs no gradient.
    #[getter]
    fn next_functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items = self
            .inner
            .next_edges()
            .iter()
            .map(|e| match e {
                Some(e) => (
                    Some(PyNode {
                        inner: e.node.clone(),
                    }),
                    e.input_nr,
                )
                    .into_pyobject(py)
                    .map(|t| t.into_any()),
                None => (None::<PyNode>, 0usize)
                    .into_pyobject(py)
                    .map(|t| t.into_any()),
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, items)
    }

    /// The leaf tensor of an `AccumulateGrad` node.
    #[getter]
    fn variable(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = self.inner.variable().cloned().ok_or_else(|| {
            pyo3::exceptions::PyAttributeError::new_err(format!(
                "'{}' object has no attribute 'variable'",
                self.inner.name()
            ))
        })?;
        super::tensor::to_object(py, v)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyNode>()
            .is_ok_and(|o| Arc::ptr_eq(&self.inner, &o.get().inner))
    }

    fn __hash__(&self) -> isize {
        Arc::as_ptr(&self.inner) as isize
    }
}
