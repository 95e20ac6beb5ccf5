//! Recurrent cells as one node each: `lstm_cell`, `gru_cell`, `rnn_cell` (tanh or relu). The
//! forward runs outside the graph; the node's backward is the cell's gradient written out
//! with ops (so it differentiates again), instead of the dozen small nodes a composed cell
//! records. Gate orders and formulas are PyTorch's (`LSTMCell`: i, f, g, o; `GRUCell`: r, z, n
//! with `r` applied to the hidden projection including its bias).

use crate::autograd::{is_recording, record_multi, Save};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::{is_grad_enabled, no_grad};
use crate::core::tensor::Tensor;

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
    let chunks = gates.chunk(4, 1)?;
    let (i, f) = (chunks[0].sigmoid()?, chunks[1].sigmoid()?);
    let (g, o) = (chunks[2].tanh()?, chunks[3].sigmoid()?);
    let c_new = f.mul(c)?.add(&i.mul(&g)?)?;
    let tc = c_new.tanh()?;
    let h_new = o.mul(&tc)?;
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
                let dc_in = ctx.grad_opt(1).cloned().unwrap_or_else(zeros);
                // dc = dc' + dh · o · (1 - tanh²(c'))
                let dc = dc_in.add(&dh.mul(o)?.mul(&tc.mul(tc)?.rsub_scalar(1.0)?)?)?;
                let sig = |y: &Tensor| y.mul(&y.rsub_scalar(1.0)?);
                let d_gates = Tensor::cat(
                    &[
                        dc.mul(g)?.mul(&sig(i)?)?,
                        dc.mul(c)?.mul(&sig(f)?)?,
                        dc.mul(i)?.mul(&g.mul(g)?.rsub_scalar(1.0)?)?,
                        dh.mul(tc)?.mul(&sig(o)?)?,
                    ],
                    1,
                )?;
                let [dx, dhp, dwi, dwh, dbi, dbh] =
                    projection_grads(&d_gates, &d_gates, x, h, w_ih, w_hh)?;
                let mut grads = vec![Some(dx), Some(dhp), Some(dc.mul(f)?), Some(dwi), Some(dwh)];
                if has_bias.0 {
                    grads.push(Some(dbi));
                }
                if has_bias.1 {
                    grads.push(Some(dbh));
                }
                Ok(grads)
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
                let mut grads = vec![Some(dx), Some(dhp.add(&dh.mul(z)?)?), Some(dwi), Some(dwh)];
                if has_bias.0 {
                    grads.push(Some(dbi));
                }
                if has_bias.1 {
                    grads.push(Some(dbh));
                }
                Ok(grads)
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
                        crate::ops::comparison::CompareOp::Gt,
                        crate::ops::Operand::Scalar(0.0.into()),
                    )?;
                    Tensor::where_(&mask, dh, &dh.zeros_like())?
                } else {
                    dh.mul(&y.mul(y)?.rsub_scalar(1.0)?)?
                };
                let [dx, dhp, dwi, dwh, dbi, dbh] =
                    projection_grads(&d_pre, &d_pre, x, h, w_ih, w_hh)?;
                let mut grads = vec![Some(dx), Some(dhp), Some(dwi), Some(dwh)];
                if has_bias.0 {
                    grads.push(Some(dbi));
                }
                if has_bias.1 {
                    grads.push(Some(dbh));
                }
                Ok(grads)
            }),
        );
        outs.into_iter()
            .next()
            .ok_or_else(|| Error::runtime("rnn_cell: the node lost its output"))
    }
}
