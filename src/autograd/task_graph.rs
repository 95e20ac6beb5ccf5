//! A graph task's view of the graph: every node reachable from the roots, numbered densely, with
//! its count of incoming edges and the gradients waiting for it.
//!
//! Looking a node up must not hash: a million-node chain would spend most of its backward pass
//! in hash-table cache misses. Each node has a slot where the running task writes
//! `(task tag, index)`; the task reads its index back from the node it is already touching.
//! Another task running over the same nodes at the same time finds the slot taken and keeps
//! its indices in a hash map instead. A task empties the slot of each node once the node has
//! run (and of every node it numbered when it ends), so a slot never holds a finished task.

use super::accumulate::{Arriving, InputBuffer, PartGrad};
use super::node::{Edge, Node};
use super::task_slot::Index;
use crate::core::error::Result;
use crate::core::tensor::Tensor;
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

const NO_BUFFER: u32 = u32::MAX;

/// Tags of running tasks: nonzero, different for tasks that overlap in time (wrapping after
/// 2^32 tasks, long after any task that could still be running began).
static NEXT_TAG: AtomicU32 = AtomicU32::new(1);

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

type AddressMap = HashMap<usize, Index, std::hash::BuildHasherDefault<AddressHasher>>;

/// The nodes of one graph task, their remaining dependency counts and pending input buffers.
pub(super) struct TaskGraph {
    tag: u32,
    nodes: Vec<Arc<Node>>,
    /// Edges not yet delivered into each node; it is ready at zero.
    dependencies: Vec<u32>,
    /// Where each node's pending input buffer is in `buffers` (`NO_BUFFER` if none yet).
    buffer_of: Vec<u32>,
    buffers: Vec<InputBuffer>,
    free_buffers: Vec<u32>,
    /// Nodes whose slot another running task holds.
    foreign: AddressMap,
    /// Nodes whose slot this task still holds.
    held: usize,
}

