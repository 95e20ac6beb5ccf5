//! The backward engine: runs a graph task's nodes in PyTorch's order, newest ready node first.
//!
//! One call of [`backward`] or [`grad`] is a graph task. Its [`TaskGraph`] numbers the nodes
//! reachable from the roots (an explicit stack, never recursion) and counts the edges into each;
//! a node runs once all its incoming gradients have been summed into its input buffer. Ready
//! nodes wait in a [`ReadyQueue`] that pops the highest sequence number first, as PyTorch's
//! (Note [Execution order]). In a graph of mostly small nodes, once two nodes are ready, the
//! rest of the graph runs on all kernel threads ([`ParallelPhase`], Note [When branches run in
//! parallel]; not with `create_graph`, whose new nodes must all be numbered by the calling
//! thread), each taking the next ready node, with every sum still made in the one-thread order:
//! gradients do not depend on the number of threads.

use super::current_task::TaskContext;
use super::gradient_edge;
use super::graph_task::{capture, GraphTask};
use super::node::Edge;
use super::parallel_phase::ParallelPhase;
use super::task_graph::{ReadyQueue, TaskGraph};
use super::task_slot::Index;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::layout::fmt_shape;
use crate::core::tensor::Tensor;
use smallvec::SmallVec;
use std::sync::Arc;

/// How many backward passes may nest on one thread before the next runs on a new thread
/// (Note [Deep reentrant backward]).
const MAX_REENTRANT_DEPTH: usize = 60;

/// The stack of a thread that runs a deep reentrant backward pass.
const REENTRANT_STACK_BYTES: usize = 16 << 20;

thread_local! {
    /// How many backward passes are running nested on this thread.
    static REENTRANT_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Restores this thread's reentrant depth when a pass ends.
struct DepthGuard(usize);

impl Drop for DepthGuard {
    fn drop(&mut self) {
        REENTRANT_DEPTH.with(|d| d.set(self.0));
    }
}

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

/// Where a backward pass starts: an output tensor, or a gradient edge (PyTorch's
/// `GradientEdge`: output `input_nr` of a node), which differentiates from that point of the
/// graph even once no tensor holds it.
#[derive(Clone)]
pub enum Root {
    /// A tensor: its gradient edge, shape and dtype.
    Tensor(Tensor),
    /// A gradient edge; its shape and dtype are those recorded for it (see
    /// [`Node::record_output_meta`](super::Node::record_output_meta)).
    Edge(Edge),
}

impl Root {
    /// The roots of a list of tensors.
    pub fn tensors(tensors: &[Tensor]) -> Vec<Root> {
        tensors.iter().cloned().map(Root::Tensor).collect()
    }
}

/// Accumulates the gradients of `tensors` (weighted by `grad_tensors`) into the leaves' `.grad`.
pub fn backward(
    tensors: &[Tensor],
    grad_tensors: &[Option<Tensor>],
    retain_graph: Option<bool>,
    create_graph: bool,
) -> Result<()> {
    backward_from(
        &Root::tensors(tensors),
        grad_tensors,
        retain_graph,
        create_graph,
    )
}

/// [`backward`] from tensors or gradient edges.
pub fn backward_from(
    roots: &[Root],
    grad_tensors: &[Option<Tensor>],
    retain_graph: Option<bool>,
    create_graph: bool,
) -> Result<()> {
    let roots = make_roots(roots, grad_tensors)?;
    let keep_graph = retain_graph.unwrap_or(create_graph);
    GraphTask {
        keep_graph,
        create_graph,
        accumulate: true,
        context: Arc::default(),
    }
    .execute(roots, &[], &[])?;
    Ok(())
}

/// `backward(inputs=...)`: accumulates the gradients of `tensors` into the `.grad` of `inputs`
/// only (leaves or not), leaving every other tensor's `.grad` alone, as PyTorch: a non-leaf
/// input is made to retain its gradient (`retain_grad()`, which stays set), and only the nodes
/// that lead to an input, and the inputs' own nodes, run (with all their hooks).
pub fn backward_to(
    tensors: &[Tensor],
    grad_tensors: &[Option<Tensor>],
    inputs: &[Tensor],
    retain_graph: Option<bool>,
    create_graph: bool,
) -> Result<()> {
    let inputs = Root::tensors(inputs);
    let roots = Root::tensors(tensors);
    backward_from_to(&roots, grad_tensors, &inputs, retain_graph, create_graph)
}

/// [`backward_to`] from and to tensors or gradient edges (an edge input limits which nodes
/// run; no `.grad` keeps what arrives there).
pub fn backward_from_to(
    roots: &[Root],
    grad_tensors: &[Option<Tensor>],
    inputs: &[Root],
    retain_graph: Option<bool>,
    create_graph: bool,
) -> Result<()> {
    if inputs.is_empty() {
        return Err(Error::runtime(
            "'inputs' argument to backward() cannot be empty.",
        ));
    }
    let mut targets = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        let t = match input {
            Root::Edge(edge) => {
                targets.push(edge.clone());
                continue;
            }
            Root::Tensor(t) => t,
        };
        let Some(edge) = gradient_edge(t) else {
            return Err(Error::runtime(format!(
                "One of the differentiated Tensors does not require grad (input {i}, a {})",
                t.type_description()
            )));
        };
        if !t.is_leaf() {
            t.retain_grad()?;
        }
        targets.push(edge);
    }
    let roots = make_roots(roots, grad_tensors)?;
    GraphTask {
        keep_graph: retain_graph.unwrap_or(create_graph),
        create_graph,
        accumulate: true,
        context: Arc::default(),
    }
    .execute(roots, &[], &targets)?;
    Ok(())
}

