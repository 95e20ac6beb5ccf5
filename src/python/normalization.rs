//! `nn.functional` normalization bindings: `_core.layer_norm`, `_core.batch_norm`,
//! `_core.group_norm` and `_core.rms_norm`, wrapped by `nn.functional` (which adds PyTorch's
//! Python-side argument checks).

use super::errors::run;
use super::tensor::{to_object, PyTensor};
use crate::core::tensor::Tensor;
use pyo3::prelude::*;

/// Layer normalization over the trailing `normalized_shape` (`NativeLayerNormBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", normalized_shape: "Sequence[int]", weight: "Tensor | None" = None, bias: "Tensor | None" = None, eps: "float" = 1e-5) -> "Tensor")]
pub(crate) fn layer_norm(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    normalized_shape: Vec<i64>,
    weight: Option<PyRef<'_, PyTensor>>,
    bias: Option<PyRef<'_, PyTensor>>,
    eps: f64,
) -> PyResult<Py<PyAny>> {
    let (w, b) = (
        weight.as_ref().map(|t| &*t.inner),
        bias.as_ref().map(|t| &*t.inner),
    );
    to_object(
        py,
        run(|| input.inner.layer_norm(&normalized_shape, w, b, eps))?,
    )
}

/// The core tensor of an optional tensor argument.
fn inner<'a>(t: &'a Option<PyRef<'_, PyTensor>>) -> Option<&'a Tensor> {
    t.as_ref().map(|t| &*t.inner)
}

/// `instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum,
/// eps)`: each sample's channel normalized over its spatial positions (see
/// [`Tensor::instance_norm`]).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (input: "Tensor", running_mean: "Tensor | None" = None, running_var: "Tensor | None" = None, weight: "Tensor | None" = None, bias: "Tensor | None" = None, use_input_stats: "bool" = true, momentum: "float" = 0.1, eps: "float" = 1e-5) -> "Tensor")]
pub(crate) fn instance_norm(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    running_mean: Option<PyRef<'_, PyTensor>>,
    running_var: Option<PyRef<'_, PyTensor>>,
    weight: Option<PyRef<'_, PyTensor>>,
    bias: Option<PyRef<'_, PyTensor>>,
    use_input_stats: bool,
    momentum: f64,
    eps: f64,
) -> PyResult<Py<PyAny>> {
    let (w, b, rm, rv) = (
        inner(&weight),
        inner(&bias),
        inner(&running_mean),
        inner(&running_var),
    );
    let out = run(|| {
        input
            .inner
            .instance_norm(w, b, rm, rv, use_input_stats, momentum, eps)
    })?;
    to_object(py, out)
}

/// Batch normalization per channel, updating given running statistics in training
/// (`NativeBatchNormBackward0`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (input: "Tensor", running_mean: "Tensor | None", running_var: "Tensor | None", weight: "Tensor | None" = None, bias: "Tensor | None" = None, training: "bool" = false, momentum: "float" = 0.1, eps: "float" = 1e-5) -> "Tensor")]
pub(crate) fn batch_norm(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    running_mean: Option<PyRef<'_, PyTensor>>,
    running_var: Option<PyRef<'_, PyTensor>>,
    weight: Option<PyRef<'_, PyTensor>>,
    bias: Option<PyRef<'_, PyTensor>>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> PyResult<Py<PyAny>> {
    let (w, b, rm, rv) = (
        inner(&weight),
        inner(&bias),
        inner(&running_mean),
        inner(&running_var),
    );
    to_object(
        py,
        run(|| {
            input
                .inner
                .batch_norm(w, b, rm, rv, training, momentum, eps)
        })?,
    )
}

/// Group normalization (`NativeGroupNormBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", num_groups: "int", weight: "Tensor | None" = None, bias: "Tensor | None" = None, eps: "float" = 1e-5) -> "Tensor")]
pub(crate) fn group_norm(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    num_groups: usize,
    weight: Option<PyRef<'_, PyTensor>>,
    bias: Option<PyRef<'_, PyTensor>>,
    eps: f64,
) -> PyResult<Py<PyAny>> {
    let (w, b) = (
        weight.as_ref().map(|t| &*t.inner),
        bias.as_ref().map(|t| &*t.inner),
    );
    to_object(py, run(|| input.inner.group_norm(num_groups, w, b, eps))?)
}

/// RMS normalization over the trailing `normalized_shape` (PyTorch's composite graph).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", normalized_shape: "Sequence[int]", weight: "Tensor | None" = None, eps: "float | None" = None) -> "Tensor")]
pub(crate) fn rms_norm(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    normalized_shape: Vec<i64>,
    weight: Option<PyRef<'_, PyTensor>>,
    eps: Option<f64>,
) -> PyResult<Py<PyAny>> {
    let w = weight.as_ref().map(|t| &*t.inner);
    to_object(py, run(|| input.inner.rms_norm(&normalized_shape, w, eps))?)
}
