//! One backward call's state ([`GraphTask`], PyTorch's name; the graph it walks is
//! `task_graph`'s [`TaskGraph`](super::task_graph::TaskGraph)) and the running of one ready
//! node, which the one-thread loop (`engine`) and the parallel phase (`parallel_phase`) share.

use super::accumulate::{accumulate_grad, Grads, InputBuffer, PartGrad};
use super::current_task::TaskContext;
use super::node::{Node, NodeKind};
use super::task_slot::Index;
use crate::core::error::Result;
use crate::core::layout::{same_shape, Layout};
use crate::core::tensor::Tensor;
use std::sync::Arc;

/// What running one node produced: the gradients it saw (after hooks, for capture) and the
/// gradients for its inputs.
pub(super) struct NodeOutcome {
    pub(super) seen: Grads,
    pub(super) outputs: Vec<Option<Tensor>>,
    /// A view node's gradient for its input, passed on as a part (`outputs` then holds `None`;
    /// Note [Gradients of parts]).
    pub(super) part: Option<PartGrad>,
}

/// One backward call.
pub(super) struct GraphTask {
    pub(super) keep_graph: bool,
    pub(super) create_graph: bool,
    /// `backward()` (accumulate into leaves) rather than `grad()` (capture at `inputs`).
    pub(super) accumulate: bool,
    /// Its id, final callbacks and executed nodes, for code its nodes run.
    pub(super) context: Arc<TaskContext>,
}

impl GraphTask {
    /// Runs one ready node: sums its input buffer, applies hooks, then (if it must run)
    /// accumulates into its leaf or evaluates its backward formula, which may overwrite the
    /// incoming gradients when they are `spent` (not captured as results).
    pub(super) fn run_node(
        &self,
        node: &Arc<Node>,
        buffer: InputBuffer,
        runs: bool,
        spent: bool,
    ) -> Result<NodeOutcome> {
        let mut grads = buffer.0;
        // Note [Hooks ordering] (as PyTorch's engine): a node that neither runs nor has a
        // captured gradient is only passed through; a captured one that does not run (a
        // leaf's AccumulateGrad under grad()) runs its tensor hooks only; a node that runs
        // runs tensor hooks, then its own pre-hooks, its formula (or the accumulation and the
        // post-accumulate hooks) and its post-hooks.
        if !runs && spent {
            return Ok(NodeOutcome {
                seen: grads,
                outputs: Vec::new(),
                part: None,
            });
        }
        match node.kind() {
            NodeKind::Function(_) | NodeKind::Part(_) => {
                node.run_pre_hooks(&mut grads)?;
                // retained gradients see the tensor hooks' result, not the node pre-hooks'
                // (under grad() too, as PyTorch)
                node.store_retained_grads(&grads)?;
            }
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
            part: None,
        };
        if !runs {
            return Ok(outcome);
        }
        node.run_node_pre_hooks(&mut outcome.seen)?;
        let _events = crate::core::profiler::is_enabled().then(|| {
            // (AccumulateGrad's events carry no number, as PyTorch's)
            let numbered = |name: String| match node.kind() {
                NodeKind::AccumulateGrad(_) => crate::core::profiler::Range::new(|| name),
                _ => crate::core::profiler::Range::backward(|| name, node.seq_nr()),
            };
            let evaluate = numbered(format!(
                "autograd::engine::evaluate_function: {}",
                node.profiler_name()
            ));
            (evaluate, numbered(node.profiler_name()))
        });
        match node.kind() {
            NodeKind::AccumulateGrad(variable) => {
                // backward() captures nothing, so the gradient moves into `.grad` (a clone
                // would make it shared, and so copied)
                let g = match self.accumulate {
                    true => outcome.seen.first_mut().and_then(Option::take),
                    false => outcome.seen.first().cloned().flatten(),
                };
                if let Some(g) = g {
                    let had_grad = variable.grad().is_some();
                    // post-hooks see the gradient that arrived: the new `.grad` itself when
                    // there was none (PyTorch's AccumulateGrad steals it)
                    let arrived = (node.has_post_hooks() && had_grad).then(|| g.clone());
                    accumulate_grad(variable, g, self.create_graph)?;
                    if self.accumulate {
                        variable.run_post_accumulate_hooks()?;
                    }
                    if node.has_post_hooks() {
                        let arrived = arrived.or_else(|| variable.grad());
                        node.run_post_hooks(&mut [], &[arrived])?;
                    }
                }
            }
            NodeKind::Part(f) if self.passes_part_on(node, &outcome.seen) => {
                let grad = outcome.seen[0].clone().expect("checked by passes_part_on");
                outcome.outputs = vec![None];
                outcome.part = Some(PartGrad {
                    grad,
                    part: f.part,
                    shape: node.input_shape(0).into(),
                    dtype: node.input_dtype(0),
                });
            }
            NodeKind::Function(_) | NodeKind::Part(_) => {
                outcome.outputs = if outcome.seen.iter().all(|g| g.is_none()) {
                    vec![None; node.next_edges().len()]
                } else {
                    let spent = spent && !node.has_post_hooks();
                    let _evaluating = super::anomaly::Evaluating::new(node);
                    let applied = node
                        .apply(&outcome.seen, self.keep_graph, spent)
                        .and_then(|out| super::anomaly::check_results(node, &out).map(|()| out));
                    applied.inspect_err(|_| super::anomaly::report_failure(node))?
                };
                node.run_post_hooks(&mut outcome.outputs, &outcome.seen)?;
            }
        }
        Ok(outcome)
    }

    /// Whether a view node may pass its incoming gradient `seen` on as a part of its input's
    /// gradient rather than run its formula: no graph is being built, no hook wants the
    /// formula's result, and the gradient has the view's shape and the input's dtype.
    fn passes_part_on(&self, node: &Node, seen: &Grads) -> bool {
        let (NodeKind::Part(f), [Some(g)]) = (node.kind(), &seen[..]) else {
            return false;
        };
        let whole = Layout::contiguous(node.input_shape(0));
        !self.create_graph
            && g.subclass().is_none() // a wrapper's gradient is no buffer to add a part into
            && !node.has_post_hooks()
            && matches!(node.next_edges(), [Some(_)])
            && g.dtype() == node.input_dtype(0)
            && same_shape(g.shape(), &whole.part(f.part).shape)
    }
}

/// Stores the gradients node `i` saw that are captured as results (`capture_at` as in
/// `GraphTask::execute`).
pub(super) fn capture(
    capture_at: &[(Index, usize, usize)],
    i: Index,
    seen: &Grads,
    results: &mut [Option<Tensor>],
) {
    for &(_, input_nr, k) in capture_at.iter().filter(|c| c.0 == i) {
        results[k] = seen.get(input_nr).cloned().flatten();
    }
}
