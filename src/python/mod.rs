//! The pyo3 binding layer: converts Python values and errors, holds no logic of its own.

mod convert;
mod functions;
mod nn;
mod node;
mod optim;
mod pointwise;
mod random;
mod tensor;

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
    }
}

/// Runs core code for Python: errors become exceptions and a panic becomes a `RuntimeError`
/// instead of crossing into the interpreter.
pub(crate) fn run<T>(f: impl FnOnce() -> crate::Result<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(to_py_err),
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

/// The native module `ferrograd._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<tensor::PyTensor>()?;
    m.add_class::<node::PyNode>()?;
    m.add_class::<convert::PyDType>()?;
    convert::add_dtypes(m)?;
    functions::register(m)?;
    random::register(m)?;
    nn::register(m)?;
    optim::register(m)?;
    pointwise::functions::register(m)?;
    Ok(())
}