/// Returns the gradients of `outputs` with respect to `inputs` without touching any `.grad`.
pub fn grad(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    options: GradOptions,
) -> Result<Vec<Option<Tensor>>> {
    grad_from(&Root::tensors(outputs), inputs, grad_outputs, options)
}

/// [`grad`] of tensors or gradient edges.
pub fn grad_from(
    outputs: &[Root],
    inputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    options: GradOptions,
) -> Result<Vec<Option<Tensor>>> {
    if inputs.is_empty() {
        return Err(Error::runtime(
            "`inputs` argument to `grad()` cannot be empty.",
        ));
    }
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
    grad_to_edges(outputs, &input_edges, grad_outputs, options)
}

/// [`grad`] of tensors or gradient edges with respect to gradient edges (PyTorch's
/// `GradientEdge`: a node and one of its outputs): the gradient arriving at each edge.
pub fn grad_to_edges(
    outputs: &[Root],
    input_edges: &[Edge],
    grad_outputs: &[Option<Tensor>],
    options: GradOptions,
) -> Result<Vec<Option<Tensor>>> {
    if input_edges.is_empty() {
        return Err(Error::runtime(
            "`inputs` argument to `grad()` cannot be empty.",
        ));
    }
    let roots = make_roots(outputs, grad_outputs)?;
    let keep_graph = options.retain_graph.unwrap_or(options.create_graph);
    let task = GraphTask {
        keep_graph,
        create_graph: options.create_graph,
        accumulate: false,
        context: Arc::default(),
    };
    let results = task.execute(roots, input_edges, &[])?;
    if !options.allow_unused {
        if let Some(i) = results.iter().position(|r| r.is_none()) {
            return Err(Error::runtime(format!(
                "The differentiated Tensor at index {i} appears to not have been used in the graph. \
                 Set allow_unused=True if this is the desired behavior."
            )));
        }
    }
    Ok(results)
}

/// Pairs each output's gradient edge with its starting gradient, checking PyTorch's preconditions.
fn make_roots(roots: &[Root], grads: &[Option<Tensor>]) -> Result<Vec<(Edge, Tensor)>> {
    if !grads.is_empty() && grads.len() != roots.len() {
        return Err(Error::runtime(format!(
            "grad can be implicitly created only for scalar outputs: got {} gradients for {} outputs",
            grads.len(),
            roots.len()
        )));
    }
    let mut made = Vec::with_capacity(roots.len());
    for (i, root) in roots.iter().enumerate() {
        let (edge, meta) = match root {
            Root::Tensor(t) => {
                let Some(edge) = gradient_edge(t) else {
                    return Err(Error::runtime(format!(
                        "element {i} of tensors does not require grad and does not have a grad_fn"
                    )));
                };
                (edge, Some((SmallVec::from_slice(t.shape()), t.dtype())))
            }
            Root::Edge(edge) => (edge.clone(), edge.node.output_meta(edge.input_nr)),
        };
        let g = match (grads.get(i).cloned().flatten(), meta) {
            // as PyTorch, a gradient of another dtype is converted to the output's
            (Some(g), Some((shape, dtype))) => {
                check_root_grad(i, &g, &shape)?;
                match g.dtype() == dtype {
                    true => g,
                    false => g.to_dtype(dtype)?,
                }
            }
            (Some(g), None) => g,
            (None, Some((shape, dtype))) if shape.iter().product::<usize>() == 1 => match root {
                // a wrapper's ones are made by its class (Note [Tensor subclasses that dispatch])
                Root::Tensor(t) if t.subclass().is_some() => t.ones_like_dispatched()?,
                _ => Tensor::ones(&shape, dtype),
            },
            (None, meta) => {
                let shape = meta.map_or_else(|| "unknown".to_string(), |(s, _)| fmt_shape(&s));
                return Err(Error::runtime(format!(
                    "grad can be implicitly created only for scalar outputs (output {i} has shape {shape}; pass a \
                     gradient of that shape to backward())"
                )));
            }
        };
        made.push((edge, g));
    }
    Ok(made)
}

