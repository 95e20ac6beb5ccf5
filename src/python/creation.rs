//! `torch.tensor` and the factories: `zeros`, `ones`, `empty`, `empty_strided`, `full`, the
//! `*_like` functions, `arange` and `linspace`.

use super::convert::{dtype_arg, size_args, tensor_arg, tensor_from_data};
use super::errors::{run, run_unnamed};
use super::tensor::to_object;
use super::tensor_shape::MemoryFormat;
use crate::core::dtype::DType;
use crate::core::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// Sets `requires_grad` on a new tensor (refused for integer dtypes, as PyTorch refuses it)
/// and wraps it for Python.
pub(crate) fn finish(t: Tensor, requires_grad: bool) -> PyResult<Py<PyAny>> {
    if requires_grad && !t.dtype().is_floating_point() {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "Only Tensors of floating point and complex dtype can require gradients (got {})",
            t.dtype().name()
        )));
    }
    run_unnamed(|| t.set_requires_grad(requires_grad))?;
    Python::attach(|py| to_object(py, t))
}

/// `tensor(data, dtype=None, requires_grad=False)`: a new leaf holding a copy of `data`.
#[pyfunction]
#[pyo3(signature = (data: "_Data", *, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
pub(crate) fn tensor(
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyAny>> {
    super::convert::device_arg(device)?;
    let t = tensor_from_data(data, dtype_arg(dtype)?)?;
    finish(t, requires_grad)
}

/// The tensor of `zeros`/`ones`/`empty` (`name`): the size positionally (`zeros(2, 3)`,
/// `zeros((2, 3))`) or as `size=(2, 3)`, filled with `value`.
fn filled_tensor(
    name: &str,
    sizes: &Bound<'_, PyTuple>,
    size: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    value: f64,
) -> PyResult<Tensor> {
    super::convert::device_arg(device)?;
    let shape = match size {
        Some(s) if sizes.is_empty() => size_args(&PyTuple::new(s.py(), [s])?)?,
        Some(_) => {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{name}() got multiple values for argument 'size'"
            )))
        }
        None => size_args(sizes)?,
    };
    let dtype = dtype_arg(dtype)?.unwrap_or_else(crate::core::dtype::default_float);
    run(|| Tensor::try_full(&shape, value, dtype))
}

macro_rules! filled {
    ($name:ident, $value:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (*sizes, size=None, dtype=None, device=None, requires_grad=false))]
        // stub: (
        //     sizes: Sequence[int],
        //     /,
        //     *,
        //     dtype: _DTypeLike | None = None,
        //     device: _Device | None = None,
        //     requires_grad: bool = False,
        // ) -> Tensor
        // stub: (
        //     *sizes: int,
        //     dtype: _DTypeLike | None = None,
        //     device: _Device | None = None,
        //     requires_grad: bool = False,
        // ) -> Tensor
        // stub: (
        //     *,
        //     size: Sequence[int] | None = None,
        //     dtype: _DTypeLike | None = None,
        //     device: _Device | None = None,
        //     requires_grad: bool = False,
        // ) -> Tensor
        pub(crate) fn $name(
            sizes: &Bound<'_, PyTuple>,
            size: Option<&Bound<'_, PyAny>>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
        ) -> PyResult<Py<PyAny>> {
            let t = filled_tensor(stringify!($name), sizes, size, dtype, device, $value)?;
            finish(t, requires_grad)
        }
    };
}

filled!(zeros, 0.0, "A tensor of zeros.");
filled!(ones, 1.0, "A tensor of ones.");

