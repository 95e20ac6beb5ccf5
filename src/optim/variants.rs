//! More of PyTorch's rules, run from Python and available to Rust through [`super::Optim`]
//! and [`super::Optim::with_rule`]: `NAdam` and `RAdam` (Adam with Nesterov momentum, and
//! rectified), `Rprop` (sign-based step sizes), `ASGD` (averaged SGD) and `Adafactor`
//! (factored second moments).

use super::kernel::{
    clamp, lerp, norm2, per_float, prepare, signum, store, update_elements, values, wide,
    write_scalar, Reading,
};
use super::{adam_family, lr_field, non_negative, zeroed, zeros, State, Update};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;

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

impl Nadam {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad`, its running
    /// averages `exp_avg` and `exp_avg_sq`, and `mu_product` (a 0-d float32 tensor, the product
    /// of the momentum coefficients so far, updated in place in its own precision as PyTorch's).
    fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        [exp_avg, exp_avg_sq, mu_product]: [&Tensor; 3],
        step: u64,
    ) -> Result<()> {
        let state = [exp_avg, exp_avg_sq];
        let grad = prepare(param, grad, &state)?;
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
        let read = Reading::decayed(
            self.maximize,
            (self.lr, self.weight_decay, self.decoupled_weight_decay),
        );
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &state, move |p, g, s| {
            let (weight, beta2, rest) = ((1.0 - self.beta1) as T, self.beta2 as T, (1.0 - self.beta2) as T);
            let (bc2, eps) = (bias_correction2 as T, self.eps as T);
            let (grad_step, avg_step) = (grad_step as T, avg_step as T);
            let [m, v] = s else { unreachable!("exp_avg, exp_avg_sq") };
            for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
                let g = read.at(p, g);
                // exp_avg.lerp_(grad, 1 - beta1); exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)
                *m = lerp(*m, g, weight);
                *v = *v * beta2 + rest * g * g;
                let denom = (*v / bc2).sqrt() + eps;
                // param.addcdiv_(grad, denom, value=grad_step).addcdiv_(exp_avg, denom, value=avg_step)
                *p += grad_step * g / denom;
                *p += avg_step * *m / denom;
            }
        }))?;
        param.storage().bump_version("nadam step");
        Ok(())
    }
}

impl Radam {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad` and its running
    /// averages `exp_avg` and `exp_avg_sq`.
    fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        exp_avg: &Tensor,
        exp_avg_sq: &Tensor,
        step: u64,
    ) -> Result<()> {
        let state = [exp_avg, exp_avg_sq];
        let grad = prepare(param, grad, &state)?;
        let t = step as f64;
        let (bias_correction1, bias_correction2) =
            (1.0 - self.beta1.powf(t), 1.0 - self.beta2.powf(t));
        // the length of the approximated simple moving average, and its limit
        let rho_inf = 2.0 / (1.0 - self.beta2) - 1.0;
        let rho_t = rho_inf - 2.0 * t * self.beta2.powf(t) / bias_correction2;
        let rect = ((rho_t - 4.0) * (rho_t - 2.0) * rho_inf
            / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t))
            .sqrt();
        let read = Reading::decayed(
            self.maximize,
            (self.lr, self.weight_decay, self.decoupled_weight_decay),
        );
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &state, move |p, g, s| {
            let (weight, beta2, rest) = ((1.0 - self.beta1) as T, self.beta2 as T, (1.0 - self.beta2) as T);
            let (bc1, lr, eps) = (bias_correction1 as T, self.lr as T, self.eps as T);
            let (root_bc2, rect) = (bias_correction2.sqrt() as T, rect as T);
            let [m, v] = s else { unreachable!("exp_avg, exp_avg_sq") };
            for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
                let g = read.at(p, g);
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
        }))?;
        param.storage().bump_version("radam step");
        Ok(())
    }
}

