//! Reductions: sum, mean, norm, `sum_to` (the reverse of broadcasting) and the cumulative sum,
//! with the helpers `extrema` and `moments` share (reduced shapes, lanes, broadcasting back).

use crate::autograd::{is_recording, record, Save};
use crate::core::dispatch::{intercept1, Arg, Call};
use crate::core::dtype::{DType, Num, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::{fmt_shape, is_expandable_to, normalize_dim, Dims, Layout};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::map_lanes;
use crate::cpu::kernels::{cast, map, sum_dims};
use crate::ops::pointwise::comparison::{CompareOp, LogicalOp};
use crate::ops::Operand;
use crate::with_num;

/// Which dimensions a reduction covers, from a list of possibly negative indices (empty: all).
pub(super) fn reduced_mask(x: &Tensor, dims: &[isize]) -> Result<Vec<bool>> {
    let mut mask = vec![dims.is_empty(); x.dim()];
    for &d in dims {
        let d = normalize_dim(d, x.dim())?;
        if x.dim() > 0 {
            if mask[d] {
                return Err(Error::runtime(format!(
                    "dim {d} appears multiple times in the list of dims"
                )));
            }
            mask[d] = true;
        }
    }
    Ok(mask)
}

/// The output shape of a reduction over `mask`.
pub(super) fn reduced_shape(shape: &[usize], mask: &[bool], keepdim: bool) -> Vec<isize> {
    shape
        .iter()
        .zip(mask)
        .filter_map(|(&s, &m)| {
            if !m {
                Some(s as isize)
            } else if keepdim {
                Some(1)
            } else {
                None
            }
        })
        .collect()
}

/// The sum over `mask` computed in `x`'s dtype (bool and every integer dtype sum in int64, as
/// PyTorch's); no autograd.
pub(super) fn raw_sum(x: &Tensor, mask: &[bool], keepdim: bool) -> Result<Tensor> {
    let x = if !x.dtype().is_floating_point() {
        cast(x, DType::Int64)
    } else {
        x.clone()
    };
    let kept = with_num!(x.dtype(), T => sum_dims::<T>(&x, mask));
    let shape = reduced_shape(x.shape(), mask, keepdim);
    if shape.len() == kept.dim() {
        return Ok(kept);
    }
    let dims: Vec<usize> = shape.iter().map(|&s| s as usize).collect();
    Ok(Tensor::from_parts(
        kept.storage().clone(),
        Layout::contiguous(&dims),
        kept.dtype(),
        None,
    ))
}

/// Broadcasts a reduced gradient back over the reduced dims of `shape`, unsqueezing them first
/// if `unsqueeze` (see [`unsqueezes`]).
pub(super) fn expand_back(
    g: &Tensor,
    shape: &[usize],
    mask: &[bool],
    unsqueeze: bool,
) -> Result<Tensor> {
    let mut g = g.clone();
    if unsqueeze {
        for (d, &m) in mask.iter().enumerate() {
            if m {
                g = g.unsqueeze(d as isize)?;
            }
        }
    }
    let target: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
    g.expand(&target)
}

/// Whether the gradient of a reduction over `dims` (all when empty) is unsqueezed before it is
/// expanded: as PyTorch's `sum_backward`, one over all dims named by none expands its 0-d
/// gradient at once, one over named dims unsqueezes them unless `keepdim`.
pub(super) fn unsqueezes(dims: &[isize], keepdim: bool) -> bool {
    !keepdim && !dims.is_empty()
}

impl Tensor {
    /// Sum of all elements (a 0-d tensor).
    pub fn sum(&self) -> Result<Tensor> {
        self.sum_impl(&[], false, "SumBackward0")
    }

    /// Sum over `dims` (negative dims count from the end), keeping them as size 1 if `keepdim`.
    pub fn sum_dims(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        self.sum_impl(dims, keepdim, "SumBackward1")
    }

    fn sum_impl(&self, dims: &[isize], keepdim: bool, name: &'static str) -> Result<Tensor> {
        let mask = reduced_mask(self, dims)?;
        let call = || match name {
            "SumBackward0" => Call::new("sum.default", vec![self.into()]),
            _ => Call::new(
                "sum.dim_IntList",
                vec![
                    self.into(),
                    Arg::Ints(dims.iter().map(|&d| d as i64).collect()),
                    keepdim.into(),
                ],
            ),
        };
        let out = match intercept1(&[self], call) {
            Some(dispatched) => dispatched?,
            None => raw_sum(self, &mask, keepdim)?,
        };
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let shape: Dims = self.shape().into();
        let unsqueeze = unsqueezes(dims, keepdim);
        Ok(record(out, name, &[self], &[], move |ctx| {
            Ok(vec![Some(expand_back(
                ctx.grad(0),
                &shape,
                &mask,
                unsqueeze,
            )?)])
        }))
    }

    /// Mean of all elements.
    pub fn mean(&self) -> Result<Tensor> {
        self.mean_impl(&[], false, "MeanBackward0")
    }

    /// Mean over `dims`.
    pub fn mean_dims(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        self.mean_impl(dims, keepdim, "MeanBackward1")
    }

    fn mean_impl(&self, dims: &[isize], keepdim: bool, name: &'static str) -> Result<Tensor> {
        if !self.dtype().is_floating_point() {
            return Err(Error::not_implemented(format!(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                self.dtype().scalar_name()
            )));
        }
        let mask = reduced_mask(self, dims)?;
        let count: usize = self
            .shape()
            .iter()
            .zip(&mask)
            .filter(|(_, &m)| m)
            .map(|(&s, _)| s)
            .product();
        let sum = raw_sum(self, &mask, keepdim)?;
        let n = count as f64;
        let out = crate::with_float!(sum.dtype(), T => map(&sum, |v: T| v / (n as T)));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let shape: Dims = self.shape().into();
        let unsqueeze = unsqueezes(dims, keepdim);
        Ok(record(out, name, &[self], &[], move |ctx| {
            Ok(vec![Some(expand_back(
                &ctx.grad(0).div_scalar(n)?,
                &shape,
                &mask,
                unsqueeze,
            )?)])
        }))
    }

    /// Sums this (broadcast) tensor down to `shape`: the gradient of `expand`.
    pub fn sum_to(&self, shape: &[usize]) -> Result<Tensor> {
        if self.shape() == shape {
            return Ok(self.clone());
        }
        if !is_expandable_to(shape, self.shape()) {
            return Err(Error::runtime(format!(
                "sum_to: shape {} cannot be summed to {}",
                fmt_shape(self.shape()),
                fmt_shape(shape)
            )));
        }
        let extra = self.dim() - shape.len();
        let dims: Vec<isize> = (0..self.dim())
            .filter(|&d| d < extra || (shape[d - extra] == 1 && self.shape()[d] != 1))
            .map(|d| d as isize)
            .collect();
        let summed = if dims.is_empty() {
            self.clone()
        } else {
            self.sum_dims(&dims, true)?
        };
        let target: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
        summed.reshape(&target)
    }

    /// The Euclidean norm of all elements; gradient `x / ‖x‖` (0 where the norm is 0).
    pub fn norm(&self) -> Result<Tensor> {
        self.norm_p(2.0, &[], false)
    }

    /// The p-norm over `dims` (all when empty), `(Σ|x|^p)^(1/p)` (the largest magnitude for
    /// `p = inf`, the smallest for `-inf`, the count of non-zeros for `0`), as one node
    /// (`LinalgVectorNormBackward0`); gradient
    /// `sign(x) |x|^(p-1) / ‖x‖^(p-1)`, 0 where the norm is 0 (for `p = ±inf`: shared among the
    /// largest, or smallest, magnitudes; 0 for `p = 0`).
    pub fn norm_p(&self, p: f64, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        self.norm_p_as(p, dims, keepdim, None)
    }

    /// The Frobenius norm (`p='fro'`, PyTorch's default for `Tensor.norm`): the 2-norm over
    /// `dims` (all when empty). More than two dims are refused, as PyTorch hands 'fro' over a
    /// dim list to `linalg.matrix_norm`.
    pub fn norm_fro(&self, dims: &[isize], keepdim: bool, dtype: Option<DType>) -> Result<Tensor> {
        if dims.len() > 2 {
            let listed: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
            return Err(Error::runtime(format!(
                "linalg.matrix_norm: dim must be a 2-tuple. Got {}",
                listed.join(" ")
            )));
        }
        self.norm_p_as(2.0, dims, keepdim, dtype)
    }

    /// [`Tensor::norm_p`] computed in `dtype` when given (PyTorch's `dtype=`: the conversion
    /// belongs to the norm's node, the gradient is converted back).
    pub fn norm_p_as(
        &self,
        p: f64,
        dims: &[isize],
        keepdim: bool,
        dtype: Option<DType>,
    ) -> Result<Tensor> {
        if !self.dtype().is_floating_point() {
            return Err(Error::not_implemented(format!(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                self.dtype().scalar_name()
            )));
        }
        if p.is_nan() {
            return Err(Error::runtime("linalg.vector_norm: ord must not be NaN"));
        }
        let out = {
            let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
            let x = cast(self, dtype.unwrap_or(self.dtype()));
            let all: Vec<isize> = (0..x.dim() as isize).collect();
            let over = if dims.is_empty() { &all } else { dims };
            match p {
                f64::INFINITY => x.abs()?.amax(over, keepdim)?,
                f64::NEG_INFINITY => x.abs()?.amin(over, keepdim)?,
                // the number of non-zero elements
                0.0 => cast(
                    &x.compare(CompareOp::Ne, Operand::Scalar(Scalar::Float(0.0)))?,
                    x.dtype(),
                )
                .sum_dims(dims, keepdim)?,
                1.0 => x.abs()?.sum_dims(dims, keepdim)?,
                2.0 => x.mul(&x)?.sum_dims(dims, keepdim)?.sqrt()?,
                _ => x
                    .abs()?
                    .pow_scalar(p)?
                    .sum_dims(dims, keepdim)?
                    .pow_scalar(1.0 / p)?,
            }
        };
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let dims = dims.to_vec();
        Ok(record(
            out,
            "LinalgVectorNormBackward0",
            &[self],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (x, y) = (ctx.saved(0), ctx.saved(1));
                if p == 0.0 {
                    return Ok(vec![None]); // a count: no gradient, as PyTorch
                }
                let converted = match dtype {
                    Some(d) if d != x.dtype() => Some(x.to_dtype(d)?),
                    _ => None,
                };
                let x = converted.as_ref().unwrap_or(x);
                let mask = reduced_mask(x, &dims)?;
                let g = expand_back(ctx.grad(0), x.shape(), &mask, !keepdim)?;
                if p == 1.0 {
                    return Ok(vec![Some(g.mul(&x.sign()?)?)]);
                }
                let y = expand_back(y, x.shape(), &mask, !keepdim)?;
                // PyTorch's norm_backward, formula by formula (its masked_fill_ is a select)
                let zero = Tensor::scalar_of(0.0, x.dtype());
                let y_zero = y.compare(CompareOp::Eq, Operand::Scalar(Scalar::Float(0.0)))?;
                let grad = if p.is_infinite() {
                    // the elements of largest magnitude (or NaN) share it evenly, with their sign
                    let x_abs = x.abs()?;
                    let hit = x_abs
                        .compare(CompareOp::Eq, Operand::Tensor(&y))?
                        .logical(LogicalOp::Or, &x_abs.isnan()?)?;
                    let hit = cast(&hit, x.dtype());
                    let reduced: Vec<isize> = (0..x.dim() as isize)
                        .filter(|&d| mask[d as usize])
                        .collect();
                    let count = hit.sum_dims(&reduced, true)?;
                    x.sign()?.mul(&g.div(&count)?.mul(&hit)?)?
                } else if p == 2.0 {
                    g.mul(&Tensor::where_(&y_zero, &zero, &x.div(&y)?)?)?
                } else if p < 1.0 {
                    let x_zero = x.compare(CompareOp::Eq, Operand::Scalar(Scalar::Float(0.0)))?;
                    let powered = x.abs()?.pow_scalar(p - 1.0)?;
                    let scaled = x.sign()?.mul(&Tensor::where_(&x_zero, &zero, &powered)?)?;
                    scaled.mul(&g)?.mul(&y.pow_scalar(1.0 - p)?)?
                } else {
                    let scaled = match p < 2.0 {
                        true => x.sign()?.mul(&x.abs()?.pow_scalar(p - 1.0)?)?,
                        false => x.mul(&x.abs()?.pow_scalar(p - 2.0)?)?,
                    };
                    let scale = g.div(&y.pow_scalar(p - 1.0)?)?;
                    scaled.mul(&Tensor::where_(&y_zero, &zero, &scale)?)?
                };
                Ok(vec![Some(grad)])
            },
        ))
    }
}

