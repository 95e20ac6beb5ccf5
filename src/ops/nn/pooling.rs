//! Pooling over the last two dims of `(N, C, H, W)` or `(C, H, W)` images, as PyTorch's CPU
//! kernels compute and record it: `max_pool2d` with its indices
//! (`MaxPool2DWithIndicesBackward0`), `avg_pool2d` (`AvgPool2DBackward0`),
//! `adaptive_avg_pool2d` (`AdaptiveAvgPool2DBackward0`) and `adaptive_max_pool2d`
//! (`AdaptiveMaxPool2DBackward0`); the 1-D pools are these on a height-1 image (in
//! `nn.functional`, as PyTorch composes them).
//!
//! Each pool's gradient is a linear map of the incoming gradient — the adjoint of the linear
//! map the pool is (averages), or of the gather of the chosen elements (maxima) — and that
//! map's own gradient is the map again, so `linear_op` records both directions with one
//! formula and every order of gradient exists.

use crate::core::dtype::{Element, Num};
use crate::core::error::{Error, Result};
use crate::core::layout::fmt_shape;
use crate::core::tensor::Tensor;
use crate::cpu::pool::{adaptive_window, for_each_planes, max_pool_kernel, window_max, Axis};
use crate::ops::nn::{linear_op, Adjoint};
use crate::ops::{dense, slice_of};
use std::sync::Arc;

/// The planes (product of the leading dims) of an image tensor's shape.
fn planes_of(shape: &[usize]) -> usize {
    shape[..shape.len() - 2].iter().product()
}

/// `shape` with its last two dims replaced by `size`.
fn with_plane(shape: &[usize], size: [usize; 2]) -> Vec<usize> {
    let mut out = shape[..shape.len() - 2].to_vec();
    out.extend(size);
    out
}

// ---------------------------------------------------------------------------------------------
// gathers at fixed indices (the maxima)
// ---------------------------------------------------------------------------------------------

/// Picks, in each plane, the elements at `indices` (flat positions in the plane): the value of
/// a max pool, whose adjoint sums gradients back to those positions.
struct PlaneGather {
    indices: Tensor,
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
    names: (&'static str, &'static str),
}

impl PlaneGather {
    fn planes(&self) -> (usize, usize, usize) {
        let n = self.in_shape.len();
        (
            planes_of(&self.in_shape),
            self.in_shape[n - 2] * self.in_shape[n - 1],
            self.out_shape[n - 2] * self.out_shape[n - 1],
        )
    }
}

impl Adjoint for PlaneGather {
    fn apply(&self, x: &Tensor) -> Result<Tensor> {
        let (_, lin, lout) = self.planes();
        let x = dense(x);
        crate::with_float!(x.dtype(), T => {
            let out = slice_of(&x, |xs: &[T]| {
                slice_of(&self.indices, |idx: &[i64]| {
                    let mut out = crate::core::pool::buffer::<T>(idx.len());
                    for_each_planes(&mut out, lout, idx.len(), |p0, block| {
                        for (k, o) in block.iter_mut().enumerate() {
                            let p = p0 + k / lout;
                            *o = xs[p * lin + idx[p0 * lout + k] as usize];
                        }
                    });
                    out
                })
            });
            Tensor::from_vec(out, &self.out_shape)
        })
    }

    fn adjoint(&self, y: &Tensor) -> Result<Tensor> {
        let (planes, lin, lout) = self.planes();
        let y = dense(y);
        crate::with_float!(y.dtype(), T => {
            let out = slice_of(&y, |ys: &[T]| {
                slice_of(&self.indices, |idx: &[i64]| {
                    // a recycled buffer, zeroed by each unit (no fresh pages)
                    let mut out = crate::core::pool::buffer::<T>(planes * lin);
                    for_each_planes(&mut out, lin, ys.len(), |p0, block| {
                        block.fill(T::ZERO);
                        for (q, plane) in block.chunks_exact_mut(lin).enumerate() {
                            let p = p0 + q;
                            let (g, at) = (&ys[p * lout..(p + 1) * lout], &idx[p * lout..(p + 1) * lout]);
                            for (&v, &i) in g.iter().zip(at) {
                                plane[i as usize] += v;
                            }
                        }
                    });
                    out
                })
            });
            Tensor::from_vec(out, &self.in_shape)
        })
    }

    fn names(&self) -> (&'static str, &'static str) {
        self.names
    }

    fn gradient_takes_input(&self) -> bool {
        true
    }
}

