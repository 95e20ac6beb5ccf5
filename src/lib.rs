//! ferrograd: reverse-mode automatic differentiation in Rust, used from Python like PyTorch's autograd.
//!
//! The core ([`Tensor`], the [`autograd`] engine, the [`ops`]) has no Python dependency; the pyo3
//! bindings live in `python/` behind the `python` cargo feature.
//!
//! ```
//! use ferrograd::{DType, Tensor};
//! let x = Tensor::from_vec(vec![-3.0f32, 2.0, 5.0], &[3]).unwrap();
//! x.set_requires_grad(true).unwrap();
//! let u = x.pow_scalar(3.0).unwrap().sum().unwrap();
//! u.backward(None, None, false).unwrap();
//! assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), vec![27.0, 12.0, 75.0]);
//! # let _ = DType::Float32;
//! ```

pub mod autograd;
pub mod core;
pub mod cpu;
pub mod ops;

#[cfg(feature = "python")]
mod python;

pub use crate::core::dtype::{DType, Scalar};
pub use crate::core::error::{Error, ErrorKind, Result};
pub use crate::core::grad_mode::{is_grad_enabled, no_grad, set_grad_enabled, GradModeGuard};
pub use crate::core::tensor::Tensor;
pub use crate::cpu::parallel::{num_threads, set_num_threads};
pub use crate::ops::random::manual_seed;
