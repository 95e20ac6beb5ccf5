//! Saved tensors: what a backward formula needs, checked against in-place changes.

use super::node::{Edge, Node};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::is_grad_enabled;
use crate::core::tensor::Tensor;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// `SavedVariable::output_nr` of a saved tensor that is not an output of the saving node.
const NOT_AN_OUTPUT: u32 = u32::MAX;

/// A tensor kept for the backward pass, with the version it had when saved.
pub struct SavedVariable {
    slot: Mutex<Option<Tensor>>,
    version: AtomicU64,
    /// `(grad_fn name, output number)` of the tensor when saved, for error messages.
    producer: Option<(&'static str, u32)>,
    /// Output number when the saved tensor is an output of the saving node (stored without
    /// its grad_fn); [`NOT_AN_OUTPUT`] otherwise.
    output_nr: u32,
    /// A placeholder that never held a tensor (not an error to unpack).
    empty: bool,
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
            slot: Mutex::new(Some(tensor.clone())),
            empty: false,
            output_nr: NOT_AN_OUTPUT,
            producer,
        }
    }

    /// Saves output `output_nr` of the node: only its data, since its grad_fn is the node itself.
    pub fn output(tensor: &Tensor, output_nr: usize) -> SavedVariable {
        SavedVariable {
            version: AtomicU64::new(tensor.version()),
            slot: Mutex::new(Some(tensor.detach())),
            empty: false,
            output_nr: u32::try_from(output_nr).expect("fewer than 2^32 outputs"),
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
        let tensor = match release {
            true => self.slot.lock().take(),
            false => self.slot.lock().clone(),
        };
        let Some(tensor) = tensor else {
            return Err(Error::runtime(
                "Trying to backward through the graph a second time (or directly access saved tensors after they \
                 have already been freed). Saved intermediate values of the graph are freed when you call \
                 .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the \
                 graph a second time or if you need to access saved tensors after calling backward.",
            ));
        };
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
    pub(crate) fn rebind_output(&self, to: &Tensor) {
        if self.output_nr == 0 {
            let mut slot = self.slot.lock();
            if slot.is_some() {
                *slot = Some(to.detach());
                self.version.store(to.version(), Ordering::Release);
            }
        }
    }

    /// Frees the saved data.
    pub fn release(&self) {
        self.slot.lock().take();
    }

    pub(crate) fn take(&self) -> Option<Tensor> {
        self.slot.lock().take()
    }
}
