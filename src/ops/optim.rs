//! Optimizer updates: PyTorch's single-tensor `SGD` and `Adam`/`AdamW` algorithms, each
//! parameter updated in one pass over its elements, with the operations in PyTorch's order and
//! precision (float32 parameters update in float32), outside autograd. A parameter's version
//! goes up as PyTorch's in-place update makes it; the optimizer's state tensors are written in
//! place.

use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::write_into;

/// `torch.optim.SGD`'s hyper-parameters.
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
    /// Nesterov momentum.
    pub nesterov: bool,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

/// `torch.optim.Adam`'s (and, with `decoupled`, `AdamW`'s) hyper-parameters.
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

/// The state Adam keeps for one parameter (PyTorch's `state[p]`).
pub struct AdamState<'a> {
    /// Steps taken so far (incremented by [`Adam::step`]).
    pub step: &'a mut u64,
    /// Running average of the gradient.
    pub exp_avg: &'a Tensor,
    /// Running average of the squared gradient.
    pub exp_avg_sq: &'a Tensor,
    /// Running maximum of `exp_avg_sq` (AMSGrad only).
    pub max_exp_avg_sq: Option<&'a Tensor>,
}

/// The floating values of `t` (a parameter, its gradient or a state tensor) in row-major order.
pub(crate) fn values<T: Element + crate::core::buffer::BufferElement>(
    t: &Tensor,
) -> Result<Vec<T>> {
    t.to_vec::<T>()
}

/// Writes `v` into `t` (same shape) without autograd.
pub(crate) fn store<T: Element + crate::core::buffer::BufferElement>(
    t: &Tensor,
    v: Vec<T>,
) -> Result<()> {
    let src = Tensor::from_vec(v, t.shape())?;
    write_into(t, &src);
    Ok(())
}

/// Checks that a parameter can be updated: a floating tensor whose state matches it.
pub(crate) fn check(param: &Tensor, others: &[&Tensor]) -> Result<()> {
    if !param.dtype().is_floating_point() {
        return Err(Error::runtime(format!(
            "optimizers update floating point parameters, got one of dtype {}",
            param.dtype().name()
        )));
    }
    for t in others {
        if t.shape() != param.shape() {
            return Err(Error::runtime(format!(
                "optimizer state of shape {:?} does not match its parameter of shape {:?}",
                t.shape(),
                param.shape()
            )));
        }
    }
    Ok(())
}

/// The gradient as an update reads it (PyTorch's first lines of each step): negated when
/// maximizing, then plus the L2 term `weight_decay * p`.
pub(crate) fn read_gradient<T: crate::core::dtype::Float>(
    g: &mut [T],
    p: &[T],
    maximize: bool,
    l2: f64,
) {
    if maximize {
        g.iter_mut().for_each(|v| *v = -*v);
    }
    if l2 != 0.0 {
        let wd = T::from_f64(l2);
        g.iter_mut().zip(p).for_each(|(g, &p)| *g += wd * p);
    }
}

/// PyTorch's `lerp_(end, weight)` for one element, with its two forms (exact at both ends).
pub(crate) fn lerp<T: crate::core::dtype::Float>(start: T, end: T, weight: T) -> T {
    if weight.abs() < T::from_f64(0.5) {
        start + weight * (end - start)
    } else {
        end - (end - start) * (T::from_f64(1.0) - weight)
    }
}

/// Runs `$body` with `$T` the Rust type of a float dtype.
macro_rules! per_float {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            DType::Float32 => {
                type $T = f32;
                $body
            }
            _ => {
                type $T = f64;
                $body
            }
        }
    };
}

pub(crate) use per_float;

