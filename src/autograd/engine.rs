//! The backward engine: dependency counting, input buffers, and execution newest-node-first.
//!
//! One call of [`backward`] or [`grad`] is a graph task. It walks the graph from the roots with an
//! explicit stack (never recursion) to count how many edges lead into each node, then runs a node
//! once all its incoming gradients have been summed into its input buffer. Nodes, input buffers and
//! dependency counts are plain `Send + Sync` data, so independent ready nodes can run concurrently.

use super::gradient_edge;
use super::node::{Edge, Node, NodeKind};
use crate::error::{Error, Result};
use crate::grad_mode::GradModeGuard;
use crate::kernels::add_into;
use crate::layout::fmt_shape;
use crate::tensor::Tensor;
use rayon::prelude::*;
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Options of [`grad`] (PyTorch's keyword arguments).
#[derive(Clone, Copy, Debug, Default)]
pub struct GradOptions {
    /// Keep saved tensors for another backward pass; defaults to `create_graph`.
    pub retain_graph: Option<bool>,
    /// Record the backward computation, for higher-order derivatives.
    pub create_graph: bool,
    /// Return `None` for inputs the outputs do not depend on instead of failing.
    pub allow_unused: bool,
}

type NodeId = usize;

/// Hashes node addresses: they are unique and well spread, so a multiply is enough.
#[derive(Default, Clone, Copy)]
struct AddressHasher(u64);

impl std::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64 >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Build = std::hash::BuildHasherDefault<AddressHasher>;
type NodeMap<V> = HashMap<NodeId, V, Build>;
type NodeSet = HashSet<NodeId, Build>;

fn id(node: &Arc<Node>) -> NodeId {
    Arc::as_ptr(node) as NodeId
}

impl Tensor {
    /// Computes the gradient of this tensor with respect to the graph leaves and accumulates it in their `.grad`.
    ///
    /// `gradient` is required unless the tensor has one element; `retain_graph` defaults to `create_graph`.
    pub fn backward(
        &self,
        gradient: Option<&Tensor>,
        retain_graph: Option<bool>,
        create_graph: bool,
    ) -> Result<()> {
        backward(
            std::slice::from_ref(self),
            &[gradient.cloned()],
            retain_graph,
            create_graph,
        )
    }
}

/// Accumulates the gradients of `tensors` (weighted by `grad_tensors`) into the leaves' `.grad`.
pub fn backward(
    tensors: &[Tensor],
    grad_tensors: &[Option<Tensor>],
    retain_graph: Option<bool>,
    create_graph: bool,
) -> Result<()> {
    let roots = make_roots(tensors, grad_tensors)?;
    let keep_graph = retain_graph.unwrap_or(create_graph);
    GraphTask {
        keep_graph,
        create_graph,
        accumulate: true,
    }
    .execute(roots, &[])?;
    Ok(())
}

/// Returns the gradients of `outputs` with respect to `inputs` without touching any `.grad`.
pub fn grad(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    options: GradOptions,
) -> Result<Vec<Option<Tensor>>> {
    let mut input_edges = Vec::with_capacity(inputs.len());
    for (i, t) in inputs.iter().enumerate() {
        match gradient_edge(t) {
            Some(edge) => input_edges.push(edge),
            None => {
                return Err(Error::runtime(format!(
                "One of the differentiated Tensors does not require grad (input {i}, a {}). Call \
                     .requires_grad_() on it before computing the outputs.",
                t.type_description()
            )))
            }
        }
    }
    let roots = make_roots(outputs, grad_outputs)?;
    let keep_graph = options.retain_graph.unwrap_or(options.create_graph);
    let task = GraphTask {
        keep_graph,
        create_graph: options.create_graph,
        accumulate: false,
    };
    let results = task.execute(roots, &input_edges)?;
    if !options.allow_unused {
        if let Some(i) = results.iter().position(|r| r.is_none()) {
            return Err(Error::runtime(format!(
                "One of the differentiated Tensors appears to not have been used in the graph. Set \
                 allow_unused=True if this is the desired behavior. (input {i}, a {}, is not reachable from the outputs)",
                inputs[i].type_description()
            )));
        }
    }
    Ok(results)
}

/// Pairs each output's gradient edge with its starting gradient, checking PyTorch's preconditions.
fn make_roots(tensors: &[Tensor], grads: &[Option<Tensor>]) -> Result<Vec<(Edge, Tensor)>> {
    if !grads.is_empty() && grads.len() != tensors.len() {
        return Err(Error::runtime(format!(
            "grad can be implicitly created only for scalar outputs: got {} gradients for {} outputs",
            grads.len(),
            tensors.len()
        )));
    }
    let mut roots = Vec::with_capacity(tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        let Some(edge) = gradient_edge(t) else {
            return Err(Error::runtime(format!(
                "element {i} of tensors does not require grad and does not have a grad_fn"
            )));
        };
        let g = match grads.get(i).cloned().flatten() {
            Some(g) => {
                if g.shape() != t.shape() {
                    return Err(Error::runtime(format!(
                        "Mismatch in shape: grad_output[{i}] has a shape of {} and output[{i}] has a shape of {}.",
                        fmt_shape(g.shape()),
                        fmt_shape(t.shape())
                    )));
                }
                if !g.dtype().is_floating_point() {
                    return Err(Error::runtime(format!(
                        "For complex or floating point outputs, grad_output[{i}] must be floating point, got {}",
                        g.dtype().name()
                    )));
                }
                g
            }
            None if t.numel() == 1 => t.ones_like(),
            None => {
                return Err(Error::runtime(format!(
                    "grad can be implicitly created only for scalar outputs (output {i} has shape {}; pass a \
                     gradient of that shape to backward())",
                    fmt_shape(t.shape())
                )))
            }
        };
        roots.push((edge, g));
    }
    Ok(roots)
}

/// Gradients arriving at one node, per input slot (PyTorch's InputBuffer). Contributions are
/// kept with the sequence number of the node that produced them and summed in that order, so
/// the result does not depend on which thread delivered first.
#[derive(Default)]
struct InputBuffer(SmallVec<[Contributions; 2]>);

/// The gradients that arrived for one input slot, with their producers' sequence numbers (two
/// inline: a chain or a single fan-in allocates nothing).
type Contributions = SmallVec<[(u64, Tensor); 2]>;

impl InputBuffer {
    fn add(&mut self, slot: usize, producer: u64, g: Tensor) {
        if self.0.len() <= slot {
            self.0.resize_with(slot + 1, SmallVec::new);
        }
        self.0[slot].push((producer, g));
    }

    /// The summed gradient of each slot (`None` where nothing arrived).
    fn sum(self) -> Result<Grads> {
        self.0
            .into_iter()
            .map(|mut parts| {
                parts.sort_by_key(|(producer, _)| std::cmp::Reverse(*producer));
                let mut parts = parts.into_iter().map(|(_, g)| g);
                let Some(first) = parts.next() else {
                    return Ok(None);
                };
                parts.try_fold(first, sum_two).map(Some)
            })
            .collect()
    }
}

/// `acc + g`, written into `acc` when nobody else sees it and no graph is being built (the
/// same values as a new sum, without allocating one).
fn sum_two(acc: Tensor, g: Tensor) -> Result<Tensor> {
    let reusable = !acc.requires_grad()
        && !g.requires_grad()
        && acc.dtype() == g.dtype()
        && acc.shape() == g.shape()
        && owns_exclusively(&acc);
    if reusable {
        add_into(&acc, &g)?;
        return Ok(acc);
    }
    acc.add(&g)
}

/// One gradient per input slot of a node (`None` where nothing arrived).
type Grads = SmallVec<[Option<Tensor>; 2]>;

/// What running one node produced: the gradients it saw (after hooks, for capture) and the
/// gradients for its inputs.
struct NodeOutcome {
    seen: Grads,
    outputs: Vec<Option<Tensor>>,
}

/// A wave whose nodes together touch at least this many elements runs on several threads.
const PARALLEL_WAVE_ELEMENTS: usize = 1 << 16;

/// One backward call.
struct GraphTask {
    keep_graph: bool,
    create_graph: bool,
    /// `backward()` (accumulate into leaves) rather than `grad()` (capture at `inputs`).
    accumulate: bool,
}

impl GraphTask {
    /// Runs the task; returns the gradients captured at `captures` (empty for `backward`).
    fn execute(
        &self,
        roots: Vec<(Edge, Tensor)>,
        captures: &[Edge],
    ) -> Result<Vec<Option<Tensor>>> {
        let _mode = GradModeGuard::new(self.create_graph);
        let (mut dependencies, order) = count_dependencies(&roots, !self.accumulate);
        let mut capture_at: NodeMap<Vec<(usize, usize)>> = HashMap::default();
        for (k, edge) in captures.iter().enumerate() {
            capture_at
                .entry(id(&edge.node))
                .or_default()
                .push((edge.input_nr, k));
        }
        let needed = (!self.accumulate).then(|| nodes_leading_to_captures(&order, &capture_at));

        let mut buffers: NodeMap<InputBuffer> = HashMap::default();
        let mut ready: Vec<Arc<Node>> = Vec::new();
        let mut queued: NodeSet = HashSet::default();
        for (edge, g) in roots {
            buffers
                .entry(id(&edge.node))
                .or_default()
                .add(edge.input_nr, u64::MAX, g);
            if !dependencies.contains_key(&id(&edge.node)) && queued.insert(id(&edge.node)) {
                ready.push(edge.node);
            }
        }

        // Run in waves: every node whose inputs are all in. A wave with enough work runs on
        // the kernel threads; results are merged in a fixed order (newest node first).
        let mut results: Vec<Option<Tensor>> = vec![None; captures.len()];
        let runs = |node: &Arc<Node>| needed.as_ref().is_none_or(|n| n.contains(&id(node)));
        while !ready.is_empty() {
            let wave: SmallVec<[(Arc<Node>, Result<NodeOutcome>); 1]> = if ready.len() == 1 {
                // a chain: no wave bookkeeping
                let node = ready.pop().expect("one ready node");
                let buffer = buffers.remove(&id(&node)).unwrap_or_default();
                let outcome = self.run_node(&node, buffer, runs(&node));
                smallvec::smallvec![(node, outcome)]
            } else {
                let mut wave = std::mem::take(&mut ready);
                wave.sort_by_key(|n| std::cmp::Reverse(n.seq_nr()));
                let inputs: Vec<InputBuffer> = wave
                    .iter()
                    .map(|node| buffers.remove(&id(node)).unwrap_or_default())
                    .collect();
                let work: usize = wave.iter().map(|n| n.work()).sum();
                let outcomes: Vec<Result<NodeOutcome>> = if work >= PARALLEL_WAVE_ELEMENTS {
                    let create_graph = self.create_graph;
                    crate::parallel::install(|_| {
                        wave.par_iter()
                            .zip(inputs.into_par_iter())
                            .map(|(node, buffer)| {
                                // grad mode is per thread: set it on whichever thread runs the node
                                let _mode = GradModeGuard::new(create_graph);
                                self.run_node(node, buffer, runs(node))
                            })
                            .collect()
                    })
                } else {
                    wave.iter()
                        .zip(inputs)
                        .map(|(node, buffer)| self.run_node(node, buffer, runs(node)))
                        .collect()
                };
                wave.into_iter().zip(outcomes).collect()
            };
            // merge in wave order (newest node first): the sums do not depend on threads
            for (node, outcome) in wave {
                let outcome = outcome?;
                if let Some(slots) = capture_at.get(&id(&node)) {
                    for &(input_nr, k) in slots {
                        results[k] = outcome.seen.get(input_nr).cloned().flatten();
                    }
                }
                if !runs(&node) {
                    continue;
                }
                for (edge, g) in node.next_edges().iter().zip(outcome.outputs) {
                    let Some(edge) = edge else { continue };
                    let child = id(&edge.node);
                    if let Some(g) = g {
                        buffers
                            .entry(child)
                            .or_default()
                            .add(edge.input_nr, node.seq_nr(), g);
                    }
                    let count = dependencies
                        .get_mut(&child)
                        .expect("every child was counted");
                    *count -= 1;
                    if *count == 0 {
                        ready.push(edge.node.clone());
                    }
                }
            }
        }
        Ok(results)
    }

    /// Runs one ready node: sums its input buffer, applies hooks, then (if it must run)
    /// accumulates into its leaf or evaluates its backward formula.
    fn run_node(&self, node: &Arc<Node>, buffer: InputBuffer, runs: bool) -> Result<NodeOutcome> {
        let mut grads = buffer.sum()?;
        match node.kind() {
            NodeKind::Function(_) => node.run_pre_hooks(&mut grads)?,
            NodeKind::AccumulateGrad(variable) => {
                if let Some(slot) = grads.get_mut(0) {
                    if let Some(g) = slot.take() {
                        *slot = Some(variable.run_leaf_hooks(g)?);
                    }
                }
            }
        }
        let mut outcome = NodeOutcome {
            seen: grads,
            outputs: Vec::new(),
        };
        if !runs {
            return Ok(outcome);
        }
        match node.kind() {
            NodeKind::AccumulateGrad(variable) => {
                // backward() captures nothing, so the gradient moves into `.grad` (a clone
                // would make it shared, and so copied)
                let g = match self.accumulate {
                    true => outcome.seen.first_mut().and_then(Option::take),
                    false => outcome.seen.first().cloned().flatten(),
                };
                if let Some(g) = g {
                    accumulate_grad(variable, g, self.create_graph)?;
                }
            }
            NodeKind::Function(_) => {
                if self.accumulate {
                    node.store_retained_grads(&outcome.seen)?;
                }
                outcome.outputs = if outcome.seen.iter().all(|g| g.is_none()) {
                    vec![None; node.next_edges().len()]
                } else {
                    node.apply(&outcome.seen, self.keep_graph)?
                };
            }
        }
        Ok(outcome)
    }
}

/// Counts incoming edges per node reachable from the roots, with an explicit stack; also returns
/// the nodes in a topological order (every node before the nodes it points to).
fn count_dependencies(
    roots: &[(Edge, Tensor)],
    want_order: bool,
) -> (NodeMap<usize>, Vec<Arc<Node>>) {
    let mut dependencies: NodeMap<usize> = HashMap::default();
    let mut seen: NodeSet = HashSet::default();
    let mut stack: Vec<Arc<Node>> = Vec::new();
    let mut all: Vec<Arc<Node>> = Vec::new();
    for (edge, _) in roots {
        if seen.insert(id(&edge.node)) {
            stack.push(edge.node.clone());
        }
    }
    while let Some(node) = stack.pop() {
        for edge in node.next_edges().iter().flatten() {
            *dependencies.entry(id(&edge.node)).or_insert(0) += 1;
            if seen.insert(id(&edge.node)) {
                stack.push(edge.node.clone());
            }
        }
        all.push(node);
    }
    if !want_order {
        return (dependencies, Vec::new());
    }
    // Kahn's algorithm over a copy of the counts gives a topological order.
    let mut remaining = dependencies.clone();
    let mut order = Vec::with_capacity(all.len());
    let mut frontier: Vec<Arc<Node>> = all
        .iter()
        .filter(|n| !dependencies.contains_key(&id(n)))
        .cloned()
        .collect();
    while let Some(node) = frontier.pop() {
        for edge in node.next_edges().iter().flatten() {
            let count = remaining.get_mut(&id(&edge.node)).expect("counted above");
            *count -= 1;
            if *count == 0 {
                frontier.push(edge.node.clone());
            }
        }
        order.push(node);
    }
    (dependencies, order)
}

/// The nodes that must run for `grad()`: those from which a captured node can be reached.
fn nodes_leading_to_captures(
    order: &[Arc<Node>],
    capture_at: &NodeMap<Vec<(usize, usize)>>,
) -> NodeSet {
    let mut needed: NodeSet = HashSet::default();
    for node in order.iter().rev() {
        let leads = node
            .next_edges()
            .iter()
            .flatten()
            .any(|e| capture_at.contains_key(&id(&e.node)) || needed.contains(&id(&e.node)));
        if leads {
            needed.insert(id(node));
        }
    }
    needed
}

/// AccumulateGrad: adds `g` into `variable.grad` (PyTorch's rules for stealing vs copying).
fn accumulate_grad(variable: &Tensor, g: Tensor, create_graph: bool) -> Result<()> {
    let mut meta = variable.meta();
    let new = match meta.grad.take() {
        None if create_graph => g,
        None if !g.requires_grad() && owns_exclusively(&g) => steal(g),
        None => g.deep_copy(),
        Some(old) if create_graph => old.add(&g)?,
        Some(old) => {
            // in place, under the leaf's lock, so concurrent backward passes never lose a sum
            add_into(&old, &g)?;
            old.storage().bump_version("add_");
            old
        }
    };
    meta.grad = Some(new);
    Ok(())
}

/// True when nobody else can see `g`'s data, so it may become a `.grad` and be updated in
/// place: `g` covers all of its storage, densely, and the only other holder of the storage is
/// `g`'s own base (a view's base that nothing else holds, e.g. the `.t()` of a fresh product).
fn owns_exclusively(g: &Tensor) -> bool {
    let base_holds = match g.base() {
        None => 0,
        Some(base) if Arc::strong_count(&base.0) == 1 && base.base().is_none() => 1,
        Some(_) => return false,
    };
    Arc::strong_count(&g.0) == 1
        && Arc::strong_count(g.storage()) == 1 + base_holds
        && g.layout().offset == 0
        && g.is_contiguous()
        && g.storage().read().len() == g.numel()
}

/// `g`'s elements as a tensor of their own (no base), without copying; `g` must own them
/// exclusively (see [`owns_exclusively`]).
fn steal(g: Tensor) -> Tensor {
    if g.base().is_none() {
        return g;
    }
    Tensor::from_parts(g.storage().clone(), g.layout().clone(), g.dtype(), None)
}
