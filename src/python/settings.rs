//! Global settings: print options, the default dtype, threads, dtype promotion, grad and
//! inference modes, view replay, warnings, the engine's threading and logging.

use super::convert::{dtype_arg, operand_arg};
use super::errors::run;
use crate::core::dtype::DType;
use pyo3::prelude::*;

/// Sets every print option (`torch.set_printoptions` fills in the ones not given).
#[pyfunction]
#[pyo3(signature = (precision: "int", threshold: "float", edgeitems: "int", linewidth: "int", sci_mode: "bool | None") -> "None")]
pub(crate) fn _set_printoptions(
    precision: usize,
    threshold: f64,
    edgeitems: usize,
    linewidth: usize,
    sci_mode: Option<bool>,
) {
    crate::core::format::set_print_options(crate::core::format::PrintOptions {
        precision,
        threshold: if threshold >= usize::MAX as f64 {
            usize::MAX
        } else {
            threshold.max(0.0) as usize
        },
        edgeitems,
        linewidth,
        sci_mode,
    });
}

/// The print options in effect: `(precision, threshold, edgeitems, linewidth, sci_mode)`.
#[pyfunction]
#[pyo3(signature = () -> "tuple[int, float, int, int, bool | None]")]
pub(crate) fn _get_printoptions() -> (usize, f64, usize, usize, Option<bool>) {
    let o = crate::core::format::print_options();
    let threshold = if o.threshold == usize::MAX {
        f64::INFINITY
    } else {
        o.threshold as f64
    };
    (o.precision, threshold, o.edgeitems, o.linewidth, o.sci_mode)
}

/// Sets the default floating dtype (float32 or float64).
#[pyfunction]
#[pyo3(signature = (dtype: "Any") -> "None")]
pub(crate) fn _set_default_dtype(dtype: &Bound<'_, PyAny>) -> PyResult<()> {
    let d = dtype_arg(Some(dtype))?.ok_or_else(|| {
        pyo3::exceptions::PyTypeError::new_err("set_default_dtype expects a dtype")
    })?;
    run(|| crate::core::dtype::set_default_float(d))
}

/// The default floating dtype.
#[pyfunction]
#[pyo3(signature = () -> "dtype")]
pub(crate) fn _get_default_dtype(py: Python<'_>) -> PyResult<Py<super::convert::PyDType>> {
    super::convert::dtype_object(py, crate::core::dtype::default_float())
}

/// Sets the number of threads used by parallel kernels (matmul, large elementwise ops).
#[pyfunction]
#[pyo3(signature = (threads: "int") -> "None")]
pub(crate) fn set_num_threads(threads: i64) -> PyResult<()> {
    if threads <= 0 {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "set_num_threads expects a positive integer (got {threads})"
        )));
    }
    crate::set_num_threads(threads as usize);
    Ok(())
}

/// `torch.promote_types`: the dtype both convert to (see [`DType::promote`]).
#[pyfunction]
#[pyo3(signature = (type1: "dtype", type2: "dtype") -> "dtype")]
pub(crate) fn promote_types(
    py: Python<'_>,
    type1: &Bound<'_, PyAny>,
    type2: &Bound<'_, PyAny>,
) -> PyResult<Py<super::convert::PyDType>> {
    let (a, b) = (
        dtype_required(type1, "type1")?,
        dtype_required(type2, "type2")?,
    );
    super::convert::dtype_object(py, DType::promote(a, b))
}

/// `torch.can_cast`: whether PyTorch's casting rules let `from_` be written into `to` in place
/// (never to a lower category: float to integer, integer to bool).
#[pyfunction]
#[pyo3(signature = (from_: "dtype", to: "dtype") -> "bool")]
pub(crate) fn can_cast(from_: &Bound<'_, PyAny>, to: &Bound<'_, PyAny>) -> PyResult<bool> {
    let (from, to) = (dtype_required(from_, "from_")?, dtype_required(to, "to")?);
    Ok(to.can_hold(from))
}

/// `torch.result_type`: the dtype an arithmetic op on `tensor` and `other` (each a tensor or a
/// number) gives.
#[pyfunction]
#[pyo3(signature = (tensor: "Any", other: "Any") -> "dtype")]
pub(crate) fn result_type(
    py: Python<'_>,
    tensor: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<super::convert::PyDType>> {
    use super::convert::OwnedOperand as O;
    let dtype = match (operand_arg(tensor), operand_arg(other)) {
        (Some(O::Tensor(a)), Some(O::Tensor(b))) => crate::ops::result_type(&a, &b),
        (Some(O::Tensor(t)), Some(O::Scalar(s))) | (Some(O::Scalar(s)), Some(O::Tensor(t))) => {
            s.result_type_with(t.dtype())
        }
        (Some(O::Scalar(a)), Some(O::Scalar(b))) => {
            DType::promote(a.natural_dtype(), b.natural_dtype())
        }
        _ => {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "result_type() received an invalid combination of arguments - got ({}, {})",
                tensor.get_type().name()?,
                other.get_type().name()?
            )))
        }
    };
    super::convert::dtype_object(py, dtype)
}

