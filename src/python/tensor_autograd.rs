//! `Tensor`'s autograd surface: `grad`, `grad_fn`, `requires_grad`, hooks, `backward`.

use super::convert::tensor_arg;
use super::errors::{run, run_unnamed};
use super::node::node_object;
use super::tensor::{refreshed_view, to_object, wrap, PyTensor, TResult};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    /// Registers a hook run on this tensor's gradient; it may return a replacement.
    #[pyo3(signature = (hook: "_Hook") -> "RemovableHandle")]
    fn register_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<PyAny>> {
        let (hook, slot) = super::hooks::python_hook(hook);
        let id = run(|| self.inner.register_hook(hook))?;
        self.keep_leaf_hook(py, id, slot)
    }

    /// Registers `hook(tensor)`, called after a backward pass accumulates this leaf's `.grad`;
    /// returns a handle whose `remove()` unregisters it.
    #[pyo3(signature = (hook: "Any") -> "Any")]
    fn register_post_accumulate_grad_hook(
        &self,
        py: Python<'_>,
        hook: Py<PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let (hook, slot) = super::hooks::python_post_accumulate_hook(hook);
        let id = run(|| self.inner.register_post_accumulate_grad_hook(hook))?;
        self.keep_leaf_hook(py, id, slot)
    }

    /// Removes a hook registered with `register_hook` (used by the handle).
    #[pyo3(signature = (id: "int") -> "None")]
    fn _remove_hook(&self, id: u64) {
        self.inner.remove_hook(id);
        let mut hooks = self.hooks.lock().unwrap_or_else(|e| e.into_inner());
        hooks.retain(|(hook_id, _)| *hook_id != id); // the callable goes with the handle
        if let Some(edge) = self.inner.meta().grad_fn.clone() {
            super::node::forget_node_hook(&edge.node, id);
        }
    }

    /// Whether gradients are computed for this tensor.
    #[getter]
    // stub: -> bool
    fn get_requires_grad(&self) -> bool {
        crate::autograd::refresh_view(&self.inner); // (an Invalid view still answers, as PyTorch)
        self.inner.requires_grad()
    }

    #[setter(requires_grad)]
    // stub: (self, value: bool) -> None
    fn set_requires_grad_attr(&self, value: bool) -> PyResult<()> {
        run(|| self.inner.set_requires_grad(value))
    }

    /// `del x.requires_grad` is refused (with PyTorch's message).
    #[deleter(requires_grad)]
    fn delete_requires_grad(&self) -> PyResult<()> {
        Err(PyRuntimeError::new_err("requires_grad must be a bool"))
    }

    /// Sets `requires_grad` in place and returns this tensor.
    #[pyo3(signature = (requires_grad: "bool" = true) -> "Self")]
    fn requires_grad_(slf: Bound<'_, Self>, requires_grad: bool) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.set_requires_grad(requires_grad))?;
        Ok(slf)
    }

    /// The accumulated gradient, or None.
    #[getter]
    // stub: -> Tensor | None
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
    // stub: -> Tensor | None
    fn get_grad_unchecked(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.grad_value(py)
    }

    /// Sets the gradient, as `grad =` does.
    #[setter(_grad)]
    // stub: (self, value: Tensor | None) -> None
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
    // stub: (self, value: Tensor | None) -> None
    // stub deleter: (self) -> None
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
    // stub: -> Node | None
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        refreshed_view(&self.inner)?;
        self.inner
            .grad_fn()
            .map(|node| node_object(py, node))
            .transpose()
    }
    /// True for tensors not produced by a recorded operation.
    #[getter]
    // stub: -> bool
    fn is_leaf(&self) -> PyResult<bool> {
        refreshed_view(&self.inner)?;
        Ok(self.inner.is_leaf())
    }
    /// Whether `retain_grad()` was called.
    #[getter]
    // stub: -> bool
    fn retains_grad(&self) -> bool {
        self.inner.retains_grad()
    }
    /// Number of in-place modifications of the storage (inference tensors have no counter).
    #[getter]
    // stub: -> int
    fn _version(&self) -> PyResult<u64> {
        if self.inner.is_inference() {
            return Err(PyRuntimeError::new_err(
                "Inference tensors do not track version counter.",
            ));
        }
        Ok(self.inner.version())
    }
    /// Whether this tensor is a view of another (has a `_base`).
    #[pyo3(signature = () -> "bool")]
    fn _is_view(&self) -> bool {
        self.inner.base().is_some()
    }
    /// Whether this is an inference tensor (made in `inference_mode`).
    #[pyo3(signature = () -> "bool")]
    fn is_inference(&self) -> bool {
        self.inner.is_inference()
    }
    /// Always False, with PyTorch's warning (`volatile` was removed; use `no_grad`).
    #[getter]
    // stub: -> bool
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
    // stub: -> int
    fn output_nr(&self) -> usize {
        self.inner.output_nr()
    }
    /// The tensor this is a view of, or None.
    #[getter]
    // stub: -> Tensor | None
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
    // stub: -> Tensor
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
    // stub: -> Node | None
    fn _grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.grad_fn(py)
    }
    /// `x._grad_fn = None` detaches the tensor in place; other values and `del` are refused,
    /// as PyTorch's.
    #[setter(_grad_fn)]
    // stub: (self, value: None) -> None
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
    // stub: -> Any
    fn backward_hooks_dict(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let hooks = slf.py().import("ferrograd._hooks")?;
        Ok(hooks.call_method1("legacy_hooks", (slf,))?.unbind())
    }
    /// `x._backward_hooks = hooks`: as PyTorch's, a leaf that requires grad calls the
    /// dictionary's hooks (in order, each may replace the gradient) before accumulating; on
    /// other tensors the dictionary is only kept (hooks go through `register_hook`).
    #[setter(_backward_hooks)]
    // stub: (self, hooks: Any) -> None
    // stub deleter: (self) -> None
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
    // stub: (self, _protocol: SupportsIndex, /) -> Any
    fn __reduce_ex__(slf: &Bound<'_, Self>, _protocol: i32) -> PyResult<Py<PyAny>> {
        let helpers = slf.py().import("ferrograd._serialization")?;
        Ok(helpers.call_method1("reduce_tensor", (slf,))?.unbind())
    }
    /// `copy.deepcopy`: a new leaf with copied values, `requires_grad` and `.grad`.
    // stub: (self, memo: Any) -> Any
    fn __deepcopy__(slf: &Bound<'_, Self>, memo: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let helpers = slf.py().import("ferrograd._serialization")?;
        Ok(helpers
            .call_method1("deepcopy_tensor", (slf, memo))?
            .unbind())
    }
    /// Keeps `.grad` for this non-leaf after backward.
    #[pyo3(signature = () -> "None")]
    fn retain_grad(&self) -> PyResult<()> {
        run(|| self.inner.retain_grad())
    }
    /// A new tensor sharing the data, with no history.
    #[pyo3(signature = () -> "Tensor")]
    fn detach(&self) -> TResult {
        wrap(Ok(self.inner.detach()))
    }
    /// Detaches this tensor from its history in place.
    #[pyo3(signature = () -> "Self")]
    fn detach_(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.detach_())?;
        Ok(slf)
    }
    /// Computes gradients of this tensor with respect to the graph leaves.
    #[pyo3(signature = (gradient: "Tensor | None" = None, retain_graph: "bool | None" = None, create_graph: "bool" = false, inputs: "_Tensors | None" = None) -> "None")]
    fn backward(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        if super::settings::autograd_logging() {
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
            super::settings::warn_create_graph_cycle(py)?;
        }
        if let Some(inputs) = inputs.filter(|i| !i.is_none()) {
            let inputs = super::convert::tensor_list(inputs, "inputs")?;
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
