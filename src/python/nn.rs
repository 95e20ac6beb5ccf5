//! `nn.functional` bindings: activations (`_core.hardtanh(input, min_val, max_val)`, ...) and
//! losses (`_core.<loss>(input, target, ..., reduction)`), wrapped by `nn.functional` (which adds
//! PyTorch's argument handling, warnings and `inplace=`).

use super::convert::tensor_arg;
use super::errors::run;
use super::tensor::{to_object, PyTensor};
use crate::ops::nn::loss::Reduction;
use pyo3::prelude::*;

fn reduction(name: &str) -> PyResult<Reduction> {
    run(|| Reduction::parse(name))
}

/// Mean squared error (`MseLossBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", target: "Tensor", reduction: "str" = "mean") -> "Tensor")]
pub(crate) fn mse_loss(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    target: PyRef<'_, PyTensor>,
    reduction: &str,
) -> PyResult<Py<PyAny>> {
    let r = self::reduction(reduction)?;
    to_object(py, run(|| input.inner.mse_loss(&target.inner, r))?)
}

/// Huber loss (`HuberLossBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", target: "Tensor", reduction: "str" = "mean", delta: "float" = 1.0) -> "Tensor")]
pub(crate) fn huber_loss(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    target: PyRef<'_, PyTensor>,
    reduction: &str,
    delta: f64,
) -> PyResult<Py<PyAny>> {
    let r = self::reduction(reduction)?;
    to_object(py, run(|| input.inner.huber_loss(&target.inner, r, delta))?)
}

/// Smooth L1 loss (`SmoothL1LossBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", target: "Tensor", reduction: "str" = "mean", beta: "float" = 1.0) -> "Tensor")]
pub(crate) fn smooth_l1_loss(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    target: PyRef<'_, PyTensor>,
    reduction: &str,
    beta: f64,
) -> PyResult<Py<PyAny>> {
    let r = self::reduction(reduction)?;
    to_object(
        py,
        run(|| input.inner.smooth_l1_loss(&target.inner, r, beta))?,
    )
}

/// Binary cross-entropy of probabilities (`BinaryCrossEntropyBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", target: "Tensor", weight: "Tensor | None" = None, reduction: "str" = "mean") -> "Tensor")]
pub(crate) fn binary_cross_entropy(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    target: PyRef<'_, PyTensor>,
    weight: Option<PyRef<'_, PyTensor>>,
    reduction: &str,
) -> PyResult<Py<PyAny>> {
    let r = self::reduction(reduction)?;
    let w = weight.as_ref().map(|w| &*w.inner);
    to_object(
        py,
        run(|| input.inner.binary_cross_entropy(&target.inner, w, r))?,
    )
}

/// Binary cross-entropy of logits (`BinaryCrossEntropyWithLogitsBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", target: "Tensor", weight: "Tensor | None" = None, pos_weight: "Tensor | None" = None, reduction: "str" = "mean") -> "Tensor")]
pub(crate) fn binary_cross_entropy_with_logits(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    target: PyRef<'_, PyTensor>,
    weight: Option<PyRef<'_, PyTensor>>,
    pos_weight: Option<PyRef<'_, PyTensor>>,
    reduction: &str,
) -> PyResult<Py<PyAny>> {
    let r = self::reduction(reduction)?;
    let w = weight.as_ref().map(|w| &*w.inner);
    let pw = pos_weight.as_ref().map(|w| &*w.inner);
    to_object(
        py,
        run(|| {
            input
                .inner
                .binary_cross_entropy_with_logits(&target.inner, w, pw, r)
        })?,
    )
}

/// Negative log-likelihood of class indices (`NllLossBackward0`).
#[pyfunction]
#[pyo3(signature = (input, target, weight=None, reduction="mean", ignore_index=-100))]
// stub: (
//     input: Tensor,
//     target: Tensor,
//     weight: Tensor | None = None,
//     reduction: str = "mean",
//     ignore_index: int = ...,
// ) -> Tensor
pub(crate) fn nll_loss(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    target: PyRef<'_, PyTensor>,
    weight: Option<PyRef<'_, PyTensor>>,
    reduction: &str,
    ignore_index: i64,
) -> PyResult<Py<PyAny>> {
    let r = self::reduction(reduction)?;
    let w = weight.as_ref().map(|w| &*w.inner);
    to_object(
        py,
        run(|| input.inner.nll_loss(&target.inner, w, r, ignore_index))?,
    )
}

