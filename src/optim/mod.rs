//! Floor 4: optimizers, the one home of every update rule of `torch.optim` that ferrograd has,
//! for Rust programs and (through one binding) for Python's `ferrograd.optim`.
//!
//! A rule (a type of [`rule`]: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, and NAdam,
//! RAdam, Rprop, ASGD, Adafactor) holds its hyper-parameters and implements [`Update`]: how one
//! parameter moves, given its gradient and its [`State`] (PyTorch's `state[p]`), with the
//! operations in PyTorch's single-tensor order and the parameter's precision, outside autograd.
//! [`Optim`] runs a rule over a list of parameters; the names a Rust user writes are aliases of
//! it ([`Sgd`], [`Adam`], [`AdamW`], [`RmsProp`], [`Adagrad`], [`Adadelta`], [`Adamax`]), built
//! with `new(params, lr)` and PyTorch's settings as setters. Python's optimizers call the same
//! [`Update::update`], so a Rust training loop follows PyTorch's trajectory to the last bit the
//! kernels reach in Python.
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
mod adaptive;
pub(crate) mod kernel;
mod sgd;
mod variants;

use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::tensor::Tensor;

/// The update rules, each a struct of PyTorch's hyper-parameters for one `torch.optim` class.
pub mod rule {
    pub use super::adam::{Adam, AdamW};
    pub use super::adaptive::{Adadelta, Adagrad, Adamax, RmsProp};
    pub use super::sgd::Sgd;
    pub use super::variants::{Adafactor, Asgd, Nadam, Radam, Rprop};
}

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

    /// The state of parameter `i` (PyTorch's `state[p]`), once it has taken a step.
    fn state(&self, i: usize) -> Option<&State>;

    /// Clears every parameter's gradient: `.grad` becomes `None` (PyTorch's default
    /// `set_to_none=True`).
    fn zero_grad(&mut self) -> Result<()> {
        self.parameters().iter().try_for_each(|p| p.set_grad(None))
    }
}

/// One optimizer rule: PyTorch's single-tensor algorithm of one `torch.optim` class.
pub trait Update {
    /// PyTorch's checks of the settings (`Invalid learning rate: -1` and the like); PyTorch
    /// makes them when the optimizer is built, [`Optim`] before each step.
    fn check(&self) -> Result<()>;

    /// The learning rate.
    fn lr(&self) -> f64;

    /// Sets the learning rate.
    fn set_lr(&mut self, lr: f64);

    /// The state `param` starts with before its first step, as PyTorch's lazy `state[p]`
    /// (zeros for running averages, step 0).
    fn init(&self, param: &Tensor) -> Result<State>;

    /// Moves `param` by one step given its gradient `grad`, updating `state` in place;
    /// `state.step` is this step's number, counted from 1 (the caller advances it). A rule
    /// may add a state tensor it makes on the first step (SGD's momentum buffer).
    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()>;
}

/// What a rule keeps for one parameter (PyTorch's `state[p]`): the step count and the state
/// tensors under PyTorch's names (`"exp_avg"`, `"momentum_buffer"`, ...), updated in place.
#[derive(Clone, Debug, Default)]
pub struct State {
    /// Steps taken so far (the current step's number while a rule updates).
    pub step: u64,
    tensors: Vec<(String, Tensor)>,
}

impl State {
    /// A state with `tensors` under their names, at step 0.
    pub fn of(tensors: impl IntoIterator<Item = (impl Into<String>, Tensor)>) -> State {
        State {
            step: 0,
            tensors: tensors.into_iter().map(|(n, t)| (n.into(), t)).collect(),
        }
    }

    /// The state tensor called `name`, if the rule keeps one.
    pub fn get(&self, name: &str) -> Option<&Tensor> {
        self.tensors.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// Sets (or replaces) the state tensor called `name`.
    pub fn insert(&mut self, name: impl Into<String>, tensor: Tensor) {
        let name = name.into();
        match self.tensors.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = tensor,
            None => self.tensors.push((name, tensor)),
        }
    }

    /// The names and tensors, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Tensor)> {
        self.tensors.iter().map(|(n, t)| (n.as_str(), t))
    }

    /// The state tensor called `name`, or a runtime error naming it.
    pub(crate) fn need(&self, name: &str) -> Result<&Tensor> {
        self.get(name)
            .ok_or_else(|| Error::runtime(format!("this optimizer step needs its {name} state")))
    }
}

/// A rule run over a list of parameters (one PyTorch parameter group); the Rust-facing
/// optimizers ([`Sgd`], [`Adam`], ...) are its aliases.
pub struct Optim<R: Update> {
    params: Vec<Tensor>,
    rule: R,
    states: Vec<Option<State>>,
}

impl<R: Update> Optim<R> {
    /// `rule` over `params`.
    pub fn with_rule(params: Vec<Tensor>, rule: R) -> Optim<R> {
        let states = params.iter().map(|_| None).collect();
        Optim {
            params,
            rule,
            states,
        }
    }

