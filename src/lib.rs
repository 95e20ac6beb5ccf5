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

pub mod allocator;
pub mod autograd;
pub mod dtype;
pub mod error;
pub mod fastmath;
pub mod format;
pub mod grad_mode;
pub mod kernels;
pub mod layout;
pub mod ops;
pub mod parallel;
pub mod pool;
pub mod sgemm;
pub mod storage;
pub mod tensor;

#[cfg(feature = "python")]
mod python;

pub use dtype::{DType, Scalar};
pub use error::{Error, ErrorKind, Result};
pub use grad_mode::{is_grad_enabled, no_grad, set_grad_enabled, GradModeGuard};
pub use ops::creation::manual_seed;
pub use parallel::{num_threads, set_num_threads};
pub use tensor::Tensor;
