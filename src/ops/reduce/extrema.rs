//! Reductions that pick elements: products, maxima and minima (ties share the gradient evenly),
//! their arguments, and `aminmax`, `nansum`.

use super::reduction::{
    check_distinct_dims, expand_back, flat, lane_dim, lane_shape, raw_sum, reduced_mask, unreduce,
    unsqueezes,
};
use crate::autograd::{is_recording, record, record_multi, Save};
use crate::core::dtype::{Element, Num};
use crate::core::error::{Error, Result};
use crate::core::layout::{fmt_shape, normalize_dim, Dims};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::cast;
use crate::cpu::kernels::for_each_lane;
use crate::ops::pointwise::comparison::{CompareOp, LogicalOp};
use crate::ops::Operand;
use crate::with_num;

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
        // bool and the integers multiply in int64, as PyTorch's
        let lanes = cast(&lanes, crate::ops::sum_dtype(self.dtype()));
        let d = lane_dim(&lanes, dim.unwrap_or(0))?;
        let shape = lane_shape(&lanes, d, keepdim);
        let out = with_num!(lanes.dtype(), T => {
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
                if input.dim() == 0 {
                    return Ok(vec![Some(g.clone())]); // as PyTorch: no product to differentiate
                }
                let x = if whole { flat(input)? } else { input.clone() };
                let grad = prod_backward(g, &x, y, d, keepdim, whole)?;
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
            let name = if max { "max" } else { "min" };
            return Err(Error::runtime(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
            )));
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
                // the gradient shared among the maxima, selected (a NaN gradient stays there)
                let (hit, count) = ties(x, &y.reshape(&ones)?, true)?;
                let zero = Tensor::scalar_of(0.0, g.dtype());
                Ok(vec![Some(Tensor::where_(&hit, &g.div(&count)?, &zero)?)])
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
        let name = if max { "amax" } else { "amin" };
        if self.numel() == 0 && (dims.is_empty() || self.dim() == 0) {
            return Err(Error::runtime(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )));
        }
        check_distinct_dims(dims, self.dim())?;
        for &d in dims {
            let d = normalize_dim(d, self.dim())?;
            if self.dim() > 0 && self.shape()[d] == 0 {
                return Err(Error::index(format!(
                    "{name}(): Expected reduction dim {d} to have non-zero size."
                )));
            }
        }
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
        // a 0-d input has nothing to reduce: the result is still a tensor of its own
        let out = if ds.is_empty() {
            v.deep_copy()
        } else {
            v.unviewed()
        };
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
            // the result itself, as PyTorch (an in-place write into it makes backward raise)
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (g, x, y) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                Ok(vec![Some(extreme_grad(g, x, y, &kept_shape)?)])
            },
        ))
    }

    /// `(min, max)` over `dim` (all dims when `None`), one node for both (`AminmaxBackward0`;
    /// each result's gradient is shared evenly among its ties, as `amin`'s and `amax`'s).
    pub fn aminmax(&self, dim: Option<isize>, keepdim: bool) -> Result<(Tensor, Tensor)> {
        if let Some(d) = dim {
            let d = normalize_dim(d, self.dim())?;
            if self.dim() > 0 && self.shape()[d] == 0 {
                return Err(Error::index(format!(
                    "aminmax: Expected reduction dim {d} to have non-zero size."
                )));
            }
        } else if self.numel() == 0 {
            return Err(Error::runtime(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.",
            ));
        }
        let dims: Vec<isize> = dim.into_iter().collect();
        let src = self.detach();
        let (lo, hi) = (src.amin(&dims, keepdim)?, src.amax(&dims, keepdim)?);
        if !is_recording(&[self]) {
            return Ok((lo, hi));
        }
        let mut kept_shape: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
        match dim {
            Some(d) if !kept_shape.is_empty() => kept_shape[normalize_dim(d, self.dim())?] = 1,
            _ => kept_shape.iter_mut().for_each(|s| *s = 1),
        }
        let outs = record_multi(
            vec![lo, hi],
            "AminmaxBackward0",
            &[self],
            &[Save::Tensor(self), Save::OutputAt(0), Save::OutputAt(1)],
            Box::new(move |ctx| {
                let x = ctx.saved(0);
                let mut total: Option<Tensor> = None;
                for k in 0..2 {
                    if let Some(g) = ctx.grad_opt(k) {
                        let part = extreme_grad(g, x, ctx.saved(1 + k), &kept_shape)?;
                        total = Some(match total {
                            Some(t) => t.add(&part)?,
                            None => part,
                        });
                    }
                }
                Ok(vec![total])
            }),
        );
        match <[Tensor; 2]>::try_from(outs) {
            Ok([lo, hi]) => Ok((lo, hi)),
            Err(_) => Err(Error::runtime("aminmax(): expected two results")),
        }
    }

    /// Sum over `dims` (all when empty) with NaN counted as 0 (`NansumBackward0`: the gradient
    /// passes to the elements that are not NaN).
    pub fn nansum(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        let mask = reduced_mask(self, dims)?;
        let src = self.detach();
        let clean = if src.dtype().is_floating_point() {
            let zero = Tensor::scalar_of(0.0, src.dtype());
            Tensor::where_(&src.isnan()?, &zero, &src)?
        } else {
            src
        };
        let out = raw_sum(&clean, &mask, keepdim)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let shape: Dims = self.shape().into();
        let unsqueeze = unsqueezes(dims, keepdim);
        Ok(record(
            out,
            "NansumBackward0",
            &[self],
            &[Save::Tensor(self)],
            move |ctx| {
                let (g, x) = (ctx.grad(0), ctx.saved(0));
                let g = expand_back(g, &shape, &mask, unsqueeze)?;
                let kept = crate::cpu::kernels::cast(&x.isnan()?.logical_not()?, g.dtype());
                Ok(vec![Some(g.mul(&kept)?)])
            },
        ))
    }

    /// Lane-wise extremum along `dim` without autograd.
    fn amax_impl(&self, d: usize, keepdim: bool, max: bool) -> Result<Tensor> {
        let shape = lane_shape(self, d, keepdim);
        Ok(with_num!(self.dtype(), T => {
            let mut v: Vec<T> = Vec::new();
            for_each_lane::<T>(self, d, |lane| v.push(extreme(lane, max).1));
            Tensor::from_vec(v, &shape)?
        }))
    }

    /// `(values, indices)` of the maximum along `dim`; the gradient goes to the returned index.
    pub fn max_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extremum_dim(dim, keepdim, true, "max")
    }

    /// `(values, indices)` of the minimum along `dim`; the gradient goes to the returned index.
    pub fn min_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extremum_dim(dim, keepdim, false, "min")
    }

    fn extremum_dim(
        &self,
        dim: isize,
        keepdim: bool,
        max: bool,
        name: &str,
    ) -> Result<(Tensor, Tensor)> {
        let d = lane_dim(self, dim)?;
        if self.dim() > 0 && self.shape()[d] == 0 {
            return Err(Error::index(format!(
                "{name}(): Expected reduction dim {d} to have non-zero size (input of shape {})",
                fmt_shape(self.shape())
            )));
        }
        let shape = lane_shape(self, d, keepdim);
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
        let values = record(
            values,
            name,
            &[self],
            &[Save::Tensor(&indices)],
            move |ctx| {
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
            },
        );
        Ok((values, indices))
    }

    /// Index of the maximum (of all elements when `dim` is `None`).
    pub fn argmax(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        self.arg_extremum(dim, keepdim, true, "argmax")
    }

    /// Index of the minimum (of all elements when `dim` is `None`).
    pub fn argmin(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        self.arg_extremum(dim, keepdim, false, "argmin")
    }

    fn arg_extremum(
        &self,
        dim: Option<isize>,
        keepdim: bool,
        max: bool,
        name: &str,
    ) -> Result<Tensor> {
        match dim {
            None if self.numel() == 0 => Err(Error::index(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0."
            ))),
            None => Ok(flat(&self.detach())?.extremum_dim(0, false, max, name)?.1),
            Some(d) => Ok(self.detach().extremum_dim(d, keepdim, max, name)?.1),
        }
    }
}

