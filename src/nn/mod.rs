//! Floor 4: neural-network building blocks for Rust programs, the Rust side of Python's
//! `ferrograd.nn`: the [`Module`] trait, [`Linear`], [`Sequential`], the activations [`ReLU`],
//! [`Tanh`] and [`Sigmoid`], and the losses of [`loss`] ([`cross_entropy`], [`mse_loss`], ...),
//! all written with the differentiable ops of [`crate::ops`], so gradients flow through them
//! and the optimizers of `optim` update their parameters.
//!
//! ```
//! use ferrograd::nn::{self, Module};
//! use ferrograd::{manual_seed, DType, Tensor};
//! # fn main() -> ferrograd::Result<()> {
//! manual_seed(0);
//! let model = nn::Sequential::new()
//!     .add(nn::Linear::new(4, 8)?)
//!     .add(nn::ReLU)
//!     .add(nn::Linear::new(8, 3)?);
//! let x = Tensor::randn(&[5, 4], DType::Float32, None)?;
//! let target = Tensor::from_vec(vec![0i64, 2, 1, 1, 0], &[5])?;
//! let loss = nn::cross_entropy(&model.forward(&x)?, &target)?;
//! loss.backward(None, None, false)?;
//! assert_eq!(model.parameters().len(), 4);
//! assert!(model.parameters().iter().all(|p| p.grad().is_some()));
//! # Ok(())
//! # }
//! ```

mod activation;
mod linear;
pub mod loss;
mod sequential;

pub use activation::{ReLU, Sigmoid, Tanh};
pub use linear::Linear;
pub use loss::{binary_cross_entropy_with_logits, cross_entropy, mse_loss, Reduction};
pub use sequential::Sequential;

use crate::core::error::Result;
use crate::core::tensor::Tensor;

/// A layer or model: a differentiable function of its input with trainable parameters, as
/// PyTorch's `nn.Module`.
///
/// `forward` records the graph as any op does; `parameters` hands out the handles of the
/// tensors an optimizer updates (clones of a [`Tensor`] share its data and its gradient).
///
/// ```
/// use ferrograd::nn::Module;
/// use ferrograd::{Result, Tensor};
///
/// /// `y = a·x`, with one trainable scale.
/// struct Scale {
///     a: Tensor,
/// }
///
/// impl Module for Scale {
///     fn forward(&self, x: &Tensor) -> Result<Tensor> {
///         x * &self.a
///     }
///     fn parameters(&self) -> Vec<Tensor> {
///         vec![self.a.clone()]
///     }
/// }
///
/// # fn main() -> Result<()> {
/// let a = Tensor::scalar(3.0f32);
/// a.set_requires_grad(true)?;
/// let y = Scale { a }.forward(&Tensor::from_vec(vec![1.0f32, 2.0], &[2])?)?;
/// assert_eq!(y.to_vec::<f32>()?, vec![3.0, 6.0]);
/// # Ok(())
/// # }
/// ```
pub trait Module {
    /// The output for `input`.
    fn forward(&self, input: &Tensor) -> Result<Tensor>;

    /// The trainable tensors, in a fixed order (empty for a layer without any).
    fn parameters(&self) -> Vec<Tensor>;

    /// How many numbers the parameters hold.
    fn num_parameters(&self) -> usize {
        self.parameters().iter().map(Tensor::numel).sum()
    }

    /// Clears every parameter's gradient (`.grad` becomes `None`, PyTorch's default).
    fn zero_grad(&self) -> Result<()> {
        self.parameters().iter().try_for_each(|p| p.set_grad(None))
    }
}

impl<M: Module + ?Sized> Module for Box<M> {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        (**self).forward(input)
    }
    fn parameters(&self) -> Vec<Tensor> {
        (**self).parameters()
    }
}

impl<M: Module + ?Sized> Module for &M {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        (**self).forward(input)
    }
    fn parameters(&self) -> Vec<Tensor> {
        (**self).parameters()
    }
}
