//! Index-driven ops: `gather`, `scatter_add`, `index_select`, `index_add`, `index_put` (the
//! core of advanced indexing; repeated indices accumulate their gradients), and choosing by a
//! mask: `where`, `masked_fill`. (`embedding`, an `index_select` of rows with its own
//! gradient, is with `embedding_bag` in `ops/nn/embedding.rs`.)

use crate::autograd::{is_recording, record, Save};
use crate::core::buffer::BufferElement;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::gather;
use crate::core::layout::{broadcast_shapes, elementwise_strides, Layout};
use crate::core::layout::{contiguous_strides, fmt_shape, normalize_dim};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::cast;
use crate::ops::result_type;
use crate::{with_any, with_num};

/// The sparse gradient of `gather(.., sparse_grad=True)`: `g`'s elements at the positions of
/// the input `index` picked along `dim`.
fn gathered_sparse(shape: &[usize], index: &Tensor, dim: usize, g: &Tensor) -> Result<Tensor> {
    let pos = positions(shape, index, dim)?;
    let indices = crate::cpu::sparse::unravel(&pos, shape);
    let indices = Tensor::from_vec(indices, &[shape.len(), pos.len()])?;
    let values = g.detach().contiguous()?.reshape(&[-1])?;
    Tensor::sparse_coo(&indices, &values, shape)
}

/// The int64 values of an index tensor, checked against `size` (negative values wrap).
/// How an op reads its indices: advanced indexing counts negatives from the end (IndexError
/// when out of range); `gather`/`scatter` refuse negatives (RuntimeError), `index_select` too
/// (IndexError), as PyTorch.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(in crate::ops) enum IndexRule {
    Wrap,
    Gather,
    Select,
    /// `embedding_bag`'s rows: PyTorch's `RuntimeError` naming the index.
    Bag,
}

pub(in crate::ops) fn index_values(
    index: &Tensor,
    size: usize,
    dim: usize,
    rule: IndexRule,
) -> Result<Vec<usize>> {
    if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
        return Err(Error::runtime(format!(
            "expected an int64 or int32 index tensor, got {} (use .long())",
            index.dtype().name()
        )));
    }
    crate::cpu::kernels::cast(index, DType::Int64)
        .to_vec::<i64>()?
        .into_iter()
        .map(|i| {
            let j = if i < 0 && rule == IndexRule::Wrap {
                i + size as i64
            } else {
                i
            };
            if j >= 0 && j < size as i64 {
                return Ok(j as usize);
            }
            let message =
                format!("index {i} is out of bounds for dimension {dim} with size {size}");
            Err(match rule {
                IndexRule::Wrap => Error::index(message),
                IndexRule::Gather => Error::runtime(message),
                IndexRule::Select => {
                    Error::index(format!("index out of range in self ({message})"))
                }
                IndexRule::Bag => Error::runtime(format!(
                    "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx \
                     to be {i}"
                )),
            })
        })
        .collect()
}

/// For every element of `index` (row-major), the flat position in a contiguous tensor of
/// `shape` that `gather`/`scatter` along `dim` address.
/// A 0-d `self` or `index` counts as 1-d with one element, as PyTorch's.
pub(in crate::ops) fn positions(shape: &[usize], index: &Tensor, dim: usize) -> Result<Vec<usize>> {
    let (self_dims, index_dims) = (shape.len(), index.dim());
    let shape: &[usize] = if shape.is_empty() { &[1] } else { shape };
    let ishape: &[usize] = if index.dim() == 0 {
        &[1]
    } else {
        index.shape()
    };
    if ishape.len() != shape.len() {
        return Err(Error::runtime(format!(
            "Index tensor must have the same number of dimensions as input tensor ({index_dims} vs {self_dims})"
        )));
    }
    for d in 0..shape.len() {
        if d != dim && ishape[d] > shape[d] {
            return Err(Error::runtime(format!(
                "Size does not match at dimension {d} expected index {} to be smaller than self {} apart from dimension {dim}",
                fmt_shape(index.shape()),
                fmt_shape(shape)
            )));
        }
    }
    let idx = index_values(index, shape[dim], dim, IndexRule::Gather)?;
    let strides = contiguous_strides(shape);
    let mut multi = vec![0usize; ishape.len()];
    let mut out = Vec::with_capacity(idx.len());
    for &i in &idx {
        let mut p = 0isize;
        for d in 0..ishape.len() {
            let coord = if d == dim { i } else { multi[d] };
            p += coord as isize * strides[d];
        }
        out.push(p as usize);
        for d in (0..ishape.len()).rev() {
            multi[d] += 1;
            if multi[d] < ishape[d] {
                break;
            }
            multi[d] = 0;
        }
    }
    Ok(out)
}

