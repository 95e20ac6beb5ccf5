//! Basic indexing (`x[0]`, `x[1:3]`, `x[..., None]`): a chain of select/slice/unsqueeze views.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::Scalar;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::tensor::Tensor;

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
        self.index_basic(items, items.len() > 1)
    }

    /// `self[items]`; `skip_full` leaves out the views of full slices (`:`), as PyTorch does
    /// when the index is a tuple (`x[:,]` is an alias, `x[:]` a slice).
    pub fn index_basic(&self, items: &[IndexItem], skip_full: bool) -> Result<Tensor> {
        let consumed = items
            .iter()
            .filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice(..)))
            .count();
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
                    // inside a tuple a full `:` makes no view of its own, as in PyTorch (a
                    // negative start, even one reaching the beginning, still slices there)
                    let size = out.shape()[dim as usize] as isize;
                    let full =
                        step == 1 && start.is_none_or(|s| s == 0) && stop.is_none_or(|e| e >= size);
                    if !(full && skip_full) {
                        out = out.slice(dim, start, stop, step)?;
                    }
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
            // `x[...]`, `x[:, :]` and `x[()]` still return a new view: PyTorch's alias
            out = self.alias()?;
        }
        Ok(out)
    }
}

/// The basic part of an index, and the advanced part: the result dim where the index tensors
/// apply, and the tensors.
type SplitIndex = (Vec<IndexItem>, Option<(Vec<usize>, Vec<Tensor>)>);

/// One entry of an index that may hold tensors (advanced indexing).
#[derive(Clone, Debug)]
pub enum Index {
    /// A basic index entry.
    Basic(IndexItem),
    /// An int64 tensor of positions, or a bool mask (which covers as many dims as it has).
    Tensor(Tensor),
}

impl Tensor {
    /// Positions of the true elements of a bool tensor, one int64 index tensor per dimension.
    pub fn nonzero_indices(&self) -> Result<Vec<Tensor>> {
        let mask: Vec<bool> = self.to_vec()?;
        let shape = self.shape();
        let strides = crate::core::layout::contiguous_strides(shape);
        let hits: Vec<usize> = mask
            .iter()
            .enumerate()
            .filter(|(_, &m)| m)
            .map(|(i, _)| i)
            .collect();
        (0..shape.len().max(1))
            .map(|d| {
                let col: Vec<i64> = hits
                    .iter()
                    .map(|&i| {
                        if shape.is_empty() {
                            0
                        } else {
                            (i as isize / strides[d]) as i64 % shape[d] as i64
                        }
                    })
                    .collect();
                Tensor::from_vec(col, &[hits.len()])
            })
            .collect()
    }

