//! Fused scaled dot-product attention, as PyTorch's CPU kernel
//! (`_scaled_dot_product_flash_attention_for_cpu`): one op and one node
//! (`ScaledDotProductFlashAttentionForCpuBackward0`) instead of a product, a mask, a softmax
//! and a product with their nodes.
//!
//! Note [Fused attention]: each (batch, head) pair is computed on its own, with the scores of
//! that head only (`L x S`, in cache) and never the whole batch's: scores by one matrix
//! product, scaled, masked (`is_causal` top-left aligned, as PyTorch's `tril`, without
//! building a mask; an additive float `bias`), turned into probabilities row by row (the
//! row's log-sum-exp kept), then multiplied with the values. The backward recomputes a head's
//! probabilities from the saved log-sum-exp (PyTorch saves no probabilities either), then
//! `dV = Pᵀ·dO`, `dP = dO·Vᵀ`, `dS = P∘(dP − rowsum(dO∘O))·scale`, `dQ = dS·K`, `dK = dSᵀ·Q`. A
//! row with every key masked gives zeros, and zero gradients, as PyTorch's. Queries, keys
//! and values are read where they lie (strided heads of a projection are not copied). Heads run in
//! parallel; the products of one head use every thread when there is a single head. When the
//! backward itself is recorded (`create_graph`), its gradients are composed of differentiable
//! ops instead, so attention has second derivatives.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::cpu::fastmath::FastMath;
use crate::cpu::gemm::{GemmElement, Mat};
use crate::cpu::kernels::{lane_max, lane_sum, wide_variants};
use crate::cpu::parallel;
use crate::ops::{dense, slice_of};

/// The sizes of one attention call: `heads` (batch, head) pairs of `l` queries and `s` keys,
/// query/key width `e`, value width `ev`.
#[derive(Clone, Copy)]
struct Geometry {
    heads: usize,
    l: usize,
    s: usize,
    e: usize,
    ev: usize,
    scale: f64,
    causal: bool,
    /// The bias has a `(l, s)` block per head (else one block shared by all heads).
    bias_per_head: bool,
}

impl Geometry {
    /// How many keys query `i` sees (`is_causal`: keys `0..=i`).
    fn visible(&self, i: usize) -> usize {
        if self.causal {
            (i + 1).min(self.s)
        } else {
            self.s
        }
    }

    /// The bias block of head `n`.
    fn bias_of<'a, T>(&self, bias: Option<&'a [T]>, n: usize) -> Option<&'a [T]> {
        let block = self.l * self.s;
        bias.map(|b| {
            if self.bias_per_head {
                &b[n * block..][..block]
            } else {
                &b[..block]
            }
        })
    }
}

/// A query, key or value operand as it lies in its tensor's storage (no copy of a strided
/// view such as the heads of a `(B, T, H, D)` projection): each head's matrix is at its own
/// offset, rows `rs` and columns `cs` apart.
struct Operand<'a, T> {
    data: &'a [T],
    heads: Vec<usize>,
    rs: isize,
    cs: isize,
}

