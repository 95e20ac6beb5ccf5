//! Solvers of `torch.linalg` and distances: `solve_ex` (LU with partial pivoting),
//! `solve_triangular`, `cholesky_solve`, `cholesky_inverse`, `pinv` and `lstsq` (through the
//! SVD), `cdist` and `_euclidean_dist`. Batch dims broadcast as PyTorch's; kernels run in
//! float64 (`crate::ops::linalg::dense`); each op records PyTorch's node with a formula written with
//! differentiable ops.

use crate::autograd::{is_recording, record, record_multi, Save};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::ops::linalg::decomposition::jacobi_svd;
use crate::ops::linalg::dense;
use crate::ops::linalg::factorizations::{
    build, build_ints, check_input, eye, failure, mh, Matrices,
};
use crate::ops::pointwise::comparison::CompareOp;
use crate::ops::Operand;

/// `a` and `b` expanded (without autograd) to their common batch dims, keeping each one's
/// last two dims.
fn broadcast_batch(a: &Tensor, b: &Tensor) -> Result<(Tensor, Tensor, Vec<usize>)> {
    let (sa, sb) = (a.shape(), b.shape());
    let lead = broadcast_lead(&sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
    let expand = |t: &Tensor| -> Result<Tensor> {
        let s = t.shape();
        let shape: Vec<isize> = lead
            .iter()
            .chain(&s[s.len() - 2..])
            .map(|&d| d as isize)
            .collect();
        t.detach().expand(&shape)
    };
    Ok((expand(a)?, expand(b)?, lead.to_vec()))
}

/// The broadcast of two batch shapes, with PyTorch's message when they do not broadcast.
fn broadcast_lead(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let pad = |s: &[usize]| -> Vec<usize> {
        std::iter::repeat_n(1, n - s.len())
            .chain(s.iter().copied())
            .collect()
    };
    let (a, b) = (pad(a), pad(b));
    let mut out = Vec::with_capacity(n);
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        if x != y && x != 1 && y != 1 {
            return Err(Error::runtime(format!(
                "The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i}"
            )));
        }
        out.push(if x == 1 { y } else { x });
    }
    Ok(out)
}

/// PyTorch's error for operands of different dtypes.
fn same_dtype(op: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(format!(
            "{op}: Expected A and B to have the same dtype, but found A of type {} and B of type {} instead",
            a.dtype().scalar_name(),
            b.dtype().scalar_name()
        )));
    }
    Ok(())
}

/// The gradient `g` of a broadcast operand summed back to `shape`.
fn reduce_to(g: Tensor, shape: &[usize]) -> Result<Tensor> {
    if g.shape() == shape {
        Ok(g)
    } else {
        g.sum_to(shape)
    }
}

/// `x` with zeros where `mask` holds.
fn zero_where(mask: &Tensor, x: &Tensor) -> Result<Tensor> {
    Tensor::where_(mask, &Tensor::scalar_of(0.0, x.dtype()), x)
}

impl Tensor {
    /// `linalg.solve(A, B, left)`: [`Tensor::linalg_solve_ex`] raising on singular matrices.
    pub fn linalg_solve(&self, b: &Tensor, left: bool) -> Result<Tensor> {
        Ok(self.linalg_solve_ex(b, left, true)?.0)
    }

