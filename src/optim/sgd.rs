//! Stochastic gradient descent: PyTorch's single-tensor `SGD` (momentum, dampening, Nesterov
//! momentum, weight decay, `maximize`).

use super::kernel::{per_float, prepare, update_elements, Reading};
use super::{non_negative, settings, Optimizer, State, Update};
use crate::core::dtype::Float;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;

/// `torch.optim.SGD`'s hyper-parameters; PyTorch's state: `momentum_buffer` (made on the
/// first step with momentum, a copy of the gradient).
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
/// assert!(opt.momentum_buffer(0).is_some());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Sgd {
    /// Learning rate.
    pub lr: f64,
    /// Momentum factor (0: none).
    pub momentum: f64,
    /// Dampening of the momentum.
    pub dampening: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Nesterov momentum (needs a momentum and no dampening).
    pub nesterov: bool,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

settings!(Sgd, Sgd { lr: 1e-3, momentum: 0.0, dampening: 0.0, weight_decay: 0.0, nesterov: false, maximize: false };
    /// The momentum factor (default 0: none).
    momentum: f64,
    /// The dampening of the momentum (default 0).
    dampening: f64,
    /// The L2 penalty added to the gradient (default 0).
    weight_decay: f64,
    /// Nesterov momentum (needs a momentum and no dampening).
    nesterov: bool,
    /// Maximise the objective instead of minimising it.
    maximize: bool,
);

impl super::Optim<Sgd> {
    /// The momentum buffer of parameter `i`, once a step with momentum has made it.
    pub fn momentum_buffer(&self, i: usize) -> Option<&Tensor> {
        self.state(i).and_then(|s| s.get("momentum_buffer"))
    }
}

impl Update for Sgd {
    fn check(&self) -> Result<()> {
        non_negative("learning rate", self.lr)?;
        non_negative("momentum value", self.momentum)?;
        non_negative("weight_decay value", self.weight_decay)?;
        if self.nesterov && (self.momentum <= 0.0 || self.dampening != 0.0) {
            return Err(Error::value(
                "Nesterov momentum requires a momentum and zero dampening",
            ));
        }
        Ok(())
    }

    fn lr(&self) -> f64 {
        self.lr
    }

    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }

    fn init(&self, _param: &Tensor) -> Result<State> {
        Ok(State::default())
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        let grad = prepare(param, grad, &[])?;
        // the momentum buffer is made on the first step with momentum, as the gradient read
        let first = self.momentum != 0.0 && state.get("momentum_buffer").is_none();
        if first {
            state.insert(
                "momentum_buffer",
                Tensor::zeros(param.shape(), param.dtype()),
            );
        }
        let buffer = state
            .get("momentum_buffer")
            .filter(|_| self.momentum != 0.0);
        let state: Vec<&Tensor> = buffer.into_iter().collect();
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &state, |p, g, s| {
            self.apply(p, g, s.first_mut().map(|b| &mut **b), first);
        }))?;
        param.storage().bump_version("sgd step");
        Ok(())
    }
}

impl Sgd {
    /// The update of each element, in PyTorch's order of operations: the gradient as read
    /// (`maximize`, the L2 term), the momentum buffer (the gradient itself on the `first`
    /// step), Nesterov's look-ahead, then `param += -lr · grad`.
    #[allow(clippy::assign_op_pattern)] // `Float` has no compound assignment
    fn apply<T: Float>(&self, p: &mut [T], g: &[T], buf: Option<&mut [T]>, first: bool) {
        let f = T::from_f64;
        let step = f(-self.lr);
        let read = Reading::l2(self.maximize, self.weight_decay);
        match buf {
            None => {
                for (p, &g) in p.iter_mut().zip(g) {
                    *p = *p + step * read.at(p, g);
                }
            }
            Some(buf) => {
                let (momentum, keep) = (f(self.momentum), f(1.0 - self.dampening));
                for ((p, &g), b) in p.iter_mut().zip(g).zip(buf.iter_mut()) {
                    let g = read.at(p, g);
                    *b = if first { g } else { *b * momentum + keep * g };
                    let g = if self.nesterov { g + momentum * *b } else { *b };
                    *p = *p + step * g;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgd_with_momentum_keeps_a_buffer() {
        let p = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        let g = Tensor::from_vec(vec![0.5f64, -1.0], &[2]).unwrap();
        let sgd = Sgd {
            lr: 0.1,
            momentum: 0.9,
            dampening: 0.0,
            weight_decay: 0.0,
            nesterov: false,
            maximize: false,
        };
        let mut state = sgd.init(&p).unwrap();
        sgd.update(&p, &g, &mut state).unwrap();
        sgd.update(&p, &g, &mut state).unwrap();
        // buffers g then 1.9 g: p - 0.1 g - 0.19 g
        let got = p.to_vec::<f64>().unwrap();
        assert!((got[0] - (1.0 - 0.29 * 0.5)).abs() < 1e-12);
        assert!((got[1] - (2.0 + 0.29)).abs() < 1e-12);
        assert_eq!(p.version(), 2);
        let buffer = state
            .get("momentum_buffer")
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        assert_eq!(buffer, vec![0.5 * 1.9, -1.9]);
    }
}
