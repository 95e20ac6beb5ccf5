//! Adaptive-rate rules: PyTorch's single-tensor `RMSprop`, `Adagrad`, `Adadelta` and `Adamax`,
//! each parameter updated in one pass with the operations in PyTorch's order and the
//! parameter's precision.

use super::kernel::{lerp, needed, per_float, prepare, update_elements, Reading};
use super::{adam_family, lr_field, non_negative, settings, zeroed, zeros, State, Update};
use crate::core::error::Result;
use crate::core::tensor::Tensor;

/// `torch.optim.RMSprop`'s hyper-parameters.
#[derive(Clone, Copy, Debug)]
pub struct RmsProp {
    /// Learning rate.
    pub lr: f64,
    /// Decay of the running average of the squared gradient.
    pub alpha: f64,
    /// Added to the denominator.
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Momentum factor (0: none).
    pub momentum: f64,
    /// Normalize by the variance estimate (the mean gradient subtracted).
    pub centered: bool,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

/// `torch.optim.Adagrad`'s hyper-parameters.
#[derive(Clone, Copy, Debug)]
pub struct Adagrad {
    /// Learning rate.
    pub lr: f64,
    /// Decay of the learning rate per step.
    pub lr_decay: f64,
    /// The value the running sum of squared gradients starts from.
    pub initial_accumulator_value: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Added to the denominator.
    pub eps: f64,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

/// `torch.optim.Adadelta`'s hyper-parameters.
#[derive(Clone, Copy, Debug)]
pub struct Adadelta {
    /// Scale of the computed update.
    pub lr: f64,
    /// Decay of the running averages.
    pub rho: f64,
    /// Added inside the square roots.
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

/// `torch.optim.Adamax`'s hyper-parameters.
#[derive(Clone, Copy, Debug)]
pub struct Adamax {
    /// Learning rate.
    pub lr: f64,
    /// Decay of the running average of the gradient.
    pub beta1: f64,
    /// Decay of the running infinity norm.
    pub beta2: f64,
    /// Added to the infinity norm.
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

/// The state RMSprop keeps for one parameter.
struct RmsPropState<'a> {
    /// Running average of the squared gradient.
    square_avg: &'a Tensor,
    /// The momentum buffer (when `momentum > 0`).
    momentum_buffer: Option<&'a Tensor>,
    /// Running average of the gradient (when `centered`).
    grad_avg: Option<&'a Tensor>,
}

impl RmsProp {
    /// One step for `param` with gradient `grad` and its `state`.
    fn step(&self, param: &Tensor, grad: &Tensor, state: RmsPropState<'_>) -> Result<()> {
        let buffer = (self.momentum > 0.0)
            .then(|| needed(state.momentum_buffer, "momentum_buffer"))
            .transpose()?;
        let grad_avg = self
            .centered
            .then(|| needed(state.grad_avg, "grad_avg"))
            .transpose()?;
        let mut tensors = vec![state.square_avg];
        tensors.extend(buffer);
        tensors.extend(grad_avg);
        let grad = prepare(param, grad, &tensors)?;
        let read = Reading::l2(self.maximize, self.weight_decay);
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &tensors, move |p, g, s| {
            let (alpha, rest, eps, lr) =
                (self.alpha as T, (1.0 - self.alpha) as T, self.eps as T, self.lr as T);
            let momentum = self.momentum as T;
            let [sq, more @ ..] = s else { unreachable!("square_avg") };
            if more.is_empty() {
                // the default (no momentum, not centered), straight-line so that it vectorizes
                for ((p, &g), sq) in p.iter_mut().zip(g).zip(sq.iter_mut()) {
                    let g = read.at(p, g);
                    *sq = *sq * alpha + rest * g * g;
                    *p += -lr * g / (sq.sqrt() + eps);
                }
                return;
            }
            let (mut buf, more) = match more {
                [b, more @ ..] if buffer.is_some() => (Some(b), more),
                _ => (None, more),
            };
            let mut centered = more.first_mut();
            for i in 0..p.len() {
                let g = read.at(&mut p[i], g[i]);
                // square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                sq[i] = sq[i] * alpha + rest * g * g;
                let avg = match centered.as_deref_mut() {
                    // grad_avg.lerp_(grad, 1 - alpha); avg = (square_avg - grad_avg²).sqrt() + eps
                    Some(ga) => {
                        ga[i] = lerp(ga[i], g, rest);
                        (sq[i] + -ga[i] * ga[i]).sqrt() + eps
                    }
                    None => sq[i].sqrt() + eps,
                };
                match buf.as_deref_mut() {
                    // buf.mul_(momentum).addcdiv_(grad, avg); param.add_(buf, alpha=-lr)
                    Some(b) => {
                        b[i] = b[i] * momentum + g / avg;
                        p[i] += -lr * b[i];
                    }
                    // param.addcdiv_(grad, avg, value=-lr)
                    None => p[i] += -lr * g / avg,
                }
            }
        }))?;
        param.storage().bump_version("rmsprop step");
        Ok(())
    }
}

impl Adagrad {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad` and its
    /// running sum of squared gradients `sum`.
    fn step(&self, param: &Tensor, grad: &Tensor, sum: &Tensor, step: u64) -> Result<()> {
        let grad = prepare(param, grad, &[sum])?;
        let clr = self.lr / (1.0 + (step as f64 - 1.0) * self.lr_decay);
        let read = Reading::l2(self.maximize, self.weight_decay);
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &[sum], move |p, g, s| {
            let (eps, value) = (self.eps as T, (-clr) as T);
            let [sum] = s else { unreachable!("sum") };
            for ((p, &g), s) in p.iter_mut().zip(g).zip(sum.iter_mut()) {
                let g = read.at(p, g);
                // state_sum.addcmul_(grad, grad, value=1); std = state_sum.sqrt().add_(eps);
                // param.addcdiv_(grad, std, value=-clr)
                *s += g * g;
                *p += value * g / (s.sqrt() + eps);
            }
        }))?;
        param.storage().bump_version("adagrad step");
        Ok(())
    }
}

impl Adadelta {
    /// One step for `param` with gradient `grad` and its running averages of squared
    /// gradients and squared updates.
    fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        square_avg: &Tensor,
        acc_delta: &Tensor,
    ) -> Result<()> {
        let state = [square_avg, acc_delta];
        let grad = prepare(param, grad, &state)?;
        let read = Reading::l2(self.maximize, self.weight_decay);
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &state, move |p, g, s| {
            let (rho, rest, eps, lr) =
                (self.rho as T, (1.0 - self.rho) as T, self.eps as T, self.lr as T);
            let [sq, acc] = s else { unreachable!("square_avg, acc_delta") };
            for (((p, &g), s), a) in p.iter_mut().zip(g).zip(sq.iter_mut()).zip(acc.iter_mut()) {
                let g = read.at(p, g);
                // square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                *s = *s * rho + rest * g * g;
                // delta = (acc_delta + eps).sqrt() / (square_avg + eps).sqrt() * grad
                let std = (*s + eps).sqrt();
                let delta = (*a + eps).sqrt() / std * g;
                // acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                *a = *a * rho + rest * delta * delta;
                *p += -lr * delta;
            }
        }))?;
        param.storage().bump_version("adadelta step");
        Ok(())
    }
}

impl Adamax {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad`, its running
    /// average `exp_avg` and running infinity norm `exp_inf`.
    fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        exp_avg: &Tensor,
        exp_inf: &Tensor,
        step: u64,
    ) -> Result<()> {
        let state = [exp_avg, exp_inf];
        let grad = prepare(param, grad, &state)?;
        let clr = self.lr / (1.0 - self.beta1.powf(step as f64));
        let read = Reading::l2(self.maximize, self.weight_decay);
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &state, move |p, g, s| {
            let (weight, beta2, eps, value) =
                ((1.0 - self.beta1) as T, self.beta2 as T, self.eps as T, (-clr) as T);
            let [m, u] = s else { unreachable!("exp_avg, exp_inf") };
            for (((p, &g), m), u) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(u.iter_mut()) {
                let g = read.at(p, g);
                // exp_avg.lerp_(grad, 1 - beta1); exp_inf = max(exp_inf * beta2, |grad| + eps)
                *m = lerp(*m, g, weight);
                let (decayed, fresh) = (*u * beta2, g.abs() + eps);
                *u = if decayed.is_nan() || fresh.is_nan() {
                    T::NAN
                } else {
                    decayed.max(fresh)
                };
                // param.addcdiv_(exp_avg, exp_inf, value=-clr)
                *p += value * *m / *u;
            }
        }))?;
        param.storage().bump_version("adamax step");
        Ok(())
    }
}

