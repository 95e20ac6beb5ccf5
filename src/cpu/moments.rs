//! Row moments in float64 for the normalization layers: `Σx`, `Σ(x - m)²` and the backward's
//! `(Σg, Σg·(x - m))`, with AVX-512 kernels for float32 and float64 rows (LLVM vectorizes
//! float64 lanes that start from float32 only two at a time). The normalization ops call
//! these and fall back to their plain loops when they return `None`.

use crate::core::buffer::BufferElement;
use crate::core::dtype::DType;

/// `Σx` of a row, in float64.
pub type RowSum<T> = fn(&[T]) -> f64;
/// `Σ(x - m)²` of a row, in float64.
pub type RowSquares<T> = fn(&[T], f64) -> f64;

/// The AVX-512 kernels of `Σx` and `Σ(x - m)²` for rows of `T`, where the CPU has them and
/// `T` is float32 or float64.
pub fn row_sums<T: BufferElement>() -> Option<(RowSum<T>, RowSquares<T>)> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::kernels::simd_level() == 2 {
        // SAFETY (of the casts): `T::DTYPE` says which of f32 and f64 `T` is; (of the calls)
        // the CPU has AVX-512F, checked by `simd_level`
        match T::DTYPE {
            DType::Float32 => {
                return Some((
                    |xs| unsafe { avx512::sum_f32(as_elements(xs)) },
                    |xs, m| unsafe { avx512::squares_f32(as_elements(xs), m) },
                ))
            }
            DType::Float64 => {
                return Some((
                    |xs| unsafe { avx512::sum_f64(as_elements(xs)) },
                    |xs, m| unsafe { avx512::squares_f64(as_elements(xs), m) },
                ))
            }
            _ => {}
        }
    }
    None
}

/// `(Σg, Σg·(x - m))` of a row of incoming gradients `g` and inputs `x` in one pass, in float64,
/// where the CPU has the AVX-512 kernels and `T` is float32 or float64.
#[inline(always)]
pub fn grad_sums<T: BufferElement>(g: &[T], x: &[T], m: f64) -> Option<(f64, f64)> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::kernels::simd_level() == 2 {
        // SAFETY: as in `row_sums`
        match T::DTYPE {
            DType::Float32 => {
                return Some(unsafe { avx512::grad_sums_f32(as_elements(g), as_elements(x), m) })
            }
            DType::Float64 => {
                return Some(unsafe { avx512::grad_sums_f64(as_elements(g), as_elements(x), m) })
            }
            _ => {}
        }
    }
    let _ = (g, x, m);
    None
}

/// `xs` as a slice of `U`.
///
/// # Safety
/// `T` and `U` must be the same type (the callers check `T::DTYPE`).
#[cfg(target_arch = "x86_64")]
unsafe fn as_elements<T, U>(xs: &[T]) -> &[U] {
    debug_assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<U>());
    std::slice::from_raw_parts(xs.as_ptr().cast::<U>(), xs.len())
}

