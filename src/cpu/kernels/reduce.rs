//! Sums over dimensions: the strided walk, runs of rows, and the pairwise sum whose order is
//! fixed by the length alone (the same bits with any thread count).

use super::{update_dispatch, PARALLEL_ELEMENTS};
use crate::core::buffer::BufferElement;
use crate::core::dtype::Num;
use crate::core::layout::gather;
use crate::core::tensor::Tensor;

/// Sums over the dimensions marked in `reduce`; the result keeps every dimension (size 1 where reduced).
pub fn sum_dims<T: BufferElement + Num>(x: &Tensor, reduce: &[bool]) -> Tensor {
    let in_shape = x.shape().to_vec();
    let out_shape: Vec<usize> = in_shape
        .iter()
        .zip(reduce)
        .map(|(&s, &r)| if r { 1 } else { s })
        .collect();
    // read in place when the input is contiguous
    let out = x.read(|d: &[T], l| {
        let copied;
        let data = match l.contiguous_range() {
            Some(range) => &d[range],
            None => {
                copied = gather(d, l);
                &copied[..]
            }
        };
        if reduce.iter().all(|&r| r) {
            return vec![sum_all(data)];
        }
        // runs of reduced dims summed one at a time from the innermost, each as `(outer,
        // mid, inner)` over the contiguous data
        let mut shape = in_shape.clone();
        let mut summed: Option<Vec<T>> = None;
        let mut end = shape.len();
        while let Some(last) = (0..end).rev().find(|&k| reduce[k] && shape[k] != 1) {
            let first = (0..=last)
                .rev()
                .take_while(|&k| reduce[k])
                .last()
                .unwrap_or(last);
            let size = |dims: &[usize]| dims.iter().product::<usize>();
            let (outer, mid) = (size(&shape[..first]), size(&shape[first..=last]));
            let inner = size(&shape[last + 1..]);
            summed = Some(sum_run(
                summed.as_deref().unwrap_or(data),
                outer,
                mid,
                inner,
            ));
            shape[first..=last].fill(1);
            end = first;
        }
        summed.unwrap_or_else(|| data.to_vec())
    });
    Tensor::from_vec(out, &out_shape).expect("shape matches")
}

/// The sum of all of `data`: fixed chunks summed in parallel, then pairwise (the same result
/// with any thread count).
fn sum_all<T: BufferElement + Num>(data: &[T]) -> T {
    if data.len() < PARALLEL_ELEMENTS {
        return pairwise_sum(data);
    }
    // one partial sum per fixed-size chunk, whichever thread computes it
    let chunk = PARALLEL_ELEMENTS / 4;
    let mut partial = vec![data[0]; data.len().div_ceil(chunk)];
    crate::cpu::parallel::for_each_block(&mut partial, 1, |i, sum| {
        sum[0] = pairwise_sum(&data[i * chunk..data.len().min((i + 1) * chunk)])
    });
    pairwise_sum(&partial)
}

/// Sums the contiguous `(outer, mid, inner)` data over `mid`: `(outer, inner)`. Rows of
/// `inner` are added in order (vectorized); with `inner == 1` each output is a pairwise sum
/// of its run (a plain one below 16 elements).
fn sum_run<T: BufferElement + Num>(data: &[T], outer: usize, mid: usize, inner: usize) -> Vec<T> {
    let mut out = vec![T::ZERO; outer * inner];
    if mid == 0 || inner == 0 {
        return out;
    }
    if inner == 1 {
        for (o, row) in out.iter_mut().zip(data.chunks_exact(mid)) {
            *o = if mid < 16 {
                row.iter().fold(T::ZERO, |a, &b| a + b)
            } else {
                pairwise_sum(row)
            };
        }
    } else {
        for (o, block) in out
            .chunks_exact_mut(inner)
            .zip(data.chunks_exact(mid * inner))
        {
            for row in block.chunks_exact(inner) {
                update_dispatch(o, row, &|a: T, b: T| a + b);
            }
        }
    }
    out
}

/// Sum with pairwise blocking, accurate for long float32 inputs: blocks of 256 are summed in 16
/// interleaved lanes (which vectorize), then the block sums pairwise.
pub fn pairwise_sum<T: Num>(xs: &[T]) -> T {
    const BLOCK: usize = 256;
    const LANES: usize = 16;
    if xs.len() <= BLOCK {
        let mut lanes = [T::ZERO; LANES];
        let mut chunks = xs.chunks_exact(LANES);
        for chunk in &mut chunks {
            for (l, &x) in lanes.iter_mut().zip(chunk) {
                *l += x;
            }
        }
        for (l, &x) in lanes.iter_mut().zip(chunks.remainder()) {
            *l += x;
        }
        // the lanes pairwise: 16 -> 8 -> 4 -> 2 -> 1
        let mut width = LANES;
        while width > 1 {
            width /= 2;
            for i in 0..width {
                let upper = lanes[i + width];
                lanes[i] += upper;
            }
        }
        return lanes[0];
    }
    let mid = (xs.len() / 2).next_multiple_of(BLOCK).min(xs.len());
    pairwise_sum(&xs[..mid]) + pairwise_sum(&xs[mid..])
}
