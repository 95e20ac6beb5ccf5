//! The Python `Tensor` class: a frozen, subclassable wrapper around the core tensor.
//! Every method converts arguments, calls the core, and converts the result back.

use super::convert::{
    basic_only, dims_arg, dtype_arg, index_items, operand_arg, scalar_arg, shape_args, size_object,
    tensor_arg, tensor_from_data, OwnedOperand,
};
use super::node::node_object;
use super::out::with_out;
use super::{run, run_as, run_unnamed};
use crate::core::dtype::{DType, Scalar};
use crate::core::tensor::Tensor;
use crate::ops::comparison::{CompareOp, LogicalOp};
use crate::ops::{arithmetic::binary, BinaryOp, Operand};
use pyo3::basic::CompareOp as PyCompareOp;
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
    hooks: std::sync::Mutex<Vec<(u64, super::functions::HookSlot)>>,
    /// The Python object last handed out as `.grad`, kept while it stands for the current
    /// gradient, so the gradient's object lives as long as the gradient does (PyTorch's
    /// PyObject preservation: `weakref.ref(x.grad)` stays alive, `id(x.grad)` is stable).
    grad_object: std::sync::Mutex<Option<Py<PyAny>>>,
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
    fn keep_leaf_hook(
        &self,
        py: Python<'_>,
        id: u64,
        slot: super::functions::HookSlot,
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
        let handle = super::functions::hook_handle(py)?;
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
    if crate::core::dispatch::wrappers_made() && t.subclass().is_some() {
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
fn refreshed_view(t: &Tensor) -> PyResult<()> {
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

/// `self op other` for a dunder: NotImplemented when `other` is neither tensor nor number.
fn arith(
    py: Python<'_>,
    op: BinaryOp,
    lhs: &Tensor,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let Some(o) = operand_arg(other) else {
        return Ok(py.NotImplemented());
    };
    let me = Operand::Tensor(lhs);
    let (a, b) = if reflected {
        (o.as_operand(), me)
    } else {
        (me, o.as_operand())
    };
    let out = run_as(op.inplace_name().trim_end_matches('_'), || binary(op, a, b))?;
    to_object(py, out)
}

fn inplace(op: BinaryOp, t: &Tensor, other: &Bound<'_, PyAny>) -> PyResult<()> {
    let o = operand_arg(other).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "unsupported operand type for in-place {}: {}",
            op.inplace_name(),
            other
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    run_as(op.inplace_name(), || t.binary_(op, o.as_operand()))
}

fn compare(
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

/// A named comparison (`x.gt(y)`): as the operator, but a bad operand is a TypeError (an
/// operator returns NotImplemented so Python can try the other side).
fn compare_method(
    py: Python<'_>,
    t: &Tensor,
    op: CompareOp,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let out = compare(py, t, op, other)?;
    if out.is(py.NotImplemented()) {
        return Err(PyTypeError::new_err(format!(
            "comparison received an invalid combination of arguments: got (Tensor, {})",
            other.get_type().name()?
        )));
    }
    Ok(out)
}

fn scalar_to_py(py: Python<'_>, s: Scalar) -> PyResult<Py<PyAny>> {
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
        super::run_as("repr", || Ok(self.inner.repr()))
    }

    /// Elementwise closeness `|a - b| <= atol + rtol * |b|` (a bool tensor).
    #[pyo3(signature = (other, rtol=1e-05, atol=1e-08, equal_nan=false))]
    fn isclose(&self, other: &Bound<'_, PyAny>, rtol: f64, atol: f64, equal_nan: bool) -> TResult {
        let o = tensor_arg(other, "isclose() argument 'other'")?;
        wrap(run(|| self.inner.isclose(&o, rtol, atol, equal_nan)))
    }
    /// Whether every element is close (see `isclose`).
    #[pyo3(signature = (other, rtol=1e-05, atol=1e-08, equal_nan=false))]
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
    fn equal(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let o = tensor_arg(other, "equal() argument 'other'")?;
        run(|| self.inner.equal(&o))
    }

    /// `format(t, spec)`, as PyTorch: a 0-d tensor (of this exact class) formats its value
    /// (`f"{loss:.4f}"`); anything else formats as `object` does (only an empty spec).
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

    fn __len__(&self) -> PyResult<usize> {
        self.inner
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-d tensor"))
    }

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

    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        slf.as_ptr() as isize
    }

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

    fn __float__(&self) -> PyResult<f64> {
        Ok(run(|| self.inner.python_scalar())?.to_f64())
    }

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

    fn __index__(&self) -> PyResult<i64> {
        if self.inner.dtype().is_floating_point() || self.inner.numel() != 1 {
            return Err(PyTypeError::new_err(
                "only integer tensors of a single element can be converted to an index",
            ));
        }
        self.__int__()
    }

    // ----- arithmetic ---------------------------------------------------------------------

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Add, &self.inner, o, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Add, &self.inner, o, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Sub, &self.inner, o, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Sub, &self.inner, o, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Mul, &self.inner, o, false)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Mul, &self.inner, o, true)
    }
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Div, &self.inner, o, false)
    }
    fn __rtruediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Div, &self.inner, o, true)
    }
    fn __pow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        _modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Pow, &self.inner, o, false)
    }
    fn __rpow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        _modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Pow, &self.inner, o, true)
    }
    fn __matmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = o.cast::<PyTensor>() else {
            return Ok(py.NotImplemented());
        };
        let out = run(|| self.inner.matmul(&other.get().inner))?;
        to_object(py, out)
    }
    fn __rmatmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = o.cast::<PyTensor>() else {
            return Ok(py.NotImplemented());
        };
        let out = run(|| other.get().inner.matmul(&self.inner))?;
        to_object(py, out)
    }
    fn __neg__(&self) -> TResult {
        self.neg()
    }
    fn __pos__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }
    fn __abs__(&self) -> TResult {
        self.abs()
    }
    fn __iadd__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(BinaryOp::Add, &self.inner, o)
    }
    fn __isub__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(BinaryOp::Sub, &self.inner, o)
    }
    fn __imul__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(BinaryOp::Mul, &self.inner, o)
    }
    fn __itruediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(BinaryOp::Div, &self.inner, o)
    }
    fn __ipow__(&self, o: &Bound<'_, PyAny>, _modulo: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        inplace(BinaryOp::Pow, &self.inner, o)
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        op: PyCompareOp,
    ) -> PyResult<Py<PyAny>> {
        let op = match op {
            PyCompareOp::Lt => CompareOp::Lt,
            PyCompareOp::Le => CompareOp::Le,
            PyCompareOp::Gt => CompareOp::Gt,
            PyCompareOp::Ge => CompareOp::Ge,
            PyCompareOp::Eq => CompareOp::Eq,
            PyCompareOp::Ne => CompareOp::Ne,
        };
        compare(py, &self.inner, op, o)
    }

    /// `self < other` elementwise, as a bool tensor (`torch.lt`).
    fn lt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Lt, other)
    }
    /// `self <= other` elementwise, as a bool tensor (`torch.le`).
    fn le(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Le, other)
    }
    /// `self > other` elementwise, as a bool tensor (`torch.gt`).
    fn gt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Gt, other)
    }
    /// `self >= other` elementwise, as a bool tensor (`torch.ge`).
    fn ge(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Ge, other)
    }
    /// `self == other` elementwise, as a bool tensor (`torch.eq`).
    fn eq(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Eq, other)
    }
    /// `self != other` elementwise, as a bool tensor (`torch.ne`).
    fn ne(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Ne, other)
    }

    /// `self + alpha * other`.
    #[pyo3(signature = (other, *, alpha=None, out=None))]
    fn add(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        alpha: Option<f64>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || with_alpha(slf.py(), BinaryOp::Add, &slf.get().inner, other, alpha);
        with_out(slf.py(), "add", out, &[slf.as_any(), other], compute)
    }
    /// `self - alpha * other`.
    #[pyo3(signature = (other, *, alpha=None, out=None))]
    fn sub(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        alpha: Option<f64>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || with_alpha(slf.py(), BinaryOp::Sub, &slf.get().inner, other, alpha);
        with_out(slf.py(), "sub", out, &[slf.as_any(), other], compute)
    }
    /// `self * other`.
    #[pyo3(signature = (other, *, out=None))]
    fn mul(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || checked_arith(slf.py(), BinaryOp::Mul, &slf.get().inner, other);
        with_out(slf.py(), "mul", out, &[slf.as_any(), other], compute)
    }
    /// `self / other`.
    #[pyo3(signature = (other, *, out=None))]
    fn div(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || checked_arith(slf.py(), BinaryOp::Div, &slf.get().inner, other);
        with_out(slf.py(), "div", out, &[slf.as_any(), other], compute)
    }
    /// `self ** exponent`.
    #[pyo3(signature = (exponent, *, out=None))]
    fn pow(
        slf: &Bound<'_, Self>,
        exponent: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || checked_arith(slf.py(), BinaryOp::Pow, &slf.get().inner, exponent);
        with_out(slf.py(), "pow", out, &[slf.as_any(), exponent], compute)
    }
    /// In-place `self += alpha * other`.
    #[pyo3(signature = (other, *, alpha=None))]
    fn add_<'py>(
        slf: Bound<'py, Self>,
        other: &Bound<'py, PyAny>,
        alpha: Option<f64>,
    ) -> PyResult<Bound<'py, Self>> {
        inplace_alpha(BinaryOp::Add, &slf.get().inner, other, alpha)?;
        Ok(slf)
    }
    /// In-place `self -= alpha * other`.
    #[pyo3(signature = (other, *, alpha=None))]
    fn sub_<'py>(
        slf: Bound<'py, Self>,
        other: &Bound<'py, PyAny>,
        alpha: Option<f64>,
    ) -> PyResult<Bound<'py, Self>> {
        inplace_alpha(BinaryOp::Sub, &slf.get().inner, other, alpha)?;
        Ok(slf)
    }
    /// In-place `self *= other`.
    fn mul_<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        inplace(BinaryOp::Mul, &slf.get().inner, other)?;
        Ok(slf)
    }
    /// In-place `self /= other`.
    fn div_<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        inplace(BinaryOp::Div, &slf.get().inner, other)?;
        Ok(slf)
    }
    /// In-place `self **= exponent`.
    fn pow_<'py>(
        slf: Bound<'py, Self>,
        exponent: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        inplace(BinaryOp::Pow, &slf.get().inner, exponent)?;
        Ok(slf)
    }
    /// Sets every element to 0.
    fn zero_(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.zero_())?;
        Ok(slf)
    }
    /// Sets every element to `value` (a number, or a 0-d tensor whose gradient is the sum).
    fn fill_<'py>(slf: Bound<'py, Self>, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        if let Ok(t) = value.cast::<PyTensor>() {
            run(|| slf.get().inner.fill_tensor_(&t.get().inner))?;
            return Ok(slf);
        }
        let v =
            scalar_arg(value).ok_or_else(|| PyTypeError::new_err("fill_() expects a number"))?;
        run(|| slf.get().inner.fill_(v))?;
        Ok(slf)
    }
    /// Copies `src` into this tensor (broadcasting, converting the dtype).
    fn copy_<'py>(slf: Bound<'py, Self>, src: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let src = tensor_arg(src, "copy_() argument 'src'")?;
        run(|| slf.get().inner.copy_(&src))?;
        Ok(slf)
    }
    /// Fills with normal samples.
    #[pyo3(signature = (mean=0.0, std=1.0, *, generator=None))]
    fn normal_<'py>(
        slf: Bound<'py, Self>,
        mean: f64,
        std: f64,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let gen = super::random::generator_arg(generator)?;
        run(|| slf.get().inner.normal_(mean, std, gen.as_ref()))?;
        Ok(slf)
    }
    /// Fills with uniform samples in `[from, to)`.
    #[pyo3(signature = (from_=0.0, to=1.0, *, generator=None))]
    fn uniform_<'py>(
        slf: Bound<'py, Self>,
        from_: f64,
        to: f64,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let gen = super::random::generator_arg(generator)?;
        run(|| slf.get().inner.uniform_(from_, to, gen.as_ref()))?;
        Ok(slf)
    }
    /// 0/1 samples with this tensor's probabilities (or the number `p` for every element), as
    /// `torch.bernoulli(self, p)`.
    #[pyo3(signature = (p=None, *, generator=None))]
    pub(crate) fn bernoulli(
        &self,
        py: Python<'_>,
        p: Option<f64>,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let gen = super::random::generator_arg(generator)?;
        let t = match p {
            Some(p) => run(|| {
                let out = Tensor::zeros(self.inner.shape(), self.inner.dtype());
                out.bernoulli_(p, gen.as_ref())?;
                Ok(out)
            })?,
            None => run(|| self.inner.bernoulli(gen.as_ref()))?,
        };
        to_object(py, t)
    }
    /// Fills with 1 with probability `p` (a number or a tensor of probabilities), else 0.
    #[pyo3(signature = (p=None, *, generator=None))]
    fn bernoulli_<'py>(
        slf: Bound<'py, Self>,
        p: Option<&Bound<'py, PyAny>>,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let gen = super::random::generator_arg(generator)?;
        let Some(p) = p else {
            run(|| slf.get().inner.bernoulli_(0.5, gen.as_ref()))?;
            return Ok(slf);
        };
        match p.cast::<PyTensor>() {
            Ok(probs) => {
                let probs = probs.get().inner.clone();
                run(|| {
                    let dims: Vec<isize> = slf
                        .get()
                        .inner
                        .shape()
                        .iter()
                        .map(|&s| s as isize)
                        .collect();
                    let drawn = probs.expand(&dims)?.bernoulli(gen.as_ref())?;
                    slf.get().inner.copy_(&drawn)
                })?;
            }
            Err(_) => {
                let p: f64 = p.extract()?;
                run(|| slf.get().inner.bernoulli_(p, gen.as_ref()))?;
            }
        }
        Ok(slf)
    }
    /// Fills with random integers: `random_()`, `random_(to)` or `random_(from, to)`.
    #[pyo3(signature = (from_=None, to=None, *, generator=None))]
    fn random_<'py>(
        slf: Bound<'py, Self>,
        from_: Option<i64>,
        to: Option<i64>,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let gen = super::random::generator_arg(generator)?;
        let (from, to) = match (from_, to) {
            (Some(to), None) => (0, Some(to)),
            (from, to) => (from.unwrap_or(0), to),
        };
        run(|| slf.get().inner.random_(from, to, gen.as_ref()))?;
        Ok(slf)
    }

    // ----- reductions and linear algebra ----------------------------------------------------

    /// Sum of all elements, or over `dim` (NumPy's `axis=` and `keepdims=` accepted, as
    /// PyTorch accepts them).
    /// A `dim` given, even as `None` or `[]`, sums by PyTorch's `sum.dim_IntList` overload
    /// (`SumBackward1`); none given, by `sum.default` (`SumBackward0`).
    #[pyo3(
        signature = (dim=Some(None), keepdim=false, *, dtype=None, axis=Some(None), keepdims=None),
        text_signature = "(self, /, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None)"
    )]
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
    #[pyo3(signature = (dim=None, keepdim=false, *, axis=None, keepdims=None))]
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
    #[pyo3(signature = (p=None, dim=None, keepdim=false, dtype=None))]
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
    #[pyo3(signature = (other, *, out=None))]
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
    #[pyo3(signature = (mat2, *, out=None))]
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
    fn mv(&self, vec: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(vec, "mv() argument 'vec'")?;
        wrap(run(|| self.inner.mv(&o)))
    }
    /// Inner product of 1-D tensors.
    fn dot(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "dot() argument 'tensor'")?;
        wrap(run(|| self.inner.dot(&o)))
    }
    /// Outer product of 1-D tensors.
    fn outer(&self, vec2: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(vec2, "outer() argument 'vec2'")?;
        wrap(run(|| self.inner.outer(&o)))
    }

    // ----- views and copies ---------------------------------------------------------------

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
    fn t(&self) -> TResult {
        wrap(run(|| self.inner.t()))
    }
    /// The transpose (`x.T`), for tensors of at most 2 dimensions: the dimensions reversed.
    #[getter(T)]
    fn transposed(&self) -> TResult {
        wrap(run(|| self.inner.reversed_dims()))
    }
    /// The last two dimensions swapped (`x.mT`), for matrices and batches of them.
    #[getter(mT)]
    fn matrix_transposed(&self) -> TResult {
        wrap(run(|| self.inner.matrix_transpose("mT")))
    }
    /// The conjugate transpose of the last two dimensions (`x.mH`): `mT` for real tensors.
    #[getter(mH)]
    fn matrix_adjoint_batched(&self) -> TResult {
        wrap(run(|| self.inner.matrix_transpose("mH")))
    }
    /// The conjugate transpose of a matrix (`x.H`): its transpose for real tensors; a 0-d
    /// tensor comes back as it is, with PyTorch's deprecation warning.
    #[getter(H)]
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
    fn transpose(&self, dim0: isize, dim1: isize) -> TResult {
        wrap(run(|| self.inner.transpose(dim0, dim1)))
    }
    /// A view with another shape (contiguous tensors).
    #[pyo3(signature = (*shape))]
    fn view(&self, shape: &Bound<'_, PyTuple>) -> TResult {
        let shape = shape_args(shape)?;
        wrap(run(|| self.inner.view(&shape)))
    }
    /// The same elements with another shape (a view when possible).
    #[pyo3(signature = (*shape))]
    fn reshape(&self, shape: &Bound<'_, PyTuple>) -> TResult {
        let shape = shape_args(shape)?;
        wrap(run(|| self.inner.reshape(&shape)))
    }
    /// Views as `other`'s shape.
    fn view_as(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "view_as() argument 'other'")?;
        let shape: Vec<isize> = o.shape().iter().map(|&s| s as isize).collect();
        wrap(run(|| self.inner.view(&shape)))
    }
    /// Reshapes to `other`'s shape.
    fn reshape_as(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "reshape_as() argument 'other'")?;
        let shape: Vec<isize> = o.shape().iter().map(|&s| s as isize).collect();
        wrap(run(|| self.inner.reshape(&shape)))
    }
    /// Inserts a size-1 dimension.
    fn unsqueeze(&self, dim: isize) -> TResult {
        wrap(run(|| self.inner.unsqueeze(dim)))
    }
    /// Removes size-1 dimensions (all, or only `dim`).
    #[pyo3(signature = (dim=None))]
    fn squeeze(&self, dim: Option<isize>) -> TResult {
        wrap(run(|| match dim {
            Some(d) => self.inner.squeeze_dim(d),
            None => self.inner.squeeze(),
        }))
    }
    /// Broadcasts to a larger shape without copying.
    #[pyo3(signature = (*sizes))]
    fn expand(&self, sizes: &Bound<'_, PyTuple>) -> TResult {
        let sizes = shape_args(sizes)?;
        wrap(run(|| self.inner.expand(&sizes)))
    }
    /// Broadcasts to `other`'s shape.
    fn expand_as(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "expand_as() argument 'other'")?;
        let shape: Vec<isize> = o.shape().iter().map(|&s| s as isize).collect();
        wrap(run(|| self.inner.expand(&shape)))
    }
    /// `x.select(dim, index)`.
    fn select(&self, dim: isize, index: isize) -> TResult {
        wrap(run(|| self.inner.select(dim, index)))
    }
    /// `length` elements of `dim` starting at `start`.
    fn narrow(&self, dim: isize, start: isize, length: isize) -> TResult {
        wrap(run(|| self.inner.narrow(dim, start, length)))
    }
    /// A copy with its own storage, differentiable, laid out as this tensor (PyTorch's
    /// `preserve_format`) or in `memory_format`.
    #[pyo3(signature = (*, memory_format=None))]
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
    #[pyo3(signature = (memory_format=None))]
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
    fn _suggests_channels_last(&self) -> bool {
        self.inner.suggests_channels_last()
    }
    /// Whether elements are dense and row-major (or, with `memory_format`, dense in that
    /// order).
    #[pyo3(signature = (memory_format=None))]
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
    fn float(&self) -> TResult {
        wrap(run(|| self.inner.to_dtype(DType::Float32)))
    }
    /// Converts to float64.
    fn double(&self) -> TResult {
        wrap(run(|| self.inner.to_dtype(DType::Float64)))
    }
    /// Converts to int64.
    fn long(&self) -> TResult {
        wrap(run(|| self.inner.to_dtype(DType::Int64)))
    }
    /// Converts to bool.
    fn bool(&self) -> TResult {
        wrap(run(|| self.inner.to_dtype(DType::Bool)))
    }
    /// Converts to `other`'s dtype.
    fn type_as(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "type_as() argument 'other'")?;
        wrap(run(|| self.inner.to_dtype(o.dtype())))
    }
    /// This tensor on the CPU (the only device).
    fn cpu(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Reorders dimensions (a view).
    #[pyo3(signature = (*dims))]
    fn permute(&self, dims: &Bound<'_, PyTuple>) -> TResult {
        let dims = shape_args(dims)?;
        wrap(run(|| self.inner.permute(&dims)))
    }
    /// Merges dims `start_dim..=end_dim` into one.
    #[pyo3(signature = (start_dim=0, end_dim=-1))]
    fn flatten(&self, start_dim: isize, end_dim: isize) -> TResult {
        wrap(run(|| self.inner.flatten_dims(start_dim, end_dim)))
    }
    /// Splits into pieces of `split_size_or_sections` (an int, or a list of sizes) along `dim`.
    #[pyo3(signature = (split_size_or_sections, dim=0))]
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
    #[pyo3(signature = (split_sizes, dim=0))]
    fn split_with_sizes(
        &self,
        py: Python<'_>,
        split_sizes: Vec<usize>,
        dim: isize,
    ) -> PyResult<Py<PyAny>> {
        tensor_tuple(py, run(|| self.inner.split_sizes(&split_sizes, dim))?)
    }
    /// `split` whose pieces autograd does not treat as views (in-place writes are not checked).
    #[pyo3(signature = (split_size, dim=0))]
    fn unsafe_split(&self, py: Python<'_>, split_size: usize, dim: isize) -> PyResult<Py<PyAny>> {
        let parts = run(|| {
            self.inner
                .unsafe_pieces(dim, "UnsafeSplitBackward0", |t| t.split(split_size, dim))
        })?;
        tensor_tuple(py, parts)
    }
    /// `split_with_sizes` whose pieces autograd does not treat as views.
    #[pyo3(signature = (split_sizes, dim=0))]
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
    #[pyo3(signature = (chunks, dim=0))]
    fn unsafe_chunk(&self, py: Python<'_>, chunks: usize, dim: isize) -> PyResult<Py<PyAny>> {
        let parts = run(|| {
            self.inner
                .unsafe_pieces(dim, "UnsafeSplitBackward0", |t| t.chunk(chunks, dim))
        })?;
        tensor_tuple(py, parts)
    }
    /// `chunks` nearly equal pieces along `dim`.
    #[pyo3(signature = (chunks, dim=0))]
    fn chunk(&self, py: Python<'_>, chunks: i64, dim: isize) -> PyResult<Py<PyAny>> {
        if chunks <= 0 {
            return Err(PyRuntimeError::new_err(format!(
                "chunk expects `chunks` to be greater than 0, got: {chunks}"
            )));
        }
        tensor_tuple(py, run(|| self.inner.chunk(chunks as usize, dim))?)
    }
    /// The slices along `dim`.
    #[pyo3(signature = (dim=0))]
    fn unbind(&self, py: Python<'_>, dim: isize) -> PyResult<Py<PyAny>> {
        tensor_tuple(py, run(|| self.inner.unbind(dim))?)
    }
    /// Reverses the order along `dims`.
    #[pyo3(signature = (*dims))]
    fn flip(&self, dims: &Bound<'_, PyTuple>) -> TResult {
        let dims = shape_args(dims)?;
        wrap(run(|| self.inner.flip(&dims)))
    }
    /// Rotated by `k` quarter turns in the plane of `dims` (`Rot90Backward0`).
    #[pyo3(signature = (k=1, dims=vec![0, 1]))]
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
    fn repeat(&self, sizes: &Bound<'_, PyTuple>) -> TResult {
        let sizes: Vec<usize> = super::convert::size_args(sizes)?;
        wrap(run(|| self.inner.repeat(&sizes)))
    }
    /// Values of `self` at `index` along `dim` (with `sparse_grad=True`, the gradient is a
    /// sparse COO tensor).
    #[pyo3(signature = (dim, index, *, sparse_grad=false))]
    fn gather(&self, dim: isize, index: &Bound<'_, PyAny>, sparse_grad: bool) -> TResult {
        let index = tensor_arg(index, "gather() argument 'index'")?;
        wrap(run(|| self.inner.gather_as(dim, &index, sparse_grad)))
    }
    /// Slices `index` of dimension `dim`.
    fn index_select(&self, dim: isize, index: &Bound<'_, PyAny>) -> TResult {
        let index = tensor_arg(index, "index_select() argument 'index'")?;
        wrap(run(|| self.inner.index_select(dim, &index)))
    }
    /// Elements replaced by `value` where `mask` is true.
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
    /// `self` where `condition`, else `other`.
    #[pyo3(name = "where")]
    fn where_method(&self, condition: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> TResult {
        let cond = tensor_arg(condition, "where() argument 'condition'")?;
        let other = operand_tensor(other, self.inner.dtype())?;
        wrap(run(|| Tensor::where_(&cond, &self.inner, &other)))
    }
    /// Elementwise maximum.
    fn maximum(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "maximum() argument 'other'")?;
        wrap(run(|| self.inner.maximum(&o)))
    }
    /// Elementwise minimum.
    fn minimum(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "minimum() argument 'other'")?;
        wrap(run(|| self.inner.minimum(&o)))
    }
    /// Limits values to `[min, max]`.
    #[pyo3(signature = (min=None, max=None))]
    fn clamp(&self, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> TResult {
        let (min, max) = (bound_arg(min, "min")?, bound_arg(max, "max")?);
        let (min, max) = (
            min.as_ref().map(|m| m.as_operand()),
            max.as_ref().map(|m| m.as_operand()),
        );
        wrap(run(|| self.inner.clamp_bounds(min, max)))
    }
    /// `max(x, min)` (`ClampMinBackward0`).
    fn clamp_min(&self, min: f64) -> TResult {
        wrap(run(|| self.inner.clamp_min(min)))
    }
    /// `min(x, max)` (`ClampMaxBackward0`).
    fn clamp_max(&self, max: f64) -> TResult {
        wrap(run(|| self.inner.clamp_max(max)))
    }
    /// In-place `clamp_min`.
    fn clamp_min_(slf: Bound<'_, Self>, min: f64) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.unary_("clamp_min_", |x| x.clamp_min(min)))?;
        Ok(slf)
    }
    /// In-place `clamp_max`.
    fn clamp_max_(slf: Bound<'_, Self>, max: f64) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.unary_("clamp_max_", |x| x.clamp_max(max)))?;
        Ok(slf)
    }
    /// Alias of `clamp`.
    #[pyo3(signature = (min=None, max=None))]
    fn clip(&self, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> TResult {
        self.clamp(min, max)
    }
    /// In-place `clamp`.
    #[pyo3(signature = (min=None, max=None))]
    fn clamp_(
        slf: Bound<'_, Self>,
        min: Option<f64>,
        max: Option<f64>,
    ) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.unary_("clamp_", |x| x.clamp(min, max)))?;
        Ok(slf)
    }
    /// Softmax along `dim`.
    #[pyo3(signature = (dim, dtype=None))]
    fn softmax(&self, dim: isize, dtype: Option<&Bound<'_, PyAny>>) -> TResult {
        let x = cast_arg(&self.inner, dtype)?;
        wrap(run(|| x.softmax(dim)))
    }
    /// Log-softmax along `dim`.
    #[pyo3(signature = (dim, dtype=None))]
    fn log_softmax(&self, dim: isize, dtype: Option<&Bound<'_, PyAny>>) -> TResult {
        let x = cast_arg(&self.inner, dtype)?;
        wrap(run(|| x.log_softmax(dim)))
    }
    /// Product of all elements, or along `dim`.
    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn prod(&self, dim: Option<isize>, keepdim: bool, dtype: Option<&Bound<'_, PyAny>>) -> TResult {
        let x = cast_arg(&self.inner, dtype)?;
        wrap(run(|| match dim {
            None => x.prod(),
            Some(d) => x.prod_dim(d, keepdim),
        }))
    }
    /// Maximum of all elements, or `(values, indices)` along `dim`, or the elementwise maximum with a tensor.
    #[pyo3(signature = (dim=None, keepdim=false))]
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
    fn min(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        extremum(py, &self.inner, dim, keepdim, false)
    }
    /// Maximum over `dim` (an int or a tuple; all when omitted).
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn amax(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> TResult {
        let dims = dims_arg(dim)?;
        wrap(run(|| self.inner.amax(&dims, keepdim)))
    }
    /// Minimum over `dim` (an int or a tuple; all when omitted).
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn amin(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> TResult {
        let dims = dims_arg(dim)?;
        wrap(run(|| self.inner.amin(&dims, keepdim)))
    }
    /// Index of the maximum.
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmax(&self, dim: Option<isize>, keepdim: bool) -> TResult {
        wrap(run(|| self.inner.argmax(dim, keepdim)))
    }
    /// Index of the minimum.
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmin(&self, dim: Option<isize>, keepdim: bool) -> TResult {
        wrap(run(|| self.inner.argmin(dim, keepdim)))
    }
    /// Variance (unbiased by default; `correction` overrides `unbiased`).
    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
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
    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
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
    #[pyo3(signature = (dim, keepdim=false))]
    fn logsumexp(&self, dim: &Bound<'_, PyAny>, keepdim: bool) -> TResult {
        let dims = dims_arg(Some(dim))?;
        wrap(run(|| self.inner.logsumexp(&dims, keepdim)))
    }
    /// Running sum along `dim`.
    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumsum(&self, dim: isize, dtype: Option<&Bound<'_, PyAny>>) -> TResult {
        let x = cast_arg(&self.inner, dtype)?;
        wrap(run(|| x.cumsum(dim)))
    }
    /// Batched matrix product of 3-D tensors.
    #[pyo3(signature = (mat2, *, out=None))]
    fn bmm(
        slf: &Bound<'_, Self>,
        mat2: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> TResult {
        let o = tensor_arg(mat2, "bmm() argument 'mat2'")?;
        let compute = || wrap(run(|| slf.get().inner.bmm(&o)));
        with_out(slf.py(), "bmm", out, &[slf.as_any(), mat2], compute)
    }
    /// NaN test (bool tensor).
    fn isnan(&self) -> TResult {
        wrap(run(|| self.inner.isnan()))
    }
    /// Sign-bit test (bool tensor): true for negative numbers, `-0.0` and negative NaN.
    fn signbit(&self) -> TResult {
        wrap(run(|| self.inner.signbit()))
    }
    /// ±inf test (bool tensor).
    fn isinf(&self) -> TResult {
        wrap(run(|| self.inner.isinf()))
    }
    /// Finiteness test (bool tensor).
    fn isfinite(&self) -> TResult {
        wrap(run(|| self.inner.isfinite()))
    }
    /// `x²`.
    fn square(&self) -> TResult {
        wrap(run(|| self.inner.square()))
    }
    /// GELU (`approximate="none"` or `"tanh"`).
    #[pyo3(signature = (approximate="none"))]
    fn gelu(&self, approximate: &str) -> TResult {
        wrap(run(|| self.inner.gelu(approximate)))
    }
    /// SiLU, `x·σ(x)`.
    fn silu(&self) -> TResult {
        wrap(run(|| self.inner.silu()))
    }
    /// Softplus.
    #[pyo3(signature = (beta=1.0, threshold=20.0))]
    fn softplus(&self, beta: f64, threshold: f64) -> TResult {
        wrap(run(|| self.inner.softplus(beta, threshold)))
    }
    /// Leaky ReLU.
    #[pyo3(signature = (negative_slope=0.01))]
    fn leaky_relu(&self, negative_slope: f64) -> TResult {
        wrap(run(|| self.inner.leaky_relu(negative_slope)))
    }
    /// ELU.
    #[pyo3(signature = (alpha=1.0))]
    fn elu(&self, alpha: f64) -> TResult {
        wrap(run(|| self.inner.elu(alpha)))
    }
    /// Logical and of bool tensors (or truthiness of numbers).
    fn logical_and(&self, other: &Bound<'_, PyAny>) -> TResult {
        logical(&self.inner, other, LogicalOp::And)
    }
    /// Logical or.
    fn logical_or(&self, other: &Bound<'_, PyAny>) -> TResult {
        logical(&self.inner, other, LogicalOp::Or)
    }
    /// Logical exclusive or.
    fn logical_xor(&self, other: &Bound<'_, PyAny>) -> TResult {
        logical(&self.inner, other, LogicalOp::Xor)
    }
    /// Logical not.
    fn logical_not(&self) -> TResult {
        wrap(run(|| self.inner.logical_not()))
    }
    fn __invert__(&self) -> TResult {
        if self.inner.dtype().is_floating_point() {
            return Err(PyTypeError::new_err(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
            ));
        }
        wrap(run(|| self.inner.bitwise_not()))
    }
    /// `~x` as a method: logical not for bool, the bitwise complement for integers.
    fn bitwise_not(&self) -> TResult {
        wrap(run(|| self.inner.bitwise_not()))
    }
    fn __lshift__(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = operand_tensor(other, self.inner.dtype())?;
        wrap(run(|| self.inner.shift(&o, true)))
    }
    fn __rshift__(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = operand_tensor(other, self.inner.dtype())?;
        wrap(run(|| self.inner.shift(&o, false)))
    }
    /// `self << other` elementwise, for integer tensors.
    fn bitwise_left_shift(&self, other: &Bound<'_, PyAny>) -> TResult {
        self.__lshift__(other)
    }
    /// `self >> other` elementwise (arithmetic shift), for integer tensors.
    fn bitwise_right_shift(&self, other: &Bound<'_, PyAny>) -> TResult {
        self.__rshift__(other)
    }
    /// Bitwise and of integer tensors (logical and of bool ones).
    fn bitwise_and(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::And)
    }
    /// Bitwise or of integer tensors (logical or of bool ones).
    fn bitwise_or(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::Or)
    }
    /// Bitwise exclusive or of integer tensors (logical xor of bool ones).
    fn bitwise_xor(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::Xor)
    }
    fn __and__(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::And)
    }
    fn __or__(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::Or)
    }
    fn __xor__(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::Xor)
    }
    /// True if any element is true (non-zero).
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn any(&self, dim: Option<isize>, keepdim: bool) -> TResult {
        wrap(run(|| match dim {
            None => self.inner.any(),
            Some(d) => self.inner.any_dim(d, keepdim),
        }))
    }
    /// True if every element is true (non-zero).
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn all(&self, dim: Option<isize>, keepdim: bool) -> TResult {
        wrap(run(|| match dim {
            None => self.inner.all(),
            Some(d) => self.inner.all_dim(d, keepdim),
        }))
    }
    /// Registers a hook run on this tensor's gradient; it may return a replacement.
    fn register_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<PyAny>> {
        let (hook, slot) = super::functions::python_hook(hook);
        let id = run(|| self.inner.register_hook(hook))?;
        self.keep_leaf_hook(py, id, slot)
    }
    /// Registers `hook(tensor)`, called after a backward pass accumulates this leaf's `.grad`;
    /// returns a handle whose `remove()` unregisters it.
    fn register_post_accumulate_grad_hook(
        &self,
        py: Python<'_>,
        hook: Py<PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let (hook, slot) = super::functions::python_post_accumulate_hook(hook);
        let id = run(|| self.inner.register_post_accumulate_grad_hook(hook))?;
        self.keep_leaf_hook(py, id, slot)
    }
    /// Removes a hook registered with `register_hook` (used by the handle).
    fn _remove_hook(&self, id: u64) {
        self.inner.remove_hook(id);
        let mut hooks = self.hooks.lock().unwrap_or_else(|e| e.into_inner());
        hooks.retain(|(hook_id, _)| *hook_id != id); // the callable goes with the handle
        if let Some(edge) = self.inner.meta().grad_fn.clone() {
            super::node::forget_node_hook(&edge.node, id);
        }
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
        super::functions::visit_hook_slots(&self.hooks, &visit)
    }

    fn __clear__(&self) {
        if std::sync::Arc::strong_count(&self.inner.0) != 1 {
            return; // it reported nothing: the hooks may still run for another holder
        }
        super::functions::clear_hook_slots(&self.hooks);
    }

    // ----- data access --------------------------------------------------------------------

    /// The shape, as `ferrograd.Size`.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        size_object(py, self.inner.shape())
    }
    /// The shape, or the size of dimension `dim`.
    #[pyo3(signature = (dim=None))]
    fn size<'py>(&self, py: Python<'py>, dim: Option<isize>) -> PyResult<Bound<'py, PyAny>> {
        match dim {
            None => size_object(py, self.inner.shape()),
            Some(d) => {
                let d = crate::core::layout::normalize_dim(d, self.inner.dim())
                    .map_err(super::to_py_err)?;
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
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    /// Number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.dim()
    }
    /// Number of elements.
    fn numel(&self) -> usize {
        self.inner.numel()
    }
    /// Number of elements.
    fn nelement(&self) -> usize {
        self.inner.numel()
    }
    /// Element type.
    #[getter]
    fn dtype(&self, py: Python<'_>) -> PyResult<Py<super::convert::PyDType>> {
        super::convert::dtype_object(py, self.inner.dtype())
    }
    /// `device(type='cpu')`, or `device(type='meta')` for a tensor on the meta device.
    #[getter]
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
    fn is_meta(&self) -> bool {
        self.inner.is_meta()
    }
    /// Always False.
    #[getter]
    fn is_cuda(&self) -> bool {
        false
    }
    /// Always False (no XPU device).
    #[getter]
    fn is_xpu(&self) -> bool {
        false
    }
    /// Always False (no MPS device).
    #[getter]
    fn is_mps(&self) -> bool {
        false
    }
    /// Always False: no accelerator to pin memory for.
    #[pyo3(signature = (device=None))]
    fn is_pinned(&self, device: Option<&Bound<'_, PyAny>>) -> bool {
        let _ = device;
        false
    }
    /// Refused as PyTorch without an accelerator refuses it.
    #[pyo3(signature = (device=None))]
    fn pin_memory(&self, device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let _ = device;
        Err(PyRuntimeError::new_err(
            "Cannot access accelerator device when none is available.",
        ))
    }
    /// Refused as PyTorch built without CUDA refuses it.
    #[pyo3(signature = (device=None, non_blocking=false, memory_format=None))]
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
    fn is_floating_point(&self) -> bool {
        self.inner.dtype().is_floating_point()
    }
    /// The value of a one-element tensor as a Python number.
    fn item(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        scalar_to_py(py, run(|| self.inner.item())?)
    }
    /// Nested Python lists of the elements.
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
                .map_err(super::to_py_err)?
                .into_iter()
                .map(|x| scalar_to_py(py, Scalar::Bool(x)))
                .collect::<PyResult<_>>()?,
            DType::Float32 => t
                .to_vec::<f32>()
                .map_err(super::to_py_err)?
                .into_iter()
                .map(|x| scalar_to_py(py, Scalar::Float(x as f64)))
                .collect::<PyResult<_>>()?,
            DType::Float64 => t
                .to_vec::<f64>()
                .map_err(super::to_py_err)?
                .into_iter()
                .map(|x| scalar_to_py(py, Scalar::Float(x)))
                .collect::<PyResult<_>>()?,
            int => crate::with_any!(int, T => t
                .to_vec::<T>()
                .map_err(super::to_py_err)?
                .into_iter()
                .map(|x| scalar_to_py(py, Scalar::Int(crate::core::dtype::Element::to_i64(x))))
                .collect::<PyResult<_>>()?),
        };
        // (an empty tensor nests its empty lists as PyTorch's: `zeros(3, 0)` is `[[], [], []]`)
        build(py, &values, t.shape())
    }
    /// A NumPy array sharing the tensor's memory (refused while it requires grad, unless
    /// `force`).
    #[pyo3(signature = (*, force=false))]
    fn numpy<'py>(&self, py: Python<'py>, force: bool) -> PyResult<Bound<'py, PyAny>> {
        super::interop::to_numpy(py, &self.inner, force)
    }
    /// `np.asarray(t)`: the shared array of `numpy()` (converted when `dtype` is given, copied
    /// when `copy` is true).
    #[pyo3(signature = (dtype=None, copy=None))]
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
    fn __dlpack_device__(&self) -> (i32, i32) {
        (1, 0)
    }
    /// The address of the first element (shared memory reports the same address on both sides).
    fn data_ptr(&self) -> usize {
        self.inner.data_ptr() as usize
    }

    // ----- autograd -----------------------------------------------------------------------

    /// Whether gradients are computed for this tensor.
    #[getter]
    fn get_requires_grad(&self) -> bool {
        crate::autograd::refresh_view(&self.inner); // (an Invalid view still answers, as PyTorch)
        self.inner.requires_grad()
    }
    #[setter(requires_grad)]
    fn set_requires_grad_attr(&self, value: bool) -> PyResult<()> {
        run(|| self.inner.set_requires_grad(value))
    }
    /// `del x.requires_grad` is refused (with PyTorch's message).
    #[deleter(requires_grad)]
    fn delete_requires_grad(&self) -> PyResult<()> {
        Err(PyRuntimeError::new_err("requires_grad must be a bool"))
    }
    /// Sets `requires_grad` in place and returns this tensor.
    #[pyo3(signature = (requires_grad=true))]
    fn requires_grad_(slf: Bound<'_, Self>, requires_grad: bool) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.set_requires_grad(requires_grad))?;
        Ok(slf)
    }
    /// The accumulated gradient, or None.
    #[getter]
    fn get_grad(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        // (as PyTorch: only when the gradient is unset; one assigned to a non-leaf is read
        // without a warning)
        let unset = self.inner.grad().is_none();
        if unset && !self.inner.is_leaf() && !self.inner.retains_grad() {
            let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
            PyErr::warn(
                py,
                &category,
                c"The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its \
.grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field \
to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access \
the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See \
github.com/pytorch/pytorch/pull/30531 for more information.",
                1,
            )?;
        }
        self.grad_value(py)
    }
    /// The accumulated gradient, or None, without `grad`'s warning for a non-leaf tensor
    /// (PyTorch's `_grad`).
    #[getter(_grad)]
    fn get_grad_unchecked(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.grad_value(py)
    }
    /// Sets the gradient, as `grad =` does.
    #[setter(_grad)]
    fn set_grad_unchecked(&self, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.set_grad_attr(value)
    }
}

