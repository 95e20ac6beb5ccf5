//! The fully connected layer.

use super::Module;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::tensor::Tensor;

/// `y = x·Wᵀ + b` (PyTorch's `nn.Linear`): `weight` of shape `[out_features, in_features]`,
/// `bias` of shape `[out_features]`, on inputs of shape `[..., in_features]`.
///
/// [`Linear::new`] initialises as PyTorch does, drawing from the default generator in
/// PyTorch's order: the weight by `kaiming_uniform_(a = √5)`, then the bias, both uniform in
/// `±1/√in_features`. After the same [`manual_seed`](crate::manual_seed), a layer has the
/// values of Python's `ferrograd.nn.Linear` (and PyTorch's) of the same size.
///
/// ```
/// use ferrograd::nn::{Linear, Module};
/// use ferrograd::{DType, Tensor};
/// # fn main() -> ferrograd::Result<()> {
/// ferrograd::manual_seed(0);
/// let layer = Linear::new(5, 3)?;
/// assert_eq!(layer.weight().shape(), &[3, 5]);
/// let bound = 1.0 / 5f32.sqrt();
/// assert!(layer.weight().to_vec::<f32>()?.iter().all(|w| w.abs() <= bound));
/// let y = layer.forward(&Tensor::ones(&[2, 5], DType::Float32))?;
/// assert_eq!(y.shape(), &[2, 3]);
/// # Ok(())
/// # }
/// ```
pub struct Linear {
    weight: Tensor,
    bias: Option<Tensor>,
}

impl Linear {
    /// A float32 layer with a bias, initialised as PyTorch's.
    pub fn new(in_features: usize, out_features: usize) -> Result<Linear> {
        Linear::with_options(in_features, out_features, true, DType::Float32)
    }

    /// A layer with or without a bias, with float parameters of `dtype`, initialised as
    /// PyTorch's.
    pub fn with_options(
        in_features: usize,
        out_features: usize,
        bias: bool,
        dtype: DType,
    ) -> Result<Linear> {
        if !dtype.is_floating_point() {
            return Err(Error::type_error(format!(
                "Linear needs a floating point dtype, got {}",
                dtype.name()
            )));
        }
        let weight = Tensor::try_full(&[out_features, in_features], 0.0, dtype)?;
        let bias = bias.then(|| Tensor::zeros(&[out_features], dtype));
        {
            let _untracked = GradModeGuard::new(false);
            let fan_in = in_features as f64;
            if weight.numel() > 0 {
                // kaiming_uniform_(a=sqrt(5)): gain = sqrt(2 / (1 + a²)), bound = sqrt(3)·gain/sqrt(fan_in)
                let a = 5f64.sqrt();
                let gain = (2.0 / (1.0 + a.powi(2))).sqrt();
                let bound = 3f64.sqrt() * (gain / fan_in.sqrt());
                weight.uniform_(-bound, bound, None)?;
            }
            if let Some(b) = &bias {
                let bound = if in_features > 0 {
                    1.0 / fan_in.sqrt()
                } else {
                    0.0
                };
                b.uniform_(-bound, bound, None)?;
            }
        }
        Linear::from_parameters(weight, bias)
    }

    /// A layer with the given `weight` (`[out, in]`) and `bias` (`[out]`), which become
    /// trainable (`requires_grad`); their handles are kept, not copied.
    pub fn from_parameters(weight: Tensor, bias: Option<Tensor>) -> Result<Linear> {
        if weight.dim() != 2 {
            return Err(Error::runtime(format!(
                "Linear's weight must be 2-D, got shape {:?}",
                weight.shape()
            )));
        }
        if let Some(b) = &bias {
            if b.shape() != [weight.shape()[0]] {
                return Err(Error::runtime(format!(
                    "Linear's bias must have shape [{}], got {:?}",
                    weight.shape()[0],
                    b.shape()
                )));
            }
        }
        for p in std::iter::once(&weight).chain(&bias) {
            p.set_requires_grad(true)?;
        }
        Ok(Linear { weight, bias })
    }

    /// The weight, `[out_features, in_features]`.
    pub fn weight(&self) -> &Tensor {
        &self.weight
    }

    /// The bias, `[out_features]`, if the layer has one.
    pub fn bias(&self) -> Option<&Tensor> {
        self.bias.as_ref()
    }

    /// The size of each input sample.
    pub fn in_features(&self) -> usize {
        self.weight.shape()[1]
    }

    /// The size of each output sample.
    pub fn out_features(&self) -> usize {
        self.weight.shape()[0]
    }
}

impl Module for Linear {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.linear(&self.weight, self.bias.as_ref())
    }

    fn parameters(&self) -> Vec<Tensor> {
        std::iter::once(self.weight.clone())
            .chain(self.bias.clone())
            .collect()
    }
}

impl std::fmt::Debug for Linear {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Linear(in_features={}, out_features={}, bias={})",
            self.in_features(),
            self.out_features(),
            self.bias.is_some()
        )
    }
}