impl<'a, T> Operand<'a, T> {
    /// The operand of a tensor with `data` (its storage) and `layout` (non-negative strides).
    fn new(data: &'a [T], layout: &crate::core::layout::Layout) -> Operand<'a, T> {
        let nd = layout.shape.len();
        let (lead, strides) = (&layout.shape[..nd - 2], &layout.strides[..nd - 2]);
        let count: usize = lead.iter().product();
        let heads = (0..count)
            .map(|n| {
                let (mut rest, mut at) = (n, layout.offset as isize);
                for (&size, &stride) in lead.iter().zip(strides).rev() {
                    at += (rest % size) as isize * stride;
                    rest /= size;
                }
                at as usize
            })
            .collect();
        Operand {
            data,
            heads,
            rs: layout.strides[nd - 2],
            cs: layout.strides[nd - 1],
        }
    }

    /// Head `n`'s matrix.
    fn head(&self, n: usize) -> Mat<T> {
        Mat::strided(self.data, self.heads[n], self.rs, self.cs)
    }
}

/// Runs `f` on the operands of `q`, `k` and `v` read in place (see [`Operand`]).
fn with_operands<T: AttentionElement, R>(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    f: impl FnOnce(&Operand<'_, T>, &Operand<'_, T>, &Operand<'_, T>) -> R,
) -> R {
    q.read(|qd: &[T], ql| {
        k.read(|kd: &[T], kl| {
            v.read(|vd: &[T], vl| {
                f(
                    &Operand::new(qd, ql),
                    &Operand::new(kd, kl),
                    &Operand::new(vd, vl),
                )
            })
        })
    })
}

/// Float types the attention kernels run on.
trait AttentionElement: GemmElement + FastMath + crate::core::buffer::BufferElement {}
impl AttentionElement for f32 {}
impl AttentionElement for f64 {}

/// `x·scale + bias` over a row's visible scores, in place (a plain loop, so it vectorizes).
#[inline(always)]
fn scale_row<T: AttentionElement>(live: &mut [T], bias: Option<&[T]>, scale: T, shift: T) {
    match bias {
        Some(b) => {
            for (x, &b) in live.iter_mut().zip(b) {
                *x = *x * scale + b - shift;
            }
        }
        None => live.iter_mut().for_each(|x| *x = *x * scale - shift),
    }
}

/// Turns `row` (the raw scores `q·k` of one query) into probabilities over its first
/// `visible` keys (scaled, plus `bias`; later keys 0) and returns the row's log-sum-exp
/// (`-inf` for a row whose every key is masked, whose probabilities are all 0). Each step is
/// its own loop, the maximum and the sum in sixteen partial results, so all of them vectorize.
#[inline(always)]
fn softmax_row<T: AttentionElement>(
    row: &mut [T],
    visible: usize,
    bias: Option<&[T]>,
    scale: T,
) -> T {
    let (live, dead) = row.split_at_mut(visible);
    dead.iter_mut().for_each(|x| *x = T::zero());
    scale_row(live, bias, scale, T::zero());
    let max = lane_max(live);
    if max == T::neg_infinity() {
        live.iter_mut().for_each(|x| *x = T::zero());
        return max;
    }
    live.iter_mut().for_each(|x| *x = (*x - max).fast_exp());
    let sum = lane_sum(live);
    let inv = T::one() / sum;
    live.iter_mut().for_each(|x| *x = *x * inv);
    max + sum.ln()
}

/// The probabilities of one query again, from its raw scores and saved log-sum-exp.
#[inline(always)]
fn probabilities_row<T: AttentionElement>(
    row: &mut [T],
    visible: usize,
    bias: Option<&[T]>,
    scale: T,
    lse: T,
) {
    let (live, dead) = row.split_at_mut(visible);
    dead.iter_mut().for_each(|x| *x = T::zero());
    if lse == T::neg_infinity() {
        live.iter_mut().for_each(|x| *x = T::zero());
        return;
    }
    scale_row(live, bias, scale, lse);
    live.iter_mut().for_each(|x| *x = x.fast_exp());
}

/// `Σ a·b` in sixteen partial sums (so it vectorizes).
#[inline(always)]
#[allow(clippy::assign_op_pattern)] // `Float` has no compound assignment
fn dot<T: AttentionElement>(a: &[T], b: &[T]) -> T {
    let mut acc = [T::zero(); 16];
    let body = a.len() - a.len() % 16;
    for (ca, cb) in a[..body].chunks_exact(16).zip(b[..body].chunks_exact(16)) {
        for j in 0..16 {
            acc[j] = acc[j] + ca[j] * cb[j];
        }
    }
    for (j, (&x, &y)) in a[body..].iter().zip(&b[body..]).enumerate() {
        acc[j] = acc[j] + x * y;
    }
    lane_sum(&acc)
}

/// Runs `f(n, threads)` for every head `n`: in parallel over heads (one thread per product)
/// when there are several, else the one head with every thread.
fn for_each_head(heads: usize, f: impl Fn(usize, usize) + Sync) {
    if heads == 1 {
        f(0, parallel::num_threads());
    } else {
        parallel::for_each_unit(heads, |n| f(n, 1));
    }
}

/// A buffer whose disjoint per-head blocks are written from different threads.
struct Shared<T>(*mut T);
// SAFETY: each head writes only its own block (see `block`)
unsafe impl<T: Send> Send for Shared<T> {}
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    fn new(buffer: &mut [T]) -> Shared<T> {
        Shared(buffer.as_mut_ptr())
    }

    /// Block `n` of `len` elements.
    ///
    /// # Safety
    /// The buffer has at least `(n + 1)·len` elements, outlives the use, and no other caller
    /// takes block `n` meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn block(&self, n: usize, len: usize) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.0.add(n * len), len)
    }
}

