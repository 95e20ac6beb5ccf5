//! Matrix factorizations of `torch.linalg`, batched over leading dims, computed in float64 by
//! the kernels of `crate::ops::linalg::dense` and returned in the input's dtype: LU (`lu_factor_ex`, and
//! through it `inv_ex`, `det`, `slogdet`), `cholesky_ex`, `qr`, `eigh`, `svd` (the one-sided
//! Jacobi SVD of [`crate::ops::linalg::decomposition`]) and `matrix_exp`. Each records PyTorch's node with
//! the formula of PyTorch's `derivatives.yaml` / `FunctionsManual.cpp`, written with
//! differentiable ops (these ones included), so second derivatives work.
//!
//! Signs of eigenvectors and singular vectors are those of the Jacobi methods here, not
//! LAPACK's: each vector may differ from PyTorch's by a factor -1 (the subspaces, the
//! eigenvalues and singular values, and the gradients of sign-invariant functions agree).

use crate::autograd::{is_recording, record, record_multi, Save};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::ops::linalg::decomposition::jacobi_svd;
use crate::ops::linalg::dense;

/// A batch of matrices read out of a tensor in float64, row-major.
pub(crate) struct Matrices {
    /// All the matrices, one after the other.
    pub data: Vec<f64>,
    /// The leading (batch) dims.
    pub lead: Vec<usize>,
    /// Rows of each matrix.
    pub rows: usize,
    /// Columns of each matrix.
    pub cols: usize,
    /// How many matrices.
    pub count: usize,
}

impl Matrices {
    /// The matrices of `t` (at least 2-D).
    pub(crate) fn of(t: &Tensor) -> Result<Matrices> {
        let d = t.dim();
        let (rows, cols) = (t.shape()[d - 2], t.shape()[d - 1]);
        let lead = t.shape()[..d - 2].to_vec();
        let count = lead.iter().product();
        let data = t
            .detach()
            .to_dtype(DType::Float64)?
            .contiguous()?
            .to_vec::<f64>()?;
        Ok(Matrices {
            data,
            lead,
            rows,
            cols,
            count,
        })
    }

    /// Matrix `b`.
    pub(crate) fn get(&self, b: usize) -> &[f64] {
        let size = self.rows * self.cols;
        &self.data[b * size..(b + 1) * size]
    }
}

/// A tensor of `dtype` from float64 values of shape `lead + tail`.
pub(crate) fn build(
    data: Vec<f64>,
    lead: &[usize],
    tail: &[usize],
    dtype: DType,
) -> Result<Tensor> {
    let shape: Vec<usize> = lead.iter().chain(tail).copied().collect();
    Tensor::from_vec(data, &shape)?.to_dtype(dtype)
}

/// An int64 tensor of shape `lead + tail`.
pub(crate) fn build_ints(data: Vec<i64>, lead: &[usize], tail: &[usize]) -> Result<Tensor> {
    let shape: Vec<usize> = lead.iter().chain(tail).copied().collect();
    Tensor::from_vec(data, &shape)
}

