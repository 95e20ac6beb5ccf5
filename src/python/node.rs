//! The Python view of a graph node (`tensor.grad_fn`).
//!
//! Every node kind has its own Python class named as PyTorch names it (`MulBackward0`,
//! `AccumulateGrad`, `MyFunctionBackward`), a subclass of `ferrograd.autograd.graph.Node`, so
//! `type(y.grad_fn).__name__` and `isinstance` checks work as in PyTorch. A class is made the
//! first time a node of its kind reaches Python and kept in a cache; the hot path (recording
//! ops) never touches Python.

use super::errors::run_unnamed;
use super::hooks::{clear_hook_slots, from_py_err, hook_handle, visit_hook_slots, HookSlot};
use super::tensor::{to_object, PyTensor};
use crate::autograd::{Node, NodePostHook, NodePreHook, RawSaved};
use crate::core::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use std::cell::RefCell;
use std::sync::Arc;

/// A node of the backward graph; the base class of every node kind's class.
#[pyclass(
    name = "Node",
    module = "ferrograd.autograd.graph",
    frozen,
    subclass,
    weakref
)]
pub struct PyNode {
    pub(crate) inner: Arc<Node>,
}

thread_local! {
    /// The node a class is being instantiated for (see [`node_object`]).
    static PENDING: RefCell<Option<Arc<Node>>> = const { RefCell::new(None) };
}

/// The class of each node name, made on first use.
static CLASSES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();

/// PyTorch's class for nodes of this name: `MulBackward0`, `AccumulateGrad`, ...
fn node_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    let classes = CLASSES
        .get_or_init(py, || PyDict::new(py).unbind())
        .bind(py);
    if let Some(cls) = classes.get_item(name)? {
        return Ok(cls.cast_into::<PyType>()?);
    }
    let namespace = PyDict::new(py);
    namespace.set_item("__slots__", PyTuple::empty(py))?;
    namespace.set_item("__module__", "ferrograd.autograd.graph")?;
    let base = py.get_type::<PyNode>();
    let cls = py
        .get_type::<PyType>()
        .call1((name, (base,), namespace))?
        .cast_into::<PyType>()?;
    classes.set_item(name, &cls)?;
    Ok(cls)
}

/// What the bindings keep for a node (in its core metadata slot): its `metadata` dict and the
/// Python hooks registered on it, which its Python object shows to the cycle collector (see
/// Note [Node hooks and the cycle collector]).
#[derive(Default)]
pub(crate) struct NodePyData {
    metadata: std::sync::OnceLock<Py<PyDict>>,
    hooks: std::sync::Mutex<Vec<(u64, HookSlot)>>,
    /// A custom Function's `ctx`, whose attributes the node shows as its own.
    ctx: std::sync::OnceLock<Py<PyAny>>,
}

/// Keeps `ctx` with the node of the custom Function call it served: `grad_fn.<attribute>`
/// reads `ctx.<attribute>` (PyTorch's node of a custom Function is its ctx). The backward
/// formula holds `ctx` already, so this adds no new cycle.
pub(crate) fn keep_ctx(node: &Node, ctx: Py<PyAny>) {
    if let Some(data) = py_data(node) {
        let _ = data.ctx.set(ctx);
    }
}

/// The binding's data of `node` (`None` for a node whose slot holds something else: the
/// message of an `Invalid` view node).
fn py_data(node: &Node) -> Option<Arc<NodePyData>> {
    node.metadata(|| Arc::new(NodePyData::default()))
        .downcast::<NodePyData>()
        .ok()
}

/// Keeps the slot of a Python hook registered on `node` (a node hook, or a tensor hook of one
/// of its outputs) where the cycle collector can see it.
pub(crate) fn keep_node_hook(node: &Node, id: u64, slot: HookSlot) {
    if let Some(data) = py_data(node) {
        data.hooks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, slot));
    }
}

/// Forgets the slot of hook `id` of `node` (its handle removed it).
pub(crate) fn forget_node_hook(node: &Node, id: u64) {
    if let Some(data) = node
        .try_metadata()
        .and_then(|d| d.downcast::<NodePyData>().ok())
    {
        data.hooks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(hook_id, _)| *hook_id != id);
    }
}

/// `_node_class(name)`: the class of the nodes named `name` (a custom Function's
/// `_backward_cls`).
#[pyfunction]
#[pyo3(signature = (name: "str") -> "type[Node]")]
pub(crate) fn _node_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    node_class(py, name)
}

