//! Dense matrix kernels in plain Rust over row-major `f64` matrices, LAPACK's conventions where
//! they decide the result: LU with partial pivoting (`getrf`: the first largest magnitude is the
//! pivot), Cholesky (`potrf`), triangular solves (`trsm`), Householder QR (`geqrf`/`orgqr`: `R`'s
//! diagonal takes the sign `dlarfg` gives it), a cyclic Jacobi eigensolver for symmetric matrices
//! and the matrix exponential by scaling and squaring with a degree-13 Padé approximant.
//! The differentiable ops built on them are in [`crate::ops::linalg::factorizations`] and [`crate::ops::linalg::solvers`].

/// `a (m×k) @ b (k×n)`, row-major.
pub(crate) fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            if x == 0.0 {
                continue;
            }
            for j in 0..n {
                c[i * n + j] += x * b[p * n + j];
            }
        }
    }
    c
}

/// The transpose of a row-major `m×n` matrix.
pub(crate) fn transpose(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    (0..n * m).map(|i| a[(i % m) * n + i / m]).collect()
}

/// The `n×n` identity.
pub(crate) fn identity(n: usize) -> Vec<f64> {
    let mut e = vec![0.0; n * n];
    for i in 0..n {
        e[i * n + i] = 1.0;
    }
    e
}

/// LU factorization with partial pivoting of the `n×n` matrix `a`, in place (`L` unit lower
/// below the diagonal, `U` on and above it). Returns the row swapped with each row (0-based,
/// LAPACK's `ipiv` minus one) and `info`: the 1-based index of the first zero pivot, or 0.
pub(crate) fn lu_in_place(a: &mut [f64], n: usize) -> (Vec<usize>, usize) {
    let mut pivots = Vec::with_capacity(n);
    let mut info = 0;
    for k in 0..n {
        let mut p = k;
        for r in k + 1..n {
            if a[r * n + k].abs() > a[p * n + k].abs() {
                p = r;
            }
        }
        pivots.push(p);
        if a[p * n + k] == 0.0 {
            if info == 0 {
                info = k + 1;
            }
            continue;
        }
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
        }
        let pivot = a[k * n + k];
        for r in k + 1..n {
            let f = a[r * n + k] / pivot;
            a[r * n + k] = f;
            if f != 0.0 {
                for j in k + 1..n {
                    a[r * n + j] -= f * a[k * n + j];
                }
            }
        }
    }
    (pivots, info)
}

/// Solves `A X = B` for `B` (`n×k`, overwritten by `X`) from `A`'s LU factors and pivots.
pub(crate) fn lu_solve(lu: &[f64], pivots: &[usize], n: usize, b: &mut [f64], k: usize) {
    for (i, &p) in pivots.iter().enumerate() {
        if p != i {
            for j in 0..k {
                b.swap(i * k + j, p * k + j);
            }
        }
    }
    triangular_solve(lu, n, b, k, false, true);
    triangular_solve(lu, n, b, k, true, false);
}

/// Solves `T X = B` in place for the triangle of the `n×n` matrix `t` (`upper` or lower; a
/// `unit` diagonal is taken as ones and not read); `B` is `n×k`.
pub(crate) fn triangular_solve(
    t: &[f64],
    n: usize,
    b: &mut [f64],
    k: usize,
    upper: bool,
    unit: bool,
) {
    let rows: Vec<usize> = if upper {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    for &i in &rows {
        let others: Box<dyn Iterator<Item = usize>> = if upper {
            Box::new(i + 1..n)
        } else {
            Box::new(0..i)
        };
        for p in others {
            let f = t[i * n + p];
            if f != 0.0 {
                for j in 0..k {
                    b[i * k + j] -= f * b[p * k + j];
                }
            }
        }
        if !unit {
            let d = t[i * n + i];
            for j in 0..k {
                b[i * k + j] /= d;
            }
        }
    }
}

/// The lower Cholesky factor of the symmetric `n×n` matrix `a` (its lower triangle is read),
/// and `info`: the order of the first leading minor that is not positive-definite, or 0 (the
/// factor is then complete only up to there, as LAPACK leaves it).
pub(crate) fn cholesky_lower(a: &[f64], n: usize) -> (Vec<f64>, usize) {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            l[i * n + j] = a[i * n + j];
        }
    }
    for j in 0..n {
        let mut d = l[j * n + j];
        for p in 0..j {
            d -= l[j * n + p] * l[j * n + p];
        }
        if d <= 0.0 || d.is_nan() {
            l[j * n + j] = d;
            return (l, j + 1);
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = l[i * n + j];
            for p in 0..j {
                s -= l[i * n + p] * l[j * n + p];
            }
            l[i * n + j] = s / d;
        }
    }
    (l, 0)
}

