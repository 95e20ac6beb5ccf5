//! The backward engine: runs a graph task's nodes in waves, newest node first.
//!
//! One call of [`backward`] or [`grad`] is a graph task. Its [`TaskGraph`] numbers the nodes
//! reachable from the roots (an explicit stack, never recursion) and counts the edges into each;
//! a node runs once all its incoming gradients have been summed into its input buffer. The
//! nodes ready together form a wave, whose results are delivered in a fixed order. Once a wave
//! holds enough work, the rest of the graph runs on all kernel threads ([`ParallelPhase`];
//! not with `create_graph`, whose new nodes must all be numbered by the calling thread),
//! each taking the next ready node, with every sum still made in that fixed order: gradients
//! do not depend on the number of threads.

use super::gradient_edge;
use super::node::{Edge, Node, NodeKind};
use super::task_graph::{Grads, Index, InputBuffer, TaskGraph};
use crate::error::{Error, Result};
use crate::grad_mode::GradModeGuard;
use crate::kernels::add_into;
use crate::layout::{fmt_shape, same_shape};
use crate::tensor::{owns_exclusively, Tensor};
use smallvec::SmallVec;
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

/// `acc + g`, written into `acc` when nobody else sees it and no graph is being built (the
/// same values as a new sum, without allocating one).
pub(super) fn sum_two(acc: Tensor, g: Tensor) -> Result<Tensor> {
    let reusable = !acc.requires_grad()
        && !g.requires_grad()
        && acc.dtype() == g.dtype()
        && same_shape(acc.shape(), g.shape())
        && owns_exclusively(&acc);
    if reusable {
        add_into(&acc, &g)?;
        return Ok(acc);
    }
    acc.add(&g)
}

/// What running one node produced: the gradients it saw (after hooks, for capture) and the
/// gradients for its inputs.
struct NodeOutcome {
    seen: Grads,
    outputs: Vec<Option<Tensor>>,
}

/// Once a wave's nodes together touch at least this many elements, the rest of the graph runs
/// on several threads (see [`ParallelPhase`]).
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
        let mut graph = TaskGraph::build(roots.iter().map(|(edge, _)| &edge.node));
        // (node, input_nr, k): output `input_nr` of node `node` is captured as result `k`
        let capture_at: Vec<(Index, usize, usize)> = captures
            .iter()
            .enumerate()
            .filter_map(|(k, e)| Some((graph.index_of(&e.node)?, e.input_nr, k)))
            .collect();
        // which nodes have a captured output (empty for backward(), which captures nothing)
        let mut captured = Vec::new();
        if !capture_at.is_empty() {
            captured.resize(graph.len(), false);
            for &(i, _, _) in &capture_at {
                captured[i as usize] = true;
            }
        }
        let needed = (!self.accumulate).then(|| nodes_leading_to_captures(&graph, &captured));

        let mut ready: Vec<(Index, InputBuffer)> = Vec::new();
        let mut root_nodes: SmallVec<[Index; 1]> = SmallVec::new();
        for (edge, g) in roots {
            let i = graph.index_of(&edge.node).expect("roots are numbered");
            graph.add_root(i, edge.input_nr, g)?;
            if !root_nodes.contains(&i) {
                root_nodes.push(i);
            }
        }
        for &i in &root_nodes {
            if graph.dependencies(i) == 0 {
                ready.push((i, graph.take_buffer(i)));
            }
        }

        // Run in waves: every node whose inputs are all in, results merged in a fixed order
        // (newest node first). From a wave with enough work on, all kernel threads run nodes.
        let mut results: Vec<Option<Tensor>> = vec![None; captures.len()];
        let runs = |i: Index| needed.as_ref().is_none_or(|n| n[i as usize]);
        let is_captured = |i: Index| captured.get(i as usize) == Some(&true);
        let threads = crate::parallel::num_threads();
        let mut wave_nr: u32 = 0;
        while !ready.is_empty() {
            let wave: SmallVec<[(Index, Result<NodeOutcome>); 1]> = if ready.len() == 1 {
                // a chain: no wave bookkeeping
                let (i, buffer) = ready.pop().expect("one ready node");
                let outcome = self.run_node(graph.node(i), buffer, runs(i), !is_captured(i));
                smallvec::smallvec![(i, outcome)]
            } else {
                let work: usize = ready.iter().map(|(i, _)| graph.node(*i).work()).sum();
                // (not when building a graph: the nodes the formulas create take their sequence
                // numbers from the thread that runs them, and a later backward through them
                // orders its sums by those numbers, so they must all come from this thread)
                if threads > 1 && !self.create_graph && work >= PARALLEL_WAVE_ELEMENTS {
                    // enough to share out: the rest of the graph runs on all threads
                    let phase = ParallelPhase {
                        task: self,
                        runs: &runs,
                        is_captured: &is_captured,
                        capture_at: &capture_at,
                    };
                    return phase.run(graph, ready, wave_nr, results, threads);
                }
                let mut wave = std::mem::take(&mut ready);
                wave.sort_by_key(|(i, _)| (std::cmp::Reverse(graph.node(*i).seq_nr()), *i));
                wave.into_iter()
                    .map(|(i, buffer)| {
                        let outcome =
                            self.run_node(graph.node(i), buffer, runs(i), !is_captured(i));
                        (i, outcome)
                    })
                    .collect()
            };
            // merge in wave order (newest node first): the sums do not depend on threads
            for (i, outcome) in wave {
                let outcome = outcome?;
                if is_captured(i) {
                    capture(&capture_at, i, &outcome.seen, &mut results);
                }
                if runs(i) {
                    graph.deliver_outputs(i, outcome.outputs, &mut ready)?;
                }
                graph.finished(i);
            }
            wave_nr += 1;
        }
        Ok(results)
    }

    /// Runs one ready node: sums its input buffer, applies hooks, then (if it must run)
    /// accumulates into its leaf or evaluates its backward formula, which may overwrite the
    /// incoming gradients when they are `spent` (not captured as results).
    fn run_node(
        &self,
        node: &Arc<Node>,
        buffer: InputBuffer,
        runs: bool,
        spent: bool,
    ) -> Result<NodeOutcome> {
        let mut grads = buffer.0;
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
                    node.apply(&outcome.seen, self.keep_graph, spent)?
                };
            }
        }
        Ok(outcome)
    }
}

