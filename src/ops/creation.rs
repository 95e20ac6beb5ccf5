//! Tensor factories that are not random: `arange`, `linspace` (the constant ones, `zeros`,
//! `ones`, `full`, are constructors of the tensor itself).

use crate::core::buffer::BufferElement;
use crate::core::dtype::{DType, Element};
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
}
