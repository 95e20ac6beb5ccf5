//! The ops of `torch.nn.functional` that have their own nodes (the layers of the Rust `nn`
//! floor and of Python's `nn` call them).
//!
//! | file | ops |
//! |---|---|
//! | `activation` | `gelu`, `silu`, `softplus`, `leaky_relu`, `elu`, `softmax`, `log_softmax` |
//! | `attention` | fused scaled dot-product attention (one node, as PyTorch's CPU kernel) |
//! | `conv` | `convolution` (1-D/2-D, transposed, groups), `unfold`/`fold` |
//! | `pooling` | `max_pool2d`, `avg_pool2d`, adaptive pools |
//! | `upsample` | `interpolate` |
//! | `normalization` | `layer_norm`, `batch_norm` (running statistics), `group_norm`, `rms_norm` |
//! | `recurrent` | one node per recurrent cell: `lstm_cell`, `gru_cell`, `rnn_cell`, and the fused layers |
//! | `loss` | losses with their own node: `mse_loss`, `huber_loss`, `smooth_l1_loss`, `binary_cross_entropy` (`_with_logits`), `nll_loss` |
//! | `embedding` | `embedding` (rows by index) and `embedding_bag` (sums, means or maxima of bags of rows) |
//!
//! Pools, resampling and `unfold`/`fold` are linear maps: they implement `Adjoint` here and
//! record through `linear_op`, so every order of gradient exists.

pub mod activation;
pub mod attention;
pub mod conv;
pub mod embedding;
pub mod loss;
pub mod normalization;
pub mod pooling;
pub mod recurrent;
pub mod upsample;

use crate::autograd::{is_recording, record, Save};
use crate::core::error::Result;
use crate::core::tensor::Tensor;
use std::sync::Arc;

/// A linear map between tensors of fixed shapes with its adjoint: the op records the map's
/// node, and its gradient is the adjoint (and the adjoint's gradient the map).
pub(crate) trait Adjoint: Send + Sync + 'static {
    /// `M x`, not recorded.
    fn apply(&self, x: &Tensor) -> Result<Tensor>;
    /// `Mᵀ y`, not recorded.
    fn adjoint(&self, y: &Tensor) -> Result<Tensor>;
    /// The node names of `M` and of `Mᵀ`.
    fn names(&self) -> (&'static str, &'static str);
    /// Whether the gradient node (`Mᵀ`) also takes `M`'s input, whose gradient through it is
    /// zero: PyTorch's pools' double-backward nodes take `self`, so a second derivative
    /// with respect to the pooled input is a zero tensor there, not `None`.
    fn gradient_takes_input(&self) -> bool {
        false
    }
}

/// `M x` (or `Mᵀ x` when `transposed`), recorded with the other direction as its gradient;
/// `precomputed` is the value when the caller already has it.
pub(crate) fn linear_op(
    map: Arc<dyn Adjoint>,
    x: &Tensor,
    transposed: bool,
    precomputed: Option<Tensor>,
) -> Result<Tensor> {
    linear_node(map, x, transposed, precomputed, None)
}

/// [`linear_op`], with `source` (the input of the op this one is the gradient of) as a
/// second input of the node when the map asks for it.
fn linear_node(
    map: Arc<dyn Adjoint>,
    x: &Tensor,
    transposed: bool,
    precomputed: Option<Tensor>,
    source: Option<&Tensor>,
) -> Result<Tensor> {
    let out = match precomputed {
        Some(out) => out,
        None if transposed => map.adjoint(x)?,
        None => map.apply(x)?,
    };
    let inputs: Vec<&Tensor> = std::iter::once(x).chain(source).collect();
    if !is_recording(&inputs) {
        return Ok(out);
    }
    let (forward, backward) = map.names();
    let name = if transposed { backward } else { forward };
    // the gradient's node takes this op's input: keep it for the backward pass
    let keep = !transposed && map.gradient_takes_input();
    let saves = if keep { vec![Save::Tensor(x)] } else { vec![] };
    let zeros = source.map(|s| (s.shape().to_vec(), s.dtype()));
    Ok(record(out, name, &inputs, &saves, move |ctx| {
        let main = match ctx.needs_input_grad(0) {
            true => {
                let kept = keep.then(|| ctx.saved(0));
                Some(linear_node(
                    map.clone(),
                    ctx.grad(0),
                    !transposed,
                    None,
                    kept,
                )?)
            }
            false => None,
        };
        let mut grads = vec![main];
        if let Some((shape, dtype)) = &zeros {
            grads.push(
                ctx.needs_input_grad(1)
                    .then(|| Tensor::zeros(shape, *dtype)),
            );
        }
        Ok(grads)
    }))
}