/// Queries per block of a causal head: each block's products stop at the last key its last
/// query sees, so about half the products of a long causal head are skipped.
const CAUSAL_BLOCK: usize = 64;

/// The query blocks of a head: `(first, end, keys)`, the block's queries `first..end` seeing
/// at most keys `0..keys`.
fn query_blocks(g: &Geometry) -> Vec<(usize, usize, usize)> {
    let size = if g.causal { CAUSAL_BLOCK } else { g.l.max(1) };
    (0..g.l)
        .step_by(size)
        .map(|first| {
            let end = (first + size).min(g.l);
            (first, end, g.visible(end - 1))
        })
        .collect()
}

/// Head `n`'s forward: its output rows `o` (`l·ev`) and log-sum-exps `lse` (`l`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn forward_head<T: AttentionElement>(
    g: &Geometry,
    n: usize,
    q: &Operand<'_, T>,
    k: &Operand<'_, T>,
    v: &Operand<'_, T>,
    bias: Option<&[T]>,
    o: &mut [T],
    lse: &mut [T],
    threads: usize,
) {
    let (s, e, ev) = (g.s, g.e, g.ev);
    let (qm, km, vm) = (q.head(n), k.head(n), v.head(n));
    let bn = g.bias_of(bias, n);
    let scale = T::from_f64(g.scale);
    let mut scores = vec![T::zero(); g.l * s];
    for (first, end, keys) in query_blocks(g) {
        let rows = end - first;
        let p = &mut scores[..rows * keys];
        // SAFETY (both products): operands within their tensors' storage for these sizes
        unsafe { T::gemm(rows, keys, e, qm.below(first), km.t(), p, threads) };
        for (r, row) in p.chunks_exact_mut(keys).enumerate() {
            let i = first + r;
            let bias_row = bn.map(|b| &b[i * s..][..keys]);
            lse[i] = softmax_row(row, g.visible(i), bias_row, scale);
        }
        let out = &mut o[first * ev..end * ev];
        unsafe { T::gemm(rows, ev, keys, Mat::rows(p, keys), vm, out, threads) };
    }
}

