//! Binary arithmetic with NumPy broadcasting: `+ - * / **` between tensors and with Python scalars.
//! Broadcast gradients are summed back to each input's shape by the node (see `Node::conform`).

use crate::autograd::{is_recording, record, record_with_number, Save};
use crate::core::dispatch::{intercept1, Call};
use crate::core::dtype::{DType, Scalar};
use crate::core::error::Result;
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast_ref, map, zip};
use crate::ops::pointwise::comparison::CompareOp;
use crate::ops::Operand;
use crate::ops::{elem, float_dtype, result_type, Arith};
use crate::with_num;

/// The arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b` (true division)
    Div,
    /// `a ** b`
    Pow,
}

impl BinaryOp {
    /// PyTorch's overload of the op between two tensors (`mul.Tensor`), for dispatch.
    fn aten_tensor(self) -> &'static str {
        match self {
            BinaryOp::Add => "add.Tensor",
            BinaryOp::Sub => "sub.Tensor",
            BinaryOp::Mul => "mul.Tensor",
            BinaryOp::Div => "div.Tensor",
            BinaryOp::Pow => "pow.Tensor_Tensor",
        }
    }

    /// PyTorch's overload of the op of a tensor and a number (`mul.Tensor`, `pow.Tensor_Scalar`).
    fn aten_scalar(self) -> &'static str {
        match self {
            BinaryOp::Pow => "pow.Tensor_Scalar",
            op => op.aten_tensor(),
        }
    }

    /// The in-place method name (`add_`), for messages.
    pub fn inplace_name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add_",
            BinaryOp::Sub => "sub_",
            BinaryOp::Mul => "mul_",
            BinaryOp::Div => "div_",
            BinaryOp::Pow => "pow_",
        }
    }
}

/// `lhs op rhs` for any mix of tensor and scalar operands (at least one tensor).
pub fn binary(op: BinaryOp, lhs: Operand<'_>, rhs: Operand<'_>) -> Result<Tensor> {
    match (lhs, rhs) {
        (Operand::Tensor(a), Operand::Tensor(b)) => tensor_tensor(op, a, b),
        (Operand::Tensor(a), Operand::Scalar(s)) => tensor_scalar(op, a, s),
        (Operand::Scalar(s), Operand::Tensor(b)) => scalar_tensor(op, s, b),
        (Operand::Scalar(_), Operand::Scalar(_)) => Err(crate::Error::type_error(
            "a binary tensor op needs at least one tensor operand",
        )),
    }
}

/// `lhs + alpha * rhs` (`Add`) or `lhs - alpha * rhs` (`Sub`): PyTorch's `add(other, alpha=)`,
/// recorded as one node whose formula scales the second gradient.
pub fn add_scaled(op: BinaryOp, lhs: &Tensor, rhs: Operand<'_>, alpha: f64) -> Result<Tensor> {
    let name = match op {
        BinaryOp::Add => "AddBackward0",
        BinaryOp::Sub => "SubBackward0",
        _ => {
            return Err(crate::Error::runtime(
                "alpha is an argument of add and sub only",
            ))
        }
    };
    let rhs = match rhs {
        Operand::Scalar(s) => {
            let scaled = Operand::Scalar(Scalar::Float(s.to_f64() * alpha));
            return binary(op, Operand::Tensor(lhs), scaled);
        }
        Operand::Tensor(t) => t,
    };
    let out = {
        let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
        tensor_tensor(op, lhs, &rhs.mul_scalar(alpha)?)?
    };
    if !is_recording(&[lhs, rhs]) {
        return Ok(out);
    }
    let factor = if op == BinaryOp::Sub { -alpha } else { alpha };
    Ok(record(out, name, &[lhs, rhs], &[], move |ctx| {
        let g = ctx.grad(0);
        let other = match ctx.needs_input_grad(1) {
            true => Some(g.mul_scalar(factor)?),
            false => None,
        };
        Ok(vec![Some(g.clone()), other])
    }))
}

