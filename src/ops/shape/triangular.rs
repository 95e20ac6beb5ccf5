//! Triangles and diagonals of matrices: `tril`, `triu`, `diagonal` (a view), `diag`, `trace`,
//! and the identity `eye`. Each gradient is the same selection applied to the incoming
//! gradient (or its adjoint, a scatter onto zeros), so it differentiates again.

use crate::autograd::{is_recording, record};
use crate::core::buffer::BufferElement;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::{normalize_dim, Dims, Layout};
use crate::core::tensor::Tensor;
use crate::ops::shape::strided::scatter_strided;
use crate::with_any;

/// Zeroes the elements of the last two dimensions outside the triangle: below the `k`-th
/// diagonal (`lower == false`, `triu`) or above it (`tril`); no autograd.
fn triangle_kernel(x: &Tensor, k: i64, lower: bool) -> Result<Tensor> {
    let shape = x.shape().to_vec();
    let (rows, cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    fn keep<T: BufferElement + Copy + Default>(
        x: &Tensor,
        rows: usize,
        cols: usize,
        k: i64,
        lower: bool,
    ) -> Result<Tensor> {
        let mut data: Vec<T> = x.to_vec()?;
        for (p, v) in data.iter_mut().enumerate() {
            let (i, j) = (((p / cols) % rows.max(1)) as i64, (p % cols) as i64);
            let inside = if lower { j - i <= k } else { j - i >= k };
            if !inside {
                *v = T::default();
            }
        }
        Tensor::from_vec(data, x.shape())
    }
    with_any!(x.dtype(), T => keep::<T>(x, rows, cols, k, lower))
}

/// The layout of the `offset`-th diagonal of dims `d1`, `d2` of `layout` (PyTorch's
/// `diagonal`): those two dims dropped, the diagonal appended as the last dimension.
fn diagonal_layout(layout: &Layout, offset: i64, d1: usize, d2: usize) -> Layout {
    let (s1, s2) = (layout.shape[d1] as i64, layout.shape[d2] as i64);
    let len = if offset >= 0 {
        s1.min(s2.saturating_sub(offset))
    } else {
        s1.saturating_add(offset).min(s2)
    }
    .max(0) as usize;
    let mut start = layout.offset as isize;
    if len > 0 {
        start += if offset >= 0 {
            offset as isize * layout.strides[d2]
        } else {
            -offset as isize * layout.strides[d1]
        };
    }
    let mut shape: Dims = Dims::new();
    let mut strides = crate::core::layout::Strides::new();
    for d in 0..layout.shape.len() {
        if d != d1 && d != d2 {
            shape.push(layout.shape[d]);
            strides.push(layout.strides[d]);
        }
    }
    shape.push(len);
    strides.push(layout.strides[d1] + layout.strides[d2]);
    Layout {
        shape,
        strides,
        offset: start.max(0) as usize,
    }
}

impl Tensor {
    /// The lower triangle of the last two dimensions, on and below the `diagonal`-th
    /// diagonal; gradient `g.tril(diagonal)`.
    pub fn tril(&self, diagonal: i64) -> Result<Tensor> {
        self.triangle(diagonal, true)
    }

    /// The upper triangle of the last two dimensions, on and above the `diagonal`-th
    /// diagonal; gradient `g.triu(diagonal)`.
    pub fn triu(&self, diagonal: i64) -> Result<Tensor> {
        self.triangle(diagonal, false)
    }

    fn triangle(&self, k: i64, lower: bool) -> Result<Tensor> {
        let name = if lower { "tril" } else { "triu" };
        if self.dim() < 2 {
            return Err(Error::runtime(format!(
                "{name}: input tensor must have at least 2 dimensions"
            )));
        }
        let out = triangle_kernel(self, k, lower)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let node = if lower {
            "TrilBackward0"
        } else {
            "TriuBackward0"
        };
        Ok(record(out, node, &[self], &[], move |ctx| {
            Ok(vec![Some(ctx.grad(0).triangle(k, lower)?)])
        }))
    }

    /// In-place [`Tensor::tril`].
    pub fn tril_(&self, diagonal: i64) -> Result<()> {
        self.unary_("tril_", |x| x.tril(diagonal))
    }

    /// In-place [`Tensor::triu`].
    pub fn triu_(&self, diagonal: i64) -> Result<()> {
        self.unary_("triu_", |x| x.triu(diagonal))
    }

    /// The `offset`-th diagonal of dimensions `dim1` and `dim2`, a view with those two
    /// dimensions removed and the diagonal last; the gradient is scattered back onto zeros.
    pub fn diagonal(&self, offset: i64, dim1: isize, dim2: isize) -> Result<Tensor> {
        let (d1, d2) = (
            normalize_dim(dim1, self.dim())?,
            normalize_dim(dim2, self.dim())?,
        );
        if d1 == d2 {
            return Err(Error::runtime(format!(
                "diagonal dimensions cannot be identical {dim1}, {dim2}"
            )));
        }
        let out = self.alias_with_layout(diagonal_layout(self.layout(), offset, d1, d2));
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let shape: Dims = self.shape().into();
        Ok(record(out, "DiagonalBackward0", &[self], &[], move |ctx| {
            Ok(vec![Some(diagonal_backward(
                ctx.grad(0),
                &shape,
                offset,
                d1,
                d2,
            )?)])
        }))
    }

    /// `diag`: a 1-D tensor placed on the `diagonal`-th diagonal of a square matrix (zeros
    /// elsewhere), or the `diagonal`-th diagonal of a matrix as a new 1-D tensor.
    pub fn diag(&self, diagonal: i64) -> Result<Tensor> {
        match self.dim() {
            1 => self.diag_embed(diagonal),
            2 => {
                let out = self.detach().diagonal(diagonal, 0, 1)?.deep_copy();
                if !is_recording(&[self]) {
                    return Ok(out);
                }
                let shape: Dims = self.shape().into();
                Ok(record(
                    out,
                    "DiagonalBackward0_copy",
                    &[self],
                    &[],
                    move |ctx| {
                        Ok(vec![Some(diagonal_backward(
                            ctx.grad(0),
                            &shape,
                            diagonal,
                            0,
                            1,
                        )?)])
                    },
                ))
            }
            n => Err(Error::runtime(format!(
                "diag(): Supports 1D or 2D tensors. Got {n}D"
            ))),
        }
    }

    /// A 1-D tensor placed on the `offset`-th diagonal of a square matrix of zeros
    /// (`DiagEmbedBackward0`: the gradient is that diagonal of the incoming gradient).
    fn diag_embed(&self, offset: i64) -> Result<Tensor> {
        let n = usize::try_from(offset.unsigned_abs())
            .ok()
            .and_then(|k| k.checked_add(self.shape()[0]))
            .ok_or_else(|| Error::runtime(format!("diag(): diagonal {offset} is too large")))?;
        let shape = [n, n];
        crate::core::storage::check_allocation(&shape, self.dtype())?;
        let layout = diagonal_layout(&Layout::contiguous(&shape), offset, 0, 1);
        let out = {
            let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
            scatter_strided(&self.detach(), &shape, &layout)?
        };
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "DiagEmbedBackward0",
            &[self],
            &[],
            move |ctx| Ok(vec![Some(ctx.grad(0).diagonal(offset, 0, 1)?)]),
        ))
    }

    /// The sum of the main diagonal of a matrix; gradient: the incoming one on that diagonal.
    pub fn trace(&self) -> Result<Tensor> {
        if self.dim() != 2 {
            return Err(Error::runtime(format!(
                "trace: expected a matrix, but got tensor with dim {}",
                self.dim()
            )));
        }
        if self.dtype() == DType::Bool {
            return Err(Error::not_implemented(
                "\"trace\" not implemented for 'Bool'",
            ));
        }
        let out = {
            let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
            self.detach().diagonal(0, 0, 1)?.sum()?
        };
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let shape: Dims = self.shape().into();
        Ok(record(out, "TraceBackward0", &[self], &[], move |ctx| {
            let n = shape[0].min(shape[1]) as isize;
            let g = ctx.grad(0).expand(&[n])?;
            Ok(vec![Some(diagonal_backward(&g, &shape, 0, 0, 1)?)])
        }))
    }

    /// The `n × m` identity matrix (`m = n` when absent).
    pub fn eye(n: i64, m: Option<i64>, dtype: DType) -> Result<Tensor> {
        if n < 0 {
            return Err(Error::runtime(format!(
                "n must be greater or equal to 0, got {n}"
            )));
        }
        let m = m.unwrap_or(n);
        if m < 0 {
            return Err(Error::runtime(format!(
                "m must be greater or equal to 0, got {m}"
            )));
        }
        let (n, m) = (n as usize, m as usize);
        crate::core::storage::check_allocation(&[n, m], dtype)?;
        let layout = diagonal_layout(&Layout::contiguous(&[n, m]), 0, 0, 1);
        scatter_strided(&Tensor::ones(&[n.min(m)], dtype), &[n, m], &layout)
    }
}

/// Zeros of `shape` with `g` on the `offset`-th diagonal of dims `d1`, `d2` (the adjoint of
/// [`Tensor::diagonal`]; differentiable: its own gradient is the diagonal again).
fn diagonal_backward(
    g: &Tensor,
    shape: &[usize],
    offset: i64,
    d1: usize,
    d2: usize,
) -> Result<Tensor> {
    let layout = diagonal_layout(&Layout::contiguous(shape), offset, d1, d2);
    scatter_strided(g, shape, &layout)
}
