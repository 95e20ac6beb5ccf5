//! Rows of a weight picked by indices: `embedding` (`EmbeddingBackward0`, the rows themselves)
//! and `embedding_bag` (`EmbeddingBagBackward0`: sums, means or maxima of bags of rows), both
//! with PyTorch's sparse gradients.
//!
//! Note [Embedding bags]: the indices are one flat list cut into bags by `offsets` (bag `b` is
//! `indices[offsets[b]..offsets[b + 1]]`, the last bag running to the end, or to the last
//! offset with `include_last_offset`). Each bag becomes one row: the sum of its rows (each
//! times its per-sample weight), their mean, or their element-wise maximum; an empty bag gives
//! zeros, and a `padding_idx` index is left out of its bag (and of the mean's count). The
//! weight's gradient sends each bag's gradient row back to the rows it took: scaled as in
//! the forward for sums and means (and divided by each row's frequency with
//! `scale_grad_by_freq`), to the row that gave each maximum for `max`; with `sparse` it is a
//! sparse COO tensor with one gradient row per index taken, as PyTorch's. The per-sample
//! weights' gradient is the dot product of each index's row with its bag's gradient.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::Scalar;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
pub use crate::cpu::bags::BagMode;
use crate::ops::shape::indexing::{index_values, IndexRule};
use crate::with_float;

/// The sparse gradient of `embedding(.., sparse=True)`: row `k` of `g` for each taken index
/// `taken[k]` whose factor is not 0 (the padding index), scaled by its factor.
fn embedding_sparse_grad(
    g: &Tensor,
    taken: &[usize],
    factors: Option<&[f64]>,
    [num, dim]: [usize; 2],
) -> Result<Tensor> {
    let kept: Vec<usize> = (0..taken.len())
        .filter(|&k| factors.is_none_or(|f| f[k] != 0.0))
        .collect();
    let positions = Tensor::from_vec(kept.iter().map(|&k| k as i64).collect(), &[kept.len()])?;
    let mut values = g.detach().contiguous()?.index_select(0, &positions)?;
    if let Some(f) = factors {
        let scale: Vec<f64> = kept.iter().map(|&k| f[k]).collect();
        let scale = Tensor::from_vec(scale, &[kept.len(), 1])?.to_dtype(g.dtype())?;
        values = values.mul(&scale)?;
    }
    let rows: Vec<i64> = kept.iter().map(|&k| taken[k] as i64).collect();
    let indices = Tensor::from_vec(rows, &[1, kept.len()])?;
    Tensor::sparse_coo(&indices, &values, &[num, dim])
}

impl Tensor {
    /// The rows of this 2-D weight at `indices` (shape `indices.shape + [dim]`), as PyTorch's
    /// `embedding` (`EmbeddingBackward0`): the gradient of each row is the sum of the
    /// gradients of the places it was taken to, none for the row `padding_idx`, and divided by
    /// how often the row was taken when `scale_grad_by_freq`.
    pub fn embedding(
        &self,
        indices: &Tensor,
        padding_idx: Option<usize>,
        scale_grad_by_freq: bool,
    ) -> Result<Tensor> {
        self.embedding_as(indices, padding_idx, scale_grad_by_freq, false)
    }

