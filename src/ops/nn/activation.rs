//! Activation functions (PyTorch's `nn.functional` non-linear activations): GELU, SiLU,
//! softplus, leaky ReLU, ELU, softmax and log-softmax — their checks, nodes and gradients;
//! the lane kernels they run are in `crate::cpu::activation`.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_dim;
use crate::core::tensor::Tensor;
use crate::cpu::activation::{
    gelu_backward_exact, gelu_grad_lanes, gelu_lanes, gelu_slope, gelu_slope_lanes, in_dead_zone,
    log_softmax_grad_lanes, log_softmax_lanes, mish_grad_lanes, mish_lanes, silu_grad_lanes,
    silu_lanes, softmax_grad_lanes, softmax_lanes, softplus_grad_block, softplus_lanes,
};
use crate::cpu::fastmath::FastMath;
use crate::cpu::gelu::{gelu_grad_slice, gelu_slice, gelu_slope_slice};
use crate::cpu::kernels::{cast, in_blocks, map, zip, zip_lane_blocks};
use crate::ops::float_dtype;
use crate::ops::pointwise::unary::{bool_where, keep_where, mask_where};
use crate::with_float;
use std::f64::consts::PI;

/// `x` in the floating dtype an activation computes in.
fn floats(x: &Tensor) -> Tensor {
    cast(x, float_dtype(x.dtype()))
}

/// Records a one-input activation whose formula reads its saved input `x`.
fn record1(
    x: &Tensor,
    out: Tensor,
    name: &'static str,
    backward: impl Fn(&Tensor, &Tensor) -> Result<Tensor> + Send + Sync + 'static,
) -> Result<Tensor> {
    if !is_recording(&[x]) {
        return Ok(out);
    }
    Ok(record(out, name, &[x], &[Save::Tensor(x)], move |ctx| {
        Ok(vec![Some(backward(ctx.grad(0), ctx.saved(0))?)])
    }))
}

/// `Φ(x) + x·φ(x)`, GELU's derivative, with its own derivative `φ(x)·(2 - x²)` in closed form
/// (as PyTorch's `gelu_double_backward`): the product rule through `x·φ(x)` would meet `0·∞`
/// at `x = 0` under an infinite gradient and give NaN where PyTorch gives ±∞.
fn gelu_derivative(x: &Tensor) -> Result<Tensor> {
    let blocks = match x.dtype() {
        DType::Float32 => f32_blocks(x, x, |x, _, out| gelu_slope_slice(x, out)),
        _ => with_float!(x.dtype(), T => in_blocks(x, x, gelu_slope_lanes::<T>)),
    };
    let out = match blocks {
        Some(out) => out,
        None => with_float!(x.dtype(), T => map(x, gelu_slope::<T>)),
    };
    record1(x, out, "GeluBackwardBackward0", |g, x| {
        let pdf = x
            .mul(x)?
            .mul_scalar(-0.5)?
            .exp()?
            .mul_scalar(1.0 / (2.0 * PI).sqrt())?;
        g.mul(&pdf.mul(&x.mul(x)?.rsub_scalar(2.0)?)?)
    })
}

