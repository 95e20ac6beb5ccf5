//! Saved tensors: what a backward formula needs, checked against in-place changes.

use super::node::{Edge, Node};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::is_grad_enabled;
use crate::core::tensor::Tensor;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

/// `SavedVariable::output_nr` of a saved tensor that is not an output of the saving node.
const NOT_AN_OUTPUT: u32 = u32::MAX;

/// What `saved_tensors_hooks`' pack hook made of a saved tensor: turned back into a tensor by
/// the unpack hook when the backward formula reads it.
pub trait PackedTensor: Send + Sync {
    /// The tensor again (the unpack hook's result).
    fn unpack(&self) -> Result<Tensor>;
    /// The packed value itself, for a binding to show (Python's `SavedTensor.data`).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A pack hook: called with each tensor an op saves while it is installed.
pub type PackHook = Arc<dyn Fn(&Tensor) -> Result<Arc<dyn PackedTensor>> + Send + Sync>;

thread_local! {
    static PACK_HOOKS: std::cell::RefCell<Vec<Option<PackHook>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Installs `hook` for the tensors saved on this thread until [`pop_saved_tensors_hooks`]
/// (`None`: saving as usual, PyTorch's `disable_saved_tensors_hooks`).
pub fn push_saved_tensors_hooks(hook: Option<PackHook>) {
    PACK_HOOKS.with(|h| h.borrow_mut().push(hook));
}

/// Removes the innermost hook installed by [`push_saved_tensors_hooks`].
pub fn pop_saved_tensors_hooks() {
    PACK_HOOKS.with(|h| h.borrow_mut().pop());
}

/// Restores this thread's stack of saved-tensor hooks, when dropped, to what it was when made.
pub(crate) struct SavedHooksGuard(Vec<Option<PackHook>>);

impl SavedHooksGuard {
    /// Remembers the current stack.
    pub(crate) fn new() -> SavedHooksGuard {
        SavedHooksGuard(PACK_HOOKS.with(|h| h.borrow().clone()))
    }

    /// Makes the remembered stack this thread's (a pass moved to another thread keeps its
    /// hooks).
    pub(crate) fn install(&self) {
        PACK_HOOKS.with(|h| h.borrow_mut().clone_from(&self.0));
    }
}

impl Drop for SavedHooksGuard {
    fn drop(&mut self) {
        PACK_HOOKS.with(|h| *h.borrow_mut() = std::mem::take(&mut self.0));
    }
}

/// The pack hook in effect on this thread, if any.
fn pack_hook() -> Option<PackHook> {
    PACK_HOOKS.with(|h| h.borrow().last().cloned().flatten())
}

/// PyTorch's refusal of a pack hook that writes into the tensor it packs.
const PACK_MODIFIES_INPUT: &str = "A saved tensor pack hook is modifying its input in place. Tensors provided as input to \
     pack hook can not be modified by in-place operations as this can lead to unexpected side-effects. Please open \
     an issue if you need to perform in-place operations on the input to a pack hook.";

/// PyTorch's refusal of a second pair of hooks on one saved tensor.
const HOOKS_ALREADY_SET: &str =
    "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one \
     pair of hooks is allowed at a time.";

/// PyTorch's error for a saved tensor used after backward freed it.
const FREED: &str = "Trying to backward through the graph a second time (or directly access saved tensors after they \
     have already been freed). Saved intermediate values of the graph are freed when you call \
     .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the \
     graph a second time or if you need to access saved tensors after calling backward.";

/// Runs `pack` on `tensor` as PyTorch does: with grad mode off, refusing a hook that changes
/// the tensor in place.
fn pack_checked(pack: &PackHook, tensor: &Tensor) -> Result<Arc<dyn PackedTensor>> {
    let _no_grad = crate::core::grad_mode::GradModeGuard::new(false);
    let version = tensor.version();
    let packed = pack(tensor)?;
    if tensor.version() != version {
        return Err(Error::runtime(PACK_MODIFIES_INPUT));
    }
    Ok(packed)
}

/// What a saved slot holds, as inspected from a binding (PyTorch's `SavedTensor.data`).
pub enum RawSaved {
    /// The tensor as kept: a saved input itself, a saved output without its history.
    Tensor(Tensor),
    /// What a pack hook made of it.
    Packed(Arc<dyn PackedTensor>),
    /// Nothing was saved there.
    None,
}

/// What a saved variable holds.
enum Saved {
    Tensor(Tensor),
    /// The output of an in-place op that wrote through a view and was folded into CopySlices
    /// (Note [CopySlices]): unpacked with the view's history after the write, held weakly (that
    /// history leads back to the node holding this), as PyTorch's `is_inplace_on_view`.
    ViewOutput(Tensor, Weak<Node>, usize),
    /// The pack hook's value (or its error, raised when the tensor is needed), and for a saved
    /// input the gradient edge it had: the unpacked tensor takes its place in the graph.
    Packed(
        std::result::Result<Arc<dyn PackedTensor>, Error>,
        Option<Edge>,
    ),
    /// A value the formula keeps itself ([`SavedVariable::marker`]).
    Marker,
}

/// A tensor kept for the backward pass, with the version it had when saved.
pub struct SavedVariable {
    slot: Mutex<Option<Saved>>,
    version: AtomicU64,
    /// `(grad_fn name, output number)` of the tensor when saved, for error messages.
    producer: Option<(&'static str, u32)>,
    /// Output number when the saved tensor is an output of the saving node (stored without
    /// its grad_fn); [`NOT_AN_OUTPUT`] otherwise.
    output_nr: u32,
    /// A placeholder that never held a tensor (not an error to unpack).
    empty: bool,
}

thread_local! {
    /// An op tried to save an inference tensor outside inference mode, or the pack hook failed
    /// (see [`take_refused_save`]).
    static REFUSED_SAVE: std::cell::RefCell<Option<Error>> = const { std::cell::RefCell::new(None) };
}

/// The refusal of the last op on this thread that tried to save an inference tensor for
/// backward outside inference mode, whose pack hook raised, or that took as input a view
/// PyTorch refuses to use after an in-place write (`refuse_op`), taken (PyTorch raises it at
/// the op: a binding calls this after each op; the node also refuses at backward).
pub fn take_refused_save() -> Option<Error> {
    REFUSED_SAVE.with(|r| r.borrow_mut().take())
}

/// Makes the running op fail with `refusal` once it returns (the first refusal wins; see
/// [`take_refused_save`]).
pub(crate) fn refuse_op(refusal: Error) {
    REFUSED_SAVE.with(|r| {
        r.borrow_mut().get_or_insert(refusal);
    });
}

/// `kept` as a saved value: packed by the pack hook in effect (which sees `original`), or as it
/// is. `input`: `original` is an input of the saving node (not its output).
fn saved(original: &Tensor, kept: &Tensor, input: bool) -> Saved {
    if original.is_inference() && !crate::core::grad_mode::is_inference_mode_enabled() {
        let refusal = Error::runtime(
            "Inference tensors cannot be saved for backward. To work around you can make a clone to get a \
             normal tensor and use it in autograd.",
        );
        REFUSED_SAVE.with(|r| *r.borrow_mut() = Some(refusal.clone()));
        return Saved::Packed(Err(refusal), None);
    }
    match pack_hook() {
        Some(pack) => {
            let edge = if input {
                super::node::current_edge(original)
            } else {
                None
            };
            let packed = pack_checked(&pack, original).map_err(|e| {
                // PyTorch raises a pack hook's error at the op that saved (the binding takes
                // it); the node keeps only its message, as the error may hold a Python
                // traceback, whose frames would keep the graph alive through the node
                let message = Error::runtime(e.to_string());
                REFUSED_SAVE.with(|r| {
                    r.borrow_mut().get_or_insert(e);
                });
                message
            });
            Saved::Packed(packed, edge)
        }
        None => Saved::Tensor(kept.clone()),
    }
}

impl SavedVariable {
    /// Saves an input of the node.
    pub fn input(tensor: &Tensor) -> SavedVariable {
        let producer = tensor
            .meta()
            .grad_fn
            .as_ref()
            .map(|e| (e.node.name(), e.input_nr as u32));
        SavedVariable {
            version: AtomicU64::new(tensor.version()),
            slot: Mutex::new(Some(saved(tensor, tensor, true))),
            empty: false,
            output_nr: NOT_AN_OUTPUT,
            producer,
        }
    }

    /// Saves output `output_nr` of the node: only its data, since its grad_fn is the node itself.
    pub fn output(tensor: &Tensor, output_nr: usize) -> SavedVariable {
        SavedVariable {
            version: AtomicU64::new(tensor.version()),
            slot: Mutex::new(Some(saved(tensor, &tensor.detach(), false))),
            empty: false,
            output_nr: u32::try_from(output_nr).expect("fewer than 2^32 outputs"),
            producer: None,
        }
    }

    /// A value the node's formula keeps itself (a wrapped number) but PyTorch keeps as a saved
    /// tensor: it unpacks to `None` until released, and like any saved tensor it is released
    /// after a backward pass without `retain_graph`, which a second pass then reports.
    pub fn marker() -> SavedVariable {
        SavedVariable {
            slot: Mutex::new(Some(Saved::Marker)),
            empty: false,
            version: AtomicU64::new(0),
            output_nr: NOT_AN_OUTPUT,
            producer: None,
        }
    }

    /// A placeholder saving nothing.
    pub fn none() -> SavedVariable {
        SavedVariable {
            slot: Mutex::new(None),
            empty: true,
            version: AtomicU64::new(0),
            output_nr: NOT_AN_OUTPUT,
            producer: None,
        }
    }

    /// The saved tensor (`None` for a placeholder), or the PyTorch error when it was freed or
    /// modified in place since. With `release`, the tensor moves out (the slot is freed).
    pub fn unpack(&self, node: &Arc<Node>, release: bool) -> Result<Option<Tensor>> {
        if self.empty {
            return Ok(None);
        }
        let held = match release {
            true => self.slot.lock().take(),
            false => self.slot.lock().as_ref().map(|s| match s {
                Saved::Tensor(t) => Saved::Tensor(t.clone()),
                Saved::ViewOutput(t, n, nr) => Saved::ViewOutput(t.clone(), n.clone(), *nr),
                Saved::Packed(Ok(p), edge) => Saved::Packed(Ok(p.clone()), edge.clone()),
                Saved::Packed(Err(e), edge) => Saved::Packed(Err(e.clone()), edge.clone()),
                Saved::Marker => Saved::Marker,
            }),
        };
        let mut view_history = None;
        let tensor = match held {
            Some(Saved::Tensor(t)) => Some(t),
            Some(Saved::ViewOutput(t, node, nr)) => {
                view_history = Some((node, nr));
                Some(t)
            }
            // a hook's value is trusted as it is (PyTorch checks no version through hooks)
            // Note [Unpacked tensors take the saved tensor's place]: as PyTorch, the unpack hook's
            // tensor is differentiated as the saved one (its own history, if any, is not
            // followed), so a hook's arithmetic does not change higher-order gradients
            Some(Saved::Packed(packed, edge)) => {
                let t = packed?.unpack()?;
                if !is_grad_enabled() {
                    return Ok(Some(t));
                }
                let alias = t.detach();
                match (edge, self.output_nr) {
                    // a saved leaf comes back a leaf that accumulates into the original's
                    // `.grad` (PyTorch's: its grad accumulator, not a grad_fn)
                    (Some(edge), _) if edge.node.variable().is_some() => {
                        let mut meta = alias.meta();
                        meta.requires_grad = true;
                        meta.accumulator = Arc::downgrade(&edge.node);
                        alias.sync_requires_grad(&meta);
                    }
                    (Some(edge), _) => alias.set_grad_fn(Some(edge)),
                    (None, nr) if nr != NOT_AN_OUTPUT => alias.set_grad_fn(Some(Edge {
                        node: node.clone(),
                        input_nr: nr as usize,
                    })),
                    (None, _) => {}
                }
                return Ok(Some(alias));
            }
            Some(Saved::Marker) => return Ok(None),
            None => None,
        };
        let Some(tensor) = tensor else {
            return Err(Error::runtime(FREED));
        };
        if self.output_nr == NOT_AN_OUTPUT
            && self.producer.is_some()
            && tensor.meta().grad_fn.is_none()
        {
            return Err(Error::runtime(
                "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not \
                 supported, please use out-of-place `.detach()` instead",
            ));
        }
        let current = tensor.version();
        let saved_at = self.version.load(Ordering::Acquire);
        if current != saved_at {
            let producer = match (&self.producer, self.output_nr) {
                (Some((name, nr)), _) => format!(", which is output {nr} of {name},"),
                (None, NOT_AN_OUTPUT) => String::new(),
                (None, nr) => format!(", which is output {nr} of {},", node.name()),
            };
            let writer = tensor.storage().last_writer();
            return Err(Error::runtime(format!(
                "one of the variables needed for gradient computation has been modified by an inplace operation: \
                 [{}]{producer} is at version {current}; expected version {} instead. Hint: {node} saved it at \
                 version {}; the in-place operation `{writer}` changed it afterwards. Use an out-of-place operation \
                 or `.clone()` the tensor before modifying it.",
                tensor.type_description(),
                saved_at,
                saved_at,
                node = node.name(),
            )));
        }
        if let Some((history, input_nr)) = view_history {
            let alias = tensor.detach();
            if let (true, Some(node)) = (is_grad_enabled(), history.upgrade()) {
                alias.set_grad_fn(Some(Edge { node, input_nr }));
            }
            return Ok(Some(alias));
        }
        match self.output_nr {
            nr if nr != NOT_AN_OUTPUT && is_grad_enabled() => {
                let alias = tensor.detach();
                alias.set_grad_fn(Some(Edge {
                    node: node.clone(),
                    input_nr: nr as usize,
                }));
                Ok(Some(alias))
            }
            _ => Ok(Some(tensor)),
        }
    }

    /// An in-place op's saved output becomes the tensor it wrote (`to`, at its current
    /// version), as in PyTorch: a later in-place write into `to` makes this saved value stale.
    /// With `view_history` (the write went through a view and the op was folded into
    /// CopySlices), it unpacks with that history instead of the node's own output edge.
    pub(crate) fn rebind_output(&self, to: &Tensor, view_history: Option<&Edge>) {
        if self.output_nr == 0 {
            let mut slot = self.slot.lock();
            if matches!(*slot, Some(Saved::Tensor(_) | Saved::ViewOutput(..))) {
                *slot = Some(match view_history {
                    Some(e) => Saved::ViewOutput(to.detach(), Arc::downgrade(&e.node), e.input_nr),
                    None => Saved::Tensor(to.detach()),
                });
                self.version.store(to.version(), Ordering::Release);
            }
        }
    }

    /// What the slot holds, neither unpacked nor freed (PyTorch's `SavedTensor.data`); PyTorch's
    /// error once backward freed it.
    pub fn raw(&self) -> Result<RawSaved> {
        if self.empty {
            return Ok(RawSaved::None);
        }
        match self.slot.lock().as_ref() {
            Some(Saved::Tensor(t) | Saved::ViewOutput(t, ..)) => Ok(RawSaved::Tensor(t.clone())),
            Some(Saved::Packed(Ok(p), _)) => Ok(RawSaved::Packed(p.clone())),
            Some(Saved::Packed(Err(e), _)) => Err(e.clone()),
            Some(Saved::Marker) => Ok(RawSaved::None),
            None => Err(Error::runtime(FREED)),
        }
    }

    /// Packs this saved tensor with `pack` now (PyTorch's `SavedTensor.register_hooks`): the
    /// backward pass then reads it through the packed value's unpack. A saved input is packed
    /// as a detached alias (as PyTorch) and keeps its place in the graph.
    pub fn register_hooks(&self, pack: &PackHook) -> Result<()> {
        let slot = self.slot.lock();
        let kept = match slot.as_ref() {
            Some(Saved::Packed(..)) => {
                return Err(Error::runtime(HOOKS_ALREADY_SET))
            }
            Some(Saved::Tensor(t) | Saved::ViewOutput(t, ..)) => t.clone(),
            _ if !self.empty && slot.is_none() => {
                return Err(Error::runtime(
                    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of \
                     the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if \
                     you need to backward through the graph a second time or if you need to access saved variables \
                     after calling backward.",
                ))
            }
            _ => {
                return Err(Error::runtime(
                    "Calling register_hooks on a saved tensor with value None is forbidden",
                ))
            }
        };
        drop(slot); // the hook may read this saved tensor
        let input = self.output_nr == NOT_AN_OUTPUT;
        // a detached alias shares the storage, so a write through it is refused too
        let packed = match input {
            true => pack_checked(pack, &kept.detach())?,
            false => pack_checked(pack, &kept)?,
        };
        let edge = if input {
            super::node::current_edge(&kept)
        } else {
            None
        };
        let mut slot = self.slot.lock();
        match slot.as_ref() {
            Some(Saved::Tensor(_) | Saved::ViewOutput(..)) => {
                *slot = Some(Saved::Packed(Ok(packed), edge));
                Ok(())
            }
            // freed or hooked by the pack hook itself meanwhile
            _ => Err(Error::runtime(HOOKS_ALREADY_SET)),
        }
    }

    /// Frees the saved data.
    pub fn release(&self) {
        self.slot.lock().take();
    }

    pub(crate) fn take(&self) -> Option<Tensor> {
        match self.slot.lock().take() {
            Some(Saved::Tensor(t) | Saved::ViewOutput(t, ..)) => Some(t),
            _ => None,
        }
    }
}