/// Householder QR of the `m×n` matrix `a`: `(Q, R)` with `Q` `m×m` (`complete`) or `m×k`, and
/// `R` `m×n` or `k×n` (`k = min(m, n)`), with LAPACK's reflectors `I - τ v vᵀ` (`v₀ = 1`,
/// `R`'s diagonal `-sign(α)‖x‖`).
pub(crate) fn householder_qr(
    a: &[f64],
    m: usize,
    n: usize,
    complete: bool,
) -> (Vec<f64>, Vec<f64>) {
    let k = m.min(n);
    let mut r = a.to_vec();
    let mut reflectors: Vec<(Vec<f64>, f64)> = Vec::with_capacity(k);
    for j in 0..k {
        let alpha = r[j * n + j];
        let xnorm = (j + 1..m).map(|i| r[i * n + j].powi(2)).sum::<f64>().sqrt();
        let mut v = vec![0.0; m - j];
        v[0] = 1.0;
        if xnorm == 0.0 {
            reflectors.push((v, 0.0));
            continue;
        }
        let beta = -alpha.signum() * alpha.hypot(xnorm);
        let tau = (beta - alpha) / beta;
        for i in j + 1..m {
            v[i - j] = r[i * n + j] / (alpha - beta);
        }
        // apply H = I - tau v vᵀ to the columns right of j
        for c in j + 1..n {
            let s: f64 = (j..m).map(|i| v[i - j] * r[i * n + c]).sum::<f64>() * tau;
            for i in j..m {
                r[i * n + c] -= s * v[i - j];
            }
        }
        r[j * n + j] = beta;
        for i in j + 1..m {
            r[i * n + j] = 0.0;
        }
        reflectors.push((v, tau));
    }
    // Q = H_0 H_1 ... H_{k-1} applied to the first q_cols columns of the identity
    let q_cols = if complete { m } else { k };
    let mut q = vec![0.0; m * q_cols];
    for i in 0..q_cols.min(m) {
        q[i * q_cols + i] = 1.0;
    }
    for (j, (v, tau)) in reflectors.iter().enumerate().rev() {
        if *tau == 0.0 {
            continue;
        }
        for c in 0..q_cols {
            let s: f64 = (j..m).map(|i| v[i - j] * q[i * q_cols + c]).sum::<f64>() * tau;
            for i in j..m {
                q[i * q_cols + c] -= s * v[i - j];
            }
        }
    }
    let r_rows = if complete { m } else { k };
    (q, r[..r_rows * n].to_vec())
}

/// Eigenvalues (ascending) and eigenvectors (columns of the row-major `n×n` result) of the
/// symmetric matrix `a`, by cyclic Jacobi rotations.
pub(crate) fn symmetric_eigen(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut s = a.to_vec();
    let mut v = identity(n);
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| s[i * n + j].powi(2))
            .sum();
        let total: f64 = s.iter().map(|x| x * x).sum();
        if off <= 1e-32 * total || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = s[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (s[q * n + q] - s[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let sn = t * c;
                // S <- Jᵀ S J with J rotating columns p, q
                for k in 0..n {
                    let (x, y) = (s[k * n + p], s[k * n + q]);
                    s[k * n + p] = c * x - sn * y;
                    s[k * n + q] = sn * x + c * y;
                }
                for k in 0..n {
                    let (x, y) = (s[p * n + k], s[q * n + k]);
                    s[p * n + k] = c * x - sn * y;
                    s[q * n + k] = sn * x + c * y;
                }
                for k in 0..n {
                    let (x, y) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * x - sn * y;
                    v[k * n + q] = sn * x + c * y;
                }
            }
        }
    }
    let values: Vec<f64> = (0..n).map(|i| s[i * n + i]).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut vectors = vec![0.0; n * n];
    for (k, &j) in order.iter().enumerate() {
        for r in 0..n {
            vectors[r * n + k] = v[r * n + j];
        }
    }
    (order.iter().map(|&j| values[j]).collect(), vectors)
}

/// `e^A` of the `n×n` matrix `a`: scaling and squaring with the degree-13 Padé approximant
/// (Higham 2005), lower degrees for matrices of small norm.
pub(crate) fn matrix_exp(a: &[f64], n: usize) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    let norm1 = (0..n)
        .map(|j| (0..n).map(|i| a[i * n + j].abs()).sum::<f64>())
        .fold(0.0, f64::max);
    if norm1.is_nan() {
        return vec![f64::NAN; n * n];
    }
    const THETA: [(usize, f64); 4] = [
        (3, 1.495585217958292e-2),
        (5, 2.539_398_330_063_23e-1),
        (7, 9.504178996162932e-1),
        (9, 2.097847961257068e0),
    ];
    for (m, theta) in THETA {
        if norm1 <= theta {
            return pade(a, n, m);
        }
    }
    let theta13 = 5.371920351148152;
    let s = if norm1 > theta13 {
        (norm1 / theta13).log2().ceil().max(0.0) as i32
    } else {
        0
    };
    let scale = 0.5f64.powi(s);
    let scaled: Vec<f64> = a.iter().map(|x| x * scale).collect();
    let mut e = pade(&scaled, n, 13);
    for _ in 0..s {
        e = matmul(&e, &e, n, n, n);
    }
    e
}