impl Tensor {
    /// GELU, `x·Φ(x)` (`approximate = "none"`) or its tanh approximation (`"tanh"`).
    pub fn gelu(&self, approximate: &str) -> Result<Tensor> {
        let x = floats(self);
        match approximate {
            "none" => {
                let blocks = match x.dtype() {
                    DType::Float32 => f32_blocks(&x, &x, |x, _, out| gelu_slice(x, out)),
                    _ => with_float!(x.dtype(), T => in_blocks(&x, &x, gelu_lanes::<T>)),
                };
                let out = match blocks {
                    Some(out) => out,
                    None => with_float!(x.dtype(), T => map(&x, |v: T| v * v.fast_normal_cdf())),
                };
                // d/dx x·Φ(x) = Φ(x) + x·φ(x), itself an op with a closed-form derivative;
                // one pass over the gradient and input unless that op is being recorded
                record1(self, out, "GeluBackward0", |g, x| {
                    if is_recording(&[g, x]) {
                        return g.mul(&gelu_derivative(x)?);
                    }
                    let g = &gradient_for_blocks(g, x)?;
                    let blocks = match x.dtype() {
                        DType::Float32 => f32_blocks(g, x, gelu_grad_slice),
                        _ => with_float!(x.dtype(), T => in_blocks(g, x, gelu_grad_lanes::<T>)),
                    };
                    if let Some(dx) = blocks {
                        return Ok(dx);
                    }
                    with_float!(x.dtype(), T => zip(g, x, gelu_backward_exact::<T>))
                })
            }
            "tanh" => {
                // 0.5·x·(1 + tanh(u)), u = √(2/π)(x + 0.044715x³)
                const C: f64 = 0.044715;
                let k = (2.0 / PI).sqrt();
                let (kt, ct) = (k, C);
                let out = with_float!(x.dtype(), T => map(&x, move |v: T| {
                    let (k, c) = (kt as T, ct as T);
                    0.5 * v * (1.0 + (k * (v + c * v * v * v)).fast_tanh())
                }));
                // d/dx = 0.5(1 + t) + 0.5·x·(1 - t²)·u', t = tanh(u), u' = √(2/π)(1 + 3·0.044715x²)
                record1(self, out, "GeluBackward0", move |g, x| {
                    if !is_recording(&[g, x]) {
                        // one pass, in the order of PyTorch's kernel
                        return with_float!(x.dtype(), T => zip(&cast(g, x.dtype()), x, move |g: T, v: T| {
                            let (k, c) = (kt as T, ct as T);
                            let t = (k * (v + c * v * v * v)).fast_tanh();
                            let left = 0.5 * (1.0 + t);
                            let right = 0.5 * v * ((1.0 - t * t) * (k * (1.0 + 3.0 * c * v * v)));
                            g * (left + right)
                        }));
                    }
                    let u = x.add(&x.pow_scalar(3.0)?.mul_scalar(C)?)?.mul_scalar(k)?;
                    let t = u.tanh()?;
                    let left = t.add_scalar(1.0)?.mul_scalar(0.5)?;
                    let du = x
                        .mul(x)?
                        .mul_scalar(3.0 * C)?
                        .add_scalar(1.0)?
                        .mul_scalar(k)?;
                    let right = x
                        .mul_scalar(0.5)?
                        .mul(&t.mul(&t)?.rsub_scalar(1.0)?)?
                        .mul(&du)?;
                    g.mul(&left.add(&right)?)
                })
            }
            other => Err(Error::runtime(format!(
                "approximate argument must be either none or tanh (got {other})"
            ))),
        }
    }

    /// SiLU (swish), `x·σ(x)`; derivative `σ(x)·(1 + x·(1 - σ(x)))`.
    pub fn silu(&self) -> Result<Tensor> {
        let x = floats(self);
        let out = match with_float!(x.dtype(), T => in_blocks(&x, &x, silu_lanes::<T>)) {
            Some(out) => out,
            None => with_float!(x.dtype(), T => map(&x, |v: T| v / (1.0 + (-v).fast_exp()))),
        };
        record1(self, out, "SiluBackward0", |g, x| {
            if !is_recording(&[g, x]) {
                // one pass, PyTorch's `g·σ(x)·(1 + x·(1 − σ(x)))`
                let g = &gradient_for_blocks(g, x)?;
                if let Some(dx) = with_float!(x.dtype(), T => in_blocks(g, x, silu_grad_lanes::<T>))
                {
                    return Ok(dx);
                }
            }
            let sig = x.detach().sigmoid()?;
            let sig = if x.requires_grad() { x.sigmoid()? } else { sig };
            let one_minus = sig.rsub_scalar(1.0)?;
            g.mul(&sig.mul(&x.mul(&one_minus)?.add_scalar(1.0)?)?)
        })
    }

    /// Softplus, `log(1 + e^(βx))/β`, linear above `threshold`; derivative `σ(βx)`.
    pub fn softplus(&self, beta: f64, threshold: f64) -> Result<Tensor> {
        let x = floats(self);
        let out = match with_float!(x.dtype(), T => in_blocks(&x, &x, |a: &[T], _: &[T], out: &mut [T], n: usize| {
            softplus_lanes::<T>(a, &[T::from_f64(beta), T::from_f64(threshold)], out, n)
        })) {
            Some(out) => out,
            None => with_float!(x.dtype(), T => map(&x, move |v: T| {
                let z = v.to_f64() * beta;
                if z > threshold { v } else { (z.exp().ln_1p() / beta) as T }
            })),
        };
        record1(self, out, "SoftplusBackward0", move |g, x| {
            softplus_backward(g, x, beta, threshold)
        })
    }

