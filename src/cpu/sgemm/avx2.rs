//! The AVX2 register tile of [`crate::cpu::sgemm`]: a 6×16 micro-kernel (12 of the 16 vector
//! registers hold the tile of `C`, two a step of `B`, one a broadcast element of `A`, as in
//! BLIS's Haswell and Zen kernels) and the packing moves it needs, for CPUs with AVX2 and FMA
//! but not AVX-512. The blocked loops, threads and packing layout are `sgemm`'s.

use super::tile::{Kernel, LinesKernel, Tile, LINE_ROWS};
use std::arch::x86_64::*;

/// Rows of the micro-tile (the rows its in-place kernels read).
pub const MR: usize = 6;
/// Columns of the micro-tile (two 8-float vectors).
pub const NR: usize = 16;

/// The AVX2 tile: 6×16 in 12 of the 16 registers. Block sizes as measured on a Zen 3 (32 KiB
/// L1, 512 KiB L2 a core): kc 256, mc 72-144 and nc 384-4096 within this machine's noise of
/// each other, ~83-90 GFLOP/s a core on (1024×384)·(384×1152), as PyTorch's BLAS.
pub(super) static TILE: Tile = Tile {
    mr: MR,
    nr: NR,
    kc: 256,
    mc: 144,
    nc: 1024,
    kernel: kernel_for,
    avx512: false,
    lines: Some(lines_kernel_for),
};

/// The micro-kernel for a tile of `height` rows (`1..=MR`), one vector wide (at most 8
/// columns) or two.
pub fn kernel_for(height: usize, wide: bool) -> Kernel {
    const KERNELS: [[Kernel; MR]; 2] = [of_width::<1>(), of_width::<2>()];
    KERNELS[usize::from(wide)][height - 1]
}

/// The micro-kernels of `V` vectors' width, by height.
const fn of_width<const V: usize>() -> [Kernel; MR] {
    [
        kernel::<1, V>,
        kernel::<2, V>,
        kernel::<3, V>,
        kernel::<4, V>,
        kernel::<5, V>,
        kernel::<6, V>,
    ]
}

/// The lanes of an 8-float vector starting at element `at` that lie before `len`, as a mask
/// for `_mm256_maskload_ps`/`_mm256_maskstore_ps` (all ones in a lane's sign bit).
#[inline(always)]
unsafe fn lanes(len: usize, at: usize) -> __m256i {
    let valid = len.saturating_sub(at).min(8) as i32;
    _mm256_cmpgt_epi32(
        _mm256_set1_epi32(valid),
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
    )
}

/// The micro-kernel: `c (R×width, row stride ldc) (+)= Σ_p a[p]ᵀ·b[p]` over `kc` packed steps
/// (`a`: `MR` floats per step, of which the first `R` are used; `b`: `NR` floats per step, of
/// which the first `8·V` are used). The tile's `R×8V` sums stay in registers; columns past
/// `width` are masked off when stored.
#[target_feature(enable = "avx2,fma")]
unsafe fn kernel<const R: usize, const V: usize>(
    kc: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    ldc: usize,
    width: usize,
    accumulate: bool,
) {
    let acc = sums::<R, V>(kc, |p, i| a.add(p * MR + i), b);
    store(&acc, c, ldc, width, accumulate);
}

/// The micro-kernel reading its sliver of `A` in place (a [`LinesKernel`]): row `i` of the
/// tile is `kc` contiguous floats at `rows[i]` (`i < R`), otherwise as [`kernel`], with the
/// same multiply-adds in the same order (so the same bits as packing `A` first).
#[target_feature(enable = "avx2,fma")]
unsafe fn lines_kernel<const R: usize, const V: usize>(
    kc: usize,
    rows: &[*const f32; LINE_ROWS],
    b: *const f32,
    c: *mut f32,
    ldc: usize,
    width: usize,
    accumulate: bool,
) {
    let acc = sums::<R, V>(kc, |p, i| rows[i].add(p), b);
    store(&acc, c, ldc, width, accumulate);
}

/// The in-place micro-kernel for a tile of `height` rows (`1..=MR`), one vector wide or two.
pub fn lines_kernel_for(height: usize, wide: bool) -> LinesKernel {
    const fn of_width<const V: usize>() -> [LinesKernel; MR] {
        [
            lines_kernel::<1, V>,
            lines_kernel::<2, V>,
            lines_kernel::<3, V>,
            lines_kernel::<4, V>,
            lines_kernel::<5, V>,
            lines_kernel::<6, V>,
        ]
    }
    const KERNELS: [[LinesKernel; MR]; 2] = [of_width::<1>(), of_width::<2>()];
    KERNELS[usize::from(wide)][height - 1]
}