impl TaskGraph {
    /// Numbers every node reachable from `roots` and counts the edges into each, with an
    /// explicit stack (never recursion).
    pub(super) fn build<'a>(roots: impl Iterator<Item = &'a Arc<Node>>) -> TaskGraph {
        let mut graph = TaskGraph {
            tag: next_tag(),
            nodes: Vec::new(),
            dependencies: Vec::new(),
            buffer_of: Vec::new(),
            buffers: Vec::new(),
            free_buffers: Vec::new(),
            foreign: AddressMap::default(),
            held: 0,
        };
        let mut stack: Vec<Index> = Vec::new();
        for root in roots {
            if let (i, true) = graph.number(root) {
                stack.push(i);
            }
        }
        while let Some(i) = stack.pop() {
            // SAFETY: `graph.nodes[i]` keeps the node alive through the loop (`number` only
            // pushes onto `nodes`; growing the vector moves the `Arc`s, not the nodes). A
            // clone here would cost a locked increment and decrement per node.
            let node: &Node = unsafe { &*Arc::as_ptr(&graph.nodes[i as usize]) };
            for edge in node.next_edges().iter().flatten() {
                let (j, new) = graph.number(&edge.node);
                graph.dependencies[j as usize] += 1;
                if new {
                    stack.push(j);
                }
            }
        }
        graph.buffer_of = vec![NO_BUFFER; graph.nodes.len()];
        graph
    }

    /// `node`'s index, numbering it if it is new (the flag says so).
    fn number(&mut self, node: &Arc<Node>) -> (Index, bool) {
        if let Some(i) = self.index_of(node) {
            return (i, false);
        }
        let i = Index::try_from(self.nodes.len()).expect("fewer than 2^32 nodes");
        if node.task_slot.claim(self.tag, i) {
            self.held += 1;
        } else {
            self.foreign.insert(Arc::as_ptr(node) as usize, i);
        }
        self.nodes.push(node.clone());
        self.dependencies.push(0);
        (i, true)
    }

    /// The index of a node reachable from the roots (`None` for any other node).
    pub(super) fn index_of(&self, node: &Node) -> Option<Index> {
        node.task_slot.get(self.tag).or_else(|| {
            if self.foreign.is_empty() {
                None
            } else {
                self.foreign.get(&(node as *const Node as usize)).copied()
            }
        })
    }

    /// The index of the node an edge of a numbered node leads to.
    pub(super) fn index_of_edge(&self, edge: &Edge) -> Index {
        self.index_of(&edge.node)
            .expect("every node reachable from the roots is numbered")
    }

    /// The number of nodes.
    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the nodes that will run (`runs`) are worth running side by side (Note [When
    /// branches run in parallel]): most of their work (input elements, [`Node::work`]) is in
    /// formula nodes too small for their kernels to use several threads (every input below
    /// `PARALLEL_ELEMENTS` elements; AccumulateGrads, which only store a gradient, do not
    /// count), and that work is at least `least` elements.
    pub(super) fn worth_sharing(&self, runs: impl Fn(Index) -> bool, least: usize) -> bool {
        let (mut small, mut big) = (0usize, 0usize);
        for (i, node) in self.nodes.iter().enumerate() {
            if !runs(i as Index) || matches!(node.kind(), super::node::NodeKind::AccumulateGrad(_))
            {
                continue;
            }
            if node.largest_input() < crate::cpu::kernels::PARALLEL_ELEMENTS {
                small += node.work();
            } else {
                big += node.work();
            }
        }
        small >= big && small >= least
    }

    /// Node `i`.
    pub(super) fn node(&self, i: Index) -> &Arc<Node> {
        &self.nodes[i as usize]
    }

    /// How many edges into node `i` are still to be delivered (all of them before the run).
    pub(super) fn dependencies(&self, i: Index) -> u32 {
        self.dependencies[i as usize]
    }

    /// Adds a starting gradient into node `i`'s buffer without counting an edge.
    pub(super) fn add_root(&mut self, i: Index, input_nr: usize, g: Tensor) -> Result<()> {
        self.buffer(i).add(input_nr, Arriving::Whole(g))
    }

    /// Delivers node `i`'s output gradients along its edges (in edge order; `part`, if any,
    /// along edge 0); the nodes this makes ready go onto `ready` with their input buffers.
    pub(super) fn deliver_outputs(
        &mut self,
        i: Index,
        outputs: Vec<Option<Tensor>>,
        mut part: Option<PartGrad>,
        ready: &mut ReadyQueue,
    ) -> Result<()> {
        for (target, g) in self.targets(i).into_iter().zip(outputs) {
            let Some((child, input_nr)) = target else {
                continue;
            };
            let g = match g {
                Some(g) => Some(Arriving::Whole(g)),
                None => part.take().map(Arriving::Part),
            };
            if let Some(buffer) = self.deliver(child, input_nr, g)? {
                ready.push(self, child, buffer);
            }
        }
        Ok(())
    }

    /// Where each of node `i`'s edges leads: (node, input slot), `None` for an input needing no
    /// gradient. Looked up before delivering (the node stays borrowed from `nodes` only for
    /// that, with no reference count taken).
    pub(super) fn targets(&self, i: Index) -> SmallVec<[Option<(Index, usize)>; 2]> {
        let mut targets = SmallVec::new();
        for edge in self.nodes[i as usize].next_edges() {
            targets.push(edge.as_ref().map(|e| (self.index_of_edge(e), e.input_nr)));
        }
        targets
    }

    /// Delivers the gradient (if any) of one edge into node `i`; returns its input buffer when
    /// that was the last edge still to come, so the node is ready.
    fn deliver(
        &mut self,
        i: Index,
        input_nr: usize,
        g: Option<Arriving>,
    ) -> Result<Option<InputBuffer>> {
        let count = &mut self.dependencies[i as usize];
        *count -= 1;
        if *count > 0 {
            if let Some(g) = g {
                self.buffer(i).add(input_nr, g)?;
            }
            return Ok(None);
        }
        let mut buffer = self.take_buffer(i);
        if let Some(g) = g {
            buffer.add(input_nr, g)?;
        }
        Ok(Some(buffer))
    }

    /// Counts one edge into node `i` as delivered (its gradient kept elsewhere); true when
    /// that was the last, so the node is ready.
    pub(super) fn arrive(&mut self, i: Index) -> bool {
        let count = &mut self.dependencies[i as usize];
        *count -= 1;
        *count == 0
    }

    /// Node `i`'s pending input buffer, now (empty if nothing arrived).
    pub(super) fn take_buffer(&mut self, i: Index) -> InputBuffer {
        match std::mem::replace(&mut self.buffer_of[i as usize], NO_BUFFER) {
            NO_BUFFER => InputBuffer::default(),
            b => {
                self.free_buffers.push(b);
                std::mem::take(&mut self.buffers[b as usize])
            }
        }
    }

    fn buffer(&mut self, i: Index) -> &mut InputBuffer {
        let b = match self.buffer_of[i as usize] {
            NO_BUFFER => {
                let b = self.free_buffers.pop().unwrap_or_else(|| {
                    self.buffers.push(InputBuffer::default());
                    (self.buffers.len() - 1) as u32
                });
                self.buffer_of[i as usize] = b;
                b
            }
            b => b,
        };
        &mut self.buffers[b as usize]
    }

    /// Node `i` has run: its slot is free for other tasks.
    pub(super) fn finished(&mut self, i: Index) {
        if self.nodes[i as usize].task_slot.release(self.tag) {
            self.held -= 1;
        }
    }
}

/// The nodes of a graph task that are ready to run, taken in PyTorch's order (its
/// `ReadyQueue`): the highest sequence number first, so the newest node, and an AccumulateGrad
/// (numbered `u64::MAX`) as soon as it is ready; among equals, the lowest index.
///
/// Note [Execution order]: the order decides when hooks run and in what order the gradients
/// reaching a node are summed. The one-thread engine pops this queue; the parallel phase runs
/// nodes in any order but sums each node's gradients in the order this queue would have
/// delivered them (`parallel_phase::serial_ranks`), so the bits match.
#[derive(Default)]
pub(super) struct ReadyQueue {
    heap: std::collections::BinaryHeap<Ready>,
}

/// One ready node with its summed input gradients.
struct Ready {
    seq_nr: u64,
    index: Index,
    buffer: InputBuffer,
}

impl Ready {
    fn priority(&self) -> (u64, std::cmp::Reverse<Index>) {
        (self.seq_nr, std::cmp::Reverse(self.index))
    }
}

impl PartialEq for Ready {
    fn eq(&self, other: &Self) -> bool {
        self.priority() == other.priority()
    }
}
impl Eq for Ready {}
impl PartialOrd for Ready {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ready {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.priority().cmp(&other.priority())
    }
}

impl ReadyQueue {
    /// Queues node `i` of `graph` with its input gradients.
    pub(super) fn push(&mut self, graph: &TaskGraph, i: Index, buffer: InputBuffer) {
        self.heap.push(Ready {
            seq_nr: graph.node(i).seq_nr(),
            index: i,
            buffer,
        });
    }

    /// The next node to run, with its input gradients.
    pub(super) fn pop(&mut self) -> Option<(Index, InputBuffer)> {
        let r = self.heap.pop()?;
        Some((r.index, r.buffer))
    }

    /// How many nodes are queued.
    pub(super) fn len(&self) -> usize {
        self.heap.len()
    }

    /// The queued nodes, in no particular order.
    pub(super) fn into_nodes(self) -> impl Iterator<Item = (Index, InputBuffer)> {
        self.heap.into_iter().map(|r| (r.index, r.buffer))
    }
}

impl Drop for TaskGraph {
    fn drop(&mut self) {
        if self.held > 0 {
            for node in &self.nodes {
                let _ = node.task_slot.release(self.tag);
            }
        }
    }
}

fn next_tag() -> u32 {
    loop {
        let tag = NEXT_TAG.fetch_add(1, Ordering::Relaxed);
        if tag != 0 {
            return tag;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autograd::gradient_edge;

    #[test]
    fn overlapping_tasks_number_the_same_nodes_without_mixing_up() {
        let x = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        x.set_requires_grad(true).unwrap();
        let y = x.sin().unwrap().mul(&x).unwrap().sum().unwrap();
        let root = gradient_edge(&y).unwrap().node;

        let first = TaskGraph::build(std::iter::once(&root));
        assert_eq!(first.len(), 4); // sum, mul, sin, AccumulateGrad
        assert!(first.foreign.is_empty());
        // a second task while the first runs finds every slot taken: hash-map fallback
        let second = TaskGraph::build(std::iter::once(&root));
        assert_eq!(second.foreign.len(), 4);
        assert_eq!(second.held, 0);
        for i in 0..4 {
            for g in [&first, &second] {
                assert_eq!(g.index_of(g.node(i)), Some(i));
                let deps = |name: &str| {
                    let j = (0..4).find(|&j| g.node(j).name() == name).unwrap();
                    g.dependencies(j)
                };
                // the leaf feeds both mul and sin
                assert_eq!(
                    [
                        "SumBackward0",
                        "MulBackward0",
                        "SinBackward0",
                        "AccumulateGrad"
                    ]
                    .map(deps),
                    [0, 1, 1, 2]
                );
            }
        }
        // slots are emptied when a task ends, so a later task claims them again
        drop(first);
        assert!(second.nodes.iter().all(|n| n.task_slot.is_free()));
        let third = TaskGraph::build(std::iter::once(&root));
        assert!(third.foreign.is_empty());
        assert_eq!(third.held, 4);
    }
}
