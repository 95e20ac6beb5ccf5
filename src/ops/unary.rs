//! Elementwise functions of one tensor, each with its derivative.

use super::{constant, float_dtype};
use crate::autograd::{is_recording, record, Save};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::{cast, map};
use crate::tensor::Tensor;
use crate::{with_float, with_num};

/// Applies a float function (written once, generic over f32/f64) to `x`, promoting integers to float32.
macro_rules! float_map {
    ($x:expr, |$v:ident| $body:expr) => {{
        let x = cast($x, float_dtype($x.dtype()));
        with_float!(x.dtype(), T => map(&x, |$v: T| $body))
    }};
}

/// A constant (no history) tensor: 1 where `x > 0`, else 0, in `x`'s dtype.
fn positive_mask(x: &Tensor) -> Result<Tensor> {
    Ok(with_float!(x.dtype(), T => map(x, |v: T| if v > 0.0 { 1.0 as T } else { 0.0 as T })))
}

/// A constant (no history) tensor holding the sign of `x` (0 at 0), in `x`'s dtype.
pub(crate) fn sign_of(x: &Tensor) -> Result<Tensor> {
    Ok(with_num!(x.dtype(), T => map(x, |v: T| {
        if v > T::default() {
            1 as T
        } else if v < T::default() {
            -1 as T
        } else {
            T::default()
        }
    })))
}

impl Tensor {
    /// `-x`
    pub fn neg(&self) -> Result<Tensor> {
        let dtype = if self.dtype() == DType::Bool {
            DType::Int64
        } else {
            self.dtype()
        };
        let x = cast(self, dtype);
        let out = with_num!(dtype, T => map(&x, |v: T| T::default() - v));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, "NegBackward0", &[self], &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).neg()?)])
        }))
    }

    /// `e^x`; derivative `e^x` (the saved output).
    pub fn exp(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.exp());
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "ExpBackward0",
            &[self],
            &[Save::Output],
            |ctx| Ok(vec![Some(ctx.grad(0).mul(ctx.saved(0))?)]),
        ))
    }

    /// Natural logarithm; derivative `1/x`.
    pub fn log(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.ln());
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "LogBackward0",
            &[self],
            &[Save::Tensor(self)],
            |ctx| Ok(vec![Some(ctx.grad(0).div(ctx.saved(0))?)]),
        ))
    }

    /// Sine; derivative `cos x`.
    pub fn sin(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.sin());
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "SinBackward0",
            &[self],
            &[Save::Tensor(self)],
            |ctx| Ok(vec![Some(ctx.grad(0).mul(&ctx.saved(0).cos()?)?)]),
        ))
    }

    /// Cosine; derivative `-sin x`.
    pub fn cos(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.cos());
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "CosBackward0",
            &[self],
            &[Save::Tensor(self)],
            |ctx| Ok(vec![Some(ctx.grad(0).mul(&ctx.saved(0).sin()?.neg()?)?)]),
        ))
    }

    /// Hyperbolic tangent; derivative `1 - y²` from the saved output `y`.
    pub fn tanh(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.tanh());
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "TanhBackward0",
            &[self],
            &[Save::Output],
            |ctx| {
                let y = ctx.saved(0);
                let one = constant(1.0, y.dtype());
                Ok(vec![Some(ctx.grad(0).mul(&one.sub(&y.mul(y)?)?)?)])
            },
        ))
    }

    /// Logistic sigmoid `1 / (1 + e^-x)`; derivative `y (1 - y)`.
    pub fn sigmoid(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| {
            let one = <T as num_traits::One>::one();
            one / (one + (-v).exp())
        });
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "SigmoidBackward0",
            &[self],
            &[Save::Output],
            |ctx| {
                let y = ctx.saved(0);
                let one = constant(1.0, y.dtype());
                Ok(vec![Some(ctx.grad(0).mul(&one.sub(y)?.mul(y)?)?)])
            },
        ))
    }

    /// `max(x, 0)`; derivative 1 where the output is positive, 0 elsewhere (`relu'(0) = 0`).
    pub fn relu(&self) -> Result<Tensor> {
        let out = with_num!(self.dtype(), T => map(self, |v: T| if v > T::default() { v } else { T::default() }));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "ReluBackward0",
            &[self],
            &[Save::Output],
            |ctx| Ok(vec![Some(ctx.grad(0).mul(&positive_mask(ctx.saved(0))?)?)]),
        ))
    }

    /// `|x|`; derivative `sign(x)` (`abs'(0) = 0`).
    pub fn abs(&self) -> Result<Tensor> {
        let out = with_num!(self.dtype(), T => map(self, |v: T| if v < T::default() { T::default() - v } else { v }));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "AbsBackward0",
            &[self],
            &[Save::Tensor(self)],
            |ctx| Ok(vec![Some(ctx.grad(0).mul(&sign_of(ctx.saved(0))?)?)]),
        ))
    }

    /// Square root; derivative `1 / (2 sqrt x)` from the saved output.
    pub fn sqrt(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.sqrt());
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "SqrtBackward0",
            &[self],
            &[Save::Output],
            |ctx| Ok(vec![Some(ctx.grad(0).div(&ctx.saved(0).mul_scalar(2.0)?)?)]),
        ))
    }

    /// `1/x`; derivative `-1/x²` from the saved output.
    pub fn reciprocal(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.recip());
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "ReciprocalBackward0",
            &[self],
            &[Save::Output],
            |ctx| {
                let y = ctx.saved(0);
                Ok(vec![Some(ctx.grad(0).mul(&y.mul(y)?.neg()?)?)])
            },
        ))
    }

    /// A copy with its own storage; the gradient passes through unchanged.
    pub fn clone_tensor(&self) -> Result<Tensor> {
        let out = self.deep_copy();
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, "CloneBackward0", &[self], &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).clone())])
        }))
    }

    /// Converts to `dtype` (a copy unless already `dtype`); the gradient is cast back.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        let out = cast(self, dtype);
        if !is_recording(&[self]) || !dtype.is_floating_point() {
            return Ok(out);
        }
        let from = self.dtype();
        Ok(record(out, "ToCopyBackward0", &[self], &[], move |ctx| {
            Ok(vec![Some(ctx.grad(0).to_dtype(from)?)])
        }))
    }
}