fn take<T: BufferElement + Copy>(x: &Tensor, pos: &[usize], shape: &[usize]) -> Result<Tensor> {
    // positions count in row-major order: a contiguous tensor is read in place
    let picked: Vec<T> = if x.is_contiguous() {
        x.read(|data: &[T], l| pos.iter().map(|&p| data[l.offset + p]).collect())
    } else {
        let data: Vec<T> = x.to_vec()?;
        pos.iter().map(|&p| data[p]).collect()
    };
    Tensor::from_vec(picked, shape)
}

fn add_at<T: BufferElement + crate::core::dtype::Num>(
    base: &Tensor,
    pos: &[usize],
    src: &Tensor,
) -> Result<Tensor> {
    let mut data: Vec<T> = base.to_vec()?;
    let values: Vec<T> = src.to_vec()?;
    for (&p, v) in pos.iter().zip(values) {
        data[p] += v;
    }
    Tensor::from_vec(data, base.shape())
}

impl Tensor {
    /// `out[..., j, ...] = self[..., index[..., j, ...], ...]` along `dim`.
    pub fn gather(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        self.gather_as(dim, index, false)
    }

    /// [`Tensor::gather`]; with `sparse_grad`, the gradient is a sparse COO tensor holding the
    /// output's gradient at the gathered positions (uncoalesced, as PyTorch's).
    pub fn gather_as(&self, dim: isize, index: &Tensor, sparse_grad: bool) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        let pos = positions(self.shape(), index, d)?;
        let out = with_any!(self.dtype(), T => take::<T>(self, &pos, index.shape())?);
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let (shape, index) = (self.shape().to_vec(), index.clone());
        Ok(record(
            out,
            "GatherBackward0",
            &[self],
            // `self` is saved as PyTorch saves it (the formula needs only its shape), so an
            // in-place change of it before backward is refused as there
            &[Save::Tensor(self), Save::Tensor(&index.clone())],
            move |ctx| {
                let g = ctx.grad(0);
                if sparse_grad {
                    return Ok(vec![Some(gathered_sparse(&shape, &index, d, g)?)]);
                }
                Ok(vec![Some(
                    Tensor::zeros(&shape, g.dtype()).scatter_add(d as isize, &index, g)?,
                )])
            },
        ))
    }

    /// A copy of `self` with `src` added at the positions `index` names along `dim`
    /// (repeated indices accumulate).
    pub fn scatter_add(&self, dim: isize, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        if src.dtype() != self.dtype() {
            return Err(Error::runtime(format!(
                "scatter_add(): Expected self.dtype to be equal to src.dtype (got {} and {})",
                self.dtype().name(),
                src.dtype().name()
            )));
        }
        if src.shape() != index.shape() {
            return Err(Error::runtime(format!(
                "scatter_add: src {} and index {} must have the same shape here",
                fmt_shape(src.shape()),
                fmt_shape(index.shape())
            )));
        }
        let pos = positions(self.shape(), index, d)?;
        let src_c = cast(src, self.dtype());
        let out = with_num!(self.dtype(), T => add_at::<T>(self, &pos, &src_c)?);
        if !is_recording(&[self, src]) {
            return Ok(out);
        }
        let index = index.clone();
        Ok(record(
            out,
            "ScatterAddBackward0",
            &[self, src],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                let gs = if ctx.needs_input_grad(1) {
                    Some(g.gather(d as isize, &index)?)
                } else {
                    None
                };
                Ok(vec![Some(g.clone()), gs])
            },
        ))
    }

    /// The slices `index[0], index[1], ...` of `dim` (a 1-D int64 index).
    pub fn index_select(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        if index.dim() > 1 {
            return Err(Error::index(
                "index_select(): Index is supposed to be a vector",
            ));
        }
        let d = normalize_dim(dim, self.dim())?;
        let index = index.reshape(&[-1])?;
        let out = self.index_select_raw(d, &index)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let shape = self.shape().to_vec();
        Ok(record(
            out,
            "IndexSelectBackward0",
            &[self],
            &[Save::Tensor(&index.clone())],
            move |ctx| {
                let g = ctx.grad(0);
                Ok(vec![Some(
                    Tensor::zeros(&shape, g.dtype()).index_add(d, &index, g)?,
                )])
            },
        ))
    }

    pub(in crate::ops) fn index_select_raw(&self, d: usize, index: &Tensor) -> Result<Tensor> {
        let size = self.shape().get(d).copied().unwrap_or(1);
        let idx = index_values(index, size, d, IndexRule::Select)?;
        let mut shape = self.shape().to_vec();
        let (outer, inner) = (
            shape[..d].iter().product::<usize>(),
            shape[d + 1..].iter().product::<usize>(),
        );
        let n = shape[d];
        shape[d] = idx.len();
        if self.is_contiguous() && inner > 1 {
            // whole rows of `inner` elements, copied (an embedding lookup)
            return with_any!(self.dtype(), T => {
                let mut out: Vec<T> = Vec::with_capacity(outer * idx.len() * inner);
                self.read(|data: &[T], l| {
                    let data = &data[l.offset..l.offset + self.numel()];
                    for o in 0..outer {
                        for &i in &idx {
                            let at = (o * n + i) * inner;
                            out.extend_from_slice(&data[at..at + inner]);
                        }
                    }
                });
                Tensor::from_vec(out, &shape)
            });
        }
        let pos = slice_positions(outer, n, inner, &idx);
        Ok(with_any!(self.dtype(), T => take::<T>(self, &pos, &shape)?))
    }

    /// A copy of `self` with the slices of `src` added at `index` along `dim` (accumulating).
    pub fn index_add(&self, dim: usize, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        let idx = index_values(index, self.shape()[dim], dim, IndexRule::Gather)?;
        let shape = self.shape();
        let (outer, inner) = (
            shape[..dim].iter().product::<usize>(),
            shape[dim + 1..].iter().product::<usize>(),
        );
        let n = shape[dim];
        let src_c = cast(src, self.dtype());
        let out =
            if inner > 1 && src_c.shape().iter().product::<usize>() == outer * idx.len() * inner {
                // whole rows of `inner` elements, added in index order (an embedding's gradient)
                with_num!(self.dtype(), T => {
                    let mut data: Vec<T> = self.to_vec()?;
                    let values: Vec<T> = src_c.to_vec()?;
                    let mut rows = values.chunks_exact(inner);
                    for o in 0..outer {
                        for &i in &idx {
                            let at = (o * n + i) * inner;
                            if let Some(row) = rows.next() {
                                for (d, &v) in data[at..at + inner].iter_mut().zip(row) {
                                    *d += v;
                                }
                            }
                        }
                    }
                    Tensor::from_vec(data, shape)?
                })
            } else {
                let pos = slice_positions(outer, n, inner, &idx);
                with_num!(self.dtype(), T => add_at::<T>(self, &pos, &src_c)?)
            };
        if !is_recording(&[self, src]) {
            return Ok(out);
        }
        let index = index.clone();
        Ok(record(
            out,
            "IndexAddBackward0",
            &[self, src],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                let gs = if ctx.needs_input_grad(1) {
                    Some(g.index_select(dim as isize, &index)?)
                } else {
                    None
                };
                Ok(vec![Some(g.clone()), gs])
            },
        ))
    }

    /// Advanced indexing on the consecutive dims `first..first+indices.len()`: the index tensors
    /// broadcast together, and their shape replaces those dims in the result.
    pub fn index_with_tensors(&self, first: usize, indices: &[Tensor]) -> Result<Tensor> {
        let (linear, ishape) = self.linear_index(first, indices)?;
        let k = indices.len();
        let shape = self.shape();
        let mut flat_shape: Vec<isize> = shape[..first].iter().map(|&s| s as isize).collect();
        // the indexed dims merged into one, sized explicitly (`-1` is ambiguous with empty dims)
        flat_shape.push(shape[first..first + k].iter().product::<usize>() as isize);
        flat_shape.extend(shape[first + k..].iter().map(|&s| s as isize));
        let picked = self
            .reshape(&flat_shape)?
            .index_select(first as isize, &linear)?;
        let mut out_shape: Vec<isize> = shape[..first].iter().map(|&s| s as isize).collect();
        out_shape.extend(ishape.iter().map(|&s| s as isize));
        out_shape.extend(shape[first + k..].iter().map(|&s| s as isize));
        picked.reshape(&out_shape)
    }

    /// Broadcasts integer index tensors and folds them into one flat index over their dims.
    fn linear_index(&self, first: usize, indices: &[Tensor]) -> Result<(Tensor, Vec<usize>)> {
        let k = indices.len();
        if first + k > self.dim() {
            return Err(Error::index(format!(
                "too many indices for tensor of dimension {}",
                self.dim()
            )));
        }
        let mut ishape: Vec<usize> = vec![];
        for t in indices {
            ishape = crate::core::layout::broadcast_shapes(&ishape, t.shape())
                .map_err(|_| {
                    Error::index("shape mismatch: indexing tensors could not be broadcast together")
                })?
                .to_vec();
        }
        let target: Vec<isize> = ishape.iter().map(|&s| s as isize).collect();
        let mut linear = vec![0i64; ishape.iter().product()];
        for (j, t) in indices.iter().enumerate() {
            let size = self.shape()[first + j];
            let t = t.expand(&target)?.contiguous()?;
            let vals = index_values(&t, size, first + j, IndexRule::Wrap)?;
            for (l, v) in linear.iter_mut().zip(vals) {
                *l = *l * size as i64 + v as i64;
            }
        }
        Ok((
            Tensor::from_vec(linear, &[ishape.iter().product()])?,
            ishape,
        ))
    }

    /// A copy of `self` with `values` written (or added, with `accumulate`) at the advanced index;
    /// the gradient to `self` is zero at overwritten places, `values` gets the gathered gradient.
    pub fn index_put(
        &self,
        first: usize,
        indices: &[Tensor],
        values: &Tensor,
        accumulate: bool,
    ) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            // bool tensors have no arithmetic: write through int64 (no autograd for bools)
            let as_int = self.to_dtype(DType::Int64)?;
            let values = values.to_dtype(DType::Int64)?;
            let out = as_int.index_put(first, indices, &values, accumulate)?;
            return out.to_dtype(DType::Bool);
        }
        let (linear, ishape) = self.linear_index(first, indices)?;
        let k = indices.len();
        let shape = self.shape().to_vec();
        let mut flat_shape: Vec<usize> = shape[..first].to_vec();
        flat_shape.push(shape[first..first + k].iter().product());
        flat_shape.extend(&shape[first + k..]);
        let mut sel_shape: Vec<usize> = shape[..first].to_vec();
        sel_shape.extend(&ishape);
        sel_shape.extend(&shape[first + k..]);
        let target: Vec<isize> = sel_shape.iter().map(|&s| s as isize).collect();
        let vals = values
            .detach()
            .to_dtype(self.dtype())?
            .expand(&target)?
            .contiguous()?;
        let mut picked_shape: Vec<isize> = shape[..first].iter().map(|&s| s as isize).collect();
        picked_shape.push(linear.numel() as isize);
        picked_shape.extend(shape[first + k..].iter().map(|&s| s as isize));
        let vals = vals.reshape(&picked_shape)?;
        let flat = self
            .detach()
            .reshape(&flat_shape.iter().map(|&s| s as isize).collect::<Vec<_>>())?;
        let base = if accumulate {
            flat.contiguous()?.deep_copy()
        } else {
            // zero the targets first so that writing is adding into zeros
            let ones = Tensor::ones(
                &picked_shape.iter().map(|&s| s as usize).collect::<Vec<_>>(),
                self.dtype(),
            );
            let hit = Tensor::zeros(&flat_shape, self.dtype()).index_add(first, &linear, &ones)?;
            let keep = hit.compare(
                crate::ops::pointwise::comparison::CompareOp::Eq,
                crate::ops::Operand::Scalar(crate::Scalar::Float(0.0)),
            )?;
            // a select, not a product: a NaN or inf being overwritten must not survive as NaN
            Tensor::where_(&keep, &flat, &Tensor::scalar_of(0.0, self.dtype()))?
        };
        let written = if accumulate {
            None
        } else {
            last_write_mask(&linear)?
        };
        let (linear, vals) = if accumulate {
            (linear, vals)
        } else {
            last_writes(first, &linear, &vals)?
        };
        let out = base
            .index_add(first, &linear, &vals)?
            .reshape(&shape.iter().map(|&s| s as isize).collect::<Vec<_>>())?
            .detach();
        if !is_recording(&[self, values]) {
            return Ok(out);
        }
        let (indices, values_shape) = (indices.to_vec(), values.shape().to_vec());
        let ishape = ishape.clone();
        Ok(record(
            out,
            "IndexPutBackward0",
            &[self, values],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                let gs = if accumulate {
                    g.clone()
                } else {
                    let zeros = Tensor::zeros(&values_shape, g.dtype());
                    g.index_put(first, &indices, &zeros, false)?
                };
                let gv = if ctx.needs_input_grad(1) {
                    let picked = g.index_with_tensors(first, &indices)?;
                    // an overwritten write (a repeated index) has no effect, so no gradient
                    Some(match &written {
                        Some(mask) => {
                            let mut shape: Vec<isize> = vec![1; first];
                            shape.extend(ishape.iter().map(|&s| s as isize));
                            shape.extend(std::iter::repeat_n(
                                1,
                                picked.dim() - first - ishape.len(),
                            ));
                            picked.mul(&mask.to_dtype(picked.dtype())?.reshape(&shape)?)?
                        }
                        None => picked,
                    })
                } else {
                    None
                };
                Ok(vec![Some(gs), gv])
            },
        ))
    }
}

