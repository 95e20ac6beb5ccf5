//! Recurrent cells as one node each: `lstm_cell`, `gru_cell`, `rnn_cell` (tanh or relu). The
//! forward runs outside the graph; the node's backward is the cell's gradient written out
//! with ops (so it differentiates again), instead of the dozen small nodes a composed cell
//! records. Gate orders and formulas are PyTorch's (`LSTMCell`: i, f, g, o; `GRUCell`: r, z, n
//! with `r` applied to the hidden projection including its bias).

use crate::autograd::{is_recording, record, record_multi, Save};
use crate::core::buffer::BufferElement;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::{is_grad_enabled, no_grad};
use crate::core::pool;
use crate::core::tensor::Tensor;
use crate::cpu::gemm::{GemmElement, Mat, SharedRhs};
use crate::cpu::kernels::wide_variants;
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
                        crate::ops::pointwise::comparison::CompareOp::Gt,
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

/// The gate functions in the element type: float32 through the vectorizable approximations
/// of `cpu::fastmath` (within a few ulps), float64 through the standard library.
trait Gate: GemmElement + BufferElement + Default {
    fn sigmoid(self) -> Self;
    fn tanh_gate(self) -> Self;
}

impl Gate for f32 {
    #[inline(always)]
    fn sigmoid(self) -> f32 {
        1.0 / (1.0 + crate::cpu::fastmath::exp_f32(-self))
    }
    #[inline(always)]
    fn tanh_gate(self) -> f32 {
        crate::cpu::fastmath::tanh_f32(self)
    }
}

impl Gate for f64 {
    #[inline(always)]
    fn sigmoid(self) -> f64 {
        1.0 / (1.0 + (-self).exp())
    }
    #[inline(always)]
    fn tanh_gate(self) -> f64 {
        self.tanh()
    }
}

/// One LSTM step's elementwise part over a batch: `gates = pre + proj` (rows of `4H`), each
/// gate's function, then the new cell and hidden states written over `c` and `h`.
struct LstmCells<'a, T> {
    gates: &'a mut [T],
    pre: &'a [T],
    proj: &'a [T],
    c: &'a mut [T],
    h: &'a mut [T],
    hidden: usize,
}

#[inline(always)]
fn lstm_cells_body<T: Gate>(s: LstmCells<'_, T>) {
    let hidden = s.hidden;
    let g4 = 4 * hidden;
    let rows = s.gates.chunks_exact_mut(g4).zip(s.pre.chunks_exact(g4));
    let states =
        s.c.chunks_exact_mut(hidden)
            .zip(s.h.chunks_exact_mut(hidden));
    for (((row, p), q), (cb, hb)) in rows.zip(s.proj.chunks_exact(g4)).zip(states) {
        // pre-activations, then each gate's function over its contiguous quarter
        add_rows(row, p, q);
        let (ifs, rest) = row.split_at_mut(2 * hidden);
        let (gs, os) = rest.split_at_mut(hidden);
        // plain loops (an iterator adapter's fold is not inlined into the vectorized variant)
        for v in ifs.iter_mut() {
            *v = v.sigmoid();
        }
        for v in os.iter_mut() {
            *v = v.sigmoid();
        }
        for v in gs.iter_mut() {
            *v = v.tanh_gate();
        }
        let (is, fs) = ifs.split_at(hidden);
        lstm_cell_row(is, fs, gs, os, cb, hb);
    }
}

/// `out = a + b` elementwise (separate arguments: no overlap, so it vectorizes).
#[inline(always)]
fn add_rows<T: Gate>(out: &mut [T], a: &[T], b: &[T]) {
    let n = out.len();
    let (a, b) = (&a[..n], &b[..n]);
    for k in 0..n {
        out[k] = a[k] + b[k];
    }
}

/// The new cell and hidden state of one sample from its activated gates. Separate slices as
/// arguments tell the compiler they do not overlap, so the loop vectorizes.
#[inline(always)]
fn lstm_cell_row<T: Gate>(is: &[T], fs: &[T], gs: &[T], os: &[T], c: &mut [T], h: &mut [T]) {
    let n = c.len();
    let (is, fs, gs, os, h) = (&is[..n], &fs[..n], &gs[..n], &os[..n], &mut h[..n]);
    for k in 0..n {
        let cell = fs[k] * c[k] + is[k] * gs[k];
        c[k] = cell;
        h[k] = os[k] * cell.tanh_gate();
    }
}

