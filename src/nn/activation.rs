//! Activations as modules without parameters, for [`Sequential`](super::Sequential).

use super::Module;
use crate::core::error::Result;
use crate::core::tensor::Tensor;

/// `max(x, 0)`, elementwise (PyTorch's `nn.ReLU`).
///
/// ```
/// use ferrograd::nn::{Module, ReLU};
/// use ferrograd::Tensor;
/// let y = ReLU.forward(&Tensor::from_vec(vec![-1.0f32, 2.0], &[2]).unwrap()).unwrap();
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0, 2.0]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ReLU;

/// The hyperbolic tangent, elementwise (PyTorch's `nn.Tanh`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Tanh;

/// The logistic sigmoid `1 / (1 + e^-x)`, elementwise (PyTorch's `nn.Sigmoid`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sigmoid;

impl Module for ReLU {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.relu()
    }
    fn parameters(&self) -> Vec<Tensor> {
        Vec::new()
    }
}

impl Module for Tanh {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.tanh()
    }
    fn parameters(&self) -> Vec<Tensor> {
        Vec::new()
    }
}

impl Module for Sigmoid {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.sigmoid()
    }
    fn parameters(&self) -> Vec<Tensor> {
        Vec::new()
    }
}
