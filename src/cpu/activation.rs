//! The activations' lane kernels: softmax and log-softmax per last-dim lane, and the
//! elementwise formulas too large for `map`/`zip` to inline (softplus, mish, SiLU, erf, GELU
//! and their gradients), each compiled for the widest vector instructions the CPU has. No
//! autograd here: the ops (`src/ops/nn/activation.rs`) run these over a tensor's blocks.

use crate::core::dtype::Float;
use crate::cpu::fastmath::FastMath;
use crate::cpu::kernels::{lane_max, lane_sum, wide_variants};

/// GELU's derivative at `v`, `Φ(v) + v·φ(v)`. A function item (always inlined) rather than a
/// closure, so that the kernel loops it is passed to inline it and vectorize: a closure this
/// large is left as a call per element.
#[inline(always)]
pub(crate) fn gelu_slope<T: FastMath + std::ops::Add<Output = T> + std::ops::Mul<Output = T>>(
    v: T,
) -> T {
    v.fast_normal_cdf() + v * v.fast_normal_pdf()
}

/// The gradient `g·(Φ(v) + v·φ(v))` of exact GELU (see [`gelu_slope`]).
#[inline(always)]
pub(crate) fn gelu_backward_exact<
    T: FastMath + std::ops::Add<Output = T> + std::ops::Mul<Output = T>,
>(
    g: T,
    v: T,
) -> T {
    g * gelu_slope(v)
}

/// Whether `v` lies in `[-λ, λ]`, where the shrinkages are 0 and pass no gradient (a NaN does
/// not, so it passes through as in PyTorch's kernels).
pub(crate) fn in_dead_zone(v: f64, lambd: f64) -> bool {
    v >= -lambd && v <= lambd
}

// The lane kernels of softmax and log_softmax: plain functions inlined into `zip_lanes`'s
// vectorized variants (a closure would be compiled apart, for the baseline instruction set).
// `lane_max`/`lane_sum` keep sixteen partial results, so the loops vectorize. The lane maximum
// is used as it is: an infinite one gives NaN, as in PyTorch. (The second lane argument is the
// same lane in the forward kernels: lanes come in pairs.)

/// `out = exp(x - max) / Σ exp(x - max)` of one lane.
#[inline(always)]
fn softmax_lane<T: Float + FastMath>(lane: &[T], _: &[T], out: &mut [T]) {
    let m = lane_max(lane);
    for (o, &v) in out.iter_mut().zip(lane) {
        *o = (v - m).fast_exp();
    }
    // times the reciprocal of the sum, as PyTorch's vectorized kernel (a multiply per
    // element instead of a division)
    let scale = T::one() / lane_sum(out);
    out.iter_mut().for_each(|o| *o = *o * scale);
}

/// Softmax's input gradient `y (g - Σ g y)` of one lane.
#[inline(always)]
fn softmax_grad_lane<T: Float + FastMath>(g: &[T], y: &[T], out: &mut [T]) {
    for ((o, &g), &y) in out.iter_mut().zip(g).zip(y) {
        *o = g * y;
    }
    let dot = lane_sum(out);
    for ((o, &g), &y) in out.iter_mut().zip(g).zip(y) {
        *o = y * (g - dot);
    }
}

/// `out = x - max - log Σ exp(x - max)` of one lane.
#[inline(always)]
fn log_softmax_lane<T: Float + FastMath>(lane: &[T], _: &[T], out: &mut [T]) {
    let m = lane_max(lane);
    for (o, &v) in out.iter_mut().zip(lane) {
        *o = (v - m).fast_exp();
    }
    let lse = lane_sum(out).ln() + m;
    for (o, &v) in out.iter_mut().zip(lane) {
        *o = v - lse;
    }
}

/// Log-softmax's input gradient `g - exp(y) Σ g` of one lane.
#[inline(always)]
fn log_softmax_grad_lane<T: Float + FastMath>(g: &[T], y: &[T], out: &mut [T]) {
    let total = lane_sum(g);
    for ((o, &g), &y) in out.iter_mut().zip(g).zip(y) {
        *o = g - y.fast_exp() * total;
    }
}

/// `$blocks(a, b, out, n)`: `$lane` on each `n`-element lane of a block, compiled for the
/// widest vector instructions the CPU has (chosen at run time).
macro_rules! lane_blocks {
    ($blocks:ident, $lane:ident) => {
        pub(crate) fn $blocks<T: Float + FastMath>(a: &[T], b: &[T], out: &mut [T], n: usize) {
            #[inline(always)]
            fn body<T: LaneFloat>(a: &[T], b: &[T], out: &mut [T], n: usize) {
                let lanes = a.chunks_exact(n).zip(b.chunks_exact(n));
                for ((la, lb), o) in lanes.zip(out.chunks_exact_mut(n)) {
                    $lane(la, lb, o);
                }
            }
            crate::cpu::kernels::wide_variants!(run<T: LaneFloat>, body, (a: &[T], b: &[T], out: &mut [T], n: usize));
            run(a, b, out, n)
        }
    };
}

/// The element types of the lane kernels (one bound for [`crate::cpu::kernels::wide_variants`]).
pub(crate) trait LaneFloat: Float + FastMath {}

impl<T: Float + FastMath> LaneFloat for T {}

