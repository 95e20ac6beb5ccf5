//! The Python `Tensor` class: a frozen, subclassable wrapper around the core tensor.
//! Every method converts arguments, calls the core, and converts the result back.
//!
//! This file holds the class, its object plumbing (one Python object per core tensor), its
//! construction, conversions to Python values and data access; the methods of each family
//! are in their own file, each a `#[pymethods]` block of the same class: `tensor_math.rs`
//! (arithmetic, comparisons, logical and bitwise), `tensor_reduce.rs` (reductions, softmax,
//! products), `tensor_shape.rs` (views, copies, indexing, conversions), `tensor_autograd.rs`
//! (gradients, hooks, `backward`), `tensor_ops.rs` and `tensor_new.rs`.

use super::convert::{operand_arg, scalar_arg, size_object, tensor_arg, tensor_from_data};
use super::errors::{run, run_as};
use crate::core::dtype::{DType, Scalar};
use crate::core::tensor::Tensor;
use crate::ops::pointwise::comparison::CompareOp;

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::atomic::{AtomicBool, Ordering};

/// A multi-dimensional array that records operations for automatic differentiation.
#[pyclass(name = "Tensor", module = "ferrograd", frozen, subclass, weakref)]
pub struct PyTensor {
    /// The core tensor this object stands for (see Note [Rebinding a tensor object]).
    pub(crate) inner: super::binding::Binding,
    /// Whether the core tensor's `binding_object` slot points at this object.
    registered: AtomicBool,
    /// The Python hooks registered through this object, shown to Python's cycle collector
    /// (see Note [Hooks and the cycle collector]).
    pub(super) hooks: std::sync::Mutex<Vec<(u64, super::hooks::HookSlot)>>,
    /// The Python object last handed out as `.grad`, kept while it stands for the current
    /// gradient, so the gradient's object lives as long as the gradient does (PyTorch's
    /// PyObject preservation: `weakref.ref(x.grad)` stays alive, `id(x.grad)` is stable).
    pub(super) grad_object: std::sync::Mutex<Option<Py<PyAny>>>,
}

impl From<Tensor> for PyTensor {
    fn from(inner: Tensor) -> Self {
        PyTensor {
            inner: super::binding::Binding::new(inner),
            registered: AtomicBool::new(false),
            hooks: std::sync::Mutex::new(Vec::new()),
            grad_object: std::sync::Mutex::new(None),
        }
    }
}

impl PyTensor {
    /// Whether the core tensor's `binding_object` slot points at this object.
    pub(crate) fn is_registered(&self) -> bool {
        self.registered.load(Ordering::Acquire)
    }

    /// Keeps a Python hook registered on this tensor visible to the cycle collector (a leaf's
    /// through this object, see Note [Hooks and the cycle collector]; a non-leaf's through its
    /// node's object, see Note [Node hooks and the cycle collector]) and returns its handle.
    pub(super) fn keep_leaf_hook(
        &self,
        py: Python<'_>,
        id: u64,
        slot: super::hooks::HookSlot,
    ) -> PyResult<Py<PyAny>> {
        if self.inner.is_leaf() {
            self.hooks
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((id, slot));
            let me = self.inner.0.binding_object.load(Ordering::Acquire);
            // SAFETY: a registered wrapper's pointer is this live object (see `to_object`);
            // tracking a fully initialized GC object that is not yet tracked is allowed.
            unsafe {
                let me = me.cast::<pyo3::ffi::PyObject>();
                if !me.is_null() && pyo3::ffi::PyObject_GC_IsTracked(me) == 0 {
                    pyo3::ffi::PyObject_GC_Track(me.cast());
                }
            }
        } else if let Some(edge) = self.inner.meta().grad_fn.clone() {
            super::node::keep_node_hook(&edge.node, id, slot);
        }
        let handle = super::hooks::hook_handle(py)?;
        Ok(handle
            .call1((to_object(py, self.inner.clone())?, id))?
            .unbind())
    }
}

impl Drop for PyTensor {
    fn drop(&mut self) {
        if *self.registered.get_mut() {
            self.inner
                .0
                .binding_object
                .store(std::ptr::null_mut(), Ordering::Release);
        }
    }
}

