//! Vectorizable float32 `exp`, `tanh`, `sin` and `cos` (Cephes-style range reduction and
//! minimax polynomials, branch-free so loops over them vectorize), within a few ulp of the
//! correctly rounded result. float64 uses the standard library.

// The polynomial coefficients are the published Cephes values, kept digit for digit.
#![allow(clippy::excessive_precision)]

/// Elementwise math with a fast float32 path.
pub trait FastMath: Copy {
    /// `e^x`
    fn fast_exp(self) -> Self;
    /// `tanh(x)`
    fn fast_tanh(self) -> Self;
    /// `sin(x)`
    fn fast_sin(self) -> Self;
    /// `cos(x)`
    fn fast_cos(self) -> Self;
    /// `Φ(x)`, the standard normal distribution function (GELU's gate)
    fn fast_normal_cdf(self) -> Self;
    /// `φ(x)`, the standard normal density
    fn fast_normal_pdf(self) -> Self;
    /// `erf(x)`, the error function
    fn fast_erf(self) -> Self;
    /// `ln(1 + x)`
    fn fast_ln_1p(self) -> Self;
}

impl FastMath for f64 {
    #[inline(always)]
    fn fast_exp(self) -> Self {
        self.exp()
    }
    #[inline(always)]
    fn fast_tanh(self) -> Self {
        self.tanh()
    }
    #[inline(always)]
    fn fast_sin(self) -> Self {
        self.sin()
    }
    #[inline(always)]
    fn fast_cos(self) -> Self {
        self.cos()
    }
    #[inline(always)]
    fn fast_normal_cdf(self) -> Self {
        0.5 * (1.0 + libm::erf(self * std::f64::consts::FRAC_1_SQRT_2))
    }
    #[inline(always)]
    fn fast_normal_pdf(self) -> Self {
        (-0.5 * self * self).exp() / (2.0 * std::f64::consts::PI).sqrt()
    }
    #[inline(always)]
    fn fast_erf(self) -> Self {
        libm::erf(self)
    }
    #[inline(always)]
    fn fast_ln_1p(self) -> Self {
        self.ln_1p()
    }
}

impl FastMath for f32 {
    #[inline(always)]
    fn fast_exp(self) -> Self {
        exp_f32(self)
    }
    #[inline(always)]
    fn fast_tanh(self) -> Self {
        tanh_f32(self)
    }
    #[inline(always)]
    fn fast_sin(self) -> Self {
        sin_cos_f32(self, false)
    }
    #[inline(always)]
    fn fast_cos(self) -> Self {
        sin_cos_f32(self, true)
    }
    #[inline(always)]
    fn fast_normal_cdf(self) -> Self {
        normal_cdf_f32(self)
    }
    #[inline(always)]
    fn fast_normal_pdf(self) -> Self {
        const INV_SQRT_2PI: f32 = 0.398_942_3;
        exp_f32(-0.5 * self * self) * INV_SQRT_2PI
    }
    #[inline(always)]
    fn fast_erf(self) -> Self {
        erf_f32(self)
    }
    #[inline(always)]
    fn fast_ln_1p(self) -> Self {
        ln_1p_f32(self)
    }
}

/// `ln(1 + y)` in float32, branch-free: `ln(u)·y/(u − 1)` with `u = 1 + y` (the rounding of
/// `u` cancels, so small `y` keep their relative accuracy; `y` itself where `u` rounds to 1),
/// the logarithm by Cephes' polynomial ([`crate::cpu::boxmuller::log_f32`]); `∞`, NaN, `-1`
/// and below as `log1p` gives them.
#[inline(always)]
pub fn ln_1p_f32(y: f32) -> f32 {
    let u = 1.0 + y;
    let d = u - 1.0;
    let log = crate::cpu::boxmuller::log_f32(u);
    let r = if d == 0.0 { y } else { log * (y / d) };
    if y.is_nan() || y == f32::INFINITY {
        y
    } else if y == -1.0 {
        f32::NEG_INFINITY
    } else if y < -1.0 {
        f32::NAN
    } else {
        r
    }
}

/// `erfc(z)` for `z >= 0` (NaN stays NaN) in float32, branch-free: Numerical Recipes'
/// Chebyshev fit `t·e^(-z² + P(t))` with `t = 1 / (1 + z/2)` (fractional error below 1.2e-7,
/// so tails keep their relative accuracy, plus what rounding `z²` costs the exponential) on
/// top of [`exp_f32`].
#[inline(always)]
fn erfc_f32_nonneg(z: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.5 * z);
    // Estrin's scheme (pairs, then pairs of pairs): a third of Horner's chain of dependent
    // steps, which bounds a vector loop of this formula
    let (t2, pair) = (t * t, |i: usize| ERFC_POLY[i] + ERFC_POLY[i + 1] * t);
    let t4 = t2 * t2;
    let low = pair(0) + pair(2) * t2;
    let mid = pair(4) + pair(6) * t2;
    let poly = low + mid * t4 + pair(8) * (t4 * t4);
    t * exp_f32(-z * z + poly)
}

