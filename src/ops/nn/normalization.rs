//! Normalization layers, recorded as PyTorch records them: `layer_norm`
//! (`NativeLayerNormBackward0`), `batch_norm` (`NativeBatchNormBackward0`, running statistics
//! updated in place in training), `group_norm` (`NativeGroupNormBackward0`) and `rms_norm`
//! (PyTorch's own composite graph: `PowBackward0`, `MeanBackward1`, `AddBackward1`,
//! `RsqrtBackward0`, `MulBackward0`).
//!
//! Each forward is one kernel over the normalized groups of a contiguous input: the statistics
//! of a group in float64 (its mean, then the mean squared deviation from it, while the group is
//! in cache), then the affine output. Each node's backward formula is the fused one of PyTorch's
//! kernels (sums of `g` and `g·x̂` per group, then one pass over the elements) when no graph is
//! being built; under `create_graph` the same formula is written with ops, recomputing the
//! statistics from the saved input, so it differentiates again.

use crate::autograd::{is_recording, record, Save};
use crate::core::buffer::BufferElement;
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::no_grad;
use crate::core::layout::fmt_shape;
use crate::core::tensor::{gather, Tensor};
use crate::cpu::kernels::wide;
use crate::cpu::parallel::{for_each_block, for_each_unit};
use crate::with_float;
use parking_lot::Mutex;
use std::ops::Range;

/// Elements a parallel unit handles, about.
const UNIT_ELEMENTS: usize = 1 << 14;
/// At most this many units (each keeps partial column sums in some backward kernels).
const MAX_UNITS: usize = 64;

/// The element types the kernels run in (float32 and float64).
trait Real:
    BufferElement
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
{
}
impl Real for f32 {}
impl Real for f64 {}

/// Runs `f` on `x`'s elements in row-major order: its own buffer when contiguous, else a copy.
fn with_elements<T: BufferElement, R>(x: &Tensor, f: impl FnOnce(&[T]) -> R) -> R {
    x.read(|data: &[T], layout| match layout.contiguous_range() {
        Some(range) => f(&data[range]),
        None => f(&gather(data, layout)),
    })
}

/// The elements of an optional (small) parameter tensor, in row-major order.
fn param<T: BufferElement>(t: Option<&Tensor>) -> Option<Vec<T>> {
    t.map(|t| with_elements(t, |s: &[T]| s.to_vec()))
}

/// Independent float64 accumulators of the sums: enough to hide the latency of additions
/// (four AVX-512 vectors), so a row's sum costs its loads, not a chain of adds.
const LANES: usize = 32;

/// The accumulators summed pairwise.
#[inline(always)]
fn fold(mut acc: [f64; LANES]) -> f64 {
    let mut width = LANES / 2;
    while width > 0 {
        for i in 0..width {
            acc[i] += acc[i + width];
        }
        width /= 2;
    }
    acc[0]
}

/// `Σ f(x)` in float64 over [`LANES`] independent lanes (so the loop vectorizes).
#[inline(always)]
fn sum_map<T: Copy>(xs: &[T], f: impl Fn(T) -> f64) -> f64 {
    let mut acc = [0.0f64; LANES];
    let mut chunks = xs.chunks_exact(LANES);
    for c in &mut chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += f(v);
        }
    }
    let tail: f64 = chunks.remainder().iter().map(|&v| f(v)).sum();
    fold(acc) + tail
}

/// `Σ f(x, y)` over two slices of one length, as [`sum_map`].
#[inline(always)]
fn sum_zip<T: Copy>(xs: &[T], ys: &[T], f: impl Fn(T, T) -> f64) -> f64 {
    let mut acc = [0.0f64; LANES];
    let (mut cx, mut cy) = (xs.chunks_exact(LANES), ys.chunks_exact(LANES));
    for (a, b) in (&mut cx).zip(&mut cy) {
        for ((s, &u), &v) in acc.iter_mut().zip(a).zip(b) {
            *s += f(u, v);
        }
    }
    let tail: f64 = cx
        .remainder()
        .iter()
        .zip(cy.remainder())
        .map(|(&u, &v)| f(u, v))
        .sum();
    fold(acc) + tail
}

/// `(Σ g·w·x, Σ g·w)` of one row in float64 (`w` = 1 when absent), as [`sum_map`].
#[inline(always)]
fn weighted_sums<T: Real>(g: &[T], x: &[T], w: Option<&[T]>) -> (f64, f64) {
    match w {
        Some(w) => {
            let (mut a, mut b) = ([0.0f64; LANES], [0.0f64; LANES]);
            let (mut cg, mut cx, mut cw) = (
                g.chunks_exact(LANES),
                x.chunks_exact(LANES),
                w.chunks_exact(LANES),
            );
            for ((g, x), w) in (&mut cg).zip(&mut cx).zip(&mut cw) {
                for l in 0..LANES {
                    let gw = (g[l] * w[l]).to_f64();
                    a[l] += gw * x[l].to_f64();
                    b[l] += gw;
                }
            }
            let (mut ta, mut tb) = (0.0, 0.0);
            for ((&g, &x), &w) in cg
                .remainder()
                .iter()
                .zip(cx.remainder())
                .zip(cw.remainder())
            {
                let gw = (g * w).to_f64();
                ta += gw * x.to_f64();
                tb += gw;
            }
            (fold(a) + ta, fold(b) + tb)
        }
        None => (
            sum_zip(g, x, |g, x| g.to_f64() * x.to_f64()),
            sum_map(g, |g| g.to_f64()),
        ),
    }
}

/// The mean of a group and its reciprocal standard deviation `1/sqrt(var + eps)` (biased
/// variance), both in float64, and the biased variance itself.
#[inline(always)]
fn moments<T: Real>(xs: &[T], eps: f64) -> (f64, f64, f64) {
    let n = xs.len() as f64;
    let (sum, squares) = row_sums::<T>();
    let mean = sum(xs) / n;
    let var = squares(xs, mean) / n;
    (mean, 1.0 / (var + eps).sqrt(), var)
}

/// `Σx` of a row, in float64.
type RowSum<T> = fn(&[T]) -> f64;
/// `Σ(x - m)²` of a row, in float64.
type RowSquares<T> = fn(&[T], f64) -> f64;

/// The two sums of [`moments`], `Σx` and `Σ(x - m)²` in float64: AVX-512 kernels for the
/// element type when the CPU has them (LLVM vectorizes the float64 lanes of [`sum_map`] only
/// two at a time when they start from float32), else [`sum_map`].
#[inline(always)]
fn row_sums<T: Real>() -> (RowSum<T>, RowSquares<T>) {
    if let Some(kernels) = crate::cpu::moments::row_sums::<T>() {
        return kernels;
    }
    (
        |xs| sum_map(xs, |v| v.to_f64()),
        |xs, m| {
            sum_map(xs, |v| {
                let d = v.to_f64() - m;
                d * d
            })
        },
    )
}

/// `(Σg, Σg·(x - m))` of a row of incoming gradients `g` and inputs `x` in one pass, in float64
/// (AVX-512 kernels when the CPU has them, as [`row_sums`]).
#[inline(always)]
fn grad_sums<T: Real>(g: &[T], x: &[T], m: f64) -> (f64, f64) {
    if let Some(sums) = crate::cpu::moments::grad_sums(g, x, m) {
        return sums;
    }
    (
        sum_map(g, |g| g.to_f64()),
        sum_zip(g, x, |g, x| g.to_f64() * (x.to_f64() - m)),
    )
}

/// Rows per parallel unit for `rows` rows of `width` elements.
fn rows_per_unit(rows: usize, width: usize) -> usize {
    (UNIT_ELEMENTS / width.max(1))
        .max(rows.div_ceil(MAX_UNITS))
        .max(1)
}