/// PyTorch's checks of a linalg input `A`: at least 2-D, floating, and square if `square`.
pub(crate) fn check_input(op: &str, a: &Tensor, square: bool) -> Result<()> {
    if a.dim() < 2 {
        return Err(Error::runtime(format!(
            "{op}: The input tensor A must have at least 2 dimensions."
        )));
    }
    if !a.dtype().is_floating_point() {
        return Err(Error::not_implemented(format!(
            "{op}: Expected a floating point or complex tensor as input. Got {}",
            a.dtype().scalar_name()
        )));
    }
    let d = a.dim();
    let (m, n) = (a.shape()[d - 2], a.shape()[d - 1]);
    if square && m != n {
        return Err(Error::runtime(format!(
            "{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )));
    }
    Ok(())
}

/// A `LinAlgError` for matrix `b` of a batch (named when the input has batch dims).
pub(crate) fn failure(op: &str, batched: bool, b: usize, what: &str) -> Error {
    if batched {
        Error::linalg(format!("{op}: (Batch element {b}): {what}"))
    } else {
        Error::linalg(format!("{op}: {what}"))
    }
}

/// `t` with its last two dims swapped (`mH` of a real tensor).
pub(crate) fn mh(t: &Tensor) -> Result<Tensor> {
    t.transpose(-2, -1)
}

/// The `n×n` identity of `dtype`.
pub(crate) fn eye(n: usize, dtype: DType) -> Result<Tensor> {
    Tensor::eye(n as i64, None, dtype)
}

/// The matrices with `v`'s last dim on their diagonals (`diag_embed`), by a broadcast product.
pub(crate) fn diag_embed(v: &Tensor) -> Result<Tensor> {
    let n = v.shape()[v.dim() - 1];
    eye(n, v.dtype())?.mul(&v.unsqueeze(-2)?)
}

/// The zero gradient of an output that got none.
fn or_zeros(g: Option<&Tensor>, like: &Tensor) -> Tensor {
    g.cloned().unwrap_or_else(|| like.zeros_like())
}

/// LU factors of each matrix: the packed factors, the 1-based pivots, and `info` (the first
/// zero pivot, 1-based, or 0).
fn lu_batch(a: &Matrices) -> (Vec<f64>, Vec<i64>, Vec<i64>) {
    let n = a.rows;
    let (mut lu, mut pivots, mut infos) = (Vec::new(), Vec::new(), Vec::new());
    for b in 0..a.count {
        let mut m = a.get(b).to_vec();
        let (p, info) = dense::lu_in_place(&mut m, n);
        lu.extend(m);
        pivots.extend(p.iter().map(|&i| i as i64 + 1));
        infos.push(info as i64);
    }
    (lu, pivots, infos)
}

/// The determinant of each matrix: the product of its LU factors' pivots, signed by the row
/// swaps.
fn det_batch(a: &Matrices) -> Vec<f64> {
    let n = a.rows;
    let (lu, pivots, _) = lu_batch(a);
    (0..a.count)
        .map(|b| {
            let swaps = (0..n)
                .filter(|&i| pivots[b * n + i] as usize != i + 1)
                .count();
            let sign = if swaps % 2 == 0 { 1.0 } else { -1.0 };
            (0..n).fold(sign, |d, i| d * lu[b * n * n + i * n + i])
        })
        .collect()
}

/// `(sign, log|det|)` of each matrix from its LU factors.
fn slogdet_batch(a: &Matrices) -> (Vec<f64>, Vec<f64>) {
    let n = a.rows;
    let (lu, pivots, _) = lu_batch(a);
    let (mut signs, mut logs) = (Vec::new(), Vec::new());
    for b in 0..a.count {
        let m = &lu[b * n * n..(b + 1) * n * n];
        let swaps = (0..n)
            .filter(|&i| pivots[b * n + i] as usize != i + 1)
            .count();
        let mut sign: f64 = if swaps % 2 == 0 { 1.0 } else { -1.0 };
        let mut log = 0.0;
        for i in 0..n {
            let d = m[i * n + i];
            sign *= d.signum();
            if d == 0.0 {
                sign = 0.0;
            }
            log += d.abs().ln();
        }
        signs.push(sign);
        logs.push(log);
    }
    (signs, logs)
}

impl Tensor {
    /// `linalg.lu_factor_ex(A)`: `(LU, pivots, info)` of LU with partial pivoting (pivots
    /// 1-based, as LAPACK's; int64 here, int32 in PyTorch). Recorded as
    /// `LinalgLuFactorExBackward0`, whose derivative is not implemented (refused when taken).
    pub fn linalg_lu_factor_ex(&self, check_errors: bool) -> Result<(Tensor, Tensor, Tensor)> {
        let op = "torch.linalg.lu_factor";
        check_input("linalg.lu_factor", self, true)?;
        let a = Matrices::of(self)?;
        let n = a.rows;
        let (lu, pivots, infos) = lu_batch(&a);
        if check_errors {
            if let Some(b) = infos.iter().position(|&i| i > 0) {
                // a RuntimeError in PyTorch, not a LinAlgError
                let prefix = if self.dim() > 2 {
                    format!("(Batch element {b}): ")
                } else {
                    String::new()
                };
                return Err(Error::runtime(format!(
                    "{op}: {prefix}U[{0},{0}] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)", infos[b]
                )));
            }
        }
        let out = build(lu, &a.lead, &[n, n], self.dtype())?;
        let pivots = build_ints(pivots, &a.lead, &[n])?;
        let info = build_ints(infos, &a.lead, &[])?;
        if !is_recording(&[self]) {
            return Ok((out, pivots, info));
        }
        let out = record(out, "LinalgLuFactorExBackward0", &[self], &[], |_| {
            Err(Error::not_implemented(
                "ferrograd does not implement the derivative of linalg.lu_factor",
            ))
        });
        Ok((out, pivots, info))
    }

    /// `linalg.inv_ex(A)`: `(inverse, info)`, by LU with partial pivoting (`LinalgInvExBackward0`:
    /// `-A⁻ᴴ g A⁻ᴴ`). With `check_errors`, a singular matrix raises PyTorch's `LinAlgError`.
    pub fn linalg_inv_ex(&self, check_errors: bool) -> Result<(Tensor, Tensor)> {
        check_input("linalg.inv", self, true)?;
        let a = Matrices::of(self)?;
        let n = a.rows;
        let (mut inverse, mut infos) = (Vec::with_capacity(a.data.len()), Vec::new());
        for b in 0..a.count {
            let mut lu = a.get(b).to_vec();
            let (pivots, info) = dense::lu_in_place(&mut lu, n);
            let mut x = dense::identity(n);
            dense::lu_solve(&lu, &pivots, n, &mut x, n);
            inverse.extend(x);
            infos.push(info as i64);
        }
        if check_errors {
            if let Some(b) = infos.iter().position(|&i| i > 0) {
                return Err(failure(
                    "linalg.inv",
                    self.dim() > 2,
                    b,
                    &format!("The diagonal element {} is zero, the inversion could not be completed because the input matrix is singular.", infos[b]),
                ));
            }
        }
        let out = build(inverse, &a.lead, &[n, n], self.dtype())?;
        let info = build_ints(infos, &a.lead, &[])?;
        if !is_recording(&[self]) {
            return Ok((out, info));
        }
        let out = record(
            out,
            "LinalgInvExBackward0",
            &[self],
            &[Save::Output],
            |ctx| {
                let (g, inv) = (ctx.grad(0), ctx.saved(0));
                let inv_h = mh(inv)?;
                Ok(vec![Some(inv_h.matmul(&g.matmul(&inv_h)?)?.neg()?)])
            },
        );
        Ok((out, info))
    }

    /// `linalg.det(A)` from the LU factors (`LinalgDetBackward0`: `g·det·A⁻ᴴ`, or the cofactor
    /// matrix through the SVD when some matrix is singular).
    pub fn linalg_det(&self) -> Result<Tensor> {
        check_input("linalg.det", self, true)?;
        let a = Matrices::of(self)?;
        let dets = det_batch(&a);
        let singular = dets.contains(&0.0);
        let out = build(dets, &a.lead, &[], self.dtype())?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "LinalgDetBackward0",
            &[self],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (g, a, det) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                Ok(vec![Some(det_backward(g, a, det, singular)?)])
            },
        ))
    }

    /// `linalg.slogdet(A)`: `(sign, log|det A|)` from the LU factors (`LinalgSlogdetBackward0`:
    /// `g_logabsdet·A⁻ᴴ`; the sign has a zero derivative).
    pub fn linalg_slogdet(&self) -> Result<(Tensor, Tensor)> {
        check_input("linalg.slogdet", self, true)?;
        let a = Matrices::of(self)?;
        let (signs, logs) = slogdet_batch(&a);
        let sign = build(signs, &a.lead, &[], self.dtype())?;
        let log = build(logs, &a.lead, &[], self.dtype())?;
        if !is_recording(&[self]) {
            return Ok((sign, log));
        }
        let outs = record_multi(
            vec![sign, log],
            "LinalgSlogdetBackward0",
            &[self],
            &[Save::Tensor(self)],
            Box::new(|ctx| {
                let a = ctx.saved(0);
                let Some(g) = ctx.grad_opt(1) else {
                    return Ok(vec![Some(a.zeros_like())]);
                };
                let n = a.shape()[a.dim() - 1];
                let rhs = eye(n, a.dtype())?.mul(&g.unsqueeze(-1)?.unsqueeze(-1)?)?;
                Ok(vec![Some(mh(a)?.linalg_solve(&rhs, true)?)])
            }),
        );
        let [sign, log]: [Tensor; 2] = outs
            .try_into()
            .map_err(|_| Error::runtime("linalg.slogdet: expected two results"))?;
        Ok((sign, log))
    }

    /// `linalg.cholesky_ex(A, upper)`: `(L, info)` with `A = L Lᴴ` (or `Uᴴ U`), reading `A`'s
    /// lower triangle (`LinalgCholeskyExBackward0`). With `check_errors`, a matrix that is
    /// not positive-definite raises PyTorch's `LinAlgError`.
    pub fn linalg_cholesky_ex(&self, upper: bool, check_errors: bool) -> Result<(Tensor, Tensor)> {
        check_input("linalg.cholesky", self, true)?;
        let a = Matrices::of(self)?;
        let n = a.rows;
        let (mut factors, mut infos) = (Vec::with_capacity(a.data.len()), Vec::new());
        for b in 0..a.count {
            let (l, info) = dense::cholesky_lower(a.get(b), n);
            factors.extend(if upper { dense::transpose(&l, n, n) } else { l });
            infos.push(info as i64);
        }
        if check_errors {
            if let Some(b) = infos.iter().position(|&i| i > 0) {
                return Err(failure(
                    "linalg.cholesky",
                    self.dim() > 2,
                    b,
                    &format!("The factorization could not be completed because the input is not positive-definite (the leading minor of order {} is not positive-definite).", infos[b]),
                ));
            }
        }
        let out = build(factors, &a.lead, &[n, n], self.dtype())?;
        let info = build_ints(infos, &a.lead, &[])?;
        if !is_recording(&[self]) {
            return Ok((out, info));
        }
        let out = record(
            out,
            "LinalgCholeskyExBackward0",
            &[self],
            &[Save::Output],
            move |ctx| {
                let (l, gl) = if upper {
                    (mh(ctx.saved(0))?, mh(ctx.grad(0))?)
                } else {
                    (ctx.saved(0).clone(), ctx.grad(0).clone())
                };
                // Φ(Lᴴ gL) symmetrized: ½(G + Gᴴ - diag G) of G = tril(Lᴴ gL)
                let g = mh(&l)?.matmul(&gl)?.tril(0)?;
                let g = g.add(&mh(&g.tril(-1)?)?)?.mul_scalar(0.5)?;
                let g = mh(&l)?.linalg_solve_triangular(&g, true, true, false)?;
                Ok(vec![Some(
                    l.linalg_solve_triangular(&g, false, false, false)?,
                )])
            },
        );
        Ok((out, info))
    }

    /// `linalg.qr(A, mode)`: `(Q, R)` by Householder reflections (`LinalgQrBackward0`); `mode`
    /// is `"reduced"`, `"complete"` or `"r"` (then `Q` is empty).
    pub fn linalg_qr(&self, mode: &str) -> Result<(Tensor, Tensor)> {
        if !matches!(mode, "reduced" | "complete" | "r") {
            return Err(Error::runtime(format!(
                "qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
            )));
        }
        check_input("linalg.qr", self, false)?;
        let a = Matrices::of(self)?;
        let (m, n) = (a.rows, a.cols);
        let k = m.min(n);
        let complete = mode == "complete";
        let (mut qs, mut rs) = (Vec::new(), Vec::new());
        for b in 0..a.count {
            let (q, r) = dense::householder_qr(a.get(b), m, n, complete);
            qs.extend(q);
            rs.extend(r);
        }
        let (q_cols, r_rows) = if complete { (m, m) } else { (k, k) };
        let q = if mode == "r" {
            Tensor::zeros(&[0], self.dtype())
        } else {
            build(qs, &a.lead, &[m, q_cols], self.dtype())?
        };
        let r = build(rs, &a.lead, &[r_rows, n], self.dtype())?;
        if !is_recording(&[self]) {
            return Ok((q, r));
        }
        let mode = mode.to_string();
        let outs = record_multi(
            vec![q, r],
            "LinalgQrBackward0",
            &[self],
            &[Save::OutputAt(0), Save::OutputAt(1)],
            Box::new(move |ctx| {
                if mode == "r" {
                    return Err(Error::runtime("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."));
                }
                if mode == "complete" && m > n {
                    return Err(Error::runtime(
                        "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.",
                    ));
                }
                let (q, r) = (ctx.saved(0), ctx.saved(1));
                let gq = or_zeros(ctx.grad_opt(0), q);
                let gr = or_zeros(ctx.grad_opt(1), r);
                Ok(vec![Some(qr_backward(&gq, &gr, q, r, m, n)?)])
            }),
        );
        let [q, r]: [Tensor; 2] = outs
            .try_into()
            .map_err(|_| Error::runtime("linalg.qr: expected two results"))?;
        Ok((q, r))
    }

    /// `linalg.eigh(A, UPLO)`: eigenvalues (ascending) and eigenvectors (columns) of the
    /// symmetric matrices given by their lower (`"L"`) or upper (`"U"`) triangle, by Jacobi
    /// rotations (`LinalgEighBackward0`).
    pub fn linalg_eigh(&self, uplo: &str) -> Result<(Tensor, Tensor)> {
        if uplo != "L" && uplo != "U" {
            return Err(Error::runtime(format!(
                "Expected UPLO argument to be 'L' or 'U', but got {uplo}"
            )));
        }
        check_input("linalg.eigh", self, true)?;
        let a = Matrices::of(self)?;
        let n = a.rows;
        let (mut values, mut vectors) = (Vec::new(), Vec::new());
        for b in 0..a.count {
            let m = a.get(b);
            let sym: Vec<f64> = (0..n * n)
                .map(|i| {
                    let (r, c) = (i / n, i % n);
                    let lower = (r >= c) == (uplo == "L");
                    if lower {
                        m[r * n + c]
                    } else {
                        m[c * n + r]
                    }
                })
                .collect();
            let (w, v) = dense::symmetric_eigen(&sym, n);
            values.extend(w);
            vectors.extend(v);
        }
        let w = build(values, &a.lead, &[n], self.dtype())?;
        let v = build(vectors, &a.lead, &[n, n], self.dtype())?;
        if !is_recording(&[self]) {
            return Ok((w, v));
        }
        let outs = record_multi(
            vec![w, v],
            "LinalgEighBackward0",
            &[self],
            &[Save::OutputAt(0), Save::OutputAt(1)],
            Box::new(|ctx| {
                let (w, v) = (ctx.saved(0), ctx.saved(1));
                Ok(vec![Some(eigh_backward(
                    ctx.grad_opt(0),
                    ctx.grad_opt(1),
                    w,
                    v,
                )?)])
            }),
        );
        let [w, v]: [Tensor; 2] = outs
            .try_into()
            .map_err(|_| Error::runtime("linalg.eigh: expected two results"))?;
        Ok((w, v))
    }

    /// `linalg.svd(A, full_matrices)`: `(U, S, Vh)` by one-sided Jacobi rotations, `U` and `V`
    /// completed to square orthogonal matrices (Householder) when `full_matrices`
    /// (`LinalgSvdBackward0`).
    pub fn linalg_svd(&self, full_matrices: bool) -> Result<(Tensor, Tensor, Tensor)> {
        check_input("linalg.svd", self, false)?;
        let a = Matrices::of(self)?;
        let (m, n) = (a.rows, a.cols);
        let k = m.min(n);
        let (u_cols, v_rows) = if full_matrices { (m, n) } else { (k, k) };
        let (mut us, mut ss, mut vhs) = (Vec::new(), Vec::new(), Vec::new());
        for b in 0..a.count {
            let x = a.get(b);
            let (s, u, v) = if m >= n {
                let (s, u, v) = jacobi_svd(x, m, n);
                let u = orthonormal_null_columns(u, m, &s);
                (s, u, v)
            } else {
                let (s, u, v) = jacobi_svd(&dense::transpose(x, m, n), n, m);
                let u = orthonormal_null_columns(u, n, &s);
                (s, v, u)
            };
            // u: m×k, v: n×k
            let u = if full_matrices {
                complete_basis(&u, m, k)
            } else {
                u
            };
            let v = if full_matrices {
                complete_basis(&v, n, k)
            } else {
                v
            };
            us.extend(u);
            ss.extend(s);
            vhs.extend(dense::transpose(&v, n, v_rows));
        }
        let u = build(us, &a.lead, &[m, u_cols], self.dtype())?;
        let s = build(ss, &a.lead, &[k], self.dtype())?;
        let vh = build(vhs, &a.lead, &[v_rows, n], self.dtype())?;
        if !is_recording(&[self]) {
            return Ok((u, s, vh));
        }
        let outs = record_multi(
            vec![u, s, vh],
            "LinalgSvdBackward0",
            &[self],
            &[Save::OutputAt(0), Save::OutputAt(1), Save::OutputAt(2)],
            Box::new(move |ctx| {
                let (u, s, vh) = (ctx.saved(0), ctx.saved(1), ctx.saved(2));
                let grads = [ctx.grad_opt(0), ctx.grad_opt(1), ctx.grad_opt(2)];
                Ok(vec![Some(svd_backward(grads, u, s, vh, (m, n, k))?)])
            }),
        );
        let [u, s, vh]: [Tensor; 3] = outs
            .try_into()
            .map_err(|_| Error::runtime("linalg.svd: expected three results"))?;
        Ok((u, s, vh))
    }

    /// `linalg.matrix_exp(A)`: `e^A` by scaling and squaring with Padé approximants
    /// (`LinalgMatrixExpBackward0`: the upper right block of `exp([[Aᴴ, g], [0, Aᴴ]])`).
    pub fn linalg_matrix_exp(&self) -> Result<Tensor> {
        check_input("linalg.matrix_exp", self, true)?;
        let a = Matrices::of(self)?;
        let n = a.rows;
        let mut out = Vec::with_capacity(a.data.len());
        for b in 0..a.count {
            out.extend(dense::matrix_exp(a.get(b), n));
        }
        let out = build(out, &a.lead, &[n, n], self.dtype())?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "LinalgMatrixExpBackward0",
            &[self],
            &[Save::Tensor(self)],
            move |ctx| {
                let (g, a) = (ctx.grad(0), ctx.saved(0));
                let ah = mh(a)?;
                let top = Tensor::cat(&[ah.clone(), g.clone()], -1)?;
                let bottom = Tensor::cat(&[a.zeros_like(), ah], -1)?;
                let big = Tensor::cat(&[top, bottom], -2)?.linalg_matrix_exp()?;
                let (n, i) = (n as isize, 0);
                Ok(vec![Some(big.narrow(-2, i, n)?.narrow(-1, n, n)?)])
            },
        ))
    }
}

