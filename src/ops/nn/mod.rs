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

pub mod activation;
pub mod attention;
pub mod conv;
pub mod embedding;
pub mod loss;
pub mod normalization;
pub mod pooling;
pub mod recurrent;
pub mod upsample;
