//! Pointwise functions of one tensor: the derivative table.
//!
//! Every op of this family is one row of [`unary_table!`](crate::unary_table): its method and
//! in-place twin, PyTorch's node name, the forward kernel and the derivative, side by side (PyTorch's
//! `derivatives.yaml` idea). The derivative is written once, with differentiable ops, so the
//! same formula runs for first-order backward and is differentiated for higher orders; where a
//! fused kernel pays (tanh, sigmoid, relu) the formula calls a backward op of its own
//! (`tanh_backward`, ... in [`crate::ops::pointwise::binary`]), which has its own row.
//!
//! The Python bindings and stubs are generated from the same rows
//! (`crate::unary_table!(callback)` hands them to any macro; `tools/gen_surface.py` reads them).

use crate::autograd::Grad;
use crate::autograd::{is_recording, record, Save};
use crate::core::dispatch::{intercept1, Arg, Call};
use crate::core::dtype::{DType, Element, Num, Scalar};
use crate::core::error::Result;
use crate::core::tensor::Tensor;
use crate::cpu::fastmath::{in_sin_cos_range, sin_cos_f32, FastMath};
use crate::cpu::kernels::{cast, map};
use crate::cpu::kernels::{zip_into, zip_into_guarded};
use crate::cpu::special;
use crate::ops::float_dtype;
use crate::ops::pointwise::comparison::CompareOp;
use crate::ops::Operand;
use crate::{with_float, with_num};
use std::f64::consts::{FRAC_2_SQRT_PI, LN_10, LN_2, PI};

