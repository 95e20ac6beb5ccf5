//! Packing the operands into the slivers the micro-kernels read: `B` as `nr`-column slivers,
//! `A` as `mr`-row slivers, each through whichever stride is 1 (AVX-512 gathers, masked moves
//! and in-register transposes where the CPU has them; the AVX2 tile's own moves otherwise).

#[cfg(target_arch = "x86_64")]
use super::avx2;
use super::tile::{fit, MatRef, Tile};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Packs `b[pc..pc+kc, jc..jc+nc]` as `nr`-column slivers, each `kc` rows of `nr` floats
/// (zero-padded past `nc`).
pub(super) fn pack_b(
    t: &Tile,
    out: &mut [f32],
    b: MatRef,
    (pc, kc): (usize, usize),
    (jc, nc): (usize, usize),
    threads: usize,
) {
    let nr = t.nr;
    let pack = |(panel, dst): (usize, &mut [f32])| {
        let j0 = jc + panel * nr;
        // SAFETY: rows pc..pc+kc and columns j0.. are inside b (the caller's contract)
        unsafe { pack_panel(t, dst, b, (pc, kc), (j0, nr.min(jc + nc - j0))) }
    };
    if threads > 1 && nc * kc >= 1 << 15 {
        crate::cpu::parallel::for_each_block(out, nr * kc, |at, dst| pack((at / (nr * kc), dst)));
    } else {
        out.chunks_mut(nr * kc).enumerate().for_each(pack);
    }
}

/// Packs `b[pc..pc+kc, j0..j0+width]` as one `nr`-column sliver (zero-padded past `width`).
///
/// # Safety
/// Those rows and columns are inside `b`; `dst` holds `kc·nr` floats.
pub(super) unsafe fn pack_panel(
    t: &Tile,
    dst: &mut [f32],
    b: MatRef,
    (pc, kc): (usize, usize),
    (j0, width): (usize, usize),
) {
    if b.indexed() {
        pack_rows(t, dst, |p| b.at_ptr(pc + p, j0), kc, width, t.nr)
    } else {
        pack_sliver(t, dst, b.at_ptr(pc, j0), (b.rs, b.cs), kc, width, t.nr)
    }
}

/// Packs `a[i0..i1, pc..pc+kc]` as `mr`-row slivers, each `kc` columns of `mr` floats.
pub(super) unsafe fn pack_a(
    t: &Tile,
    out: &mut Vec<f32>,
    a: MatRef,
    (i0, i1): (usize, usize),
    (pc, kc): (usize, usize),
) {
    let mr = t.mr;
    let slivers = (i1 - i0).div_ceil(mr);
    fit(out, slivers * mr * kc);
    for (s, dst) in out.chunks_mut(mr * kc).enumerate() {
        let r0 = i0 + s * mr;
        let height = mr.min(i1 - r0);
        // the sliver is A's rows r0.. read as columns: its transpose, packed like B's
        if a.indexed() {
            pack_lines(t, dst, |j| a.at_ptr(r0 + j, pc), kc, height, mr);
        } else {
            pack_sliver(t, dst, a.at_ptr(r0, pc), (a.cs, a.rs), kc, height, mr);
        }
    }
}

/// Writes `dst[p·w + j] = src[p·step + j·across]` for `p < kc`, `j < width`, and zeros for
/// `width <= j < w`: one sliver of a packed operand. Reads along whichever of the two strides
/// is 1, so both row- and column-major sources are read sequentially.
///
/// # Safety
/// `src` must address valid floats at every offset `p·step + j·across` in range, and the CPU
/// must have the tile's instruction set.
unsafe fn pack_sliver(
    t: &Tile,
    dst: &mut [f32],
    src: *const f32,
    (step, across): (isize, isize),
    kc: usize,
    width: usize,
    w: usize,
) {
    if across == 1 {
        return pack_rows(t, dst, |p| src.offset(p as isize * step), kc, width, w);
    }
    if step == 1 {
        return pack_lines(t, dst, |j| src.offset(j as isize * across), kc, width, w);
    }
    #[cfg(target_arch = "x86_64")]
    if t.avx512 && across.unsigned_abs() * w < i32::MAX as usize / 4 {
        return gather_sliver(dst, src, (step, across), kc, width, w);
    }
    for j in 0..width {
        let col = src.offset(j as isize * across);
        for p in 0..kc {
            *dst.get_unchecked_mut(p * w + j) = *col.offset(p as isize * step);
        }
    }
    if width < w {
        for row in dst.chunks_exact_mut(w).take(kc) {
            row[width..].fill(0.0);
        }
    }
}

/// [`pack_sliver`] with AVX-512 for strides of neither 1: 16 columns at a time with one
/// gather per row (the sources are `across` apart).
///
/// # Safety
/// As [`pack_sliver`], on a CPU with AVX-512F, with `|across|·w` below `i32::MAX / 4`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gather_sliver(
    dst: &mut [f32],
    src: *const f32,
    (step, across): (isize, isize),
    kc: usize,
    width: usize,
    w: usize,
) {
    let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let stride = _mm512_set1_epi32(across as i32);
    for j0 in (0..w).step_by(16) {
        let valid = width.saturating_sub(j0).min(16);
        let mask: __mmask16 = ((1u32 << valid) - 1) as __mmask16;
        let index = _mm512_mullo_epi32(lanes, stride);
        let base = src.offset(j0 as isize * across);
        for p in 0..kc {
            let row = base.offset(p as isize * step);
            let v = _mm512_mask_i32gather_ps::<4>(_mm512_setzero_ps(), mask, index, row);
            let out = dst.as_mut_ptr().add(p * w + j0);
            _mm512_mask_storeu_ps(out, ((1u32 << (w - j0).min(16)) - 1) as __mmask16, v);
        }
    }
}

