//! Bindings of `crate::ops::reduce::selection`: `nonzero`/`argwhere`, `count_nonzero`, `masked_select`,
//! `take_along_dim`, `unique_consecutive`, and the functions `torch.searchsorted` and
//! `torch.bucketize`.

use super::convert::{dims_arg, scalar_arg, tensor_arg};
use super::errors::run;
use super::tensor::{to_object, wrap, PyTensor, TResult};
use crate::core::dtype::DType;
use crate::core::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `values`, inverse and counts as PyTorch returns them from a `unique*` call: the values
/// alone, or a tuple with the parts asked for.
pub(crate) fn unique_result(
    py: Python<'_>,
    (values, inverse, counts): (Tensor, Tensor, Tensor),
    return_inverse: bool,
    return_counts: bool,
) -> PyResult<Py<PyAny>> {
    if !return_inverse && !return_counts {
        return to_object(py, values);
    }
    let mut items = vec![to_object(py, values)?];
    if return_inverse {
        items.push(to_object(py, inverse)?);
    }
    if return_counts {
        items.push(to_object(py, counts)?);
    }
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

#[pymethods]
impl PyTensor {
    /// The indices of the nonzero elements: `[n, dim]` int64, or with `as_tuple` one 1-D
    /// tensor per dimension.
    #[pyo3(signature = (*, as_tuple=false))]
    // stub: (self, *, as_tuple: Literal[False] = False) -> Tensor
    // stub: (self, *, as_tuple: Literal[True]) -> tuple[Tensor, ...]
    fn nonzero(&self, py: Python<'_>, as_tuple: bool) -> PyResult<Py<PyAny>> {
        let rows = run(|| self.inner.nonzero())?;
        if !as_tuple {
            return to_object(py, rows);
        }
        if self.inner.dim() == 0 {
            // a 0-d tensor counts as 1-d with one element, as in PyTorch
            let found = rows.shape()[0];
            let zeros = Tensor::zeros(&[found], DType::Int64);
            return Ok(PyTuple::new(py, [to_object(py, zeros)?])?
                .into_any()
                .unbind());
        }
        let columns = self.inner.dim();
        let parts: Vec<Py<PyAny>> = (0..columns)
            .map(|d| to_object(py, run(|| rows.select(1, d as isize)?.contiguous())?))
            .collect::<PyResult<_>>()?;
        Ok(PyTuple::new(py, parts)?.into_any().unbind())
    }
    /// The indices of the nonzero elements, one row each (`nonzero()`).
    #[pyo3(signature = () -> "Tensor")]
    fn argwhere(&self) -> TResult {
        wrap(run(|| self.inner.nonzero()))
    }
    /// How many elements are nonzero (over `dim`, an int or a tuple, when given), as int64.
    #[pyo3(signature = (dim: "int | Sequence[int] | None" = None) -> "Tensor")]
    fn count_nonzero(&self, dim: Option<&Bound<'_, PyAny>>) -> TResult {
        let dims = dims_arg(dim)?;
        wrap(run(|| self.inner.count_nonzero(&dims)))
    }
    /// The elements where `mask` is true, as a 1-D tensor.
    #[pyo3(signature = (mask: "Tensor") -> "Tensor")]
    fn masked_select(&self, mask: &Bound<'_, PyAny>) -> TResult {
        let mask = tensor_arg(mask, "masked_select(): argument 'mask'")?;
        wrap(run(|| self.inner.masked_select(&mask)))
    }
    /// The values at `indices` along `dim` (`gather` with `indices` broadcast against this
    /// tensor); without `dim`, over the flattened tensor.
    #[pyo3(signature = (indices: "Tensor", dim: "int | None" = None) -> "Tensor")]
    fn take_along_dim(&self, indices: &Bound<'_, PyAny>, dim: Option<isize>) -> TResult {
        let idx = tensor_arg(indices, "take_along_dim(): argument 'indices'")?;
        if idx.dtype() != DType::Int64 {
            return Err(PyRuntimeError::new_err(
                "torch.take_along_dim(): dtype of indices should be Long but got Float",
            ));
        }
        let x = &self.inner;
        wrap(run(|| match dim {
            None => x.reshape(&[-1])?.gather(0, &idx.reshape(&[-1])?),
            Some(dim) => {
                let d = crate::core::layout::normalize_dim(dim, x.dim())?;
                // every dim but `d` broadcasts; `d` keeps each side's own size
                let mut xs: Vec<usize> = x.shape().to_vec();
                let mut is: Vec<usize> = idx.shape().to_vec();
                (xs[d], is[d]) = (1, 1);
                let common = crate::core::layout::broadcast_shapes(&xs, &is)?;
                let target = |own: usize| -> Vec<isize> {
                    let mut t: Vec<isize> = common.iter().map(|&s| s as isize).collect();
                    t[d] = own as isize;
                    t
                };
                let xb = x.expand(&target(x.shape()[d]))?;
                let ib = idx.expand(&target(idx.shape()[d]))?;
                xb.gather(dim, &ib)
            }
        }))
    }
    /// Runs of equal consecutive elements (or slices along `dim`) collapsed to one; with the
    /// inverse indices and the run lengths when asked for.
    #[pyo3(signature = (return_inverse=false, return_counts=false, dim=None))]
    // stub: (
    //     self,
    //     return_inverse: Literal[False] = False,
    //     return_counts: Literal[False] = False,
    //     dim: int | None = None,
    // ) -> Tensor
    // stub: (
    //     self,
    //     return_inverse: bool = False,
    //     return_counts: bool = False,
    //     dim: int | None = None,
    // ) -> Tensor | tuple[Tensor, ...]
    fn unique_consecutive(
        &self,
        py: Python<'_>,
        return_inverse: bool,
        return_counts: bool,
        dim: Option<isize>,
    ) -> PyResult<Py<PyAny>> {
        let parts = run(|| self.inner.unique_consecutive(dim))?;
        unique_result(py, parts, return_inverse, return_counts)
    }
}

/// A `values` operand of `searchsorted`/`bucketize`: a tensor, or a number (a 0-d result).
fn search_values(obj: &Bound<'_, PyAny>, like: &Tensor) -> PyResult<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(t.get().inner.clone());
    }
    let v = scalar_arg(obj).ok_or_else(|| {
        PyTypeError::new_err("searchsorted(): argument 'input' must be a Tensor or a number")
    })?;
    Ok(Tensor::scalar_of(v.to_f64(), like.dtype()))
}

