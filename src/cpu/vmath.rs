//! [`crate::cpu::fastmath`]'s float32 `exp` and normal distribution written with vector
//! instructions (AVX-512, or AVX2 with FMA), several vectors at a time (Note [Several vectors
//! through one formula]), and exact GELU's forward and gradient loops built on them.
//!
//! The formulas are fastmath's, coefficient for coefficient, written once over `Lanes` (one
//! vector register of float32 lanes) and compiled for each width; what changes from the
//! portable code is that every `a·b + c` is one fused instruction (Rust does not contract the
//! portable code's multiply-adds, so its wide variants run about twice the instructions) and
//! the constants stay in registers. A fused step rounds once where the portable code rounds
//! twice, so results can differ from it in the last place; both are held to the same bounds
//! against float64 by the tests below. Every lane goes through the same IEEE operations at
//! either width, so AVX-512 and AVX2 give the same bits. The last partial vector of a slice runs
//! through the same code on a padded copy, so an element's result never depends on where a
//! slice starts or ends (the parallel loops cut slices at different places for different thread
//! counts).

use super::fastmath::{ERFC_POLY, EXP_POLY, LN2_PARTS};
use std::arch::x86_64::*;

/// One vector register of float32 lanes and the operations the formulas are written in. The
/// methods are `unsafe` because the CPU must have the instructions of the implementation; each
/// is inlined into a function compiled for them.
pub(crate) trait Lanes: Copy {
    /// Float32 lanes in one vector.
    const WIDTH: usize;
    /// The result of a lane-wise comparison.
    type Mask: Copy;
    /// All lanes `v`.
    unsafe fn splat(v: f32) -> Self;
    /// Loads `WIDTH` floats from `p` (any alignment).
    unsafe fn load(p: *const f32) -> Self;
    /// Stores the lanes at `p` (any alignment).
    unsafe fn store(self, p: *mut f32);
    /// `self + b`
    unsafe fn add(self, b: Self) -> Self;
    /// `self - b`
    unsafe fn sub(self, b: Self) -> Self;
    /// `self · b`
    unsafe fn mul(self, b: Self) -> Self;
    /// `self / b`
    unsafe fn div(self, b: Self) -> Self;
    /// `self · b + c`, rounded once.
    unsafe fn mul_add(self, b: Self, c: Self) -> Self;
    /// `c - self · b`, rounded once.
    unsafe fn neg_mul_add(self, b: Self, c: Self) -> Self;
    /// `max(self, b)`, `b` where either is NaN.
    unsafe fn max(self, b: Self) -> Self;
    /// `min(self, b)`, `b` where either is NaN.
    unsafe fn min(self, b: Self) -> Self;
    /// `|self|`
    unsafe fn abs(self) -> Self;
    /// Rounded to the nearest integer (ties to even).
    unsafe fn round(self) -> Self;
    /// `self · 2^n` for lanes `n` holding integers in [-151, 129], in two steps
    /// (`2^(n/2) · 2^(n - n/2)`) so that both factors stay normal.
    unsafe fn times_pow2(self, n: Self) -> Self;
    /// Lanes where `self > b` (false for NaN).
    unsafe fn gt(self, b: Self) -> Self::Mask;
    /// Lanes where `self < b` (false for NaN).
    unsafe fn lt(self, b: Self) -> Self::Mask;
    /// Lanes where `self >= b` (false for NaN).
    unsafe fn ge(self, b: Self) -> Self::Mask;
    /// Lanes that are NaN.
    unsafe fn is_nan(self) -> Self::Mask;
    /// `yes` in the lanes of `m`, `self` elsewhere.
    unsafe fn select(self, m: Self::Mask, yes: Self) -> Self;
}

/// The methods of [`Lanes`] that are one intrinsic over the operands: `name intrinsic` for
/// `(self, b)`, `name intrinsic (c)` for `(self, b, c)`.
macro_rules! lane_ops {
    ($($name:ident $intrinsic:ident $(($c:ident))?),*) => {$(
        #[inline(always)]
        unsafe fn $name(self, b: Self $(, $c: Self)?) -> Self {
            $intrinsic(self, b $(, $c)?)
        }
    )*};
}

