//! Stochastic gradient descent.

use super::{non_negative, Optimizer};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::tensor::Tensor;
use crate::ops::optim::Sgd as SgdKernel;

/// Stochastic gradient descent with momentum, dampening, Nesterov momentum, weight decay and
/// `maximize`, as `torch.optim.SGD` (the same kernel as Python's `ferrograd.optim.SGD`).
///
/// Built with [`Sgd::new`] and the setters, which take and return the optimizer:
///
/// ```
/// use ferrograd::optim::{Optimizer, Sgd};
/// use ferrograd::Tensor;
/// # fn main() -> ferrograd::Result<()> {
/// let p = Tensor::from_vec(vec![1.0f32, 2.0], &[2])?;
/// p.set_requires_grad(true)?;
/// let mut opt = Sgd::new(vec![p.clone()], 0.1).momentum(0.9).nesterov(true);
/// (&p * &p)?.sum()?.backward(None, None, false)?; // gradient 2p = [2, 4]
/// opt.step()?;
/// // Nesterov: the step is g + 0.9·g with the buffer g after the first step
/// assert_eq!(p.to_vec::<f32>()?, vec![1.0 - 0.1 * 1.9 * 2.0, 2.0 - 0.1 * 1.9 * 4.0]);
/// # Ok(())
/// # }
/// ```
pub struct Sgd {
    params: Vec<Tensor>,
    kernel: SgdKernel,
    buffers: Vec<Option<Tensor>>,
}

impl Sgd {
    /// Plain SGD on `params` with learning rate `lr`.
    pub fn new(params: Vec<Tensor>, lr: f64) -> Sgd {
        let buffers = vec![None; params.len()];
        Sgd {
            params,
            kernel: SgdKernel {
                lr,
                momentum: 0.0,
                dampening: 0.0,
                weight_decay: 0.0,
                nesterov: false,
                maximize: false,
            },
            buffers,
        }
    }

    /// The momentum factor (default 0: none).
    pub fn momentum(mut self, momentum: f64) -> Sgd {
        self.kernel.momentum = momentum;
        self
    }

    /// The dampening of the momentum (default 0).
    pub fn dampening(mut self, dampening: f64) -> Sgd {
        self.kernel.dampening = dampening;
        self
    }

    /// The L2 penalty added to the gradient (default 0).
    pub fn weight_decay(mut self, weight_decay: f64) -> Sgd {
        self.kernel.weight_decay = weight_decay;
        self
    }

    /// Nesterov momentum (needs a momentum and no dampening).
    pub fn nesterov(mut self, nesterov: bool) -> Sgd {
        self.kernel.nesterov = nesterov;
        self
    }

    /// Maximise the objective instead of minimising it.
    pub fn maximize(mut self, maximize: bool) -> Sgd {
        self.kernel.maximize = maximize;
        self
    }

    /// The momentum buffer of parameter `i`, once a step with momentum has made it.
    pub fn momentum_buffer(&self, i: usize) -> Option<&Tensor> {
        self.buffers.get(i).and_then(Option::as_ref)
    }

    /// PyTorch's checks of the hyper-parameters.
    fn check(&self) -> Result<()> {
        let k = &self.kernel;
        non_negative("learning rate", k.lr)?;
        non_negative("momentum value", k.momentum)?;
        non_negative("weight_decay value", k.weight_decay)?;
        if k.nesterov && (k.momentum <= 0.0 || k.dampening != 0.0) {
            return Err(Error::value(
                "Nesterov momentum requires a momentum and zero dampening",
            ));
        }
        Ok(())
    }
}

impl Optimizer for Sgd {
    fn step(&mut self) -> Result<()> {
        self.check()?;
        let _untracked = GradModeGuard::new(false);
        for (p, buffer) in self.params.iter().zip(&mut self.buffers) {
            let Some(grad) = p.grad() else { continue };
            self.kernel.step(p, &grad, buffer)?;
        }
        Ok(())
    }

    fn parameters(&self) -> &[Tensor] {
        &self.params
    }

    fn learning_rate(&self) -> f64 {
        self.kernel.lr
    }

    fn set_learning_rate(&mut self, lr: f64) {
        self.kernel.lr = lr;
    }
}