/// The left singular vectors `u` (`rows×k`) of Jacobi's SVD with the columns of (numerically)
/// zero singular values, which `A v / s` does not determine, replaced by an orthonormal
/// completion of the others, so that `U` is orthogonal as LAPACK's is.
fn orthonormal_null_columns(u: Vec<f64>, rows: usize, s: &[f64]) -> Vec<f64> {
    let k = s.len();
    let tol = s.first().copied().unwrap_or(0.0) * f64::EPSILON * rows as f64;
    let r = s.iter().take_while(|&&v| v > tol && v > 0.0).count();
    if r == k {
        return u;
    }
    let kept: Vec<f64> = (0..rows * r).map(|i| u[(i / r) * k + i % r]).collect();
    let full = complete_basis(&kept, rows, r);
    let mut out = u;
    for row in 0..rows {
        for c in r..k {
            out[row * k + c] = full[row * rows + c];
        }
    }
    out
}

/// The `rows×rows` orthogonal matrix whose first `k` columns are the orthonormal columns `q`
/// (`rows×k`), the rest from the complete QR of `q`.
fn complete_basis(q: &[f64], rows: usize, k: usize) -> Vec<f64> {
    if k == rows {
        return q.to_vec();
    }
    let (full, _) = dense::householder_qr(q, rows, k, true);
    let mut out = full;
    for r in 0..rows {
        for c in 0..k {
            out[r * rows + c] = q[r * k + c];
        }
    }
    out
}