    /// `linalg.solve_ex(A, B, left)`: `(X, info)` with `AX = B` (or `XA = B` when not `left`),
    /// by LU with partial pivoting; `B` may be a batch of vectors (`LinalgSolveExBackward0`).
    pub fn linalg_solve_ex(
        &self,
        b: &Tensor,
        left: bool,
        check_errors: bool,
    ) -> Result<(Tensor, Tensor)> {
        check_input("linalg.solve", self, true)?;
        if !b.dtype().is_floating_point() {
            return Err(Error::not_implemented(format!(
                "linalg.solve: Expected a floating point or complex tensor as input. Got {}",
                b.dtype().scalar_name()
            )));
        }
        same_dtype("linalg.solve", self, b)?;
        let n = self.shape()[self.dim() - 1];
        let vector = b.dim() == 1
            || (b.dim() + 1 == self.dim() && b.shape() == &self.shape()[..self.dim() - 1]);
        let bm = if vector {
            b.detach().unsqueeze(-1)?
        } else {
            b.detach()
        };
        let (rows, cols) = (bm.shape()[bm.dim() - 2], bm.shape()[bm.dim() - 1]);
        if (left && rows != n) || (!left && cols != n) {
            let eq = if left { "AX = B" } else { "XA = B" };
            return Err(Error::runtime(format!(
                "linalg.solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {rows}x{cols})"
            )));
        }
        let (ae, be, lead) = broadcast_batch(self, &bm)?;
        let (a, bv) = (Matrices::of(&ae)?, Matrices::of(&be)?);
        let mut out = Vec::with_capacity(bv.data.len());
        let mut infos = Vec::with_capacity(a.count);
        for i in 0..a.count {
            let mut lu = if left {
                a.get(i).to_vec()
            } else {
                dense::transpose(a.get(i), n, n)
            };
            let (pivots, info) = dense::lu_in_place(&mut lu, n);
            let k = if left { cols } else { rows };
            let mut x = if left {
                bv.get(i).to_vec()
            } else {
                dense::transpose(bv.get(i), rows, cols)
            };
            dense::lu_solve(&lu, &pivots, n, &mut x, k);
            out.extend(if left { x } else { dense::transpose(&x, n, k) });
            infos.push(info as i64);
        }
        if check_errors {
            if let Some(i) = infos.iter().position(|&x| x > 0) {
                return Err(failure(
                    "torch.linalg.solve",
                    !lead.is_empty(),
                    i,
                    "The solver failed because the input matrix is singular.",
                ));
            }
        }
        let x = build(out, &lead, &[rows, cols], self.dtype())?;
        let x = if vector { x.squeeze_dim(-1)? } else { x };
        let info = build_ints(infos, &lead, &[])?;
        if !is_recording(&[self, b]) {
            return Ok((x, info));
        }
        let (a_shape, b_shape) = (self.shape().to_vec(), b.shape().to_vec());
        let x = record(
            x,
            "LinalgSolveExBackward0",
            &[self, b],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (a, x) = (ctx.saved(0), ctx.saved(1));
                let (g, x) = if vector {
                    (ctx.grad(0).unsqueeze(-1)?, x.unsqueeze(-1)?)
                } else {
                    (ctx.grad(0).clone(), x.clone())
                };
                let gb = mh(a)?.linalg_solve(&g, left)?;
                let ga = if ctx.needs_input_grad(0) {
                    let ga = if left {
                        gb.matmul(&mh(&x)?)?
                    } else {
                        mh(&x)?.matmul(&gb)?
                    };
                    Some(reduce_to(ga.neg()?, &a_shape)?)
                } else {
                    None
                };
                let gb = if ctx.needs_input_grad(1) {
                    let gb = if vector { gb.squeeze_dim(-1)? } else { gb };
                    Some(reduce_to(gb, &b_shape)?)
                } else {
                    None
                };
                Ok(vec![ga, gb])
            },
        );
        Ok((x, info))
    }

    /// `linalg.solve_triangular(A, B, upper, left, unitriangular)`: `X` with `AX = B` (or
    /// `XA = B`) reading only `A`'s upper or lower triangle (`LinalgSolveTriangularBackward0`).
    pub fn linalg_solve_triangular(
        &self,
        b: &Tensor,
        upper: bool,
        left: bool,
        unitriangular: bool,
    ) -> Result<Tensor> {
        let op = "linalg.solve_triangular";
        if b.dim() < 2 {
            return Err(Error::runtime(format!(
                "{op}: The input tensor B must have at least 2 dimensions."
            )));
        }
        check_input(op, self, true)?;
        same_dtype(op, self, b)?;
        let n = self.shape()[self.dim() - 1];
        let (rows, cols) = (b.shape()[b.dim() - 2], b.shape()[b.dim() - 1]);
        if (left && rows != n) || (!left && cols != n) {
            let eq = if left { "AX = B" } else { "XA = B" };
            return Err(Error::runtime(format!(
                "{op}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {rows}x{cols})"
            )));
        }
        let (ae, be, lead) = broadcast_batch(self, b)?;
        let (a, bv) = (Matrices::of(&ae)?, Matrices::of(&be)?);
        let mut out = Vec::with_capacity(bv.data.len());
        for i in 0..a.count {
            if left {
                let mut x = bv.get(i).to_vec();
                dense::triangular_solve(a.get(i), n, &mut x, cols, upper, unitriangular);
                out.extend(x);
            } else {
                // X A = B  <=>  Aᵀ Xᵀ = Bᵀ, Aᵀ of the other triangle
                let at = dense::transpose(a.get(i), n, n);
                let mut x = dense::transpose(bv.get(i), rows, cols);
                dense::triangular_solve(&at, n, &mut x, rows, !upper, unitriangular);
                out.extend(dense::transpose(&x, n, rows));
            }
        }
        let x = build(out, &lead, &[rows, cols], self.dtype())?;
        if !is_recording(&[self, b]) {
            return Ok(x);
        }
        let (a_shape, b_shape) = (self.shape().to_vec(), b.shape().to_vec());
        Ok(record(
            x,
            "LinalgSolveTriangularBackward0",
            &[self, b],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (a, x, g) = (ctx.saved(0), ctx.saved(1), ctx.grad(0));
                let gb = mh(a)?.linalg_solve_triangular(g, !upper, left, unitriangular)?;
                let ga = if ctx.needs_input_grad(0) {
                    let ga = if left {
                        gb.matmul(&mh(x)?)?
                    } else {
                        mh(x)?.matmul(&gb)?
                    }
                    .neg()?;
                    let unit = i64::from(unitriangular);
                    let ga = if upper {
                        ga.triu(unit)?
                    } else {
                        ga.tril(-unit)?
                    };
                    Some(reduce_to(ga, &a_shape)?)
                } else {
                    None
                };
                let gb = if ctx.needs_input_grad(1) {
                    Some(reduce_to(gb, &b_shape)?)
                } else {
                    None
                };
                Ok(vec![ga, gb])
            },
        ))
    }

    /// `torch.cholesky_solve(B, L, upper)`: `X` with `(L Lᴴ) X = B` (`Uᴴ U` when `upper`), `self`
    /// being `B` (`CholeskySolveBackward0`).
    pub fn cholesky_solve(&self, l: &Tensor, upper: bool) -> Result<Tensor> {
        check_input("cholesky_solve", l, true)?;
        if self.dim() < 2 {
            return Err(Error::runtime(format!(
                "b should have at least 2 dimensions, but has {} dimensions instead",
                self.dim()
            )));
        }
        if self.dtype() != l.dtype() {
            return Err(Error::runtime(format!(
                "Expected b and A to have the same dtype, but found b of type {} and A of type {} instead.",
                self.dtype().scalar_name(),
                l.dtype().scalar_name()
            )));
        }
        let n = l.shape()[l.dim() - 1];
        let (rows, cols) = (self.shape()[self.dim() - 2], self.shape()[self.dim() - 1]);
        if rows != n {
            return Err(Error::runtime(format!(
                "Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but each b matrix is {rows} by {cols}"
            )));
        }
        let (le, be, lead) = broadcast_batch(l, self)?;
        let (lm, bv) = (Matrices::of(&le)?, Matrices::of(&be)?);
        let mut out = Vec::with_capacity(bv.data.len());
        for i in 0..lm.count {
            let lower = if upper {
                dense::transpose(lm.get(i), n, n)
            } else {
                lm.get(i).to_vec()
            };
            let mut x = bv.get(i).to_vec();
            dense::triangular_solve(&lower, n, &mut x, cols, false, false);
            dense::triangular_solve(
                &dense::transpose(&lower, n, n),
                n,
                &mut x,
                cols,
                true,
                false,
            );
            out.extend(x);
        }
        let x = build(out, &lead, &[rows, cols], self.dtype())?;
        if !is_recording(&[self, l]) {
            return Ok(x);
        }
        let (b_shape, l_shape) = (self.shape().to_vec(), l.shape().to_vec());
        Ok(record(
            x,
            "CholeskySolveBackward0",
            &[self, l],
            &[Save::Tensor(l), Save::Output],
            move |ctx| {
                let (l, x, g) = (ctx.saved(0), ctx.saved(1), ctx.grad(0));
                let gb = g.cholesky_solve(l, upper)?;
                let gl = if ctx.needs_input_grad(1) {
                    let common = gb.matmul(&mh(x)?)?;
                    let common = common.add(&mh(&common)?)?;
                    let gl = if upper {
                        l.matmul(&common)?
                    } else {
                        common.matmul(l)?
                    };
                    Some(reduce_to(gl.neg()?, &l_shape)?)
                } else {
                    None
                };
                let gb = if ctx.needs_input_grad(0) {
                    Some(reduce_to(gb, &b_shape)?)
                } else {
                    None
                };
                Ok(vec![gb, gl])
            },
        ))
    }

    /// `torch.cholesky_inverse(L, upper)`: `(L Lᴴ)⁻¹` (`(Uᴴ U)⁻¹` when `upper`)
    /// (`CholeskyInverseBackward0`).
    pub fn cholesky_inverse(&self, upper: bool) -> Result<Tensor> {
        check_input("cholesky_inverse", self, true)?;
        let n = self.shape()[self.dim() - 1];
        let id = eye(n, self.dtype())?;
        let x = crate::core::grad_mode::no_grad(|| id.cholesky_solve(&self.detach(), upper))?;
        let x = x.contiguous()?;
        if !is_recording(&[self]) {
            return Ok(x);
        }
        Ok(record(
            x,
            "CholeskyInverseBackward0",
            &[self],
            &[Save::Tensor(self), Save::Output],
            move |ctx| {
                let (l, inv, g) = (ctx.saved(0), ctx.saved(1), ctx.grad(0));
                let common = g.add(&mh(g)?)?;
                let common = inv.matmul(&common.matmul(inv)?)?;
                let gl = if upper {
                    l.matmul(&common)?
                } else {
                    common.matmul(l)?
                };
                Ok(vec![Some(gl.neg()?)])
            },
        ))
    }

    /// `linalg.pinv(A, atol, rtol)`: the pseudo-inverse through the SVD, singular values at or
    /// below `max(atol, rtol·σ_max)` dropped (`rtol` defaults to `ε·max(m, n)` when neither
    /// tolerance is given, to 0 when only `atol` is) (`LinalgPinvBackward0`).
    pub fn linalg_pinv(&self, atol: Option<f64>, rtol: Option<f64>) -> Result<Tensor> {
        if self.dim() < 2 || !self.dtype().is_floating_point() {
            return Err(Error::runtime(format!(
                "linalg.pinv({}{{{}}}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types",
                self.dtype().scalar_name(),
                crate::core::layout::fmt_shape(self.shape())
            )));
        }
        let a = Matrices::of(self)?;
        let (m, n) = (a.rows, a.cols);
        let eps = if self.dtype() == DType::Float32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let rtol = rtol.unwrap_or(match atol {
            Some(t) if t > 0.0 => 0.0,
            _ => eps * m.max(n) as f64,
        });
        let atol = atol.unwrap_or(0.0);
        let mut out = Vec::with_capacity(a.data.len());
        for b in 0..a.count {
            out.extend(pinv_matrix(a.get(b), m, n, |smax| atol.max(rtol * smax)).0);
        }
        let x = build(out, &a.lead, &[n, m], self.dtype())?;
        if !is_recording(&[self]) {
            return Ok(x);
        }
        Ok(record(
            x,
            "LinalgPinvBackward0",
            &[self],
            &[Save::Tensor(self), Save::Output],
            |ctx| {
                let (a, p, g) = (ctx.saved(0), ctx.saved(1), ctx.grad(0));
                Ok(vec![Some(pinv_backward(g, p, a)?)])
            },
        ))
    }

    /// `linalg.lstsq(A, B, rcond)`: `(solution, residuals, rank, singular_values)` as PyTorch's
    /// CPU default driver `gelsy` returns them: the minimum-norm least-squares solution, empty
    /// residuals and singular values, and the rank (singular values above `rcond·σ_max`,
    /// `rcond` defaulting to `ε·max(m, n)`) (`LinalgLstsqBackward0`, through the pseudo-inverse).
    pub fn linalg_lstsq(&self, b: &Tensor, rcond: Option<f64>) -> Result<[Tensor; 4]> {
        let op = "torch.linalg.lstsq";
        check_input("linalg.lstsq", self, false)?;
        if self.dtype() != b.dtype() {
            return Err(Error::runtime(format!(
                "{op}: Expected input and other to have the same dtype, but got input's dtype {} and other's dtype {}",
                self.dtype().scalar_name(),
                b.dtype().scalar_name()
            )));
        }
        if b.dim() + 1 < self.dim() || b.dim() > self.dim() {
            return Err(Error::runtime(format!(
                "{op}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1"
            )));
        }
        let vector = b.dim() + 1 == self.dim();
        let bm = if vector {
            b.detach().unsqueeze(-1)?
        } else {
            b.detach()
        };
        let (m, n) = (self.shape()[self.dim() - 2], self.shape()[self.dim() - 1]);
        let (ae, be, lead) = broadcast_batch(self, &bm)?;
        if bm.shape()[bm.dim() - 2] != m {
            return Err(Error::runtime(format!(
                "{op}: input.size(-2) should match other.size(-2)"
            )));
        }
        let k = bm.shape()[bm.dim() - 1];
        let eps = if self.dtype() == DType::Float32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let rcond = rcond.filter(|&r| r > 0.0).unwrap_or(eps * m.max(n) as f64);
        let (a, bv) = (Matrices::of(&ae)?, Matrices::of(&be)?);
        let (mut out, mut ranks) = (Vec::new(), Vec::new());
        for i in 0..a.count {
            let (p, rank) = pinv_matrix(a.get(i), m, n, |smax| rcond * smax);
            out.extend(dense::matmul(&p, bv.get(i), n, m, k));
            ranks.push(rank as i64);
        }
        let x = build(out, &lead, &[n, k], self.dtype())?;
        let x = if vector { x.squeeze_dim(-1)? } else { x };
        let residuals = Tensor::zeros(&[0], self.dtype());
        let rank = build_ints(ranks, &lead, &[])?;
        let singular_values = Tensor::zeros(&[0], self.dtype());
        if !is_recording(&[self, b]) {
            return Ok([x, residuals, rank, singular_values]);
        }
        let (a_shape, b_shape) = (self.shape().to_vec(), b.shape().to_vec());
        let outs = record_multi(
            vec![x, residuals],
            "LinalgLstsqBackward0",
            &[self, b],
            &[Save::Tensor(self), Save::Tensor(b)],
            Box::new(move |ctx| {
                let (a, b) = (ctx.saved(0), ctx.saved(1));
                let Some(g) = ctx.grad_opt(0) else {
                    return Ok(vec![None, None]);
                };
                let (g, b) = if vector {
                    (g.unsqueeze(-1)?, b.unsqueeze(-1)?)
                } else {
                    (g.clone(), b.clone())
                };
                let p = a.linalg_pinv(None, None)?;
                let ga = if ctx.needs_input_grad(0) {
                    let gp = g.matmul(&mh(&b)?)?;
                    Some(reduce_to(pinv_backward(&gp, &p, a)?, &a_shape)?)
                } else {
                    None
                };
                let gb = if ctx.needs_input_grad(1) {
                    let gb = mh(&p)?.matmul(&g)?;
                    let gb = if vector { gb.squeeze_dim(-1)? } else { gb };
                    Some(reduce_to(gb, &b_shape)?)
                } else {
                    None
                };
                Ok(vec![ga, gb])
            }),
        );
        let mut outs = outs.into_iter();
        let (Some(x), Some(residuals)) = (outs.next(), outs.next()) else {
            return Err(Error::runtime("linalg.lstsq: expected two results"));
        };
        Ok([x, residuals, rank, singular_values])
    }

    /// `torch.cdist(x1, x2, p)` computed pair by pair (`CdistBackward0`): the `p`-norm distance
    /// between each row of `x1` and each row of `x2` (`p` = 0 counts differing coordinates,
    /// `inf` takes the largest difference).
    pub fn cdist(&self, x2: &Tensor, p: f64) -> Result<Tensor> {
        check_cdist(self, x2, p)?;
        let (a, b, lead) = broadcast_batch(self, x2)?;
        let (xa, xb) = (Matrices::of(&a)?, Matrices::of(&b)?);
        let (r1, r2, c) = (xa.rows, xb.rows, xa.cols);
        let mut out = Vec::with_capacity(xa.count * r1 * r2);
        for i in 0..xa.count {
            let (u, v) = (xa.get(i), xb.get(i));
            for r in 0..r1 {
                for s in 0..r2 {
                    let diffs = (0..c).map(|j| (u[r * c + j] - v[s * c + j]).abs());
                    out.push(if p == 0.0 {
                        diffs.filter(|&d| d != 0.0).count() as f64
                    } else if p == 1.0 {
                        diffs.sum()
                    } else if p == 2.0 {
                        diffs.map(|d| d * d).sum::<f64>().sqrt()
                    } else if p.is_infinite() {
                        diffs.fold(0.0, f64::max)
                    } else {
                        diffs.map(|d| d.powf(p)).sum::<f64>().powf(1.0 / p)
                    });
                }
            }
        }
        let out = build(out, &lead, &[r1, r2], self.dtype())?;
        if !is_recording(&[self, x2]) {
            return Ok(out);
        }
        let (s1, s2) = (self.shape().to_vec(), x2.shape().to_vec());
        Ok(record(
            out,
            "CdistBackward0",
            &[self, x2],
            &[Save::Tensor(self), Save::Tensor(x2), Save::Output],
            move |ctx| {
                let (x1, x2, dist, g) = (ctx.saved(0), ctx.saved(1), ctx.saved(2), ctx.grad(0));
                let diff = x1.unsqueeze(-2)?.sub(&x2.unsqueeze(-3)?)?;
                let d = dist.unsqueeze(-1)?;
                let w = cdist_weight(&diff, &d, p)?;
                let gw = g.unsqueeze(-1)?.mul(&w)?;
                let g1 = if ctx.needs_input_grad(0) {
                    Some(reduce_to(gw.sum_dims(&[-2], false)?, &s1)?)
                } else {
                    None
                };
                let g2 = if ctx.needs_input_grad(1) {
                    Some(reduce_to(gw.sum_dims(&[-3], false)?.neg()?, &s2)?)
                } else {
                    None
                };
                Ok(vec![g1, g2])
            },
        ))
    }

    /// `torch._euclidean_dist(x1, x2)`: Euclidean distances through one matrix product
    /// (`‖a‖² + ‖b‖² - 2a·b`, clamped at 0), as `cdist` computes them for many rows
    /// (`EuclideanDistBackward0`). Both operands have the same batch dims.
    pub fn euclidean_dist(&self, x2: &Tensor) -> Result<Tensor> {
        check_cdist(self, x2, 2.0)?;
        let (xa, xb) = (Matrices::of(self)?, Matrices::of(x2)?);
        if xa.lead != xb.lead {
            return Err(Error::runtime(
                "_euclidean_dist: expected operands with the same batch dims",
            ));
        }
        let (r1, r2, c) = (xa.rows, xb.rows, xa.cols);
        let mut out = Vec::with_capacity(xa.count * r1 * r2);
        for i in 0..xa.count {
            let (u, v) = (xa.get(i), xb.get(i));
            let norm = |m: &[f64], r: usize| (0..c).map(|j| m[r * c + j].powi(2)).sum::<f64>();
            for r in 0..r1 {
                for s in 0..r2 {
                    let dot: f64 = (0..c).map(|j| u[r * c + j] * v[s * c + j]).sum();
                    out.push((norm(u, r) + norm(v, s) - 2.0 * dot).max(0.0).sqrt());
                }
            }
        }
        let out = build(out, &xa.lead, &[r1, r2], self.dtype())?;
        if !is_recording(&[self, x2]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "EuclideanDistBackward0",
            &[self, x2],
            &[Save::Tensor(self), Save::Tensor(x2), Save::Output],
            |ctx| {
                let (x1, x2, res, g) = (ctx.saved(0), ctx.saved(1), ctx.saved(2), ctx.grad(0));
                let zero = res.compare(CompareOp::Eq, Operand::Scalar(0.0.into()))?;
                let ratio = zero_where(&zero, &g.div(res)?)?;
                let g1 = x1
                    .mul(&ratio.sum_dims(&[-1], true)?)?
                    .sub(&ratio.matmul(x2)?)?;
                let g2 = x2
                    .mul(&ratio.sum_dims(&[-2], false)?.unsqueeze(-1)?)?
                    .sub(&mh(&ratio)?.matmul(x1)?)?;
                Ok(vec![Some(g1), Some(g2)])
            },
        ))
    }
}

