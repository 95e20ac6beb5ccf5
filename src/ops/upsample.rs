//! Resampling of the last one or two dims (`F.interpolate`): `nearest`, `nearest-exact`,
//! `linear` (1-D) and `bilinear` (2-D, with or without `align_corners`), with PyTorch's
//! source-index rules (its float arithmetic, so the same pixels are picked) and node names
//! (`UpsampleNearest2DBackward0`, `UpsampleBilinear2DBackward0`, ...). Each is a separable
//! linear map — every output position takes two taps per axis with weights — recorded with
//! its adjoint as gradient (see `pooling::linear_op`), so every order differentiates.

use super::conv::{dense, slice_of};
use super::pooling::{linear_op, Adjoint};
use crate::core::dtype::{Element, Float, Num};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use std::sync::Arc;

/// How output positions pick their source pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resample {
    /// `floor(o · scale)` (PyTorch's legacy nearest).
    Nearest,
    /// `floor((o + 0.5) · scale)`.
    NearestExact,
    /// Linear interpolation between the two nearest pixels (`linear`, `bilinear`).
    Linear,
}

impl Resample {
    /// PyTorch's mode name, or its NotImplementedError.
    pub fn parse(mode: &str) -> Option<Resample> {
        match mode {
            "nearest" => Some(Resample::Nearest),
            "nearest-exact" => Some(Resample::NearestExact),
            "linear" | "bilinear" => Some(Resample::Linear),
            _ => None,
        }
    }
}

/// One output position along an axis: two source indices and their weights.
#[derive(Clone, Copy, Debug)]
struct Tap {
    i0: usize,
    i1: usize,
    l0: f64,
    l1: f64,
}

/// PyTorch's scale of an axis for nearest modes, in float32 (as its kernels compute it):
/// `1 / scale_factor` when one was given, else `input / output`.
fn nearest_scale(input: usize, output: usize, scale: Option<f64>) -> f32 {
    match scale {
        Some(s) if s > 0.0 => (1.0 / s) as f32,
        _ => input as f32 / output as f32,
    }
}

/// The taps of every output position along one axis.
fn taps<T: Float>(
    mode: Resample,
    input: usize,
    output: usize,
    align_corners: bool,
    scale: Option<f64>,
) -> Vec<Tap> {
    let one = |i: usize| Tap {
        i0: i,
        i1: i,
        l0: 1.0,
        l1: 0.0,
    };
    match mode {
        Resample::Nearest | Resample::NearestExact => {
            let s = nearest_scale(input, output, scale);
            (0..output)
                .map(|o| match mode {
                    // the legacy rule's shortcuts, as PyTorch's kernel takes them
                    Resample::Nearest if input == output => one(o),
                    Resample::Nearest if output == 2 * input => one(o >> 1),
                    Resample::Nearest => one(((o as f32 * s).floor() as usize).min(input - 1)),
                    // `(o + 0.5)` is a double in PyTorch's kernel, the product rounded to float
                    _ => {
                        let at = ((o as f64 + 0.5) * f64::from(s)) as f32;
                        one((at.floor() as usize).min(input - 1))
                    }
                })
                .collect()
        }
        Resample::Linear => {
            // PyTorch's area_pixel_compute_scale and source index, in the element type
            let ratio: T = if align_corners {
                if output > 1 {
                    T::from_f64((input - 1) as f64) / T::from_f64((output - 1) as f64)
                } else {
                    T::ZERO
                }
            } else {
                match scale {
                    Some(s) if s > 0.0 => T::from_f64(1.0 / s),
                    _ => T::from_f64(input as f64) / T::from_f64(output as f64),
                }
            };
            (0..output)
                .map(|o| {
                    if input == output {
                        return one(o);
                    }
                    let real = if align_corners {
                        ratio * T::from_f64(o as f64)
                    } else {
                        let half = T::from_f64(0.5);
                        let src = ratio * (T::from_f64(o as f64) + half) - half;
                        if src < T::ZERO {
                            T::ZERO
                        } else {
                            src
                        }
                    };
                    let i0 = (Element::to_f64(real) as usize).min(input - 1);
                    let l1 = (real - T::from_f64(i0 as f64)).max(T::ZERO).min(T::ONE);
                    let i1 = i0 + usize::from(i0 < input - 1);
                    Tap {
                        i0,
                        i1,
                        l0: Element::to_f64(T::ONE - l1),
                        l1: Element::to_f64(l1),
                    }
                })
                .collect()
        }
    }
}

