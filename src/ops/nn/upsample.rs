//! Resampling of the last one to three dims (`F.interpolate`): `nearest`, `nearest-exact`,
//! `linear` (1-D), `trilinear` (3-D), `bilinear` and `bicubic` (2-D, with or without
//! `align_corners`, with or without antialiasing), with PyTorch's source-index rules (its float arithmetic, so the same
//! pixels are picked) and node names (`UpsampleNearest2DBackward0`,
//! `UpsampleBicubic2DAaBackward0`, ...). Each is a separable linear map — every output
//! position takes a few weighted taps per axis — recorded with its adjoint as gradient (see
//! `nn::linear_op`), so every order differentiates.

use crate::core::dtype::{DType, Element, Float, Num};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast, map};
use crate::ops::nn::{linear_op, Adjoint};
use crate::ops::{dense, slice_of};
use std::sync::Arc;

/// How output positions pick their source pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resample {
    /// `floor(o · scale)` (PyTorch's legacy nearest).
    Nearest,
    /// `floor((o + 0.5) · scale)`.
    NearestExact,
    /// Linear interpolation between the two nearest pixels (`linear`, `bilinear`,
    /// `trilinear`).
    Linear,
    /// Cubic convolution over the four nearest pixels (`bicubic`, Keys' kernel with
    /// `A = -0.75`, the edge pixels repeated).
    Cubic,
}

impl Resample {
    /// PyTorch's mode name, or its NotImplementedError.
    pub fn parse(mode: &str) -> Option<Resample> {
        match mode {
            "nearest" => Some(Resample::Nearest),
            "nearest-exact" => Some(Resample::NearestExact),
            "linear" | "bilinear" | "trilinear" => Some(Resample::Linear),
            "bicubic" => Some(Resample::Cubic),
            _ => None,
        }
    }
}

/// One output position along an axis: the source indices it reads and their weights, in the
/// order PyTorch's kernel adds them.
type Taps = Vec<(usize, f64)>;

/// PyTorch's scale of an axis for nearest modes, in float32 (as its kernels compute it):
/// `1 / scale_factor` when one was given, else `input / output`.
fn nearest_scale(input: usize, output: usize, scale: Option<f64>) -> f32 {
    match scale {
        Some(s) if s > 0.0 => (1.0 / s) as f32,
        _ => input as f32 / output as f32,
    }
}

/// PyTorch's `area_pixel_compute_scale` in the element type: `(in - 1) / (out - 1)` with
/// `align_corners`, else `1 / scale_factor` when one was given, else `in / out`.
fn pixel_scale<T: Float>(
    input: usize,
    output: usize,
    align_corners: bool,
    scale: Option<f64>,
) -> T {
    if align_corners {
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
    }
}

/// Keys' cubic convolution weights of the four pixels around a source position `t` past the
/// second of them (PyTorch's `get_cubic_upsample_coefficients`, `A = -0.75`).
fn cubic_weights<T: Float>(t: T) -> [T; 4] {
    let a = T::from_f64(-0.75);
    let (two, three, four, five, eight) = (
        T::from_f64(2.0),
        T::from_f64(3.0),
        T::from_f64(4.0),
        T::from_f64(5.0),
        T::from_f64(8.0),
    );
    // |x| <= 1 and 1 < |x| < 2
    let near = |x: T| ((a + two) * x - (a + three)) * x * x + T::ONE;
    let far = |x: T| ((a * x - five * a) * x + eight * a) * x - four * a;
    let rest = T::ONE - t;
    [far(t + T::ONE), near(t), near(rest), far(rest + T::ONE)]
}

/// The weight of a source pixel at distance `x` (in output pixels) in the antialiasing
/// filters: the triangle for `bilinear`, Keys' kernel with `a = -0.5` for `bicubic` (PIL's).
fn antialias_filter(mode: Resample, x: f64) -> f64 {
    let x = x.abs();
    match mode {
        Resample::Cubic => {
            let a = -0.5;
            if x < 1.0 {
                ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
            } else if x < 2.0 {
                (((x - 5.0) * x + 8.0) * x - 4.0) * a
            } else {
                0.0
            }
        }
        _ => (1.0 - x).max(0.0),
    }
}

