//! Products too thin to pay for packing (AVX-512 only): a row vector times a matrix, a
//! matrix times a column vector and an outer product, with unit-stride operands.

use super::tile::{lanes, CPtr, MatRef};
use std::arch::x86_64::*;

/// Thin products (AVX-512 only) of more than this many multiply-adds split their outputs over
/// the threads.
#[cfg(target_arch = "x86_64")]
const THIN_PARALLEL: usize = 1 << 18;

/// The shapes [`thin`] computes without packing.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
enum Thin {
    /// `k == 1`, `b` unit-stride along its row: `c[i, :] = a[i, 0]·b[0, :]`, by rows of `c`.
    Outer,
    /// `m == 1`, `b`'s rows unit-stride: `c = Σ_p a[0, p]·b[p, :]`, by columns of `c`.
    RowTimesRows,
    /// `m == 1` or `n == 1`, `a`'s rows and `b`'s columns unit-stride: dot products, by
    /// elements of `c`.
    Dots,
}

/// Products too thin to pay for packing, with unit-stride operands: a row vector times a
/// matrix or a matrix times a column vector (`m == 1` or `n == 1`: a recurrent cell's step at
/// batch 1, a matrix-vector product) and an outer product (`k == 1`: its weight gradient).
/// Writes `c` and returns true, or returns false (nothing written) when the shape or strides
/// do not fit. Large ones split their outputs over `threads`; each output's sum runs in an
/// order fixed by the shape and strides, whatever the thread count.
///
/// # Safety
/// As [`sgemm`]; `c` has `m·n` elements.
#[cfg(target_arch = "x86_64")]
pub(super) unsafe fn thin(
    (m, n, k): (usize, usize, usize),
    a: MatRef,
    b: MatRef,
    c: CPtr,
    threads: usize,
) -> bool {
    if a.indexed() || b.indexed() {
        return false;
    }
    let (kind, outputs, align) = if k == 1 && b.cs == 1 {
        (Thin::Outer, m, 1)
    } else if m == 1 && b.cs == 1 {
        (Thin::RowTimesRows, n, 128)
    } else if (m == 1 || n == 1) && a.cs == 1 && b.rs == 1 {
        (Thin::Dots, m.max(n), 4)
    } else {
        return false;
    };
    let run = |from: usize, to: usize| {
        // SAFETY: the caller's contract; units write disjoint outputs
        unsafe { thin_range(kind, (m, n, k), a, b, c, from, to) }
    };
    if threads > 1 && m * n * k > THIN_PARALLEL && outputs > align {
        let size = outputs.div_ceil(threads).next_multiple_of(align);
        crate::cpu::parallel::for_each_unit(outputs.div_ceil(size), |u| {
            run(u * size, (u * size + size).min(outputs))
        });
    } else {
        run(0, outputs);
    }
    true
}

