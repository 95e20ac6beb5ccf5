//! Reductions beyond sums: products, extrema (with ties split evenly), arg-extrema, variance,
//! log-sum-exp, cumulative sums, softmax and log-softmax.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_dim;
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{for_each_lane, map_lanes};
use crate::ops::comparison::CompareOp;
use crate::ops::Operand;
use crate::{with_float, with_num};

/// The single dim an op works along; 0-d tensors are treated as one-element vectors.
fn lane_dim(x: &Tensor, dim: isize) -> Result<usize> {
    normalize_dim(dim, x.dim())
}

/// A 1-D view of all elements (reductions over everything).
fn flat(x: &Tensor) -> Result<Tensor> {
    x.reshape(&[-1])
}

/// The reduced lanes as a tensor of the output shape (`keepdim` keeps `dim` as size 1).
fn reduced_shape(x: &Tensor, dim: usize, keepdim: bool) -> Vec<usize> {
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
fn unreduce(g: &Tensor, x: &Tensor, dim: usize, keepdim: bool) -> Result<Tensor> {
    let g = if keepdim || x.dim() == 0 {
        g.clone()
    } else {
        g.unsqueeze(dim as isize)?
    };
    g.expand(&x.shape().iter().map(|&s| s as isize).collect::<Vec<_>>())
}

/// 1 where `x` equals its group's extremum (`kept`, the keepdim-shaped result), divided by how
/// many elements of the group do: ties share the gradient evenly.
fn tie_weights(x: &Tensor, kept: &Tensor) -> Result<Tensor> {
    let full: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
    let hit = x.detach().compare(
        CompareOp::Eq,
        Operand::Tensor(&kept.detach().expand(&full)?),
    )?;
    let hit = crate::cpu::kernels::cast(&hit, x.dtype());
    let count = hit.sum_to(kept.shape())?;
    hit.div(&count.expand(&full)?)
}

impl Tensor {
    /// Product of all elements.
    pub fn prod(&self) -> Result<Tensor> {
        self.prod_named(None, false, "ProdBackward0")
    }

    /// Product along `dim`; gradient `∏ others` (exact with zeros, but first-order only there).
    pub fn prod_dim(&self, dim: isize, keepdim: bool) -> Result<Tensor> {
        self.prod_named(Some(dim), keepdim, "ProdBackward1")
    }

    /// The product over `dim` (over all elements for `None`), recorded as `node`.
    fn prod_named(&self, dim: Option<isize>, keepdim: bool, node: &'static str) -> Result<Tensor> {
        let whole = dim.is_none();
        let lanes = if whole {
            flat(&self.detach())?
        } else {
            self.clone()
        };
        let d = lane_dim(&lanes, dim.unwrap_or(0))?;
        let shape = reduced_shape(&lanes, d, keepdim);
        let out = with_num!(self.dtype(), T => {
            let mut v: Vec<T> = Vec::new();
            for_each_lane::<T>(&lanes, d, |lane| v.push(lane.iter().fold(T::ONE, |a, &b| a * b)));
            Tensor::from_vec(v, &shape)?
        });
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            node,
            &[self],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (g, input, y) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                let x = if whole { flat(input)? } else { input.clone() };
                let grad = prod_backward(g, &x, y, d, keepdim)?;
                let shape: Vec<isize> = input.shape().iter().map(|&v| v as isize).collect();
                Ok(vec![Some(if whole { grad.reshape(&shape)? } else { grad })])
            },
        ))
    }

    /// Largest element; the gradient is shared evenly among ties.
    pub fn max(&self) -> Result<Tensor> {
        self.extremum_all(true)
    }

    /// Smallest element; the gradient is shared evenly among ties.
    pub fn min(&self) -> Result<Tensor> {
        self.extremum_all(false)
    }

    fn extremum_all(&self, max: bool) -> Result<Tensor> {
        if self.numel() == 0 {
            return Err(Error::runtime(
                "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
            ));
        }
        let values = flat(&self.detach())?.amax_impl(0, false, max)?;
        if !is_recording(&[self]) {
            return Ok(values);
        }
        let name = if max { "MaxBackward1" } else { "MinBackward1" };
        Ok(record(
            values,
            name,
            &[self],
            &[Save::Tensor(self), Save::Output],
            |ctx| {
                let (g, x, y) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                let ones: Vec<isize> = vec![1; x.dim()];
                let w = tie_weights(x, &y.reshape(&ones)?)?;
                Ok(vec![Some(g.mul(&w)?)])
            },
        ))
    }

    /// Maximum over `dims` (all when empty); ties share the gradient evenly.
    pub fn amax(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        self.amax_dims(dims, keepdim, true)
    }

    /// Minimum over `dims` (all when empty); ties share the gradient evenly.
    pub fn amin(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        self.amax_dims(dims, keepdim, false)
    }

    fn amax_dims(&self, dims: &[isize], keepdim: bool, max: bool) -> Result<Tensor> {
        let mut ds: Vec<usize> = if dims.is_empty() {
            (0..self.dim()).collect()
        } else {
            dims.iter()
                .map(|&d| normalize_dim(d, self.dim()))
                .collect::<Result<_>>()?
        };
        ds.sort_unstable();
        let mut v = self.detach();
        for &d in &ds {
            v = v.amax_impl(d, true, max)?;
        }
        let kept = v.clone();
        if !keepdim {
            for &d in ds.iter().rev() {
                v = v.squeeze_dim(d as isize)?;
            }
        }
        let out = v.detach();
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let name = if max {
            "AmaxBackward0"
        } else {
            "AminBackward0"
        };
        let kept_shape: Vec<isize> = kept.shape().iter().map(|&s| s as isize).collect();
        Ok(record(
            out,
            name,
            &[self],
            &[Save::Tensor(self), Save::Tensor(&kept)],
            move |ctx| {
                let (g, x, k) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                let full: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
                let w = tie_weights(x, k)?;
                Ok(vec![Some(g.reshape(&kept_shape)?.expand(&full)?.mul(&w)?)])
            },
        ))
    }

    /// Lane-wise extremum along `dim` without autograd.
    fn amax_impl(&self, d: usize, keepdim: bool, max: bool) -> Result<Tensor> {
        let shape = reduced_shape(self, d, keepdim);
        Ok(with_num!(self.dtype(), T => {
            let mut v: Vec<T> = Vec::new();
            for_each_lane::<T>(self, d, |lane| v.push(extreme(lane, max).1));
            Tensor::from_vec(v, &shape)?
        }))
    }

    /// `(values, indices)` of the maximum along `dim`; the gradient goes to the returned index.
    pub fn max_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extremum_dim(dim, keepdim, true)
    }

    /// `(values, indices)` of the minimum along `dim`; the gradient goes to the returned index.
    pub fn min_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extremum_dim(dim, keepdim, false)
    }

    fn extremum_dim(&self, dim: isize, keepdim: bool, max: bool) -> Result<(Tensor, Tensor)> {
        let d = lane_dim(self, dim)?;
        let shape = reduced_shape(self, d, keepdim);
        let (values, indices) = with_num!(self.dtype(), T => {
            let (mut v, mut idx): (Vec<T>, Vec<i64>) = (Vec::new(), Vec::new());
            for_each_lane::<T>(self, d, |lane| {
                let (i, m) = extreme(lane, max);
                v.push(m);
                idx.push(i as i64);
            });
            (Tensor::from_vec(v, &shape)?, Tensor::from_vec(idx, &shape)?)
        });
        if !is_recording(&[self]) {
            return Ok((values, indices));
        }
        let name = if max { "MaxBackward0" } else { "MinBackward0" };
        let (in_shape, idx) = (self.shape().to_vec(), indices.clone());
        let values = record(values, name, &[self], &[], move |ctx| {
            let g = ctx.grad(0);
            if in_shape.is_empty() {
                return Ok(vec![Some(g.clone())]);
            }
            let (g, idx) = if keepdim {
                (g.clone(), idx.clone())
            } else {
                (g.unsqueeze(d as isize)?, idx.unsqueeze(d as isize)?)
            };
            Ok(vec![Some(
                Tensor::zeros(&in_shape, g.dtype()).scatter_add(d as isize, &idx, &g)?,
            )])
        });
        Ok((values, indices))
    }

    /// Index of the maximum (of all elements when `dim` is `None`).
    pub fn argmax(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        match dim {
            None => Ok(flat(&self.detach())?.extremum_dim(0, false, true)?.1),
            Some(d) => Ok(self.detach().extremum_dim(d, keepdim, true)?.1),
        }
    }

    /// Index of the minimum (of all elements when `dim` is `None`).
    pub fn argmin(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        match dim {
            None => Ok(flat(&self.detach())?.extremum_dim(0, false, false)?.1),
            Some(d) => Ok(self.detach().extremum_dim(d, keepdim, false)?.1),
        }
    }

    /// Variance over `dims` (all when empty) with `correction` (1 = unbiased, Bessel's).
    pub fn var(&self, dims: &[isize], correction: f64, keepdim: bool) -> Result<Tensor> {
        let (out, n) = self.detach().var_value(dims, correction, keepdim)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let dims = dims.to_vec();
        Ok(record(
            out,
            "VarBackward0",
            &[self],
            &[Save::Tensor(self)],
            move |ctx| {
                let (g, x) = (ctx.grad(0), ctx.saved(0));
                let centred = x.sub(&x.mean_dims(&dims, true)?)?;
                let g = expand_reduced(g, x, &dims, keepdim)?;
                Ok(vec![Some(
                    g.mul(&centred)?.mul_scalar(2.0 / (n - correction))?,
                )])
            },
        ))
    }

    /// Standard deviation: the square root of [`Tensor::var`].
    pub fn std(&self, dims: &[isize], correction: f64, keepdim: bool) -> Result<Tensor> {
        let (var, n) = self.detach().var_value(dims, correction, keepdim)?;
        let out = var.sqrt()?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let dims = dims.to_vec();
        Ok(record(
            out,
            "StdBackward0",
            &[self],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (g, x, s) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                let centred = x.sub(&x.mean_dims(&dims, true)?)?;
                let scale = expand_reduced(&g.div(s)?, x, &dims, keepdim)?;
                Ok(vec![Some(centred.mul(&scale)?.div_scalar(n - correction)?)])
            },
        ))
    }

    fn var_value(&self, dims: &[isize], correction: f64, keepdim: bool) -> Result<(Tensor, f64)> {
        if !self.dtype().is_floating_point() {
            return Err(Error::runtime(
                "std and var only support floating point and complex dtypes",
            ));
        }
        let mean = self.mean_dims(dims, true)?;
        let sq = self.sub(&mean)?.pow_scalar(2.0)?;
        let summed = if dims.is_empty() && !keepdim {
            sq.sum()?
        } else {
            sq.sum_dims(dims, keepdim)?
        };
        let n = (self.numel() / mean.numel().max(1)) as f64;
        Ok((summed.div_scalar((n - correction).max(0.0))?, n))
    }

    /// `log Σ exp(x)` over `dims`, computed stably (the maximum is factored out).
    pub fn logsumexp(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        let x = self.detach();
        let m = x.amax(dims, true)?;
        let m = m.masked_fill(&m.isinf()?, Scalar::Float(0.0))?;
        let s = x.sub(&m)?.exp()?.sum_dims(dims, true)?.log()?.add(&m)?;
        let out = if keepdim {
            s.clone()
        } else {
            squeeze_dims(&s, self, dims)?
        };
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let kept: Vec<isize> = s.shape().iter().map(|&v| v as isize).collect();
        Ok(record(
            out,
            "LogsumexpBackward0",
            &[self],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (g, x, y) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                let full: Vec<isize> = x.shape().iter().map(|&v| v as isize).collect();
                let g = g.reshape(&kept)?.expand(&full)?;
                Ok(vec![Some(
                    g.mul(&x.sub(&y.reshape(&kept)?.expand(&full)?)?.exp()?)?,
                )])
            },
        ))
    }

    /// Running sum along `dim`; gradient: the reversed running sum of the gradient.
    pub fn cumsum(&self, dim: isize) -> Result<Tensor> {
        let d = lane_dim(self, dim)?;
        let x = if self.dtype() == DType::Bool {
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

    /// `exp(x) / Σ exp(x)` along `dim`, stable for large inputs.
    pub fn softmax(&self, dim: isize) -> Result<Tensor> {
        let d = lane_dim(self, dim)?;
        let x = crate::cpu::kernels::cast(self, crate::ops::float_dtype(self.dtype()));
        let out = with_float!(x.dtype(), T => map_lanes::<T>(&x, d, |lane, out| {
            let m = lane.iter().cloned().fold(T::NEG_INFINITY, T::max);
            let m = if m.is_finite() { m } else { 0.0 };
            let mut total = 0.0 as T;
            for (o, &v) in out.iter_mut().zip(lane) {
                *o = (v - m).exp();
                total += *o;
            }
            out.iter_mut().for_each(|o| *o /= total);
        }));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "SoftmaxBackward0",
            &[self],
            &[Save::Output],
            move |ctx| {
                let (g, y) = (ctx.grad(0), ctx.saved(0));
                let dot = g.mul(y)?.sum_dims(&[d as isize], true)?;
                Ok(vec![Some(y.mul(&g.sub(&dot)?)?)])
            },
        ))
    }

    /// `x - log Σ exp(x)` along `dim`, stable for large inputs.
    pub fn log_softmax(&self, dim: isize) -> Result<Tensor> {
        let d = lane_dim(self, dim)?;
        let x = crate::cpu::kernels::cast(self, crate::ops::float_dtype(self.dtype()));
        let out = with_float!(x.dtype(), T => map_lanes::<T>(&x, d, |lane, out| {
            let m = lane.iter().cloned().fold(T::NEG_INFINITY, T::max);
            let m = if m.is_finite() { m } else { 0.0 };
            let lse = lane.iter().map(|&v| (v - m).exp()).sum::<T>().ln() + m;
            for (o, &v) in out.iter_mut().zip(lane) {
                *o = v - lse;
            }
        }));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "LogSoftmaxBackward0",
            &[self],
            &[Save::Output],
            move |ctx| {
                let (g, y) = (ctx.grad(0), ctx.saved(0));
                let total = g.sum_dims(&[d as isize], true)?;
                Ok(vec![Some(g.sub(&y.exp()?.mul(&total)?)?)])
            },
        ))
    }

    /// Elementwise test for NaN (a bool tensor).
    pub fn isnan(&self) -> Result<Tensor> {
        self.compare(CompareOp::Ne, Operand::Tensor(self))
    }

    /// Elementwise test for ±inf (a bool tensor).
    pub fn isinf(&self) -> Result<Tensor> {
        Ok(
            crate::with_any!(self.dtype(), T => crate::cpu::kernels::map(self, |v: T| v.to_f64().is_infinite())),
        )
    }

    /// Elementwise test for finite values (a bool tensor).
    pub fn isfinite(&self) -> Result<Tensor> {
        Ok(
            crate::with_any!(self.dtype(), T => crate::cpu::kernels::map(self, |v: T| v.to_f64().is_finite())),
        )
    }
}

