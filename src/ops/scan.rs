//! The cumulative product along a dimension (`cumprod`), whose gradient stays exact, and
//! differentiable, when the input holds zeros.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::{DType, Num};
use crate::core::error::Result;
use crate::core::layout::normalize_dim;
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast, map_lanes};
use crate::ops::comparison::CompareOp;
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
            None if self.dtype() == DType::Bool => cast(self, DType::Int64),
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

/// The gradient of `y = cumprod(x)` along `d`. Without zeros in `x` it is PyTorch's
/// `reversed_cumsum(g · y) / x`; with zeros that formula divides 0 by 0, so each element's
/// gradient is computed from the products that leave it out: row `k` of an `n × n` matrix holds
/// the lane with `x_k` replaced by 1, its running product gives `∏_{i ≤ j, i ≠ k} x_i`, and the
/// entries `j ≥ k` weighted by `g_j` sum to the gradient of `x_k`. Both are differentiable.
fn cumprod_backward(g: &Tensor, x: &Tensor, y: &Tensor, d: usize) -> Result<Tensor> {
    if x.dim() == 0 {
        return Ok(g.clone());
    }
    let dims = [d as isize];
    let zero = Operand::Scalar(crate::Scalar::Float(0.0));
    let has_zero = x
        .detach()
        .compare(CompareOp::Eq, zero)?
        .any()?
        .item()?
        .to_f64()
        != 0.0;
    if !has_zero {
        return g
            .mul(y)?
            .flip(&dims)?
            .cumsum(d as isize)?
            .flip(&dims)?
            .div(x);
    }
    let n = x.shape()[d];
    let last = x.dim() as isize - 1;
    // the lane dimension last: [..., n], then a row per left-out element: [..., n (k), n (i)]
    let xt = x.transpose(d as isize, last)?;
    let mut rows_shape: Vec<isize> = xt.shape().iter().map(|&s| s as isize).collect();
    rows_shape.insert(rows_shape.len() - 1, n as isize);
    let rows = xt.unsqueeze(-2)?.expand(&rows_shape)?;
    let eye = Tensor::eye(n as i64, None, DType::Bool)?;
    let one = Tensor::scalar_of(1.0, x.dtype());
    let partial = Tensor::where_(&eye, &one, &rows)?.cumprod(-1)?;
    let upper = Tensor::ones(&[n, n], DType::Bool).triu(0)?;
    let gt = g.transpose(d as isize, last)?.unsqueeze(-2)?;
    let weighted = Tensor::where_(
        &upper,
        &partial.mul(&gt)?,
        &Tensor::scalar_of(0.0, x.dtype()),
    )?;
    weighted.sum_dims(&[-1], false)?.transpose(d as isize, last)
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
