//! [`crate::cpu::fastmath`]'s float32 `exp` and normal distribution written for AVX2 with
//! FMA, eight lanes a vector and two vectors at a time (Note [Several vectors through one
//! formula]), and exact GELU's forward and gradient loops built on them.
//!
//! The formulas are fastmath's, coefficient for coefficient; what changes is that every
//! `a·b + c` is one fused instruction (Rust does not contract the portable code's
//! multiply-adds, so its wide variants run about twice the instructions) and the constants
//! stay in registers. A fused step rounds once where the portable code rounds twice, so
//! results can differ from it in the last place; both are held to the same bounds against
//! float64 by the tests below. The last partial vector of a slice runs through the same
//! code on a padded copy, so an element's result never depends on where a slice starts or
//! ends (the parallel loops cut slices at different places for different thread counts).

use super::fastmath::{ERFC_POLY, EXP_POLY, LN2_PARTS};
use std::arch::x86_64::*;

// Note [Several vectors through one formula]
// A formula here is a chain of some forty dependent instructions (by their latencies about
// 150 cycles from argument to result), and the CPU overlaps consecutive vectors' chains only
// as far as its reorder window reaches. One vector at a time, exact GELU took about 77 cycles
// a vector on a Zen 1 core where its arithmetic needs about 30: latency, not throughput, was
// the limit (unrolling the loop four times changed nothing: the compiler kept each vector's
// chain whole). Each step below therefore runs on a group of `N` independent vectors before
// the next step (a [`Group`]), so the instructions of the group's chains alternate and the
// window holds work of every chain. Exact GELU over 524,288 floats, one thread of a Zen 1
// core: forward 2.24 -> 1.73 ms, forward and backward 5.85 -> 4.52 ms (PyTorch 1.41 and
// 3.88); groups of four ran no faster than two. Every lane still goes through the same
// instructions in the same order, so a lane's result does not depend on the group it was in.

/// `N` vectors taken through a formula together (Note [Several vectors through one formula]).
type Group<const N: usize> = [__m256; N];

/// A group built vector by vector: `each!(|i| f)` is `[f(0), …, f(N - 1)]` for the `N` in
/// scope, written as a loop in the calling function (a closure called from
/// `std::array::from_fn` would be compiled without the caller's AVX2).
macro_rules! each {
    (|$i:ident| $e:expr) => {{
        let mut group = [_mm256_setzero_ps(); N];
        for $i in 0..N {
            group[$i] = $e;
        }
        group
    }};
}

/// `e^x` per lane: fastmath's `exp_f32` (`x = n ln2 + r`, a degree-7 polynomial in `r`,
/// scaled by `2^n` in two steps so that subnormal results stay accurate). With `EDGES`, its
/// edges: `+∞` above 88.72284, `0` below -103.97208, NaN kept. Without, for arguments at most
/// 0 where a NaN argument's lane is NaN through another factor anyway: -∞ and arguments below
/// -103.97208 still give 0 (the clamp at -104 leaves less than half the smallest subnormal),
/// and NaN gives a finite number.
#[inline(always)]
unsafe fn exp8<const N: usize, const EDGES: bool>(x: Group<N>) -> Group<N> {
    let c = _mm256_set1_ps;
    // max/min with the constant second: a NaN lane becomes the bound, so `n` is finite
    let xc: Group<N> = each!(|i| _mm256_min_ps(_mm256_max_ps(x[i], c(-104.0)), c(88.8)));
    let n: Group<N> = each!(|i| {
        _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_mul_ps(
            xc[i],
            c(std::f32::consts::LOG2_E),
        ))
    });
    let r: Group<N> = each!(|i| _mm256_fnmadd_ps(n[i], c(LN2_PARTS[0]), xc[i]));
    let r: Group<N> = each!(|i| _mm256_fnmadd_ps(n[i], c(LN2_PARTS[1]), r[i]));
    let r2: Group<N> = each!(|i| _mm256_mul_ps(r[i], r[i]));
    let pair = |k: usize, i: usize| _mm256_fmadd_ps(c(EXP_POLY[k + 1]), r[i], c(EXP_POLY[k]));
    let (p0, p2, p4): (Group<N>, Group<N>, Group<N>) = (
        each!(|i| pair(0, i)),
        each!(|i| pair(2, i)),
        each!(|i| pair(4, i)),
    );
    let r4: Group<N> = each!(|i| _mm256_mul_ps(r2[i], r2[i]));
    let low: Group<N> = each!(|i| _mm256_fmadd_ps(p2[i], r2[i], p0[i]));
    let tail: Group<N> = each!(|i| _mm256_fmadd_ps(p4[i], r4[i], low[i]));
    let p: Group<N> = each!(|i| _mm256_add_ps(_mm256_fmadd_ps(r2[i], tail[i], r[i]), c(1.0)));
    // n is an integer in [-151, 129]; 2^half · 2^(n - half) keeps both factors normal
    let (mut ni, mut half) = ([_mm256_setzero_si256(); N], [_mm256_setzero_si256(); N]);
    for i in 0..N {
        ni[i] = _mm256_cvtps_epi32(n[i]);
        half[i] = _mm256_srai_epi32::<1>(ni[i]);
    }
    let pow2 = |k: __m256i| {
        _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
            k,
            _mm256_set1_epi32(127),
        )))
    };
    let y: Group<N> = each!(|i| {
        _mm256_mul_ps(
            _mm256_mul_ps(p[i], pow2(half[i])),
            pow2(_mm256_sub_epi32(ni[i], half[i])),
        )
    });
    if !EDGES {
        return y;
    }
    each!(|i| {
        let y = _mm256_blendv_ps(
            y[i],
            c(f32::INFINITY),
            _mm256_cmp_ps::<_CMP_GT_OQ>(x[i], c(88.722_84)),
        );
        let y = _mm256_blendv_ps(y, c(0.0), _mm256_cmp_ps::<_CMP_LT_OQ>(x[i], c(-103.972_08)));
        _mm256_blendv_ps(y, x[i], _mm256_cmp_ps::<_CMP_UNORD_Q>(x[i], x[i]))
    })
}

