//! The pyo3 binding layer: converts Python values and errors, holds no logic of its own.

mod anomaly;
mod binding;
mod conv;
mod convert;
mod creation;
mod engine;
mod functions;
mod hooks;
mod interop;
mod linalg;
mod nn;
mod node;
mod normalization;
mod optim;
mod out;
mod pointwise;
mod profiler;
mod random;
mod scatter;
mod selection;
mod settings;
mod sparse;
mod subclass;
mod tensor;
mod tensor_autograd;
mod tensor_math;
mod tensor_new;
mod tensor_ops;
mod tensor_reduce;
mod tensor_shape;
mod ternary;

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
        ErrorKind::LinAlg => linalg::LinAlgError::new_err(e.message),
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
            Err(subclass::no_elements_error(&name()))
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

// the registration of every binding (Note [Bindings register themselves] in build.rs)
include!(concat!(env!("OUT_DIR"), "/bindings.rs"));

// every binding of this folder, the tables' functions and the module's constants (the dtypes,
// `default_generator`, `_LinAlgError`)
/// The native module `ferrograd._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    subclass::install();
    add_bindings(m)?;
    pointwise::functions::register(m)?;
    pointwise::unary_functions::register(m)?;
    convert::add_dtypes(m)?;
    random::add_default_generator(m)?;
    linalg::add_exception(m)?;
    Ok(())
}
