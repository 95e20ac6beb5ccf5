//! The normalization kernels (`layer_norm`, `batch_norm`, `group_norm`, forward and backward;
//! `rms_norm` forward)
//! over contiguous float32 and float64 groups: statistics in float64 (the mean, then the mean
//! squared deviation from it while the group is in cache), then one pass over the elements.
//! Rows run in parallel units; sums over rows go through fixed-size lane arrays, so their
//! bits do not depend on the thread count. No autograd here: the ops
//! (`src/ops/nn/normalization.rs`) record these.

use crate::core::buffer::BufferElement;
use crate::cpu::kernels::wide;
use crate::cpu::parallel::{for_each_block, for_each_unit};
use parking_lot::Mutex;
use std::ops::Range;

/// Elements a parallel unit handles, about.
pub(crate) const UNIT_ELEMENTS: usize = 1 << 14;

/// At most this many units (each keeps partial column sums in some backward kernels).
pub(crate) const MAX_UNITS: usize = 64;

/// The element types the kernels run in (float32 and float64).
pub(crate) trait Real:
    BufferElement
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
{
}

impl Real for f32 {}

impl Real for f64 {}

/// Independent float64 accumulators of the sums: enough to hide the latency of additions
/// (four AVX-512 vectors), so a row's sum costs its loads, not a chain of adds.
pub(crate) const LANES: usize = 32;

/// The accumulators summed pairwise.
#[inline(always)]
pub(crate) fn fold(mut acc: [f64; LANES]) -> f64 {
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
pub(crate) fn sum_map<T: Copy>(xs: &[T], f: impl Fn(T) -> f64) -> f64 {
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
pub(crate) fn sum_zip<T: Copy>(xs: &[T], ys: &[T], f: impl Fn(T, T) -> f64) -> f64 {
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
pub(crate) fn weighted_sums<T: Real>(g: &[T], x: &[T], w: Option<&[T]>) -> (f64, f64) {
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
pub(crate) fn moments<T: Real>(xs: &[T], eps: f64) -> (f64, f64, f64) {
    let n = xs.len() as f64;
    let (sum, squares) = row_sums::<T>();
    let mean = sum(xs) / n;
    let var = squares(xs, mean) / n;
    (mean, 1.0 / (var + eps).sqrt(), var)
}

/// `Σx` of a row, in float64.
pub(crate) type RowSum<T> = fn(&[T]) -> f64;

/// `Σ(x - m)²` of a row, in float64.
pub(crate) type RowSquares<T> = fn(&[T], f64) -> f64;

/// The two sums of [`moments`], `Σx` and `Σ(x - m)²` in float64: AVX-512 kernels for the
/// element type when the CPU has them (LLVM vectorizes the float64 lanes of [`sum_map`] only
/// two at a time when they start from float32), else [`sum_map`].
#[inline(always)]
pub(crate) fn row_sums<T: Real>() -> (RowSum<T>, RowSquares<T>) {
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
pub(crate) fn grad_sums<T: Real>(g: &[T], x: &[T], m: f64) -> (f64, f64) {
    if let Some(sums) = crate::cpu::moments::grad_sums(g, x, m) {
        return sums;
    }
    (
        sum_map(g, |g| g.to_f64()),
        sum_zip(g, x, |g, x| g.to_f64() * (x.to_f64() - m)),
    )
}

/// Rows per parallel unit for `rows` rows of `width` elements.
pub(crate) fn rows_per_unit(rows: usize, width: usize) -> usize {
    (UNIT_ELEMENTS / width.max(1))
        .max(rows.div_ceil(MAX_UNITS))
        .max(1)
}

/// `buf` cut into `units` consecutive parts of `chunk` elements (the last may be shorter), each
/// behind its own lock, so that parallel unit `u` writes part `u` alone.
pub(crate) fn parts<X>(buf: &mut [X], chunk: usize, units: usize) -> Vec<Mutex<&mut [X]>> {
    if chunk == 0 || buf.is_empty() {
        return (0..units).map(|_| Mutex::new(Default::default())).collect();
    }
    buf.chunks_mut(chunk).map(Mutex::new).collect()
}

/// Runs `f(rows, a_part, b_part)` over consecutive blocks of `per` rows in parallel, handing each
/// block its own part of `a` (`wa` elements a row) and of `b` (`wb` a row).
pub(crate) fn par_rows<A: Send, B: Send>(
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

/// Layer norm of `rows` rows of `n`: the output and each row's `[mean, rstd]`.
pub(crate) fn layer_norm_kernel<T: Real>(
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
pub(crate) fn layer_norm_backward_kernel<T: Real>(
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

/// Per channel of an `(N, C, L)` contiguous tensor, over its `N·L` elements in float64: `Σx`,
/// or with `centers` the squared deviations `Σ(x - centers[c])²`; parallel over channels.
pub(crate) fn channel_sums<T: Real>(
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
pub(crate) fn channel_grad_sums<T: Real>(
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
pub(crate) fn channel_affine<T: Real>(
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
pub(crate) struct ChannelStats {
    pub(crate) mean: Vec<f64>,
    pub(crate) invstd: Vec<f64>,
}

/// The batch norm forward on elements `x` with the per-channel statistics `stats`: the output
/// (and `stats`, handed back).
pub(crate) fn batch_norm_kernel<T: Real>(
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
pub(crate) fn batch_norm_backward_kernel<T: Real>(
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

/// Group norm of `(N, C, L)` elements in `groups` groups: the output and each `(n, group)`'s
/// `[mean, rstd]`.
pub(crate) fn group_norm_kernel<T: Real>(
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
pub(crate) fn group_norm_backward_kernel<T: Real>(
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

/// `x·rsqrt(mean(x²) + eps)·w` per row of `n`, in one pass a row (no graph).
pub(crate) fn rms_norm_kernel<T: Real>(
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
}
