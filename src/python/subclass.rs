//! Wrapper subclasses for Python: `Tensor._make_wrapper_subclass` and the handler that runs a
//! wrapper's ops through its class's `__torch_dispatch__` (Note [Tensor subclasses that
//! dispatch] in `core::dispatch`).

use super::convert::{dtype_arg, dtype_object};
use super::tensor::{to_object, PyTensor};
use super::{functions::py_type, hooks::from_py_err};
use crate::core::dispatch::{self, Arg, Call};
use crate::core::error::Result;
use crate::core::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};
use std::sync::{Arc, OnceLock};

/// The Python state of a wrapper tensor: its class, and the instance dictionary its objects
/// share (an object made again for the tensor, after the first one died, sees the same
/// attributes: the `elem` a `LoggingTensor` wraps).
pub(crate) struct PySubclass {
    cls: Py<PyType>,
    dict: OnceLock<Py<PyDict>>,
}

/// A core tensor on its way into a new object of a Python subclass (through
/// `Tensor.__new__(cls, pending)`, the only way to make an object of a Python-defined type).
#[pyclass(frozen, name = "_PendingTensor", module = "ferrograd._core")]
pub(crate) struct PendingTensor(pub(crate) Tensor);

/// A new object of `cls` (a subclass of `Tensor`) for `t`, registered as `t`'s object.
fn new_object_of(py: Python<'_>, cls: &Bound<'_, PyType>, t: Tensor) -> PyResult<Py<PyAny>> {
    let base = py.get_type::<PyTensor>();
    let obj = base.call_method1("__new__", (cls, PendingTensor(t)))?;
    obj.call_method0("_register")?;
    Ok(obj.unbind())
}

/// The object of a wrapper tensor whose object died: a new one of its class over its dictionary.
pub(crate) fn revived_object(py: Python<'_>, t: &Tensor) -> PyResult<Option<Py<PyAny>>> {
    let Some(state) = t.subclass().and_then(|s| s.downcast_ref::<PySubclass>()) else {
        return Ok(None);
    };
    let obj = new_object_of(py, state.cls.bind(py), t.clone())?;
    if let Some(dict) = state.dict.get() {
        obj.bind(py).setattr("__dict__", dict.bind(py))?;
    }
    Ok(Some(obj))
}

/// PyTorch's refusal of a class that is not a `Tensor` subclass.
fn check_tensor_class(cls: &Bound<'_, PyType>) -> PyResult<()> {
    if cls.is_subclass_of::<PyTensor>()? {
        return Ok(());
    }
    Err(PyTypeError::new_err(
        "Creating a Tensor subclass from a class that does not inherit from Tensor is not \
         possible. Make sure your class inherits from Tensor.",
    ))
}