    /// Splits an index into its basic part (tensor entries replaced by full slices) and the
    /// advanced part: the result dim where the index tensors apply, and the tensors.
    fn split_index(&self, items: &[Index]) -> Result<SplitIndex> {
        let mut basic = Vec::new();
        let mut tensors = Vec::new();
        let mut dims: Vec<usize> = Vec::new();
        let mut result_dim = 0usize;
        let consumed: usize = items
            .iter()
            .map(|i| match i {
                Index::Basic(IndexItem::Int(_) | IndexItem::Slice(..)) => 1,
                Index::Tensor(t) if t.dtype() == crate::DType::Bool => t.dim(),
                Index::Tensor(_) => 1,
                _ => 0,
            })
            .sum();
        // with any tensor index, integers are advanced indices too (they broadcast with the rest)
        let advanced = items.iter().any(|i| matches!(i, Index::Tensor(_)));
        let promoted: Vec<Index> = items
            .iter()
            .map(|i| match i {
                Index::Basic(IndexItem::Int(v)) if advanced => {
                    Index::Tensor(Tensor::scalar(*v as i64))
                }
                other => other.clone(),
            })
            .collect();
        // the dim of `self` the next item indexes (for the mask shape check)
        let mut source_dim = 0usize;
        for item in &promoted {
            match item {
                Index::Basic(b) => {
                    basic.push(*b);
                    match b {
                        IndexItem::Slice(..) => {
                            result_dim += 1;
                            source_dim += 1;
                        }
                        IndexItem::NewAxis => result_dim += 1,
                        IndexItem::Ellipsis => {
                            result_dim += self.dim().saturating_sub(consumed);
                            source_dim += self.dim().saturating_sub(consumed);
                        }
                        IndexItem::Int(_) => source_dim += 1,
                    }
                }
                Index::Tensor(t) if t.dtype() == crate::DType::Bool && t.dim() == 0 => {
                    // a 0-d mask adds a dimension of size 1 and keeps it (true) or none of it
                    let keep = t.item()?.to_f64() != 0.0;
                    basic.push(IndexItem::NewAxis);
                    dims.push(result_dim);
                    result_dim += 1;
                    let positions: Vec<i64> = if keep { vec![0] } else { vec![] };
                    let n = positions.len();
                    tensors.push(Tensor::from_vec(positions, &[n])?);
                }
                Index::Tensor(t) => {
                    if t.dtype() == crate::DType::Bool && t.dim() > 0 {
                        self.check_mask_shape(t, source_dim)?;
                    }
                    source_dim += if t.dtype() == crate::DType::Bool {
                        t.dim()
                    } else {
                        1
                    };
                    let (parts, width) = if t.dtype() == crate::DType::Bool {
                        (t.nonzero_indices()?, t.dim().max(1))
                    } else if t.dtype() == crate::DType::Int64 {
                        (vec![t.clone()], 1)
                    } else {
                        return Err(Error::index(
                            "tensors used as indices must be long, int, byte or bool tensors",
                        ));
                    };
                    for _ in 0..width {
                        basic.push(IndexItem::Slice(None, None, 1));
                        dims.push(result_dim);
                        result_dim += 1;
                    }
                    tensors.extend(parts);
                }
            }
        }
        Ok((basic, (!dims.is_empty()).then_some((dims, tensors))))
    }

    /// The view where the advanced-index dims `dims` are consecutive, and where they start: in
    /// place when they already are, else moved to the front (NumPy's and PyTorch's rule).
    fn gather_advanced_dims(&self, dims: &[usize]) -> Result<(Tensor, usize)> {
        if dims.windows(2).all(|w| w[1] == w[0] + 1) {
            return Ok((self.clone(), dims[0]));
        }
        let mut perm: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
        perm.extend(
            (0..self.dim())
                .filter(|d| !dims.contains(d))
                .map(|d| d as isize),
        );
        Ok((self.permute(&perm)?, 0))
    }

    /// `self[items]` with basic and advanced entries (integer lists/tensors and bool masks).
    /// The basic entries make a view; the advanced part is one node, `IndexBackward0`, whose
    /// gradient adds the incoming one at the indexed places of zeros.
    pub fn index_advanced(&self, items: &[Index]) -> Result<Tensor> {
        let (basic, advanced) = self.split_index(items)?;
        let Some((dims, tensors)) = advanced else {
            return self.index(&basic);
        };
        // no alias when the basic part selects everything: the index node takes `self`
        let view = match basic.iter().all(|i| *i == IndexItem::Slice(None, None, 1)) {
            true => self.clone(),
            false => self.index_basic(&basic, true)?,
        };
        let out = {
            let _untracked = GradModeGuard::new(false);
            let (moved, first) = view.gather_advanced_dims(&dims)?;
            let picked = moved.index_with_tensors(first, &tensors)?;
            // a copy of its own (no `_base`): the elements were gathered into new storage
            Tensor::from_parts(
                picked.storage().clone(),
                picked.layout().clone(),
                picked.dtype(),
                None,
            )
        };
        if !is_recording(&[&view]) {
            return Ok(out);
        }
        let (shape, dtype) = (view.shape().to_vec(), view.dtype());
        // the indices are saved (version-checked, freed after backward) as PyTorch's
        let kept = tensors.clone();
        let saves: Vec<Save> = kept.iter().map(Save::Tensor).collect();
        Ok(record(
            out,
            "IndexBackward0",
            &[&view],
            &saves,
            move |ctx| {
                let zeros = Tensor::zeros(&shape, dtype);
                let (moved, first) = zeros.gather_advanced_dims(&dims)?;
                let summed = moved.index_put(first, &tensors, ctx.grad(0), true)?;
                Ok(vec![Some(undo_gather_advanced_dims(summed, &dims)?)])
            },
        ))
    }