// ----- reductions along lanes: products, extrema, variance, log-sum-exp, cumulative sums -----

pub(super) fn lane_dim(x: &Tensor, dim: isize) -> Result<usize> {
    normalize_dim(dim, x.dim())
}

/// A 1-D view of all elements (reductions over everything).
pub(super) fn flat(x: &Tensor) -> Result<Tensor> {
    x.reshape(&[-1])
}

/// The output shape of a reduction along one `dim` (`keepdim` keeps `dim` as size 1).
pub(super) fn lane_shape(x: &Tensor, dim: usize, keepdim: bool) -> Vec<usize> {
    let mut shape = x.shape().to_vec();
    if shape.is_empty() {
        return shape;
    }
    if keepdim {
        shape[dim] = 1;
    } else {
        shape.remove(dim);
    }
    shape
}

/// Broadcasts a reduced gradient (or value) back along `dim`.
pub(super) fn unreduce(g: &Tensor, x: &Tensor, dim: usize, keepdim: bool) -> Result<Tensor> {
    let g = if keepdim || x.dim() == 0 {
        g.clone()
    } else {
        g.unsqueeze(dim as isize)?
    };
    g.expand(&x.shape().iter().map(|&s| s as isize).collect::<Vec<_>>())
}

impl Tensor {
    /// Running sum along `dim`; gradient: the reversed running sum of the gradient.
    pub fn cumsum(&self, dim: isize) -> Result<Tensor> {
        let d = lane_dim(self, dim)?;
        let x = if !self.dtype().is_floating_point() {
            crate::cpu::kernels::cast(self, DType::Int64)
        } else {
            self.clone()
        };
        let out = with_num!(x.dtype(), T => map_lanes::<T>(&x, d, |lane, out| {
            let mut acc = T::ZERO;
            for (o, &v) in out.iter_mut().zip(lane) {
                acc += v;
                *o = acc;
            }
        }));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, "CumsumBackward0", &[self], &[], move |ctx| {
            let dims = [d as isize];
            Ok(vec![Some(
                ctx.grad(0).flip(&dims)?.cumsum(d as isize)?.flip(&dims)?,
            )])
        }))
    }
}
/// PyTorch's check that a list of dims names each dimension once.
pub(crate) fn check_distinct_dims(dims: &[isize], ndim: usize) -> Result<()> {
    let mut seen = vec![false; ndim.max(1)];
    for &d in dims {
        let d = normalize_dim(d, ndim)?;
        if std::mem::replace(&mut seen[d], true) {
            return Err(Error::runtime(format!(
                "dim {d} appears multiple times in the list of dims"
            )));
        }
    }
    Ok(())
}
