//! Products fused with a scaled addition, as BLAS has them — `addmm` (`β·input + α·(A @ B)`),
//! `addmv`, `baddbmm` — each one node with PyTorch's name and formulas; and the cross product
//! of 3-vectors along a dimension (`linalg.cross`).

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::layout::{broadcast_shapes, normalize_dim};
use crate::core::tensor::Tensor;

/// Which product a fused op computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Product {
    /// `mat1 @ mat2`, 2-D.
    Mm,
    /// `mat @ vec`.
    Mv,
    /// `batch1 @ batch2`, 3-D.
    Bmm,
}

impl Product {
    fn node(self) -> &'static str {
        match self {
            Product::Mm => "AddmmBackward0",
            Product::Mv => "AddmvBackward0",
            Product::Bmm => "BaddbmmBackward0",
        }
    }

    fn apply(self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        match self {
            Product::Mm => a.mm(b),
            Product::Mv => a.mv(b),
            Product::Bmm => a.bmm(b),
        }
    }

    /// The gradients of the two factors for the incoming gradient `g` (before `α`).
    fn grad_a(self, g: &Tensor, b: &Tensor) -> Result<Tensor> {
        match self {
            Product::Mm => g.mm(&b.t()?),
            Product::Mv => g.outer(b),
            Product::Bmm => g.bmm(&b.transpose(1, 2)?),
        }
    }

    fn grad_b(self, g: &Tensor, a: &Tensor) -> Result<Tensor> {
        match self {
            Product::Mm => a.t()?.mm(g),
            Product::Mv => a.t()?.mv(g),
            Product::Bmm => a.transpose(1, 2)?.bmm(g),
        }
    }
}

/// PyTorch's argument checks of the fused products (messages as it words them).
fn check(kind: Product, input: &Tensor, a: &Tensor, b: &Tensor) -> Result<()> {
    match kind {
        Product::Mm => {
            for (what, t) in [("self", a), ("mat2", b)] {
                if t.dim() != 2 {
                    return Err(Error::runtime(format!(
                        "addmm: {what} must be a matrix, got {}-D tensor",
                        t.dim()
                    )));
                }
            }
            if a.shape()[1] != b.shape()[0] {
                return Err(Error::runtime(format!(
                    "addmm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
                    a.shape()[0],
                    a.shape()[1],
                    b.shape()[0],
                    b.shape()[1]
                )));
            }
            for (first, t) in [(a, b), (input, b)] {
                if first.dtype() != t.dtype() {
                    return Err(Error::runtime(format!(
                        "self and mat2 must have the same dtype, but got {} and {}",
                        first.dtype().scalar_name(),
                        t.dtype().scalar_name()
                    )));
                }
            }
        }
        Product::Mv => {
            if a.dim() != 2 || b.dim() != 1 {
                return Err(Error::runtime(format!(
                    "vector + matrix @ vector expected, got {}, {}, {}",
                    input.dim(),
                    a.dim(),
                    b.dim()
                )));
            }
            let n = a.shape()[0];
            let fits = input.dim() <= 1 && input.shape().first().is_none_or(|&s| s == n || s == 1);
            if a.shape()[1] != b.shape()[0] || !fits {
                let got = input.shape().first().copied().unwrap_or(1);
                return Err(Error::runtime(format!(
                    "size mismatch, got input ({got}), mat ({}x{}), vec ({})",
                    n,
                    a.shape()[1],
                    b.shape()[0]
                )));
            }
            if input.dtype() != a.dtype() || a.dtype() != b.dtype() {
                return Err(Error::runtime(format!(
                    "addmv input tensors must have the same dtype, but got {}, {}, and {}",
                    input.dtype().scalar_name(),
                    a.dtype().scalar_name(),
                    b.dtype().scalar_name()
                )));
            }
        }
        Product::Bmm => {
            for (what, t) in [("batch1", a), ("batch2", b)] {
                if t.dim() != 3 {
                    return Err(Error::runtime(format!(
                        "{what} must be a 3D tensor (got {}-D)",
                        t.dim()
                    )));
                }
            }
            if input.dtype() != a.dtype() || a.dtype() != b.dtype() {
                return Err(Error::runtime(format!(
                    "Input dtypes must be the same, got: input {}, batch1: {}, batch2: {}",
                    input
                        .dtype()
                        .name()
                        .replace("float64", "double")
                        .replace("float32", "float"),
                    a.dtype()
                        .name()
                        .replace("float64", "double")
                        .replace("float32", "float"),
                    b.dtype()
                        .name()
                        .replace("float64", "double")
                        .replace("float32", "float"),
                )));
            }
        }
    }
    Ok(())
}

