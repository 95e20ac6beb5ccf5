//! The parallel phase of a graph task: once a wave holds enough work, the rest of the graph
//! runs on all kernel threads, each taking the next ready node (see [`ParallelPhase`]).
//!
//! Note [Task slots]: a node's index in the running task is kept in the node itself
//! (`task_graph::TaskSlot`), so the threads look nodes up without hashing; see `task_graph`.

use super::accumulate::{Arriving, InputBuffer};
use super::engine::{capture, GraphTask, NodeOutcome};
use super::task_graph::{Index, TaskGraph};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::tensor::Tensor;
/// The rest of a graph task run by several threads at once: the calling thread and pool
/// threads summoned while more nodes are ready than threads run them each take the next ready
/// node (earliest wave first, then the newest), run it, and deliver its gradients under one
/// lock. Pool threads never wait inside the phase (they return when nothing is ready), so a
/// kernel that queues work on the pool from inside a node always finds a thread.
/// The gradients reaching a node are summed only once it is ready, in the order the waves of
/// the one-thread engine would have delivered them (wave, then newest producer first, then
/// edge order), so sums are the same bits with any number of threads and any timing.
pub(super) struct ParallelPhase<'a, R, C> {
    pub(super) task: &'a GraphTask,
    pub(super) runs: &'a R,
    pub(super) is_captured: &'a C,
    pub(super) capture_at: &'a [(Index, usize, usize)],
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
    /// Each node's wave in the one-thread engine: one more than its latest producer's.
    wave_of: Vec<u32>,
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
    pub(super) fn run(
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