    /// Leaky ReLU: `x` for `x > 0`, else `slope·x`.
    pub fn leaky_relu(&self, negative_slope: f64) -> Result<Tensor> {
        let x = floats(self);
        let out = with_float!(x.dtype(), T => map(&x, move |v: T| if v > 0.0 { v } else { v * negative_slope as T }));
        record1(self, out, "LeakyReluBackward0", move |g, x| {
            leaky_relu_backward(g, x, negative_slope)
        })
    }

    /// Threshold: `x` where `x > threshold`, else `value` (NaN stays NaN); the gradient
    /// passes where `x > threshold` (`ThresholdBackward0`, saving the input).
    pub fn threshold(&self, threshold: f64, value: f64) -> Result<Tensor> {
        record_threshold(self, threshold, value, "ThresholdBackward0")
    }

    /// [`Tensor::threshold`] in place (`ThresholdBackward1`, saving the input as it was).
    pub fn threshold_(&self, threshold: f64, value: f64) -> Result<()> {
        self.apply_inplace("threshold_", &[], |x| {
            record_threshold(x, threshold, value, "ThresholdBackward1")
        })
    }

    /// ELU: `x` for `x > 0`, else `α(e^x - 1)`; derivative 1, or `α e^x` below 0.
    pub fn elu(&self, alpha: f64) -> Result<Tensor> {
        let x = floats(self);
        let out = with_float!(x.dtype(), T => map(&x, move |v: T| if v > 0.0 { v } else { (alpha as T) * v.exp_m1() }));
        record1(self, out, "EluBackward0", move |g, x| {
            elu_backward(g, x, alpha)
        })
    }
}

/// SELU's constants (PyTorch's, from the paper).
const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

impl Tensor {
    /// SELU: `scale·x` for `x > 0`, else `scale·α(e^x - 1)` (PyTorch's constants;
    /// recorded as `EluBackward0`, as PyTorch does).
    pub fn selu(&self) -> Result<Tensor> {
        self.scaled_elu(SELU_ALPHA, SELU_SCALE, 1.0, "EluBackward0")
    }

    /// CELU: `x` for `x > 0`, else `α(e^(x/α) - 1)`.
    pub fn celu(&self, alpha: f64) -> Result<Tensor> {
        if alpha == 0.0 {
            return Err(Error::runtime("ZeroDivisionError"));
        }
        self.scaled_elu(alpha, 1.0, 1.0 / alpha, "CeluBackward0")
    }

    /// PyTorch's general ELU: `scale·x` above 0, else `α·scale·(e^(input_scale·x) - 1)`;
    /// derivative `scale`, or `α·scale·input_scale·e^(input_scale·x)` at or below 0.
    fn scaled_elu(
        &self,
        alpha: f64,
        scale: f64,
        input_scale: f64,
        node: &'static str,
    ) -> Result<Tensor> {
        let x = floats(self);
        let out = with_float!(x.dtype(), T => map(&x, move |v: T| {
            let (neg, pos, inp) = ((alpha as T) * (scale as T), scale as T, input_scale as T);
            if v <= 0.0 { (v * inp).exp_m1() * neg } else { v * pos }
        }));
        record1(self, out, node, move |g, x| {
            let below = mask_where(x, |v| v <= 0.0)?;
            let curve = x
                .mul_scalar(input_scale)?
                .exp()?
                .mul_scalar(alpha * scale * input_scale)?;
            let slope = below
                .mul(&curve)?
                .add(&below.rsub_scalar(1.0)?.mul_scalar(scale)?)?;
            g.mul(&slope)
        })
    }

