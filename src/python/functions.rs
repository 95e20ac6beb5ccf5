//! Module-level functions of `ferrograd._core`: factories, grad mode, and `autograd.grad`.

use super::convert::{dtype_arg, operand_arg, size_args, tensor_arg, tensor_from_data};
use super::tensor::{to_object, PyTensor};
use super::tensor_shape::MemoryFormat;
use super::{run, run_unnamed};
use crate::autograd::GradOptions;
use crate::autograd::{record_custom, CustomBackward, CustomCall, Hook};
use crate::core::dtype::DType;
use crate::core::error::Error;
use crate::core::tensor::Tensor;
use crate::ops::{pointwise::arithmetic::binary, BinaryOp};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::sync::Arc;

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
#[pyo3(signature = (data, *, dtype=None, device=None, requires_grad=false))]
fn tensor(
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
        fn $name(
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
fn empty(
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
#[pyo3(signature = (size, stride, *, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
fn empty_strided(
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
#[pyo3(signature = (size, fill_value, *, dtype=None, device=None, requires_grad=false))]
fn full(
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
        fn $name(
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

/// `F.embedding`'s core: the rows of `weight` at `indices` (`EmbeddingBackward0`; no
/// gradient for the row `padding_idx`; each row's gradient divided by its count when
/// `scale_grad_by_freq`). The argument checks and `max_norm` are in `nn.functional`.
#[pyfunction]
#[pyo3(signature = (weight, indices, padding_idx=None, scale_grad_by_freq=false, sparse=false))]
fn _embedding(
    weight: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> PyResult<Py<PyAny>> {
    let w = tensor_arg(weight, "embedding() argument 'weight'")?;
    let i = tensor_arg(indices, "embedding() argument 'indices'")?;
    let out = run(|| w.embedding_as(&i, padding_idx, scale_grad_by_freq, sparse))?;
    to_object(weight.py(), out)
}

/// `embedding_bag(weight, indices, offsets, mode, ...)` (`EmbeddingBagBackward0`): one row
/// per bag of the weight's rows at the 1-D `indices`, cut into bags by `offsets` and reduced
/// by `mode` (0 sum, 1 mean, 2 max). The argument order and the 2-D input are `nn.functional`'s.
#[pyfunction]
#[pyo3(signature = (weight, indices, offsets, mode, per_sample_weights=None, include_last_offset=false, padding_idx=None, scale_grad_by_freq=false, sparse=false))]
#[allow(clippy::too_many_arguments)]
fn _embedding_bag(
    weight: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    mode: u8,
    per_sample_weights: Option<&Bound<'_, PyAny>>,
    include_last_offset: bool,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> PyResult<Py<PyAny>> {
    use crate::ops::nn::embedding::{BagMode, BagOptions};
    let w = tensor_arg(weight, "embedding_bag() argument 'weight'")?;
    let i = tensor_arg(indices, "embedding_bag() argument 'indices'")?;
    let o = tensor_arg(offsets, "embedding_bag() argument 'offsets'")?;
    let mode = match mode {
        0 => BagMode::Sum,
        1 => BagMode::Mean,
        2 => BagMode::Max,
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "mode has to be one of sum, mean or max",
            ))
        }
    };
    let options = BagOptions {
        per_sample_weights: per_sample_weights
            .map(|p| tensor_arg(p, "embedding_bag() argument 'per_sample_weights'"))
            .transpose()?,
        include_last_offset,
        padding_idx,
        scale_grad_by_freq,
        sparse,
    };
    let out = run(|| w.embedding_bag(&i, &o, mode, &options))?;
    to_object(weight.py(), out)
}

/// `(*, C·r², H, W) → (*, C, H·r, W·r)`: `torch.pixel_shuffle` (`PixelShuffleBackward0`).
#[pyfunction]
fn pixel_shuffle(input: &Bound<'_, PyAny>, upscale_factor: i64) -> PyResult<Py<PyAny>> {
    let x = tensor_arg(input, "pixel_shuffle(): argument 'input'")?;
    to_object(input.py(), run(|| x.pixel_shuffle(upscale_factor))?)
}

/// `(*, C, H·r, W·r) → (*, C·r², H, W)`: `torch.pixel_unshuffle` (`PixelUnshuffleBackward0`).
#[pyfunction]
fn pixel_unshuffle(input: &Bound<'_, PyAny>, downscale_factor: i64) -> PyResult<Py<PyAny>> {
    let x = tensor_arg(input, "pixel_unshuffle(): argument 'input'")?;
    to_object(input.py(), run(|| x.pixel_unshuffle(downscale_factor))?)
}

/// `arange(end)` or `arange(start, end, step)`; int64 when every bound is an integer.
#[pyfunction]
#[pyo3(signature = (start, end=None, step=None, *, dtype=None, device=None, requires_grad=false))]
fn arange(
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
#[pyo3(signature = (start, end, steps, *, dtype=None, device=None, requires_grad=false))]
fn linspace(
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

/// Sets every print option (`torch.set_printoptions` fills in the ones not given).
#[pyfunction]
fn _set_printoptions(
    precision: usize,
    threshold: f64,
    edgeitems: usize,
    linewidth: usize,
    sci_mode: Option<bool>,
) {
    crate::core::format::set_print_options(crate::core::format::PrintOptions {
        precision,
        threshold: if threshold >= usize::MAX as f64 {
            usize::MAX
        } else {
            threshold.max(0.0) as usize
        },
        edgeitems,
        linewidth,
        sci_mode,
    });
}

/// The print options in effect: `(precision, threshold, edgeitems, linewidth, sci_mode)`.
#[pyfunction]
fn _get_printoptions() -> (usize, f64, usize, usize, Option<bool>) {
    let o = crate::core::format::print_options();
    let threshold = if o.threshold == usize::MAX {
        f64::INFINITY
    } else {
        o.threshold as f64
    };
    (o.precision, threshold, o.edgeitems, o.linewidth, o.sci_mode)
}

/// Sets the default floating dtype (float32 or float64).
#[pyfunction]
fn _set_default_dtype(dtype: &Bound<'_, PyAny>) -> PyResult<()> {
    let d = dtype_arg(Some(dtype))?.ok_or_else(|| {
        pyo3::exceptions::PyTypeError::new_err("set_default_dtype expects a dtype")
    })?;
    run(|| crate::core::dtype::set_default_float(d))
}

/// The default floating dtype.
#[pyfunction]
fn _get_default_dtype(py: Python<'_>) -> PyResult<Py<super::convert::PyDType>> {
    super::convert::dtype_object(py, crate::core::dtype::default_float())
}

/// Sets the number of threads used by parallel kernels (matmul, large elementwise ops).
#[pyfunction]
fn set_num_threads(threads: i64) -> PyResult<()> {
    if threads <= 0 {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "set_num_threads expects a positive integer (got {threads})"
        )));
    }
    crate::set_num_threads(threads as usize);
    Ok(())
}

/// `torch.promote_types`: the dtype both convert to (see [`DType::promote`]).
#[pyfunction]
fn promote_types(
    py: Python<'_>,
    type1: &Bound<'_, PyAny>,
    type2: &Bound<'_, PyAny>,
) -> PyResult<Py<super::convert::PyDType>> {
    let (a, b) = (
        dtype_required(type1, "type1")?,
        dtype_required(type2, "type2")?,
    );
    super::convert::dtype_object(py, DType::promote(a, b))
}

/// `torch.can_cast`: whether PyTorch's casting rules let `from_` be written into `to` in place
/// (never to a lower category: float to integer, integer to bool).
#[pyfunction]
fn can_cast(from_: &Bound<'_, PyAny>, to: &Bound<'_, PyAny>) -> PyResult<bool> {
    let (from, to) = (dtype_required(from_, "from_")?, dtype_required(to, "to")?);
    Ok(to.can_hold(from))
}

/// `torch.result_type`: the dtype an arithmetic op on `tensor` and `other` (each a tensor or a
/// number) gives.
#[pyfunction]
fn result_type(
    py: Python<'_>,
    tensor: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<super::convert::PyDType>> {
    use super::convert::OwnedOperand as O;
    let dtype = match (operand_arg(tensor), operand_arg(other)) {
        (Some(O::Tensor(a)), Some(O::Tensor(b))) => crate::ops::result_type(&a, &b),
        (Some(O::Tensor(t)), Some(O::Scalar(s))) | (Some(O::Scalar(s)), Some(O::Tensor(t))) => {
            s.result_type_with(t.dtype())
        }
        (Some(O::Scalar(a)), Some(O::Scalar(b))) => {
            DType::promote(a.natural_dtype(), b.natural_dtype())
        }
        _ => {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "result_type() received an invalid combination of arguments - got ({}, {})",
                tensor.get_type().name()?,
                other.get_type().name()?
            )))
        }
    };
    super::convert::dtype_object(py, dtype)
}

/// A dtype argument that must be given (`promote_types`, `can_cast`).
fn dtype_required(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<DType> {
    match obj.cast::<super::convert::PyDType>() {
        Ok(d) => Ok(d.get().inner),
        Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "argument '{name}' must be torch.dtype, not {}",
            obj.get_type().name()?
        ))),
    }
}

