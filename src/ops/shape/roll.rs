//! `roll`: elements shifted circularly along dimensions (a copy); the gradient is rolled back.

use crate::autograd::{is_recording, record};
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_dim;
use crate::core::tensor::Tensor;
use crate::with_any;

/// Moves every element `shift` places along `dim` of a contiguous `shape`, wrapping around.
fn roll_values<T: Copy>(data: &[T], shape: &[usize], dim: usize, shift: i64) -> Vec<T> {
    let n = shape[dim];
    if n == 0 || data.is_empty() {
        return data.to_vec();
    }
    let inner: usize = shape[dim + 1..].iter().product();
    let outer = data.len() / (n * inner);
    let s = shift.rem_euclid(n as i64) as usize;
    let mut out = data.to_vec();
    for o in 0..outer {
        for i in 0..n {
            let to = (i + s) % n;
            let (src, dst) = ((o * n + i) * inner, (o * n + to) * inner);
            out[dst..dst + inner].copy_from_slice(&data[src..src + inner]);
        }
    }
    out
}

impl Tensor {
    /// Shifts the elements by `shifts[i]` along `dims[i]`, wrapping around; with no `dims`,
    /// the flattened tensor is shifted by the one shift and keeps its shape.
    pub fn roll(&self, shifts: &[i64], dims: &[isize]) -> Result<Tensor> {
        if shifts.is_empty() {
            return Err(Error::runtime("`shifts` required"));
        }
        if dims.is_empty() && shifts.len() != 1 || !dims.is_empty() && shifts.len() != dims.len() {
            return Err(Error::runtime(format!(
                "shifts and dimensions must align. shifts: {}, dims:{}",
                shifts.len(),
                dims.len()
            )));
        }
        if self.dim() == 0 && !dims.is_empty() {
            return Err(Error::index(format!(
                "Dimension specified as {} but tensor has no dimensions",
                dims[0]
            )));
        }
        let ds: Vec<usize> = dims
            .iter()
            .map(|&d| normalize_dim(d, self.dim()))
            .collect::<Result<_>>()?;
        let out = with_any!(self.dtype(), T => {
            let mut data: Vec<T> = self.to_vec()?;
            if ds.is_empty() {
                data = roll_values(&data, &[data.len()], 0, shifts[0]);
            } else {
                for (&d, &s) in ds.iter().zip(shifts) {
                    data = roll_values(&data, self.shape(), d, s);
                }
            }
            Tensor::from_vec(data, self.shape())?
        });
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let back: Vec<i64> = shifts.iter().map(|s| s.wrapping_neg()).collect();
        let dims = dims.to_vec();
        Ok(record(out, "RollBackward0", &[self], &[], move |ctx| {
            Ok(vec![Some(ctx.grad(0).roll(&back, &dims)?)])
        }))
    }
}
