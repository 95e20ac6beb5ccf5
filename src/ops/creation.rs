//! Tensor factories that are not random: `arange`, `linspace` (the constant ones, `zeros`,
//! `ones`, `full`, are constructors of the tensor itself), and the two ops a wrapper tensor's
//! class may answer that the engine and the bindings call on any tensor: `ones_like` (the
//! seed of a scalar output's gradient) and `item` (PyTorch's `_local_scalar_dense`).

use crate::core::buffer::BufferElement;
use crate::core::dispatch::{intercept1, Arg, Call};
use crate::core::dtype::{DType, Element, Scalar};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::with_any;

/// A tensor of `shape` whose elements are drawn from `sample`, converted to `dtype`.
pub(crate) fn sampled(
    shape: &[usize],
    dtype: DType,
    mut sample: impl FnMut() -> f64,
) -> Result<Tensor> {
    let n = crate::core::storage::check_allocation(shape, dtype)?;
    let buffer =
        with_any!(dtype, T => T::into_buffer((0..n).map(|_| T::from_f64(sample())).collect()));
    Tensor::from_buffer(buffer, shape)
}

impl Tensor {
    /// `start, start+step, ...` up to but excluding `end`.
    pub fn arange(start: f64, end: f64, step: f64, dtype: DType) -> Result<Tensor> {
        if step == 0.0 {
            return Err(Error::runtime("step must be nonzero"));
        }
        if !start.is_finite() || !end.is_finite() {
            return Err(Error::runtime(format!(
                "unsupported range: {start} -> {end}"
            )));
        }
        if dtype == DType::Bool {
            return Err(Error::not_implemented(
                "\"arange_cpu\" not implemented for 'Bool'",
            ));
        }
        if (end - start) / step < 0.0 {
            return Err(Error::runtime(
                "upper bound and larger bound inconsistent with step sign",
            ));
        }
        let n = ((end - start) / step).ceil().max(0.0) as usize;
        sampled(&[n], dtype, {
            let mut i = 0.0;
            move || {
                let v = start + i * step;
                i += 1.0;
                v
            }
        })
    }

    /// `steps` evenly spaced values from `start` to `end` inclusive (computed as PyTorch does, symmetric from both ends).
    pub fn linspace(start: f64, end: f64, steps: usize, dtype: DType) -> Result<Tensor> {
        let step = if steps > 1 {
            (end - start) / (steps - 1) as f64
        } else {
            0.0
        };
        let half = steps / 2;
        let values: Vec<f64> = (0..steps)
            .map(|i| {
                if i < half || steps == 1 {
                    start + step * i as f64
                } else {
                    end - step * (steps - 1 - i) as f64
                }
            })
            .collect();
        let mut it = values.into_iter();
        sampled(&[steps], dtype, move || it.next().unwrap_or(0.0))
    }

    /// [`Tensor::ones_like`], made by a wrapper tensor's class when this is one (PyTorch's
    /// `ones_like` op, as the engine calls it for the gradient of a scalar output).
    pub fn ones_like_dispatched(&self) -> Result<Tensor> {
        let call = || {
            let mut call = Call::new("ones_like.default", vec![self.into()]);
            call.kwargs
                .push(("memory_format", Arg::Str("preserve_format")));
            call
        };
        intercept1(&[self], call).unwrap_or_else(|| Ok(self.ones_like()))
    }

    /// The value of a one-element tensor, as a Python-like scalar of its dtype's category.
    pub fn item(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            return Err(Error::runtime(format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                self.numel()
            )));
        }
        let call = || Call::new("_local_scalar_dense.default", vec![self.into()]);
        if let Some(dispatched) = intercept1(&[self], call) {
            return dispatched?.item();
        }
        let offset = self.layout().offset;
        Ok(match self.dtype() {
            DType::Bool => Scalar::Bool(self.read(|v: &[bool], _| v[offset])),
            DType::Float32 => Scalar::Float(self.read(|v: &[f32], _| v[offset]) as f64),
            DType::Float64 => Scalar::Float(self.read(|v: &[f64], _| v[offset])),
            int => {
                crate::with_num!(int, T => Scalar::Int(self.read(|v: &[T], _| v[offset].to_i64())))
            }
        })
    }
}
