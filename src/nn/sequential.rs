//! A chain of modules.

use super::Module;
use crate::core::error::Result;
use crate::core::tensor::Tensor;

/// Modules applied one after the other (PyTorch's `nn.Sequential`); its parameters are its
/// modules' parameters, in order.
///
/// ```
/// use ferrograd::nn::{Linear, Module, Sequential, Tanh};
/// let model = Sequential::new().add(Linear::new(3, 5).unwrap()).add(Tanh).add(Linear::new(5, 1).unwrap());
/// assert_eq!((model.len(), model.num_parameters()), (3, 3 * 5 + 5 + 5 + 1));
/// ```
#[derive(Default)]
pub struct Sequential {
    layers: Vec<Box<dyn Module + Send + Sync>>,
}

impl Sequential {
    /// An empty chain (its `forward` returns the input).
    pub fn new() -> Sequential {
        Sequential::default()
    }

    /// The chain with `layer` appended (candle's `seq().add(layer)`).
    #[allow(clippy::should_implement_trait)] // a builder, not the `+` operator
    pub fn add<M: Module + Send + Sync + 'static>(mut self, layer: M) -> Sequential {
        self.layers.push(Box::new(layer));
        self
    }

    /// Appends `layer` in place.
    pub fn push<M: Module + Send + Sync + 'static>(&mut self, layer: M) {
        self.layers.push(Box::new(layer));
    }

    /// How many modules the chain holds.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// True when the chain holds no module.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }
}

impl Module for Sequential {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        let mut x = input.clone();
        for layer in &self.layers {
            x = layer.forward(&x)?;
        }
        Ok(x)
    }

    fn parameters(&self) -> Vec<Tensor> {
        self.layers.iter().flat_map(|l| l.parameters()).collect()
    }
}
