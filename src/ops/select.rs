//! Choosing between values: `maximum`, `minimum`, `where`, `masked_fill`.

use super::pointwise::mask_where;
use super::result_type;
use crate::autograd::{is_recording, record, Save};
use crate::core::buffer::BufferElement;
use crate::core::dtype::{DType, Element, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::broadcast_shapes;
use crate::core::tensor::{gather, Tensor};
use crate::cpu::kernels::{cast, zip};
use crate::with_any;

/// `cond ? a : b` elementwise over the broadcast of the three (no autograd).
fn select_values(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if cond.dtype() != DType::Bool {
        return Err(Error::runtime(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            cond.dtype().name()
        )));
    }
    let shape = broadcast_shapes(&broadcast_shapes(cond.shape(), a.shape())?, b.shape())?;
    let dtype = result_type(a, b);
    let (a, b) = (cast(a, dtype), cast(b, dtype));
    let c: Vec<bool> = cond.read(|d, l| gather(d, &l.broadcast_to(&shape)));
    Ok(with_any!(dtype, T => pick::<T>(&c, &a, &b, &shape)?))
}

fn pick<T: BufferElement + Copy>(
    c: &[bool],
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
) -> Result<Tensor> {
    let xs: Vec<T> = a.read(|d, l| gather(d, &l.broadcast_to(shape)));
    let ys: Vec<T> = b.read(|d, l| gather(d, &l.broadcast_to(shape)));
    let out = c
        .iter()
        .zip(xs.into_iter().zip(ys))
        .map(|(&c, (x, y))| if c { x } else { y })
        .collect();
    Tensor::from_vec(out, shape)
}

/// A float constant from a bool tensor (1 where true).
fn as_float(mask: &Tensor, dtype: DType) -> Tensor {
    cast(mask, dtype)
}

impl Tensor {
    /// `where(cond, self, other)`: gradients go to the side that was chosen.
    pub fn where_(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        let out = select_values(cond, a, b)?;
        if !is_recording(&[a, b]) {
            return Ok(out);
        }
        let cond = cond.clone();
        Ok(record(out, "WhereBackward0", &[a, b], &[], move |ctx| {
            let g = ctx.grad(0);
            let m = as_float(&cond, g.dtype());
            let ga = if ctx.needs_input_grad(0) {
                Some(g.mul(&m)?)
            } else {
                None
            };
            let gb = if ctx.needs_input_grad(1) {
                Some(g.mul(&m.rsub_scalar(1.0)?)?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        }))
    }

    /// Elements replaced by `value` where `mask` is true; the gradient is zero there.
    pub fn masked_fill(&self, mask: &Tensor, value: Scalar) -> Result<Tensor> {
        let fill = Tensor::scalar_of(value.to_f64(), self.dtype());
        let out = select_values(mask, &fill, &self.detach())?;
        if out.shape() != self.shape() {
            return Err(Error::runtime(format!(
                "masked_fill: the mask of shape {:?} does not broadcast to the tensor's shape {:?}",
                mask.shape(),
                self.shape()
            )));
        }
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let mask = mask.clone();
        Ok(record(
            out,
            "MaskedFillBackward0",
            &[self],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                Ok(vec![Some(
                    g.mul(&as_float(&mask, g.dtype()).rsub_scalar(1.0)?)?,
                )])
            },
        ))
    }

    /// Elementwise maximum; at ties each side gets half the gradient.
    pub fn maximum(&self, other: &Tensor) -> Result<Tensor> {
        extremum(self, other, true)
    }

    /// Elementwise minimum; at ties each side gets half the gradient.
    pub fn minimum(&self, other: &Tensor) -> Result<Tensor> {
        extremum(self, other, false)
    }
}

fn extremum(a: &Tensor, b: &Tensor, max: bool) -> Result<Tensor> {
    let dtype = result_type(a, b);
    let (ca, cb) = (cast(a, dtype), cast(b, dtype));
    let out = crate::with_num!(dtype, T => zip(&ca, &cb, move |x: T, y: T| {
        if x.to_f64().is_nan() {
            x
        } else if y.to_f64().is_nan() {
            y
        } else if (x > y) == max {
            x
        } else {
            y
        }
    })?);
    if !is_recording(&[a, b]) {
        return Ok(out);
    }
    let name = if max {
        "MaximumBackward0"
    } else {
        "MinimumBackward0"
    };
    Ok(record(
        out,
        name,
        &[a, b],
        &[Save::Tensor(a), Save::Tensor(b)],
        move |ctx| {
            let (g, a, b) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
            // weight of `a`: 1 where it wins, 1/2 at ties, 0 where it loses
            let diff = a.detach().sub(&b.detach())?;
            let sign = if max { 1.0 } else { -1.0 };
            let wa = mask_where(&diff, move |d| d * sign > 0.0)?
                .add(&mask_where(&diff, |d| d == 0.0)?.mul_scalar(0.5)?)?;
            let ga = if ctx.needs_input_grad(0) {
                Some(g.mul(&wa)?)
            } else {
                None
            };
            let gb = if ctx.needs_input_grad(1) {
                Some(g.mul(&wa.rsub_scalar(1.0)?)?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        },
    ))
}
