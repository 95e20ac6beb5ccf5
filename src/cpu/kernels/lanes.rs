//! Kernels along one dimension: the geometry of its lanes, a function per lane or per pair of
//! lanes, and the sum and maximum of a lane in sixteen accumulators.

use super::PARALLEL_ELEMENTS;
use crate::core::buffer::BufferElement;
use crate::core::layout::gather;
use crate::core::tensor::Tensor;

/// `(outer, size, inner)` of `shape` around `dim`: lanes along `dim` start at `(o·size)·inner + k`.
pub fn lane_geometry(shape: &[usize], dim: usize) -> (usize, usize, usize) {
    if shape.is_empty() {
        return (1, 1, 1);
    }
    (
        shape[..dim].iter().product(),
        shape[dim],
        shape[dim + 1..].iter().product(),
    )
}

/// Calls `f` on every 1-D lane of `x` along `dim`, in row-major order of the other dimensions.
pub fn for_each_lane<T: BufferElement + Copy>(x: &Tensor, dim: usize, mut f: impl FnMut(&[T])) {
    let data: Vec<T> = x.read(gather);
    let (outer, n, inner) = lane_geometry(x.shape(), dim);
    let mut lane = Vec::with_capacity(n);
    for o in 0..outer {
        for k in 0..inner {
            lane.clear();
            lane.extend((0..n).map(|i| data[(o * n + i) * inner + k]));
            f(&lane);
        }
    }
}

/// Maps every lane of `x` along `dim` to a lane of the same length; the result has `x`'s shape.
pub fn map_lanes<T: BufferElement + Copy + Default>(
    x: &Tensor,
    dim: usize,
    f: impl Fn(&[T], &mut [T]) + Sync,
) -> Tensor {
    zip_lanes(x, x, dim, |lane, _, out| f(lane, out))
}

/// Maps every pair of lanes of `a` and `b` (same shape) along `dim` to a lane of the same
/// length; the result has their shape (see [`zip_lane_blocks`]).
pub fn zip_lanes<T: BufferElement + Copy + Default>(
    a: &Tensor,
    b: &Tensor,
    dim: usize,
    f: impl Fn(&[T], &[T], &mut [T]) + Sync,
) -> Tensor {
    zip_lane_blocks(a, b, dim, |a, b, out, n| {
        for ((la, lb), o) in a
            .chunks_exact(n)
            .zip(b.chunks_exact(n))
            .zip(out.chunks_exact_mut(n))
        {
            f(la, lb, o);
        }
    })
}

/// [`zip_lanes`] with `block(a, b, out, n)` mapping a block of consecutive `n`-element lanes
/// at a time: a kernel compiled for wider vector instructions takes its whole loop there (a
/// closure called per lane would be compiled apart, for the baseline instruction set). Lanes
/// along the last dimension of contiguous tensors are read and written in place, without
/// copies, and shared out over the threads when there are many.
pub fn zip_lane_blocks<T: BufferElement + Copy + Default>(
    a: &Tensor,
    b: &Tensor,
    dim: usize,
    block: impl Fn(&[T], &[T], &mut [T], usize) + Sync,
) -> Tensor {
    let (outer, n, inner) = lane_geometry(a.shape(), dim);
    let numel = a.numel();
    if numel == 0 {
        return Tensor::from_vec(Vec::<T>::new(), a.shape()).expect("no elements");
    }
    if inner == 1 {
        let mut out = crate::core::pool::buffer::<T>(numel);
        let rows = |x: &Tensor, g: &mut dyn FnMut(&[T])| {
            if x.is_contiguous() {
                x.read(|d: &[T], l| g(&d[l.offset..l.offset + numel]))
            } else {
                g(&x.read(gather::<T>))
            }
        };
        rows(a, &mut |ad| {
            rows(b, &mut |bd| {
                if numel >= PARALLEL_ELEMENTS && outer > 1 {
                    let size = (PARALLEL_ELEMENTS / 4).div_ceil(n) * n;
                    crate::cpu::parallel::for_each_block(&mut out, size, |at, o| {
                        block(&ad[at..at + o.len()], &bd[at..at + o.len()], o, n)
                    });
                } else {
                    block(ad, bd, &mut out, n);
                }
            })
        });
        return Tensor::from_vec(out, a.shape()).expect("same shape");
    }
    let (ad, bd): (Vec<T>, Vec<T>) = (a.read(gather), b.read(gather));
    let mut out = ad.clone();
    let (mut la, mut lb) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut result = vec![T::default(); n];
    for o in 0..outer {
        for k in 0..inner {
            la.clear();
            lb.clear();
            la.extend((0..n).map(|i| ad[(o * n + i) * inner + k]));
            lb.extend((0..n).map(|i| bd[(o * n + i) * inner + k]));
            block(&la, &lb, &mut result, n);
            for (i, &v) in result.iter().enumerate() {
                out[(o * n + i) * inner + k] = v;
            }
        }
    }
    Tensor::from_vec(out, a.shape()).expect("same shape")
}

/// `block` over `a` and `b` taken as blocks of their last-dimension lanes (see
/// the `*_lanes` kernels of [`crate::cpu::activation`]), when both are contiguous, of one shape and not 0-d: an elementwise
/// formula too large for `map`/`zip` to inline, run compiled for wide vectors. `None`
/// otherwise (the caller maps element by element).
pub fn in_blocks<T: BufferElement + Copy + Default>(
    a: &Tensor,
    b: &Tensor,
    block: impl Fn(&[T], &[T], &mut [T], usize) + Sync,
) -> Option<Tensor> {
    let fits = a.shape() == b.shape() && a.is_contiguous() && b.is_contiguous() && a.dim() > 0;
    fits.then(|| zip_lane_blocks::<T>(a, b, a.dim() - 1, block))
}

/// `Σ xs` in sixteen partial sums (so the loop vectorizes), then added pairwise: an order
/// fixed by the length alone.
#[inline(always)]
#[allow(clippy::assign_op_pattern)] // `Float` has no compound assignment
pub fn lane_sum<T: crate::core::dtype::Float>(xs: &[T]) -> T {
    let mut acc = [T::zero(); 16];
    let body = xs.len() - xs.len() % 16;
    for chunk in xs[..body].chunks_exact(16) {
        for k in 0..16 {
            acc[k] = acc[k] + chunk[k];
        }
    }
    for (k, &v) in xs[body..].iter().enumerate() {
        acc[k] = acc[k] + v;
    }
    let mut width = 8;
    while width > 0 {
        for k in 0..width {
            acc[k] = acc[k] + acc[k + width];
        }
        width /= 2;
    }
    acc[0]
}

/// The largest of `xs` (`-inf` when empty; NaN when one is NaN), sixteen lanes at a time.
#[inline(always)]
pub fn lane_max<T: crate::core::dtype::Float>(xs: &[T]) -> T {
    // NaN wins, as in PyTorch's max
    let larger = |m: T, v: T| if v > m || v.is_nan() { v } else { m };
    let mut acc = [T::neg_infinity(); 16];
    let body = xs.len() - xs.len() % 16;
    for chunk in xs[..body].chunks_exact(16) {
        for k in 0..16 {
            acc[k] = larger(acc[k], chunk[k]);
        }
    }
    for (k, &v) in xs[body..].iter().enumerate() {
        acc[k] = larger(acc[k], v);
    }
    acc.iter().fold(T::neg_infinity(), |m, &v| larger(m, v))
}