/// A dtype argument that must be given (`promote_types`, `can_cast`).
fn dtype_required(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<DType> {
    match obj.cast::<super::convert::PyDType>() {
        Ok(d) => Ok(d.get().inner),
        Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "argument '{name}' must be torch.dtype, not {}",
            obj.get_type().name()?
        ))),
    }
}

/// The number of threads used by parallel kernels.
#[pyfunction]
#[pyo3(signature = () -> "int")]
pub(crate) fn get_num_threads() -> usize {
    crate::cpu::parallel::requested_threads()
}

/// Whether this thread records autograd history.
#[pyfunction]
#[pyo3(signature = () -> "bool")]
pub(crate) fn is_grad_enabled() -> bool {
    crate::is_grad_enabled()
}

/// Sets grad mode for this thread; returns the previous mode.
#[pyfunction]
#[pyo3(signature = (enabled: "bool") -> "bool")]
pub(crate) fn _set_grad_enabled(enabled: bool) -> bool {
    crate::set_grad_enabled(enabled)
}

/// Whether views made on this thread replay their own view ops when an in-place write makes
/// their history stale (`torch.autograd.is_view_replay_enabled`).
#[pyfunction]
#[pyo3(signature = () -> "bool")]
pub(crate) fn _is_view_replay_enabled() -> bool {
    crate::core::grad_mode::is_view_replay_enabled()
}

/// Sets view replay for this thread; returns the previous setting.
#[pyfunction]
#[pyo3(signature = (enabled: "bool") -> "bool")]
pub(crate) fn _set_view_replay_enabled(enabled: bool) -> bool {
    crate::core::grad_mode::set_view_replay_enabled(enabled)
}

static WARN_ALWAYS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static WARNED_CREATE_GRAPH: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// `torch.set_warn_always(b)`: warnings PyTorch gives once per process are given every time.
#[pyfunction]
#[pyo3(signature = (b: "bool") -> "None")]
pub(crate) fn _set_warn_always(b: bool) {
    WARN_ALWAYS.store(b, std::sync::atomic::Ordering::Relaxed);
}

/// `torch.is_warn_always_enabled()`.
#[pyfunction]
#[pyo3(signature = () -> "bool")]
pub(crate) fn _is_warn_always_enabled() -> bool {
    WARN_ALWAYS.load(std::sync::atomic::Ordering::Relaxed)
}

/// PyTorch's warning for `backward(create_graph=True)` (once per process unless
/// `set_warn_always(True)`): the leaves' gradients then hold graphs that hold the leaves.
pub(crate) fn warn_create_graph_cycle(py: Python<'_>) -> PyResult<()> {
    use std::sync::atomic::Ordering::Relaxed;
    if WARNED_CREATE_GRAPH.swap(true, Relaxed) && !WARN_ALWAYS.load(Relaxed) {
        return Ok(());
    }
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        c"Using backward() with create_graph=True will create a reference cycle between the \
parameter and its gradient which can cause a memory leak. We recommend using autograd.grad \
when creating the graph to avoid this. If you have to use this function, make sure to reset \
the .grad fields of your parameters to None after use to break the cycle and avoid the leak.",
        1,
    )
}

/// Enters or leaves inference mode on this thread (grad mode set to the opposite); returns the
/// previous (grad mode, inference mode) for `_restore_inference_mode`.
#[pyfunction]
#[pyo3(signature = (enabled: "bool") -> "tuple[bool, bool]")]
pub(crate) fn _set_inference_mode(enabled: bool) -> (bool, bool) {
    crate::core::grad_mode::set_inference_mode(enabled)
}

/// Restores what `_set_inference_mode` returned.
#[pyfunction]
#[pyo3(signature = (grad: "bool", inference: "bool") -> "None")]
pub(crate) fn _restore_inference_mode(grad: bool, inference: bool) {
    crate::core::grad_mode::restore_inference_mode((grad, inference));
}

/// Whether this thread is in inference mode.
#[pyfunction]
#[pyo3(signature = () -> "bool")]
pub(crate) fn is_inference_mode_enabled() -> bool {
    crate::core::grad_mode::is_inference_mode_enabled()
}

/// Whether the engine may run independent branches of a backward pass on several threads.
#[pyfunction]
#[pyo3(signature = () -> "bool")]
pub(crate) fn is_multithreading_enabled() -> bool {
    crate::autograd::is_multithreading_enabled()
}

static AUTOGRAD_LOGGING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the engine's log is on (`torch._logging.set_logs(autograd=logging.DEBUG)`), which
/// `Tensor.backward` then leaves to `autograd.backward` to attach.
pub(crate) fn autograd_logging() -> bool {
    AUTOGRAD_LOGGING.load(std::sync::atomic::Ordering::Relaxed)
}

/// Turns the engine's log on or off (see [`autograd_logging`]).
#[pyfunction]
#[pyo3(signature = (enabled: "bool") -> "None")]
pub(crate) fn _set_autograd_logging(enabled: bool) {
    AUTOGRAD_LOGGING.store(enabled, std::sync::atomic::Ordering::Relaxed);
}

/// Allows or forbids running a backward pass's independent branches on several threads.
#[pyfunction]
#[pyo3(signature = (enabled: "bool") -> "None")]
pub(crate) fn _set_multithreading_enabled(enabled: bool) {
    crate::autograd::set_multithreading_enabled(enabled);
}