/// The rest of a graph task run by several threads at once: the calling thread and pool
/// threads summoned while more nodes are ready than threads run them each take the next ready
/// node (earliest wave first, then the newest), run it, and deliver its gradients under one
/// lock. Pool threads never wait inside the phase (they return when nothing is ready), so a
/// kernel that queues work on the pool from inside a node always finds a thread.
/// The gradients reaching a node are summed only once it is ready, in the order the waves of
/// the one-thread engine would have delivered them (wave, then newest producer first, then
/// edge order), so sums are the same bits with any number of threads and any timing.
struct ParallelPhase<'a, R, C> {
    task: &'a GraphTask,
    runs: &'a R,
    is_captured: &'a C,
    capture_at: &'a [(Index, usize, usize)],
}

/// What the threads of a [`ParallelPhase`] share.
struct Shared {
    state: parking_lot::Mutex<PhaseState>,
    /// Wakes the calling thread when a node finishes.
    wake: parking_lot::Condvar,
    /// The pool threads to summon (set as the phase starts).
    crew: std::sync::OnceLock<crate::parallel::Crew>,
    /// At most this many helpers besides the calling thread.
    helpers_max: usize,
}

impl Shared {
    /// Summons a helper for each ready node no thread is free to take, up to `helpers_max`.
    fn call_helpers(&self, st: &mut PhaseState) {
        let Some(crew) = self.crew.get() else { return };
        while st.helpers < self.helpers_max && st.helpers < st.ready.len() {
            st.helpers += 1;
            crew.summon();
        }
    }
}

/// The state of a [`ParallelPhase`], under [`Shared`]'s lock.
struct PhaseState {
    graph: TaskGraph,
    ready: std::collections::BinaryHeap<ReadyNode>,
    /// Each node's wave in the one-thread engine: one more than its latest producer's.
    wave_of: Vec<u32>,
    /// Gradients delivered into each node not yet ready, with their summing order.
    arrivals: Vec<Vec<(ArrivalKey, usize, Tensor)>>,
    running: usize,
    /// Helpers summoned and not yet returned.
    helpers: usize,
    failed: Option<Error>,
    /// What a node's panic carried, to raise again on the calling thread.
    panicked: Option<Box<dyn std::any::Any + Send>>,
    results: Vec<Option<Tensor>>,
}

