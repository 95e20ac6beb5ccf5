//! Rust's arithmetic operators on tensors, as candle has them: `+ - * /` between tensors (owned
//! or borrowed, broadcasting as [`Tensor::add`] and the other methods do), with `f64` and `i64`
//! numbers on either side, and unary `-`.
//!
//! An op can fail (shapes that do not broadcast, a bool tensor negated, ...), so every operator
//! returns [`Result<Tensor>`](crate::Result) instead of panicking, and the operators also take
//! a `Result<Tensor>` on either side of a tensor: a chain needs one `?` at its end,
//! `(&a * &b + &c)?`, and an error anywhere in it is the chain's error.
//!
//! Three mixes are missing, as Rust's orphan rule forbids them (neither side is a type of this
//! crate): `Result<Tensor>` with `Result<Tensor>`, with a number, and a number with a
//! `Result<Tensor>`. Put a `?` after one side there: `((&a * &b)? + 1.0)?`.
//!
//! Numbers are `f64` and `i64`, as Python's; they take part in type promotion as Python numbers
//! do (`&x * 0.5` with a float32 `x` is float32; with an int64 `x`, float32, the default
//! float). With a second float type an unsuffixed literal would not infer (`2.0 * &x`): write
//! an `f32` value `v` as `f64::from(v)`.
//!
//! One trap, shared with candle: with `std::ops::Mul` imported, `a.mul(&b)` on an owned `a`
//! calls the operator, which moves `a` (the result is the same); `(&a).mul(&b)`, or not
//! importing the trait, calls the method.
//!
//! ```
//! use ferrograd::Tensor;
//! # fn main() -> ferrograd::Result<()> {
//! let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
//! let b = Tensor::from_vec(vec![10.0f32, 20.0], &[2])?;
//! let y = (&x * &b + &x)?; // b broadcasts over the rows
//! let z = ((2.0 * &y)? - 1.0)?;
//! let w = (-&z)?;
//! assert_eq!(w.to_vec::<f32>()?, vec![-21.0, -83.0, -65.0, -167.0]);
//! assert!((&x + &Tensor::zeros(&[3], ferrograd::DType::Float32)).is_err());
//! # Ok(())
//! # }
//! ```

use crate::core::dtype::Scalar;
use crate::core::error::Result;
use crate::core::tensor::Tensor;
use crate::ops::pointwise::arithmetic::{binary, BinaryOp};
use crate::ops::Operand;

/// `lhs op rhs` for two tensors.
fn tensors(op: BinaryOp, lhs: &Tensor, rhs: &Tensor) -> Result<Tensor> {
    binary(op, Operand::Tensor(lhs), Operand::Tensor(rhs))
}

/// Implements one operator between tensors, borrowed or owned, and `Result<Tensor>`s.
macro_rules! tensor_operator {
    ($trait:ident, $method:ident, $op:expr) => {
        impl std::ops::$trait<&Tensor> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                tensors($op, self, rhs)
            }
        }
        impl std::ops::$trait<Tensor> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                tensors($op, self, &rhs)
            }
        }
        impl std::ops::$trait<&Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                tensors($op, &self, rhs)
            }
        }
        impl std::ops::$trait<Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                tensors($op, &self, &rhs)
            }
        }
        impl std::ops::$trait<Result<Tensor>> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Result<Tensor>) -> Result<Tensor> {
                tensors($op, self, &rhs?)
            }
        }
        impl std::ops::$trait<Result<Tensor>> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Result<Tensor>) -> Result<Tensor> {
                tensors($op, &self, &rhs?)
            }
        }
        impl std::ops::$trait<&Tensor> for Result<Tensor> {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                tensors($op, &self?, rhs)
            }
        }
        impl std::ops::$trait<Tensor> for Result<Tensor> {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                tensors($op, &self?, &rhs)
            }
        }
    };
}

tensor_operator!(Add, add, BinaryOp::Add);
tensor_operator!(Sub, sub, BinaryOp::Sub);
tensor_operator!(Mul, mul, BinaryOp::Mul);
tensor_operator!(Div, div, BinaryOp::Div);

