//! The cumulative product along a dimension (`cumprod`), whose gradient stays exact, and
//! differentiable, when the input holds zeros.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::{DType, Element, Num};
use crate::core::error::Result;
use crate::core::layout::normalize_dim;
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast, for_each_lane, lane_geometry, map_lanes};
use crate::ops::pointwise::comparison::{CompareOp, LogicalOp};
use crate::ops::Operand;
use crate::with_num;

impl Tensor {
    /// Running product along `dim` (bool and int64 inputs multiply in int64); gradient
    /// `Σ_{j ≥ k} g_j ∏_{i ≤ j, i ≠ k} x_i`.
    pub fn cumprod(&self, dim: isize) -> Result<Tensor> {
        self.cumprod_as(dim, None)
    }

    /// [`Tensor::cumprod`] computed in `dtype` when given (PyTorch's `dtype=`: the conversion
    /// belongs to the node, the gradient is converted back).
    pub fn cumprod_as(&self, dim: isize, dtype: Option<DType>) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        let x = match dtype {
            Some(t) => cast(self, t),
            None if !self.dtype().is_floating_point() => cast(self, DType::Int64),
            None => self.clone(),
        };
        let out = with_num!(x.dtype(), T => map_lanes::<T>(&x, d, |lane, out| {
            let mut acc = T::ONE;
            for (o, &v) in out.iter_mut().zip(lane) {
                acc *= v;
                *o = acc;
            }
        }));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "CumprodBackward0",
            &[self],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (g, x, y) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                let x = x.to_dtype(y.dtype())?;
                Ok(vec![Some(cumprod_backward(g, &x, y, d)?)])
            },
        ))
    }

    /// In-place [`Tensor::cumprod`].
    pub fn cumprod_(&self, dim: isize) -> Result<()> {
        self.unary_("cumprod_", |x| x.cumprod(dim))
    }

    /// In-place [`Tensor::cumsum`].
    pub fn cumsum_(&self, dim: isize) -> Result<()> {
        self.unary_("cumsum_", |x| x.cumsum(dim))
    }
}

/// The gradient of `y = cumprod(x)` along `d`, in O(n) per lane. Without zeros in `x` it is
/// PyTorch's `reversed_cumsum(g · y) / x`. With zeros, before a lane's first zero (at `z`) that
/// formula still holds (the outputs from `z` on are 0); at `z` the gradient is
/// `∏_{i<z} x_i · Σ_{j≥z} g_j ∏_{z<i≤j} x_i`; after it, 0 (every product holds `x_z = 0`).
/// That 0 is only right to first order: when the gradient is itself differentiated
/// (`create_graph`), each element's gradient is built from the products that leave it out
/// instead, O(n²) per lane as PyTorch's twice-differentiable path.
fn cumprod_backward(g: &Tensor, x: &Tensor, y: &Tensor, d: usize) -> Result<Tensor> {
    if x.dim() == 0 {
        return Ok(g.clone());
    }
    let dims = [d as isize];
    let reversed_cumsum =
        |t: &Tensor| -> Result<Tensor> { t.flip(&dims)?.cumsum(d as isize)?.flip(&dims) };
    let zero = Operand::Scalar(crate::Scalar::Float(0.0));
    let is_zero = x.detach().compare(CompareOp::Eq, zero)?;
    if is_zero.any()?.item()?.to_f64() == 0.0 {
        return reversed_cumsum(&g.mul(y)?)?.div(x);
    }
    if crate::core::grad_mode::is_grad_enabled() {
        return omitted_products_backward(g, x, d);
    }
    // constants: `before` marks the elements ahead of their lane's first zero, `first` that zero
    let seen = cast(&is_zero, DType::Int64).cumsum(d as isize)?;
    let before = seen.compare(CompareOp::Eq, Operand::Scalar(crate::Scalar::Int(0)))?;
    let first = is_zero.logical(
        LogicalOp::And,
        &seen.compare(CompareOp::Eq, Operand::Scalar(crate::Scalar::Int(1)))?,
    )?;
    let (one, nil) = (
        Tensor::scalar_of(1.0, x.dtype()),
        Tensor::scalar_of(0.0, g.dtype()),
    );
    let x_before = Tensor::where_(&before, x, &one)?;
    let ahead = reversed_cumsum(&g.mul(y)?)?.div(&x_before)?;
    let ahead = Tensor::where_(&before, &ahead, &nil)?;
    // at the first zero: the product ahead of it times the gradient-weighted products after it
    let after = Tensor::where_(&before.logical(LogicalOp::Or, &first)?, &one, x)?;
    let weighted = Tensor::where_(&before, &nil, &g.mul(&after.cumprod(d as isize)?)?)?;
    let at_zero = x_before
        .prod_dim(d as isize, true)?
        .mul(&weighted.sum_dims(&dims, true)?)?;
    let full: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
    let at_zero = Tensor::where_(&first, &at_zero.expand(&full)?, &nil)?;
    ahead.add(&at_zero)
}