    /// Hardtanh: `x` clamped to `[min_val, max_val]`; derivative 1 strictly inside, else 0
    /// (`relu6` is `hardtanh(0, 6)`, as in PyTorch).
    pub fn hardtanh(&self, min_val: f64, max_val: f64) -> Result<Tensor> {
        if min_val > max_val {
            return Err(Error::value(format!(
                "min_val cannot be greater than max_val, got min_val={min_val} and max_val={max_val}"
            )));
        }
        let x = floats(self);
        let out = with_float!(x.dtype(), T => map(&x, move |v: T| {
            let (lo, hi) = (min_val as T, max_val as T);
            if v < lo { lo } else if v > hi { hi } else { v }
        }));
        record1(self, out, "HardtanhBackward0", move |g, x| {
            g.mul(&mask_where(x, |v| !(v <= min_val || v >= max_val))?)
        })
    }

    /// Hardsigmoid: `relu6(x + 3) / 6`; derivative 1/6 strictly inside `(-3, 3)`.
    pub fn hardsigmoid(&self) -> Result<Tensor> {
        let x = floats(self);
        let out = with_float!(x.dtype(), T => map(&x, |v: T| {
            (v + 3.0).clamp(0.0, 6.0) / 6.0
        }));
        // PyTorch's kernel multiplies by the float32 constant 1/6, in every dtype
        let one_sixth = f64::from(1.0f32 / 6.0f32);
        record1(self, out, "HardsigmoidBackward0", move |g, x| {
            g.mul(&mask_where(x, |v| v > -3.0 && v < 3.0)?)?
                .mul_scalar(one_sixth)
        })
    }

    /// Hardswish: `x·relu6(x + 3) / 6`; derivative 0 up to -3, `x/3 + 1/2` strictly between,
    /// 1 from 3 on (PyTorch's kernel).
    pub fn hardswish(&self) -> Result<Tensor> {
        let x = floats(self);
        let out = with_float!(x.dtype(), T => map(&x, |v: T| {
            v * (v + 3.0).clamp(0.0, 6.0) / 6.0
        }));
        record1(self, out, "HardswishBackward0", |g, x| {
            let middle = mask_where(x, |v| v > -3.0 && v < 3.0)?;
            let above = mask_where(x, |v| v >= 3.0)?;
            let slope = middle
                .mul(&x.div_scalar(3.0)?.add_scalar(0.5)?)?
                .add(&above)?;
            g.mul(&slope)
        })
    }

    /// Mish: `x·tanh(softplus(x))`; derivative `tanh(sp) + x·σ(x)·(1 - tanh²(sp))`.
    pub fn mish(&self) -> Result<Tensor> {
        let x = floats(self);
        let out = match with_float!(x.dtype(), T => in_blocks(&x, &x, mish_lanes::<T>)) {
            Some(out) => out,
            None => with_float!(x.dtype(), T => map(&x, |v: T| v * v.exp().ln_1p().tanh())),
        };
        record1(self, out, "MishBackward0", |g, x| {
            if !is_recording(&[g, x]) {
                // one pass, PyTorch's `g·(t + x·σ(x)·(1 − t²))`, `t = tanh(softplus(x))`
                let g = &gradient_for_blocks(g, x)?;
                if let Some(dx) = with_float!(x.dtype(), T => in_blocks(g, x, mish_grad_lanes::<T>))
                {
                    return Ok(dx);
                }
            }
            let t = x.exp()?.log1p()?.tanh()?;
            let slope = x
                .mul(&x.sigmoid()?)?
                .mul(&t.mul(&t)?.rsub_scalar(1.0)?)?
                .add(&t)?;
            g.mul(&slope)
        })
    }

    /// Log-sigmoid: `log σ(x) = min(x, 0) - log1p(e^-|x|)`; derivative `σ(-x)`.
    pub fn logsigmoid(&self) -> Result<Tensor> {
        let x = floats(self);
        let out =
            with_float!(x.dtype(), T => map(&x, |v: T| v.min(0.0) - (-v.abs()).exp().ln_1p()));
        record1(self, out, "LogSigmoidBackward0", |g, x| {
            g.mul(&x.neg()?.sigmoid()?)
        })
    }
}

impl Tensor {
    /// Hard shrinkage: `x` outside `[-λ, λ]`, 0 inside; the gradient passes outside
    /// (`HardshrinkBackward0`).
    pub fn hardshrink(&self, lambd: f64) -> Result<Tensor> {
        let x = floats(self);
        let out = with_float!(x.dtype(), T => map(&x, move |v: T| {
            if in_dead_zone(v.to_f64(), lambd) { 0.0 } else { v }
        }));
        record1(self, out, "HardshrinkBackward0", move |g, x| {
            keep_where(g, x, move |v| !in_dead_zone(v, lambd))
        })
    }