/// One LSTM step's elementwise backward over a batch: from the step's gates, cell states
/// (`cells` after, `before` before), the output gradient `d_step` and the gradients `dh`, `dc`
/// flowing back from the next step, the gate pre-activations' gradients `dg`; `dc` becomes the
/// previous cell state's gradient.
struct LstmCellGrads<'a, T> {
    gates: &'a [T],
    cells: &'a [T],
    before: &'a [T],
    d_step: &'a [T],
    dg: &'a mut [T],
    dh: &'a [T],
    dc: &'a mut [T],
    hidden: usize,
}

#[inline(always)]
fn lstm_cell_grads_body<T: Gate>(s: LstmCellGrads<'_, T>) {
    let hidden = s.hidden;
    let g4 = 4 * hidden;
    let per_sample = s
        .gates
        .chunks_exact(g4)
        .zip(s.dg.chunks_exact_mut(g4))
        .zip(s.cells.chunks_exact(hidden))
        .zip(s.before.chunks_exact(hidden))
        .zip(s.d_step.chunks_exact(hidden))
        .zip(s.dh.chunks_exact(hidden))
        .zip(s.dc.chunks_exact_mut(hidden));
    for ((((((row, dg), cells), before), d_step), dh), dc) in per_sample {
        let (is, rest) = row.split_at(hidden);
        let (fs, rest) = rest.split_at(hidden);
        let (gs, os) = rest.split_at(hidden);
        let (di, rest) = dg.split_at_mut(hidden);
        let (df, rest) = rest.split_at_mut(hidden);
        let (dgg, dos) = rest.split_at_mut(hidden);
        lstm_cell_grad_row(
            is, fs, gs, os, cells, before, d_step, dh, di, df, dgg, dos, dc,
        );
    }
}

/// One sample's gate gradients (`[di, df, dg, do]`) from its gates `[i, f, g, o]`, its cell
/// state after and before the step, the output gradient and the hidden state's gradient; `dc`
/// goes from the next step's cell gradient to this one's. Separate slices as arguments tell the
/// compiler they do not overlap, so the loop vectorizes.
/// (One argument per slice: slices gathered into arrays lose that, and the loop stays scalar.)
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn lstm_cell_grad_row<T: Gate>(
    is: &[T],
    fs: &[T],
    gs: &[T],
    os: &[T],
    cells: &[T],
    before: &[T],
    d_step: &[T],
    dh: &[T],
    di: &mut [T],
    df: &mut [T],
    dgg: &mut [T],
    dos: &mut [T],
    dc: &mut [T],
) {
    let n = dc.len();
    let one = T::from_f64(1.0);
    let (is, fs, gs, os) = (&is[..n], &fs[..n], &gs[..n], &os[..n]);
    let (cells, before, d_step, dh) = (&cells[..n], &before[..n], &d_step[..n], &dh[..n]);
    let (di, df, dgg, dos) = (&mut di[..n], &mut df[..n], &mut dgg[..n], &mut dos[..n]);
    for k in 0..n {
        let (i, f, g, o) = (is[k], fs[k], gs[k], os[k]);
        let tc = cells[k].tanh_gate();
        let dht = dh[k] + d_step[k];
        let dct = dc[k] + dht * o * (one - tc * tc);
        di[k] = dct * g * i * (one - i);
        df[k] = dct * before[k] * f * (one - f);
        dgg[k] = dct * i * (one - g * g);
        dos[k] = dht * tc * o * (one - o);
        dc[k] = dct * f;
    }
}