/// The table of pointwise functions of one tensor. Each row:
///
/// `method, in_place, "NodeName", domain |v| forward, |g, s| derivative;`
///
/// - `domain`: `float` (integers computed in float32, as PyTorch's `exp` of an `int64`
///   tensor), `num` (any numeric dtype kept; bool as int64), `signed` (as `num`, bool
///   refused), or `tensor` (`v` is the whole input and `forward` a tensor-level kernel call).
/// - `|v| forward`: the value of one element `v` (of element type `T`).
/// - `|g, x| …` saves the input as `x`, `|g, y| …` saves the output as `y`, `|g| …` saves
///   nothing; `g` is the incoming gradient (a [`crate::autograd::Grad`]); the result is the
///   gradient of the input.
///
/// Invoked with a macro's path, it expands to that macro applied to all the rows.
#[macro_export]
macro_rules! unary_table {
    ($then:path) => {
        $then! {
            /// `-x`
            neg, neg_, "NegBackward0", signed |v| Num::negated(v), |g| g.neg();
            /// `|x|`; `abs'(0) = 0`
            abs, abs_, "AbsBackward0", num |v| if v <= T::default() { T::default() - v } else { v },
                |g, x| g.mul(&x.sign()?);
            /// `e^x`
            exp, exp_, "ExpBackward0", float |v| v.fast_exp(), |g, y| g.mul(y);
            /// `2^x`
            exp2, exp2_, "Exp2Backward0", float |v| v.exp2(), |g, y| g.mul(&y.mul_scalar(LN_2)?);
            /// `e^x - 1`, accurate near 0
            expm1, expm1_, "Expm1Backward0", float |v| v.exp_m1(), |g, y| g.mul(&y.add_scalar(1.0)?);
            /// natural logarithm
            log, log_, "LogBackward0", float |v| v.ln(), |g, x| g.div(x);
            /// base-2 logarithm
            log2, log2_, "Log2Backward0", float |v| v.log2(), |g, x| g.div(&x.mul_scalar(LN_2)?);
            /// base-10 logarithm
            log10, log10_, "Log10Backward0", float |v| v.log10(), |g, x| g.div(&x.mul_scalar(LN_10)?);
            /// `ln(1 + x)`, accurate near 0
            log1p, log1p_, "Log1PBackward0", float |v| v.ln_1p(), |g, x| g.div(&x.add_scalar(1.0)?);
            /// square root
            sqrt, sqrt_, "SqrtBackward0", float |v| v.sqrt(), |g, y| g.div(&y.mul_scalar(2.0)?);
            /// `1 / sqrt(x)`
            rsqrt, rsqrt_, "RsqrtBackward0", float |v| v.sqrt().recip(),
                |g, y| g.mul(&y.pow_scalar(3.0)?.mul_scalar(-0.5)?);
            /// `1 / x`
            reciprocal, reciprocal_, "ReciprocalBackward0", float |v| v.recip(),
                |g, y| g.mul(&y.mul(y)?.neg()?);
            /// sine
            sin, sin_, "SinBackward0", tensor |v| sin_cos(v, false)?, |g, x| g.mul_cos(x);
            /// cosine
            cos, cos_, "CosBackward0", tensor |v| sin_cos(v, true)?, |g, x| g.mul_neg_sin(x);
            /// tangent
            tan, tan_, "TanBackward0", float |v| v.tan(), |g, y| g.mul(&y.mul(y)?.add_scalar(1.0)?);
            /// arcsine
            asin, asin_, "AsinBackward0", float |v| v.asin(),
                |g, x| g.div(&x.mul(x)?.rsub_scalar(1.0)?.sqrt()?);
            /// arccosine
            acos, acos_, "AcosBackward0", float |v| v.acos(),
                |g, x| g.div(&x.mul(x)?.rsub_scalar(1.0)?.sqrt()?)?.neg();
            /// arctangent
            atan, atan_, "AtanBackward0", float |v| v.atan(), |g, x| g.div(&x.mul(x)?.add_scalar(1.0)?);
            /// hyperbolic sine
            sinh, sinh_, "SinhBackward0", float |v| v.sinh(), |g, x| g.mul(&x.cosh()?);
            /// hyperbolic cosine
            cosh, cosh_, "CoshBackward0", float |v| v.cosh(), |g, x| g.mul(&x.sinh()?);
            /// hyperbolic tangent
            tanh, tanh_, "TanhBackward0", float |v| v.fast_tanh(), |g, y| g.tanh_backward(y);
            /// inverse hyperbolic sine
            asinh, asinh_, "AsinhBackward0", float |v| v.asinh(),
                |g, x| g.div(&x.mul(x)?.add_scalar(1.0)?.sqrt()?);
            /// inverse hyperbolic cosine
            acosh, acosh_, "AcoshBackward0", float |v| v.acosh(),
                |g, x| g.div(&x.mul(x)?.add_scalar(-1.0)?.sqrt()?);
            /// inverse hyperbolic tangent
            atanh, atanh_, "AtanhBackward0", float |v| v.atanh(), |g, x| g.div(&x.mul(x)?.rsub_scalar(1.0)?);
            /// logistic sigmoid `1 / (1 + e^-x)`
            sigmoid, sigmoid_, "SigmoidBackward0", float |v| 1.0 / (1.0 + (-v).fast_exp()),
                |g, y| g.sigmoid_backward(y);
            /// `max(x, 0)` (NaN stays NaN, -0.0 stays -0.0 as in PyTorch); `relu'(0) = 0`
            relu, relu_, "ReluBackward0", num |v| if v < T::default() { T::default() } else { v },
                |g, y| g.threshold_backward(y);
            /// the error function
            erf, erf_, "ErfBackward0", tensor |v| $crate::ops::pointwise::unary::erf_forward(v)?,
                |g, x| g.mul(&x.mul(x)?.neg()?.exp()?.mul_scalar(FRAC_2_SQRT_PI)?);
            /// the complementary error function `1 - erf(x)`, accurate where `erf(x)` is near 1
            erfc, erfc_, "ErfcBackward0", float |v| T::from_f64(libm::erfc(v.to_f64())),
                |g, x| g.mul(&x.mul(x)?.neg()?.exp()?.mul_scalar(-FRAC_2_SQRT_PI)?);
            /// the inverse error function; `±inf` at `±1`, NaN outside `[-1, 1]`
            erfinv, erfinv_, "ErfinvBackward0", float |v| T::from_f64(special::erfinv(v.to_f64())),
                |g, x| g.mul(&x.erfinv()?.pow_scalar(2.0)?.exp()?.mul_scalar(0.5 * PI.sqrt())?);
            /// `ln |Γ(x)|`
            lgamma, lgamma_, "LgammaBackward0", float |v| T::from_f64(special::lgamma(v.to_f64())),
                |g, x| g.mul(&x.digamma()?);
            /// the digamma function `Γ'(x) / Γ(x)`
            digamma, digamma_, "DigammaBackward0", float |v| special::digamma(v),
                |g, x| g.mul(&x.polygamma(1)?);
            /// the modified Bessel function of the first kind of order 0; derivative `i1(x)`
            i0, i0_, "I0Backward0", float |v| T::from_f64(special::bessel_i(0, v.to_f64(), false)),
                |g, x| g.mul(&x.special_i1()?);
            /// sign (-1, 0, 1); zero gradient
            sign, sign_, "SignBackward0", num |v| sign_value(v), |g| Ok(g.zeros_like());
            /// round down; zero gradient
            floor, floor_, "FloorBackward0", num |v| round_with(v, f64::floor), |g| Ok(g.zeros_like());
            /// round up; zero gradient
            ceil, ceil_, "CeilBackward0", num |v| round_with(v, f64::ceil), |g| Ok(g.zeros_like());
            /// round half to even, as PyTorch; zero gradient
            round, round_, "RoundBackward0", num |v| round_with(v, f64::round_ties_even),
                |g| Ok(g.zeros_like());
            /// round toward zero; zero gradient
            trunc, trunc_, "TruncBackward0", num |v| round_with(v, f64::trunc), |g| Ok(g.zeros_like());
            /// the fractional part `x - trunc(x)`; the gradient passes unchanged
            frac, frac_, "FracBackward0", float |v| v - v.trunc(), |g| Ok((*g).clone());
        }
    };
}