/// PyTorch's checks of `cdist`'s operands.
fn check_cdist(x1: &Tensor, x2: &Tensor, p: f64) -> Result<()> {
    for (name, t) in [("X1", x1), ("X2", x2)] {
        if t.dim() < 2 {
            return Err(Error::runtime(format!(
                "cdist only supports at least 2D tensors, {name} got: {}D",
                t.dim()
            )));
        }
        if !t.dtype().is_floating_point() {
            return Err(Error::runtime(format!(
                "cdist only supports floating-point dtypes, {name} got: {}",
                t.dtype().scalar_name()
            )));
        }
    }
    let (c1, c2) = (x1.shape()[x1.dim() - 1], x2.shape()[x2.dim() - 1]);
    if c1 != c2 {
        return Err(Error::runtime(format!(
            "X1 and X2 must have the same number of columns. X1: {c1} X2: {c2}"
        )));
    }
    if p < 0.0 || p.is_nan() {
        return Err(Error::runtime("cdist only supports non-negative p values"));
    }
    if x1.dtype() != x2.dtype() {
        return Err(Error::runtime(format!(
            "cdist: expected both inputs to have the same dtype, but got {} and {}",
            x1.dtype().scalar_name(),
            x2.dtype().scalar_name()
        )));
    }
    Ok(())
}