    /// The rule and its settings.
    pub fn rule(&self) -> &R {
        &self.rule
    }

    /// How many steps parameter `i` has taken.
    pub fn steps_taken(&self, i: usize) -> u64 {
        self.state(i).map_or(0, |s| s.step)
    }
}

impl<R: Update> Optimizer for Optim<R> {
    fn step(&mut self) -> Result<()> {
        self.rule.check()?;
        let _untracked = GradModeGuard::new(false);
        for (p, state) in self.params.iter().zip(&mut self.states) {
            let Some(grad) = p.grad() else { continue };
            let state = match state {
                Some(s) => s,
                None => state.insert(self.rule.init(p)?),
            };
            state.step += 1;
            self.rule.update(p, &grad, state)?;
        }
        Ok(())
    }

    fn parameters(&self) -> &[Tensor] {
        &self.params
    }

    fn learning_rate(&self) -> f64 {
        self.rule.lr()
    }

    fn set_learning_rate(&mut self, lr: f64) {
        self.rule.set_lr(lr);
    }

    fn state(&self, i: usize) -> Option<&State> {
        self.states.get(i).and_then(Option::as_ref)
    }
}

/// Stochastic gradient descent, as `torch.optim.SGD` ([`rule::Sgd`]).
pub type Sgd = Optim<rule::Sgd>;
/// Adam, as `torch.optim.Adam` ([`rule::Adam`]).
pub type Adam = Optim<rule::Adam>;
/// AdamW, as `torch.optim.AdamW` ([`rule::AdamW`]).
pub type AdamW = Optim<rule::AdamW>;
/// RMSprop, as `torch.optim.RMSprop` ([`rule::RmsProp`]).
pub type RmsProp = Optim<rule::RmsProp>;
/// Adagrad, as `torch.optim.Adagrad` ([`rule::Adagrad`]).
pub type Adagrad = Optim<rule::Adagrad>;
/// Adadelta, as `torch.optim.Adadelta` ([`rule::Adadelta`]).
pub type Adadelta = Optim<rule::Adadelta>;
/// Adamax, as `torch.optim.Adamax` ([`rule::Adamax`]).
pub type Adamax = Optim<rule::Adamax>;

