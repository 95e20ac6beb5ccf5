//! Strided gather/scatter between a base tensor and a view of it, and `CopySlices`: the history of
//! a base after an in-place op wrote through one of its views (PyTorch's CopySlices idea).
//!
//! Layouts here are relative to the start of a contiguous base: element `i` of the view lives at
//! flat position `layout.offset + Σ index·stride` of the base.

use crate::autograd::{is_recording, record};
use crate::core::buffer::BufferElement;
use crate::core::error::Result;
use crate::core::layout::{Dims, Layout};
use crate::core::tensor::Tensor;
use crate::with_any;

/// The view of the contiguous tensor `x` described by `layout` (PyTorch's `as_strided`).
pub(crate) fn as_strided(x: &Tensor, layout: &Layout) -> Result<Tensor> {
    let x = x.contiguous()?;
    let mut absolute = layout.clone();
    absolute.offset += x.layout().offset;
    let out = x.alias_with_layout(absolute);
    if !is_recording(&[&x]) {
        return Ok(out);
    }
    let (shape, layout): (Dims, Layout) = (x.shape().into(), layout.clone());
    Ok(record(out, "AsStridedBackward0", &[&x], &[], move |ctx| {
        Ok(vec![Some(scatter_strided(ctx.grad(0), &shape, &layout)?)])
    }))
}

/// Zeros of `shape` plus `g` added at the positions of `layout` (the adjoint of [`as_strided`]).
pub(crate) fn scatter_strided(g: &Tensor, shape: &[usize], layout: &Layout) -> Result<Tensor> {
    let out = with_any!(g.dtype(), T => scatter_values::<T>(g, shape, layout))?;
    // an empty `g` scatters nothing: the zeros are a constant, with no history (as PyTorch's)
    if !is_recording(&[g]) || g.numel() == 0 {
        return Ok(out);
    }
    let layout = layout.clone();
    Ok(record(
        out,
        "AsStridedScatterBackward0",
        &[g],
        &[],
        move |ctx| Ok(vec![Some(as_strided(ctx.grad(0), &layout)?)]),
    ))
}

fn scatter_values<T: BufferElement + Copy>(
    g: &Tensor,
    shape: &[usize],
    layout: &Layout,
) -> Result<Tensor> {
    let values: Vec<T> = g.to_vec()?;
    let n: usize = shape.iter().product();
    let mut out: Vec<T> = vec![T::default(); n];
    let mut i = 0;
    layout.for_each_offset(|p| {
        out[p] = add(out[p], values[i]);
        i += 1;
    });
    Tensor::from_vec(out, shape)
}

fn add<T: BufferElement + Copy>(a: T, b: T) -> T {
    T::from_f64(a.to_f64() + b.to_f64())
}

/// `g` with the positions of `layout` set to zero (the gradient to the overwritten base):
/// selected, not multiplied by a 0/1 mask, so a NaN or inf gradient of an overwritten element
/// does not leak through (PyTorch writes zeros there).
fn mask_strided(g: &Tensor, layout: &Layout) -> Result<Tensor> {
    let g = g.contiguous()?;
    let mut keep = vec![true; g.numel()];
    layout.for_each_offset(|p| keep[p] = false);
    let keep = Tensor::from_vec(keep, g.shape())?;
    Tensor::where_(&keep, &g, &Tensor::scalar_of(0.0, g.dtype()))
}

/// Records the new history of `base` after `result` was written into its view `layout`:
/// the base's old history gets the gradient outside the view, `result` the gradient inside.
/// Returns the history for the view itself (an `as_strided` of the new base).
pub(crate) fn copy_slices(
    base: &Tensor,
    result: &Tensor,
    layout: &Layout,
) -> Result<Option<crate::autograd::Edge>> {
    let old = base.detach();
    old.set_grad_fn(base.meta().grad_fn.clone());
    let new_base = base.detach();
    let layout_c = layout.clone();
    let new_base = record(new_base, "CopySlices", &[&old, result], &[], move |ctx| {
        let g = ctx.grad(0);
        let to_old = if ctx.needs_input_grad(0) {
            Some(mask_strided(g, &layout_c)?)
        } else {
            None
        };
        let to_result = if ctx.needs_input_grad(1) {
            Some(as_strided(g, &layout_c)?)
        } else {
            None
        };
        Ok(vec![to_old, to_result])
    });
    base.set_grad_fn(new_base.meta().grad_fn.clone());
    let view = as_strided(&new_base, layout)?;
    let edge = view.meta().grad_fn.clone();
    Ok(edge)
}
