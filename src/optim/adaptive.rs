//! Adaptive-rate rules: PyTorch's single-tensor `RMSprop`, `Adagrad`, `Adadelta` and `Adamax`,
//! each parameter updated in one pass with the operations in PyTorch's order and the
//! parameter's precision.

use super::kernel::{check, lerp, per_float, read_gradient, store, values};
use super::{adam_family_checks, lr_field, non_negative, settings, zeroed, zeros, State, Update};
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
    pub square_avg: &'a Tensor,
    /// The momentum buffer (when `momentum > 0`).
    pub momentum_buffer: Option<&'a Tensor>,
    /// Running average of the gradient (when `centered`).
    pub grad_avg: Option<&'a Tensor>,
}

fn state_shapes<'a>(grad: &'a Tensor, state: &[Option<&'a Tensor>]) -> Vec<&'a Tensor> {
    std::iter::once(grad)
        .chain(state.iter().flatten().copied())
        .collect()
}

fn needed(t: Option<&Tensor>, what: &str) -> Result<Tensor> {
    t.cloned().ok_or_else(|| {
        crate::core::error::Error::runtime(format!("this optimizer step needs its {what} state"))
    })
}

impl RmsProp {
    /// One step for `param` with gradient `grad` and its `state`.
    fn step(&self, param: &Tensor, grad: &Tensor, state: RmsPropState<'_>) -> Result<()> {
        crate::ops::inplace::observe_write(param)?;
        let optional = [
            Some(state.square_avg),
            state.momentum_buffer,
            state.grad_avg,
        ];
        check(param, &state_shapes(grad, &optional))?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        per_float!(param.dtype(), T => {
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            read_gradient(&mut g, &p, self.maximize, self.weight_decay);
            // square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            let (alpha, rest) = (self.alpha as T, (1.0 - self.alpha) as T);
            let mut sq: Vec<T> = values(state.square_avg)?;
            sq.iter_mut().zip(&g).for_each(|(s, &g)| *s = *s * alpha + rest * g * g);
            let eps = self.eps as T;
            let avg: Vec<T> = if self.centered {
                // grad_avg.lerp_(grad, 1 - alpha); avg = (square_avg - grad_avg²).sqrt() + eps
                let grad_avg = needed(state.grad_avg, "grad_avg")?;
                let mut ga: Vec<T> = values(&grad_avg)?;
                ga.iter_mut().zip(&g).for_each(|(a, &g)| *a = lerp(*a, g, rest));
                let avg = sq.iter().zip(&ga).map(|(&s, &a)| (s + -a * a).sqrt() + eps).collect();
                store(&grad_avg, ga)?;
                avg
            } else {
                sq.iter().map(|&s| s.sqrt() + eps).collect()
            };
            let lr = self.lr as T;
            if self.momentum > 0.0 {
                // buf.mul_(momentum).addcdiv_(grad, avg); param.add_(buf, alpha=-lr)
                let buffer = needed(state.momentum_buffer, "momentum_buffer")?;
                let momentum = self.momentum as T;
                let mut buf: Vec<T> = values(&buffer)?;
                for ((b, &g), &a) in buf.iter_mut().zip(&g).zip(&avg) {
                    *b = *b * momentum + g / a;
                }
                p.iter_mut().zip(&buf).for_each(|(p, &b)| *p += -lr * b);
                store(&buffer, buf)?;
            } else {
                // param.addcdiv_(grad, avg, value=-lr)
                for ((p, &g), &a) in p.iter_mut().zip(&g).zip(&avg) {
                    *p += -lr * g / a;
                }
            }
            store(state.square_avg, sq)?;
            store(param, p)?;
        });
        param.storage().bump_version("rmsprop step");
        Ok(())
    }
}

impl Adagrad {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad` and its
    /// running sum of squared gradients `sum`.
    fn step(&self, param: &Tensor, grad: &Tensor, sum: &Tensor, step: u64) -> Result<()> {
        crate::ops::inplace::observe_write(param)?;
        check(param, &[grad, sum])?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        let clr = self.lr / (1.0 + (step as f64 - 1.0) * self.lr_decay);
        per_float!(param.dtype(), T => {
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            read_gradient(&mut g, &p, self.maximize, self.weight_decay);
            // state_sum.addcmul_(grad, grad, value=1); std = state_sum.sqrt().add_(eps);
            // param.addcdiv_(grad, std, value=-clr)
            let mut s: Vec<T> = values(sum)?;
            s.iter_mut().zip(&g).for_each(|(s, &g)| *s += g * g);
            let (eps, value) = (self.eps as T, (-clr) as T);
            for ((p, &g), &s) in p.iter_mut().zip(&g).zip(&s) {
                *p += value * g / (s.sqrt() + eps);
            }
            store(sum, s)?;
            store(param, p)?;
        });
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
        crate::ops::inplace::observe_write(param)?;
        check(param, &[grad, square_avg, acc_delta])?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        per_float!(param.dtype(), T => {
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            read_gradient(&mut g, &p, self.maximize, self.weight_decay);
            let (rho, rest, eps, lr) =
                (self.rho as T, (1.0 - self.rho) as T, self.eps as T, self.lr as T);
            let mut sq: Vec<T> = values(square_avg)?;
            let mut acc: Vec<T> = values(acc_delta)?;
            for (((p, &g), s), a) in p.iter_mut().zip(&g).zip(sq.iter_mut()).zip(acc.iter_mut()) {
                // square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                *s = *s * rho + rest * g * g;
                // delta = (acc_delta + eps).sqrt() / (square_avg + eps).sqrt() * grad
                let std = (*s + eps).sqrt();
                let delta = (*a + eps).sqrt() / std * g;
                // acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                *a = *a * rho + rest * delta * delta;
                *p += -lr * delta;
            }
            store(square_avg, sq)?;
            store(acc_delta, acc)?;
            store(param, p)?;
        });
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
        crate::ops::inplace::observe_write(param)?;
        check(param, &[grad, exp_avg, exp_inf])?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        let clr = self.lr / (1.0 - self.beta1.powf(step as f64));
        per_float!(param.dtype(), T => {
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            read_gradient(&mut g, &p, self.maximize, self.weight_decay);
            let (weight, beta2, eps, value) =
                ((1.0 - self.beta1) as T, self.beta2 as T, self.eps as T, (-clr) as T);
            let mut m: Vec<T> = values(exp_avg)?;
            let mut u: Vec<T> = values(exp_inf)?;
            for (((p, &g), m), u) in p.iter_mut().zip(&g).zip(m.iter_mut()).zip(u.iter_mut()) {
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
            store(exp_avg, m)?;
            store(exp_inf, u)?;
            store(param, p)?;
        });
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
    fn check(&self) -> Result<()> {
        adam_family_checks(
            self.lr,
            self.eps,
            [self.beta1, self.beta2],
            self.weight_decay,
        )
    }

    lr_field!();

    fn init(&self, param: &Tensor) -> Result<State> {
        Ok(zeroed(param, &["exp_avg", "exp_inf"]))
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        let (exp_avg, exp_inf) = (state.need("exp_avg")?, state.need("exp_inf")?);
        self.step(param, grad, exp_avg, exp_inf, state.step)
    }
}
