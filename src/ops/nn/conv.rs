//! Convolutions (`conv1d`, `conv2d`, `conv_transpose1d`, `conv_transpose2d`) and the
//! sliding-block maps `unfold` (im2col) and `fold` (col2im), as PyTorch computes and records
//! them.
//!
//! A convolution relates a *big* image (a convolution's input, a transposed convolution's
//! output) and a *small* one through a weight of shape `(C_small, C_big / groups, kh, kw)`,
//! the same for both directions. Three products, each the others' derivative, make every
//! order of gradient:
//!
//! - `down(big, w) = small`: per image and group `W_g @ im2col(big_g)` (a convolution);
//! - `up(small, w) = big`: `col2im(W_gᵀ @ small_g)` (a transposed convolution, the adjoint of
//!   `down` in its image);
//! - `weight(big, small) = w`: `Σ_n small_g @ im2col(big_g)ᵀ`, the weight's gradient.
//!
//! `down`'s gradients are `up(g, w)` and `weight(big, g)`, `up`'s are `down(g, w)` and
//! `weight(g, small)`, `weight`'s are `up(small, gw)` and `down(big, gw)`: all recorded ops,
//! so gradgradcheck holds.
//!
//! The kernels are in `crate::cpu::conv`.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::{DType, Num};
use crate::core::error::{Error, Result};
use crate::core::layout::fmt_shape;
use crate::core::tensor::Tensor;
use crate::cpu::conv::{
    col2im, down_kernel, for_each_image, im2col, up_kernel, weight_kernel, ConvElement,
    ConvGeometry,
};
use crate::ops::{dense, slice_of};
use std::sync::Arc;

/// Which image a convolution op computes from the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    /// Big to small: a convolution.
    Down,
    /// Small to big: a transposed convolution.
    Up,
}

impl Direction {
    fn flip(self) -> Direction {
        match self {
            Direction::Down => Direction::Up,
            Direction::Up => Direction::Down,
        }
    }
}

/// `down` or `up` of `input` with `weight` (and `bias`), recorded as `ConvolutionBackward0`
/// with its three inputs (a missing bias is a `None` edge, as PyTorch's).
fn conv_op(
    dir: Direction,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    g: ConvGeometry,
) -> Result<Tensor> {
    let (x, w) = (dense(input), dense(weight));
    let b = bias.map(dense);
    let out_shape = match dir {
        Direction::Down => g.small_shape(),
        Direction::Up => g.big_shape(),
    };
    let out = crate::with_float!(x.dtype(), T => {
        let data = slice_of(&x, |xs: &[T]| {
            slice_of(&w, |ws: &[T]| match &b {
                Some(b) => slice_of(b, |bs: &[T]| kernel(dir, xs, ws, Some(bs), &g)),
                None => kernel(dir, xs, ws, None, &g),
            })
        });
        Tensor::from_vec(data, &out_shape)?
    });
    let absent;
    let bias_input = match bias {
        Some(b) => b,
        None => {
            absent = Tensor::zeros(&[0], input.dtype());
            &absent
        }
    };
    if !is_recording(&[input, weight, bias_input]) {
        return Ok(out);
    }
    Ok(record(
        out,
        "ConvolutionBackward0",
        &[input, weight, bias_input],
        &[Save::Tensor(input), Save::Tensor(weight)],
        move |ctx| {
            let (gy, x, w) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
            let gx = match ctx.needs_input_grad(0) {
                true => Some(conv_op(dir.flip(), gy, w, None, g)?),
                false => None,
            };
            let gw = match ctx.needs_input_grad(1) {
                true => Some(match dir {
                    Direction::Down => weight_op(x, gy, g)?,
                    Direction::Up => weight_op(gy, x, g)?,
                }),
                false => None,
            };
            let gb = match ctx.needs_input_grad(2) {
                true => Some(channel_sum(gy)?),
                false => None,
            };
            Ok(vec![gx, gw, gb])
        },
    ))
}

fn kernel<T: ConvElement>(
    dir: Direction,
    x: &[T],
    w: &[T],
    b: Option<&[T]>,
    g: &ConvGeometry,
) -> Vec<T> {
    match dir {
        Direction::Down => down_kernel(x, w, b, g),
        Direction::Up => up_kernel(x, w, b, g),
    }
}