/// Keeps only the last write to each position (assignment semantics for repeated indices).
fn last_writes(dim: usize, linear: &Tensor, vals: &Tensor) -> Result<(Tensor, Tensor)> {
    let lin = linear.to_vec::<i64>()?;
    let mut last = std::collections::HashMap::new();
    for (j, &p) in lin.iter().enumerate() {
        last.insert(p, j);
    }
    if last.len() == lin.len() {
        return Ok((linear.clone(), vals.clone()));
    }
    let kept: Vec<i64> = (0..lin.len())
        .filter(|&j| last[&lin[j]] == j)
        .map(|j| j as i64)
        .collect();
    let kept_lin: Vec<i64> = kept.iter().map(|&j| lin[j as usize]).collect();
    let n = kept.len();
    let kept = Tensor::from_vec(kept, &[n])?;
    Ok((
        Tensor::from_vec(kept_lin, &[n])?,
        vals.index_select(dim as isize, &kept)?,
    ))
}

/// 1 for each write that is the last one to its position, 0 for overwritten ones; `None`
/// when no position repeats.
fn last_write_mask(linear: &Tensor) -> Result<Option<Tensor>> {
    let lin = linear.to_vec::<i64>()?;
    let mut last = std::collections::HashMap::new();
    for (j, &p) in lin.iter().enumerate() {
        last.insert(p, j);
    }
    if last.len() == lin.len() {
        return Ok(None);
    }
    let mask: Vec<bool> = (0..lin.len()).map(|j| last[&lin[j]] == j).collect();
    Ok(Some(Tensor::from_vec(mask, &[lin.len()])?))
}