/// The Python objects of nodes, by the node's address, while they live (a
/// `weakref.WeakValueDictionary`): the same node gives the same object, as in PyTorch.
static LIVE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The Python object of `node`: an instance of its kind's class (the same object each time
/// while one is alive).
pub(crate) fn node_object(py: Python<'_>, node: Arc<Node>) -> PyResult<Py<PyAny>> {
    let live = LIVE.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("weakref")?
            .getattr("WeakValueDictionary")?
            .call0()?
            .unbind())
    })?;
    let live = live.bind(py);
    let key = Arc::as_ptr(&node) as usize;
    if let Ok(obj) = live.call_method1("get", (key,))?.cast::<PyNode>() {
        // (a live object holds its node, so the address is still that node's)
        if Arc::ptr_eq(&obj.get().inner, &node) {
            return Ok(obj.clone().into_any().unbind());
        }
    }
    let cls = node_class(py, node.name())?;
    PENDING.with(|p| *p.borrow_mut() = Some(node));
    let obj = cls.call0();
    PENDING.with(|p| p.borrow_mut().take());
    let obj = obj?;
    live.set_item(key, &obj)?;
    Ok(obj.unbind())
}

/// PyTorch's `name()` of a node: the class name, or for the engine's own C++ nodes their
/// qualified name.
fn qualified_name(name: &str) -> String {
    match name {
        "AccumulateGrad" | "CopySlices" | "CopyBackwards" | "NotImplemented" => {
            format!("torch::autograd::{name}")
        }
        _ => name.to_string(),
    }
}

/// The gradients as a Python tuple (None where there is none).
fn grads_tuple<'py>(py: Python<'py>, grads: &[Option<Tensor>]) -> PyResult<Bound<'py, PyTuple>> {
    let items = grads
        .iter()
        .map(|g| match g {
            Some(g) => to_object(py, g.clone()),
            None => Ok(py.None()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

/// A hook's return value as replacement gradients: None keeps them, else a tuple or list of
/// tensors (or None) of the same length.
fn replacement(
    r: &Bound<'_, PyAny>,
    hook: &Bound<'_, PyAny>,
    expected: usize,
) -> PyResult<Option<Vec<Option<Tensor>>>> {
    if r.is_none() {
        return Ok(None);
    }
    let items: Vec<Bound<'_, PyAny>> = match r.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => r.try_iter()?.collect::<PyResult<_>>()?,
    };
    if items.len() != expected {
        // PyTorch's check of a node hook's result, naming the hook
        let name = hook
            .getattr("__name__")
            .and_then(|n| n.extract::<String>())
            .unwrap_or_else(|_| "<unknown>".to_string());
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "hook '{name}' has returned an incorrect number of values (got {}, but expected {expected})",
            items.len()
        )));
    }
    items
        .iter()
        .map(|item| {
            if item.is_none() {
                Ok(None)
            } else {
                super::convert::tensor_arg(item, "a gradient returned by a hook").map(Some)
            }
        })
        .collect::<PyResult<Vec<_>>>()
        .map(Some)
}

/// `object.__dir__(obj)`: the attributes Python finds on its own.
fn py_object_dir(obj: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    obj.py()
        .import("builtins")?
        .getattr("object")?
        .getattr("__dir__")?
        .call1((obj,))?
        .extract()
}

/// The callable in `slot`, unless the cycle collector cleared it (the hook then does nothing).
fn live_hook(py: Python<'_>, slot: &HookSlot) -> Option<Py<PyAny>> {
    slot.lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|h| h.clone_ref(py))
}

/// One saved slot of a node, as held (PyTorch's `torch._C._autograd.SavedTensor`, from
/// `grad_fn._raw_saved_<name>`): its packed value and hooks, and `register_hooks`.
#[pyclass(name = "SavedTensor", module = "ferrograd.autograd", frozen)]
pub struct PySavedTensor {
    node: Arc<Node>,
    index: usize,
}

#[pymethods]
impl PySavedTensor {
    /// Made only from a node's `_raw_saved_<name>`, as PyTorch's.
    #[new]
    // stub: (cls) -> SavedTensor
    fn py_new() -> PyResult<Self> {
        Err(PyRuntimeError::new_err(
            "Trying to create a SavedTensor object from Python is forbidden.",
        ))
    }

    /// What is kept: a pack hook's value, the saved input itself, or a saved output without
    /// its history; `None` where nothing was saved.
    #[getter]
    // stub: -> Any
    fn data(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match run_unnamed(|| self.node.saved_raw(self.index))? {
            RawSaved::Tensor(t) => to_object(py, t),
            RawSaved::Packed(p) => {
                Ok(packed_parts(&p).map_or_else(|| py.None(), |p| p.value.clone_ref(py)))
            }
            RawSaved::None => Ok(py.None()),
        }
    }