// ---------------------------------------------------------------------------------------------
// geometry and checks
// ---------------------------------------------------------------------------------------------

/// PyTorch's `pooling_output_shape`: checks the stride and padding and computes the size.
fn pooling_output(
    input: i64,
    kernel: i64,
    pad: i64,
    stride: i64,
    dilation: i64,
    ceil: bool,
) -> Result<i64> {
    if stride == 0 {
        return Err(Error::runtime("stride should not be zero"));
    }
    if pad < 0 {
        return Err(Error::runtime(format!(
            "pad must be non-negative, but got pad: {pad}"
        )));
    }
    if pad > ((kernel - 1) * dilation + 1) / 2 {
        return Err(Error::runtime(format!(
            "pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={kernel} and dilation={dilation}"
        )));
    }
    let room = input + 2 * pad - dilation * (kernel - 1) - 1 + if ceil { stride - 1 } else { 0 };
    // rounded toward negative infinity, for either sign of the stride
    let quotient = room / stride;
    let floor = if room % stride != 0 && ((room < 0) != (stride < 0)) {
        quotient - 1
    } else {
        quotient
    };
    let mut out = floor + 1;
    if ceil && (out - 1) * stride >= input + pad {
        out -= 1;
    }
    Ok(out)
}

/// A parameter given as one int or a pair (`max_pool2d: kernel_size must ...`); `omittable`
/// parameters may be empty (then `default`).
fn pair_param(op: &str, name: &str, v: &[i64], default: Option<[i64; 2]>) -> Result<[i64; 2]> {
    match (v, default) {
        ([a], _) => Ok([*a, *a]),
        ([a, b], _) => Ok([*a, *b]),
        ([], Some(d)) => Ok(d),
        _ => Err(Error::runtime(match (name, default) {
            ("dilation", _) => {
                format!("{op}: dilation must be either a single int, or a tuple of two ints")
            }
            (_, Some(_)) => {
                format!("{op}: {name} must either be omitted, a single int, or a tuple of two ints")
            }
            _ => format!("{op}: {name} must either be a single int, or a tuple of two ints"),
        })),
    }
}

/// PyTorch's `pool2d_shape_check`.
#[allow(clippy::too_many_arguments)]
fn pool2d_shape_check(
    x: &Tensor,
    k: [i64; 2],
    s: [i64; 2],
    p: [i64; 2],
    d: [i64; 2],
    out: [i64; 2],
) -> Result<()> {
    if k[0] <= 0 || k[1] <= 0 {
        return Err(Error::runtime(format!(
            "kernel size should be greater than zero, but got kH: {} kW: {}",
            k[0], k[1]
        )));
    }
    if s[0] <= 0 || s[1] <= 0 {
        return Err(Error::runtime(format!(
            "stride should be greater than zero, but got dH: {} dW: {}",
            s[0], s[1]
        )));
    }
    if d[0] <= 0 || d[1] <= 0 {
        return Err(Error::runtime(format!(
            "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
            d[0], d[1]
        )));
    }
    let shape = x.shape();
    let n = shape.len();
    let valid = (n == 3 && !shape.contains(&0)) || (n == 4 && !shape[1..].contains(&0));
    if !valid {
        return Err(Error::runtime(format!(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
            fmt_shape(shape)
        )));
    }
    if k[1] / 2 < p[1] || k[0] / 2 < p[0] {
        return Err(Error::runtime(format!(
            "pad should be smaller than or equal to half of kernel size, but got padW = {}, padH = {}, kW = {}, kH = {}",
            p[1], p[0], k[1], k[0]
        )));
    }
    if out[0] < 1 || out[1] < 1 {
        let (c, h, w) = (shape[n - 3], shape[n - 2], shape[n - 1]);
        return Err(Error::runtime(format!(
            "Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{}x{}). Output size is too small",
            out[0], out[1]
        )));
    }
    Ok(())
}

fn require_float(x: &Tensor, op: &str) -> Result<()> {
    if x.dtype().is_floating_point() {
        Ok(())
    } else {
        Err(Error::not_implemented(format!(
            "\"{op}\" not implemented for '{}'",
            x.dtype().scalar_name()
        )))
    }
}