/// The taps of every output position along one axis when antialiasing (PyTorch's separable
/// `_upsample_*_aa` kernels): the filter is stretched by the scale when downsampling, so each
/// output averages every source pixel it covers; the weights are normalised to sum to 1.
fn antialias_taps(
    mode: Resample,
    input: usize,
    output: usize,
    align_corners: bool,
    scale: Option<f64>,
) -> Vec<Taps> {
    let scale: f64 = pixel_scale(input, output, align_corners, scale);
    let half_width = if mode == Resample::Cubic { 2.0 } else { 1.0 };
    let (support, inverse) = if scale >= 1.0 {
        (half_width * scale, 1.0 / scale)
    } else {
        (half_width, 1.0)
    };
    (0..output)
        .map(|o| {
            let center = scale * (o as f64 + 0.5);
            // C++'s truncating casts, as PyTorch's kernel takes the window's ends
            let first = ((center - support + 0.5) as i64).max(0) as usize;
            let last = ((center + support + 0.5) as i64)
                .min(input as i64)
                .max(first as i64) as usize;
            let raw: Vec<(usize, f64)> = (first..last)
                .map(|i| {
                    (
                        i,
                        antialias_filter(mode, (i as f64 - center + 0.5) * inverse),
                    )
                })
                .collect();
            let total: f64 = raw.iter().map(|&(_, w)| w).sum();
            match total {
                t if t != 0.0 => raw.into_iter().map(|(i, w)| (i, w / t)).collect(),
                _ => raw,
            }
        })
        .collect()
}

/// The taps of every output position along one axis.
fn taps<T: Float>(
    mode: Resample,
    input: usize,
    output: usize,
    align_corners: bool,
    scale: Option<f64>,
) -> Vec<Taps> {
    let one = |i: usize| vec![(i, 1.0)];
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
            let ratio: T = pixel_scale(input, output, align_corners, scale);
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
                    vec![
                        (i0, Element::to_f64(T::ONE - l1)),
                        (i1, Element::to_f64(l1)),
                    ]
                })
                .collect()
        }
        Resample::Cubic => {
            let ratio: T = pixel_scale(input, output, align_corners, scale);
            (0..output)
                .map(|o| {
                    // the source position is not clamped at 0 (the edge pixels repeat instead)
                    let real = if align_corners {
                        ratio * T::from_f64(o as f64)
                    } else {
                        let half = T::from_f64(0.5);
                        ratio * (T::from_f64(o as f64) + half) - half
                    };
                    let floor = Element::to_f64(real).floor();
                    let weights = cubic_weights(real - T::from_f64(floor));
                    let last = input as i64 - 1;
                    (0..4)
                        .map(|k| {
                            let i = (floor as i64 - 1 + k as i64).clamp(0, last) as usize;
                            (i, Element::to_f64(weights[k]))
                        })
                        .collect()
                })
                .collect()
        }
    }
}

/// A separable resampling of the last three dims (fewer: leading axes of size 1).
struct Resampler {
    depth: Vec<Taps>,
    rows: Vec<Taps>,
    cols: Vec<Taps>,
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
    names: (&'static str, &'static str),
}

/// The taps of every output position along an axis in one flat list, with their weights in
/// the element type: output `o` reads `items[start[o]..start[o + 1]]`.
struct Typed<T> {
    start: Vec<usize>,
    items: Vec<(usize, T)>,
}

impl<T> Typed<T> {
    /// The taps of output position `o`.
    fn of(&self, o: usize) -> &[(usize, T)] {
        &self.items[self.start[o]..self.start[o + 1]]
    }
}

/// Taps with their weights in the element type.
fn typed<T: Float>(taps: &[Taps]) -> Typed<T> {
    let mut start = Vec::with_capacity(taps.len() + 1);
    let mut items = Vec::new();
    start.push(0);
    for t in taps {
        items.extend(t.iter().map(|&(i, w)| (i, T::from_f64(w))));
        start.push(items.len());
    }
    Typed { start, items }
}