/// Outputs `from..to` (rows, columns or elements of `c`, see [`Thin`]) of a thin product.
///
/// # Safety
/// As [`thin`], for a product whose shape and strides fit `kind`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn thin_range(
    kind: Thin,
    (m, n, k): (usize, usize, usize),
    a: MatRef,
    b: MatRef,
    c: CPtr,
    from: usize,
    to: usize,
) {
    let c = c.0;
    match kind {
        Thin::Outer => {
            // (masked stores are slow on some CPUs: only a row's last partial vector has one).
            // The sign of a zero product follows PyTorch's CPU BLAS: a matrix-vector product
            // (one row or one column) starts its sums from zero, so -0.0 products give +0.0; a
            // larger product's single term is the product itself (-0.0 stays)
            let (full, tail) = (n - n % 16, lanes(n, n - n % 16));
            let zero = if m == 1 || n == 1 {
                _mm512_setzero_ps()
            } else {
                _mm512_set1_ps(-0.0)
            };
            for i in from..to {
                let ai = _mm512_set1_ps(*a.at_strided(i, 0));
                let out = c.add(i * n);
                for j in (0..full).step_by(16) {
                    let v = _mm512_loadu_ps(b.ptr.add(j));
                    _mm512_storeu_ps(out.add(j), _mm512_fmadd_ps(ai, v, zero));
                }
                if tail != 0 {
                    let v = _mm512_maskz_loadu_ps(tail, b.ptr.add(full));
                    _mm512_mask_storeu_ps(out.add(full), tail, _mm512_fmadd_ps(ai, v, zero));
                }
            }
        }
        Thin::RowTimesRows => {
            // 128 columns at a time, held in registers across the whole depth
            for j in (from..to).step_by(128) {
                let width = (to - j).min(128);
                let row = |p: usize| b.at_strided(p, j);
                let done = match width {
                    128 => row_times_rows::<8>(k, a, row, c.add(j)),
                    64 => row_times_rows::<4>(k, a, row, c.add(j)),
                    32 => row_times_rows::<2>(k, a, row, c.add(j)),
                    16 => row_times_rows::<1>(k, a, row, c.add(j)),
                    _ => false,
                };
                if done {
                    continue;
                }
                let masks: [__mmask16; 8] = std::array::from_fn(|q| lanes(to, j + 16 * q));
                let mut acc = [_mm512_setzero_ps(); 8];
                for p in 0..k {
                    let ap = _mm512_set1_ps(*a.at_strided(0, p));
                    let row = b.at_strided(p, j);
                    for (q, (sum, &mask)) in acc.iter_mut().zip(&masks).enumerate() {
                        if mask == u16::MAX {
                            *sum = _mm512_fmadd_ps(ap, _mm512_loadu_ps(row.add(16 * q)), *sum);
                        } else if mask != 0 {
                            let v = _mm512_maskz_loadu_ps(mask, row.add(16 * q));
                            *sum = _mm512_fmadd_ps(ap, v, *sum);
                        }
                    }
                }
                for (q, (sum, &mask)) in acc.iter().zip(&masks).enumerate() {
                    if mask == u16::MAX {
                        _mm512_storeu_ps(c.add(j + 16 * q), *sum);
                    } else if mask != 0 {
                        _mm512_mask_storeu_ps(c.add(j + 16 * q), mask, *sum);
                    }
                }
            }
        }
        Thin::Dots if k % 16 == 0 && matches!(k / 16, 1 | 2 | 4 | 8 | 16) => {
            // the shared vector (a's row or b's column) held in registers
            let (shared, other, step) = if m == 1 {
                (a.ptr, b.ptr, b.cs)
            } else {
                (b.ptr, a.ptr, a.rs)
            };
            let others = |t: usize| other.offset(t as isize * step);
            let out = c.add(from);
            match k / 16 {
                16 => held_dots::<16>(shared, others, from, to, out),
                8 => held_dots::<8>(shared, others, from, to, out),
                4 => held_dots::<4>(shared, others, from, to, out),
                2 => held_dots::<2>(shared, others, from, to, out),
                1 => held_dots::<1>(shared, others, from, to, out),
                _ => unreachable!("k / 16 is one of the above"),
            }
        }
        Thin::Dots => {
            // four dot products at a time, each in sixteen lanes added up at the end
            let vectors = |t: usize| {
                let (i, j) = if m == 1 { (0, t) } else { (t, 0) };
                (a.at_strided(i, 0), b.at_strided(0, j))
            };
            for t0 in (from..to).step_by(4) {
                let count = 4.min(to - t0);
                let mut acc = [_mm512_setzero_ps(); 4];
                for p in (0..k).step_by(16) {
                    let mask = lanes(k, p);
                    for (q, sum) in acc.iter_mut().enumerate().take(count) {
                        let (x, y) = vectors(t0 + q);
                        let (u, v) = if mask == u16::MAX {
                            (_mm512_loadu_ps(x.add(p)), _mm512_loadu_ps(y.add(p)))
                        } else {
                            let u = _mm512_maskz_loadu_ps(mask, x.add(p));
                            (u, _mm512_maskz_loadu_ps(mask, y.add(p)))
                        };
                        *sum = _mm512_fmadd_ps(u, v, *sum);
                    }
                }
                for (q, sum) in acc.iter().enumerate().take(count) {
                    *c.add(t0 + q) = _mm512_reduce_add_ps(*sum);
                }
            }
        }
    }
}