/// `Φ(x)` per lane: `erfc(|x|/√2)/2` by fastmath's Chebyshev fit `t·e^(-z² + P(t))`,
/// `t = 1/(1 + z/2)`, taken as is below 0 and from one above.
#[inline(always)]
unsafe fn normal_cdf8<const N: usize>(x: Group<N>) -> Group<N> {
    let c = _mm256_set1_ps;
    let sign = c(-0.0);
    let z: Group<N> = each!(|i| {
        _mm256_andnot_ps(
            sign,
            _mm256_mul_ps(x[i], c(std::f32::consts::FRAC_1_SQRT_2)),
        )
    });
    let t: Group<N> = each!(|i| _mm256_div_ps(c(1.0), _mm256_fmadd_ps(c(0.5), z[i], c(1.0))));
    let t2: Group<N> = each!(|i| _mm256_mul_ps(t[i], t[i]));
    let t4: Group<N> = each!(|i| _mm256_mul_ps(t2[i], t2[i]));
    let pair = |k: usize, i: usize| _mm256_fmadd_ps(c(ERFC_POLY[k + 1]), t[i], c(ERFC_POLY[k]));
    let (p0, p2, p4): (Group<N>, Group<N>, Group<N>) = (
        each!(|i| pair(0, i)),
        each!(|i| pair(2, i)),
        each!(|i| pair(4, i)),
    );
    let (p6, p8): (Group<N>, Group<N>) = (each!(|i| pair(6, i)), each!(|i| pair(8, i)));
    let low: Group<N> = each!(|i| _mm256_fmadd_ps(p2[i], t2[i], p0[i]));
    let mid: Group<N> = each!(|i| _mm256_fmadd_ps(p6[i], t2[i], p4[i]));
    let t8: Group<N> = each!(|i| _mm256_mul_ps(t4[i], t4[i]));
    let poly: Group<N> =
        each!(|i| _mm256_fmadd_ps(p8[i], t8[i], _mm256_fmadd_ps(mid[i], t4[i], low[i])));
    // -z² + P(t) <= 0, and a NaN `x` is NaN in `t`
    let e = exp8::<N, false>(each!(|i| _mm256_fnmadd_ps(z[i], z[i], poly[i])));
    each!(|i| {
        let tail = _mm256_mul_ps(c(0.5), _mm256_mul_ps(t[i], e[i]));
        let upper = _mm256_sub_ps(c(1.0), tail);
        _mm256_blendv_ps(tail, upper, _mm256_cmp_ps::<_CMP_GE_OQ>(x[i], c(0.0)))
    })
}

/// `φ(x) = e^(-x²/2)/√(2π)` per lane, for uses that multiply it by `x` (a NaN `x` gives a
/// finite density).
#[inline(always)]
unsafe fn normal_pdf8<const N: usize>(x: Group<N>) -> Group<N> {
    let c = _mm256_set1_ps;
    let e = exp8::<N, false>(each!(|i| _mm256_mul_ps(c(-0.5), _mm256_mul_ps(x[i], x[i]))));
    each!(|i| _mm256_mul_ps(e[i], c(0.398_942_3)))
}