impl Tensor {
    /// `self + other`
    pub fn add(&self, other: &Tensor) -> Result<Tensor> {
        tensor_tensor(BinaryOp::Add, self, other)
    }
    /// `self - other`
    pub fn sub(&self, other: &Tensor) -> Result<Tensor> {
        tensor_tensor(BinaryOp::Sub, self, other)
    }
    /// `self * other`
    pub fn mul(&self, other: &Tensor) -> Result<Tensor> {
        tensor_tensor(BinaryOp::Mul, self, other)
    }
    /// `self / other`
    pub fn div(&self, other: &Tensor) -> Result<Tensor> {
        tensor_tensor(BinaryOp::Div, self, other)
    }
    /// `self ** other`
    pub fn pow(&self, other: &Tensor) -> Result<Tensor> {
        tensor_tensor(BinaryOp::Pow, self, other)
    }
    /// `self + s`
    pub fn add_scalar(&self, s: impl Into<Scalar>) -> Result<Tensor> {
        tensor_scalar(BinaryOp::Add, self, s.into())
    }
    /// `self * s`
    pub fn mul_scalar(&self, s: impl Into<Scalar>) -> Result<Tensor> {
        tensor_scalar(BinaryOp::Mul, self, s.into())
    }
    /// `self / s`
    pub fn div_scalar(&self, s: impl Into<Scalar>) -> Result<Tensor> {
        tensor_scalar(BinaryOp::Div, self, s.into())
    }
    /// `self ** p`
    pub fn pow_scalar(&self, p: impl Into<Scalar>) -> Result<Tensor> {
        tensor_scalar(BinaryOp::Pow, self, p.into())
    }
    /// `s - self`
    pub fn rsub_scalar(&self, s: impl Into<Scalar>) -> Result<Tensor> {
        scalar_tensor(BinaryOp::Sub, s.into(), self)
    }
}

/// The dtype `op` computes in, given the promoted operand dtype.
fn compute_dtype(op: BinaryOp, promoted: DType) -> DType {
    match op {
        BinaryOp::Div => float_dtype(promoted),
        _ if promoted == DType::Bool => DType::Int64,
        _ => promoted,
    }
}

/// Evaluates `$body` with `$f` bound to `op`'s elementwise function on `$T`, as a concrete
/// closure per op (not a function pointer), so the kernel loops inline and vectorize it.
macro_rules! with_op {
    ($op:expr, $T:ty, $f:ident => $body:expr) => {
        match $op {
            BinaryOp::Add => {
                let $f = |x: $T, y: $T| x + y;
                $body
            }
            BinaryOp::Sub => {
                let $f = |x: $T, y: $T| x - y;
                $body
            }
            BinaryOp::Mul => {
                let $f = |x: $T, y: $T| x * y;
                $body
            }
            BinaryOp::Div => {
                let $f = |x: $T, y: $T| x / y;
                $body
            }
            BinaryOp::Pow => {
                let $f = |x: $T, y: $T| x.power(y);
                $body
            }
        }
    };
}