    /// `self[items] = value` (in place, differentiable with respect to both sides).
    pub fn index_assign(&self, items: &[Index], value: &Tensor) -> Result<()> {
        self.assign(items, value, None)
    }

    /// [`Tensor::index_assign`]; with `number` (the Python number `value` holds), basic
    /// indexing fills the selection with it (`FillBackward2`), as PyTorch's.
    fn assign(&self, items: &[Index], value: &Tensor, number: Option<Scalar>) -> Result<()> {
        let integer_index = items
            .iter()
            .any(|i| matches!(i, Index::Tensor(t) if t.dtype() != crate::DType::Bool));
        if integer_index && value.dtype() != self.dtype() {
            return Err(Error::runtime(format!(
                "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
                self.dtype().scalar_name(),
                value.dtype().scalar_name()
            )));
        }
        let (basic, advanced) = self.split_index(items)?;
        // an integer selects (a view) before the advanced part, as PyTorch's slicing does
        let selects = items
            .iter()
            .any(|i| matches!(i, Index::Basic(IndexItem::Int(_))));
        let view = if !selects && self.covers_all(&basic) {
            // `x[:] = v`, `x[...] = v`, `x[idx] = v`, `x[mask] = v`: PyTorch writes into `x`
            // itself (IndexPutBackward0), not through a view (CopySlices)
            self.clone()
        } else {
            self.index(&basic)?
        };
        match advanced {
            None => match number {
                Some(n) => view.fill_(n),
                None => view.copy_to(value),
            },
            Some((dims, tensors)) => {
                let (view, first) = view.gather_advanced_dims(&dims)?;
                view.apply_inplace("index_put_", &[value], |x| {
                    x.index_put(first, &tensors, value, false)
                })
            }
        }
    }
}

impl Tensor {
    /// Writes `src` into this tensor (the target of `x[items] = src`), as PyTorch's `copy_to`:
    /// a copy when the shapes match, a fill from a 0-d `src` (`FillBackward3`), else a copy of
    /// `src` with its leading size-1 dimensions dropped, broadcast.
    fn copy_to(&self, src: &Tensor) -> Result<()> {
        if self.shape() == src.shape() {
            return self.copy_(src);
        }
        if src.dim() == 0 {
            return self.fill_tensor_(src);
        }
        // PyTorch's `copy_to`: leading size-1 dimensions dropped, then the value expanded to
        // the selection's shape before the copy, so a value read from the selection itself
        // (`x[1] = x[1][0:1]`) is a broadcast, not a partial overlap
        let ones = src.shape().iter().take_while(|&&s| s == 1).count();
        let rest: Vec<isize> = src.shape()[ones..].iter().map(|&s| s as isize).collect();
        let target: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
        let view = if ones > 0 {
            src.reshape(&rest)?
        } else {
            src.clone()
        };
        self.copy_(&view.expand(&target)?)
    }

    /// `self[items] = value` for a Python number: as [`Tensor::index_assign`], except that a
    /// lone bool mask or integer index tensor (with only `...` or whole-dimension slices beside
    /// it) fills in place as `masked_fill_` or `index_fill_`, as PyTorch does
    /// (`MaskedFillBackward0`, `IndexFillBackward0`).
    pub fn index_assign_number(&self, items: &[Index], value: Scalar) -> Result<()> {
        if let Some((index, dim)) = self.lone_tensor_index(items, crate::DType::Int64) {
            return self.apply_inplace("index_fill_", &[], |x| x.index_fill(dim, &index, value));
        }
        if let Some((mask, from)) = self.lone_tensor_index(items, crate::DType::Bool) {
            self.check_mask_shape(&mask, from)?;
            // the mask covers dims from..from + mask.dim(): trailing ones broadcast it
            let mut shape: Vec<isize> = mask.shape().iter().map(|&n| n as isize).collect();
            let after = self.dim().saturating_sub(from + mask.dim());
            shape.extend(std::iter::repeat_n(1, after));
            let mask = mask.reshape(&shape)?;
            return self.apply_inplace("masked_fill_", &[], |x| x.masked_fill(&mask, value));
        }
        self.assign(
            items,
            &Tensor::scalar_of(value.to_f64(), self.dtype()),
            Some(value),
        )
    }

