//! Graph nodes: a backward function, the edges to the nodes of its inputs, and its saved tensors;
//! a tensor's current edge; and the release queue that frees a graph without recursion (a
//! node's `Drop` queues its children).

use super::saved::SavedVariable;
use super::task_slot::TaskSlot;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::{fmt_shape, is_expandable_to, same_shape, Part};
use crate::core::tensor::Tensor;
use parking_lot::Mutex;
use smallvec::SmallVec;
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

mod extras;
use extras::Extras;
pub use extras::Hook;

/// Points at input `input_nr` of `node` (for a tensor's `grad_fn`: output `input_nr` of the node that made it).
#[derive(Clone)]
pub struct Edge {
    /// The node gradients flow to.
    pub node: Arc<Node>,
    /// Which of the node's inputs (or outputs, seen from a tensor) this is.
    pub input_nr: usize,
}

/// A backward formula: gradients of the outputs in, gradients of the inputs out.
pub type BackwardFn = Box<dyn Fn(&BackwardCtx<'_>) -> Result<Vec<Option<Tensor>>> + Send + Sync>;

/// What a node does when the engine runs it.
pub enum NodeKind {
    /// An op's backward formula.
    Function(BackwardFn),
    /// Adds the incoming gradient into a leaf's `.grad`.
    AccumulateGrad(Tensor),
    /// The backward of a view that is one part of its input (`select`, `slice`): besides the
    /// formula, the engine can add the gradient straight into that part of the input's sum
    /// (Note [Gradients of parts]).
    Part(Box<PartFunction>),
}

/// A view's backward formula and the part of the input the view is.
pub struct PartFunction {
    /// Which part of the input the view is.
    pub part: Part,
    /// The formula, used when a graph is being built or hooks need the full gradient.
    pub backward: BackwardFn,
}

/// Shape and dtype of one input, to check and fix up gradients.
#[derive(Clone, Debug)]
pub struct InputMeta {
    /// The input's shape; a broadcast gradient is summed back to it. Two sizes inline (most
    /// inputs have at most two dimensions) keep the node small.
    pub shape: SmallVec<[usize; 2]>,
    /// The input's dtype; gradients are cast to it.
    pub dtype: DType,
}

impl InputMeta {
    /// The shape and dtype of `t`. Shapes of up to two sizes are copied as values: the
    /// general copy calls `memcpy`, which costs more than the copy in a small op.
    pub fn of(t: &Tensor) -> InputMeta {
        let shape = match *t.shape() {
            [] => SmallVec::new(),
            [a] => SmallVec::from_buf_and_len([a, 0], 1),
            [a, b] => SmallVec::from_buf([a, b]),
            ref more => SmallVec::from_slice(more),
        };
        InputMeta {
            shape,
            dtype: t.dtype(),
        }
    }
}

/// A node of the backward graph (PyTorch's `Node` / `grad_fn`).
///
/// A deep chain keeps one node per op alive, so the node is kept small: rare parts (hooks,
/// retained gradients) live out of line, names are `&'static str`.
pub struct Node {
    name: &'static str,
    /// Creation order (PyTorch's `sequence_nr`); settable, as `_set_sequence_nr`.
    seq_nr: std::sync::atomic::AtomicU64,
    pub(crate) next_edges: SmallVec<[Option<Edge>; 2]>,
    inputs: SmallVec<[InputMeta; 2]>,
    saved: SmallVec<[SavedVariable; 2]>,
    /// Whether the formula unpacks the saved tensors itself, each time it reads them (a custom
    /// Function's `ctx.saved_tensors`, which runs the unpack hooks on every access, as
    /// PyTorch's); otherwise the engine unpacks them once before the formula runs.
    unpacks_saved: bool,
    kind: NodeKind,
    /// Hooks and retained gradients, created by the first registration; the engine checks
    /// with one load that a node (nearly every node) has none.
    extras: OnceLock<Box<Mutex<Extras>>>,
    /// Where the running graph task keeps this node's index.
    pub(super) task_slot: TaskSlot,
}

/// A node pre-hook (`grad_fn.register_prehook`): sees the incoming gradients, may return
/// replacements.
pub type NodePreHook = Arc<dyn Fn(&[Option<Tensor>]) -> Result<Option<Grads>> + Send + Sync>;

/// A node post-hook (`grad_fn.register_hook`): sees the gradients the node computed for its
/// inputs and the incoming gradients, may return replacements for the former.
pub type NodePostHook =
    Arc<dyn Fn(&[Option<Tensor>], &[Option<Tensor>]) -> Result<Option<Grads>> + Send + Sync>;

/// Gradients, one per input or output slot.
pub type Grads = Vec<Option<Tensor>>;

/// `name` as a `&'static str`: built-in names already are; a custom function's name is kept
/// for the life of the process, once per distinct name.
pub(crate) fn intern(name: Cow<'static, str>) -> &'static str {
    static NAMES: Mutex<std::collections::BTreeSet<&'static str>> =
        Mutex::new(std::collections::BTreeSet::new());
    match name {
        Cow::Borrowed(name) => name,
        Cow::Owned(name) => {
            let mut names = NAMES.lock();
            if let Some(&known) = names.get(name.as_str()) {
                return known;
            }
            let leaked: &'static str = Box::leak(name.into_boxed_str());
            names.insert(leaked);
            leaked
        }
    }
}

thread_local! {
    /// Creation counter of the nodes made on this thread (as PyTorch's sequence numbers, per
    /// thread: a global atomic counter cost a locked instruction per op).
    static NEXT_SEQ: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Values a backward formula reads: incoming gradients and unpacked saved tensors.
pub struct BackwardCtx<'a> {
    grads: &'a [Option<Tensor>],
    /// Whether the engine lets the formula overwrite the incoming gradients (it does not need
    /// them afterwards: not `grad()`'s result, not the graph of `create_graph`).
    grads_spent: bool,
    /// Whether the graph is kept after this pass (`retain_graph`): a formula that runs another
    /// node (CopySlices runs the in-place op's) passes it on, so that node frees its saved
    /// tensors when this one does.
    keep_graph: bool,
    saved: SmallVec<[Option<Tensor>; 2]>,
    node: &'a Arc<Node>,
}

/// The incoming gradient of a node's first output as a backward formula sees it: a tensor
/// (through `Deref`) that a fused backward op may write its result into, when the engine no
/// longer needs it and no graph is being built (see [`BackwardCtx::grad_to_overwrite`]).
pub struct Grad<'c, 'a> {
    ctx: &'c BackwardCtx<'a>,
}

impl std::ops::Deref for Grad<'_, '_> {
    type Target = Tensor;
    fn deref(&self) -> &Tensor {
        self.ctx.grad(0)
    }
}

impl Grad<'_, '_> {
    /// The gradient tensor when a fused op may write over it (not while recording a graph).
    pub fn spent(&self) -> Option<&Tensor> {
        if crate::core::grad_mode::is_grad_enabled() {
            return None;
        }
        self.ctx.grad_to_overwrite(0)
    }
}

impl BackwardCtx<'_> {
    /// The gradient of output `i` (present for every single-output node the engine runs).
    pub fn grad(&self, i: usize) -> &Tensor {
        self.grads[i]
            .as_ref()
            .expect("the engine runs a node only with its output gradient")
    }

    /// The gradient of output 0 as a [`Grad`], which fused backward ops may write over.
    pub fn grad0(&self) -> Grad<'_, '_> {
        Grad { ctx: self }
    }

    /// The gradient of output `i`, if one arrived (the engine's buffer only reaches as far as
    /// the last output that got one).
    pub fn grad_opt(&self, i: usize) -> Option<&Tensor> {
        self.grads.get(i).and_then(Option::as_ref)
    }

    /// The gradient of output `i` when the formula may write its result into it: the engine
    /// no longer needs it and no one else holds it (no other handle, no view, no history). A
    /// fused backward kernel then needs no new tensor.
    pub fn grad_to_overwrite(&self, i: usize) -> Option<&Tensor> {
        let g = self.grads.get(i)?.as_ref()?;
        (self.grads_spent && !g.requires_grad() && crate::core::tensor::owns_exclusively(g))
            .then_some(g)
    }

    /// Saved tensor `i`, in the order the op saved them.
    pub fn saved(&self, i: usize) -> &Tensor {
        self.saved[i]
            .as_ref()
            .expect("the op saved this tensor because the formula reads it")
    }

    /// Saved tensor `i`, or `None` where the op saved nothing (`Save::Skip`).
    pub fn saved_opt(&self, i: usize) -> Option<&Tensor> {
        self.saved.get(i).and_then(|s| s.as_ref())
    }

    /// Whether input `i` needs a gradient (it requires grad).
    pub fn needs_input_grad(&self, i: usize) -> bool {
        self.node.next_edges.get(i).is_some_and(|e| e.is_some())
    }

    /// The node's saved tensors, unpacked now (their unpack hooks run again at each call), for
    /// a formula that unpacks them itself (a custom Function's): a handle that
    /// may be called while the formula runs.
    pub fn saved_tensors(&self) -> SavedTensors {
        SavedTensors(self.node.clone())
    }

    /// Runs `node`'s formula inside this one's (CopySlices runs the in-place op's node this
    /// way): its saved tensors are freed when this pass frees this node's.
    pub(crate) fn run_inner(&self, node: &Arc<Node>, grads: &[Option<Tensor>]) -> Result<Grads> {
        node.apply(grads, self.keep_graph, false)
    }
}

/// A node's saved tensors, unpacked at each [`SavedTensors::unpack`] (PyTorch's
/// `ctx.saved_tensors`, whose every access runs the unpack hooks and refuses a released graph).
pub struct SavedTensors(Arc<Node>);

impl SavedTensors {
    /// The saved tensors, in the order they were saved.
    pub fn unpack(&self) -> Result<Vec<Tensor>> {
        let mut out = Vec::with_capacity(self.0.saved.len());
        for s in &self.0.saved {
            out.extend(s.unpack(&self.0, false)?);
        }
        Ok(out)
    }
}

impl Node {
    /// A node for an op's backward formula.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        next_edges: SmallVec<[Option<Edge>; 2]>,
        inputs: SmallVec<[InputMeta; 2]>,
        saved: SmallVec<[SavedVariable; 2]>,
        backward: BackwardFn,
    ) -> Node {
        let kind = NodeKind::Function(backward);
        Node::with_kind(intern(name.into()), next_edges, inputs, saved, kind, false)
    }

    /// A node running `kind` (a formula, or a view's part and formula). With `unpacks_saved`
    /// the formula unpacks the saved tensors itself, each time it reads them
    /// ([`BackwardCtx::saved_tensors`]), instead of the engine once before it runs; they are
    /// then released after it runs unless the graph is kept.
    ///
    /// Inlined, and the kind decided before the node exists, so that
    /// `Arc::new(Node::with_kind(..))` moves the node (over 400 bytes) fewer times than building
    /// it and then changing its kind did.
    #[inline(always)]
    pub(crate) fn with_kind(
        name: &'static str,
        next_edges: SmallVec<[Option<Edge>; 2]>,
        inputs: SmallVec<[InputMeta; 2]>,
        saved: SmallVec<[SavedVariable; 2]>,
        kind: NodeKind,
        unpacks_saved: bool,
    ) -> Node {
        Node {
            name,
            seq_nr: std::sync::atomic::AtomicU64::new(NEXT_SEQ.with(|n| {
                let seq = n.get();
                n.set(seq + 1);
                crate::core::profiler::note_node(seq);
                seq
            })),
            next_edges,
            inputs,
            saved,
            unpacks_saved,
            kind,
            extras: OnceLock::new(),
            task_slot: TaskSlot::default(),
        }
    }

    /// The shape of input `i`.
    pub(crate) fn input_shape(&self, i: usize) -> &[usize] {
        &self.inputs[i].shape
    }

    /// The dtype of input `i`.
    pub(crate) fn input_dtype(&self, i: usize) -> DType {
        self.inputs[i].dtype
    }

    /// Shape and dtype of input `i`.
    pub(crate) fn input_meta(&self, i: usize) -> InputMeta {
        self.inputs[i].clone()
    }

    /// Whether the node runs a formula (not AccumulateGrad, not a view that is a part).
    pub(crate) fn is_formula(&self) -> bool {
        matches!(self.kind, NodeKind::Function(_))
    }

    /// The AccumulateGrad node of a leaf; it runs as soon as it is ready.
    pub fn accumulate_grad(variable: Tensor) -> Node {
        let meta = InputMeta::of(&variable);
        Node {
            name: "AccumulateGrad",
            seq_nr: std::sync::atomic::AtomicU64::new(u64::MAX),
            next_edges: SmallVec::new(),
            inputs: smallvec::smallvec![meta],
            saved: SmallVec::new(),
            unpacks_saved: false,
            kind: NodeKind::AccumulateGrad(variable),
            extras: OnceLock::new(),
            task_slot: TaskSlot::default(),
        }
    }

    /// PyTorch's class name for this node (`MulBackward0`, `AccumulateGrad`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Renames a node nothing else holds yet (an in-place variant's node made by the
    /// out-of-place op, `TBackward0` becoming `TBackward1`); `false` if it is shared.
    pub(crate) fn rename(node: &mut Arc<Node>, name: &'static str) -> bool {
        match Arc::get_mut(node) {
            Some(n) => {
                n.name = name;
                true
            }
            None => false,
        }
    }

    /// The node as PyTorch's profiler names it (`MulBackward0`,
    /// `torch::autograd::AccumulateGrad`).
    pub fn profiler_name(&self) -> String {
        match self.kind {
            NodeKind::AccumulateGrad(_) => "torch::autograd::AccumulateGrad".to_string(),
            NodeKind::Function(_) | NodeKind::Part(_) => self.name.to_string(),
        }
    }

    /// The element count of each of the node's inputs.
    fn input_elements(&self) -> impl Iterator<Item = usize> + '_ {
        self.inputs
            .iter()
            .map(|m| m.shape.iter().product::<usize>())
    }

    /// A rough measure of the node's work: the elements of its inputs.
    pub fn work(&self) -> usize {
        self.input_elements().sum()
    }

    /// The elements of the node's largest input.
    pub fn largest_input(&self) -> usize {
        self.input_elements().max().unwrap_or(0)
    }

    /// Creation order; newer nodes run first.
    pub fn seq_nr(&self) -> u64 {
        self.seq_nr.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Renumbers the node, which moves it in the engine's order (PyTorch's
    /// `_set_sequence_nr`): a higher number runs earlier among the nodes ready together.
    pub fn set_seq_nr(&self, seq_nr: u64) {
        self.seq_nr
            .store(seq_nr, std::sync::atomic::Ordering::Relaxed);
    }

    /// Edges to the nodes of this node's inputs (`None` where an input needs no gradient).
    pub fn next_edges(&self) -> &[Option<Edge>] {
        &self.next_edges
    }

    /// The leaf of an AccumulateGrad node.
    pub fn variable(&self) -> Option<&Tensor> {
        match &self.kind {
            NodeKind::AccumulateGrad(v) => Some(v),
            NodeKind::Function(_) | NodeKind::Part(_) => None,
        }
    }

    pub(crate) fn kind(&self) -> &NodeKind {
        &self.kind
    }

    /// Runs the backward formula on `grads` and fixes the results up to the inputs' shapes and dtypes.
    pub(crate) fn apply(
        self: &Arc<Self>,
        grads: &[Option<Tensor>],
        keep_graph: bool,
        grads_spent: bool,
    ) -> Result<Vec<Option<Tensor>>> {
        let backward = match &self.kind {
            NodeKind::Function(backward) => backward,
            NodeKind::Part(f) => &f.backward,
            NodeKind::AccumulateGrad(_) => unreachable!("AccumulateGrad is run by the engine"),
        };
        // without keep_graph the saved tensors move out (and are freed with the context)
        let mut saved = SmallVec::new();
        for s in self.saved.iter().filter(|_| !self.unpacks_saved) {
            match s.unpack(self, !keep_graph) {
                Ok(t) => saved.push(t),
                Err(e) => {
                    if !keep_graph {
                        self.release_saved();
                    }
                    return Err(e);
                }
            }
        }
        let result = backward(&BackwardCtx {
            grads,
            grads_spent,
            keep_graph,
            saved,
            node: self,
        });
        if self.unpacks_saved && !keep_graph {
            self.release_saved();
        }
        let mut grads = result?;
        // a formula may leave out trailing inputs that need no gradient (wrapped numbers)
        if grads.len() < self.next_edges.len()
            && self.next_edges[grads.len()..].iter().all(Option::is_none)
        {
            grads.resize(self.next_edges.len(), None);
        }
        if grads.len() != self.next_edges.len() {
            return Err(Error::runtime(format!(
                "function {} returned an incorrect number of gradients (expected {}, got {})",
                self.name,
                self.next_edges.len(),
                grads.len()
            )));
        }
        for (i, slot) in grads.iter_mut().enumerate() {
            if self.next_edges[i].is_none() {
                *slot = None;
            }
            if let Some(g) = slot.take() {
                *slot = Some(self.conform(i, g)?);
            }
        }
        Ok(grads)
    }

    /// Sums a broadcast gradient back to input `i`'s shape and casts it to its dtype.
    fn conform(&self, i: usize, mut g: Tensor) -> Result<Tensor> {
        let meta = &self.inputs[i];
        if !same_shape(g.shape(), &meta.shape) {
            if !is_expandable_to(&meta.shape, g.shape()) {
                return Err(Error::runtime(format!(
                    "Function {} returned an invalid gradient at index {i} - got {} but expected shape compatible with {}",
                    self.name,
                    fmt_shape(g.shape()),
                    fmt_shape(&meta.shape)
                )));
            }
            g = g.sum_to(&meta.shape)?;
        }
        if g.dtype() != meta.dtype {
            g = g.to_dtype(meta.dtype)?;
        }
        Ok(g)
    }

    /// Records that the forward op had `n` outputs (gradients the formula takes).
    pub(crate) fn set_outputs(&self, n: usize) {
        if n != 1 {
            self.extras_mut().n_outputs = Some(n as u32);
        }
    }

    /// Records the shape and dtype of output `output_nr` (a tensor whose gradient edge is
    /// taken), so a backward pass started from that edge can make and check its gradient as
    /// from the tensor. Not kept for every node: few edges are ever taken.
    pub fn record_output_meta(&self, output_nr: usize, tensor: &Tensor) {
        if self.variable().is_some() {
            return;
        }
        let mut extras = self.extras_mut();
        if !extras.output_meta.iter().any(|(nr, _)| *nr == output_nr) {
            extras.output_meta.push((output_nr, InputMeta::of(tensor)));
        }
    }

    /// Shape and dtype of output `output_nr`, when known: a leaf's for an AccumulateGrad node,
    /// else what [`Node::record_output_meta`] recorded.
    pub fn output_meta(&self, output_nr: usize) -> Option<(SmallVec<[usize; 2]>, DType)> {
        if let Some(v) = self.variable() {
            return Some((SmallVec::from_slice(v.shape()), v.dtype()));
        }
        let extras = self.extras.get()?.lock();
        let (_, meta) = extras.output_meta.iter().find(|(nr, _)| *nr == output_nr)?;
        Some((meta.shape.clone(), meta.dtype))
    }

    /// How many outputs the forward op had.
    pub fn n_outputs(&self) -> usize {
        self.extras
            .get()
            .and_then(|e| e.lock().n_outputs)
            .map_or(1, |n| n as usize)
    }

    /// How many saved slots the node has.
    pub fn saved_len(&self) -> usize {
        self.saved.len()
    }

    /// Saved slot `i`, unpacked without being freed (Python's `grad_fn._saved_<name>`):
    /// `None` where nothing was saved; PyTorch's error once backward freed it.
    pub fn saved_value(self: &Arc<Self>, i: usize) -> Result<Option<Tensor>> {
        self.saved[i].unpack(self, false)
    }

    /// Saved slot `i` as it is held (Python's `grad_fn._raw_saved_<name>.data`).
    pub fn saved_raw(&self, i: usize) -> Result<super::saved::RawSaved> {
        self.saved[i].raw()
    }

    /// Packs saved slot `i` with `pack` (Python's `_raw_saved_<name>.register_hooks`).
    pub fn register_saved_hooks(&self, i: usize, pack: &super::saved::PackHook) -> Result<()> {
        self.saved[i].register_hooks(pack)
    }

    /// Calls the node as a function (Python's `grad_fn(*grads)`): its formula on `grads`, one
    /// per output of the forward op, keeping the saved tensors.
    pub fn call(self: &Arc<Self>, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {
        let n_outputs = self.n_outputs();
        if grads.len() != n_outputs {
            return Err(Error::type_error(format!(
                "expected {n_outputs} arguments, got {} instead",
                grads.len()
            )));
        }
        match &self.kind {
            NodeKind::AccumulateGrad(v) => {
                if let Some(g) = &grads[0] {
                    super::accumulate::accumulate_grad(v, g.clone(), false)?;
                }
                Ok(vec![])
            }
            _ => self.apply(grads, true, false),
        }
    }

    /// Frees the saved tensors (after a backward pass without `retain_graph`).
    pub(crate) fn release_saved(&self) {
        for s in &self.saved {
            s.release();
        }
    }
}

/// The edge gradients of `tensor` flow into as its history stands (no view is made again: see
/// `autograd::gradient_edge`): its grad_fn, or its AccumulateGrad, made on first use, if it is
/// a leaf that requires grad.
pub(crate) fn current_edge(tensor: &Tensor) -> Option<Edge> {
    let mut meta = tensor.meta();
    if let Some(edge) = &meta.grad_fn {
        return Some(edge.clone());
    }
    if !meta.requires_grad {
        return None;
    }
    let node = match meta.accumulator.upgrade() {
        Some(node) => node,
        None => {
            let node = Arc::new(Node::accumulate_grad(tensor.clone()));
            meta.accumulator = Arc::downgrade(&node);
            node
        }
    };
    Some(Edge { node, input_nr: 0 })
}

impl Drop for Node {
    fn drop(&mut self) {
        let edges = std::mem::take(&mut self.next_edges);
        let variable = match &mut self.kind {
            NodeKind::AccumulateGrad(_) => {
                let NodeKind::AccumulateGrad(v) =
                    std::mem::replace(&mut self.kind, NodeKind::Function(Box::new(|_| Ok(vec![]))))
                else {
                    unreachable!()
                };
                Some(v)
            }
            NodeKind::Function(_) | NodeKind::Part(_) => None,
        };
        let saved: SmallVec<[Tensor; 2]> = self.saved.iter().filter_map(|s| s.take()).collect();
        release_edges(edges, saved.into_iter().chain(variable));
    }
}

/// Puts a hook's replacement gradients in place, checking their count.
fn replace_grads(grads: &mut [Option<Tensor>], new: Grads, what: &str) -> Result<()> {
    if new.len() != grads.len() {
        return Err(Error::runtime(format!(
            "{what} returned {} gradients, expected {}",
            new.len(),
            grads.len()
        )));
    }
    for (slot, g) in grads.iter_mut().zip(new) {
        *slot = g;
    }
    Ok(())
}

thread_local! {
    /// Nodes waiting to be freed, and whether a release loop is already draining them on this thread.
    static RELEASE_QUEUE: RefCell<(bool, Vec<Arc<Node>>)> = const { RefCell::new((false, Vec::new())) };
}

/// Frees a tensor's history without recursion: the nodes go onto a per-thread queue drained by a loop.
pub(crate) fn release_iteratively(node: Option<Arc<Node>>, grad: Option<Tensor>) {
    release_edges(node.map(|node| Edge { node, input_nr: 0 }), grad);
}

/// Queues `edges`' nodes and the histories of `tensors` for release, and drains the queue unless a
/// loop further up this thread's stack is already doing so.
pub(crate) fn release_edges(
    edges: impl IntoIterator<Item = impl Into<Option<Edge>>>,
    tensors: impl IntoIterator<Item = Tensor>,
) {
    // Nodes someone else still holds are just let go here; only last references are queued.
    let mut nodes: SmallVec<[Arc<Node>; 4]> = SmallVec::new();
    let mut keep_last = |node: Arc<Node>| {
        if Arc::strong_count(&node) == 1 {
            nodes.push(node);
        }
    };
    for edge in edges.into_iter().filter_map(Into::into) {
        keep_last(edge.node);
    }
    for t in tensors {
        // Only the last handle of a tensor owns its history; otherwise dropping it is shallow.
        if let Some(mut inner) = Arc::into_inner(t.0) {
            let meta = inner.meta.get_mut();
            if let Some(e) = meta.grad_fn.take() {
                keep_last(e.node);
            }
            if let Some(g) = meta.grad.take() {
                if let Some(mut g) = Arc::into_inner(g.0) {
                    if let Some(e) = g.meta.get_mut().grad_fn.take() {
                        keep_last(e.node);
                    }
                }
            }
        }
    }
    if nodes.is_empty() {
        return;
    }
    let drained_here = RELEASE_QUEUE.try_with(|q| {
        let mut q = q.borrow_mut();
        q.1.extend(nodes.drain(..));
        let already = q.0;
        q.0 = true;
        !already
    });
    match drained_here {
        Ok(true) => {
            // Each popped node's Drop pushes its children and returns at once.
            let mut released = 0usize;
            while let Some(node) = RELEASE_QUEUE.with(|q| q.borrow_mut().1.pop()) {
                drop(node);
                released += 1;
            }
            RELEASE_QUEUE.with(|q| q.borrow_mut().0 = false);
            if released >= RETURN_MEMORY_AFTER {
                return_free_memory();
            }
        }
        Ok(false) => {}
        Err(_) => drop(nodes), // thread teardown: plain drop
    }
}

/// Freeing a graph this large (in nodes) hands the freed heap back to the operating system.
const RETURN_MEMORY_AFTER: usize = 100_000;

/// Returns freed memory to the OS: the buffer pool's and the allocator's free blocks of a
/// freed graph, so the process shrinks back after a deep chain.
fn return_free_memory() {
    crate::core::pool::clear();
    crate::cpu::allocator::return_free_memory();
}