/// `Σ_{j ≥ k} g_j ∏_{i ≤ j, i ≠ k} x_i` for each `k` of the lanes along `d`, from the products
/// ahead of `k` and the running products after it: differentiable everywhere.
fn omitted_products_backward(g: &Tensor, x: &Tensor, d: usize) -> Result<Tensor> {
    let n = x.shape()[d];
    let dim = d as isize;
    let mut one_shape = x.shape().to_vec();
    one_shape[d] = 1;
    let ones = Tensor::ones(&one_shape, x.dtype());
    let mut parts = Vec::with_capacity(n);
    for k in 0..n as isize {
        let ahead = x.narrow(dim, 0, k)?.prod_dim(dim, true)?;
        let after = x.narrow(dim, k + 1, n as isize - k - 1)?.cumprod(dim)?;
        let omitted = Tensor::cat(&[ones.clone(), after], dim)?.mul(&ahead)?;
        let part = g.narrow(dim, k, n as isize - k)?.mul(&omitted)?;
        parts.push(part.sum_dims(&[dim], true)?);
    }
    Tensor::cat(&parts, dim)
}

impl Tensor {
    /// `(values, indices)` of the running maximum along `dim`: a tie moves the index to the
    /// later element and a NaN, once met, stays (as PyTorch's `cummax`). The gradient of each
    /// value goes to the element at its index (`CummaxBackward0`).
    pub fn cummax(&self, dim: isize) -> Result<(Tensor, Tensor)> {
        self.running_extreme(dim, true)
    }

    /// `(values, indices)` of the running minimum along `dim` (`CumminBackward0`).
    pub fn cummin(&self, dim: isize) -> Result<(Tensor, Tensor)> {
        self.running_extreme(dim, false)
    }

    fn running_extreme(&self, dim: isize, max: bool) -> Result<(Tensor, Tensor)> {
        let d = normalize_dim(dim, self.dim())?;
        let x = if self.dtype() == DType::Bool {
            cast(self, DType::Int64)
        } else {
            self.clone()
        };
        // lanes along `d`, in (outer, inner) order; each laid out as [outer, inner, n]
        let (outer, n, inner) = lane_geometry(x.shape(), d);
        let mut idx: Vec<i64> = Vec::with_capacity(x.numel());
        let values = with_num!(x.dtype(), T => {
            let mut vals: Vec<T> = Vec::with_capacity(x.numel());
            for_each_lane::<T>(&x, d, |lane| {
                let (mut best, mut at) = (T::default(), 0i64);
                for (i, &v) in lane.iter().enumerate() {
                    let better = if max { v >= best } else { v <= best };
                    if i == 0 || v.to_f64().is_nan() || (!best.to_f64().is_nan() && better) {
                        best = v;
                        at = i as i64;
                    }
                    vals.push(best);
                    idx.push(at);
                }
            });
            Tensor::from_vec(vals, &[outer, inner, n])?
        });
        let back = |t: Tensor| -> Result<Tensor> {
            let shape: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
            t.permute(&[0, 2, 1])?.clone_tensor()?.reshape(&shape)
        };
        let values = back(values)?;
        let values = if self.dtype() == DType::Bool {
            cast(&values, DType::Bool)
        } else {
            values
        };
        let indices = back(Tensor::from_vec(idx, &[outer, inner, n])?)?;
        let (values, indices) = (values.unviewed(), indices.unviewed());
        if !is_recording(&[self]) {
            return Ok((values, indices));
        }
        let name = if max {
            "CummaxBackward0"
        } else {
            "CumminBackward0"
        };
        let values = record(
            values,
            name,
            &[self],
            &[Save::Tensor(self), Save::Tensor(&indices)],
            move |ctx| {
                let (g, x, idx) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                if x.dim() == 0 {
                    return Ok(vec![Some(g.clone())]);
                }
                Ok(vec![Some(x.zeros_like().scatter_add(d as isize, idx, g)?)])
            },
        );
        Ok((values, indices))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumprod_of_a_lane() {
        let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        assert_eq!(
            x.cumprod(1).unwrap().to_vec::<f64>().unwrap(),
            [1.0, 2.0, 3.0, 12.0]
        );
        assert_eq!(
            x.cumprod(0).unwrap().to_vec::<f64>().unwrap(),
            [1.0, 2.0, 3.0, 8.0]
        );
    }

    #[test]
    fn gradient_with_a_zero_is_the_product_of_the_others() {
        let x = Tensor::from_vec(vec![2.0f64, 0.0, 3.0], &[3]).unwrap();
        x.set_requires_grad(true).unwrap();
        x.cumprod(0)
            .unwrap()
            .sum()
            .unwrap()
            .backward(None, None, false)
            .unwrap();
        // y = (x0, x0 x1, x0 x1 x2): dy/dx0 = 1 + x1 + x1 x2 = 1, dy/dx1 = x0 + x0 x2 = 8,
        // dy/dx2 = x0 x1 = 0
        assert_eq!(x.grad().unwrap().to_vec::<f64>().unwrap(), [1.0, 8.0, 0.0]);
    }
}