/// The number of threads used by parallel kernels.
#[pyfunction]
fn get_num_threads() -> usize {
    crate::cpu::parallel::requested_threads()
}

/// Whether this thread records autograd history.
#[pyfunction]
fn is_grad_enabled() -> bool {
    crate::is_grad_enabled()
}

/// Sets grad mode for this thread; returns the previous mode.
#[pyfunction]
fn _set_grad_enabled(enabled: bool) -> bool {
    crate::set_grad_enabled(enabled)
}

/// Whether views made on this thread replay their own view ops when an in-place write makes
/// their history stale (`torch.autograd.is_view_replay_enabled`).
#[pyfunction]
fn _is_view_replay_enabled() -> bool {
    crate::core::grad_mode::is_view_replay_enabled()
}

/// Sets view replay for this thread; returns the previous setting.
#[pyfunction]
fn _set_view_replay_enabled(enabled: bool) -> bool {
    crate::core::grad_mode::set_view_replay_enabled(enabled)
}

/// Tensors from a tensor or a sequence of tensors.
pub(crate) fn tensor_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Tensor>> {
    if obj.cast::<PyTensor>().is_ok() {
        return Ok(vec![tensor_arg(obj, what)?]);
    }
    obj.try_iter()?.map(|t| tensor_arg(&t?, what)).collect()
}

