//! Bindings of the rounding divisions (`//`, `%`, `fmod`), triangles and diagonals, sorting and
//! selection, the fused products (`addmm`, ...), `cross`, `roll`, `cumprod`, `broadcast_to`,
//! `__contains__`, and their `torch.xxx` functions that are not plain method aliases.

use super::convert::{dims_arg, dtype_arg, operand_arg, tensor_arg, OwnedOperand};
use super::errors::run;
use super::tensor::{to_object, wrap, PyTensor, TResult};
use crate::core::tensor::Tensor;
use crate::ops::pointwise::division::{division, DivisionOp};
use crate::ops::Operand;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

/// A tensor or number operand of a division, or PyTorch's TypeError naming the op.
fn division_operand(obj: &Bound<'_, PyAny>, op: &str) -> PyResult<OwnedOperand> {
    operand_arg(obj).ok_or_else(|| {
        let got = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        PyTypeError::new_err(format!(
            "{op}(): argument 'other' must be a Tensor or a number, not {got}"
        ))
    })
}

/// `a op b` for a dunder: NotImplemented when `other` is neither a tensor nor a number.
fn division_dunder(
    py: Python<'_>,
    op: DivisionOp,
    me: &Tensor,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let Some(o) = operand_arg(other) else {
        return Ok(py.NotImplemented());
    };
    let (a, b) = if reflected {
        (o.as_operand(), Operand::Tensor(me))
    } else {
        (Operand::Tensor(me), o.as_operand())
    };
    to_object(py, run(|| division(op, a, b))?)
}

/// A named tuple `(values, indices)` of the return type PyTorch names `name` (`sort`, ...).
fn values_indices(py: Python<'_>, name: &str, pair: (Tensor, Tensor)) -> PyResult<Py<PyAny>> {
    let cls = super::functions::return_type(py, name)?;
    Ok(cls
        .call1((to_object(py, pair.0)?, to_object(py, pair.1)?))?
        .unbind())
}

/// `torch.cross`'s dimension: the given one, or (with PyTorch's deprecation warning) the
/// first of size 3.
fn cross_dim(py: Python<'_>, a: &Tensor, b: &Tensor, dim: Option<isize>) -> PyResult<isize> {
    if let Some(d) = dim {
        return Ok(d);
    }
    PyErr::warn(
        py,
        &py.get_type::<pyo3::exceptions::PyUserWarning>(),
        c"Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of linalg.cross in a future release.",
        1,
    )?;
    run(|| a.default_cross_dim(b))
}

/// `roll`'s shifts and dims: an int or a sequence of ints each.
fn ints(obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(v) = obj.extract::<i64>() {
        return Ok(vec![v]);
    }
    obj.try_iter()?.map(|v| v?.extract::<i64>()).collect()
}