use crate::core::dtype::{Element, Num};

/// `(index, value)` of the first maximum (or minimum) of a lane; NaN wins, as in PyTorch.
fn extreme<T: Element>(lane: &[T], max: bool) -> (usize, T) {
    let mut best = (0, lane[0]);
    for (i, &v) in lane.iter().enumerate().skip(1) {
        let b = best.1;
        if b.to_f64().is_nan() {
            break;
        }
        if v.to_f64().is_nan() || (max && v > b) || (!max && v < b) {
            best = (i, v);
        }
    }
    best
}

/// The gradient of a reduction over `dims` broadcast back to `x`'s shape.
fn expand_reduced(g: &Tensor, x: &Tensor, dims: &[isize], keepdim: bool) -> Result<Tensor> {
    let full: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
    if keepdim || dims.is_empty() && g.dim() == 0 {
        return g.expand(&full);
    }
    let mut ds: Vec<usize> = dims
        .iter()
        .map(|&d| normalize_dim(d, x.dim()))
        .collect::<Result<_>>()?;
    ds.sort_unstable();
    let mut g = g.clone();
    for d in ds {
        g = g.unsqueeze(d as isize)?;
    }
    g.expand(&full)
}

/// Drops the reduced `dims` (all when empty) of a keepdim result.
fn squeeze_dims(s: &Tensor, x: &Tensor, dims: &[isize]) -> Result<Tensor> {
    if dims.is_empty() {
        return s.reshape(&[]);
    }
    let mut ds: Vec<usize> = dims
        .iter()
        .map(|&d| normalize_dim(d, x.dim()))
        .collect::<Result<_>>()?;
    ds.sort_unstable();
    let mut out = s.clone();
    for d in ds.into_iter().rev() {
        out = out.squeeze_dim(d as isize)?;
    }
    Ok(out)
}

