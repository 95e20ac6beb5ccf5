//! `Tensor`'s views and copies: indexing, reshapes, transposes, splits, dtype and
//! memory-format conversions, `masked_fill`.

use super::convert::{
    basic_only, dtype_arg, index_items, scalar_arg, shape_args, tensor_arg, tensor_from_data,
};
use super::errors::run;
use super::tensor::{to_object, wrap, PyTensor, TResult};
use crate::core::dtype::{DType, Scalar};
use crate::core::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

#[pymethods]
impl PyTensor {
    // stub: (self, index: _Index, /) -> Tensor
    fn __getitem__(&self, index: &Bound<'_, PyAny>) -> TResult {
        let items = index_items(index)?;
        match basic_only(&items) {
            Some(basic) => {
                let tuple = basic.len() > 1 || index.is_instance_of::<pyo3::types::PyTuple>();
                wrap(run(|| self.inner.index_basic(&basic, tuple)))
            }
            None => wrap(run(|| self.inner.index_advanced(&items))),
        }
    }

    // stub: (self, index: _Index, value: _Data, /) -> None
    fn __setitem__(&self, index: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let items = index_items(index)?;
        let src = match value.cast::<PyTensor>() {
            Ok(t) => t.get().inner.clone(),
            Err(_) => match scalar_arg(value) {
                Some(s) => return run(|| self.inner.index_assign_number(&items, s)),
                None => tensor_from_data(value, Some(self.inner.dtype()))?,
            },
        };
        run(|| self.inner.index_assign(&items, &src))
    }

    /// Transpose of a 2-D tensor.
    #[pyo3(signature = () -> "Tensor")]
    fn t(&self) -> TResult {
        wrap(run(|| self.inner.t()))
    }

    /// The transpose (`x.T`), for tensors of at most 2 dimensions: the dimensions reversed.
    #[getter(T)]
    // stub: -> Tensor
    fn transposed(&self) -> TResult {
        wrap(run(|| self.inner.reversed_dims()))
    }

    /// The last two dimensions swapped (`x.mT`), for matrices and batches of them.
    #[getter(mT)]
    // stub: -> Tensor
    fn matrix_transposed(&self) -> TResult {
        wrap(run(|| self.inner.matrix_transpose("mT")))
    }

    /// The conjugate transpose of the last two dimensions (`x.mH`): `mT` for real tensors.
    #[getter(mH)]
    // stub: -> Tensor
    fn matrix_adjoint_batched(&self) -> TResult {
        wrap(run(|| self.inner.matrix_transpose("mH")))
    }

