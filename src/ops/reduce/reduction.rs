//! Reductions: sum, mean, norm, `sum_to` (the reverse of broadcasting); along lanes: products,
//! extrema (ties share the gradient evenly), arg-extrema, variance, log-sum-exp, and the
//! cumulative sum.

use crate::autograd::{is_recording, record, record_multi, Save};
use crate::core::dispatch::{intercept1, Arg, Call};
use crate::core::dtype::{DType, Element, Num, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::{fmt_shape, is_expandable_to, normalize_dim, Dims, Layout};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast, map, sum_dims};
use crate::cpu::kernels::{for_each_lane, map_lanes};
use crate::ops::pointwise::comparison::{CompareOp, LogicalOp};
use crate::ops::pointwise::unary::bool_where;
use crate::ops::Operand;
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

/// The sum over `mask` computed in `x`'s dtype (bool and every integer dtype sum in int64, as
/// PyTorch's); no autograd.
fn raw_sum(x: &Tensor, mask: &[bool], keepdim: bool) -> Result<Tensor> {
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
fn expand_back(g: &Tensor, shape: &[usize], mask: &[bool], unsqueeze: bool) -> Result<Tensor> {
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
fn unsqueezes(dims: &[isize], keepdim: bool) -> bool {
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

fn lane_dim(x: &Tensor, dim: isize) -> Result<usize> {
    normalize_dim(dim, x.dim())
}

/// A 1-D view of all elements (reductions over everything).
fn flat(x: &Tensor) -> Result<Tensor> {
    x.reshape(&[-1])
}

/// The output shape of a reduction along one `dim` (`keepdim` keeps `dim` as size 1).
fn lane_shape(x: &Tensor, dim: usize, keepdim: bool) -> Vec<usize> {
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
                Ok(vec![Some(var_backward(
                    g, x, &dims, correction, keepdim, n,
                )?)])
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
                Ok(vec![Some(var_backward(
                    &std_to_var_grad(g, s)?,
                    x,
                    &dims,
                    correction,
                    keepdim,
                    n,
                )?)])
            },
        ))
    }

    /// Variance and mean over `dims` as one op (PyTorch's `var_mean`: one `VarMeanBackward0`
    /// node with both outputs).
    pub fn var_mean(
        &self,
        dims: &[isize],
        correction: f64,
        keepdim: bool,
    ) -> Result<(Tensor, Tensor)> {
        self.spread_and_mean(dims, correction, keepdim, false)
    }

    /// Standard deviation and mean over `dims` as one op (PyTorch's `std_mean`).
    pub fn std_mean(
        &self,
        dims: &[isize],
        correction: f64,
        keepdim: bool,
    ) -> Result<(Tensor, Tensor)> {
        self.spread_and_mean(dims, correction, keepdim, true)
    }

    fn spread_and_mean(
        &self,
        dims: &[isize],
        correction: f64,
        keepdim: bool,
        std: bool,
    ) -> Result<(Tensor, Tensor)> {
        let x = self.detach();
        let (var, n) = x.var_value(dims, correction, keepdim)?;
        let spread = if std { var.sqrt()? } else { var };
        let mean = x.mean_dims(dims, keepdim)?;
        if !is_recording(&[self]) {
            return Ok((spread, mean));
        }
        let (name, saves) = match std {
            true => (
                "StdMeanBackward0",
                vec![Save::Tensor(self), Save::OutputAt(0)],
            ),
            false => ("VarMeanBackward0", vec![Save::Tensor(self)]),
        };
        let dims = dims.to_vec();
        let outs = record_multi(
            vec![spread, mean],
            name,
            &[self],
            &saves,
            Box::new(move |ctx| {
                let x = ctx.saved(0);
                let mut total = match ctx.grad_opt(0) {
                    Some(g) if std => Some(std_to_var_grad(g, ctx.saved(1))?),
                    Some(g) => Some(g.clone()),
                    None => None,
                }
                .map(|g| var_backward(&g, x, &dims, correction, keepdim, n))
                .transpose()?;
                if let Some(g) = ctx.grad_opt(1) {
                    let from_mean = expand_reduced(g, x, &dims, keepdim)?.div_scalar(n)?;
                    total = Some(match total {
                        Some(t) => t.add(&from_mean)?,
                        None => from_mean,
                    });
                }
                Ok(vec![total])
            }),
        );
        Ok((outs[0].clone(), outs[1].clone()))
    }

    fn var_value(&self, dims: &[isize], correction: f64, keepdim: bool) -> Result<(Tensor, f64)> {
        if !self.dtype().is_floating_point() {
            return Err(Error::not_implemented(
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
        let s = if self.numel() == 0 {
            // log of an empty sum: -inf
            x.sum_dims(dims, true)?.add_scalar(f64::NEG_INFINITY)?
        } else {
            let m = x.amax(dims, true)?;
            let m = m.masked_fill(&m.isinf()?, Scalar::Float(0.0))?;
            x.sub(&m)?.exp()?.sum_dims(dims, true)?.log()?.add(&m)?
        };
        let out = if keepdim {
            s.clone()
        } else {
            squeeze_dims(&s, self, dims)?.unviewed()
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
    if keepdim || x.dim() == 0 || dims.is_empty() && g.dim() == 0 {
        return g.expand(&full); // (a 0-d input reduced over dim 0 or -1 has a 0-d gradient)
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

/// PyTorch's `var_backward`: `(2 / (n - correction)) · g · (x - mean)`, in its order of
/// operations; over all elements with no degrees of freedom left, `g · (NaN where x equals the
/// mean, else inf)`, a constant of `x`.
/// The gradient of the variance from that of the standard deviation `s`: `g / (2 s)`, 0 where
/// the deviation is 0 (equal values), not 0/0 (PyTorch's `std_backward`).
fn std_to_var_grad(g: &Tensor, s: &Tensor) -> Result<Tensor> {
    let zero = Tensor::scalar_of(0.0, g.dtype());
    let g_var = g.div(&s.mul_scalar(2.0)?)?;
    Tensor::where_(&bool_where(s, |v| v == 0.0)?, &zero, &g_var)
}

fn var_backward(
    g: &Tensor,
    x: &Tensor,
    dims: &[isize],
    correction: f64,
    keepdim: bool,
    n: f64,
) -> Result<Tensor> {
    let dof = n - correction;
    if (dims.is_empty() || x.dim() == 0) && dof <= 0.0 {
        let mean = x.detach().mean_dims(&[], true)?;
        let at_mean = x.detach().compare(CompareOp::Eq, Operand::Tensor(&mean))?;
        let nan = Tensor::scalar_of(f64::NAN, g.dtype());
        let inf = Tensor::scalar_of(f64::INFINITY, g.dtype());
        return g.mul(&Tensor::where_(&at_mean, &nan, &inf)?);
    }
    let centred = x.sub(&x.mean_dims(dims, true)?)?;
    let g = expand_reduced(g, x, dims, keepdim)?;
    g.mul_scalar(2.0 / dof)?.mul(&centred)
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
