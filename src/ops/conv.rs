//! Convolutions (`conv1d`, `conv2d`, `conv_transpose1d`, `conv_transpose2d`) and the
//! sliding-block maps `unfold` (im2col) and `fold` (col2im), as PyTorch computes and records
//! them.
//!
//! A convolution relates a *big* image (a convolution's input, a transposed convolution's
//! output) and a *small* one through a weight of shape `(C_small, C_big / groups, kh, kw)`,
//! the same for both directions. Three products, each the others' derivative, make every
//! order of gradient:
//!
//! - `down(big, w) = small`: per image and group `W_g @ im2col(big_g)` (a convolution);
//! - `up(small, w) = big`: `col2im(W_gᵀ @ small_g)` (a transposed convolution, the adjoint of
//!   `down` in its image);
//! - `weight(big, small) = w`: `Σ_n small_g @ im2col(big_g)ᵀ`, the weight's gradient.
//!
//! `down`'s gradients are `up(g, w)` and `weight(big, g)`, `up`'s are `down(g, w)` and
//! `weight(g, small)`, `weight`'s are `up(small, gw)` and `down(big, gw)`: all recorded ops,
//! so gradgradcheck holds.
//!
//! Products go through the AVX-512 sgemm (float32) or the `gemm` crate, runs of images in
//! parallel (the weight gradient summed in fixed chunks, so its bits do not depend on the
//! thread count). At unit stride im2col works on a grid as wide as the padded image, where
//! each im2col row is one contiguous run of it (its extra columns are dropped or zeroed); a
//! 1×1 kernel with unit stride and no padding multiplies the image itself; groups of a
//! channel or two each side (depthwise) use direct loops instead of tiny products. Scratch
//! buffers are kept per thread between calls.

use crate::autograd::{is_recording, record, Save};
use crate::core::buffer::BufferElement;
use crate::core::dtype::{DType, Num};
use crate::core::error::{Error, Result};
use crate::core::layout::fmt_shape;
use crate::core::tensor::Tensor;
use crate::cpu::gemm::{GemmElement, Mat};
use crate::cpu::kernels::wide_variants;
use crate::cpu::parallel;
use std::cell::RefCell;
use std::sync::Arc;

/// Multiply-adds of a product below which it runs on one thread.
const PARALLEL_WORK: usize = 1 << 17;
/// Images whose weight gradients one task sums (fixed, so the sums do not depend on the
/// thread count).
const WEIGHT_CHUNK: usize = 4;

/// The sizes of a convolution between a big and a small image (see the module doc). One
/// spatial dim is stored as a second of height 1 (`kernel`, `stride`, `padding`,
/// `dilation` of 1, 1, 0, 1 there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    /// Images.
    pub batch: usize,
    /// Channels of the big image.
    pub big_channels: usize,
    /// Channels of the small image.
    pub small_channels: usize,
    /// Channel groups.
    pub groups: usize,
    /// Height and width of the big image.
    pub big: [usize; 2],
    /// Height and width of the small image.
    pub small: [usize; 2],
    /// Kernel height and width.
    pub kernel: [usize; 2],
    /// Stride.
    pub stride: [usize; 2],
    /// Zero padding of the big image, each side.
    pub padding: [usize; 2],
    /// Spacing of the kernel's taps.
    pub dilation: [usize; 2],
    /// Spatial dims of the tensors: 1 or 2.
    pub spatial: usize,
}

impl ConvGeometry {
    fn image_shape(&self, channels: usize, size: [usize; 2], batch: usize) -> Vec<usize> {
        let mut shape = vec![batch, channels];
        if self.spatial == 2 {
            shape.push(size[0]);
        }
        shape.push(size[1]);
        shape
    }

    /// Shape of the big image tensor.
    pub fn big_shape(&self) -> Vec<usize> {
        self.image_shape(self.big_channels, self.big, self.batch)
    }

    /// Shape of the small image tensor.
    pub fn small_shape(&self) -> Vec<usize> {
        self.image_shape(self.small_channels, self.small, self.batch)
    }

    /// Shape of the weight.
    pub fn weight_shape(&self) -> Vec<usize> {
        self.image_shape(
            self.big_channels / self.groups,
            self.kernel,
            self.small_channels,
        )
    }

    fn big_plane(&self) -> usize {
        self.big[0] * self.big[1]
    }

    fn small_plane(&self) -> usize {
        self.small[0] * self.small[1]
    }

    /// Rows of one group's im2col matrix: `C_big / groups · kh · kw`.
    fn cols_rows(&self) -> usize {
        self.big_channels / self.groups * self.kernel[0] * self.kernel[1]
    }

    /// Unit stride: im2col rows are long contiguous runs of the padded image, the small image
    /// taken on a grid as wide as the padded one (see [`im2col_wide`]).
    fn is_wide(&self) -> bool {
        self.stride == [1, 1]
    }

    /// Height and width of the zero-padded big image.
    fn padded_size(&self) -> [usize; 2] {
        [
            self.big[0] + 2 * self.padding[0],
            self.big[1] + 2 * self.padding[1],
        ]
    }

    /// Elements of the small image on the wide grid: `OH · W_padded`.
    fn wide_plane(&self) -> usize {
        self.small[0] * self.padded_size()[1]
    }

    /// Elements of a wide row that hold taps (the last grid row's extra columns do not).
    fn wide_len(&self) -> usize {
        (self.small[0].max(1) - 1) * self.padded_size()[1] + self.small[1]
    }

    /// Whether the wide grid has columns beyond the small image's.
    fn has_junk(&self) -> bool {
        self.small[1] != self.padded_size()[1]
    }

    /// Groups too small for a matrix product (depthwise convolutions): direct loops, each
    /// weight tap scaling shifted rows of the padded image.
    fn is_direct(&self) -> bool {
        let (cb, cs) = (
            self.big_channels / self.groups,
            self.small_channels / self.groups,
        );
        !self.is_pointwise() && cb * cs <= 4
    }

    /// Whether products read the wide im2col in place, through a table of where each tap's
    /// row starts in the padded image ([`Mat::indexed`]), instead of copying it out: unit
    /// stride, a matrix product, and a kernel that reads row tables.
    fn reads_taps_in_place<T: GemmElement>(&self) -> bool {
        self.is_wide() && !self.is_pointwise() && !self.is_direct() && T::reads_row_tables()
    }

    /// Where each wide im2col row (tap `(c, i, j)`, in [`im2col_wide`]'s order) starts in the
    /// padded image of `channels` planes.
    fn tap_offsets(&self, channels: usize) -> Vec<usize> {
        let ([hp, wp], [kh, kw], [dh, dw]) = (self.padded_size(), self.kernel, self.dilation);
        let mut offsets = Vec::with_capacity(channels * kh * kw);
        for c in 0..channels {
            for i in 0..kh {
                for j in 0..kw {
                    offsets.push(c * hp * wp + i * dh * wp + j * dw);
                }
            }
        }
        offsets
    }

    /// Zeros after the padded image that an in-place im2col's last rows run into: a tap's row
    /// is a whole wide plane long, so the last one ends `(kw - 1)·dw` past the image (in the
    /// junk columns of the grid's last row).
    fn tap_slack(&self) -> usize {
        (self.kernel[1].max(1) - 1) * self.dilation[1]
    }

    /// A 1×1 kernel at unit stride without padding: im2col is the image itself.
    fn is_pointwise(&self) -> bool {
        self.kernel == [1, 1] && self.stride == [1, 1] && self.padding == [0, 0]
    }

    /// The small image's size for a big one of size `big` (PyTorch's output-size formula),
    /// negative when the kernel does not fit.
    pub fn small_size(
        big: usize,
        kernel: usize,
        stride: usize,
        padding: usize,
        dilation: usize,
    ) -> i64 {
        let span = (dilation * (kernel.max(1) - 1) + 1) as i64;
        let room = big as i64 + 2 * padding as i64 - span;
        room.div_euclid(stride as i64) + 1
    }
}

// ---------------------------------------------------------------------------------------------
// kernels
// ---------------------------------------------------------------------------------------------

/// Float element types of the convolution kernels: a matrix product and scratch buffers.
pub(crate) trait ConvElement: GemmElement + BufferElement + Default {
    /// This thread's spare scratch buffers (see [`Scratch`]).
    fn spare() -> &'static std::thread::LocalKey<RefCell<[Vec<Self>; 4]>>;
}

impl ConvElement for f64 {
    fn spare() -> &'static std::thread::LocalKey<RefCell<[Vec<f64>; 4]>> {
        thread_local! {
            static SPARE: RefCell<[Vec<f64>; 4]> = const { RefCell::new([const { Vec::new() }; 4]) };
        }
        &SPARE
    }
}

