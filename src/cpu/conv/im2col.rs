//! Images to columns and back (`im2col`/`col2im`), on the exact and on the wide grid.

use super::{ConvElement, ConvGeometry};
use crate::cpu::parallel;

/// `dst = src` for short rows: fixed blocks of 8 are moved inline (a `memcpy` call would
/// cost more than a row of a small image).
#[inline(always)]
pub(crate) fn copy_short<T: Copy>(dst: &mut [T], src: &[T]) {
    let n = dst.len();
    let src = &src[..n];
    if n < 8 {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s;
        }
        return;
    }
    let mut k = 0;
    while k + 8 <= n {
        dst[k..k + 8].copy_from_slice(&src[k..k + 8]);
        k += 8;
    }
    if k < n {
        // the last block, overlapping the one before
        dst[n - 8..].copy_from_slice(&src[n - 8..]);
    }
}

/// The range of output positions `o` whose tap `o·stride + offset` falls inside `0..size`.
pub(crate) fn inside(offset: isize, stride: usize, size: usize, count: usize) -> (usize, usize) {
    let s = stride as isize;
    // first o with o·s + offset ≥ 0, first o with o·s + offset ≥ size
    let lo = if offset >= 0 {
        0
    } else {
        (-offset + s - 1) / s
    };
    let hi = if offset >= size as isize {
        0
    } else {
        (size as isize - offset + s - 1) / s
    };
    let lo = (lo as usize).min(count);
    (lo, (hi as usize).clamp(lo, count))
}

/// Writes `im2col` of the image `x` (`channels` planes of the big size) into `cols`: row
/// `(c·kh + i)·kw + j` holds, for every small position, the big pixel under tap `(i, j)`
/// (zero in the padding).
pub(crate) fn im2col<T: ConvElement>(x: &[T], channels: usize, g: &ConvGeometry, cols: &mut [T]) {
    let ([h, w], [oh, ow]) = (g.big, g.small);
    let ([kh, kw], [sh, sw]) = (g.kernel, g.stride);
    let ([ph, pw], [dh, dw]) = (g.padding, g.dilation);
    let plane = oh * ow;
    let mut rows = cols.chunks_exact_mut(plane);
    for c in 0..channels {
        let src = &x[c * h * w..(c + 1) * h * w];
        for i in 0..kh {
            let y_offset = (i * dh) as isize - ph as isize;
            let (y_lo, y_hi) = inside(y_offset, sh, h, oh);
            for j in 0..kw {
                let row = rows.next().expect("cols has a row per tap");
                let x_offset = (j * dw) as isize - pw as isize;
                let (x_lo, x_hi) = inside(x_offset, sw, w, ow);
                row[..y_lo * ow].fill(T::zero());
                row[y_hi * ow..].fill(T::zero());
                for oy in y_lo..y_hi {
                    let line = &src[(oy as isize * sh as isize + y_offset) as usize * w..][..w];
                    let out = &mut row[oy * ow..(oy + 1) * ow];
                    out[..x_lo].fill(T::zero());
                    out[x_hi..].fill(T::zero());
                    let first = (x_lo as isize * sw as isize + x_offset) as usize;
                    if sw == 1 {
                        out[x_lo..x_hi].copy_from_slice(&line[first..first + (x_hi - x_lo)]);
                    } else {
                        for (k, o) in out[x_lo..x_hi].iter_mut().enumerate() {
                            *o = line[first + k * sw];
                        }
                    }
                }
            }
        }
    }
}

/// Adds `col2im` of `cols` into the image `x`: the adjoint of [`im2col`].
pub(crate) fn col2im<T: ConvElement>(cols: &[T], channels: usize, g: &ConvGeometry, x: &mut [T]) {
    let ([h, w], [oh, ow]) = (g.big, g.small);
    let ([kh, kw], [sh, sw]) = (g.kernel, g.stride);
    let ([ph, pw], [dh, dw]) = (g.padding, g.dilation);
    let plane = oh * ow;
    let mut rows = cols.chunks_exact(plane);
    for c in 0..channels {
        let dst = &mut x[c * h * w..(c + 1) * h * w];
        for i in 0..kh {
            let y_offset = (i * dh) as isize - ph as isize;
            let (y_lo, y_hi) = inside(y_offset, sh, h, oh);
            for j in 0..kw {
                let row = rows.next().expect("cols has a row per tap");
                let x_offset = (j * dw) as isize - pw as isize;
                let (x_lo, x_hi) = inside(x_offset, sw, w, ow);
                for oy in y_lo..y_hi {
                    let line = &mut dst[(oy as isize * sh as isize + y_offset) as usize * w..][..w];
                    let src = &row[oy * ow..(oy + 1) * ow];
                    let first = (x_lo as isize * sw as isize + x_offset) as usize;
                    if sw == 1 {
                        let span = &mut line[first..first + (x_hi - x_lo)];
                        span.iter_mut()
                            .zip(&src[x_lo..x_hi])
                            .for_each(|(d, s)| *d += *s);
                    } else {
                        for (k, s) in src[x_lo..x_hi].iter().enumerate() {
                            line[first + k * sw] += *s;
                        }
                    }
                }
            }
        }
    }
}