/// `buf` cut into `units` consecutive parts of `chunk` elements (the last may be shorter), each
/// behind its own lock, so that parallel unit `u` writes part `u` alone.
fn parts<X>(buf: &mut [X], chunk: usize, units: usize) -> Vec<Mutex<&mut [X]>> {
    if chunk == 0 || buf.is_empty() {
        return (0..units).map(|_| Mutex::new(Default::default())).collect();
    }
    buf.chunks_mut(chunk).map(Mutex::new).collect()
}

/// Runs `f(rows, a_part, b_part)` over consecutive blocks of `per` rows in parallel, handing each
/// block its own part of `a` (`wa` elements a row) and of `b` (`wb` a row).
fn par_rows<A: Send, B: Send>(
    rows: usize,
    per: usize,
    (a, wa): (&mut [A], usize),
    (b, wb): (&mut [B], usize),
    f: impl Fn(Range<usize>, &mut [A], &mut [B]) + Sync,
) {
    if rows == 0 {
        return;
    }
    let units = rows.div_ceil(per);
    let (pa, pb) = (parts(a, per * wa, units), parts(b, per * wb, units));
    for_each_unit(units, |u| {
        let range = u * per..((u + 1) * per).min(rows);
        let (mut a, mut b) = (pa[u].lock(), pb[u].lock());
        wide(
            #[inline(always)]
            || f(range, &mut a, &mut b),
        )
    });
}

/// A tensor of `T` elements from float64 values.
fn tensor_of<T: Real>(values: impl Iterator<Item = f64>, shape: &[usize]) -> Result<Tensor> {
    Tensor::from_vec(values.map(T::from_f64).collect::<Vec<T>>(), shape)
}

/// An empty tensor standing for an absent weight or bias among a node's inputs (it requires no
/// gradient, so the node's `next_functions` show `(None, 0)` there, as PyTorch's do).
fn absent(dtype: DType) -> Tensor {
    Tensor::zeros(&[0], dtype)
}

fn save_opt(t: Option<&Tensor>) -> Save<'_> {
    match t {
        Some(t) => Save::Tensor(t),
        None => Save::Skip,
    }
}

/// PyTorch's refusal of an integer input (`"<kernel>" not implemented for 'Long'`).
fn check_float(x: &Tensor, kernel: &str) -> Result<()> {
    if x.dtype().is_floating_point() {
        return Ok(());
    }
    Err(Error::not_implemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        x.dtype().scalar_name()
    )))
}

/// PyTorch's CPU check that parameters (weight, bias, running statistics) share the input's
/// dtype.
fn check_param_dtypes(x: &Tensor, params: &[Option<&Tensor>]) -> Result<()> {
    if params.iter().flatten().all(|p| p.dtype() == x.dtype()) {
        return Ok(());
    }
    Err(Error::runtime(match x.dtype() {
        DType::Float32 => "mixed dtype (CPU): expect parameter to have scalar type of Float",
        _ => "mixed dtype (CPU): all inputs must share same datatype.",
    }))
}

/// The dims of `x` from `from` on (`norm`) and before it (`lead`), as op arguments.
fn split_dims(ndim: usize, from: usize) -> (Vec<isize>, Vec<isize>) {
    (
        (from..ndim).map(|d| d as isize).collect(),
        (0..from).map(|d| d as isize).collect(),
    )
}

/// `t` summed over `dims` (none: `t` itself), then shaped as `shape`.
fn sum_to(t: &Tensor, dims: &[isize], shape: &[usize]) -> Result<Tensor> {
    let summed = if dims.is_empty() {
        t.clone()
    } else {
        t.sum_dims(dims, false)?
    };
    summed.reshape(&shape.iter().map(|&s| s as isize).collect::<Vec<_>>())
}

/// The input gradient of a normalization written with ops, for graphs of graphs: `x̂` and
/// `rstd` recomputed from `x` over `dims` of the grouped view, `dy = g·weight`, and
/// `(dy - mean(dy) - x̂·mean(dy·x̂))·rstd`. Returns it and `x̂` (in `x`'s grouped shape).
fn normalized_grad_ops(
    x: &Tensor,
    dy: &Tensor,
    dims: &[isize],
    eps: f64,
) -> Result<(Tensor, Tensor)> {
    let mean = x.mean_dims(dims, true)?;
    let centered = x.sub(&mean)?;
    let var = centered.mul(&centered)?.mean_dims(dims, true)?;
    let rstd = var.add_scalar(eps)?.rsqrt()?;
    let xhat = centered.mul(&rstd)?;
    let a = dy.mul(&xhat)?.mean_dims(dims, true)?;
    let b = dy.mean_dims(dims, true)?;
    let gx = dy.sub(&b)?.sub(&xhat.mul(&a)?)?.mul(&rstd)?;
    Ok((gx, xhat))
}

/// Gradients computed with ops under `create_graph` that came out constant although the
/// backward's own inputs `involved` (incoming gradient, input, weight) require grad (the bias's
/// `Σ g` with a constant `g`, say): PyTorch computes them in one double-backward node `name`,
/// whose outputs all require grad, its derivative undefined (`None`) towards the inputs they do
/// not depend on; such a gradient is tied to those inputs by a node of that name here.
fn tie(
    grads: Vec<Option<Tensor>>,
    involved: &[&Tensor],
    name: &'static str,
) -> Vec<Option<Tensor>> {
    if !is_recording(involved) {
        return grads;
    }
    let count = involved.len();
    grads
        .into_iter()
        .map(|g| match g {
            // a fresh alias: the constant may be another tensor's handle (an incoming grad)
            Some(g) if !g.requires_grad() => {
                Some(record(g.detach(), name, involved, &[], move |_| {
                    Ok(vec![None; count])
                }))
            }
            other => other,
        })
        .collect()
}

/// The statistics tensors' shape and the rows/width of a layer norm over the last `k` dims.
fn layer_geometry(x: &Tensor, k: usize) -> (Vec<usize>, usize, usize) {
    let lead = x.dim() - k;
    let width: usize = x.shape()[lead..].iter().product();
    let rows: usize = x.shape()[..lead].iter().product();
    let mut stat_shape = x.shape()[..lead].to_vec();
    stat_shape.extend(std::iter::repeat_n(1, k));
    (stat_shape, rows, width)
}

// ----- layer norm ---------------------------------------------------------------------------

/// Layer norm of `rows` rows of `n`: the output and each row's `[mean, rstd]`.
fn layer_norm_kernel<T: Real>(
    x: &[T],
    (rows, n): (usize, usize),
    w: Option<&[T]>,
    b: Option<&[T]>,
    eps: f64,
) -> (Vec<T>, Vec<[f64; 2]>) {
    let mut out = crate::core::pool::buffer::<T>(x.len());
    let mut stats = vec![[0.0f64; 2]; rows];
    let per = rows_per_unit(rows, n);
    par_rows(
        rows,
        per,
        (&mut out, n),
        (&mut stats, 1),
        #[inline(always)]
        |range, out, stats| {
            for (i, r) in range.enumerate() {
                let row = &x[r * n..(r + 1) * n];
                let (mean, rstd, _) = moments(row, eps);
                stats[i] = [mean, rstd];
                // PyTorch's order: (x·rstd - rstd·mean)·w + b
                let (scale, shift) = (T::from_f64(rstd), T::from_f64(-rstd * mean));
                let o = &mut out[i * n..(i + 1) * n];
                match (w, b) {
                    (Some(w), Some(b)) => {
                        for (((o, &v), &w), &b) in o.iter_mut().zip(row).zip(w).zip(b) {
                            *o = (v * scale + shift) * w + b;
                        }
                    }
                    (Some(w), None) => {
                        for ((o, &v), &w) in o.iter_mut().zip(row).zip(w) {
                            *o = (v * scale + shift) * w;
                        }
                    }
                    (None, Some(b)) => {
                        for ((o, &v), &b) in o.iter_mut().zip(row).zip(b) {
                            *o = (v * scale + shift) + b;
                        }
                    }
                    (None, None) => {
                        for (o, &v) in o.iter_mut().zip(row) {
                            *o = v * scale + shift;
                        }
                    }
                }
            }
        },
    );
    (out, stats)
}