/// Defines, for the optimizer `Optim<$rule>`, `new(params, lr)` (the rule's PyTorch defaults
/// otherwise) and one setter per listed setting, each taking and returning the optimizer.
macro_rules! settings {
    ($rule:ty, $default:expr; $($(#[doc = $doc:literal])* $name:ident: $ty:ty),* $(,)?) => {
        impl $crate::optim::Optim<$rule> {
            /// The optimizer on `params` with learning rate `lr` and PyTorch's defaults.
            pub fn new(params: Vec<$crate::core::tensor::Tensor>, lr: f64) -> Self {
                let rule: $rule = $default;
                let mut opt = Self::with_rule(params, rule);
                $crate::optim::Update::set_lr(&mut opt.rule, lr);
                opt
            }
            $(
                $(#[doc = $doc])*
                pub fn $name(mut self, $name: $ty) -> Self {
                    self.rule.$name = $name;
                    self
                }
            )*
        }
    };
}

pub(crate) use settings;

/// The learning rate's accessors of an [`Update`] impl whose rule has an `lr` field.
macro_rules! lr_field {
    () => {
        fn lr(&self) -> f64 {
            self.lr
        }

        fn set_lr(&mut self, lr: f64) {
            self.lr = lr;
        }
    };
}

pub(crate) use lr_field;

/// A value error unless `value >= 0` (PyTorch's `Invalid learning rate: -1` and the like).
fn non_negative(name: &str, value: f64) -> Result<()> {
    if value >= 0.0 {
        Ok(())
    } else {
        Err(Error::value(format!("Invalid {name}: {value}")))
    }
}

/// PyTorch's check of `betas`: each in `[0, 1)`.
fn betas_in_range(betas: [f64; 2]) -> Result<()> {
    for (i, beta) in betas.into_iter().enumerate() {
        if !(0.0..1.0).contains(&beta) {
            return Err(Error::value(format!(
                "Invalid beta parameter at index {i}: {beta}"
            )));
        }
    }
    Ok(())
}

/// A zero tensor shaped as `param`, outside autograd.
fn zeros(param: &Tensor) -> Tensor {
    param.detach().zeros_like()
}

/// The usual first state: zero tensors shaped as `param` under `names`, at step 0.
fn zeroed(param: &Tensor, names: &[&str]) -> State {
    State::of(names.iter().map(|&name| (name, zeros(param))))
}

/// `check` (PyTorch's checks of the Adam family) and the learning rate's accessors of an
/// [`Update`] impl for Adam, Adamax, NAdam or RAdam: rules with the fields `lr`, `eps`,
/// `beta1`, `beta2` and `weight_decay`.
macro_rules! adam_family {
    () => {
        fn check(&self) -> Result<()> {
            super::adam_family_checks(
                self.lr,
                self.eps,
                [self.beta1, self.beta2],
                self.weight_decay,
            )
        }

        lr_field!();
    };
}

pub(crate) use adam_family;

/// The checks of the Adam family (Adam, Adamax, NAdam, RAdam), in PyTorch's order.
fn adam_family_checks(lr: f64, eps: f64, betas: [f64; 2], weight_decay: f64) -> Result<()> {
    non_negative("learning rate", lr)?;
    non_negative("epsilon value", eps)?;
    betas_in_range(betas)?;
    non_negative("weight_decay value", weight_decay)
}

#[cfg(test)]
mod tests {
    use super::rule::{Adadelta, Adagrad, Adam, Adamax, Asgd, Nadam, Radam, RmsProp, Rprop, Sgd};
    use super::{Optim, Optimizer, Update};
    use crate::core::tensor::Tensor;

    /// Three steps of `rule` on a contiguous parameter (updated in place, in one pass) and on
    /// a strided one with the same elements (updated through copies) give the same bits.
    fn same_steps_in_place_and_through_copies<R: Update>(rule: R) {
        let values: Vec<f32> = (0..6).map(|i| (i as f32 * 0.7).sin()).collect();
        let grads: Vec<f32> = (0..6).map(|i| (i as f32 * 1.3).cos()).collect();
        let dense = Tensor::from_vec(values.clone(), &[3, 2]).unwrap();
        // the same elements as the transpose of a (2, 3) tensor: not contiguous
        let strided = Tensor::from_vec(values, &[3, 2])
            .unwrap()
            .t()
            .unwrap()
            .contiguous()
            .unwrap()
            .t()
            .unwrap();
        assert!(!strided.is_contiguous());
        for p in [&dense, &strided] {
            let grad = Tensor::from_vec(grads.clone(), &[3, 2]).unwrap();
            p.set_grad(Some(grad)).unwrap();
        }
        let mut opt = Optim::with_rule(vec![dense.clone(), strided.clone()], rule);
        for _ in 0..3 {
            opt.step().unwrap();
        }
        let before: Vec<f32> = (0..6).map(|i| (i as f32 * 0.7).sin()).collect();
        let after = dense.to_vec::<f32>().unwrap();
        assert_ne!(after, before, "the steps moved the parameter");
        assert_eq!(after, strided.to_vec::<f32>().unwrap());
    }

    #[test]
    fn every_rule_takes_the_same_steps_in_place_and_through_copies() {
        same_steps_in_place_and_through_copies(Sgd {
            lr: 0.1,
            momentum: 0.9,
            dampening: 0.1,
            weight_decay: 0.01,
            nesterov: false,
            maximize: true,
        });
        same_steps_in_place_and_through_copies(Adam {
            lr: 0.1,
            beta1: 0.8,
            beta2: 0.9,
            eps: 1e-8,
            weight_decay: 0.01,
            amsgrad: true,
            maximize: false,
            decoupled: true,
        });
        same_steps_in_place_and_through_copies(RmsProp {
            lr: 0.01,
            alpha: 0.9,
            eps: 1e-8,
            weight_decay: 0.01,
            momentum: 0.5,
            centered: true,
            maximize: true,
        });
        same_steps_in_place_and_through_copies(Adagrad {
            lr: 0.1,
            lr_decay: 0.01,
            initial_accumulator_value: 0.1,
            weight_decay: 0.01,
            eps: 1e-10,
            maximize: false,
        });
        same_steps_in_place_and_through_copies(Adadelta {
            lr: 1.0,
            rho: 0.9,
            eps: 1e-6,
            weight_decay: 0.01,
            maximize: false,
        });
        same_steps_in_place_and_through_copies(Adamax {
            lr: 0.01,
            beta1: 0.9,
            beta2: 0.99,
            eps: 1e-8,
            weight_decay: 0.01,
            maximize: true,
        });
        same_steps_in_place_and_through_copies(Nadam {
            lr: 0.01,
            beta1: 0.9,
            beta2: 0.99,
            eps: 1e-8,
            weight_decay: 0.01,
            momentum_decay: 4e-3,
            decoupled_weight_decay: true,
            maximize: false,
        });
        same_steps_in_place_and_through_copies(Radam {
            lr: 0.01,
            beta1: 0.9,
            beta2: 0.6,
            eps: 1e-8,
            weight_decay: 0.01,
            decoupled_weight_decay: false,
            maximize: false,
        });
        same_steps_in_place_and_through_copies(Rprop {
            lr: 0.01,
            etaminus: 0.5,
            etaplus: 1.2,
            step_size_min: 1e-6,
            step_size_max: 50.0,
            maximize: false,
        });
        same_steps_in_place_and_through_copies(Asgd {
            lr: 0.01,
            lambd: 1e-4,
            alpha: 0.75,
            t0: 1.0,
            weight_decay: 0.01,
            maximize: false,
        });
    }
}