impl PhaseState {
    /// Whether a node failed or panicked: no further node starts.
    fn stopped(&self) -> bool {
        self.failed.is_some() || self.panicked.is_some()
    }
}

/// Where a delivered gradient sorts: its producer's wave, the producer newest first (then by
/// index), then the producer's edge.
type ArrivalKey = (u32, std::cmp::Reverse<u64>, Index, usize);

/// A ready node of a [`ParallelPhase`]; the heap pops the earliest wave, then the newest node.
struct ReadyNode {
    wave: u32,
    seq_nr: u64,
    index: Index,
    buffer: InputBuffer,
}

impl ReadyNode {
    fn priority(&self) -> (std::cmp::Reverse<u32>, u64, std::cmp::Reverse<Index>) {
        (
            std::cmp::Reverse(self.wave),
            self.seq_nr,
            std::cmp::Reverse(self.index),
        )
    }
}

impl PartialEq for ReadyNode {
    fn eq(&self, other: &Self) -> bool {
        self.priority() == other.priority()
    }
}
impl Eq for ReadyNode {}
impl PartialOrd for ReadyNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ReadyNode {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.priority().cmp(&other.priority())
    }
}

impl<R, C> ParallelPhase<'_, R, C>
where
    R: Fn(Index) -> bool + Sync,
    C: Fn(Index) -> bool + Sync,
{
    /// Runs every node reachable from `ready` (nodes of wave `wave`) on `threads` threads;
    /// returns the captured gradients.
    fn run(
        &self,
        graph: TaskGraph,
        ready: Vec<(Index, InputBuffer)>,
        wave: u32,
        results: Vec<Option<Tensor>>,
        threads: usize,
    ) -> Result<Vec<Option<Tensor>>> {
        let n = graph.len();
        let ready = ready
            .into_iter()
            .map(|(index, buffer)| ReadyNode {
                wave,
                seq_nr: graph.node(index).seq_nr(),
                index,
                buffer,
            })
            .collect();
        let state = parking_lot::Mutex::new(PhaseState {
            graph,
            ready,
            wave_of: vec![0; n],
            arrivals: (0..n).map(|_| Vec::new()).collect(),
            running: 0,
            helpers: 0,
            failed: None,
            panicked: None,
            results,
        });
        let shared = Shared {
            state,
            wake: parking_lot::Condvar::new(),
            crew: std::sync::OnceLock::new(),
            helpers_max: threads - 1,
        };
        let help = || self.work(&shared, false);
        crate::parallel::with_crew(&help, |crew| {
            shared.crew.get_or_init(|| crew.clone());
            self.work(&shared, true)
        });
        let state = shared.state.into_inner();
        if let Some(payload) = state.panicked {
            std::panic::resume_unwind(payload);
        }
        match state.failed {
            Some(e) => Err(e),
            None => Ok(state.results),
        }
    }

    /// One thread's loop: runs ready nodes, and asks for a helper while more are ready than
    /// threads run them. The calling thread (`caller`) waits while others still run nodes,
    /// and returns when the graph is done; a helper (a pool thread) returns as soon as nothing
    /// is ready, never waiting (it is summoned again when there is work).
    fn work(&self, shared: &Shared, caller: bool) {
        // grad mode is per thread: set it on whichever thread runs the nodes
        let _mode = GradModeGuard::new(self.task.create_graph);
        let mut st = shared.state.lock();
        loop {
            let Some(next) = st.ready.pop() else {
                if !caller {
                    st.helpers -= 1;
                    return;
                }
                if st.running == 0 || st.stopped() {
                    return;
                }
                shared.wake.wait(&mut st);
                continue;
            };
            if st.stopped() {
                continue;
            }
            st.running += 1;
            shared.call_helpers(&mut st);
            let ReadyNode {
                wave,
                seq_nr,
                index: i,
                buffer,
            } = next;
            let node = st.graph.node(i).clone();
            drop(st);
            // a panic is caught here so the calling thread stops waiting for this node, then
            // raised again there (`run`)
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let (runs, spent) = ((self.runs)(i), !(self.is_captured)(i));
                self.task.run_node(&node, buffer, runs, spent)
            }));
            st = shared.state.lock();
            st.running -= 1;
            let merged = outcome.and_then(|outcome| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    outcome.and_then(|outcome| self.merge(&mut st, (i, wave, seq_nr), outcome))
                }))
            });
            match merged {
                Ok(Ok(())) => shared.call_helpers(&mut st),
                Ok(Err(e)) => {
                    st.failed.get_or_insert(e);
                }
                Err(payload) => {
                    st.panicked.get_or_insert(payload);
                }
            }
            shared.wake.notify_all();
        }
    }

    /// Records what node `i` (of wave `wave`, number `seq_nr`) produced: its captured
    /// gradients, and its output gradients into the nodes they go to (those that become ready,
    /// with their sums, onto the heap).
    fn merge(
        &self,
        st: &mut PhaseState,
        (i, wave, seq_nr): (Index, u32, u64),
        outcome: NodeOutcome,
    ) -> Result<()> {
        if (self.is_captured)(i) {
            capture(self.capture_at, i, &outcome.seen, &mut st.results);
        }
        if (self.runs)(i) {
            let targets = st.graph.targets(i);
            for (edge, (target, g)) in targets.into_iter().zip(outcome.outputs).enumerate() {
                let Some((child, input_nr)) = target else {
                    continue;
                };
                let c = child as usize;
                st.wave_of[c] = st.wave_of[c].max(wave + 1);
                if let Some(g) = g {
                    let key = (wave, std::cmp::Reverse(seq_nr), i, edge);
                    st.arrivals[c].push((key, input_nr, g));
                }
                if st.graph.arrive(child) {
                    let mut buffer = st.graph.take_buffer(child);
                    let mut arrivals = std::mem::take(&mut st.arrivals[c]);
                    arrivals.sort_by_key(|a| a.0);
                    for (_, input_nr, g) in arrivals {
                        buffer.add(input_nr, g)?;
                    }
                    let child_seq_nr = st.graph.node(child).seq_nr();
                    st.ready.push(ReadyNode {
                        wave: st.wave_of[c],
                        seq_nr: child_seq_nr,
                        index: child,
                        buffer,
                    });
                }
            }
        }
        st.graph.finished(i);
        Ok(())
    }
}