impl Sgd {
    /// One step for `param` with gradient `grad`; `buffer` is its momentum buffer, created on the
    /// first step (a copy of the gradient, as PyTorch) and updated in place after that.
    pub fn step(&self, param: &Tensor, grad: &Tensor, buffer: &mut Option<Tensor>) -> Result<()> {
        crate::ops::inplace::observe_write(param)?;
        check(param, &[grad])?;
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        per_float!(param.dtype(), T => {
            let mut p: Vec<T> = values(param)?;
            let mut g: Vec<T> = values(&grad)?;
            read_gradient(&mut g, &p, self.maximize, self.weight_decay);
            if self.momentum != 0.0 {
                let momentum = self.momentum as T;
                let keep = (1.0 - self.dampening) as T;
                let buf: Vec<T> = match buffer {
                    None => g.clone(),
                    Some(b) => {
                        let mut b_values: Vec<T> = values(b)?;
                        b_values
                            .iter_mut()
                            .zip(&g)
                            .for_each(|(b, &g)| *b = *b * momentum + keep * g);
                        b_values
                    }
                };
                if self.nesterov {
                    g.iter_mut().zip(&buf).for_each(|(g, &b)| *g += momentum * b);
                } else {
                    g.clone_from(&buf);
                }
                match buffer {
                    Some(b) => store(b, buf)?,
                    None => *buffer = Some(Tensor::from_vec(buf, param.shape())?),
                }
            }
            let step = (-self.lr) as T;
            p.iter_mut().zip(&g).for_each(|(p, &g)| *p += step * g);
            store(param, p)?;
        });
        param.storage().bump_version("sgd step");
        Ok(())
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

/// Runs `update` on the element slices of `tensors` (the second one read, the others written)
/// when every one is contiguous and all are in distinct storages; false, touching nothing,
/// otherwise.
fn in_place<T: crate::core::buffer::BufferElement>(
    tensors: &[&Tensor],
    update: impl FnOnce(&mut [&mut [T]]),
) -> bool {
    let ranges: Option<Vec<_>> = tensors
        .iter()
        .map(|t| t.layout().contiguous_range())
        .collect();
    let Some(ranges) = ranges else { return false };
    let distinct = tensors.iter().enumerate().all(|(i, a)| {
        tensors[i + 1..]
            .iter()
            .all(|b| !crate::core::storage::Storage::same_elements(a.storage(), b.storage()))
    });
    if !distinct || tensors.iter().any(|t| t.dtype() != T::DTYPE) {
        return false;
    }
    let mut guards: Vec<_> = tensors.iter().map(|t| t.storage().write()).collect();
    let mut slices: Vec<&mut [T]> = guards
        .iter_mut()
        .zip(ranges)
        .map(|(guard, range)| &mut guard.as_mut_slice::<T>()[range])
        .collect();
    update(&mut slices);
    true
}

impl Adam {
    /// One step for `param` with gradient `grad` and its `state` (created by the caller as
    /// zeros, step 0, before the first step).
    pub fn step(&self, param: &Tensor, grad: &Tensor, state: AdamState<'_>) -> Result<()> {
        crate::ops::inplace::observe_write(param)?;
        let mut shapes = vec![grad, state.exp_avg, state.exp_avg_sq];
        shapes.extend(state.max_exp_avg_sq);
        check(param, &shapes)?;
        if self.amsgrad && state.max_exp_avg_sq.is_none() {
            return Err(Error::runtime("AMSGrad needs the max_exp_avg_sq state"));
        }
        let grad = crate::cpu::kernels::cast(grad, param.dtype());
        *state.step += 1;
        let step = *state.step as f64;
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
        let max = state.max_exp_avg_sq.filter(|_| self.amsgrad);
        let mut all = vec![param, &grad, state.exp_avg, state.exp_avg_sq];
        all.extend(max);
        per_float!(param.dtype(), T => {
            // contiguous tensors in distinct storages update in place, in one pass; anything
            // else goes through copies
            if !in_place(&all, |s: &mut [&mut [T]]| {
                let [p, g, m, v, rest @ ..] = s else { unreachable!("four tensors at least") };
                c.apply(p, g, m, v, rest.first_mut().map(|x| &mut **x));
            }) {
                let mut p: Vec<T> = values(param)?;
                let g: Vec<T> = values(&grad)?;
                let mut m: Vec<T> = values(state.exp_avg)?;
                let mut v: Vec<T> = values(state.exp_avg_sq)?;
                let mut mx: Option<Vec<T>> = max.map(values).transpose()?;
                c.apply(&mut p, &g, &mut m, &mut v, mx.as_deref_mut());
                store(state.exp_avg, m)?;
                store(state.exp_avg_sq, v)?;
                if let (Some(t), Some(values)) = (max, mx) {
                    store(t, values)?;
                }
                store(param, p)?;
            }
        });
        param.storage().bump_version("adam step");
        Ok(())
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
        let mut buffer = None;
        sgd.step(&p, &g, &mut buffer).unwrap();
        sgd.step(&p, &g, &mut buffer).unwrap();
        // buffers g then 1.9 g: p - 0.1 g - 0.19 g
        let got = p.to_vec::<f64>().unwrap();
        assert!((got[0] - (1.0 - 0.29 * 0.5)).abs() < 1e-12);
        assert!((got[1] - (2.0 + 0.29)).abs() < 1e-12);
        assert_eq!(p.version(), 2);
    }

    #[test]
    fn adam_first_step_moves_each_weight_by_lr() {
        let p = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
        let g = Tensor::from_vec(vec![0.5f32, -3.0], &[2]).unwrap();
        let (m, v) = (p.zeros_like(), p.zeros_like());
        let mut step = 0;
        let adam = Adam {
            lr: 0.01,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
            amsgrad: false,
            maximize: false,
            decoupled: false,
        };
        let state = AdamState {
            step: &mut step,
            exp_avg: &m,
            exp_avg_sq: &v,
            max_exp_avg_sq: None,
        };
        adam.step(&p, &g, state).unwrap();
        let got = p.to_vec::<f32>().unwrap();
        assert_eq!(step, 1);
        assert!((got[0] - 0.99).abs() < 1e-6 && (got[1] - 2.01).abs() < 1e-6);
    }
}