#[pymethods]
impl PyTensor {
    /// `Tensor._make_subclass(cls, data, require_grad=False)`: an object of `cls` sharing
    /// `data`'s elements (and version counter) as a new leaf, requiring grad if asked.
    #[staticmethod]
    #[pyo3(signature = (cls, data, require_grad=false, dispatch_sizes_strides_policy=None,
        dispatch_device=false, dispatch_layout=false))]
    // stub: (
    //     cls: type[Any],
    //     data: Tensor,
    //     require_grad: bool = False,
    //     dispatch_sizes_strides_policy: Any = None,
    //     dispatch_device: bool = False,
    //     dispatch_layout: bool = False,
    // ) -> Any
    fn _make_subclass(
        py: Python<'_>,
        cls: &Bound<'_, PyType>,
        data: &Bound<'_, PyTensor>,
        require_grad: bool,
        dispatch_sizes_strides_policy: Option<Bound<'_, PyAny>>,
        dispatch_device: bool,
        dispatch_layout: bool,
    ) -> PyResult<Py<PyAny>> {
        let _ = (
            dispatch_sizes_strides_policy,
            dispatch_device,
            dispatch_layout,
        );
        check_tensor_class(cls)?;
        let t = data.get().inner.detach();
        super::errors::run(|| t.set_requires_grad(require_grad))?;
        new_object_of(py, cls, t)
    }

    /// `x.as_subclass(cls)`: this tensor as an object of `cls` (an alias sharing its elements;
    /// gradients flow back through `AliasBackward0`).
    #[pyo3(signature = (cls: "type[Any]") -> "Any")]
    fn as_subclass(&self, py: Python<'_>, cls: &Bound<'_, PyType>) -> PyResult<Py<PyAny>> {
        check_tensor_class(cls)?;
        let t = super::errors::run(|| self.inner.alias())?;
        new_object_of(py, cls, t)
    }

    /// `Tensor._make_wrapper_subclass(cls, size, strides=None, storage_offset=0, dtype=None,
    /// ..., requires_grad=False)`: an object of `cls` with that shape and dtype and no
    /// elements, whose ops go to `cls.__torch_dispatch__`.
    #[staticmethod]
    #[pyo3(signature = (cls, size, strides=None, storage_offset=None, memory_format=None, dtype=None,
        layout=None, device=None, pin_memory=false, requires_grad=false, dispatch_sizes_strides_policy=None,
        dispatch_device=false, dispatch_layout=false, _extra_dispatch_keys=None, storage_size=None))]
    #[allow(clippy::too_many_arguments)]
    // stub: (
    //     cls: type[Any],
    //     size: Sequence[int],
    //     strides: Sequence[int] | None = None,
    //     storage_offset: int | None = None,
    //     memory_format: Any = None,
    //     dtype: Any = None,
    //     layout: Any = None,
    //     device: Any = None,
    //     pin_memory: bool = False,
    //     requires_grad: bool = False,
    //     dispatch_sizes_strides_policy: Any = None,
    //     dispatch_device: bool = False,
    //     dispatch_layout: bool = False,
    //     _extra_dispatch_keys: Any = None,
    //     storage_size: Any = None,
    // ) -> Any
    fn _make_wrapper_subclass(
        py: Python<'_>,
        cls: &Bound<'_, PyType>,
        size: Vec<usize>,
        strides: Option<Vec<isize>>,
        storage_offset: Option<usize>,
        memory_format: Option<Bound<'_, PyAny>>,
        dtype: Option<Bound<'_, PyAny>>,
        layout: Option<Bound<'_, PyAny>>,
        device: Option<Bound<'_, PyAny>>,
        pin_memory: bool,
        requires_grad: bool,
        dispatch_sizes_strides_policy: Option<Bound<'_, PyAny>>,
        dispatch_device: bool,
        dispatch_layout: bool,
        _extra_dispatch_keys: Option<Bound<'_, PyAny>>,
        storage_size: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = (memory_format, layout, device, pin_memory, storage_size);
        let _ = (
            dispatch_sizes_strides_policy,
            dispatch_device,
            dispatch_layout,
        );
        check_tensor_class(cls)?;
        let dtype = dtype_arg(dtype.as_ref())?.unwrap_or_else(crate::core::dtype::default_float);
        let strides = strides.unwrap_or_else(|| {
            crate::core::layout::Layout::contiguous(&size)
                .strides
                .to_vec()
        });
        let state: Arc<PySubclass> = Arc::new(PySubclass {
            cls: cls.clone().unbind(),
            dict: OnceLock::new(),
        });
        let t = super::errors::run(|| {
            Tensor::wrapper(
                &size,
                &strides,
                storage_offset.unwrap_or(0),
                dtype,
                state.clone(),
            )
        })?;
        super::errors::run(|| t.set_requires_grad(requires_grad))?;
        let obj = new_object_of(py, cls, t)?;
        if let Ok(dict) = obj.bind(py).getattr("__dict__") {
            if let Ok(dict) = dict.cast_into::<PyDict>() {
                let _ = state.dict.set(dict.unbind());
            }
        }
        Ok(obj)
    }
}

/// Installs [`handle`] as the core's dispatch handler.
/// Also keeps the refusal of a wrapper's elements (a panic the bindings catch and raise as an
/// exception) out of the panic message printed on stderr.
pub(crate) fn install() {
    dispatch::set_handler(handle);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<crate::core::storage::NoElements>() {
            previous(info);
        }
    }));
}