/// An uninitialised tensor (zero-filled here), laid out in `memory_format` (contiguous by
/// default, `torch.channels_last` for 4-D ...).
#[pyfunction]
#[pyo3(signature = (*sizes, size=None, dtype=None, device=None, requires_grad=false, pin_memory=false, memory_format=None))]
#[allow(clippy::too_many_arguments)]
// stub: (
//     sizes: Sequence[int],
//     /,
//     *,
//     dtype: _DTypeLike | None = None,
//     device: _Device | None = None,
//     requires_grad: bool = False,
//     pin_memory: bool = False,
//     memory_format: Any = None,
// ) -> Tensor
// stub: (
//     *sizes: int,
//     dtype: _DTypeLike | None = None,
//     device: _Device | None = None,
//     requires_grad: bool = False,
//     pin_memory: bool = False,
//     memory_format: Any = None,
// ) -> Tensor
// stub: (
//     *,
//     size: Sequence[int] | None = None,
//     dtype: _DTypeLike | None = None,
//     device: _Device | None = None,
//     requires_grad: bool = False,
//     pin_memory: bool = False,
//     memory_format: Any = None,
// ) -> Tensor
pub(crate) fn empty(
    sizes: &Bound<'_, PyTuple>,
    size: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    // pinned memory is for copies to a GPU: on the CPU alone there is nothing to pin
    let _ = pin_memory;
    let t = filled_tensor("empty", sizes, size, dtype, device, 0.0)?;
    let t = match super::tensor_shape::memory_format_arg(memory_format, t.dim())? {
        MemoryFormat::Contiguous => t,
        MemoryFormat::ChannelsLast => run(|| t.channels_last())?,
        MemoryFormat::Preserve => {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "unsupported memory format Preserve",
            ))
        }
    };
    finish(t, requires_grad)
}

/// `torch.empty_strided(size, stride)`: an uninitialised tensor (zero-filled here) of `size`
/// laid out with `stride`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (size: "Sequence[int]", stride: "Sequence[int]", *, dtype: "_DTypeLike | None" = None, layout: "object" = None, device: "_Device | None" = None, requires_grad: "bool" = false, pin_memory: "bool" = false) -> "Tensor")]
pub(crate) fn empty_strided(
    size: &Bound<'_, PyAny>,
    stride: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyAny>> {
    // pinned memory is for copies to a GPU: on the CPU alone there is nothing to pin
    let _ = pin_memory;
    let dtype = dtype_arg(dtype)?.unwrap_or_else(crate::core::dtype::default_float);
    strided_tensor(size, stride, dtype, layout, device, requires_grad)
}

/// `empty_strided`'s tensor (also `Tensor.new_empty_strided`'s), `dtype` decided by the caller.
pub(crate) fn strided_tensor(
    size: &Bound<'_, PyAny>,
    stride: &Bound<'_, PyAny>,
    dtype: crate::core::dtype::DType,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyAny>> {
    super::convert::device_arg(device)?;
    strided_layout(layout)?;
    let shape = size_args(&PyTuple::new(size.py(), [size])?)?;
    let strides = super::convert::dims_arg(Some(stride))?;
    let t = run(|| Tensor::empty_strided(&shape, &strides, dtype))?;
    finish(t, requires_grad)
}

/// A tensor of `size` filled with `fill_value` (dtype inferred from the value when not given).
#[pyfunction]
#[pyo3(signature = (size: "_Dims", fill_value: "_Number", *, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
pub(crate) fn full(
    size: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyAny>> {
    super::convert::device_arg(device)?;
    if !(size.is_instance_of::<PyTuple>() || size.is_instance_of::<PyList>()) {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "full(): argument 'size' (position 1) must be tuple of ints, not {}",
            size.get_type().name()?
        )));
    }
    let shape = size_args(&PyTuple::new(size.py(), [size])?)?;
    let value = super::convert::scalar_arg(fill_value).ok_or_else(|| {
        pyo3::exceptions::PyTypeError::new_err("full(): fill_value must be a number")
    })?;
    let dtype = dtype_arg(dtype)?.unwrap_or_else(|| value.natural_dtype());
    finish(
        run(|| Tensor::try_full(&shape, value.to_f64(), dtype))?,
        requires_grad,
    )
}

