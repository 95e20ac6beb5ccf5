//! Adam and AdamW: PyTorch's single-tensor `Adam` (AMSGrad, `maximize`, L2 weight decay) and
//! `AdamW` (the same with decoupled weight decay), each parameter updated in one pass over its
//! elements, in place when its tensors allow.

use super::kernel::{per_float, prepare, update_elements};
use super::{adam_family, lr_field, settings, zeroed, zeros, State, Update};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;

/// `torch.optim.Adam`'s (and, with `decoupled`, `AdamW`'s) hyper-parameters; PyTorch's state:
/// `exp_avg`, `exp_avg_sq` and, with AMSGrad, `max_exp_avg_sq`.
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
#[derive(Clone, Copy, Debug)]
pub struct Adam {
    /// Learning rate.
    pub lr: f64,
    /// Decay of the running average of the gradient.
    pub beta1: f64,
    /// Decay of the running average of its square.
    pub beta2: f64,
    /// Added to the denominator.
    pub eps: f64,
    /// Weight decay: an L2 penalty (Adam) or a decay of the parameter (AdamW).
    pub weight_decay: f64,
    /// Use the running maximum of the squared-gradient average (AMSGrad).
    pub amsgrad: bool,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
    /// AdamW's decoupled weight decay.
    pub decoupled: bool,
}

/// `torch.optim.AdamW`'s hyper-parameters: [`Adam`]'s with `decoupled` set, each step
/// multiplying the parameters by `1 - lr·weight_decay` (default `weight_decay` 0.01).
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
#[derive(Clone, Copy, Debug)]
pub struct AdamW(pub Adam);

impl std::ops::Deref for AdamW {
    type Target = Adam;
    fn deref(&self) -> &Adam {
        &self.0
    }
}

impl std::ops::DerefMut for AdamW {
    fn deref_mut(&mut self) -> &mut Adam {
        &mut self.0
    }
}

/// PyTorch's defaults, with `weight_decay` and `decoupled` as given.
const fn adam_defaults(weight_decay: f64, decoupled: bool) -> Adam {
    Adam {
        lr: 1e-3,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weight_decay,
        amsgrad: false,
        maximize: false,
        decoupled,
    }
}

/// The setters Adam and AdamW share, for `Optim<$rule>`.
macro_rules! adam_settings {
    ($rule:ty, $default:expr) => {
        settings!($rule, $default;
            /// The term added to the denominator (default `1e-8`).
            eps: f64,
            /// The weight decay (see the rule's documentation for its kind).
            weight_decay: f64,
            /// AMSGrad: divide by the running maximum of the squared-gradient average.
            amsgrad: bool,
            /// Maximise the objective instead of minimising it.
            maximize: bool,
        );

        impl super::Optim<$rule> {
            /// The decays of the running averages of the gradient and of its square
            /// (default `(0.9, 0.999)`).
            pub fn betas(mut self, beta1: f64, beta2: f64) -> Self {
                self.rule.beta1 = beta1;
                self.rule.beta2 = beta2;
                self
            }
        }
    };
}

adam_settings!(Adam, adam_defaults(0.0, false));
adam_settings!(AdamW, AdamW(adam_defaults(1e-2, true)));

impl Update for Adam {
    adam_family!();

    fn init(&self, param: &Tensor) -> Result<State> {
        let mut state = zeroed(param, &["exp_avg", "exp_avg_sq"]);
        if self.amsgrad {
            state.insert("max_exp_avg_sq", zeros(param));
        }
        Ok(state)
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        self.step(param, grad, state)
    }
}

impl Update for AdamW {
    fn check(&self) -> Result<()> {
        self.0.check()
    }

    fn lr(&self) -> f64 {
        self.0.lr
    }

    fn set_lr(&mut self, lr: f64) {
        self.0.lr = lr;
    }

    fn init(&self, param: &Tensor) -> Result<State> {
        self.0.init(param)
    }