    /// Soft shrinkage: `x - λ` above `λ`, `x + λ` below `-λ`, 0 between (NaN stays NaN);
    /// the gradient passes outside `[-λ, λ]` (`SoftshrinkBackward0`). `λ` must be at least 0.
    pub fn softshrink(&self, lambd: f64) -> Result<Tensor> {
        let x = floats(self);
        let (name, max) = match x.dtype() {
            crate::core::dtype::DType::Float64 => ("Double", "1.79769e+308"),
            _ => ("Float", "3.40282e+38"),
        };
        if lambd.is_nan() || lambd < 0.0 {
            return Err(Error::runtime(format!(
                "lambda must be in range [0, {max}] for input dtype {name}, but found {lambd}"
            )));
        }
        let out = with_float!(x.dtype(), T => map(&x, move |v: T| {
            let l = lambd as T;
            if v > l { v - l } else if v < -l { v + l } else if v.is_nan() { v } else { 0.0 }
        }));
        record1(self, out, "SoftshrinkBackward0", move |g, x| {
            keep_where(g, x, move |v| !in_dead_zone(v, lambd))
        })
    }

    /// Gated linear unit: the input's two halves along `dim`, `a·σ(b)` (`GluBackward0`).
    pub fn glu(&self, dim: isize) -> Result<Tensor> {
        if self.dim() == 0 {
            return Err(Error::runtime(
                "glu does not support scalars because halving size must be even",
            ));
        }
        let d = normalize_dim(dim, self.dim())?;
        let size = self.shape()[d];
        if !size.is_multiple_of(2) {
            return Err(Error::runtime(format!(
                "Halving dimension must be even, but dimension {d} is size {size}"
            )));
        }
        let halves = move |x: &Tensor| -> Result<(Tensor, Tensor)> {
            let half = (size / 2) as isize;
            Ok((
                x.narrow(d as isize, 0, half)?,
                x.narrow(d as isize, half, half)?,
            ))
        };
        let out = {
            let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
            let (a, b) = halves(&floats(self))?;
            a.mul(&b.sigmoid()?)?
        };
        // d/da = σ(b), d/db = a·σ(b)·(1 - σ(b)); the two halves of the gradient side by side
        record1(self, out, "GluBackward0", move |g, x| {
            let (a, b) = halves(x)?;
            let gate = b.sigmoid()?;
            let to_a = g.mul(&gate)?;
            let to_b = g.mul(&a)?.mul(&gate)?.mul(&gate.rsub_scalar(1.0)?)?;
            Tensor::cat(&[to_a, to_b], d as isize)
        })
    }

    /// Parametric ReLU: `x` above 0, `w·x` at or below, with one slope `w` for every element
    /// or one per channel (dim 1) (`PreluKernelBackward0`).
    pub fn prelu(&self, weight: &Tensor) -> Result<Tensor> {
        if weight.dim() > 1 {
            return Err(Error::runtime(format!(
                "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {}",
                weight.dim()
            )));
        }
        let slopes = weight.numel();
        if self.dim() == 0 && slopes != 1 {
            return Err(Error::runtime("Not allow zero-dim input tensor."));
        }
        let channels = if self.dim() >= 2 { self.shape()[1] } else { 1 };
        if slopes != 1 && slopes != channels {
            return Err(Error::runtime(format!(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers \
                 = {slopes} and channel size = {channels}."
            )));
        }
        // the slopes shaped to broadcast against the input: one value, or (1, C, 1, ...)
        let rank = self.dim();
        let broadcastable = move |w: &Tensor| -> Result<Tensor> {
            if w.numel() == 1 {
                return w.reshape(&[]);
            }
            let mut shape = vec![1isize; rank];
            shape[1] = -1;
            w.reshape(&shape)
        };
        let out = {
            let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
            let x = floats(self);
            let positive = bool_where(&x, |v| v > 0.0)?;
            Tensor::where_(&positive, &x, &x.mul(&broadcastable(weight)?)?)?
        };
        if !is_recording(&[self, weight]) {
            return Ok(out);
        }
        let weight_shape = weight.shape().to_vec();
        Ok(record(
            out,
            "PreluKernelBackward0",
            &[self, weight],
            &[Save::Tensor(self), Save::Tensor(weight)],
            move |ctx| {
                let (g, x, w) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                let positive = bool_where(x, |v| v > 0.0)?;
                let zero = Tensor::scalar_of(0.0, g.dtype());
                let to_x = match ctx.needs_input_grad(0) {
                    true => Some(Tensor::where_(&positive, g, &g.mul(&broadcastable(w)?)?)?),
                    false => None,
                };
                let to_w = match ctx.needs_input_grad(1) {
                    true => {
                        let per_element = Tensor::where_(&positive, &zero, &g.mul(x)?)?;
                        Some(per_element.sum_to(broadcastable(w)?.shape())?.reshape(
                            &weight_shape.iter().map(|&n| n as isize).collect::<Vec<_>>(),
                        )?)
                    }
                    false => None,
                };
                Ok(vec![to_x, to_w])
            },
        ))
    }
}

