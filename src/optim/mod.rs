//! Floor 4: optimizers for Rust programs, the Rust side of Python's `ferrograd.optim`: the
//! [`Optimizer`] trait, [`Sgd`] (momentum, dampening, Nesterov, weight decay), [`Adam`] and
//! [`AdamW`] (AMSGrad, weight decay). Each step runs the same fused kernels as the Python
//! optimizers ([`crate::ops::optim`]), so a Rust training loop follows PyTorch's trajectory
//! to the last bit the kernels reach in Python.
//!
//! ```
//! use ferrograd::optim::{Optimizer, Sgd};
//! use ferrograd::Tensor;
//! # fn main() -> ferrograd::Result<()> {
//! // minimise (w - 3)² from w = 0
//! let w = Tensor::from_vec(vec![0.0f64], &[1])?;
//! w.set_requires_grad(true)?;
//! let mut opt = Sgd::new(vec![w.clone()], 0.1).momentum(0.9);
//! for _ in 0..300 {
//!     opt.zero_grad()?;
//!     let loss = ((&w - 3.0)? * (&w - 3.0)?)?.sum()?;
//!     loss.backward(None, None, false)?;
//!     opt.step()?;
//! }
//! assert!((w.to_vec::<f64>()?[0] - 3.0).abs() < 1e-4);
//! # Ok(())
//! # }
//! ```

mod adam;
mod sgd;

pub use adam::{Adam, AdamW};
pub use sgd::Sgd;

use crate::core::error::Result;
use crate::core::tensor::Tensor;

/// Updates parameters from their gradients (PyTorch's `torch.optim.Optimizer`, one group).
pub trait Optimizer {
    /// One update of every parameter that has a gradient (the others are left as they are).
    fn step(&mut self) -> Result<()>;

    /// The parameters, in the order given.
    fn parameters(&self) -> &[Tensor];

    /// The learning rate.
    fn learning_rate(&self) -> f64;

    /// Sets the learning rate (what a scheduler does between steps).
    fn set_learning_rate(&mut self, lr: f64);

    /// Clears every parameter's gradient: `.grad` becomes `None` (PyTorch's default
    /// `set_to_none=True`).
    fn zero_grad(&mut self) -> Result<()> {
        self.parameters().iter().try_for_each(|p| p.set_grad(None))
    }
}

/// A value error unless `value >= 0` (PyTorch's `Invalid learning rate: -1` and the like).
fn non_negative(name: &str, value: f64) -> Result<()> {
    if value >= 0.0 {
        Ok(())
    } else {
        Err(crate::core::error::Error::value(format!(
            "Invalid {name}: {value}"
        )))
    }
}