/// The tile's sums `Σ_p a(p, i)·b[p]` over `kc` packed steps of `B` (`NR` floats each), with
/// element `i` of `A`'s step `p` at `a(p, i)`: the kernels' shared loop. Always inlined into
/// them (which enable AVX2), as [`store`].
#[inline(always)]
unsafe fn sums<const R: usize, const V: usize>(
    kc: usize,
    a: impl Fn(usize, usize) -> *const f32,
    b: *const f32,
) -> [[__m256; V]; R] {
    let mut acc = [[_mm256_setzero_ps(); V]; R];
    for p in 0..kc {
        let mut bv = [_mm256_setzero_ps(); V];
        for (v, x) in bv.iter_mut().enumerate() {
            *x = _mm256_loadu_ps(b.add(p * NR + 8 * v));
        }
        for (i, row) in acc.iter_mut().enumerate() {
            let ai = _mm256_broadcast_ss(&*a(p, i));
            for (sum, bx) in row.iter_mut().zip(bv) {
                *sum = _mm256_fmadd_ps(ai, bx, *sum);
            }
        }
    }
    acc
}

/// Stores (or adds, with `accumulate`) a tile's sums into `c` (rows `ldc` apart), columns
/// past `width` masked off. Always inlined into the kernels (which enable AVX2; a function
/// of its own with the feature enabled could not be forced inline).
#[inline(always)]
unsafe fn store<const R: usize, const V: usize>(
    acc: &[[__m256; V]; R],
    c: *mut f32,
    ldc: usize,
    width: usize,
    accumulate: bool,
) {
    let full = width >= 8 * V;
    for (i, row) in acc.iter().enumerate() {
        let out = c.add(i * ldc);
        for (v, &sum) in row.iter().enumerate() {
            let at = out.wrapping_add(8 * v);
            if full {
                let total = if accumulate {
                    _mm256_add_ps(sum, _mm256_loadu_ps(at))
                } else {
                    sum
                };
                _mm256_storeu_ps(at, total);
            } else {
                let mask = lanes(width, 8 * v);
                let total = if accumulate {
                    _mm256_add_ps(sum, _mm256_maskload_ps(at, mask))
                } else {
                    sum
                };
                _mm256_maskstore_ps(at, mask, total);
            }
        }
    }
}

/// Writes `dst[p·w + j] = row(p)[j]` for `p < kc`, `j < width`, and zeros for `width <= j <
/// w` (`w <= 16`): one sliver from unit-stride rows, by (masked) vector moves.
///
/// # Safety
/// The CPU has AVX2; `row(p)` addresses `width` valid floats for every `p < kc`; `dst` holds
/// `kc·w` floats.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn pack_rows(
    dst: &mut [f32],
    row: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    debug_assert!(w <= 16 && width <= w && dst.len() >= kc * w);
    let (load, store) = (
        [lanes(width, 0), lanes(width, 8)],
        [lanes(w, 0), lanes(w, 8)],
    );
    let out = dst.as_mut_ptr();
    if width == MR && w == MR {
        // an A sliver of a transposed A (a weight gradient's `dyᵀ`): four floats and two
        for p in 0..kc {
            let (from, to) = (row(p), out.add(p * MR));
            _mm_storeu_ps(to, _mm_loadu_ps(from));
            let pair = from.add(4).cast::<u64>().read_unaligned();
            to.add(4).cast::<u64>().write_unaligned(pair);
        }
        return;
    }
    if width == 16 && w == 16 {
        for p in 0..kc {
            let from = row(p);
            _mm256_storeu_ps(out.add(p * 16), _mm256_loadu_ps(from));
            _mm256_storeu_ps(out.add(p * 16 + 8), _mm256_loadu_ps(from.add(8)));
        }
        return;
    }
    for p in 0..kc {
        let from = row(p);
        for v in 0..w.div_ceil(8) {
            let x = _mm256_maskload_ps(from.wrapping_add(8 * v), load[v]);
            _mm256_maskstore_ps(out.add(p * w + 8 * v), store[v], x);
        }
    }
}