/// The coefficients of `P(t)` in `erfc(z) = t·e^(-z² + P(t))` (Numerical Recipes' `erfcc`),
/// lowest power first.
pub(crate) const ERFC_POLY: [f32; 10] = [
    -1.265_512_2,
    1.000_023_7,
    0.374_091_96,
    0.096_784_18,
    -0.186_288_06,
    0.278_868_07,
    -1.135_203_9,
    1.488_515_9,
    -0.822_152_2,
    0.170_872_77,
];

/// `ln 2` in two parts for `exp`'s range reduction: `HI` with few enough bits that `n·HI` is
/// exact, `LO` the rest.
pub(crate) const LN2_PARTS: [f32; 2] = [0.693_359_4, -2.121_944_4e-4];

/// The coefficients of `P(r)` in `e^r = 1 + r + r²·P(r)` (Cephes' `expf`), lowest first.
pub(crate) const EXP_POLY: [f32; 6] = [
    5.000_000_1e-1,
    1.666_666_5e-1,
    4.166_579_6e-2,
    8.333_452e-3,
    1.398_199_9e-3,
    1.987_569_1e-4,
];

/// `Φ(x) = erfc(-x/√2) / 2` in float32, branch-free (a loop of it vectorizes), from
/// `erfc_f32_nonneg`: the lower tail keeps its relative accuracy, where `1 + erf` would
/// cancel.
#[inline(always)]
pub fn normal_cdf_f32(x: f32) -> f32 {
    // erfc(|x|/√2); Φ(x) is half of it below 0 and one minus half of it above
    let tail = 0.5 * erfc_f32_nonneg((x * std::f32::consts::FRAC_1_SQRT_2).abs());
    if x >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// `erf(x)` in float32, branch-free (a loop of it vectorizes): below `|x| = 0.5`, `x` times
/// its Taylor series in `x²` to `x¹²` (the next term is below 1e-9 of the sum there), keeping
/// the relative accuracy of small arguments; beyond, `1 - erfc(|x|)` with the sign of `x`.
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    let a = x.abs();
    let s = x * x;
    // 2/√π · Σ (-s)^n / (n! (2n + 1)), n = 0..6 (Horner's order: the terms shrink, so each
    // step's rounding stays below the next)
    let series =
        ((((((1.205_533_3e-4 * s - 8.548_327e-4) * s + 0.005_223_977_6) * s - 0.026_866_171) * s
            + 0.112_837_92)
            * s
            - 0.376_126_39)
            * s)
            + std::f32::consts::FRAC_2_SQRT_PI;
    let far = (1.0 - erfc_f32_nonneg(a)).copysign(x);
    if a < 0.5 {
        x * series
    } else if x.is_nan() {
        x
    } else {
        far
    }
}

/// `2^n` for integer `n` in `[-126, 127]`, built from the exponent bits.
#[inline(always)]
fn pow2i(n: i32) -> f32 {
    f32::from_bits(((n + 127) as u32) << 23)
}

/// `e^x`: `x = n ln2 + r`, `e^r` by a degree-7 polynomial, scaled in two steps so that
/// results down to the subnormal range stay accurate.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    let [ln2_hi, ln2_lo] = LN2_PARTS;
    // max/min (not clamp) map NaN to a bound, so `n` below is always a small finite integer
    #[allow(clippy::manual_clamp)] // clamp would keep NaN, which the unchecked cast cannot take
    let xc = x.max(-104.0).min(88.8);
    // round to nearest without a libm call (adding 1.5·2^23 drops the fraction), so loops vectorize
    const ROUND: f32 = 12_582_912.0;
    let n = (xc * LOG2E + ROUND) - ROUND;
    let r = xc - n * ln2_hi - n * ln2_lo;
    // 1 + r + r²·P(r), P of degree 5 by Estrin's scheme (see `normal_cdf_f32`)
    let r2 = r * r;
    let pair = |i: usize| EXP_POLY[i] + EXP_POLY[i + 1] * r;
    let tail = pair(0) + pair(2) * r2 + pair(4) * (r2 * r2);
    let p = (r2 * tail + r) + 1.0;
    // SAFETY: `n` is an integer in [-151, 129] (xc is finite and bounded); an unchecked
    // conversion vectorizes, where `as` (saturating) falls back to one lane at a time
    let ni = unsafe { n.to_int_unchecked::<i32>() };
    let half = ni / 2;
    let y = p * pow2i(half) * pow2i(ni - half);
    if x > 88.722_84 {
        f32::INFINITY
    } else if x < -103.972_08 {
        0.0
    } else if x.is_nan() {
        x
    } else {
        y
    }
}

