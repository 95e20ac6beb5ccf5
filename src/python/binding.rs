//! The core tensor a Python tensor object stands for, which a few operations replace.
//!
//! Note [Rebinding a tensor object]:
//! PyTorch mutates a `TensorImpl`'s sizes, strides and storage in place for `x.data = y`,
//! `set_`, `resize_`, the in-place view ops (`t_`, `transpose_`, `unsqueeze_`, ...) and
//! `torch.utils.swap_tensors`. ferrograd's core tensors never change their layout or storage
//! (every kernel and the backward threads read them without a lock), so these operations make
//! a new core tensor and point the Python object at it instead: the object keeps its identity
//! (`id`, `__dict__`, the optimizer state keyed by it) and from then on reads the new tensor.
//!
//! The accessor hands out `&Tensor` borrows that may outlive a rebinding (a method that runs
//! Python code, such as a hook, while it holds one). So a replaced tensor is not dropped: each
//! rebinding is a heap node pointing at the one before, and the chain is freed only when the
//! object itself dies, so every borrow stays valid. The first tensor is stored inline, so
//! objects that are never rebound (nearly all) cost one pointer more, one load per access and
//! no allocation. Replacing is rare (the ops above), so the chain stays short; what it keeps is
//! a handle, sharing its storage with the live tensor unless the rebinding changed the storage
//! (`x.data = y`, `set_`, a growing `resize_`).

use crate::Tensor;
use std::sync::atomic::{AtomicPtr, Ordering};

/// A core tensor a Python object is bound to; derefs to the current one.
pub(crate) struct Binding {
    /// The tensor the object was made with.
    first: Tensor,
    /// The latest rebinding (null: none, `first` is current), heading the chain of all of
    /// them (see the Note).
    current: AtomicPtr<Rebound>,
}

/// One rebinding: the tensor, and the rebinding it replaced (null: `first`).
struct Rebound {
    tensor: Tensor,
    previous: *mut Rebound,
}

impl Binding {
    /// A binding to `t`.
    pub(crate) fn new(t: Tensor) -> Self {
        Binding {
            first: t,
            current: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Makes `t` the bound tensor; the previous one stays alive until the object dies.
    pub(crate) fn rebind(&self, t: Tensor) {
        let node = Box::into_raw(Box::new(Rebound {
            tensor: t,
            previous: std::ptr::null_mut(),
        }));
        let mut previous = self.current.load(Ordering::Acquire);
        loop {
            // SAFETY: `node` is ours alone until the exchange below publishes it.
            unsafe { (*node).previous = previous };
            match self.current.compare_exchange_weak(
                previous,
                node,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(now) => previous = now,
            }
        }
    }
}

impl std::ops::Deref for Binding {
    type Target = Tensor;

    fn deref(&self) -> &Tensor {
        let ptr = self.current.load(Ordering::Acquire);
        if ptr.is_null() {
            &self.first
        } else {
            // SAFETY: a published node is freed only by `drop`, which needs `&mut self`, so it
            // outlives `&self`.
            unsafe { &(*ptr).tensor }
        }
    }
}

impl Drop for Binding {
    fn drop(&mut self) {
        let mut next = *self.current.get_mut();
        while !next.is_null() {
            // SAFETY: every node of the chain came from `Box::into_raw` in `rebind` and is
            // reachable only from here; each is freed once.
            let node = unsafe { Box::from_raw(next) };
            next = node.previous;
        }
    }
}

use super::convert::shape_args;
use super::errors::run;
use super::tensor::PyTensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

impl PyTensor {
    /// Shows `next` through this object from now on (Note [Rebinding a tensor object]): the
    /// object becomes the one returned for `next`, and no longer for the tensor it showed.
    pub(crate) fn rebind(slf: &Bound<'_, Self>, next: Tensor) {
        let me = slf.get();
        let ptr = release(slf, &me.inner);
        if me.is_registered() {
            // `next` is new, or was just released by its other object (`_swap_tensor_impl`)
            next.0.binding_object.store(ptr, Ordering::Release);
        }
        me.inner.rebind(next);
    }

    /// Rebinds the object to what `successor` makes of its tensor (`None`: left as it is)
    /// and returns it, as the in-place methods return `self`.
    fn rebound<'py>(
        slf: Bound<'py, Self>,
        successor: impl FnOnce(&Tensor) -> crate::Result<Option<Tensor>>,
    ) -> PyResult<Bound<'py, Self>> {
        if let Some(next) = run(|| successor(&slf.get().inner))? {
            PyTensor::rebind(&slf, next);
        }
        Ok(slf)
    }
}

