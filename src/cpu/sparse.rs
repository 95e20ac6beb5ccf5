//! Kernels of sparse COO tensors: coalescing, scattering into a dense buffer, and the product
//! of a sparse matrix with a dense one. Indices come as the rows of PyTorch's `indices` matrix
//! (one row per sparse dimension, one column per stored element), values as `nnz` rows of
//! `row` elements each (the dense dimensions).

use crate::core::dtype::Num;

/// The position of each stored element in the row-major order of the sparse dimensions
/// (`sizes`), or `None` if an index is out of range or negative.
pub fn linear_positions(indices: &[i64], sizes: &[usize], nnz: usize) -> Option<Vec<usize>> {
    let mut out = vec![0usize; nnz];
    for (d, &size) in sizes.iter().enumerate() {
        for (o, &i) in out.iter_mut().zip(&indices[d * nnz..(d + 1) * nnz]) {
            if i < 0 || i as usize >= size {
                return None;
            }
            *o = *o * size + i as usize;
        }
    }
    Some(out)
}

/// The coalesced form: positions sorted, duplicates summed (values in the order of first
/// appearance within each position, so sums are deterministic). Returns the sorted distinct
/// positions and their value rows.
pub fn coalesce<T: Num>(positions: &[usize], values: &[T], row: usize) -> (Vec<usize>, Vec<T>) {
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by_key(|&k| positions[k]);
    let mut kept: Vec<usize> = Vec::new();
    let mut sums: Vec<T> = Vec::new();
    for k in order {
        let src = &values[k * row..(k + 1) * row];
        if kept.last() == Some(&positions[k]) {
            let start = sums.len() - row;
            for (s, &v) in sums[start..].iter_mut().zip(src) {
                *s += v;
            }
        } else {
            kept.push(positions[k]);
            sums.extend_from_slice(src);
        }
    }
    (kept, sums)
}

/// For each of `probes`, where it is in `sorted` (ascending, without repeats: the positions of
/// a coalesced sparse tensor), if there.
pub fn find_positions(sorted: &[usize], probes: &[usize]) -> Vec<Option<usize>> {
    probes
        .iter()
        .map(|p| sorted.binary_search(p).ok())
        .collect()
}

/// The rows of the indices matrix of positions in the row-major order of `sizes`.
pub fn unravel(positions: &[usize], sizes: &[usize]) -> Vec<i64> {
    let nnz = positions.len();
    let mut out = vec![0i64; sizes.len() * nnz];
    for (k, &p) in positions.iter().enumerate() {
        let mut rest = p;
        for d in (0..sizes.len()).rev() {
            out[d * nnz + k] = (rest % sizes[d]) as i64;
            rest /= sizes[d];
        }
    }
    out
}

/// A dense buffer of `count` positions × `row` elements with the stored value rows added at
/// their positions (duplicates summed).
pub fn scatter_dense<T: Num>(
    positions: &[usize],
    values: &[T],
    row: usize,
    count: usize,
) -> Vec<T> {
    let mut out = vec![T::ZERO; count * row];
    for (k, &p) in positions.iter().enumerate() {
        for (o, &v) in out[p * row..(p + 1) * row]
            .iter_mut()
            .zip(&values[k * row..(k + 1) * row])
        {
            *o += v;
        }
    }
    out
}

/// `S @ D` for a sparse `m × k` matrix `S` (element `k` at `rows[k]`, `cols[k]` with value
/// `values[k]`) and a dense row-major `k × n` matrix: the dense row-major `m × n` product.
pub fn spmm<T: Num>(
    rows: &[i64],
    cols: &[i64],
    values: &[T],
    dense: &[T],
    m: usize,
    n: usize,
) -> Vec<T> {
    let mut out = vec![T::ZERO; m * n];
    for ((&r, &c), &v) in rows.iter().zip(cols).zip(values) {
        let (r, c) = (r as usize, c as usize);
        let src = &dense[c * n..(c + 1) * n];
        for (o, &d) in out[r * n..(r + 1) * n].iter_mut().zip(src) {
            *o += v * d;
        }
    }
    out
}
