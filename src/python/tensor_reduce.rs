//! `Tensor`'s reductions (`sum`, `mean`, `max`, `var`, ...), softmax, scans and products.

use super::convert::{dims_arg, dtype_arg, tensor_arg};
use super::errors::run;
use super::out::with_out;
use super::tensor::{to_object, wrap, PyTensor, TResult};
use crate::core::tensor::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    /// Sum of all elements, or over `dim` (NumPy's `axis=` and `keepdims=` accepted, as
    /// PyTorch accepts them).
    /// A `dim` given, even as `None` or `[]`, sums by PyTorch's `sum.dim_IntList` overload
    /// (`SumBackward1`); none given, by `sum.default` (`SumBackward0`).
    #[pyo3(
        signature = (dim=Some(None), keepdim=false, *, dtype=None, axis=Some(None), keepdims=None),
        text_signature = "(self, /, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None)"
    )]
    // stub: (
    //     self,
    //     dim: _Dims | None = None,
    //     keepdim: bool = False,
    //     *,
    //     dtype: _DTypeLike | None = None,
    //     axis: _Dims | None = None,
    //     keepdims: bool | None = None,
    // ) -> Tensor
    fn sum(
        &self,
        dim: Option<Option<&Bound<'_, PyAny>>>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
        axis: Option<Option<&Bound<'_, PyAny>>>,
        keepdims: Option<bool>,
    ) -> TResult {
        let dim_given = !matches!(dim, Some(None)) || !matches!(axis, Some(None));
        let (dim, keepdim) = numpy_names(dim.flatten(), keepdim, axis.flatten(), keepdims)?;
        let dims = dims_arg(dim)?;
        let dtype = dtype_arg(dtype)?;
        wrap(run(|| {
            let x = match dtype {
                Some(d) => self.inner.to_dtype(d)?,
                None => self.inner.clone(),
            };
            let total = if dims.is_empty() && !keepdim && !dim_given {
                x.sum()
            } else {
                x.sum_dims(&dims, keepdim)
            }?;
            // integers accumulate in int64; `dtype=` names the result (wrapping is the same)
            match dtype {
                Some(d) if d != total.dtype() => total.to_dtype(d),
                _ => Ok(total),
            }
        }))
    }

    /// Mean of all elements, or over `dim` (NumPy's `axis=` and `keepdims=` accepted, as
    /// PyTorch accepts them).
    #[pyo3(signature = (dim: "_Dims | None" = None, keepdim: "bool" = false, *, axis: "_Dims | None" = None, keepdims: "bool | None" = None) -> "Tensor")]
    fn mean(
        &self,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        axis: Option<&Bound<'_, PyAny>>,
        keepdims: Option<bool>,
    ) -> TResult {
        let (dim, keepdim) = numpy_names(dim, keepdim, axis, keepdims)?;
        let dims = dims_arg(dim)?;
        wrap(run(|| {
            if dims.is_empty() && !keepdim {
                self.inner.mean()
            } else {
                self.inner.mean_dims(&dims, keepdim)
            }
        }))
    }

    /// The p-norm (default 2, the Frobenius/Euclidean norm) of all elements or over `dim`.
    #[pyo3(signature = (p: "float | Literal['fro'] | None" = None, dim: "_Dims | None" = None, keepdim: "bool" = false, dtype: "_DTypeLike | None" = None) -> "Tensor")]
    fn norm(
        &self,
        p: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> TResult {
        let dtype = dtype_arg(dtype)?;
        let dims = dims_arg(dim)?;
        // PyTorch's default p is 'fro'
        let fro = p.is_none_or(|p| p.extract::<String>().is_ok_and(|s| s == "fro"));
        if fro {
            return wrap(run(|| self.inner.norm_fro(&dims, keepdim, dtype)));
        }
        let p = match p {
            None => 2.0,
            Some(p) => p
                .extract::<f64>()
                .map_err(|_| PyValueError::new_err("norm: p must be a number or 'fro'"))?,
        };
        wrap(run(|| self.inner.norm_p_as(p, &dims, keepdim, dtype)))
    }

    /// Matrix product with PyTorch's `matmul` rules for 1-D and 2-D operands.
    #[pyo3(signature = (other: "Tensor", *, out: "Tensor | None" = None) -> "Tensor")]
    fn matmul(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> TResult {
        let o = tensor_arg(other, "matmul() argument 'other'")?;
        let compute = || wrap(run(|| slf.get().inner.matmul(&o)));
        with_out(slf.py(), "matmul", out, &[slf.as_any(), other], compute)
    }

    /// Matrix-matrix product.
    #[pyo3(signature = (mat2: "Tensor", *, out: "Tensor | None" = None) -> "Tensor")]
    fn mm(
        slf: &Bound<'_, Self>,
        mat2: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> TResult {
        let o = tensor_arg(mat2, "mm() argument 'mat2'")?;
        let compute = || wrap(run(|| slf.get().inner.mm(&o)));
        with_out(slf.py(), "mm", out, &[slf.as_any(), mat2], compute)
    }

    /// Matrix-vector product.
    #[pyo3(signature = (vec: "Tensor") -> "Tensor")]
    fn mv(&self, vec: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(vec, "mv() argument 'vec'")?;
        wrap(run(|| self.inner.mv(&o)))
    }

    /// Inner product of 1-D tensors.
    #[pyo3(signature = (other: "Tensor") -> "Tensor")]
    fn dot(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "dot() argument 'tensor'")?;
        wrap(run(|| self.inner.dot(&o)))
    }

    /// Outer product of 1-D tensors.
    #[pyo3(signature = (vec2: "Tensor") -> "Tensor")]
    fn outer(&self, vec2: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(vec2, "outer() argument 'vec2'")?;
        wrap(run(|| self.inner.outer(&o)))
    }

    /// Softmax along `dim`.
    #[pyo3(signature = (dim: "int", dtype: "_DTypeLike | None" = None) -> "Tensor")]
    fn softmax(&self, dim: isize, dtype: Option<&Bound<'_, PyAny>>) -> TResult {
        let x = cast_arg(&self.inner, dtype)?;
        wrap(run(|| x.softmax(dim)))
    }

    /// Log-softmax along `dim`.
    #[pyo3(signature = (dim: "int", dtype: "_DTypeLike | None" = None) -> "Tensor")]
    fn log_softmax(&self, dim: isize, dtype: Option<&Bound<'_, PyAny>>) -> TResult {
        let x = cast_arg(&self.inner, dtype)?;
        wrap(run(|| x.log_softmax(dim)))
    }

    /// Product of all elements, or along `dim`.
    #[pyo3(signature = (dim: "int | None" = None, keepdim: "bool" = false, *, dtype: "_DTypeLike | None" = None) -> "Tensor")]
    fn prod(&self, dim: Option<isize>, keepdim: bool, dtype: Option<&Bound<'_, PyAny>>) -> TResult {
        let x = cast_arg(&self.inner, dtype)?;
        wrap(run(|| match dim {
            None => x.prod(),
            Some(d) => x.prod_dim(d, keepdim),
        }))
    }

    /// Maximum of all elements, or `(values, indices)` along `dim`, or the elementwise maximum with a tensor.
    #[pyo3(signature = (dim=None, keepdim=false))]
    // `max()`: a 0-d tensor; `max(dim)`: the named tuple `(values, indices)`; `max(other)`: the
    // elementwise maximum (`keepdim` is then ignored). Likewise `min`.
    // stub: (self, dim: None = None, keepdim: bool = False) -> Tensor
    // stub: (self, dim: int, keepdim: bool = False) -> max_result
    // stub: (self, dim: Tensor, keepdim: bool = False) -> Tensor
    fn max(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        extremum(py, &self.inner, dim, keepdim, true)
    }

    /// Minimum of all elements, or `(values, indices)` along `dim`, or the elementwise minimum with a tensor.
    #[pyo3(signature = (dim=None, keepdim=false))]
    // stub: (self, dim: None = None, keepdim: bool = False) -> Tensor
    // stub: (self, dim: int, keepdim: bool = False) -> min_result
    // stub: (self, dim: Tensor, keepdim: bool = False) -> Tensor
    fn min(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        extremum(py, &self.inner, dim, keepdim, false)
    }

    /// Maximum over `dim` (an int or a tuple; all when omitted).
    #[pyo3(signature = (dim: "_Dims | None" = None, keepdim: "bool" = false) -> "Tensor")]
    fn amax(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> TResult {
        let dims = dims_arg(dim)?;
        wrap(run(|| self.inner.amax(&dims, keepdim)))
    }

    /// Minimum over `dim` (an int or a tuple; all when omitted).
    #[pyo3(signature = (dim: "_Dims | None" = None, keepdim: "bool" = false) -> "Tensor")]
    fn amin(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> TResult {
        let dims = dims_arg(dim)?;
        wrap(run(|| self.inner.amin(&dims, keepdim)))
    }

    /// Index of the maximum.
    #[pyo3(signature = (dim: "int | None" = None, keepdim: "bool" = false) -> "Tensor")]
    fn argmax(&self, dim: Option<isize>, keepdim: bool) -> TResult {
        wrap(run(|| self.inner.argmax(dim, keepdim)))
    }

    /// Index of the minimum.
    #[pyo3(signature = (dim: "int | None" = None, keepdim: "bool" = false) -> "Tensor")]
    fn argmin(&self, dim: Option<isize>, keepdim: bool) -> TResult {
        wrap(run(|| self.inner.argmin(dim, keepdim)))
    }

    /// Variance (unbiased by default; `correction` overrides `unbiased`).
    #[pyo3(signature = (dim: "_Dims | None" = None, unbiased: "bool | None" = None, keepdim: "bool" = false, *, correction: "float | None" = None) -> "Tensor")]
    fn var(
        &self,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        correction: Option<f64>,
    ) -> TResult {
        let (dims, c) = var_args(dim, unbiased, correction)?;
        wrap(run(|| self.inner.var(&dims, c, keepdim)))
    }

    /// Standard deviation (unbiased by default; `correction` overrides `unbiased`).
    #[pyo3(signature = (dim: "_Dims | None" = None, unbiased: "bool | None" = None, keepdim: "bool" = false, *, correction: "float | None" = None) -> "Tensor")]
    fn std(
        &self,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        correction: Option<f64>,
    ) -> TResult {
        let (dims, c) = var_args(dim, unbiased, correction)?;
        wrap(run(|| self.inner.std(&dims, c, keepdim)))
    }

    /// `log Σ exp` over `dim`, computed stably.
    #[pyo3(signature = (dim: "_Dims", keepdim: "bool" = false) -> "Tensor")]
    fn logsumexp(&self, dim: &Bound<'_, PyAny>, keepdim: bool) -> TResult {
        let dims = dims_arg(Some(dim))?;
        wrap(run(|| self.inner.logsumexp(&dims, keepdim)))
    }

    /// Running sum along `dim`.
    #[pyo3(signature = (dim: "int", *, dtype: "_DTypeLike | None" = None) -> "Tensor")]
    fn cumsum(&self, dim: isize, dtype: Option<&Bound<'_, PyAny>>) -> TResult {
        let x = cast_arg(&self.inner, dtype)?;
        wrap(run(|| x.cumsum(dim)))
    }

    /// Batched matrix product of 3-D tensors.
    #[pyo3(signature = (mat2: "Tensor", *, out: "Tensor | None" = None) -> "Tensor")]
    fn bmm(
        slf: &Bound<'_, Self>,
        mat2: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> TResult {
        let o = tensor_arg(mat2, "bmm() argument 'mat2'")?;
        let compute = || wrap(run(|| slf.get().inner.bmm(&o)));
        with_out(slf.py(), "bmm", out, &[slf.as_any(), mat2], compute)
    }
}

pub(crate) fn var_args(
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<&Bound<'_, PyAny>>,
    correction: Option<f64>,
) -> PyResult<(Vec<isize>, f64)> {
    // `x.var(False)` passes `unbiased` positionally in the `dim` slot, as PyTorch allows
    let (dim, unbiased) = match dim {
        Some(d) if d.is_instance_of::<pyo3::types::PyBool>() => (None, Some(d.extract::<bool>()?)),
        _ => (dim, unbiased.map(|u| u.extract::<bool>()).transpose()?),
    };
    let c = correction.unwrap_or(if unbiased.unwrap_or(true) { 1.0 } else { 0.0 });
    Ok((dims_arg(dim)?, c))
}

pub(super) fn extremum(
    py: Python<'_>,
    t: &Tensor,
    dim: Option<&Bound<'_, PyAny>>,
    keepdim: bool,
    max: bool,
) -> PyResult<Py<PyAny>> {
    let Some(dim) = dim.filter(|d| !d.is_none()) else {
        let out = run(|| if max { t.max() } else { t.min() })?;
        return to_object(py, out);
    };
    if let Ok(other) = dim.cast::<PyTensor>() {
        let o = other.get().inner.clone();
        let out = run(|| if max { t.maximum(&o) } else { t.minimum(&o) })?;
        return to_object(py, out);
    }
    let d: isize = dim.extract()?;
    let (values, indices) = run(|| {
        if max {
            t.max_dim(d, keepdim)
        } else {
            t.min_dim(d, keepdim)
        }
    })?;
    let cls = super::functions::return_type(py, if max { "max" } else { "min" })?;
    Ok(cls
        .call1((to_object(py, values)?, to_object(py, indices)?))?
        .unbind())
}

/// `dim`/`keepdim` from either their names or NumPy's (`axis`, `keepdims`), which PyTorch's
/// argument parser accepts in their place; both spellings at once is refused as there.
pub(super) fn numpy_names<'a, 'py>(
    dim: Option<&'a Bound<'py, PyAny>>,
    keepdim: bool,
    axis: Option<&'a Bound<'py, PyAny>>,
    keepdims: Option<bool>,
) -> PyResult<(Option<&'a Bound<'py, PyAny>>, bool)> {
    if dim.is_some() && axis.is_some() {
        return Err(PyTypeError::new_err(
            "got multiple values for argument 'dim' (as 'axis')",
        ));
    }
    Ok((dim.or(axis), keepdims.unwrap_or(keepdim)))
}

fn cast_arg(t: &Tensor, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    match dtype_arg(dtype)? {
        Some(d) => run(|| t.to_dtype(d)),
        None => Ok(t.clone()),
    }
}