    /// [`Tensor::embedding`]; with `sparse`, the gradient is a sparse COO tensor holding one
    /// gradient row per index (the indices equal to `padding_idx` left out), as PyTorch's
    /// `sparse=True`.
    pub fn embedding_as(
        &self,
        indices: &Tensor,
        padding_idx: Option<usize>,
        scale_grad_by_freq: bool,
        sparse: bool,
    ) -> Result<Tensor> {
        if self.dim() != 2 {
            return Err(Error::runtime("'weight' must be 2-D"));
        }
        let (num, dim) = (self.shape()[0], self.shape()[1]);
        let flat = indices.reshape(&[-1])?;
        let mut shape = indices.shape().to_vec();
        shape.push(dim);
        let rows = self.index_select_raw(0, &flat)?;
        // the fresh rows seen with the indices' shape (a plain tensor, not a view)
        let out = Tensor::from_parts(
            rows.storage().clone(),
            crate::core::layout::Layout::contiguous(&shape),
            rows.dtype(),
            None,
        );
        if !is_recording(&[self]) {
            return Ok(out);
        }
        // the factor of each taken row's gradient: 0 at padding_idx, 1/count when scaling
        let taken = index_values(&flat, num, 0, IndexRule::Select)?;
        let factors: Option<Vec<f64>> = (padding_idx.is_some() || scale_grad_by_freq).then(|| {
            let mut counts = vec![0usize; num];
            for &i in &taken {
                counts[i] += 1;
            }
            taken
                .iter()
                .map(|&i| match (Some(i) == padding_idx, scale_grad_by_freq) {
                    (true, _) => 0.0,
                    (false, true) => 1.0 / counts[i] as f64,
                    (false, false) => 1.0,
                })
                .collect()
        });
        let count = taken.len() as isize;
        Ok(record(
            out,
            "EmbeddingBackward0",
            &[self],
            &[Save::Tensor(&flat.clone())],
            move |ctx| {
                // the count spelt out: `-1` is ambiguous for rows of width 0
                let g = ctx.grad(0).reshape(&[count, dim as isize])?;
                if sparse && scale_grad_by_freq {
                    return Err(Error::runtime(
                        "embedding_backward: scale_grad_by_freq not supported with sparse gradients",
                    ));
                }
                if sparse {
                    return Ok(vec![Some(embedding_sparse_grad(
                        &g,
                        &taken,
                        factors.as_deref(),
                        [num, dim],
                    )?)]);
                }
                let g = match &factors {
                    Some(f) => {
                        let f = Tensor::from_vec(f.clone(), &[f.len(), 1])?.to_dtype(g.dtype())?;
                        g.mul(&f)?
                    }
                    None => g,
                };
                let zeros = Tensor::zeros(&[num, dim], g.dtype());
                Ok(vec![Some(zeros.index_add(0, &flat, &g)?)])
            },
        ))
    }
}

/// The settings of [`Tensor::embedding_bag`] besides the indices, offsets and mode.
#[derive(Clone, Debug, Default)]
pub struct BagOptions {
    /// One weight per index, multiplying its row (sums only).
    pub per_sample_weights: Option<Tensor>,
    /// The last offset ends the last bag (instead of the end of the indices).
    pub include_last_offset: bool,
    /// An index left out of every bag.
    pub padding_idx: Option<usize>,
    /// Divide each row's gradient by how often the indices take it (not for `max`).
    pub scale_grad_by_freq: bool,
    /// Give the weight a sparse COO gradient (not for `max`).
    pub sparse: bool,
}

/// Where each bag starts and ends in the indices, checked as PyTorch checks `offsets`.
fn bag_bounds(offsets: &Tensor, count: usize, include_last_offset: bool) -> Result<Vec<usize>> {
    if offsets.dim() != 1 {
        return Err(Error::value("offsets has to be a 1D Tensor"));
    }
    let starts = crate::cpu::kernels::cast(offsets, crate::DType::Int64).to_vec::<i64>()?;
    if let Some(&first) = starts.first() {
        if first != 0 {
            return Err(Error::runtime(format!(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to \
                 start from position 0. However, got {first}"
            )));
        }
    }
    if let Some(&last) = starts.last() {
        if last > count as i64 {
            return Err(Error::runtime(format!(
                "offsets[-1] can not be greater than input's length {count} but got \
                 offsets[-1] of {last}"
            )));
        }
    }
    if let Some(k) = (1..starts.len()).find(|&k| starts[k] < starts[k - 1]) {
        return Err(Error::runtime(format!(
            "embedding_bag: offsets must not decrease, but offsets[{k}] = {} follows \
             offsets[{}] = {}",
            starts[k],
            k - 1,
            starts[k - 1]
        )));
    }
    let mut bounds: Vec<usize> = starts.iter().map(|&s| s as usize).collect();
    if include_last_offset {
        if bounds.is_empty() {
            return Err(Error::runtime(
                "embedding_bag: include_last_offset needs at least one offset",
            ));
        }
    } else {
        bounds.push(count);
    }
    Ok(bounds)
}

