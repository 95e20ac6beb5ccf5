//! Reverse-mode automatic differentiation: graph nodes, saved tensors, the engine, and how ops record themselves.

mod accumulate;
pub mod anomaly;
mod current_task;
mod engine;
mod function;
mod graph_task;
mod node;
mod parallel_phase;
mod saved;
mod task_graph;
mod task_slot;

pub use current_task::{
    current_graph_task_id, is_checkpoint_valid, is_multithreading_enabled, queue_callback,
    record_execution_sets, set_multithreading_enabled, will_engine_execute_node, FinalCallback,
};
pub use engine::{
    backward, backward_from, backward_from_to, backward_to, grad, grad_from, grad_to_edges,
    GradOptions, Root,
};
pub use function::{record_custom, CustomBackward, CustomCall};
pub(crate) use node::release_iteratively;
pub use node::{
    BackwardCtx, BackwardFn, Edge, Grad, Hook, InputMeta, Node, NodeKind, NodePostHook,
    NodePreHook, PartFunction, SavedTensors,
};
pub use parallel_phase::parallel_phases_started;
pub use saved::{
    pop_saved_tensors_hooks, push_saved_tensors_hooks, PackHook, PackedTensor, RawSaved,
};
pub use saved::{take_refused_save, SavedVariable};

use crate::core::error::Result;
use crate::core::grad_mode::is_grad_enabled;
use crate::core::layout::Part;
use crate::core::tensor::Tensor;
use smallvec::SmallVec;
use std::sync::Arc;

/// What an op keeps for its backward formula.
pub enum Save<'a> {
    /// One of the op's inputs (or any other tensor), checked against in-place changes.
    Tensor(&'a Tensor),
    /// The op's output (output 0).
    Output,
    /// Output number `n` of the op (saved without its history, so no reference cycle).
    OutputAt(usize),
    /// Nothing (keeps positions stable when a tensor is saved only if some input needs it).
    Skip,
    /// A value PyTorch keeps as a saved tensor and this op keeps in its formula (a wrapped
    /// number): nothing is stored, but the node is freed and refuses a second backward as
    /// PyTorch's does.
    Marker,
}

