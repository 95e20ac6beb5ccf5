//! [`crate::cpu::fastmath`]'s float32 `exp` and normal distribution written for AVX2 with
//! FMA, eight lanes at a time, and exact GELU's forward and gradient loops built on them.
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

/// `e^x` per lane: fastmath's `exp_f32` (`x = n ln2 + r`, a degree-7 polynomial in `r`,
/// scaled by `2^n` in two steps so that subnormal results stay accurate). With `EDGES`, its
/// edges: `+∞` above 88.72284, `0` below -103.97208, NaN kept. Without, for arguments at most
/// 0 where a NaN argument's lane is NaN through another factor anyway: -∞ and arguments below
/// -103.97208 still give 0 (the clamp at -104 leaves less than half the smallest subnormal),
/// and NaN gives a finite number.
#[inline(always)]
unsafe fn exp8<const EDGES: bool>(x: __m256) -> __m256 {
    let c = _mm256_set1_ps;
    // max/min with the constant second: a NaN lane becomes the bound, so `n` is finite
    let xc = _mm256_min_ps(_mm256_max_ps(x, c(-104.0)), c(88.8));
    let n = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_mul_ps(
        xc,
        c(std::f32::consts::LOG2_E),
    ));
    let r = _mm256_fnmadd_ps(n, c(LN2_PARTS[0]), xc);
    let r = _mm256_fnmadd_ps(n, c(LN2_PARTS[1]), r);
    let r2 = _mm256_mul_ps(r, r);
    let pair = |i: usize| _mm256_fmadd_ps(c(EXP_POLY[i + 1]), r, c(EXP_POLY[i]));
    let tail = _mm256_fmadd_ps(
        pair(4),
        _mm256_mul_ps(r2, r2),
        _mm256_fmadd_ps(pair(2), r2, pair(0)),
    );
    let p = _mm256_add_ps(_mm256_fmadd_ps(r2, tail, r), c(1.0));
    // n is an integer in [-151, 129]; 2^half · 2^(n - half) keeps both factors normal
    let ni = _mm256_cvtps_epi32(n);
    let half = _mm256_srai_epi32::<1>(ni);
    let pow2 = |k: __m256i| {
        _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
            k,
            _mm256_set1_epi32(127),
        )))
    };
    let y = _mm256_mul_ps(
        _mm256_mul_ps(p, pow2(half)),
        pow2(_mm256_sub_epi32(ni, half)),
    );
    if !EDGES {
        return y;
    }
    let y = _mm256_blendv_ps(
        y,
        c(f32::INFINITY),
        _mm256_cmp_ps::<_CMP_GT_OQ>(x, c(88.722_84)),
    );
    let y = _mm256_blendv_ps(y, c(0.0), _mm256_cmp_ps::<_CMP_LT_OQ>(x, c(-103.972_08)));
    _mm256_blendv_ps(y, x, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x))
}

/// `Φ(x)` per lane: `erfc(|x|/√2)/2` by fastmath's Chebyshev fit `t·e^(-z² + P(t))`,
/// `t = 1/(1 + z/2)`, taken as is below 0 and from one above.
#[inline(always)]
unsafe fn normal_cdf8(x: __m256) -> __m256 {
    let c = _mm256_set1_ps;
    let sign = c(-0.0);
    let z = _mm256_andnot_ps(sign, _mm256_mul_ps(x, c(std::f32::consts::FRAC_1_SQRT_2)));
    let t = _mm256_div_ps(c(1.0), _mm256_fmadd_ps(c(0.5), z, c(1.0)));
    let t2 = _mm256_mul_ps(t, t);
    let t4 = _mm256_mul_ps(t2, t2);
    let pair = |i: usize| _mm256_fmadd_ps(c(ERFC_POLY[i + 1]), t, c(ERFC_POLY[i]));
    let low = _mm256_fmadd_ps(pair(2), t2, pair(0));
    let mid = _mm256_fmadd_ps(pair(6), t2, pair(4));
    let poly = _mm256_fmadd_ps(
        pair(8),
        _mm256_mul_ps(t4, t4),
        _mm256_fmadd_ps(mid, t4, low),
    );
    // -z² + P(t) <= 0, and a NaN `x` is NaN in `t`
    let erfc = _mm256_mul_ps(t, exp8::<false>(_mm256_fnmadd_ps(z, z, poly)));
    let tail = _mm256_mul_ps(c(0.5), erfc);
    let upper = _mm256_sub_ps(c(1.0), tail);
    _mm256_blendv_ps(tail, upper, _mm256_cmp_ps::<_CMP_GE_OQ>(x, c(0.0)))
}

/// `φ(x) = e^(-x²/2)/√(2π)` per lane, for uses that multiply it by `x` (a NaN `x` gives a
/// finite density).
#[inline(always)]
unsafe fn normal_pdf8(x: __m256) -> __m256 {
    let c = _mm256_set1_ps;
    let e = exp8::<false>(_mm256_mul_ps(c(-0.5), _mm256_mul_ps(x, x)));
    _mm256_mul_ps(e, c(0.398_942_3))
}

/// `out[i] = f(a[i], b[i])` over whole vectors, then the tail through a zero-padded vector.
#[inline(always)]
unsafe fn each8(a: &[f32], b: &[f32], out: &mut [f32], f: impl Fn(__m256, __m256) -> __m256) {
    let n = out.len().min(a.len()).min(b.len());
    let whole = n - n % 8;
    for i in (0..whole).step_by(8) {
        let v = f(
            _mm256_loadu_ps(a.as_ptr().add(i)),
            _mm256_loadu_ps(b.as_ptr().add(i)),
        );
        _mm256_storeu_ps(out.as_mut_ptr().add(i), v);
    }
    if whole < n {
        let (mut pa, mut pb, mut po) = ([0f32; 8], [0f32; 8], [0f32; 8]);
        pa[..n - whole].copy_from_slice(&a[whole..n]);
        pb[..n - whole].copy_from_slice(&b[whole..n]);
        let v = f(_mm256_loadu_ps(pa.as_ptr()), _mm256_loadu_ps(pb.as_ptr()));
        _mm256_storeu_ps(po.as_mut_ptr(), v);
        out[whole..n].copy_from_slice(&po[..n - whole]);
    }
}

/// Exact GELU, `out = x·Φ(x)`.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn gelu(x: &[f32], out: &mut [f32]) {
    each8(x, x, out, |v, _| _mm256_mul_ps(v, normal_cdf8(v)))
}

/// Exact GELU's derivative, `out = Φ(x) + x·φ(x)`.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn gelu_slope(x: &[f32], out: &mut [f32]) {
    each8(x, x, out, |v, _| {
        _mm256_fmadd_ps(v, normal_pdf8(v), normal_cdf8(v))
    })
}

/// Exact GELU's gradient, `out = g·(Φ(x) + x·φ(x))`.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn gelu_grad(g: &[f32], x: &[f32], out: &mut [f32]) {
    each8(g, x, out, |g, v| {
        _mm256_mul_ps(g, _mm256_fmadd_ps(v, normal_pdf8(v), normal_cdf8(v)))
    })
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
        each8(x, x, out, |v, _| exp8::<true>(v))
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