/// `tanh(x)`: an odd polynomial near 0, `1 - 2/(e^(2|x|) + 1)` elsewhere.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    let small =
        ((((-5.704_988_7e-3 * z + 2.063_908_9e-2) * z - 5.373_971_6e-2) * z + 1.333_144_2e-1) * z
            - 3.333_328_2e-1)
            * z
            * x
            + x;
    let e = exp_f32(2.0 * a.min(9.0));
    let large = if a > 9.0 { 1.0 } else { 1.0 - 2.0 / (e + 1.0) };
    if a < 0.625 || x.is_nan() {
        small
    } else {
        large.copysign(x)
    }
}

/// Arguments beyond this lose accuracy in the three-part reduction; they use the std path.
const SIN_COS_LIMIT: f32 = 8192.0;

/// Whether the fast sine/cosine is accurate at `x` (false for NaN and ±inf too).
#[inline(always)]
pub fn in_sin_cos_range(x: f32) -> bool {
    x.abs() <= SIN_COS_LIMIT
}

/// Recomputes, with the standard library, the elements of `out = f(xs)` whose argument was
/// beyond the range of the fast sine/cosine (or not finite).
pub fn fix_large_sin_cos(xs: &[f32], out: &mut [f32], cosine: bool) {
    for (o, &x) in out.iter_mut().zip(xs) {
        if !in_sin_cos_range(x) {
            *o = if cosine { x.cos() } else { x.sin() };
        }
    }
}

