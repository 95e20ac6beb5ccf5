//! The storage payload of sparse COO tensors (the ops on them are in `ops::sparse`, see its
//! Note [Sparse COO tensors]).

use crate::core::error::Result;
use crate::core::tensor::Tensor;
use parking_lot::RwLock;
use std::sync::Arc;

/// The parts of a sparse COO tensor.
#[derive(Clone)]
pub struct CooParts {
    /// int64, `sparse_dim × nnz`.
    pub indices: Tensor,
    /// `nnz × (dense dimensions)`, the tensor's dtype.
    pub values: Tensor,
    /// Whether the indices are sorted and free of duplicates.
    pub coalesced: bool,
}

/// The payload of a sparse tensor's storage (see Note [Sparse COO tensors]). The parts can be
/// replaced in place: a sparse `.grad` accumulates into itself, as PyTorch's.
pub struct SparseCoo {
    parts: RwLock<CooParts>,
}

impl Tensor {
    /// A sparse tensor of `shape` with these parts (no checks, no autograd; its ops dispatch to
    /// the handler `core::dispatch::set_sparse_handler` installed).
    pub(crate) fn from_coo(parts: CooParts, shape: &[usize]) -> Result<Tensor> {
        let dtype = parts.values.dtype();
        let strides = crate::core::layout::Layout::contiguous(shape).strides;
        let payload: crate::core::storage::Subclass = Arc::new(SparseCoo {
            parts: RwLock::new(parts),
        });
        Tensor::wrapper(shape, &strides, 0, dtype, payload)
    }

    /// The payload of a sparse tensor, `None` for a dense one.
    fn sparse_payload(&self) -> Option<&SparseCoo> {
        self.subclass()?.downcast_ref::<SparseCoo>()
    }

    /// Whether the tensor is sparse COO (`is_sparse`).
    pub fn is_sparse(&self) -> bool {
        crate::core::storage::wrappers_made() && self.sparse_payload().is_some()
    }

    /// The indices, values and coalesced flag of a sparse tensor (the tensors are shared).
    pub fn coo(&self) -> Option<CooParts> {
        self.sparse_payload().map(|s| s.parts.read().clone())
    }

    /// Whether nothing else holds this sparse tensor or its indices' and values' elements, and
    /// those are contiguous: AccumulateGrad may then keep it as `.grad` without a copy, as
    /// PyTorch's (false for a dense tensor).
    pub(crate) fn owns_coo_exclusively(&self) -> bool {
        let (Some(payload), Some(coo)) = (self.subclass(), self.sparse_payload()) else {
            return false;
        };
        let parts = coo.parts.read();
        Arc::strong_count(&self.0) == 1
            && Arc::strong_count(payload) == 1
            && crate::core::tensor::owns_exclusively(&parts.indices)
            && crate::core::tensor::owns_exclusively(&parts.values)
    }

    /// Replaces a sparse tensor's parts in place (a no-op on a dense tensor).
    pub fn replace_coo(&self, parts: CooParts) {
        if let Some(s) = self.sparse_payload() {
            *s.parts.write() = parts;
        }
    }
}