/// The weight gradient `weight(big, small)`, recorded (`ConvolutionBackwardBackward0`, the
/// name PyTorch gives a convolution's differentiated backward) with its own gradients.
fn weight_op(big: &Tensor, small: &Tensor, g: ConvGeometry) -> Result<Tensor> {
    let (x, y) = (dense(big), dense(small));
    let out = crate::with_float!(x.dtype(), T => {
        let data = slice_of(&x, |xs: &[T]| slice_of(&y, |ys: &[T]| weight_kernel(xs, ys, &g)));
        Tensor::from_vec(data, &g.weight_shape())?
    });
    if !is_recording(&[big, small]) {
        return Ok(out);
    }
    Ok(record(
        out,
        "ConvolutionBackwardBackward0",
        &[big, small],
        &[Save::Tensor(big), Save::Tensor(small)],
        move |ctx| {
            let (gw, x, y) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
            let gx = match ctx.needs_input_grad(0) {
                true => Some(conv_op(Direction::Up, y, gw, None, g)?),
                false => None,
            };
            let gy = match ctx.needs_input_grad(1) {
                true => Some(conv_op(Direction::Down, x, gw, None, g)?),
                false => None,
            };
            Ok(vec![gx, gy])
        },
    ))
}

/// The sum of an `(N, C, ...)` tensor over every dim but the channels (a bias's gradient),
/// recorded as the `sum` over those dims is (`SumBackward1`: its gradient is expanded back).
fn channel_sum(g: &Tensor) -> Result<Tensor> {
    let shape = g.shape().to_vec();
    let (batch, channels) = (shape[0], shape[1]);
    let plane: usize = shape[2..].iter().product();
    let x = dense(g);
    let out = crate::with_float!(x.dtype(), T => {
        let sums = slice_of(&x, |xs: &[T]| {
            let mut sums = vec![T::ZERO; channels];
            for n in 0..batch {
                for (c, s) in sums.iter_mut().enumerate() {
                    let at = (n * channels + c) * plane;
                    *s += crate::cpu::kernels::pairwise_sum(&xs[at..at + plane]);
                }
            }
            sums
        });
        Tensor::from_vec(sums, &[channels])?
    });
    if !is_recording(&[g]) {
        return Ok(out);
    }
    Ok(record(out, "SumBackward1", &[g], &[], move |ctx| {
        let mut kept = vec![1isize; shape.len()];
        kept[1] = channels as isize;
        let target: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
        Ok(vec![Some(ctx.grad(0).reshape(&kept)?.expand(&target)?)])
    }))
}

/// Options of [`Tensor::convolution`], as PyTorch's `convolution` takes them.
#[derive(Clone, Debug, Default)]
pub struct ConvOptions {
    /// Step of the kernel, per spatial dim (or one for all).
    pub stride: Vec<i64>,
    /// Zero padding each side, per spatial dim (or one for all).
    pub padding: Vec<i64>,
    /// Spacing of the kernel taps, per spatial dim (or one for all).
    pub dilation: Vec<i64>,
    /// A transposed convolution (the weight is `(C_in, C_out / groups, ...)`).
    pub transposed: bool,
    /// Extra size of a transposed convolution's output, per spatial dim (or one for all).
    pub output_padding: Vec<i64>,
    /// Channel groups.
    pub groups: i64,
}

/// `values` for `dims` spatial dims: one value repeated, or exactly `dims`, else PyTorch's
/// error naming the parameter.
fn expand_param(name: &str, values: &[i64], dims: usize) -> Result<Vec<i64>> {
    match values.len() {
        1 => Ok(vec![values[0]; dims]),
        n if n == dims => Ok(values.to_vec()),
        _ => Err(Error::runtime(format!(
            "expected {name} to be a single integer value or a list of {dims} values to match \
             the convolution dimensions, but got {name}={values:?}"
        ))),
    }
}

/// `(a x b)` as PyTorch prints spatial sizes in its convolution errors.
fn sizes_x(values: &[i64]) -> String {
    values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" x ")
}

/// Two spatial values for a geometry: a single dim becomes a second, after a leading 1 (or `fill`).
fn as_pair(values: &[i64], fill: usize) -> [usize; 2] {
    match values {
        [w] => [fill, *w as usize],
        [h, w] => [*h as usize, *w as usize],
        _ => [fill; 2],
    }
}