/// Vectors taken through a formula together by the slice loops.
const GROUP: usize = 2;

/// `out[i] = f(a[i], b[i])` over whole groups of [`GROUP`] vectors, then the remaining
/// whole vectors one at a time, then the tail through a zero-padded vector; `f` takes and
/// gives a group of `N` vectors, and is the same formula at every `N`.
#[inline(always)]
unsafe fn each8(
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    f: impl Fn(Group<GROUP>, Group<GROUP>) -> Group<GROUP>,
    f1: impl Fn(Group<1>, Group<1>) -> Group<1>,
) {
    let n = out.len().min(a.len()).min(b.len());
    let whole = n - n % 8;
    let grouped = n - n % (8 * GROUP);
    for i in (0..grouped).step_by(8 * GROUP) {
        const N: usize = GROUP;
        let (pa, pb) = (a.as_ptr().add(i), b.as_ptr().add(i));
        let v = f(
            each!(|v| _mm256_loadu_ps(pa.add(8 * v))),
            each!(|v| _mm256_loadu_ps(pb.add(8 * v))),
        );
        for (k, v) in v.iter().enumerate() {
            _mm256_storeu_ps(out.as_mut_ptr().add(i + 8 * k), *v);
        }
    }
    for i in (grouped..whole).step_by(8) {
        let [v] = f1(
            [_mm256_loadu_ps(a.as_ptr().add(i))],
            [_mm256_loadu_ps(b.as_ptr().add(i))],
        );
        _mm256_storeu_ps(out.as_mut_ptr().add(i), v);
    }
    if whole < n {
        let (mut pa, mut pb, mut po) = ([0f32; 8], [0f32; 8], [0f32; 8]);
        pa[..n - whole].copy_from_slice(&a[whole..n]);
        pb[..n - whole].copy_from_slice(&b[whole..n]);
        let [v] = f1(
            [_mm256_loadu_ps(pa.as_ptr())],
            [_mm256_loadu_ps(pb.as_ptr())],
        );
        _mm256_storeu_ps(po.as_mut_ptr(), v);
        out[whole..n].copy_from_slice(&po[..n - whole]);
    }
}

/// Runs the slice loop [`each8`] with the formula `$f` (a generic function of the group
/// size taking `(x, y)` groups) at [`GROUP`] and at one vector.
macro_rules! grouped {
    ($a:expr, $b:expr, $out:expr, $f:ident) => {
        each8($a, $b, $out, |x, y| $f::<GROUP>(x, y), |x, y| $f::<1>(x, y))
    };
}

/// `x·Φ(x)` for a group (`_` unused).
#[inline(always)]
unsafe fn gelu_of<const N: usize>(x: Group<N>, _: Group<N>) -> Group<N> {
    let cdf = normal_cdf8(x);
    each!(|i| _mm256_mul_ps(x[i], cdf[i]))
}

/// `Φ(x) + x·φ(x)` for a group (`_` unused).
#[inline(always)]
unsafe fn gelu_slope_of<const N: usize>(x: Group<N>, _: Group<N>) -> Group<N> {
    let (pdf, cdf) = (normal_pdf8(x), normal_cdf8(x));
    each!(|i| _mm256_fmadd_ps(x[i], pdf[i], cdf[i]))
}

/// `g·(Φ(x) + x·φ(x))` for groups `g`, `x`.
#[inline(always)]
unsafe fn gelu_grad_of<const N: usize>(g: Group<N>, x: Group<N>) -> Group<N> {
    let slope = gelu_slope_of(x, x);
    each!(|i| _mm256_mul_ps(g[i], slope[i]))
}

/// Exact GELU, `out = x·Φ(x)`.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn gelu(x: &[f32], out: &mut [f32]) {
    grouped!(x, x, out, gelu_of)
}

/// Exact GELU's derivative, `out = Φ(x) + x·φ(x)`.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn gelu_slope(x: &[f32], out: &mut [f32]) {
    grouped!(x, x, out, gelu_slope_of)
}

