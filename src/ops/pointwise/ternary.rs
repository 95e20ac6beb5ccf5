//! Pointwise ops of three tensors, each one node as in PyTorch: `lerp` (a number or a tensor
//! as the weight), `addcmul`, `addcdiv`, and their in-place twins (an EMA's `lerp_`, an
//! optimizer's `addcmul_`/`addcdiv_`). The forward rounds as PyTorch's kernels do; the
//! formulas are written with differentiable ops.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::no_grad;
use crate::core::tensor::Tensor;
use crate::ops::pointwise::comparison::CompareOp;
use crate::ops::Operand;

/// PyTorch's check that `other` (named `what`) has `self`'s dtype (lerp does not promote), with
/// its message (the C++ names, lower-case: `float`, `double`).
fn same_dtype(this: DType, other: &Tensor, what: &str) -> Result<()> {
    if other.dtype() != this {
        let name = |d: DType| d.scalar_name().to_lowercase();
        return Err(Error::runtime(format!(
            "expected dtype {} for `{what}` but got dtype {}",
            name(this),
            name(other.dtype())
        )));
    }
    Ok(())
}

impl Tensor {
    /// `self + weight·(end - self)`, computed from `self` when `|weight| < 0.5` and as
    /// `end - (end - self)·(1 - weight)` otherwise (PyTorch's two forms: exact at both ends).
    pub fn lerp(&self, end: &Tensor, weight: f64) -> Result<Tensor> {
        same_dtype(self.dtype(), end, "end")?;
        let out = no_grad(|| {
            let diff = end.sub(self)?;
            if weight.abs() < 0.5 {
                self.add(&diff.mul_scalar(weight)?)
            } else {
                end.sub(&diff.mul_scalar(1.0 - weight)?)
            }
        })?;
        if !is_recording(&[self, end]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "LerpBackward0",
            &[self, end],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                let ga = match ctx.needs_input_grad(0) {
                    true => Some(g.mul_scalar(1.0 - weight)?),
                    false => None,
                };
                let gb = match ctx.needs_input_grad(1) {
                    true => Some(g.mul_scalar(weight)?),
                    false => None,
                };
                Ok(vec![ga, gb])
            },
        ))
    }

    /// [`Tensor::lerp`] with a tensor of weights (broadcast with both ends).
    pub fn lerp_tensor(&self, end: &Tensor, weight: &Tensor) -> Result<Tensor> {
        same_dtype(self.dtype(), end, "end")?;
        same_dtype(self.dtype(), weight, "weight")?;
        let out = no_grad(|| {
            let diff = end.sub(self)?;
            let low = self.add(&weight.mul(&diff)?)?;
            let high = end.sub(&diff.mul(&weight.neg()?.add_scalar(1.0)?)?)?;
            let half = Operand::Scalar(crate::Scalar::Float(0.5));
            let small = weight.abs()?.compare(CompareOp::Lt, half)?;
            Tensor::where_(&small, &low, &high)
        })?;
        if !is_recording(&[self, end, weight]) {
            return Ok(out);
        }
        let ends_need = self.requires_grad() || end.requires_grad();
        let saves = [
            Save::when(self, weight.requires_grad()),
            Save::when(end, weight.requires_grad()),
            Save::when(weight, ends_need),
        ];
        Ok(record(
            out,
            "LerpBackward1",
            &[self, end, weight],
            &saves,
            |ctx| {
                let g = ctx.grad(0);
                let w = || ctx.saved(2);
                let ga = match ctx.needs_input_grad(0) {
                    true => Some(g.mul(&w().neg()?.add_scalar(1.0)?)?),
                    false => None,
                };
                let gb = match ctx.needs_input_grad(1) {
                    true => Some(g.mul(w())?),
                    false => None,
                };
                let gw = match ctx.needs_input_grad(2) {
                    true => Some(g.mul(&ctx.saved(1).sub(ctx.saved(0))?)?),
                    false => None,
                };
                Ok(vec![ga, gb, gw])
            },
        ))
    }

    /// `self + value·tensor1·tensor2` (broadcast, promoted).
    pub fn addcmul(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<Tensor> {
        let out = no_grad(|| tensor1.mul_scalar(value)?.mul(tensor2)?.add(self))?;
        if !is_recording(&[self, tensor1, tensor2]) {
            return Ok(out);
        }
        let saves = [
            Save::when(tensor1, tensor2.requires_grad()),
            Save::when(tensor2, tensor1.requires_grad()),
        ];
        Ok(record(
            out,
            "AddcmulBackward0",
            &[self, tensor1, tensor2],
            &saves,
            move |ctx| {
                let g = ctx.grad(0);
                let ga = ctx.needs_input_grad(0).then(|| g.clone());
                let g1 = match ctx.needs_input_grad(1) {
                    true => Some(g.mul(&ctx.saved(1).mul_scalar(value)?)?),
                    false => None,
                };
                let g2 = match ctx.needs_input_grad(2) {
                    true => Some(g.mul(&ctx.saved(0).mul_scalar(value)?)?),
                    false => None,
                };
                Ok(vec![ga, g1, g2])
            },
        ))
    }

    /// `self + value·tensor1 / tensor2` (broadcast, promoted).
    pub fn addcdiv(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<Tensor> {
        if !tensor1.dtype().is_floating_point() && !tensor2.dtype().is_floating_point() {
            return Err(Error::runtime(
                "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.",
            ));
        }
        let out = no_grad(|| tensor1.mul_scalar(value)?.div(tensor2)?.add(self))?;
        if !is_recording(&[self, tensor1, tensor2]) {
            return Ok(out);
        }
        let saves = [
            Save::when(tensor1, tensor2.requires_grad()),
            Save::when(tensor2, tensor1.requires_grad() || tensor2.requires_grad()),
        ];
        Ok(record(
            out,
            "AddcdivBackward0",
            &[self, tensor1, tensor2],
            &saves,
            move |ctx| {
                let g = ctx.grad(0);
                let ga = ctx.needs_input_grad(0).then(|| g.clone());
                let t2 = || ctx.saved(1);
                let g1 = match ctx.needs_input_grad(1) {
                    // grad * (value / tensor2)
                    true => Some(g.mul(&Tensor::scalar_of(value, t2().dtype()).div(t2())?)?),
                    false => None,
                };
                let g2 = match ctx.needs_input_grad(2) {
                    // -grad * (value * tensor1 / (tensor2 * tensor2))
                    true => {
                        let ratio = ctx.saved(0).mul_scalar(value)?.div(&t2().mul(t2())?)?;
                        Some(g.neg()?.mul(&ratio)?)
                    }
                    false => None,
                };
                Ok(vec![ga, g1, g2])
            },
        ))
    }

    /// In-place [`Tensor::lerp`].
    pub fn lerp_(&self, end: &Tensor, weight: f64) -> Result<()> {
        self.apply_inplace("lerp_", &[end], |x| x.lerp(end, weight))
    }

    /// In-place [`Tensor::lerp_tensor`].
    pub fn lerp_tensor_(&self, end: &Tensor, weight: &Tensor) -> Result<()> {
        self.apply_inplace("lerp_", &[end, weight], |x| x.lerp_tensor(end, weight))
    }

    /// In-place [`Tensor::addcmul`].
    pub fn addcmul_(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<()> {
        self.apply_inplace("addcmul_", &[tensor1, tensor2], |x| {
            x.addcmul(tensor1, tensor2, value)
        })
    }

    /// In-place [`Tensor::addcdiv`].
    pub fn addcdiv_(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<()> {
        self.apply_inplace("addcdiv_", &[tensor1, tensor2], |x| {
            x.addcdiv(tensor1, tensor2, value)
        })
    }
}
