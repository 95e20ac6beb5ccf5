//! Elementwise functions of one tensor, each with its derivative.

use super::{constant, float_dtype};
use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use crate::core::tensor::Tensor;
use crate::cpu::fastmath::FastMath;
use crate::cpu::kernels::{cast, map};
use crate::{with_float, with_num};

/// Applies a float function (written once, generic over f32/f64) to `x`, promoting integers to float32.
macro_rules! float_map {
    ($x:expr, |$v:ident| $body:expr) => {{
        let x = crate::cpu::kernels::cast_ref($x, float_dtype($x.dtype()));
        with_float!(x.dtype(), T => map(&x, |$v: T| $body))
    }};
}

/// `sin(x)` or `cos(x)` by the fast float32 kernel (integers are computed in float32), with the
/// few arguments beyond its range redone by the standard library block by block as it goes.
/// Also tells whether every argument was in range, so the backward (whose saved input is
/// version-checked) need not look again.
fn sin_cos(x: &Tensor, cosine: bool) -> (Tensor, bool) {
    let x = crate::cpu::kernels::cast_ref(x, float_dtype(x.dtype()));
    if x.dtype() != DType::Float32 {
        let f = |v: f64| if cosine { v.fast_cos() } else { v.fast_sin() };
        return (map(&x, f), true);
    }
    let in_range = std::sync::atomic::AtomicBool::new(true);
    let out = crate::cpu::kernels::map_fixed(
        &x,
        |v: f32| crate::cpu::fastmath::sin_cos_f32(v, cosine),
        |xs: &[f32], out: &mut [f32]| {
            if !crate::cpu::kernels::all_of(xs, crate::cpu::fastmath::in_sin_cos_range) {
                in_range.store(false, std::sync::atomic::Ordering::Relaxed);
                crate::cpu::fastmath::fix_large_sin_cos(xs, out, cosine);
            }
        },
    );
    (out, in_range.into_inner())
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
        let out = float_map!(self, |v| v.fast_exp());
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
        let (out, in_range) = sin_cos(self, false);
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "SinBackward0",
            &[self],
            &[Save::Tensor(self)],
            move |ctx| {
                let (g, x) = (ctx.grad(0), ctx.saved(0));
                // beyond the fast kernel's range (rare): the exact cosine, then the product
                let r = match in_range {
                    true => fused!(ctx, x, |g, x| g * x.fast_cos(), g.mul(&x.cos()?))?,
                    false => g.mul(&x.cos()?)?,
                };
                Ok(vec![Some(r)])
            },
        ))
    }

    /// Cosine; derivative `-sin x`.
    pub fn cos(&self) -> Result<Tensor> {
        let (out, in_range) = sin_cos(self, true);
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "CosBackward0",
            &[self],
            &[Save::Tensor(self)],
            move |ctx| {
                let (g, x) = (ctx.grad(0), ctx.saved(0));
                let r = match in_range {
                    true => fused!(ctx, x, |g, x| -(g * x.fast_sin()), g.mul(&x.sin()?.neg()?))?,
                    false => g.mul(&x.sin()?.neg()?)?,
                };
                Ok(vec![Some(r)])
            },
        ))
    }

    /// Hyperbolic tangent; derivative `1 - y²` from the saved output `y`.
    pub fn tanh(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.fast_tanh());
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "TanhBackward0",
            &[self],
            &[Save::Output],
            |ctx| {
                let (g, y) = (ctx.grad(0), ctx.saved(0));
                let composite = || g.mul(&constant(1.0, y.dtype()).sub(&y.mul(y)?)?);
                Ok(vec![Some(fused!(
                    ctx,
                    y,
                    |g, y| g * (1.0 - y * y),
                    composite()
                )?)])
            },
        ))
    }

    /// Logistic sigmoid `1 / (1 + e^-x)`; derivative `y (1 - y)`.
    pub fn sigmoid(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| {
            let one = <T as num_traits::One>::one();
            one / (one + (-v).fast_exp())
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
                let (g, y) = (ctx.grad(0), ctx.saved(0));
                let composite = || g.mul(&constant(1.0, y.dtype()).sub(y)?.mul(y)?);
                Ok(vec![Some(fused!(
                    ctx,
                    y,
                    |g, y| g * (1.0 - y) * y,
                    composite()
                )?)])
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
            |ctx| {
                let (g, y) = (ctx.grad(0), ctx.saved(0));
                let composite = || g.mul(&positive_mask(y)?);
                Ok(vec![Some(fused!(
                    ctx,
                    y,
                    |g, y| if y > 0.0 { g } else { 0.0 },
                    composite()
                )?)])
            },
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

/// Finishes a unary op: records `name` with input gradient `backward(g, saved)` when recording.
/// `saved` is the input (`Save::Tensor(x)`) or the output (`Save::Output`), as `save` says.
fn unary_node(
    x: &Tensor,
    out: Tensor,
    name: &'static str,
    save: Save<'_>,
    backward: impl Fn(&Tensor, &Tensor) -> Result<Tensor> + Send + Sync + 'static,
) -> Result<Tensor> {
    if !is_recording(&[x]) {
        return Ok(out);
    }
    Ok(record(out, name, &[x], &[save], move |ctx| {
        let g = ctx.grad(0);
        Ok(vec![Some(backward(g, ctx.saved_opt(0).unwrap_or(g))?)])
    }))
}

/// A constant tensor like `x` from a per-element predicate (1 where true, 0 elsewhere).
pub(crate) fn mask_where(x: &Tensor, pred: impl Fn(f64) -> bool + Sync) -> Result<Tensor> {
    Ok(
        with_float!(x.dtype(), T => map(x, |v: T| if pred(v.to_f64()) { 1.0 as T } else { 0.0 as T })),
    )
}

/// Zero gradient, for piecewise-constant functions (`floor`, `sign`, ...).
fn zero_grad(g: &Tensor, _: &Tensor) -> Result<Tensor> {
    Ok(g.zeros_like())
}

impl Tensor {
    /// Sign (-1, 0, 1); gradient zero.
    pub fn sign(&self) -> Result<Tensor> {
        unary_node(self, sign_of(self)?, "SignBackward0", Save::Skip, |g, _| {
            Ok(g.zeros_like())
        })
    }

    /// Round down; gradient zero.
    pub fn floor(&self) -> Result<Tensor> {
        let out = with_num!(self.dtype(), T => map(self, |v: T| elem_round::<T>(v, f64::floor)));
        unary_node(self, out, "FloorBackward0", Save::Skip, zero_grad)
    }

    /// Round up; gradient zero.
    pub fn ceil(&self) -> Result<Tensor> {
        let out = with_num!(self.dtype(), T => map(self, |v: T| elem_round::<T>(v, f64::ceil)));
        unary_node(self, out, "CeilBackward0", Save::Skip, zero_grad)
    }

    /// Round half to even, as PyTorch; gradient zero.
    pub fn round(&self) -> Result<Tensor> {
        let out = with_num!(self.dtype(), T => map(self, |v: T| elem_round::<T>(v, f64::round_ties_even)));
        unary_node(self, out, "RoundBackward0", Save::Skip, zero_grad)
    }

    /// `2^x`; derivative `2^x ln 2`.
    pub fn exp2(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.exp2());
        unary_node(self, out, "Exp2Backward0", Save::Output, |g, y| {
            g.mul(&y.mul_scalar(std::f64::consts::LN_2)?)
        })
    }

    /// Base-2 logarithm; derivative `1 / (x ln 2)`.
    pub fn log2(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.log2());
        unary_node(self, out, "Log2Backward0", Save::Tensor(self), |g, x| {
            g.div(&x.mul_scalar(std::f64::consts::LN_2)?)
        })
    }

    /// Base-10 logarithm; derivative `1 / (x ln 10)`.
    pub fn log10(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.log10());
        unary_node(self, out, "Log10Backward0", Save::Tensor(self), |g, x| {
            g.div(&x.mul_scalar(std::f64::consts::LN_10)?)
        })
    }

    /// `ln(1 + x)`, accurate near 0; derivative `1 / (1 + x)`.
    pub fn log1p(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.ln_1p());
        unary_node(self, out, "Log1pBackward0", Save::Tensor(self), |g, x| {
            g.div(&x.add_scalar(1.0)?)
        })
    }

    /// `e^x - 1`, accurate near 0; derivative `e^x`.
    pub fn expm1(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.exp_m1());
        unary_node(self, out, "Expm1Backward0", Save::Output, |g, y| {
            g.mul(&y.add_scalar(1.0)?)
        })
    }

    /// `1 / sqrt(x)`; derivative `-y³ / 2`.
    pub fn rsqrt(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| v.sqrt().recip());
        unary_node(self, out, "RsqrtBackward0", Save::Output, |g, y| {
            g.mul(&y.pow_scalar(3.0)?.mul_scalar(-0.5)?)
        })
    }

    /// `x²` (PyTorch computes it as `pow(x, 2)`).
    pub fn square(&self) -> Result<Tensor> {
        self.pow_scalar(2.0)
    }

    /// The error function; derivative `2/√π · e^(-x²)`.
    pub fn erf(&self) -> Result<Tensor> {
        let out = float_map!(self, |v| <T as FromF64>::from(libm::erf(v as f64)));
        unary_node(self, out, "ErfBackward0", Save::Tensor(self), |g, x| {
            let bump = x
                .mul(x)?
                .neg()?
                .exp()?
                .mul_scalar(std::f64::consts::FRAC_2_SQRT_PI)?;
            g.mul(&bump)
        })
    }

    /// `x` limited to `[min, max]` (either bound optional); the gradient passes where
    /// `min <= x <= max`, bounds included (PyTorch's convention).
    pub fn clamp(&self, min: Option<f64>, max: Option<f64>) -> Result<Tensor> {
        if min.is_none() && max.is_none() {
            return Err(crate::Error::runtime(
                "torch.clamp: At least one of 'min' or 'max' must not be None",
            ));
        }
        let (lo, hi) = (
            min.unwrap_or(f64::NEG_INFINITY),
            max.unwrap_or(f64::INFINITY),
        );
        let out = with_num!(self.dtype(), T => map(self, move |v: T| {
            let f = v.to_f64();
            if f.is_nan() { v } else if f < lo { T::from_f64(lo) } else if f > hi { T::from_f64(hi) } else { v }
        }));
        unary_node(
            self,
            out,
            "ClampBackward1",
            Save::Tensor(self),
            move |g, x| g.mul(&mask_where(x, |v| v >= lo && v <= hi)?),
        )
    }
}

fn elem_round<T: crate::core::dtype::Element>(v: T, f: fn(f64) -> f64) -> T {
    T::from_f64(f(v.to_f64()))
}

/// Conversion from f64 into a float element (for kernels written in f64, like `erf`).
trait FromF64 {
    fn from(v: f64) -> Self;
}
impl FromF64 for f32 {
    fn from(v: f64) -> Self {
        v as f32
    }
}
impl FromF64 for f64 {
    fn from(v: f64) -> Self {
        v
    }
}
