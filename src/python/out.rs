//! PyTorch's `out=` argument: an op's result written into a tensor the caller gives.

use super::errors::run;
use super::tensor::PyTensor;
use crate::core::grad_mode::is_grad_enabled;
use crate::core::layout::fmt_shape;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The result of `compute` (the op named `op` on `inputs`), or with `out`, that result written
/// into `out`, which is returned, as PyTorch's `out=`:
/// - refused while grad mode is on if an input or `out` requires grad (autograd does not
///   record writes into `out`);
/// - `out` is resized to the result's shape when it has another, with PyTorch's deprecation
///   warning when it had elements; the result's dtype must be one `out` can hold;
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
        if target.numel() != 0 {
            let message = format!(
                "An output with one or more elements was resized since it had shape {}, which does not match the \
                 required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will \
                 not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing \
                 it, inplace, to zero elements with t.resize_(0).",
                fmt_shape(target.shape()),
                fmt_shape(result.shape())
            );
            let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
            PyErr::warn(py, &category, &std::ffi::CString::new(message)?, 1)?;
        }
        out.call_method1("resize_", (result.shape().to_vec(),))?;
    }
    let target = &out.get().inner;
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
#[pyo3(signature = (op: "str", out: "Tensor | None", inputs: "Sequence[Any]", compute: "Callable[[], Any]") -> "Any")]
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