#[pymethods]
impl PyTensor {
    /// `self // other`, rounded toward negative infinity (no derivative, as PyTorch).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn floor_divide(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> TResult {
        let o = division_operand(other, "floor_divide")?;
        let op = DivisionOp::FloorDivide;
        to_object(
            py,
            run(|| division(op, Operand::Tensor(&self.inner), o.as_operand()))?,
        )
    }

    /// In-place `floor_divide`.
    #[pyo3(signature = (other: "_Operand") -> "Self")]
    fn floor_divide_<'py>(
        slf: Bound<'py, Self>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let o = division_operand(other, "floor_divide_")?;
        run(|| {
            slf.get()
                .inner
                .division_(DivisionOp::FloorDivide, o.as_operand())
        })?;
        Ok(slf)
    }

    /// `self % other`, with the sign of `other` (Python's modulus).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn remainder(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> TResult {
        let o = division_operand(other, "remainder")?;
        let op = DivisionOp::Remainder;
        to_object(
            py,
            run(|| division(op, Operand::Tensor(&self.inner), o.as_operand()))?,
        )
    }

    /// In-place `remainder`.
    #[pyo3(signature = (other: "_Operand") -> "Self")]
    fn remainder_<'py>(
        slf: Bound<'py, Self>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let o = division_operand(other, "remainder_")?;
        run(|| {
            slf.get()
                .inner
                .division_(DivisionOp::Remainder, o.as_operand())
        })?;
        Ok(slf)
    }

    /// `fmod(self, other)`, with the sign of `self` (C's `fmod`).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn fmod(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> TResult {
        let o = division_operand(other, "fmod")?;
        let op = DivisionOp::Fmod;
        to_object(
            py,
            run(|| division(op, Operand::Tensor(&self.inner), o.as_operand()))?,
        )
    }

    /// In-place `fmod`.
    #[pyo3(signature = (other: "_Operand") -> "Self")]
    fn fmod_<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let o = division_operand(other, "fmod_")?;
        run(|| slf.get().inner.division_(DivisionOp::Fmod, o.as_operand()))?;
        Ok(slf)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __floordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        division_dunder(py, DivisionOp::FloorDivide, &self.inner, o, false)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __rfloordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        division_dunder(py, DivisionOp::FloorDivide, &self.inner, o, true)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        division_dunder(py, DivisionOp::Remainder, &self.inner, o, false)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __rmod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        division_dunder(py, DivisionOp::Remainder, &self.inner, o, true)
    }

    // stub: (self, other: _Operand, /) -> Self
    fn __ifloordiv__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        let o = division_operand(o, "floor_divide_")?;
        run(|| {
            self.inner
                .division_(DivisionOp::FloorDivide, o.as_operand())
        })
    }

    // stub: (self, other: _Operand, /) -> Self
    fn __imod__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        let o = division_operand(o, "remainder_")?;
        run(|| self.inner.division_(DivisionOp::Remainder, o.as_operand()))
    }

    /// `element in self`: whether any element equals `element` (a number or a tensor).
    // stub: (self, element: object, /) -> bool
    fn __contains__(&self, element: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Some(o) = operand_arg(element) else {
            return Err(PyRuntimeError::new_err(format!(
                "Tensor.__contains__ only supports Tensor or scalar, but you passed in a {}.",
                element.get_type().repr()?
            )));
        };
        let me = &self.inner;
        run(|| {
            let equal = match o.as_operand() {
                Operand::Tensor(t) => t.compare(
                    crate::ops::pointwise::comparison::CompareOp::Eq,
                    Operand::Tensor(me),
                )?,
                s => me.compare(crate::ops::pointwise::comparison::CompareOp::Eq, s)?,
            };
            Ok(equal.any()?.item()?.to_f64() != 0.0)
        })
    }

    /// The lower triangle of the last two dimensions (on and below the `diagonal`-th diagonal).
    #[pyo3(signature = (diagonal: "int" = 0) -> "Tensor")]
    fn tril(&self, diagonal: i64) -> TResult {
        wrap(run(|| self.inner.tril(diagonal)))
    }

    /// The upper triangle of the last two dimensions (on and above the `diagonal`-th diagonal).
    #[pyo3(signature = (diagonal: "int" = 0) -> "Tensor")]
    fn triu(&self, diagonal: i64) -> TResult {
        wrap(run(|| self.inner.triu(diagonal)))
    }

    /// In-place `tril`.
    #[pyo3(signature = (diagonal: "int" = 0) -> "Self")]
    fn tril_(slf: Bound<'_, Self>, diagonal: i64) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.tril_(diagonal))?;
        Ok(slf)
    }

    /// In-place `triu`.
    #[pyo3(signature = (diagonal: "int" = 0) -> "Self")]
    fn triu_(slf: Bound<'_, Self>, diagonal: i64) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.triu_(diagonal))?;
        Ok(slf)
    }

    /// A 1-D tensor as the `diagonal`-th diagonal of a square matrix, or a matrix's diagonal.
    #[pyo3(signature = (diagonal: "int" = 0) -> "Tensor")]
    fn diag(&self, diagonal: i64) -> TResult {
        wrap(run(|| self.inner.diag(diagonal)))
    }

    /// The `offset`-th diagonal of dims `dim1` and `dim2` (a view, the diagonal last).
    #[pyo3(signature = (offset: "int" = 0, dim1: "int" = 0, dim2: "int" = 1) -> "Tensor")]
    fn diagonal(&self, offset: i64, dim1: isize, dim2: isize) -> TResult {
        wrap(run(|| self.inner.diagonal(offset, dim1, dim2)))
    }

    /// The sum of a matrix's main diagonal.
    #[pyo3(signature = () -> "Tensor")]
    fn trace(&self) -> TResult {
        wrap(run(|| self.inner.trace()))
    }

    /// Running product along `dim` (computed in `dtype` when given).
    #[pyo3(signature = (dim: "int", *, dtype: "_DTypeLike | None" = None) -> "Tensor")]
    fn cumprod(&self, dim: isize, dtype: Option<&Bound<'_, PyAny>>) -> TResult {
        let dtype = dtype_arg(dtype)?;
        wrap(run(|| self.inner.cumprod_as(dim, dtype)))
    }

    /// In-place `cumprod`.
    #[pyo3(signature = (dim: "int") -> "Self")]
    fn cumprod_(slf: Bound<'_, Self>, dim: isize) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.cumprod_(dim))?;
        Ok(slf)
    }

    /// In-place `cumsum`.
    #[pyo3(signature = (dim: "int") -> "Self")]
    fn cumsum_(slf: Bound<'_, Self>, dim: isize) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.cumsum_(dim))?;
        Ok(slf)
    }

    /// `(values, indices)` sorted along `dim` (`stable` keeps equal elements in order).
    #[pyo3(signature = (dim=-1, descending=false, *, stable=None))]
    // stub: (
    //     self,
    //     dim: int = ...,
    //     descending: bool = False,
    //     *,
    //     stable: bool | None = None,
    // ) -> sort_result
    fn sort(
        &self,
        py: Python<'_>,
        dim: isize,
        descending: bool,
        stable: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let pair = run(|| self.inner.sort(dim, descending, stable))?;
        values_indices(py, "sort", pair)
    }

    /// The indices that sort the tensor along `dim`.
    #[pyo3(signature = (dim=-1, descending=false, *, stable=false))]
    // stub: (self, dim: int = ..., descending: bool = False, *, stable: bool = False) -> Tensor
    fn argsort(&self, dim: isize, descending: bool, stable: bool) -> TResult {
        wrap(run(|| self.inner.argsort(dim, descending, stable)))
    }

    /// The `k` largest (or smallest) elements along `dim` and their indices.
    #[pyo3(signature = (k, dim=-1, largest=true, sorted=true))]
    // stub: (
    //     self,
    //     k: int,
    //     dim: int = ...,
    //     largest: bool = True,
    //     sorted: bool = True,
    // ) -> topk_result
    fn topk(
        &self,
        py: Python<'_>,
        k: i64,
        dim: isize,
        largest: bool,
        sorted: bool,
    ) -> PyResult<Py<PyAny>> {
        let pair = run(|| self.inner.topk(k, dim, largest, sorted))?;
        values_indices(py, "topk", pair)
    }

    /// The `k`-th smallest element along `dim` and its index.
    #[pyo3(signature = (k, dim=-1, keepdim=false))]
    // stub: (self, k: int, dim: int = ..., keepdim: bool = False) -> kthvalue_result
    fn kthvalue(&self, py: Python<'_>, k: i64, dim: isize, keepdim: bool) -> PyResult<Py<PyAny>> {
        let pair = run(|| self.inner.kthvalue(k, dim, keepdim))?;
        values_indices(py, "kthvalue", pair)
    }

    /// The lower median of all elements, or `(values, indices)` along `dim`.
    #[pyo3(signature = (dim=None, keepdim=false))]
    // stub: (self, dim: None = None, keepdim: bool = False) -> Tensor
    // stub: (self, dim: int, keepdim: bool = False) -> median_result
    fn median(&self, py: Python<'_>, dim: Option<isize>, keepdim: bool) -> PyResult<Py<PyAny>> {
        match dim {
            None => to_object(py, run(|| self.inner.median())?),
            Some(d) => {
                let pair = run(|| self.inner.median_dim(d, keepdim))?;
                values_indices(py, "median", pair)
            }
        }
    }

    /// The lower median of the non-NaN elements, or `(values, indices)` along `dim`.
    #[pyo3(signature = (dim=None, keepdim=false))]
    // stub: (self, dim: None = None, keepdim: bool = False) -> Tensor
    // stub: (self, dim: int, keepdim: bool = False) -> nanmedian_result
    fn nanmedian(&self, py: Python<'_>, dim: Option<isize>, keepdim: bool) -> PyResult<Py<PyAny>> {
        match dim {
            None => to_object(py, run(|| self.inner.nanmedian())?),
            Some(d) => {
                let pair = run(|| self.inner.nanmedian_dim(d, keepdim))?;
                values_indices(py, "nanmedian", pair)
            }
        }
    }

    /// The most frequent value along `dim` and an index of it.
    #[pyo3(signature = (dim=-1, keepdim=false))]
    // stub: (self, dim: int = ..., keepdim: bool = False) -> mode_result
    fn mode(&self, py: Python<'_>, dim: isize, keepdim: bool) -> PyResult<Py<PyAny>> {
        let pair = run(|| self.inner.mode(dim, keepdim))?;
        values_indices(py, "mode", pair)
    }

    /// The distinct elements (or slices along `dim`), sorted; with the inverse indices and
    /// the counts when asked for.
    #[pyo3(signature = (sorted=true, return_inverse=false, return_counts=false, dim=None))]
    // stub: (
    //     self,
    //     sorted: bool = True,
    //     return_inverse: Literal[False] = False,
    //     return_counts: Literal[False] = False,
    //     dim: int | None = None,
    // ) -> Tensor
    // stub: (
    //     self,
    //     sorted: bool = True,
    //     return_inverse: bool = False,
    //     return_counts: bool = False,
    //     dim: int | None = None,
    // ) -> Tensor | tuple[Tensor, ...]
    fn unique(
        &self,
        py: Python<'_>,
        sorted: bool,
        return_inverse: bool,
        return_counts: bool,
        dim: Option<isize>,
    ) -> PyResult<Py<PyAny>> {
        let _ = sorted; // the CPU result is sorted either way, as PyTorch's
        let parts = run(|| self.inner.unique(dim))?;
        super::selection::unique_result(py, parts, return_inverse, return_counts)
    }

    /// The cross product of 3-vectors along `dim` (the first dimension of size 3 when absent,
    /// with PyTorch's deprecation warning).
    #[pyo3(signature = (other: "Tensor", dim: "int | None" = None) -> "Tensor")]
    fn cross(&self, py: Python<'_>, other: &Bound<'_, PyAny>, dim: Option<isize>) -> TResult {
        let o = tensor_arg(other, "cross(): argument 'other'")?;
        let d = cross_dim(py, &self.inner, &o, dim)?;
        wrap(run(|| self.inner.cross(&o, d)))
    }

    /// The elements shifted circularly by `shifts` along `dims` (the flattened tensor when
    /// `dims` is empty).
    #[pyo3(signature = (shifts: "int | Sequence[int]", dims: "int | Sequence[int] | None" = None) -> "Tensor")]
    fn roll(&self, shifts: &Bound<'_, PyAny>, dims: Option<&Bound<'_, PyAny>>) -> TResult {
        let shifts = ints(shifts)?;
        let dims = dims_arg(dims)?;
        wrap(run(|| self.inner.roll(&shifts, &dims)))
    }

    /// The tensor expanded to `size` (PyTorch's `broadcast_to`: `expand`).
    #[pyo3(signature = (size: "int | Sequence[int]") -> "Tensor")]
    fn broadcast_to(&self, size: &Bound<'_, PyAny>) -> TResult {
        let shape: Vec<isize> = if let Ok(n) = size.extract::<isize>() {
            vec![n]
        } else {
            size.try_iter()?
                .map(|v| v?.extract::<isize>())
                .collect::<PyResult<_>>()?
        };
        wrap(run(|| self.inner.expand(&shape)))
    }

    /// `beta · self + alpha · (mat1 @ mat2)`.
    #[pyo3(signature = (mat1: "Tensor", mat2: "Tensor", *, beta: "float" = 1.0, alpha: "float" = 1.0) -> "Tensor")]
    fn addmm(
        &self,
        mat1: &Bound<'_, PyAny>,
        mat2: &Bound<'_, PyAny>,
        beta: f64,
        alpha: f64,
    ) -> TResult {
        let a = tensor_arg(mat1, "addmm(): argument 'mat1'")?;
        let b = tensor_arg(mat2, "addmm(): argument 'mat2'")?;
        wrap(run(|| self.inner.addmm(&a, &b, beta, alpha)))
    }

    /// `beta · self + alpha · (mat @ vec)`.
    #[pyo3(signature = (mat: "Tensor", vec: "Tensor", *, beta: "float" = 1.0, alpha: "float" = 1.0) -> "Tensor")]
    fn addmv(
        &self,
        mat: &Bound<'_, PyAny>,
        vec: &Bound<'_, PyAny>,
        beta: f64,
        alpha: f64,
    ) -> TResult {
        let a = tensor_arg(mat, "addmv(): argument 'mat'")?;
        let b = tensor_arg(vec, "addmv(): argument 'vec'")?;
        wrap(run(|| self.inner.addmv(&a, &b, beta, alpha)))
    }

    /// `beta · self + alpha · (batch1 @ batch2)` for 3-D batches.
    #[pyo3(signature = (batch1: "Tensor", batch2: "Tensor", *, beta: "float" = 1.0, alpha: "float" = 1.0) -> "Tensor")]
    fn baddbmm(
        &self,
        batch1: &Bound<'_, PyAny>,
        batch2: &Bound<'_, PyAny>,
        beta: f64,
        alpha: f64,
    ) -> TResult {
        let a = tensor_arg(batch1, "baddbmm(): argument 'batch1'")?;
        let b = tensor_arg(batch2, "baddbmm(): argument 'batch2'")?;
        wrap(run(|| self.inner.baddbmm(&a, &b, beta, alpha)))
    }
}

