//! Comparisons (`<`, `==`, ...), logic and value tests: bool tensors, never differentiable; and
//! the elementwise `maximum`/`minimum` (PyTorch's comparison ops), which are.

use crate::ops::result_type;
use crate::ops::Operand;

use crate::autograd::{is_recording, record, Save};
use crate::core::dispatch::{intercept1, Call};
use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast, map, zip};
use crate::with_any;

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

fn test<T: PartialOrd>(op: CompareOp) -> fn(T, T) -> bool {
    match op {
        CompareOp::Lt => |a, b| a < b,
        CompareOp::Le => |a, b| a <= b,
        CompareOp::Gt => |a, b| a > b,
        CompareOp::Ge => |a, b| a >= b,
        CompareOp::Eq => |a, b| a == b,
        CompareOp::Ne => |a, b| a != b,
    }
}

impl Tensor {
    /// Elementwise comparison with a tensor (broadcast) or a scalar; a bool tensor.
    pub fn compare(&self, op: CompareOp, other: Operand<'_>) -> Result<Tensor> {
        // PyTorch's overloads with a tensor and with a number, in `CompareOp`'s order
        const NAMES: [[&str; 2]; 6] = [
            ["lt.Tensor", "lt.Scalar"],
            ["le.Tensor", "le.Scalar"],
            ["gt.Tensor", "gt.Scalar"],
            ["ge.Tensor", "ge.Scalar"],
            ["eq.Tensor", "eq.Scalar"],
            ["ne.Tensor", "ne.Scalar"],
        ];
        let [tensor_op, scalar_op] = NAMES[op as usize];
        let mut inputs = vec![self];
        inputs.extend(other.tensors());
        let call = || match other {
            Operand::Tensor(o) => Call::new(tensor_op, vec![self.into(), o.into()]),
            Operand::Scalar(s) => Call::new(scalar_op, vec![self.into(), s.into()]),
        };
        if let Some(dispatched) = intercept1(&inputs, call) {
            return dispatched;
        }
        match other {
            Operand::Tensor(o) => {
                let dtype = result_type(self, o);
                let (a, b) = (cast(self, dtype), cast(o, dtype));
                Ok(with_any!(dtype, T => zip(&a, &b, test::<T>(op))?))
            }
            Operand::Scalar(s) => {
                let dtype = s.result_type_with(self.dtype());
                let a = cast(self, dtype);
                let v = s.to_f64();
                Ok(with_any!(dtype, T => {
                    let f = test::<T>(op);
                    let v = <T as crate::core::dtype::Element>::from_f64(v);
                    map(&a, move |x: T| f(x, v))
                }))
            }
        }
    }
}

/// A logical operator on truth values (non-zero is true).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicalOp {
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
}

impl Tensor {
    /// The truth of each element (non-zero), as a bool tensor.
    pub fn truth(&self) -> Result<Tensor> {
        self.to_dtype(crate::core::dtype::DType::Bool)
    }

    /// Elementwise logical `op` of the truth values of two tensors (broadcast).
    pub fn logical(&self, op: LogicalOp, other: &Tensor) -> Result<Tensor> {
        let (a, b) = (self.truth()?, other.truth()?);
        match op {
            LogicalOp::And => zip(&a, &b, |x: bool, y: bool| x && y),
            LogicalOp::Or => zip(&a, &b, |x: bool, y: bool| x || y),
            LogicalOp::Xor => zip(&a, &b, |x: bool, y: bool| x != y),
        }
    }

    /// `&`, `|`, `^`: logical on bool tensors, bitwise on integers; floats are refused as in
    /// PyTorch (`"bitwise_and_cpu" not implemented for 'Float'`).
    pub fn bitwise(&self, op: LogicalOp, other: &Tensor) -> Result<Tensor> {
        let name = match op {
            LogicalOp::And => "bitwise_and_cpu",
            LogicalOp::Or => "bitwise_or_cpu",
            LogicalOp::Xor => "bitwise_xor_cpu",
        };
        for t in [self, other] {
            if t.dtype().is_floating_point() {
                return Err(crate::Error::not_implemented(format!(
                    "\"{name}\" not implemented for '{}'",
                    t.dtype().scalar_name()
                )));
            }
        }
        if self.dtype() == DType::Bool && other.dtype() == DType::Bool {
            return self.logical(op, other);
        }
        // computed in int64 and wrapped back: two's complement bits agree at every width
        let (a, b) = (cast(self, DType::Int64), cast(other, DType::Int64));
        let wide = match op {
            LogicalOp::And => zip(&a, &b, |x: i64, y: i64| x & y),
            LogicalOp::Or => zip(&a, &b, |x: i64, y: i64| x | y),
            LogicalOp::Xor => zip(&a, &b, |x: i64, y: i64| x ^ y),
        }?;
        Ok(cast(&wide, crate::ops::result_type(self, other)))
    }

