//! Bindings generated from the pointwise derivative tables (`crate::unary_table!`,
//! `crate::binary_table!`): each row's method and its in-place twin. Adding a row there adds
//! the Python method here; nothing else to write.

use super::convert::{operand_arg, OwnedOperand};
use super::errors::run;
use super::out::with_out;
use super::tensor::{wrap, PyTensor, TResult};
use crate::ops::pointwise::binary::operands;
use crate::ops::Operand;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// The methods of the one-tensor table's rows.
macro_rules! bind_unary_ops {
    ($( $(#[$doc:meta])* $name:ident, $inplace:ident, $node:literal, $domain:ident |$v:ident| $fwd:expr,
        |$g:ident $(, $s:ident)?| $grad:expr; )*) => {
        #[pymethods]
        impl PyTensor {
            $(
                $(#[$doc])*
                pub(crate) fn $name(&self) -> TResult {
                    wrap(run(|| self.inner.$name()))
                }

                #[doc = concat!("In-place `", stringify!($name), "`.")]
                fn $inplace(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
                    run(|| slf.get().inner.$inplace())?;
                    Ok(slf)
                }
            )*
        }

        /// The `torch.xxx` functions of the one-tensor table's rows, which take `out=` (the
        /// methods do not: a keyword argument costs every call of a method).
        pub(crate) mod unary_functions {
            use super::*;
            $(
                $(#[$doc])*
                #[pyfunction]
                #[pyo3(signature = (input, *, out=None))]
                pub(crate) fn $name(
                    py: Python<'_>,
                    input: &Bound<'_, PyAny>,
                    out: Option<&Bound<'_, PyTensor>>,
                ) -> TResult {
                    let what = concat!(stringify!($name), "(): argument 'input' (position 1)");
                    let x = super::super::convert::tensor_arg(input, what)?;
                    let compute = || super::super::tensor::to_object(py, run(|| x.$name())?);
                    with_out(py, stringify!($name), out, &[input], compute)
                }
            )*

            /// Adds the functions to the module.
            pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
                $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
                Ok(())
            }
        }
    };
}

/// The methods of the two-tensor table's rows, and their `torch.xxx` functions (which take a
/// Python number on either side where the row allows it).
macro_rules! bind_binary_ops {
    ($( $(#[$doc:meta])* $name:ident, $inplace:ident, $node:literal $(numbers($self_node:literal, $other_node:literal))?,
        |$a:ident, $b:ident| $fwd:expr, |$g:ident, $sa:ident, $sb:ident, $so:ident| ($da:expr, $db:expr) $($own:ident)?; )*) => {
        #[pymethods]
        impl PyTensor {
            $(
                $(#[$doc])*
                #[pyo3(signature = (other, *, out=None))]
                fn $name(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, out: Option<&Bound<'_, PyTensor>>) -> TResult {
                    let o = operand(other, stringify!($name))?;
                    let compute = || wrap(run(|| operands::$name(Operand::Tensor(&slf.get().inner), o.as_operand())));
                    with_out(slf.py(), stringify!($name), out, &[slf.as_any(), other], compute)
                }

                #[doc = concat!("In-place `", stringify!($name), "`.")]
                fn $inplace<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
                    let other = operand(other, stringify!($inplace))?;
                    run(|| operands::$inplace(&slf.get().inner, other.as_operand()))?;
                    Ok(slf)
                }
            )*
        }

        /// The `torch.xxx` functions of the two-tensor table's rows.
        pub(crate) mod functions {
            use super::*;
            $(
                $(#[$doc])*
                #[pyfunction]
                #[pyo3(signature = (input, other, *, out=None))]
                pub(crate) fn $name(
                    py: Python<'_>,
                    input: &Bound<'_, PyAny>,
                    other: &Bound<'_, PyAny>,
                    out: Option<&Bound<'_, PyTensor>>,
                ) -> TResult {
                    let (a, b) = (operand(input, stringify!($name))?, operand(other, stringify!($name))?);
                    let compute = || {
                        let result = run(|| operands::$name(a.as_operand(), b.as_operand()))?;
                        super::super::tensor::to_object(py, result)
                    };
                    with_out(py, stringify!($name), out, &[input, other], compute)
                }
            )*

            /// Adds the functions to the module.
            pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
                $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
                Ok(())
            }
        }
    };
}

/// A tensor or a Python number, for the ops of the two-tensor table.
fn operand(obj: &Bound<'_, PyAny>, op: &str) -> PyResult<OwnedOperand> {
    operand_arg(obj).ok_or_else(|| {
        let got = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        PyTypeError::new_err(format!("{op}(): expected a Tensor or a number, got {got}"))
    })
}

/// `torch.polygamma(n, input)`: the `n`-th derivative of digamma (PyTorch puts `n` first).
#[pyfunction]
#[pyo3(signature = (n: "int", input: "Tensor") -> "Tensor")]
pub(crate) fn polygamma(n: i64, input: &Bound<'_, PyAny>) -> TResult {
    let x = super::convert::tensor_arg(input, "polygamma(): argument 'input'")?;
    wrap(run(|| x.polygamma(n)))
}

/// `torch.special.i1(input)`: the modified Bessel function of the first kind of order 1.
#[pyfunction]
#[pyo3(signature = (input: "Tensor") -> "Tensor")]
pub(crate) fn _special_i1(input: &Bound<'_, PyAny>) -> TResult {
    let x = super::convert::tensor_arg(input, "special_i1(): argument 'input'")?;
    wrap(run(|| x.special_i1()))
}

/// `torch.special.i0e(input)`: `e^{-|x|} i0(x)`.
#[pyfunction]
#[pyo3(signature = (input: "Tensor") -> "Tensor")]
pub(crate) fn _special_i0e(input: &Bound<'_, PyAny>) -> TResult {
    let x = super::convert::tensor_arg(input, "special_i0e(): argument 'input'")?;
    wrap(run(|| x.special_i0e()))
}

/// `torch.special.i1e(input)`: `e^{-|x|} i1(x)`.
#[pyfunction]
#[pyo3(signature = (input: "Tensor") -> "Tensor")]
pub(crate) fn _special_i1e(input: &Bound<'_, PyAny>) -> TResult {
    let x = super::convert::tensor_arg(input, "special_i1e(): argument 'input'")?;
    wrap(run(|| x.special_i1e()))
}

crate::unary_table!(bind_unary_ops);
crate::binary_table!(bind_binary_ops);

#[pymethods]
impl PyTensor {
    /// The `n`-th derivative of digamma, elementwise.
    #[pyo3(signature = (n: "int") -> "Tensor")]
    fn polygamma(&self, n: i64) -> TResult {
        wrap(run(|| self.inner.polygamma(n)))
    }

    /// In-place `polygamma`.
    #[pyo3(signature = (n: "int") -> "Self")]
    fn polygamma_(slf: Bound<'_, Self>, n: i64) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.polygamma_(n))?;
        Ok(slf)
    }

    /// `log(x / (1 - x))`, with `x` clamped to `[eps, 1 - eps]` when `eps` is given.
    #[pyo3(signature = (eps: "float | None" = None) -> "Tensor")]
    fn logit(&self, eps: Option<f64>) -> TResult {
        wrap(run(|| self.inner.logit(eps)))
    }

    /// In-place `logit`.
    #[pyo3(signature = (eps: "float | None" = None) -> "Self")]
    fn logit_(slf: Bound<'_, Self>, eps: Option<f64>) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.logit_(eps))?;
        Ok(slf)
    }
}