/// The `torch.xxx` functions of this file that are not aliases of the methods.
pub(crate) mod functions {
    use super::*;

    /// A division with a tensor or a number on either side (at least one tensor).
    fn division_fn(
        op: DivisionOp,
        name: &str,
        input: &Bound<'_, PyAny>,
        other: &Bound<'_, PyAny>,
    ) -> TResult {
        let (Some(a), Some(b)) = (operand_arg(input), operand_arg(other)) else {
            return Err(PyTypeError::new_err(format!(
                "{name}() received an invalid combination of arguments: got ({}, {})",
                input.get_type().name()?,
                other.get_type().name()?
            )));
        };
        wrap(run(|| division(op, a.as_operand(), b.as_operand())))
    }

    /// `torch.remainder(input, other)`: Python's modulus, either side may be a number.
    #[pyfunction]
    #[pyo3(signature = (input: "_Operand", other: "_Operand") -> "Tensor")]
    pub(crate) fn remainder(input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> TResult {
        division_fn(DivisionOp::Remainder, "remainder", input, other)
    }

    /// `torch.floor_divide(input, other)`: the quotient rounded down, either side a number.
    #[pyfunction]
    #[pyo3(signature = (input: "_Operand", other: "_Operand") -> "Tensor")]
    pub(crate) fn floor_divide(input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> TResult {
        division_fn(DivisionOp::FloorDivide, "floor_divide", input, other)
    }

    /// `torch.eye(n, m=None)`: the identity matrix (ones on the main diagonal).
    #[pyfunction]
    #[pyo3(signature = (n: "int", m: "int | None" = None, *, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
    pub(crate) fn eye(
        n: i64,
        m: Option<i64>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        requires_grad: bool,
    ) -> TResult {
        super::super::convert::device_arg(device)?;
        let dtype = dtype_arg(dtype)?.unwrap_or_else(crate::core::dtype::default_float);
        let t = run(|| Tensor::eye(n, m, dtype))?;
        super::super::creation::finish(t, requires_grad)
    }

    /// `nn.functional.linear(input, weight, bias=None)`: `input @ weight.T + bias`, recorded
    /// as PyTorch records it (`AddmmBackward0` for a 2-D input with a bias).
    #[pyfunction]
    #[pyo3(signature = (input: "Tensor", weight: "Tensor", bias: "Tensor | None" = None) -> "Tensor")]
    pub(crate) fn linear(
        input: &Bound<'_, PyAny>,
        weight: &Bound<'_, PyAny>,
        bias: Option<&Bound<'_, PyAny>>,
    ) -> TResult {
        let x = tensor_arg(input, "linear(): argument 'input'")?;
        let w = tensor_arg(weight, "linear(): argument 'weight'")?;
        let b = match bias {
            Some(b) if !b.is_none() => Some(tensor_arg(b, "linear(): argument 'bias'")?),
            _ => None,
        };
        wrap(run(|| x.linear(&w, b.as_ref())))
    }

    /// `linalg.svdvals(A)`: the singular values of each matrix, descending.
    #[pyfunction]
    #[pyo3(signature = (input: "Tensor") -> "Tensor")]
    pub(crate) fn svdvals(input: &Bound<'_, PyAny>) -> TResult {
        let a = tensor_arg(input, "linalg.svdvals(): argument 'A'")?;
        wrap(run(|| a.svdvals()))
    }
}

#[pymethods]
impl PyTensor {
    /// `(values, indices)` of the running maximum along `dim` (`CummaxBackward0`).
    #[pyo3(signature = (dim: "int") -> "cummax_result")]
    fn cummax(&self, py: Python<'_>, dim: isize) -> PyResult<Py<PyAny>> {
        let pair = run(|| self.inner.cummax(dim))?;
        values_indices(py, "cummax", pair)
    }

    /// `(values, indices)` of the running minimum along `dim` (`CumminBackward0`).
    #[pyo3(signature = (dim: "int") -> "cummin_result")]
    fn cummin(&self, py: Python<'_>, dim: isize) -> PyResult<Py<PyAny>> {
        let pair = run(|| self.inner.cummin(dim))?;
        values_indices(py, "cummin", pair)
    }

    /// `(min, max)` over `dim`, or over all elements (`AminmaxBackward0`).
    #[pyo3(signature = (*, dim: "int | None" = None, keepdim: "bool" = false) -> "aminmax_result")]
    fn aminmax(&self, py: Python<'_>, dim: Option<isize>, keepdim: bool) -> PyResult<Py<PyAny>> {
        let (lo, hi) = run(|| self.inner.aminmax(dim, keepdim))?;
        let cls = super::functions::return_type(py, "aminmax")?;
        Ok(cls
            .call1((to_object(py, lo)?, to_object(py, hi)?))?
            .unbind())
    }

    /// Sum with NaN counted as 0, of all elements or over `dim` (`NansumBackward0`).
    #[pyo3(signature = (dim: "int | Sequence[int] | None" = None, keepdim: "bool" = false, *, dtype: "_DType | None" = None) -> "Tensor")]
    fn nansum(
        &self,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> TResult {
        let dims = dims_arg(dim)?;
        let dtype = dtype_arg(dtype)?;
        wrap(run(|| {
            let x = match dtype {
                Some(d) => self.inner.to_dtype(d)?,
                None => self.inner.clone(),
            };
            x.nansum(&dims, keepdim)
        }))
    }

    /// `ln(eˣ + eʸ)` elementwise, without overflow (`LogaddexpBackward0`).
    #[pyo3(signature = (other: "Tensor") -> "Tensor")]
    fn logaddexp(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "logaddexp(): argument 'other'")?;
        wrap(run(|| self.inner.logaddexp(&o)))
    }

    /// `log₂(2ˣ + 2ʸ)` elementwise, without overflow (`Logaddexp2Backward0`).
    #[pyo3(signature = (other: "Tensor") -> "Tensor")]
    fn logaddexp2(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "logaddexp2(): argument 'other'")?;
        wrap(run(|| self.inner.logaddexp2(&o)))
    }

    /// NaN, `+inf` and `-inf` replaced by finite numbers (`NanToNumBackward0`).
    #[pyo3(signature = (nan: "float" = 0.0, posinf: "float | None" = None, neginf: "float | None" = None) -> "Tensor")]
    fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> TResult {
        wrap(run(|| self.inner.nan_to_num(nan, posinf, neginf)))
    }

    /// In-place `nan_to_num`.
    #[pyo3(signature = (nan: "float" = 0.0, posinf: "float | None" = None, neginf: "float | None" = None) -> "Self")]
    fn nan_to_num_(
        slf: Bound<'_, Self>,
        nan: f64,
        posinf: Option<f64>,
        neginf: Option<f64>,
    ) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.nan_to_num_(nan, posinf, neginf))?;
        Ok(slf)
    }
}