/// `x` where `x > threshold`, else `value`, in `x`'s dtype (a NaN is not at or below the
/// threshold, so it stays), recorded as node `name` saving `x`.
fn record_threshold(x: &Tensor, threshold: f64, value: f64, name: &'static str) -> Result<Tensor> {
    let out = crate::with_any!(x.dtype(), T => map(x, move |v: T| {
        if v.to_f64() <= threshold { T::from_f64(value) } else { v }
    }));
    if !is_recording(&[x]) {
        return Ok(out);
    }
    Ok(record(out, name, &[x], &[Save::Tensor(x)], move |ctx| {
        let (g, x) = (ctx.grad(0), ctx.saved(0));
        Ok(vec![Some(threshold_backward_at(g, x, threshold)?)])
    }))
}

/// PyTorch's `threshold_backward(grad, self, threshold)`: 0 where `x <= threshold`, else `g`
/// (`ThresholdBackwardBackward0`; its own gradient passes the same way, none reaches `x`).
fn threshold_backward_at(g: &Tensor, x: &Tensor, threshold: f64) -> Result<Tensor> {
    let out = {
        let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
        keep_where(g, x, |v| v > threshold || v.is_nan())?
    };
    if !is_recording(&[g, x]) {
        return Ok(out);
    }
    Ok(record(
        out,
        "ThresholdBackwardBackward0",
        &[g, x],
        &[Save::Tensor(x)],
        move |ctx| {
            let (gg, x) = (ctx.grad(0), ctx.saved(0));
            let to_g = match ctx.needs_input_grad(0) {
                true => Some(threshold_backward_at(gg, x, threshold)?),
                false => None,
            };
            let to_x = ctx.needs_input_grad(1).then(|| x.zeros_like());
            Ok(vec![to_g, to_x])
        },
    ))
}

impl Tensor {
    /// Randomized leaky ReLU (`RreluWithNoiseBackward0`). Training: each element at or below 0
    /// is scaled by its own slope drawn uniformly from `[lower, upper)` (PyTorch's draws: one
    /// float64 uniform per such element, in order, from `gen` or the default generator), and
    /// the gradient is scaled by the same slopes. Evaluation: the fixed slope
    /// `(lower + upper) / 2`, as a leaky ReLU.
    pub fn rrelu(
        &self,
        lower: f64,
        upper: f64,
        training: bool,
        gen: Option<&crate::ops::random::SharedGenerator>,
    ) -> Result<Tensor> {
        let x = floats(self);
        if !training {
            let slope = (lower + upper) / 2.0;
            let out = {
                let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
                x.leaky_relu(slope)?
            };
            return record1(self, out, "RreluWithNoiseBackward0", move |g, x| {
                leaky_relu_backward(g, x, slope)
            });
        }
        let dense = x.contiguous()?;
        let (out, noise) = with_float!(dense.dtype(), T => {
            let values: Vec<T> = dense.to_vec::<T>()?;
            let mut noise: Vec<T> = vec![1.0; values.len()];
            // the bounds in the element type, the draw in float64 (PyTorch's opmath bounds)
            let (lo, hi) = (Element::to_f64(lower as T), Element::to_f64(upper as T));
            let out: Vec<T> = crate::ops::random::with_generator(gen, |g| {
                values.iter().zip(noise.iter_mut()).map(|(&v, n)| {
                    if v <= 0.0 {
                        let r = (g.uniform() * (hi - lo) + lo) as T;
                        *n = r;
                        v * r
                    } else {
                        v
                    }
                }).collect()
            });
            (Tensor::from_vec(out, self.shape())?, Tensor::from_vec(noise, self.shape())?)
        });
        record1(self, out, "RreluWithNoiseBackward0", move |g, _| {
            g.mul(&noise)
        })
    }
}

