//! Module-level functions of `ferrograd._core` that are not methods: `cat`, `stack`, `where`,
//! `isin`, `var_mean`, `std_mean`, `pow`, and the registry of the package's Python types.

use super::convert::{operand_arg, tensor_arg, tensor_list};
use super::errors::run;
use super::tensor::{to_object, PyTensor};
use crate::core::dtype::DType;
use crate::core::tensor::Tensor;
use crate::ops::{pointwise::arithmetic::binary, BinaryOp};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};

/// Concatenates tensors along `dim`.
#[pyfunction]
#[pyo3(signature = (tensors: "_Tensors", dim: "int" = 0) -> "Tensor")]
pub(crate) fn cat(tensors: &Bound<'_, PyAny>, dim: isize) -> PyResult<Py<PyAny>> {
    if tensors.cast::<PyTensor>().is_ok() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor",
        ));
    }
    let ts = tensor_list(tensors, "tensors")?;
    if ts.is_empty() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "torch.cat(): expected a non-empty list of Tensors",
        ));
    }
    let out = run(|| Tensor::cat(&ts, dim))?;
    Python::attach(|py| to_object(py, out))
}

/// Stacks tensors along a new dimension `dim`.
#[pyfunction]
#[pyo3(signature = (tensors: "_Tensors", dim: "int" = 0) -> "Tensor")]
pub(crate) fn stack(tensors: &Bound<'_, PyAny>, dim: isize) -> PyResult<Py<PyAny>> {
    let ts = tensor_list(tensors, "tensors")?;
    let out = run(|| Tensor::stack(&ts, dim))?;
    Python::attach(|py| to_object(py, out))
}

/// `where(condition, input, other)`; with only `condition`, the indices of its true elements.
#[pyfunction]
#[pyo3(name = "where", signature = (condition, input=None, other=None))]
// stub: (condition: Tensor, input: _Operand, other: _Operand) -> Tensor
// stub: (condition: Tensor, input: None = None, other: None = None) -> tuple[Tensor, ...]
pub(crate) fn where_fn<'py>(
    py: Python<'py>,
    condition: &Bound<'py, PyAny>,
    input: Option<&Bound<'py, PyAny>>,
    other: Option<&Bound<'py, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let cond = tensor_arg(condition, "condition")?;
    match (input, other) {
        (Some(a), Some(b)) => {
            let dtype = a
                .cast::<PyTensor>()
                .map(|t| t.get().inner.dtype())
                .unwrap_or(DType::Float32);
            let a = super::tensor::operand_tensor(a, dtype)?;
            let b = super::tensor::operand_tensor(b, a.dtype())?;
            to_object(py, run(|| Tensor::where_(&cond, &a, &b))?)
        }
        (None, None) => {
            let parts = run(|| cond.to_dtype(DType::Bool)?.nonzero_indices())?;
            let items = parts
                .into_iter()
                .map(|t| to_object(py, t))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyTuple::new(py, items)?.into_any().unbind())
        }
        _ => Err(pyo3::exceptions::PyTypeError::new_err(
            "where() expects either 1 or 3 arguments",
        )),
    }
}

/// Python objects the bindings create (`RemovableHandle`, the `max`/`min` result tuples).
static PY_TYPES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();

/// Registers the Python helper types defined in the package.
#[pyfunction]
#[pyo3(signature = (types: "dict[str, Any]") -> "None")]
pub(crate) fn _register_types(py: Python<'_>, types: Py<PyDict>) {
    let _ = PY_TYPES.set(py, types);
}

/// The package's Python type registered as `name` (`_register_types`).
pub(crate) fn py_type<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let types = PY_TYPES.get(py).ok_or_else(|| {
        pyo3::exceptions::PyRuntimeError::new_err("ferrograd is not fully imported")
    })?;
    types.bind(py).get_item(name)?.ok_or_else(|| {
        pyo3::exceptions::PyRuntimeError::new_err(format!(
            "ferrograd type {name} is not registered"
        ))
    })
}

