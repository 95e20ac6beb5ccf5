//! Convolutions of groups of a channel or two (depthwise) by direct loops over the taps.

use super::im2col::{compact, expand};
use super::{all_finite, ConvElement, ConvGeometry};
use crate::cpu::kernels::wide_variants;

wide_variants!(
    /// `small = conv(padded big, w)` for one group by direct loops (see
    /// [`ConvGeometry::is_direct`]): each weight tap scales shifted rows of the padded image
    /// (at unit stride, one long run of the wide grid, `wide`, compacted after).
    pub(crate) down_direct<T: ConvElement>,
    down_direct_loops,
    (big: &[T], w: &[T], small: &mut [T], wide: &mut [T], g: &ConvGeometry)
);

wide_variants!(
    /// `padded big += conv_transposed(small, w)` for one group by direct loops (at unit stride
    /// and with finite weights, long runs of the wide grid, `wide`, whose junk columns are
    /// zero).
    pub(crate) up_direct<T: ConvElement>,
    up_direct_loops,
    (big: &mut [T], w: &[T], small: &[T], wide: &mut [T], g: &ConvGeometry)
);

wide_variants!(
    /// The weight gradient of one group by direct loops, transposed (`rows × C_small`) as the
    /// weight gradient's products are (at unit stride and with a finite image, dot products
    /// over the wide grid, `wide`, whose junk columns are zero).
    pub(crate) weight_direct<T: ConvElement>,
    weight_direct_loops,
    (big: &[T], gw: &mut [T], small: &[T], wide: &mut [T], g: &ConvGeometry)
);

/// `Σ a·b` in 16 interleaved lanes (which vectorize), then the lanes added.
#[inline(always)]
pub(crate) fn dot<T: ConvElement>(a: &[T], b: &[T]) -> T {
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
pub(crate) fn direct_sizes(g: &ConvGeometry) -> (usize, usize, usize) {
    (
        g.big_channels / g.groups,
        g.small_channels / g.groups,
        g.cols_rows(),
    )
}

/// Where output row `oy` of tap `(c, i, j)` starts reading the padded image.
#[inline(always)]
pub(crate) fn tap_start(g: &ConvGeometry, c: usize, i: usize, j: usize, oy: usize) -> usize {
    let [hp, wp] = g.padded_size();
    c * hp * wp + (oy * g.stride[0] + i * g.dilation[0]) * wp + j * g.dilation[1]
}

#[inline(always)]
pub(crate) fn down_direct_loops<T: ConvElement>(
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
pub(crate) fn up_direct_loops<T: ConvElement>(
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
pub(crate) fn weight_direct_loops<T: ConvElement>(
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