/// `β·input + α·(a ⊗ b)` for the product `kind`, recorded as one node.
fn fused(
    kind: Product,
    input: &Tensor,
    a: &Tensor,
    b: &Tensor,
    beta: f64,
    alpha: f64,
) -> Result<Tensor> {
    check(kind, input, a, b)?;
    let out = {
        let _untracked = GradModeGuard::new(false);
        let product = kind.apply(&a.detach(), &b.detach())?;
        let target: Vec<isize> = product.shape().iter().map(|&s| s as isize).collect();
        let base = input.detach().expand(&target)?;
        let dtype = product.dtype();
        let scaled = if alpha == 1.0 {
            product
        } else {
            product.mul_scalar(alpha)?
        };
        let sum = if beta == 0.0 {
            // β = 0 ignores the input (a NaN there does not propagate), as BLAS
            scaled
        } else if beta == 1.0 && crate::cpu::kernels::add_row_into(&scaled, &input.detach()) {
            // a bias row added into the product (ours), not into a new tensor
            scaled
        } else if beta == 1.0 {
            scaled.add(&base)?
        } else {
            scaled.add(&base.mul_scalar(beta)?)?
        };
        if sum.dtype() == dtype {
            sum
        } else {
            crate::cpu::kernels::cast(&sum, dtype)
        }
    };
    if !is_recording(&[input, a, b]) {
        return Ok(out);
    }
    let saves = [
        Save::Skip,
        Save::when(a, b.requires_grad()),
        Save::when(b, a.requires_grad()),
    ];
    let scale = move |t: Tensor, s: f64| if s == 1.0 { Ok(t) } else { t.mul_scalar(s) };
    let columns = (
        crate::ops::linalg::products::is_column_major(a.layout()),
        crate::ops::linalg::products::is_column_major(b.layout()),
    );
    Ok(record(
        out,
        kind.node(),
        &[input, a, b],
        &saves,
        move |ctx| {
            let g = ctx.grad(0);
            let gi = match ctx.needs_input_grad(0) {
                true => Some(scale(g.clone(), beta)?),
                false => None,
            };
            let (need_a, need_b) = (ctx.needs_input_grad(1), ctx.needs_input_grad(2));
            let (ga, gb) = match kind {
                // matrix products keep each gradient in its factor's memory order
                Product::Mm => crate::ops::linalg::products::mm_backward(
                    g,
                    (need_a, columns.0),
                    (need_b, columns.1),
                    ctx.saved_opt(1),
                    ctx.saved_opt(2),
                )?,
                _ => (
                    need_a.then(|| kind.grad_a(g, ctx.saved(2))).transpose()?,
                    need_b.then(|| kind.grad_b(g, ctx.saved(1))).transpose()?,
                ),
            };
            let ga = ga.map(|t| scale(t, alpha)).transpose()?;
            let gb = gb.map(|t| scale(t, alpha)).transpose()?;
            Ok(vec![gi, ga, gb])
        },
    ))
}

impl Tensor {
    /// `beta · self + alpha · (mat1 @ mat2)` (`self` broadcast to the product's shape).
    pub fn addmm(&self, mat1: &Tensor, mat2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        fused(Product::Mm, self, mat1, mat2, beta, alpha)
    }

    /// `beta · self + alpha · (mat @ vec)`.
    pub fn addmv(&self, mat: &Tensor, vec: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        fused(Product::Mv, self, mat, vec, beta, alpha)
    }

    /// `beta · self + alpha · (batch1 @ batch2)` for 3-D batches.
    pub fn baddbmm(
        &self,
        batch1: &Tensor,
        batch2: &Tensor,
        beta: f64,
        alpha: f64,
    ) -> Result<Tensor> {
        fused(Product::Bmm, self, batch1, batch2, beta, alpha)
    }