/// Flat positions, in a contiguous tensor of `outer × n × inner` elements, of the slices
/// `idx[0], idx[1], ...` of the middle dimension.
fn slice_positions(outer: usize, n: usize, inner: usize, idx: &[usize]) -> Vec<usize> {
    let mut pos = Vec::with_capacity(outer * idx.len() * inner);
    for o in 0..outer {
        for &i in idx {
            pos.extend((0..inner).map(|k| (o * n + i) * inner + k));
        }
    }
    pos
}

/// `cond ? a : b` elementwise over the broadcast of the three (no autograd).
fn select_values(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if cond.dtype() != DType::Bool {
        return Err(Error::runtime(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            cond.dtype().name()
        )));
    }
    let shape = broadcast_shapes(&broadcast_shapes(cond.shape(), a.shape())?, b.shape())?;
    let dtype = result_type(a, b);
    let (a, b) = (cast(a, dtype), cast(b, dtype));
    // laid out as PyTorch's iterator lays it out, the condition first
    let strides = elementwise_strides(
        &shape,
        &[
            &cond.layout().broadcast_to(&shape),
            &a.layout().broadcast_to(&shape),
            &b.layout().broadcast_to(&shape),
        ],
    );
    let walk = |l: &Layout| {
        let l = l.broadcast_to(&shape);
        match &strides {
            Some(s) => l.ordered_by(s),
            None => l,
        }
    };
    let c: Vec<bool> = cond.read(|d, l| gather(d, &walk(l)));
    let out = with_any!(dtype, T => {
        let xs: Vec<T> = a.read(|d, l| gather(d, &walk(l)));
        let ys: Vec<T> = b.read(|d, l| gather(d, &walk(l)));
        let out: Vec<T> = c
            .iter()
            .zip(xs.into_iter().zip(ys))
            .map(|(&c, (x, y))| if c { x } else { y })
            .collect();
        Tensor::from_vec_strided(out, &shape, strides.clone())
    });
    Ok(out)
}

