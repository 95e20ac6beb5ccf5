//! Custom functions (PyTorch's `autograd.Function`): a node whose backward is a callback the
//! user wrote (in Python, through the bindings).

use super::{is_recording, record_at_slots, BackwardFn, Node, Save};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use std::sync::Arc;

/// A custom function's backward: the gradients of all its outputs (zeros where none arrived,
/// as PyTorch materializes them, unless the call says not to: then `None`) and its saved
/// tensors in; one entry per forward argument out, `None` for "no gradient" (extra trailing
/// `None`s are accepted, as PyTorch).
pub type CustomBackward = Arc<
    dyn Fn(Vec<Option<Tensor>>, super::SavedTensors) -> Result<Vec<Option<Tensor>>> + Send + Sync,
>;

/// One call of a custom function, as its forward left it.
pub struct CustomCall<'a> {
    /// The node's name (`MyFunctionBackward`).
    pub name: String,
    /// How many arguments the forward took (tensors or not).
    pub n_args: usize,
    /// Where the tensor inputs were among the arguments.
    pub positions: &'a [usize],
    /// The tensor inputs.
    pub inputs: &'a [Tensor],
    /// The tensors the forward returned.
    pub outputs: &'a [Tensor],
    /// Where each of `outputs` was among the values the forward returned: the node has a slot
    /// per value (tensor or not), as PyTorch's, so a hook sees one gradient per value.
    pub output_slots: &'a [usize],
    /// How many values the forward returned.
    pub n_slots: usize,
    /// Which outputs are differentiable (`ctx.mark_non_differentiable` clears the others).
    pub differentiable: &'a [bool],
    /// Which outputs are inputs the forward wrote in place (`ctx.mark_dirty`): they keep their
    /// identity and take the node as their history, as an in-place op's result does.
    pub dirty: &'a [bool],
    /// `ctx.save_for_backward(...)`.
    pub saved: &'a [Tensor],
    /// Whether output gradients that did not arrive reach the backward as zeros
    /// (`ctx.set_materialize_grads`, on by default) or as `None`.
    pub materialize_grads: bool,
}

/// A view of `o` (of its base, when it is a view) marked as made inside a custom Function:
/// an output that is an input returned as-is, or a view of one, must not be written in place
/// (the write would bypass the Function's backward), as PyTorch refuses it.
fn custom_view(o: &Tensor) -> Tensor {
    let view = o.alias_with_layout(o.layout().clone());
    view.set_view_creation(crate::core::tensor::ViewCreation::InCustomFunction);
    view
}

/// Records `call` with `backward` as its formula when grad mode is on and an input requires
/// grad; returns the outputs to hand to the user (an output that is an input, or already has a
/// history, comes back as a fresh alias) and the node, when one was recorded.
pub fn record_custom(
    call: CustomCall<'_>,
    backward: CustomBackward,
) -> Result<(Vec<Tensor>, Option<Arc<Node>>)> {
    let input_refs: Vec<&Tensor> = call.inputs.iter().collect();
    if !is_recording(&input_refs) {
        let outs = call
            .outputs
            .iter()
            .zip(call.dirty)
            .map(|(o, &dirty)| {
                if !dirty && call.inputs.iter().any(|i| i.same(o)) {
                    custom_view(o)
                } else {
                    if !dirty && o.base().is_some() {
                        // a view the forward made: marked as its own (it is fresh)
                        o.set_view_creation(crate::core::tensor::ViewCreation::InCustomFunction);
                    }
                    o.clone()
                }
            })
            .collect();
        return Ok((outs, None));
    }
    check_dirty(&call)?;
    let outs: Vec<Tensor> = call
        .outputs
        .iter()
        .zip(call.dirty)
        .map(|(o, &dirty)| {
            if dirty {
                // written in place: the node becomes its history (through CopySlices for a view)
                o.storage().bump_version("mark_dirty");
                match o.base() {
                    Some(_) => o.detach(),
                    None => o.clone(),
                }
            } else if call.inputs.iter().any(|i| i.same(o)) {
                custom_view(o)
            } else if o.base().is_some() && o.is_leaf() {
                // a view the forward made (under no_grad): marked, and given the node itself,
                // as PyTorch sets the returned view's history (its object stays the user's)
                o.set_view_creation(crate::core::tensor::ViewCreation::InCustomFunction);
                o.clone()
            } else if o.base().is_some() {
                custom_view(o)
            } else if !o.is_leaf() || o.requires_grad() {
                o.detach()
            } else {
                o.clone()
            }
        })
        .collect();
    let recorded: Vec<usize> = (0..outs.len())
        .filter(|&k| call.differentiable[k])
        .collect();
    if recorded.is_empty() {
        // nothing to differentiate (bool outputs, or all marked non-differentiable)
        return Ok((outs, None));
    }
    let node = record_formula(&call, &outs, &recorded, &input_refs, backward);
    // a dirty view took the node as its history through its base's (CopySlices)
    let mut handed = outs;
    for (k, o) in call.outputs.iter().enumerate() {
        if !call.dirty[k] {
            continue;
        }
        if let Some(base) = o.base() {
            if let Some(relative) = o.layout().relative_to(base.layout()) {
                o.set_grad_fn(crate::ops::shape::strided::copy_slices(
                    base, o, &handed[k], &relative,
                )?);
            }
            handed[k] = o.clone();
        }
    }
    Ok((handed, node))
}

