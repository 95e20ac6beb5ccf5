//! Python callables the engine calls: tensor and post-accumulate hooks, saved-tensor pack
//! hooks, write observers and custom `autograd.Function` nodes.

use super::convert::tensor_arg;
use super::errors::run;
use super::functions::py_type;
use super::tensor::{to_object, PyTensor};
use crate::autograd::{record_custom, CustomBackward, CustomCall, Hook};
use crate::core::error::Error;
use crate::core::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

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
    // stub: (self, *args: Any, **kwargs: Any) -> list[Tensor]
    fn __call__(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        let guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let saved = guard.as_ref().ok_or_else(|| {
            pyo3::exceptions::PyRuntimeError::new_err(
                "saved tensors can only be read while the Function's backward runs",
            )
        })?;
        let tensors = super::errors::run_unnamed(|| saved.unpack())?;
        tensors.into_iter().map(|t| to_object(py, t)).collect()
    }

    #[pyo3(signature = () -> "None")]
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
#[pyo3(signature = (pack_hook: "Any", unpack_hook: "Any") -> "None")]
pub(crate) fn _push_saved_tensors_hooks(pack_hook: Py<PyAny>, unpack_hook: Py<PyAny>) {
    crate::autograd::push_saved_tensors_hooks(Some(py_pack_hook(pack_hook, unpack_hook)));
}

/// Removes the innermost saved-tensor hooks of this thread.
#[pyfunction]
#[pyo3(signature = () -> "None")]
pub(crate) fn _pop_saved_tensors_hooks() {
    crate::autograd::pop_saved_tensors_hooks();
}

/// Installs (or, with `None`, removes) this thread's observer of in-place writes: called with
/// each tensor an in-place op is about to write into (Note [Observing in-place writes]);
/// `autograd.graph.allow_mutation_on_saved_tensors` clones saved tensors with it.
#[pyfunction]
#[pyo3(signature = (observer: "Callable[[Tensor], object] | None") -> "None")]
pub(crate) fn _set_write_observer(observer: Option<Py<PyAny>>) {
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
// Records a custom `autograd.Function` call: a node named `name` whose backward calls
// `backward(grads, saved)` in Python; the node shows `ctx`'s attributes. `positions` are the
// indices of the tensor arguments among the `n_args` arguments of `apply`; `differentiable` and
// `dirty` (`ctx.mark_dirty`) have one flag per output.
// stub: (
//     name: str,
//     n_args: int,
//     positions: Sequence[int],
//     inputs: Sequence[Tensor],
//     outputs: Sequence[Tensor],
//     output_slots: Sequence[int],
//     n_slots: int,
//     differentiable: Sequence[bool],
//     dirty: Sequence[bool],
//     saved: Sequence[Tensor],
//     backward: Callable[[tuple[Tensor | None, ...], list[Tensor]], _FunctionGrads],
//     materialize_grads: bool,
//     ctx: Any = None,
// ) -> tuple[Tensor, ...]
pub(crate) fn _record_function(
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