/// PyTorch's check of the gradient given for output `i` (of `shape`).
fn check_root_grad(i: usize, g: &Tensor, shape: &[usize]) -> Result<()> {
    if g.shape() != shape {
        let size = |s: &[usize]| {
            let dims: Vec<String> = s.iter().map(|d| d.to_string()).collect();
            format!("torch.Size([{}])", dims.join(", "))
        };
        return Err(Error::runtime(format!(
            "Mismatch in shape: grad_output[{i}] has a shape of {} and output[{i}] has a shape of {}.",
            size(g.shape()),
            size(shape)
        )));
    }
    Ok(())
}

/// The least work (input elements of small formula nodes) for which a graph runs its
/// independent branches on several threads (Note [When branches run in parallel]).
const PARALLEL_GRAPH_ELEMENTS: usize = 1 << 17;

// Note [When branches run in parallel]
// Running independent nodes on several threads at once ([`ParallelPhase`]) pays only where the
// nodes' own kernels leave threads idle: a wide graph of small nodes. Where nodes are big
// enough for their kernels to split across the threads themselves (elementwise kernels from
// `PARALLEL_ELEMENTS` elements, matrix products by rows or columns), running a second node
// beside one only puts more threads than cores to work and hands the graph from thread to
// thread, each hand-off a thread wake-up (tens to hundreds of microseconds on a virtual
// machine). Measured at two threads, the phase as it used to start (as soon as the ready nodes
// held 65,536 elements) against the one-thread engine, alternating runs: a nanoGPT-style step
// (a chain of big nodes, its parameters' AccumulateGrads ready beside it) 72-84 against 60-78
// ms, gpt_medium 700-720 against 681-698, a small ResNet 82-91 against 72-90; the phase's own
// showcase, eight branches of 256x256 products, 24.4-24.9 against 25.1-25.5 ms. What the ready
// nodes hold at one moment says little about a graph's width (newest-first order runs one
// branch to its end while the others' first nodes wait), so the engine judges the whole graph
// instead, once, when a second node is first ready: the phase starts only if most of the
// graph's work is in small nodes and that work is enough to be worth waking threads
// (`TaskGraph::worth_sharing`). That is also PyTorch's choice for big nodes: its engine runs
// every CPU node on the calling thread, in parallel only inside kernels.

impl GraphTask {
    /// Runs the task; returns the gradients captured at `captures` (empty for `backward`).
    /// With `targets` (`backward(inputs=...)`), only the nodes leading to a target's node and
    /// the targets' nodes themselves run. The final callbacks queued meanwhile run last.
    fn execute(
        &self,
        roots: Vec<(Edge, Tensor)>,
        captures: &[Edge],
        targets: &[Edge],
    ) -> Result<Vec<Option<Tensor>>> {
        let depth = REENTRANT_DEPTH.with(|d| d.get());
        if depth >= MAX_REENTRANT_DEPTH {
            return self.execute_on_fresh_thread(roots, captures, targets);
        }
        REENTRANT_DEPTH.with(|d| d.set(depth + 1));
        let _depth = DepthGuard(depth);
        if !captures.is_empty() || !targets.is_empty() {
            self.context.set_partial();
        }
        let _current = TaskContext::install(&self.context);
        // hooks entered or exited by code the pass runs end with it, as PyTorch's thread-local
        // state guard ends them
        let _hooks = super::saved::SavedHooksGuard::new();
        let results = self.run_graph(roots, captures, targets)?;
        self.context.run_callbacks()?;
        Ok(results)
    }