impl Tensor {
    /// PyTorch's `convolution`: a 1-D or 2-D convolution of `self` (`(N, C, [H,] W)`) with
    /// `weight`, or the transposed convolution, plus `bias` — one `ConvolutionBackward0` node
    /// (PyTorch's checks and messages).
    pub fn convolution(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        options: &ConvOptions,
    ) -> Result<Tensor> {
        let input = self;
        if let Some(b) = bias {
            if b.dtype() != input.dtype() {
                return Err(Error::runtime(format!(
                    "Input type ({}) and bias type ({}) should be the same",
                    c_name(input.dtype()),
                    c_name(b.dtype())
                )));
            }
        }
        let k = weight.dim();
        let dims = k.saturating_sub(2).max(1);
        let stride = expand_param("stride", &options.stride, dims)?;
        let padding = expand_param("padding", &options.padding, dims)?;
        let dilation = expand_param("dilation", &options.dilation, dims)?;
        let output_padding = expand_param("output_padding", &options.output_padding, dims)?;
        let groups = options.groups;
        if padding.iter().any(|&p| p < 0) {
            return Err(Error::runtime("negative padding is not supported"));
        }
        if output_padding.iter().any(|&p| p < 0) {
            return Err(Error::runtime("negative output_padding is not supported"));
        }
        if stride.iter().any(|&s| s <= 0) {
            return Err(Error::runtime("non-positive stride is not supported"));
        }
        if dilation.iter().any(|&d| d <= 0) {
            return Err(Error::runtime("non-positive dilation is not supported"));
        }
        if groups <= 0 {
            return Err(Error::runtime("non-positive groups is not supported"));
        }
        let ws = weight.shape();
        let w_sizes = fmt_shape(ws);
        if input.dim() != k {
            return Err(Error::runtime(format!(
                "Expected {k}-dimensional input for {k}-dimensional weight {w_sizes}, but got \
                 {}-dimensional input of size {} instead",
                input.dim(),
                fmt_shape(input.shape())
            )));
        }
        if !(3..=4).contains(&k) {
            return Err(Error::not_implemented(format!(
                "ferrograd convolves 1-D and 2-D images only, got a {k}-dimensional weight {w_sizes}"
            )));
        }
        let groups = groups as usize;
        if ws[0] < groups {
            return Err(Error::runtime(format!(
                "Given groups={groups}, expected weight to be at least {groups} at dimension 0, \
                 but got weight of size {w_sizes} instead"
            )));
        }
        if !ws[0].is_multiple_of(groups) {
            return Err(Error::runtime(format!(
                "Given groups={groups}, expected weight to be divisible by {groups} at dimension \
                 0, but got weight of size [{w_sizes}] instead"
            )));
        }
        let xs = input.shape();
        let spatial_in: Vec<i64> = xs[2..].iter().map(|&s| s as i64).collect();
        let kernel: Vec<i64> = ws[2..].iter().map(|&s| s as i64).collect();
        let bias_len = if options.transposed {
            ws[1] * groups
        } else {
            ws[0]
        };
        let (big_channels, small_channels, big, small) = if !options.transposed {
            if xs[1] != ws[1] * groups {
                return Err(Error::runtime(format!(
                    "Given groups={groups}, weight of size {w_sizes}, expected input{} to have \
                     {} channels, but got {} channels instead",
                    fmt_shape(xs),
                    ws[1] * groups,
                    xs[1]
                )));
            }
            check_bias(bias, bias_len, &w_sizes, "")?;
            let padded: Vec<i64> = (0..dims).map(|i| spatial_in[i] + 2 * padding[i]).collect();
            let spans: Vec<i64> = (0..dims)
                .map(|i| dilation[i] * (kernel[i] - 1) + 1)
                .collect();
            if (0..dims).any(|i| padded[i] < spans[i]) {
                return Err(Error::runtime(format!(
                    "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel \
                     size can't be greater than actual input size",
                    sizes_x(&padded),
                    sizes_x(&spans)
                )));
            }
            let out: Vec<i64> = (0..dims)
                .map(|i| (padded[i] - spans[i]) / stride[i] + 1)
                .collect();
            (xs[1], ws[0], spatial_in, out)
        } else {
            if xs[1] != ws[0] {
                return Err(Error::runtime(format!(
                    "Given transposed=1, weight of size {w_sizes}, expected input{} to have {} \
                     channels, but got {} channels instead",
                    fmt_shape(xs),
                    ws[0],
                    xs[1]
                )));
            }
            check_bias(bias, bias_len, &w_sizes, "transposed=1, ")?;
            if (0..dims).any(|i| output_padding[i] >= stride[i] && output_padding[i] >= dilation[i])
            {
                // a 1-D convolution is PyTorch's 2-D one of height 1 (padding 0, stride 1, ...)
                let part = |what: &str, v: &[i64], fill: i64| {
                    let [h, w] = if dims == 2 {
                        [v[0], v[1]]
                    } else {
                        [fill, v[0]]
                    };
                    format!("{what}_height: {h} {what}_width: {w}")
                };
                return Err(Error::runtime(format!(
                    "output padding must be smaller than either stride or dilation, but got {} {} {}",
                    part("output_padding", &output_padding, 0),
                    part("stride", &stride, 1),
                    part("dilation", &dilation, 1)
                )));
            }
            let out: Vec<i64> = (0..dims)
                .map(|i| {
                    (spatial_in[i] - 1) * stride[i] - 2 * padding[i]
                        + dilation[i] * (kernel[i] - 1)
                        + output_padding[i]
                        + 1
                })
                .collect();
            if out.iter().any(|&o| o < 1) {
                return Err(Error::runtime(format!(
                    "Given input size per channel: ({}). Calculated output size per channel: \
                     ({}). Output size is too small",
                    sizes_x(&spatial_in),
                    sizes_x(&out)
                )));
            }
            (ws[1] * groups, xs[1], out, spatial_in)
        };
        if weight.dtype() != input.dtype() {
            return Err(
                if input.dtype() == DType::Float64 || !input.dtype().is_floating_point() {
                    Error::runtime(format!(
                        "expected scalar type {} but found {}",
                        input.dtype().scalar_name(),
                        weight.dtype().scalar_name()
                    ))
                } else {
                    Error::runtime(format!(
                    "Input type ({}) and weight type ({}) should be the same or input should be a \
                     MKLDNN tensor and weight is a dense tensor",
                    input.dtype().legacy_name(),
                    weight.dtype().legacy_name()
                ))
                },
            );
        }
        if input.dtype() == DType::Bool {
            return Err(Error::not_implemented(format!(
                "\"slow_conv2d_cpu\" not implemented for '{}'",
                input.dtype().scalar_name()
            )));
        }
        if !input.dtype().is_floating_point() {
            // integer tensors convolve too (PyTorch's slow kernels): here in float64, exact
            // while every sum stays within 2^53, and cast back
            let wide = |t: &Tensor| crate::cpu::kernels::cast(t, DType::Float64);
            let bias = bias.map(wide);
            let out = wide(input).convolution(&wide(weight), bias.as_ref(), options)?;
            return Ok(crate::cpu::kernels::cast(&out, input.dtype()));
        }
        let g = ConvGeometry {
            batch: xs[0],
            big_channels,
            small_channels,
            groups,
            big: as_pair(&big, 1),
            small: as_pair(&small, 1),
            kernel: as_pair(&kernel, 1),
            stride: as_pair(&stride, 1),
            padding: as_pair(&padding, 0),
            dilation: as_pair(&dilation, 1),
            spatial: dims,
        };
        let dir = if options.transposed {
            Direction::Up
        } else {
            Direction::Down
        };
        conv_op(dir, input, weight, bias, g)
    }
}