impl PyTensor {
    /// The gradient's Python object: the same object while the gradient is the same tensor.
    fn grad_value(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let cache = || self.grad_object.lock().unwrap_or_else(|e| e.into_inner());
        let Some(g) = self.inner.grad() else {
            *cache() = None;
            return Ok(None);
        };
        let kept = cache().as_ref().map(|obj| obj.clone_ref(py));
        if let Some(obj) = kept {
            let current = obj
                .bind(py)
                .cast::<PyTensor>()
                .is_ok_and(|t| t.get().inner.same(&g));
            if current {
                return Ok(Some(obj));
            }
        }
        // (made outside the lock: making an object may run Python code)
        let obj = to_object(py, g)?;
        *cache() = Some(obj.clone_ref(py));
        Ok(Some(obj))
    }
}

#[pymethods]
impl PyTensor {
    #[setter(grad)]
    fn set_grad_attr(&self, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let g = match value {
            None => None,
            Some(v) if v.is_none() => None,
            Some(v) => Some(
                v.cast::<PyTensor>()
                    .map(|t| t.get().inner.clone())
                    .map_err(|_| {
                        let kind = v
                            .get_type()
                            .name()
                            .map(|n| n.to_string())
                            .unwrap_or_default();
                        PyTypeError::new_err(format!(
                    "assigned grad expected to be a Tensor or None but got grad of type {kind}"
                ))
                    })?,
            ),
        };
        run(|| self.inner.set_grad(g))?;
        // the object of a replaced gradient is no longer kept alive
        *self.grad_object.lock().unwrap_or_else(|e| e.into_inner()) = None;
        Ok(())
    }
    /// The node that created this tensor, or None for leaves.
    #[getter]
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        refreshed_view(&self.inner)?;
        self.inner
            .grad_fn()
            .map(|node| node_object(py, node))
            .transpose()
    }
    /// True for tensors not produced by a recorded operation.
    #[getter]
    fn is_leaf(&self) -> PyResult<bool> {
        refreshed_view(&self.inner)?;
        Ok(self.inner.is_leaf())
    }
    /// Whether `retain_grad()` was called.
    #[getter]
    fn retains_grad(&self) -> bool {
        self.inner.retains_grad()
    }
    /// Number of in-place modifications of the storage (inference tensors have no counter).
    #[getter]
    fn _version(&self) -> PyResult<u64> {
        if self.inner.is_inference() {
            return Err(PyRuntimeError::new_err(
                "Inference tensors do not track version counter.",
            ));
        }
        Ok(self.inner.version())
    }
    /// Whether this tensor is a view of another (has a `_base`).
    fn _is_view(&self) -> bool {
        self.inner.base().is_some()
    }
    /// Whether this is an inference tensor (made in `inference_mode`).
    fn is_inference(&self) -> bool {
        self.inner.is_inference()
    }
    /// Always False, with PyTorch's warning (`volatile` was removed; use `no_grad`).
    #[getter]
    fn volatile(&self, py: Python<'_>) -> PyResult<bool> {
        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
        PyErr::warn(
            py,
            &category,
            c"volatile was removed (Variable.volatile is always False)",
            1,
        )?;
        Ok(false)
    }
    /// Which output of `grad_fn` this tensor is.
    #[getter]
    fn output_nr(&self) -> usize {
        self.inner.output_nr()
    }
    /// The tensor this is a view of, or None.
    #[getter]
    fn _base(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.inner
            .base()
            .cloned()
            .map(|b| to_object(py, b))
            .transpose()
    }
    /// A tensor sharing the data, detached from the graph, with a version counter of its own
    /// (autograd does not see writes through it).
    #[getter]
    fn data(&self) -> TResult {
        wrap(Ok(self.inner.data_alias()))
    }
    /// `del x.data` is refused, as PyTorch's.
    #[deleter(data)]
    fn delete_data(&self) -> PyResult<()> {
        Err(PyRuntimeError::new_err(
            "Deleting tensor data is not allowed. Delete tensor instead!",
        ))
    }
    /// The node that created this tensor (`grad_fn`'s other name, as PyTorch's).
    #[getter]
    fn _grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.grad_fn(py)
    }
    /// `x._grad_fn = None` detaches the tensor in place; other values and `del` are refused,
    /// as PyTorch's.
    #[setter(_grad_fn)]
    fn set_grad_fn_attr(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        match value.is_none() {
            true => run(|| self.inner.detach_()),
            false => Err(PyRuntimeError::new_err("_grad_fn can be only set to None")),
        }
    }
    /// `del x._grad_fn` is refused, as PyTorch's.
    #[deleter(_grad_fn)]
    fn delete_grad_fn(&self) -> PyResult<()> {
        Err(PyRuntimeError::new_err(
            "Deletion of _grad_fn not allowed. Detach tensor instead!",
        ))
    }
    /// The legacy dictionary of gradient hooks (`None` until one is set), as PyTorch's
    /// `_backward_hooks` (kept by `ferrograd._hooks`, outside the instance dictionary).
    #[getter(_backward_hooks)]
    fn backward_hooks_dict(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let hooks = slf.py().import("ferrograd._hooks")?;
        Ok(hooks.call_method1("legacy_hooks", (slf,))?.unbind())
    }
    /// `x._backward_hooks = hooks`: as PyTorch's, a leaf that requires grad calls the
    /// dictionary's hooks (in order, each may replace the gradient) before accumulating; on
    /// other tensors the dictionary is only kept (hooks go through `register_hook`).
    #[setter(_backward_hooks)]
    fn set_backward_hooks_dict(slf: &Bound<'_, Self>, hooks: &Bound<'_, PyAny>) -> PyResult<()> {
        let module = slf.py().import("ferrograd._hooks")?;
        module.call_method1("set_legacy_hooks", (slf, hooks))?;
        let inner = &slf.get().inner;
        if !hooks.is_none() && inner.is_leaf() && inner.requires_grad() {
            let runner = module.call_method1("legacy_hooks_runner", (hooks,))?;
            slf.call_method1("register_hook", (runner,))?;
        }
        Ok(())
    }
    /// `del x._backward_hooks` is refused, as PyTorch's.
    #[deleter(_backward_hooks)]
    fn delete_backward_hooks_dict(&self) -> PyResult<()> {
        Err(PyRuntimeError::new_err(
            "Deletion of _backwards_hooks not allowed!",
        ))
    }
    /// `del x.grad`: the same as `x.grad = None`.
    #[deleter(grad)]
    fn delete_grad(&self) -> PyResult<()> {
        run(|| self.inner.set_grad(None))
    }
    /// Pickling: the values, dtype, shape, `requires_grad` and class (not the graph).
    fn __reduce_ex__(slf: &Bound<'_, Self>, _protocol: i32) -> PyResult<Py<PyAny>> {
        let helpers = slf.py().import("ferrograd._serialization")?;
        Ok(helpers.call_method1("reduce_tensor", (slf,))?.unbind())
    }
    /// `copy.deepcopy`: a new leaf with copied values, `requires_grad` and `.grad`.
    fn __deepcopy__(slf: &Bound<'_, Self>, memo: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let helpers = slf.py().import("ferrograd._serialization")?;
        Ok(helpers
            .call_method1("deepcopy_tensor", (slf, memo))?
            .unbind())
    }
    /// Keeps `.grad` for this non-leaf after backward.
    fn retain_grad(&self) -> PyResult<()> {
        run(|| self.inner.retain_grad())
    }
    /// A new tensor sharing the data, with no history.
    fn detach(&self) -> TResult {
        wrap(Ok(self.inner.detach()))
    }
    /// Detaches this tensor from its history in place.
    fn detach_(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.detach_())?;
        Ok(slf)
    }
    /// Computes gradients of this tensor with respect to the graph leaves.
    #[pyo3(signature = (gradient=None, retain_graph=None, create_graph=false, inputs=None))]
    fn backward(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        if super::functions::autograd_logging() {
            // the engine's log is attached by autograd.backward (Python)
            let backward = py.import("ferrograd.autograd")?.getattr("backward")?;
            backward.call1((slf, gradient, retain_graph, create_graph, inputs))?;
            return Ok(());
        }
        let me = slf.get().inner.clone();
        let gradient = match gradient {
            Some(g) if !g.is_none() => Some(tensor_arg(g, "gradient")?),
            _ => None,
        };
        if create_graph {
            super::functions::warn_create_graph_cycle(py)?;
        }
        if let Some(inputs) = inputs.filter(|i| !i.is_none()) {
            let inputs = super::functions::tensor_list(inputs, "inputs")?;
            let (roots, gradients) = ([me], [gradient]);
            return py.detach(move || {
                run(|| {
                    crate::autograd::backward_to(
                        &roots,
                        &gradients,
                        &inputs,
                        retain_graph,
                        create_graph,
                    )
                })
            });
        }
        py.detach(move || {
            run_unnamed(|| me.backward(gradient.as_ref(), retain_graph, create_graph))
        })
    }
}