/// Where `x` equals its group's extremum (`kept`, the keepdim-shaped result), and how many
/// elements of its group do (broadcast to `x`'s shape): ties share the gradient evenly. With
/// `nan_ties` a NaN counts as equal to a NaN result (PyTorch's `evenly_distribute_backward`,
/// for `max()`); without it (`amax`'s `scale_grad_by_count`) a NaN result matches nothing.
fn ties(x: &Tensor, kept: &Tensor, nan_ties: bool) -> Result<(Tensor, Tensor)> {
    let full: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
    let wide = kept.detach().expand(&full)?;
    let mut hit = x.detach().compare(CompareOp::Eq, Operand::Tensor(&wide))?;
    if nan_ties {
        let both_nan = x
            .detach()
            .isnan()?
            .logical(LogicalOp::And, &wide.isnan()?)?;
        hit = hit.logical(LogicalOp::Or, &both_nan)?;
    }
    let count = crate::cpu::kernels::cast(&hit, x.dtype()).sum_to(kept.shape())?;
    Ok((hit, count.expand(&full)?))
}

/// `(index, value)` of the first maximum (or minimum) of a lane; NaN wins, as in PyTorch.
#[inline]
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

/// The gradient of a product over `d` of `x` with output `y`: `∏ others` (exact with zeros).
/// PyTorch's `prod_backward`: `g · out / x` when the input has no zero; otherwise the product
/// of every other element of the lane, as exclusive prefix and suffix products
/// (`prod_safe_zeros_backward`, differentiable again), so zeros, infinities and NaN give
/// PyTorch's values. Over all elements (`whole`) with several zeros and no graph being built,
/// zeros, as PyTorch's shortcut.
fn prod_backward(
    g: &Tensor,
    x: &Tensor,
    y: &Tensor,
    d: usize,
    keepdim: bool,
    whole: bool,
) -> Result<Tensor> {
    let g = unreduce(g, x, d, keepdim)?;
    let zeros = x.to_f64_vec().iter().filter(|&&v| v == 0.0).count();
    if zeros == 0 {
        return g.mul(&unreduce(y, x, d, keepdim)?.div(x)?); // PyTorch's grad * (result / input)
    }
    if whole && zeros > 1 && !crate::core::grad_mode::is_grad_enabled() {
        return Ok(x.zeros_like());
    }
    let n = x.shape()[d];
    if n == 1 {
        return Ok(g); // a lane of one passes the gradient
    }
    let dim = d as isize;
    let mut ones_shape = x.shape().to_vec();
    ones_shape[d] = 1;
    let ones = Tensor::ones(&ones_shape, x.dtype());
    // before[i] = x[0]·…·x[i-1], after[i] = x[i+1]·…·x[n-1]
    let head = x.narrow(dim, 0, n as isize - 1)?;
    let before = Tensor::cat(&[ones.clone(), head], dim)?.cumprod(dim)?;
    let tail = x.narrow(dim, 1, n as isize - 1)?.flip(&[dim])?;
    let after = Tensor::cat(&[ones, tail], dim)?
        .cumprod(dim)?
        .flip(&[dim])?;
    g.mul(&before.mul(&after)?)
}

/// The gradient of an `amax`/`amin` result `y` (kept shape `kept_shape`) of `x`: `g / count`
/// at the elements equal to their lane's result. A lane whose result is NaN matches nothing
/// and gets `0/0 = NaN`, as PyTorch.
fn extreme_grad(g: &Tensor, x: &Tensor, y: &Tensor, kept_shape: &[isize]) -> Result<Tensor> {
    let k = y.reshape(kept_shape)?;
    let full: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
    let (hit, count) = ties(x, &k, false)?;
    let hit = crate::cpu::kernels::cast(&hit, x.dtype());
    let g = g.reshape(kept_shape)?.expand(&full)?;
    g.div(&count)?.mul(&hit)
}