/// The gradient of `det(A)` (PyTorch's `linalg_det_backward`): while a graph of the gradient is
/// recorded, the cofactor matrix `det(U)det(Vh)·U diag(∏_{j≠i} s_j) Vh` from the SVD (right for
/// singular matrices too, and differentiable); else `g·det·A⁻ᴴ`, which is zero for a matrix whose
/// computed determinant is exactly zero, as PyTorch's.
fn det_backward(g: &Tensor, a: &Tensor, det: &Tensor, singular: bool) -> Result<Tensor> {
    let n = a.shape()[a.dim() - 1];
    let id = eye(n, a.dtype())?;
    if !crate::core::grad_mode::is_grad_enabled() {
        let scale = g.mul(det)?.unsqueeze(-1)?.unsqueeze(-1)?;
        let a = if singular {
            // matrices with a zero determinant get a zero gradient: solve with I instead
            let zero = det
                .compare(
                    crate::ops::pointwise::comparison::CompareOp::Eq,
                    crate::ops::Operand::Scalar(0.0.into()),
                )?
                .unsqueeze(-1)?
                .unsqueeze(-1)?;
            Tensor::where_(&zero, &id, a)?
        } else {
            a.clone()
        };
        return mh(&a)?.linalg_solve(&id.mul(&scale)?, true);
    }
    let (u, s, vh) = a.linalg_svd(false)?;
    // row i of `others` is s with s_i replaced by 1
    let others = s
        .unsqueeze(-2)?
        .mul(&id.rsub_scalar(1.0)?)?
        .add(&id)?
        .prod_dim(-1, false)?;
    let sign = u.linalg_det()?.mul(&vh.linalg_det()?)?;
    let weights = others.mul(&g.mul(&sign)?.unsqueeze(-1)?)?;
    u.mul(&weights.unsqueeze(-2)?)?.matmul(&vh)
}

