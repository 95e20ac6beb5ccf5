//! A node's extras: the rarely used parts (hooks, retained gradients, anomaly-mode traces,
//! a binding's metadata, the outputs' metadata), kept behind one lazily made box so that a
//! plain node stays small, and the node's methods that read and write them.

use super::{replace_grads, Edge, InputMeta, Node, NodePostHook, NodePreHook};
use crate::core::error::Result;
use crate::core::tensor::{Tensor, TensorImpl};
use std::sync::{Arc, Weak};

/// A tensor hook: sees the gradient flowing into a tensor and may return a replacement. It is
/// called with `None` when the node producing the tensor runs without a gradient for it (a
/// sibling output of a multi-output op, such as `unbind`, was used), as PyTorch does.
pub type Hook = Arc<dyn Fn(Option<&Tensor>) -> Result<Option<Tensor>> + Send + Sync>;

/// The rarely used parts of a node.
#[derive(Default)]
pub(super) struct Extras {
    /// Non-leaf outputs that `retain_grad()`: (output number, the tensor).
    pub(super) retained: Vec<(usize, Weak<TensorImpl>)>,
    /// Tensor hooks on the outputs: (handle id, output number, hook).
    pub(super) pre_hooks: Vec<(u64, usize, Hook)>,
    /// Hooks on the node itself, run on all its incoming gradients after the tensor hooks.
    pub(super) node_pre_hooks: Vec<(u64, NodePreHook)>,
    /// Hooks run after the node's formula, on (gradients of the inputs, incoming gradients).
    pub(super) post_hooks: Vec<(u64, NodePostHook)>,
    /// What a binding keeps for the node (Python's `grad_fn.metadata` dict).
    pub(super) metadata: Option<Arc<dyn std::any::Any + Send + Sync>>,
    /// Where the node was made, captured in anomaly mode (see `autograd::anomaly`).
    pub(super) forward_trace: Option<String>,
    /// The node whose backward made this one, in anomaly mode (PyTorch's anomaly `parent_`).
    pub(super) anomaly_parent: Option<Arc<Node>>,
    /// How many outputs the forward op had, when more than one (kept here, not in every
    /// node: few ops have several).
    pub(super) n_outputs: Option<u32>,
    /// Shape and dtype of the outputs a gradient edge was taken of (see
    /// [`Node::record_output_meta`]): (output number, its metadata).
    pub(super) output_meta: Vec<(usize, InputMeta)>,
}