/// `splat`, `load` and `store` of [`Lanes`], by the width's intrinsics.
macro_rules! lane_memory {
    ($set1:ident, $load:ident, $store:ident) => {
        #[inline(always)]
        unsafe fn splat(v: f32) -> Self {
            $set1(v)
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> Self {
            $load(p)
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            $store(p, self)
        }
    };
}

/// The comparisons of [`Lanes`], by the width's `cmp` intrinsic.
macro_rules! lane_compares {
    ($cmp:ident) => {
        #[inline(always)]
        unsafe fn gt(self, b: Self) -> Self::Mask {
            $cmp::<_CMP_GT_OQ>(self, b)
        }
        #[inline(always)]
        unsafe fn lt(self, b: Self) -> Self::Mask {
            $cmp::<_CMP_LT_OQ>(self, b)
        }
        #[inline(always)]
        unsafe fn ge(self, b: Self) -> Self::Mask {
            $cmp::<_CMP_GE_OQ>(self, b)
        }
        #[inline(always)]
        unsafe fn is_nan(self) -> Self::Mask {
            $cmp::<_CMP_UNORD_Q>(self, self)
        }
    };
}

impl Lanes for __m256 {
    const WIDTH: usize = 8;
    type Mask = __m256;
    lane_memory!(_mm256_set1_ps, _mm256_loadu_ps, _mm256_storeu_ps);
    lane_ops!(add _mm256_add_ps, sub _mm256_sub_ps, mul _mm256_mul_ps, div _mm256_div_ps);
    lane_ops!(max _mm256_max_ps, min _mm256_min_ps);
    lane_ops!(mul_add _mm256_fmadd_ps (c), neg_mul_add _mm256_fnmadd_ps (c));
    #[inline(always)]
    unsafe fn abs(self) -> Self {
        _mm256_andnot_ps(_mm256_set1_ps(-0.0), self)
    }
    #[inline(always)]
    unsafe fn round(self) -> Self {
        _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(self)
    }
    #[inline(always)]
    unsafe fn times_pow2(self, n: Self) -> Self {
        let n = _mm256_cvtps_epi32(n);
        let half = _mm256_srai_epi32::<1>(n);
        let pow2 = |k: __m256i| {
            _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
                k,
                _mm256_set1_epi32(127),
            )))
        };
        _mm256_mul_ps(
            _mm256_mul_ps(self, pow2(half)),
            pow2(_mm256_sub_epi32(n, half)),
        )
    }
    lane_compares!(_mm256_cmp_ps);
    #[inline(always)]
    unsafe fn select(self, m: Self::Mask, yes: Self) -> Self {
        _mm256_blendv_ps(self, yes, m)
    }
}

impl Lanes for __m512 {
    const WIDTH: usize = 16;
    type Mask = __mmask16;
    lane_memory!(_mm512_set1_ps, _mm512_loadu_ps, _mm512_storeu_ps);
    lane_ops!(add _mm512_add_ps, sub _mm512_sub_ps, mul _mm512_mul_ps, div _mm512_div_ps);
    lane_ops!(max _mm512_max_ps, min _mm512_min_ps);
    lane_ops!(mul_add _mm512_fmadd_ps (c), neg_mul_add _mm512_fnmadd_ps (c));
    #[inline(always)]
    unsafe fn abs(self) -> Self {
        _mm512_abs_ps(self)
    }
    #[inline(always)]
    unsafe fn round(self) -> Self {
        _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(self)
    }
    #[inline(always)]
    unsafe fn times_pow2(self, n: Self) -> Self {
        // one rounding of the exact product, as the two steps of the AVX2 code
        _mm512_scalef_ps(self, n)
    }
    lane_compares!(_mm512_cmp_ps_mask);
    #[inline(always)]
    unsafe fn select(self, m: Self::Mask, yes: Self) -> Self {
        _mm512_mask_blend_ps(m, self, yes)
    }
}

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
type Group<V, const N: usize> = [V; N];