/// leaky_relu's backward as an op of its own (PyTorch's `leaky_relu_backward`): `g` where
/// `x > 0`, else `slope · g`. Recorded (`LeakyReluBackwardBackward0`) when a graph is built, so
/// a gradient taken with `create_graph` requires grad as in PyTorch (its derivative in `x` is 0).
fn leaky_relu_backward(g: &Tensor, x: &Tensor, slope: f64) -> Result<Tensor> {
    let out = {
        let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
        let positive = bool_where(x, |v| v > 0.0)?;
        Tensor::where_(&positive, g, &g.mul_scalar(slope)?)?
    };
    if !is_recording(&[g, x]) {
        return Ok(out);
    }
    Ok(record(
        out,
        "LeakyReluBackwardBackward0",
        &[g, x],
        &[Save::Tensor(x)],
        move |ctx| {
            let (gg, x) = (ctx.grad(0), ctx.saved(0));
            let to_g = match ctx.needs_input_grad(0) {
                true => Some(leaky_relu_backward(gg, x, slope)?),
                false => None,
            };
            let to_x = ctx.needs_input_grad(1).then(|| x.zeros_like());
            Ok(vec![to_g, to_x])
        },
    ))
}

/// softplus's backward as an op of its own (PyTorch's `softplus_backward`): `g` where
/// `βx > threshold`, else `g · σ(βx)`. Recorded as `SoftplusBackwardBackward0`, with PyTorch's
/// derivative in `x`, `σ'(βx) · β · g · gg` only where `βx < threshold` (so 0 at the threshold
/// itself, where the first derivative still uses `σ`).
fn softplus_backward(g: &Tensor, x: &Tensor, beta: f64, threshold: f64) -> Result<Tensor> {
    if !is_recording(&[g, x]) {
        // one pass, PyTorch's `z = e^(βx); βx > threshold ? g : g·z/(z + 1)`
        let g = &gradient_for_blocks(g, x)?;
        let fused = with_float!(x.dtype(), T => in_blocks(g, x, |g: &[T], x: &[T], out: &mut [T], _: usize| {
            softplus_grad_block::<T>(g, x, out, T::from_f64(beta), T::from_f64(threshold))
        }));
        if let Some(out) = fused {
            return Ok(out);
        }
    }
    let out = {
        let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
        let linear = bool_where(x, |v| v * beta > threshold)?;
        Tensor::where_(&linear, g, &g.mul(&x.mul_scalar(beta)?.sigmoid()?)?)?
    };
    if !is_recording(&[g, x]) {
        return Ok(out);
    }
    Ok(record(
        out,
        "SoftplusBackwardBackward0",
        &[g, x],
        &[Save::Tensor(g), Save::Tensor(x)],
        move |ctx| {
            let (gg, g, x) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
            let to_g = match ctx.needs_input_grad(0) {
                true => Some(softplus_backward(gg, x, beta, threshold)?),
                false => None,
            };
            let to_x = match ctx.needs_input_grad(1) {
                true => {
                    let z = x.mul_scalar(beta)?;
                    let below = mask_where(&z, |v| v < threshold)?;
                    let slope = gg.mul(g)?.sigmoid_backward(&z.sigmoid()?)?;
                    Some(slope.mul(&below)?.mul_scalar(beta)?)
                }
                false => None,
            };
            Ok(vec![to_g, to_x])
        },
    ))
}