/// Defines the ops of the table's rows: each method, its in-place twin, and [`UNARY_OPS`].
macro_rules! define_unary_ops {
    ($( $(#[$doc:meta])* $name:ident, $inplace:ident, $node:literal, $domain:ident |$v:ident| $fwd:expr,
        |$g:ident $(, $s:ident)?| $grad:expr; )*) => {
        impl Tensor {
            $(
                $(#[$doc])*
                pub fn $name(&self) -> Result<Tensor> {
                    let call = || Call::new(concat!(stringify!($name), ".default"), vec![self.into()]);
                    let out = match intercept1(&[self], call) {
                        Some(dispatched) => dispatched?,
                        None => forward!($domain, self, |$v| $fwd),
                    };
                    if !is_recording(&[self]) {
                        return Ok(out);
                    }
                    let save = save!(self $(, $s)?);
                    Ok(record(out, $node, &[self], &[save], |ctx| {
                        let $g = ctx.grad0();
                        $(let $s = ctx.saved(0);)?
                        Ok(vec![Some($grad?)])
                    }))
                }

                #[doc = concat!("In-place [`Tensor::", stringify!($name), "`].")]
                pub fn $inplace(&self) -> Result<()> {
                    self.unary_(stringify!($inplace), |x| x.$name())
                }
            )*
        }

        /// The rows of [`unary_table!`](crate::unary_table): (method, in-place twin, PyTorch's node name).
        pub const UNARY_OPS: &[(&str, &str, &str)] = &[$((stringify!($name), stringify!($inplace), $node)),*];
    };
}

/// The forward of a row: `float`, `num`, `signed` or `tensor` (see [`unary_table!`](crate::unary_table)).
macro_rules! forward {
    (float, $x:expr, |$v:ident| $fwd:expr) => {{
        let x = crate::cpu::kernels::cast_ref($x, float_dtype($x.dtype()));
        with_float!(x.dtype(), T => map(&x, |$v: T| -> T { $fwd }))
    }};
    (num, $x:expr, |$v:ident| $fwd:expr) => {{
        let x = if $x.dtype() == DType::Bool { cast($x, DType::Int64) } else { $x.clone() };
        with_num!(x.dtype(), T => map(&x, |$v: T| -> T { $fwd }))
    }};
    (signed, $x:expr, |$v:ident| $fwd:expr) => {{
        if $x.dtype() == DType::Bool {
            return Err(crate::Error::not_implemented(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
            ));
        }
        forward!(num, $x, |$v| $fwd)
    }};
    (tensor, $x:expr, |$v:ident| $fwd:expr) => {{
        let $v: &Tensor = $x;
        $fwd
    }};
}

/// What a row saves: the input (`x`), the output (`y`), or nothing.
macro_rules! save {
    ($self:ident, x) => {
        Save::Tensor($self)
    };
    ($self:ident, y) => {
        Save::Output
    };
    ($self:ident) => {
        Save::Skip
    };
}

crate::unary_table!(define_unary_ops);

/// What a unary row's node saves, by PyTorch's name: its input (`self`) or output (`result`).
macro_rules! saved_name {
    (x) => {
        "self"
    };
    (y) => {
        "result"
    };
    () => {
        ""
    };
}

macro_rules! define_unary_saved_names {
    ($( $(#[$doc:meta])* $name:ident, $inplace:ident, $node:literal, $domain:ident |$v:ident| $fwd:expr,
        |$g:ident $(, $s:ident)?| $grad:expr; )*) => {
        /// `(node, name of its saved slot)` for each row (`""`: it saves nothing), read from
        /// the table: the names of the nodes' `_saved_<name>` attributes.
        pub const UNARY_SAVED_NAMES: &[(&str, &str)] = &[$(($node, saved_name!($($s)?))),*];
    };
}

crate::unary_table!(define_unary_saved_names);

impl Tensor {
    /// `x²` (PyTorch computes it as `pow(x, 2)`).
    pub fn square(&self) -> Result<Tensor> {
        self.pow_scalar(2.0)
    }

    /// The `n`-th derivative of digamma (`n = 0` is digamma itself); derivative
    /// `polygamma(n + 1, x)`.
    pub fn polygamma(&self, n: i64) -> Result<Tensor> {
        if n < 0 {
            return Err(crate::Error::runtime(format!(
                "polygamma(n, x) does not support negative n (got n = {n})."
            )));
        }
        let n = n.min(u32::MAX as i64) as u32;
        let out = forward!(float, self, |v| special::polygamma(n, v));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "PolygammaBackward0",
            &[self],
            &[Save::Tensor(self)],
            move |ctx| {
                Ok(vec![Some(
                    ctx.grad(0)
                        .mul(&ctx.saved(0).polygamma(i64::from(n) + 1)?)?,
                )])
            },
        ))
    }

    /// `i1(x)`, the modified Bessel function of the first kind of order 1 (`torch.special.i1`);
    /// derivative `i0(x) - i1(x) / x`, 1/2 at 0.
    pub fn special_i1(&self) -> Result<Tensor> {
        self.bessel(1, false, "SpecialI1Backward0")
    }

    /// `i0e(x) = e^{-|x|} i0(x)` (`torch.special.i0e`); derivative `i1e(x) - sgn(x) i0e(x)`.
    pub fn special_i0e(&self) -> Result<Tensor> {
        self.bessel(0, true, "SpecialI0EBackward0")
    }

    /// `i1e(x) = e^{-|x|} i1(x)` (`torch.special.i1e`); derivative
    /// `i0e(x) - i1e(x) (sgn(x) + 1/x)`, 1/2 at 0.
    pub fn special_i1e(&self) -> Result<Tensor> {
        self.bessel(1, true, "SpecialI1EBackward0")
    }

    /// The modified Bessel functions of the first kind but `i0` (a row of the table), with
    /// PyTorch's derivatives (`i1_backward`, `i1e_backward`: the limit 1/2 where `|x|` is
    /// below the dtype's epsilon, whose formula would divide by zero).
    fn bessel(&self, nu: u32, scaled: bool, node: &'static str) -> Result<Tensor> {
        let out = forward!(float, self, |v| T::from_f64(special::bessel_i(
            nu,
            v.to_f64(),
            scaled
        )));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            node,
            &[self],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (x, y) = (ctx.saved(0), ctx.saved(1));
                let g = ctx.grad(0);
                if nu == 0 {
                    // i0e: i1e(x) - sgn(x) · i0e(x)
                    return Ok(vec![Some(
                        g.mul(&x.special_i1e()?.sub(&x.sign()?.mul(y)?)?)?,
                    )]);
                }
                let eps = if x.dtype() == DType::Float32 {
                    f64::from(f32::EPSILON)
                } else {
                    f64::EPSILON
                };
                let not_tiny = x
                    .abs()?
                    .compare(CompareOp::Gt, Operand::Scalar(Scalar::Float(eps)))?;
                let safe = Tensor::where_(&not_tiny, x, &Tensor::full(&[], eps, x.dtype()))?;
                let slope = if scaled {
                    safe.special_i0e()?
                        .sub(&y.mul(&safe.sign()?.add(&safe.reciprocal()?)?)?)?
                } else {
                    safe.i0()?.sub(&y.mul(&safe.reciprocal()?)?)?
                };
                let half = Tensor::full(&[], 0.5, x.dtype());
                Ok(vec![Some(
                    g.mul(&Tensor::where_(&not_tiny, &slope, &half)?)?,
                )])
            },
        ))
    }

    /// In-place [`Tensor::polygamma`].
    pub fn polygamma_(&self, n: i64) -> Result<()> {
        self.unary_("polygamma_", |x| x.polygamma(n))
    }

    /// `ln(x / (1 - x))`, with `x` first clamped to `[eps, 1 - eps]` when `eps` is given;
    /// derivative `1 / (x (1 - x))`, zero outside `[eps, 1 - eps]`.
    pub fn logit(&self, eps: Option<f64>) -> Result<Tensor> {
        let out = match eps {
            None => forward!(float, self, |v| (v / (1.0 - v)).ln()),
            Some(e) => forward!(float, self, |v| {
                let (lo, hi) = (T::from_f64(e), T::from_f64(1.0 - e));
                let z = if v < lo {
                    lo
                } else if v > hi {
                    hi
                } else {
                    v
                };
                (z / (1.0 - z)).ln()
            }),
        };
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "LogitBackward0",
            &[self],
            &[Save::Tensor(self)],
            move |ctx| {
                let x = ctx.saved(0);
                let slope = ctx.grad(0).div(&x.mul(&x.rsub_scalar(1.0)?)?)?;
                Ok(vec![Some(match eps {
                    // outside [0, 1] logit is not defined: NaN, as PyTorch
                    None => {
                        let outside = bool_where(x, |v| !(0.0..=1.0).contains(&v))?;
                        let nan = Tensor::scalar_of(f64::NAN, slope.dtype());
                        Tensor::where_(&outside, &nan, &slope)?
                    }
                    // 0 outside [eps, 1 - eps]. A NaN input: PyTorch's kernel (plain backward)
                    // keeps its NaN slope, its differentiable formula (create_graph) gives 0
                    Some(e) if crate::core::grad_mode::is_grad_enabled() => {
                        keep_where(&slope, x, |v| v >= e && v <= 1.0 - e)?
                    }
                    Some(e) => keep_where(&slope, x, |v| !(v < e || v > 1.0 - e))?,
                })])
            },
        ))
    }

    /// In-place [`Tensor::logit`].
    pub fn logit_(&self, eps: Option<f64>) -> Result<()> {
        self.unary_("logit_", |x| x.logit(eps))
    }
}