/// Parameters of `max_pool2d`/`avg_pool2d` as PyTorch's functions take them.
#[derive(Clone, Debug, Default)]
pub struct PoolOptions {
    /// Window size: one int or a pair.
    pub kernel_size: Vec<i64>,
    /// Step: empty (the kernel size), one int or a pair.
    pub stride: Vec<i64>,
    /// Implicit padding each side (negative infinity for max, zeros for average).
    pub padding: Vec<i64>,
    /// Spacing of the window's taps (max pooling only).
    pub dilation: Vec<i64>,
    /// Round the output size up.
    pub ceil_mode: bool,
    /// Average pooling: count the padding in the divisor.
    pub count_include_pad: bool,
    /// Average pooling: divide by this instead.
    pub divisor_override: Option<i64>,
}

/// The checked axes of a 2-D pool over `x`.
fn pool_axes(x: &Tensor, op: &str, o: &PoolOptions, dilated: bool) -> Result<[Axis; 2]> {
    let k = pair_param(op, "kernel_size", &o.kernel_size, None)?;
    let s = pair_param(op, "stride", &o.stride, Some(k))?;
    let p = pair_param(op, "padding", &o.padding, None)?;
    let d = if dilated {
        pair_param(op, "dilation", &o.dilation, None)?
    } else {
        [1, 1]
    };
    let n = x.dim();
    let (h, w) = (x.shape()[n - 2] as i64, x.shape()[n - 1] as i64);
    let oh = pooling_output(h, k[0], p[0], s[0], d[0], o.ceil_mode)?;
    let ow = pooling_output(w, k[1], p[1], s[1], d[1], o.ceil_mode)?;
    pool2d_shape_check(x, k, s, p, d, [oh, ow])?;
    let axis = |i: usize, input: i64, output: i64| Axis {
        input: input as usize,
        output: output as usize,
        kernel: k[i] as usize,
        stride: s[i] as usize,
        padding: p[i] as usize,
        dilation: d[i] as usize,
    };
    Ok([axis(0, h, oh), axis(1, w, ow)])
}

// ---------------------------------------------------------------------------------------------
// max pooling
// ---------------------------------------------------------------------------------------------

/// The value of a max pool (or adaptive max pool) from its indices, recorded under `names`.
fn gather_op(
    x: &Tensor,
    indices: Vec<i64>,
    values: Option<Tensor>,
    out_size: [usize; 2],
    names: (&'static str, &'static str),
) -> Result<(Tensor, Tensor)> {
    let out_shape = with_plane(x.shape(), out_size);
    let indices = Tensor::from_vec(indices, &out_shape)?;
    let map = PlaneGather {
        indices: indices.clone(),
        in_shape: x.shape().to_vec(),
        out_shape,
        names,
    };
    let values = match values {
        Some(v) => v,
        None => map.apply(x)?,
    };
    let values = linear_op(Arc::new(map), x, false, Some(values))?;
    Ok((values, indices))
}

impl Tensor {
    /// `max_pool2d_with_indices`: the maxima of the windows over the last two dims and their
    /// flat indices in each plane (`MaxPool2DWithIndicesBackward0`).
    pub fn max_pool2d_with_indices(&self, options: &PoolOptions) -> Result<(Tensor, Tensor)> {
        if !(self.dim() == 3 || self.dim() == 4) {
            return Err(Error::runtime(
                "non-empty 3D or 4D (batch mode) tensor expected for input",
            ));
        }
        let axes = pool_axes(self, "max_pool2d", options, true)?;
        require_float(self, "max_pool2d")?;
        let x = dense(self);
        let planes = planes_of(self.shape());
        let out_shape = with_plane(self.shape(), [axes[0].output, axes[1].output]);
        let (values, indices) = crate::with_float!(x.dtype(), T => {
            let (v, i) = slice_of(&x, |xs: &[T]| max_pool_kernel(xs, planes, axes));
            (Tensor::from_vec(v, &out_shape)?, i)
        });
        gather_op(
            self,
            indices,
            Some(values),
            [axes[0].output, axes[1].output],
            (
                "MaxPool2DWithIndicesBackward0",
                "MaxPool2DWithIndicesBackwardBackward0",
            ),
        )
    }