settings!(RmsProp, RmsProp { lr: 1e-2, alpha: 0.99, eps: 1e-8, weight_decay: 0.0, momentum: 0.0, centered: false, maximize: false };
    /// The decay of the running average of the squared gradient (default 0.99).
    alpha: f64,
    /// The term added to the denominator (default `1e-8`).
    eps: f64,
    /// The L2 penalty added to the gradient (default 0).
    weight_decay: f64,
    /// The momentum factor (default 0: none).
    momentum: f64,
    /// Divide by the variance estimate (the mean gradient subtracted).
    centered: bool,
    /// Maximise the objective instead of minimising it.
    maximize: bool,
);

settings!(Adagrad, Adagrad { lr: 1e-2, lr_decay: 0.0, initial_accumulator_value: 0.0, weight_decay: 0.0, eps: 1e-10, maximize: false };
    /// The decay of the learning rate per step (default 0).
    lr_decay: f64,
    /// The value the running sum of squared gradients starts from (default 0).
    initial_accumulator_value: f64,
    /// The L2 penalty added to the gradient (default 0).
    weight_decay: f64,
    /// The term added to the denominator (default `1e-10`).
    eps: f64,
    /// Maximise the objective instead of minimising it.
    maximize: bool,
);

settings!(Adadelta, Adadelta { lr: 1.0, rho: 0.9, eps: 1e-6, weight_decay: 0.0, maximize: false };
    /// The decay of the running averages (default 0.9).
    rho: f64,
    /// The term added inside the square roots (default `1e-6`).
    eps: f64,
    /// The L2 penalty added to the gradient (default 0).
    weight_decay: f64,
    /// Maximise the objective instead of minimising it.
    maximize: bool,
);