/// PyTorch's refusals before any arithmetic: bool subtraction, integers to negative powers.
fn check_operands(op: BinaryOp, a: DType, b: DType, negative_exponent: bool) -> Result<()> {
    if op == BinaryOp::Sub && a == DType::Bool && b == DType::Bool {
        return Err(crate::Error::not_implemented(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
        ));
    }
    if op == BinaryOp::Sub && (a == DType::Bool || b == DType::Bool) {
        return Err(crate::Error::not_implemented(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ));
    }
    let integral = |d: DType| !d.is_floating_point();
    if op == BinaryOp::Pow && integral(a) && integral(b) && negative_exponent {
        return Err(crate::Error::runtime(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    Ok(())
}

fn tensor_tensor(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let negative = op == BinaryOp::Pow
        && !b.dtype().is_floating_point()
        && b.to_f64_vec().iter().any(|&e| e < 0.0);
    check_operands(op, a.dtype(), b.dtype(), negative)?;
    let dtype = compute_dtype(op, result_type(a, b));
    let call = || Call::new(op.aten_tensor(), vec![a.into(), b.into()]);
    let out = match intercept1(&[a, b], call) {
        Some(dispatched) => dispatched?,
        None => {
            // the result has at most a.numel() * b.numel() elements: only a large product can
            // be more than the system gives (checked, as PyTorch's allocator refuses, not aborted)
            if a.numel().saturating_mul(b.numel()) >= crate::core::storage::CHECKED_ELEMENTS {
                let out_shape = crate::core::layout::broadcast_shapes(a.shape(), b.shape())?;
                crate::core::storage::check_allocation(&out_shape, dtype)?;
            }
            let (ca, cb) = (cast_ref(a, dtype), cast_ref(b, dtype));
            with_num!(dtype, T => with_op!(op, T, f => zip(&ca, &cb, f))?)
        }
    };
    if !is_recording(&[a, b]) {
        return Ok(out);
    }
    let (na, nb) = (a.requires_grad(), b.requires_grad());
    Ok(match op {
        BinaryOp::Add => record(out, "AddBackward0", &[a, b], &[], |ctx| {
            let g = ctx.grad(0);
            Ok(vec![Some(g.clone()), Some(g.clone())])
        }),
        BinaryOp::Sub => record(out, "SubBackward0", &[a, b], &[], |ctx| {
            let g = ctx.grad(0);
            Ok(vec![
                Some(g.clone()),
                if ctx.needs_input_grad(1) {
                    Some(g.neg()?)
                } else {
                    None
                },
            ])
        }),
        BinaryOp::Mul => {
            let saves = [Save::when(a, nb), Save::when(b, na)];
            record(out, "MulBackward0", &[a, b], &saves, |ctx| {
                let gb = if ctx.needs_input_grad(1) {
                    Some(ctx.grad(0).mul(ctx.saved(0))?)
                } else {
                    None
                };
                // last use of the incoming gradient: a's may be written over it
                let ga = if ctx.needs_input_grad(0) {
                    let b = ctx.saved(1);
                    Some(ctx.grad0().mul_last_use(b)?)
                } else {
                    None
                };
                Ok(vec![ga, gb])
            })
        }
        BinaryOp::Div => {
            // d(a/b)/da = 1/b ; d(a/b)/db = -(a/b)/b (PyTorch's order of operations, which
            // decides the infinities of second derivatives at b = 0)
            let saves = [Save::when(a, nb), Save::Tensor(b)];
            record(out, "DivBackward0", &[a, b], &saves, |ctx| {
                let (g, b) = (ctx.grad(0), ctx.saved(1));
                let ga = if ctx.needs_input_grad(0) {
                    Some(g.div(b)?)
                } else {
                    None
                };
                let gb = if ctx.needs_input_grad(1) {
                    Some(g.neg()?.mul(&ctx.saved(0).div(b)?.div(b)?)?)
                } else {
                    None
                };
                Ok(vec![ga, gb])
            })
        }
        BinaryOp::Pow => {
            // d(a^b)/da = b·a^(b-1) ; d(a^b)/db = a^b·ln(a)  (0 where a = 0 and b >= 0, as PyTorch)
            record(
                out,
                "PowBackward1",
                &[a, b],
                &[Save::Tensor(a), Save::Tensor(b), Save::Output],
                |ctx| {
                    let (g, a, b) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                    let zero = Tensor::scalar_of(0.0, g.dtype());
                    // 0 where the exponent is 0, whatever the incoming gradient (0^-1 or a NaN
                    // gradient would make it NaN), as PyTorch's where around the product
                    let ga = if ctx.needs_input_grad(0) {
                        let local = b.mul(&a.pow(&b.add_scalar(-1.0)?)?)?;
                        let exponent_zero =
                            b.compare(CompareOp::Eq, Operand::Scalar(Scalar::Float(0.0)))?;
                        Some(Tensor::where_(&exponent_zero, &zero, &g.mul(&local)?)?)
                    } else {
                        None
                    };
                    let gb = if ctx.needs_input_grad(1) {
                        let local = ctx.saved(2).mul(&a.log()?)?;
                        Some(g.mul(&Tensor::where_(&zero_base(a, b)?, &zero, &local)?)?)
                    } else {
                        None
                    };
                    Ok(vec![ga, gb])
                },
            )
        }
    })
}

/// True where `a == 0 && b >= 0` (there `a^b·ln a` is taken as 0, as PyTorch); a constant.
fn zero_base(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let dtype = float_dtype(result_type(a, b));
    let (ca, cb) = (cast_ref(a, dtype), cast_ref(b, dtype));
    crate::with_float!(dtype, T => zip(&ca, &cb, |x: T, y: T| x == 0.0 && y >= 0.0))
}

/// Elementwise `x op s` (or `s op x` when `reversed`) computed in `dtype`; no autograd.
fn scalar_kernel(op: BinaryOp, x: &Tensor, s: f64, dtype: DType, reversed: bool) -> Result<Tensor> {
    if x.numel() >= crate::core::storage::CHECKED_ELEMENTS {
        crate::core::storage::check_allocation(x.shape(), dtype)?;
    }
    let x = cast_ref(x, dtype);
    Ok(with_num!(dtype, T => {
        let s: T = elem(s);
        if reversed {
            with_op!(op, T, f => map(&x, move |v: T| f(s, v)))
        } else if op == BinaryOp::Pow {
            pow_by_scalar(&x, s)
        } else {
            with_op!(op, T, f => map(&x, move |v: T| f(v, s)))
        }
    }))
}

/// `x ** p` with the exact special cases PyTorch's kernel uses (x*x for 2, sqrt for 0.5,
/// `1/sqrt` for -0.5, ...), which differ from `powf` at -inf and -0.0 (`sqrt(-inf)` is NaN,
/// `powf(-inf, 0.5)` is inf).
fn pow_by_scalar<T: Arith>(x: &Tensor, p: T) -> Tensor {
    let float = T::DTYPE.is_floating_point();
    match p.to_f64() {
        1.0 => map(x, |v: T| v),
        2.0 => map(x, |v: T| v * v),
        3.0 => map(x, |v: T| v * v * v),
        0.5 => map(x, |v: T| elem::<T>(v.to_f64().sqrt())),
        // each step rounded to T, as PyTorch's `1 / sqrt(x)` in the element type
        -0.5 if float => map(x, |v: T| {
            elem::<T>(1.0 / elem::<T>(v.to_f64().sqrt()).to_f64())
        }),
        -1.0 if float => map(x, |v: T| elem::<T>(1.0 / v.to_f64())),
        -2.0 if float => map(x, |v: T| elem::<T>(1.0 / (v * v).to_f64())),
        _ => map(x, move |v: T| v.power(p)),
    }
}

/// The dtype a Python number stands for in PyTorch's operand checks.
fn scalar_dtype(s: Scalar) -> DType {
    match s {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::Int64,
        Scalar::Float(_) => DType::Float64,
    }
}

fn tensor_scalar(op: BinaryOp, x: &Tensor, s: Scalar) -> Result<Tensor> {
    check_operands(op, x.dtype(), scalar_dtype(s), s.to_f64() < 0.0)?;
    let dtype = compute_dtype(op, s.result_type_with(x.dtype()));
    let v = s.to_f64();
    let out = match intercept1(&[x], || {
        Call::new(op.aten_scalar(), vec![x.into(), s.into()])
    }) {
        Some(dispatched) => dispatched?,
        None => scalar_kernel(op, x, v, dtype, false)?,
    };
    if !is_recording(&[x]) {
        return Ok(out);
    }
    Ok(match op {
        BinaryOp::Add => record_with_number(out, "AddBackward0", x, &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).clone()), None])
        }),
        BinaryOp::Sub => record_with_number(out, "SubBackward0", x, &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).clone()), None])
        }),
        // PyTorch saves the wrapped number `other` (MulBackward0/DivBackward0 refuse a second
        // backward once it is freed)
        BinaryOp::Mul => record_with_number(out, "MulBackward0", x, &[Save::Marker], move |ctx| {
            Ok(vec![Some(ctx.grad(0).mul_scalar(v)?), None])
        }),
        BinaryOp::Div => record_with_number(out, "DivBackward0", x, &[Save::Marker], move |ctx| {
            Ok(vec![Some(ctx.grad(0).div_scalar(v)?), None])
        }),
        BinaryOp::Pow => record(out, "PowBackward0", &[x], &[Save::Tensor(x)], move |ctx| {
            // d(x^p)/dx = p·x^(p-1)
            if v == 0.0 {
                return Ok(vec![Some(ctx.grad(0).zeros_like())]);
            }
            let local = ctx.saved(0).pow_scalar(v - 1.0)?.mul_scalar(v)?;
            Ok(vec![Some(ctx.grad(0).mul(&local)?)])
        }),
    })
}

