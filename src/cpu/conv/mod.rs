//! The convolution kernels: `im2col`/`col2im`, direct loops for small channel groups, and the
//! three products every convolution op and its gradients are made of. No autograd here: the
//! convolution ops (`src/ops/nn/conv.rs`) record these.
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

mod direct;
mod im2col;
mod products;

pub(crate) use im2col::{col2im, im2col, inside};
pub(crate) use products::{down_kernel, for_each_image, up_kernel, weight_kernel};

use crate::core::buffer::BufferElement;
use crate::cpu::gemm::GemmElement;
use std::cell::RefCell;

/// Whether every element of `v` is finite: blocks checked whole (no exit inside a block), so
/// the check vectorizes; it reads each image once more before the in-place products.
pub(crate) fn all_finite<T: GemmElement>(v: &[T]) -> bool {
    v.chunks(256)
        .all(|block| block.iter().fold(true, |ok, x| ok & x.is_finite()))
}

/// Multiply-adds of a product below which it runs on one thread.
pub(crate) const PARALLEL_WORK: usize = 1 << 17;
/// Images whose weight gradients one task sums (fixed, so the sums do not depend on the
/// thread count).
pub(crate) const WEIGHT_CHUNK: usize = 4;

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
    pub(crate) fn image_shape(
        &self,
        channels: usize,
        size: [usize; 2],
        batch: usize,
    ) -> Vec<usize> {
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

    pub(crate) fn big_plane(&self) -> usize {
        self.big[0] * self.big[1]
    }

    pub(crate) fn small_plane(&self) -> usize {
        self.small[0] * self.small[1]
    }

    /// Rows of one group's im2col matrix: `C_big / groups · kh · kw`.
    pub(crate) fn cols_rows(&self) -> usize {
        self.big_channels / self.groups * self.kernel[0] * self.kernel[1]
    }

    /// Unit stride: im2col rows are long contiguous runs of the padded image, the small image
    /// taken on a grid as wide as the padded one (see [`im2col_wide`]).
    pub(crate) fn is_wide(&self) -> bool {
        self.stride == [1, 1]
    }

    /// Height and width of the zero-padded big image.
    pub(crate) fn padded_size(&self) -> [usize; 2] {
        [
            self.big[0] + 2 * self.padding[0],
            self.big[1] + 2 * self.padding[1],
        ]
    }

    /// Elements of the small image on the wide grid: `OH · W_padded`.
    pub(crate) fn wide_plane(&self) -> usize {
        self.small[0] * self.padded_size()[1]
    }

    /// Elements of a wide row that hold taps (the last grid row's extra columns do not).
    pub(crate) fn wide_len(&self) -> usize {
        (self.small[0].max(1) - 1) * self.padded_size()[1] + self.small[1]
    }

    /// Whether the wide grid has columns beyond the small image's.
    pub(crate) fn has_junk(&self) -> bool {
        self.small[1] != self.padded_size()[1]
    }

    /// Groups too small for a matrix product (depthwise convolutions): direct loops, each
    /// weight tap scaling shifted rows of the padded image.
    pub(crate) fn is_direct(&self) -> bool {
        let (cb, cs) = (
            self.big_channels / self.groups,
            self.small_channels / self.groups,
        );
        !self.is_pointwise() && cb * cs <= 4
    }

    /// Whether products read the wide im2col in place, through a table of where each tap's
    /// row starts in the padded image ([`Mat::indexed`]), instead of copying it out: unit
    /// stride, a matrix product, and a kernel that reads row tables.
    pub(crate) fn reads_taps_in_place<T: GemmElement>(&self) -> bool {
        self.is_wide() && !self.is_pointwise() && !self.is_direct() && T::reads_row_tables()
    }

    /// Where each wide im2col row (tap `(c, i, j)`, in [`im2col_wide`]'s order: channel, then
    /// kernel row, then kernel column) starts in the padded image of `channels` planes.
    pub(crate) fn taps(&self, channels: usize) -> impl Iterator<Item = usize> {
        let ([hp, wp], [kh, kw], [dh, dw]) = (self.padded_size(), self.kernel, self.dilation);
        (0..channels * kh * kw).map(move |t| {
            let (c, i, j) = (t / (kh * kw), t / kw % kh, t % kw);
            c * hp * wp + i * dh * wp + j * dw
        })
    }

    /// [`ConvGeometry::taps`], collected (the row table of an im2col read in place).
    pub(crate) fn tap_offsets(&self, channels: usize) -> Vec<usize> {
        self.taps(channels).collect()
    }

    /// Zeros after the padded image that an in-place im2col's last rows run into: a tap's row
    /// is a whole wide plane long, so the last one ends `(kw - 1)·dw` past the image (in the
    /// junk columns of the grid's last row).
    pub(crate) fn tap_slack(&self) -> usize {
        (self.kernel[1].max(1) - 1) * self.dilation[1]
    }

    /// A 1×1 kernel at unit stride without padding: im2col is the image itself.
    pub(crate) fn is_pointwise(&self) -> bool {
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