/// The Python object of `t`: the existing wrapper if there is one (so `x.grad is x.grad`,
/// `v._base is x`), else a new registered one.
pub(crate) fn to_object(py: Python<'_>, t: Tensor) -> PyResult<Py<PyAny>> {
    let existing = t.0.binding_object.load(Ordering::Acquire);
    if !existing.is_null() {
        // SAFETY: the slot only ever holds the pointer of a live registered wrapper: the wrapper
        // clears it when it is dropped, and both happen with the GIL held.
        return Ok(
            unsafe { Bound::from_borrowed_ptr(py, existing as *mut pyo3::ffi::PyObject) }.unbind(),
        );
    }
    if crate::core::storage::wrappers_made() && t.subclass().is_some() {
        if let Some(obj) = super::subclass::revived_object(py, &t)? {
            return Ok(obj);
        }
    }
    let obj = Py::new(
        py,
        PyTensor {
            inner: super::binding::Binding::new(t.clone()),
            registered: AtomicBool::new(true),
            hooks: std::sync::Mutex::new(Vec::new()),
            grad_object: std::sync::Mutex::new(None),
        },
    )?;
    t.0.binding_object
        .store(obj.as_ptr() as *mut std::ffi::c_void, Ordering::Release);
    // Only a tensor with Python hooks takes part in cycle collection (`register_hook` tracks
    // it): the collector then never walks the many plain tensors a program makes.
    // SAFETY: `obj` is a live, fully initialized object of a GC type; untracking is undone by
    // nothing but `PyObject_GC_Track`, and deallocation copes with an untracked object.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) };
    Ok(obj.into_any())
}

/// Regenerates a view's history if its storage was written since (Note [View regeneration]),
/// raising PyTorch's error where it refuses to (a view made under `no_grad`, or of a
/// multi-output op, whose base was modified in place).
pub(super) fn refreshed_view(t: &Tensor) -> PyResult<()> {
    crate::autograd::refresh_view(t);
    let invalid = t
        .meta()
        .grad_fn
        .as_ref()
        .and_then(|e| (e.node.name() == crate::autograd::INVALID_VIEW).then(|| e.node.clone()));
    match invalid {
        Some(node) => {
            let message = node.metadata(|| std::sync::Arc::new(String::new()));
            let text = message
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_default();
            Err(PyRuntimeError::new_err(text))
        }
        None => Ok(()),
    }
}

/// What a method returning a tensor gives Python.
pub(crate) type TResult = PyResult<Py<PyAny>>;

/// A core result as Python sees it: the tensor's registered wrapper, or the exception.
pub(crate) fn wrap(r: PyResult<Tensor>) -> TResult {
    let t = r?;
    Python::attach(|py| to_object(py, t))
}

pub(super) fn compare(
    py: Python<'_>,
    t: &Tensor,
    op: CompareOp,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let Some(o) = operand_arg(other) else {
        return Ok(py.NotImplemented());
    };
    let name = match op {
        CompareOp::Lt => "lt",
        CompareOp::Le => "le",
        CompareOp::Gt => "gt",
        CompareOp::Ge => "ge",
        CompareOp::Eq => "eq",
        CompareOp::Ne => "ne",
    };
    let out = run_as(name, || t.compare(op, o.as_operand()))?;
    to_object(py, out)
}

pub(super) fn scalar_to_py(py: Python<'_>, s: Scalar) -> PyResult<Py<PyAny>> {
    Ok(match s {
        Scalar::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Scalar::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Scalar::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
    })
}

