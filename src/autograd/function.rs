//! Custom functions (PyTorch's `autograd.Function`): a node whose backward is a callback the
//! user wrote (in Python, through the bindings).

use super::{is_recording, record_multi, BackwardFn, Save};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use std::sync::Arc;

/// A custom function's backward: the gradients of all its outputs (zeros where none arrived,
/// as PyTorch materializes them, unless the call says not to: then `None`) and its saved
/// tensors in; one entry per forward argument out, `None` for "no gradient" (extra trailing
/// `None`s are accepted, as PyTorch).
pub type CustomBackward =
    Arc<dyn Fn(Vec<Option<Tensor>>, Vec<Tensor>) -> Result<Vec<Option<Tensor>>> + Send + Sync>;

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
    /// What the forward returned.
    pub outputs: &'a [Tensor],
    /// Which outputs are differentiable (`ctx.mark_non_differentiable` clears the others).
    pub differentiable: &'a [bool],
    /// `ctx.save_for_backward(...)`.
    pub saved: &'a [Tensor],
    /// Whether output gradients that did not arrive reach the backward as zeros
    /// (`ctx.set_materialize_grads`, on by default) or as `None`.
    pub materialize_grads: bool,
}

/// Records `call` with `backward` as its formula when grad mode is on and an input requires
/// grad; returns the outputs to hand to the user (an output that is an input, or already has a
/// history, comes back as a fresh alias).
pub fn record_custom(call: CustomCall<'_>, backward: CustomBackward) -> Vec<Tensor> {
    let input_refs: Vec<&Tensor> = call.inputs.iter().collect();
    if !is_recording(&input_refs) {
        return call.outputs.to_vec();
    }
    let outs: Vec<Tensor> = call
        .outputs
        .iter()
        .map(|o| {
            if call.inputs.iter().any(|i| i.same(o)) || !o.is_leaf() || o.requires_grad() {
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
        return outs;
    }
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
    let n_saved = saves.len();
    let metas: Vec<(Vec<usize>, DType)> = outs
        .iter()
        .map(|o| (o.shape().to_vec(), o.dtype()))
        .collect();
    let (name, n_args, positions) = (call.name.clone(), call.n_args, call.positions.to_vec());
    let which = recorded.clone();
    let materialize = call.materialize_grads;
    let formula: BackwardFn = Box::new(move |ctx| {
        let mut grads: Vec<Option<Tensor>> = metas
            .iter()
            .map(|(shape, dtype)| materialize.then(|| Tensor::zeros(shape, *dtype)))
            .collect();
        for (j, &k) in which.iter().enumerate() {
            if let Some(g) = ctx.grad_opt(j) {
                grads[k] = Some(g.clone());
            }
        }
        let saved: Vec<Tensor> = (0..n_saved).map(|i| ctx.saved(i).clone()).collect();
        let mut returned = backward(grads, saved)?;
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
    record_multi(to_record, call.name, &input_refs, &saves, formula);
    outs
}