    fn update(&self, param: &Tensor, grad: &Tensor, state: &mut State) -> Result<()> {
        self.0.step(param, grad, state)
    }
}

/// Optimizer updates of at least this many elements split over the kernel threads.
const PARALLEL_UPDATE: usize = 1 << 15;

/// One Adam step's constants, in PyTorch's order of operations.
struct AdamStep {
    l2: f64,
    keep: Option<f64>,
    maximize: bool,
    weight: f64,
    beta2: f64,
    eps: f64,
    bias_correction2_sqrt: f64,
    step_value: f64,
}

/// The slices one Adam update walks: parameter, gradient, `exp_avg`, `exp_avg_sq` and the
/// AMSGrad maximum.
type Slices<'a, T> = (
    &'a mut [T],
    &'a [T],
    &'a mut [T],
    &'a mut [T],
    Option<&'a mut [T]>,
);

impl AdamStep {
    /// Updates each element: the gradient as read (maximize, L2), AdamW's decay, `exp_avg`
    /// by lerp, `exp_avg_sq`, the AMSGrad maximum, then the parameter.
    fn apply<T: crate::core::dtype::Float>(
        &self,
        p: &mut [T],
        g: &[T],
        m: &mut [T],
        v: &mut [T],
        max: Option<&mut [T]>,
    ) {
        let threads = crate::cpu::parallel::num_threads();
        if p.len() >= PARALLEL_UPDATE && threads > 1 {
            // each element's update is independent: the same bits with any split
            let size = p.len().div_ceil(threads).next_multiple_of(64);
            let mut max_parts = max.map(|x| x.chunks_mut(size));
            let parts: Vec<Slices<'_, T>> = p
                .chunks_mut(size)
                .zip(g.chunks(size))
                .zip(m.chunks_mut(size).zip(v.chunks_mut(size)))
                .map(|((p, g), (m, v))| (p, g, m, v, max_parts.as_mut().and_then(|x| x.next())))
                .collect();
            crate::cpu::parallel::for_each_owned(parts, |(p, g, m, v, max)| {
                self.apply_on_thread(p, g, m, v, max)
            });
            return;
        }
        self.apply_on_thread(p, g, m, v, max)
    }

