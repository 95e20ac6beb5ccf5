//! Reductions: sum, mean, norm, and `sum_to` (the reverse of broadcasting).

use super::float_dtype;
use super::pointwise::{mask_where, sign_of};
use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::{fmt_shape, is_expandable_to, normalize_dim, Dims, Layout};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast, map, sum_dims};
use crate::with_num;

/// Which dimensions a reduction covers, from a list of possibly negative indices (empty: all).
fn reduced_mask(x: &Tensor, dims: &[isize]) -> Result<Vec<bool>> {
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
fn reduced_shape(shape: &[usize], mask: &[bool], keepdim: bool) -> Vec<isize> {
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

/// The sum over `mask` computed in `x`'s dtype (bool and int64 sum in int64); no autograd.
fn raw_sum(x: &Tensor, mask: &[bool], keepdim: bool) -> Result<Tensor> {
    let x = if x.dtype() == DType::Bool {
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

/// Broadcasts a reduced gradient back over the reduced dims of `shape`.
fn expand_back(g: &Tensor, shape: &[usize], mask: &[bool], keepdim: bool) -> Result<Tensor> {
    let mut g = g.clone();
    if !keepdim {
        for (d, &m) in mask.iter().enumerate() {
            if m {
                g = g.unsqueeze(d as isize)?;
            }
        }
    }
    let target: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
    g.expand(&target)
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
        let out = raw_sum(self, &mask, keepdim)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let shape: Dims = self.shape().into();
        Ok(record(out, name, &[self], &[], move |ctx| {
            Ok(vec![Some(expand_back(
                ctx.grad(0),
                &shape,
                &mask,
                keepdim,
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
            return Err(Error::runtime(format!(
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
        Ok(record(out, name, &[self], &[], move |ctx| {
            Ok(vec![Some(expand_back(
                &ctx.grad(0).div_scalar(n)?,
                &shape,
                &mask,
                keepdim,
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

    /// The p-norm over `dims` (all when empty), `(Σ|x|^p)^(1/p)`, as one node
    /// (`LinalgVectorNormBackward0`); gradient `sign(x) |x|^(p-1) / ‖x‖^(p-1)`, 0 where the
    /// norm is 0.
    pub fn norm_p(&self, p: f64, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        if !p.is_finite() || p <= 0.0 {
            return Err(Error::runtime(format!(
                "norm: p = {p} is not supported yet; use p > 0 and finite"
            )));
        }
        let out = {
            let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
            let x = cast(self, float_dtype(self.dtype()));
            match p {
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
                let mask = reduced_mask(x, &dims)?;
                let g = expand_back(ctx.grad(0), x.shape(), &mask, keepdim)?;
                if p == 1.0 {
                    return Ok(vec![Some(g.mul(&sign_of(x)?)?)]);
                }
                let y = expand_back(y, x.shape(), &mask, keepdim)?;
                // where the norm is 0 so is x: dividing by 1 there gives the 0 gradient
                let y_safe = y.add(&mask_where(&y, |v| v == 0.0)?)?;
                let grad = match p {
                    2.0 => x.mul(&g.div(&y_safe)?)?,
                    _ => sign_of(x)?
                        .mul(&x.abs()?.pow_scalar(p - 1.0)?)?
                        .mul(&g.div(&y_safe.pow_scalar(p - 1.0)?)?)?,
                };
                Ok(vec![Some(grad)])
            },
        ))
    }
}