/// Gradients of a layer norm with no graph: the input's (PyTorch's fused formula per row,
/// `rstd·w·g + b·x + c`) and the column sums `Σ g·x̂` and `Σ g` (weight, bias).
#[allow(clippy::type_complexity)]
fn layer_norm_backward_kernel<T: Real>(
    (g, x): (&[T], &[T]),
    (rows, n): (usize, usize),
    w: Option<&[T]>,
    (mean, rstd): (&[f64], &[f64]),
    needs: [bool; 3],
) -> (Option<Vec<T>>, Option<Vec<f64>>, Option<Vec<f64>>) {
    let mut gx = match needs[0] {
        true => crate::core::pool::buffer::<T>(x.len()),
        false => Vec::new(),
    };
    let columns = needs[1] || needs[2];
    let per = rows_per_unit(rows, n);
    let units = rows.div_ceil(per);
    let gx_parts = parts(&mut gx, per * n, units);
    let partials: Vec<Mutex<Vec<f64>>> = (0..units).map(|_| Mutex::new(Vec::new())).collect();
    for_each_unit(units, |u| {
        let range = u * per..((u + 1) * per).min(rows);
        let mut gx = gx_parts[u].lock();
        wide(
            #[inline(always)]
            || {
                let mut sums = match columns {
                    true => vec![0.0f64; 2 * n],
                    false => Vec::new(),
                };
                for (i, r) in range.enumerate() {
                    let (gr, xr) = (&g[r * n..(r + 1) * n], &x[r * n..(r + 1) * n]);
                    let (m, s) = (mean[r], rstd[r]);
                    if needs[0] {
                        let (ds, db) = weighted_sums(gr, xr, w);
                        let nf = n as f64;
                        let b = (db * m - ds) * s * s * s / nf;
                        let c = -b * m - db * s / nf;
                        let (a, b, c) = (T::from_f64(s), T::from_f64(b), T::from_f64(c));
                        let out = &mut gx[i * n..(i + 1) * n];
                        match w {
                            Some(w) => {
                                for (((o, &g), &x), &w) in out.iter_mut().zip(gr).zip(xr).zip(w) {
                                    *o = a * g * w + b * x + c;
                                }
                            }
                            None => {
                                for ((o, &g), &x) in out.iter_mut().zip(gr).zip(xr) {
                                    *o = a * g + b * x + c;
                                }
                            }
                        }
                    }
                    if columns {
                        let (gw, gb) = sums.split_at_mut(n);
                        for (((sw, sb), &g), &x) in gw.iter_mut().zip(gb.iter_mut()).zip(gr).zip(xr)
                        {
                            let g = g.to_f64();
                            *sw += g * (x.to_f64() - m) * s;
                            *sb += g;
                        }
                    }
                }
                *partials[u].lock() = sums;
            },
        )
    });
    drop(gx_parts);
    if !columns {
        return (needs[0].then_some(gx), None, None);
    }
    let mut total = vec![0.0f64; 2 * n];
    for p in partials {
        for (t, v) in total.iter_mut().zip(p.into_inner()) {
            *t += v;
        }
    }
    let gb = total.split_off(n);
    (
        needs[0].then_some(gx),
        needs[1].then_some(total),
        needs[2].then_some(gb),
    )
}

/// The shape checks of `layer_norm` and `rms_norm` (PyTorch's messages; `rms` spells the
/// expected shape `[*N]` where layer norm has `[*, N]`).
fn check_normalized_shape(
    x: &Tensor,
    normalized: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    rms: bool,
) -> Result<Vec<usize>> {
    if normalized.is_empty() {
        return Err(Error::runtime(format!(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = {}",
            fmt_i64(normalized)
        )));
    }
    for (name, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t {
            let matches = t.dim() == normalized.len()
                && t.shape()
                    .iter()
                    .zip(normalized)
                    .all(|(&a, &b)| a as i64 == b);
            if !matches {
                return Err(Error::runtime(format!(
                    "Expected {name} to be of same shape as normalized_shape, but got {name} of shape {} and normalized_shape = {}",
                    fmt_shape(t.shape()),
                    fmt_i64(normalized)
                )));
            }
        }
    }
    let k = normalized.len();
    if rms && x.dim() < k {
        return Err(Error::value(format!(
            "Input tensor must have at least {k} dimensions, but got {}",
            x.dim()
        )));
    }
    let fits = x.dim() >= k
        && x.shape()[x.dim() - k..]
            .iter()
            .zip(normalized)
            .all(|(&a, &b)| a as i64 == b);
    if !fits {
        let listed: Vec<String> = normalized.iter().map(|s| s.to_string()).collect();
        let sep = if rms { "" } else { ", " };
        return Err(Error::runtime(format!(
            "Given normalized_shape={}, expected input with shape [*{sep}{}], but got input of size{}",
            fmt_i64(normalized),
            listed.join(", "),
            fmt_shape(x.shape())
        )));
    }
    Ok(normalized.iter().map(|&s| s as usize).collect())
}

