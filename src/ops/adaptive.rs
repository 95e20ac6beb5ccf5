//! Adaptive-rate optimizer updates: PyTorch's single-tensor `RMSprop`, `Adagrad`, `Adadelta`,
//! `Adamax`, `NAdam`, `RAdam`, `Rprop` and `ASGD`, each parameter updated in one pass with the
//! operations in PyTorch's order and the parameter's precision, outside autograd (as `optim`
//! does for SGD and Adam). State tensors are written in place; the caller keeps the step
//! counts.

use super::optim::{check, lerp, per_float, read_gradient, store, values};
use crate::core::dtype::DType;
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
pub struct RmsPropState<'a> {
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
    pub fn step(&self, param: &Tensor, grad: &Tensor, state: RmsPropState<'_>) -> Result<()> {
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
    pub fn step(&self, param: &Tensor, grad: &Tensor, sum: &Tensor, step: u64) -> Result<()> {
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
    pub fn step(
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
    pub fn step(
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

/// `torch.optim.NAdam`'s hyper-parameters (Adam with Nesterov momentum whose coefficient
/// `mu_t = beta1 (1 - 0.5 · 0.96^(t · momentum_decay))` warms up over the steps).
#[derive(Clone, Copy, Debug)]
pub struct Nadam {
    /// Learning rate.
    pub lr: f64,
    /// Decay of the running average of the gradient.
    pub beta1: f64,
    /// Decay of the running average of the squared gradient.
    pub beta2: f64,
    /// Added to the denominator.
    pub eps: f64,
    /// Weight decay: an L2 penalty added to the gradient, or decoupled (AdamW's).
    pub weight_decay: f64,
    /// How fast the momentum coefficient warms up.
    pub momentum_decay: f64,
    /// Shrink the parameter by `1 - lr · weight_decay` instead of adding an L2 penalty.
    pub decoupled_weight_decay: bool,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

/// `torch.optim.RAdam`'s hyper-parameters (Adam whose adaptive rate is used only once the
/// variance of its estimate is tractable, scaled by the rectification term).
#[derive(Clone, Copy, Debug)]
pub struct Radam {
    /// Learning rate.
    pub lr: f64,
    /// Decay of the running average of the gradient.
    pub beta1: f64,
    /// Decay of the running average of the squared gradient.
    pub beta2: f64,
    /// Added to the denominator.
    pub eps: f64,
    /// Weight decay: an L2 penalty added to the gradient, or decoupled (AdamW's).
    pub weight_decay: f64,
    /// Shrink the parameter by `1 - lr · weight_decay` instead of adding an L2 penalty.
    pub decoupled_weight_decay: bool,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

/// The gradient as the Adam family reads it, and the parameter after a decoupled decay:
/// negated when maximizing, then either `param *= 1 - lr · wd` or `grad += wd · param`.
fn decayed<T: crate::core::dtype::Float>(
    p: &mut [T],
    g: &mut [T],
    maximize: bool,
    (lr, weight_decay, decoupled): (f64, f64, bool),
) {
    if decoupled && weight_decay != 0.0 {
        let keep = T::from_f64(1.0 - lr * weight_decay);
        p.iter_mut().for_each(|p| *p = *p * keep);
        read_gradient(g, p, maximize, 0.0);
    } else {
        read_gradient(g, p, maximize, weight_decay);
    }
}

impl Nadam {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad`, its running
    /// averages `exp_avg` and `exp_avg_sq`, and `mu_product` (a 0-d float32 tensor, the product
    /// of the momentum coefficients so far, updated in place in its own precision as PyTorch's).
    pub fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        [exp_avg, exp_avg_sq, mu_product]: [&Tensor; 3],
        step: u64,
    ) -> Result<()> {
        crate::ops::inplace::observe_write(param)?;
        check(param, &[grad, exp_avg, exp_avg_sq])?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        let t = step as f64;
        let bias_correction2 = 1.0 - self.beta2.powf(t);
        let mu = self.beta1 * (1.0 - 0.5 * 0.96f64.powf(t * self.momentum_decay));
        let mu_next = self.beta1 * (1.0 - 0.5 * 0.96f64.powf((t + 1.0) * self.momentum_decay));
        // mu_product *= mu, in the state tensor's own dtype
        let old = mu_product.item()?.to_f64();
        let product = if mu_product.dtype() == DType::Float32 {
            wide((old as f32) * (mu as f32))
        } else {
            old * mu
        };
        write_scalar(mu_product, product)?;
        let product_next = product * mu_next;
        let grad_step = -self.lr * (1.0 - mu) / (1.0 - product);
        let avg_step = (-self.lr * mu_next) / (1.0 - product_next);
        per_float!(param.dtype(), T => {
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            decayed(&mut p, &mut g, self.maximize, (self.lr, self.weight_decay, self.decoupled_weight_decay));
            let (weight, beta2, rest) = ((1.0 - self.beta1) as T, self.beta2 as T, (1.0 - self.beta2) as T);
            let (bc2, eps) = (bias_correction2 as T, self.eps as T);
            let (grad_step, avg_step) = (grad_step as T, avg_step as T);
            let mut m: Vec<T> = values(exp_avg)?;
            let mut v: Vec<T> = values(exp_avg_sq)?;
            for (((p, &g), m), v) in p.iter_mut().zip(&g).zip(m.iter_mut()).zip(v.iter_mut()) {
                // exp_avg.lerp_(grad, 1 - beta1); exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)
                *m = lerp(*m, g, weight);
                *v = *v * beta2 + rest * g * g;
                let denom = (*v / bc2).sqrt() + eps;
                // param.addcdiv_(grad, denom, value=grad_step).addcdiv_(exp_avg, denom, value=avg_step)
                *p += grad_step * g / denom;
                *p += avg_step * *m / denom;
            }
            store(exp_avg, m)?;
            store(exp_avg_sq, v)?;
            store(param, p)?;
        });
        param.storage().bump_version("nadam step");
        Ok(())
    }
}

impl Radam {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad` and its running
    /// averages `exp_avg` and `exp_avg_sq`.
    pub fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        exp_avg: &Tensor,
        exp_avg_sq: &Tensor,
        step: u64,
    ) -> Result<()> {
        crate::ops::inplace::observe_write(param)?;
        check(param, &[grad, exp_avg, exp_avg_sq])?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        let t = step as f64;
        let (bias_correction1, bias_correction2) =
            (1.0 - self.beta1.powf(t), 1.0 - self.beta2.powf(t));
        // the length of the approximated simple moving average, and its limit
        let rho_inf = 2.0 / (1.0 - self.beta2) - 1.0;
        let rho_t = rho_inf - 2.0 * t * self.beta2.powf(t) / bias_correction2;
        let rect = ((rho_t - 4.0) * (rho_t - 2.0) * rho_inf
            / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t))
            .sqrt();
        per_float!(param.dtype(), T => {
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            decayed(&mut p, &mut g, self.maximize, (self.lr, self.weight_decay, self.decoupled_weight_decay));
            let (weight, beta2, rest) = ((1.0 - self.beta1) as T, self.beta2 as T, (1.0 - self.beta2) as T);
            let (bc1, lr, eps) = (bias_correction1 as T, self.lr as T, self.eps as T);
            let (root_bc2, rect) = (bias_correction2.sqrt() as T, rect as T);
            let mut m: Vec<T> = values(exp_avg)?;
            let mut v: Vec<T> = values(exp_avg_sq)?;
            for (((p, &g), m), v) in p.iter_mut().zip(&g).zip(m.iter_mut()).zip(v.iter_mut()) {
                *m = lerp(*m, g, weight);
                *v = *v * beta2 + rest * g * g;
                let corrected = *m / bc1 * lr;
                // the adaptive rate and the rectification once rho_t > 5, else plain momentum
                let update = if rho_t > 5.0 {
                    // (PyTorch's `number / tensor` is `tensor.reciprocal() * number`)
                    corrected * ((v.sqrt() + eps).recip() * root_bc2) * rect
                } else {
                    corrected
                };
                *p -= update;
            }
            store(exp_avg, m)?;
            store(exp_avg_sq, v)?;
            store(param, p)?;
        });
        param.storage().bump_version("radam step");
        Ok(())
    }
}

/// `torch.optim.Rprop`'s hyper-parameters (resilient backpropagation: each element's step
/// size grows while its gradient keeps its sign and shrinks when the sign flips; only the
/// gradient's sign moves the parameter).
#[derive(Clone, Copy, Debug)]
pub struct Rprop {
    /// Factor a step size is multiplied by after a sign flip (`etas[0]`, below 1).
    pub etaminus: f64,
    /// Factor a step size is multiplied by while the sign holds (`etas[1]`, above 1).
    pub etaplus: f64,
    /// Smallest step size (`step_sizes[0]`).
    pub step_size_min: f64,
    /// Largest step size (`step_sizes[1]`).
    pub step_size_max: f64,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

impl Rprop {
    /// One step for `param` with gradient `grad`, the previous step's gradient `prev` and the
    /// per-element step sizes `step_size` (both updated in place).
    pub fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        prev: &Tensor,
        step_size: &Tensor,
    ) -> Result<()> {
        crate::ops::inplace::observe_write(param)?;
        check(param, &[grad, prev, step_size])?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        per_float!(param.dtype(), T => {
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            read_gradient(&mut g, &p, self.maximize, 0.0);
            let (etaminus, etaplus) = (self.etaminus as T, self.etaplus as T);
            let (lo, hi) = (self.step_size_min as T, self.step_size_max as T);
            let mut before: Vec<T> = values(prev)?;
            let mut size: Vec<T> = values(step_size)?;
            for (((p, g), prev), size) in
                p.iter_mut().zip(g.iter_mut()).zip(before.iter_mut()).zip(size.iter_mut())
            {
                // sign = grad.mul(prev).sign(), then etaplus / etaminus / 1 where it is > / < / == 0
                let product = *g * *prev;
                let factor = if product > 0.0 {
                    etaplus
                } else if product < 0.0 {
                    etaminus
                } else if product == 0.0 {
                    1.0
                } else {
                    product // NaN stays NaN
                };
                // step_size.mul_(sign).clamp_(min, max)
                *size = clamp(*size * factor, lo, hi);
                // where the sign flipped the gradient counts as zero (no move, no memory)
                if factor == etaminus {
                    *g = 0.0;
                }
                // param.addcmul_(grad.sign(), step_size, value=-1); prev.copy_(grad)
                *p += -(signum(*g) * *size);
                *prev = *g;
            }
            store(prev, before)?;
            store(step_size, size)?;
            store(param, p)?;
        });
        param.storage().bump_version("rprop step");
        Ok(())
    }
}

/// PyTorch's `clamp_(min, max)` for one element (NaN stays NaN).
fn clamp<T: crate::core::dtype::Float>(v: T, lo: T, hi: T) -> T {
    if v.is_nan() {
        v
    } else if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

/// PyTorch's `sign()` for one element: -1, 0 or 1 (NaN stays NaN, and -0 gives 0).
fn signum<T: crate::core::dtype::Float>(v: T) -> T {
    if v > T::from_f64(0.0) {
        T::from_f64(1.0)
    } else if v < T::from_f64(0.0) {
        T::from_f64(-1.0)
    } else if v == T::from_f64(0.0) {
        T::from_f64(0.0)
    } else {
        v
    }
}

/// `torch.optim.ASGD`'s hyper-parameters (averaged stochastic gradient descent: SGD whose rate
/// `eta` decays with the steps, and a running average `ax` of the parameter once `t0` steps
/// have passed).
#[derive(Clone, Copy, Debug)]
pub struct Asgd {
    /// Learning rate.
    pub lr: f64,
    /// Decay term.
    pub lambd: f64,
    /// Power of the rate's decay.
    pub alpha: f64,
    /// The step at which averaging starts.
    pub t0: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

impl Asgd {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad`, its average
    /// `ax`, and the 0-d tensors `eta` (the current rate) and `mu` (the averaging weight), all
    /// updated in place (`eta` and `mu` in their own precision, as PyTorch's).
    pub fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        [ax, eta, mu]: [&Tensor; 3],
        step: u64,
    ) -> Result<()> {
        crate::ops::inplace::observe_write(param)?;
        check(param, &[grad, ax])?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        let eta_value = eta.item()?.to_f64();
        let mu_value = mu.item()?.to_f64();
        per_float!(param.dtype(), T => {
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            read_gradient(&mut g, &p, self.maximize, self.weight_decay);
            // param.mul_(1 - lambd * eta); param.add_(grad, alpha=-eta)
            let (keep, rate) = ((1.0 - self.lambd * eta_value) as T, (-eta_value) as T);
            let mut a: Vec<T> = values(ax)?;
            for ((p, &g), a) in p.iter_mut().zip(&g).zip(a.iter_mut()) {
                *p *= keep;
                *p += rate * g;
                // ax.add_(param.sub(ax).mul_(mu)), or ax.copy_(param) while mu is 1
                *a = if mu_value != 1.0 { *a + (*p - *a) * mu_value as T } else { *p };
            }
            store(ax, a)?;
            store(param, p)?;
        });
        let t = step as f64;
        write_scalar(
            eta,
            self.lr / (1.0 + self.lambd * self.lr * t).powf(self.alpha),
        )?;
        write_scalar(mu, 1.0 / (t - self.t0).max(1.0))?;
        param.storage().bump_version("asgd step");
        Ok(())
    }
}

/// Writes the number `value` into the 0-d tensor `t` (in its dtype), without autograd.
fn write_scalar(t: &Tensor, value: f64) -> Result<()> {
    let src = Tensor::scalar_of(value, t.dtype());
    crate::cpu::kernels::write_into(t, &src);
    Ok(())
}

/// `torch.optim.Adafactor`'s hyper-parameters (Shazeer & Stern, 2018, in PyTorch's form:
/// the second moment of a matrix kept as row and column averages, an update clipped by its
/// root mean square and scaled by the parameter's).
#[derive(Clone, Copy, Debug)]
pub struct Adafactor {
    /// Learning rate (the relative step size is `min(lr, 1/sqrt(step))`).
    pub lr: f64,
    /// Exponent of the second-moment decay: the averaging weight at step `t` is `t^beta2_decay`.
    pub beta2_decay: f64,
    /// Floor of the variance estimate's square root (`None`: the parameter dtype's epsilon).
    pub eps1: Option<f64>,
    /// Floor of the parameter scale.
    pub eps2: f64,
    /// Clipping threshold of the update's root mean square.
    pub d: f64,
    /// Decoupled weight decay (the parameter scaled by `1 - lr * weight_decay`).
    pub weight_decay: f64,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

/// Adafactor's second-moment state of one parameter: row and column averages of the squared
/// gradient for a parameter of two or more dimensions (shapes `(..., R, 1)` and `(..., 1, C)`),
/// or the full average for a vector.
pub enum AdafactorState<'a> {
    /// `row_var` and `col_var`, factored over the last two dimensions.
    Factored(&'a Tensor, &'a Tensor),
    /// `variance`, the running average of the squared gradient.
    Full(&'a Tensor),
}

/// `x` in double precision (a generic conversion, so the float64 instance of a kernel body
/// written once for both float types is not an identity cast).
fn wide<T: Into<f64>>(x: T) -> f64 {
    x.into()
}

/// The Euclidean norm of `v` (summed in double precision, as PyTorch's CPU reductions).
fn norm2(v: impl Iterator<Item = f64>) -> f64 {
    v.map(|x| x * x).sum::<f64>().sqrt()
}

impl Adafactor {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad` and its
    /// second-moment `state`, in PyTorch's single-tensor order of operations.
    pub fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        state: AdafactorState<'_>,
        step: u64,
    ) -> Result<()> {
        crate::ops::inplace::observe_write(param)?;
        check(param, &[grad])?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        let shape = param.shape().to_vec();
        let t = step as f64;
        let weight = t.powf(self.beta2_decay);
        let rho = self.lr.min(1.0 / t.sqrt());
        let numel = param.numel().max(1) as f64;
        per_float!(param.dtype(), T => {
            let eps1 = self.eps1.unwrap_or(wide(T::EPSILON));
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            read_gradient(&mut g, &p, self.maximize, 0.0);
            let alpha = self.eps2.max(norm2(p.iter().map(|&x| wide(x))) / numel.sqrt()) * rho;
            if self.weight_decay != 0.0 {
                let keep = (1.0 - self.lr * self.weight_decay) as T;
                p.iter_mut().for_each(|p| *p *= keep);
            }
            let w = weight as T;
            let mut estimate: Vec<T> = match state {
                AdafactorState::Factored(row_var, col_var) => {
                    let (rows, cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
                    let mut rv: Vec<T> = values(row_var)?;
                    let mut cv: Vec<T> = values(col_var)?;
                    let mut estimate = vec![0 as T; g.len()];
                    let plane = rows * cols;
                    for (b, gp) in g.chunks(plane.max(1)).enumerate().take(rv.len() / rows.max(1)) {
                        let (rvb, cvb) = (&mut rv[b * rows..][..rows], &mut cv[b * cols..][..cols]);
                        // row_var.lerp_(norm(grad, dim=-1)^2 / C, w); the same over the rows
                        for (r, v) in rvb.iter_mut().enumerate() {
                            let n = norm2(gp[r * cols..][..cols].iter().map(|&x| wide(x))) as T;
                            *v = lerp(*v, n * n / cols as T, w);
                        }
                        for (c, v) in cvb.iter_mut().enumerate() {
                            let n = norm2((0..rows).map(|r| wide(gp[r * cols + c]))) as T;
                            *v = lerp(*v, n * n / rows as T, w);
                        }
                        // (row_var @ col_var) / row_var.mean(dim=-2).clamp(min=eps1)
                        let mean = rvb.iter().map(|&v| wide(v)).sum::<f64>() / rows as f64;
                        let divisor = (mean as T).max(eps1 as T);
                        let out = &mut estimate[b * plane..][..plane];
                        for r in 0..rows {
                            for c in 0..cols {
                                out[r * cols + c] = rvb[r] * cvb[c] / divisor;
                            }
                        }
                    }
                    store(row_var, rv)?;
                    store(col_var, cv)?;
                    estimate
                }
                AdafactorState::Full(variance) => {
                    let mut v: Vec<T> = values(variance)?;
                    v.iter_mut().zip(&g).for_each(|(v, &g)| *v = lerp(*v, g * g, w));
                    store(variance, v.clone())?;
                    v
                }
            };
            // update = estimate.clamp(min=eps1^2).rsqrt() * grad, its RMS clipped to d
            let floor = (eps1 * eps1) as T;
            estimate.iter_mut().zip(&g).for_each(|(u, &g)| *u = (1 as T / u.max(floor).sqrt()) * g);
            let denom = 1f64.max(norm2(estimate.iter().map(|&x| wide(x))) / (numel.sqrt() * self.d));
            let scale = (-alpha / denom) as T;
            p.iter_mut().zip(&estimate).for_each(|(p, &u)| *p += scale * u);
            store(param, p)?;
        });
        param.storage().bump_version("adafactor step");
        Ok(())
    }
}
