//! Bindings generated from the pointwise derivative tables (`crate::unary_table!`,
//! `crate::binary_table!`): each row's method and its in-place twin. Adding a row there adds
//! the Python method here; nothing else to write.

use super::convert::tensor_arg;
use super::run;
use super::tensor::{wrap, PyTensor, TResult};
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
    };
}

/// The methods of the two-tensor table's rows.
macro_rules! bind_binary_ops {
    ($( $(#[$doc:meta])* $name:ident, $inplace:ident, $node:literal, |$a:ident, $b:ident| $fwd:expr,
        |$g:ident, $sa:ident, $sb:ident, $so:ident| $grads:expr; )*) => {
        #[pymethods]
        impl PyTensor {
            $(
                $(#[$doc])*
                fn $name(&self, other: &Bound<'_, PyAny>) -> TResult {
                    let other = tensor_arg(other, concat!(stringify!($name), "(): argument 'other'"))?;
                    wrap(run(|| self.inner.$name(&other)))
                }

                #[doc = concat!("In-place `", stringify!($name), "`.")]
                fn $inplace<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
                    let other = tensor_arg(other, concat!(stringify!($inplace), "(): argument 'other'"))?;
                    run(|| slf.get().inner.$inplace(&other))?;
                    Ok(slf)
                }
            )*
        }
    };
}

crate::unary_table!(bind_unary_ops);
crate::binary_table!(bind_binary_ops);

#[pymethods]
impl PyTensor {
    /// The `n`-th derivative of digamma, elementwise.
    fn polygamma(&self, n: u32) -> TResult {
        wrap(run(|| self.inner.polygamma(n)))
    }

    /// In-place `polygamma`.
    fn polygamma_(slf: Bound<'_, Self>, n: u32) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.polygamma_(n))?;
        Ok(slf)
    }

    /// `log(x / (1 - x))`, with `x` clamped to `[eps, 1 - eps]` when `eps` is given.
    #[pyo3(signature = (eps=None))]
    fn logit(&self, eps: Option<f64>) -> TResult {
        wrap(run(|| self.inner.logit(eps)))
    }

    /// In-place `logit`.
    #[pyo3(signature = (eps=None))]
    fn logit_(slf: Bound<'_, Self>, eps: Option<f64>) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.logit_(eps))?;
        Ok(slf)
    }
}
