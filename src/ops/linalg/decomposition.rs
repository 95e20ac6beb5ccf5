//! Singular values (`linalg.svdvals`, and through them the spectral and nuclear matrix norms):
//! a one-sided Jacobi SVD per matrix, in float64, with the derivative `U diag(g) Vᵀ` (through
//! `linalg.svd`'s differentiable factors when a graph of the gradient is recorded).

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::no_grad;
use crate::core::tensor::Tensor;

/// The SVD of one row-major `rows x cols` matrix with `rows >= cols`: singular values
/// (descending), left vectors (`rows x cols`, row-major) and right vectors (`cols x cols`,
/// row-major, one vector per column), by one-sided Jacobi rotations (Hestenes).
pub(crate) fn jacobi_svd(a: &[f64], rows: usize, cols: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut u = a.to_vec();
    let mut v = vec![0.0; cols * cols];
    for i in 0..cols {
        v[i * cols + i] = 1.0;
    }
    for _sweep in 0..60 {
        let mut rotated = false;
        for p in 0..cols {
            for q in p + 1..cols {
                let (mut alpha, mut beta, mut gamma) = (0.0, 0.0, 0.0);
                for r in 0..rows {
                    let (x, y) = (u[r * cols + p], u[r * cols + q]);
                    alpha += x * x;
                    beta += y * y;
                    gamma += x * y;
                }
                if gamma.abs() <= 1e-15 * (alpha * beta).sqrt() || gamma == 0.0 {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = c * t;
                for (m, n) in [(&mut u, rows), (&mut v, cols)] {
                    for r in 0..n {
                        let (x, y) = (m[r * cols + p], m[r * cols + q]);
                        m[r * cols + p] = c * x - s * y;
                        m[r * cols + q] = s * x + c * y;
                    }
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let norms: Vec<f64> = (0..cols)
        .map(|j| {
            (0..rows)
                .map(|r| u[r * cols + j].powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .collect();
    let mut order: Vec<usize> = (0..cols).collect();
    order.sort_by(|&i, &j| norms[j].total_cmp(&norms[i]));
    let mut s = Vec::with_capacity(cols);
    let (mut us, mut vs) = (vec![0.0; rows * cols], vec![0.0; cols * cols]);
    for (k, &j) in order.iter().enumerate() {
        s.push(norms[j]);
        for r in 0..rows {
            us[r * cols + k] = if norms[j] > 0.0 {
                u[r * cols + j] / norms[j]
            } else {
                0.0
            };
        }
        for r in 0..cols {
            vs[r * cols + k] = v[r * cols + j];
        }
    }
    (s, us, vs)
}

impl Tensor {
    /// The singular values of each matrix in the last two dims, descending (`linalg.svdvals`,
    /// recorded as `LinalgSvdBackward0`); gradient `U diag(g) Vᵀ` (for distinct singular
    /// values); second derivatives through [`Tensor::linalg_svd`].
    pub fn svdvals(&self) -> Result<Tensor> {
        if self.dim() < 2 {
            return Err(Error::runtime(format!(
                "linalg.svd: The input tensor A must have at least 2 dimensions. (got {}-D)",
                self.dim()
            )));
        }
        if !self.dtype().is_floating_point() {
            return Err(Error::runtime(format!(
                "linalg.svd: Expected a floating point or complex tensor as input. Got {}",
                self.dtype().scalar_name()
            )));
        }
        let d = self.dim();
        let (m, n) = (self.shape()[d - 2], self.shape()[d - 1]);
        let k = m.min(n);
        let batch: usize = self.shape()[..d - 2].iter().product();
        let data = self
            .detach()
            .to_dtype(DType::Float64)?
            .contiguous()?
            .to_vec::<f64>()?;
        let (mut values, mut lefts, mut rights) = (Vec::new(), Vec::new(), Vec::new());
        for b in 0..batch {
            let a = &data[b * m * n..(b + 1) * m * n];
            // a tall matrix as it is, a wide one through its transpose (U and V swap)
            let (s, u, v) = if m >= n {
                jacobi_svd(a, m, n)
            } else {
                let t: Vec<f64> = (0..n * m).map(|i| a[(i % m) * n + i / m]).collect();
                let (s, u, v) = jacobi_svd(&t, n, m);
                (s, v, u)
            };
            values.extend(s);
            lefts.extend(u);
            rights.extend(v);
        }
        let lead = &self.shape()[..d - 2];
        let shape_of = |tail: &[usize]| [lead, tail].concat();
        let out = Tensor::from_vec(values, &shape_of(&[k]))?.to_dtype(self.dtype())?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let u = Tensor::from_vec(lefts, &shape_of(&[m, k]))?.to_dtype(self.dtype())?;
        let v = Tensor::from_vec(rights, &shape_of(&[n, k]))?.to_dtype(self.dtype())?;
        Ok(record(
            out,
            "LinalgSvdBackward0",
            &[self],
            &[Save::Tensor(self)],
            move |ctx| {
                let (g, a) = (ctx.grad(0), ctx.saved(0));
                if !is_recording(&[g, a]) {
                    let grad = no_grad(|| u.mul(&g.unsqueeze(-2)?)?.matmul(&v.transpose(-2, -1)?))?;
                    return Ok(vec![Some(grad)]);
                }
                // under create_graph: the same product with U and Vh of `linalg.svd`, whose
                // own derivative makes this one differentiable again
                let (u, _, vh) = a.linalg_svd(false)?;
                Ok(vec![Some(u.mul(&g.unsqueeze(-2)?)?.matmul(&vh)?)])
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singular_values_of_a_known_matrix() {
        // [[3, 0], [4, 5]] has singular values sqrt(45) and sqrt(5)
        let a = Tensor::from_vec(vec![3.0f64, 0.0, 4.0, 5.0], &[2, 2]).unwrap();
        let s = a.svdvals().unwrap().to_vec::<f64>().unwrap();
        assert!((s[0] - 45f64.sqrt()).abs() < 1e-12 && (s[1] - 5f64.sqrt()).abs() < 1e-12);
        let wide = Tensor::from_vec(vec![1.0f64, 0.0, 0.0, 0.0, 2.0, 0.0], &[2, 3]).unwrap();
        assert_eq!(
            wide.svdvals().unwrap().to_vec::<f64>().unwrap(),
            vec![2.0, 1.0]
        );
    }
}