#[pymethods]
impl PyTensor {
    /// `Tensor(data)`: default-dtype data from a sequence, or a leaf sharing another tensor's
    /// data; PyTorch's legacy `Tensor(*sizes)` / `Tensor(torch.Size(...))`: a tensor of that
    /// shape (zeros: ferrograd has no uninitialized memory).
    #[new]
    #[pyo3(signature = (*args, requires_grad=None))]
    // stub: (cls, *args: Any, requires_grad: bool | None = None) -> Self
    fn py_new(args: &Bound<'_, PyTuple>, requires_grad: Option<bool>) -> PyResult<Self> {
        let float = crate::core::dtype::default_float();
        let is_int = |o: &Bound<'_, PyAny>| {
            o.is_instance_of::<pyo3::types::PyInt>() && !o.is_instance_of::<pyo3::types::PyBool>()
        };
        let first = args.get_item(0).ok();
        if let Some(pending) = first
            .as_ref()
            .and_then(|f| f.cast::<super::subclass::PendingTensor>().ok())
        {
            return Ok(PyTensor::from(pending.get().0.clone()));
        }
        let sizes: Option<Vec<usize>> = match &first {
            None => Some(vec![0]),
            Some(f) if f.get_type().name()?.to_cow()? == "Size" => Some(f.extract()?),
            Some(_) if args.iter().all(|a| is_int(&a)) => Some(super::convert::size_args(args)?),
            Some(_) => None,
        };
        let (inner, flag) = match (sizes, first) {
            (Some(shape), _) => (run(|| Tensor::try_full(&shape, 0.0, float))?, None),
            (None, Some(d)) => {
                let flag = match args.get_item(1) {
                    Ok(b) => Some(b.extract::<bool>()?),
                    Err(_) => None,
                };
                if args.len() > 2 {
                    return Err(PyTypeError::new_err(format!(
                        "new() received an invalid combination of arguments: {} positional arguments",
                        args.len()
                    )));
                }
                let t = match d.cast::<PyTensor>() {
                    Ok(t) => t.get().inner.detach(),
                    Err(_) => tensor_from_data(&d, Some(float))?,
                };
                (t, flag)
            }
            (None, None) => unreachable!("no arguments give sizes [0]"),
        };
        run(|| inner.set_requires_grad(requires_grad.or(flag).unwrap_or(false)))?;
        Ok(PyTensor::from(inner))
    }

    /// Makes this object the one returned for its tensor (for objects created by subclasses).
    #[pyo3(signature = () -> "None")]
    fn _register(slf: &Bound<'_, Self>) {
        let me = slf.get();
        if me.inner.0.binding_object.load(Ordering::Acquire).is_null() {
            me.registered.store(true, Ordering::Release);
            me.inner
                .0
                .binding_object
                .store(slf.as_ptr() as *mut std::ffi::c_void, Ordering::Release);
        }
    }

    fn __repr__(&self) -> PyResult<String> {
        crate::autograd::refresh_view(&self.inner); // shows a regenerated (or Invalid) grad_fn
        super::errors::run_as("repr", || Ok(self.inner.repr()))
    }

    /// Elementwise closeness `|a - b| <= atol + rtol * |b|` (a bool tensor).
    #[pyo3(signature = (other: "Tensor", rtol: "float" = 1e-05, atol: "float" = 1e-08, equal_nan: "bool" = false) -> "Tensor")]
    fn isclose(&self, other: &Bound<'_, PyAny>, rtol: f64, atol: f64, equal_nan: bool) -> TResult {
        let o = tensor_arg(other, "isclose() argument 'other'")?;
        wrap(run(|| self.inner.isclose(&o, rtol, atol, equal_nan)))
    }

    /// Whether every element is close (see `isclose`).
    #[pyo3(signature = (other: "Tensor", rtol: "float" = 1e-05, atol: "float" = 1e-08, equal_nan: "bool" = false) -> "bool")]
    fn allclose(
        &self,
        other: &Bound<'_, PyAny>,
        rtol: f64,
        atol: f64,
        equal_nan: bool,
    ) -> PyResult<bool> {
        let o = tensor_arg(other, "allclose() argument 'other'")?;
        run(|| self.inner.allclose(&o, rtol, atol, equal_nan))
    }

    /// Whether `other` has the same shape and equal elements.
    #[pyo3(signature = (other: "Tensor") -> "bool")]
    fn equal(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let o = tensor_arg(other, "equal() argument 'other'")?;
        run(|| self.inner.equal(&o))
    }

    /// `format(t, spec)`, as PyTorch: a 0-d tensor (of this exact class) formats its value
    /// (`f"{loss:.4f}"`); anything else formats as `object` does (only an empty spec).
    // stub: (self, spec: str, /) -> str
    fn __format__(slf: &Bound<'_, Self>, spec: &str) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let exact = slf.get_type().is(py.get_type::<PyTensor>());
        if slf.get().inner.dim() == 0 && exact {
            let value = slf.call_method0("item")?;
            return Ok(value.call_method1("__format__", (spec,))?.unbind());
        }
        let object = py.get_type::<pyo3::types::PyAny>();
        Ok(object.call_method1("__format__", (slf, spec))?.unbind())
    }

    // stub: (self) -> int
    fn __len__(&self) -> PyResult<usize> {
        self.inner
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-d tensor"))
    }

    // stub: (self) -> Iterator[Tensor]
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if self.inner.dim() == 0 {
            return Err(PyTypeError::new_err("iteration over a 0-d tensor"));
        }
        // as PyTorch: `iter(self.unbind(0))`
        let rows = run(|| self.inner.unbind(0))?
            .into_iter()
            .map(|t| to_object(py, t))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyTuple::new(py, rows)?.try_iter()?.into_any().unbind())
    }

    // stub: (self) -> int
    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        slf.as_ptr() as isize
    }

    // stub: (self) -> bool
    fn __bool__(&self) -> PyResult<bool> {
        if self.inner.numel() == 0 {
            return Err(PyRuntimeError::new_err(
                "Boolean value of Tensor with no values is ambiguous",
            ));
        }
        if self.inner.numel() != 1 {
            return Err(PyRuntimeError::new_err(format!(
                "Boolean value of Tensor with more than one value is ambiguous (it has {} elements; use .any() or .all())",
                self.inner.numel()
            )));
        }
        Ok(run(|| self.inner.item())?.to_f64() != 0.0)
    }

    // stub: (self) -> float
    fn __float__(&self) -> PyResult<f64> {
        Ok(run(|| self.inner.python_scalar())?.to_f64())
    }

    // stub: (self) -> int
    fn __int__(&self) -> PyResult<i64> {
        let v = run(|| self.inner.python_scalar())?.to_f64();
        if v.is_nan() {
            return Err(PyValueError::new_err("cannot convert float NaN to integer"));
        }
        if v.is_infinite() {
            return Err(pyo3::exceptions::PyOverflowError::new_err(
                "cannot convert float infinity to integer",
            ));
        }
        Ok(v as i64)
    }

    // stub: (self) -> int
    fn __index__(&self) -> PyResult<i64> {
        if self.inner.dtype().is_floating_point() || self.inner.numel() != 1 {
            return Err(PyTypeError::new_err(
                "only integer tensors of a single element can be converted to an index",
            ));
        }
        self.__int__()
    }

    // Note [Hooks and the cycle collector]: a hook that captures its own tensor
    // (`x.register_hook(lambda g: g * x)`) makes a cycle through Rust, which Python's collector
    // cannot see on its own. The hooks of a leaf live in its core tensor; when this object is
    // that tensor's only owner (no graph or other handle holds it), the hooks are reachable only
    // through this object, so it reports them, and clearing it empties their slots (a cleared
    // hook does nothing; it is never called again, since nothing reaches the tensor). A tensor
    // held elsewhere reports nothing: its hooks are kept alive, never freed wrongly.
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if std::sync::Arc::strong_count(&self.inner.0) != 1 {
            return Ok(());
        }
        super::hooks::visit_hook_slots(&self.hooks, &visit)
    }

    fn __clear__(&self) {
        if std::sync::Arc::strong_count(&self.inner.0) != 1 {
            return; // it reported nothing: the hooks may still run for another holder
        }
        super::hooks::clear_hook_slots(&self.hooks);
    }

    /// The shape, as `ferrograd.Size`.
    #[getter]
    // stub: -> tuple[int, ...]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        size_object(py, self.inner.shape())
    }

    /// The shape, or the size of dimension `dim`.
    #[pyo3(signature = (dim=None))]
    // stub: (self, dim: None = None) -> tuple[int, ...]
    // stub: (self, dim: int) -> int
    fn size<'py>(&self, py: Python<'py>, dim: Option<isize>) -> PyResult<Bound<'py, PyAny>> {
        match dim {
            None => size_object(py, self.inner.shape()),
            Some(d) => {
                let d = crate::core::layout::normalize_dim(d, self.inner.dim())
                    .map_err(super::errors::to_py_err)?;
                Ok(self
                    .inner
                    .shape()
                    .get(d)
                    .copied()
                    .unwrap_or(1)
                    .into_pyobject(py)?
                    .into_any())
            }
        }
    }

    /// Number of dimensions.
    #[pyo3(signature = () -> "int")]
    fn dim(&self) -> usize {
        self.inner.dim()
    }

    /// Number of dimensions.
    #[getter]
    // stub: -> int
    fn ndim(&self) -> usize {
        self.inner.dim()
    }

    /// Number of elements.
    #[pyo3(signature = () -> "int")]
    fn numel(&self) -> usize {
        self.inner.numel()
    }

    /// Number of elements.
    #[pyo3(signature = () -> "int")]
    fn nelement(&self) -> usize {
        self.inner.numel()
    }

    /// Element type.
    #[getter]
    // stub: -> _DType
    fn dtype(&self, py: Python<'_>) -> PyResult<Py<super::convert::PyDType>> {
        super::convert::dtype_object(py, self.inner.dtype())
    }

    /// `device(type='cpu')`, or `device(type='meta')` for a tensor on the meta device.
    #[getter]
    // stub: -> Any
    fn device(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        static CPU: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
        static META: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
        let (cell, name) = if self.inner.is_meta() {
            (&META, "meta")
        } else {
            (&CPU, "cpu")
        };
        let device = cell.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            Ok(py
                .import("ferrograd._device")?
                .getattr("device")?
                .call1((name,))?
                .unbind())
        })?;
        Ok(device.clone_ref(py))
    }

    /// Whether this tensor is on the meta device (a shape and dtype without values).
    #[getter]
    // stub: -> bool
    fn is_meta(&self) -> bool {
        self.inner.is_meta()
    }

    /// Always False.
    #[getter]
    // stub: -> bool
    fn is_cuda(&self) -> bool {
        false
    }

    /// Always False (no XPU device).
    #[getter]
    // stub: -> bool
    fn is_xpu(&self) -> bool {
        false
    }

    /// Always False (no MPS device).
    #[getter]
    // stub: -> bool
    fn is_mps(&self) -> bool {
        false
    }

    /// Always False: no accelerator to pin memory for.
    #[pyo3(signature = (device: "Any" = None) -> "bool")]
    fn is_pinned(&self, device: Option<&Bound<'_, PyAny>>) -> bool {
        let _ = device;
        false
    }

    /// Refused as PyTorch without an accelerator refuses it.
    #[pyo3(signature = (device: "Any" = None) -> "None")]
    fn pin_memory(&self, device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let _ = device;
        Err(PyRuntimeError::new_err(
            "Cannot access accelerator device when none is available.",
        ))
    }

    /// Refused as PyTorch built without CUDA refuses it.
    #[pyo3(signature = (device: "Any" = None, non_blocking: "bool" = false, memory_format: "Any" = None) -> "None")]
    fn cuda(
        &self,
        device: Option<&Bound<'_, PyAny>>,
        non_blocking: bool,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = (device, non_blocking, memory_format);
        Err(pyo3::exceptions::PyAssertionError::new_err(
            "Torch not compiled with CUDA enabled",
        ))
    }

    /// Whether the dtype is float32 or float64.
    #[pyo3(signature = () -> "bool")]
    fn is_floating_point(&self) -> bool {
        self.inner.dtype().is_floating_point()
    }

    /// The value of a one-element tensor as a Python number.
    #[pyo3(signature = () -> "_Scalar")]
    fn item(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        scalar_to_py(py, run(|| self.inner.item())?)
    }

    /// Nested Python lists of the elements.
    #[pyo3(signature = () -> "Any")]
    fn tolist(slf: &Bound<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        fn build(py: Python<'_>, values: &[Py<PyAny>], shape: &[usize]) -> PyResult<Py<PyAny>> {
            if shape.is_empty() {
                return Ok(values[0].clone_ref(py));
            }
            let inner: usize = shape[1..].iter().product();
            let items = (0..shape[0])
                .map(|i| build(py, &values[i * inner..(i + 1) * inner], &shape[1..]))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any().unbind())
        }
        let me = slf.get();
        let t = &me.inner;
        if t.subclass().is_some() {
            return Err(PyRuntimeError::new_err(format!(
                ".tolist() is not supported for tensor subclasses, got {}",
                slf.get_type().name()?
            )));
        }
        let values: Vec<Py<PyAny>> = match t.dtype() {
            DType::Bool => t
                .to_vec::<bool>()
                .map_err(super::errors::to_py_err)?
                .into_iter()
                .map(|x| scalar_to_py(py, Scalar::Bool(x)))
                .collect::<PyResult<_>>()?,
            DType::Float32 => t
                .to_vec::<f32>()
                .map_err(super::errors::to_py_err)?
                .into_iter()
                .map(|x| scalar_to_py(py, Scalar::Float(x as f64)))
                .collect::<PyResult<_>>()?,
            DType::Float64 => t
                .to_vec::<f64>()
                .map_err(super::errors::to_py_err)?
                .into_iter()
                .map(|x| scalar_to_py(py, Scalar::Float(x)))
                .collect::<PyResult<_>>()?,
            int => crate::with_any!(int, T => t
                .to_vec::<T>()
                .map_err(super::errors::to_py_err)?
                .into_iter()
                .map(|x| scalar_to_py(py, Scalar::Int(crate::core::dtype::Element::to_i64(x))))
                .collect::<PyResult<_>>()?),
        };
        // (an empty tensor nests its empty lists as PyTorch's: `zeros(3, 0)` is `[[], [], []]`)
        build(py, &values, t.shape())
    }

    /// A NumPy array sharing the tensor's memory (refused while it requires grad, unless
    /// `force`).
    #[pyo3(signature = (*, force: "bool" = false) -> "NDArray[Any]")]
    fn numpy<'py>(&self, py: Python<'py>, force: bool) -> PyResult<Bound<'py, PyAny>> {
        super::interop::to_numpy(py, &self.inner, force)
    }

    /// `np.asarray(t)`: the shared array of `numpy()` (converted when `dtype` is given, copied
    /// when `copy` is true).
    #[pyo3(signature = (dtype=None, copy=None))]
    // stub: (self, dtype: DTypeLike | None = None, copy: bool | None = None) -> NDArray[Any]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arr = super::interop::to_numpy(py, &self.inner, false)?;
        let arr = match dtype {
            Some(d) if !d.is_none() => {
                let kwargs = pyo3::types::PyDict::new(py);
                kwargs.set_item("copy", false)?;
                arr.call_method("astype", (d,), Some(&kwargs))?
            }
            _ => arr,
        };
        match copy {
            Some(true) => arr.call_method0("copy"),
            _ => Ok(arr),
        }
    }

    /// A DLPack capsule sharing the tensor's memory (CPU; refused while it requires grad).
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    // stub: (self, *, stream: Any | None = None, max_version: tuple[int, int] | None = None, dl_device: Any | None = None, copy: bool | None = None) -> Any
    fn __dlpack__(
        &self,
        py: Python<'_>,
        stream: Option<&Bound<'_, PyAny>>,
        max_version: Option<&Bound<'_, PyAny>>,
        dl_device: Option<&Bound<'_, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let _ = dl_device;
        if stream.is_some_and(|s| !s.is_none()) {
            return Err(pyo3::exceptions::PyBufferError::new_err(
                "__dlpack__: stream must be None for CPU tensors",
            ));
        }
        let versioned = match max_version {
            Some(v) if !v.is_none() => v.extract::<(u32, u32)>()?.0 >= 1,
            _ => false,
        };
        match copy {
            Some(true) => {
                super::interop::to_dlpack(py, &self.inner.detach().deep_copy(), versioned)
            }
            _ => super::interop::to_dlpack(py, &self.inner, versioned),
        }
    }

    /// `(device type, device id)` of the DLPack protocol: `(1, 0)`, the CPU.
    // stub: (self) -> tuple[int, int]
    fn __dlpack_device__(&self) -> (i32, i32) {
        (1, 0)
    }

    /// The address of the first element (shared memory reports the same address on both sides).
    #[pyo3(signature = () -> "int")]
    fn data_ptr(&self) -> usize {
        self.inner.data_ptr() as usize
    }
}

/// A tensor from a tensor or number operand (numbers become 0-d tensors of `dtype`'s category).
pub(crate) fn operand_tensor(obj: &Bound<'_, PyAny>, dtype: DType) -> PyResult<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(t.get().inner.clone());
    }
    let s = scalar_arg(obj).ok_or_else(|| PyTypeError::new_err("expected a Tensor or a number"))?;
    Ok(Tensor::scalar_of(s.to_f64(), s.result_type_with(dtype)))
}