/// A separable resampling of the last two dims (one dim: a first axis of size 1).
struct Resampler {
    rows: Vec<Tap>,
    cols: Vec<Tap>,
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
    names: (&'static str, &'static str),
}

impl Resampler {
    fn sizes(&self) -> (usize, usize, usize, usize, usize) {
        let n = self.in_shape.len();
        let planes: usize = self.in_shape[..2].iter().product();
        let (h, w) = if n == 4 {
            (self.in_shape[2], self.in_shape[3])
        } else {
            (1, self.in_shape[2])
        };
        (planes, h, w, self.rows.len(), self.cols.len())
    }
}

impl Adjoint for Resampler {
    fn apply(&self, x: &Tensor) -> Result<Tensor> {
        let (planes, h, w, oh, ow) = self.sizes();
        let x = dense(x);
        crate::with_float!(x.dtype(), T => {
            let out = slice_of(&x, |xs: &[T]| {
                let mut out = crate::core::pool::buffer::<T>(planes * oh * ow);
                let cols: Vec<(usize, usize, T, T)> = self.cols.iter()
                    .map(|t| (t.i0, t.i1, T::from_f64(t.l0), T::from_f64(t.l1)))
                    .collect();
                for (p, plane_out) in out.chunks_exact_mut((oh * ow).max(1)).enumerate().take(planes) {
                    let plane = &xs[p * h * w..(p + 1) * h * w];
                    for (line, r) in plane_out.chunks_exact_mut(ow.max(1)).zip(&self.rows) {
                        let (y0, y1) = (&plane[r.i0 * w..][..w], &plane[r.i1 * w..][..w]);
                        let (h0, h1) = (T::from_f64(r.l0), T::from_f64(r.l1));
                        for (o, &(x0, x1, w0, w1)) in line.iter_mut().zip(&cols) {
                            // PyTorch's order: h0·(w0·a + w1·b) + h1·(w0·c + w1·d)
                            *o = h0 * (w0 * y0[x0] + w1 * y0[x1]) + h1 * (w0 * y1[x0] + w1 * y1[x1]);
                        }
                    }
                }
                out
            });
            Tensor::from_vec(out, &self.out_shape)
        })
    }

    fn adjoint(&self, y: &Tensor) -> Result<Tensor> {
        let (planes, h, w, oh, ow) = self.sizes();
        let y = dense(y);
        crate::with_float!(y.dtype(), T => {
            let out = slice_of(&y, |ys: &[T]| {
                let mut out = vec![T::ZERO; planes * h * w];
                let cols: Vec<(usize, usize, T, T)> = self.cols.iter()
                    .map(|t| (t.i0, t.i1, T::from_f64(t.l0), T::from_f64(t.l1)))
                    .collect();
                for (p, plane) in out.chunks_exact_mut((h * w).max(1)).enumerate().take(planes) {
                    let g = &ys[p * oh * ow..(p + 1) * oh * ow];
                    for (line, r) in g.chunks_exact(ow.max(1)).zip(&self.rows) {
                        let (h0, h1) = (T::from_f64(r.l0), T::from_f64(r.l1));
                        for (&v, &(x0, x1, w0, w1)) in line.iter().zip(&cols) {
                            plane[r.i0 * w + x0] += h0 * w0 * v;
                            plane[r.i0 * w + x1] += h0 * w1 * v;
                            plane[r.i1 * w + x0] += h1 * w0 * v;
                            plane[r.i1 * w + x1] += h1 * w1 * v;
                        }
                    }
                }
                out
            });
            Tensor::from_vec(out, &self.in_shape)
        })
    }