/// Refuses a `layout=` other than `torch.strided` (the only one ferrograd stores).
fn strided_layout(layout: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    match layout.filter(|l| !l.is_none()) {
        Some(l) if l.repr()? != "torch.strided" => {
            Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
                "ferrograd stores tensors strided only, not with layout {}",
                l.repr()?
            )))
        }
        _ => Ok(()),
    }
}

macro_rules! like {
    ($name:ident, $value:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (input, *, dtype=None, layout=None, device=None, requires_grad=false, memory_format=None))]
        // stub: (
        //     input: Tensor,
        //     *,
        //     dtype: _DTypeLike | None = None,
        //     layout: object = None,
        //     device: _Device | None = None,
        //     requires_grad: bool = False,
        //     memory_format: Any = None,
        // ) -> Tensor
        pub(crate) fn $name(
            input: &Bound<'_, PyAny>,
            dtype: Option<&Bound<'_, PyAny>>,
            layout: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            memory_format: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Py<PyAny>> {
            // the CPU is the only device and strided the only layout
            super::convert::device_arg(device)?;
            strided_layout(layout)?;
            let t = tensor_arg(input, "input")?;
            let dtype = dtype_arg(dtype)?.unwrap_or(t.dtype());
            let out = match super::tensor_shape::like_format(memory_format, t.dim())? {
                MemoryFormat::Preserve => t.full_like_laid_out($value, dtype),
                MemoryFormat::Contiguous => Tensor::full(t.shape(), $value, dtype),
                MemoryFormat::ChannelsLast => run(|| Tensor::full(t.shape(), $value, dtype).channels_last())?,
            };
            finish(out, requires_grad)
        }
    };
}

like!(
    zeros_like,
    0.0,
    "Zeros with `input`'s shape (and dtype), laid out as `input` (or in `memory_format`)."
);
like!(
    ones_like,
    1.0,
    "Ones with `input`'s shape (and dtype), laid out as `input` (or in `memory_format`)."
);

/// `arange(end)` or `arange(start, end, step)`; int64 when every bound is an integer.
#[pyfunction]
#[pyo3(signature = (start: "_Number", end: "_Number | None" = None, step: "_Number | None" = None, *, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
pub(crate) fn arange(
    start: &Bound<'_, PyAny>,
    end: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyAny>> {
    super::convert::device_arg(device)?;
    let (s, e) = match end {
        Some(e) if !e.is_none() => (start.clone(), e.clone()),
        _ => (0i64.into_pyobject(start.py())?.into_any(), start.clone()),
    };
    let st = match step {
        Some(st) if !st.is_none() => st.clone(),
        _ => 1i64.into_pyobject(start.py())?.into_any(),
    };
    let all_int = [&s, &e, &st]
        .iter()
        .all(|v| v.is_instance_of::<pyo3::types::PyInt>());
    let dtype = dtype_arg(dtype)?.unwrap_or(if all_int {
        DType::Int64
    } else {
        crate::core::dtype::default_float()
    });
    let t = run(|| {
        Tensor::arange(
            s.extract::<f64>().unwrap_or(0.0),
            e.extract::<f64>().unwrap_or(0.0),
            st.extract::<f64>().unwrap_or(1.0),
            dtype,
        )
    })?;
    finish(t, requires_grad)
}

/// `steps` evenly spaced values from `start` to `end`.
#[pyfunction]
#[pyo3(signature = (start: "float", end: "float", steps: "int", *, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
pub(crate) fn linspace(
    start: f64,
    end: f64,
    steps: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyAny>> {
    super::convert::device_arg(device)?;
    let dtype = dtype_arg(dtype)?.unwrap_or_else(crate::core::dtype::default_float);
    if steps < 0 {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "linspace: number of steps must be non-negative (got {steps})"
        )));
    }
    let t = run(|| Tensor::linspace(start, end, steps as usize, dtype))?;
    finish(t, requires_grad)
}
