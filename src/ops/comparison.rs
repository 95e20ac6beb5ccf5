//! Comparisons (`<`, `==`, ...): bool tensors, never differentiable.

use super::arithmetic::Operand;
use super::result_type;

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

    /// Elementwise logical not (true where the element is zero).
    pub fn logical_not(&self) -> Result<Tensor> {
        Ok(map(&self.truth()?, |x: bool| !x))
    }

    /// Whether any element is true (non-zero), as a 0-d bool tensor.
    pub fn any(&self) -> Result<Tensor> {
        Ok(Tensor::scalar(
            self.truth()?.to_vec::<bool>()?.into_iter().any(|b| b),
        ))
    }

    /// Whether every element is true (non-zero), as a 0-d bool tensor.
    pub fn all(&self) -> Result<Tensor> {
        Ok(Tensor::scalar(
            self.truth()?.to_vec::<bool>()?.into_iter().all(|b| b),
        ))
    }
}