    fn names(&self) -> (&'static str, &'static str) {
        self.names
    }
}

/// The node names of a resampling of `dims` spatial dims.
fn node_names(mode: Resample, dims: usize) -> (&'static str, &'static str) {
    match (mode, dims) {
        (Resample::Nearest, 1) => (
            "UpsampleNearest1DBackward0",
            "UpsampleNearest1DBackwardBackward0",
        ),
        (Resample::Nearest, _) => (
            "UpsampleNearest2DBackward0",
            "UpsampleNearest2DBackwardBackward0",
        ),
        (Resample::NearestExact, 1) => (
            "UpsampleNearestExact1DBackward0",
            "UpsampleNearestExact1DBackwardBackward0",
        ),
        (Resample::NearestExact, _) => (
            "UpsampleNearestExact2DBackward0",
            "UpsampleNearestExact2DBackwardBackward0",
        ),
        (Resample::Linear, 1) => (
            "UpsampleLinear1DBackward0",
            "UpsampleLinear1DBackwardBackward0",
        ),
        (Resample::Linear, _) => (
            "UpsampleBilinear2DBackward0",
            "UpsampleBilinear2DBackwardBackward0",
        ),
    }
}

impl Tensor {
    /// `upsample_*`: resamples the last `output_size.len()` dims (1 or 2) of a `(N, C, ...)`
    /// tensor to `output_size`; `scales` are the scale factors the size came from, which
    /// PyTorch's kernels use for the source indices.
    pub fn upsample(
        &self,
        output_size: &[i64],
        mode: Resample,
        align_corners: bool,
        scales: Option<&[f64]>,
    ) -> Result<Tensor> {
        let dims = output_size.len();
        if !(1..=2).contains(&dims) || self.dim() != dims + 2 {
            return Err(Error::runtime(format!(
                "upsample: expected a {}-D input for {dims} output sizes, got {}-D",
                dims + 2,
                self.dim()
            )));
        }
        let input = &self.shape()[2..];
        if input.contains(&0) || output_size.iter().any(|&s| s <= 0) {
            let names = if dims == 2 {
                ["H", "W"].as_slice()
            } else {
                ["W"].as_slice()
            };
            let show = |v: Vec<String>| {
                names
                    .iter()
                    .zip(v)
                    .map(|(n, s)| format!("{n}: {s}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(Error::runtime(format!(
                "Input and output sizes should be greater than 0, but got input ({}) output ({})",
                show(input.iter().map(|s| s.to_string()).collect()),
                show(output_size.iter().map(|s| s.to_string()).collect())
            )));
        }
        if !self.dtype().is_floating_point() {
            let kernel = match (mode, dims) {
                (Resample::Linear, 2) => "upsample_bilinear2d_channels_last".to_string(),
                (Resample::Linear, _) => "upsample_linear1d".to_string(),
                (_, d) => format!("upsample_nearest{d}d_channels_last"),
            };
            return Err(Error::not_implemented(format!(
                "\"{kernel}\" not implemented for '{}'",
                self.dtype().scalar_name()
            )));
        }
        let out: Vec<usize> = output_size.iter().map(|&s| s as usize).collect();
        let scale = |i: usize| scales.and_then(|s| s.get(i).copied());
        let axis = |i: usize, input: usize, output: usize| crate::with_float!(self.dtype(), T => Ok::<_, Error>(taps::<T>(mode, input, output, align_corners, scale(i))));
        let (rows, cols) = if dims == 2 {
            (axis(0, input[0], out[0])?, axis(1, input[1], out[1])?)
        } else {
            (axis(9, 1, 1)?, axis(0, input[0], out[0])?)
        };
        let mut out_shape = self.shape()[..2].to_vec();
        out_shape.extend(&out);
        let map = Resampler {
            rows,
            cols,
            in_shape: self.shape().to_vec(),
            out_shape,
            names: node_names(mode, dims),
        };
        linear_op(Arc::new(map), self, false, None)
    }
}