    /// The unpack hook of a packed saved tensor, else `None`.
    #[getter]
    // stub: -> Callable[[Any], Tensor] | None
    fn unpack_hook(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match run_unnamed(|| self.node.saved_raw(self.index))? {
            RawSaved::Packed(p) => {
                Ok(packed_parts(&p).map_or_else(|| py.None(), |p| p.unpack.clone_ref(py)))
            }
            _ => Ok(py.None()),
        }
    }

    /// Packs this saved tensor now with `pack_hook`; the backward pass reads it back through
    /// `unpack_hook` (once per saved tensor, as PyTorch).
    #[pyo3(signature = (pack_hook: "Callable[[Tensor], Any]", unpack_hook: "Callable[[Any], Tensor]") -> "None")]
    fn register_hooks(&self, pack_hook: Py<PyAny>, unpack_hook: Py<PyAny>) -> PyResult<()> {
        let hook = super::hooks::py_pack_hook(pack_hook, unpack_hook);
        run_unnamed(|| self.node.register_saved_hooks(self.index, &hook))
    }
}

/// The Python value and unpack hook of a saved tensor packed by Python hooks.
fn packed_parts(p: &Arc<dyn crate::autograd::PackedTensor>) -> Option<&super::hooks::PyPacked> {
    p.as_any().downcast_ref::<super::hooks::PyPacked>()
}

/// PyTorch's names of the saved slots of nodes whose saves are not rows of the pointwise
/// table, in the order their ops save them (`MulBackward0._saved_self`, ...).
const SAVED_NAMES: &[(&str, &[&str])] = &[
    ("MulBackward0", &["self", "other"]),
    ("DivBackward0", &["self", "other"]),
    ("PowBackward0", &["self"]),
    ("PowBackward1", &["self", "exponent", "result"]),
    ("GatherBackward0", &["self", "index"]),
    ("ThresholdBackward0", &["self"]),
    ("ThresholdBackward1", &["self"]),
];

/// The names of `node`'s saved slots, in order (empty for nodes not described).
fn saved_names(node: &str) -> &'static [&'static str] {
    if let Some((_, names)) = SAVED_NAMES.iter().find(|(n, _)| *n == node) {
        return names;
    }
    crate::ops::pointwise::unary::UNARY_SAVED_NAMES
        .iter()
        .find(|(n, name)| *n == node && !name.is_empty())
        .map_or(&[], |(_, name)| std::slice::from_ref(name))
}

impl PyNode {
    /// `name` read from the node's custom Function `ctx` (`None` when it has none, or no such
    /// attribute); `saved_tensors` unpacks the node's slots.
    fn ctx_attribute(&self, py: Python<'_>, name: &str) -> Option<PyResult<Py<PyAny>>> {
        let data = self.inner.try_metadata()?.downcast::<NodePyData>().ok()?;
        let ctx = data.ctx.get()?.bind(py);
        if name == "saved_tensors" || name == "saved_variables" {
            return Some(self.saved_tensors(py, ctx));
        }
        match ctx.getattr(name) {
            Ok(value) => Some(Ok(value.unbind())),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(py) => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// `saved_tensors` of a custom Function's node: its saved slots unpacked (through their
    /// unpack hooks; PyTorch's error once backward freed them), `None` where `ctx` saved
    /// `None`.
    fn saved_tensors(&self, py: Python<'_>, ctx: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let mut slots = 0..self.inner.saved_len();
        let mut values = Vec::new();
        for entry in ctx.getattr("to_save")?.try_iter()? {
            if entry?.is_none() {
                values.push(py.None());
                continue;
            }
            let i = slots.next().ok_or_else(|| {
                PyRuntimeError::new_err("saved_tensors: more entries than saved slots")
            })?;
            values.push(match run_unnamed(|| self.inner.saved_value(i))? {
                Some(t) => to_object(py, t)?,
                None => py.None(),
            });
        }
        Ok(PyTuple::new(py, values)?.into_any().unbind())
    }
}

#[pymethods]
impl PyNode {
    /// `grad_fn._saved_<name>`: a saved tensor, unpacked (through the unpack hook, if any) but
    /// kept; None where the op saved nothing there; PyTorch's error once backward freed it.
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let missing = || {
            pyo3::exceptions::PyAttributeError::new_err(format!(
                "'{}' object has no attribute '{name}'",
                self.inner.name()
            ))
        };
        let (raw, field) = match name.strip_prefix("_raw_saved_") {
            Some(field) => (true, field),
            None => match name.strip_prefix("_saved_") {
                Some(field) => (false, field),
                None => return self.ctx_attribute(py, name).ok_or_else(missing)?,
            },
        };
        let i = saved_names(self.inner.name())
            .iter()
            .position(|n| *n == field)
            .filter(|&i| i < self.inner.saved_len())
            .ok_or_else(missing)?;
        if raw {
            let saved = PySavedTensor {
                node: self.inner.clone(),
                index: i,
            };
            return Ok(Py::new(py, saved)?.into_any());
        }
        match run_unnamed(|| self.inner.saved_value(i))? {
            Some(t) => to_object(py, t),
            None => Ok(py.None()),
        }
    }

    /// The attributes, with the node's `_saved_<name>` and `_raw_saved_<name>` ones (graph
    /// drawers list them).
    // stub: (self) -> list[str]
    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        let base = py_object_dir(slf)?;
        let node = &slf.get().inner;
        let saved = saved_names(node.name())
            .iter()
            .take(node.saved_len())
            .flat_map(|n| [format!("_saved_{n}"), format!("_raw_saved_{n}")]);
        Ok(base.into_iter().chain(saved).collect())
    }

