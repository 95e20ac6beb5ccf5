//! Variance, standard deviation (with their means) and log-sum-exp over dims.

use crate::autograd::{is_recording, record, record_multi, Save};
use crate::core::dtype::Scalar;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_dim;
use crate::core::tensor::Tensor;
use crate::ops::pointwise::comparison::CompareOp;
use crate::ops::pointwise::unary::bool_where;
use crate::ops::Operand;

impl Tensor {
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

/// The gradient of the variance from that of the standard deviation `s`: `g / (2 s)`, 0 where
/// the deviation is 0 (equal values), not 0/0 (PyTorch's `std_backward`).
fn std_to_var_grad(g: &Tensor, s: &Tensor) -> Result<Tensor> {
    let zero = Tensor::scalar_of(0.0, g.dtype());
    let g_var = g.div(&s.mul_scalar(2.0)?)?;
    Tensor::where_(&bool_where(s, |v| v == 0.0)?, &zero, &g_var)
}

/// PyTorch's `var_backward`: `(2 / (n - correction)) · g · (x - mean)`, in its order of
/// operations; over all elements with no degrees of freedom left, `g · (NaN where x equals the
/// mean, else inf)`, a constant of `x`.
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