// the cell loops compiled for the widest vectors the CPU has
wide_variants!(lstm_cells<T: Gate>, lstm_cells_body, (args: LstmCells<'_, T>));
wide_variants!(lstm_cell_grads<T: Gate>, lstm_cell_grads_body, (args: LstmCellGrads<'_, T>));

/// What the forward of an LSTM layer keeps for its backward: per step the activated gates
/// `(i, f, g, o)` and the cell state, and the hidden states the steps started from. Its
/// buffers come from and go back to the buffer pool (a long sequence's tape is megabytes,
/// which would otherwise be fresh, page-faulting memory at every step of training).
struct LstmTape<T: BufferElement> {
    gates: Vec<T>,
    cells: Vec<T>,
    hidden_in: Vec<T>,
}

impl<T: BufferElement> Drop for LstmTape<T> {
    fn drop(&mut self) {
        for v in [&mut self.gates, &mut self.cells, &mut self.hidden_in] {
            pool::recycle(T::into_buffer(std::mem::take(v)));
        }
    }
}

/// Below this many multiply-adds a product runs on the calling thread: waking the others
/// costs more than they save.
const PARALLEL_PRODUCT: usize = 1 << 21;

/// The threads for a product of `dims = (m, n, k)`: 1 when it is too small to pay for waking
/// the others.
fn product_threads((m, n, k): (usize, usize, usize), threads: usize) -> usize {
    if m * n * k < PARALLEL_PRODUCT {
        1
    } else {
        threads
    }
}

/// `c = a·b` (`a` m×k, `b` k×n, `c` m×n), on up to `threads` threads when it is large enough.
fn product<T: GemmElement>(
    dims: (usize, usize, usize),
    a: Mat<T>,
    b: Mat<T>,
    c: &mut [T],
    threads: usize,
) {
    let (m, n, k) = dims;
    // SAFETY: every caller passes operands borrowed from slices of at least these sizes, alive
    // and unwritten during the call, and `c` of m·n elements
    unsafe { T::gemm(m, n, k, a, b, c, product_threads(dims, threads)) }
}

/// A recurrent weight `b` (`k×n` for `dims = (k, n)`) as the right-hand operand of every
/// step's product of the groups' rows: packed once per layer call, not once per step.
///
/// # Safety
/// `b` addresses valid elements, neither freed nor written while the result lives.
unsafe fn shared_rhs<T: GemmElement>(
    b: Mat<T>,
    (k, n): (usize, usize),
    groups: &[(usize, usize)],
    threads: usize,
) -> SharedRhs<T> {
    let rows = groups.iter().map(|&(b0, b1)| b1 - b0).min().unwrap_or(0);
    SharedRhs::new(k, n, b, rows, threads)
}

/// The groups of batch rows that run a sequence side by side: the rows of a recurrent layer
/// are independent, so each group runs every step on its own thread, with no wait between
/// steps (a row's values do not depend on the grouping: the same bits with any thread count).
fn row_groups(batch: usize, threads: usize) -> Vec<(usize, usize)> {
    let groups = if batch >= 8 {
        threads.min(batch / 4).max(1)
    } else {
        1
    };
    (0..groups)
        .map(|g| (g * batch / groups, (g + 1) * batch / groups))
        .collect()
}

/// Splits every `step_len`-element step block of `buf` into the groups' rows (`row_len`
/// elements per row): for each group, its slice of every step.
fn split_steps<'a, T>(
    buf: &'a mut [T],
    step_len: usize,
    groups: &[(usize, usize)],
    row_len: usize,
) -> Vec<Vec<&'a mut [T]>> {
    let mut per: Vec<Vec<&'a mut [T]>> = groups.iter().map(|_| Vec::new()).collect();
    if step_len == 0 {
        return per;
    }
    for block in buf.chunks_exact_mut(step_len) {
        let mut rest = block;
        for (k, &(b0, b1)) in groups.iter().enumerate() {
            let (head, tail) = rest.split_at_mut((b1 - b0) * row_len);
            per[k].push(head);
            rest = tail;
        }
    }
    per
}

/// [`split_steps`] for a buffer that is only read.
fn split_steps_ref<'a, T>(
    buf: &'a [T],
    step_len: usize,
    groups: &[(usize, usize)],
    row_len: usize,
) -> Vec<Vec<&'a [T]>> {
    let mut per: Vec<Vec<&'a [T]>> = groups.iter().map(|_| Vec::new()).collect();
    if step_len == 0 {
        return per;
    }
    for block in buf.chunks_exact(step_len) {
        let mut rest = block;
        for (k, &(b0, b1)) in groups.iter().enumerate() {
            let (head, tail) = rest.split_at((b1 - b0) * row_len);
            per[k].push(head);
            rest = tail;
        }
    }
    per
}

/// One group of batch rows of an LSTM layer's forward: per step, its rows of the input
/// projections and of the tape and outputs to write; its states, from the initial ones to the
/// last.
struct RowsForward<'a, T> {
    pre: Vec<&'a [T]>,
    gates: Vec<&'a mut [T]>,
    cells: Vec<&'a mut [T]>,
    hidden_in: Vec<&'a mut [T]>,
    out: Vec<&'a mut [T]>,
    h: Vec<T>,
    c: &'a mut [T],
}