/// Implements the four operators with a number of type `$num` on the right of a tensor, and
/// (with `both`) on the left too. The number takes part in type promotion as a Python number
/// does (a float number with an `f32` tensor gives an `f32` tensor; with an `i64` tensor, a
/// float tensor).
macro_rules! scalar_operators {
    ($num:ty => $scalar:expr $(, $both:ident)?) => {
        scalar_operators!(@one $($both)? [$num] $scalar, Add, add, BinaryOp::Add);
        scalar_operators!(@one $($both)? [$num] $scalar, Sub, sub, BinaryOp::Sub);
        scalar_operators!(@one $($both)? [$num] $scalar, Mul, mul, BinaryOp::Mul);
        scalar_operators!(@one $($both)? [$num] $scalar, Div, div, BinaryOp::Div);
    };
    (@one both [$num:ty] $scalar:expr, $trait:ident, $method:ident, $op:expr) => {
        scalar_operators!(@one [$num] $scalar, $trait, $method, $op);
        impl std::ops::$trait<&Tensor> for $num {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                let lhs: Scalar = $scalar(self);
                binary($op, Operand::Scalar(lhs), Operand::Tensor(rhs))
            }
        }
        impl std::ops::$trait<Tensor> for $num {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                std::ops::$trait::$method(self, &rhs)
            }
        }
    };
    (@one [$num:ty] $scalar:expr, $trait:ident, $method:ident, $op:expr) => {
        impl std::ops::$trait<$num> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: $num) -> Result<Tensor> {
                let rhs: Scalar = $scalar(rhs);
                binary($op, Operand::Tensor(self), Operand::Scalar(rhs))
            }
        }
        impl std::ops::$trait<$num> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: $num) -> Result<Tensor> {
                std::ops::$trait::$method(&self, rhs)
            }
        }
    };
}

// Numbers are `f64` and `i64` only: with a second float (or integer) type, an unsuffixed
// literal would not infer in `2.0 * &x` or `(&x * 2.0 + &y)`.
scalar_operators!(f64 => Scalar::Float, both);
scalar_operators!(i64 => Scalar::Int, both);

impl std::ops::Neg for &Tensor {
    type Output = Result<Tensor>;
    /// `-self` (PyTorch's `neg`; a bool tensor is an error, as there).
    fn neg(self) -> Result<Tensor> {
        Tensor::neg(self)
    }
}

impl std::ops::Neg for Tensor {
    type Output = Result<Tensor>;
    /// `-self`
    fn neg(self) -> Result<Tensor> {
        Tensor::neg(&self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f32], shape: &[usize]) -> Tensor {
        Tensor::from_vec(v.to_vec(), shape).unwrap()
    }

    #[test]
    fn operators_broadcast_and_chain() {
        let a = t(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
        let b = t(&[10.0, 20.0], &[2]);
        let c = (&a * &b + &a).unwrap();
        assert_eq!(c.to_vec::<f32>().unwrap(), vec![11.0, 42.0, 33.0, 84.0]);
        let d = ((2.0 * &a).unwrap() - 1.0).unwrap();
        assert_eq!(d.to_vec::<f32>().unwrap(), vec![1.0, 3.0, 5.0, 7.0]);
        let f = ((&a * 2).unwrap() + &a / 2).unwrap(); // integer numbers keep a float tensor's dtype
        assert_eq!(f.to_vec::<f32>().unwrap(), vec![2.5, 5.0, 7.5, 10.0]);
        let owned = (a.clone() - b.clone()).unwrap();
        assert_eq!(
            owned.to_vec::<f32>().unwrap(),
            vec![-9.0, -18.0, -7.0, -16.0]
        );
        let e = (1.0 / (-&a).unwrap()).unwrap();
        assert_eq!(
            e.to_vec::<f32>().unwrap(),
            vec![-1.0, -0.5, -1.0 / 3.0, -0.25]
        );
        assert_eq!(e.dtype(), crate::DType::Float32);
    }

    #[test]
    fn a_shape_error_is_the_chains_error() {
        let a = t(&[1.0, 2.0, 3.0], &[3]);
        let b = t(&[1.0, 2.0], &[2]);
        let err = (&a + &b + &a).unwrap_err();
        assert!(err.to_string().contains("must match"), "{err}");
    }
}
