//! Basic indexing (`x[0]`, `x[1:3]`, `x[..., None]`): a chain of select/slice/unsqueeze views.

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// One entry of an index tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexItem {
    /// An integer: selects and drops the dimension.
    Int(isize),
    /// `start:stop:step`.
    Slice(Option<isize>, Option<isize>, isize),
    /// `None`: inserts a dimension of size 1.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
}

impl Tensor {
    /// `self[items]` with NumPy/PyTorch basic-indexing rules; the result is a view.
    pub fn index(&self, items: &[IndexItem]) -> Result<Tensor> {
        let consumed = items
            .iter()
            .filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice(..)))
            .count();
        let ellipses = items
            .iter()
            .filter(|i| matches!(i, IndexItem::Ellipsis))
            .count();
        if ellipses > 1 {
            return Err(Error::index(
                "an index can only have a single ellipsis ('...')",
            ));
        }
        if consumed > self.dim() {
            return Err(Error::index(format!(
                "too many indices for tensor of dimension {} (got {consumed})",
                self.dim()
            )));
        }
        let mut out = self.clone();
        // `dim` walks the result; `source_dim` the indexed tensor (named in error messages)
        let mut dim: isize = 0;
        let mut source_dim = 0usize;
        for item in items {
            match *item {
                IndexItem::Int(i) => {
                    let size = out.shape()[dim as usize] as isize;
                    if i < -size || i >= size {
                        return Err(Error::index(format!(
                            "index {i} is out of bounds for dimension {source_dim} with size {size}"
                        )));
                    }
                    out = out.select(dim, i)?;
                    source_dim += 1;
                }
                IndexItem::Slice(start, stop, step) => {
                    out = out.slice(dim, start, stop, step)?;
                    dim += 1;
                    source_dim += 1;
                }
                IndexItem::NewAxis => {
                    out = out.unsqueeze(dim)?;
                    dim += 1;
                }
                IndexItem::Ellipsis => {
                    dim += (self.dim() - consumed) as isize;
                    source_dim += self.dim() - consumed;
                }
            }
        }
        if out.same(self) {
            // `x[...]` and `x[:]`-free empty indexing still return a new view, as PyTorch does
            out = out.alias_with_layout(out.layout().clone());
        }
        Ok(out)
    }
}