    /// PyTorch's IndexError for a bool `mask` whose shape does not match the dims it covers,
    /// from dim `from` on.
    fn check_mask_shape(&self, mask: &Tensor, from: usize) -> Result<()> {
        let end = (from + mask.dim()).min(self.dim());
        let covered = &self.shape()[from.min(end)..end];
        for (k, (&m, &s)) in mask.shape().iter().zip(covered).enumerate() {
            if m != s {
                return Err(Error::index(format!(
                    "The shape of the mask {} at index {k} does not match the shape of the indexed tensor {} at index {}",
                    crate::core::layout::fmt_shape(mask.shape()),
                    crate::core::layout::fmt_shape(self.shape()),
                    from + k
                )));
            }
        }
        Ok(())
    }

    /// The tensor index of `items` (a bool mask or int64 positions, as `dtype` asks) and the
    /// first dim it covers, when it is the only entry besides `...` and whole-dimension slices
    /// (so no view is taken).
    fn lone_tensor_index(&self, items: &[Index], dtype: crate::DType) -> Option<(Tensor, usize)> {
        let masks: Vec<(usize, &Tensor)> = items
            .iter()
            .enumerate()
            .filter_map(|(k, i)| match i {
                Index::Tensor(t) => Some((k, t)),
                Index::Basic(_) => None,
            })
            .collect();
        let [(at, mask)] = masks[..] else {
            return None;
        };
        if mask.dtype() != dtype || mask.dim() == 0 {
            return None;
        }
        // an int64 index covers one dim whatever its shape; a mask as many as it has
        let covered = if dtype == crate::DType::Bool {
            mask.dim()
        } else {
            1
        };
        let whole = |i: &Index| {
            matches!(
                i,
                Index::Basic(IndexItem::Ellipsis) | Index::Basic(IndexItem::Slice(None, None, 1))
            )
        };
        if !items.iter().enumerate().all(|(k, i)| k == at || whole(i)) {
            return None;
        }
        // dims before the mask: the slices before it, or with an ellipsis before it, all the
        // dims the items after it leave
        let before = &items[..at];
        let from = if before
            .iter()
            .any(|i| matches!(i, Index::Basic(IndexItem::Ellipsis)))
        {
            let after: usize = items[at + 1..]
                .iter()
                .filter(|i| !matches!(i, Index::Basic(IndexItem::Ellipsis)))
                .count();
            self.dim().checked_sub(after + covered)?
        } else {
            before.len()
        };
        (from + covered <= self.dim()).then(|| (mask.clone(), from))
    }

    /// Whether a basic index selects this whole tensor as it is: only `...` and slices that start
    /// at 0 and reach the end with step 1 (PyTorch's slice optimization in assignment).
    fn covers_all(&self, items: &[IndexItem]) -> bool {
        let mut dim = 0;
        for item in items {
            match *item {
                IndexItem::Slice(start, stop, 1) => {
                    let Some(&size) = self.shape().get(dim) else {
                        return false;
                    };
                    if start.is_some_and(|s| s != 0) || stop.is_some_and(|e| e < size as isize) {
                        return false;
                    }
                    dim += 1;
                }
                IndexItem::Ellipsis => {
                    let named = items
                        .iter()
                        .filter(|i| matches!(i, IndexItem::Slice(..)))
                        .count();
                    dim += self.dim().saturating_sub(named);
                }
                _ => return false,
            }
        }
        true
    }
}

/// Puts the dims that `gather_advanced_dims` moved to the front back in their places.
fn undo_gather_advanced_dims(t: Tensor, dims: &[usize]) -> Result<Tensor> {
    if dims.windows(2).all(|w| w[1] == w[0] + 1) {
        return Ok(t);
    }
    let mut order: Vec<usize> = dims.to_vec();
    order.extend((0..t.dim()).filter(|d| !dims.contains(d)));
    let mut inverse = vec![0isize; order.len()];
    for (i, &d) in order.iter().enumerate() {
        inverse[d] = i as isize;
    }
    t.permute(&inverse)
}