    /// The conjugate transpose of a matrix (`x.H`): its transpose for real tensors; a 0-d
    /// tensor comes back as it is, with PyTorch's deprecation warning.
    #[getter(H)]
    // stub: -> Tensor
    fn adjoint(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        if slf.get().inner.dim() == 0 {
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                c"Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                1,
            )?;
            return Ok(slf.clone().into_any().unbind());
        }
        to_object(py, run(|| slf.get().inner.matrix_adjoint())?)
    }

    /// Swaps two dimensions.
    #[pyo3(signature = (dim0: "int", dim1: "int") -> "Tensor")]
    fn transpose(&self, dim0: isize, dim1: isize) -> TResult {
        wrap(run(|| self.inner.transpose(dim0, dim1)))
    }

    /// A view with another shape (contiguous tensors).
    #[pyo3(signature = (*shape))]
    // stub: (self, shape: Sequence[int], /) -> Tensor
    // stub: (self, *shape: int) -> Tensor
    fn view(&self, shape: &Bound<'_, PyTuple>) -> TResult {
        let shape = shape_args(shape)?;
        wrap(run(|| self.inner.view(&shape)))
    }

    /// The same elements with another shape (a view when possible).
    #[pyo3(signature = (*shape))]
    // stub: (self, shape: Sequence[int], /) -> Tensor
    // stub: (self, *shape: int) -> Tensor
    fn reshape(&self, shape: &Bound<'_, PyTuple>) -> TResult {
        let shape = shape_args(shape)?;
        wrap(run(|| self.inner.reshape(&shape)))
    }

    /// Views as `other`'s shape.
    #[pyo3(signature = (other: "Tensor") -> "Tensor")]
    fn view_as(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "view_as() argument 'other'")?;
        let shape: Vec<isize> = o.shape().iter().map(|&s| s as isize).collect();
        wrap(run(|| self.inner.view(&shape)))
    }

    /// Reshapes to `other`'s shape.
    #[pyo3(signature = (other: "Tensor") -> "Tensor")]
    fn reshape_as(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "reshape_as() argument 'other'")?;
        let shape: Vec<isize> = o.shape().iter().map(|&s| s as isize).collect();
        wrap(run(|| self.inner.reshape(&shape)))
    }

    /// Inserts a size-1 dimension.
    #[pyo3(signature = (dim: "int") -> "Tensor")]
    fn unsqueeze(&self, dim: isize) -> TResult {
        wrap(run(|| self.inner.unsqueeze(dim)))
    }

    /// Removes size-1 dimensions (all, or only `dim`).
    #[pyo3(signature = (dim: "int | None" = None) -> "Tensor")]
    fn squeeze(&self, dim: Option<isize>) -> TResult {
        wrap(run(|| match dim {
            Some(d) => self.inner.squeeze_dim(d),
            None => self.inner.squeeze(),
        }))
    }

    /// Broadcasts to a larger shape without copying.
    #[pyo3(signature = (*sizes))]
    // stub: (self, sizes: Sequence[int], /) -> Tensor
    // stub: (self, *sizes: int) -> Tensor
    fn expand(&self, sizes: &Bound<'_, PyTuple>) -> TResult {
        let sizes = shape_args(sizes)?;
        wrap(run(|| self.inner.expand(&sizes)))
    }

    /// Broadcasts to `other`'s shape.
    #[pyo3(signature = (other: "Tensor") -> "Tensor")]
    fn expand_as(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "expand_as() argument 'other'")?;
        let shape: Vec<isize> = o.shape().iter().map(|&s| s as isize).collect();
        wrap(run(|| self.inner.expand(&shape)))
    }

    /// `x.select(dim, index)`.
    #[pyo3(signature = (dim: "int", index: "int") -> "Tensor")]
    fn select(&self, dim: isize, index: isize) -> TResult {
        wrap(run(|| self.inner.select(dim, index)))
    }

    /// `length` elements of `dim` starting at `start`.
    #[pyo3(signature = (dim: "int", start: "int", length: "int") -> "Tensor")]
    fn narrow(&self, dim: isize, start: isize, length: isize) -> TResult {
        wrap(run(|| self.inner.narrow(dim, start, length)))
    }

    /// A copy with its own storage, differentiable, laid out as this tensor (PyTorch's
    /// `preserve_format`) or in `memory_format`.
    #[pyo3(signature = (*, memory_format: "Any" = None) -> "Tensor")]
    fn clone(&self, memory_format: Option<&Bound<'_, PyAny>>) -> TResult {
        let format = like_format(memory_format, self.inner.dim())?;
        let t = &self.inner;
        wrap(run(|| match format {
            MemoryFormat::Contiguous => t.clone_tensor(),
            MemoryFormat::ChannelsLast if !t.is_channels_last() => t.channels_last(),
            MemoryFormat::ChannelsLast | MemoryFormat::Preserve => t.clone_preserving(),
        }))
    }

    /// This tensor if contiguous, else a contiguous copy (with `memory_format`, in that
    /// order: `torch.channels_last` for 4-D, `torch.channels_last_3d` for 5-D).
    #[pyo3(signature = (memory_format: "Any" = None) -> "Tensor")]
    fn contiguous(&self, memory_format: Option<&Bound<'_, PyAny>>) -> TResult {
        match memory_format_arg(memory_format, self.inner.dim())? {
            MemoryFormat::Contiguous => wrap(run(|| self.inner.contiguous())),
            MemoryFormat::ChannelsLast => wrap(run(|| self.inner.channels_last())),
            // an already contiguous tensor is returned before the format is looked at
            MemoryFormat::Preserve if self.inner.is_contiguous() => wrap(Ok(self.inner.clone())),
            MemoryFormat::Preserve => Err(PyRuntimeError::new_err(
                "preserve memory format is unsupported by the contiguous operator",
            )),
        }
    }

    /// Whether the strides suggest a channels-last layout (PyTorch's `suggest_memory_format`),
    /// which decides the layout of a convolution's or a pool's result.
    #[pyo3(signature = () -> "bool")]
    fn _suggests_channels_last(&self) -> bool {
        self.inner.suggests_channels_last()
    }

    /// Whether elements are dense and row-major (or, with `memory_format`, dense in that
    /// order).
    #[pyo3(signature = (memory_format: "Any" = None) -> "bool")]
    fn is_contiguous(&self, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        Ok(match memory_format {
            None => self.inner.is_contiguous(),
            Some(_) => match memory_format_arg(memory_format, self.inner.dim())? {
                MemoryFormat::ChannelsLast => self.inner.is_channels_last(),
                _ => self.inner.is_contiguous(),
            },
        })
    }

    /// Converts to `dtype` (differentiable between float types) and, with `memory_format=`,
    /// lays the elements out in that order; returns this tensor if nothing changes.
    #[pyo3(signature = (*args, **kwargs))]
    // This tensor itself when the dtype does not change (no dtype, or the same one), else a
    // converted copy; a device string is accepted and ignored.
    // stub: (self, dtype: _DTypeLike, /) -> Tensor
    // stub: (self, other: Tensor, /) -> Tensor
    // stub: (self, device: _Device | None, dtype: _DTypeLike, /) -> Tensor
    // stub: (self, device: _Device | None = None, *, dtype: _DTypeLike) -> Tensor
    // stub: (self, device: _Device | None = None, *, dtype: None = None) -> Self
    fn to(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let mut dtype = None;
        // Some(true): to the meta device; Some(false): to the CPU (Note [The meta device])
        let mut to_meta = None;
        let mut device = |d: &Bound<'_, PyAny>| -> PyResult<()> {
            let meta = super::convert::is_meta_device(d)?;
            if !meta {
                super::convert::device_arg(Some(d))?; // otherwise the CPU is the only device
            }
            to_meta = Some(meta);
            Ok(())
        };
        for a in args.iter() {
            if let Ok(t) = a.cast::<PyTensor>() {
                dtype = Some(t.get().inner.dtype());
            } else if a.extract::<String>().is_ok() || a.hasattr("index")? {
                device(&a)?;
            } else {
                dtype = dtype_arg(Some(&a))?;
            }
        }
        let mut format = None;
        if let Some(k) = kwargs {
            if let Some(d) = k.get_item("dtype")? {
                dtype = dtype_arg(Some(&d))?;
            }
            if let Some(d) = k.get_item("device")?.filter(|d| !d.is_none()) {
                device(&d)?;
            }
            format = k.get_item("memory_format")?;
        }
        let me = &slf.get().inner;
        match (to_meta, me.is_meta()) {
            (Some(true), is_meta) if !is_meta || dtype.is_some_and(|d| d != me.dtype()) => {
                let shape = me.shape().to_vec();
                let strides = crate::core::layout::Layout::contiguous(&shape)
                    .strides
                    .to_vec();
                let dtype = dtype.unwrap_or(me.dtype());
                return to_object(
                    slf.py(),
                    run(|| Tensor::on_meta(&shape, &strides, 0, dtype))?,
                );
            }
            (Some(true), _) => return Ok(slf.clone().into_any().unbind()),
            (Some(false), true) => {
                return Err(pyo3::exceptions::PyNotImplementedError::new_err(
                    "Cannot copy out of meta tensor; no data!",
                ))
            }
            _ => {}
        }
        let converted = match dtype {
            Some(d) if d != me.dtype() => Some(run(|| me.to_dtype(d))?),
            _ => None,
        };
        let wanted = match format.as_ref().filter(|f| !f.is_none()) {
            Some(f) => memory_format_arg(Some(f), me.dim())?,
            None => MemoryFormat::Preserve,
        };
        let out = converted.as_ref().unwrap_or(me);
        let laid_out = match wanted {
            MemoryFormat::Preserve => None,
            MemoryFormat::Contiguous if out.is_contiguous() => None,
            MemoryFormat::Contiguous => Some(run(|| out.contiguous())?),
            // PyTorch's `to` keeps the tensor when its strides suggest the format, and else
            // copies it with the format's exact strides (`suggest_memory_format`)
            MemoryFormat::ChannelsLast if out.suggests_channels_last() => None,
            MemoryFormat::ChannelsLast => Some(run(|| out.channels_last_copy())?),
        };
        match laid_out.or(converted) {
            Some(t) => to_object(slf.py(), t),
            None => Ok(slf.clone().into_any().unbind()),
        }
    }

    /// Converts to float32.
    #[pyo3(signature = () -> "Tensor")]
    fn float(&self) -> TResult {
        wrap(run(|| self.inner.to_dtype(DType::Float32)))
    }

    /// Converts to float64.
    #[pyo3(signature = () -> "Tensor")]
    fn double(&self) -> TResult {
        wrap(run(|| self.inner.to_dtype(DType::Float64)))
    }

    /// Converts to int64.
    #[pyo3(signature = () -> "Tensor")]
    fn long(&self) -> TResult {
        wrap(run(|| self.inner.to_dtype(DType::Int64)))
    }

    /// Converts to bool.
    #[pyo3(signature = () -> "Tensor")]
    fn bool(&self) -> TResult {
        wrap(run(|| self.inner.to_dtype(DType::Bool)))
    }

    /// Converts to `other`'s dtype.
    #[pyo3(signature = (other: "Tensor") -> "Tensor")]
    fn type_as(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "type_as() argument 'other'")?;
        wrap(run(|| self.inner.to_dtype(o.dtype())))
    }

    /// This tensor on the CPU (the only device).
    #[pyo3(signature = () -> "Self")]
    fn cpu(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Reorders dimensions (a view).
    #[pyo3(signature = (*dims))]
    // stub: (self, dims: Sequence[int], /) -> Tensor
    // stub: (self, *dims: int) -> Tensor
    fn permute(&self, dims: &Bound<'_, PyTuple>) -> TResult {
        let dims = shape_args(dims)?;
        wrap(run(|| self.inner.permute(&dims)))
    }

    /// Merges dims `start_dim..=end_dim` into one.
    #[pyo3(signature = (start_dim=0, end_dim=-1))]
    // `end_dim` defaults to -1 (the runtime signature shows a negative default as `...`).
    // stub: (self, start_dim: int = 0, end_dim: int = ...) -> Tensor
    fn flatten(&self, start_dim: isize, end_dim: isize) -> TResult {
        wrap(run(|| self.inner.flatten_dims(start_dim, end_dim)))
    }

    /// Splits into pieces of `split_size_or_sections` (an int, or a list of sizes) along `dim`.
    #[pyo3(signature = (split_size_or_sections: "int | Sequence[int]", dim: "int" = 0) -> "tuple[Tensor, ...]")]
    fn split(
        &self,
        py: Python<'_>,
        split_size_or_sections: &Bound<'_, PyAny>,
        dim: isize,
    ) -> PyResult<Py<PyAny>> {
        let parts = match split_size_or_sections.extract::<i64>() {
            Ok(n) if n < 0 => {
                return Err(PyRuntimeError::new_err(format!(
                    "split expects split_size be non-negative, but got split_size={n}"
                )))
            }
            Ok(n) => run(|| self.inner.split(n as usize, dim))?,
            Err(_) => {
                let sizes: Vec<usize> = split_size_or_sections.extract()?;
                run(|| self.inner.split_sizes(&sizes, dim))?
            }
        };
        tensor_tuple(py, parts)
    }

    /// Splits into pieces of the given sizes along `dim` (views; `SplitWithSizesBackward0`).
    #[pyo3(signature = (split_sizes: "Sequence[int]", dim: "int" = 0) -> "tuple[Tensor, ...]")]
    fn split_with_sizes(
        &self,
        py: Python<'_>,
        split_sizes: Vec<usize>,
        dim: isize,
    ) -> PyResult<Py<PyAny>> {
        tensor_tuple(py, run(|| self.inner.split_sizes(&split_sizes, dim))?)
    }

    /// `split` whose pieces autograd does not treat as views (in-place writes are not checked).
    #[pyo3(signature = (split_size: "int", dim: "int" = 0) -> "tuple[Tensor, ...]")]
    fn unsafe_split(&self, py: Python<'_>, split_size: usize, dim: isize) -> PyResult<Py<PyAny>> {
        let parts = run(|| {
            self.inner
                .unsafe_pieces(dim, "UnsafeSplitBackward0", |t| t.split(split_size, dim))
        })?;
        tensor_tuple(py, parts)
    }

    /// `split_with_sizes` whose pieces autograd does not treat as views.
    #[pyo3(signature = (split_sizes: "Sequence[int]", dim: "int" = 0) -> "tuple[Tensor, ...]")]
    fn unsafe_split_with_sizes(
        &self,
        py: Python<'_>,
        split_sizes: Vec<usize>,
        dim: isize,
    ) -> PyResult<Py<PyAny>> {
        let parts = run(|| {
            self.inner
                .unsafe_pieces(dim, "UnsafeSplitWithSizesBackward0", |t| {
                    t.split_sizes(&split_sizes, dim)
                })
        })?;
        tensor_tuple(py, parts)
    }

    /// `chunk` whose pieces autograd does not treat as views.
    #[pyo3(signature = (chunks: "int", dim: "int" = 0) -> "tuple[Tensor, ...]")]
    fn unsafe_chunk(&self, py: Python<'_>, chunks: usize, dim: isize) -> PyResult<Py<PyAny>> {
        let parts = run(|| {
            self.inner
                .unsafe_pieces(dim, "UnsafeSplitBackward0", |t| t.chunk(chunks, dim))
        })?;
        tensor_tuple(py, parts)
    }

    /// `chunks` nearly equal pieces along `dim`.
    #[pyo3(signature = (chunks: "int", dim: "int" = 0) -> "tuple[Tensor, ...]")]
    fn chunk(&self, py: Python<'_>, chunks: i64, dim: isize) -> PyResult<Py<PyAny>> {
        if chunks <= 0 {
            return Err(PyRuntimeError::new_err(format!(
                "chunk expects `chunks` to be greater than 0, got: {chunks}"
            )));
        }
        tensor_tuple(py, run(|| self.inner.chunk(chunks as usize, dim))?)
    }

    /// The slices along `dim`.
    #[pyo3(signature = (dim: "int" = 0) -> "tuple[Tensor, ...]")]
    fn unbind(&self, py: Python<'_>, dim: isize) -> PyResult<Py<PyAny>> {
        tensor_tuple(py, run(|| self.inner.unbind(dim))?)
    }

    /// Reverses the order along `dims`.
    #[pyo3(signature = (*dims))]
    // stub: (self, dims: Sequence[int], /) -> Tensor
    // stub: (self, *dims: int) -> Tensor
    fn flip(&self, dims: &Bound<'_, PyTuple>) -> TResult {
        let dims = shape_args(dims)?;
        wrap(run(|| self.inner.flip(&dims)))
    }

    /// Rotated by `k` quarter turns in the plane of `dims` (`Rot90Backward0`).
    #[pyo3(signature = (k=1, dims=vec![0, 1]))]
    // stub: (self, k: int = 1, dims: Sequence[int] = ...) -> Tensor
    fn rot90(&self, k: i64, dims: Vec<isize>) -> TResult {
        if dims.len() != 2 {
            return Err(PyRuntimeError::new_err(format!(
                "expected total rotation dims == 2, but got dims = {}",
                dims.len()
            )));
        }
        wrap(run(|| self.inner.rot90(k, [dims[0], dims[1]])))
    }

    /// Tiles the tensor along each dimension.
    #[pyo3(signature = (*sizes))]
    // stub: (self, sizes: Sequence[int], /) -> Tensor
    // stub: (self, *sizes: int) -> Tensor
    fn repeat(&self, sizes: &Bound<'_, PyTuple>) -> TResult {
        let sizes: Vec<usize> = super::convert::size_args(sizes)?;
        wrap(run(|| self.inner.repeat(&sizes)))
    }

    /// Values of `self` at `index` along `dim` (with `sparse_grad=True`, the gradient is a
    /// sparse COO tensor).
    #[pyo3(signature = (dim: "int", index: "Tensor", *, sparse_grad: "bool" = false) -> "Tensor")]
    fn gather(&self, dim: isize, index: &Bound<'_, PyAny>, sparse_grad: bool) -> TResult {
        let index = tensor_arg(index, "gather() argument 'index'")?;
        wrap(run(|| self.inner.gather_as(dim, &index, sparse_grad)))
    }

    /// Slices `index` of dimension `dim`.
    #[pyo3(signature = (dim: "int", index: "Tensor") -> "Tensor")]
    fn index_select(&self, dim: isize, index: &Bound<'_, PyAny>) -> TResult {
        let index = tensor_arg(index, "index_select() argument 'index'")?;
        wrap(run(|| self.inner.index_select(dim, &index)))
    }

    /// Elements replaced by `value` where `mask` is true.
    #[pyo3(signature = (mask: "Tensor", value: "_Operand") -> "Tensor")]
    fn masked_fill(&self, mask: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> TResult {
        let mask = tensor_arg(mask, "masked_fill() argument 'mask'")?;
        if let Ok(t) = value.cast::<PyTensor>() {
            let v = t.get().inner.clone();
            return wrap(run(|| self.inner.masked_fill_tensor(&mask, &v)));
        }
        let v = fill_value(value, "masked_fill")?;
        wrap(run(|| self.inner.masked_fill(&mask, v)))
    }

    /// In-place `masked_fill`.
    #[pyo3(signature = (mask: "Tensor", value: "_Operand") -> "Self")]
    fn masked_fill_<'py>(
        slf: Bound<'py, Self>,
        mask: &Bound<'py, PyAny>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let mask = tensor_arg(mask, "masked_fill_() argument 'mask'")?;
        if let Ok(t) = value.cast::<PyTensor>() {
            let v = t.get().inner.clone();
            run(|| {
                slf.get()
                    .inner
                    .apply_inplace("masked_fill_", &[&v], |x| x.masked_fill_tensor(&mask, &v))
            })?;
            return Ok(slf);
        }
        let v = fill_value(value, "masked_fill_")?;
        run(|| {
            slf.get()
                .inner
                .apply_inplace("masked_fill_", &[], |x| x.masked_fill(&mask, v))
        })?;
        Ok(slf)
    }
}

