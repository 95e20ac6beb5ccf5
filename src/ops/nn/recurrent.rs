//! Recurrent cells as one node each: `lstm_cell`, `gru_cell`, `rnn_cell` (tanh or relu). The
//! forward runs outside the graph; the node's backward is the cell's gradient written out
//! with ops (so it differentiates again), instead of the dozen small nodes a composed cell
//! records. Gate orders and formulas are PyTorch's (`LSTMCell`: i, f, g, o; `GRUCell`: r, z, n
//! with `r` applied to the hidden projection including its bias). The fused LSTM layer runs the
//! kernels of `crate::cpu::lstm`; the LSTM cell's formulas and their derivative are written once
//! there (`crate::cpu::lstm::CellMath`) and run here on tensors.

use crate::autograd::{is_recording, record, record_multi, Save};
use crate::core::buffer::BufferElement;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::{is_grad_enabled, no_grad};
use crate::core::pool;
use crate::core::tensor::Tensor;
use crate::cpu::gemm::Mat;
use crate::cpu::lstm::{
    lstm_activation, lstm_backward, lstm_cell_update, lstm_cell_update_grad, lstm_forward, product,
    CellMath, PARALLEL_PRODUCT,
};
use crate::ops::pointwise::division::NOT_IMPLEMENTED;

/// `x @ w.T + b` for a cell's input or hidden projection.
fn project(x: &Tensor, w: &Tensor, b: Option<&Tensor>) -> Result<Tensor> {
    let y = x.mm(&w.t()?)?;
    match b {
        Some(b) => y.add(b),
        None => Ok(y),
    }
}

/// Checks a cell's shapes as PyTorch does; returns the hidden size.
fn check(
    name: &str,
    gates: usize,
    x: &Tensor,
    h: &Tensor,
    w_ih: &Tensor,
    w_hh: &Tensor,
) -> Result<usize> {
    if x.dim() != 2 || h.dim() != 2 || w_ih.dim() != 2 || w_hh.dim() != 2 {
        return Err(Error::runtime(format!(
            "{name}: expected 2-D input, hidden state and weights, got {}-D, {}-D, {}-D, {}-D",
            x.dim(),
            h.dim(),
            w_ih.dim(),
            w_hh.dim()
        )));
    }
    let hidden = h.shape()[1];
    if x.shape()[0] != h.shape()[0] {
        return Err(Error::runtime(format!(
            "Input batch size {} doesn't match hidden0 batch size {}",
            x.shape()[0],
            h.shape()[0]
        )));
    }
    if w_ih.shape() != [gates * hidden, x.shape()[1]] || w_hh.shape() != [gates * hidden, hidden] {
        return Err(Error::runtime(format!(
            "{name}: weights of shapes {:?} and {:?} do not fit input size {} and hidden size {hidden}",
            w_ih.shape(),
            w_hh.shape(),
            x.shape()[1]
        )));
    }
    Ok(hidden)
}

/// The gradients of a cell's inputs `[x, h, (c), w_ih, w_hh, b_ih, b_hh]` from the gradients
/// `d_gi`, `d_gh` of its two projections (`gi = x w_ihᵀ + b_ih`, `gh = h w_hhᵀ + b_hh`).
fn projection_grads(
    d_gi: &Tensor,
    d_gh: &Tensor,
    x: &Tensor,
    h: &Tensor,
    w_ih: &Tensor,
    w_hh: &Tensor,
) -> Result<[Tensor; 6]> {
    Ok([
        d_gi.mm(w_ih)?,
        d_gh.mm(w_hh)?,
        d_gi.t()?.mm(x)?,
        d_gh.t()?.mm(h)?,
        d_gi.sum_dims(&[0], false)?,
        d_gh.sum_dims(&[0], false)?,
    ])
}

/// The LSTM gates `[i, f, g, o, tanh(c')]` and `(h', c')` computed with ops (differentiable
/// when grad mode is on: the backward recomputes them so under `create_graph`).
fn lstm_gates(
    x: &Tensor,
    h: &Tensor,
    c: &Tensor,
    w: [&Tensor; 2],
    b: [Option<&Tensor>; 2],
) -> Result<([Tensor; 5], Tensor, Tensor)> {
    let gates = project(x, w[0], b[0])?.add(&project(h, w[1], b[1])?)?;
    let pre = gates.chunk(4, 1)?;
    let act = |k: usize| lstm_activation(k, &pre[k]);
    let [i, f, g, o] = [act(0)?, act(1)?, act(2)?, act(3)?];
    let [c_new, tc, h_new] = lstm_cell_update([&i, &f, &g, &o], c)?;
    Ok(([i, f, g, o, tc], h_new, c_new))
}