/// Head `n`'s backward: its blocks of `dq` (`l·e`), `dk` (`s·e`) and `dv` (`s·ev`).
#[inline(always)]
#[allow(clippy::too_many_arguments, clippy::assign_op_pattern)] // `Float` has no `+=`
fn backward_head<T: AttentionElement>(
    g: &Geometry,
    n: usize,
    [q, k, v]: [&Operand<'_, T>; 3],
    bias: Option<&[T]>,
    [out, lse, dout]: [&[T]; 3],
    [dqn, dkn, dvn]: [&mut [T]; 3],
    threads: usize,
) {
    let (l, s, e, ev) = (g.l, g.s, g.e, g.ev);
    let (qm, km, vm) = (q.head(n), k.head(n), v.head(n));
    let (on, don, lsen) = (
        &out[n * l * ev..][..l * ev],
        &dout[n * l * ev..][..l * ev],
        &lse[n * l..][..l],
    );
    let bn = g.bias_of(bias, n);
    let scale = T::from_f64(g.scale);
    let blocks = query_blocks(g);
    let widest = blocks.iter().map(|b| (b.1 - b.0) * b.2).max().unwrap_or(0);
    let (mut p, mut dp) = (vec![T::zero(); widest], vec![T::zero(); widest]);
    let mut part = vec![T::zero(); s * e.max(ev)];
    dkn.iter_mut().for_each(|x| *x = T::zero());
    dvn.iter_mut().for_each(|x| *x = T::zero());
    for (first, end, keys) in blocks {
        let rows = end - first;
        let (p, dp) = (&mut p[..rows * keys], &mut dp[..rows * keys]);
        let (qb, dob) = (qm.below(first), &don[first * ev..end * ev]);
        // SAFETY (each product): operands within their tensors' storage or buffers for these
        // sizes
        unsafe { T::gemm(rows, keys, e, qb, km.t(), p, threads) };
        for (r, row) in p.chunks_exact_mut(keys).enumerate() {
            let i = first + r;
            let bias_row = bn.map(|b| &b[i * s..][..keys]);
            probabilities_row(row, g.visible(i), bias_row, scale, lsen[i]);
        }
        // dV[..keys] += Pᵀ·dO
        let dv_part = &mut part[..keys * ev];
        unsafe {
            T::gemm(
                keys,
                ev,
                rows,
                Mat::transposed(p, keys),
                Mat::rows(dob, ev),
                dv_part,
                threads,
            )
        };
        dvn[..keys * ev]
            .iter_mut()
            .zip(dv_part.iter())
            .for_each(|(d, &x)| *d = *d + x);
        // dS = P∘(dO·Vᵀ − rowsum(dO∘O))·scale
        unsafe { T::gemm(rows, keys, ev, Mat::rows(dob, ev), vm.t(), dp, threads) };
        for r in 0..rows {
            let i = first + r;
            let (dor, or) = (&don[i * ev..][..ev], &on[i * ev..][..ev]);
            let d = dot(dor, or);
            let (pr, dpr) = (&p[r * keys..][..keys], &mut dp[r * keys..][..keys]);
            for (x, &pv) in dpr.iter_mut().zip(pr) {
                *x = pv * (*x - d) * scale;
            }
        }
        // dQ = dS·K; dK[..keys] += dSᵀ·Q
        let dq_block = &mut dqn[first * e..end * e];
        unsafe { T::gemm(rows, e, keys, Mat::rows(dp, keys), km, dq_block, threads) };
        let dk_part = &mut part[..keys * e];
        unsafe {
            T::gemm(
                keys,
                e,
                rows,
                Mat::transposed(dp, keys),
                qb,
                dk_part,
                threads,
            )
        };
        dkn[..keys * e]
            .iter_mut()
            .zip(dk_part.iter())
            .for_each(|(d, &x)| *d = *d + x);
    }
}

// forward_head and backward_head compiled for wide vectors too (their row loops call `exp`)
wide_variants!(forward_head_any<T: AttentionElement>, forward_head, (g: &Geometry, n: usize, q: &Operand<'_, T>, k: &Operand<'_, T>, v: &Operand<'_, T>, bias: Option<&[T]>, o: &mut [T], lse: &mut [T], threads: usize));
wide_variants!(backward_head_any<T: AttentionElement>, backward_head, (g: &Geometry, n: usize, qkv: [&Operand<'_, T>; 3], bias: Option<&[T]>, saved: [&[T]; 3], grads: [&mut [T]; 3], threads: usize));

/// The forward kernel: the output (`heads·l·ev`) and the log-sum-exps (`heads·l`).
fn forward_kernel<T: AttentionElement>(
    g: &Geometry,
    q: &Operand<'_, T>,
    k: &Operand<'_, T>,
    v: &Operand<'_, T>,
    bias: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let (l, ev) = (g.l, g.ev);
    let mut out = vec![T::zero(); g.heads * l * ev];
    let mut lse = vec![T::zero(); g.heads * l];
    let (out_at, lse_at) = (Shared::new(&mut out), Shared::new(&mut lse));
    for_each_head(g.heads, |n, threads| {
        // SAFETY: head n's blocks of buffers of heads·len elements, taken once
        let (o, lse) = unsafe { (out_at.block(n, l * ev), lse_at.block(n, l)) };
        forward_head_any(g, n, q, k, v, bias, o, lse, threads);
    });
    (out, lse)
}

/// The backward kernel: `(dq, dk, dv)` for the output gradient `dout`.
#[allow(clippy::too_many_arguments)]
fn backward_kernel<T: AttentionElement>(
    g: &Geometry,
    q: &Operand<'_, T>,
    k: &Operand<'_, T>,
    v: &Operand<'_, T>,
    bias: Option<&[T]>,
    out: &[T],
    lse: &[T],
    dout: &[T],
) -> (Vec<T>, Vec<T>, Vec<T>) {
    let (l, s, e, ev) = (g.l, g.s, g.e, g.ev);
    let mut dq = vec![T::zero(); g.heads * l * e];
    let mut dk = vec![T::zero(); g.heads * s * e];
    let mut dv = vec![T::zero(); g.heads * s * ev];
    let (dq_at, dk_at, dv_at) = (
        Shared::new(&mut dq),
        Shared::new(&mut dk),
        Shared::new(&mut dv),
    );
    for_each_head(g.heads, |n, threads| {
        // SAFETY: head n's blocks of the gradient buffers, each taken once
        let grads = unsafe {
            [
                dq_at.block(n, l * e),
                dk_at.block(n, s * e),
                dv_at.block(n, s * ev),
            ]
        };
        backward_head_any(g, n, [q, k, v], bias, [out, lse, dout], grads, threads);
    });
    (dq, dk, dv)
}

/// The additive mask of `is_causal` over `(l, s)`: 0 on and below the diagonal, `-inf` above.
fn causal_bias(l: usize, s: usize, dtype: DType) -> Result<Tensor> {
    let values: Vec<f64> = (0..l * s)
        .map(|at| {
            if at % s > at / s {
                f64::NEG_INFINITY
            } else {
                0.0
            }
        })
        .collect();
    Tensor::from_vec(values, &[l, s])?.to_dtype(dtype)
}

/// The gradients composed of differentiable ops, for a backward that is itself recorded.
#[allow(clippy::too_many_arguments)]
fn composed_backward(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    bias: Option<&Tensor>,
    causal: bool,
    scale: f64,
    lse: &Tensor,
    dout: &Tensor,
) -> Result<[Tensor; 3]> {
    let (l, s) = (q.shape()[q.dim() - 2], k.shape()[k.dim() - 2]);
    let mut scores = q.matmul(&k.transpose(-2, -1)?)?.mul_scalar(scale)?;
    if let Some(b) = bias {
        scores = scores.add(b)?;
    }
    if causal {
        scores = scores.add(&causal_bias(l, s, q.dtype())?)?;
    }
    let masked_rows = lse.isinf()?.unsqueeze(-1)?;
    // a fully masked row is filled before the softmax too, so no NaN reaches its gradient
    let zero = || Scalar::Float(0.0);
    let p = scores
        .masked_fill(&masked_rows, zero())?
        .softmax(-1)?
        .masked_fill(&masked_rows, zero())?;
    let dv = p.transpose(-2, -1)?.matmul(dout)?;
    let dp = dout.matmul(&v.transpose(-2, -1)?)?;
    let d = dp.mul(&p)?.sum_dims(&[-1], true)?;
    let ds = p.mul(&dp.sub(&d)?)?.mul_scalar(scale)?;
    let dq = ds.matmul(k)?;
    let dk = ds.transpose(-2, -1)?.matmul(q)?;
    Ok([dq, dk, dv])
}

impl Tensor {
    /// Scaled dot-product attention of `self` (queries `(..., L, E)`) over `key` `(..., S, E)`
    /// and `value` `(..., S, Ev)` (the same leading dims), in one fused op (Note [Fused
    /// attention]): `softmax(q·kᵀ·scale + bias) · v`, with `bias` an additive float mask of
    /// shape `(L, S)` or `(..., L, S)` (not differentiated) and `is_causal` masking the keys
    /// after each query. Node `ScaledDotProductFlashAttentionForCpuBackward0`.
    pub fn scaled_dot_product_attention(
        &self,
        key: &Tensor,
        value: &Tensor,
        bias: Option<&Tensor>,
        is_causal: bool,
        scale: f64,
    ) -> Result<Tensor> {
        let (q, k, v) = (self, key, value);
        let g = geometry(q, k, v, bias, is_causal, scale)?;
        let dtype = q.dtype();
        let bd = bias.map(dense);
        let mut out_shape = q.shape().to_vec();
        *out_shape.last_mut().expect("at least 2-D") = g.ev;
        let (out, lse) = crate::with_float!(dtype, T => {
            let (o, lse) = with_operands(q, k, v, |qs: &Operand<'_, T>, ks, vs| match &bd {
                Some(b) => slice_of(b, |bs: &[T]| forward_kernel(&g, qs, ks, vs, Some(bs))),
                None => forward_kernel(&g, qs, ks, vs, None),
            });
            (Tensor::from_vec(o, &out_shape)?, Tensor::from_vec(lse, &[g.heads, g.l])?)
        });
        if !is_recording(&[q, k, v]) {
            return Ok(out);
        }
        let mut lse_shape: Vec<usize> = q.shape()[..q.dim() - 2].to_vec();
        lse_shape.push(g.l);
        let lse = lse.reshape(&lse_shape.iter().map(|&d| d as isize).collect::<Vec<_>>())?;
        let saves = [
            Save::Tensor(q),
            Save::Tensor(k),
            Save::Tensor(v),
            Save::Output,
        ];
        Ok(record(
            out,
            "ScaledDotProductFlashAttentionForCpuBackward0",
            &[q, k, v],
            &saves,
            move |ctx| {
                let dout = ctx.grad(0);
                let (q, k, v, out) = (ctx.saved(0), ctx.saved(1), ctx.saved(2), ctx.saved(3));
                if is_recording(&[dout, q, k, v]) {
                    let [dq, dk, dv] =
                        composed_backward(q, k, v, bd.as_ref(), is_causal, scale, &lse, dout)?;
                    return Ok(vec![Some(dq), Some(dk), Some(dv)]);
                }
                let dout = dense(&dout.to_dtype(dtype)?);
                let (od, ld) = (dense(out), dense(&lse));
                let (dq, dk, dv) = crate::with_float!(dtype, T => {
                    let grads = with_operands(q, k, v, |qs: &Operand<'_, T>, ks, vs| {
                        slice_of(&od, |os: &[T]| slice_of(&ld, |ls: &[T]| slice_of(&dout, |ds: &[T]| match &bd {
                            Some(b) => slice_of(b, |bs: &[T]| backward_kernel(&g, qs, ks, vs, Some(bs), os, ls, ds)),
                            None => backward_kernel(&g, qs, ks, vs, None, os, ls, ds),
                        })))
                    });
                    (
                        Tensor::from_vec(grads.0, q.shape())?,
                        Tensor::from_vec(grads.1, k.shape())?,
                        Tensor::from_vec(grads.2, v.shape())?,
                    )
                });
                Ok(vec![Some(dq), Some(dk), Some(dv)])
            },
        ))
    }
}

/// Checks the operands of fused attention and gives their sizes.
fn geometry(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    bias: Option<&Tensor>,
    causal: bool,
    scale: f64,
) -> Result<Geometry> {
    let refuse = |why: String| {
        Err(Error::runtime(format!(
            "scaled_dot_product_attention: {why}"
        )))
    };
    if q.dim() < 2 || k.dim() != q.dim() || v.dim() != q.dim() {
        return refuse(format!(
            "query, key and value must have one number of dimensions, at least 2 (got {}, {} and {})",
            q.dim(),
            k.dim(),
            v.dim()
        ));
    }
    let nd = q.dim();
    let lead = &q.shape()[..nd - 2];
    if &k.shape()[..nd - 2] != lead || &v.shape()[..nd - 2] != lead {
        return refuse(format!(
            "query, key and value must have the same leading dimensions (got {:?}, {:?} and {:?})",
            q.shape(),
            k.shape(),
            v.shape()
        ));
    }
    let (l, e) = (q.shape()[nd - 2], q.shape()[nd - 1]);
    let (s, ev) = (k.shape()[nd - 2], v.shape()[nd - 1]);
    if k.shape()[nd - 1] != e || v.shape()[nd - 2] != s {
        return refuse(format!(
            "key {:?} and value {:?} do not fit query {:?}",
            k.shape(),
            v.shape(),
            q.shape()
        ));
    }
    let dtype = q.dtype();
    if !dtype.is_floating_point() || k.dtype() != dtype || v.dtype() != dtype {
        return refuse(format!(
            "query, key and value must have one floating dtype (got {}, {} and {})",
            q.dtype().name(),
            k.dtype().name(),
            v.dtype().name()
        ));
    }
    let heads: usize = lead.iter().product();
    let bias_per_head = match bias {
        None => false,
        Some(b) if b.dtype() != dtype => {
            return refuse(format!(
                "the mask's dtype {} is not the query's",
                b.dtype().name()
            ))
        }
        Some(b) if b.shape() == [l, s] => false,
        Some(b) if b.shape()[..] == [lead, &[l, s]].concat()[..] => true,
        Some(b) => {
            return refuse(format!(
                "a mask of shape {:?} for scores of shape {lead:?} + [{l}, {s}]",
                b.shape()
            ))
        }
    };
    Ok(Geometry {
        heads,
        l,
        s,
        e,
        ev,
        scale,
        causal,
        bias_per_head,
    })
}