/// PyTorch's refusals of `ctx.mark_dirty` tensors (`set_history` in its custom_function.cpp): a
/// leaf that requires grad, a view among several outputs; then those of any in-place write.
fn check_dirty(call: &CustomCall<'_>) -> Result<()> {
    for (o, _) in call.outputs.iter().zip(call.dirty).filter(|(_, &d)| d) {
        if o.is_leaf() && o.requires_grad() && o.base().is_none() {
            return Err(Error::runtime(
                "a leaf Variable that requires grad has been used in an in-place operation.",
            ));
        }
        if o.base().is_some() && call.outputs.len() > 1 {
            return Err(Error::runtime(
                "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more than one Tensor. This is not supported by the current autograd engine. You should either make sure the input is not a view (using .clone() for example) or make your Function only return one Tensor (potentially splitting it into two Functions: one doing the inplace that returns a single Tensor and a second one that does the other operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change.",
            ));
        }
        // then the checks of any in-place write (a refused view, a view of such a leaf)
        o.check_inplace(call.inputs.iter().collect::<Vec<_>>().as_slice())?;
    }
    Ok(())
}

/// Records the node of `call` as the history of its differentiable outputs `recorded` (indices
/// into `outs`, the tensors handed back); returns it.
fn record_formula(
    call: &CustomCall<'_>,
    outs: &[Tensor],
    recorded: &[usize],
    input_refs: &[&Tensor],
    backward: CustomBackward,
) -> Option<Arc<Node>> {
    let saves: Vec<Save<'_>> = call
        .saved
        .iter()
        .map(|s| {
            let as_output = recorded
                .iter()
                .position(|&k| call.outputs[k].same(s) || outs[k].same(s));
            match as_output {
                Some(j) => Save::OutputAt(j),
                None => Save::Tensor(s),
            }
        })
        .collect();
    let metas: Vec<(Vec<usize>, DType)> = outs
        .iter()
        .map(|o| (o.shape().to_vec(), o.dtype()))
        .collect();
    let (name, n_args, positions) = (call.name.clone(), call.n_args, call.positions.to_vec());
    let slots = call.output_slots.to_vec();
    let materialize = call.materialize_grads;
    let formula: BackwardFn = Box::new(move |ctx| {
        // one gradient per tensor output, from its slot (zeros for those that did not arrive)
        let grads: Vec<Option<Tensor>> = metas
            .iter()
            .zip(&slots)
            .map(|((shape, dtype), &slot)| match ctx.grad_opt(slot) {
                Some(g) => Some(g.clone()),
                None => materialize.then(|| Tensor::zeros(shape, *dtype)),
            })
            .collect();
        let mut returned = backward(grads, ctx.saved_tensors())?;
        // more gradients than arguments are fine when the extra ones are None
        if returned.len() > n_args && returned[n_args..].iter().all(Option::is_none) {
            returned.truncate(n_args);
        }
        if returned.len() != n_args {
            return Err(Error::runtime(format!(
                "function {name} returned an incorrect number of gradients (expected {n_args}, got {})",
                returned.len()
            )));
        }
        for (p, g) in returned.iter().enumerate() {
            if g.is_some() && !positions.contains(&p) {
                return Err(Error::runtime(format!(
                    "function {name} returned a gradient different than None at position {}, \
                     but the corresponding forward input was not a Variable",
                    p + 1
                )));
            }
        }
        Ok(positions.iter().map(|&p| returned[p].clone()).collect())
    });
    let to_record: Vec<Tensor> = recorded.iter().map(|&k| outs[k].clone()).collect();
    let slots: Vec<usize> = recorded.iter().map(|&k| call.output_slots[k]).collect();
    let recorded = record_at_slots(
        to_record,
        &slots,
        call.n_slots,
        call.name.clone(),
        input_refs,
        &saves,
        formula,
    );
    recorded.first().and_then(Tensor::grad_fn)
}