/// Writes the image `x` (`channels` planes) zero-padded into `padded`: every element of its
/// `channels` padded planes, borders included (so the buffer needs no clearing first).
pub(crate) fn pad_into<T: Copy + Default>(
    x: &[T],
    channels: usize,
    g: &ConvGeometry,
    padded: &mut [T],
) {
    let ([h, w], [hp, wp], [ph, pw]) = (g.big, g.padded_size(), g.padding);
    let zero = T::default();
    for (c, plane) in padded[..channels * hp * wp]
        .chunks_exact_mut(hp * wp)
        .enumerate()
    {
        plane[..ph * wp].fill(zero);
        plane[(ph + h) * wp..].fill(zero);
        for (y, row) in plane[ph * wp..(ph + h) * wp]
            .chunks_exact_mut(wp)
            .enumerate()
        {
            row[..pw].fill(zero);
            copy_short(&mut row[pw..pw + w], &x[(c * h + y) * w..][..w]);
            row[pw + w..].fill(zero);
        }
    }
}

/// Copies the middle of `padded` into the image `x`: the adjoint of [`pad_into`].
pub(crate) fn crop_from<T: Copy>(padded: &[T], channels: usize, g: &ConvGeometry, x: &mut [T]) {
    let ([h, w], [hp, wp], [ph, pw]) = (g.big, g.padded_size(), g.padding);
    for c in 0..channels {
        for y in 0..h {
            copy_short(
                &mut x[(c * h + y) * w..][..w],
                &padded[(c * hp + y + ph) * wp + pw..][..w],
            );
        }
    }
}

/// im2col at unit stride on the wide grid: row `(c·kh + i)·kw + j` is the padded image from
/// tap `(i, j)` on, one contiguous run (the small image's positions `(oy, ox)` sit at
/// `oy·W_padded + ox`; the columns `ox ≥ OW` are junk, the last row's left zero).
pub(crate) fn im2col_wide<T: ConvElement>(
    src: &[T],
    channels: usize,
    g: &ConvGeometry,
    cols: &mut [T],
) {
    let (lw, len) = (g.wide_plane(), g.wide_len());
    for (row, start) in cols.chunks_exact_mut(lw).zip(g.taps(channels)) {
        row[..len].copy_from_slice(&src[start..start + len]);
        row[len..].fill(T::ZERO);
    }
}

/// Adds wide im2col rows back into the padded image: the adjoint of [`im2col_wide`] (junk
/// columns must be zero).
pub(crate) fn col2im_wide<T: ConvElement>(
    cols: &[T],
    channels: usize,
    g: &ConvGeometry,
    dst: &mut [T],
) {
    let len = g.wide_len();
    for (row, start) in cols.chunks_exact(g.wide_plane()).zip(g.taps(channels)) {
        for (d, s) in dst[start..start + len].iter_mut().zip(&row[..len]) {
            *d += *s;
        }
    }
}

/// [`im2col_wide`] with the channels split among `threads` threads (one image at a time
/// gets the parallelism its product has).
pub(crate) fn im2col_wide_on<T: ConvElement>(
    src: &[T],
    channels: usize,
    g: &ConvGeometry,
    cols: &mut [T],
    threads: usize,
) {
    let per = g.kernel[0] * g.kernel[1] * g.wide_plane();
    if threads == 1 || channels < 2 || per == 0 {
        return im2col_wide(src, channels, g, cols);
    }
    let [hp, wp] = g.padded_size();
    parallel::for_each_block(&mut cols[..channels * per], per, |at, block| {
        im2col_wide(&src[at / per * hp * wp..], 1, g, block)
    });
}

/// [`col2im_wide`] with the channels split among `threads` threads.
pub(crate) fn col2im_wide_on<T: ConvElement>(
    cols: &[T],
    channels: usize,
    g: &ConvGeometry,
    dst: &mut [T],
    threads: usize,
) {
    let [hp, wp] = g.padded_size();
    let (per, plane) = (g.kernel[0] * g.kernel[1] * g.wide_plane(), hp * wp);
    if threads == 1 || channels < 2 || plane == 0 {
        return col2im_wide(cols, channels, g, dst);
    }
    parallel::for_each_block(&mut dst[..channels * plane], plane, |at, block| {
        let c = at / plane;
        col2im_wide(&cols[c * per..(c + 1) * per], 1, g, block)
    });
}

/// Zeroes the junk columns of `rows` wide rows (so that a non-finite value there never
/// reaches a sum).
pub(crate) fn clear_junk<T: ConvElement>(m: &mut [T], rows: usize, g: &ConvGeometry) {
    if !g.has_junk() {
        return;
    }
    let ([oh, ow], wp, lw) = (g.small, g.padded_size()[1], g.wide_plane());
    for r in 0..rows {
        let row = &mut m[r * lw..(r + 1) * lw];
        for line in row.chunks_exact_mut(wp).take(oh) {
            for v in &mut line[ow..] {
                *v = T::ZERO;
            }
        }
    }
}

/// The small-image rows of `rows` wide rows, packed.
pub(crate) fn compact<T: Copy>(wide: &[T], rows: usize, g: &ConvGeometry, out: &mut [T]) {
    let ([oh, ow], wp, lw) = (g.small, g.padded_size()[1], g.wide_plane());
    for r in 0..rows {
        for y in 0..oh {
            copy_short(
                &mut out[(r * oh + y) * ow..][..ow],
                &wide[r * lw + y * wp..][..ow],
            );
        }
    }
}

/// `rows` small-image rows spread onto the wide grid, its junk columns (and the last grid
/// row's) written zero.
pub(crate) fn expand<T: Copy + Default>(
    exact: &[T],
    rows: usize,
    g: &ConvGeometry,
    wide: &mut [T],
) {
    let ([oh, ow], wp, lw) = (g.small, g.padded_size()[1], g.wide_plane());
    for r in 0..rows {
        let plane = &mut wide[r * lw..(r + 1) * lw];
        for (y, line) in plane.chunks_exact_mut(wp).take(oh).enumerate() {
            copy_short(&mut line[..ow], &exact[(r * oh + y) * ow..][..ow]);
            line[ow..].fill(T::default());
        }
    }
}
