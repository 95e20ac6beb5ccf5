//! Loss functions over the core's loss ops, as `torch.nn.functional` composes them, each
//! reducing to the mean (PyTorch's default); the `*_with` forms take a [`Reduction`].

pub use crate::ops::nn::loss::Reduction;

use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;

/// PyTorch's default `ignore_index` of `nll_loss` and `cross_entropy`.
const IGNORE_INDEX: i64 = -100;

/// Cross-entropy of `logits` (`[N, C]`, or `[C]` for one sample) against class indices
/// `target` (int64, `[N]` or `[]`): `nll_loss(log_softmax(logits))`, averaged over the samples.
///
/// ```
/// use ferrograd::{nn, Tensor};
/// let logits = Tensor::from_vec(vec![2.0f64, 0.0, 0.0, 2.0], &[2, 2]).unwrap();
/// let target = Tensor::from_vec(vec![0i64, 1], &[2]).unwrap();
/// let loss = nn::cross_entropy(&logits, &target).unwrap();
/// let expected = (1.0 + (-2.0f64).exp()).ln(); // -log softmax of the right class
/// assert!((loss.item().unwrap().to_f64() - expected).abs() < 1e-12);
/// ```
pub fn cross_entropy(logits: &Tensor, target: &Tensor) -> Result<Tensor> {
    cross_entropy_with(logits, target, Reduction::Mean)
}

/// [`cross_entropy`] with another reduction.
pub fn cross_entropy_with(
    logits: &Tensor,
    target: &Tensor,
    reduction: Reduction,
) -> Result<Tensor> {
    if logits.dim() == 0 {
        return Err(Error::index(
            "cross_entropy needs logits with a class dimension",
        ));
    }
    let class_dim = if logits.dim() == 1 { 0 } else { 1 };
    logits
        .log_softmax(class_dim)?
        .nll_loss(target, None, reduction, IGNORE_INDEX)
}

/// Mean squared error `mean((input - target)²)` (PyTorch's `mse_loss`).
///
/// ```
/// use ferrograd::{nn, Tensor};
/// let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
/// let y = Tensor::from_vec(vec![1.0f32, 0.0, 0.0], &[3]).unwrap();
/// assert_eq!(nn::mse_loss(&x, &y).unwrap().to_vec::<f32>().unwrap(), vec![13.0 / 3.0]);
/// ```
pub fn mse_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    input.mse_loss(target, Reduction::Mean)
}

/// [`mse_loss`] with another reduction.
pub fn mse_loss_with(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    input.mse_loss(target, reduction)
}

/// Binary cross-entropy of logits against targets in `[0, 1]`, computed stably from the
/// logits (PyTorch's `binary_cross_entropy_with_logits`), averaged.
pub fn binary_cross_entropy_with_logits(logits: &Tensor, target: &Tensor) -> Result<Tensor> {
    logits.binary_cross_entropy_with_logits(target, None, None, Reduction::Mean)
}

/// Negative log-likelihood of log-probabilities `log_probs` (`[N, C]`) at class indices
/// `target`, averaged (PyTorch's `nll_loss`).
pub fn nll_loss(log_probs: &Tensor, target: &Tensor) -> Result<Tensor> {
    log_probs.nll_loss(target, None, Reduction::Mean, IGNORE_INDEX)
}