fn scalar_tensor(op: BinaryOp, s: Scalar, x: &Tensor) -> Result<Tensor> {
    let v = s.to_f64();
    match op {
        BinaryOp::Add | BinaryOp::Mul => tensor_scalar(op, x, s),
        // s / x is reciprocal(x) * s, as in PyTorch
        BinaryOp::Div => x.reciprocal()?.mul_scalar(s),
        BinaryOp::Sub => {
            check_operands(op, scalar_dtype(s), x.dtype(), false)?;
            let dtype = compute_dtype(op, s.result_type_with(x.dtype()));
            let out = match intercept1(&[x], || Call::new("rsub.Scalar", vec![x.into(), s.into()]))
            {
                Some(dispatched) => dispatched?,
                None => scalar_kernel(op, x, v, dtype, true)?,
            };
            if !is_recording(&[x]) {
                return Ok(out);
            }
            Ok(record(out, "RsubBackward1", &[x], &[], |ctx| {
                Ok(vec![Some(ctx.grad(0).neg()?)])
            }))
        }
        BinaryOp::Pow => {
            let dtype = compute_dtype(op, s.result_type_with(x.dtype()));
            let out = match intercept1(&[x], || Call::new("pow.Scalar", vec![s.into(), x.into()])) {
                Some(dispatched) => dispatched?,
                None => scalar_kernel(op, x, v, dtype, true)?,
            };
            if !is_recording(&[x]) {
                return Ok(out);
            }
            // d(s^x)/dx = s^x·ln(s)
            Ok(record(
                out,
                "PowBackward2",
                &[x],
                &[Save::Output, Save::Tensor(x)],
                move |ctx| {
                    let local = ctx.saved(0).mul_scalar(v.ln())?;
                    if v != 0.0 {
                        return Ok(vec![Some(ctx.grad(0).mul(&local)?)]);
                    }
                    // 0^x: the derivative is taken as 0 where x >= 0 (out · ln 0 is NaN there)
                    let x = ctx.saved(1);
                    let zero = Tensor::scalar_of(0.0, local.dtype());
                    let nonneg = x.compare(CompareOp::Ge, Operand::Scalar(Scalar::Float(0.0)))?;
                    Ok(vec![Some(
                        ctx.grad(0).mul(&Tensor::where_(&nonneg, &zero, &local)?)?,
                    )])
                },
            ))
        }
    }
}