impl Grad<'_, '_> {
    /// `g · cos(x)`, the derivative of sine: `g.mul(&x.cos())`, evaluated in one pass over the
    /// incoming gradient when the engine no longer needs it (fast float32 cosine; blocks with
    /// arguments beyond its range use the standard library's).
    pub fn mul_cos(&self, x: &Tensor) -> Result<Tensor> {
        if let Some(g) = self.spent() {
            let written = match (g.dtype(), x.dtype()) {
                (DType::Float32, DType::Float32) => zip_into_guarded(
                    g,
                    x,
                    |g: f32, x: f32| g * sin_cos_f32(x, true),
                    |g: f32, x: f32| g * x.cos(),
                    in_sin_cos_range,
                ),
                (DType::Float64, DType::Float64) => zip_into(g, x, |g: f64, x: f64| g * x.cos()),
                _ => false,
            };
            if written {
                return Ok(g.clone());
            }
        }
        (**self).mul(&x.cos()?)
    }

    /// `-g · sin(x)`, the derivative of cosine, as [`Grad::mul_cos`].
    pub fn mul_neg_sin(&self, x: &Tensor) -> Result<Tensor> {
        if let Some(g) = self.spent() {
            let written = match (g.dtype(), x.dtype()) {
                (DType::Float32, DType::Float32) => zip_into_guarded(
                    g,
                    x,
                    |g: f32, x: f32| -(g * sin_cos_f32(x, false)),
                    |g: f32, x: f32| -(g * x.sin()),
                    in_sin_cos_range,
                ),
                (DType::Float64, DType::Float64) => zip_into(g, x, |g: f64, x: f64| -(g * x.sin())),
                _ => false,
            };
            if written {
                return Ok(g.clone());
            }
        }
        (**self).mul(&x.sin()?.neg()?)
    }
}