    /// Note [Deep reentrant backward]: a backward pass run from inside a node of another (a
    /// custom Function's backward that calls `backward()`) nests on the same thread's stack, and
    /// through Python's frames too. Past [`MAX_REENTRANT_DEPTH`] nested passes the next one runs
    /// on a new thread (with a fresh stack and, in Python, a fresh recursion count) while this
    /// one waits, as PyTorch's engine hands deep reentrant tasks to a pool thread. The pass
    /// takes this thread's saved-tensor hooks along.
    fn execute_on_fresh_thread(
        &self,
        roots: Vec<(Edge, Tensor)>,
        captures: &[Edge],
        targets: &[Edge],
    ) -> Result<Vec<Option<Tensor>>> {
        let hooks = super::saved::SavedHooksGuard::new();
        let (grad, inference) = (
            crate::core::grad_mode::is_grad_enabled(),
            crate::core::grad_mode::is_inference_mode_enabled(),
        );
        std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name("ferrograd-reentrant".into())
                .stack_size(REENTRANT_STACK_BYTES)
                .spawn_scoped(scope, || {
                    hooks.install();
                    crate::core::grad_mode::set_inference_mode(inference);
                    crate::core::grad_mode::set_grad_enabled(grad);
                    self.execute(roots, captures, targets)
                })
                .map_err(|e| {
                    Error::runtime(format!(
                        "could not start a thread for a reentrant backward pass: {e}"
                    ))
                })?;
            worker
                .join()
                .map_err(|_| Error::runtime("a reentrant backward pass panicked"))?
        })
    }

    /// [`GraphTask::execute`] without the final callbacks.
    fn run_graph(
        &self,
        roots: Vec<(Edge, Tensor)>,
        captures: &[Edge],
        targets: &[Edge],
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
        let needed = if !targets.is_empty() {
            let mut marked = vec![false; graph.len()];
            for e in targets {
                if let Some(i) = graph.index_of(&e.node) {
                    marked[i as usize] = true;
                }
            }
            let mut needed = nodes_leading_to_captures(&graph, &marked);
            for (n, m) in needed.iter_mut().zip(&marked) {
                *n |= *m;
            }
            Some(needed)
        } else {
            (!self.accumulate).then(|| nodes_leading_to_captures(&graph, &captured))
        };

        if TaskContext::wants_execution_set() {
            let executes = (0..graph.len() as Index).filter(|&i| {
                needed.as_ref().is_none_or(|n| n[i as usize])
                    || captured.get(i as usize) == Some(&true)
            });
            self.context.set_executes(
                executes.map(|i| Arc::as_ptr(graph.node(i))),
                !self.accumulate,
            );
        }
        let mut ready = ReadyQueue::default();
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
                let buffer = graph.take_buffer(i);
                ready.push(&graph, i, buffer);
            }
        }

        // One node at a time in PyTorch's order (Note [Execution order]), until a second node
        // is ready in a graph worth sharing out (Note [When branches run in parallel]).
        let mut results: Vec<Option<Tensor>> = vec![None; captures.len()];
        let runs = |i: Index| needed.as_ref().is_none_or(|n| n[i as usize]);
        let is_captured = |i: Index| captured.get(i as usize) == Some(&true);
        let threads = crate::cpu::parallel::num_threads();
        let mut worth_sharing = None;
        loop {
            // (not when building a graph: the nodes the formulas create take their sequence
            // numbers from the thread that runs them, and a later backward through them
            // orders its sums by those numbers, so they must all come from this thread)
            if threads > 1
                && ready.len() > 1
                && !self.create_graph
                && super::current_task::is_multithreading_enabled()
                && *worth_sharing
                    .get_or_insert_with(|| graph.worth_sharing(runs, PARALLEL_GRAPH_ELEMENTS))
            {
                // enough to share out: the rest of the graph runs on all threads
                let phase = ParallelPhase {
                    task: self,
                    runs: &runs,
                    is_captured: &is_captured,
                    capture_at: &capture_at,
                };
                return phase.run(graph, ready, results, threads);
            }
            let Some((i, buffer)) = ready.pop() else {
                break;
            };
            let outcome = self.run_node(graph.node(i), buffer, runs(i), !is_captured(i))?;
            if is_captured(i) {
                capture(&capture_at, i, &outcome.seen, &mut results);
            }
            if runs(i) {
                graph.deliver_outputs(i, outcome.outputs, outcome.part, &mut ready)?;
            }
            graph.finished(i);
        }
        Ok(results)
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