    /// `adaptive_max_pool2d`: maxima over PyTorch's adaptive windows
    /// (`[⌊i·I/O⌋, ⌈(i+1)·I/O⌉)`) and their indices (`AdaptiveMaxPool2DBackward0`).
    pub fn adaptive_max_pool2d(&self, output_size: &[i64]) -> Result<(Tensor, Tensor)> {
        if output_size.len() != 2 {
            return Err(Error::runtime(
                "adaptive_max_pool2d(): internal error: output_size.size() must be 2",
            ));
        }
        let n = self.dim();
        if !(n == 3 || n == 4) {
            return Err(Error::runtime(format!(
                "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {}",
                fmt_shape(self.shape())
            )));
        }
        check_non_empty(self, "adaptive_max_pool2d")?;
        if output_size.iter().any(|&s| s < 0) {
            let mut shape: Vec<String> = self.shape()[..n - 2]
                .iter()
                .map(|s| s.to_string())
                .collect();
            shape.extend(output_size.iter().map(|s| s.to_string()));
            let negative = output_size
                .iter()
                .find(|&&s| s < 0)
                .expect("one is negative");
            return Err(Error::runtime(format!(
                "Trying to create tensor with negative dimension {negative}: [{}]",
                shape.join(", ")
            )));
        }
        require_float(self, "adaptive_max_pool2d")?;
        let (h, w) = (self.shape()[n - 2], self.shape()[n - 1]);
        let (oh, ow) = (output_size[0] as usize, output_size[1] as usize);
        let x = dense(self);
        let planes = planes_of(self.shape());
        let indices = crate::with_float!(x.dtype(), T => slice_of(&x, |xs: &[T]| {
            let (lin, lout) = (h * w, oh * ow);
            let mut idx = vec![0i64; planes * lout];
            for_each_planes(&mut idx, lout, planes * lin, |p0, block| {
                for (q, out) in block.chunks_exact_mut(lout.max(1)).enumerate() {
                    let plane = &xs[(p0 + q) * lin..(p0 + q + 1) * lin];
                    for oy in 0..oh {
                        let (y0, y1) = adaptive_window(oy, h, oh);
                        for ox in 0..ow {
                            let (x0, x1) = adaptive_window(ox, w, ow);
                            out[oy * ow + ox] = window_max(plane, w, (y0, y1, 1), (x0, x1, 1));
                        }
                    }
                }
            });
            idx
        }));
        gather_op(
            self,
            indices,
            None,
            [oh, ow],
            (
                "AdaptiveMaxPool2DBackward0",
                "AdaptiveMaxPool2DBackwardBackward0",
            ),
        )
    }
}