/// The sign of one element (0 at 0).
fn sign_value<T: Element + PartialOrd>(v: T) -> T {
    if v > T::default() {
        T::from_f64(1.0)
    } else if v < T::default() {
        T::from_f64(-1.0)
    } else {
        T::default()
    }
}

/// `f` (a rounding function) applied to one element, through f64.
fn round_with<T: Element>(v: T, f: fn(f64) -> f64) -> T {
    T::from_f64(f(v.to_f64()))
}

/// `sin(x)` or `cos(x)` by the fast float32 kernel (integers are computed in float32), with the
/// few arguments beyond its range redone by the standard library block by block as it goes.
fn sin_cos(x: &Tensor, cosine: bool) -> Result<Tensor> {
    let x = crate::cpu::kernels::cast_ref(x, float_dtype(x.dtype()));
    if x.dtype() != DType::Float32 {
        let f = |v: f64| if cosine { v.fast_cos() } else { v.fast_sin() };
        return Ok(map(&x, f));
    }
    Ok(crate::cpu::kernels::map_fixed(
        &x,
        |v: f32| crate::cpu::fastmath::sin_cos_f32(v, cosine),
        |xs: &[f32], out: &mut [f32]| {
            if !crate::cpu::kernels::all_of(xs, crate::cpu::fastmath::in_sin_cos_range) {
                crate::cpu::fastmath::fix_large_sin_cos(xs, out, cosine);
            }
        },
    ))
}

