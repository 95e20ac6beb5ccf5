//! The slot in every node where the graph task running over it writes `(task tag, index)`,
//! so the task finds a node's index without hashing (see `task_graph`).

use std::sync::atomic::{AtomicU64, Ordering};

/// A node's number within one graph task (dense: 0, 1, 2, ...).
pub(super) type Index = u32;

/// The slot a graph task writes into each node it numbers (see the module docs).
#[derive(Default)]
pub(crate) struct TaskSlot(AtomicU64);

impl TaskSlot {
    /// The index the task tagged `tag` wrote here, if that task holds the slot.
    pub(super) fn get(&self, tag: u32) -> Option<Index> {
        let v = self.0.load(Ordering::Acquire);
        ((v >> 32) as u32 == tag).then_some(v as u32)
    }

    /// Takes the empty slot for the task tagged `tag`, writing `index`; false if another task
    /// holds it.
    pub(super) fn claim(&self, tag: u32, index: Index) -> bool {
        let v = ((tag as u64) << 32) | index as u64;
        self.0
            .compare_exchange(0, v, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }

    /// Empties the slot if `tag` holds it; says whether it did.
    pub(super) fn release(&self, tag: u32) -> bool {
        let held = self.get(tag).is_some();
        if held {
            self.0.store(0, Ordering::Release);
        }
        held
    }

    /// Whether no task holds the slot.
    #[cfg(test)]
    pub(super) fn is_free(&self) -> bool {
        self.0.load(Ordering::Relaxed) == 0
    }
}