/// `∂dist/∂x1` per coordinate of each pair (`diff = x1 - x2`, `d` the distance): PyTorch's
/// `_cdist_backward` cases, zero where the distance is zero.
fn cdist_weight(diff: &Tensor, d: &Tensor, p: f64) -> Result<Tensor> {
    let scalar = |v: f64| Operand::Scalar(v.into());
    if p == 0.0 {
        return Ok(diff.zeros_like());
    }
    if p == 1.0 {
        return diff.sign();
    }
    if p.is_infinite() {
        let at_max = diff.abs()?.compare(CompareOp::Eq, Operand::Tensor(d))?;
        return diff.sign()?.mul(&at_max.to_dtype(diff.dtype())?);
    }
    let zero = d.compare(CompareOp::Eq, scalar(0.0))?;
    if p == 2.0 {
        let safe = Tensor::where_(&zero, &Tensor::scalar_of(1.0, d.dtype()), d)?;
        return zero_where(&zero, &diff.div(&safe)?);
    }
    // sign(diff)·|diff|^(p-1) / d^(p-1)
    let flat = zero.logical(
        crate::ops::pointwise::comparison::LogicalOp::Or,
        &diff.compare(CompareOp::Eq, scalar(0.0))?,
    )?;
    let one = Tensor::scalar_of(1.0, d.dtype());
    let safe_d = Tensor::where_(&zero, &one, d)?;
    let safe_diff = Tensor::where_(&flat, &one, diff)?;
    let w = safe_diff
        .sign()?
        .mul(&safe_diff.abs()?.pow_scalar(p - 1.0)?)?
        .div(&safe_d.pow_scalar(p - 1.0)?)?;
    zero_where(&flat, &w)
}