/// The gradient of `(Q, R) = qr(A)` (PyTorch's `linalg_qr_backward`), `A` `m×n`.
fn qr_backward(
    gq: &Tensor,
    gr: &Tensor,
    q: &Tensor,
    r: &Tensor,
    m: usize,
    n: usize,
) -> Result<Tensor> {
    if m >= n {
        return qr_backward_tall(gq, gr, q, r);
    }
    // A = [X | Y] with X = Q U square and Y = Q V
    let (mi, rest) = (m as isize, (n - m) as isize);
    let (u, v) = (r.narrow(-1, 0, mi)?, r.narrow(-1, mi, rest)?);
    let (gu, gv) = (gr.narrow(-1, 0, mi)?, gr.narrow(-1, mi, rest)?);
    let y = q.matmul(&v)?;
    let gy = q.matmul(&gv)?;
    let gq_x = gq.add(&y.matmul(&mh(&gv)?)?)?;
    let gx = qr_backward_tall(&gq_x, &gu, q, &u)?;
    Tensor::cat(&[gx, gy], -1)
}

/// [`qr_backward`] for `m >= n`: `(gQ + Q copyltu(M)) R⁻ᴴ` with `M = R gRᴴ - gQᴴ Q`.
fn qr_backward_tall(gq: &Tensor, gr: &Tensor, q: &Tensor, r: &Tensor) -> Result<Tensor> {
    let m = r.matmul(&mh(gr)?)?.sub(&mh(gq)?.matmul(q)?)?;
    let low = m.tril(-1)?;
    let copyltu = low
        .add(&mh(&low)?)?
        .add(&diag_embed(&m.diagonal(0, -2, -1)?)?)?;
    let b = gq.add(&q.matmul(&copyltu)?)?;
    mh(r)?.linalg_solve_triangular(&b, false, false, false)
}

