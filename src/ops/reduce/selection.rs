//! Finding elements: `nonzero`, `count_nonzero`, `masked_select` (differentiable,
//! `MaskedSelectBackward0`), `searchsorted`/`bucketize` (insertion points in sorted rows) and
//! `unique_consecutive`. Positions and counts are int64 and carry no gradient.

use crate::autograd::{is_recording, record};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::{broadcast_shapes, fmt_shape, normalize_dim};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::cast;

/// The flat positions (row-major) of the nonzero elements of `x`.
fn nonzero_positions(x: &Tensor) -> Result<Vec<usize>> {
    Ok(x.to_f64_vec()
        .iter()
        .enumerate()
        .filter(|(_, v)| **v != 0.0)
        .map(|(i, _)| i)
        .collect())
}

/// How many elements of `a` come before `v` in ascending order (NaN last): with `right`, the
/// elements equal to `v` count too.
fn insertion_point(a: &[f64], v: f64, right: bool) -> usize {
    let before = |x: f64| match (x.is_nan(), v.is_nan()) {
        (true, _) => right && v.is_nan(),
        (false, true) => true,
        (false, false) => x < v || (right && x == v),
    };
    a.partition_point(|&x| before(x))
}

impl Tensor {
    /// The indices of the nonzero elements, one row `[i0, i1, ...]` each (`[n, dim]`, int64).
    pub fn nonzero(&self) -> Result<Tensor> {
        let pos = nonzero_positions(self)?;
        let (shape, dims) = (self.shape(), self.dim());
        let mut out = Vec::with_capacity(pos.len() * dims);
        for p in &pos {
            let mut rest = *p;
            let mut coords = vec![0i64; dims];
            for d in (0..dims).rev() {
                coords[d] = (rest % shape[d]) as i64;
                rest /= shape[d];
            }
            out.extend(coords);
        }
        Tensor::from_vec(out, &[pos.len(), dims])
    }

    /// How many elements are nonzero, over `dims` (all when empty), as int64.
    pub fn count_nonzero(&self, dims: &[isize]) -> Result<Tensor> {
        let flags = cast(&self.detach(), DType::Float64)
            .compare(
                crate::ops::pointwise::comparison::CompareOp::Ne,
                crate::ops::Operand::Scalar(crate::Scalar::Float(0.0)),
            )?
            .to_dtype(DType::Int64)?;
        match dims.is_empty() {
            true => flags.sum(),
            false => flags.sum_dims(dims, false),
        }
    }

    /// The elements where `mask` (broadcast with this tensor) is true, as a 1-D tensor
    /// (`MaskedSelectBackward0`: the gradient goes back to those places).
    pub fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        if mask.dtype() != DType::Bool {
            return Err(Error::runtime(
                "masked_select: expected BoolTensor for mask",
            ));
        }
        let shape = broadcast_shapes(self.shape(), mask.shape())?;
        let target: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
        let mask = mask.expand(&target)?;
        let pos: Vec<i64> = nonzero_positions(&mask)?
            .into_iter()
            .map(|p| p as i64)
            .collect();
        let n = pos.len();
        let pos = Tensor::from_vec(pos, &[n])?;
        let flat = self.detach().expand(&target)?.reshape(&[-1])?;
        let out = flat.index_select(0, &pos)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let numel: usize = shape.iter().product();
        Ok(record(
            out,
            "MaskedSelectBackward0",
            &[self],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                let full = Tensor::zeros(&[numel], g.dtype()).index_add(0, &pos, g)?;
                Ok(vec![Some(full.reshape(&target)?)])
            },
        ))
    }

    /// Where each of `values` would go in the rows of this sorted tensor to keep them sorted
    /// (PyTorch's `searchsorted`): before equal elements, or after them with `right`. A 1-D
    /// tensor serves every value; else its leading dims match `values`'.
    pub fn searchsorted(&self, values: &Tensor, right: bool) -> Result<Tensor> {
        let seq = values_of(self)?;
        let vals = values_of(values)?;
        let row = self.shape().last().copied().unwrap_or(1);
        let per_row = values.shape().last().copied().unwrap_or(1);
        if self.dim() > 1 {
            let (lead, vlead) = (&self.shape()[..self.dim() - 1], values.shape());
            if values.dim() != self.dim() || lead != &vlead[..vlead.len() - 1] {
                return Err(Error::runtime(format!(
                    "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor {} and input value tensor {}",
                    fmt_shape(self.shape()),
                    fmt_shape(values.shape())
                )));
            }
        }
        if self.dim() == 0 {
            return Err(Error::runtime(
                "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension",
            ));
        }
        let out: Vec<i64> = vals
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let r = if self.dim() > 1 {
                    i / per_row.max(1)
                } else {
                    0
                };
                insertion_point(&seq[r * row..(r + 1) * row], v, right) as i64
            })
            .collect();
        Tensor::from_vec(out, values.shape())
    }

    /// The runs of equal consecutive elements collapsed to one (or, with `dim`, of equal
    /// consecutive slices along `dim`), with each input element's run (`inverse`) and the
    /// runs' lengths (`counts`); PyTorch's `unique_consecutive`.
    pub fn unique_consecutive(&self, dim: Option<isize>) -> Result<(Tensor, Tensor, Tensor)> {
        let (d, along) = match dim {
            None => (0, self.reshape(&[-1])?),
            Some(dim) => (normalize_dim(dim, self.dim())?, self.detach()),
        };
        let n = along.shape().get(d).copied().unwrap_or(1);
        let slices: Vec<Tensor> = (0..n)
            .map(|i| along.detach().select(d as isize, i as isize))
            .collect::<Result<_>>()?;
        let mut keep: Vec<i64> = Vec::new();
        let mut inverse = Vec::with_capacity(n);
        let mut counts: Vec<i64> = Vec::new();
        let mut last: Option<Vec<f64>> = None;
        for (i, s) in slices.iter().enumerate() {
            let v = s.to_f64_vec();
            if last.as_ref() != Some(&v) {
                keep.push(i as i64);
                counts.push(0);
                last = Some(v);
            }
            *counts.last_mut().expect("pushed") += 1;
            inverse.push(keep.len() as i64 - 1);
        }
        let runs = keep.len();
        let keep = Tensor::from_vec(keep, &[runs])?;
        let out = along.detach().index_select(d as isize, &keep)?;
        let inverse = match dim {
            None => Tensor::from_vec(inverse, self.shape())?,
            Some(_) => Tensor::from_vec(inverse, &[n])?,
        };
        let counts = Tensor::from_vec(counts, &[runs])?;
        if !is_recording(&[self]) {
            return Ok((out, inverse, counts));
        }
        let out = record(out, "UniqueConsecutiveBackward0", &[self], &[], |_| {
            Err(Error::not_implemented(
                "the derivative for 'unique_consecutive' is not implemented.",
            ))
        });
        Ok((out, inverse, counts))
    }
}

/// The values of a searchsorted operand, refusing what PyTorch refuses.
fn values_of(x: &Tensor) -> Result<Vec<f64>> {
    if x.dtype() == DType::Bool {
        return Err(Error::runtime(
            "torch.searchsorted(): bool tensors are not supported",
        ));
    }
    Ok(x.to_f64_vec())
}
