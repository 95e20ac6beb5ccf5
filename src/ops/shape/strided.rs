//! Strided gather/scatter between a base tensor and a view of it, and `CopySlices`: the history of
//! a base after an in-place op wrote through one of its views (PyTorch's CopySlices idea).
//!
//! Layouts here are relative to the start of a contiguous base: element `i` of the view lives at
//! flat position `layout.offset + Σ index·stride` of the base.

use crate::autograd::{is_recording, record, record_replacing_first, BackwardFn, Edge};
use crate::core::buffer::BufferElement;
use crate::core::error::Result;
use crate::core::layout::{Dims, Layout};
use crate::core::tensor::Tensor;
use crate::with_any;
use std::sync::Arc;

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

// Note [CopySlices]
// After an in-place op wrote `result` into a view of `base`, the base's history is CopySlices,
// as PyTorch's: a node that stands in for the in-place op's node `fn` (whose first input is the
// view's old history), with the base's old history as its first input and `fn`'s other inputs
// after it. Its backward takes the base's gradient `g`, runs `fn` on the part of `g` the view
// covers, and writes `fn`'s gradient for the view's old value back into that part of a copy of
// `g`: the base's old history gets it in one piece, never through the view's old history (a
// hook on the view's old node does not fire, as in PyTorch). Every op of that backward is an
// ordinary op, so under `create_graph` the graph it builds is PyTorch's (CloneBackward0,
// AsStridedBackward0, `fn`'s double backward, CopySlices over CopyBackwards).
//
// An in-place op here that is a composite of several ops may leave a result whose node's first
// input is another tensor with history; its write is then recorded as a node with two inputs,
// the base's old history (the gradient outside the view) and the result (the gradient inside).

/// The view `view` (`layout` within `base`) made again from `base`, recorded: by the view ops
/// that made it when it kept them (view replay on, see `grad_mode::is_view_replay_enabled`),
/// else by `as_strided`.
pub(crate) fn view_again(base: &Tensor, view: &Tensor, layout: &Layout) -> Result<Tensor> {
    let replay = view.meta().view_replay.clone();
    if let Some(ops) = replay {
        let mut again = Some(base.clone());
        for op in ops.iter() {
            again = match again {
                Some(v) => v.replay_view(op).transpose()?,
                None => None,
            };
        }
        if let Some(again) = again {
            return Ok(again);
        }
    }
    as_strided(base, layout)
}

/// Records the new history of `base` after `result` was written into its view `view` (at
/// `layout` of the base), whose history is still the one before the write (see Note
/// [CopySlices]). Returns the history for the view itself (the view made again from the new
/// base, see [`view_again`]).
pub(crate) fn copy_slices(
    base: &Tensor,
    view: &Tensor,
    result: &Tensor,
    layout: &Layout,
) -> Result<Option<Edge>> {
    let view_history = view.meta().grad_fn.clone();
    let old = base.detach();
    old.set_grad_fn(base.meta().grad_fn.clone());
    let layout_c = layout.clone();
    let inner = result
        .meta()
        .grad_fn
        .clone()
        .filter(|e| stands_in_for_view(e, view_history.as_ref()));
    let folded = inner.as_ref().map(|e| e.node.clone());
    let new_base = match inner {
        Some(inner) => {
            let node = inner.node.clone();
            let backward: BackwardFn = Box::new(move |ctx| {
                let result = ctx.grad(0).clone_tensor()?;
                let part = as_strided(&result, &layout_c)?;
                let mut grads = ctx.run_inner(&node, &[Some(part.clone_tensor()?)])?;
                match grads[0].take() {
                    Some(g) => part.copy_(&g)?,
                    None => part.zero_()?,
                }
                grads[0] = Some(result);
                Ok(grads)
            });
            record_replacing_first(base.detach(), "CopySlices", &old, &inner.node, backward)
        }
        None => record(
            base.detach(),
            "CopySlices",
            &[&old, result],
            &[],
            move |ctx| {
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
            },
        ),
    };
    base.set_grad_fn(new_base.meta().grad_fn.clone());
    let history = view_again(&new_base, view, layout)?.meta().grad_fn.clone();
    if let Some(node) = folded {
        // the op's saved output unpacks with the view's new history, as PyTorch's
        node.rebind_saved_output(view, history.as_ref());
    }
    Ok(history)
}

/// Whether the node of `result_edge` can be run by CopySlices in place of the view's old
/// history: a one-output formula whose first input is exactly `view_history`, or needs no
/// gradient.
fn stands_in_for_view(result_edge: &Edge, view_history: Option<&Edge>) -> bool {
    let node = &result_edge.node;
    let first = node.next_edges().first().and_then(Option::as_ref);
    result_edge.input_nr == 0
        && node.n_outputs() == 1
        && node.is_formula()
        && match (first, view_history) {
            // no gradient to the old value: the view's part of the base gets zeros
            (None, _) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(&a.node, &b.node) && a.input_nr == b.input_nr,
            (Some(_), None) => false,
        }
}