/// PyTorch's refusal of an adaptive pool over an image with an empty non-batch dim.
fn check_non_empty(x: &Tensor, op: &str) -> Result<()> {
    let n = x.dim();
    for d in n - 2..n {
        if x.shape()[d] == 0 {
            return Err(Error::runtime(format!(
                "{op}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {d} being empty",
                fmt_shape(x.shape())
            )));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// average pooling
// ---------------------------------------------------------------------------------------------

/// Average pooling as a linear map (`AvgPool2DBackward0`; its adjoint spreads each gradient
/// over its window with the same divisor).
struct AvgPool {
    axes: [Axis; 2],
    /// Per axis and output position: the window clipped to the image, and its size with the
    /// padding.
    spans: [Vec<(usize, usize, usize)>; 2],
    count_include_pad: bool,
    divisor_override: Option<i64>,
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
}

/// One output position's window, clipped to the image, and its divisor.
struct Window {
    y: (usize, usize),
    x: (usize, usize),
    divisor: f64,
}

/// A pooling whose outputs are means over windows of the last two dims (average and adaptive
/// average pooling): its map and its adjoint are written once, over the windows.
trait WindowMeans: Send + Sync + 'static {
    /// `([h, w], [oh, ow])`: the input's and the output's plane sizes.
    fn planes(&self) -> ([usize; 2], [usize; 2]);
    /// The window of output `(oy, ox)` (`None` when it misses the image: the output is 0).
    fn window(&self, oy: usize, ox: usize) -> Option<Window>;
    /// The input's and the output's shapes.
    fn shapes(&self) -> (&[usize], &[usize]);
    /// The node names of the map and of its adjoint.
    fn names(&self) -> (&'static str, &'static str);
}

impl<M: WindowMeans> Adjoint for M {
    fn apply(&self, x: &Tensor) -> Result<Tensor> {
        window_means(self, x)
    }

    fn adjoint(&self, y: &Tensor) -> Result<Tensor> {
        spread_over_windows(self, y)
    }

    fn names(&self) -> (&'static str, &'static str) {
        WindowMeans::names(self)
    }

    fn gradient_takes_input(&self) -> bool {
        true
    }
}

/// Each output the mean of its window of `x` (the map of a [`WindowMeans`] pooling).
fn window_means(m: &impl WindowMeans, x: &Tensor) -> Result<Tensor> {
    let ([h, w], [oh, ow]) = m.planes();
    let (lin, lout) = (h * w, oh * ow);
    let (in_shape, out_shape) = m.shapes();
    let x = dense(x);
    crate::with_float!(x.dtype(), T => {
        let out = slice_of(&x, |xs: &[T]| {
            let planes = planes_of(in_shape);
            let mut out = crate::core::pool::buffer::<T>(planes * lout);
            for_each_planes(&mut out, lout, planes * lin, |p0, block| {
                for (q, out) in block.chunks_exact_mut(lout).enumerate() {
                    let plane = &xs[(p0 + q) * lin..(p0 + q + 1) * lin];
                    for oy in 0..oh {
                        for ox in 0..ow {
                            out[oy * ow + ox] = match m.window(oy, ox) {
                                None => T::ZERO,
                                Some(win) => {
                                    let mut sum = T::ZERO;
                                    for y in win.y.0..win.y.1 {
                                        for v in &plane[y * w + win.x.0..y * w + win.x.1] {
                                            sum += *v;
                                        }
                                    }
                                    sum / T::from_f64(win.divisor)
                                }
                            };
                        }
                    }
                }
            });
            out
        });
        Tensor::from_vec(out, out_shape)
    })
}

/// Each gradient of `y` spread evenly over its window (the adjoint of [`window_means`]).
fn spread_over_windows(m: &impl WindowMeans, y: &Tensor) -> Result<Tensor> {
    let ([h, w], [oh, ow]) = m.planes();
    let (lin, lout) = (h * w, oh * ow);
    let (in_shape, _) = m.shapes();
    let y = dense(y);
    crate::with_float!(y.dtype(), T => {
        let out = slice_of(&y, |ys: &[T]| {
            let planes = planes_of(in_shape);
            // a recycled buffer, zeroed by each unit (no fresh pages)
            let mut out = crate::core::pool::buffer::<T>(planes * lin);
            for_each_planes(&mut out, lin, planes * lout, |p0, block| {
                block.fill(T::ZERO);
                for (q, plane) in block.chunks_exact_mut(lin).enumerate() {
                    let g = &ys[(p0 + q) * lout..(p0 + q + 1) * lout];
                    for oy in 0..oh {
                        for ox in 0..ow {
                            if let Some(win) = m.window(oy, ox) {
                                let share = g[oy * ow + ox] / T::from_f64(win.divisor);
                                for yy in win.y.0..win.y.1 {
                                    for v in &mut plane[yy * w + win.x.0..yy * w + win.x.1] {
                                        *v += share;
                                    }
                                }
                            }
                        }
                    }
                }
            });
            out
        });
        Tensor::from_vec(out, in_shape)
    })
}

impl AvgPool {
    /// PyTorch's average-pool window of output `(oy, ox)` (`None` when it misses the image).
    fn new(
        axes: [Axis; 2],
        count_include_pad: bool,
        divisor_override: Option<i64>,
        in_shape: Vec<usize>,
    ) -> AvgPool {
        let span = |a: Axis, o: usize| {
            let start = (o * a.stride) as isize - a.padding as isize;
            let end = (start + a.kernel as isize).min((a.input + a.padding) as isize);
            let size = (end - start) as usize;
            (
                start.max(0) as usize,
                end.min(a.input as isize).max(0) as usize,
                size,
            )
        };
        let spans = axes.map(|a| (0..a.output).map(|o| span(a, o)).collect());
        let out_shape = with_plane(&in_shape, [axes[0].output, axes[1].output]);
        AvgPool {
            axes,
            spans,
            count_include_pad,
            divisor_override,
            in_shape,
            out_shape,
        }
    }

    fn window(&self, oy: usize, ox: usize) -> Option<Window> {
        let (y0, y1, hs) = self.spans[0][oy];
        let (x0, x1, ws) = self.spans[1][ox];
        if y0 >= y1 || x0 >= x1 {
            return None;
        }
        let divisor = match self.divisor_override {
            Some(d) => d as f64,
            None if self.count_include_pad => (hs * ws) as f64,
            None => ((y1 - y0) * (x1 - x0)) as f64,
        };
        Some(Window {
            y: (y0, y1),
            x: (x0, x1),
            divisor,
        })
    }
}

impl WindowMeans for AvgPool {
    fn planes(&self) -> ([usize; 2], [usize; 2]) {
        let [ay, ax] = self.axes;
        ([ay.input, ax.input], [ay.output, ax.output])
    }

    fn window(&self, oy: usize, ox: usize) -> Option<Window> {
        AvgPool::window(self, oy, ox)
    }

    fn names(&self) -> (&'static str, &'static str) {
        ("AvgPool2DBackward0", "AvgPool2DBackwardBackward0")
    }

    fn shapes(&self) -> (&[usize], &[usize]) {
        (&self.in_shape, &self.out_shape)
    }
}

/// Adaptive average pooling as a linear map (`AdaptiveAvgPool2DBackward0`).
struct AdaptiveAvgPool {
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
}

impl AdaptiveAvgPool {
    fn sizes(&self) -> ([usize; 2], [usize; 2]) {
        let n = self.in_shape.len();
        (
            [self.in_shape[n - 2], self.in_shape[n - 1]],
            [self.out_shape[n - 2], self.out_shape[n - 1]],
        )
    }
}

impl WindowMeans for AdaptiveAvgPool {
    fn planes(&self) -> ([usize; 2], [usize; 2]) {
        self.sizes()
    }

    fn window(&self, oy: usize, ox: usize) -> Option<Window> {
        let ([h, w], [oh, ow]) = self.sizes();
        let (y, x) = (adaptive_window(oy, h, oh), adaptive_window(ox, w, ow));
        let divisor = ((y.1 - y.0) * (x.1 - x.0)) as f64;
        Some(Window { y, x, divisor })
    }

    fn names(&self) -> (&'static str, &'static str) {
        (
            "AdaptiveAvgPool2DBackward0",
            "AdaptiveAvgPool2DBackwardBackward0",
        )
    }

    fn shapes(&self) -> (&[usize], &[usize]) {
        (&self.in_shape, &self.out_shape)
    }
}

impl Tensor {
    /// `avg_pool2d`: window means over the last two dims (`AvgPool2DBackward0`), with
    /// PyTorch's `ceil_mode`, `count_include_pad` and `divisor_override`.
    pub fn avg_pool2d(&self, options: &PoolOptions) -> Result<Tensor> {
        // PyTorch's order: parameter forms, the divisor, then the input's dims
        let k = pair_param("avg_pool2d", "kernel_size", &options.kernel_size, None)?;
        pair_param("avg_pool2d", "stride", &options.stride, Some(k))?;
        pair_param("avg_pool2d", "padding", &options.padding, None)?;
        if options.divisor_override == Some(0) {
            return Err(Error::runtime("divisor must be not zero"));
        }
        let n = self.dim();
        if n < 3 {
            return Err(Error::index(format!(
                "Dimension out of range (expected to be in range of [{}, {}], but got -3)",
                -(n.max(1) as i64),
                n.max(1) as i64 - 1
            )));
        }
        if n > 4 {
            return Err(Error::runtime(format!(
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
                fmt_shape(self.shape())
            )));
        }
        let axes = pool_axes(self, "avg_pool2d", options, false)?;
        require_float(self, "avg_pool2d")?;
        let map = AvgPool::new(
            axes,
            options.count_include_pad,
            options.divisor_override,
            self.shape().to_vec(),
        );
        linear_op(Arc::new(map), self, false, None)
    }

    /// `_adaptive_avg_pool2d`: means over PyTorch's adaptive windows
    /// (`AdaptiveAvgPool2DBackward0`; `nn.functional` takes the `(1, 1)` case as a mean, as
    /// PyTorch does).
    pub fn adaptive_avg_pool2d(&self, output_size: &[i64]) -> Result<Tensor> {
        if output_size.len() != 2 {
            return Err(Error::runtime("adaptive_avg_pool2d: output_size must be 2"));
        }
        if output_size.iter().any(|&s| s < 0) {
            return Err(Error::runtime(format!(
                "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{}, {}}}",
                output_size[0], output_size[1]
            )));
        }
        let n = self.dim();
        if !(n == 3 || n == 4) {
            return Err(Error::runtime(format!(
                "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {}",
                fmt_shape(self.shape())
            )));
        }
        check_non_empty(self, "adaptive_avg_pool2d")?;
        require_float(self, "adaptive_avg_pool2d")?;
        let size = [output_size[0] as usize, output_size[1] as usize];
        let map = AdaptiveAvgPool {
            in_shape: self.shape().to_vec(),
            out_shape: with_plane(self.shape(), size),
        };
        linear_op(Arc::new(map), self, false, None)
    }
}