    /// Made only by ferrograd, for a node on its way to Python.
    #[new]
    fn py_new() -> PyResult<Self> {
        match PENDING.with(|p| p.borrow_mut().take()) {
            Some(inner) => Ok(PyNode { inner }),
            None => Err(PyTypeError::new_err(
                "graph nodes are made by ferrograd's operations and cannot be created directly",
            )),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<{} object at {:#x}>",
            self.inner.name(),
            Arc::as_ptr(&self.inner) as usize
        )
    }

    /// `grad_fn(*grads)`: the node's formula on one gradient per output of its op; the
    /// gradient of its one input, or a tuple of one per input.
    #[pyo3(signature = (*grads))]
    // stub: (self, *grads: Tensor | None) -> Any
    fn __call__(
        &self,
        py: Python<'_>,
        grads: Vec<Option<PyRef<'_, PyTensor>>>,
    ) -> PyResult<Py<PyAny>> {
        let grads: Vec<Option<Tensor>> = grads
            .iter()
            .map(|g| g.as_ref().map(|t| t.inner.clone()))
            .collect();
        let node = self.inner.clone();
        let out = py.detach(|| run_unnamed(|| node.call(&grads)))?;
        if out.len() == 1 {
            return match out.into_iter().next().flatten() {
                Some(t) => to_object(py, t),
                None => Ok(py.None()),
            };
        }
        Ok(grads_tuple(py, &out)?.into_any().unbind())
    }

    /// The node's name (`MulBackward0`; `torch::autograd::AccumulateGrad` for a leaf's node).
    #[pyo3(signature = () -> "str")]
    fn name(&self) -> String {
        qualified_name(self.inner.name())
    }

    /// The node's creation number: later nodes run first among those ready together (an
    /// AccumulateGrad's is 2**64 - 1, so it runs as soon as it is ready).
    #[pyo3(signature = () -> "int")]
    fn _sequence_nr(&self) -> u64 {
        self.inner.seq_nr()
    }

    /// Renumbers the node, moving it in the order the engine runs the nodes ready together.
    #[pyo3(signature = (sequence_nr: "int") -> "None")]
    fn _set_sequence_nr(&self, sequence_nr: u64) {
        self.inner.set_seq_nr(sequence_nr)
    }

    /// `((node, input_nr), ...)` for each input; `(None, 0)` where an input needs no gradient.
    #[getter]
    // stub: -> tuple[tuple[Node | None, int], ...]
    fn next_functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items = self
            .inner
            .next_edges()
            .iter()
            .map(|e| {
                let pair = match e {
                    Some(e) => (node_object(py, e.node.clone())?, e.input_nr),
                    None => (py.None(), 0usize),
                };
                Ok(pair.into_pyobject(py)?.into_any())
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, items)
    }

    /// The leaf tensor of an `AccumulateGrad` node.
    #[getter]
    // stub: -> Tensor
    fn variable(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = self.inner.variable().cloned().ok_or_else(|| {
            pyo3::exceptions::PyAttributeError::new_err(format!(
                "'{}' object has no attribute 'variable'",
                self.inner.name()
            ))
        })?;
        to_object(py, v)
    }

    /// A dict kept with the node, for the user's own data (empty at first).
    #[getter]
    // stub: -> dict[Any, Any]
    fn metadata(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let data = py_data(&self.inner)
            .ok_or_else(|| PyRuntimeError::new_err("node metadata of another kind"))?;
        Ok(data
            .metadata
            .get_or_init(|| PyDict::new(py).unbind())
            .clone_ref(py))
    }

    /// Registers `hook(grad_inputs, grad_outputs)`, run after the node computed the gradients
    /// of its inputs; it may return replacements for them. Returns a removable handle.
    #[pyo3(signature = (hook: "Callable[[_Grads, _Grads], Sequence[Tensor | None] | None]") -> "RemovableHandle")]
    fn register_hook(slf: &Bound<'_, Self>, hook: Py<PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let id = crate::autograd::next_hook_id();
        let slot: HookSlot = Arc::new(std::sync::Mutex::new(Some(hook)));
        let held = slot.clone();
        let post: NodePostHook = Arc::new(move |inputs, outputs| {
            Python::attach(|py| {
                let Some(hook) = live_hook(py, &held) else {
                    return Ok(None);
                };
                let call = || {
                    let args = (grads_tuple(py, inputs)?, grads_tuple(py, outputs)?);
                    replacement(hook.call1(py, args)?.bind(py), hook.bind(py), inputs.len())
                };
                call().map_err(from_py_err)
            })
        });
        slf.get().inner.add_post_hook(id, post);
        keep_node_hook(&slf.get().inner, id, slot);
        Ok(hook_handle(py)?.call1((slf, id))?.unbind())
    }

    /// Registers `hook(grad_outputs)`, run before the node on its incoming gradients; it may
    /// return replacements for them. Returns a removable handle.
    #[pyo3(signature = (hook: "Callable[[_Grads], Sequence[Tensor | None] | None]") -> "RemovableHandle")]
    fn register_prehook(slf: &Bound<'_, Self>, hook: Py<PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let id = crate::autograd::next_hook_id();
        let slot: HookSlot = Arc::new(std::sync::Mutex::new(Some(hook)));
        let held = slot.clone();
        let pre: NodePreHook = Arc::new(move |outputs| {
            Python::attach(|py| {
                let Some(hook) = live_hook(py, &held) else {
                    return Ok(None);
                };
                let call = || {
                    let result = hook.call1(py, (grads_tuple(py, outputs)?,))?;
                    replacement(result.bind(py), hook.bind(py), outputs.len())
                };
                call().map_err(from_py_err)
            })
        });
        slf.get().inner.add_node_pre_hook(id, pre);
        keep_node_hook(&slf.get().inner, id, slot);
        Ok(hook_handle(py)?.call1((slf, id))?.unbind())
    }

    /// Removes a hook registered on this node (used by the handle).
    #[pyo3(signature = (id: "int") -> "None")]
    fn _remove_hook(&self, id: u64) {
        self.inner.remove_node_hook(id);
        forget_node_hook(&self.inner, id);
    }

    // Note [Node hooks and the cycle collector]: a hook that captures the Python object of its
    // own node (`grad_fn.register_hook(lambda *g: grad_fn)`) makes a cycle through Rust. As for
    // tensors (Note [Hooks and the cycle collector]), the node's Python object reports the
    // node's hooks and metadata dict only while it is the node's only owner (no graph holds
    // the node, so nothing else can run them); clearing it empties the hooks' slots.
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if Arc::strong_count(&self.inner) != 1 {
            return Ok(());
        }
        let Some(data) = self
            .inner
            .try_metadata()
            .and_then(|d| d.downcast::<NodePyData>().ok())
        else {
            return Ok(());
        };
        if let Some(dict) = data.metadata.get() {
            visit.call(dict)?;
        }
        visit_hook_slots(&data.hooks, &visit)
    }

    fn __clear__(&self) {
        if Arc::strong_count(&self.inner) != 1 {
            return; // it reported nothing: the hooks may still run for another holder
        }
        let Some(data) = self
            .inner
            .try_metadata()
            .and_then(|d| d.downcast::<NodePyData>().ok())
        else {
            return;
        };
        clear_hook_slots(&data.hooks);
        if let Some(dict) = data.metadata.get() {
            Python::attach(|py| dict.bind(py).clear());
        }
    }

    // stub: (self, other: object, /) -> bool
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyNode>()
            .is_ok_and(|o| Arc::ptr_eq(&self.inner, &o.get().inner))
    }

    // stub: (self) -> int
    fn __hash__(&self) -> isize {
        Arc::as_ptr(&self.inner) as isize
    }
}