/// The `[m/m]` Padé approximant of `e^A` (`m` in 3, 5, 7, 9, 13).
fn pade(a: &[f64], n: usize, m: usize) -> Vec<f64> {
    let b: &[f64] = match m {
        3 => &[120.0, 60.0, 12.0, 1.0],
        5 => &[30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0],
        7 => &[
            17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0,
        ],
        9 => &[
            17643225600.0,
            8821612800.0,
            2075673600.0,
            302702400.0,
            30270240.0,
            2162160.0,
            110880.0,
            3960.0,
            90.0,
            1.0,
        ],
        _ => &[
            64764752532480000.0,
            32382376266240000.0,
            7771770303897600.0,
            1187353796428800.0,
            129060195264000.0,
            10559470521600.0,
            670442572800.0,
            33522128640.0,
            1323241920.0,
            40840800.0,
            960960.0,
            16380.0,
            182.0,
            1.0,
        ],
    };
    let eye = identity(n);
    let a2 = matmul(a, a, n, n, n);
    let comb = |terms: &[(f64, &[f64])]| -> Vec<f64> {
        let mut out = vec![0.0; n * n];
        for (c, t) in terms {
            for (o, x) in out.iter_mut().zip(t.iter()) {
                *o += c * x;
            }
        }
        out
    };
    let (u_inner, v) = if m == 13 {
        let a4 = matmul(&a2, &a2, n, n, n);
        let a6 = matmul(&a4, &a2, n, n, n);
        let w1 = comb(&[(b[13], &a6), (b[11], &a4), (b[9], &a2)]);
        let w2 = comb(&[(b[7], &a6), (b[5], &a4), (b[3], &a2), (b[1], &eye)]);
        let z1 = comb(&[(b[12], &a6), (b[10], &a4), (b[8], &a2)]);
        let z2 = comb(&[(b[6], &a6), (b[4], &a4), (b[2], &a2), (b[0], &eye)]);
        let w = comb(&[(1.0, &matmul(&a6, &w1, n, n, n)), (1.0, &w2)]);
        let v = comb(&[(1.0, &matmul(&a6, &z1, n, n, n)), (1.0, &z2)]);
        (w, v)
    } else {
        // powers A^0, A^2, A^4, ... up to A^(m-1)
        let mut powers = vec![eye.clone()];
        for _ in 1..=m / 2 {
            let last = powers.last().expect("A^0 is there");
            powers.push(matmul(last, &a2, n, n, n));
        }
        let mut u = vec![0.0; n * n];
        let mut v = vec![0.0; n * n];
        for (i, p) in powers.iter().enumerate() {
            for (x, y) in u.iter_mut().zip(p) {
                *x += b[2 * i + 1] * y;
            }
            for (x, y) in v.iter_mut().zip(p) {
                *x += b[2 * i] * y;
            }
        }
        (u, v)
    };
    let u = matmul(a, &u_inner, n, n, n);
    // (V - U)⁻¹ (V + U)
    let mut p: Vec<f64> = v.iter().zip(&u).map(|(v, u)| v - u).collect();
    let mut q: Vec<f64> = v.iter().zip(&u).map(|(v, u)| v + u).collect();
    let (pivots, _) = lu_in_place(&mut p, n);
    lu_solve(&p, &pivots, n, &mut q, n);
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    #[test]
    fn lu_solves_a_system() {
        let a = [2.0, 1.0, 1.0, 4.0, 3.0, 3.0, 8.0, 7.0, 9.0];
        let mut lu = a.to_vec();
        let (piv, info) = lu_in_place(&mut lu, 3);
        assert_eq!(info, 0);
        let mut b = vec![1.0, 2.0, 3.0];
        lu_solve(&lu, &piv, 3, &mut b, 1);
        assert!(close(&matmul(&a, &b, 3, 3, 1), &[1.0, 2.0, 3.0], 1e-12));
    }

    #[test]
    fn qr_reconstructs() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 1.0, 0.0, 2.0];
        for complete in [false, true] {
            let (q, r) = householder_qr(&a, 4, 3, complete);
            let cols = if complete { 4 } else { 3 };
            assert!(close(&matmul(&q, &r, 4, cols, 3), &a, 1e-12));
        }
    }

    #[test]
    fn eigen_and_exp() {
        let a = [2.0, 1.0, 1.0, 2.0];
        let (w, _) = symmetric_eigen(&a, 2);
        assert!(close(&w, &[1.0, 3.0], 1e-12));
        let e = matrix_exp(&[0.0, 1.0, -1.0, 0.0], 2);
        let (c, s) = (1f64.cos(), 1f64.sin());
        assert!(close(&e, &[c, s, -s, c], 1e-14));
        let big = matrix_exp(&[10.0, 0.0, 0.0, -3.0], 2);
        assert!(close(&big, &[10f64.exp(), 0.0, 0.0, (-3f64).exp()], 1e-9));
    }
}