/// [`pack_sliver`] from a source whose sliver rows are contiguous: row `p` (of `width`
/// floats) starts at `row(p)`.
///
/// # Safety
/// As [`pack_sliver`], for every `row(p)`, `p < kc`.
unsafe fn pack_rows(
    t: &Tile,
    dst: &mut [f32],
    row: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if t.avx512 && w <= 2 * 16 {
        return masked_rows(dst, row, kc, width, w);
    } else if !t.avx512 && w <= 16 {
        return avx2::pack_rows(dst, row, kc, width, w);
    }
    for (p, out) in dst.chunks_exact_mut(w).take(kc).enumerate() {
        out[..width].copy_from_slice(std::slice::from_raw_parts(row(p), width));
        out[width..].fill(0.0);
    }
}

/// [`pack_rows`] with AVX-512 for slivers of at most 32 floats: masked vector moves, one or
/// two a row (a `memcpy` call costs more than a row's copy).
///
/// # Safety
/// As [`pack_rows`], on a CPU with AVX-512F, with `w <= 32`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn masked_rows(
    dst: &mut [f32],
    row: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    let lanes = |n: usize, from: usize| ((1u32 << n.saturating_sub(from).min(16)) - 1) as __mmask16;
    let (load, store) = (
        [lanes(width, 0), lanes(width, 16)],
        [lanes(w, 0), lanes(w, 16)],
    );
    for (p, out) in dst.chunks_exact_mut(w).take(kc).enumerate() {
        let from = row(p);
        for v in 0..w.div_ceil(16) {
            let x = _mm512_maskz_loadu_ps(load[v], from.wrapping_add(16 * v));
            _mm512_mask_storeu_ps(out.as_mut_ptr().add(16 * v), store[v], x);
        }
    }
}

/// [`pack_sliver`] from a source whose sliver columns are contiguous (a row-major A, a
/// transposed B): column `j` (of `kc` floats) starts at `line(j)`.
///
/// # Safety
/// As [`pack_sliver`], for every `line(j)`, `j < width`.
unsafe fn pack_lines(
    t: &Tile,
    dst: &mut [f32],
    line: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if t.avx512 {
        return transposed_lines(dst, line, kc, width, w);
    } else if w <= 16 {
        return avx2::pack_lines(dst, line, kc, width, w);
    }
    for p in 0..kc {
        for j in 0..w {
            dst[p * w + j] = if j < width { *line(j).add(p) } else { 0.0 };
        }
    }
}

/// [`pack_lines`] with AVX-512: 16×16 blocks loaded line by line and transposed in registers.
///
/// # Safety
/// As [`pack_lines`], on a CPU with AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn transposed_lines(
    dst: &mut [f32],
    line: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    for j0 in (0..w).step_by(16) {
        let valid = width.saturating_sub(j0).min(16);
        let store = ((1u32 << (w - j0).min(16)) - 1) as __mmask16;
        for p0 in (0..kc).step_by(16) {
            let steps = (kc - p0).min(16);
            let load = ((1u32 << steps) - 1) as __mmask16;
            let mut block = [_mm512_setzero_ps(); 16];
            for (j, row) in block.iter_mut().enumerate().take(valid) {
                *row = _mm512_maskz_loadu_ps(load, line(j0 + j).add(p0));
            }
            transpose16(&mut block);
            for (p, column) in block.iter().enumerate().take(steps) {
                _mm512_mask_storeu_ps(dst.as_mut_ptr().add((p0 + p) * w + j0), store, *column);
            }
        }
    }
}

/// Transposes a 16×16 block held as 16 rows: afterwards `r[k]` holds what was column `k`.
/// Pairs of rows interleaved, then groups of four within each 128-bit lane, then the lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(super) fn transpose16(r: &mut [__m512; 16]) {
    let mut t = [_mm512_setzero_ps(); 16];
    for i in (0..16).step_by(2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    // r[4g + c], lane l: rows 4g..4g+4 of column 4l + c
    for g in (0..16).step_by(4) {
        r[g] = _mm512_shuffle_ps::<0x44>(t[g], t[g + 2]);
        r[g + 1] = _mm512_shuffle_ps::<0xEE>(t[g], t[g + 2]);
        r[g + 2] = _mm512_shuffle_ps::<0x44>(t[g + 1], t[g + 3]);
        r[g + 3] = _mm512_shuffle_ps::<0xEE>(t[g + 1], t[g + 3]);
    }
    for c in 0..4 {
        let (a, b, cc, d) = (r[c], r[4 + c], r[8 + c], r[12 + c]);
        let u0 = _mm512_shuffle_f32x4::<0x44>(a, b);
        let u1 = _mm512_shuffle_f32x4::<0xEE>(a, b);
        let u2 = _mm512_shuffle_f32x4::<0x44>(cc, d);
        let u3 = _mm512_shuffle_f32x4::<0xEE>(cc, d);
        t[c] = _mm512_shuffle_f32x4::<0x88>(u0, u2);
        t[4 + c] = _mm512_shuffle_f32x4::<0xDD>(u0, u2);
        t[8 + c] = _mm512_shuffle_f32x4::<0x88>(u1, u3);
        t[12 + c] = _mm512_shuffle_f32x4::<0xDD>(u1, u3);
    }
    *r = t;
}
