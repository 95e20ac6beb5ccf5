//! Bindings of the ops that write at the places an index names (`crate::ops::shape::scatter`):
//! `scatter`, `scatter_add`, `scatter_reduce`, `index_reduce`, `index_copy`, `index_fill`,
//! `index_add`, with their in-place twins.

use super::convert::{scalar_arg, tensor_arg};
use super::errors::run;
use super::tensor::{wrap, PyTensor, TResult};
use crate::core::tensor::Tensor;
use crate::ops::shape::scatter::Reduce;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

/// What `scatter` writes: a tensor's elements or one value.
enum Source {
    Tensor(Tensor),
    Value(crate::Scalar),
}

fn scatter_source(
    src: Option<&Bound<'_, PyAny>>,
    value: Option<&Bound<'_, PyAny>>,
    op: &str,
) -> PyResult<Source> {
    match (src, value) {
        (Some(s), None) => match s.cast::<PyTensor>() {
            Ok(t) => Ok(Source::Tensor(t.get().inner.clone())),
            Err(_) => number(s, op).map(Source::Value),
        },
        (None, Some(v)) => number(v, op).map(Source::Value),
        _ => Err(PyTypeError::new_err(format!(
            "{op}() takes a 'src' tensor or a 'value' number (one of them)"
        ))),
    }
}

fn number(obj: &Bound<'_, PyAny>, op: &str) -> PyResult<crate::Scalar> {
    scalar_arg(obj)
        .ok_or_else(|| PyTypeError::new_err(format!("{op}(): argument 'value' must be a number")))
}

/// The value of `index_fill`: a number, or a 0-d tensor that does not require grad (a value
/// with a gradient is refused rather than silently left out of the graph).
fn fill_number(value: &Bound<'_, PyAny>, op: &str) -> PyResult<crate::Scalar> {
    if let Ok(t) = value.cast::<PyTensor>() {
        let t = &t.get().inner;
        if t.dim() != 0 {
            return Err(PyRuntimeError::new_err(format!(
                "{op} only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                t.dim()
            )));
        }
        if t.requires_grad() && crate::core::grad_mode::is_grad_enabled() {
            return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
                "{op}(): ferrograd does not differentiate with respect to a value tensor; pass a number or a tensor that does not require grad"
            )));
        }
        return run(|| t.item());
    }
    number(value, op)
}

fn scatter_with(x: &Tensor, dim: isize, index: &Tensor, source: &Source) -> crate::Result<Tensor> {
    match source {
        Source::Tensor(src) => x.scatter(dim, index, src),
        Source::Value(v) => x.scatter_value(dim, index, *v),
    }
}

/// PyTorch's one-time warning that `index_reduce` is in beta.
fn warn_index_reduce_beta(py: Python<'_>) -> PyResult<()> {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return Ok(());
    }
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        c"index_reduce() is in beta and the API may change at any time.",
        1,
    )
}

/// Runs the in-place twin `name` of an op through the in-place machinery.
fn in_place<'py>(
    slf: Bound<'py, PyTensor>,
    name: &'static str,
    others: &[&Tensor],
    op: impl FnOnce(&Tensor) -> crate::Result<Tensor>,
) -> PyResult<Bound<'py, PyTensor>> {
    run(|| slf.get().inner.apply_inplace(name, others, op))?;
    Ok(slf)
}