settings!(Adamax, Adamax { lr: 2e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0.0, maximize: false };
    /// The term added to the infinity norm (default `1e-8`).
    eps: f64,
    /// The L2 penalty added to the gradient (default 0).
    weight_decay: f64,
    /// Maximise the objective instead of minimising it.
    maximize: bool,
);

impl super::Optim<Adamax> {
    /// The decays of the running average of the gradient and of the infinity norm
    /// (default `(0.9, 0.999)`).
    pub fn betas(mut self, beta1: f64, beta2: f64) -> Self {
        self.rule.beta1 = beta1;
        self.rule.beta2 = beta2;
        self
    }
}

impl Update for RmsProp {
    fn check(&self) -> Result<()> {
        non_negative("learning rate", self.lr)?;
        non_negative("epsilon value", self.eps)?;
        non_negative("momentum value", self.momentum)?;
        non_negative("weight_decay value", self.weight_decay)?;
        non_negative("alpha value", self.alpha)
    }

    lr_field!();

    fn init(&self, param: &Tensor) -> Result<State> {
        let mut state = zeroed(param, &["square_avg"]);
        if self.momentum > 0.0 {
            state.insert("momentum_buffer", zeros(param));
        }
        if self.centered {
            state.insert("grad_avg", zeros(param));
        }
        Ok(state)
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        let state = RmsPropState {
            square_avg: state.need("square_avg")?,
            momentum_buffer: state.get("momentum_buffer"),
            grad_avg: state.get("grad_avg"),
        };
        self.step(param, grad, state)
    }
}

impl Update for Adagrad {
    fn check(&self) -> Result<()> {
        non_negative("learning rate", self.lr)?;
        non_negative("lr_decay value", self.lr_decay)?;
        non_negative("weight_decay value", self.weight_decay)?;
        non_negative(
            "initial_accumulator_value value",
            self.initial_accumulator_value,
        )?;
        non_negative("epsilon value", self.eps)
    }

    lr_field!();

    fn init(&self, param: &Tensor) -> Result<State> {
        let sum = param
            .detach()
            .full_like_laid_out(self.initial_accumulator_value, param.dtype());
        Ok(State::of([("sum", sum)]))
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        self.step(param, grad, state.need("sum")?, state.step)
    }
}

impl Update for Adadelta {
    fn check(&self) -> Result<()> {
        non_negative("learning rate", self.lr)?;
        non_negative("epsilon value", self.eps)?;
        non_negative("weight_decay value", self.weight_decay)?;
        if !(0.0..=1.0).contains(&self.rho) {
            return Err(crate::core::error::Error::value(format!(
                "Invalid rho value: {}",
                self.rho
            )));
        }
        Ok(())
    }

    lr_field!();

    fn init(&self, param: &Tensor) -> Result<State> {
        Ok(zeroed(param, &["square_avg", "acc_delta"]))
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        self.step(
            param,
            grad,
            state.need("square_avg")?,
            state.need("acc_delta")?,
        )
    }
}

impl Update for Adamax {
    adam_family!();

    fn init(&self, param: &Tensor) -> Result<State> {
        Ok(zeroed(param, &["exp_avg", "exp_inf"]))
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        let (exp_avg, exp_inf) = (state.need("exp_avg")?, state.need("exp_inf")?);
        self.step(param, grad, exp_avg, exp_inf, state.step)
    }
}