/// A constant bool tensor like `x` from a per-element predicate.
pub(crate) fn bool_where(x: &Tensor, pred: impl Fn(f64) -> bool + Sync) -> Result<Tensor> {
    Ok(with_num!(x.dtype(), T => map(x, |v: T| pred(v.to_f64()))))
}

/// `g` where `pred(x)` holds and 0 elsewhere, as a select (PyTorch's `where(mask, g, 0)`): a
/// NaN or inf in `g` stays out of the zeros, which multiplying by a 0/1 mask would not do.
pub(crate) fn keep_where(
    g: &Tensor,
    x: &Tensor,
    pred: impl Fn(f64) -> bool + Sync,
) -> Result<Tensor> {
    let mask = bool_where(x, pred)?;
    Tensor::where_(&mask, g, &Tensor::scalar_of(0.0, g.dtype()))
}

/// A constant tensor like `x` from a per-element predicate (1 where true, 0 elsewhere).
pub(crate) fn mask_where(x: &Tensor, pred: impl Fn(f64) -> bool + Sync) -> Result<Tensor> {
    Ok(
        with_float!(x.dtype(), T => map(x, |v: T| if pred(v.to_f64()) { 1.0 as T } else { 0.0 as T })),
    )
}

impl Tensor {
    /// `clamp` with bounds that are numbers or tensors (broadcast): numbers go to
    /// [`Tensor::clamp`]; tensor bounds are `maximum` then `minimum` (half the gradient to each
    /// side at a tie, as PyTorch's `ClampBackward0`).
    pub fn clamp_bounds(
        &self,
        min: Option<crate::ops::Operand<'_>>,
        max: Option<crate::ops::Operand<'_>>,
    ) -> Result<Tensor> {
        use crate::ops::Operand::{Scalar as Number, Tensor as Bound};
        // a float bound makes an integer tensor's result float, as PyTorch's type promotion
        let promoted = [&min, &max].into_iter().fold(self.dtype(), |d, b| match b {
            Some(Number(s)) => s.result_type_with(d),
            _ => d,
        });
        if promoted != self.dtype() {
            return self.to_dtype(promoted)?.clamp_bounds(min, max);
        }
        let number = |b: Option<crate::ops::Operand<'_>>| match b {
            Some(Number(s)) => Some(s.to_f64()),
            _ => None,
        };
        if !matches!(min, Some(Bound(_))) && !matches!(max, Some(Bound(_))) {
            return self.clamp(number(min), number(max));
        }
        let bound = |b: crate::ops::Operand<'_>| match b {
            Bound(t) => t.clone(),
            Number(s) => Tensor::scalar_of(s.to_f64(), self.dtype()),
        };
        let low = match min {
            Some(m) => self.maximum(&bound(m))?,
            None => self.clone(),
        };
        match max {
            Some(m) => low.minimum(&bound(m)),
            None => Ok(low),
        }
    }

    /// `x` limited to `[min, max]` (either bound optional); the gradient passes where
    /// `min < x < max` (PyTorch 2's convention: 0 at the bounds), selected, so a NaN gradient
    /// of a clamped element does not leak.
    pub fn clamp(&self, min: Option<f64>, max: Option<f64>) -> Result<Tensor> {
        self.clamp_named(min, max, "ClampBackward1")
    }

    /// `max(x, min)` (PyTorch's `clamp_min`, recorded as `ClampMinBackward0`).
    pub fn clamp_min(&self, min: f64) -> Result<Tensor> {
        self.clamp_named(Some(min), None, "ClampMinBackward0")
    }

    /// `min(x, max)` (PyTorch's `clamp_max`, recorded as `ClampMaxBackward0`).
    pub fn clamp_max(&self, max: f64) -> Result<Tensor> {
        self.clamp_named(None, Some(max), "ClampMaxBackward0")
    }

    fn clamp_named(
        &self,
        min: Option<f64>,
        max: Option<f64>,
        node: &'static str,
    ) -> Result<Tensor> {
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
            // max(x, min) then min(., max), as PyTorch: `min > max` gives `max` everywhere
            let low = if f.is_nan() || f >= lo { v } else { T::from_f64(lo) };
            if low.to_f64() > hi { T::from_f64(hi) } else { low }
        }));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            node,
            &[self],
            &[Save::Tensor(self)],
            move |ctx| {
                // an absent bound tests nothing (so `clamp(-inf, max=m)` passes its gradient)
                let inside = move |v: f64| min.is_none_or(|_| v > lo) && max.is_none_or(|_| v < hi);
                let g = keep_where(ctx.grad(0), ctx.saved(0), inside)?;
                Ok(vec![Some(g)])
            },
        ))
    }
}

