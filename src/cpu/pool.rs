//! The pooling kernels: a max pool's values and flat indices over whole planes (branch-free
//! picks, compiled for the widest vectors the CPU has), the maximum of one window, the
//! windows of one axis, and the planes shared out over the threads. No autograd here: the
//! ops (`src/ops/nn/pooling.rs`) check, record and differentiate.

use crate::core::buffer::BufferElement;
use crate::core::dtype::Float;
use crate::cpu::parallel;

/// Elements of work below which a pooling kernel runs on one thread.
const PARALLEL_ELEMENTS: usize = 1 << 15;

/// Runs `f(first_plane, block)` over blocks of whole planes of `out` (`plane` elements
/// each), in parallel when the work is large.
pub(crate) fn for_each_planes<T: Send>(
    out: &mut [T],
    plane: usize,
    work: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    if out.is_empty() || plane == 0 {
        return;
    }
    let planes = out.len() / plane;
    let threads = parallel::num_threads();
    if threads == 1 || work < PARALLEL_ELEMENTS || planes == 1 {
        f(0, out);
        return;
    }
    let per_unit = planes.div_ceil(threads * 4).max(1);
    parallel::for_each_block(out, per_unit * plane, |at, block| f(at / plane, block));
}

/// The flat index of the maximum of a plane (`width` wide) over rows `y0, y0 + dy, .. < y1`
/// and columns `x0, x0 + dx, .. < x1`, in PyTorch's order: the first maximum wins, and any
/// NaN (the last one seen); `(y0, x0)` when every element is negative infinity.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn window_max<T: Float>(
    plane: &[T],
    width: usize,
    (y0, y1, dy): (usize, usize, usize),
    (x0, x1, dx): (usize, usize, usize),
) -> i64 {
    let mut best = T::neg_infinity();
    let mut at = y0 * width + x0;
    let mut y = y0;
    while y < y1 {
        let row = y * width;
        let mut x = x0;
        while x < x1 {
            let v = plane[row + x];
            let take = (v > best) | v.is_nan();
            best = std::hint::select_unpredictable(take, v, best);
            at = std::hint::select_unpredictable(take, row + x, at);
            x += dx;
        }
        y += dy;
    }
    at as i64
}

/// One spatial dim of a pool: its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Axis {
    pub(crate) input: usize,
    pub(crate) output: usize,
    pub(crate) kernel: usize,
    pub(crate) stride: usize,
    pub(crate) padding: usize,
    pub(crate) dilation: usize,
}

impl Axis {
    /// The taps of output position `o` inside the input: `(first, end)` with step `dilation`
    /// (PyTorch's max-pool window).
    pub(crate) fn taps(&self, o: usize) -> (usize, usize) {
        let start = (o * self.stride) as isize - self.padding as isize;
        let end =
            (start + ((self.kernel - 1) * self.dilation) as isize + 1).min(self.input as isize);
        let mut first = start;
        while first < 0 {
            first += self.dilation as isize;
        }
        (first as usize, (end.max(first)) as usize)
    }
}

/// Floats chosen between without a branch (the maximum's comparisons are unpredictable).
pub(crate) trait Pick: Float + BufferElement {
    /// `a` if `take`, else `b`, through the bits.
    fn pick(take: bool, a: Self, b: Self) -> Self;
}

impl Pick for f32 {
    #[inline(always)]
    fn pick(take: bool, a: f32, b: f32) -> f32 {
        let mask = (take as u32).wrapping_neg();
        f32::from_bits((a.to_bits() & mask) | (b.to_bits() & !mask))
    }
}

impl Pick for f64 {
    #[inline(always)]
    fn pick(take: bool, a: f64, b: f64) -> f64 {
        let mask = (take as u64).wrapping_neg();
        f64::from_bits((a.to_bits() & mask) | (b.to_bits() & !mask))
    }
}

/// A max pool's windows along the rows and the columns of the output.
pub(crate) struct MaxWindows {
    ay: Axis,
    ax: Axis,
    /// Per output row: its first and end input rows (step `ay.dilation`).
    rows: Vec<(usize, usize)>,
    /// Per output column: its first input column inside the image.
    first_cols: Vec<usize>,
    /// Per column tap: its offset from `ox·stride`, and the output columns it lands inside
    /// the image for.
    taps: Vec<(isize, usize, usize)>,
}

impl MaxWindows {
    fn new([ay, ax]: [Axis; 2]) -> MaxWindows {
        let taps = (0..ax.kernel)
            .map(|k| {
                let offset = (k * ax.dilation) as isize - ax.padding as isize;
                let (lo, hi) = crate::cpu::conv::inside(offset, ax.stride, ax.input, ax.output);
                (offset, lo, hi)
            })
            .collect();
        MaxWindows {
            ay,
            ax,
            rows: (0..ay.output).map(|o| ay.taps(o)).collect(),
            first_cols: (0..ax.output).map(|o| ax.taps(o).0).collect(),
            taps,
        }
    }
}