impl Tensor {
    /// One row per bag of this 2-D weight's rows at `indices` (1-D), the bags cut by the 1-D
    /// `offsets` and reduced by `mode`, as PyTorch's `embedding_bag` (see Note [Embedding
    /// bags]); returns the `bags × dim` output.
    pub fn embedding_bag(
        &self,
        indices: &Tensor,
        offsets: &Tensor,
        mode: BagMode,
        options: &BagOptions,
    ) -> Result<Tensor> {
        if self.dim() != 2 {
            return Err(Error::value(format!(
                "weight has to be a 2D Tensor, but got Tensor of dimension {}",
                self.dim()
            )));
        }
        if indices.dim() != 1 {
            return Err(Error::value(format!(
                "input has to be 1D or 2D Tensor, but got Tensor of dimension {}",
                indices.dim()
            )));
        }
        let (num, dim) = (self.shape()[0], self.shape()[1]);
        let psw = options.per_sample_weights.as_ref();
        if let Some(w) = psw {
            if mode != BagMode::Sum {
                return Err(Error::not_implemented(format!(
                    "embedding_bag: per_sample_weights was not None. per_sample_weights is \
                     only supported for mode='sum' (got mode='{}'). Please open a feature \
                     request on GitHub.",
                    if mode == BagMode::Mean { "mean" } else { "max" }
                )));
            }
            if w.shape() != indices.shape() {
                return Err(Error::value(format!(
                    "embedding_bag: If per_sample_weights ({}) is not None, then it must have \
                     the same shape as the input ({})",
                    crate::core::layout::fmt_shape(w.shape()),
                    crate::core::layout::fmt_shape(indices.shape())
                )));
            }
        }
        if mode == BagMode::Max && options.scale_grad_by_freq {
            return Err(Error::value(
                "max mode does not support scaling the gradient by the frequency",
            ));
        }
        if mode == BagMode::Max && options.sparse {
            return Err(Error::value("max mode does not support sparse weights"));
        }
        let rows = index_values(indices, num, 0, IndexRule::Bag)?;
        let taken: Vec<Option<usize>> = rows
            .iter()
            .map(|&r| (Some(r) != options.padding_idx).then_some(r))
            .collect();
        let bounds = bag_bounds(offsets, rows.len(), options.include_last_offset)?;
        let bags = bounds.len() - 1;
        let weight = self.contiguous()?;
        let (out, argmax) = with_float!(self.dtype(), T => {
            let scale = match psw {
                Some(w) => Some(crate::cpu::kernels::cast(w, self.dtype()).to_vec::<T>()?),
                None => None,
            };
            // the rows read where they are (a table can be large; the bags take few of them)
            let (out, argmax) = weight.read(|data: &[T], l| {
                let data = &data[l.offset..l.offset + num * dim];
                crate::cpu::bags::reduce_bags(data, dim, &taken, &bounds, mode, scale.as_deref())
            });
            (Tensor::from_vec(out, &[bags, dim])?, argmax)
        });
        let inputs: Vec<&Tensor> = std::iter::once(self).chain(psw).collect();
        if !is_recording(&inputs) {
            return Ok(out);
        }
        // the bag of each position, and the factor of its row's gradient
        let mut bag_of = vec![0i64; rows.len()];
        let mut counts = vec![0usize; bags];
        for b in 0..bags {
            for p in bounds[b]..bounds[b + 1] {
                bag_of[p] = b as i64;
                counts[b] += usize::from(taken[p].is_some());
            }
        }
        // how often each row is taken (only for scale_grad_by_freq: a table can be large)
        let mut freq = std::collections::HashMap::<usize, usize>::new();
        if options.scale_grad_by_freq {
            for r in taken.iter().flatten() {
                *freq.entry(*r).or_default() += 1;
            }
        }
        let kept: Vec<bool> = (0..rows.len())
            .map(|p| p < bounds[bags] && taken[p].is_some())
            .collect();
        let factors: Vec<f64> = (0..rows.len())
            .map(|p| {
                if !kept[p] {
                    return 0.0;
                }
                let mut f = 1.0;
                if mode == BagMode::Mean {
                    f /= counts[bag_of[p] as usize] as f64;
                }
                if options.scale_grad_by_freq {
                    f /= freq[&rows[p]] as f64;
                }
                f
            })
            .collect();
        let positions = Tensor::from_vec(bag_of, &[rows.len()])?;
        let taken_rows = Tensor::from_vec(rows.iter().map(|&r| r as i64).collect(), &[rows.len()])?;
        let sparse = options.sparse;
        let has_psw = psw.is_some();
        Ok(record(
            out,
            "EmbeddingBagBackward0",
            &inputs,
            &[Save::Tensor(self), psw.map_or(Save::Skip, Save::Tensor)],
            move |ctx| {
                let g = ctx.grad(0);
                // each position's share of its bag's gradient (sums and means: max bags send
                // theirs by `argmax`, and only sums have per-sample weights)
                let g_rows = match mode {
                    BagMode::Max => None,
                    _ => Some(g.index_select(0, &positions)?),
                };
                let rows_grad = || {
                    g_rows.as_ref().ok_or_else(|| {
                        Error::runtime("embedding_bag: max bags have no gradient per position")
                    })
                };
                let weight_grad = if !ctx.needs_input_grad(0) {
                    None
                } else if mode == BagMode::Max {
                    let mut at = Vec::new();
                    let mut from = Vec::new();
                    for (k, &p) in argmax.iter().enumerate() {
                        if p != usize::MAX {
                            at.push((rows[p] * dim + k % dim) as i64);
                            from.push(k as i64);
                        }
                    }
                    let (n, m) = (at.len(), from.len());
                    let picked = g
                        .reshape(&[-1])?
                        .index_select(0, &Tensor::from_vec(from, &[m])?)?;
                    let flat = Tensor::zeros(&[num * dim], g.dtype());
                    Some(
                        flat.index_add(0, &Tensor::from_vec(at, &[n])?, &picked)?
                            .reshape(&[num as isize, dim as isize])?,
                    )
                } else {
                    let scaled = match ctx.saved_opt(1) {
                        Some(w) => rows_grad()?.mul(&w.reshape(&[-1, 1])?)?,
                        None => rows_grad()?.clone(),
                    };
                    if sparse {
                        Some(embedding_sparse_grad(
                            &scaled,
                            &rows,
                            Some(&factors),
                            [num, dim],
                        )?)
                    } else {
                        let fs = Tensor::from_vec(factors.clone(), &[rows.len(), 1])?
                            .to_dtype(g.dtype())?;
                        let zeros = Tensor::zeros(&[num, dim], g.dtype());
                        Some(zeros.index_add(0, &taken_rows, &scaled.mul(&fs)?)?)
                    }
                };
                let mut grads = vec![weight_grad];
                if has_psw {
                    let psw_grad = if ctx.needs_input_grad(1) {
                        let left_out: Vec<bool> = kept.iter().map(|&k| !k).collect();
                        let left_out = Tensor::from_vec(left_out, &[rows.len()])?;
                        let picked = ctx.saved(0).index_select(0, &taken_rows)?;
                        let dots = picked.mul(rows_grad()?)?.sum_dims(&[1], false)?;
                        Some(dots.masked_fill(&left_out, Scalar::from(0.0))?)
                    } else {
                        None
                    };
                    grads.push(psw_grad);
                }
                Ok(grads)
            },
        ))
    }
}