/// Hardtanh (`HardtanhBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", min_val: "float", max_val: "float") -> "Tensor")]
pub(crate) fn hardtanh(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    min_val: f64,
    max_val: f64,
) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.hardtanh(min_val, max_val))?)
}

/// `threshold(input, threshold, value)`: `x` where `x > threshold`, else `value`
/// (`ThresholdBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", threshold: "float", value: "float") -> "Tensor")]
pub(crate) fn threshold(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    threshold: f64,
    value: f64,
) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.threshold(threshold, value))?)
}

/// `threshold_(input, threshold, value)`: `threshold` in place (`ThresholdBackward1`); returns
/// `input`.
#[pyfunction]
#[pyo3(signature = (input: "Tensor", threshold: "float", value: "float") -> "Tensor")]
pub(crate) fn threshold_<'py>(
    input: &Bound<'py, PyTensor>,
    threshold: f64,
    value: f64,
) -> PyResult<Bound<'py, PyTensor>> {
    run(|| input.get().inner.threshold_(threshold, value))?;
    Ok(input.clone())
}

/// CELU (`CeluBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", alpha: "float") -> "Tensor")]
pub(crate) fn celu(py: Python<'_>, input: PyRef<'_, PyTensor>, alpha: f64) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.celu(alpha))?)
}

/// Hard shrinkage (`HardshrinkBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", lambd: "float") -> "Tensor")]
pub(crate) fn hardshrink(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    lambd: f64,
) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.hardshrink(lambd))?)
}

/// Soft shrinkage (`SoftshrinkBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", lambd: "float") -> "Tensor")]
pub(crate) fn softshrink(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    lambd: f64,
) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.softshrink(lambd))?)
}

/// Gated linear unit along `dim` (`GluBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", dim: "int") -> "Tensor")]
pub(crate) fn glu(py: Python<'_>, input: PyRef<'_, PyTensor>, dim: isize) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.glu(dim))?)
}

/// Parametric ReLU (`PreluKernelBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", weight: "Tensor") -> "Tensor")]
pub(crate) fn prelu(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    weight: PyRef<'_, PyTensor>,
) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.prelu(&weight.inner))?)
}

/// Randomized leaky ReLU (`RreluWithNoiseBackward0`): random slopes in training, their mean
/// in evaluation.
#[pyfunction]
#[pyo3(signature = (input: "Tensor", lower: "float", upper: "float", training: "bool", generator: "Any | None" = None) -> "Tensor")]
pub(crate) fn rrelu(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    lower: f64,
    upper: f64,
    training: bool,
    generator: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let gen = super::random::generator_arg(generator)?;
    to_object(
        py,
        run(|| input.inner.rrelu(lower, upper, training, gen.as_ref()))?,
    )
}

macro_rules! activation {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        // stub: (input: Tensor) -> Tensor
        pub(crate) fn $name(py: Python<'_>, input: PyRef<'_, PyTensor>) -> PyResult<Py<PyAny>> {
            to_object(py, run(|| input.inner.$name())?)
        }
    };
}

activation!(selu, "SELU (`EluBackward0`).");
activation!(hardsigmoid, "Hardsigmoid (`HardsigmoidBackward0`).");
activation!(hardswish, "Hardswish (`HardswishBackward0`).");
activation!(mish, "Mish (`MishBackward0`).");
activation!(logsigmoid, "Log-sigmoid (`LogSigmoidBackward0`).");

fn opt<'a>(t: &'a Option<PyRef<'_, PyTensor>>) -> Option<&'a crate::core::tensor::Tensor> {
    t.as_ref().map(|t| &*t.inner)
}

/// One LSTM step: `(h', c')` (one node, `LstmCellBackward0`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (input: "Tensor", hx: "Tensor", cx: "Tensor", w_ih: "Tensor", w_hh: "Tensor", b_ih: "Tensor | None" = None, b_hh: "Tensor | None" = None) -> "tuple[Tensor, Tensor]")]
pub(crate) fn lstm_cell(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    hx: PyRef<'_, PyTensor>,
    cx: PyRef<'_, PyTensor>,
    w_ih: PyRef<'_, PyTensor>,
    w_hh: PyRef<'_, PyTensor>,
    b_ih: Option<PyRef<'_, PyTensor>>,
    b_hh: Option<PyRef<'_, PyTensor>>,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let (h, c) = run(|| {
        input.inner.lstm_cell(
            &hx.inner,
            &cx.inner,
            &w_ih.inner,
            &w_hh.inner,
            opt(&b_ih),
            opt(&b_hh),
        )
    })?;
    Ok((to_object(py, h)?, to_object(py, c)?))
}