impl ConvElement for f32 {
    fn spare() -> &'static std::thread::LocalKey<RefCell<[Vec<f32>; 4]>> {
        thread_local! {
            static SPARE: RefCell<[Vec<f32>; 4]> = const { RefCell::new([const { Vec::new() }; 4]) };
        }
        &SPARE
    }
}

/// `dst = src` for short rows: fixed blocks of 8 are moved inline (a `memcpy` call would
/// cost more than a row of a small image).
#[inline(always)]
fn copy_short<T: Copy>(dst: &mut [T], src: &[T]) {
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
fn im2col<T: ConvElement>(x: &[T], channels: usize, g: &ConvGeometry, cols: &mut [T]) {
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
fn col2im<T: ConvElement>(cols: &[T], channels: usize, g: &ConvGeometry, x: &mut [T]) {
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
fn pad_into<T: Copy + Default>(x: &[T], channels: usize, g: &ConvGeometry, padded: &mut [T]) {
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
fn crop_from<T: Copy>(padded: &[T], channels: usize, g: &ConvGeometry, x: &mut [T]) {
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
fn im2col_wide<T: ConvElement>(src: &[T], channels: usize, g: &ConvGeometry, cols: &mut [T]) {
    let ([hp, wp], [kh, kw], [dh, dw]) = (g.padded_size(), g.kernel, g.dilation);
    let (lw, len) = (g.wide_plane(), g.wide_len());
    let mut rows = cols.chunks_exact_mut(lw);
    for c in 0..channels {
        for i in 0..kh {
            for j in 0..kw {
                let row = rows.next().expect("cols has a row per tap");
                let start = c * hp * wp + i * dh * wp + j * dw;
                row[..len].copy_from_slice(&src[start..start + len]);
                row[len..].fill(T::ZERO);
            }
        }
    }
}

/// Adds wide im2col rows back into the padded image: the adjoint of [`im2col_wide`] (junk
/// columns must be zero).
fn col2im_wide<T: ConvElement>(cols: &[T], channels: usize, g: &ConvGeometry, dst: &mut [T]) {
    let ([hp, wp], [kh, kw], [dh, dw]) = (g.padded_size(), g.kernel, g.dilation);
    let (lw, len) = (g.wide_plane(), g.wide_len());
    let mut rows = cols.chunks_exact(lw);
    for c in 0..channels {
        for i in 0..kh {
            for j in 0..kw {
                let row = rows.next().expect("cols has a row per tap");
                let start = c * hp * wp + i * dh * wp + j * dw;
                for (d, s) in dst[start..start + len].iter_mut().zip(&row[..len]) {
                    *d += *s;
                }
            }
        }
    }
}

/// [`im2col_wide`] with the channels split among `threads` threads (one image at a time
/// gets the parallelism its product has).
fn im2col_wide_on<T: ConvElement>(
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
fn col2im_wide_on<T: ConvElement>(
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
fn clear_junk<T: ConvElement>(m: &mut [T], rows: usize, g: &ConvGeometry) {
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
fn compact<T: Copy>(wide: &[T], rows: usize, g: &ConvGeometry, out: &mut [T]) {
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
fn expand<T: Copy + Default>(exact: &[T], rows: usize, g: &ConvGeometry, wide: &mut [T]) {
    let ([oh, ow], wp, lw) = (g.small, g.padded_size()[1], g.wide_plane());
    for r in 0..rows {
        let plane = &mut wide[r * lw..(r + 1) * lw];
        for (y, line) in plane.chunks_exact_mut(wp).take(oh).enumerate() {
            copy_short(&mut line[..ow], &exact[(r * oh + y) * ow..][..ow]);
            line[ow..].fill(T::default());
        }
    }
}

wide_variants!(
    /// `small = conv(padded big, w)` for one group by direct loops (see
    /// [`ConvGeometry::is_direct`]): each weight tap scales shifted rows of the padded image
    /// (at unit stride, one long run of the wide grid, `wide`, compacted after).
    down_direct<T: ConvElement>,
    down_direct_loops,
    (big: &[T], w: &[T], small: &mut [T], wide: &mut [T], g: &ConvGeometry)
);

wide_variants!(
    /// `padded big += conv_transposed(small, w)` for one group by direct loops (at unit stride
    /// and with finite weights, long runs of the wide grid, `wide`, whose junk columns are
    /// zero).
    up_direct<T: ConvElement>,
    up_direct_loops,
    (big: &mut [T], w: &[T], small: &[T], wide: &mut [T], g: &ConvGeometry)
);

wide_variants!(
    /// The weight gradient of one group by direct loops, transposed (`rows × C_small`) as the
    /// weight gradient's products are (at unit stride and with a finite image, dot products
    /// over the wide grid, `wide`, whose junk columns are zero).
    weight_direct<T: ConvElement>,
    weight_direct_loops,
    (big: &[T], gw: &mut [T], small: &[T], wide: &mut [T], g: &ConvGeometry)
);

/// `Σ a·b` in 16 interleaved lanes (which vectorize), then the lanes added.
#[inline(always)]
fn dot<T: ConvElement>(a: &[T], b: &[T]) -> T {
    const LANES: usize = 16;
    let mut lanes = [T::ZERO; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..LANES {
            lanes[k] += x[k] * y[k];
        }
    }
    let mut sum = ra.iter().zip(rb).fold(T::ZERO, |s, (&x, &y)| s + x * y);
    for v in lanes {
        sum += v;
    }
    sum
}

/// The sizes the direct loops walk: `(C_big, C_small, rows)` of one group.
fn direct_sizes(g: &ConvGeometry) -> (usize, usize, usize) {
    (
        g.big_channels / g.groups,
        g.small_channels / g.groups,
        g.cols_rows(),
    )
}

/// Where output row `oy` of tap `(c, i, j)` starts reading the padded image.
#[inline(always)]
fn tap_start(g: &ConvGeometry, c: usize, i: usize, j: usize, oy: usize) -> usize {
    let [hp, wp] = g.padded_size();
    c * hp * wp + (oy * g.stride[0] + i * g.dilation[0]) * wp + j * g.dilation[1]
}

#[inline(always)]
fn down_direct_loops<T: ConvElement>(
    big: &[T],
    w: &[T],
    small: &mut [T],
    wide: &mut [T],
    g: &ConvGeometry,
) {
    let (cb, cs, rows) = direct_sizes(g);
    let ([oh, ow], [kh, kw], sw) = (g.small, g.kernel, g.stride[1]);
    if g.is_wide() {
        let (lw, len) = (g.wide_plane(), g.wide_len());
        for o in 0..cs {
            let acc = &mut wide[o * lw..(o + 1) * lw];
            acc.fill(T::ZERO);
            for c in 0..cb {
                for (i, j) in (0..kh).flat_map(|i| (0..kw).map(move |j| (i, j))) {
                    let wv = w[o * rows + (c * kh + i) * kw + j];
                    let at = tap_start(g, c, i, j, 0);
                    for (d, &x) in acc[..len].iter_mut().zip(&big[at..at + len]) {
                        *d += wv * x;
                    }
                }
            }
        }
        compact(wide, cs, g, small);
        return;
    }
    small.fill(T::ZERO);
    for o in 0..cs {
        for c in 0..cb {
            for (i, j) in (0..kh).flat_map(|i| (0..kw).map(move |j| (i, j))) {
                let wv = w[o * rows + (c * kh + i) * kw + j];
                for oy in 0..oh {
                    let at = tap_start(g, c, i, j, oy);
                    let line = &mut small[(o * oh + oy) * ow..][..ow];
                    if sw == 1 {
                        for (d, &x) in line.iter_mut().zip(&big[at..at + ow]) {
                            *d += wv * x;
                        }
                    } else {
                        for (d, &x) in line.iter_mut().zip(big[at..].iter().step_by(sw)) {
                            *d += wv * x;
                        }
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn up_direct_loops<T: ConvElement>(
    big: &mut [T],
    w: &[T],
    small: &[T],
    wide: &mut [T],
    g: &ConvGeometry,
) {
    let (cb, cs, rows) = direct_sizes(g);
    let ([oh, ow], [kh, kw], sw) = (g.small, g.kernel, g.stride[1]);
    // (a non-finite weight times a junk zero would reach the image: rows then)
    if g.is_wide() && all_finite(w) {
        let (lw, len) = (g.wide_plane(), g.wide_len());
        expand(small, cs, g, wide);
        for o in 0..cs {
            let line = &wide[o * lw..o * lw + len];
            for c in 0..cb {
                for (i, j) in (0..kh).flat_map(|i| (0..kw).map(move |j| (i, j))) {
                    let wv = w[o * rows + (c * kh + i) * kw + j];
                    let at = tap_start(g, c, i, j, 0);
                    for (d, &y) in big[at..at + len].iter_mut().zip(line) {
                        *d += wv * y;
                    }
                }
            }
        }
        return;
    }
    for o in 0..cs {
        for c in 0..cb {
            for (i, j) in (0..kh).flat_map(|i| (0..kw).map(move |j| (i, j))) {
                let wv = w[o * rows + (c * kh + i) * kw + j];
                for oy in 0..oh {
                    let at = tap_start(g, c, i, j, oy);
                    let line = &small[(o * oh + oy) * ow..][..ow];
                    if sw == 1 {
                        for (d, &y) in big[at..at + ow].iter_mut().zip(line) {
                            *d += wv * y;
                        }
                    } else {
                        for (d, &y) in big[at..].iter_mut().step_by(sw).zip(line) {
                            *d += wv * y;
                        }
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn weight_direct_loops<T: ConvElement>(
    big: &[T],
    gw: &mut [T],
    small: &[T],
    wide: &mut [T],
    g: &ConvGeometry,
) {
    let (cb, cs, _) = direct_sizes(g);
    let ([oh, ow], [kh, kw], sw) = (g.small, g.kernel, g.stride[1]);
    // (a non-finite pixel times a junk zero would reach the sums: rows then)
    if g.is_wide() && all_finite(big) {
        let (lw, len) = (g.wide_plane(), g.wide_len());
        expand(small, cs, g, wide);
        for o in 0..cs {
            let line = &wide[o * lw..o * lw + len];
            for c in 0..cb {
                for (i, j) in (0..kh).flat_map(|i| (0..kw).map(move |j| (i, j))) {
                    let at = tap_start(g, c, i, j, 0);
                    gw[((c * kh + i) * kw + j) * cs + o] = dot(line, &big[at..at + len]);
                }
            }
        }
        return;
    }
    for o in 0..cs {
        for c in 0..cb {
            for (i, j) in (0..kh).flat_map(|i| (0..kw).map(move |j| (i, j))) {
                let mut sum = T::ZERO;
                for oy in 0..oh {
                    let at = tap_start(g, c, i, j, oy);
                    let line = &small[(o * oh + oy) * ow..][..ow];
                    for (&y, &x) in line.iter().zip(big[at..].iter().step_by(sw)) {
                        sum += y * x;
                    }
                }
                gw[((c * kh + i) * kw + j) * cs + o] = sum;
            }
        }
    }
}

/// Scratch buffers larger than this (in bytes, all four) go back to the allocator instead of
/// being kept for the thread's next convolution.
const SPARE_BYTES: usize = 16 << 20;

/// Buffers a task reuses for its images, taken from (and given back to) the thread's spares,
/// so a convolution neither allocates nor zeroes them again (only the padded image's borders
/// and the wide grid's junk columns must start zero).
struct Scratch<T: ConvElement> {
    /// im2col of one group.
    cols: Vec<T>,
    /// The zero-padded image of one group (borders always zero).
    padded: Vec<T>,
    /// One group's small image on the wide grid (junk columns zero), or a product before
    /// compaction.
    wide: Vec<T>,
    /// One image's weight product before it is added.
    part: Vec<T>,
}

impl<T: ConvElement> Scratch<T> {
    fn new(g: &ConvGeometry) -> Scratch<T> {
        let (cb, cs) = (g.big_channels / g.groups, g.small_channels / g.groups);
        let rows = g.cols_rows();
        let [hp, wp] = g.padded_size();
        let (cols, padded, wide) = if g.is_pointwise() {
            (0, 0, 0)
        } else if g.reads_taps_in_place::<T>() {
            let wide = if g.has_junk() { cs * g.wide_plane() } else { 0 };
            (0, cb * hp * wp + g.tap_slack(), wide)
        } else if g.is_direct() {
            let wide = if g.is_wide() { cs * g.wide_plane() } else { 0 };
            (0, cb * hp * wp, wide)
        } else if g.is_wide() {
            let padded = if g.padding == [0, 0] { 0 } else { cb * hp * wp };
            let wide = if g.has_junk() { cs * g.wide_plane() } else { 0 };
            (rows * g.wide_plane(), padded, wide)
        } else {
            (rows * g.small_plane(), 0, 0)
        };
        let [mut c, mut p, mut w, mut q] =
            T::spare().with(|s| std::mem::take(&mut *s.borrow_mut()));
        for (v, n) in [
            (&mut c, cols),
            (&mut p, padded),
            (&mut w, wide),
            (&mut q, cs * rows),
        ] {
            if v.len() < n {
                v.resize(n, T::ZERO);
            }
            v.truncate(n);
        }
        // the padded image is written whole by `pad_into`, the wide grid by a product or by
        // `expand`, except in the direct loops
        if g.is_direct() {
            w.fill(T::ZERO);
        }
        Scratch {
            cols: c,
            padded: p,
            wide: w,
            part: q,
        }
    }

    /// The big image `xg` (one group) as the wide im2col reads it: padded, or itself.
    fn padded_source<'a>(&'a mut self, xg: &'a [T], cb: usize, g: &ConvGeometry) -> &'a [T] {
        if g.padding == [0, 0] {
            xg
        } else {
            pad_into(xg, cb, g, &mut self.padded);
            &self.padded
        }
    }

    /// The big image `xg` (one group) padded, with the zeros after it that an in-place
    /// im2col reads ([`ConvGeometry::tap_slack`]).
    fn padded_copy(&mut self, xg: &[T], cb: usize, g: &ConvGeometry) -> &[T] {
        pad_into(xg, cb, g, &mut self.padded);
        let [hp, wp] = g.padded_size();
        self.padded[cb * hp * wp..].fill(T::ZERO);
        &self.padded
    }
}

impl<T: ConvElement> Drop for Scratch<T> {
    fn drop(&mut self) {
        let bufs = [
            std::mem::take(&mut self.cols),
            std::mem::take(&mut self.padded),
            std::mem::take(&mut self.wide),
            std::mem::take(&mut self.part),
        ];
        let elements: usize = bufs.iter().map(|b| b.capacity()).sum();
        if elements * std::mem::size_of::<T>() <= SPARE_BYTES {
            T::spare().with(|s| *s.borrow_mut() = bufs);
        }
    }
}

/// Whether every element of `v` is finite: blocks checked whole (no exit inside a block), so
/// the check vectorizes; it reads each image once more before the in-place products.
fn all_finite<T: GemmElement>(v: &[T]) -> bool {
    v.chunks(256)
        .all(|block| block.iter().fold(true, |ok, x| ok & x.is_finite()))
}

/// Runs `f(images, out_block, gemm_threads)` over runs of images and their blocks of `out`:
/// runs in parallel when there are enough images, else all of them at once with parallel
/// products.
fn for_each_image<T: Send>(
    out: &mut [T],
    batch: usize,
    work: usize,
    f: impl Fn(std::ops::Range<usize>, &mut [T], usize) + Sync,
) {
    if batch == 0 || out.is_empty() {
        return;
    }
    let per_image = out.len() / batch;
    let threads = parallel::num_threads();
    if threads > 1 && batch > 1 && work >= PARALLEL_WORK {
        let images = batch.div_ceil(batch.min(threads * 4));
        parallel::for_each_block(out, images * per_image, |at, block| {
            let first = at / per_image;
            f(first..first + block.len() / per_image, block, 1)
        });
    } else {
        let inner = if work >= PARALLEL_WORK { threads } else { 1 };
        f(0..batch, out, inner)
    }
}

/// `down`: the small image `W_g @ im2col(big_g)` per image and group, plus the bias.
fn down_kernel<T: ConvElement>(x: &[T], w: &[T], bias: Option<&[T]>, g: &ConvGeometry) -> Vec<T> {
    let (cb, cs) = (g.big_channels / g.groups, g.small_channels / g.groups);
    let (lb, ls, rows, lw) = (
        g.big_plane(),
        g.small_plane(),
        g.cols_rows(),
        g.wide_plane(),
    );
    let per_image = g.small_channels * ls;
    let mut y = crate::core::pool::buffer::<T>(g.batch * per_image);
    let work = g.batch * per_image * rows;
    let taps = g.tap_offsets(cb);
    for_each_image(&mut y, g.batch, work, |images, out, threads| {
        let mut s = Scratch::<T>::new(g);
        for (k, n) in images.enumerate() {
            let out = &mut out[k * per_image..(k + 1) * per_image];
            for grp in 0..g.groups {
                let xg = &x[(n * g.big_channels + grp * cb) * lb..][..cb * lb];
                let a = Mat::rows(&w[grp * cs * rows..][..cs * rows], rows);
                let yg = &mut out[grp * cs * ls..][..cs * ls];
                // SAFETY (each product): dense row-major operands of the sizes given
                if g.is_pointwise() {
                    unsafe { T::gemm(cs, ls, rows, a, Mat::rows(xg, ls), yg, threads) };
                } else if g.reads_taps_in_place::<T>() {
                    let mut wide = std::mem::take(&mut s.wide);
                    let b = Mat::indexed(s.padded_copy(xg, cb, g), &taps);
                    if g.has_junk() {
                        unsafe { T::gemm(cs, lw, rows, a, b, &mut wide, threads) };
                        compact(&wide, cs, g, yg);
                    } else {
                        unsafe { T::gemm(cs, lw, rows, a, b, yg, threads) };
                    }
                    s.wide = wide;
                } else if g.is_direct() {
                    let wg = &w[grp * cs * rows..][..cs * rows];
                    let mut wide = std::mem::take(&mut s.wide);
                    down_direct(s.padded_source(xg, cb, g), wg, yg, &mut wide, g);
                    s.wide = wide;
                } else if g.is_wide() {
                    let mut cols = std::mem::take(&mut s.cols);
                    im2col_wide_on(s.padded_source(xg, cb, g), cb, g, &mut cols, threads);
                    let b = Mat::rows(&cols, lw);
                    if g.has_junk() {
                        unsafe { T::gemm(cs, lw, rows, a, b, &mut s.wide, threads) };
                        compact(&s.wide, cs, g, yg);
                    } else {
                        unsafe { T::gemm(cs, lw, rows, a, b, yg, threads) };
                    }
                    s.cols = cols;
                } else {
                    im2col(xg, cb, g, &mut s.cols);
                    unsafe { T::gemm(cs, ls, rows, a, Mat::rows(&s.cols, ls), yg, threads) };
                }
            }
            if let Some(b) = bias {
                for (plane, &bo) in out.chunks_exact_mut(ls.max(1)).zip(b) {
                    plane.iter_mut().for_each(|v| *v += bo);
                }
            }
        }
    });
    y
}

/// `up` at unit stride as a `down` (Note [Unit-stride up as a convolution]): the geometry
/// with the images' roles swapped, when the small image padded by `d·(k - 1) - p` each side
/// covers every tap (padding at most `d·(k - 1)`), for the products that read taps in place.
fn up_as_down<T: GemmElement>(g: &ConvGeometry) -> Option<ConvGeometry> {
    let fits = (0..2).all(|d| g.padding[d] <= g.dilation[d] * (g.kernel[d].max(1) - 1));
    if !g.reads_taps_in_place::<T>() || !fits {
        return None;
    }
    let padding = [0, 1].map(|d| g.dilation[d] * (g.kernel[d] - 1) - g.padding[d]);
    let swapped = ConvGeometry {
        big_channels: g.small_channels,
        small_channels: g.big_channels,
        big: g.small,
        small: g.big,
        padding,
        ..*g
    };
    swapped.reads_taps_in_place::<T>().then_some(swapped)
}

/// The weight of [`up_as_down`]'s convolution: per group, `w'[b, s, i, j] = w[s, b, kh-1-i,
/// kw-1-j]` (channels swapped, taps reversed).
fn flipped_weight<T: Copy>(w: &[T], g: &ConvGeometry) -> Vec<T> {
    let (cb, cs) = (g.big_channels / g.groups, g.small_channels / g.groups);
    let [kh, kw] = g.kernel;
    let taps = kh * kw;
    let mut out = w.to_vec();
    for grp in 0..g.groups {
        for s in 0..cs {
            for b in 0..cb {
                let from = &w[((grp * cs + s) * cb + b) * taps..][..taps];
                let to = &mut out[((grp * cb + b) * cs + s) * taps..][..taps];
                for (t, v) in to.iter_mut().zip(from.iter().rev()) {
                    *t = *v;
                }
            }
        }
    }
    out
}

// Note [Unit-stride up as a convolution]
// At unit stride, `up` (a convolution's input gradient, a transposed convolution) is itself a
// convolution: big[b, y, x] = Σ_{s,i,j} w[s, b, i, j]·small[s, y + p - d·i, x + p - d·j],
// which is `down` of the small image padded by p' = d·(k - 1) - p each side, with the weight's
// channels swapped and its taps reversed (i' = k - 1 - i): the tap offsets y + p' + d·i' -
// p' ... line up. So it runs as one product per image reading its taps in place, with no
// im2col matrix and no col2im scatter (and its depth is C_small·kh·kw, not C_small alone).

/// `up`: the big image `col2im(W_gᵀ @ small_g)` per image and group, plus the bias.
fn up_kernel<T: ConvElement>(y: &[T], w: &[T], bias: Option<&[T]>, g: &ConvGeometry) -> Vec<T> {
    if let Some(swapped) = up_as_down::<T>(g) {
        return down_kernel(y, &flipped_weight(w, g), bias, &swapped);
    }
    let (cb, cs) = (g.big_channels / g.groups, g.small_channels / g.groups);
    let (lb, ls, rows, lw) = (
        g.big_plane(),
        g.small_plane(),
        g.cols_rows(),
        g.wide_plane(),
    );
    let per_image = g.big_channels * lb;
    let mut x = crate::core::pool::buffer::<T>(g.batch * per_image);
    let work = g.batch * g.small_channels * ls * rows;
    for_each_image(&mut x, g.batch, work, |images, out, threads| {
        let mut s = Scratch::<T>::new(g);
        for (k, n) in images.enumerate() {
            let out = &mut out[k * per_image..(k + 1) * per_image];
            let copied_in = g.is_pointwise() || (g.is_wide() && g.padding != [0, 0]);
            let copied_in = copied_in || (g.is_direct() && g.padding != [0, 0]);
            if !copied_in {
                // col2im adds into the image (the padded path copies its result in)
                out.fill(T::ZERO);
            }
            for grp in 0..g.groups {
                let yg = &y[(n * g.small_channels + grp * cs) * ls..][..cs * ls];
                let a = Mat::transposed(&w[grp * cs * rows..][..cs * rows], rows);
                let xg = &mut out[grp * cb * lb..][..cb * lb];
                // SAFETY (each product): dense operands of the sizes given, outputs apart
                if g.is_pointwise() {
                    unsafe { T::gemm(rows, ls, cs, a, Mat::rows(yg, ls), xg, threads) };
                } else if g.is_direct() {
                    let wg = &w[grp * cs * rows..][..cs * rows];
                    if g.padding == [0, 0] {
                        up_direct(xg, wg, yg, &mut s.wide, g);
                    } else {
                        s.padded.fill(T::ZERO);
                        up_direct(&mut s.padded, wg, yg, &mut s.wide, g);
                        crop_from(&s.padded, cb, g, xg);
                    }
                } else if g.is_wide() {
                    let yw = if g.has_junk() {
                        expand(yg, cs, g, &mut s.wide);
                        &s.wide[..]
                    } else {
                        yg
                    };
                    s.cols.resize(rows * lw, T::ZERO);
                    unsafe { T::gemm(rows, lw, cs, a, Mat::rows(yw, lw), &mut s.cols, threads) };
                    clear_junk(&mut s.cols, rows, g);
                    if g.padding == [0, 0] {
                        col2im_wide_on(&s.cols, cb, g, xg, threads);
                    } else {
                        s.padded.fill(T::ZERO);
                        col2im_wide_on(&s.cols, cb, g, &mut s.padded, threads);
                        crop_from(&s.padded, cb, g, xg);
                    }
                } else {
                    unsafe { T::gemm(rows, ls, cs, a, Mat::rows(yg, ls), &mut s.cols, threads) };
                    col2im(&s.cols, cb, g, xg);
                }
            }
            if let Some(b) = bias {
                for (plane, &bc) in out.chunks_exact_mut(lb.max(1)).zip(b) {
                    plane.iter_mut().for_each(|v| *v += bc);
                }
            }
        }
    });
    x
}

/// `weight`: `Σ_n small_g @ im2col(big_g)ᵀ` per group, as `(C_small, rows)`: images summed
/// in fixed chunks, in parallel, and the chunks' sums added in order (the same bits whatever
/// the thread count). Each product is taken transposed, `im2col(big_g) @ small_gᵀ`
/// (`rows × C_small`): the tall side then fills the matrix kernel's rows and the few
/// channels its columns.
fn weight_kernel<T: ConvElement>(x: &[T], y: &[T], g: &ConvGeometry) -> Vec<T> {
    let (cb, cs) = (g.big_channels / g.groups, g.small_channels / g.groups);
    let (lb, ls, rows, lw) = (
        g.big_plane(),
        g.small_plane(),
        g.cols_rows(),
        g.wide_plane(),
    );
    let size = g.small_channels * rows;
    let chunks = g.batch.div_ceil(WEIGHT_CHUNK).max(1);
    let mut partial = vec![T::ZERO; chunks * size];
    if size == 0 {
        return partial;
    }
    let work = g.batch * size * ls;
    let threads = parallel::num_threads();
    let taps = g.tap_offsets(cb);
    let task = |chunk: usize, acc: &mut [T], threads: usize| {
        let mut s = Scratch::<T>::new(g);
        for n in chunk * WEIGHT_CHUNK..((chunk + 1) * WEIGHT_CHUNK).min(g.batch) {
            let first = n == chunk * WEIGHT_CHUNK;
            for grp in 0..g.groups {
                let xg = &x[(n * g.big_channels + grp * cb) * lb..][..cb * lb];
                let yg = &y[(n * g.small_channels + grp * cs) * ls..][..cs * ls];
                let dst = &mut acc[grp * cs * rows..][..cs * rows];
                let mut part = std::mem::take(&mut s.part);
                let target = if first { &mut dst[..] } else { &mut part[..] };
                // SAFETY (each product): dense operands of the sizes given
                if g.is_pointwise() {
                    let (a, b) = (Mat::rows(xg, ls), Mat::transposed(yg, ls));
                    unsafe { T::gemm(rows, cs, ls, a, b, target, threads) };
                } else if g.reads_taps_in_place::<T>() && all_finite(xg) {
                    // the in-place rows' junk columns hold image pixels (wrapped around from
                    // the next grid row), met by the gradient's zero junk: 0·x = 0 for a
                    // finite x, while a non-finite one takes the copying path below
                    let mut wide = std::mem::take(&mut s.wide);
                    let yw = if g.has_junk() {
                        expand(yg, cs, g, &mut wide);
                        &wide[..]
                    } else {
                        yg
                    };
                    let a = Mat::indexed(s.padded_copy(xg, cb, g), &taps);
                    unsafe { T::gemm(rows, cs, lw, a, Mat::transposed(yw, lw), target, threads) };
                    s.wide = wide;
                } else if g.is_direct() {
                    let mut wide = std::mem::take(&mut s.wide);
                    weight_direct(s.padded_source(xg, cb, g), target, yg, &mut wide, g);
                    s.wide = wide;
                } else if g.is_wide() {
                    let mut cols = std::mem::take(&mut s.cols);
                    cols.resize(rows * lw, T::ZERO);
                    im2col_wide_on(s.padded_source(xg, cb, g), cb, g, &mut cols, threads);
                    clear_junk(&mut cols, rows, g);
                    let yw = if g.has_junk() {
                        expand(yg, cs, g, &mut s.wide);
                        &s.wide[..]
                    } else {
                        yg
                    };
                    let (a, b) = (Mat::rows(&cols, lw), Mat::transposed(yw, lw));
                    unsafe { T::gemm(rows, cs, lw, a, b, target, threads) };
                    s.cols = cols;
                } else {
                    im2col(xg, cb, g, &mut s.cols);
                    let (a, b) = (Mat::rows(&s.cols, ls), Mat::transposed(yg, ls));
                    unsafe { T::gemm(rows, cs, ls, a, b, target, threads) };
                }
                if !first {
                    dst.iter_mut().zip(&part).for_each(|(d, p)| *d += *p);
                }
                s.part = part;
            }
        }
    };
    if threads > 1 && chunks > 1 && work >= PARALLEL_WORK {
        parallel::for_each_block(&mut partial, size, |at, acc| task(at / size, acc, 1));
    } else {
        let inner = if work / chunks >= PARALLEL_WORK {
            threads
        } else {
            1
        };
        for (chunk, acc) in partial.chunks_mut(size).enumerate() {
            task(chunk, acc, inner);
        }
    }
    let (sum, parts) = partial.split_at_mut(size);
    for part in parts.chunks(size) {
        sum.iter_mut().zip(part).for_each(|(s, p)| *s += *p);
    }
    // each group's (rows × cs) sum, transposed into the weight's (cs × rows)
    let mut weight = vec![T::ZERO; size];
    for (w, t) in weight
        .chunks_exact_mut(cs * rows)
        .zip(sum.chunks_exact(cs * rows))
    {
        for (r, line) in t.chunks_exact(cs).enumerate() {
            for (o, &v) in line.iter().enumerate() {
                w[o * rows + r] = v;
            }
        }
    }
    weight
}

// ---------------------------------------------------------------------------------------------
// ops
// ---------------------------------------------------------------------------------------------

/// A dense copy of `t`'s elements when it is not already dense (no history).
pub(crate) fn dense(t: &Tensor) -> Tensor {
    if t.is_contiguous() {
        t.detach()
    } else {
        t.deep_copy()
    }
}

/// Runs `f` on the elements of the dense tensor `t`.
pub(crate) fn slice_of<T: BufferElement, R>(t: &Tensor, f: impl FnOnce(&[T]) -> R) -> R {
    t.read(|d: &[T], l| f(&d[l.contiguous_range().expect("a dense tensor")]))
}

/// Which image a convolution op computes from the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    /// Big to small: a convolution.
    Down,
    /// Small to big: a transposed convolution.
    Up,
}

impl Direction {
    fn flip(self) -> Direction {
        match self {
            Direction::Down => Direction::Up,
            Direction::Up => Direction::Down,
        }
    }
}

/// `down` or `up` of `input` with `weight` (and `bias`), recorded as `ConvolutionBackward0`
/// with its three inputs (a missing bias is a `None` edge, as PyTorch's).
fn conv_op(
    dir: Direction,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    g: ConvGeometry,
) -> Result<Tensor> {
    let (x, w) = (dense(input), dense(weight));
    let b = bias.map(dense);
    let out_shape = match dir {
        Direction::Down => g.small_shape(),
        Direction::Up => g.big_shape(),
    };
    let out = crate::with_float!(x.dtype(), T => {
        let data = slice_of(&x, |xs: &[T]| {
            slice_of(&w, |ws: &[T]| match &b {
                Some(b) => slice_of(b, |bs: &[T]| kernel(dir, xs, ws, Some(bs), &g)),
                None => kernel(dir, xs, ws, None, &g),
            })
        });
        Tensor::from_vec(data, &out_shape)?
    });
    let absent;
    let bias_input = match bias {
        Some(b) => b,
        None => {
            absent = Tensor::zeros(&[0], input.dtype());
            &absent
        }
    };
    if !is_recording(&[input, weight, bias_input]) {
        return Ok(out);
    }
    Ok(record(
        out,
        "ConvolutionBackward0",
        &[input, weight, bias_input],
        &[Save::Tensor(input), Save::Tensor(weight)],
        move |ctx| {
            let (gy, x, w) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
            let gx = match ctx.needs_input_grad(0) {
                true => Some(conv_op(dir.flip(), gy, w, None, g)?),
                false => None,
            };
            let gw = match ctx.needs_input_grad(1) {
                true => Some(match dir {
                    Direction::Down => weight_op(x, gy, g)?,
                    Direction::Up => weight_op(gy, x, g)?,
                }),
                false => None,
            };
            let gb = match ctx.needs_input_grad(2) {
                true => Some(channel_sum(gy)?),
                false => None,
            };
            Ok(vec![gx, gw, gb])
        },
    ))
}

fn kernel<T: ConvElement>(
    dir: Direction,
    x: &[T],
    w: &[T],
    b: Option<&[T]>,
    g: &ConvGeometry,
) -> Vec<T> {
    match dir {
        Direction::Down => down_kernel(x, w, b, g),
        Direction::Up => up_kernel(x, w, b, g),
    }
}

/// The weight gradient `weight(big, small)`, recorded (`ConvolutionBackwardBackward0`, the
/// name PyTorch gives a convolution's differentiated backward) with its own gradients.
fn weight_op(big: &Tensor, small: &Tensor, g: ConvGeometry) -> Result<Tensor> {
    let (x, y) = (dense(big), dense(small));
    let out = crate::with_float!(x.dtype(), T => {
        let data = slice_of(&x, |xs: &[T]| slice_of(&y, |ys: &[T]| weight_kernel(xs, ys, &g)));
        Tensor::from_vec(data, &g.weight_shape())?
    });
    if !is_recording(&[big, small]) {
        return Ok(out);
    }
    Ok(record(
        out,
        "ConvolutionBackwardBackward0",
        &[big, small],
        &[Save::Tensor(big), Save::Tensor(small)],
        move |ctx| {
            let (gw, x, y) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
            let gx = match ctx.needs_input_grad(0) {
                true => Some(conv_op(Direction::Up, y, gw, None, g)?),
                false => None,
            };
            let gy = match ctx.needs_input_grad(1) {
                true => Some(conv_op(Direction::Down, x, gw, None, g)?),
                false => None,
            };
            Ok(vec![gx, gy])
        },
    ))
}

/// The sum of an `(N, C, ...)` tensor over every dim but the channels (a bias's gradient),
/// recorded as the `sum` over those dims is (`SumBackward1`: its gradient is expanded back).
fn channel_sum(g: &Tensor) -> Result<Tensor> {
    let shape = g.shape().to_vec();
    let (batch, channels) = (shape[0], shape[1]);
    let plane: usize = shape[2..].iter().product();
    let x = dense(g);
    let out = crate::with_float!(x.dtype(), T => {
        let sums = slice_of(&x, |xs: &[T]| {
            let mut sums = vec![T::ZERO; channels];
            for n in 0..batch {
                for (c, s) in sums.iter_mut().enumerate() {
                    let at = (n * channels + c) * plane;
                    *s += crate::cpu::kernels::pairwise_sum(&xs[at..at + plane]);
                }
            }
            sums
        });
        Tensor::from_vec(sums, &[channels])?
    });
    if !is_recording(&[g]) {
        return Ok(out);
    }
    Ok(record(out, "SumBackward1", &[g], &[], move |ctx| {
        let mut kept = vec![1isize; shape.len()];
        kept[1] = channels as isize;
        let target: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
        Ok(vec![Some(ctx.grad(0).reshape(&kept)?.expand(&target)?)])
    }))
}

/// Options of [`Tensor::convolution`], as PyTorch's `convolution` takes them.
#[derive(Clone, Debug, Default)]
pub struct ConvOptions {
    /// Step of the kernel, per spatial dim (or one for all).
    pub stride: Vec<i64>,
    /// Zero padding each side, per spatial dim (or one for all).
    pub padding: Vec<i64>,
    /// Spacing of the kernel taps, per spatial dim (or one for all).
    pub dilation: Vec<i64>,
    /// A transposed convolution (the weight is `(C_in, C_out / groups, ...)`).
    pub transposed: bool,
    /// Extra size of a transposed convolution's output, per spatial dim (or one for all).
    pub output_padding: Vec<i64>,
    /// Channel groups.
    pub groups: i64,
}

/// `values` for `dims` spatial dims: one value repeated, or exactly `dims`, else PyTorch's
/// error naming the parameter.
fn expand_param(name: &str, values: &[i64], dims: usize) -> Result<Vec<i64>> {
    match values.len() {
        1 => Ok(vec![values[0]; dims]),
        n if n == dims => Ok(values.to_vec()),
        _ => Err(Error::runtime(format!(
            "expected {name} to be a single integer value or a list of {dims} values to match \
             the convolution dimensions, but got {name}={values:?}"
        ))),
    }
}

/// `(a x b)` as PyTorch prints spatial sizes in its convolution errors.
fn sizes_x(values: &[i64]) -> String {
    values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" x ")
}

/// Two spatial values for a geometry: a single dim becomes a second, after a leading 1 (or `fill`).
fn as_pair(values: &[i64], fill: usize) -> [usize; 2] {
    match values {
        [w] => [fill, *w as usize],
        [h, w] => [*h as usize, *w as usize],
        _ => [fill; 2],
    }
}

impl Tensor {
    /// PyTorch's `convolution`: a 1-D or 2-D convolution of `self` (`(N, C, [H,] W)`) with
    /// `weight`, or the transposed convolution, plus `bias` — one `ConvolutionBackward0` node
    /// (PyTorch's checks and messages).
    pub fn convolution(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        options: &ConvOptions,
    ) -> Result<Tensor> {
        let input = self;
        if let Some(b) = bias {
            if b.dtype() != input.dtype() {
                return Err(Error::runtime(format!(
                    "Input type ({}) and bias type ({}) should be the same",
                    c_name(input.dtype()),
                    c_name(b.dtype())
                )));
            }
        }
        let k = weight.dim();
        let dims = k.saturating_sub(2).max(1);
        let stride = expand_param("stride", &options.stride, dims)?;
        let padding = expand_param("padding", &options.padding, dims)?;
        let dilation = expand_param("dilation", &options.dilation, dims)?;
        let output_padding = expand_param("output_padding", &options.output_padding, dims)?;
        let groups = options.groups;
        if padding.iter().any(|&p| p < 0) {
            return Err(Error::runtime("negative padding is not supported"));
        }
        if output_padding.iter().any(|&p| p < 0) {
            return Err(Error::runtime("negative output_padding is not supported"));
        }
        if stride.iter().any(|&s| s <= 0) {
            return Err(Error::runtime("non-positive stride is not supported"));
        }
        if dilation.iter().any(|&d| d <= 0) {
            return Err(Error::runtime("non-positive dilation is not supported"));
        }
        if groups <= 0 {
            return Err(Error::runtime("non-positive groups is not supported"));
        }
        let ws = weight.shape();
        let w_sizes = fmt_shape(ws);
        if input.dim() != k {
            return Err(Error::runtime(format!(
                "Expected {k}-dimensional input for {k}-dimensional weight {w_sizes}, but got \
                 {}-dimensional input of size {} instead",
                input.dim(),
                fmt_shape(input.shape())
            )));
        }
        if !(3..=4).contains(&k) {
            return Err(Error::not_implemented(format!(
                "ferrograd convolves 1-D and 2-D images only, got a {k}-dimensional weight {w_sizes}"
            )));
        }
        let groups = groups as usize;
        if ws[0] < groups {
            return Err(Error::runtime(format!(
                "Given groups={groups}, expected weight to be at least {groups} at dimension 0, \
                 but got weight of size {w_sizes} instead"
            )));
        }
        if !ws[0].is_multiple_of(groups) {
            return Err(Error::runtime(format!(
                "Given groups={groups}, expected weight to be divisible by {groups} at dimension \
                 0, but got weight of size [{w_sizes}] instead"
            )));
        }
        let xs = input.shape();
        let spatial_in: Vec<i64> = xs[2..].iter().map(|&s| s as i64).collect();
        let kernel: Vec<i64> = ws[2..].iter().map(|&s| s as i64).collect();
        let bias_len = if options.transposed {
            ws[1] * groups
        } else {
            ws[0]
        };
        let (big_channels, small_channels, big, small) = if !options.transposed {
            if xs[1] != ws[1] * groups {
                return Err(Error::runtime(format!(
                    "Given groups={groups}, weight of size {w_sizes}, expected input{} to have \
                     {} channels, but got {} channels instead",
                    fmt_shape(xs),
                    ws[1] * groups,
                    xs[1]
                )));
            }
            check_bias(bias, bias_len, &w_sizes, "")?;
            let padded: Vec<i64> = (0..dims).map(|i| spatial_in[i] + 2 * padding[i]).collect();
            let spans: Vec<i64> = (0..dims)
                .map(|i| dilation[i] * (kernel[i] - 1) + 1)
                .collect();
            if (0..dims).any(|i| padded[i] < spans[i]) {
                return Err(Error::runtime(format!(
                    "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel \
                     size can't be greater than actual input size",
                    sizes_x(&padded),
                    sizes_x(&spans)
                )));
            }
            let out: Vec<i64> = (0..dims)
                .map(|i| (padded[i] - spans[i]) / stride[i] + 1)
                .collect();
            (xs[1], ws[0], spatial_in, out)
        } else {
            if xs[1] != ws[0] {
                return Err(Error::runtime(format!(
                    "Given transposed=1, weight of size {w_sizes}, expected input{} to have {} \
                     channels, but got {} channels instead",
                    fmt_shape(xs),
                    ws[0],
                    xs[1]
                )));
            }
            check_bias(bias, bias_len, &w_sizes, "transposed=1, ")?;
            if (0..dims).any(|i| output_padding[i] >= stride[i] && output_padding[i] >= dilation[i])
            {
                // a 1-D convolution is PyTorch's 2-D one of height 1 (padding 0, stride 1, ...)
                let part = |what: &str, v: &[i64], fill: i64| {
                    let [h, w] = if dims == 2 {
                        [v[0], v[1]]
                    } else {
                        [fill, v[0]]
                    };
                    format!("{what}_height: {h} {what}_width: {w}")
                };
                return Err(Error::runtime(format!(
                    "output padding must be smaller than either stride or dilation, but got {} {} {}",
                    part("output_padding", &output_padding, 0),
                    part("stride", &stride, 1),
                    part("dilation", &dilation, 1)
                )));
            }
            let out: Vec<i64> = (0..dims)
                .map(|i| {
                    (spatial_in[i] - 1) * stride[i] - 2 * padding[i]
                        + dilation[i] * (kernel[i] - 1)
                        + output_padding[i]
                        + 1
                })
                .collect();
            if out.iter().any(|&o| o < 1) {
                return Err(Error::runtime(format!(
                    "Given input size per channel: ({}). Calculated output size per channel: \
                     ({}). Output size is too small",
                    sizes_x(&spatial_in),
                    sizes_x(&out)
                )));
            }
            (ws[1] * groups, xs[1], out, spatial_in)
        };
        if weight.dtype() != input.dtype() {
            return Err(
                if input.dtype() == DType::Float64 || !input.dtype().is_floating_point() {
                    Error::runtime(format!(
                        "expected scalar type {} but found {}",
                        input.dtype().scalar_name(),
                        weight.dtype().scalar_name()
                    ))
                } else {
                    Error::runtime(format!(
                    "Input type ({}) and weight type ({}) should be the same or input should be a \
                     MKLDNN tensor and weight is a dense tensor",
                    input.dtype().legacy_name(),
                    weight.dtype().legacy_name()
                ))
                },
            );
        }
        if input.dtype() == DType::Bool {
            return Err(Error::not_implemented(format!(
                "\"slow_conv2d_cpu\" not implemented for '{}'",
                input.dtype().scalar_name()
            )));
        }
        if !input.dtype().is_floating_point() {
            // integer tensors convolve too (PyTorch's slow kernels): here in float64, exact
            // while every sum stays within 2^53, and cast back
            let wide = |t: &Tensor| crate::cpu::kernels::cast(t, DType::Float64);
            let bias = bias.map(wide);
            let out = wide(input).convolution(&wide(weight), bias.as_ref(), options)?;
            return Ok(crate::cpu::kernels::cast(&out, input.dtype()));
        }
        let g = ConvGeometry {
            batch: xs[0],
            big_channels,
            small_channels,
            groups,
            big: as_pair(&big, 1),
            small: as_pair(&small, 1),
            kernel: as_pair(&kernel, 1),
            stride: as_pair(&stride, 1),
            padding: as_pair(&padding, 0),
            dilation: as_pair(&dilation, 1),
            spatial: dims,
        };
        let dir = if options.transposed {
            Direction::Up
        } else {
            Direction::Down
        };
        conv_op(dir, input, weight, bias, g)
    }
}

/// PyTorch's C++ name of a dtype (`float`, `double`) in its convolution messages.
fn c_name(d: DType) -> &'static str {
    match d {
        DType::Int64 => "long int",
        other => other.cpp_name(),
    }
}

fn check_bias(bias: Option<&Tensor>, len: usize, w_sizes: &str, what: &str) -> Result<()> {
    match bias {
        Some(b) if b.dim() != 1 || b.shape()[0] != len => Err(Error::runtime(format!(
            "Given {what}weight of size {w_sizes}, expected bias to be 1-dimensional with {len} \
             elements, but got bias of size {} instead",
            fmt_shape(b.shape())
        ))),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// unfold / fold
// ---------------------------------------------------------------------------------------------

/// im2col of whole images (`unfold`), as a linear map with its adjoint (`fold`).
struct Im2Col {
    g: ConvGeometry,
    /// Whether the tensors have the batch dim (an unbatched image is one image).
    batched: bool,
}

impl Im2Col {
    fn cols_shape(&self) -> Vec<usize> {
        let shape = [self.g.batch, self.g.cols_rows(), self.g.small_plane()];
        shape[usize::from(!self.batched)..].to_vec()
    }

    fn image_shape(&self) -> Vec<usize> {
        let [h, w] = self.g.big;
        let shape = [self.g.batch, self.g.big_channels, h, w];
        shape[usize::from(!self.batched)..].to_vec()
    }
}

impl super::pooling::Adjoint for Im2Col {
    fn apply(&self, x: &Tensor) -> Result<Tensor> {
        let g = self.g;
        let x = dense(x);
        let per = g.cols_rows() * g.small_plane();
        crate::with_float!(x.dtype(), T => {
            let out = slice_of(&x, |xs: &[T]| {
                let mut out = crate::core::pool::buffer::<T>(g.batch * per);
                let lb = g.big_channels * g.big_plane();
                for_each_image(&mut out, g.batch, g.batch * per, |images, block, _| {
                    for (k, n) in images.enumerate() {
                        let dst = &mut block[k * per..(k + 1) * per];
                        im2col(&xs[n * lb..(n + 1) * lb], g.big_channels, &g, dst)
                    }
                });
                out
            });
            Tensor::from_vec(out, &self.cols_shape())
        })
    }

    fn adjoint(&self, y: &Tensor) -> Result<Tensor> {
        let g = self.g;
        let y = dense(y);
        let per = g.cols_rows() * g.small_plane();
        let shape = self.image_shape();
        crate::with_float!(y.dtype(), T => {
            let out = slice_of(&y, |ys: &[T]| {
                let lb = g.big_channels * g.big_plane();
                let mut out = crate::core::pool::buffer::<T>(g.batch * lb);
                for_each_image(&mut out, g.batch, g.batch * per, |images, block, _| {
                    block.fill(T::ZERO);
                    for (k, n) in images.enumerate() {
                        let dst = &mut block[k * lb..(k + 1) * lb];
                        col2im(&ys[n * per..(n + 1) * per], g.big_channels, &g, dst)
                    }
                });
                out
            });
            Tensor::from_vec(out, &shape)
        })
    }

    fn names(&self) -> (&'static str, &'static str) {
        ("Im2ColBackward0", "Col2ImBackward0")
    }
}

/// Checks of `unfold`/`fold`'s block parameters (PyTorch's messages), as geometry pieces.
fn block_params(
    kernel: &[i64],
    dilation: &[i64],
    padding: &[i64],
    stride: &[i64],
) -> Result<[[usize; 2]; 4]> {
    let pair = |v: &[i64]| -> [i64; 2] { [v[0], v[1]] };
    let ([kh, kw], [dh, dw], [ph, pw], [sh, sw]) =
        (pair(kernel), pair(dilation), pair(padding), pair(stride));
    if kh <= 0 || kw <= 0 {
        return Err(Error::runtime(format!(
            "kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}"
        )));
    }
    if dh <= 0 || dw <= 0 {
        return Err(Error::runtime(format!(
            "dilation should be greater than zero, but got dilation_height: {dh} dilation_width: {dw}"
        )));
    }
    if ph < 0 || pw < 0 {
        return Err(Error::runtime(format!(
            "padding should be non-negative, but got pad_height: {ph} pad_width: {pw}"
        )));
    }
    if sh <= 0 || sw <= 0 {
        return Err(Error::runtime(format!(
            "stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}"
        )));
    }
    let u = |a: i64, b: i64| [a as usize, b as usize];
    Ok([u(kh, kw), u(dh, dw), u(ph, pw), u(sh, sw)])
}

/// `(a, b)` as PyTorch prints a pair.
fn pair_str(v: [usize; 2]) -> String {
    format!("({}, {})", v[0], v[1])
}

impl Tensor {
    /// `F.unfold`: the sliding blocks of a `(N, C, H, W)` or `(C, H, W)` image as columns,
    /// `(N, C·kh·kw, L)` (`Im2ColBackward0`, whose gradient is `fold`).
    pub fn im2col(
        &self,
        kernel: &[i64],
        dilation: &[i64],
        padding: &[i64],
        stride: &[i64],
    ) -> Result<Tensor> {
        let [k, d, p, s] = block_params(kernel, dilation, padding, stride)?;
        let batched = self.dim() == 4;
        if !(self.dim() == 3 || batched) || self.shape()[self.dim() - 3..].contains(&0) {
            return Err(Error::runtime(format!(
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, \
                 but got: {}",
                fmt_shape(self.shape())
            )));
        }
        let xs = self.shape();
        let (batch, channels) = if batched { (xs[0], xs[1]) } else { (1, xs[0]) };
        let (h, w) = (xs[self.dim() - 2], xs[self.dim() - 1]);
        let oh = ConvGeometry::small_size(h, k[0], s[0], p[0], d[0]);
        let ow = ConvGeometry::small_size(w, k[1], s[1], p[1], d[1]);
        if oh < 1 || ow < 1 {
            return Err(Error::runtime(format!(
                "Given input with spatial size {}, kernel_size={}, dilation={}, padding={}, \
                 calculated shape of the array of sliding blocks as ({oh}, {ow}), but its \
                 components must be at least one.",
                pair_str([h, w]),
                pair_str(k),
                pair_str(d),
                pair_str(p)
            )));
        }
        if !self.dtype().is_floating_point() {
            return Err(Error::not_implemented(format!(
                "\"im2col\" not implemented for '{}'",
                self.dtype().scalar_name()
            )));
        }
        let g = ConvGeometry {
            batch,
            big_channels: channels,
            small_channels: 0,
            groups: 1,
            big: [h, w],
            small: [oh as usize, ow as usize],
            kernel: k,
            stride: s,
            padding: p,
            dilation: d,
            spatial: 2,
        };
        super::pooling::linear_op(Arc::new(Im2Col { g, batched }), self, false, None)
    }

    /// `F.fold`: sums columns `(N, C·kh·kw, L)` (or `(C·kh·kw, L)`) back into an image of
    /// `output_size` (`Col2ImBackward0`, whose gradient is `unfold`).
    pub fn col2im(
        &self,
        output_size: &[i64],
        kernel: &[i64],
        dilation: &[i64],
        padding: &[i64],
        stride: &[i64],
    ) -> Result<Tensor> {
        let [k, d, p, s] = block_params(kernel, dilation, padding, stride)?;
        let batched = self.dim() == 3;
        if !(self.dim() == 2 || batched) || self.shape()[self.dim() - 2..].contains(&0) {
            return Err(Error::runtime(format!(
                "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and \
                 non-zero dimensions for input, but got: {}",
                fmt_shape(self.shape())
            )));
        }
        let (oh, ow) = (output_size[0], output_size[1]);
        let ys = self.shape();
        let (batch, rows, blocks) = if batched {
            (ys[0], ys[1], ys[2])
        } else {
            (1, ys[0], ys[1])
        };
        let per_block = k[0] * k[1];
        if !rows.is_multiple_of(per_block) {
            return Err(Error::runtime(format!(
                "Expected size of input's dimension 1 to be divisible by the product of \
                 kernel_size, but got input.size(1)={} and kernel_size={}.",
                rows,
                pair_str(k)
            )));
        }
        // the blocks of each dim, from sizes that may be zero or negative (PyTorch's checks
        // come in this order)
        let blocks_of = |size: i64, i: usize| {
            let span = (d[i] * (k[i] - 1) + 1) as i64;
            (size + 2 * p[i] as i64 - span).div_euclid(s[i] as i64) + 1
        };
        let (bh, bw) = (blocks_of(oh, 0), blocks_of(ow, 1));
        let given = format!(
            "Given output_size=({oh}, {ow}), kernel_size={}, dilation={}, padding={}, stride={}",
            pair_str(k),
            pair_str(d),
            pair_str(p),
            pair_str(s)
        );
        if blocks as i64 != bh * bw {
            return Err(Error::runtime(format!(
                "{given}, expected size of input's dimension 2 to match the calculated number of \
                 sliding blocks {bh} * {bw} = {}, but got input.size(2)={}.",
                bh * bw,
                blocks
            )));
        }
        if bh < 1 || bw < 1 {
            return Err(Error::runtime(format!(
                "{given}, calculated shape of the array of sliding blocks as ({bh}, {bw}), which \
                 is too small (non-positive)"
            )));
        }
        let (h, w) = (oh as usize, ow as usize);
        if !self.dtype().is_floating_point() {
            return Err(Error::not_implemented(format!(
                "\"col2im\" not implemented for '{}'",
                self.dtype().scalar_name()
            )));
        }
        let g = ConvGeometry {
            batch,
            big_channels: rows / per_block,
            small_channels: 0,
            groups: 1,
            big: [h, w],
            small: [bh as usize, bw as usize],
            kernel: k,
            stride: s,
            padding: p,
            dilation: d,
            spatial: 2,
        };
        super::pooling::linear_op(Arc::new(Im2Col { g, batched }), self, true, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A direct sum over taps, for checking the kernels.
    fn naive(x: &[f64], w: &[f64], g: &ConvGeometry) -> Vec<f64> {
        let (cb, cs) = (g.big_channels / g.groups, g.small_channels / g.groups);
        let ([h, wd], [oh, ow]) = (g.big, g.small);
        let mut y = vec![0.0; g.batch * g.small_channels * oh * ow];
        for n in 0..g.batch {
            for o in 0..g.small_channels {
                let grp = o / cs;
                for oy in 0..oh {
                    for ox in 0..ow {
                        let mut s = 0.0;
                        for c in 0..cb {
                            for i in 0..g.kernel[0] {
                                for j in 0..g.kernel[1] {
                                    let iy = (oy * g.stride[0] + i * g.dilation[0]) as isize
                                        - g.padding[0] as isize;
                                    let ix = (ox * g.stride[1] + j * g.dilation[1]) as isize
                                        - g.padding[1] as isize;
                                    if iy < 0 || ix < 0 || iy >= h as isize || ix >= wd as isize {
                                        continue;
                                    }
                                    let xi = ((n * g.big_channels + grp * cb + c) * h
                                        + iy as usize)
                                        * wd
                                        + ix as usize;
                                    let wi = ((o * cb + c) * g.kernel[0] + i) * g.kernel[1] + j;
                                    s += x[xi] * w[wi];
                                }
                            }
                        }
                        y[((n * g.small_channels + o) * oh + oy) * ow + ox] = s;
                    }
                }
            }
        }
        y
    }

    /// `down` against the direct sum, and `<down(x), v> = <x, up(v)> = <w, weight(x, v)>`.
    fn check(g: ConvGeometry) {
        let cb = g.big_channels / g.groups;
        let nx = g.batch * g.big_channels * g.big_plane();
        let nw = g.small_channels * cb * g.kernel[0] * g.kernel[1];
        let x: Vec<f64> = (0..nx)
            .map(|i| ((i * 37 % 101) as f64 - 50.0) / 25.0)
            .collect();
        let w: Vec<f64> = (0..nw)
            .map(|i| ((i * 53 % 89) as f64 - 44.0) / 30.0)
            .collect();
        let y = down_kernel(&x, &w, None, &g);
        let expected = naive(&x, &w, &g);
        assert_eq!(y.len(), expected.len());
        for (a, b) in y.iter().zip(&expected) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
        let v: Vec<f64> = (0..y.len())
            .map(|i| ((i * 29 % 61) as f64 - 30.0) / 17.0)
            .collect();
        let up = up_kernel(&v, &w, None, &g);
        let gw = weight_kernel(&x, &v, &g);
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
        let lhs = dot(&y, &v);
        assert!(
            (lhs - dot(&x, &up)).abs() < 1e-9,
            "{lhs} vs {}",
            dot(&x, &up)
        );
        assert!(
            (lhs - dot(&w, &gw)).abs() < 1e-9,
            "{lhs} vs {}",
            dot(&w, &gw)
        );
    }

    fn geometry(
        big: [usize; 2],
        k: [usize; 2],
        s: [usize; 2],
        p: [usize; 2],
        d: [usize; 2],
    ) -> ConvGeometry {
        let small = |i: usize| ConvGeometry::small_size(big[i], k[i], s[i], p[i], d[i]) as usize;
        ConvGeometry {
            batch: 5,
            big_channels: 4,
            small_channels: 6,
            groups: 2,
            big,
            small: [small(0), small(1)],
            kernel: k,
            stride: s,
            padding: p,
            dilation: d,
            spatial: 2,
        }
    }

    #[test]
    fn strided_dilated_and_padded_convolutions_match_a_direct_sum_with_adjoints() {
        check(geometry([7, 9], [3, 2], [2, 3], [1, 2], [2, 1]));
        // unit stride: the wide grid, with and without padding, and with a 1-wide kernel
        check(geometry([7, 9], [3, 3], [1, 1], [1, 1], [1, 1]));
        check(geometry([6, 8], [2, 3], [1, 1], [0, 2], [2, 2]));
        check(geometry([6, 8], [3, 1], [1, 1], [1, 0], [1, 1]));
        check(geometry([1, 9], [1, 3], [1, 1], [0, 1], [1, 1]));
        check(geometry([5, 5], [1, 1], [1, 1], [0, 0], [1, 1]));
        // groups of one channel each side (depthwise, direct loops), strided and not
        let depthwise = |g: ConvGeometry| ConvGeometry {
            big_channels: 4,
            small_channels: 8,
            groups: 4,
            ..g
        };
        check(depthwise(geometry([7, 9], [3, 3], [1, 1], [1, 1], [1, 1])));
        check(depthwise(geometry([7, 9], [3, 2], [2, 3], [1, 1], [2, 1])));
    }
}
