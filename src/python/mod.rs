//! The pyo3 binding layer: converts Python values and errors, holds no logic of its own.

mod anomaly;
mod binding;
mod conv;
mod convert;
mod creation;
mod engine;
mod errors;
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
mod tensor_operators;
mod tensor_ops;
mod tensor_reduce;
mod tensor_shape;
mod ternary;

use pyo3::prelude::*;

// the registration of every binding (Note [Bindings register themselves] in build.rs)
include!(concat!(env!("OUT_DIR"), "/bindings.rs"));

/// The native module `ferrograd._core`: every binding of this folder, the tables' functions
/// and the module's constants (the dtypes, `default_generator`, `_LinAlgError`).
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    subclass::install();
    add_bindings(m)?;
    pointwise::functions::register(m)?;
    pointwise::unary_functions::register(m)?;
    convert::add_dtypes(m)?;
    random::add_default_generator(m)?;
    errors::add_exception(m)?;
    Ok(())
}