    /// `input @ weight.T + bias` as PyTorch's `linear` computes it: a 2-D input with a bias is
    /// one `addmm` (`AddmmBackward0`); another contiguous input with a bias is flattened to 2-D
    /// for the `addmm` and the result seen with the input's leading shape (`_unsafe_view`);
    /// without a bias an input of 3 or more dims is folded into one `mm` the same way; anything
    /// else is `matmul`, plus the bias (`AddBackward0`).
    pub fn linear(&self, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let wt = weight.t()?;
        let folded = |x: &Tensor, f: &dyn Fn(&Tensor) -> Result<Tensor>| -> Result<Tensor> {
            let k = x.shape()[x.dim() - 1] as isize;
            let rows: usize = x.shape()[..x.dim() - 1].iter().product();
            let flat = f(&x.reshape(&[rows as isize, k])?)?;
            let mut shape = x.shape()[..x.dim() - 1].to_vec();
            shape.push(flat.shape()[1]);
            flat.unsafe_view(&shape)
        };
        match bias {
            Some(b) if self.dim() == 2 => b.addmm(self, &wt, 1.0, 1.0),
            Some(b) if self.dim() >= 1 && self.is_contiguous() => {
                folded(self, &|x| b.addmm(x, &wt, 1.0, 1.0))
            }
            Some(b) => self.matmul(&wt)?.add(b),
            None if self.dim() >= 3 && weight.dim() == 2 => folded(self, &|x| x.mm(&wt)),
            None => self.matmul(&wt),
        }
    }

    /// The dimension `torch.cross` uses when none is given: the first of size 3 of the
    /// broadcast shape.
    pub fn default_cross_dim(&self, other: &Tensor) -> Result<isize> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        shape
            .iter()
            .position(|&s| s == 3)
            .map(|d| d as isize)
            .ok_or_else(|| Error::runtime("no dimension of size 3 in input"))
    }

    /// The cross product of 3-vectors along `dim` (inputs broadcast); gradients
    /// `cross(other, g)` and `cross(g, self)`.
    pub fn cross(&self, other: &Tensor, dim: isize) -> Result<Tensor> {
        if self.dim() != other.dim() {
            return Err(Error::runtime(
                "linalg.cross: inputs must have the same number of dimensions.",
            ));
        }
        if self.dtype() != other.dtype() {
            return Err(Error::runtime(format!(
                "expected scalar type {} but found {}",
                self.dtype().scalar_name(),
                other.dtype().scalar_name()
            )));
        }
        let d = normalize_dim(dim, self.dim())?;
        let (la, lb) = (self.shape()[d], other.shape()[d]);
        if la != 3 || lb != 3 {
            return Err(Error::runtime(format!(
                "linalg.cross: inputs dimension {dim} must have length 3. Got {la} and {lb}"
            )));
        }
        if self.dtype() == DType::Bool {
            return Err(Error::not_implemented(
                "\"linalg_cross\" not implemented for 'Bool'",
            ));
        }
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let out = {
            let _untracked = GradModeGuard::new(false);
            let target: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
            let (a, b) = (
                self.detach().expand(&target)?,
                other.detach().expand(&target)?,
            );
            let part = |t: &Tensor, i: isize| t.narrow(d as isize, i, 1);
            let term = |i: isize, j: isize| -> Result<Tensor> {
                part(&a, i)?
                    .mul(&part(&b, j)?)?
                    .sub(&part(&a, j)?.mul(&part(&b, i)?)?)
            };
            Tensor::cat(&[term(1, 2)?, term(2, 0)?, term(0, 1)?], d as isize)?
        };
        if !is_recording(&[self, other]) {
            return Ok(out);
        }
        let saves = [
            if other.requires_grad() {
                Save::Tensor(self)
            } else {
                Save::Skip
            },
            if self.requires_grad() {
                Save::Tensor(other)
            } else {
                Save::Skip
            },
        ];
        Ok(record(
            out,
            "LinalgCrossBackward0",
            &[self, other],
            &saves,
            move |ctx| {
                let g = ctx.grad(0);
                let ga = match ctx.needs_input_grad(0) {
                    true => Some(ctx.saved(1).cross(g, d as isize)?),
                    false => None,
                };
                let gb = match ctx.needs_input_grad(1) {
                    true => Some(g.cross(ctx.saved(0), d as isize)?),
                    false => None,
                };
                Ok(vec![ga, gb])
            },
        ))
    }
}
