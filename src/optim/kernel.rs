//! What every optimizer rule's kernel shares: reading a parameter's values and writing them
//! back without autograd, the checks of a parameter and its state, the gradient as the rules
//! read it (`maximize`, the L2 term), and PyTorch's element formulas the rules reuse (`lerp`,
//! `clamp`, `sign`).

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

/// The gradient as an update reads it (PyTorch's first lines of each step): negated when
/// maximizing, then plus the L2 term `weight_decay * p`.
pub(crate) fn read_gradient<T: Float>(g: &mut [T], p: &[T], maximize: bool, l2: f64) {
    if maximize {
        g.iter_mut().for_each(|v| *v = -*v);
    }
    if l2 != 0.0 {
        let wd = T::from_f64(l2);
        g.iter_mut().zip(p).for_each(|(g, &p)| *g += wd * p);
    }
}

/// The gradient as the Adam family reads it, and the parameter after a decoupled decay:
/// negated when maximizing, then either `param *= 1 - lr · wd` or `grad += wd · param`.
pub(crate) fn decayed<T: Float>(
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
