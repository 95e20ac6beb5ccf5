//! The product against a naive one, on ragged, transposed, thin and row-table shapes.

use super::pack::transpose16;
use super::*;
use std::arch::x86_64::*;

/// Fixed row-major operands `a` (m×k) and `b` (k×n) with varied values.
fn operands(m: usize, n: usize, k: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..m * k).map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0);
    let b = (0..k * n).map(|i| ((i * 53 % 97) as f32 - 48.0) / 30.0);
    (a.collect(), b.collect())
}

fn naive(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> Vec<f64> {
    let mut c = vec![0.0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] += a[i * k + p] as f64 * b[p * n + j] as f64;
            }
        }
    }
    c
}

#[test]
fn transpose16_swaps_rows_and_columns() {
    if !available() || !tile().avx512 {
        return;
    }
    let m: Vec<f32> = (0..256).map(|v| v as f32).collect();
    let mut out = [0.0f32; 256];
    // SAFETY: AVX-512F is available (checked above); 16 rows of 16 floats in and out
    unsafe {
        let mut rows = [_mm512_setzero_ps(); 16];
        for (i, row) in rows.iter_mut().enumerate() {
            *row = _mm512_loadu_ps(m.as_ptr().add(16 * i));
        }
        transpose16(&mut rows);
        for (k, column) in rows.iter().enumerate() {
            _mm512_storeu_ps(out.as_mut_ptr().add(16 * k), *column);
        }
    }
    for i in 0..16 {
        for k in 0..16 {
            assert_eq!(out[16 * k + i], m[16 * i + k]);
        }
    }
}

/// The outer product of a column `a` and a row `b` through [`sgemm`] (`k == 1`).
fn outer(a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut c = vec![MaybeUninit::new(f32::NAN); a.len() * b.len()];
    let aref = MatRef::strided(a.as_ptr(), 1, 1);
    let bref = MatRef::strided(b.as_ptr(), b.len() as isize, 1);
    // SAFETY: the kernel is available (checked by the callers); an m x 1 and a 1 x n operand
    unsafe { sgemm(a.len(), b.len(), 1, aref, bref, &mut c, 1) };
    // SAFETY: sgemm wrote every element
    c.iter().map(|v| unsafe { v.assume_init() }).collect()
}

#[test]
fn thin_products_sign_zeros_as_pytorch() {
    // (with AVX2 the thin products go to the `gemm` crate, see `suits`)
    if !available() || !tile().avx512 {
        return;
    }
    // PyTorch's 0.001 / (x @ y) with x = [[-0.257]], y = [[-2.758, 0.0, -1.544]]: the middle
    // element is +0.0 (a matrix-vector product's sum starts from zero), so +inf after it
    let row = outer(&[-0.257], &[-2.758, 0.0, -1.544]);
    assert_eq!(row[1].to_bits(), 0.0f32.to_bits());
    // a larger outer product keeps -0.0 (fz-317632: PyTorch's atan2 of it gives -pi)
    let block = outer(&[0.0, -0.176], &[0.176, 2.76, 0.0]);
    assert_eq!(block[5].to_bits(), (-0.0f32).to_bits());
}

#[test]
fn matches_a_naive_product_on_ragged_and_transposed_shapes() {
    if !available() {
        return;
    }
    for &(m, n, k) in &[
        (1, 1, 1),
        (13, 33, 7),
        (12, 32, 384),
        (50, 70, 800),
        (200, 3100, 5),
        (30, 1100, 900),
        (64, 130, 784),
        (29, 45, 20),
        (3, 600, 33),
        (300, 40, 50),
        (700, 200, 400),
        // thin shapes (row vector, column vector, outer product): see `thin`
        (1, 384, 128),
        (1, 33, 7),
        (1, 200, 1),
        (1, 1, 300),
        (384, 128, 1),
        (7, 1, 45),
        (17, 1, 33),
        (1, 130, 600),
        // thin shapes large enough to split their outputs over threads
        (1, 3000, 200),
        (700, 600, 1),
        (3000, 1, 200),
    ] {
        let (a, b) = operands(m, n, k);
        let want = naive(m, n, k, &a, &b);
        // b also given transposed: bt (n×k) read with swapped strides
        let bt: Vec<f32> = (0..n * k).map(|q| b[(q % k) * n + q / k]).collect();
        for (threads, bref) in [
            (1, MatRef::strided(b.as_ptr(), n as isize, 1)),
            (3, MatRef::strided(bt.as_ptr(), 1, k as isize)),
        ] {
            let mut c = vec![MaybeUninit::new(f32::NAN); m * n];
            let aref = MatRef::strided(a.as_ptr(), k as isize, 1);
            // SAFETY: the operands hold m·k and k·n floats, read within range
            unsafe { sgemm(m, n, k, aref, bref, &mut c, threads) };
            // SAFETY: sgemm wrote every element
            let c: Vec<f32> = c.iter().map(|v| unsafe { v.assume_init() }).collect();
            for (got, want) in c.iter().zip(&want) {
                assert!(
                    (*got as f64 - want).abs() <= 1e-4 * (1.0 + want.abs()),
                    "{m}x{n}x{k}"
                );
            }
        }
    }
}