impl Tensor {
    /// `where(cond, self, other)`: gradients go to the side that was chosen.
    pub fn where_(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        let out = select_values(cond, a, b)?;
        if !is_recording(&[a, b]) {
            return Ok(out);
        }
        let cond = cond.clone();
        Ok(record(out, "WhereBackward0", &[a, b], &[], move |ctx| {
            // selects, not products with the mask: a NaN in `g` stays on its own side
            let g = ctx.grad(0);
            let zero = Tensor::scalar_of(0.0, g.dtype());
            let ga = match ctx.needs_input_grad(0) {
                true => Some(Tensor::where_(&cond, g, &zero)?),
                false => None,
            };
            let gb = match ctx.needs_input_grad(1) {
                true => Some(Tensor::where_(&cond, &zero, g)?),
                false => None,
            };
            Ok(vec![ga, gb])
        }))
    }

    /// `masked_fill` with a 0-d tensor as the value (`MaskedFillBackward1`): the value gets the
    /// sum of the gradient where the mask is true.
    pub fn masked_fill_tensor(&self, mask: &Tensor, value: &Tensor) -> Result<Tensor> {
        if value.dim() != 0 {
            return Err(Error::runtime(format!(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                value.dim()
            )));
        }
        let fill = value.item()?;
        if !is_recording(&[self, value]) {
            return self.masked_fill(mask, fill);
        }
        let out = {
            let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
            self.masked_fill(mask, fill)?
        };
        let mask = mask.clone();
        Ok(record(
            out,
            "MaskedFillBackward1",
            &[self, value],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                let zero = Tensor::scalar_of(0.0, g.dtype());
                let to_self = match ctx.needs_input_grad(0) {
                    true => Some(Tensor::where_(&mask, &zero, g)?),
                    false => None,
                };
                let to_value = match ctx.needs_input_grad(1) {
                    true => Some(Tensor::where_(&mask, g, &zero)?.sum()?),
                    false => None,
                };
                Ok(vec![to_self, to_value])
            },
        ))
    }

    /// The slices at positions `index` (any shape; negative positions count from the end)
    /// along `dim` filled with `value` (`IndexFillBackward0`: the gradient is zero there), as
    /// PyTorch's `index_fill`. A position outside the dimension is PyTorch's IndexError.
    pub fn index_fill(&self, dim: usize, index: &Tensor, value: Scalar) -> Result<Tensor> {
        let size = *self.shape().get(dim).ok_or_else(|| {
            Error::index(format!(
                "index_fill: dimension {dim} out of range for a {}-D tensor",
                self.dim()
            ))
        })?;
        let mut hit = vec![false; size];
        for v in index.to_vec::<i64>()? {
            let at = if v < 0 { v + size as i64 } else { v };
            if at < 0 || at >= size as i64 {
                return Err(Error::index(format!(
                    "index {v} is out of bounds for dimension {dim} with size {size}"
                )));
            }
            hit[at as usize] = true;
        }
        let mut shape = vec![1usize; self.dim()];
        shape[dim] = size;
        let mask = Tensor::from_vec(hit, &shape)?;
        self.fill_where(mask, value, "IndexFillBackward0")
    }

    /// Elements replaced by `value` where `mask` is true; the gradient is zero there.
    pub fn masked_fill(&self, mask: &Tensor, value: Scalar) -> Result<Tensor> {
        // (a mask that does not broadcast at all gets the broadcasting error from the fill)
        let shape = crate::core::layout::broadcast_shapes(mask.shape(), self.shape());
        if shape.is_ok_and(|shape| shape[..] != *self.shape()) {
            return Err(Error::runtime(format!(
                "masked_fill: the mask of shape {:?} does not broadcast to the tensor's shape {:?}",
                mask.shape(),
                self.shape()
            )));
        }
        self.fill_where(mask.clone(), value, "MaskedFillBackward0")
    }

    /// `value` where `mask` (broadcast to this tensor's shape) is true, this tensor elsewhere,
    /// recorded as `node` (the gradient is zero where filled): `masked_fill`, `index_fill`.
    fn fill_where(&self, mask: Tensor, value: Scalar, node: &'static str) -> Result<Tensor> {
        let fill = Tensor::scalar_of(value.to_f64(), self.dtype());
        let out = select_values(&mask, &fill, &self.detach())?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            node,
            &[self],
            &[Save::Tensor(&mask.clone())],
            move |ctx| {
                let g = ctx.grad(0);
                let zero = Tensor::scalar_of(0.0, g.dtype());
                Ok(vec![Some(Tensor::where_(&mask, &zero, g)?)])
            },
        ))
    }
}