fn fmt_i64(s: &[i64]) -> String {
    let parts: Vec<String> = s.iter().map(|v| v.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

impl Tensor {
    /// Layer normalization over the last `normalized_shape.len()` dims:
    /// `(x - mean)/sqrt(var + eps)·weight + bias` (biased variance), one
    /// `NativeLayerNormBackward0` node over `(input, weight, bias)`.
    pub fn layer_norm(
        &self,
        normalized_shape: &[i64],
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> Result<Tensor> {
        let normalized = check_normalized_shape(self, normalized_shape, weight, bias, false)?;
        check_float(self, "LayerNormKernelImpl")?;
        check_param_dtypes(self, &[weight, bias])?;
        let k = normalized.len();
        let (stat_shape, rows, n) = layer_geometry(self, k);
        let (out, mean, rstd) = with_float!(self.dtype(), T => {
            let (w, b) = (param::<T>(weight), param::<T>(bias));
            let (out, stats) = with_elements(self, |x: &[T]| {
                layer_norm_kernel(x, (rows, n), w.as_deref(), b.as_deref(), eps)
            });
            (
                Tensor::from_vec(out, self.shape())?,
                tensor_of::<T>(stats.iter().map(|s| s[0]), &stat_shape)?,
                tensor_of::<T>(stats.iter().map(|s| s[1]), &stat_shape)?,
            )
        });
        let (w, b) = (
            weight.cloned().unwrap_or_else(|| absent(self.dtype())),
            bias.cloned().unwrap_or_else(|| absent(self.dtype())),
        );
        if !is_recording(&[self, &w, &b]) {
            return Ok(out);
        }
        let saves = [
            Save::Tensor(self),
            save_opt(weight),
            Save::Tensor(&mean),
            Save::Tensor(&rstd),
        ];
        let bias_shape = b.shape().to_vec();
        Ok(record(
            out,
            "NativeLayerNormBackward0",
            &[self, &w, &b],
            &saves,
            move |ctx| {
                let (g, x, w) = (ctx.grad(0), ctx.saved(0), ctx.saved_opt(1));
                let needs = [0, 1, 2].map(|i| ctx.needs_input_grad(i));
                let (norm_dims, lead_dims) = split_dims(x.dim(), x.dim() - k);
                let mut involved = vec![g, x];
                involved.extend(w);
                if is_recording(&involved) {
                    let dy = match w {
                        Some(w) => g.mul(w)?,
                        None => g.clone(),
                    };
                    let (gx, xhat) = normalized_grad_ops(x, &dy, &norm_dims, eps)?;
                    let gw = match (needs[1], w) {
                        (true, Some(w)) => Some(sum_to(&g.mul(&xhat)?, &lead_dims, w.shape())?),
                        _ => None,
                    };
                    let gb = match needs[2] {
                        true => Some(sum_to(g, &lead_dims, &bias_shape)?),
                        false => None,
                    };
                    let grads = vec![needs[0].then_some(gx), gw, gb];
                    return Ok(tie(grads, &involved, "NativeLayerNormBackwardBackward0"));
                }
                let (mean, rstd) = (ctx.saved(2).to_f64_vec(), ctx.saved(3).to_f64_vec());
                let (rows, n) = (mean.len(), x.shape()[x.dim() - k..].iter().product());
                with_float!(x.dtype(), T => {
                    let wv = param::<T>(w);
                    let (gx, gw, gb) = with_elements(g, |g: &[T]| {
                        with_elements(x, |x: &[T]| {
                            layer_norm_backward_kernel((g, x), (rows, n), wv.as_deref(), (&mean, &rstd), needs)
                        })
                    });
                    let gx = gx.map(|v| Tensor::from_vec(v, x.shape())).transpose()?;
                    let gw = match (gw, w) {
                        (Some(v), Some(w)) => Some(tensor_of::<T>(v.into_iter(), w.shape())?),
                        _ => None,
                    };
                    let gb = gb.map(|v| tensor_of::<T>(v.into_iter(), &bias_shape)).transpose()?;
                    Ok(vec![gx, gw, gb])
                })
            },
        ))
    }
}

// ----- batch norm ---------------------------------------------------------------------------

/// The `(N, C, L)` geometry of a batch or group norm input (`L`: the spatial elements).
fn channel_geometry(x: &Tensor) -> (usize, usize, usize) {
    let shape = x.shape();
    let c = if shape.len() > 1 { shape[1] } else { 0 };
    (shape[0], c, shape.iter().skip(2).product())
}

/// Per channel of an `(N, C, L)` contiguous tensor, over its `N·L` elements in float64: `Σx`,
/// or with `centers` the squared deviations `Σ(x - centers[c])²`; parallel over channels.
fn channel_sums<T: Real>(
    x: &[T],
    (n, c, l): (usize, usize, usize),
    centers: Option<&[f64]>,
) -> Vec<f64> {
    let mut sums = vec![0.0f64; c];
    let per = rows_per_unit(c, n * l);
    let (sum, squares) = row_sums::<T>();
    for_each_block(&mut sums, per, |c0, block| {
        let centers = centers.map(|m| &m[c0..c0 + block.len()]);
        wide(
            #[inline(always)]
            || {
                if l == 1 {
                    // one element per (sample, channel): walk the rows, the channels side by side
                    for s in 0..n {
                        let row = &x[s * c + c0..s * c + c0 + block.len()];
                        match centers {
                            None => {
                                for (acc, &v) in block.iter_mut().zip(row) {
                                    *acc += v.to_f64();
                                }
                            }
                            Some(m) => {
                                for ((acc, &v), &m) in block.iter_mut().zip(row).zip(m) {
                                    let d = v.to_f64() - m;
                                    *acc += d * d;
                                }
                            }
                        }
                    }
                    return;
                }
                for (k, acc) in block.iter_mut().enumerate() {
                    let ch = c0 + k;
                    *acc = (0..n)
                        .map(|s| {
                            let plane = &x[(s * c + ch) * l..][..l];
                            match centers {
                                None => sum(plane),
                                Some(m) => squares(plane, m[k]),
                            }
                        })
                        .sum();
                }
            },
        )
    });
    sums
}

/// Per channel of incoming gradients `g` and inputs `x` of one `(N, C, L)` geometry:
/// `(Σg, Σg·(x - mean[c]))` in float64, one pass, parallel over channels.
fn channel_grad_sums<T: Real>(
    g: &[T],
    x: &[T],
    (n, c, l): (usize, usize, usize),
    mean: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let mut sums = vec![[0.0f64; 2]; c];
    let per = rows_per_unit(c, n * l);
    for_each_block(&mut sums, per, |c0, block| {
        let mean = &mean[c0..c0 + block.len()];
        wide(
            #[inline(always)]
            || {
                if l == 1 {
                    for s in 0..n {
                        let at = s * c + c0..s * c + c0 + block.len();
                        let (gr, xr) = (&g[at.clone()], &x[at]);
                        for (((acc, &g), &x), &m) in block.iter_mut().zip(gr).zip(xr).zip(mean) {
                            let g = g.to_f64();
                            acc[0] += g;
                            acc[1] += g * (x.to_f64() - m);
                        }
                    }
                    return;
                }
                for (k, (acc, &m)) in block.iter_mut().zip(mean).enumerate() {
                    let ch = c0 + k;
                    for s in 0..n {
                        let at = (s * c + ch) * l..(s * c + ch + 1) * l;
                        let (sg, sgx) = grad_sums(&g[at.clone()], &x[at], m);
                        acc[0] += sg;
                        acc[1] += sgx;
                    }
                }
            },
        )
    });
    sums.into_iter().map(|[a, b]| (a, b)).unzip()
}

/// `out = a[c]·y + b[c]·x + k[c]` over an `(N, C, L)` geometry (`x` and `b` absent: `a[c]·y +
/// k[c]`), parallel over blocks of planes.
fn channel_affine<T: Real>(
    y: &[T],
    x: Option<&[T]>,
    (n, c, l): (usize, usize, usize),
    (a, b, k): (&[T], &[T], &[T]),
) -> Vec<T> {
    let mut out = crate::core::pool::buffer::<T>(y.len());
    if out.is_empty() {
        return out;
    }
    // blocks of whole samples when a plane is a single element (rows of channels), else planes
    let (unit, planes) = if l == 1 { (c, n) } else { (l, n * c) };
    let per = rows_per_unit(planes, unit) * unit;
    for_each_block(&mut out, per, |at, block| {
        wide(
            #[inline(always)]
            || {
                if l == 1 {
                    for (r, o) in block.chunks_mut(c).enumerate() {
                        let start = at + r * c;
                        let yr = &y[start..start + c];
                        match x {
                            Some(x) => {
                                let xr = &x[start..start + c];
                                for (((((o, &y), &x), &a), &b), &k) in
                                    o.iter_mut().zip(yr).zip(xr).zip(a).zip(b).zip(k)
                                {
                                    *o = a * y + b * x + k;
                                }
                            }
                            None => {
                                for (((o, &y), &a), &k) in o.iter_mut().zip(yr).zip(a).zip(k) {
                                    *o = a * y + k;
                                }
                            }
                        }
                    }
                    return;
                }
                for (p, o) in block.chunks_mut(l).enumerate() {
                    let start = at + p * l;
                    let ch = (start / l) % c;
                    let (a, b, k) = (a[ch], b[ch], k[ch]);
                    let yr = &y[start..start + l];
                    match x {
                        Some(x) => {
                            let xr = &x[start..start + l];
                            for ((o, &y), &x) in o.iter_mut().zip(yr).zip(xr) {
                                *o = a * y + b * x + k;
                            }
                        }
                        None => {
                            for (o, &y) in o.iter_mut().zip(yr) {
                                *o = a * y + k;
                            }
                        }
                    }
                }
            },
        )
    });
    out
}

/// What the batch norm forward hands its backward: the per-channel mean and `1/sqrt(var + eps)`
/// it normalized with (batch statistics in training, running ones in evaluation).
struct ChannelStats {
    mean: Vec<f64>,
    invstd: Vec<f64>,
}

/// The batch norm forward on elements `x` with the per-channel statistics `stats`: the output
/// (and `stats`, handed back).
fn batch_norm_kernel<T: Real>(
    x: &[T],
    geometry: (usize, usize, usize),
    (w, b): (Option<&[T]>, Option<&[T]>),
    stats: ChannelStats,
) -> (Vec<T>, ChannelStats) {
    let c = geometry.1;
    let (mut a, mut k) = (Vec::with_capacity(c), Vec::with_capacity(c));
    for ch in 0..c {
        let (m, s) = (stats.mean[ch], stats.invstd[ch]);
        // PyTorch's linear and constant terms: alpha = invstd·w, beta = b - mean·alpha
        let alpha = s * w.map_or(1.0, |w| w[ch].to_f64());
        a.push(T::from_f64(alpha));
        k.push(T::from_f64(b.map_or(0.0, |b| b[ch].to_f64()) - m * alpha));
    }
    let zeros = vec![T::from_f64(0.0); c];
    (channel_affine(x, None, geometry, (&a, &zeros, &k)), stats)
}

/// The gradients of a batch norm with no graph: the input's (`k1·g + k2·x + k3` per channel;
/// in training through the batch statistics) and the weight's and bias's per channel.
#[allow(clippy::type_complexity)]
fn batch_norm_backward_kernel<T: Real>(
    (g, x): (&[T], &[T]),
    geometry: (usize, usize, usize),
    w: Option<&[T]>,
    stats: &ChannelStats,
    training: bool,
    needs: [bool; 3],
) -> (Option<Vec<T>>, Option<Vec<f64>>, Option<Vec<f64>>) {
    let (n, c, l) = geometry;
    let count = (n * l) as f64;
    let (mean, invstd) = (&stats.mean, &stats.invstd);
    let sums = needs[1] || needs[2] || (training && needs[0]);
    let (sg, sgx) = match sums {
        true => channel_grad_sums(g, x, geometry, mean),
        false => (Vec::new(), Vec::new()),
    };
    let gx = needs[0].then(|| {
        let (mut k1, mut k2, mut k3) = (Vec::new(), Vec::new(), Vec::new());
        for ch in 0..c {
            let a = invstd[ch] * w.map_or(1.0, |w| w[ch].to_f64());
            // training: g·a - a·Σg/M - a·invstd²·Σg(x - mean)/M·(x - mean)
            let (b, k) = match training {
                true => {
                    let b = -a * invstd[ch] * invstd[ch] * sgx[ch] / count;
                    (b, -a * sg[ch] / count - b * mean[ch])
                }
                false => (0.0, 0.0),
            };
            k1.push(T::from_f64(a));
            k2.push(T::from_f64(b));
            k3.push(T::from_f64(k));
        }
        match training {
            true => channel_affine(g, Some(x), geometry, (&k1, &k2, &k3)),
            false => channel_affine(g, None, geometry, (&k1, &k2, &k3)),
        }
    });
    // (an empty batch has no statistics, NaN here: its weight gradient is 0, as PyTorch's)
    let gw = needs[1].then(|| match count == 0.0 {
        true => vec![0.0; c],
        false => sgx.iter().zip(invstd).map(|(s, i)| s * i).collect(),
    });
    (gx, gw, needs[2].then_some(sg))
}

/// PyTorch's `batch_norm` argument checks, in its order.
fn check_batch_norm(
    x: &Tensor,
    (weight, bias): (Option<&Tensor>, Option<&Tensor>),
    (running_mean, running_var): (Option<&Tensor>, Option<&Tensor>),
    training: bool,
) -> Result<()> {
    check_float(x, "batch_norm")?;
    if training && running_mean.is_some() != running_var.is_some() {
        return Err(Error::value(
            "running_mean and running_var must either both be None or neither be None",
        ));
    }
    let channels = channel_geometry(x).1;
    for (name, t) in [("running_mean", running_mean), ("running_var", running_var)] {
        match t {
            Some(t) if t.numel() != channels => {
                return Err(Error::runtime(format!(
                    "{name} should contain {channels} elements not {}",
                    t.numel()
                )))
            }
            None if !training => {
                return Err(Error::runtime(format!(
                    "{name} must be defined in evaluation mode"
                )))
            }
            _ => {}
        }
    }
    for (name, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t.filter(|t| t.numel() != channels) {
            return Err(Error::runtime(format!(
                "{name} should contain {channels} elements not {}",
                t.numel()
            )));
        }
    }
    check_param_dtypes(x, &[weight, bias, running_mean, running_var])?;
    for t in [running_mean, running_var].into_iter().flatten() {
        if t.dim() != 1 {
            return Err(Error::runtime(format!(
                "TensorAccessor expected 1 dims but tensor has {}",
                t.dim()
            )));
        }
    }
    Ok(())
}

/// `running = (1 - momentum)·running + momentum·batch`, written in place without a version bump
/// (as PyTorch's kernel writes it).
fn update_running(running: &Tensor, batch: &[f64], momentum: f64) -> Result<()> {
    let old = running.to_f64_vec();
    let new: Vec<f64> = old
        .iter()
        .zip(batch)
        .map(|(r, b)| momentum * b + (1.0 - momentum) * r)
        .collect();
    let values = Tensor::from_vec(new, running.shape())?;
    crate::cpu::kernels::write_into(running, &values);
    Ok(())
}

impl Tensor {
    /// Instance normalization of an `(N, C, ...)` input: each sample's channel normalized
    /// over its own spatial positions (with `use_input_stats`; else with the running
    /// statistics), then scaled and shifted per channel. PyTorch's composite, op for op: the
    /// input viewed as one sample of `N·C` channels through [`Tensor::batch_norm`] (weight,
    /// bias and running statistics repeated `N` times), the running statistics then set to the
    /// mean over the samples of the repeated ones that batch norm updated.
    #[allow(clippy::too_many_arguments)]
    pub fn instance_norm(
        &self,
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        running_mean: Option<&Tensor>,
        running_var: Option<&Tensor>,
        use_input_stats: bool,
        momentum: f64,
        eps: f64,
    ) -> Result<Tensor> {
        if self.dim() < 2 {
            return Err(Error::runtime(format!(
                "instance_norm: expected an input of at least 2 dimensions (N, C, ...), got {}",
                fmt_shape(self.shape())
            )));
        }
        let (b, c) = (self.shape()[0], self.shape()[1]);
        let repeat = |t: Option<&Tensor>| t.map(|t| t.repeat(&[b])).transpose();
        let (weight_, bias_) = (repeat(weight)?, repeat(bias)?);
        let (mean_, var_) = (repeat(running_mean)?, repeat(running_var)?);
        let mut shape: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
        shape[1] = (b * c) as isize;
        shape[0] = 1;
        let reshaped = self.contiguous()?.view(&shape)?;
        let out = reshaped.batch_norm(
            weight_.as_ref(),
            bias_.as_ref(),
            mean_.as_ref(),
            var_.as_ref(),
            use_input_stats,
            momentum,
            eps,
        )?;
        for (stat, repeated) in [(running_mean, &mean_), (running_var, &var_)] {
            if let (Some(stat), Some(repeated)) = (stat, repeated) {
                let per_channel = no_grad(|| {
                    repeated
                        .view(&[b as isize, c as isize])?
                        .mean_dims(&[0], false)
                })?;
                no_grad(|| stat.copy_(&per_channel))?;
            }
        }
        let input_shape: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
        out.view(&input_shape)
    }

    /// Batch normalization of an `(N, C, ...)` input per channel: in training with the batch's
    /// mean and biased variance (and, given running statistics, `running = (1 - momentum)·running
    /// + momentum·batch` with the unbiased variance, in place), else with the running
    /// statistics. One `NativeBatchNormBackward0` node over `(input, weight, bias)`.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm(
        &self,
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        running_mean: Option<&Tensor>,
        running_var: Option<&Tensor>,
        training: bool,
        momentum: f64,
        eps: f64,
    ) -> Result<Tensor> {
        check_batch_norm(self, (weight, bias), (running_mean, running_var), training)?;
        if self.dim() < 2 {
            // (PyTorch's parameter checks count 0 channels here, then it reads size(1))
            return Err(Error::index(
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
            ));
        }
        let geometry = channel_geometry(self);
        let (n, _, l) = geometry;
        let count = n * l;
        let mut batch_var = Vec::new();
        let (out, stats) = with_float!(self.dtype(), T => {
            let (w, b) = (param::<T>(weight), param::<T>(bias));
            with_elements(self, |x: &[T]| {
                let stats = match training {
                    true => {
                        let mean: Vec<f64> = channel_sums(x, geometry, None)
                            .into_iter()
                            .map(|s| s / count as f64)
                            .collect();
                        let var: Vec<f64> = channel_sums(x, geometry, Some(&mean))
                            .into_iter()
                        .map(|s| s / count as f64)
                        .collect();
                        let invstd = var.iter().map(|v| 1.0 / (v + eps).sqrt()).collect();
                        batch_var = var;
                        ChannelStats { mean, invstd }
                    }
                    false => {
                        let (rm, rv) = (running_mean.expect("checked"), running_var.expect("checked"));
                        ChannelStats {
                            mean: rm.to_f64_vec(),
                            invstd: rv.to_f64_vec().iter().map(|v| 1.0 / (v + eps).sqrt()).collect(),
                        }
                    }
                };
                let (out, stats) = batch_norm_kernel(x, geometry, (w.as_deref(), b.as_deref()), stats);
                Ok::<_, Error>((Tensor::from_vec(out, self.shape())?, stats))
            })?
        });
        if let (true, Some(rm), Some(rv)) = (training, running_mean, running_var) {
            // (after the input's elements are released: a running buffer may share them)
            let unbiased: Vec<f64> = batch_var
                .iter()
                .map(|v| v * count as f64 / (count as f64 - 1.0))
                .collect();
            update_running(rm, &stats.mean, momentum)?;
            update_running(rv, &unbiased, momentum)?;
        }
        let (w, b) = (
            weight.cloned().unwrap_or_else(|| absent(self.dtype())),
            bias.cloned().unwrap_or_else(|| absent(self.dtype())),
        );
        if !is_recording(&[self, &w, &b]) {
            return Ok(out);
        }
        let shapes = (w.shape().to_vec(), b.shape().to_vec());
        // the statistics as the input's dtype, as PyTorch saves them
        let stats = with_float!(self.dtype(), T => {
            let round = |v: &[f64]| v.iter().map(|&s| T::from_f64(s).to_f64()).collect();
            ChannelStats { mean: round(&stats.mean), invstd: round(&stats.invstd) }
        });
        Ok(record(
            out,
            "NativeBatchNormBackward0",
            &[self, &w, &b],
            &[Save::Tensor(self), save_opt(weight)],
            move |ctx| {
                let (g, x, w) = (ctx.grad(0), ctx.saved(0), ctx.saved_opt(1));
                let needs = [0, 1, 2].map(|i| ctx.needs_input_grad(i));
                let mut involved = vec![g, x];
                involved.extend(w);
                if is_recording(&involved) {
                    let (gx, gw, gb) =
                        batch_norm_backward_ops(g, x, w, (&stats, training, eps), needs)?;
                    let gw = gw.map(|t| t.reshape(&dims_of(&shapes.0))).transpose()?;
                    let gb = gb.map(|t| t.reshape(&dims_of(&shapes.1))).transpose()?;
                    let grads = vec![gx, gw, gb];
                    return Ok(tie(grads, &involved, "NativeBatchNormBackwardBackward0"));
                }
                with_float!(x.dtype(), T => {
                    let wv = param::<T>(w);
                    let (gx, gw, gb) = with_elements(g, |g: &[T]| {
                        with_elements(x, |xs: &[T]| {
                            batch_norm_backward_kernel(
                                (g, xs), channel_geometry(x), wv.as_deref(), &stats, training, needs,
                            )
                        })
                    });
                    Ok(vec![
                        gx.map(|v| Tensor::from_vec(v, x.shape())).transpose()?,
                        gw.map(|v| tensor_of::<T>(v.into_iter(), &shapes.0)).transpose()?,
                        gb.map(|v| tensor_of::<T>(v.into_iter(), &shapes.1)).transpose()?,
                    ])
                })
            },
        ))
    }
}

fn dims_of(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&s| s as isize).collect()
}

/// The batch norm gradients written with ops (for graphs of graphs): in training through the
/// batch statistics recomputed from `x`, in evaluation with the saved running ones.
#[allow(clippy::type_complexity)]
fn batch_norm_backward_ops(
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    (stats, training, eps): (&ChannelStats, bool, f64),
    needs: [bool; 3],
) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
    let c = channel_geometry(x).1;
    // the per-channel shape [1, C, 1, ...] and the dims reduced over
    let mut channel_shape = vec![1isize; x.dim()];
    channel_shape[1] = c as isize;
    let dims: Vec<isize> = (0..x.dim())
        .filter(|&d| d != 1)
        .map(|d| d as isize)
        .collect();
    let wc = w.map(|w| w.reshape(&channel_shape)).transpose()?;
    let dy = match &wc {
        Some(w) => g.mul(w)?,
        None => g.clone(),
    };
    let gb = needs[2].then(|| g.sum_dims(&dims, false)).transpose()?;
    if training {
        let (gx, xhat) = normalized_grad_ops(x, &dy, &dims, eps)?;
        let gw = needs[1]
            .then(|| g.mul(&xhat)?.sum_dims(&dims, false))
            .transpose()?;
        return Ok((needs[0].then_some(gx), gw, gb));
    }
    let constant = |v: &[f64]| -> Result<Tensor> {
        Tensor::from_vec(v.to_vec(), &[c])?
            .to_dtype(x.dtype())?
            .reshape(&channel_shape)
    };
    let (mean, invstd) = (constant(&stats.mean)?, constant(&stats.invstd)?);
    let gx = needs[0].then(|| dy.mul(&invstd)).transpose()?;
    let gw = needs[1]
        .then(|| g.mul(&x.sub(&mean)?.mul(&invstd)?)?.sum_dims(&dims, false))
        .transpose()?;
    Ok((gx, gw, gb))
}