/// The GRU gates `[r, z, n, W_hn h + b_hn]` and `h'` computed with ops.
fn gru_gates(
    x: &Tensor,
    h: &Tensor,
    w: [&Tensor; 2],
    b: [Option<&Tensor>; 2],
) -> Result<([Tensor; 4], Tensor)> {
    let gi = project(x, w[0], b[0])?.chunk(3, 1)?;
    let gh = project(h, w[1], b[1])?.chunk(3, 1)?;
    let r = gi[0].add(&gh[0])?.sigmoid()?;
    let z = gi[1].add(&gh[1])?.sigmoid()?;
    let n = gi[2].add(&r.mul(&gh[2])?)?.tanh()?;
    // h' = (1 - z)·n + z·h = n + z·(h - n)
    let h_new = n.add(&z.mul(&h.sub(&n)?)?)?;
    Ok(([r, z, n, gh[2].clone()], h_new))
}

/// A cell's input gradients `grads`, then those of the biases that are given (`has_bias`:
/// `b_ih`, `b_hh`), in the order of the node's inputs.
fn with_bias_grads(
    mut grads: Vec<Option<Tensor>>,
    has_bias: (bool, bool),
    [d_ih, d_hh]: [Tensor; 2],
) -> Vec<Option<Tensor>> {
    if has_bias.0 {
        grads.push(Some(d_ih));
    }
    if has_bias.1 {
        grads.push(Some(d_hh));
    }
    grads
}

/// The arithmetic of the LSTM cell's shared formulas (`crate::cpu::lstm`) as ops.
impl CellMath for Tensor {
    type Error = Error;
    fn plus(&self, other: &Tensor) -> Result<Tensor> {
        self.add(other)
    }
    fn times(&self, other: &Tensor) -> Result<Tensor> {
        self.mul(other)
    }
    fn one_minus(&self) -> Result<Tensor> {
        self.rsub_scalar(1.0)
    }
    fn sigmoid_of(&self) -> Result<Tensor> {
        self.sigmoid()
    }
    fn tanh_of(&self) -> Result<Tensor> {
        self.tanh()
    }
}

/// A bias saved when given (a placeholder keeps the positions otherwise).
fn save_opt(b: Option<&Tensor>) -> Save<'_> {
    b.map_or(Save::Skip, Save::Tensor)
}