/// PyTorch's C++ name of a dtype (`float`, `double`) in its convolution messages.
fn c_name(d: DType) -> &'static str {
    match d {
        DType::Int64 => "long int",
        other => other.cpp_name(),
    }
}

fn check_bias(bias: Option<&Tensor>, len: usize, w_sizes: &str, what: &str) -> Result<()> {
    match bias {
        Some(b) if b.dim() != 1 || b.shape()[0] != len => Err(Error::runtime(format!(
            "Given {what}weight of size {w_sizes}, expected bias to be 1-dimensional with {len} \
             elements, but got bias of size {} instead",
            fmt_shape(b.shape())
        ))),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// unfold / fold
// ---------------------------------------------------------------------------------------------

/// im2col of whole images (`unfold`), as a linear map with its adjoint (`fold`).
struct Im2Col {
    g: ConvGeometry,
    /// Whether the tensors have the batch dim (an unbatched image is one image).
    batched: bool,
}

impl Im2Col {
    fn cols_shape(&self) -> Vec<usize> {
        let shape = [self.g.batch, self.g.cols_rows(), self.g.small_plane()];
        shape[usize::from(!self.batched)..].to_vec()
    }

    fn image_shape(&self) -> Vec<usize> {
        let [h, w] = self.g.big;
        let shape = [self.g.batch, self.g.big_channels, h, w];
        shape[usize::from(!self.batched)..].to_vec()
    }
}

impl crate::ops::nn::Adjoint for Im2Col {
    fn apply(&self, x: &Tensor) -> Result<Tensor> {
        let g = self.g;
        let x = dense(x);
        let per = g.cols_rows() * g.small_plane();
        crate::with_float!(x.dtype(), T => {
            let out = slice_of(&x, |xs: &[T]| {
                let mut out = crate::core::pool::buffer::<T>(g.batch * per);
                let lb = g.big_channels * g.big_plane();
                for_each_image(&mut out, g.batch, g.batch * per, |images, block, _| {
                    for (k, n) in images.enumerate() {
                        let dst = &mut block[k * per..(k + 1) * per];
                        im2col(&xs[n * lb..(n + 1) * lb], g.big_channels, &g, dst)
                    }
                });
                out
            });
            Tensor::from_vec(out, &self.cols_shape())
        })
    }

    fn adjoint(&self, y: &Tensor) -> Result<Tensor> {
        let g = self.g;
        let y = dense(y);
        let per = g.cols_rows() * g.small_plane();
        let shape = self.image_shape();
        crate::with_float!(y.dtype(), T => {
            let out = slice_of(&y, |ys: &[T]| {
                let lb = g.big_channels * g.big_plane();
                let mut out = crate::core::pool::buffer::<T>(g.batch * lb);
                for_each_image(&mut out, g.batch, g.batch * per, |images, block, _| {
                    block.fill(T::ZERO);
                    for (k, n) in images.enumerate() {
                        let dst = &mut block[k * lb..(k + 1) * lb];
                        col2im(&ys[n * per..(n + 1) * per], g.big_channels, &g, dst)
                    }
                });
                out
            });
            Tensor::from_vec(out, &shape)
        })
    }

    fn names(&self) -> (&'static str, &'static str) {
        ("Im2ColBackward0", "Col2ImBackward0")
    }
}

/// Checks of `unfold`/`fold`'s block parameters (PyTorch's messages), as geometry pieces.
fn block_params(
    kernel: &[i64],
    dilation: &[i64],
    padding: &[i64],
    stride: &[i64],
) -> Result<[[usize; 2]; 4]> {
    let pair = |v: &[i64]| -> [i64; 2] { [v[0], v[1]] };
    let ([kh, kw], [dh, dw], [ph, pw], [sh, sw]) =
        (pair(kernel), pair(dilation), pair(padding), pair(stride));
    if kh <= 0 || kw <= 0 {
        return Err(Error::runtime(format!(
            "kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}"
        )));
    }
    if dh <= 0 || dw <= 0 {
        return Err(Error::runtime(format!(
            "dilation should be greater than zero, but got dilation_height: {dh} dilation_width: {dw}"
        )));
    }
    if ph < 0 || pw < 0 {
        return Err(Error::runtime(format!(
            "padding should be non-negative, but got pad_height: {ph} pad_width: {pw}"
        )));
    }
    if sh <= 0 || sw <= 0 {
        return Err(Error::runtime(format!(
            "stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}"
        )));
    }
    let u = |a: i64, b: i64| [a as usize, b as usize];
    Ok([u(kh, kw), u(dh, dw), u(ph, pw), u(sh, sw)])
}

/// `(a, b)` as PyTorch prints a pair.
fn pair_str(v: [usize; 2]) -> String {
    format!("({}, {})", v[0], v[1])
}

impl Tensor {
    /// `F.unfold`: the sliding blocks of a `(N, C, H, W)` or `(C, H, W)` image as columns,
    /// `(N, C·kh·kw, L)` (`Im2ColBackward0`, whose gradient is `fold`).
    pub fn im2col(
        &self,
        kernel: &[i64],
        dilation: &[i64],
        padding: &[i64],
        stride: &[i64],
    ) -> Result<Tensor> {
        let [k, d, p, s] = block_params(kernel, dilation, padding, stride)?;
        let batched = self.dim() == 4;
        if !(self.dim() == 3 || batched) || self.shape()[self.dim() - 3..].contains(&0) {
            return Err(Error::runtime(format!(
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, \
                 but got: {}",
                fmt_shape(self.shape())
            )));
        }
        let xs = self.shape();
        let (batch, channels) = if batched { (xs[0], xs[1]) } else { (1, xs[0]) };
        let (h, w) = (xs[self.dim() - 2], xs[self.dim() - 1]);
        let oh = ConvGeometry::small_size(h, k[0], s[0], p[0], d[0]);
        let ow = ConvGeometry::small_size(w, k[1], s[1], p[1], d[1]);
        if oh < 1 || ow < 1 {
            return Err(Error::runtime(format!(
                "Given input with spatial size {}, kernel_size={}, dilation={}, padding={}, \
                 calculated shape of the array of sliding blocks as ({oh}, {ow}), but its \
                 components must be at least one.",
                pair_str([h, w]),
                pair_str(k),
                pair_str(d),
                pair_str(p)
            )));
        }
        if !self.dtype().is_floating_point() {
            return Err(Error::not_implemented(format!(
                "\"im2col\" not implemented for '{}'",
                self.dtype().scalar_name()
            )));
        }
        let g = ConvGeometry {
            batch,
            big_channels: channels,
            small_channels: 0,
            groups: 1,
            big: [h, w],
            small: [oh as usize, ow as usize],
            kernel: k,
            stride: s,
            padding: p,
            dilation: d,
            spatial: 2,
        };
        crate::ops::nn::linear_op(Arc::new(Im2Col { g, batched }), self, false, None)
    }

    /// `F.fold`: sums columns `(N, C·kh·kw, L)` (or `(C·kh·kw, L)`) back into an image of
    /// `output_size` (`Col2ImBackward0`, whose gradient is `unfold`).
    pub fn col2im(
        &self,
        output_size: &[i64],
        kernel: &[i64],
        dilation: &[i64],
        padding: &[i64],
        stride: &[i64],
    ) -> Result<Tensor> {
        let [k, d, p, s] = block_params(kernel, dilation, padding, stride)?;
        let batched = self.dim() == 3;
        if !(self.dim() == 2 || batched) || self.shape()[self.dim() - 2..].contains(&0) {
            return Err(Error::runtime(format!(
                "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and \
                 non-zero dimensions for input, but got: {}",
                fmt_shape(self.shape())
            )));
        }
        let (oh, ow) = (output_size[0], output_size[1]);
        let ys = self.shape();
        let (batch, rows, blocks) = if batched {
            (ys[0], ys[1], ys[2])
        } else {
            (1, ys[0], ys[1])
        };
        let per_block = k[0] * k[1];
        if !rows.is_multiple_of(per_block) {
            return Err(Error::runtime(format!(
                "Expected size of input's dimension 1 to be divisible by the product of \
                 kernel_size, but got input.size(1)={} and kernel_size={}.",
                rows,
                pair_str(k)
            )));
        }
        // the blocks of each dim, from sizes that may be zero or negative (PyTorch's checks
        // come in this order)
        let blocks_of = |size: i64, i: usize| {
            let span = (d[i] * (k[i] - 1) + 1) as i64;
            (size + 2 * p[i] as i64 - span).div_euclid(s[i] as i64) + 1
        };
        let (bh, bw) = (blocks_of(oh, 0), blocks_of(ow, 1));
        let given = format!(
            "Given output_size=({oh}, {ow}), kernel_size={}, dilation={}, padding={}, stride={}",
            pair_str(k),
            pair_str(d),
            pair_str(p),
            pair_str(s)
        );
        if blocks as i64 != bh * bw {
            return Err(Error::runtime(format!(
                "{given}, expected size of input's dimension 2 to match the calculated number of \
                 sliding blocks {bh} * {bw} = {}, but got input.size(2)={}.",
                bh * bw,
                blocks
            )));
        }
        if bh < 1 || bw < 1 {
            return Err(Error::runtime(format!(
                "{given}, calculated shape of the array of sliding blocks as ({bh}, {bw}), which \
                 is too small (non-positive)"
            )));
        }
        let (h, w) = (oh as usize, ow as usize);
        if !self.dtype().is_floating_point() {
            return Err(Error::not_implemented(format!(
                "\"col2im\" not implemented for '{}'",
                self.dtype().scalar_name()
            )));
        }
        let g = ConvGeometry {
            batch,
            big_channels: rows / per_block,
            small_channels: 0,
            groups: 1,
            big: [h, w],
            small: [bh as usize, bw as usize],
            kernel: k,
            stride: s,
            padding: p,
            dilation: d,
            spatial: 2,
        };
        crate::ops::nn::linear_op(Arc::new(Im2Col { g, batched }), self, true, None)
    }
}