/// A dispatched call's argument as Python sees it.
fn arg_object(py: Python<'_>, a: &Arg) -> PyResult<Py<PyAny>> {
    Ok(match a {
        Arg::Tensor(t) => to_object(py, t.clone())?,
        Arg::Tensors(ts) => {
            let items = ts
                .iter()
                .map(|t| to_object(py, t.clone()))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Arg::Int(v) => v.into_pyobject(py)?.into_any().unbind(),
        Arg::Float(v) => v.into_pyobject(py)?.into_any().unbind(),
        Arg::Bool(v) => v.into_pyobject(py)?.to_owned().into_any().unbind(),
        Arg::Ints(v) => PyList::new(py, v)?.into_any().unbind(),
        Arg::DType(d) => dtype_object(py, *d)?.into_any(),
        Arg::Str(name) => py.import("ferrograd")?.getattr(*name)?.unbind(),
        Arg::None => py.None(),
    })
}

/// The classes of the wrapper tensors among `args`, each once, in order (PyTorch's `types`).
fn subclass_types(py: Python<'_>, args: &[&Arg], out: &mut Vec<Py<PyType>>) {
    let mut add = |t: &Tensor| {
        if let Some(state) = t.subclass().and_then(|s| s.downcast_ref::<PySubclass>()) {
            if !out.iter().any(|c| c.is(&state.cls)) {
                out.push(state.cls.clone_ref(py));
            }
        }
    };
    for a in args {
        match a {
            Arg::Tensor(t) => add(t),
            Arg::Tensors(ts) => ts.iter().for_each(&mut add),
            _ => {}
        }
    }
}

/// The core's dispatch handler: calls `__torch_dispatch__` of the wrapper classes among the
/// arguments (in order, until one does not return `NotImplemented`) with
/// `torch.ops.aten.<op>` and the arguments, and returns the tensors it gave back.
fn handle(call: &Call) -> Result<Vec<Tensor>> {
    Python::attach(|py| dispatch_call(py, call)).map_err(from_py_err)
}

fn dispatch_call(py: Python<'_>, call: &Call) -> PyResult<Vec<Tensor>> {
    let all: Vec<&Arg> = call
        .args
        .iter()
        .chain(call.kwargs.iter().map(|(_, a)| a))
        .collect();
    let on_meta = |a: &&Arg| match a {
        Arg::Tensor(t) => t.is_meta(),
        Arg::Tensors(ts) => ts.iter().any(Tensor::is_meta),
        _ => false,
    };
    if all.iter().any(on_meta) {
        return meta_call(py, call);
    }
    let mut classes = Vec::new();
    subclass_types(py, &all, &mut classes);
    let args = call
        .args
        .iter()
        .map(|a| arg_object(py, a))
        .collect::<PyResult<Vec<_>>>()?;
    let args = PyTuple::new(py, args)?;
    let kwargs = PyDict::new(py);
    for (name, a) in &call.kwargs {
        kwargs.set_item(name, arg_object(py, a)?)?;
    }
    let func = py_type(py, "op_overload")?.call1((call.op,))?;
    let types = PyTuple::new(py, classes.iter().map(|c| c.bind(py)))?;
    for cls in &classes {
        let cls = cls.bind(py);
        let Ok(method) = cls.getattr("__torch_dispatch__") else {
            continue;
        };
        let out = method.call1((&func, &types, &args, &kwargs))?;
        if out.is(py.NotImplemented()) {
            continue;
        }
        return tensors_of(&out, call.op);
    }
    Err(PyTypeError::new_err(format!(
        "Multiple dispatch failed for 'aten::{}'; all __torch_dispatch__ handlers returned NotImplemented",
        call.op
    )))
}

/// A call with a tensor on the meta device: `ferrograd._meta._dispatch(func, args, kwargs)`
/// gives its outputs, shapes without values (Note [The meta device]).
fn meta_call(py: Python<'_>, call: &Call) -> PyResult<Vec<Tensor>> {
    let args = call
        .args
        .iter()
        .map(|a| arg_object(py, a))
        .collect::<PyResult<Vec<_>>>()?;
    let kwargs = PyDict::new(py);
    for (name, a) in &call.kwargs {
        kwargs.set_item(name, arg_object(py, a)?)?;
    }
    let func = py_type(py, "op_overload")?.call1((call.op,))?;
    let out = py.import("ferrograd._meta")?.getattr("_dispatch")?.call1((
        func,
        PyTuple::new(py, args)?,
        kwargs,
    ))?;
    tensors_of(&out, call.op)
}

/// The tensors a `__torch_dispatch__` returned: one tensor, or a tuple or list of them.
fn tensors_of(out: &Bound<'_, PyAny>, op: &str) -> PyResult<Vec<Tensor>> {
    if let Ok(t) = out.cast::<PyTensor>() {
        return Ok(vec![t.get().inner.clone()]);
    }
    if let Some(s) = super::convert::scalar_arg(out) {
        // a number (`_local_scalar_dense`, what `item()` dispatches): as a 0-d tensor
        return Ok(vec![match s {
            crate::core::dtype::Scalar::Bool(b) => Tensor::scalar(b),
            crate::core::dtype::Scalar::Int(i) => Tensor::scalar(i),
            crate::core::dtype::Scalar::Float(f) => Tensor::scalar(f),
        }]);
    }
    let items: Vec<Bound<'_, PyAny>> = match (out.cast::<PyTuple>(), out.cast::<PyList>()) {
        (Ok(t), _) => t.iter().collect(),
        (_, Ok(l)) => l.iter().collect(),
        _ => {
            return Err(PyRuntimeError::new_err(format!(
                "__torch_dispatch__ for aten::{op} returned {}, not a Tensor",
                out.get_type().name()?
            )))
        }
    };
    items
        .iter()
        .map(|o| match o.cast::<PyTensor>() {
            Ok(t) => Ok(t.get().inner.clone()),
            Err(_) => Err(PyRuntimeError::new_err(format!(
                "__torch_dispatch__ for aten::{op} returned a {} among its outputs, not a Tensor",
                o.get_type().name()?
            ))),
        })
        .collect()
}

/// `_core._meta_tensor(size, strides, dtype, requires_grad)`: a tensor on the meta device.
#[pyfunction]
#[pyo3(signature = (size: "list[int]", strides: "list[int]", dtype: "Any", requires_grad: "bool" = false) -> "Tensor")]
pub(crate) fn _meta_tensor(
    py: Python<'_>,
    size: Vec<usize>,
    strides: Vec<isize>,
    dtype: Bound<'_, PyAny>,
    requires_grad: bool,
) -> PyResult<Py<PyAny>> {
    let dtype = dtype_arg(Some(&dtype))?.unwrap_or_else(crate::core::dtype::default_float);
    let t = super::errors::run(|| Tensor::on_meta(&size, &strides, 0, dtype))?;
    super::errors::run(|| t.set_requires_grad(requires_grad))?;
    to_object(py, t)
}
