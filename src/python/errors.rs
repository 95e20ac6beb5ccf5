//! Core errors and panics as Python exceptions: every binding runs its core call through
//! [`run`] (or [`run_as`], [`run_unnamed`]), which maps a core error to PyTorch's exception
//! class ([`to_py_err`]), a refused element access of a wrapper tensor to its exception, and
//! any other panic to a `RuntimeError` instead of a crash.

use crate::core::error::{Error, ErrorKind};
use pyo3::exceptions::{
    PyIndexError, PyNotImplementedError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Converts a core error into the Python exception of the same kind.
pub(crate) fn to_py_err(e: Error) -> PyErr {
    if let Some(original) = e.payload.as_ref().and_then(|p| p.downcast_ref::<PyErr>()) {
        return Python::attach(|py| original.clone_ref(py));
    }
    match e.kind {
        ErrorKind::Runtime => PyRuntimeError::new_err(e.message),
        ErrorKind::Type => PyTypeError::new_err(e.message),
        ErrorKind::Index => PyIndexError::new_err(e.message),
        ErrorKind::Value => PyValueError::new_err(e.message),
        ErrorKind::NotImplemented => PyNotImplementedError::new_err(e.message),
        ErrorKind::LinAlg => LinAlgError::new_err(e.message),
    }
}

/// Runs core code for Python: errors become exceptions and a panic becomes a `RuntimeError`
/// instead of crossing into the interpreter. While the profiler records, the call is an event
/// named after the binding that made it.
pub(crate) fn run<T, F: FnOnce() -> crate::Result<T>>(f: F) -> PyResult<T> {
    let _range = crate::core::profiler::Range::new(op_name::<F>);
    run_named(f, op_name::<F>)
}

/// `run` for a helper shared by several bindings, which names the op itself.
pub(crate) fn run_as<T>(op: &str, f: impl FnOnce() -> crate::Result<T>) -> PyResult<T> {
    let _range = crate::core::profiler::Range::new(|| format!("aten::{op}"));
    run_named(f, || format!("aten::{op}"))
}

/// `run` without a profiler event (the engine's entry points: their nodes are the events).
pub(crate) fn run_unnamed<T>(f: impl FnOnce() -> crate::Result<T>) -> PyResult<T> {
    run_named(f, || "this op".to_string())
}

/// `run_unnamed`, naming the op `name()` in the refusal of a wrapper tensor's elements.
fn run_named<T>(
    f: impl FnOnce() -> crate::Result<T>,
    name: impl FnOnce() -> String,
) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => {
            let result = result.map_err(to_py_err)?;
            // an op that saved an inference tensor for backward is refused, as PyTorch's
            match crate::autograd::take_refused_save() {
                Some(refusal) => Err(to_py_err(refusal)),
                None => Ok(result),
            }
        }
        Err(payload) if payload.is::<crate::core::storage::NoElements>() => {
            Err(no_elements_error(&name()))
        }
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            Err(PyRuntimeError::new_err(format!(
                "internal error in ferrograd (please report it): {msg}"
            )))
        }
    }
}

/// Note [Op names for the profiler]: every binding calls the core through `run` with a
/// closure written inside the binding's method, and a closure's type is named after the
/// function that holds it (`ferrograd::python::tensor::PyTensor::mul::{{closure}}`). So the
/// profiler names a call `aten::<method>` from that type name, only while it records, without
/// every binding passing its name; Python's operator methods are mapped to PyTorch's ops.
fn op_name<F>() -> String {
    let full = std::any::type_name::<F>();
    let path = full.split("::{{closure}}").next().unwrap_or(full);
    let method = path.rsplit("::").next().unwrap_or(path);
    let op = match method.strip_prefix("__").and_then(|m| m.strip_suffix("__")) {
        Some("radd" | "iadd") => "add",
        Some("rsub" | "isub") => "sub",
        Some("rmul" | "imul") => "mul",
        Some("truediv" | "rtruediv" | "itruediv") => "div",
        Some("rmatmul") => "matmul",
        Some("rpow" | "ipow") => "pow",
        Some("getitem") => "index",
        Some("setitem") => "index_put_",
        Some(dunder) => dunder,
        None => method.trim_start_matches('_'),
    };
    format!("aten::{op}")
}

// named as PyTorch names its class (`torch._C._LinAlgError`), which error messages show
#[allow(non_camel_case_types)]
mod exception {
    pyo3::create_exception!(
        ferrograd._core,
        _LinAlgError,
        pyo3::exceptions::PyRuntimeError,
        "PyTorch's `torch.linalg.LinAlgError`: a factorization or solve failed on its input."
    );
}
pub(crate) use exception::_LinAlgError as LinAlgError;

/// Adds `_LinAlgError` to the module.
pub(crate) fn add_exception(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("_LinAlgError", m.py().get_type::<LinAlgError>())?;
    Ok(())
}

/// The exception for an op that read a wrapper tensor's (missing) elements: it has no
/// dispatch rule here yet.
pub(crate) fn no_elements_error(op: &str) -> PyErr {
    pyo3::exceptions::PyNotImplementedError::new_err(format!(
        "{op}: this op does not dispatch to __torch_dispatch__ in ferrograd yet, and a tensor \
         subclass made with _make_wrapper_subclass, or a tensor on the meta device, has no \
         elements of its own to compute on"
    ))
}
