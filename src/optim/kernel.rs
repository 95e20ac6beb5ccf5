//! What every optimizer rule's kernel shares: the one loop over a parameter's elements with
//! its gradient and state (`update_elements`: in place where the tensors allow, else on copies
//! written back, without autograd), the checks of a parameter and its state, the gradient as
//! the rules read it (`Reading`: `maximize`, the L2 term, a decoupled decay), and PyTorch's
//! element formulas the rules reuse (`lerp`, `clamp`, `sign`).

use crate::core::buffer::BufferElement;
use crate::core::dtype::{Element, Float};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::write_into;

/// The floating values of `t` (a parameter, its gradient or a state tensor) in row-major order.
pub(crate) fn values<T: Element + BufferElement>(t: &Tensor) -> Result<Vec<T>> {
    t.to_vec::<T>()
}

/// Writes `v` into `t` (same shape) without autograd.
pub(crate) fn store<T: Element + BufferElement>(t: &Tensor, v: Vec<T>) -> Result<()> {
    let src = Tensor::from_vec(v, t.shape())?;
    write_into(t, &src);
    Ok(())
}

/// Writes the number `value` into the 0-d tensor `t` (in its dtype), without autograd.
pub(crate) fn write_scalar(t: &Tensor, value: f64) -> Result<()> {
    let src = Tensor::scalar_of(value, t.dtype());
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

/// `t`, or a runtime error naming the missing state `what`.
pub(crate) fn needed<'a>(t: Option<&'a Tensor>, what: &str) -> Result<&'a Tensor> {
    t.ok_or_else(|| Error::runtime(format!("this optimizer step needs its {what} state")))
}

/// The checks every step makes: the parameter may be written, it is floating and its gradient
/// and `state` have its shape. Returns the gradient in the parameter's dtype.
pub(crate) fn prepare(param: &Tensor, grad: &Tensor, state: &[&Tensor]) -> Result<Tensor> {
    crate::ops::inplace::observe_write(param)?;
    let mut shaped = vec![grad];
    shaped.extend_from_slice(state);
    check(param, &shaped)?;
    Ok(crate::cpu::kernels::cast(grad, param.dtype()))
}

/// PyTorch's `lerp_(end, weight)` for one element, with its two forms (exact at both ends).
pub(crate) fn lerp<T: Float>(start: T, end: T, weight: T) -> T {
    if weight.abs() < T::from_f64(0.5) {
        start + weight * (end - start)
    } else {
        end - (end - start) * (T::from_f64(1.0) - weight)
    }
}

/// PyTorch's `clamp_(min, max)` for one element (NaN stays NaN).
pub(crate) fn clamp<T: Float>(v: T, lo: T, hi: T) -> T {
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
pub(crate) fn signum<T: Float>(v: T) -> T {
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

/// `x` in double precision (a generic conversion, so the float64 instance of a kernel body
/// written once for both float types is not an identity cast).
pub(crate) fn wide<T: Into<f64>>(x: T) -> f64 {
    x.into()
}

/// The Euclidean norm of `v` (summed in double precision, as PyTorch's CPU reductions).
pub(crate) fn norm2(v: impl Iterator<Item = f64>) -> f64 {
    v.map(|x| x * x).sum::<f64>().sqrt()
}

/// Runs `update` on the element slices of `tensors` (the second one read, the others written)
/// when every one is contiguous and all are in distinct storages; false, touching nothing,
/// otherwise.
pub(crate) fn in_place<T: BufferElement>(
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

/// Runs a rule's element loop `update(param, grad, state)` on `param` (written), `grad` (read)
/// and the `state` tensors (written), all of one shape: in place and in one pass when every
/// one is contiguous, in its own storage and of `T`'s dtype; otherwise on copies, written back
/// after.
pub(crate) fn update_elements<T: Element + BufferElement>(
    param: &Tensor,
    grad: &Tensor,
    state: &[&Tensor],
    update: impl FnOnce(&mut [T], &[T], &mut [&mut [T]]),
) -> Result<()> {
    let mut all = vec![param, grad];
    all.extend_from_slice(state);
    let mut update = Some(update);
    let done = in_place(&all, |slices: &mut [&mut [T]]| {
        let (head, rest) = slices.split_at_mut(2);
        let [p, g] = head else {
            unreachable!("a parameter and its gradient")
        };
        call_update(update.take().expect("runs once"), p, g, rest);
    });
    let Some(update) = update.filter(|_| !done) else {
        return Ok(());
    };
    let mut p: Vec<T> = values(param)?;
    let g: Vec<T> = values(grad)?;
    let mut copies = state
        .iter()
        .map(|t| values::<T>(t))
        .collect::<Result<Vec<_>>>()?;
    {
        let mut slices: Vec<&mut [T]> = copies.iter_mut().map(Vec::as_mut_slice).collect();
        call_update(update, &mut p, &g, &mut slices);
    }
    for (t, v) in state.iter().zip(copies) {
        store(t, v)?;
    }
    store(param, p)
}

/// Calls a rule's element loop as a function of its own. Its slice arguments then carry the
/// facts the loop vectorizer needs (that `param` and `grad` overlap nothing); the rules' closures
/// are `move`, so their settings are values the loop can test once, not memory it rereads.
/// Inlined into [`update_elements`], with settings read through references, the loops of
/// Adagrad, RMSprop, Adamax, NAdam and RAdam stayed scalar, 3-7x slower.
#[inline(never)]
fn call_update<T, F: FnOnce(&mut [T], &[T], &mut [&mut [T]])>(
    update: F,
    param: &mut [T],
    grad: &[T],
    state: &mut [&mut [T]],
) {
    update(param, grad, state)
}

/// How a rule reads its gradient, one element at a time (PyTorch's first lines of each step):
/// an optional decoupled decay of the parameter first (`param *= keep`), then the gradient
/// negated when maximizing, then plus the L2 term `l2 · param`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reading {
    /// Negate the gradient.
    pub maximize: bool,
    /// The L2 penalty's factor (0: none).
    pub l2: f64,
    /// The decoupled decay's factor `1 - lr · weight_decay`, when there is one.
    pub keep: Option<f64>,
}

impl Reading {
    /// The reading of SGD-like rules: `maximize`, then the L2 term.
    pub(crate) fn l2(maximize: bool, l2: f64) -> Reading {
        Reading {
            maximize,
            l2,
            keep: None,
        }
    }

    /// The Adam family's reading: `param *= 1 - lr · wd` when the decay is decoupled (and not
    /// 0), else `grad += wd · param`.
    pub(crate) fn decayed(
        maximize: bool,
        (lr, weight_decay, decoupled): (f64, f64, bool),
    ) -> Reading {
        if decoupled {
            Reading {
                maximize,
                l2: 0.0,
                keep: (weight_decay != 0.0).then_some(1.0 - lr * weight_decay),
            }
        } else {
            Reading::l2(maximize, weight_decay)
        }
    }

    /// The gradient `g` as read at parameter element `p` (which a decoupled decay scales).
    #[inline(always)]
    pub(crate) fn at<T: Float>(&self, p: &mut T, g: T) -> T {
        if let Some(keep) = self.keep {
            *p = *p * T::from_f64(keep);
        }
        let g = if self.maximize { -g } else { g };
        if self.l2 != 0.0 {
            g + T::from_f64(self.l2) * *p
        } else {
            g
        }
    }
}

/// Runs `$body` with `$T` the Rust type of a float dtype.
macro_rules! per_float {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::core::dtype::DType::Float32 => {
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