// ----- group norm ---------------------------------------------------------------------------

/// Group norm of `(N, C, L)` elements in `groups` groups: the output and each `(n, group)`'s
/// `[mean, rstd]`.
fn group_norm_kernel<T: Real>(
    x: &[T],
    (n, c, l): (usize, usize, usize),
    groups: usize,
    (w, b): (Option<&[T]>, Option<&[T]>),
    eps: f64,
) -> (Vec<T>, Vec<[f64; 2]>) {
    let per_group = c / groups;
    let d = per_group * l;
    let rows = n * groups;
    let mut out = crate::core::pool::buffer::<T>(x.len());
    let mut stats = vec![[0.0f64; 2]; rows];
    par_rows(
        rows,
        rows_per_unit(rows, d),
        (&mut out, d),
        (&mut stats, 1),
        #[inline(always)]
        |range, out, stats| {
            for (i, r) in range.enumerate() {
                let group = &x[r * d..(r + 1) * d];
                let (mean, rstd, _) = moments(group, eps);
                stats[i] = [mean, rstd];
                let first = (r % groups) * per_group;
                for (j, (o, xs)) in out[i * d..(i + 1) * d]
                    .chunks_mut(l)
                    .zip(group.chunks(l))
                    .enumerate()
                {
                    let ch = first + j;
                    // PyTorch's terms: scale = rstd·w, shift = b - scale·mean
                    let scale = rstd * w.map_or(1.0, |w| w[ch].to_f64());
                    let shift = b.map_or(0.0, |b| b[ch].to_f64()) - scale * mean;
                    let (scale, shift) = (T::from_f64(scale), T::from_f64(shift));
                    for (o, &v) in o.iter_mut().zip(xs) {
                        *o = v * scale + shift;
                    }
                }
            }
        },
    );
    (out, stats)
}