/// `Σ w·f(i)` over the taps, the first product starting the sum (PyTorch's order).
fn weighted<T: Float>(taps: &[(usize, T)], f: impl Fn(usize) -> T) -> T {
    let mut terms = taps.iter().map(|&(i, w)| w * f(i));
    let first = terms.next().unwrap_or(T::ZERO);
    terms.fold(first, |acc, v| acc + v)
}

impl Resampler {
    /// `(planes, input (depth, height, width), output (depth, height, width))`.
    fn sizes(&self) -> (usize, [usize; 3], [usize; 3]) {
        let planes: usize = self.in_shape[..2].iter().product();
        let mut input = [1; 3];
        let spatial = &self.in_shape[2..];
        input[3 - spatial.len()..].copy_from_slice(spatial);
        let output = [self.depth.len(), self.rows.len(), self.cols.len()];
        (planes, input, output)
    }
}

impl Adjoint for Resampler {
    fn apply(&self, x: &Tensor) -> Result<Tensor> {
        let (planes, [d, h, w], [od, oh, ow]) = self.sizes();
        let size = d * h * w;
        let x = dense(x);
        crate::with_float!(x.dtype(), T => {
            let out = slice_of(&x, |xs: &[T]| {
                let mut out = crate::core::pool::buffer::<T>(planes * od * oh * ow);
                let (depth, rows, cols) =
                    (typed::<T>(&self.depth), typed::<T>(&self.rows), typed::<T>(&self.cols));
                // every input row resampled along the width first, then the outer axes: the
                // same sums, in the same order, as Σ_z w_z·(Σ_y w_y·(Σ_x w_x·v)) per output
                // (PyTorch's order), each row's computed once
                let mut across = vec![T::ZERO; d * h * ow];
                let mut inner = vec![T::ZERO; ow];
                let per_plane = (od * oh * ow).max(1);
                for (p, plane_out) in out.chunks_exact_mut(per_plane).enumerate().take(planes) {
                    let plane = &xs[p * size..(p + 1) * size];
                    for (row_in, row_out) in plane.chunks_exact(w).zip(across.chunks_exact_mut(ow)) {
                        for (ox, o) in row_out.iter_mut().enumerate() {
                            *o = weighted(cols.of(ox), |i| row_in[i]);
                        }
                    }
                    for (oz, slab) in plane_out.chunks_exact_mut(oh * ow).enumerate() {
                        for (oy, line) in slab.chunks_exact_mut(ow).enumerate() {
                            // whole lines at a time, each sum started by its first product
                            for (j, &(k, wk)) in depth.of(oz).iter().enumerate() {
                                for (t, &(yy, wy)) in rows.of(oy).iter().enumerate() {
                                    let row = &across[(k * h + yy) * ow..][..ow];
                                    for (a, &v) in inner.iter_mut().zip(row) {
                                        *a = if t == 0 { wy * v } else { *a + wy * v };
                                    }
                                }
                                for (o, &v) in line.iter_mut().zip(&inner) {
                                    *o = if j == 0 { wk * v } else { *o + wk * v };
                                }
                            }
                        }
                    }
                }
                out
            });
            Tensor::from_vec(out, &self.out_shape)
        })
    }