fn checked_arith(
    py: Python<'_>,
    op: BinaryOp,
    t: &Tensor,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    if operand_arg(other).is_none() {
        return Err(PyTypeError::new_err(format!(
            "expected a Tensor or a number as the operand, got {}",
            other.get_type().name()?
        )));
    }
    arith(py, op, t, other, false)
}

fn with_alpha(
    py: Python<'_>,
    op: BinaryOp,
    t: &Tensor,
    other: &Bound<'_, PyAny>,
    alpha: Option<f64>,
) -> PyResult<Py<PyAny>> {
    let Some(alpha) = alpha else {
        return checked_arith(py, op, t, other);
    };
    let o =
        operand_arg(other).ok_or_else(|| PyTypeError::new_err("expected a Tensor or a number"))?;
    let out = run_as(op.inplace_name().trim_end_matches('_'), || {
        crate::ops::arithmetic::add_scaled(op, t, o.as_operand(), alpha)
    })?;
    to_object(py, out)
}

fn inplace_alpha(
    op: BinaryOp,
    t: &Tensor,
    other: &Bound<'_, PyAny>,
    alpha: Option<f64>,
) -> PyResult<()> {
    let Some(alpha) = alpha else {
        return inplace(op, t, other);
    };
    let o =
        operand_arg(other).ok_or_else(|| PyTypeError::new_err("expected a Tensor or a number"))?;
    run(|| match o.as_operand() {
        Operand::Scalar(s) => t.binary_(op, Operand::Scalar(Scalar::Float(s.to_f64() * alpha))),
        Operand::Tensor(other) => t.binary_scaled_(op, other, alpha),
    })
}