/// The graph inputs of a cell: the tensors, then the biases that are given.
fn inputs<'a>(tensors: &[&'a Tensor], biases: [Option<&'a Tensor>; 2]) -> Vec<&'a Tensor> {
    let mut all = tensors.to_vec();
    all.extend(biases.into_iter().flatten());
    all
}

impl Tensor {
    /// One LSTM step: `(h', c')` from input `self` (batch, input), `h`, `c` (batch, hidden) and
    /// the weights (4·hidden rows: i, f, g, o), recorded as one node `LstmCellBackward0`.
    #[allow(clippy::too_many_arguments)]
    pub fn lstm_cell(
        &self,
        h: &Tensor,
        c: &Tensor,
        w_ih: &Tensor,
        w_hh: &Tensor,
        b_ih: Option<&Tensor>,
        b_hh: Option<&Tensor>,
    ) -> Result<(Tensor, Tensor)> {
        check("lstm_cell", 4, self, h, w_ih, w_hh)?;
        let x = self;
        let (saved, h_new, c_new) = no_grad(|| lstm_gates(x, h, c, [w_ih, w_hh], [b_ih, b_hh]))?;
        let all = inputs(&[x, h, c, w_ih, w_hh], [b_ih, b_hh]);
        if !is_recording(&all) {
            return Ok((h_new, c_new));
        }
        let has_bias = (b_ih.is_some(), b_hh.is_some());
        let [i, f, g, o, tc] = saved;
        let mut saves: Vec<Save<'_>> = [x, h, c, w_ih, w_hh, &i, &f, &g, &o, &tc]
            .into_iter()
            .map(Save::Tensor)
            .collect();
        saves.extend([save_opt(b_ih), save_opt(b_hh)]);
        let outs = record_multi(
            vec![h_new, c_new],
            "LstmCellBackward0",
            &all,
            &saves,
            Box::new(move |ctx| {
                let s = |k: usize| ctx.saved(k);
                let (x, h, c, w_ih, w_hh) = (s(0), s(1), s(2), s(3), s(4));
                // under create_graph the gates are recomputed with ops, so this formula's
                // own derivative sees them depend on the inputs
                let recomputed;
                let [i, f, g, o, tc] = if is_grad_enabled() {
                    let b = [ctx.saved_opt(10), ctx.saved_opt(11)];
                    recomputed = lstm_gates(x, h, c, [w_ih, w_hh], b)?.0;
                    [
                        &recomputed[0],
                        &recomputed[1],
                        &recomputed[2],
                        &recomputed[3],
                        &recomputed[4],
                    ]
                } else {
                    [s(5), s(6), s(7), s(8), s(9)]
                };
                let zeros = || i.zeros_like();
                let dh = ctx.grad_opt(0).cloned().unwrap_or_else(zeros);
                let dc = ctx.grad_opt(1).cloned().unwrap_or_else(zeros);
                let (d_pre, dc_prev) = lstm_cell_update_grad([i, f, g, o], tc, c, &dh, &dc)?;
                let d_gates = Tensor::cat(&d_pre, 1)?;
                let [dx, dhp, dwi, dwh, dbi, dbh] =
                    projection_grads(&d_gates, &d_gates, x, h, w_ih, w_hh)?;
                let grads = vec![Some(dx), Some(dhp), Some(dc_prev), Some(dwi), Some(dwh)];
                Ok(with_bias_grads(grads, has_bias, [dbi, dbh]))
            }),
        );
        let mut outs = outs.into_iter();
        match (outs.next(), outs.next()) {
            (Some(h), Some(c)) => Ok((h, c)),
            _ => Err(Error::runtime("lstm_cell: the node lost an output")),
        }
    }

    /// One GRU step: `h'` from input `self` and `h` with weights of 3·hidden rows (r, z, n),
    /// recorded as one node `GruCellBackward0`.
    pub fn gru_cell(
        &self,
        h: &Tensor,
        w_ih: &Tensor,
        w_hh: &Tensor,
        b_ih: Option<&Tensor>,
        b_hh: Option<&Tensor>,
    ) -> Result<Tensor> {
        check("gru_cell", 3, self, h, w_ih, w_hh)?;
        let x = self;
        let (saved, h_new) = no_grad(|| gru_gates(x, h, [w_ih, w_hh], [b_ih, b_hh]))?;
        let all = inputs(&[x, h, w_ih, w_hh], [b_ih, b_hh]);
        if !is_recording(&all) {
            return Ok(h_new);
        }
        let has_bias = (b_ih.is_some(), b_hh.is_some());
        let [r, z, n, hn] = saved;
        let mut saves: Vec<Save<'_>> = [x, h, w_ih, w_hh, &r, &z, &n, &hn]
            .into_iter()
            .map(Save::Tensor)
            .collect();
        saves.extend([save_opt(b_ih), save_opt(b_hh)]);
        let outs = record_multi(
            vec![h_new],
            "GruCellBackward0",
            &all,
            &saves,
            Box::new(move |ctx| {
                let s = |k: usize| ctx.saved(k);
                let (x, h, w_ih, w_hh) = (s(0), s(1), s(2), s(3));
                let recomputed;
                let [r, z, n, hn] = if is_grad_enabled() {
                    let b = [ctx.saved_opt(8), ctx.saved_opt(9)];
                    recomputed = gru_gates(x, h, [w_ih, w_hh], b)?.0;
                    [
                        &recomputed[0],
                        &recomputed[1],
                        &recomputed[2],
                        &recomputed[3],
                    ]
                } else {
                    [s(4), s(5), s(6), s(7)]
                };
                let dh = ctx.grad(0);
                // through h' = n + z·(h - n)
                let dz = dh.mul(&h.sub(n)?)?.mul(&z.mul(&z.rsub_scalar(1.0)?)?)?;
                let dn = dh
                    .mul(&z.rsub_scalar(1.0)?)?
                    .mul(&n.mul(n)?.rsub_scalar(1.0)?)?;
                let dr = dn.mul(hn)?.mul(&r.mul(&r.rsub_scalar(1.0)?)?)?;
                let d_gi = Tensor::cat(&[dr.clone(), dz.clone(), dn.clone()], 1)?;
                let d_gh = Tensor::cat(&[dr, dz, dn.mul(r)?], 1)?;
                let [dx, dhp, dwi, dwh, dbi, dbh] =
                    projection_grads(&d_gi, &d_gh, x, h, w_ih, w_hh)?;
                let grads = vec![Some(dx), Some(dhp.add(&dh.mul(z)?)?), Some(dwi), Some(dwh)];
                Ok(with_bias_grads(grads, has_bias, [dbi, dbh]))
            }),
        );
        outs.into_iter()
            .next()
            .ok_or_else(|| Error::runtime("gru_cell: the node lost its output"))
    }

    /// One Elman RNN step: `h' = act(x w_ihᵀ + b_ih + h w_hhᵀ + b_hh)` with `act` tanh or
    /// relu, recorded as one node `RnnTanhCellBackward0` / `RnnReluCellBackward0`.
    pub fn rnn_cell(
        &self,
        h: &Tensor,
        w_ih: &Tensor,
        w_hh: &Tensor,
        b_ih: Option<&Tensor>,
        b_hh: Option<&Tensor>,
        relu: bool,
    ) -> Result<Tensor> {
        check("rnn_cell", 1, self, h, w_ih, w_hh)?;
        let x = self;
        let h_new = no_grad(|| {
            let pre = project(x, w_ih, b_ih)?.add(&project(h, w_hh, b_hh)?)?;
            if relu {
                pre.relu()
            } else {
                pre.tanh()
            }
        })?;
        let all = inputs(&[x, h, w_ih, w_hh], [b_ih, b_hh]);
        if !is_recording(&all) {
            return Ok(h_new);
        }
        let has_bias = (b_ih.is_some(), b_hh.is_some());
        let node = if relu {
            "RnnReluCellBackward0"
        } else {
            "RnnTanhCellBackward0"
        };
        let outs = record_multi(
            vec![h_new],
            node,
            &all,
            &[
                Save::Tensor(x),
                Save::Tensor(h),
                Save::Tensor(w_ih),
                Save::Tensor(w_hh),
                Save::OutputAt(0),
            ],
            Box::new(move |ctx| {
                let s = |k: usize| ctx.saved(k);
                let (x, h, w_ih, w_hh, y) = (s(0), s(1), s(2), s(3), s(4));
                let dh = ctx.grad(0);
                let d_pre = if relu {
                    let mask = y.compare(
                        crate::ops::pointwise::comparison::CompareOp::Gt,
                        crate::ops::Operand::Scalar(0.0.into()),
                    )?;
                    Tensor::where_(&mask, dh, &dh.zeros_like())?
                } else {
                    dh.mul(&y.mul(y)?.rsub_scalar(1.0)?)?
                };
                let [dx, dhp, dwi, dwh, dbi, dbh] =
                    projection_grads(&d_pre, &d_pre, x, h, w_ih, w_hh)?;
                let grads = vec![Some(dx), Some(dhp), Some(dwi), Some(dwh)];
                Ok(with_bias_grads(grads, has_bias, [dbi, dbh]))
            }),
        );
        outs.into_iter()
            .next()
            .ok_or_else(|| Error::runtime("rnn_cell: the node lost its output"))
    }
}

/// The elements of a contiguous tensor, borrowed for `f`.
fn with_elements<T: BufferElement, R>(t: &Tensor, f: impl FnOnce(&[T]) -> R) -> R {
    t.read(|data: &[T], layout| f(&data[layout.offset..layout.offset + t.numel()]))
}

impl Tensor {
    /// An LSTM layer over a whole sequence `self` (`[steps, batch, input]`) from states `h0`,
    /// `c0` (`[batch, hidden]`) as one node (`MkldnnRnnLayerBackward0`, as PyTorch's CPU
    /// layer): the steps run in Rust, the weights' gradients are one matrix product each over
    /// all steps. Returns `(output [steps, batch, hidden], h_n, c_n)`. Its backward is not
    /// differentiable again (as PyTorch's).
    #[allow(clippy::too_many_arguments)]
    pub fn lstm_layer(
        &self,
        h0: &Tensor,
        c0: &Tensor,
        w_ih: &Tensor,
        w_hh: &Tensor,
        b_ih: Option<&Tensor>,
        b_hh: Option<&Tensor>,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        if self.dim() != 3 {
            return Err(Error::runtime(format!(
                "lstm_layer: expected a [steps, batch, input] sequence, got {}-D",
                self.dim()
            )));
        }
        let (steps, batch, input) = (self.shape()[0], self.shape()[1], self.shape()[2]);
        let step_shape = Tensor::zeros(&[batch, input], self.dtype());
        check("lstm_layer", 4, &step_shape, h0, w_ih, w_hh)?;
        let others = [h0, c0, w_ih, w_hh].into_iter().chain(b_ih).chain(b_hh);
        if let Some(t) = others.into_iter().find(|t| t.dtype() != self.dtype()) {
            return Err(Error::runtime(format!(
                "lstm_layer: expected every state and weight in the input's dtype {}, got {}",
                self.dtype().name(),
                t.dtype().name()
            )));
        }
        let hidden = h0.shape()[1];
        let (sb, g4) = (steps * batch, 4 * hidden);
        let dims = (steps, batch, hidden);
        let dtype = self.dtype();
        let x = self;
        let dense = |t: &Tensor| t.detach().contiguous();
        let (xc, wi, wh, h0c, c0c) = (
            dense(x)?,
            dense(w_ih)?,
            dense(w_hh)?,
            dense(h0)?,
            dense(c0)?,
        );
        let biases = [b_ih, b_hh]
            .into_iter()
            .flatten()
            .map(dense)
            .collect::<Result<Vec<_>>>()?;
        macro_rules! run {
            ($T:ty) => {{
                // every step's input projection, then both biases (in that order, as PyTorch)
                let mut pre = pool::buffer::<$T>(sb * g4);
                with_elements(&xc, |xs: &[$T]| {
                    with_elements(&wi, |ws: &[$T]| {
                        let (xm, wt) = (Mat::rows(xs, input), Mat::transposed(ws, input));
                        product(
                            (sb, g4, input),
                            xm,
                            wt,
                            &mut pre,
                            crate::cpu::parallel::num_threads(),
                        )
                    })
                });
                for b in &biases {
                    with_elements(b, |bs: &[$T]| {
                        for row in pre.chunks_exact_mut(g4) {
                            row.iter_mut().zip(bs).for_each(|(p, &b)| *p += b);
                        }
                    });
                }
                let h0v = h0c.to_vec::<$T>()?;
                let c0v = c0c.to_vec::<$T>()?;
                let (out, c_last, tape) = with_elements(&wh, |ws: &[$T]| {
                    lstm_forward::<$T>(&pre, ws, &h0v, &c0v, dims)
                });
                pool::recycle(<$T>::into_buffer(pre));
                let h_last = match steps {
                    0 => h0v.clone(),
                    _ => out[(steps - 1) * batch * hidden..].to_vec(),
                };
                let out_t = Tensor::from_vec(out, &[steps, batch, hidden])?;
                let h_t = Tensor::from_vec(h_last, &[batch, hidden])?;
                let c_t = Tensor::from_vec(c_last, &[batch, hidden])?;
                (out_t, h_t, c_t, std::sync::Arc::new((tape, c0v)))
            }};
        }
        let all = inputs(&[x, h0, c0, w_ih, w_hh], [b_ih, b_hh]);
        let recording = is_recording(&all);
        let has_bias = (b_ih.is_some(), b_hh.is_some());
        macro_rules! finish {
            ($T:ty) => {{
                let (out_t, h_t, c_t, kept) = run!($T);
                if !recording {
                    return Ok((out_t, h_t, c_t));
                }
                let outs = record_multi(
                    vec![out_t, h_t, c_t],
                    "MkldnnRnnLayerBackward0",
                    &all,
                    &[Save::Tensor(x), Save::Tensor(w_ih), Save::Tensor(w_hh)],
                    Box::new(move |ctx| {
                        let (x, w_ih, w_hh) = (ctx.saved(0), ctx.saved(1), ctx.saved(2));
                        let (tape, c0v) = &*kept;
                        let dense_grad = |k: usize, n: usize| -> Result<Vec<$T>> {
                            match ctx.grad_opt(k) {
                                Some(g) => g.detach().contiguous()?.to_vec::<$T>(),
                                None => Ok(vec![0.0; n]),
                            }
                        };
                        let d_h = dense_grad(1, batch * hidden)?;
                        let d_c = dense_grad(2, batch * hidden)?;
                        let d_out = match ctx.grad_opt(0) {
                            Some(g) => g.detach().contiguous()?,
                            None => Tensor::zeros(&[steps, batch, hidden], dtype),
                        };
                        let (xc, wi, wh) = (dense(x)?, dense(w_ih)?, dense(w_hh)?);
                        let (d_pre, dh0, dc0) = with_elements(&wh, |ws: &[$T]| {
                            with_elements(&d_out, |ds: &[$T]| {
                                lstm_backward(tape, ws, c0v, ds, (d_h, d_c), dims)
                            })
                        });
                        let mut dx = pool::buffer::<$T>(sb * input);
                        let mut dwi = pool::buffer::<$T>(g4 * input);
                        let mut dwh = pool::buffer::<$T>(g4 * hidden);
                        let (dp, dpt) = (Mat::rows(&d_pre, g4), Mat::transposed(&d_pre, g4));
                        let hm = Mat::rows(&tape.hidden_in, hidden);
                        with_elements(&wi, |ws: &[$T]| with_elements(&xc, |xs: &[$T]| {
                            let (wm, xm) = (Mat::rows(ws, input), Mat::rows(xs, input));
                            let threads = crate::cpu::parallel::num_threads();
                            if sb * g4 * (2 * input + hidden) >= 8 * PARALLEL_PRODUCT {
                                // large: each product on all threads, one after the other
                                product((sb, input, g4), dp, wm, &mut dx, threads);
                                product((g4, input, sb), dpt, xm, &mut dwi, threads);
                                product((g4, hidden, sb), dpt, hm, &mut dwh, threads);
                            } else {
                                // small: the three products side by side, one thread each
                                let work: Vec<(&mut [$T], (usize, usize, usize), Mat<$T>, Mat<$T>)> = vec![
                                    (&mut dwh, (g4, hidden, sb), dpt, hm),
                                    (&mut dx, (sb, input, g4), dp, wm),
                                    (&mut dwi, (g4, input, sb), dpt, xm),
                                ];
                                crate::cpu::parallel::for_each_owned(work, |(c, dims, a, b)| {
                                    product(dims, a, b, c, 1)
                                });
                            }
                        }));
                        let d_pre = Tensor::from_vec(d_pre, &[sb, g4])?;
                        let db = no_grad(|| d_pre.sum_dims(&[0], false))?;
                        let grads = vec![
                            Some(Tensor::from_vec(dx, &[steps, batch, input])?),
                            Some(Tensor::from_vec(dh0, &[batch, hidden])?),
                            Some(Tensor::from_vec(dc0, &[batch, hidden])?),
                            Some(Tensor::from_vec(dwi, &[g4, input])?),
                            Some(Tensor::from_vec(dwh, &[g4, hidden])?),
                        ];
                        let grads = with_bias_grads(grads, has_bias, [db.clone(), db]);
                        if !is_recording(&[x, w_ih, w_hh]) {
                            return Ok(grads);
                        }
                        // under create_graph: gradients whose own derivative is refused, as
                        // PyTorch's layer refuses it
                        Ok(grads
                            .into_iter()
                            .map(|g| {
                                g.map(|g| {
                                    record(g, NOT_IMPLEMENTED, &[x, w_ih, w_hh], &[], |_| {
                                        Err(Error::not_implemented(
                                            "derivative for mkldnn_rnn_layer_backward is not implemented",
                                        ))
                                    })
                                })
                            })
                            .collect())
                    }),
                );
                let mut outs = outs.into_iter();
                match (outs.next(), outs.next(), outs.next()) {
                    (Some(o), Some(h), Some(c)) => Ok((o, h, c)),
                    _ => Err(Error::runtime("lstm_layer: the node lost an output")),
                }
            }};
        }
        match dtype {
            crate::DType::Float32 => finish!(f32),
            crate::DType::Float64 => finish!(f64),
            other => Err(Error::runtime(format!(
                "lstm_layer: expected a floating sequence, got {}",
                other.scalar_name()
            ))),
        }
    }
}