/// The gradients of a group norm with no graph (PyTorch's kernel: per `(n, c)` the sums `Σ g`
/// and `Σ g·(x - mean)`, then `k1[c]·g + k2·x + k3` per group).
#[allow(clippy::type_complexity)]
fn group_norm_backward_kernel<T: Real>(
    (g, x): (&[T], &[T]),
    (n, c, l): (usize, usize, usize),
    groups: usize,
    w: Option<&[T]>,
    (mean, rstd): (&[f64], &[f64]),
    needs: [bool; 3],
) -> (Option<Vec<T>>, Option<Vec<f64>>, Option<Vec<f64>>) {
    let per_group = c / groups;
    let d = per_group * l;
    let rows = n * groups;
    // per (n, c): [Σ g, Σ g·(x - mean)]
    let mut sums = vec![[0.0f64; 2]; n * c];
    let per = rows_per_unit(rows, d);
    if !sums.is_empty() {
        for_each_block(&mut sums, per * per_group, |at, block| {
            wide(
                #[inline(always)]
                || {
                    for (k, s) in block.iter_mut().enumerate() {
                        let plane = at + k;
                        let m = mean[plane / per_group];
                        let (gp, xp) = (
                            &g[plane * l..(plane + 1) * l],
                            &x[plane * l..(plane + 1) * l],
                        );
                        let (sg, sgx) = grad_sums(gp, xp, m);
                        *s = [sg, sgx];
                    }
                },
            )
        });
    }
    let weight = |ch: usize| w.map_or(1.0, |w| w[ch].to_f64());
    let gx = needs[0].then(|| {
        let mut gx = crate::core::pool::buffer::<T>(x.len());
        if gx.is_empty() {
            return gx;
        }
        for_each_block(&mut gx, per * d, |at, block| {
            wide(
                #[inline(always)]
                || {
                    for (i, out) in block.chunks_mut(d).enumerate() {
                        let r = at / d + i;
                        let (m, s) = (mean[r], rstd[r]);
                        let first = (r % groups) * per_group;
                        let planes = &sums[r * per_group..(r + 1) * per_group];
                        // Σ dy·x̂ and Σ dy over the group, dy = g·w
                        let a: f64 = (0..per_group)
                            .map(|j| weight(first + j) * planes[j][1] * s)
                            .sum();
                        let b: f64 = (0..per_group)
                            .map(|j| weight(first + j) * planes[j][0])
                            .sum();
                        let k2 = -s * s * a / d as f64;
                        let k3 = -s * b / d as f64 - k2 * m;
                        let (k2, k3) = (T::from_f64(k2), T::from_f64(k3));
                        for (j, o) in out.chunks_mut(l).enumerate() {
                            let k1 = T::from_f64(s * weight(first + j));
                            let at = (r * per_group + j) * l;
                            let (gp, xp) = (&g[at..at + l], &x[at..at + l]);
                            for ((o, &g), &x) in o.iter_mut().zip(gp).zip(xp) {
                                *o = k1 * g + k2 * x + k3;
                            }
                        }
                    }
                },
            )
        });
        gx
    });
    let per_channel = |f: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
        // (folded from +0: an empty batch gives 0, where `sum` would give -0)
        (0..c)
            .map(|ch| (0..n).fold(0.0, |acc, s| acc + f(s, ch)))
            .collect()
    };
    let gw = needs[1]
        .then(|| per_channel(&|s, ch| sums[s * c + ch][1] * rstd[s * groups + ch / per_group]));
    let gb = needs[2].then(|| per_channel(&|s, ch| sums[s * c + ch][0]));
    (gx, gw, gb)
}

