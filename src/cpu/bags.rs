//! Embedding bags: the rows of a weight matrix that each bag takes, reduced to one row per bag
//! (summed, averaged, or the element-wise maximum).

use crate::core::dtype::Float;

/// How a bag's rows become one row (PyTorch's `mode` of `embedding_bag`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BagMode {
    /// The rows added (each times its per-sample weight, when given).
    Sum,
    /// The rows' mean.
    Mean,
    /// The element-wise maximum of the rows.
    Max,
}

/// One row per bag of the `dim`-wide rows of `weight` (row-major, contiguous). Bag `b` takes the
/// positions `bounds[b]..bounds[b + 1]` of `taken`, each the row it takes or `None` for a
/// padding index (left out, and not counted by the mean); `scale[p]` multiplies position `p`'s
/// row in a sum. An empty bag gives zeros. Returns the bags' rows and, for `Max`, the position
/// whose row gave each output element (`usize::MAX` in an empty bag): the ties go to the first.
pub fn reduce_bags<T: Float>(
    weight: &[T],
    dim: usize,
    taken: &[Option<usize>],
    bounds: &[usize],
    mode: BagMode,
    scale: Option<&[T]>,
) -> (Vec<T>, Vec<usize>) {
    let bags = bounds.len().saturating_sub(1);
    let mut out = vec![T::zero(); bags * dim];
    let mut argmax = if mode == BagMode::Max {
        vec![usize::MAX; bags * dim]
    } else {
        Vec::new()
    };
    for b in 0..bags {
        let acc = &mut out[b * dim..(b + 1) * dim];
        let mut count = 0usize;
        for p in bounds[b]..bounds[b + 1] {
            let Some(row) = taken[p] else { continue };
            let src = &weight[row * dim..(row + 1) * dim];
            match mode {
                BagMode::Max => {
                    let arg = &mut argmax[b * dim..(b + 1) * dim];
                    for ((a, i), &v) in acc.iter_mut().zip(arg.iter_mut()).zip(src) {
                        if count == 0 || v > *a {
                            *a = v;
                            *i = p;
                        }
                    }
                }
                _ => {
                    let s = scale.map_or(T::one(), |s| s[p]);
                    for (a, &v) in acc.iter_mut().zip(src) {
                        *a += s * v;
                    }
                }
            }
            count += 1;
        }
        if mode == BagMode::Mean && count > 0 {
            let n = T::from_f64(count as f64);
            for a in acc.iter_mut() {
                *a = *a / n;
            }
        }
    }
    (out, argmax)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bags_sum_mean_max_and_padding() {
        // rows 0..4 of width 2: [0,1], [2,3], [4,5], [6,7]
        let w: Vec<f64> = (0..8).map(f64::from).collect();
        let taken = [Some(0), Some(3), None, Some(1), Some(2)];
        let bounds = [0, 2, 2, 5];
        let (sum, _) = reduce_bags(&w, 2, &taken, &bounds, BagMode::Sum, None);
        assert_eq!(sum, vec![6.0, 8.0, 0.0, 0.0, 6.0, 8.0]);
        let (mean, _) = reduce_bags(&w, 2, &taken, &bounds, BagMode::Mean, None);
        assert_eq!(mean, vec![3.0, 4.0, 0.0, 0.0, 3.0, 4.0]);
        let (max, arg) = reduce_bags(&w, 2, &taken, &bounds, BagMode::Max, None);
        assert_eq!(max, vec![6.0, 7.0, 0.0, 0.0, 4.0, 5.0]);
        assert_eq!(arg, vec![1, 1, usize::MAX, usize::MAX, 4, 4]);
        let scale = [2.0, 1.0, 5.0, 0.5, 1.0];
        let (weighted, _) = reduce_bags(&w, 2, &taken, &bounds, BagMode::Sum, Some(&scale));
        assert_eq!(weighted, vec![6.0, 9.0, 0.0, 0.0, 5.0, 6.5]);
    }
}