impl<'a> Save<'a> {
    /// `t` when a formula that will run reads it (`needed`), else [`Save::Skip`]: PyTorch saves
    /// an input only for the gradients that are computed, so changing it in place afterwards
    /// is no error otherwise.
    pub fn when(t: &'a Tensor, needed: bool) -> Save<'a> {
        if needed {
            Save::Tensor(t)
        } else {
            Save::Skip
        }
    }
}

/// True when an op on `inputs` must record a node: grad mode is on and some input requires grad.
pub fn is_recording(inputs: &[&Tensor]) -> bool {
    is_grad_enabled()
        && inputs.iter().any(|t| {
            refresh_view(t);
            t.requires_grad()
        })
}

/// Note [View regeneration]: a view records its history when it is made (`SliceBackward0`
/// of its base's history then). An in-place write through the base or through another view
/// rewrites the base's history (CopySlices, or the in-place op's node) and bumps the version
/// every view shares; a view whose history is older than its storage's version then takes a
/// fresh one, `AsStridedBackward0` of its base's current history, the next time it is used or
/// looked at (as PyTorch regenerates a view's `grad_fn`); a view made with view replay on
/// replays its own view ops instead (`ViewBackward0` ..., see
/// `grad_mode::is_view_replay_enabled`). So gradients through the view reach
/// what was written into it, and a view of a tensor that came to require grad through an
/// in-place op requires grad too.
///
/// A view made under `no_grad`, or one of several views one op returned (`split`, `unbind`),
/// is not regenerated: PyTorch refuses to use it after such a write, and so does its history
/// here, a node named `Invalid` that fails with PyTorch's message at backward (and whose
/// `grad_fn` the bindings refuse to show).
pub fn refresh_view(t: &Tensor) {
    if !t.view_is_stale() {
        return;
    }
    t.mark_view_current();
    let Some(base) = t.base() else { return };
    if t.meta()
        .grad_fn
        .as_ref()
        .is_some_and(|e| e.node.name() == INVALID_VIEW)
    {
        return; // already refused, with the message naming the view's own op
    }
    if !base.requires_grad() && t.meta().grad_fn.is_none() {
        return;
    }
    if let Some(refused) = view_write_refused(t, true) {
        let message = refused.to_string();
        let for_backward = message.clone();
        let alias = t.detach();
        let _recording = crate::core::grad_mode::GradModeGuard::new(true);
        let invalid = record(alias, INVALID_VIEW, &[base], &[], move |_| {
            Err(crate::Error::runtime(for_backward.clone()))
        });
        let edge = invalid.meta().grad_fn.clone();
        if let Some(e) = &edge {
            e.node.metadata(|| Arc::new(message));
        }
        t.set_grad_fn(edge);
        return;
    }
    if !base.requires_grad() {
        return;
    }
    let Some(relative) = t.layout().relative_to(base.layout()) else {
        return;
    };
    let _recording = crate::core::grad_mode::GradModeGuard::new(true);
    if let Ok(view) = crate::ops::shape::strided::view_again(base, t, &relative) {
        t.set_grad_fn(view.meta().grad_fn.clone());
    }
}

/// The name of the node a view gets when PyTorch would refuse to use it after an in-place
/// write (see [`refresh_view`]); its metadata is the error message.
pub const INVALID_VIEW: &str = "Invalid";

/// PyTorch's refusal (`handle_view_on_rebase`) of an in-place write through the view `t`
/// (`indirect`: through its base or another view of it) when `t` was made under `no_grad` or
/// is one of several views returned by one op; `None` when the write is allowed.
pub fn view_write_refused(t: &Tensor, indirect: bool) -> Option<crate::Error> {
    use crate::core::tensor::ViewCreation;
    let how = t.view_creation();
    if how == ViewCreation::Default {
        return None;
    }
    let modified = match indirect {
        true => "its base or another view of its base has been",
        false => "is being",
    };
    let edge = t.meta().grad_fn.clone();
    // (PyTorch names the op without its `Backward0`/`Backward` suffix here)
    let op = |e: &Edge| {
        let name = e.node.name();
        let name = name.strip_suffix("Backward0").unwrap_or(name);
        name.strip_suffix("Backward").unwrap_or(name).to_string()
    };
    let made_in = match how {
        ViewCreation::InferenceMode => "inference mode",
        _ => "no_grad mode",
    };
    let written = match how {
        ViewCreation::InferenceMode => "in normal mode",
        _ => "with grad mode enabled",
    };
    let mut message = match (how, &edge) {
        (ViewCreation::MultiOutput | ViewCreation::InCustomFunction, Some(e)) => format!(
            "Output {} of {} is a view and {modified} modified inplace.",
            e.input_nr,
            op(e)
        ),
        (_, Some(e)) => format!(
            "Output {} of {} is a view of a view which was created in {made_in} and {modified} modified inplace {written}.",
            e.input_nr,
            op(e)
        ),
        (_, None) => format!(
            "A view was created in {made_in} and {modified} modified inplace {written}."
        ),
    };
    let block = match how {
        ViewCreation::InferenceMode => "inference_mode",
        _ => "no_grad",
    };
    message.push_str(&match how {
        ViewCreation::MultiOutput => " This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.".to_string(),
        ViewCreation::InCustomFunction => " This view was created inside a custom Function (or because an input was returned as-is) and the autograd logic to handle view+inplace would override the custom backward associated with the custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom Function.".to_string(),
        _ => format!(" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the {block} block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."),
    });
    Some(crate::Error::runtime(message))
}

/// The view ops that make a view from its base, in order, kept on the view when view replay
/// is on (see `grad_mode::is_view_replay_enabled`): PyTorch's `ViewInfo::view_fn`, part of a
/// tensor's autograd state. Each call's first argument, the tensor, is left out.
pub type ViewOps = Arc<Vec<crate::core::dispatch::Call>>;

/// The hooks of a leaf: `pre` see (and may replace) its gradient before it is accumulated,
/// `post_accumulate` see the leaf after its `.grad` is written.
#[derive(Default)]
pub struct LeafHooks {
    /// `register_hook` hooks, with their ids.
    pub pre: Vec<(u64, Hook)>,
    /// `register_post_accumulate_grad_hook` hooks, with their ids.
    pub post_accumulate: Vec<(u64, Hook)>,
}

static NEXT_HOOK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A fresh handle id for a hook (tensor or node hooks share the numbering).
pub fn next_hook_id() -> u64 {
    NEXT_HOOK.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Tensor {
    /// Registers `hook` to run on this tensor's gradient during backward; returns its handle id.
    pub fn register_hook(&self, hook: Hook) -> Result<u64> {
        if !self.requires_grad() {
            return Err(crate::Error::runtime(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        let id = next_hook_id();
        let mut meta = self.meta();
        match &meta.grad_fn {
            Some(edge) => edge.node.add_pre_hook(id, edge.input_nr, hook),
            None => meta.hooks.get_or_insert_default().pre.push((id, hook)),
        }
        Ok(id)
    }

    /// Registers `hook`, called with this leaf once a backward pass has accumulated its
    /// gradient into `.grad` (PyTorch's `register_post_accumulate_grad_hook`); returns its id.
    pub fn register_post_accumulate_grad_hook(&self, hook: Hook) -> Result<u64> {
        if !self.requires_grad() {
            return Err(crate::Error::runtime(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        let mut meta = self.meta();
        if meta.grad_fn.is_some() {
            return Err(crate::Error::runtime(
                "post accumulate grad hooks cannot be registered on non-leaf tensors",
            ));
        }
        let id = next_hook_id();
        meta.hooks
            .get_or_insert_default()
            .post_accumulate
            .push((id, hook));
        Ok(id)
    }

    /// Removes the hook with handle `id` (no effect if it is already gone).
    pub fn remove_hook(&self, id: u64) {
        let mut meta = self.meta();
        if let Some(hooks) = &mut meta.hooks {
            hooks.pre.retain(|(h, _)| *h != id);
            hooks.post_accumulate.retain(|(h, _)| *h != id);
        }
        if let Some(edge) = &meta.grad_fn {
            edge.node.remove_pre_hook(id);
        }
    }

    /// Runs this leaf's hooks on `g`, in registration order.
    pub(crate) fn run_leaf_hooks(&self, mut g: Tensor) -> Result<Tensor> {
        let hooks: Vec<Hook> = match &self.meta().hooks {
            Some(hooks) => hooks.pre.iter().map(|(_, h)| h.clone()).collect(),
            None => return Ok(g),
        };
        for hook in hooks {
            if let Some(new) = hook(Some(&g))? {
                g = new;
            }
        }
        Ok(g)
    }

    /// Runs this leaf's post-accumulate hooks (with the leaf itself), in registration order.
    pub(crate) fn run_post_accumulate_hooks(&self) -> Result<()> {
        let hooks: Vec<Hook> = match &self.meta().hooks {
            Some(hooks) => hooks
                .post_accumulate
                .iter()
                .map(|(_, h)| h.clone())
                .collect(),
            None => return Ok(()),
        };
        for hook in hooks {
            hook(Some(self))?;
        }
        Ok(())
    }
}

/// The edge gradients of `tensor` flow into: its grad_fn, or its AccumulateGrad if it is a
/// leaf that requires grad. A view whose base was written in place gets its history made
/// again first ([`refresh_view`]).
pub fn gradient_edge(tensor: &Tensor) -> Option<Edge> {
    refresh_view(tensor);
    let edge = node::current_edge(tensor)?;
    if edge.node.name() == INVALID_VIEW {
        // PyTorch raises when such a view's grad_fn is asked for: at the op using it
        let message = edge.node.try_metadata();
        let message = message.as_deref().and_then(|m| m.downcast_ref::<String>());
        if let Some(message) = message {
            saved::refuse_op(crate::Error::runtime(message.clone()));
        }
    }
    Some(edge)
}

/// Attaches a node named `name` with formula `backward` to the fresh output `out` of an op on `inputs`.
///
/// Call only when [`is_recording`] is true. `saves` lists the tensors `backward` reads through
/// `ctx.saved(i)`, in order.
pub fn record(
    out: Tensor,
    name: &'static str,
    inputs: &[&Tensor],
    saves: &[Save<'_>],
    backward: impl Fn(&BackwardCtx<'_>) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) -> Tensor {
    let [out] = attach(
        [out],
        name,
        inputs,
        0,
        saves,
        Box::new(backward),
        None,
        None,
    );
    out
}

/// Like [`record`] for a view that is `part` of `input` (`select`, `slice`): the engine may add
/// its gradient straight into that part of the input's sum instead of running `backward`
/// (Note [Gradients of parts]).
pub fn record_part(
    out: Tensor,
    name: &'static str,
    input: &Tensor,
    part: Part,
    backward: impl Fn(&BackwardCtx<'_>) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) -> Tensor {
    let [out] = attach(
        [out],
        name,
        &[input],
        0,
        &[],
        Box::new(backward),
        Some(part),
        None,
    );
    out
}

/// Like [`record`] for an op of a tensor and a Python number (`x * 2`): the node gets a
/// second input that needs no gradient, as PyTorch's wrapped number has (its
/// `next_functions` end with `(None, 0)`); `backward` returns the tensor's gradient and `None`
/// for the number (or the tensor's alone).
pub fn record_with_number(
    out: Tensor,
    name: &'static str,
    input: &Tensor,
    saves: &[Save<'_>],
    backward: impl Fn(&BackwardCtx<'_>) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) -> Tensor {
    let [out] = attach(
        [out],
        name,
        &[input],
        1,
        saves,
        Box::new(backward),
        None,
        None,
    );
    out
}

/// Like [`record`] for a node that stands in for `inner` with its first input replaced by
/// `input` (CopySlices for an in-place op through a view: the base's history first, then the
/// op's other inputs, as PyTorch's); `backward` runs `inner` itself (see
/// [`BackwardCtx::run_inner`]).
pub(crate) fn record_replacing_first(
    out: Tensor,
    name: &'static str,
    input: &Tensor,
    inner: &Node,
    backward: BackwardFn,
) -> Tensor {
    let n = inner.next_edges.len();
    let mut next_edges = SmallVec::with_capacity(n);
    let mut metas = SmallVec::with_capacity(n);
    next_edges.push(gradient_edge(input));
    metas.push(InputMeta::of(input));
    for i in 1..n {
        next_edges.push(inner.next_edges[i].clone());
        metas.push(inner.input_meta(i));
    }
    let node = Node::new(name, next_edges, metas, SmallVec::new(), backward);
    anomaly::remember_origin(&node);
    let mut out = out;
    out.set_fresh_grad_fn(Edge {
        node: Arc::new(node),
        input_nr: 0,
    });
    out
}

/// Like [`record`] for ops with several outputs; `Save::Output` saves output 0.
pub fn record_multi(
    outs: Vec<Tensor>,
    name: impl Into<std::borrow::Cow<'static, str>>,
    inputs: &[&Tensor],
    saves: &[Save<'_>],
    backward: BackwardFn,
) -> Vec<Tensor> {
    attach(outs, name, inputs, 0, saves, backward, None, None)
}

/// Like [`record_multi`] for a node with `n_slots` output slots, of which `outs[k]` is slot
/// `slots[k]` (a custom Function's node has a slot per value its forward returned, tensors or
/// not, as PyTorch's); `Save::OutputAt(k)` saves `outs[k]`.
pub fn record_at_slots(
    outs: Vec<Tensor>,
    slots: &[usize],
    n_slots: usize,
    name: impl Into<std::borrow::Cow<'static, str>>,
    inputs: &[&Tensor],
    saves: &[Save<'_>],
    backward: BackwardFn,
) -> Vec<Tensor> {
    attach(
        outs,
        name,
        inputs,
        0,
        saves,
        backward,
        None,
        Some((slots, n_slots)),
    )
}

/// Creates the node and makes it the `grad_fn` of each of `outs` (returned). `constants`
/// inputs that need no gradient (wrapped numbers) follow `inputs`. With `slots` (where each
/// output goes, of how many), see [`record_at_slots`]; else output `k` is slot `k`.
#[allow(clippy::too_many_arguments)]
fn attach<Outs: AsMut<[Tensor]> + AsRef<[Tensor]>>(
    mut outs: Outs,
    name: impl Into<std::borrow::Cow<'static, str>>,
    inputs: &[&Tensor],
    constants: usize,
    saves: &[Save<'_>],
    backward: BackwardFn,
    part: Option<Part>,
    slots: Option<(&[usize], usize)>,
) -> Outs {
    // a view of an inference tensor (made outside inference mode) is an inference tensor
    // without history, as PyTorch's (only views share an inference tensor's storage here)
    if outs.as_ref()[0].is_inference() {
        return outs;
    }
    // plain pushes: SmallVec's `collect` (reserve, then two loops) cost more than the op's kernel
    let mut next_edges = SmallVec::with_capacity(inputs.len());
    let mut metas = SmallVec::with_capacity(inputs.len());
    for t in inputs {
        next_edges.push(gradient_edge(t));
        metas.push(InputMeta::of(t));
    }
    for _ in 0..constants {
        next_edges.push(None);
        metas.push(InputMeta {
            shape: SmallVec::new(),
            dtype: outs.as_ref()[0].dtype(),
        });
    }
    let mut saved = SmallVec::with_capacity(saves.len());
    for s in saves {
        saved.push(match s {
            Save::Tensor(t) => SavedVariable::input(t),
            Save::Output => SavedVariable::output(&outs.as_ref()[0], 0),
            Save::OutputAt(n) => {
                let slot = slots.map_or(*n, |(at, _)| at[*n]);
                SavedVariable::output(&outs.as_ref()[*n], slot)
            }
            Save::Skip => SavedVariable::none(),
            Save::Marker => SavedVariable::marker(),
        });
    }
    let kind = match part {
        Some(part) => NodeKind::Part(Box::new(PartFunction { part, backward })),
        None => NodeKind::Function(backward),
    };
    let name = node::intern(name.into());
    // a custom Function's node (with slots) unpacks its ctx.saved_tensors at each access
    let unpacks_saved = slots.is_some();
    let node = Arc::new(Node::with_kind(
        name,
        next_edges,
        metas,
        saved,
        kind,
        unpacks_saved,
    ));
    anomaly::remember_origin(&node);
    let slot = |k: usize| slots.map_or(k, |(at, _)| at[k]);
    node.set_outputs(slots.map_or(outs.as_ref().len(), |(_, n)| n));
    // The last output takes the node itself, and fresh outputs are set without their lock: a
    // locked instruction right after writing the new node waits for all those stores to drain,
    // a measurable part of a small op.
    let (last, rest) = outs.as_mut().split_last_mut().expect("an op has an output");
    for (i, out) in rest.iter_mut().enumerate() {
        out.set_fresh_grad_fn(Edge {
            node: node.clone(),
            input_nr: slot(i),
        });
    }
    last.set_fresh_grad_fn(Edge {
        node,
        input_nr: slot(rest.len()),
    });
    outs
}