/// A group built vector by vector: `each!(|i| f)` is `[f(0), …, f(N - 1)]` for the `V` and `N`
/// in scope, written as a loop in the calling function (a closure called from
/// `std::array::from_fn` would be compiled without the caller's vector instructions).
macro_rules! each {
    (|$i:ident| $e:expr) => {{
        let mut group = [V::splat(0.0); N];
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
unsafe fn exp_of<V: Lanes, const N: usize, const EDGES: bool>(x: Group<V, N>) -> Group<V, N> {
    let c = V::splat;
    // max/min with the constant second: a NaN lane becomes the bound, so `n` is finite
    let xc: Group<V, N> = each!(|i| x[i].max(c(-104.0)).min(c(88.8)));
    let n: Group<V, N> = each!(|i| xc[i].mul(c(std::f32::consts::LOG2_E)).round());
    let r: Group<V, N> = each!(|i| n[i].neg_mul_add(c(LN2_PARTS[0]), xc[i]));
    let r: Group<V, N> = each!(|i| n[i].neg_mul_add(c(LN2_PARTS[1]), r[i]));
    let r2: Group<V, N> = each!(|i| r[i].mul(r[i]));
    let pair = |k: usize, i: usize| c(EXP_POLY[k + 1]).mul_add(r[i], c(EXP_POLY[k]));
    let (p0, p2, p4): (Group<V, N>, Group<V, N>, Group<V, N>) = (
        each!(|i| pair(0, i)),
        each!(|i| pair(2, i)),
        each!(|i| pair(4, i)),
    );
    let r4: Group<V, N> = each!(|i| r2[i].mul(r2[i]));
    let low: Group<V, N> = each!(|i| p2[i].mul_add(r2[i], p0[i]));
    let tail: Group<V, N> = each!(|i| p4[i].mul_add(r4[i], low[i]));
    let p: Group<V, N> = each!(|i| r2[i].mul_add(tail[i], r[i]).add(c(1.0)));
    let y: Group<V, N> = each!(|i| p[i].times_pow2(n[i]));
    if !EDGES {
        return y;
    }
    each!(|i| {
        y[i].select(x[i].gt(c(88.722_84)), c(f32::INFINITY))
            .select(x[i].lt(c(-103.972_08)), c(0.0))
            .select(x[i].is_nan(), x[i])
    })
}

/// `Φ(x)` per lane: `erfc(|x|/√2)/2` by fastmath's Chebyshev fit `t·e^(-z² + P(t))`,
/// `t = 1/(1 + z/2)`, taken as is below 0 and from one above.
#[inline(always)]
unsafe fn normal_cdf_of<V: Lanes, const N: usize>(x: Group<V, N>) -> Group<V, N> {
    let c = V::splat;
    let z: Group<V, N> = each!(|i| x[i].mul(c(std::f32::consts::FRAC_1_SQRT_2)).abs());
    let t: Group<V, N> = each!(|i| c(1.0).div(c(0.5).mul_add(z[i], c(1.0))));
    let t2: Group<V, N> = each!(|i| t[i].mul(t[i]));
    let t4: Group<V, N> = each!(|i| t2[i].mul(t2[i]));
    let pair = |k: usize, i: usize| c(ERFC_POLY[k + 1]).mul_add(t[i], c(ERFC_POLY[k]));
    let (p0, p2, p4): (Group<V, N>, Group<V, N>, Group<V, N>) = (
        each!(|i| pair(0, i)),
        each!(|i| pair(2, i)),
        each!(|i| pair(4, i)),
    );
    let (p6, p8): (Group<V, N>, Group<V, N>) = (each!(|i| pair(6, i)), each!(|i| pair(8, i)));
    let low: Group<V, N> = each!(|i| p2[i].mul_add(t2[i], p0[i]));
    let mid: Group<V, N> = each!(|i| p6[i].mul_add(t2[i], p4[i]));
    let t8: Group<V, N> = each!(|i| t4[i].mul(t4[i]));
    let poly: Group<V, N> = each!(|i| p8[i].mul_add(t8[i], mid[i].mul_add(t4[i], low[i])));
    // -z² + P(t) <= 0, and a NaN `x` is NaN in `t`
    let e = exp_of::<V, N, false>(each!(|i| z[i].neg_mul_add(z[i], poly[i])));
    each!(|i| {
        let tail = c(0.5).mul(t[i].mul(e[i]));
        tail.select(x[i].ge(c(0.0)), c(1.0).sub(tail))
    })
}

/// `φ(x) = e^(-x²/2)/√(2π)` per lane, for uses that multiply it by `x` (a NaN `x` gives a
/// finite density).
#[inline(always)]
unsafe fn normal_pdf_of<V: Lanes, const N: usize>(x: Group<V, N>) -> Group<V, N> {
    let c = V::splat;
    let e = exp_of::<V, N, false>(each!(|i| c(-0.5).mul(x[i].mul(x[i]))));
    each!(|i| e[i].mul(c(0.398_942_3)))
}

/// Vectors taken through a formula together by the slice loops.
const GROUP: usize = 2;

/// `out[i] = f(a[i], b[i])` over whole groups of [`GROUP`] vectors, then the remaining
/// whole vectors one at a time, then the tail through a zero-padded vector; `f` takes and
/// gives a group of `N` vectors, and is the same formula at every `N`.
#[inline(always)]
unsafe fn each_vector<V: Lanes>(
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    f: impl Fn(Group<V, GROUP>, Group<V, GROUP>) -> Group<V, GROUP>,
    f1: impl Fn(Group<V, 1>, Group<V, 1>) -> Group<V, 1>,
) {
    let w = V::WIDTH;
    let n = out.len().min(a.len()).min(b.len());
    let whole = n - n % w;
    let grouped = n - n % (w * GROUP);
    for i in (0..grouped).step_by(w * GROUP) {
        const N: usize = GROUP;
        let (pa, pb) = (a.as_ptr().add(i), b.as_ptr().add(i));
        let v = f(
            each!(|v| V::load(pa.add(w * v))),
            each!(|v| V::load(pb.add(w * v))),
        );
        for (k, v) in v.iter().enumerate() {
            v.store(out.as_mut_ptr().add(i + w * k));
        }
    }
    for i in (grouped..whole).step_by(w) {
        let [v] = f1([V::load(a.as_ptr().add(i))], [V::load(b.as_ptr().add(i))]);
        v.store(out.as_mut_ptr().add(i));
    }
    if whole < n {
        let (mut pa, mut pb, mut po) = ([0f32; 16], [0f32; 16], [0f32; 16]);
        pa[..n - whole].copy_from_slice(&a[whole..n]);
        pb[..n - whole].copy_from_slice(&b[whole..n]);
        let [v] = f1([V::load(pa.as_ptr())], [V::load(pb.as_ptr())]);
        v.store(po.as_mut_ptr());
        out[whole..n].copy_from_slice(&po[..n - whole]);
    }
}

/// `x·Φ(x)` for a group (`_` unused).
#[inline(always)]
unsafe fn gelu_of<V: Lanes, const N: usize>(x: Group<V, N>, _: Group<V, N>) -> Group<V, N> {
    let cdf = normal_cdf_of(x);
    each!(|i| x[i].mul(cdf[i]))
}

/// `Φ(x) + x·φ(x)` for a group (`_` unused).
#[inline(always)]
unsafe fn gelu_slope_of<V: Lanes, const N: usize>(x: Group<V, N>, _: Group<V, N>) -> Group<V, N> {
    let (pdf, cdf) = (normal_pdf_of(x), normal_cdf_of(x));
    each!(|i| x[i].mul_add(pdf[i], cdf[i]))
}

/// `g·(Φ(x) + x·φ(x))` for groups `g`, `x`.
#[inline(always)]
unsafe fn gelu_grad_of<V: Lanes, const N: usize>(g: Group<V, N>, x: Group<V, N>) -> Group<V, N> {
    let slope = gelu_slope_of(x, x);
    each!(|i| g[i].mul(slope[i]))
}

/// `$name(a, b, out)`: the slice loop [`each_vector`] with the group formula `$f` (generic
/// over the vector type and the group size) at [`GROUP`] and at one vector, for vectors `$v`
/// on a CPU with `$features`.
macro_rules! slice_kernel {
    ($(#[$doc:meta])* $name:ident, $v:ty, $features:literal, $f:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        #[doc = concat!("The CPU must have ", $features, ".")]
        #[target_feature(enable = $features)]
        pub unsafe fn $name(a: &[f32], b: &[f32], out: &mut [f32]) {
            each_vector::<$v>(a, b, out, |x, y| $f::<$v, GROUP>(x, y), |x, y| $f::<$v, 1>(x, y))
        }
    };
}

slice_kernel!(
    /// Exact GELU, `out = x·Φ(x)` (`b` unused: pass `x` again).
    gelu_avx2, __m256, "avx2,fma", gelu_of
);
slice_kernel!(
    /// Exact GELU, `out = x·Φ(x)` (`b` unused: pass `x` again).
    gelu_avx512, __m512, "avx512f,avx2,fma", gelu_of
);
slice_kernel!(
    /// Exact GELU's derivative, `out = Φ(x) + x·φ(x)` (`b` unused: pass `x` again).
    gelu_slope_avx2, __m256, "avx2,fma", gelu_slope_of
);
slice_kernel!(
    /// Exact GELU's derivative, `out = Φ(x) + x·φ(x)` (`b` unused: pass `x` again).
    gelu_slope_avx512, __m512, "avx512f,avx2,fma", gelu_slope_of
);
slice_kernel!(
    /// Exact GELU's gradient, `out = a·(Φ(b) + b·φ(b))` for gradients `a` and inputs `b`.
    gelu_grad_avx2, __m256, "avx2,fma", gelu_grad_of
);
slice_kernel!(
    /// Exact GELU's gradient, `out = a·(Φ(b) + b·φ(b))` for gradients `a` and inputs `b`.
    gelu_grad_avx512, __m512, "avx512f,avx2,fma", gelu_grad_of
);

#[cfg(test)]
mod tests {
    use super::*;

    /// A slice kernel: `out = f(a, b)` element by element.
    type Kernel = unsafe fn(&[f32], &[f32], &mut [f32]);

    /// The variants of a kernel this CPU can run: AVX2 where it has it, AVX-512 too where it
    /// has that (each checked on its own, and against the other for the same bits).
    fn variants(avx2: Kernel, avx512: Kernel) -> Vec<Kernel> {
        let level = crate::cpu::kernels::simd_level();
        [(1, avx2), (2, avx512)]
            .into_iter()
            .filter(|&(need, _)| level >= need)
            .map(|(_, k)| k)
            .collect()
    }

    fn sweep(lo: f32, hi: f32, n: usize) -> Vec<f32> {
        (0..=n)
            .map(|i| lo + (hi - lo) * i as f32 / n as f32)
            .collect()
    }

    /// `f` over `xs` (and `ys`) as one slice (whole vectors) and element by element (each a
    /// padded tail): the same bits, or the result would depend on where a parallel loop cuts.
    fn run2(xs: &[f32], ys: &[f32], f: Kernel) -> Vec<f32> {
        let mut out = vec![0f32; xs.len()];
        unsafe { f(xs, ys, &mut out) };
        for (i, (&x, &y)) in xs.iter().zip(&out).enumerate().step_by(97) {
            let mut one = [0f32];
            unsafe { f(&xs[i..i + 1], &ys[i..i + 1], &mut one) };
            assert_eq!(
                one[0].to_bits(),
                y.to_bits(),
                "f({x}) depends on its position"
            );
        }
        out
    }

    /// [`run2`] of a one-operand kernel at every width the CPU has, each width giving the
    /// same bits; empty without AVX2.
    fn run(xs: &[f32], avx2: Kernel, avx512: Kernel) -> Vec<f32> {
        let outs: Vec<Vec<f32>> = variants(avx2, avx512)
            .into_iter()
            .map(|k| run2(xs, xs, k))
            .collect();
        for other in outs.iter().skip(1) {
            let same = other.iter().zip(&outs[0]);
            assert!(same.into_iter().all(|(a, b)| a.to_bits() == b.to_bits()));
        }
        outs.into_iter().next().unwrap_or_default()
    }

    /// `e^x` with its edges, for the test.
    #[inline(always)]
    unsafe fn exp_edges<V: Lanes, const N: usize>(x: Group<V, N>, _: Group<V, N>) -> Group<V, N> {
        exp_of::<V, N, true>(x)
    }
    slice_kernel!(
        /// `e^x`.
        exp_avx2, __m256, "avx2,fma", exp_edges
    );
    slice_kernel!(
        /// `e^x`.
        exp_avx512, __m512, "avx512f,avx2,fma", exp_edges
    );

    #[test]
    fn exp_is_within_two_ulp() {
        if crate::cpu::kernels::simd_level() == 0 {
            return; // no AVX2
        }
        let mut xs = sweep(-100.0, 88.0, 200_000);
        xs.extend([f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 100.0, -110.0]);
        let out = run(&xs, exp_avx2, exp_avx512);
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
        if crate::cpu::kernels::simd_level() == 0 {
            return; // no AVX2
        }
        // as fastmath's test of Φ: relative error against float64, allowing for what
        // rounding x²/2 to float32 costs the exponential
        let xs = sweep(-12.0, 8.0, 200_000);
        let out = run(&xs, gelu_avx2, gelu_avx512);
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
            gelu_avx2,
            gelu_avx512,
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
        if crate::cpu::kernels::simd_level() == 0 {
            return; // no AVX2
        }
        let xs = sweep(-12.0, 12.0, 24_000);
        let g: Vec<f32> = xs.iter().map(|x| 0.5 - x * 0.01).collect();
        let slope = run(&xs, gelu_slope_avx2, gelu_slope_avx512);
        let grads: Vec<Vec<f32>> = variants(gelu_grad_avx2, gelu_grad_avx512)
            .into_iter()
            .map(|k| run2(&g, &xs, k))
            .collect();
        let grad = &grads[0];
        assert!(grads.iter().all(|other| other == grad));
        for ((&x, &g), (&s, &d)) in xs.iter().zip(&g).zip(slope.iter().zip(grad)) {
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
        let edges = run(
            &[f32::INFINITY, f32::NEG_INFINITY, f32::NAN],
            gelu_slope_avx2,
            gelu_slope_avx512,
        );
        assert!(edges.iter().all(|e| e.is_nan()));
    }
}