/// Row sums in float64 with AVX-512: four vectors of eight lanes, then the tail.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// The four accumulators added and reduced, plus a scalar tail.
    #[target_feature(enable = "avx512f")]
    unsafe fn total(a: [__m512d; 4], tail: f64) -> f64 {
        let s = _mm512_add_pd(_mm512_add_pd(a[0], a[1]), _mm512_add_pd(a[2], a[3]));
        _mm512_reduce_add_pd(s) + tail
    }

    /// `Σ f(v)` over float64 vectors of eight elements loaded by `load(i)` for `i` in
    /// `0..full` (steps of 8; four independent accumulators), then `tail`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn fold(
        full: usize,
        load: impl Fn(usize) -> __m512d,
        f: impl Fn(__m512d, __m512d) -> __m512d,
        tail: f64,
    ) -> f64 {
        let mut a = [_mm512_setzero_pd(); 4];
        let mut i = 0;
        while i + 32 <= full {
            for (k, acc) in a.iter_mut().enumerate() {
                *acc = f(*acc, load(i + 8 * k));
            }
            i += 32;
        }
        while i + 8 <= full {
            a[0] = f(a[0], load(i));
            i += 8;
        }
        total(a, tail)
    }

    /// `(Σg, Σg·(x - m))` over float64 vectors loaded by `load(i)` (two accumulators each).
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn fold2(
        full: usize,
        load: impl Fn(usize) -> (__m512d, __m512d),
        m: f64,
        tails: (f64, f64),
    ) -> (f64, f64) {
        let mv = _mm512_set1_pd(m);
        let (mut s, mut d) = ([_mm512_setzero_pd(); 4], [_mm512_setzero_pd(); 4]);
        let mut i = 0;
        while i + 16 <= full {
            for k in 0..2 {
                let (g, x) = load(i + 8 * k);
                s[k] = _mm512_add_pd(s[k], g);
                d[k] = _mm512_fmadd_pd(g, _mm512_sub_pd(x, mv), d[k]);
            }
            i += 16;
        }
        while i + 8 <= full {
            let (g, x) = load(i);
            s[2] = _mm512_add_pd(s[2], g);
            d[2] = _mm512_fmadd_pd(g, _mm512_sub_pd(x, mv), d[2]);
            i += 8;
        }
        (total(s, tails.0), total(d, tails.1))
    }

    /// `(Σg, Σg·(x - m))` of float32 rows.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn grad_sums_f32(g: &[f32], x: &[f32], m: f64) -> (f64, f64) {
        let full = g.len() / 8 * 8;
        let tails = g[full..]
            .iter()
            .zip(&x[full..])
            .fold((0.0, 0.0), |(s, d), (&g, &x)| {
                (s + g as f64, d + g as f64 * (x as f64 - m))
            });
        let (pg, px) = (g.as_ptr(), x.as_ptr());
        fold2(
            full,
            |i| {
                (
                    _mm512_cvtps_pd(_mm256_loadu_ps(pg.add(i))),
                    _mm512_cvtps_pd(_mm256_loadu_ps(px.add(i))),
                )
            },
            m,
            tails,
        )
    }

    /// `(Σg, Σg·(x - m))` of float64 rows.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn grad_sums_f64(g: &[f64], x: &[f64], m: f64) -> (f64, f64) {
        let full = g.len() / 8 * 8;
        let tails = g[full..]
            .iter()
            .zip(&x[full..])
            .fold((0.0, 0.0), |(s, d), (&g, &x)| (s + g, d + g * (x - m)));
        let (pg, px) = (g.as_ptr(), x.as_ptr());
        fold2(
            full,
            |i| (_mm512_loadu_pd(pg.add(i)), _mm512_loadu_pd(px.add(i))),
            m,
            tails,
        )
    }

    /// `Σx` of float32 elements.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn sum_f32(xs: &[f32]) -> f64 {
        let full = xs.len() / 8 * 8;
        let tail = xs[full..].iter().map(|&v| v as f64).sum();
        let p = xs.as_ptr();
        fold(
            full,
            |i| _mm512_cvtps_pd(_mm256_loadu_ps(p.add(i))),
            |acc, v| _mm512_add_pd(acc, v),
            tail,
        )
    }

    /// `Σ(x - m)²` of float32 elements.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn squares_f32(xs: &[f32], m: f64) -> f64 {
        let full = xs.len() / 8 * 8;
        let tail = xs[full..]
            .iter()
            .map(|&v| (v as f64 - m) * (v as f64 - m))
            .sum();
        let (p, mv) = (xs.as_ptr(), _mm512_set1_pd(m));
        fold(
            full,
            |i| _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(p.add(i))), mv),
            |acc, d| _mm512_fmadd_pd(d, d, acc),
            tail,
        )
    }

    /// `Σx` of float64 elements.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn sum_f64(xs: &[f64]) -> f64 {
        let full = xs.len() / 8 * 8;
        let tail = xs[full..].iter().sum();
        let p = xs.as_ptr();
        fold(
            full,
            |i| _mm512_loadu_pd(p.add(i)),
            |acc, v| _mm512_add_pd(acc, v),
            tail,
        )
    }

    /// `Σ(x - m)²` of float64 elements.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn squares_f64(xs: &[f64], m: f64) -> f64 {
        let full = xs.len() / 8 * 8;
        let tail = xs[full..].iter().map(|&v| (v - m) * (v - m)).sum();
        let (p, mv) = (xs.as_ptr(), _mm512_set1_pd(m));
        fold(
            full,
            |i| _mm512_sub_pd(_mm512_loadu_pd(p.add(i)), mv),
            |acc, d| _mm512_fmadd_pd(d, d, acc),
            tail,
        )
    }
}
