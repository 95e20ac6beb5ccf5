//! The three products (`down`, `up`, `weight`) over a batch of images, in parallel, with
//! per-thread scratch buffers.

use super::direct::{down_direct, up_direct, weight_direct};
use super::im2col::{
    clear_junk, col2im, col2im_wide_on, compact, crop_from, expand, im2col, im2col_wide_on,
    pad_into,
};
use super::{all_finite, ConvElement, ConvGeometry, PARALLEL_WORK, WEIGHT_CHUNK};
use crate::cpu::gemm::{GemmElement, Mat};
use crate::cpu::parallel;

/// Scratch buffers larger than this (in bytes, all four) go back to the allocator instead of
/// being kept for the thread's next convolution.
pub(crate) const SPARE_BYTES: usize = 16 << 20;

/// Buffers a task reuses for its images, taken from (and given back to) the thread's spares,
/// so a convolution neither allocates nor zeroes them again (only the padded image's borders
/// and the wide grid's junk columns must start zero).
pub(crate) struct Scratch<T: ConvElement> {
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

/// Runs `f(images, out_block, gemm_threads)` over runs of images and their blocks of `out`:
/// runs in parallel when there are enough images, else all of them at once with parallel
/// products.
pub(crate) fn for_each_image<T: Send>(
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
pub(crate) fn down_kernel<T: ConvElement>(
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    g: &ConvGeometry,
) -> Vec<T> {
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
pub(crate) fn up_as_down<T: GemmElement>(g: &ConvGeometry) -> Option<ConvGeometry> {
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
pub(crate) fn flipped_weight<T: Copy>(w: &[T], g: &ConvGeometry) -> Vec<T> {
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
pub(crate) fn up_kernel<T: ConvElement>(
    y: &[T],
    w: &[T],
    bias: Option<&[T]>,
    g: &ConvGeometry,
) -> Vec<T> {
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
pub(crate) fn weight_kernel<T: ConvElement>(x: &[T], y: &[T], g: &ConvGeometry) -> Vec<T> {
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