/// An LSTM layer over a `[steps, batch, input]` sequence: `(output, h_n, c_n)` (one node).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (input: "Tensor", hx: "Tensor", cx: "Tensor", w_ih: "Tensor", w_hh: "Tensor", b_ih: "Tensor | None" = None, b_hh: "Tensor | None" = None) -> "tuple[Tensor, Tensor, Tensor]")]
pub(crate) fn lstm_layer(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    hx: PyRef<'_, PyTensor>,
    cx: PyRef<'_, PyTensor>,
    w_ih: PyRef<'_, PyTensor>,
    w_hh: PyRef<'_, PyTensor>,
    b_ih: Option<PyRef<'_, PyTensor>>,
    b_hh: Option<PyRef<'_, PyTensor>>,
) -> PyResult<(Py<PyAny>, Py<PyAny>, Py<PyAny>)> {
    let (x, h0, c0) = (input.inner.clone(), hx.inner.clone(), cx.inner.clone());
    let (wi, wh) = (w_ih.inner.clone(), w_hh.inner.clone());
    let (bi, bh) = (opt(&b_ih).cloned(), opt(&b_hh).cloned());
    let (o, h, c) =
        py.detach(|| run(|| x.lstm_layer(&h0, &c0, &wi, &wh, bi.as_ref(), bh.as_ref())))?;
    Ok((to_object(py, o)?, to_object(py, h)?, to_object(py, c)?))
}

/// One GRU step (one node, `GruCellBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", hx: "Tensor", w_ih: "Tensor", w_hh: "Tensor", b_ih: "Tensor | None" = None, b_hh: "Tensor | None" = None) -> "Tensor")]
pub(crate) fn gru_cell(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    hx: PyRef<'_, PyTensor>,
    w_ih: PyRef<'_, PyTensor>,
    w_hh: PyRef<'_, PyTensor>,
    b_ih: Option<PyRef<'_, PyTensor>>,
    b_hh: Option<PyRef<'_, PyTensor>>,
) -> PyResult<Py<PyAny>> {
    let h = run(|| {
        input
            .inner
            .gru_cell(&hx.inner, &w_ih.inner, &w_hh.inner, opt(&b_ih), opt(&b_hh))
    })?;
    to_object(py, h)
}

/// One Elman RNN step with tanh or relu (one node).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (input: "Tensor", hx: "Tensor", w_ih: "Tensor", w_hh: "Tensor", b_ih: "Tensor | None" = None, b_hh: "Tensor | None" = None, relu: "bool" = false) -> "Tensor")]
pub(crate) fn rnn_cell(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    hx: PyRef<'_, PyTensor>,
    w_ih: PyRef<'_, PyTensor>,
    w_hh: PyRef<'_, PyTensor>,
    b_ih: Option<PyRef<'_, PyTensor>>,
    b_hh: Option<PyRef<'_, PyTensor>>,
    relu: bool,
) -> PyResult<Py<PyAny>> {
    let h = run(|| {
        input.inner.rnn_cell(
            &hx.inner,
            &w_ih.inner,
            &w_hh.inner,
            opt(&b_ih),
            opt(&b_hh),
            relu,
        )
    })?;
    to_object(py, h)
}

/// Adds the activation and loss functions to the module.
/// `scaled_dot_product_attention(query, key, value, bias, is_causal, scale)`: fused attention
/// over the same leading dims, `bias` an additive float mask (see
/// [`Tensor::scaled_dot_product_attention`]); the GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (query: "Tensor", key: "Tensor", value: "Tensor", bias: "Tensor | None", is_causal: "bool", scale: "float") -> "Tensor")]
pub(crate) fn scaled_dot_product_attention(
    py: Python<'_>,
    query: PyRef<'_, PyTensor>,
    key: PyRef<'_, PyTensor>,
    value: PyRef<'_, PyTensor>,
    bias: Option<PyRef<'_, PyTensor>>,
    is_causal: bool,
    scale: f64,
) -> PyResult<Py<PyAny>> {
    let (q, k, v) = (query.inner.clone(), key.inner.clone(), value.inner.clone());
    let b = bias.map(|b| b.inner.clone());
    let out =
        py.detach(|| run(|| q.scaled_dot_product_attention(&k, &v, b.as_ref(), is_causal, scale)))?;
    to_object(py, out)
}

