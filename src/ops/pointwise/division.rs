//! Rounding divisions: `floor_divide` (`//`), `remainder` (`%`, the sign of the divisor, as
//! Python's) and `fmod` (the sign of the dividend, as C's), for tensors and Python numbers,
//! integers included.
//!
//! Their gradients are PyTorch's: `remainder(a, b)` passes `g` to `a` and `-g · ⌊a / b⌋` to `b`
//! (`fmod`: the quotient truncated), the quotient taken as a constant (its derivative is zero
//! almost everywhere), so the formulas differentiate again. `floor_divide`, and `remainder` of a
//! Python number by a tensor, have no derivative in PyTorch: they record its `NotImplemented`
//! node, whose backward fails with PyTorch's message.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast_ref, zip};
use crate::ops::result_type;
use crate::ops::Operand;

/// The three rounding divisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivisionOp {
    /// `a // b`: the quotient rounded toward negative infinity.
    FloorDivide,
    /// `a % b`: `a - b ⌊a / b⌋`, with the sign of `b`.
    Remainder,
    /// `fmod(a, b)`: `a - b trunc(a / b)`, with the sign of `a`.
    Fmod,
}

impl DivisionOp {
    /// PyTorch's op name (its `NotImplemented` message names it).
    fn name(self) -> &'static str {
        match self {
            DivisionOp::FloorDivide => "floor_divide",
            DivisionOp::Remainder => "remainder",
            DivisionOp::Fmod => "fmod",
        }
    }

    /// The name of PyTorch's CPU kernel (its dtype errors name it).
    fn kernel_name(self) -> &'static str {
        match self {
            DivisionOp::FloorDivide => "div_floor_cpu",
            DivisionOp::Remainder => "remainder_cpu",
            DivisionOp::Fmod => "fmod_cpu",
        }
    }
}

/// The name PyTorch gives the node of an op without a derivative.
pub const NOT_IMPLEMENTED: &str = "NotImplemented";

/// `a // b` of two floats in their own precision (PyTorch computes in the element type), as
/// PyTorch's kernel: the exact quotient `(a - fmod(a, b)) / b`, moved down by one when the
/// remainder and the divisor differ in sign, then rounded to the nearest integer (it is one up
/// to rounding); division by zero gives IEEE's `a / b`.
fn floor_div_float<T: num_traits::Float>(a: T, b: T) -> T {
    let (zero, one) = (T::zero(), T::one());
    if b == zero {
        return a / b;
    }
    let rem = a % b;
    let mut quot = (a - rem) / b;
    if rem != zero && (b < zero) != (rem < zero) {
        quot = quot - one;
    }
    if quot == zero {
        return zero.copysign(a / b);
    }
    let down = quot.floor();
    if quot - down > one / (one + one) {
        down + one
    } else {
        down
    }
}

/// `a % b` of two floats: `fmod` moved into the divisor's sign.
fn remainder_float<T: num_traits::Float>(a: T, b: T) -> T {
    let rem = a % b;
    if rem != T::zero() && (b < T::zero()) != (rem < T::zero()) {
        rem + b
    } else {
        rem
    }
}

/// `a // b` of two integers (wrapping at `i64::MIN // -1`, as PyTorch's).
fn floor_div_int(a: i64, b: i64) -> i64 {
    let quot = a.wrapping_div(b);
    if (a < 0) != (b < 0) && a.wrapping_rem(b) != 0 {
        quot - 1
    } else {
        quot
    }
}

fn remainder_int(a: i64, b: i64) -> i64 {
    let rem = a.wrapping_rem(b);
    if rem != 0 && (rem < 0) != (b < 0) {
        rem + b
    } else {
        rem
    }
}

/// The op on two tensors of `dtype` (already broadcastable), no autograd.
fn kernel(op: DivisionOp, a: &Tensor, b: &Tensor, dtype: DType) -> Result<Tensor> {
    let (a, b) = (cast_ref(a, dtype), cast_ref(b, dtype));
    match dtype {
        DType::Float64 => match op {
            DivisionOp::FloorDivide => zip(&a, &b, floor_div_float::<f64>),
            DivisionOp::Remainder => zip(&a, &b, remainder_float::<f64>),
            DivisionOp::Fmod => zip(&a, &b, |x: f64, y: f64| x % y),
        },
        DType::Float32 => match op {
            DivisionOp::FloorDivide => zip(&a, &b, floor_div_float::<f32>),
            DivisionOp::Remainder => zip(&a, &b, remainder_float::<f32>),
            DivisionOp::Fmod => zip(&a, &b, |x: f32, y: f32| x % y),
        },
        d if d.is_integer() && d != DType::Int64 => {
            // the narrow integers divide as int64 and wrap back, as C's promotion to int does
            let wide = kernel(op, &a, &b, DType::Int64)?;
            Ok(crate::cpu::kernels::cast(&wide, d))
        }
        DType::Int64 => {
            if b.to_vec::<i64>()?.contains(&0) {
                return Err(Error::runtime("ZeroDivisionError"));
            }
            match op {
                DivisionOp::FloorDivide => zip(&a, &b, floor_div_int),
                DivisionOp::Remainder => zip(&a, &b, remainder_int),
                DivisionOp::Fmod => zip(&a, &b, |x: i64, y: i64| x.wrapping_rem(y)),
            }
        }
        _ => Err(Error::not_implemented(format!(
            "\"{}\" not implemented for 'Bool'",
            op.kernel_name()
        ))),
    }
}

/// A Python number as a 0-d tensor of the dtype it computes in with a tensor of `dtype`.
fn number(s: Scalar, dtype: DType) -> Tensor {
    Tensor::scalar_of(s.to_f64(), dtype)
}