/// The gradient of `(L, V) = eigh(A)` (PyTorch's `linalg_eig_backward` for Hermitian input):
/// `V (skew(Vᴴ gV)/E + diag(gL)) Vᴴ` with `E_ij = L_j - L_i`.
fn eigh_backward(
    gw: Option<&Tensor>,
    gv: Option<&Tensor>,
    w: &Tensor,
    v: &Tensor,
) -> Result<Tensor> {
    let n = w.shape()[w.dim() - 1];
    let id = eye(n, w.dtype())?;
    let mut inner = match gv {
        Some(gv) => {
            let vhgv = mh(v)?.matmul(gv)?;
            let skew = vhgv.sub(&mh(&vhgv)?)?.mul_scalar(0.5)?;
            let e = w.unsqueeze(-2)?.sub(&w.unsqueeze(-1)?)?.add(&id)?;
            Some(skew.div(&e)?)
        }
        None => None,
    };
    if let Some(gw) = gw {
        let d = diag_embed(gw)?;
        inner = Some(match inner {
            Some(i) => i.add(&d)?,
            None => d,
        });
    }
    let inner = inner.unwrap_or_else(|| v.zeros_like());
    v.matmul(&inner)?.matmul(&mh(v)?)
}

/// The gradient of `(U, S, Vh) = svd(A)` (PyTorch's `svd_backward`, real case); `dims` are
/// `(m, n, k)`. With full matrices only the first `k` singular vectors count.
fn svd_backward(
    grads: [Option<&Tensor>; 3],
    u: &Tensor,
    s: &Tensor,
    vh: &Tensor,
    (m, n, k): (usize, usize, usize),
) -> Result<Tensor> {
    let ki = k as isize;
    let u = u.narrow(-1, 0, ki)?;
    let vh = vh.narrow(-2, 0, ki)?;
    let gu = grads[0].map(|g| g.narrow(-1, 0, ki)).transpose()?;
    let gvh = grads[2].map(|g| g.narrow(-2, 0, ki)).transpose()?;
    let gs = grads[1];
    if gu.is_none() && gvh.is_none() {
        let gs = or_zeros(gs, s);
        return u.mul(&gs.unsqueeze(-2)?)?.matmul(&vh);
    }
    let id = eye(k, s.dtype())?;
    let s2 = s.mul(s)?;
    let e = s2.unsqueeze(-2)?.sub(&s2.unsqueeze(-1)?)?.add(&id)?;
    let skew = |x: Tensor| -> Result<Tensor> { x.sub(&mh(&x)?) };
    let mut inner = Tensor::zeros(&[k, k], s.dtype());
    if let Some(gu) = &gu {
        let uhgu = skew(mh(&u)?.matmul(gu)?)?;
        inner = inner.add(&uhgu.mul(&s.unsqueeze(-2)?)?)?;
    }
    let gv = gvh.as_ref().map(mh).transpose()?;
    if let Some(gv) = &gv {
        let vhgv = skew(vh.matmul(gv)?)?;
        inner = inner.add(&s.unsqueeze(-1)?.mul(&vhgv)?)?;
    }
    let mut inner = inner.div(&e)?;
    if let Some(gs) = gs {
        inner = inner.add(&diag_embed(gs)?)?;
    }
    match (&gu, &gv) {
        (Some(gu), _) if m > k => {
            let us = u.matmul(&inner)?;
            let gusinv = gu.div(&s.unsqueeze(-2)?)?;
            let proj = gusinv.sub(&u.matmul(&mh(&u)?.matmul(&gusinv)?)?)?;
            us.add(&proj)?.matmul(&vh)
        }
        (_, Some(gv)) if n > k => {
            let sv = inner.matmul(&vh)?;
            let gvsinv = mh(&gv.div(&s.unsqueeze(-2)?)?)?;
            let proj = gvsinv.sub(&gvsinv.matmul(&mh(&vh)?)?.matmul(&vh)?)?;
            u.matmul(&sv.add(&proj)?)
        }
        _ => u.matmul(&inner)?.matmul(&vh),
    }
}