/// Where a backward pass starts or stops: a tensor, a `GradientEdge` (a `(node, output
/// number)` pair), or a sequence of them.
fn root_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<crate::autograd::Root>> {
    use crate::autograd::{Edge, Root};
    let edge = |o: &Bound<'_, PyAny>| -> Option<Edge> {
        let (node, nr) = o
            .extract::<(PyRef<'_, super::node::PyNode>, usize)>()
            .ok()?;
        Some(Edge {
            node: node.inner.clone(),
            input_nr: nr,
        })
    };
    if obj.cast::<PyTensor>().is_ok() {
        return Ok(vec![Root::Tensor(tensor_arg(obj, what)?)]);
    }
    if let Some(e) = edge(obj) {
        return Ok(vec![Root::Edge(e)]);
    }
    obj.try_iter()?
        .map(|o| {
            let o = o?;
            match edge(&o) {
                Some(e) => Ok(Root::Edge(e)),
                None => tensor_arg(&o, what).map(Root::Tensor),
            }
        })
        .collect()
}

/// Optional gradients: None, a tensor, or a sequence of tensors/None.
fn optional_tensor_list(
    obj: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Vec<Option<Tensor>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(vec![]);
    };
    if obj.cast::<PyTensor>().is_ok() {
        return Ok(vec![Some(tensor_arg(obj, what)?)]);
    }
    obj.try_iter()?
        .map(|t| {
            let t = t?;
            if t.is_none() {
                Ok(None)
            } else {
                tensor_arg(&t, what).map(Some)
            }
        })
        .collect()
}

/// `autograd.grad(outputs, inputs, ...)`: gradients of `outputs` with respect to `inputs`, as a tuple.
#[pyfunction]
#[pyo3(signature = (outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=false, allow_unused=None, materialize_grads=false))]
#[allow(clippy::too_many_arguments)]
fn grad<'py>(
    py: Python<'py>,
    outputs: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
    grad_outputs: Option<&Bound<'py, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: Option<bool>,
    materialize_grads: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let outs = root_list(outputs, "outputs")?;
    let ins = tensor_list(inputs, "inputs")?;
    let mut gos = optional_tensor_list(grad_outputs, "grad_outputs")?;
    gos.truncate(outs.len().max(1)); // extra gradients are ignored, as PyTorch's zip
    let options = GradOptions {
        retain_graph,
        create_graph,
        allow_unused: allow_unused.unwrap_or(materialize_grads),
    };
    let results =
        py.detach(|| run_unnamed(|| crate::autograd::grad_from(&outs, &ins, &gos, options)))?;
    let items = results
        .into_iter()
        .zip(&ins)
        .map(|(r, input)| match (r, materialize_grads) {
            (Some(g), _) => to_object(py, g),
            (None, true) => to_object(py, input.zeros_like()),
            (None, false) => Ok(py.None()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

static WARN_ALWAYS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static WARNED_CREATE_GRAPH: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// `torch.set_warn_always(b)`: warnings PyTorch gives once per process are given every time.
#[pyfunction]
fn _set_warn_always(b: bool) {
    WARN_ALWAYS.store(b, std::sync::atomic::Ordering::Relaxed);
}

/// `torch.is_warn_always_enabled()`.
#[pyfunction]
fn _is_warn_always_enabled() -> bool {
    WARN_ALWAYS.load(std::sync::atomic::Ordering::Relaxed)
}

/// PyTorch's warning for `backward(create_graph=True)` (once per process unless
/// `set_warn_always(True)`): the leaves' gradients then hold graphs that hold the leaves.
pub(crate) fn warn_create_graph_cycle(py: Python<'_>) -> PyResult<()> {
    use std::sync::atomic::Ordering::Relaxed;
    if WARNED_CREATE_GRAPH.swap(true, Relaxed) && !WARN_ALWAYS.load(Relaxed) {
        return Ok(());
    }
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        c"Using backward() with create_graph=True will create a reference cycle between the \
parameter and its gradient which can cause a memory leak. We recommend using autograd.grad \
when creating the graph to avoid this. If you have to use this function, make sure to reset \
the .grad fields of your parameters to None after use to break the cycle and avoid the leak.",
        1,
    )
}

/// Enters or leaves inference mode on this thread (grad mode set to the opposite); returns the
/// previous (grad mode, inference mode) for `_restore_inference_mode`.
#[pyfunction]
fn _set_inference_mode(enabled: bool) -> (bool, bool) {
    crate::core::grad_mode::set_inference_mode(enabled)
}

/// Restores what `_set_inference_mode` returned.
#[pyfunction]
fn _restore_inference_mode(grad: bool, inference: bool) {
    crate::core::grad_mode::restore_inference_mode((grad, inference));
}

/// Whether this thread is in inference mode.
#[pyfunction]
fn is_inference_mode_enabled() -> bool {
    crate::core::grad_mode::is_inference_mode_enabled()
}

/// The gradient edge of a tensor (`autograd.graph.get_gradient_edge`): its node (the leaf's
/// AccumulateGrad for a leaf) and which output of it the tensor is.
#[pyfunction]
fn _gradient_edge(py: Python<'_>, tensor: PyRef<'_, PyTensor>) -> PyResult<(Py<PyAny>, usize)> {
    let Some(edge) = crate::autograd::gradient_edge(&tensor.inner) else {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "It is not possible to get the gradient edge for a Tensor that does not require gradients",
        ));
    };
    edge.node.record_output_meta(edge.input_nr, &tensor.inner);
    Ok((super::node::node_object(py, edge.node)?, edge.input_nr))
}

