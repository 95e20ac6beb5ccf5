//! `nn.functional` bindings: activations (`_core.hardtanh(input, min_val, max_val)`, ...) and
//! losses (`_core.<loss>(input, target, ..., reduction)`), wrapped by `nn.functional` (which adds
//! PyTorch's argument handling, warnings and `inplace=`).

use super::run;
use super::tensor::{to_object, PyTensor};
use crate::ops::nn::loss::Reduction;
use pyo3::prelude::*;

fn reduction(name: &str) -> PyResult<Reduction> {
    run(|| Reduction::parse(name))
}

/// Mean squared error (`MseLossBackward0`).
#[pyfunction]
#[pyo3(signature = (input, target, reduction="mean"))]
fn mse_loss(
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
#[pyo3(signature = (input, target, reduction="mean", delta=1.0))]
fn huber_loss(
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
#[pyo3(signature = (input, target, reduction="mean", beta=1.0))]
fn smooth_l1_loss(
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
#[pyo3(signature = (input, target, weight=None, reduction="mean"))]
fn binary_cross_entropy(
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
#[pyo3(signature = (input, target, weight=None, pos_weight=None, reduction="mean"))]
fn binary_cross_entropy_with_logits(
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
fn nll_loss(
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
fn hardtanh(
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
fn threshold(
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
fn threshold_<'py>(
    input: &Bound<'py, PyTensor>,
    threshold: f64,
    value: f64,
) -> PyResult<Bound<'py, PyTensor>> {
    run(|| input.get().inner.threshold_(threshold, value))?;
    Ok(input.clone())
}

/// CELU (`CeluBackward0`).
#[pyfunction]
fn celu(py: Python<'_>, input: PyRef<'_, PyTensor>, alpha: f64) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.celu(alpha))?)
}

/// Hard shrinkage (`HardshrinkBackward0`).
#[pyfunction]
fn hardshrink(py: Python<'_>, input: PyRef<'_, PyTensor>, lambd: f64) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.hardshrink(lambd))?)
}

/// Soft shrinkage (`SoftshrinkBackward0`).
#[pyfunction]
fn softshrink(py: Python<'_>, input: PyRef<'_, PyTensor>, lambd: f64) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.softshrink(lambd))?)
}

/// Gated linear unit along `dim` (`GluBackward0`).
#[pyfunction]
fn glu(py: Python<'_>, input: PyRef<'_, PyTensor>, dim: isize) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.glu(dim))?)
}

/// Parametric ReLU (`PreluKernelBackward0`).
#[pyfunction]
fn prelu(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    weight: PyRef<'_, PyTensor>,
) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.prelu(&weight.inner))?)
}

/// Randomized leaky ReLU (`RreluWithNoiseBackward0`): random slopes in training, their mean
/// in evaluation.
#[pyfunction]
#[pyo3(signature = (input, lower, upper, training, generator=None))]
fn rrelu(
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
        fn $name(py: Python<'_>, input: PyRef<'_, PyTensor>) -> PyResult<Py<PyAny>> {
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
#[pyo3(signature = (input, hx, cx, w_ih, w_hh, b_ih=None, b_hh=None))]
#[allow(clippy::too_many_arguments)]
fn lstm_cell(
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
#[pyo3(signature = (input, hx, cx, w_ih, w_hh, b_ih=None, b_hh=None))]
#[allow(clippy::too_many_arguments)]
fn lstm_layer(
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
#[pyo3(signature = (input, hx, w_ih, w_hh, b_ih=None, b_hh=None))]
fn gru_cell(
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
#[pyo3(signature = (input, hx, w_ih, w_hh, b_ih=None, b_hh=None, relu=false))]
#[allow(clippy::too_many_arguments)]
fn rnn_cell(
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
#[pyo3(signature = (query, key, value, bias, is_causal, scale))]
fn scaled_dot_product_attention(
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scaled_dot_product_attention, m)?)?;
    m.add_function(wrap_pyfunction!(hardtanh, m)?)?;
    m.add_function(wrap_pyfunction!(lstm_cell, m)?)?;
    m.add_function(wrap_pyfunction!(lstm_layer, m)?)?;
    m.add_function(wrap_pyfunction!(gru_cell, m)?)?;
    m.add_function(wrap_pyfunction!(rnn_cell, m)?)?;
    m.add_function(wrap_pyfunction!(celu, m)?)?;
    m.add_function(wrap_pyfunction!(hardshrink, m)?)?;
    m.add_function(wrap_pyfunction!(softshrink, m)?)?;
    m.add_function(wrap_pyfunction!(glu, m)?)?;
    m.add_function(wrap_pyfunction!(prelu, m)?)?;
    m.add_function(wrap_pyfunction!(rrelu, m)?)?;
    m.add_function(wrap_pyfunction!(selu, m)?)?;
    m.add_function(wrap_pyfunction!(threshold, m)?)?;
    m.add_function(wrap_pyfunction!(threshold_, m)?)?;
    m.add_function(wrap_pyfunction!(hardsigmoid, m)?)?;
    m.add_function(wrap_pyfunction!(hardswish, m)?)?;
    m.add_function(wrap_pyfunction!(mish, m)?)?;
    m.add_function(wrap_pyfunction!(logsigmoid, m)?)?;
    m.add_function(wrap_pyfunction!(mse_loss, m)?)?;
    m.add_function(wrap_pyfunction!(huber_loss, m)?)?;
    m.add_function(wrap_pyfunction!(smooth_l1_loss, m)?)?;
    m.add_function(wrap_pyfunction!(binary_cross_entropy, m)?)?;
    m.add_function(wrap_pyfunction!(binary_cross_entropy_with_logits, m)?)?;
    m.add_function(wrap_pyfunction!(nll_loss, m)?)?;
    Ok(())
}