/// Softplus over a block of elements, `βx > threshold ? x : ln(1 + e^(βx))/β`, with `b`
/// holding `[β, threshold]` (PyTorch's kernel, in the element type).
#[inline(always)]
fn softplus_lane<T: Float + FastMath>(x: &[T], b: &[T], out: &mut [T]) {
    let (beta, threshold) = (b[0], b[1]);
    for (o, &v) in out.iter_mut().zip(x) {
        let z = v * beta;
        let soft = (z.fast_exp()).fast_ln_1p() / beta;
        *o = if z > threshold { v } else { soft };
    }
}

/// `softplus_lane` over whole blocks (`b` is the two parameters, not a second operand).
#[inline(always)]
fn softplus_body<T: Float + FastMath>(a: &[T], b: &[T], out: &mut [T], _n: usize) {
    softplus_lane(a, b, out)
}

wide_variants!(pub(crate) softplus_lanes<T: FastFloat>, softplus_body, (a: &[T], b: &[T], out: &mut [T], n: usize));

/// Softplus's gradient over a block: `βx > threshold ? g : g·z/(z + 1)`, `z = e^(βx)`.
#[inline(always)]
fn softplus_grad_body<T: Float + FastMath>(g: &[T], x: &[T], out: &mut [T], beta: T, threshold: T) {
    for ((o, &g), &v) in out.iter_mut().zip(g).zip(x) {
        let z = (v * beta).fast_exp();
        let soft = g * z / (z + T::one());
        *o = if v * beta > threshold { g } else { soft };
    }
}

wide_variants!(pub(crate) softplus_grad_block<T: FastFloat>, softplus_grad_body, (g: &[T], x: &[T], out: &mut [T], beta: T, threshold: T));

/// The float types the activation kernels run on (`Float + FastMath`, as one bound).
pub(crate) trait FastFloat: Float + FastMath {}

impl<T: Float + FastMath> FastFloat for T {}

/// Mish over a block of elements, `x·tanh(ln(1 + e^x))` (`b` is `a` again).
#[inline(always)]
fn mish_lane<T: Float + FastMath>(x: &[T], _: &[T], out: &mut [T]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v * v.fast_exp().fast_ln_1p().fast_tanh();
    }
}

lane_blocks!(mish_lanes, mish_lane);

/// Mish's gradient over a block: `g·(t + x·σ(x)·(1 − t²))`, `t = tanh(ln(1 + e^x))`.
#[inline(always)]
fn mish_grad_lane<T: Float + FastMath>(g: &[T], x: &[T], out: &mut [T]) {
    for ((o, &g), &v) in out.iter_mut().zip(g).zip(x) {
        let sig = T::one() / (T::one() + (-v).fast_exp());
        let t = v.fast_exp().fast_ln_1p().fast_tanh();
        *o = g * (t + v * sig * (T::one() - t * t));
    }
}

lane_blocks!(mish_grad_lanes, mish_grad_lane);

/// SiLU over a block of elements, `x / (1 + e^-x)` (`b` is `a` again).
#[inline(always)]
fn silu_lane<T: Float + FastMath>(x: &[T], _: &[T], out: &mut [T]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v / (T::one() + (-v).fast_exp());
    }
}

lane_blocks!(silu_lanes, silu_lane);

/// SiLU's gradient over a block: `g·σ(x)·(1 + x·(1 − σ(x)))`.
#[inline(always)]
fn silu_grad_lane<T: Float + FastMath>(g: &[T], x: &[T], out: &mut [T]) {
    for ((o, &g), &v) in out.iter_mut().zip(g).zip(x) {
        let sig = T::one() / (T::one() + (-v).fast_exp());
        *o = g * sig * (T::one() + v * (T::one() - sig));
    }
}

lane_blocks!(silu_grad_lanes, silu_grad_lane);

/// `erf` over a block of elements (`b` is `a` again).
#[inline(always)]
fn erf_lane<T: Float + FastMath>(x: &[T], _: &[T], out: &mut [T]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v.fast_erf();
    }
}

lane_blocks!(erf_lanes, erf_lane);

/// Exact GELU over a block of elements, `x·Φ(x)` (`b` is `a` again).
#[inline(always)]
fn gelu_lane<T: Float + FastMath>(x: &[T], _: &[T], out: &mut [T]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v * v.fast_normal_cdf();
    }
}

lane_blocks!(gelu_lanes, gelu_lane);

/// [`gelu_slope`] over a block of elements (`b` is `a` again).
#[inline(always)]
fn gelu_slope_lane<T: Float + FastMath>(x: &[T], _: &[T], out: &mut [T]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = gelu_slope(v);
    }
}

lane_blocks!(gelu_slope_lanes, gelu_slope_lane);

/// Exact GELU's gradient over a block of elements: `out = g·(Φ(x) + x·φ(x))` (the lane
/// structure does not matter to an elementwise formula; [`lane_blocks`] compiles the loop for
/// wide vectors, which a closure passed to `zip` this large would not get).
#[inline(always)]
fn gelu_grad_lane<T: Float + FastMath>(g: &[T], x: &[T], out: &mut [T]) {
    for ((o, &g), &v) in out.iter_mut().zip(g).zip(x) {
        *o = gelu_backward_exact(g, v);
    }
}

lane_blocks!(gelu_grad_lanes, gelu_grad_lane);

lane_blocks!(softmax_lanes, softmax_lane);

lane_blocks!(softmax_grad_lanes, softmax_grad_lane);

lane_blocks!(log_softmax_lanes, log_softmax_lane);

lane_blocks!(log_softmax_grad_lanes, log_softmax_grad_lane);
