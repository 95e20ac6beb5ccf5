//! The AVX-512 register tile of the product: 14×32 micro-kernels (28 of the 32 vector
//! registers hold the tile of `C`), one for each height and width of a tile, reading `A`
//! packed or in place (Note [Few columns: A read in place] in `mod.rs`).

use super::tile::{Kernel, LinesKernel, Tile, LINE_ROWS};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Rows of the AVX-512 micro-tile.
const MR: usize = 14;
/// Columns of the AVX-512 micro-tile (two 16-float vectors).
const NR: usize = 32;

/// The AVX-512 tile: 14×32 in 28 of the 32 registers.
pub(super) static TILE: Tile = Tile {
    mr: MR,
    nr: NR,
    kc: 384,
    mc: 196,
    nc: 1024,
    kernel: |height, wide| KERNELS[usize::from(wide)][height - 1],
    avx512: true,
    lines: Some(lines_kernel_for),
};

/// The AVX-512 micro-kernels for each tile width (index 0: at most 16 columns, one vector; 1: up to
/// 32, two) and height `1..=MR` (index `height - 1`): edge tiles cost their own rows and
/// vectors, not a full tile's (a product with 16 columns, such as a convolution's weight
/// gradient for 16 channels, does half the arithmetic of a full-width tile).
const KERNELS: [[Kernel; MR]; 2] = [of_width::<1>(), of_width::<2>()];

/// `[f::<1, V>, f::<2, V>, ..., f::<MR, V>]`: a micro-kernel `f` for each tile height.
macro_rules! by_height {
    ($f:ident, $v:ident) => {
        [
            $f::<1, $v>,
            $f::<2, $v>,
            $f::<3, $v>,
            $f::<4, $v>,
            $f::<5, $v>,
            $f::<6, $v>,
            $f::<7, $v>,
            $f::<8, $v>,
            $f::<9, $v>,
            $f::<10, $v>,
            $f::<11, $v>,
            $f::<12, $v>,
            $f::<13, $v>,
            $f::<14, $v>,
        ]
    };
}

/// The micro-kernels of `V` vectors' width, by height.
const fn of_width<const V: usize>() -> [Kernel; MR] {
    by_height!(kernel, V)
}

/// The micro-kernel: `c (R×width, row stride ldc) (+)= Σ_p a[p]ᵀ·b[p]` over `kc` packed steps
/// (`a`: `MR` floats per step, of which the first `R` are used; `b`: 32 floats per step, of
/// which the first `16·V` are used). The tile's `R×16V` sums stay in registers (28 of the 32
/// for `R = MR`, `V = 2`); columns past `width` are masked off when stored.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
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
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
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

/// The tile's sums `Σ_p a(p, i)·b[p]` over `kc` packed steps of `B` (`NR` floats each), with
/// element `i` of `A`'s step `p` at `a(p, i)`: the kernels' shared loop, always inlined into
/// them (which enable AVX-512), as [`store`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn sums<const R: usize, const V: usize>(
    kc: usize,
    a: impl Fn(usize, usize) -> *const f32,
    b: *const f32,
) -> [[__m512; V]; R] {
    let mut acc = [[_mm512_setzero_ps(); V]; R];
    for p in 0..kc {
        let mut bv = [_mm512_setzero_ps(); V];
        for (v, x) in bv.iter_mut().enumerate() {
            *x = _mm512_loadu_ps(b.add(p * NR + 16 * v));
        }
        for (i, row) in acc.iter_mut().enumerate() {
            let ai = _mm512_set1_ps(*a(p, i));
            for (sum, bx) in row.iter_mut().zip(bv) {
                *sum = _mm512_fmadd_ps(ai, bx, *sum);
            }
        }
    }
    acc
}

/// Stores (or adds, with `accumulate`) a tile's sums into `c` (rows `ldc` apart), columns
/// past `width` masked off; always inlined into the kernels.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store<const R: usize, const V: usize>(
    acc: &[[__m512; V]; R],
    c: *mut f32,
    ldc: usize,
    width: usize,
    accumulate: bool,
) {
    let mask =
        |from: usize| (((1u32 << width.saturating_sub(from).min(16)) - 1) & 0xffff) as __mmask16;
    for (i, row) in acc.iter().enumerate() {
        let out = c.add(i * ldc);
        for (v, &sum) in row.iter().enumerate() {
            let (m, at) = (mask(16 * v), out.wrapping_add(16 * v));
            let total = if accumulate {
                _mm512_add_ps(sum, _mm512_maskz_loadu_ps(m, at))
            } else {
                sum
            };
            _mm512_mask_storeu_ps(at, m, total);
        }
    }
}

/// The in-place micro-kernel for a tile of `height` rows (`1..=MR`), one vector wide or two.
fn lines_kernel_for(height: usize, wide: bool) -> LinesKernel {
    const fn of_width<const V: usize>() -> [LinesKernel; MR] {
        by_height!(lines_kernel, V)
    }
    const KERNELS: [[LinesKernel; MR]; 2] = [of_width::<1>(), of_width::<2>()];
    KERNELS[usize::from(wide)][height - 1]
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn kernel<const R: usize, const V: usize>(
    _: usize,
    _: *const f32,
    _: *const f32,
    _: *mut f32,
    _: usize,
    _: usize,
    _: bool,
) {
    unreachable!("sgemm::available() is false off x86_64")
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn lines_kernel<const R: usize, const V: usize>(
    _: usize,
    _: &[*const f32; LINE_ROWS],
    _: *const f32,
    _: *mut f32,
    _: usize,
    _: usize,
    _: bool,
) {
    unreachable!("sgemm::available() is false off x86_64")
}