fn refuse_int32(out_int32: bool) -> PyResult<()> {
    match out_int32 {
        true => Err(PyTypeError::new_err(
            "out_int32=True: ferrograd has no int32 dtype (the result is int64)",
        )),
        false => Ok(()),
    }
}

/// `torch.searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
/// sorter=None)`: where each value would go to keep the rows sorted.
#[pyfunction]
#[pyo3(signature = (sorted_sequence: "Tensor", input: "Tensor | float", *, out_int32: "bool" = false, right: "bool" = false, side: "str | None" = None, sorter: "Tensor | None" = None) -> "Tensor")]
pub(crate) fn searchsorted(
    sorted_sequence: &Bound<'_, PyAny>,
    input: &Bound<'_, PyAny>,
    out_int32: bool,
    right: bool,
    side: Option<&str>,
    sorter: Option<&Bound<'_, PyAny>>,
) -> TResult {
    refuse_int32(out_int32)?;
    let right = match side {
        None => right,
        Some("left") if !right => false,
        Some("right") => true,
        Some("left") => {
            return Err(PyRuntimeError::new_err(
                "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True",
            ))
        }
        Some(other) => {
            return Err(PyRuntimeError::new_err(format!(
                "torch.searchsorted(): side can only be 'left' or 'right' but got {other}"
            )))
        }
    };
    let mut seq = tensor_arg(
        sorted_sequence,
        "searchsorted(): argument 'sorted_sequence'",
    )?;
    if let Some(s) = sorter.filter(|s| !s.is_none()) {
        let order = tensor_arg(s, "searchsorted(): argument 'sorter'")?;
        seq = run(|| seq.gather(-1, &order))?;
    }
    let values = search_values(input, &seq)?;
    wrap(run(|| seq.searchsorted(&values, right)))
}

/// `torch.bucketize(input, boundaries, *, out_int32=False, right=False)`: the bucket of each
/// value among the 1-D sorted `boundaries`.
#[pyfunction]
#[pyo3(signature = (input: "Tensor | float", boundaries: "Tensor", *, out_int32: "bool" = false, right: "bool" = false) -> "Tensor")]
pub(crate) fn bucketize(
    input: &Bound<'_, PyAny>,
    boundaries: &Bound<'_, PyAny>,
    out_int32: bool,
    right: bool,
) -> TResult {
    refuse_int32(out_int32)?;
    let b = tensor_arg(boundaries, "bucketize(): argument 'boundaries'")?;
    if b.dim() != 1 {
        return Err(PyRuntimeError::new_err(format!(
            "boundaries tensor must be 1 dimension, but got dim({})",
            b.dim()
        )));
    }
    let values = search_values(input, &b)?;
    wrap(run(|| b.searchsorted(&values, right)))
}