/// elu's backward as an op of its own (PyTorch's `elu_backward`): `α e^x · g` where `x <= 0`,
/// else `g` (NaN inputs pass `g`, as PyTorch). Recorded as `EluBackwardBackward0`; its
/// derivative in `x` is `elu_backward(gg · g, x) · (x < 0)`, so 0 at `x = 0` as in PyTorch.
fn elu_backward(g: &Tensor, x: &Tensor, alpha: f64) -> Result<Tensor> {
    let out = {
        let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
        let negative = bool_where(x, |v| v <= 0.0)?;
        Tensor::where_(&negative, &g.mul(&x.exp()?.mul_scalar(alpha)?)?, g)?
    };
    if !is_recording(&[g, x]) {
        return Ok(out);
    }
    Ok(record(
        out,
        "EluBackwardBackward0",
        &[g, x],
        &[Save::Tensor(g), Save::Tensor(x)],
        move |ctx| {
            let (gg, g, x) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
            let to_g = match ctx.needs_input_grad(0) {
                true => Some(elu_backward(gg, x, alpha)?),
                false => None,
            };
            let to_x = match ctx.needs_input_grad(1) {
                true => {
                    Some(elu_backward(&gg.mul(g)?, x, alpha)?.mul(&mask_where(x, |v| v < 0.0)?)?)
                }
                false => None,
            };
            Ok(vec![to_g, to_x])
        },
    ))
}

/// The incoming gradient `g` in `x`'s dtype, made contiguous when it is an expanded view of
/// `x`'s shape (as `.sum().backward()` gives) and `x` is contiguous: one copy, so that the
/// one-pass backward formulas run through [`in_blocks`] on wide vectors.
fn gradient_for_blocks(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let g = cast(g, x.dtype());
    if x.is_contiguous() && !g.is_contiguous() && g.shape() == x.shape() {
        return g.contiguous();
    }
    Ok(g)
}

/// `kernel` over float32 `a` and `b` in blocks, as [`in_blocks`] runs a lane kernel: the
/// float32 slice kernels of [`crate::cpu::gelu`] (AVX2+FMA code where the CPU has it).
/// `None` where `in_blocks` does not apply.
fn f32_blocks(
    a: &Tensor,
    b: &Tensor,
    kernel: impl Fn(&[f32], &[f32], &mut [f32]) + Sync,
) -> Option<Tensor> {
    in_blocks::<f32>(a, b, |a, b, out, _| kernel(a, b, out))
}

impl Tensor {
    /// `exp(x) / Σ exp(x)` along `dim`, stable for large inputs.
    pub fn softmax(&self, dim: isize) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        if !self.dtype().is_floating_point() {
            return Err(Error::not_implemented(format!(
                "\"softmax_lastdim_kernel_impl\" not implemented for '{}'",
                self.dtype().scalar_name()
            )));
        }
        let x = crate::cpu::kernels::cast(self, crate::ops::float_dtype(self.dtype()));
        let out = with_float!(x.dtype(), T => zip_lane_blocks::<T>(&x, &x, d, softmax_lanes::<T>));
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
                if !is_recording(&[g, y]) && g.dtype() == y.dtype() {
                    // one pass per lane: y (g - Σ g y)
                    let dx = with_float!(y.dtype(), T => zip_lane_blocks::<T>(g, y, d, softmax_grad_lanes::<T>));
                    return Ok(vec![Some(dx)]);
                }
                let dot = g.mul(y)?.sum_dims(&[d as isize], true)?;
                Ok(vec![Some(y.mul(&g.sub(&dot)?)?)])
            },
        ))
    }

    /// `x - log Σ exp(x)` along `dim`, stable for large inputs.
    pub fn log_softmax(&self, dim: isize) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        if !self.dtype().is_floating_point() {
            return Err(Error::not_implemented(format!(
                "\"log_softmax_lastdim_kernel_impl\" not implemented for '{}'",
                self.dtype().scalar_name()
            )));
        }
        let x = crate::cpu::kernels::cast(self, crate::ops::float_dtype(self.dtype()));
        let out =
            with_float!(x.dtype(), T => zip_lane_blocks::<T>(&x, &x, d, log_softmax_lanes::<T>));
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
                if !is_recording(&[g, y]) && g.dtype() == y.dtype() {
                    // one pass per lane: g - e^y Σ g
                    let dx = with_float!(y.dtype(), T => zip_lane_blocks::<T>(g, y, d, log_softmax_grad_lanes::<T>));
                    return Ok(vec![Some(dx)]);
                }
                let total = g.sum_dims(&[d as isize], true)?;
                Ok(vec![Some(g.sub(&y.exp()?.mul(&total)?)?)])
            },
        ))
    }
}