impl Tensor {
    /// A row-major copy with its own storage (`clone(memory_format=torch.contiguous_format)`);
    /// the gradient passes through unchanged.
    pub fn clone_tensor(&self) -> Result<Tensor> {
        self.clone_laid_out(false)
    }

    /// A copy with its own storage laid out as this tensor (PyTorch's default `clone()`,
    /// `torch.preserve_format`: the same strides when dense, else dense in the same order);
    /// the gradient passes through unchanged.
    pub fn clone_preserving(&self) -> Result<Tensor> {
        self.clone_laid_out(true)
    }

    fn clone_laid_out(&self, preserve: bool) -> Result<Tensor> {
        // a copy of a large expanded view may be more than the system gives: an error, not
        // an abort
        if self.numel() >= crate::core::storage::CHECKED_ELEMENTS {
            crate::core::storage::check_allocation(self.shape(), self.dtype())?;
        }
        let call = || {
            let mut call = Call::new("clone.default", vec![self.into()]);
            if !preserve {
                call.kwargs
                    .push(("memory_format", Arg::Str("contiguous_format")));
            }
            call
        };
        let out = match intercept1(&[self], call) {
            Some(dispatched) => dispatched?,
            None if preserve && !self.is_contiguous() => {
                crate::with_any!(self.dtype(), T => map(self, |v: T| v))
            }
            None => self.deep_copy(),
        };
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
        let call = || Call {
            op: "_to_copy.default",
            args: vec![self.into()],
            kwargs: vec![("dtype", Arg::DType(dtype))],
        };
        let out = match intercept1(&[self], call) {
            Some(dispatched) => dispatched?,
            None => cast(self, dtype),
        };
        if !is_recording(&[self]) || !dtype.is_floating_point() {
            return Ok(out);
        }
        let from = self.dtype();
        Ok(record(out, "ToCopyBackward0", &[self], &[], move |ctx| {
            Ok(vec![Some(ctx.grad(0).to_dtype(from)?)])
        }))
    }
}

