//! Bindings of convolution, pooling and sliding blocks: `_core.convolution`,
//! `_core.max_pool2d_with_indices`, `_core.avg_pool2d`, `_core.adaptive_avg_pool2d`,
//! `_core.adaptive_max_pool2d`, `_core.im2col`, `_core.col2im`, `_core.upsample` (wrapped by
//! `nn.functional`, which parses PyTorch's arguments).

use super::errors::run;
use super::tensor::{to_object, PyTensor};
use crate::ops::nn::conv::ConvOptions;
use crate::ops::nn::pooling::PoolOptions;
use crate::ops::nn::upsample::Resample;
use pyo3::prelude::*;

/// PyTorch's `torch.convolution` (`ConvolutionBackward0`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (input: "Tensor", weight: "Tensor", bias: "Tensor | None", stride: "Sequence[int]", padding: "Sequence[int]", dilation: "Sequence[int]", transposed: "bool", output_padding: "Sequence[int]", groups: "int") -> "Tensor")]
pub(crate) fn convolution(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    weight: PyRef<'_, PyTensor>,
    bias: Option<PyRef<'_, PyTensor>>,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    transposed: bool,
    output_padding: Vec<i64>,
    groups: i64,
) -> PyResult<Py<PyAny>> {
    let options = ConvOptions {
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
    };
    let (x, w) = (input.inner.clone(), weight.inner.clone());
    let b = bias.map(|b| b.inner.clone());
    to_object(py, run(|| x.convolution(&w, b.as_ref(), &options))?)
}

/// `max_pool2d_with_indices` (`MaxPool2DWithIndicesBackward0`): `(values, indices)`.
#[pyfunction]
#[pyo3(signature = (input: "Tensor", kernel_size: "Sequence[int]", stride: "Sequence[int]", padding: "Sequence[int]", dilation: "Sequence[int]", ceil_mode: "bool") -> "tuple[Tensor, Tensor]")]
pub(crate) fn max_pool2d_with_indices(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    kernel_size: Vec<i64>,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    ceil_mode: bool,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let options = PoolOptions {
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        ..PoolOptions::default()
    };
    let (values, indices) = run(|| input.inner.max_pool2d_with_indices(&options))?;
    Ok((to_object(py, values)?, to_object(py, indices)?))
}

/// `avg_pool2d` (`AvgPool2DBackward0`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (input: "Tensor", kernel_size: "Sequence[int]", stride: "Sequence[int]", padding: "Sequence[int]", ceil_mode: "bool", count_include_pad: "bool", divisor_override: "int | None") -> "Tensor")]
pub(crate) fn avg_pool2d(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    kernel_size: Vec<i64>,
    stride: Vec<i64>,
    padding: Vec<i64>,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> PyResult<Py<PyAny>> {
    let options = PoolOptions {
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        ..PoolOptions::default()
    };
    to_object(py, run(|| input.inner.avg_pool2d(&options))?)
}

/// `_adaptive_avg_pool2d` (`AdaptiveAvgPool2DBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", output_size: "Sequence[int]") -> "Tensor")]
pub(crate) fn adaptive_avg_pool2d(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    output_size: Vec<i64>,
) -> PyResult<Py<PyAny>> {
    to_object(py, run(|| input.inner.adaptive_avg_pool2d(&output_size))?)
}

/// `adaptive_max_pool2d` (`AdaptiveMaxPool2DBackward0`): `(values, indices)`.
#[pyfunction]
#[pyo3(signature = (input: "Tensor", output_size: "Sequence[int]") -> "tuple[Tensor, Tensor]")]
pub(crate) fn adaptive_max_pool2d(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    output_size: Vec<i64>,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let (values, indices) = run(|| input.inner.adaptive_max_pool2d(&output_size))?;
    Ok((to_object(py, values)?, to_object(py, indices)?))
}

/// `im2col`, PyTorch's `F.unfold` (`Im2ColBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", kernel_size: "Sequence[int]", dilation: "Sequence[int]", padding: "Sequence[int]", stride: "Sequence[int]") -> "Tensor")]
pub(crate) fn im2col(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    kernel_size: Vec<i64>,
    dilation: Vec<i64>,
    padding: Vec<i64>,
    stride: Vec<i64>,
) -> PyResult<Py<PyAny>> {
    to_object(
        py,
        run(|| {
            input
                .inner
                .im2col(&kernel_size, &dilation, &padding, &stride)
        })?,
    )
}

/// `col2im`, PyTorch's `F.fold` (`Col2ImBackward0`).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", output_size: "Sequence[int]", kernel_size: "Sequence[int]", dilation: "Sequence[int]", padding: "Sequence[int]", stride: "Sequence[int]") -> "Tensor")]
pub(crate) fn col2im(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    output_size: Vec<i64>,
    kernel_size: Vec<i64>,
    dilation: Vec<i64>,
    padding: Vec<i64>,
    stride: Vec<i64>,
) -> PyResult<Py<PyAny>> {
    to_object(
        py,
        run(|| {
            input
                .inner
                .col2im(&output_size, &kernel_size, &dilation, &padding, &stride)
        })?,
    )
}

/// `upsample_*` (`F.interpolate`'s kernels): `mode` is `nearest`, `nearest-exact`, `linear`,
/// `bilinear`, `bicubic` or `trilinear`, `antialias` for bilinear and bicubic
/// (`UpsampleNearest2DBackward0`, ...).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", output_size: "Sequence[int]", mode: "str", align_corners: "bool", scales: "Sequence[float] | None" = None, antialias: "bool" = false) -> "Tensor")]
pub(crate) fn upsample(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    output_size: Vec<i64>,
    mode: &str,
    align_corners: bool,
    scales: Option<Vec<f64>>,
    antialias: bool,
) -> PyResult<Py<PyAny>> {
    let Some(resample) = Resample::parse(mode) else {
        return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
            "upsample: unknown mode {mode}"
        )));
    };
    to_object(
        py,
        run(|| {
            input.inner.upsample(
                &output_size,
                resample,
                align_corners,
                scales.as_deref(),
                antialias,
            )
        })?,
    )
}