impl Tensor {
    /// Group normalization of an `(N, C, ...)` input: each sample's channels in `num_groups`
    /// groups normalized together, then `·weight[c] + bias[c]` per channel. One
    /// `NativeGroupNormBackward0` node over `(input, weight, bias)`.
    pub fn group_norm(
        &self,
        num_groups: usize,
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> Result<Tensor> {
        if self.dim() < 2 {
            return Err(Error::runtime(format!(
                "Expected at least 2 dimensions for input tensor but received {}",
                self.dim()
            )));
        }
        let geometry = channel_geometry(self);
        let (n, c, _) = geometry;
        if c == 0 {
            return Err(Error::runtime(
                "Expected number of channels to be greater than 0, got 0",
            ));
        }
        if num_groups == 0 || c % num_groups != 0 {
            return Err(Error::runtime(format!(
                "Expected number of channels in input to be divisible by num_groups, but got input of shape {} and num_groups={num_groups}",
                fmt_shape(self.shape())
            )));
        }
        for (name, t) in [("weight", weight), ("bias", bias)] {
            if let Some(t) = t.filter(|t| t.dim() != 1 || t.numel() != c) {
                return Err(Error::runtime(format!(
                    "Expected {name} to be a vector of size equal to the number of channels in input, but got {name} of shape {} and input of shape {}",
                    fmt_shape(t.shape()),
                    fmt_shape(self.shape())
                )));
            }
        }
        check_float(self, "GroupNormKernelImpl")?;
        check_param_dtypes(self, &[weight, bias])?;
        let (out, mean, rstd) = with_float!(self.dtype(), T => {
            let (w, b) = (param::<T>(weight), param::<T>(bias));
            let (out, stats) = with_elements(self, |x: &[T]| {
                group_norm_kernel(x, geometry, num_groups, (w.as_deref(), b.as_deref()), eps)
            });
            let shape = [n, num_groups];
            (
                Tensor::from_vec(out, self.shape())?,
                tensor_of::<T>(stats.iter().map(|s| s[0]), &shape)?,
                tensor_of::<T>(stats.iter().map(|s| s[1]), &shape)?,
            )
        });
        let (w, b) = (
            weight.cloned().unwrap_or_else(|| absent(self.dtype())),
            bias.cloned().unwrap_or_else(|| absent(self.dtype())),
        );
        if !is_recording(&[self, &w, &b]) {
            return Ok(out);
        }
        let saves = [
            Save::Tensor(self),
            save_opt(weight),
            Save::Tensor(&mean),
            Save::Tensor(&rstd),
        ];
        Ok(record(
            out,
            "NativeGroupNormBackward0",
            &[self, &w, &b],
            &saves,
            move |ctx| {
                let (g, x, w) = (ctx.grad(0), ctx.saved(0), ctx.saved_opt(1));
                let needs = [0, 1, 2].map(|i| ctx.needs_input_grad(i));
                let mut involved = vec![g, x];
                involved.extend(w);
                if is_recording(&involved) {
                    let grads = group_norm_backward_ops(g, x, w, num_groups, eps, needs)?;
                    return Ok(tie(grads, &involved, "NativeGroupNormBackwardBackward0"));
                }
                let (mean, rstd) = (ctx.saved(2).to_f64_vec(), ctx.saved(3).to_f64_vec());
                with_float!(x.dtype(), T => {
                    let wv = param::<T>(w);
                    let (gx, gw, gb) = with_elements(g, |g: &[T]| {
                        with_elements(x, |xs: &[T]| {
                            group_norm_backward_kernel(
                                (g, xs), channel_geometry(x), num_groups, wv.as_deref(),
                                (&mean, &rstd), needs,
                            )
                        })
                    });
                    let c = channel_geometry(x).1;
                    Ok(vec![
                        gx.map(|v| Tensor::from_vec(v, x.shape())).transpose()?,
                        gw.map(|v| tensor_of::<T>(v.into_iter(), &[c])).transpose()?,
                        gb.map(|v| tensor_of::<T>(v.into_iter(), &[c])).transpose()?,
                    ])
                })
            },
        ))
    }
}

/// The group norm gradients written with ops (for graphs of graphs): the input viewed as
/// `(N, G, -1)`, its statistics recomputed along the last dim.
fn group_norm_backward_ops(
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    groups: usize,
    eps: f64,
    needs: [bool; 3],
) -> Result<Vec<Option<Tensor>>> {
    let (n, c, _) = channel_geometry(x);
    let mut channel_shape = vec![1isize; x.dim()];
    channel_shape[1] = c as isize;
    let dims: Vec<isize> = (0..x.dim())
        .filter(|&d| d != 1)
        .map(|d| d as isize)
        .collect();
    let grouped = [n as isize, groups as isize, -1];
    let dy = match w {
        Some(w) => g.mul(&w.reshape(&channel_shape)?)?,
        None => g.clone(),
    };
    let (gx, xhat) = normalized_grad_ops(&x.reshape(&grouped)?, &dy.reshape(&grouped)?, &[2], eps)?;
    let full = dims_of(x.shape());
    let gx = needs[0].then(|| gx.reshape(&full)).transpose()?;
    let gw = needs[1]
        .then(|| g.mul(&xhat.reshape(&full)?)?.sum_dims(&dims, false))
        .transpose()?;
    let gb = needs[2].then(|| g.sum_dims(&dims, false)).transpose()?;
    Ok(vec![gx, gw, gb])
}

// ----- RMS norm -----------------------------------------------------------------------------

/// `x·rsqrt(mean(x²) + eps)·w` per row of `n`, in one pass a row (no graph).
fn rms_norm_kernel<T: Real>(
    x: &[T],
    (rows, n): (usize, usize),
    w: Option<&[T]>,
    eps: f64,
) -> Vec<T> {
    let mut out = crate::core::pool::buffer::<T>(x.len());
    let mut unused: Vec<()> = vec![(); rows];
    par_rows(
        rows,
        rows_per_unit(rows, n),
        (&mut out, n),
        (&mut unused, 1),
        #[inline(always)]
        |range, out, _| {
            for (i, r) in range.enumerate() {
                let row = &x[r * n..(r + 1) * n];
                let ms = sum_map(row, |v| {
                    let v = v.to_f64();
                    v * v
                }) / n as f64;
                let scale = T::from_f64(1.0 / (ms + eps).sqrt());
                let o = &mut out[i * n..(i + 1) * n];
                match w {
                    Some(w) => {
                        for ((o, &v), &w) in o.iter_mut().zip(row).zip(w) {
                            *o = (v * scale) * w;
                        }
                    }
                    None => {
                        for (o, &v) in o.iter_mut().zip(row) {
                            *o = v * scale;
                        }
                    }
                }
            }
        },
    );
    out
}

/// `m + eps` recorded as PyTorch's `add(Tensor, Scalar)` (`AddBackward1`, one input).
fn add_eps(m: &Tensor, eps: f64) -> Result<Tensor> {
    let out = no_grad(|| m.add_scalar(eps))?;
    if !is_recording(&[m]) {
        return Ok(out);
    }
    Ok(record(out, "AddBackward1", &[m], &[], |ctx| {
        Ok(vec![Some(ctx.grad(0).clone())])
    }))
}

impl Tensor {
    /// RMS normalization over the last `normalized_shape.len()` dims:
    /// `x·rsqrt(mean(x²) + eps)·weight`, `eps` defaulting to the dtype's machine epsilon. While
    /// recording, the graph PyTorch's CPU composite records (`MulBackward0` of `x` and
    /// `RsqrtBackward0(AddBackward1(MeanBackward1(PowBackward0)))`, then of the weight);
    /// otherwise one fused pass.
    pub fn rms_norm(
        &self,
        normalized_shape: &[i64],
        weight: Option<&Tensor>,
        eps: Option<f64>,
    ) -> Result<Tensor> {
        let normalized = check_normalized_shape(self, normalized_shape, weight, None, true)?;
        check_float(self, "rms_norm")?;
        let eps = eps.unwrap_or(match self.dtype() {
            DType::Float32 => f64::from(f32::EPSILON),
            _ => f64::EPSILON,
        });
        let k = normalized.len();
        let same_weight = weight.is_none_or(|w| w.dtype() == self.dtype());
        let mut involved = vec![self];
        involved.extend(weight);
        if is_recording(&involved) || !same_weight {
            let (norm_dims, _) = split_dims(self.dim(), self.dim() - k);
            let ms = self.pow_scalar(2.0)?.mean_dims(&norm_dims, true)?;
            let out = self.mul(&add_eps(&ms, eps)?.rsqrt()?)?;
            return match weight {
                // the result keeps the input's dtype, as PyTorch's `type_as(input)`
                Some(w) => out.mul(w)?.to_dtype(self.dtype()),
                None => Ok(out),
            };
        }
        let (_, rows, n) = layer_geometry(self, k);
        with_float!(self.dtype(), T => {
            let w = param::<T>(weight);
            let out = with_elements(self, |x: &[T]| rms_norm_kernel(x, (rows, n), w.as_deref(), eps));
            Tensor::from_vec(out, self.shape())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize, phase: f64) -> Vec<f64> {
        (0..n)
            .map(|i| 3.0 + (1.3 * i as f64 + phase).sin())
            .collect()
    }

    /// The wide row sums (AVX-512 where the CPU has it) agree with the plain lanes at every
    /// length, tails included.
    #[test]
    fn row_sums_match_the_plain_sums() {
        fn check<T: Real>(xs: &[T], g: &[T]) {
            let (sum, squares) = row_sums::<T>();
            let m = 2.5;
            let plain_sum = sum_map(xs, |v| v.to_f64());
            let plain_squares = sum_map(xs, |v| (v.to_f64() - m) * (v.to_f64() - m));
            assert!((sum(xs) - plain_sum).abs() <= 1e-12 * plain_sum.abs().max(1.0));
            assert!((squares(xs, m) - plain_squares).abs() <= 1e-12 * plain_squares.max(1.0));
            let (sg, sgx) = grad_sums(g, xs, m);
            let plain_sg = sum_map(g, |v| v.to_f64());
            let plain_sgx = sum_zip(g, xs, |g, x| g.to_f64() * (x.to_f64() - m));
            assert!((sg - plain_sg).abs() <= 1e-12 * plain_sg.abs().max(1.0));
            assert!((sgx - plain_sgx).abs() <= 1e-12 * plain_sgx.abs().max(1.0));
        }
        for n in [0, 1, 7, 8, 9, 31, 32, 33, 63, 100, 257] {
            let (x, g) = (values(n, 0.2), values(n, 1.1));
            check::<f64>(&x, &g);
            let (x32, g32): (Vec<f32>, Vec<f32>) = (
                x.iter().map(|&v| v as f32).collect(),
                g.iter().map(|&v| v as f32).collect(),
            );
            check::<f32>(&x32, &g32);
        }
    }

    /// Layer norm against its definition, and its statistics.
    #[test]
    fn layer_norm_normalizes_rows() {
        let data = values(12, 0.4);
        let x = Tensor::from_vec(data.clone(), &[3, 4]).unwrap();
        let y = x
            .layer_norm(&[4], None, None, 1e-5)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        for (row, out) in data.chunks(4).zip(y.chunks(4)) {
            let mean = row.iter().sum::<f64>() / 4.0;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 4.0;
            for (v, o) in row.iter().zip(out) {
                assert!((o - (v - mean) / (var + 1e-5).sqrt()).abs() < 1e-12);
            }
        }
    }

    /// Batch norm in training writes the running statistics (unbiased variance) in place.
    #[test]
    fn batch_norm_updates_running_statistics() {
        let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 5.0], &[2, 2]).unwrap();
        let (rm, rv) = (
            Tensor::zeros(&[2], DType::Float64),
            Tensor::ones(&[2], DType::Float64),
        );
        x.batch_norm(None, None, Some(&rm), Some(&rv), true, 0.5, 1e-5)
            .unwrap();
        assert_eq!(rm.to_vec::<f64>().unwrap(), vec![1.0, 1.75]);
        assert_eq!(rv.to_vec::<f64>().unwrap(), vec![1.5, 2.75]);
    }
}