    /// `x << s` (`left`) or `x >> s` on integer tensors (bool counts as an integer), as PyTorch's:
    /// bits shifted out are lost, a right shift keeps the sign, and a shift by the width or
    /// more gives 0 (or -1 for a negative value shifted right).
    pub fn shift(&self, other: &Tensor, left: bool) -> Result<Tensor> {
        let name = if left { "lshift_cpu" } else { "rshift_cpu" };
        for t in [self, other] {
            if t.dtype().is_floating_point() {
                return Err(crate::Error::not_implemented(format!(
                    "\"{name}\" not implemented for '{}'",
                    t.dtype().scalar_name()
                )));
            }
        }
        let dtype = crate::ops::result_type(self, other);
        let bits = 8 * dtype.size() as i64;
        let (a, b) = (cast(self, DType::Int64), cast(other, DType::Int64));
        let wide = if left {
            zip(&a, &b, move |x: i64, s: i64| {
                if (0..bits).contains(&s) {
                    x.wrapping_shl(s as u32)
                } else {
                    0
                }
            })
        } else {
            zip(&a, &b, move |x: i64, s: i64| x >> s.clamp(0, 63))
        }?;
        Ok(cast(&wide, dtype))
    }

    /// `~x`: logical not on bool tensors, the bitwise complement on integers; floats are
    /// refused as in PyTorch.
    pub fn bitwise_not(&self) -> Result<Tensor> {
        match self.dtype() {
            DType::Bool => self.logical_not(),
            d if d.is_integer() => Ok(cast(&map(&cast(self, DType::Int64), |x: i64| !x), d)),
            d => Err(crate::Error::not_implemented(format!(
                "\"bitwise_not_cpu\" not implemented for '{}'",
                d.scalar_name()
            ))),
        }
    }

    /// Elementwise logical not (true where the element is zero).
    pub fn logical_not(&self) -> Result<Tensor> {
        Ok(map(&self.truth()?, |x: bool| !x))
    }

    /// Whether any element is true (non-zero), as a 0-d bool tensor.
    pub fn any(&self) -> Result<Tensor> {
        if let Some(dispatched) =
            intercept1(&[self], || Call::new("any.default", vec![self.into()]))
        {
            return dispatched;
        }
        Ok(Tensor::scalar(
            self.truth()?.to_vec::<bool>()?.into_iter().any(|b| b),
        ))
    }

    /// Whether any element along `dim` is true (non-zero): a bool tensor.
    pub fn any_dim(&self, dim: isize, keepdim: bool) -> Result<Tensor> {
        let count = cast(&self.truth()?, DType::Int64).sum_dims(&[dim], keepdim)?;
        count.compare(CompareOp::Gt, Operand::Scalar(crate::Scalar::Int(0)))
    }

    /// Whether every element along `dim` is true (non-zero): a bool tensor.
    pub fn all_dim(&self, dim: isize, keepdim: bool) -> Result<Tensor> {
        let misses = cast(&self.logical_not()?, DType::Int64).sum_dims(&[dim], keepdim)?;
        misses.compare(CompareOp::Eq, Operand::Scalar(crate::Scalar::Int(0)))
    }

    /// Whether every element is true (non-zero), as a 0-d bool tensor.
    pub fn all(&self) -> Result<Tensor> {
        if let Some(dispatched) =
            intercept1(&[self], || Call::new("all.default", vec![self.into()]))
        {
            return dispatched;
        }
        Ok(Tensor::scalar(
            self.truth()?.to_vec::<bool>()?.into_iter().all(|b| b),
        ))
    }
}

impl Tensor {
    /// Elementwise test for NaN (a bool tensor).
    pub fn isnan(&self) -> Result<Tensor> {
        self.compare(CompareOp::Ne, Operand::Tensor(self))
    }

    /// Elementwise test for ±inf (a bool tensor).
    pub fn isinf(&self) -> Result<Tensor> {
        Ok(
            crate::with_any!(self.dtype(), T => crate::cpu::kernels::map(self, |v: T| v.to_f64().is_infinite())),
        )
    }

    /// Elementwise test of the sign bit (a bool tensor): true for negative numbers, `-0.0`
    /// and a NaN whose sign bit is set, as PyTorch's `signbit`.
    pub fn signbit(&self) -> Result<Tensor> {
        Ok(crate::with_any!(self.dtype(), T => {
            crate::cpu::kernels::map(self, |v: T| v.to_f64().is_sign_negative())
        }))
    }

    /// PyTorch's `isin`: whether each element is among `test`'s (compared in their promoted
    /// dtype; a NaN is never among them), or, with `invert`, whether it is not. A bool tensor
    /// of this shape, never differentiable.
    pub fn isin(&self, test: &Tensor, invert: bool) -> Result<Tensor> {
        let dtype = crate::ops::result_type(self, test);
        let x = crate::cpu::kernels::cast(&self.detach(), dtype);
        let t = crate::cpu::kernels::cast(&test.detach(), dtype);
        Ok(crate::with_any!(dtype, T => {
            let mut pool: Vec<T> = t.to_vec()?;
            pool.retain(|v| !v.to_f64().is_nan());
            pool.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
            crate::cpu::kernels::map(&x, |v: T| {
                let found = !v.to_f64().is_nan()
                    && pool
                        .binary_search_by(|p| p.partial_cmp(&v).unwrap_or(std::cmp::Ordering::Less))
                        .is_ok();
                found != invert
            })
        }))
    }