    fn adjoint(&self, y: &Tensor) -> Result<Tensor> {
        let (planes, [d, h, w], [od, oh, ow]) = self.sizes();
        let size = d * h * w;
        let y = dense(y);
        crate::with_float!(y.dtype(), T => {
            let out = slice_of(&y, |ys: &[T]| {
                let mut out = vec![T::ZERO; planes * size];
                let (depth, rows, cols) =
                    (typed::<T>(&self.depth), typed::<T>(&self.rows), typed::<T>(&self.cols));
                // the transposed passes: the outer axes' weights spread each output line over
                // the input rows, then each row's width taps
                let mut across = vec![T::ZERO; d * h * ow];
                let per_plane = od * oh * ow;
                for (p, plane) in out.chunks_exact_mut(size.max(1)).enumerate().take(planes) {
                    let g = &ys[p * per_plane..(p + 1) * per_plane];
                    across.fill(T::ZERO);
                    for (oz, slab) in g.chunks_exact(oh * ow).enumerate() {
                        for (oy, line) in slab.chunks_exact(ow).enumerate() {
                            for &(k, wk) in depth.of(oz) {
                                for &(yy, wy) in rows.of(oy) {
                                    let weight = wk * wy;
                                    let row = &mut across[(k * h + yy) * ow..][..ow];
                                    for (a, &v) in row.iter_mut().zip(line) {
                                        *a += weight * v;
                                    }
                                }
                            }
                        }
                    }
                    for (row_in, row_out) in across.chunks_exact(ow).zip(plane.chunks_exact_mut(w)) {
                        for (ox, &v) in row_in.iter().enumerate() {
                            for &(i, wx) in cols.of(ox) {
                                row_out[i] += wx * v;
                            }
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
fn node_names(mode: Resample, dims: usize, antialias: bool) -> (&'static str, &'static str) {
    /// `(<op>Backward0, <op>BackwardBackward0)`
    macro_rules! names {
        ($op:literal) => {
            (concat!($op, "Backward0"), concat!($op, "BackwardBackward0"))
        };
    }
    match (mode, dims, antialias) {
        (Resample::Linear, _, true) => names!("UpsampleBilinear2DAa"),
        (Resample::Cubic, _, true) => names!("UpsampleBicubic2DAa"),
        (Resample::Nearest, 3, _) => names!("UpsampleNearest3D"),
        (Resample::NearestExact, 3, _) => names!("UpsampleNearestExact3D"),
        (Resample::Linear, 3, _) => names!("UpsampleTrilinear3D"),
        (Resample::Nearest, 1, _) => names!("UpsampleNearest1D"),
        (Resample::Nearest, _, _) => names!("UpsampleNearest2D"),
        (Resample::NearestExact, 1, _) => names!("UpsampleNearestExact1D"),
        (Resample::NearestExact, _, _) => names!("UpsampleNearestExact2D"),
        (Resample::Linear, 1, _) => names!("UpsampleLinear1D"),
        (Resample::Linear, _, _) => names!("UpsampleBilinear2D"),
        (Resample::Cubic, _, _) => names!("UpsampleBicubic2D"),
    }
}

/// Whether PyTorch's CPU kernels resample `dtype` in `mode` over `dims` dims: every floating
/// dtype, and uint8 images (nearest modes, and bilinear/bicubic in 2-D).
fn resamples(dtype: DType, mode: Resample, dims: usize) -> bool {
    dtype.is_floating_point()
        || (dtype == DType::UInt8
            && matches!(
                (mode, dims),
                (Resample::Nearest | Resample::NearestExact, _)
                    | (Resample::Linear | Resample::Cubic, 2)
            ))
}

impl Tensor {
    /// `upsample_*`: resamples the last `output_size.len()` dims (1 to 3) of a `(N, C, ...)`
    /// tensor to `output_size`; `scales` are the scale factors the size came from, which
    /// PyTorch's kernels use for the source indices. With `antialias` (2-D `bilinear` and
    /// `bicubic`), downsampling averages every source pixel under the stretched filter.
    /// A uint8 image is resampled in float32 and rounded back (see `upsample_uint8`).
    pub fn upsample(
        &self,
        output_size: &[i64],
        mode: Resample,
        align_corners: bool,
        scales: Option<&[f64]>,
        antialias: bool,
    ) -> Result<Tensor> {
        let dims = output_size.len();
        if !(1..=3).contains(&dims)
            || self.dim() != dims + 2
            || mode == Resample::Cubic && dims != 2
        {
            return Err(Error::runtime(format!(
                "upsample: expected a {}-D input for {dims} output sizes, got {}-D",
                dims + 2,
                self.dim()
            )));
        }
        let input = &self.shape()[2..];
        if input.contains(&0) || output_size.iter().any(|&s| s <= 0) {
            let names = &["D", "H", "W"][3 - dims..];
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
        if !resamples(self.dtype(), mode, dims) {
            let kernel = match (mode, dims, antialias) {
                (Resample::Linear, 2, true) => "upsample_bilinear2d_aa".to_string(),
                (Resample::Cubic, _, true) => "upsample_bicubic2d_aa".to_string(),
                (Resample::Linear, 2, _) => "upsample_bilinear2d_channels_last".to_string(),
                (Resample::Linear, 3, _) => "upsample_trilinear3d".to_string(),
                (Resample::Cubic, _, _) => "upsample_bicubic2d".to_string(),
                (Resample::Linear, _, _) => "upsample_linear1d".to_string(),
                (_, d, _) => format!("upsample_nearest{d}d_channels_last"),
            };
            return Err(Error::not_implemented(format!(
                "\"{kernel}\" not implemented for '{}'",
                self.dtype().scalar_name()
            )));
        }
        if !self.dtype().is_floating_point() {
            return self.upsample_uint8(output_size, mode, align_corners, scales, antialias);
        }
        let out: Vec<usize> = output_size.iter().map(|&s| s as usize).collect();
        let scale = |i: usize| scales.and_then(|s| s.get(i).copied());
        let axis = |i: usize, input: usize, output: usize| -> Result<Vec<Taps>> {
            if antialias {
                return Ok(antialias_taps(mode, input, output, align_corners, scale(i)));
            }
            crate::with_float!(self.dtype(), T => Ok(taps::<T>(mode, input, output, align_corners, scale(i))))
        };
        // the axes from the outermost; the missing leading ones of size 1
        let mut axes = vec![vec![vec![(0, 1.0)]]; 3 - dims];
        for i in 0..dims {
            axes.push(axis(i, input[i], out[i])?);
        }
        let [depth, rows, cols]: [Vec<Taps>; 3] = axes.try_into().expect("three axes");
        let mut out_shape = self.shape()[..2].to_vec();
        out_shape.extend(&out);
        let map = Resampler {
            depth,
            rows,
            cols,
            in_shape: self.shape().to_vec(),
            out_shape,
            names: node_names(mode, dims, antialias),
        };
        linear_op(Arc::new(map), self, false, None)
    }

    /// A uint8 image resampled in float32 and rounded back to uint8 (half to even), clamped to
    /// [0, 255]. Bicubic goes one axis at a time, as PyTorch's uint8 kernels do — along the
    /// width, then the height — each pass rounded and clamped, so an overshoot is clipped
    /// between the passes (bilinear weights cannot overshoot: one pass). PyTorch's kernels
    /// compute in fixed point: results agree within 1.
    fn upsample_uint8(
        &self,
        output_size: &[i64],
        mode: Resample,
        align_corners: bool,
        scales: Option<&[f64]>,
        antialias: bool,
    ) -> Result<Tensor> {
        let to_uint8 = |x: &Tensor| {
            let rounded = map(x, |v: f32| v.round_ties_even().clamp(0.0, 255.0));
            cast(&cast(&rounded, DType::UInt8), DType::Float32)
        };
        let image = cast(self, DType::Float32);
        let out = if output_size.len() == 2 && mode == Resample::Cubic {
            // a pass leaves the other axis as it is: its size kept, its scale factor unused
            let scale = |i: usize| scales.and_then(|s| s.get(i).copied()).unwrap_or(0.0);
            let across = [self.shape()[2] as i64, output_size[1]];
            let wide = image.upsample(
                &across,
                mode,
                align_corners,
                Some(&[0.0, scale(1)]),
                antialias,
            )?;
            let down = to_uint8(&wide).upsample(
                output_size,
                mode,
                align_corners,
                Some(&[scale(0), 0.0]),
                antialias,
            )?;
            to_uint8(&down)
        } else {
            to_uint8(&image.upsample(output_size, mode, align_corners, scales, antialias)?)
        };
        Ok(cast(&out, self.dtype()))
    }
}