/// `sin(x)` or `cos(x)`: reduction by π/4 in three parts, then the sine or cosine polynomial.
/// Accurate for `|x| <= 8192`; [`fix_large_sin_cos`] handles the rest of a slice.
#[inline(always)]
pub fn sin_cos_f32(x: f32, cosine: bool) -> f32 {
    const FOUR_OVER_PI: f32 = 1.273_239_5;
    const DP1: f32 = 0.785_156_25;
    const DP2: f32 = 2.418_756_5e-4;
    const DP3: f32 = 3.774_895e-8;
    let a = x.abs().min(SIN_COS_LIMIT);
    // SAFETY: `a` is finite and in [0, 8192] (`min` maps NaN to the limit), so the product
    // fits an i32; the unchecked conversion vectorizes where the saturating `as` does not
    let mut j = unsafe { (a * FOUR_OVER_PI).to_int_unchecked::<i32>() };
    j += j & 1;
    let y = j as f32;
    let z = ((a - y * DP1) - y * DP2) - y * DP3;
    let zz = z * z;
    let s = ((-1.951_529_6e-4 * zz + 8.332_161e-3) * zz - 1.666_665_5e-1) * zz * z + z;
    let c =
        ((2.443_315_7e-5 * zz - 1.388_731_6e-3) * zz + 4.166_664_6e-2) * zz * zz - 0.5 * zz + 1.0;
    let q = (j >> 1) & 3;
    // sin by quadrant: s, c, -s, -c; cos: c, -s, -c, s (Cephes' sinf/cosf tables)
    let (use_c, negate) = if cosine {
        (q & 1 == 0, (q + 1) & 2 != 0)
    } else {
        (q & 1 == 1, q & 2 != 0)
    };
    let v = if use_c { c } else { s };
    let v = if negate { -v } else { v };
    if !cosine && x < 0.0 {
        -v
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place between `got` and the correctly rounded `exact`.
    fn ulps(got: f32, exact: f64) -> f64 {
        let e = exact as f32;
        if got == e || (got.is_nan() && e.is_nan()) {
            return 0.0;
        }
        let spacing = (f32::from_bits(e.abs().to_bits() + 1) - e.abs()) as f64;
        ((got as f64) - exact).abs() / spacing.max(f32::MIN_POSITIVE as f64)
    }

    fn sweep(lo: f32, hi: f32, n: usize) -> impl Iterator<Item = f32> {
        (0..=n).map(move |i| lo + (hi - lo) * i as f32 / n as f32)
    }

    #[test]
    fn exp_is_within_two_ulp() {
        let worst = sweep(-100.0, 88.0, 200_000)
            .map(|x| ulps(exp_f32(x), (x as f64).exp()))
            .fold(0.0, f64::max);
        assert!(worst <= 2.0, "exp worst error {worst} ulp");
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert!(exp_f32(f32::NAN).is_nan());
        assert_eq!(exp_f32(100.0), f32::INFINITY);
    }

    #[test]
    fn normal_cdf_keeps_its_relative_accuracy_in_both_tails() {
        // Φ(x) = erfc(-x/√2)/2 against float64, relative error, so the lower tail (where
        // `1 + erf` would cancel) is held to the middle's bound (a few ulp), save what
        // rounding `x²/2` to float32 costs the exponential (a relative 1.2e-7·x²/2)
        let (worst, at) = sweep(-12.0, 8.0, 200_000)
            .map(|x| {
                let exact = 0.5 * libm::erfc(-(x as f64) * std::f64::consts::FRAC_1_SQRT_2);
                let error = (normal_cdf_f32(x) as f64 - exact).abs() / exact;
                (error / (1.0 + (x * x) as f64), x)
            })
            .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
        assert!(
            worst <= 6e-7,
            "normal cdf worst scaled error {worst:e} at {at}"
        );
        assert_eq!(normal_cdf_f32(f32::INFINITY), 1.0);
        assert_eq!(normal_cdf_f32(f32::NEG_INFINITY), 0.0);
    }

    #[test]
    fn erf_is_within_three_ulp() {
        let tiny = sweep(-1e-3, 1e-3, 20_000);
        let (worst, at) = sweep(-7.0, 7.0, 400_000)
            .chain(tiny)
            .map(|x| (ulps(erf_f32(x), libm::erf(x as f64)), x))
            .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
        assert!(worst <= 3.0, "erf worst error {worst} ulp at {at}");
        assert_eq!(erf_f32(f32::INFINITY), 1.0);
        assert_eq!(erf_f32(f32::NEG_INFINITY), -1.0);
        assert_eq!(erf_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(erf_f32(1e-30), 1e-30 * std::f32::consts::FRAC_2_SQRT_PI);
        assert!(erf_f32(f32::NAN).is_nan());
    }

    #[test]
    fn ln_1p_is_within_three_ulp() {
        let small = sweep(-1e-3, 1e-3, 50_000);
        let (worst, at) = sweep(-0.999, 1e4, 200_000)
            .chain(small)
            .map(|x| (ulps(ln_1p_f32(x), (x as f64).ln_1p()), x))
            .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
        assert!(worst <= 3.0, "ln_1p worst error {worst} ulp at {at}");
        assert_eq!(ln_1p_f32(1e-30), 1e-30);
        assert_eq!(ln_1p_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(ln_1p_f32(-1.0), f32::NEG_INFINITY);
        assert!(ln_1p_f32(-2.0).is_nan() && ln_1p_f32(f32::NAN).is_nan());
    }

    #[test]
    fn tanh_is_within_three_ulp() {
        let (worst, at) = sweep(-12.0, 12.0, 200_000)
            .map(|x| (ulps(tanh_f32(x), (x as f64).tanh()), x))
            .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
        assert!(worst <= 3.0, "tanh worst error {worst} ulp at {at}");
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(-50.0), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
    }

    #[test]
    fn sin_cos_are_within_three_ulp() {
        for cosine in [false, true] {
            let worst = sweep(-8000.0, 8000.0, 400_000)
                .chain(sweep(-4.0, 4.0, 100_000))
                .map(|x| {
                    let exact = if cosine {
                        (x as f64).cos()
                    } else {
                        (x as f64).sin()
                    };
                    // near a zero of the function, count ulps of 1e-3 (absolute accuracy)
                    let err = ulps(sin_cos_f32(x, cosine), exact);
                    if exact.abs() < 1e-3 {
                        let spacing = (f32::from_bits(1e-3f32.to_bits() + 1) - 1e-3) as f64;
                        return (sin_cos_f32(x, cosine) as f64 - exact).abs() / spacing;
                    }
                    err
                })
                .fold(0.0, f64::max);
            assert!(worst <= 3.0, "cosine={cosine}: worst error {worst} ulp");
        }
        let xs = [1e6f32, f32::INFINITY, 0.5];
        let mut out: Vec<f32> = xs.iter().map(|&x| sin_cos_f32(x, true)).collect();
        fix_large_sin_cos(&xs, &mut out, true);
        assert_eq!(out[0], 1e6f32.cos());
        assert!(out[1].is_nan());
        assert_eq!(out[2], sin_cos_f32(0.5, true));
    }
}