/// Exact GELU's gradient, `out = g·(Φ(x) + x·φ(x))`.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn gelu_grad(g: &[f32], x: &[f32], out: &mut [f32]) {
    grouped!(g, x, out, gelu_grad_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn have_avx2() -> bool {
        crate::cpu::kernels::simd_level() >= 1
    }

    fn sweep(lo: f32, hi: f32, n: usize) -> Vec<f32> {
        (0..=n)
            .map(|i| lo + (hi - lo) * i as f32 / n as f32)
            .collect()
    }

    /// `f` over `xs` as one slice (whole vectors) and element by element (each a padded
    /// tail): the same bits, or the result would depend on where a parallel loop cuts.
    fn run(xs: &[f32], f: unsafe fn(&[f32], &mut [f32])) -> Vec<f32> {
        let mut out = vec![0f32; xs.len()];
        unsafe { f(xs, &mut out) };
        for (i, (&x, &y)) in xs.iter().zip(&out).enumerate().step_by(97) {
            let mut one = [0f32];
            unsafe { f(&xs[i..i + 1], &mut one) };
            assert_eq!(
                one[0].to_bits(),
                y.to_bits(),
                "f({x}) depends on its position"
            );
        }
        out
    }

    #[target_feature(enable = "avx2,fma")]
    unsafe fn exp_slice(x: &[f32], out: &mut [f32]) {
        #[inline(always)]
        unsafe fn exp_of<const N: usize>(x: Group<N>, _: Group<N>) -> Group<N> {
            exp8::<N, true>(x)
        }
        grouped!(x, x, out, exp_of)
    }

    #[test]
    fn exp_is_within_two_ulp() {
        if !have_avx2() {
            return;
        }
        let mut xs = sweep(-100.0, 88.0, 200_000);
        xs.extend([f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 100.0, -110.0]);
        let out = run(&xs, exp_slice);
        for (&x, &y) in xs.iter().zip(&out) {
            let exact = (x as f64).exp();
            let e = exact as f32;
            let spacing = (f32::from_bits(e.abs().to_bits() + 1) - e.abs()) as f64;
            let err = (y as f64 - exact).abs() / spacing.max(f32::MIN_POSITIVE as f64);
            assert!(
                y == e || err <= 2.0 || (x.is_nan() && y.is_nan()),
                "exp({x}) = {y}"
            );
        }
    }

    #[test]
    fn gelu_keeps_its_relative_accuracy() {
        if !have_avx2() {
            return;
        }
        // as fastmath's test of Φ: relative error against float64, allowing for what
        // rounding x²/2 to float32 costs the exponential
        let xs = sweep(-12.0, 8.0, 200_000);
        let out = run(&xs, gelu);
        for (&x, &y) in xs.iter().zip(&out) {
            let xd = x as f64;
            let exact = xd * 0.5 * libm::erfc(-xd * std::f64::consts::FRAC_1_SQRT_2);
            let error = if exact == 0.0 {
                y.abs() as f64
            } else {
                (y as f64 / exact - 1.0).abs()
            };
            assert!(
                error / (1.0 + xd * xd) <= 6e-7,
                "gelu({x}) = {y}, exact {exact}"
            );
        }
        let edges = run(
            &[f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -0.0, 1e4, -1e4],
            gelu,
        );
        assert_eq!(edges[0], f32::INFINITY);
        assert!(
            edges[1].is_nan() && edges[2].is_nan(),
            "x·Φ(x) at -∞ is -∞·0, as PyTorch's"
        );
        assert_eq!(edges[3..], [0.0, 1e4, -0.0]);
    }

    #[test]
    fn gelu_slope_and_grad_match_float64() {
        if !have_avx2() {
            return;
        }
        let xs = sweep(-12.0, 12.0, 24_000);
        let g: Vec<f32> = xs.iter().map(|x| 0.5 - x * 0.01).collect();
        let slope = run(&xs, gelu_slope);
        let mut grad = vec![0f32; xs.len()];
        unsafe { gelu_grad(&g, &xs, &mut grad) };
        for ((&x, &g), (&s, &d)) in xs.iter().zip(&g).zip(slope.iter().zip(&grad)) {
            let xd = x as f64;
            let pdf = (-0.5 * xd * xd).exp() / (2.0 * std::f64::consts::PI).sqrt();
            let exact = 0.5 * libm::erfc(-xd * std::f64::consts::FRAC_1_SQRT_2) + xd * pdf;
            // below 0 the slope is a sum of terms of opposite signs: its error is relative
            // to the larger term
            let scale = (xd * pdf).abs().max(exact.abs()) * (1.0 + xd * xd);
            assert!(
                (s as f64 - exact).abs() <= 6e-7 * scale,
                "slope({x}) = {s}, {exact}"
            );
            let tol = 1e-6 * scale * (g as f64).abs();
            assert!(
                (d as f64 - g as f64 * exact).abs() <= tol,
                "grad({x}) = {d}"
            );
        }
        // Φ(x) + x·φ(x) at ±∞ meets ∞·0, NaN as in PyTorch's kernel
        let edges = run(&[f32::INFINITY, f32::NEG_INFINITY, f32::NAN], gelu_slope);
        assert!(edges.iter().all(|e| e.is_nan()));
    }
}