    /// Elementwise test for finite values (a bool tensor).
    pub fn isfinite(&self) -> Result<Tensor> {
        Ok(
            crate::with_any!(self.dtype(), T => crate::cpu::kernels::map(self, |v: T| v.to_f64().is_finite())),
        )
    }

    /// PyTorch's `isclose`: `a == b`, or `|a - b| <= atol + |rtol * b|` where that error is
    /// finite (in the operands' dtype; integers compare in float32), NaNs equal when
    /// `equal_nan`. Both operands must have the same dtype; the result is a bool tensor.
    pub fn isclose(&self, other: &Tensor, rtol: f64, atol: f64, equal_nan: bool) -> Result<Tensor> {
        if self.dtype() != other.dtype() {
            return Err(crate::Error::runtime(format!(
                "{} did not match {}",
                self.dtype().scalar_name(),
                other.dtype().scalar_name()
            )));
        }
        for (name, v) in [("rtol", rtol), ("atol", atol)] {
            if v.is_nan() || v < 0.0 {
                return Err(crate::Error::runtime(format!(
                    "{name} must be greater than or equal to zero, but got {v}"
                )));
            }
        }
        let call = || {
            let args = vec![
                self.into(),
                other.into(),
                rtol.into(),
                atol.into(),
                equal_nan.into(),
            ];
            Call::new("isclose.default", args)
        };
        if let Some(dispatched) = intercept1(&[self, other], call) {
            return dispatched;
        }
        let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
        let (a, b) = (self.detach(), other.detach());
        let mut close = a.compare(CompareOp::Eq, Operand::Tensor(&b))?;
        if equal_nan && a.dtype().is_floating_point() {
            let both_nan = a.isnan()?.logical(LogicalOp::And, &b.isnan()?)?;
            close = close.logical(LogicalOp::Or, &both_nan)?;
        }
        if rtol == 0.0 && atol == 0.0 {
            return Ok(close);
        }
        let (a, b) = match a.dtype().is_floating_point() {
            true => (a, b),
            false => (cast(&a, DType::Float32), cast(&b, DType::Float32)),
        };
        let allowed = b.mul_scalar(rtol)?.abs()?.add_scalar(atol)?;
        let actual = a.sub(&b)?.abs()?;
        let within = actual.compare(CompareOp::Le, Operand::Tensor(&allowed))?;
        let finite_close = actual.isfinite()?.logical(LogicalOp::And, &within)?;
        close.logical(LogicalOp::Or, &finite_close)
    }

    /// PyTorch's `allclose`: whether every element is [`Tensor::isclose`].
    pub fn allclose(&self, other: &Tensor, rtol: f64, atol: f64, equal_nan: bool) -> Result<bool> {
        Ok(self
            .isclose(other, rtol, atol, equal_nan)?
            .all()?
            .item()?
            .to_f64()
            != 0.0)
    }

    /// PyTorch's `equal`: the same shape and equal elements (compared after type promotion;
    /// NaN is not equal to NaN).
    pub fn equal(&self, other: &Tensor) -> Result<bool> {
        if self.shape() != other.shape() {
            return Ok(false);
        }
        let _untracked = crate::core::grad_mode::GradModeGuard::new(false);
        let same = self
            .detach()
            .compare(CompareOp::Eq, Operand::Tensor(&other.detach()))?;
        Ok(same.all()?.item()?.to_f64() != 0.0)
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
            // each side: 0 where it loses, half at a tie, else all (selects, as PyTorch: NaN
            // in `g` stays on the side that won, and a NaN input passes it to both)
            // (compared, not subtracted: `inf - inf` is no tie)
            let (a, b) = (a.detach(), b.detach());
            let tie = a.compare(CompareOp::Eq, Operand::Tensor(&b))?;
            let zero = Tensor::scalar_of(0.0, g.dtype());
            let tied = Tensor::where_(&tie, &g.mul_scalar(0.5)?, g)?;
            let side = |loser: &Tensor, winner: &Tensor| -> Result<Tensor> {
                let op = if max { CompareOp::Lt } else { CompareOp::Gt };
                let lost = loser.compare(op, Operand::Tensor(winner))?;
                Tensor::where_(&lost, &zero, &tied)
            };
            let ga = if ctx.needs_input_grad(0) {
                Some(side(&a, &b)?)
            } else {
                None
            };
            let gb = if ctx.needs_input_grad(1) {
                Some(side(&b, &a)?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        },
    ))
}