/// `c[..16·V] = Σ_p a[0, p]·row(p)[..16·V]` with the sums in `V` registers across the whole
/// depth (the unmasked common case of [`Thin::RowTimesRows`]); returns true.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
unsafe fn row_times_rows<const V: usize>(
    k: usize,
    a: MatRef,
    row: impl Fn(usize) -> *const f32,
    c: *mut f32,
) -> bool {
    let mut acc = [_mm512_setzero_ps(); V];
    for p in 0..k {
        let (ap, r) = (_mm512_set1_ps(*a.at_strided(0, p)), row(p));
        for (q, sum) in acc.iter_mut().enumerate() {
            *sum = _mm512_fmadd_ps(ap, _mm512_loadu_ps(r.add(16 * q)), *sum);
        }
    }
    for (q, sum) in acc.iter().enumerate() {
        _mm512_storeu_ps(c.add(16 * q), *sum);
    }
    true
}

/// `c[t - from] = shared · others(t)` for `t` in `from..to`, dot products of `16·V` contiguous
/// floats with `shared` held in registers, four at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
unsafe fn held_dots<const V: usize>(
    shared: *const f32,
    others: impl Fn(usize) -> *const f32,
    from: usize,
    to: usize,
    c: *mut f32,
) {
    let x: [__m512; V] = std::array::from_fn(|q| _mm512_loadu_ps(shared.add(16 * q)));
    let mut t = from;
    while t + 4 <= to {
        let rows = [0, 1, 2, 3].map(|q| others(t + q));
        let mut acc = [_mm512_setzero_ps(); 4];
        for (q, xq) in x.iter().enumerate() {
            for (sum, row) in acc.iter_mut().zip(&rows) {
                *sum = _mm512_fmadd_ps(*xq, _mm512_loadu_ps(row.add(16 * q)), *sum);
            }
        }
        _mm_storeu_ps(c.add(t - from), sum4(acc));
        t += 4;
    }
    for t in t..to {
        let row = others(t);
        let mut sum = _mm512_setzero_ps();
        for (q, xq) in x.iter().enumerate() {
            sum = _mm512_fmadd_ps(*xq, _mm512_loadu_ps(row.add(16 * q)), sum);
        }
        *c.add(t - from) = _mm512_reduce_add_ps(sum);
    }
}

/// The sums of four vectors' lanes, `[Σ v0, Σ v1, Σ v2, Σ v3]`, added pairwise across the four
/// vectors at once (a third of the instructions of four separate reductions).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
unsafe fn sum4([v0, v1, v2, v3]: [__m512; 4]) -> __m128 {
    // per 128-bit lane: [v0 0+2, v0 1+3, v1 0+2, v1 1+3] (and v2, v3 alike)
    let t01 = _mm512_add_ps(_mm512_unpacklo_ps(v0, v1), _mm512_unpackhi_ps(v0, v1));
    let t23 = _mm512_add_ps(_mm512_unpacklo_ps(v2, v3), _mm512_unpackhi_ps(v2, v3));
    // per 128-bit lane: [v0, v1, v2, v3] each summed over the lane's four elements
    let (t01, t23) = (_mm512_castps_pd(t01), _mm512_castps_pd(t23));
    let lo = _mm512_castpd_ps(_mm512_unpacklo_pd(t01, t23));
    let hi = _mm512_castpd_ps(_mm512_unpackhi_pd(t01, t23));
    let u = _mm512_add_ps(lo, hi);
    // then across the four 128-bit lanes
    let halves = _mm256_add_ps(_mm512_castps512_ps256(u), _mm512_extractf32x8_ps::<1>(u));
    _mm_add_ps(
        _mm256_castps256_ps128(halves),
        _mm256_extractf128_ps::<1>(halves),
    )
}