pub(super) fn tensor_tuple(py: Python<'_>, parts: Vec<Tensor>) -> PyResult<Py<PyAny>> {
    let items = parts
        .into_iter()
        .map(|t| to_object(py, t))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

/// The value of `masked_fill`: a number, or a 0-d tensor holding one.
pub(super) fn fill_value(value: &Bound<'_, PyAny>, op: &str) -> PyResult<Scalar> {
    if let Ok(t) = value.cast::<PyTensor>() {
        let t = &t.get().inner;
        if t.dim() != 0 {
            return Err(PyRuntimeError::new_err(format!(
                "{op} only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                t.dim()
            )));
        }
        return run(|| t.item());
    }
    scalar_arg(value).ok_or_else(|| {
        PyTypeError::new_err(format!("{op}() expects a number or a 0-d tensor as value"))
    })
}

/// A `torch.memory_format` argument, as far as ferrograd lays tensors out.
pub(crate) enum MemoryFormat {
    /// `torch.contiguous_format` (the default): row-major.
    Contiguous,
    /// `torch.channels_last` (4-D) or `torch.channels_last_3d` (5-D).
    ChannelsLast,
    /// `torch.preserve_format`.
    Preserve,
}

/// The memory format of a `*_like` constructor's `memory_format=` (`None`: preserve).
pub(crate) fn like_format(obj: Option<&Bound<'_, PyAny>>, dim: usize) -> PyResult<MemoryFormat> {
    match obj.filter(|o| !o.is_none()) {
        None => Ok(MemoryFormat::Preserve),
        Some(o) => memory_format_arg(Some(o), dim),
    }
}

/// The memory format `obj` names (`None`: contiguous), checked against a tensor of rank `dim`
/// as PyTorch checks it.
pub(crate) fn memory_format_arg(
    obj: Option<&Bound<'_, PyAny>>,
    dim: usize,
) -> PyResult<MemoryFormat> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(MemoryFormat::Contiguous);
    };
    let name: String = obj
        .getattr("_memory_format_name")
        .and_then(|n| n.extract())
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "memory_format must be a torch.memory_format, not {}",
                obj.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
    let rank = |want: usize, format: &str| match dim == want {
        true => Ok(MemoryFormat::ChannelsLast),
        false => Err(PyRuntimeError::new_err(format!(
            "required rank {want} tensor to use {format} format"
        ))),
    };
    match name.as_str() {
        "contiguous_format" => Ok(MemoryFormat::Contiguous),
        "preserve_format" => Ok(MemoryFormat::Preserve),
        "channels_last" => rank(4, "channels_last"),
        "channels_last_3d" => rank(5, "channels_last_3d"),
        other => Err(PyRuntimeError::new_err(format!(
            "unknown memory format {other}"
        ))),
    }
}