impl Tensor {
    /// NaN replaced by `nan`, `+inf` by `posinf` and `-inf` by `neginf` (by default the
    /// largest and lowest finite values of the dtype), as PyTorch's `nan_to_num`; integer and
    /// bool tensors are copied unchanged. The gradient passes where the input is finite
    /// (`NanToNumBackward0`).
    pub fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Tensor> {
        if !self.dtype().is_floating_point() {
            return Ok(self.deep_copy());
        }
        let out = with_float!(self.dtype(), T => {
            let (hi, lo) = (posinf.map(T::from_f64), neginf.map(T::from_f64));
            let (hi, lo) = (hi.unwrap_or(T::MAX), lo.unwrap_or(T::MIN));
            let fill = T::from_f64(nan);
            map(self, |v: T| {
                if v.is_nan() {
                    fill
                } else if v == T::INFINITY {
                    hi
                } else if v == T::NEG_INFINITY {
                    lo
                } else {
                    v
                }
            })
        });
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "NanToNumBackward0",
            &[self],
            &[Save::Tensor(self)],
            |ctx| {
                let (g, x) = (ctx.grad(0), ctx.saved(0));
                let finite = cast(&x.isfinite()?, g.dtype());
                Ok(vec![Some(g.mul(&finite)?)])
            },
        ))
    }

    /// In-place [`Tensor::nan_to_num`].
    pub fn nan_to_num_(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<()> {
        self.unary_("nan_to_num_", |x| x.nan_to_num(nan, posinf, neginf))
    }
}

/// The error function of `x`'s elements (integers computed in float32), the forward of the
/// unary table's `erf` row: float32 through [`crate::cpu::fastmath::erf_f32`] compiled for
/// wide vectors (a closure of it handed to `map` stays a call per element).
pub(crate) fn erf_forward(x: &Tensor) -> Result<Tensor> {
    let x = crate::cpu::kernels::cast_ref(x, float_dtype(x.dtype()));
    Ok(
        match with_float!(x.dtype(), T => crate::cpu::kernels::in_blocks(&x, &x, crate::cpu::activation::erf_lanes::<T>))
        {
            Some(out) => out,
            None => with_float!(x.dtype(), T => map(&x, |v: T| v.fast_erf())),
        },
    )
}