/// The maxima and their flat indices for whole planes (`xs` holds them, `vals`/`idx` their
/// outputs): taps in each window's row-major order, each over a whole output row, updating the
/// row's best values (in `vals`) and indices by selects, not branches on the data (which
/// vectorize).
#[inline(always)]
pub(crate) fn max_planes<T: Pick>(
    xs: &[T],
    m: &MaxWindows,
    vals: &mut [T],
    idx: &mut [i64],
    scratch: &mut [T],
) {
    let (ay, ax) = (m.ay, m.ax);
    let (w, ow) = (ax.input, ax.output);
    let (lin, lout) = (ay.input * w, ay.output * ow);
    for (q, (vals, idx)) in vals
        .chunks_exact_mut(lout)
        .zip(idx.chunks_exact_mut(lout))
        .enumerate()
    {
        let plane = &xs[q * lin..(q + 1) * lin];
        let lines = vals.chunks_exact_mut(ow).zip(idx.chunks_exact_mut(ow));
        for ((best, at), &(y0, y1)) in lines.zip(&m.rows) {
            best.fill(T::neg_infinity());
            for (o, &x0) in at.iter_mut().zip(&m.first_cols) {
                *o = (y0 * w + x0) as i64;
            }
            let mut y = y0;
            while y < y1 {
                let src = &plane[y * w..(y + 1) * w];
                for &(offset, lo, hi) in &m.taps {
                    if lo >= hi {
                        continue;
                    }
                    let n = hi - lo;
                    let first = ((lo * ax.stride) as isize + offset) as usize;
                    let taken: &[T] = if ax.stride == 1 {
                        &src[first..first + n]
                    } else {
                        let span = &src[first..first + (n - 1) * ax.stride + 1];
                        for (v, &x) in scratch[..n].iter_mut().zip(span.iter().step_by(ax.stride)) {
                            *v = x;
                        }
                        &scratch[..n]
                    };
                    let row_at = (y * w + first) as i64;
                    let step = ax.stride as i64;
                    let (b, a) = (&mut best[lo..hi], &mut at[lo..hi]);
                    for (k, ((b, a), &v)) in b.iter_mut().zip(a.iter_mut()).zip(taken).enumerate() {
                        let take = (v > *b) | v.is_nan();
                        *b = T::pick(take, v, *b);
                        let mask = -(take as i64);
                        *a = ((row_at + k as i64 * step) & mask) | (*a & !mask);
                    }
                }
                y += ay.dilation;
            }
        }
    }
}

// max_planes compiled for the widest vectors the CPU has
crate::cpu::kernels::wide_variants!(max_planes_wide<T: Pick>, max_planes, (xs: &[T], m: &MaxWindows, vals: &mut [T], idx: &mut [i64], scratch: &mut [T]));

/// A pointer to an output whose disjoint blocks parallel units write.
pub(crate) struct Shared<T>(*mut T);
// SAFETY: only used to hand disjoint blocks of one `&mut [T]` to the units of one parallel call
unsafe impl<T: Send> Send for Shared<T> {}
unsafe impl<T: Send> Sync for Shared<T> {}

/// A max pool's values and indices over `planes` planes of `xs`.
pub(crate) fn max_pool_kernel<T: Pick>(
    xs: &[T],
    planes: usize,
    axes: [Axis; 2],
) -> (Vec<T>, Vec<i64>) {
    let m = MaxWindows::new(axes);
    let (lin, lout) = (m.ay.input * m.ax.input, m.ay.output * m.ax.output);
    let mut vals = crate::core::pool::buffer::<T>(planes * lout);
    let mut idx = vec![0i64; planes * lout];
    let out = Shared(vals.as_mut_ptr());
    for_each_planes(&mut idx, lout, planes * lin, |p0, block| {
        let out = &out;
        // SAFETY: the units' plane ranges are disjoint, inside `vals`, which outlives the call
        let vals = unsafe { std::slice::from_raw_parts_mut(out.0.add(p0 * lout), block.len()) };
        let xs = &xs[p0 * lin..];
        let mut scratch = vec![T::ZERO; m.ax.output];
        max_planes_wide(xs, &m, vals, block, &mut scratch)
    });
    (vals, idx)
}

/// PyTorch's adaptive window of output position `o`: `[⌊o·I/O⌋, ⌈(o+1)·I/O⌉)`.
pub(crate) fn adaptive_window(o: usize, input: usize, output: usize) -> (usize, usize) {
    let start = o * input / output;
    let end = ((o + 1) * input).div_ceil(output);
    (start, end)
}