/// `op(lhs, rhs)` where either side may be a Python number (at least one is a tensor).
pub fn division(op: DivisionOp, lhs: Operand<'_>, rhs: Operand<'_>) -> Result<Tensor> {
    division_named(op, lhs, rhs, "")
}

/// [`division`]; an op without a derivative names itself with `suffix` (`floor_divide_`).
fn division_named(
    op: DivisionOp,
    lhs: Operand<'_>,
    rhs: Operand<'_>,
    suffix: &'static str,
) -> Result<Tensor> {
    match (lhs, rhs) {
        (Operand::Tensor(a), Operand::Tensor(b)) => tensor_tensor(op, a, b, suffix),
        (Operand::Tensor(a), Operand::Scalar(s)) => {
            let dtype = s.result_type_with(a.dtype());
            let out = kernel(op, a, &number(s, dtype), dtype)?;
            if !is_recording(&[a]) {
                return Ok(out);
            }
            Ok(match op {
                DivisionOp::FloorDivide => not_implemented(out, op, suffix, &[a]),
                DivisionOp::Remainder => record(out, "RemainderBackward0", &[a], &[], |ctx| {
                    Ok(vec![Some(ctx.grad(0).clone())])
                }),
                DivisionOp::Fmod => record(out, "FmodBackward0", &[a], &[], |ctx| {
                    Ok(vec![Some(ctx.grad(0).clone())])
                }),
            })
        }
        (Operand::Scalar(s), Operand::Tensor(b)) => {
            if op == DivisionOp::Fmod {
                return Err(Error::type_error(
                    "fmod(): argument 'input' (position 1) must be Tensor, not a number",
                ));
            }
            let dtype = s.result_type_with(b.dtype());
            let out = kernel(op, &number(s, dtype), b, dtype)?;
            if !is_recording(&[b]) {
                return Ok(out);
            }
            Ok(not_implemented(out, op, suffix, &[b]))
        }
        (Operand::Scalar(_), Operand::Scalar(_)) => Err(Error::type_error(format!(
            "{}() needs at least one tensor operand",
            op.name()
        ))),
    }
}

fn tensor_tensor(op: DivisionOp, a: &Tensor, b: &Tensor, suffix: &'static str) -> Result<Tensor> {
    let dtype = result_type(a, b);
    let out = kernel(op, a, b, dtype)?;
    if !is_recording(&[a, b]) {
        return Ok(out);
    }
    let (node, rounding) = match op {
        DivisionOp::FloorDivide => return Ok(not_implemented(out, op, suffix, &[a, b])),
        DivisionOp::Remainder => ("RemainderBackward1", DivisionOp::FloorDivide),
        DivisionOp::Fmod => ("FmodBackward1", DivisionOp::Fmod),
    };
    let saves = if b.requires_grad() {
        [Save::Tensor(a), Save::Tensor(b)]
    } else {
        [Save::Skip, Save::Skip]
    };
    Ok(record(out, node, &[a, b], &saves, move |ctx| {
        let g = ctx.grad(0);
        let db = if ctx.needs_input_grad(1) {
            let (x, y) = (ctx.saved(0).detach(), ctx.saved(1).detach());
            // the quotient, rounded down (remainder) or toward zero (fmod): a constant
            let quotient = match rounding {
                DivisionOp::Fmod => x.div(&y)?.trunc()?,
                _ => kernel(DivisionOp::FloorDivide, &x, &y, result_type(&x, &y))?,
            };
            Some(g.neg()?.mul(&quotient)?)
        } else {
            None
        };
        Ok(vec![Some(g.clone()), db])
    }))
}

/// Records PyTorch's `NotImplemented` node for an op without a derivative: its edges go to the
/// inputs that require grad, and its backward fails naming the op.
fn not_implemented(
    out: Tensor,
    op: DivisionOp,
    suffix: &'static str,
    inputs: &[&Tensor],
) -> Tensor {
    let differentiable: Vec<&Tensor> = inputs
        .iter()
        .copied()
        .filter(|t| t.requires_grad())
        .collect();
    let name = op.name();
    record(out, NOT_IMPLEMENTED, &differentiable, &[], move |_| {
        Err(Error::runtime(format!(
            "derivative for aten::{name}{suffix} is not implemented"
        )))
    })
}

impl Tensor {
    /// `self // other` (rounded toward negative infinity); no derivative, as PyTorch.
    pub fn floor_divide(&self, other: &Tensor) -> Result<Tensor> {
        tensor_tensor(DivisionOp::FloorDivide, self, other, "")
    }

    /// `self % other`, with the sign of `other` (Python's modulus).
    pub fn remainder(&self, other: &Tensor) -> Result<Tensor> {
        tensor_tensor(DivisionOp::Remainder, self, other, "")
    }

    /// `fmod(self, other)`, with the sign of `self` (C's `fmod`).
    pub fn fmod(&self, other: &Tensor) -> Result<Tensor> {
        tensor_tensor(DivisionOp::Fmod, self, other, "")
    }

    /// In-place `op` with a tensor or a number (`x //= y`, `x.remainder_(2)`).
    pub fn division_(&self, op: DivisionOp, other: Operand<'_>) -> Result<()> {
        let name = match op {
            DivisionOp::FloorDivide => "floor_divide_",
            DivisionOp::Remainder => "remainder_",
            DivisionOp::Fmod => "fmod_",
        };
        self.apply_inplace(name, &other.tensors(), |x| {
            division_named(op, Operand::Tensor(x), other, "_")
        })
    }
}