/// The forward of one group of rows over all steps (`threads` for its matrix products).
fn rows_forward<T: Gate>(
    mut r: RowsForward<'_, T>,
    w: &SharedRhs<T>,
    hidden: usize,
    threads: usize,
) {
    let rows = r.h.len() / hidden.max(1);
    let g4 = 4 * hidden;
    let mut proj = vec![T::from_f64(0.0); rows * g4];
    for t in 0..r.pre.len() {
        r.hidden_in[t].copy_from_slice(&r.h);
        // proj = h · w_hhᵀ
        let threads = product_threads((rows, g4, hidden), threads);
        // SAFETY: h has rows·hidden elements, proj rows·4H
        unsafe { w.product(rows, Mat::rows(&r.h, hidden), &mut proj, threads) };
        lstm_cells(LstmCells {
            gates: &mut *r.gates[t],
            pre: r.pre[t],
            proj: &proj,
            c: &mut *r.c,
            h: &mut r.h,
            hidden,
        });
        r.cells[t].copy_from_slice(r.c);
        r.out[t].copy_from_slice(&r.h);
    }
}

/// The forward of an LSTM layer over `steps` steps of `batch` samples: `pre` holds each step's
/// input projection (`x w_ihᵀ + b_ih + b_hh`, `[steps, batch, 4H]`), `w` is `w_hh` (`[4H, H]`).
/// Returns the outputs `[steps, batch, H]` (a pooled buffer), the last cell state and the tape.
fn lstm_forward<T: Gate>(
    pre: &[T],
    w: &[T],
    h0: &[T],
    c0: &[T],
    (steps, batch, hidden): (usize, usize, usize),
) -> (Vec<T>, Vec<T>, LstmTape<T>) {
    let (g4, bh) = (4 * hidden, batch * hidden);
    let mut c = c0.to_vec();
    let mut out = pool::buffer::<T>(steps * bh);
    let mut tape = LstmTape {
        gates: pool::buffer::<T>(steps * batch * g4),
        cells: pool::buffer::<T>(steps * bh),
        hidden_in: pool::buffer::<T>(steps * bh),
    };
    let threads = crate::cpu::parallel::num_threads();
    let groups = row_groups(batch, threads);
    let inner = if groups.len() == 1 { threads } else { 1 };
    // SAFETY: w is w_hh (4H×H), borrowed for the whole call
    let w = unsafe { shared_rhs(Mat::transposed(w, hidden), (hidden, g4), &groups, threads) };
    let mut pres = split_steps_ref(pre, batch * g4, &groups, g4).into_iter();
    let mut gates = split_steps(&mut tape.gates, batch * g4, &groups, g4).into_iter();
    let mut cells = split_steps(&mut tape.cells, bh, &groups, hidden).into_iter();
    let mut hidden_in = split_steps(&mut tape.hidden_in, bh, &groups, hidden).into_iter();
    let mut outs = split_steps(&mut out, bh, &groups, hidden).into_iter();
    let mut c_rows = split_steps(&mut c, bh, &groups, hidden).into_iter();
    let work: Vec<RowsForward<'_, T>> = groups
        .iter()
        .map(|&(b0, b1)| RowsForward {
            pre: pres.next().unwrap_or_default(),
            gates: gates.next().unwrap_or_default(),
            cells: cells.next().unwrap_or_default(),
            hidden_in: hidden_in.next().unwrap_or_default(),
            out: outs.next().unwrap_or_default(),
            h: h0[b0 * hidden..b1 * hidden].to_vec(),
            c: c_rows.next().and_then(|mut v| v.pop()).unwrap_or_default(),
        })
        .collect();
    crate::cpu::parallel::for_each_owned(work, |r| rows_forward(r, &w, hidden, inner));
    (out, c, tape)
}

/// One group of batch rows of an LSTM layer's backward: per step, its rows of the tape, of the
/// output gradient and of the gate gradients to write; the gradients flowing back through its
/// states.
struct RowsBackward<'a, T> {
    gates: Vec<&'a [T]>,
    cells: Vec<&'a [T]>,
    c0: &'a [T],
    d_out: Vec<&'a [T]>,
    d_pre: Vec<&'a mut [T]>,
    dh: &'a mut [T],
    dc: &'a mut [T],
}

