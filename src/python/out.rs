//! PyTorch's `out=` argument: an op's result written into a tensor the caller gives.

use super::run;
use super::tensor::PyTensor;
use crate::core::grad_mode::is_grad_enabled;
use crate::core::layout::fmt_shape;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The result of `compute` (the op named `op` on `inputs`), or with `out`, that result written
/// into `out`, which is returned, as PyTorch's `out=`:
/// - refused while grad mode is on if an input or `out` requires grad (autograd does not
///   record writes into `out`);
/// - the result must have `out`'s shape (PyTorch would resize `out`; ferrograd cannot change a
///   tensor's shape in place, and says so) and a dtype `out` can hold;
/// - the write is an in-place write into `out`: its version moves on, and an inference tensor
///   outside inference mode is refused, as by `copy_`.
pub(crate) fn with_out(
    py: Python<'_>,
    op: &str,
    out: Option<&Bound<'_, PyTensor>>,
    inputs: &[&Bound<'_, PyAny>],
    compute: impl FnOnce() -> PyResult<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let Some(out) = out else {
        return compute();
    };
    let target = &out.get().inner;
    let input_requires_grad = inputs.iter().any(|i| {
        i.cast::<PyTensor>()
            .is_ok_and(|t| t.get().inner.requires_grad())
    });
    if is_grad_enabled() && (input_requires_grad || target.requires_grad()) {
        return Err(PyRuntimeError::new_err(format!(
            "{op}(): functions with out=... arguments don't support automatic differentiation, but one of the \
             arguments requires grad."
        )));
    }
    let result = compute()?;
    let result = &result.bind(py).cast::<PyTensor>()?.get().inner;
    if result.shape() != target.shape() {
        return Err(PyRuntimeError::new_err(format!(
            "{op}(): ferrograd cannot resize the out= tensor, which has shape {}, to the result's shape {}; pass \
             an out= tensor of the result's shape",
            fmt_shape(target.shape()),
            fmt_shape(result.shape())
        )));
    }
    run(|| {
        target.check_result_dtype(result.dtype(), "")?;
        target.copy_(result)
    })?;
    Ok(out.clone().into_any().unbind())
}

/// `_with_out(op, out, inputs, compute)`: PyTorch's `out=` for functions written in Python:
/// `compute()` is called and its result copied into `out` (when given), with the refusals of
/// [`with_out`] (an input requiring grad, a shape or dtype `out` cannot take).
#[pyfunction]
pub(crate) fn _with_out(
    py: Python<'_>,
    op: &str,
    out: Option<Bound<'_, PyTensor>>,
    inputs: Vec<Bound<'_, PyAny>>,
    compute: Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let refs: Vec<&Bound<'_, PyAny>> = inputs.iter().collect();
    with_out(py, op, out.as_ref(), &refs, || {
        Ok(compute.call0()?.unbind())
    })
}