/// `torch.optim.Rprop`'s hyper-parameters (resilient backpropagation: each element's step
/// size grows while its gradient keeps its sign and shrinks when the sign flips; only the
/// gradient's sign moves the parameter).
#[derive(Clone, Copy, Debug)]
pub struct Rprop {
    /// Learning rate: every element's first step size.
    pub lr: f64,
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
    fn step(&self, param: &Tensor, grad: &Tensor, prev: &Tensor, step_size: &Tensor) -> Result<()> {
        let state = [prev, step_size];
        let grad = prepare(param, grad, &state)?;
        let read = Reading::l2(self.maximize, 0.0);
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &state, move |p, g, s| {
            let (etaminus, etaplus) = (self.etaminus as T, self.etaplus as T);
            let (lo, hi) = (self.step_size_min as T, self.step_size_max as T);
            let [before, size] = s else { unreachable!("prev, step_size") };
            for (((p, &g), prev), size) in
                p.iter_mut().zip(g).zip(before.iter_mut()).zip(size.iter_mut())
            {
                let mut g = read.at(p, g);
                // sign = grad.mul(prev).sign(), then etaplus / etaminus / 1 where it is > / < / == 0
                let product = g * *prev;
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
                    g = 0.0;
                }
                // param.addcmul_(grad.sign(), step_size, value=-1); prev.copy_(grad)
                *p += -(signum(g) * *size);
                *prev = g;
            }
        }))?;
        param.storage().bump_version("rprop step");
        Ok(())
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
    fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        [ax, eta, mu]: [&Tensor; 3],
        step: u64,
    ) -> Result<()> {
        let grad = prepare(param, grad, &[ax])?;
        let eta_value = eta.item()?.to_f64();
        let mu_value = mu.item()?.to_f64();
        let read = Reading::l2(self.maximize, self.weight_decay);
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &[ax], move |p, g, s| {
            // param.mul_(1 - lambd * eta); param.add_(grad, alpha=-eta)
            let (keep, rate) = ((1.0 - self.lambd * eta_value) as T, (-eta_value) as T);
            let [a] = s else { unreachable!("ax") };
            for ((p, &g), a) in p.iter_mut().zip(g).zip(a.iter_mut()) {
                let g = read.at(p, g);
                *p *= keep;
                *p += rate * g;
                // ax.add_(param.sub(ax).mul_(mu)), or ax.copy_(param) while mu is 1
                *a = if mu_value != 1.0 { *a + (*p - *a) * mu_value as T } else { *p };
            }
        }))?;
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
enum AdafactorState<'a> {
    /// `row_var` and `col_var`, factored over the last two dimensions.
    Factored(&'a Tensor, &'a Tensor),
    /// `variance`, the running average of the squared gradient.
    Full(&'a Tensor),
}

