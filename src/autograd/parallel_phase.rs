//! The parallel phase of a graph task: in a graph of mostly small nodes, once two nodes are
//! ready, the rest of the graph runs on all kernel threads, each taking the next ready node (see
//! [`ParallelPhase`] and the engine's Note [When branches run in parallel]).
//!
//! Note [Task slots]: a node's index in the running task is kept in the node itself
//! (`task_graph::TaskSlot`), so the threads look nodes up without hashing; see `task_graph`.

use super::accumulate::{Arriving, InputBuffer};
use super::graph_task::{capture, GraphTask, NodeOutcome};
use super::task_graph::{ReadyQueue, TaskGraph};
use super::task_slot::Index;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::tensor::Tensor;
/// The rest of a graph task run by several threads at once: the calling thread and pool
/// threads summoned while more nodes are ready than threads run them each take the next ready
/// node (the one the one-thread engine would run first), run it, and deliver its gradients
/// under one lock. Pool threads never wait inside the phase (they return when nothing is
/// ready), so a kernel that queues work on the pool from inside a node always finds a thread.
/// The gradients reaching a node are summed only once it is ready, in the order the one-thread
/// engine would have delivered them (its producers' places in that engine's order, see
/// [`serial_ranks`], then edge order), so sums are the same bits with any number of threads and
/// any timing.
pub(super) struct ParallelPhase<'a, R, C> {
    pub(super) task: &'a GraphTask,
    pub(super) runs: &'a R,
    pub(super) is_captured: &'a C,
    pub(super) capture_at: &'a [(Index, usize, usize)],
}

thread_local! {
    /// How many parallel phases this thread has started (see [`parallel_phases_started`]).
    static PHASES_STARTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many graph tasks called from this thread have run part of their graph on several
/// threads (tests check that a graph meant to exercise the parallel phase does).
#[doc(hidden)]
pub fn parallel_phases_started() -> usize {
    PHASES_STARTED.with(std::cell::Cell::get)
}

/// What the threads of a [`ParallelPhase`] share.
struct Shared {
    state: parking_lot::Mutex<PhaseState>,
    /// Wakes the calling thread when a node finishes.
    wake: parking_lot::Condvar,
    /// The pool threads to summon (set as the phase starts).
    crew: std::sync::OnceLock<crate::cpu::parallel::Crew>,
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
    /// Each node's place in the one-thread engine's order ([`serial_ranks`]).
    rank: Vec<u32>,
    /// Gradients delivered into each node not yet ready, with their summing order.
    arrivals: Vec<Vec<(ArrivalKey, usize, Arriving)>>,
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

/// Where a delivered gradient sorts: its producer's place in the one-thread order, then the
/// producer's edge.
type ArrivalKey = (u32, usize);

/// A ready node of a [`ParallelPhase`]; the heap pops the one the one-thread engine would run
/// first.
struct ReadyNode {
    rank: u32,
    index: Index,
    buffer: InputBuffer,
}

impl ReadyNode {
    fn priority(&self) -> std::cmp::Reverse<u32> {
        std::cmp::Reverse(self.rank)
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
    /// Runs every node reachable from the `ready` ones on `threads` threads; returns the
    /// captured gradients.
    pub(super) fn run(
        &self,
        graph: TaskGraph,
        ready: ReadyQueue,
        results: Vec<Option<Tensor>>,
        threads: usize,
    ) -> Result<Vec<Option<Tensor>>> {
        PHASES_STARTED.with(|n| n.set(n.get() + 1));
        let n = graph.len();
        let ready: Vec<(Index, InputBuffer)> = ready.into_nodes().collect();
        let rank = serial_ranks(&graph, ready.iter().map(|(i, _)| *i), self.runs);
        let ready = ready
            .into_iter()
            .map(|(index, buffer)| ReadyNode {
                rank: rank[index as usize],
                index,
                buffer,
            })
            .collect();
        let state = parking_lot::Mutex::new(PhaseState {
            graph,
            ready,
            rank,
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
        crate::cpu::parallel::with_crew(&help, |crew| {
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
        // code a node runs asks this task, whichever thread runs it
        let _current = super::current_task::TaskContext::install(&self.task.context);
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
                rank,
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
                    outcome.and_then(|outcome| self.merge(&mut st, (i, rank), outcome))
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

    /// Records what node `i` (at place `rank` in the one-thread order) produced: its captured
    /// gradients, and its output gradients into the nodes they go to (those that become ready,
    /// with their sums, onto the heap).
    fn merge(
        &self,
        st: &mut PhaseState,
        (i, rank): (Index, u32),
        outcome: NodeOutcome,
    ) -> Result<()> {
        if (self.is_captured)(i) {
            capture(self.capture_at, i, &outcome.seen, &mut st.results);
        }
        if (self.runs)(i) {
            let targets = st.graph.targets(i);
            let mut part = outcome.part;
            for (edge, (target, g)) in targets.into_iter().zip(outcome.outputs).enumerate() {
                let Some((child, input_nr)) = target else {
                    continue;
                };
                let g = match g {
                    Some(g) => Some(Arriving::Whole(g)),
                    None => part.take().map(Arriving::Part),
                };
                let c = child as usize;
                if let Some(g) = g {
                    st.arrivals[c].push(((rank, edge), input_nr, g));
                }
                if st.graph.arrive(child) {
                    let mut buffer = st.graph.take_buffer(child);
                    let mut arrivals = std::mem::take(&mut st.arrivals[c]);
                    arrivals.sort_by_key(|a| a.0);
                    for (_, input_nr, g) in arrivals {
                        buffer.add(input_nr, g)?;
                    }
                    st.ready.push(ReadyNode {
                        rank: st.rank[c],
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

/// Each node's place in the order the one-thread engine would run the rest of the graph from
/// the `ready` nodes (`u32::MAX` for nodes it would not reach): a dry run of its
/// [`ReadyQueue`] over the edges still to be delivered, where a node that does not run
/// delivers nothing, as in the engine.
fn serial_ranks<R: Fn(Index) -> bool>(
    graph: &TaskGraph,
    ready: impl Iterator<Item = Index>,
    runs: &R,
) -> Vec<u32> {
    let n = graph.len();
    let mut pending: Vec<u32> = (0..n as Index).map(|i| graph.dependencies(i)).collect();
    let mut rank = vec![u32::MAX; n];
    let key = |i: Index| (graph.node(i).seq_nr(), std::cmp::Reverse(i));
    let mut queue: std::collections::BinaryHeap<_> = ready.map(key).collect();
    let mut next = 0;
    while let Some((_, std::cmp::Reverse(i))) = queue.pop() {
        rank[i as usize] = next;
        next += 1;
        if !runs(i) {
            continue;
        }
        for (child, _) in graph.targets(i).into_iter().flatten() {
            let count = &mut pending[child as usize];
            *count -= 1;
            if *count == 0 {
                queue.push(key(child));
            }
        }
    }
    rank
}