/// Writes `dst[p·w + j] = line(j)[p]` for `p < kc`, `j < width`, and zeros for `width <= j <
/// w` (`w <= 16`): one sliver from unit-stride columns (a row-major `A`, a transposed `B`),
/// 8×8 blocks loaded line by line and transposed in registers.
///
/// # Safety
/// The CPU has AVX2; `line(j)` addresses `kc` valid floats for every `j < width`; `dst` holds
/// `kc·w` floats.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn pack_lines(
    dst: &mut [f32],
    line: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    debug_assert!(w <= 16 && width <= w && dst.len() >= kc * w);
    let out = dst.as_mut_ptr();
    for j0 in (0..w).step_by(8) {
        let valid = width.saturating_sub(j0).min(8);
        let store = (w - j0).min(8);
        let store_mask = lanes(store, 0);
        for p0 in (0..kc).step_by(8) {
            let steps = (kc - p0).min(8);
            let mut block = [_mm256_setzero_ps(); 8];
            for (j, row) in block.iter_mut().enumerate().take(valid) {
                let from = line(j0 + j).add(p0);
                *row = if steps == 8 {
                    _mm256_loadu_ps(from)
                } else {
                    _mm256_maskload_ps(from, lanes(steps, 0))
                };
            }
            transpose8(&mut block);
            for (p, column) in block.iter().enumerate().take(steps) {
                let at = out.add((p0 + p) * w + j0);
                match store {
                    8 => _mm256_storeu_ps(at, *column),
                    MR => store_six(at, *column),
                    _ => _mm256_maskstore_ps(at, store_mask, *column),
                }
            }
        }
    }
}

/// Stores the first six floats of `v` at `at` (an A sliver's step): four and two, by plain
/// stores (a masked store costs several times more on some CPUs).
#[target_feature(enable = "avx2,fma")]
unsafe fn store_six(at: *mut f32, v: __m256) {
    _mm_storeu_ps(at, _mm256_castps256_ps128(v));
    let high = _mm256_extractf128_ps::<1>(v);
    at.add(4)
        .cast::<f64>()
        .write_unaligned(_mm_cvtsd_f64(_mm_castps_pd(high)));
}

/// Transposes an 8×8 block held as 8 rows: afterwards `r[k]` holds what was column `k`.
#[target_feature(enable = "avx2,fma")]
fn transpose8(r: &mut [__m256; 8]) {
    // pairs of rows interleaved, then groups of four within each 128-bit lane, then the lanes
    let t: [__m256; 8] = std::array::from_fn(|i| {
        let (x, y) = (r[i & !1], r[i | 1]);
        if i % 2 == 0 {
            _mm256_unpacklo_ps(x, y)
        } else {
            _mm256_unpackhi_ps(x, y)
        }
    });
    // u[4g + c], lane l: rows 4g..4g+4 of column 4l + c
    let mut u = [_mm256_setzero_ps(); 8];
    for g in (0..8).step_by(4) {
        u[g] = _mm256_shuffle_ps::<0x44>(t[g], t[g + 2]);
        u[g + 1] = _mm256_shuffle_ps::<0xEE>(t[g], t[g + 2]);
        u[g + 2] = _mm256_shuffle_ps::<0x44>(t[g + 1], t[g + 3]);
        u[g + 3] = _mm256_shuffle_ps::<0xEE>(t[g + 1], t[g + 3]);
    }
    for c in 0..4 {
        r[c] = _mm256_permute2f128_ps::<0x20>(u[c], u[4 + c]);
        r[4 + c] = _mm256_permute2f128_ps::<0x31>(u[c], u[4 + c]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose8_swaps_rows_and_columns() {
        if crate::cpu::kernels::simd_level() < 1 {
            return;
        }
        let m: Vec<f32> = (0..64).map(|v| v as f32).collect();
        let mut out = [0.0f32; 64];
        // SAFETY: AVX2 is available (checked above); 8 rows of 8 floats in and out
        unsafe {
            let mut rows = [_mm256_setzero_ps(); 8];
            for (i, row) in rows.iter_mut().enumerate() {
                *row = _mm256_loadu_ps(m.as_ptr().add(8 * i));
            }
            transpose8(&mut rows);
            for (k, column) in rows.iter().enumerate() {
                _mm256_storeu_ps(out.as_mut_ptr().add(8 * k), *column);
            }
        }
        for i in 0..8 {
            for k in 0..8 {
                assert_eq!(out[8 * k + i], m[8 * i + k]);
            }
        }
    }
}