/// The gradient of a product over `d` of `x` with output `y`: `∏ others` (exact with zeros).
fn prod_backward(g: &Tensor, x: &Tensor, y: &Tensor, d: usize, keepdim: bool) -> Result<Tensor> {
    let g = unreduce(g, x, d, keepdim)?;
    let has_zero = x.to_f64_vec().contains(&0.0);
    if !has_zero {
        return g.mul(&unreduce(y, x, d, keepdim)?)?.div(x);
    }
    // With zeros, out / x is 0/0 at a zero. Away from zeros, out / x_safe is the product of the
    // others; at the only zero of a lane it is the product of the non-zeros (0 when the lane
    // has several zeros). Both stay differentiable.
    let zero = super::pointwise::mask_where(x, |v| v == 0.0)?;
    let nonzero = zero.rsub_scalar(1.0)?;
    let x_safe = x.mul(&nonzero)?.add(&zero)?;
    let count = zero.sum_dims(&[d as isize], true)?;
    let single = super::pointwise::mask_where(&count, |c| c == 1.0)?;
    let others_of_zero = x_safe.prod_dim(d as isize, true)?.mul(&single)?;
    let full: Vec<isize> = x.shape().iter().map(|&v| v as isize).collect();
    let y_full = unreduce(y, x, d, keepdim)?;
    let away = y_full.div(&x_safe)?.mul(&nonzero)?;
    let at_zero = others_of_zero.expand(&full)?.mul(&zero)?;
    g.mul(&away.add(&at_zero)?)
}
