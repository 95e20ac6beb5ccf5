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
//!
//! The kernels are in `crate::cpu::norm`; this file holds the checks, the recording and the
//! formulas written with ops.

use crate::autograd::{is_recording, record, BackwardCtx, Save};
use crate::core::buffer::BufferElement;
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::no_grad;
use crate::core::layout::{fmt_shape, gather};
use crate::core::tensor::Tensor;
use crate::cpu::norm::{
    batch_norm_backward_kernel, batch_norm_kernel, channel_sums, group_norm_backward_kernel,
    group_norm_kernel, layer_norm_backward_kernel, layer_norm_kernel, rms_norm_kernel,
    ChannelStats, Real,
};
use crate::with_float;

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

/// A tensor of `T` elements from float64 values.
fn tensor_of<T: Real>(values: impl Iterator<Item = f64>, shape: &[usize]) -> Result<Tensor> {
    Tensor::from_vec(values.map(T::from_f64).collect::<Vec<T>>(), shape)
}

/// An empty tensor standing for an absent weight or bias among a node's inputs (it requires no
/// gradient, so the node's `next_functions` show `(None, 0)` there, as PyTorch's do).
fn absent(dtype: DType) -> Tensor {
    Tensor::zeros(&[0], dtype)
}

/// Records a normalization `out` of `x` with the affine `weight` and `bias` as the node `name`
/// over `(x, weight, bias)` (an absent parameter as an [`absent`] placeholder), saving `x`,
/// `weight`, `mean` and `rstd` for `backward` in that order; `out` alone when nothing records.
fn record_norm(
    out: Tensor,
    name: &'static str,
    x: &Tensor,
    (weight, bias): (Option<&Tensor>, Option<&Tensor>),
    (mean, rstd): (&Tensor, &Tensor),
    backward: impl Fn(&BackwardCtx<'_>) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) -> Result<Tensor> {
    let (w, b) = (
        weight.cloned().unwrap_or_else(|| absent(x.dtype())),
        bias.cloned().unwrap_or_else(|| absent(x.dtype())),
    );
    if !is_recording(&[x, &w, &b]) {
        return Ok(out);
    }
    let saves = [
        Save::Tensor(x),
        save_opt(weight),
        Save::Tensor(mean),
        Save::Tensor(rstd),
    ];
    Ok(record(out, name, &[x, &w, &b], &saves, backward))
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
        let bias_shape = bias.map_or(vec![0], |b| b.shape().to_vec());
        record_norm(
            out,
            "NativeLayerNormBackward0",
            self,
            (weight, bias),
            (&mean, &rstd),
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
        )
    }
}

// ----- batch norm ---------------------------------------------------------------------------

/// The `(N, C, L)` geometry of a batch or group norm input (`L`: the spatial elements).
fn channel_geometry(x: &Tensor) -> (usize, usize, usize) {
    let shape = x.shape();
    let c = if shape.len() > 1 { shape[1] } else { 0 };
    (shape[0], c, shape.iter().skip(2).product())
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
        record_norm(
            out,
            "NativeGroupNormBackward0",
            self,
            (weight, bias),
            (&mean, &rstd),
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
        )
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