/// The named-tuple class of `max(dim)` / `min(dim)` results.
pub(crate) fn return_type<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py_type(py, name)
}

/// `torch.isin(elements, test_elements, *, assume_unique=False, invert=False)`: whether each
/// element is among the test elements (either may be a number, not both); a bool tensor.
#[pyfunction]
#[pyo3(signature = (elements: "_Operand", test_elements: "_Operand", *, assume_unique: "bool" = false, invert: "bool" = false) -> "Tensor")]
pub(crate) fn isin(
    py: Python<'_>,
    elements: &Bound<'_, PyAny>,
    test_elements: &Bound<'_, PyAny>,
    assume_unique: bool,
    invert: bool,
) -> PyResult<Py<PyAny>> {
    let _ = assume_unique; // a speed hint: the result is the same
    let dtype_of = |o: &Bound<'_, PyAny>| o.cast::<PyTensor>().ok().map(|t| t.get().inner.dtype());
    let Some(dtype) = dtype_of(elements).or_else(|| dtype_of(test_elements)) else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "isin() received an invalid combination of arguments - got ({}, {}), but expected \
             one of: (Tensor elements, Tensor test_elements), (Number element, Tensor \
             test_elements), (Tensor elements, Number test_element)",
            elements.get_type().name()?,
            test_elements.get_type().name()?
        )));
    };
    let x = super::tensor::operand_tensor(elements, dtype)?;
    let t = super::tensor::operand_tensor(test_elements, dtype)?;
    to_object(py, run(|| x.isin(&t, invert))?)
}

/// `torch.var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None)`: the
/// variance and the mean, one node for both.
#[pyfunction]
#[pyo3(signature = (input: "Tensor", dim: "int | Sequence[int] | None" = None, unbiased: "bool | None" = None, keepdim: "bool" = false, *, correction: "float | None" = None) -> "tuple[Tensor, Tensor]")]
pub(crate) fn var_mean(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<&Bound<'_, PyAny>>,
    keepdim: bool,
    correction: Option<f64>,
) -> PyResult<Py<PyTuple>> {
    let (dims, c) = super::tensor_reduce::var_args(dim, unbiased, correction)?;
    pair(py, run(|| input.inner.var_mean(&dims, c, keepdim))?)
}

/// `torch.std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None)`: the
/// standard deviation and the mean, one node for both.
#[pyfunction]
#[pyo3(signature = (input: "Tensor", dim: "int | Sequence[int] | None" = None, unbiased: "bool | None" = None, keepdim: "bool" = false, *, correction: "float | None" = None) -> "tuple[Tensor, Tensor]")]
pub(crate) fn std_mean(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<&Bound<'_, PyAny>>,
    keepdim: bool,
    correction: Option<f64>,
) -> PyResult<Py<PyTuple>> {
    let (dims, c) = super::tensor_reduce::var_args(dim, unbiased, correction)?;
    pair(py, run(|| input.inner.std_mean(&dims, c, keepdim))?)
}

/// Two tensors as a Python tuple.
fn pair(py: Python<'_>, (a, b): (Tensor, Tensor)) -> PyResult<Py<PyTuple>> {
    Ok(PyTuple::new(py, [to_object(py, a)?, to_object(py, b)?])?.unbind())
}

/// `torch.pow(input, exponent)`: a tensor to a power, or a number to a tensor's powers.
#[pyfunction]
#[pyo3(signature = (input: "_Operand", exponent: "_Operand") -> "Tensor")]
pub(crate) fn pow(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    exponent: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let (Some(a), Some(b)) = (operand_arg(input), operand_arg(exponent)) else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "pow() received an invalid combination of arguments: got ({}, {})",
            input.get_type().name()?,
            exponent.get_type().name()?
        )));
    };
    let out = run(|| binary(BinaryOp::Pow, a.as_operand(), b.as_operand()))?;
    to_object(py, out)
}