impl Adafactor {
    /// One step (number `step`, counted from 1) for `param` with gradient `grad` and its
    /// second-moment `state`, in PyTorch's single-tensor order of operations.
    fn step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        state: AdafactorState<'_>,
        step: u64,
    ) -> Result<()> {
        let grad = prepare(param, grad, &[])?;
        let shape = param.shape().to_vec();
        let t = step as f64;
        let weight = t.powf(self.beta2_decay);
        let rho = self.lr.min(1.0 / t.sqrt());
        let numel = param.numel().max(1) as f64;
        per_float!(param.dtype(), T => {
            let eps1 = self.eps1.unwrap_or(wide(T::EPSILON));
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            let read = Reading::l2(self.maximize, 0.0);
            g.iter_mut().zip(&p).for_each(|(g, &p)| *g = read.at(&mut { p }, *g));
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

/// A value error with `message` unless `ok`.
fn require(ok: bool, message: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::value(message()))
    }
}

/// A 0-d float32 tensor holding `value` (PyTorch keeps such scalar states in the default
/// dtype).
fn scalar(value: f64) -> Tensor {
    Tensor::scalar_of(value, DType::Float32)
}

impl Update for Nadam {
    fn check(&self) -> Result<()> {
        super::adam_family_checks(
            self.lr,
            self.eps,
            [self.beta1, self.beta2],
            self.weight_decay,
        )?;
        non_negative("momentum_decay value", self.momentum_decay)
    }

    lr_field!();

    fn init(&self, param: &Tensor) -> Result<State> {
        Ok(State::of([
            ("mu_product", scalar(1.0)),
            ("exp_avg", zeros(param)),
            ("exp_avg_sq", zeros(param)),
        ]))
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        let moments = [
            state.need("exp_avg")?,
            state.need("exp_avg_sq")?,
            state.need("mu_product")?,
        ];
        self.step(param, grad, moments, state.step)
    }
}

impl Update for Radam {
    adam_family!();

    fn init(&self, param: &Tensor) -> Result<State> {
        Ok(zeroed(param, &["exp_avg", "exp_avg_sq"]))
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        let (exp_avg, exp_avg_sq) = (state.need("exp_avg")?, state.need("exp_avg_sq")?);
        self.step(param, grad, exp_avg, exp_avg_sq, state.step)
    }
}

impl Update for Rprop {
    fn check(&self) -> Result<()> {
        non_negative("learning rate", self.lr)?;
        let (minus, plus) = (self.etaminus, self.etaplus);
        require(0.0 < minus && minus < 1.0 && 1.0 < plus, || {
            format!("Invalid eta values: {minus}, {plus}")
        })
    }

    lr_field!();

    fn init(&self, param: &Tensor) -> Result<State> {
        let step_size = param.detach().full_like_laid_out(self.lr, param.dtype());
        Ok(State::of([
            ("prev", zeros(param)),
            ("step_size", step_size),
        ]))
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        self.step(param, grad, state.need("prev")?, state.need("step_size")?)
    }
}

impl Update for Asgd {
    fn check(&self) -> Result<()> {
        non_negative("learning rate", self.lr)?;
        non_negative("weight_decay value", self.weight_decay)
    }

    lr_field!();

    fn init(&self, param: &Tensor) -> Result<State> {
        Ok(State::of([
            ("eta", scalar(self.lr)),
            ("mu", scalar(1.0)),
            ("ax", zeros(param)),
        ]))
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        let averages = [state.need("ax")?, state.need("eta")?, state.need("mu")?];
        self.step(param, grad, averages, state.step)
    }
}

impl Update for Adafactor {
    fn check(&self) -> Result<()> {
        let lr = self.lr;
        require(lr >= 0.0, || {
            format!("Learning rate should be >= 0 but is: {lr}")
        })?;
        let decay = self.beta2_decay;
        require(decay <= 0.0, || {
            format!("beta2_decay should be <= 0 but is: {decay}")
        })?;
        if let Some(eps1) = self.eps1 {
            require(eps1 >= 0.0, || {
                format!("epsilon1 should be >= 0 but is: {eps1}")
            })?;
        }
        let eps2 = self.eps2;
        require(eps2 >= 0.0, || {
            format!("epsilon2 should be >= 0 but is: {eps2}")
        })?;
        let d = self.d;
        require(d >= 1.0, || {
            format!("Clipping threshold d should be >= 1 but is: {d}")
        })?;
        let wd = self.weight_decay;
        require(wd >= 0.0, || {
            format!("weight_decay should be >= 0 but is: {wd}")
        })
    }

    lr_field!();

    /// Row and column averages for a parameter of two or more dimensions, the full average
    /// for a vector (made from the parameter's shape, as PyTorch makes them from the
    /// gradient's, which has the same).
    fn init(&self, param: &Tensor) -> Result<State> {
        let shape = param.shape();
        if shape.len() > 1 {
            let n = shape.len();
            let (mut rows, mut cols) = (shape.to_vec(), shape.to_vec());
            rows[n - 1] = 1;
            cols[n - 2] = 1;
            Ok(State::of([
                ("row_var", Tensor::zeros(&rows, param.dtype())),
                ("col_var", Tensor::zeros(&cols, param.dtype())),
            ]))
        } else {
            Ok(zeroed(param, &["variance"]))
        }
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        let moments = match state.get("variance") {
            Some(variance) => AdafactorState::Full(variance),
            None => AdafactorState::Factored(state.need("row_var")?, state.need("col_var")?),
        };
        self.step(param, grad, moments, state.step)
    }
}
