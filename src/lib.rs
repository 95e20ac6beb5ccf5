//! ferrograd: reverse-mode automatic differentiation in Rust, used from Python like PyTorch's autograd.
//!
//! The core ([`Tensor`], the [`autograd`] engine, the [`ops`]) has no Python dependency; the pyo3
//! bindings live in `python/` behind the `python` cargo feature.
//!
//! The crate is built in floors, each using only the floors below it (checked by
//! `tests/layers.rs`): [`core`] (the tensor model), [`cpu`] (kernels), [`autograd`] (the
//! engine), [`ops`] (every differentiable op), [`nn`] and [`optim`] (layers, losses and
//! optimizers for Rust programs), and the Python bindings.
//!
//! For a Rust program:
//! - ops are methods returning [`Result<Tensor>`](Result); `+ - * /` and unary `-` on tensors
//!   and `f64`/`i64` numbers return `Result<Tensor>` too (an error, never a panic, for shapes
//!   that do not broadcast), and accept a `Result<Tensor>` next to a tensor, so a chain ends
//!   in one `?`: `(&a * &b + &c)?` ([`ops::operators`] has the rules);
//! - [`Tensor::backward`] and [`autograd::grad`] (with `create_graph` for higher orders);
//! - [`nn::Module`], [`nn::Linear`], [`nn::Sequential`], [`nn::cross_entropy`], ... and
//!   [`optim::Sgd`], [`optim::Adam`], [`optim::AdamW`] to train;
//! - [`Tensor::from_array`], [`Tensor::to_array`] and [`Tensor::with_array_view`] to exchange
//!   data with [`ndarray`].
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
pub mod nn;
pub mod ops;
pub mod optim;

#[cfg(feature = "python")]
mod python;

/// The `ndarray` crate this one converts to and from (see [`Tensor::from_array`]), so a user's
/// crate names the same version.
pub use ndarray;

/// The Rust code blocks of the README, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use crate::core::dtype::{DType, Scalar};
pub use crate::core::error::{Error, ErrorKind, Result};
pub use crate::core::grad_mode::{is_grad_enabled, no_grad, set_grad_enabled, GradModeGuard};
pub use crate::core::tensor::Tensor;
pub use crate::cpu::parallel::{num_threads, set_num_threads};
pub use crate::ops::random::manual_seed;
