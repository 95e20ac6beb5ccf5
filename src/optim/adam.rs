//! Adam and AdamW.

use super::{non_negative, Optimizer};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::tensor::Tensor;
use crate::ops::optim::{Adam as AdamKernel, AdamState};

/// The state Adam keeps for one parameter (PyTorch's `state[p]`), made on its first step.
struct ParamState {
    step: u64,
    exp_avg: Tensor,
    exp_avg_sq: Tensor,
    max_exp_avg_sq: Option<Tensor>,
}

/// What [`Adam`] and [`AdamW`] share: the parameters, the kernel's settings and the states.
struct AdamCore {
    params: Vec<Tensor>,
    kernel: AdamKernel,
    states: Vec<Option<ParamState>>,
}

impl AdamCore {
    fn new(params: Vec<Tensor>, lr: f64, weight_decay: f64, decoupled: bool) -> AdamCore {
        let states = params.iter().map(|_| None).collect();
        AdamCore {
            params,
            kernel: AdamKernel {
                lr,
                beta1: 0.9,
                beta2: 0.999,
                eps: 1e-8,
                weight_decay,
                amsgrad: false,
                maximize: false,
                decoupled,
            },
            states,
        }
    }

    fn check(&self) -> Result<()> {
        let k = &self.kernel;
        non_negative("learning rate", k.lr)?;
        non_negative("epsilon value", k.eps)?;
        non_negative("weight_decay value", k.weight_decay)?;
        for (i, beta) in [k.beta1, k.beta2].into_iter().enumerate() {
            if !(0.0..1.0).contains(&beta) {
                return Err(Error::value(format!(
                    "Invalid beta parameter at index {i}: {beta}"
                )));
            }
        }
        Ok(())
    }

    fn step(&mut self) -> Result<()> {
        self.check()?;
        let _untracked = GradModeGuard::new(false);
        for (p, state) in self.params.iter().zip(&mut self.states) {
            let Some(grad) = p.grad() else { continue };
            let s = state.get_or_insert_with(|| ParamState {
                step: 0,
                exp_avg: p.detach().zeros_like(),
                exp_avg_sq: p.detach().zeros_like(),
                max_exp_avg_sq: None,
            });
            if self.kernel.amsgrad && s.max_exp_avg_sq.is_none() {
                s.max_exp_avg_sq = Some(p.detach().zeros_like());
            }
            self.kernel.step(
                p,
                &grad,
                AdamState {
                    step: &mut s.step,
                    exp_avg: &s.exp_avg,
                    exp_avg_sq: &s.exp_avg_sq,
                    max_exp_avg_sq: s.max_exp_avg_sq.as_ref(),
                },
            )?;
        }
        Ok(())
    }

    fn steps_taken(&self, i: usize) -> u64 {
        self.states
            .get(i)
            .and_then(Option::as_ref)
            .map_or(0, |s| s.step)
    }
}

/// Defines the setters both optimizers have, on `self.0`.
macro_rules! adam_setters {
    ($ty:ident) => {
        impl $ty {
            /// The decays of the running averages of the gradient and of its square
            /// (default `(0.9, 0.999)`).
            pub fn betas(mut self, beta1: f64, beta2: f64) -> $ty {
                self.0.kernel.beta1 = beta1;
                self.0.kernel.beta2 = beta2;
                self
            }

            /// The term added to the denominator (default `1e-8`).
            pub fn eps(mut self, eps: f64) -> $ty {
                self.0.kernel.eps = eps;
                self
            }

            /// The weight decay (see the type's documentation for its kind).
            pub fn weight_decay(mut self, weight_decay: f64) -> $ty {
                self.0.kernel.weight_decay = weight_decay;
                self
            }

            /// AMSGrad: divide by the running maximum of the squared-gradient average.
            pub fn amsgrad(mut self, amsgrad: bool) -> $ty {
                self.0.kernel.amsgrad = amsgrad;
                self
            }

            /// Maximise the objective instead of minimising it.
            pub fn maximize(mut self, maximize: bool) -> $ty {
                self.0.kernel.maximize = maximize;
                self
            }

            /// How many steps parameter `i` has taken (its bias corrections depend on it).
            pub fn steps_taken(&self, i: usize) -> u64 {
                self.0.steps_taken(i)
            }
        }

        impl Optimizer for $ty {
            fn step(&mut self) -> Result<()> {
                self.0.step()
            }

            fn parameters(&self) -> &[Tensor] {
                &self.0.params
            }

            fn learning_rate(&self) -> f64 {
                self.0.kernel.lr
            }

            fn set_learning_rate(&mut self, lr: f64) {
                self.0.kernel.lr = lr;
            }
        }
    };
}

/// Adam, as `torch.optim.Adam`: weight decay is an L2 penalty added to the gradient (default
/// 0); AMSGrad and `maximize` as there. The same kernel as Python's `ferrograd.optim.Adam`.
///
/// ```
/// use ferrograd::optim::{Adam, Optimizer};
/// use ferrograd::Tensor;
/// # fn main() -> ferrograd::Result<()> {
/// let p = Tensor::from_vec(vec![1.0f32, 2.0], &[2])?;
/// p.set_requires_grad(true)?;
/// let mut opt = Adam::new(vec![p.clone()], 0.01).betas(0.9, 0.99);
/// (&p * &p)?.sum()?.backward(None, None, false)?;
/// opt.step()?;
/// // the first step moves each weight by about lr, against its gradient
/// let got = p.to_vec::<f32>()?;
/// assert!((got[0] - 0.99).abs() < 1e-6 && (got[1] - 1.99).abs() < 1e-6);
/// assert_eq!(opt.steps_taken(0), 1);
/// # Ok(())
/// # }
/// ```
pub struct Adam(AdamCore);

impl Adam {
    /// Adam on `params` with learning rate `lr` (PyTorch's default is `1e-3`).
    pub fn new(params: Vec<Tensor>, lr: f64) -> Adam {
        Adam(AdamCore::new(params, lr, 0.0, false))
    }
}

adam_setters!(Adam);

/// AdamW, as `torch.optim.AdamW`: Adam with decoupled weight decay, each step multiplying the
/// parameters by `1 - lr·weight_decay` (default `weight_decay` 0.01). The same kernel as
/// Python's `ferrograd.optim.AdamW`.
///
/// ```
/// use ferrograd::optim::{AdamW, Optimizer};
/// use ferrograd::Tensor;
/// # fn main() -> ferrograd::Result<()> {
/// let p = Tensor::from_vec(vec![1.0f64], &[1])?;
/// p.set_requires_grad(true)?;
/// let mut opt = AdamW::new(vec![p.clone()], 0.1).weight_decay(0.5);
/// p.set_grad(Some(Tensor::from_vec(vec![0.0f64], &[1])?))?; // no gradient: only the decay
/// opt.step()?;
/// assert!((p.to_vec::<f64>()?[0] - 0.95).abs() < 1e-12);
/// # Ok(())
/// # }
/// ```
pub struct AdamW(AdamCore);

impl AdamW {
    /// AdamW on `params` with learning rate `lr` (PyTorch's default is `1e-3`).
    pub fn new(params: Vec<Tensor>, lr: f64) -> AdamW {
        AdamW(AdamCore::new(params, lr, 1e-2, true))
    }
}

adam_setters!(AdamW);