/// `autograd.grad` with respect to gradient edges `(node, output number)`.
#[pyfunction]
#[pyo3(signature = (outputs, edges, grad_outputs=None, retain_graph=None, create_graph=false, allow_unused=false))]
fn _grad_to_edges<'py>(
    py: Python<'py>,
    outputs: &Bound<'py, PyAny>,
    edges: Vec<(PyRef<'py, super::node::PyNode>, usize)>,
    grad_outputs: Option<&Bound<'py, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let outs = root_list(outputs, "outputs")?;
    let mut gos = optional_tensor_list(grad_outputs, "grad_outputs")?;
    gos.truncate(outs.len().max(1));
    let edges: Vec<crate::autograd::Edge> = edges
        .iter()
        .map(|(node, nr)| crate::autograd::Edge {
            node: node.inner.clone(),
            input_nr: *nr,
        })
        .collect();
    let options = GradOptions {
        retain_graph,
        create_graph,
        allow_unused,
    };
    let results =
        py.detach(|| run_unnamed(|| crate::autograd::grad_to_edges(&outs, &edges, &gos, options)))?;
    let items = results
        .into_iter()
        .map(|r| match r {
            Some(g) => to_object(py, g),
            None => Ok(py.None()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

/// Counts an in-place change of `tensor` that autograd did not see (`autograd.graph
/// .increment_version`); inference tensors have no counter and are left alone.
#[pyfunction]
fn _increment_version(tensor: PyRef<'_, PyTensor>) {
    if !tensor.inner.is_inference() {
        tensor.inner.storage().bump_version("increment_version");
    }
}

/// `autograd.backward(tensors, grad_tensors, ...)`: accumulates into the leaves' `.grad`.
#[pyfunction]
#[pyo3(signature = (tensors, grad_tensors=None, retain_graph=None, create_graph=false, inputs=None))]
fn backward(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    grad_tensors: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let ts = root_list(tensors, "tensors")?;
    if create_graph {
        warn_create_graph_cycle(py)?;
    }
    let mut gs = optional_tensor_list(grad_tensors, "grad_tensors")?;
    gs.truncate(ts.len().max(1)); // extra gradients are ignored, as PyTorch's zip
    match inputs.filter(|i| !i.is_none()) {
        Some(inputs) => {
            let ins = root_list(inputs, "inputs")?;
            py.detach(|| {
                run_unnamed(|| {
                    crate::autograd::backward_from_to(&ts, &gs, &ins, retain_graph, create_graph)
                })
            })
        }
        None => py.detach(|| {
            run_unnamed(|| crate::autograd::backward_from(&ts, &gs, retain_graph, create_graph))
        }),
    }
}

/// Concatenates tensors along `dim`.
#[pyfunction]
#[pyo3(signature = (tensors, dim=0))]
fn cat(tensors: &Bound<'_, PyAny>, dim: isize) -> PyResult<Py<PyAny>> {
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
#[pyo3(signature = (tensors, dim=0))]
fn stack(tensors: &Bound<'_, PyAny>, dim: isize) -> PyResult<Py<PyAny>> {
    let ts = tensor_list(tensors, "tensors")?;
    let out = run(|| Tensor::stack(&ts, dim))?;
    Python::attach(|py| to_object(py, out))
}

/// `where(condition, input, other)`; with only `condition`, the indices of its true elements.
#[pyfunction]
#[pyo3(name = "where", signature = (condition, input=None, other=None))]
fn where_fn<'py>(
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
fn _register_types(py: Python<'_>, types: Py<PyDict>) {
    let _ = PY_TYPES.set(py, types);
}

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

/// The class of hook handles (`handle.remove()`).
pub(crate) fn hook_handle(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    py_type(py, "RemovableHandle")
}

/// A custom Function node's saved tensors while its backward runs: calling it unpacks them
/// (running their unpack hooks each time, as PyTorch's `ctx.saved_tensors`); `close()`
/// lets go of the node.
#[pyclass(frozen, name = "_SavedTensors", module = "ferrograd._core")]
pub(crate) struct PySavedTensors(std::sync::Mutex<Option<crate::autograd::SavedTensors>>);

#[pymethods]
impl PySavedTensors {
    fn __call__(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        let guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let saved = guard.as_ref().ok_or_else(|| {
            pyo3::exceptions::PyRuntimeError::new_err(
                "saved tensors can only be read while the Function's backward runs",
            )
        })?;
        let tensors = super::run_unnamed(|| saved.unpack())?;
        tensors.into_iter().map(|t| to_object(py, t)).collect()
    }

    fn close(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// A Python exception as a core error that is re-raised unchanged at the boundary.
pub(crate) fn from_py_err(e: PyErr) -> Error {
    let message = e.to_string();
    Error::with_payload(message, Arc::new(e))
}

/// The one strong reference to a Python hook, shared by its Rust closure and the tensor
/// object it was registered on (which reports it to the cycle collector and may clear it).
pub(crate) type HookSlot = Arc<std::sync::Mutex<Option<Py<PyAny>>>>;

/// Shows the callables of `slots` to the cycle collector (skipping any it cannot look at
/// without waiting).
pub(crate) fn visit_hook_slots(
    slots: &std::sync::Mutex<Vec<(u64, HookSlot)>>,
    visit: &pyo3::PyVisit<'_>,
) -> Result<(), pyo3::PyTraverseError> {
    let Ok(slots) = slots.try_lock() else {
        return Ok(());
    };
    for (_, slot) in slots.iter() {
        if let Ok(hook) = slot.try_lock() {
            visit.call(hook.as_ref())?;
        }
    }
    Ok(())
}

/// Empties `slots` and each slot (a cleared hook does nothing when called).
pub(crate) fn clear_hook_slots(slots: &std::sync::Mutex<Vec<(u64, HookSlot)>>) {
    let slots = std::mem::take(&mut *slots.lock().unwrap_or_else(|e| e.into_inner()));
    for (_, slot) in slots {
        let hook = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(hook);
    }
}

/// A Python callable as a tensor hook (takes the GIL only while it runs), and its slot.
pub(crate) fn python_hook(f: Py<PyAny>) -> (Hook, HookSlot) {
    let slot: HookSlot = Arc::new(std::sync::Mutex::new(Some(f)));
    let held = slot.clone();
    let hook: Hook = Arc::new(move |g: Option<&Tensor>| {
        Python::attach(|py| {
            let f = match &*held.lock().unwrap_or_else(|e| e.into_inner()) {
                Some(f) => f.clone_ref(py),
                None => return Ok(None), // cleared by the cycle collector
            };
            let arg = match g {
                Some(g) => to_object(py, g.clone()).map_err(from_py_err)?,
                None => py.None(),
            };
            let r = f.call1(py, (arg,)).map_err(from_py_err)?;
            if r.is_none(py) {
                return Ok(None);
            }
            let new =
                tensor_arg(r.bind(py), "the value returned by a hook").map_err(from_py_err)?;
            if let Some(g) = g {
                check_hook_result(py, &f, g, &new)?;
            }
            Ok(Some(new))
        })
    });
    (hook, slot)
}

/// A Python post-accumulate-grad hook as a core hook: called with the leaf; may return only
/// None (or the leaf itself).
pub(crate) fn python_post_accumulate_hook(f: Py<PyAny>) -> (Hook, HookSlot) {
    let slot: HookSlot = Arc::new(std::sync::Mutex::new(Some(f)));
    let held = slot.clone();
    let hook: Hook = Arc::new(move |t: Option<&Tensor>| {
        Python::attach(|py| {
            let f = match &*held.lock().unwrap_or_else(|e| e.into_inner()) {
                Some(f) => f.clone_ref(py),
                None => return Ok(None), // cleared by the cycle collector
            };
            let arg = match t {
                Some(t) => to_object(py, t.clone()).map_err(from_py_err)?,
                None => py.None(),
            };
            // PyTorch's checks: None or the tensor itself
            let r = f.call1(py, (arg,)).map_err(from_py_err)?;
            if r.is_none(py) {
                return Ok(None);
            }
            match (r.bind(py).cast::<PyTensor>(), t) {
                (Ok(same), Some(t)) if same.get().inner.same(t) => Ok(None),
                (Ok(_), _) => Err(Error::runtime(
                    "Tensor post accumulate grad hooks should return None.",
                )),
                (Err(_), _) => Err(Error::type_error(format!(
                    "expected Variable, but hook returned '{}'",
                    r.bind(py).get_type().name().map_err(from_py_err)?
                ))),
            }
        })
    });
    (hook, slot)
}

/// A tensor packed by a Python `saved_tensors_hooks` pack hook, with its unpack hook.
/// A saved tensor as a Python pack hook made it: the hook's value and the unpack hook.
pub(crate) struct PyPacked {
    /// What the pack hook returned.
    pub(crate) value: Py<PyAny>,
    /// Called with `value` when the backward pass needs the tensor.
    pub(crate) unpack: Py<PyAny>,
}

impl crate::autograd::PackedTensor for PyPacked {
    fn unpack(&self) -> crate::core::error::Result<Tensor> {
        Python::attach(|py| {
            let out = self
                .unpack
                .call1(py, (self.value.clone_ref(py),))
                .map_err(from_py_err)?;
            match out.bind(py).cast::<PyTensor>() {
                Ok(t) => Ok(t.get().inner.clone()),
                Err(_) => Err(Error::type_error(format!(
                    "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}",
                    out.bind(py).get_type().name().map_err(from_py_err)?
                ))),
            }
        })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The core's pack hook calling Python's `pack_hook`, whose value `unpack_hook` turns back.
pub(crate) fn py_pack_hook(
    pack_hook: Py<PyAny>,
    unpack_hook: Py<PyAny>,
) -> crate::autograd::PackHook {
    Arc::new(move |t: &Tensor| {
        Python::attach(|py| {
            let arg = to_object(py, t.clone()).map_err(from_py_err)?;
            let value = pack_hook.call1(py, (arg,)).map_err(from_py_err)?;
            let packed: Arc<dyn crate::autograd::PackedTensor> = Arc::new(PyPacked {
                value,
                unpack: unpack_hook.clone_ref(py),
            });
            Ok(packed)
        })
    })
}

/// Installs Python `pack_hook`/`unpack_hook` for the tensors saved on this thread
/// (`autograd.graph.saved_tensors_hooks.__enter__`).
#[pyfunction]
fn _push_saved_tensors_hooks(pack_hook: Py<PyAny>, unpack_hook: Py<PyAny>) {
    crate::autograd::push_saved_tensors_hooks(Some(py_pack_hook(pack_hook, unpack_hook)));
}

/// Removes the innermost saved-tensor hooks of this thread.
#[pyfunction]
fn _pop_saved_tensors_hooks() {
    crate::autograd::pop_saved_tensors_hooks();
}

/// Installs (or, with `None`, removes) this thread's observer of in-place writes: called with
/// each tensor an in-place op is about to write into (Note [Observing in-place writes]);
/// `autograd.graph.allow_mutation_on_saved_tensors` clones saved tensors with it.
#[pyfunction]
#[pyo3(signature = (observer))]
fn _set_write_observer(observer: Option<Py<PyAny>>) {
    let observer = observer.map(|f| {
        let observe: crate::ops::inplace::WriteObserver = std::rc::Rc::new(move |t: &Tensor| {
            Python::attach(|py| {
                let arg = to_object(py, t.clone()).map_err(from_py_err)?;
                f.call1(py, (arg,)).map_err(from_py_err)?;
                Ok(())
            })
        });
        observe
    });
    crate::ops::inplace::set_write_observer(observer);
}

/// PyTorch's checks on what a gradient hook returns: the same dtype and shape as its input.
fn check_hook_result(
    py: Python<'_>,
    f: &Py<PyAny>,
    old: &Tensor,
    new: &Tensor,
) -> crate::core::error::Result<()> {
    let name = || {
        f.bind(py)
            .getattr("__name__")
            .and_then(|n| n.extract::<String>())
            .unwrap_or_else(|_| "<hook>".to_string())
    };
    if old.dtype() != new.dtype() {
        return Err(Error::runtime(format!(
            "hook '{}' has changed the type of value (was {} got {})",
            name(),
            old.dtype().legacy_name(),
            new.dtype().legacy_name()
        )));
    }
    if old.shape() != new.shape() {
        return Err(Error::runtime(format!(
            "hook '{}' has changed the size of value (was {} got {})",
            name(),
            crate::core::layout::fmt_shape(old.shape()),
            crate::core::layout::fmt_shape(new.shape())
        )));
    }
    Ok(())
}

/// Records a custom `autograd.Function` call (see [`crate::autograd::record_custom`]): a node
/// named `name` whose backward calls `backward(grads, saved)` in Python, and which shows the
/// attributes of `ctx` as its own (PyTorch's node of a custom Function is its ctx). Returns the
/// outputs to hand to the user.
#[pyfunction]
#[pyo3(signature = (name, n_args, positions, inputs, outputs, output_slots, n_slots, differentiable, dirty, saved, backward, materialize_grads, ctx=None))]
#[allow(clippy::too_many_arguments)]
fn _record_function(
    py: Python<'_>,
    name: String,
    n_args: usize,
    positions: Vec<usize>,
    inputs: Vec<PyRef<'_, PyTensor>>,
    outputs: Vec<PyRef<'_, PyTensor>>,
    output_slots: Vec<usize>,
    n_slots: usize,
    differentiable: Vec<bool>,
    dirty: Vec<bool>,
    saved: Vec<PyRef<'_, PyTensor>>,
    backward: Py<PyAny>,
    materialize_grads: bool,
    ctx: Option<Py<PyAny>>,
) -> PyResult<Py<PyTuple>> {
    if output_slots.len() != outputs.len() || output_slots.iter().any(|&s| s >= n_slots) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "_record_function: {} outputs at slots {output_slots:?} of {n_slots}",
            outputs.len()
        )));
    }
    let tensors =
        |ts: &[PyRef<'_, PyTensor>]| ts.iter().map(|t| t.inner.clone()).collect::<Vec<_>>();
    let (inputs, outputs, saved) = (tensors(&inputs), tensors(&outputs), tensors(&saved));
    let call = CustomCall {
        name,
        n_args,
        positions: &positions,
        inputs: &inputs,
        outputs: &outputs,
        output_slots: &output_slots,
        n_slots,
        differentiable: &differentiable,
        dirty: &dirty,
        saved: &saved,
        materialize_grads,
    };
    let python_backward: CustomBackward = Arc::new(move |grads, saved| {
        Python::attach(|py| {
            let call = || -> PyResult<Vec<Option<Tensor>>> {
                let grads = grads
                    .into_iter()
                    .map(|g| match g {
                        Some(t) => to_object(py, t),
                        None => Ok(py.None()),
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                // ctx.saved_tensors unpacks them at each access through this handle, which
                // the Python side drops when the Function's backward returns
                let saved = Py::new(py, PySavedTensors(std::sync::Mutex::new(Some(saved))))?;
                let r = backward.call1(py, (PyTuple::new(py, grads)?, saved))?;
                let r = r.bind(py);
                let items: Vec<Bound<'_, PyAny>> = match r.cast::<PyTuple>() {
                    Ok(t) => t.iter().collect(),
                    Err(_) => vec![r.clone()],
                };
                items
                    .iter()
                    .map(|item| match item.is_none() {
                        true => Ok(None),
                        false => tensor_arg(item, "a gradient returned by backward").map(Some),
                    })
                    .collect()
            };
            call().map_err(from_py_err)
        })
    });
    let (outs, node) = run(|| record_custom(call, python_backward))?;
    if let (Some(node), Some(ctx)) = (node, ctx) {
        super::node::keep_ctx(&node, ctx);
    }
    let items = outs
        .into_iter()
        .map(|t| to_object(py, t))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyTuple::new(py, items)?.unbind())
}

/// `Variable._execution_engine.queue_callback(callback)`: `callback()` runs once the running
/// backward pass has finished (refused outside one).
#[pyfunction]
fn _queue_callback(callback: Py<PyAny>) -> PyResult<()> {
    let call: crate::autograd::FinalCallback =
        Box::new(move || Python::attach(|py| callback.call0(py).map(drop).map_err(from_py_err)));
    run_unnamed(|| crate::autograd::queue_callback(call))
}

/// The id of the backward pass running on this thread, -1 outside one.
#[pyfunction]
fn _current_graph_task_id() -> i64 {
    crate::autograd::current_graph_task_id().map_or(-1, |id| id as i64)
}

/// `torch.isin(elements, test_elements, *, assume_unique=False, invert=False)`: whether each
/// element is among the test elements (either may be a number, not both); a bool tensor.
#[pyfunction]
#[pyo3(signature = (elements, test_elements, *, assume_unique=false, invert=false))]
fn isin(
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

/// Whether a reentrant checkpoint may run its backward here: false inside a `grad()` call or a
/// `backward(inputs=...)` (see [`crate::autograd::is_checkpoint_valid`]).
#[pyfunction]
fn _is_checkpoint_valid() -> bool {
    crate::autograd::is_checkpoint_valid()
}

/// Whether the running backward pass executes `node` (see
/// [`crate::autograd::will_engine_execute_node`]).
#[pyfunction]
fn _will_engine_execute_node(node: PyRef<'_, super::node::PyNode>) -> PyResult<bool> {
    run_unnamed(|| crate::autograd::will_engine_execute_node(&node.inner))
}

/// From now on, backward passes record the nodes they execute (for `_will_engine_execute_node`).
#[pyfunction]
fn _record_execution_sets() {
    crate::autograd::record_execution_sets();
}

/// Whether the engine may run independent branches of a backward pass on several threads.
#[pyfunction]
fn is_multithreading_enabled() -> bool {
    crate::autograd::is_multithreading_enabled()
}

static AUTOGRAD_LOGGING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the engine's log is on (`torch._logging.set_logs(autograd=logging.DEBUG)`), which
/// `Tensor.backward` then leaves to `autograd.backward` to attach.
pub(crate) fn autograd_logging() -> bool {
    AUTOGRAD_LOGGING.load(std::sync::atomic::Ordering::Relaxed)
}

/// Turns the engine's log on or off (see [`autograd_logging`]).
#[pyfunction]
fn _set_autograd_logging(enabled: bool) {
    AUTOGRAD_LOGGING.store(enabled, std::sync::atomic::Ordering::Relaxed);
}

/// Allows or forbids running a backward pass's independent branches on several threads.
#[pyfunction]
fn _set_multithreading_enabled(enabled: bool) {
    crate::autograd::set_multithreading_enabled(enabled);
}

/// `torch.var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None)`: the
/// variance and the mean, one node for both.
#[pyfunction]
#[pyo3(signature = (input, dim=None, unbiased=None, keepdim=false, *, correction=None))]
fn var_mean(
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
#[pyo3(signature = (input, dim=None, unbiased=None, keepdim=false, *, correction=None))]
fn std_mean(
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
fn pow(
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pow, m)?)?;
    m.add_function(wrap_pyfunction!(var_mean, m)?)?;
    m.add_function(wrap_pyfunction!(_queue_callback, m)?)?;
    m.add_function(wrap_pyfunction!(empty_strided, m)?)?;
    m.add_function(wrap_pyfunction!(_current_graph_task_id, m)?)?;
    m.add_function(wrap_pyfunction!(_is_checkpoint_valid, m)?)?;
    m.add_function(wrap_pyfunction!(isin, m)?)?;
    m.add_function(wrap_pyfunction!(_will_engine_execute_node, m)?)?;
    m.add_function(wrap_pyfunction!(_record_execution_sets, m)?)?;
    m.add_function(wrap_pyfunction!(is_multithreading_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_multithreading_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_autograd_logging, m)?)?;
    m.add_function(wrap_pyfunction!(std_mean, m)?)?;
    m.add_function(wrap_pyfunction!(cat, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(promote_types, m)?)?;
    m.add_function(wrap_pyfunction!(can_cast, m)?)?;
    m.add_function(wrap_pyfunction!(result_type, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    m.add_function(wrap_pyfunction!(where_fn, m)?)?;
    m.add_function(wrap_pyfunction!(_register_types, m)?)?;
    m.add_function(wrap_pyfunction!(_record_function, m)?)?;
    m.add_function(wrap_pyfunction!(_set_warn_always, m)?)?;
    m.add_function(wrap_pyfunction!(_gradient_edge, m)?)?;
    m.add_function(wrap_pyfunction!(_grad_to_edges, m)?)?;
    m.add_function(wrap_pyfunction!(_increment_version, m)?)?;
    m.add_function(wrap_pyfunction!(_set_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(_restore_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(is_inference_mode_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_is_warn_always_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_default_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(_set_printoptions, m)?)?;
    m.add_function(wrap_pyfunction!(_get_printoptions, m)?)?;
    m.add_function(wrap_pyfunction!(_get_default_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(_push_saved_tensors_hooks, m)?)?;
    m.add_function(wrap_pyfunction!(_pop_saved_tensors_hooks, m)?)?;
    m.add_function(wrap_pyfunction!(_set_write_observer, m)?)?;
    m.add_function(wrap_pyfunction!(tensor, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(empty, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(zeros_like, m)?)?;
    m.add_function(wrap_pyfunction!(_embedding, m)?)?;
    m.add_function(wrap_pyfunction!(_embedding_bag, m)?)?;
    m.add_function(wrap_pyfunction!(pixel_shuffle, m)?)?;
    m.add_function(wrap_pyfunction!(pixel_unshuffle, m)?)?;
    m.add_function(wrap_pyfunction!(ones_like, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(linspace, m)?)?;
    m.add_function(wrap_pyfunction!(is_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_is_view_replay_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_view_replay_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(grad, m)?)?;
    m.add_function(wrap_pyfunction!(backward, m)?)?;
    m.add_function(wrap_pyfunction!(super::convert::_register_size, m)?)?;
    let _ = PyList::empty(m.py());
    Ok(())
}