impl Node {
    /// The node's extras, created on first use.
    pub(super) fn extras_mut(&self) -> parking_lot::MutexGuard<'_, Extras> {
        self.extras.get_or_init(Box::default).lock()
    }

    pub(crate) fn add_pre_hook(&self, id: u64, output_nr: usize, hook: Hook) {
        self.extras_mut().pre_hooks.push((id, output_nr, hook));
    }

    pub(crate) fn remove_pre_hook(&self, id: u64) {
        if let Some(extras) = self.extras.get() {
            extras.lock().pre_hooks.retain(|(h, _, _)| *h != id);
        }
    }

    /// Runs the tensor hooks registered on this node's outputs over the incoming gradients.
    pub(crate) fn run_pre_hooks(&self, grads: &mut [Option<Tensor>]) -> Result<()> {
        let Some(extras) = self.extras.get() else {
            return Ok(());
        };
        // a copy, so the lock is not held while hooks run (they may register more)
        let hooks = extras.lock().pre_hooks.clone();
        for (_, output_nr, hook) in hooks {
            // an output without a gradient (a sibling of a multi-output op was used, or an
            // undefined gradient arrived) still calls its hooks, with None, as PyTorch; they
            // cannot make one up
            let replacement = hook(grads.get(output_nr).and_then(Option::as_ref))?;
            let had = grads.get(output_nr).is_some_and(Option::is_some);
            match (replacement, had) {
                (Some(new), true) => grads[output_nr] = Some(new),
                (Some(_), false) => {
                    return Err(crate::Error::runtime(
                        "can't replace a None gradient with a non-None value",
                    ))
                }
                (None, _) => {}
            }
        }
        Ok(())
    }

    /// Adds a hook run on the node's incoming gradients (after the tensors' hooks).
    pub fn add_node_pre_hook(&self, id: u64, hook: NodePreHook) {
        self.extras_mut().node_pre_hooks.push((id, hook));
    }

    /// Adds a hook run after the node's formula.
    pub fn add_post_hook(&self, id: u64, hook: NodePostHook) {
        self.extras_mut().post_hooks.push((id, hook));
    }

    /// Removes the node hook (pre or post) with handle `id`.
    pub fn remove_node_hook(&self, id: u64) {
        if let Some(extras) = self.extras.get() {
            let mut extras = extras.lock();
            extras.node_pre_hooks.retain(|(h, _)| *h != id);
            extras.post_hooks.retain(|(h, _)| *h != id);
        }
    }

    /// Whether post-hooks will read the incoming gradients after the formula ran (which then
    /// must not write over them).
    pub(crate) fn has_post_hooks(&self) -> bool {
        self.extras
            .get()
            .is_some_and(|e| !e.lock().post_hooks.is_empty())
    }

    /// Runs the node's own pre-hooks over its incoming gradients.
    pub(crate) fn run_node_pre_hooks(
        &self,
        grads: &mut crate::autograd::accumulate::Grads,
    ) -> Result<()> {
        let Some(extras) = self.extras.get() else {
            return Ok(());
        };
        let (hooks, n_outputs): (Vec<NodePreHook>, _) = {
            let extras = extras.lock();
            let hooks = extras.node_pre_hooks.iter().map(|(_, h)| h.clone());
            (hooks.collect(), extras.n_outputs.map_or(1, |n| n as usize))
        };
        if hooks.is_empty() {
            return Ok(());
        }
        // one gradient per output, None for those that did not arrive, as PyTorch's hooks see
        if grads.len() < n_outputs {
            grads.resize(n_outputs, None);
        }
        for hook in hooks {
            if let Some(new) = hook(grads)? {
                replace_grads(grads, new, "prehook")?;
            }
        }
        Ok(())
    }

    /// Runs the node's post-hooks over the gradients it computed (`outputs`) and received.
    pub(crate) fn run_post_hooks(
        &self,
        outputs: &mut [Option<Tensor>],
        seen: &[Option<Tensor>],
    ) -> Result<()> {
        let Some(extras) = self.extras.get() else {
            return Ok(());
        };
        let hooks: Vec<NodePostHook> = extras
            .lock()
            .post_hooks
            .iter()
            .map(|(_, h)| h.clone())
            .collect();
        for hook in hooks {
            if let Some(new) = hook(outputs, seen)? {
                replace_grads(outputs, new, "hook")?;
            }
        }
        Ok(())
    }

    /// Where the node was made, if it was made in anomaly mode.
    pub fn forward_trace(&self) -> Option<String> {
        self.extras
            .get()
            .and_then(|e| e.lock().forward_trace.clone())
    }

    /// Remembers where the node was made (anomaly mode).
    pub(crate) fn set_forward_trace(&self, trace: String) {
        self.extras_mut().forward_trace = Some(trace);
    }

    /// The node whose backward made this one, if it was made by a backward in anomaly mode.
    pub fn anomaly_parent(&self) -> Option<Arc<Node>> {
        self.extras
            .get()
            .and_then(|e| e.lock().anomaly_parent.clone())
    }

    /// Remembers the node whose backward made this one (anomaly mode).
    pub(crate) fn set_anomaly_parent(&self, parent: Arc<Node>) {
        self.extras_mut().anomaly_parent = Some(parent);
    }

    /// The binding's data for this node, made by `make` on first use.
    pub fn metadata(
        &self,
        make: impl FnOnce() -> Arc<dyn std::any::Any + Send + Sync>,
    ) -> Arc<dyn std::any::Any + Send + Sync> {
        self.extras_mut().metadata.get_or_insert_with(make).clone()
    }

    /// The binding's value for the node, if it has one and the node is not locked (for a
    /// cycle collector, which must not wait).
    pub fn try_metadata(&self) -> Option<Arc<dyn std::any::Any + Send + Sync>> {
        self.extras.get()?.try_lock()?.metadata.clone()
    }

    pub(crate) fn add_retained_grad(&self, output_nr: usize, tensor: Weak<TensorImpl>) {
        self.extras_mut().retained.push((output_nr, tensor));
    }

    /// Makes this in-place op's saved output the tensor it wrote into (see
    /// [`SavedVariable::rebind_output`]).
    pub(crate) fn rebind_saved_output(&self, to: &Tensor, view_history: Option<&Edge>) {
        for saved in &self.saved {
            saved.rebind_output(to, view_history);
        }
    }

    /// Stops storing this node's gradient into `tensor`'s `.grad` (its history moved on).
    pub(crate) fn remove_retained_grad(&self, tensor: &Weak<TensorImpl>) {
        if let Some(extras) = self.extras.get() {
            extras.lock().retained.retain(|(_, w)| !w.ptr_eq(tensor));
        }
    }

    /// Stores the gradients of retained non-leaf outputs into their `.grad`.
    pub(crate) fn store_retained_grads(&self, grads: &[Option<Tensor>]) -> Result<()> {
        let Some(extras) = self.extras.get() else {
            return Ok(());
        };
        let retained = extras.lock().retained.clone();
        for (output_nr, weak) in retained {
            let (Some(tensor), Some(Some(g))) = (weak.upgrade(), grads.get(output_nr)) else {
                continue;
            };
            let tensor = Tensor(tensor);
            // (a graph being built runs through CloneBackward0, as PyTorch's retain_grad hook)
            let new = match tensor.grad() {
                None => g.clone_tensor()?,
                Some(old) => old.add(g)?,
            };
            tensor.meta().grad = Some(new);
        }
        Ok(())
    }
}