#[test]
fn row_table_operands_read_each_row_where_the_table_says() {
    if !available() {
        return;
    }
    // rows gathered from a larger buffer in a shuffled, overlapping order (an im2col's
    // tap rows overlap in the padded image); A with a table (packed as lines), B with a
    // table (packed as rows), on one and on two threads, ragged edges and a 16-wide B
    for &(m, n, k, threads) in &[(17, 40, 23, 1), (45, 16, 300, 2), (3, 70, 9, 2)] {
        let (a, b) = operands(m, n, k);
        let width = |cols: usize, rows: usize| cols + 3 * rows;
        let spread = |dense: &[f32], rows: usize, cols: usize| {
            // the rows in reverse order, `cols + 3` apart (NaN between them)
            let mut buf = vec![f32::NAN; width(cols, rows) * rows];
            let offsets: Vec<usize> = (0..rows).map(|r| (rows - 1 - r) * width(cols, 1)).collect();
            for (r, &o) in offsets.iter().enumerate() {
                buf[o..o + cols].copy_from_slice(&dense[r * cols..(r + 1) * cols]);
            }
            (buf, offsets)
        };
        let (abuf, aoff) = spread(&a, m, k);
        let (bbuf, boff) = spread(&b, k, n);
        let aref = MatRef {
            row_offsets: aoff.as_ptr(),
            ..MatRef::strided(abuf.as_ptr(), 0, 1)
        };
        let bref = MatRef {
            row_offsets: boff.as_ptr(),
            ..MatRef::strided(bbuf.as_ptr(), 0, 1)
        };
        let want = naive(m, n, k, &a, &b);
        let mut c = vec![MaybeUninit::new(f32::NAN); m * n];
        // SAFETY: every offset plus its row's length is inside its buffer
        unsafe { sgemm(m, n, k, aref, bref, &mut c, threads) };
        for (got, want) in c.iter().zip(&want) {
            // SAFETY: sgemm wrote every element
            let got = unsafe { got.assume_init() } as f64;
            assert!(
                (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                "{m}x{n}x{k}"
            );
        }
    }
}

#[test]
fn packed_b_gives_the_same_bits_as_packing_per_product() {
    if !available() {
        return;
    }
    // several depth blocks (k > KC), several column blocks (n > NC), ragged edges
    for &(m, n, k, threads) in &[
        (16, 512, 128, 1),
        (16, 128, 512, 1),
        (2, 33, 7, 1),
        // few columns, A read in place (Note [Few columns: A read in place])
        (40, 48, 600, 2),
        (29, 1100, 900, 2),
        (200, 70, 800, 3),
    ] {
        let (a, b) = operands(m, n, k);
        let aref = MatRef::strided(a.as_ptr(), k as isize, 1);
        // b read transposed, as a recurrent layer's h·w_hhᵀ reads w_hh
        let bt: Vec<f32> = (0..n * k).map(|q| b[(q % k) * n + q / k]).collect();
        let bref = MatRef::strided(bt.as_ptr(), 1, k as isize);
        let mut want = vec![MaybeUninit::new(f32::NAN); m * n];
        let mut got = vec![MaybeUninit::new(f32::NAN); m * n];
        // SAFETY: the operands hold m·k and k·n floats, read within range
        unsafe {
            sgemm(m, n, k, aref, bref, &mut want, threads);
            let packed = PackedB::new(k, n, bref, threads);
            sgemm_packed(m, aref, &packed, &mut got, threads);
        }
        // SAFETY: both products wrote every element
        let bits = |c: &[MaybeUninit<f32>]| -> Vec<u32> {
            c.iter()
                .map(|v| unsafe { v.assume_init() }.to_bits())
                .collect()
        };
        assert_eq!(bits(&got), bits(&want), "{m}x{n}x{k}");
    }
}