fn tensor_tuple(py: Python<'_>, parts: Vec<Tensor>) -> PyResult<Py<PyAny>> {
    let items = parts
        .into_iter()
        .map(|t| to_object(py, t))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

/// A tensor from a tensor or number operand (numbers become 0-d tensors of `dtype`'s category).
pub(crate) fn operand_tensor(obj: &Bound<'_, PyAny>, dtype: DType) -> PyResult<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(t.get().inner.clone());
    }
    let s = scalar_arg(obj).ok_or_else(|| PyTypeError::new_err("expected a Tensor or a number"))?;
    Ok(Tensor::scalar_of(s.to_f64(), s.result_type_with(dtype)))
}

fn cast_arg(t: &Tensor, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    match dtype_arg(dtype)? {
        Some(d) => run(|| t.to_dtype(d)),
        None => Ok(t.clone()),
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

fn extremum(
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

/// A bound of `clamp`: absent (None), a number, or a tensor.
fn bound_arg(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<OwnedOperand>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => operand_arg(o).map(Some).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "clamp(): argument '{what}' must be a number or a Tensor"
            ))
        }),
    }
}

/// The value of `masked_fill`: a number, or a 0-d tensor holding one.
fn fill_value(value: &Bound<'_, PyAny>, op: &str) -> PyResult<Scalar> {
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

fn bitwise(t: &Tensor, other: &Bound<'_, PyAny>, op: LogicalOp) -> TResult {
    let o = operand_tensor(other, t.dtype())?;
    wrap(run(|| t.bitwise(op, &o)))
}

fn logical(t: &Tensor, other: &Bound<'_, PyAny>, op: LogicalOp) -> TResult {
    let o = operand_tensor(other, DType::Bool)?;
    wrap(run(|| t.logical(op, &o)))
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

/// `dim`/`keepdim` from either their names or NumPy's (`axis`, `keepdims`), which PyTorch's
/// argument parser accepts in their place; both spellings at once is refused as there.
fn numpy_names<'a, 'py>(
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