/// `F.embedding`'s core: the rows of `weight` at `indices` (`EmbeddingBackward0`; no
/// gradient for the row `padding_idx`; each row's gradient divided by its count when
/// `scale_grad_by_freq`). The argument checks and `max_norm` are in `nn.functional`.
#[pyfunction]
#[pyo3(signature = (weight: "Tensor", indices: "Tensor", padding_idx: "int | None" = None, scale_grad_by_freq: "bool" = false, sparse: "bool" = false) -> "Tensor")]
pub(crate) fn _embedding(
    weight: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> PyResult<Py<PyAny>> {
    let w = tensor_arg(weight, "embedding() argument 'weight'")?;
    let i = tensor_arg(indices, "embedding() argument 'indices'")?;
    let out = run(|| w.embedding_as(&i, padding_idx, scale_grad_by_freq, sparse))?;
    to_object(weight.py(), out)
}

/// `embedding_bag(weight, indices, offsets, mode, ...)` (`EmbeddingBagBackward0`): one row
/// per bag of the weight's rows at the 1-D `indices`, cut into bags by `offsets` and reduced
/// by `mode` (0 sum, 1 mean, 2 max). The argument order and the 2-D input are `nn.functional`'s.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (weight: "Tensor", indices: "Tensor", offsets: "Tensor", mode: "int", per_sample_weights: "Tensor | None" = None, include_last_offset: "bool" = false, padding_idx: "int | None" = None, scale_grad_by_freq: "bool" = false, sparse: "bool" = false) -> "Tensor")]
pub(crate) fn _embedding_bag(
    weight: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    mode: u8,
    per_sample_weights: Option<&Bound<'_, PyAny>>,
    include_last_offset: bool,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> PyResult<Py<PyAny>> {
    use crate::ops::nn::embedding::{BagMode, BagOptions};
    let w = tensor_arg(weight, "embedding_bag() argument 'weight'")?;
    let i = tensor_arg(indices, "embedding_bag() argument 'indices'")?;
    let o = tensor_arg(offsets, "embedding_bag() argument 'offsets'")?;
    let mode = match mode {
        0 => BagMode::Sum,
        1 => BagMode::Mean,
        2 => BagMode::Max,
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "mode has to be one of sum, mean or max",
            ))
        }
    };
    let options = BagOptions {
        per_sample_weights: per_sample_weights
            .map(|p| tensor_arg(p, "embedding_bag() argument 'per_sample_weights'"))
            .transpose()?,
        include_last_offset,
        padding_idx,
        scale_grad_by_freq,
        sparse,
    };
    let out = run(|| w.embedding_bag(&i, &o, mode, &options))?;
    to_object(weight.py(), out)
}

/// `(*, C·r², H, W) → (*, C, H·r, W·r)`: `torch.pixel_shuffle` (`PixelShuffleBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", upscale_factor: "int") -> "Tensor")]
pub(crate) fn pixel_shuffle(input: &Bound<'_, PyAny>, upscale_factor: i64) -> PyResult<Py<PyAny>> {
    let x = tensor_arg(input, "pixel_shuffle(): argument 'input'")?;
    to_object(input.py(), run(|| x.pixel_shuffle(upscale_factor))?)
}

/// `(*, C, H·r, W·r) → (*, C·r², H, W)`: `torch.pixel_unshuffle` (`PixelUnshuffleBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", downscale_factor: "int") -> "Tensor")]
pub(crate) fn pixel_unshuffle(
    input: &Bound<'_, PyAny>,
    downscale_factor: i64,
) -> PyResult<Py<PyAny>> {
    let x = tensor_arg(input, "pixel_unshuffle(): argument 'input'")?;
    to_object(input.py(), run(|| x.pixel_unshuffle(downscale_factor))?)
}