    /// [`AdamStep::apply`] on the calling thread.
    fn apply_on_thread<T: crate::core::dtype::Float>(
        &self,
        p: &mut [T],
        g: &[T],
        m: &mut [T],
        v: &mut [T],
        max: Option<&mut [T]>,
    ) {
        #[inline(always)]
        fn body<T: crate::core::dtype::Float>(c: &AdamStep, slices: Slices<'_, T>) {
            let (p, g, m, v, max) = slices;
            c.apply_body(p, g, m, v, max)
        }
        crate::cpu::kernels::wide_variants!(apply_wide<T: crate::core::dtype::Float>, body, (c: &AdamStep, slices: Slices<'_, T>));
        apply_wide(self, (p, g, m, v, max))
    }

    /// [`AdamStep::apply`]'s loop, inlined into a variant for each instruction set.
    #[inline(always)]
    #[allow(clippy::assign_op_pattern)] // `Float` has no compound assignment
    fn apply_body<T: crate::core::dtype::Float>(
        &self,
        p: &mut [T],
        g: &[T],
        m: &mut [T],
        v: &mut [T],
        max: Option<&mut [T]>,
    ) {
        let f = T::from_f64;
        let (l2, weight, beta2, rest) = (
            f(self.l2),
            f(self.weight),
            f(self.beta2),
            f(1.0 - self.beta2),
        );
        let (bc2, eps, value) = (
            f(self.bias_correction2_sqrt),
            f(self.eps),
            f(self.step_value),
        );
        let keep = self.keep.map(f);
        // the lerp's form depends on the weight only, so each form gets a loop of its own;
        // elements are walked with zipped iterators (no bounds checks), so the loop vectorizes
        let lerp_low = weight.abs() < f(0.5);
        let one = f(1.0);
        let step = |p: &mut T, g: T, m: &mut T, v: &mut T| {
            let mut grad = if self.maximize { -g } else { g };
            if self.l2 != 0.0 {
                grad = grad + l2 * *p;
            }
            if let Some(keep) = keep {
                *p = *p * keep;
            }
            // exp_avg.lerp_(grad, 1 - beta1); exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)
            *m = if lerp_low {
                *m + weight * (grad - *m)
            } else {
                grad - (grad - *m) * (one - weight)
            };
            *v = *v * beta2 + rest * grad * grad;
        };
        // param.addcdiv_(exp_avg, second.sqrt() / sqrt(bias_correction2) + eps, -step_size)
        let update = |p: &mut T, m: T, second: T| *p = *p + value * m / (second.sqrt() / bc2 + eps);
        let elements = p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut());
        match max {
            // AMSGrad: the running maximum of exp_avg_sq (a NaN wins, as torch.maximum)
            Some(max) => {
                for ((((p, &g), m), v), mx) in elements.zip(max.iter_mut()) {
                    step(p, g, m, v);
                    if *v > *mx || v.is_nan() {
                        *mx = *v;
                    }
                    update(p, *m, *mx);
                }
            }
            None => {
                for (((p, &g), m), v) in elements {
                    step(p, g, m, v);
                    update(p, *m, *v);
                }
            }
        }
    }
}

impl Adam {
    /// One step for `param` with gradient `grad` and its `state` (step number `state.step`).
    fn step(&self, param: &Tensor, grad: &Tensor, state: &State) -> Result<()> {
        let (exp_avg, exp_avg_sq) = (state.need("exp_avg")?, state.need("exp_avg_sq")?);
        let max = state.get("max_exp_avg_sq");
        let mut shapes = vec![exp_avg, exp_avg_sq];
        shapes.extend(max);
        let grad = prepare(param, grad, &shapes)?;
        if self.amsgrad && max.is_none() {
            return Err(Error::runtime("AMSGrad needs the max_exp_avg_sq state"));
        }
        let step = state.step as f64;
        let c = AdamStep {
            l2: if self.decoupled {
                0.0
            } else {
                self.weight_decay
            },
            keep: (self.decoupled && self.weight_decay != 0.0)
                .then_some(1.0 - self.lr * self.weight_decay),
            maximize: self.maximize,
            weight: 1.0 - self.beta1,
            beta2: self.beta2,
            eps: self.eps,
            bias_correction2_sqrt: (1.0 - self.beta2.powf(step)).sqrt(),
            step_value: -self.lr / (1.0 - self.beta1.powf(step)),
        };
        let mut state = vec![exp_avg, exp_avg_sq];
        state.extend(max.filter(|_| self.amsgrad));
        per_float!(param.dtype(), T => update_elements::<T>(param, &grad, &state, |p, g, s| {
            let [m, v, rest @ ..] = s else { unreachable!("exp_avg, exp_avg_sq") };
            c.apply(p, g, m, v, rest.first_mut().map(|x| &mut **x));
        }))?;
        param.storage().bump_version("adam step");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adam_first_step_moves_each_weight_by_lr() {
        let p = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
        let g = Tensor::from_vec(vec![0.5f32, -3.0], &[2]).unwrap();
        let adam = Adam {
            lr: 0.01,
            ..adam_defaults(0.0, false)
        };
        let mut state = adam.init(&p).unwrap();
        state.step = 1;
        adam.update(&p, &g, &mut state).unwrap();
        let got = p.to_vec::<f32>().unwrap();
        assert!((got[0] - 0.99).abs() < 1e-6 && (got[1] - 2.01).abs() < 1e-6);
        assert_eq!(
            state.get("exp_avg").unwrap().to_vec::<f32>().unwrap(),
            vec![0.05, -0.3]
        );
    }
}