/// Clears `t`'s wrapper slot if it names `obj`; returns `obj`'s pointer.
fn release(obj: &Bound<'_, PyTensor>, t: &Tensor) -> *mut std::ffi::c_void {
    let ptr = obj.as_ptr() as *mut std::ffi::c_void;
    let _ = t.0.binding_object.compare_exchange(
        ptr,
        std::ptr::null_mut(),
        Ordering::AcqRel,
        Ordering::Acquire,
    );
    ptr
}

/// The sizes of `resize_`'s arguments (non-negative).
fn sizes(args: &Bound<'_, PyTuple>) -> PyResult<Vec<usize>> {
    shape_args(args)?
        .into_iter()
        .map(|s| {
            usize::try_from(s).map_err(|_| {
                PyRuntimeError::new_err(format!(
                    "Trying to create tensor with negative dimension {s}: {:?}",
                    shape_args(args).unwrap_or_default()
                ))
            })
        })
        .collect()
}

#[pymethods]
impl PyTensor {
    /// `x.data = y`: from now on `x` shows `y`'s elements (shared), keeping its identity,
    /// autograd state and version counter; autograd does not see the change. When `y` has
    /// `x`'s shape, strides and dtype, `y`'s values are written into `x`'s elements instead,
    /// so graphs recorded before still accumulate into `x` (see [`Tensor::set_data`]).
    #[setter(data)]
    // stub: (self, value: Tensor) -> None
    fn set_data_attr(slf: &Bound<'_, Self>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let src = value
            .cast::<PyTensor>()
            .map(|t| (*t.get().inner).clone())
            .map_err(|_| {
                let kind = value
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                PyTypeError::new_err(format!("Variable data has to be a tensor, but got {kind}"))
            })?;
        let me = &slf.get().inner;
        if src.is_sparse() != me.is_sparse() {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have \
                 incompatible tensor type.",
            ));
        }
        // a meta tensor has no values to write, or to be written into: `x` shows `y` instead
        let meta = src.is_meta() || me.is_meta();
        if !meta && src.layout() == me.layout() && src.dtype() == me.dtype() {
            return run(|| me.set_data(&src));
        }
        let next = run(|| me.with_data_of(&src))?;
        PyTensor::rebind(slf, next);
        Ok(())
    }

    /// Makes this tensor show `source`'s elements, sizes and strides (no argument: none).
    #[pyo3(signature = (source: "Tensor | None" = None) -> "Self")]
    fn set_<'py>(
        slf: Bound<'py, Self>,
        source: Option<PyRef<'py, PyTensor>>,
    ) -> PyResult<Bound<'py, Self>> {
        Self::rebound(slf, |t| match &source {
            Some(s) => t.set_(&s.inner).map(Some),
            None => t.set_empty_().map(Some),
        })
    }

    /// Gives this tensor the shape `sizes` (contiguous), keeping its elements in order and
    /// growing them (with zeros) when there are too few.
    #[pyo3(signature = (*sizes: "int | Sequence[int]") -> "Self")]
    fn resize_<'py>(
        slf: Bound<'py, Self>,
        sizes: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, Self>> {
        let shape = self::sizes(sizes)?;
        Self::rebound(slf, |t| t.resize_(&shape))
    }

    /// `resize_` to `other`'s shape.
    #[pyo3(signature = (other: "Tensor") -> "Self")]
    fn resize_as_<'py>(
        slf: Bound<'py, Self>,
        other: PyRef<'py, PyTensor>,
    ) -> PyResult<Bound<'py, Self>> {
        Self::rebound(slf, |t| t.resize_(other.inner.shape()))
    }

    /// Swaps dimensions `dim0` and `dim1` in place (this tensor becomes its transpose).
    #[pyo3(signature = (dim0: "int", dim1: "int") -> "Self")]
    fn transpose_(slf: Bound<'_, Self>, dim0: isize, dim1: isize) -> PyResult<Bound<'_, Self>> {
        Self::rebound(slf, |t| {
            t.inplace_view("transpose_", "TransposeBackward1", |t| {
                t.transpose(dim0, dim1)
            })
            .map(Some)
        })
    }

    /// `transpose_`'s other name.
    #[pyo3(signature = (dim0: "int", dim1: "int") -> "Self")]
    fn swapdims_(slf: Bound<'_, Self>, dim0: isize, dim1: isize) -> PyResult<Bound<'_, Self>> {
        Self::transpose_(slf, dim0, dim1)
    }

    /// `transpose_`'s other name.
    #[pyo3(signature = (axis0: "int", axis1: "int") -> "Self")]
    fn swapaxes_(slf: Bound<'_, Self>, axis0: isize, axis1: isize) -> PyResult<Bound<'_, Self>> {
        Self::transpose_(slf, axis0, axis1)
    }

    /// Transposes this matrix (at most 2 dimensions) in place.
    #[pyo3(signature = () -> "Self")]
    fn t_(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        Self::rebound(slf, |t| {
            t.inplace_view("t_", "TBackward1", |t| t.t()).map(Some)
        })
    }

    /// Inserts a size-1 dimension at `dim` in place.
    #[pyo3(signature = (dim: "int") -> "Self")]
    fn unsqueeze_(slf: Bound<'_, Self>, dim: isize) -> PyResult<Bound<'_, Self>> {
        Self::rebound(slf, |t| {
            t.inplace_view("unsqueeze_", "UnsqueezeBackward1", |t| t.unsqueeze(dim))
                .map(Some)
        })
    }

    /// A view of this tensor's storage with shape `size`, strides `stride` (in elements) and
    /// `storage_offset` (default: this tensor's).
    #[pyo3(signature = (size: "Sequence[int]", stride: "Sequence[int]", storage_offset: "int | None" = None) -> "Tensor")]
    fn as_strided(
        &self,
        py: Python<'_>,
        size: Vec<usize>,
        stride: Vec<isize>,
        storage_offset: Option<usize>,
    ) -> PyResult<Py<PyAny>> {
        let out = run(|| self.inner.as_strided(&size, &stride, storage_offset))?;
        super::tensor::to_object(py, out)
    }

    /// `as_strided` in place: this tensor becomes that view.
    #[pyo3(signature = (size: "Sequence[int]", stride: "Sequence[int]", storage_offset: "int | None" = None) -> "Self")]
    fn as_strided_(
        slf: Bound<'_, Self>,
        size: Vec<usize>,
        stride: Vec<isize>,
        storage_offset: Option<usize>,
    ) -> PyResult<Bound<'_, Self>> {
        Self::rebound(slf, |t| {
            t.as_strided_(&size, &stride, storage_offset).map(Some)
        })
    }

    /// Removes size-1 dimensions (all, or only `dim`) in place.
    #[pyo3(signature = (dim: "int | None" = None) -> "Self")]
    fn squeeze_(slf: Bound<'_, Self>, dim: Option<isize>) -> PyResult<Bound<'_, Self>> {
        let node = match dim {
            Some(_) => "SqueezeBackward4",
            None => "SqueezeBackward3",
        };
        Self::rebound(slf, |t| {
            t.inplace_view("squeeze_", node, |t| match dim {
                Some(d) => t.squeeze_dim(d),
                None => t.squeeze(),
            })
            .map(Some)
        })
    }
}

/// `torch._C._swap_tensor_impl(t1, t2)`: each object shows the other's tensor from now on
/// (the last step of `torch.utils.swap_tensors`, which swaps the classes and `__dict__`s).
#[pyfunction]
#[pyo3(signature = (t1: "Tensor", t2: "Tensor") -> "None")]
pub(crate) fn _swap_tensor_impl(t1: &Bound<'_, PyTensor>, t2: &Bound<'_, PyTensor>) {
    let (a, b) = ((*t1.get().inner).clone(), (*t2.get().inner).clone());
    release(t1, &a);
    release(t2, &b);
    PyTensor::rebind(t1, b);
    PyTensor::rebind(t2, a);
}