/// The backward of one group of rows over all steps, last step first.
fn rows_backward<T: Gate>(
    r: RowsBackward<'_, T>,
    w_hh: &SharedRhs<T>,
    hidden: usize,
    threads: usize,
) {
    let rows = r.dh.len() / hidden.max(1);
    let g4 = 4 * hidden;
    let RowsBackward {
        gates,
        cells,
        c0,
        d_out,
        mut d_pre,
        dh,
        dc,
    } = r;
    let mut next_dh = vec![T::from_f64(0.0); dh.len()];
    for t in (0..gates.len()).rev() {
        let before = if t == 0 { c0 } else { cells[t - 1] };
        let dg = &mut *d_pre[t];
        lstm_cell_grads(LstmCellGrads {
            gates: gates[t],
            cells: cells[t],
            before,
            d_step: d_out[t],
            dg,
            dh: &*dh,
            dc: &mut *dc,
            hidden,
        });
        // dh for the step before: this step's gate gradients through w_hh
        let threads = product_threads((rows, hidden, g4), threads);
        // SAFETY: dg has rows·4H elements, next_dh rows·hidden
        unsafe { w_hh.product(rows, Mat::rows(dg, g4), &mut next_dh, threads) };
        dh.copy_from_slice(&next_dh);
    }
}

/// The backward of an LSTM layer: from the output gradients `d_out` (`[steps, batch, H]`) and
/// those of the last states, the gradients of every step's gate pre-activations
/// (`[steps, batch, 4H]`, a pooled buffer) and of the initial states.
fn lstm_backward<T: Gate>(
    tape: &LstmTape<T>,
    w_hh: &[T],
    c0: &[T],
    d_out: &[T],
    (mut dh, mut dc): (Vec<T>, Vec<T>),
    (steps, batch, hidden): (usize, usize, usize),
) -> (Vec<T>, Vec<T>, Vec<T>) {
    let (g4, bh) = (4 * hidden, batch * hidden);
    let mut d_pre = pool::buffer::<T>(steps * batch * g4);
    let threads = crate::cpu::parallel::num_threads();
    let groups = row_groups(batch, threads);
    let inner = if groups.len() == 1 { threads } else { 1 };
    // SAFETY: w_hh (4H×H) is borrowed for the whole call
    let w_hh = unsafe { shared_rhs(Mat::rows(w_hh, hidden), (g4, hidden), &groups, threads) };
    let mut gates = split_steps_ref(&tape.gates, batch * g4, &groups, g4).into_iter();
    let mut cells = split_steps_ref(&tape.cells, bh, &groups, hidden).into_iter();
    let mut c0s = split_steps_ref(c0, bh, &groups, hidden).into_iter();
    let mut d_outs = split_steps_ref(d_out, bh, &groups, hidden).into_iter();
    let mut d_pres = split_steps(&mut d_pre, batch * g4, &groups, g4).into_iter();
    let mut dhs = split_steps(&mut dh, bh, &groups, hidden).into_iter();
    let mut dcs = split_steps(&mut dc, bh, &groups, hidden).into_iter();
    let work: Vec<RowsBackward<'_, T>> = groups
        .iter()
        .map(|_| RowsBackward {
            gates: gates.next().unwrap_or_default(),
            cells: cells.next().unwrap_or_default(),
            c0: c0s.next().and_then(|mut v| v.pop()).unwrap_or_default(),
            d_out: d_outs.next().unwrap_or_default(),
            d_pre: d_pres.next().unwrap_or_default(),
            dh: dhs.next().and_then(|mut v| v.pop()).unwrap_or_default(),
            dc: dcs.next().and_then(|mut v| v.pop()).unwrap_or_default(),
        })
        .collect();
    crate::cpu::parallel::for_each_owned(work, |r| rows_backward(r, &w_hh, hidden, inner));
    (d_pre, dh, dc)
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
                        let mut grads = vec![
                            Some(Tensor::from_vec(dx, &[steps, batch, input])?),
                            Some(Tensor::from_vec(dh0, &[batch, hidden])?),
                            Some(Tensor::from_vec(dc0, &[batch, hidden])?),
                            Some(Tensor::from_vec(dwi, &[g4, input])?),
                            Some(Tensor::from_vec(dwh, &[g4, hidden])?),
                        ];
                        if has_bias.0 {
                            grads.push(Some(db.clone()));
                        }
                        if has_bias.1 {
                            grads.push(Some(db));
                        }
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