/// Stores the gradients node `i` saw that are captured as results (`capture_at` as in
/// `GraphTask::execute`).
fn capture(
    capture_at: &[(Index, usize, usize)],
    i: Index,
    seen: &Grads,
    results: &mut [Option<Tensor>],
) {
    for &(_, input_nr, k) in capture_at.iter().filter(|c| c.0 == i) {
        results[k] = seen.get(input_nr).cloned().flatten();
    }
}

/// The nodes that must run for `grad()`: those from which a captured node can be reached
/// (found in a topological order, every node before the nodes it points to).
fn nodes_leading_to_captures(graph: &TaskGraph, captured: &[bool]) -> Vec<bool> {
    // Kahn's algorithm over a copy of the dependency counts
    let mut remaining: Vec<u32> = (0..graph.len() as Index)
        .map(|i| graph.dependencies(i))
        .collect();
    let mut frontier: Vec<Index> = (0..graph.len() as Index)
        .filter(|&i| remaining[i as usize] == 0)
        .collect();
    let mut order = Vec::with_capacity(graph.len());
    while let Some(i) = frontier.pop() {
        for edge in graph.node(i).next_edges().iter().flatten() {
            let j = graph.index_of_edge(edge);
            remaining[j as usize] -= 1;
            if remaining[j as usize] == 0 {
                frontier.push(j);
            }
        }
        order.push(i);
    }
    let mut needed = vec![false; graph.len()];
    for &i in order.iter().rev() {
        needed[i as usize] = graph
            .node(i)
            .next_edges()
            .iter()
            .flatten()
            .map(|e| graph.index_of_edge(e) as usize)
            .any(|j| captured.get(j) == Some(&true) || needed[j]);
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

/// `g`'s elements as a tensor of their own (no base), without copying; `g` must own them
/// exclusively (see [`owns_exclusively`]).
fn steal(g: Tensor) -> Tensor {
    if g.base().is_none() {
        return g;
    }
    Tensor::from_parts(g.storage().clone(), g.layout().clone(), g.dtype(), None)
}