/// The pseudo-inverse (`n×m`) of the `m×n` matrix `a` and its rank, singular values at or below
/// `tol(σ_max)` dropped.
fn pinv_matrix(a: &[f64], m: usize, n: usize, tol: impl Fn(f64) -> f64) -> (Vec<f64>, usize) {
    let k = m.min(n);
    let (s, u, v) = if m >= n {
        jacobi_svd(a, m, n)
    } else {
        let (s, u, v) = jacobi_svd(&dense::transpose(a, m, n), n, m);
        (s, v, u)
    };
    let cut = tol(s.first().copied().unwrap_or(0.0));
    let mut p = vec![0.0; n * m];
    let mut rank = 0;
    for (j, &sj) in s.iter().enumerate().take(k) {
        if sj <= cut || sj == 0.0 {
            continue;
        }
        rank += 1;
        for r in 0..n {
            let vr = v[r * k + j] / sj;
            for c in 0..m {
                p[r * m + c] += vr * u[c * k + j];
            }
        }
    }
    (p, rank)
}

/// The gradient of `pinv(A)` (PyTorch's `pinv_backward`), written to produce the smallest
/// intermediate matrices.
fn pinv_backward(g: &Tensor, p: &Tensor, a: &Tensor) -> Result<Tensor> {
    let (m, n) = (a.shape()[a.dim() - 2], a.shape()[a.dim() - 1]);
    let (ph, gh) = (mh(p)?, mh(g)?);
    if m <= n {
        let k = gh.matmul(p)?;
        let kph = k.matmul(&ph)?;
        mh(&p.matmul(&k)?)?
            .neg()?
            .add(&kph)?
            .sub(&a.matmul(p)?.matmul(&kph)?)?
            .add(&ph.matmul(p)?.matmul(&gh.sub(&k.matmul(a)?)?)?)
    } else {
        let k = p.matmul(&gh)?;
        let phk = ph.matmul(&k)?;
        mh(&k.matmul(p)?)?
            .neg()?
            .add(&gh.sub(&a.matmul(&k)?)?.matmul(p)?.matmul(&ph)?)?
            .add(&phk)?
            .sub(&phk.matmul(p)?.matmul(a)?)
    }
}