#[pymethods]
impl PyTensor {
    /// A copy with `src`'s elements (or `value`) written at `index` along `dim`.
    #[pyo3(signature = (dim: "int", index: "Tensor", src: "Tensor | float | None" = None, *, value: "float | None" = None) -> "Tensor")]
    fn scatter(
        &self,
        dim: isize,
        index: &Bound<'_, PyAny>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
    ) -> TResult {
        let index = tensor_arg(index, "scatter() argument 'index'")?;
        let source = scatter_source(src, value, "scatter")?;
        wrap(run(|| scatter_with(&self.inner, dim, &index, &source)))
    }
    /// In-place `scatter`.
    #[pyo3(signature = (dim: "int", index: "Tensor", src: "Tensor | float | None" = None, *, value: "float | None" = None) -> "Self")]
    fn scatter_<'py>(
        slf: Bound<'py, Self>,
        dim: isize,
        index: &Bound<'py, PyAny>,
        src: Option<&Bound<'py, PyAny>>,
        value: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let index = tensor_arg(index, "scatter_() argument 'index'")?;
        let source = scatter_source(src, value, "scatter_")?;
        let others: Vec<&Tensor> = match &source {
            Source::Tensor(t) => vec![t],
            Source::Value(_) => vec![],
        };
        in_place(slf.clone(), "scatter_", &others, |x| {
            scatter_with(x, dim, &index, &source)
        })
    }
    /// A copy with `src` added at `index` along `dim`.
    #[pyo3(signature = (dim: "int", index: "Tensor", src: "Tensor") -> "Tensor")]
    fn scatter_add(&self, dim: isize, index: &Bound<'_, PyAny>, src: &Bound<'_, PyAny>) -> TResult {
        let index = tensor_arg(index, "scatter_add() argument 'index'")?;
        let src = tensor_arg(src, "scatter_add() argument 'src'")?;
        wrap(run(|| self.inner.scatter_add(dim, &index, &src)))
    }
    /// In-place `scatter_add`.
    #[pyo3(signature = (dim: "int", index: "Tensor", src: "Tensor") -> "Self")]
    fn scatter_add_<'py>(
        slf: Bound<'py, Self>,
        dim: isize,
        index: &Bound<'py, PyAny>,
        src: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let index = tensor_arg(index, "scatter_add_() argument 'index'")?;
        let src = tensor_arg(src, "scatter_add_() argument 'src'")?;
        in_place(slf, "scatter_add_", &[&src], |x| {
            x.scatter_add(dim, &index, &src)
        })
    }
    /// A copy with `src` combined by `reduce` ("sum", "prod", "mean", "amax", "amin") at
    /// `index` along `dim`.
    #[pyo3(signature = (dim: "int", index: "Tensor", src: "Tensor", reduce: "str", *, include_self: "bool" = true) -> "Tensor")]
    fn scatter_reduce(
        &self,
        dim: isize,
        index: &Bound<'_, PyAny>,
        src: &Bound<'_, PyAny>,
        reduce: &str,
        include_self: bool,
    ) -> TResult {
        let index = tensor_arg(index, "scatter_reduce() argument 'index'")?;
        let src = tensor_arg(src, "scatter_reduce() argument 'src'")?;
        let reduce = run(|| Reduce::parse(reduce, "scatter_reduce"))?;
        wrap(run(|| {
            self.inner
                .scatter_reduce(dim, &index, &src, reduce, include_self)
        }))
    }
    /// In-place `scatter_reduce`.
    #[pyo3(signature = (dim: "int", index: "Tensor", src: "Tensor", reduce: "str", *, include_self: "bool" = true) -> "Self")]
    fn scatter_reduce_<'py>(
        slf: Bound<'py, Self>,
        dim: isize,
        index: &Bound<'py, PyAny>,
        src: &Bound<'py, PyAny>,
        reduce: &str,
        include_self: bool,
    ) -> PyResult<Bound<'py, Self>> {
        let index = tensor_arg(index, "scatter_reduce_() argument 'index'")?;
        let src = tensor_arg(src, "scatter_reduce_() argument 'src'")?;
        let reduce = run(|| Reduce::parse(reduce, "scatter_reduce_"))?;
        in_place(slf, "scatter_reduce_", &[&src], |x| {
            x.scatter_reduce(dim, &index, &src, reduce, include_self)
        })
    }
    /// A copy with the slices of `source` combined by `reduce` ("prod", "mean", "amax",
    /// "amin") into the slices `index` along `dim`.
    #[pyo3(signature = (dim: "int", index: "Tensor", source: "Tensor", reduce: "str", *, include_self: "bool" = true) -> "Tensor")]
    fn index_reduce(
        &self,
        dim: isize,
        index: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        reduce: &str,
        include_self: bool,
    ) -> TResult {
        warn_index_reduce_beta(index.py())?;
        let index = tensor_arg(index, "index_reduce() argument 'index'")?;
        let source = tensor_arg(source, "index_reduce() argument 'source'")?;
        let reduce = run(|| Reduce::parse(reduce, "index_reduce"))?;
        wrap(run(|| {
            self.inner
                .index_reduce(dim, &index, &source, reduce, include_self)
        }))
    }
    /// In-place `index_reduce`.
    #[pyo3(signature = (dim: "int", index: "Tensor", source: "Tensor", reduce: "str", *, include_self: "bool" = true) -> "Self")]
    fn index_reduce_<'py>(
        slf: Bound<'py, Self>,
        dim: isize,
        index: &Bound<'py, PyAny>,
        source: &Bound<'py, PyAny>,
        reduce: &str,
        include_self: bool,
    ) -> PyResult<Bound<'py, Self>> {
        warn_index_reduce_beta(index.py())?;
        let index = tensor_arg(index, "index_reduce_() argument 'index'")?;
        let source = tensor_arg(source, "index_reduce_() argument 'source'")?;
        let reduce = run(|| Reduce::parse(reduce, "index_reduce_"))?;
        in_place(slf, "index_reduce_", &[&source], |x| {
            x.index_reduce(dim, &index, &source, reduce, include_self)
        })
    }
    /// A copy with the slices of `source` written at the slices `index` along `dim`.
    #[pyo3(signature = (dim: "int", index: "Tensor", source: "Tensor") -> "Tensor")]
    fn index_copy(
        &self,
        dim: isize,
        index: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
    ) -> TResult {
        let index = tensor_arg(index, "index_copy() argument 'index'")?;
        let source = tensor_arg(source, "index_copy() argument 'source'")?;
        wrap(run(|| self.inner.index_copy(dim, &index, &source)))
    }
    /// In-place `index_copy`.
    #[pyo3(signature = (dim: "int", index: "Tensor", source: "Tensor") -> "Self")]
    fn index_copy_<'py>(
        slf: Bound<'py, Self>,
        dim: isize,
        index: &Bound<'py, PyAny>,
        source: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let index = tensor_arg(index, "index_copy_() argument 'index'")?;
        let source = tensor_arg(source, "index_copy_() argument 'source'")?;
        in_place(slf, "index_copy_", &[&source], |x| {
            x.index_copy(dim, &index, &source)
        })
    }
    /// A copy with the slices `index` along `dim` set to `value`.
    #[pyo3(signature = (dim: "int", index: "Tensor", value: "float | Tensor") -> "Tensor")]
    fn index_fill(
        &self,
        dim: isize,
        index: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> TResult {
        let index = tensor_arg(index, "index_fill() argument 'index'")?;
        let value = fill_number(value, "index_fill")?;
        let d = run(|| crate::core::layout::normalize_dim(dim, self.inner.dim().max(1)))?;
        wrap(run(|| self.inner.index_fill(d, &index, value)))
    }
    /// In-place `index_fill`.
    #[pyo3(signature = (dim: "int", index: "Tensor", value: "float | Tensor") -> "Self")]
    fn index_fill_<'py>(
        slf: Bound<'py, Self>,
        dim: isize,
        index: &Bound<'py, PyAny>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let index = tensor_arg(index, "index_fill_() argument 'index'")?;
        let value = fill_number(value, "index_fill_")?;
        let d = run(|| crate::core::layout::normalize_dim(dim, slf.get().inner.dim().max(1)))?;
        in_place(slf, "index_fill_", &[], |x| x.index_fill(d, &index, value))
    }
    /// A copy with `alpha` times the slices of `source` added at the slices `index` along
    /// `dim`.
    #[pyo3(signature = (dim: "int", index: "Tensor", source: "Tensor", *, alpha: "float" = 1.0) -> "Tensor")]
    fn index_add(
        &self,
        dim: isize,
        index: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        alpha: f64,
    ) -> TResult {
        let index = tensor_arg(index, "index_add() argument 'index'")?;
        let source = tensor_arg(source, "index_add() argument 'source'")?;
        wrap(run(|| {
            self.inner.index_add_scaled(dim, &index, &source, alpha)
        }))
    }
    /// In-place `index_add`.
    #[pyo3(signature = (dim: "int", index: "Tensor", source: "Tensor", *, alpha: "float" = 1.0) -> "Self")]
    fn index_add_<'py>(
        slf: Bound<'py, Self>,
        dim: isize,
        index: &Bound<'py, PyAny>,
        source: &Bound<'py, PyAny>,
        alpha: f64,
    ) -> PyResult<Bound<'py, Self>> {
        let index = tensor_arg(index, "index_add_() argument 'index'")?;
        let source = tensor_arg(source, "index_add_() argument 'source'")?;
        in_place(slf, "index_add_", &[&source], |x| {
            x.index_add_scaled(dim, &index, &source, alpha)
        })
    }
}
