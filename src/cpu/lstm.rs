//! The fused LSTM layer's kernels: per time step, the hidden projection's product and the
//! cell update in wide vectors (the input projections come precomputed for the whole
//! sequence), and the backward through time from the tape of gates the forward kept. Batch
//! rows are split into groups that run every step on their own threads. No autograd here: the op (`src/ops/nn/recurrent.rs`)
//! records these.

use crate::core::buffer::BufferElement;
use crate::core::pool;
use crate::cpu::gemm::{GemmElement, Mat, SharedRhs};
use crate::cpu::kernels::wide_variants;

/// The gate functions in the element type: float32 through the vectorizable approximations
/// of `cpu::fastmath` (within a few ulps), float64 through the standard library.
pub(crate) trait Gate: GemmElement + BufferElement + Default {
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

/// The arithmetic of the LSTM cell's formulas, written once ([`lstm_activation`],
/// [`lstm_cell_update`], [`lstm_cell_update_grad`]) and run on two kinds of values: the
/// kernels' elements (`f32`, `f64`, through [`Gate`]; `Error` is `Infallible`, so the `?`s
/// compile away and the loops still vectorize) and tensors (the differentiable cell of
/// `ops/nn/recurrent.rs`, each step an op, so its backward differentiates again).
pub(crate) trait CellMath: Sized {
    /// What a step can fail with.
    type Error;
    /// `self + other`.
    fn plus(&self, other: &Self) -> Result<Self, Self::Error>;
    /// `self · other`.
    fn times(&self, other: &Self) -> Result<Self, Self::Error>;
    /// `1 - self`.
    fn one_minus(&self) -> Result<Self, Self::Error>;
    /// The logistic sigmoid.
    fn sigmoid_of(&self) -> Result<Self, Self::Error>;
    /// The hyperbolic tangent.
    fn tanh_of(&self) -> Result<Self, Self::Error>;
}

impl<T: Gate> CellMath for T {
    type Error = std::convert::Infallible;
    #[inline(always)]
    fn plus(&self, other: &T) -> Result<T, Self::Error> {
        Ok(*self + *other)
    }
    #[inline(always)]
    fn times(&self, other: &T) -> Result<T, Self::Error> {
        Ok(*self * *other)
    }
    #[inline(always)]
    fn one_minus(&self) -> Result<T, Self::Error> {
        Ok(T::from_f64(1.0) - *self)
    }
    #[inline(always)]
    fn sigmoid_of(&self) -> Result<T, Self::Error> {
        Ok(self.sigmoid())
    }
    #[inline(always)]
    fn tanh_of(&self) -> Result<T, Self::Error> {
        Ok(self.tanh_gate())
    }
}

/// The function of gate `gate` of PyTorch's order `[i, f, g, o]` (sigmoid, sigmoid, tanh,
/// sigmoid) applied to its pre-activation `x`.
#[inline(always)]
pub(crate) fn lstm_activation<T: CellMath>(gate: usize, x: &T) -> Result<T, T::Error> {
    if gate == 2 {
        x.tanh_of()
    } else {
        x.sigmoid_of()
    }
}

/// The LSTM cell update from its gates `[i, f, g, o]` and cell state `c`: `c' = f·c + i·g`,
/// `h' = o·tanh(c')`. Returns `(c', tanh(c'), h')`.
#[inline(always)]
pub(crate) fn lstm_cell_update<T: CellMath>(gates: [&T; 4], c: &T) -> Result<[T; 3], T::Error> {
    let [i, f, g, o] = gates;
    let c_new = f.times(c)?.plus(&i.times(g)?)?;
    let tc = c_new.tanh_of()?;
    let h_new = o.times(&tc)?;
    Ok([c_new, tc, h_new])
}

/// The derivative of [`lstm_activation`] and [`lstm_cell_update`] together: from the gates,
/// `tanh(c')`, the cell state before the step `c` and the gradients `dh` of `h'` and `dc` of
/// `c'`, the gradients of the gate pre-activations `[di, df, dg, do]` and of `c`.
#[inline(always)]
pub(crate) fn lstm_cell_update_grad<T: CellMath>(
    gates: [&T; 4],
    tc: &T,
    c: &T,
    dh: &T,
    dc: &T,
) -> Result<([T; 4], T), T::Error> {
    let [i, f, g, o] = gates;
    // the whole gradient reaching c': its own and, through h' = o·tanh(c'), dh's
    let dct = dc.plus(&dh.times(o)?.times(&tanh_slope(tc)?)?)?;
    let d_gates = [
        dct.times(g)?.times(&sigmoid_slope(i)?)?,
        dct.times(c)?.times(&sigmoid_slope(f)?)?,
        dct.times(i)?.times(&tanh_slope(g)?)?,
        dh.times(tc)?.times(&sigmoid_slope(o)?)?,
    ];
    Ok((d_gates, dct.times(f)?))
}

/// The sigmoid's slope from its value `y`: `y·(1 - y)`.
#[inline(always)]
fn sigmoid_slope<T: CellMath>(y: &T) -> Result<T, T::Error> {
    y.times(&y.one_minus()?)
}

/// The hyperbolic tangent's slope from its value `y`: `1 - y²`.
#[inline(always)]
fn tanh_slope<T: CellMath>(y: &T) -> Result<T, T::Error> {
    y.times(y)?.one_minus()
}

/// The value of a kernel's formula (its `Error` is `Infallible`).
#[inline(always)]
fn sure<V>(r: Result<V, std::convert::Infallible>) -> V {
    match r {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// One LSTM step's elementwise part over a batch: `gates = pre + proj` (rows of `4H`), each
/// gate's function, then the new cell and hidden states written over `c` and `h`.
pub(crate) struct LstmCells<'a, T> {
    gates: &'a mut [T],
    pre: &'a [T],
    proj: &'a [T],
    c: &'a mut [T],
    h: &'a mut [T],
    hidden: usize,
}

#[inline(always)]
pub(crate) fn lstm_cells_body<T: Gate>(s: LstmCells<'_, T>) {
    let hidden = s.hidden;
    let g4 = 4 * hidden;
    let rows = s.gates.chunks_exact_mut(g4).zip(s.pre.chunks_exact(g4));
    let states =
        s.c.chunks_exact_mut(hidden)
            .zip(s.h.chunks_exact_mut(hidden));
    for (((row, p), q), (cb, hb)) in rows.zip(s.proj.chunks_exact(g4)).zip(states) {
        // pre-activations, then the gates and states from them
        add_rows(row, p, q);
        for (gate, quarter) in row.chunks_exact_mut(hidden).enumerate() {
            activate(gate, quarter);
        }
        let (is, rest) = row.split_at(hidden);
        let (fs, rest) = rest.split_at(hidden);
        let (gs, os) = rest.split_at(hidden);
        lstm_cell_row(is, fs, gs, os, cb, hb);
    }
}

/// `out = a + b` elementwise (separate arguments: no overlap, so it vectorizes).
#[inline(always)]
pub(crate) fn add_rows<T: Gate>(out: &mut [T], a: &[T], b: &[T]) {
    let n = out.len();
    let (a, b) = (&a[..n], &b[..n]);
    for k in 0..n {
        out[k] = a[k] + b[k];
    }
}

/// Gate `gate`'s function over its pre-activations, in place.
#[inline(always)]
fn activate<T: Gate>(gate: usize, xs: &mut [T]) {
    // plain loops (an iterator adapter's fold is not inlined into the vectorized variant)
    for slot in xs.iter_mut() {
        let x = *slot;
        *slot = sure(lstm_activation(gate, &x));
    }
}

/// The new cell and hidden state of one sample from its activated gates. Separate slices as
/// arguments tell the compiler they do not overlap, so the loop vectorizes.
#[inline(always)]
pub(crate) fn lstm_cell_row<T: Gate>(
    is: &[T],
    fs: &[T],
    gs: &[T],
    os: &[T],
    c: &mut [T],
    h: &mut [T],
) {
    let n = c.len();
    let (is, fs, gs, os, h) = (&is[..n], &fs[..n], &gs[..n], &os[..n], &mut h[..n]);
    for k in 0..n {
        let (i, f, g, o, c_old) = (is[k], fs[k], gs[k], os[k], c[k]);
        let [cell, _, hidden] = sure(lstm_cell_update([&i, &f, &g, &o], &c_old));
        c[k] = cell;
        h[k] = hidden;
    }
}

/// One LSTM step's elementwise backward over a batch: from the step's gates, cell states
/// (`cells` after, `before` before), the output gradient `d_step` and the gradients `dh`, `dc`
/// flowing back from the next step, the gate pre-activations' gradients `dg`; `dc` becomes the
/// previous cell state's gradient.
pub(crate) struct LstmCellGrads<'a, T> {
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
pub(crate) fn lstm_cell_grads_body<T: Gate>(s: LstmCellGrads<'_, T>) {
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
/// (One argument per slice: slices gathered into arrays lose that, and the loop stays scalar.
/// Likewise the elements are copied into locals before the shared formula gets references:
/// references into the slices made the loop run its scalar version, 3x slower.)
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn lstm_cell_grad_row<T: Gate>(
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
    let (is, fs, gs, os) = (&is[..n], &fs[..n], &gs[..n], &os[..n]);
    let (cells, before, d_step, dh) = (&cells[..n], &before[..n], &d_step[..n], &dh[..n]);
    let (di, df, dgg, dos) = (&mut di[..n], &mut df[..n], &mut dgg[..n], &mut dos[..n]);
    for k in 0..n {
        let (i, f, g, o) = (is[k], fs[k], gs[k], os[k]);
        let (tc, c, dc_next) = (cells[k].tanh_gate(), before[k], dc[k]);
        let dht = dh[k] + d_step[k];
        let ([a, b, c, d], dc_prev) = sure(lstm_cell_update_grad(
            [&i, &f, &g, &o],
            &tc,
            &c,
            &dht,
            &dc_next,
        ));
        (di[k], df[k], dgg[k], dos[k]) = (a, b, c, d);
        dc[k] = dc_prev;
    }
}

// the cell loops compiled for the widest vectors the CPU has
wide_variants!(pub(crate) lstm_cells<T: Gate>, lstm_cells_body, (args: LstmCells<'_, T>));
wide_variants!(pub(crate) lstm_cell_grads<T: Gate>, lstm_cell_grads_body, (args: LstmCellGrads<'_, T>));

/// What the forward of an LSTM layer keeps for its backward: per step the activated gates
/// `(i, f, g, o)` and the cell state, and the hidden states the steps started from. Its
/// buffers come from and go back to the buffer pool (a long sequence's tape is megabytes,
/// which would otherwise be fresh, page-faulting memory at every step of training).
pub(crate) struct LstmTape<T: BufferElement> {
    gates: Vec<T>,
    cells: Vec<T>,
    /// The hidden state each step started from, `[steps, batch, H]`.
    pub(crate) hidden_in: Vec<T>,
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
pub(crate) const PARALLEL_PRODUCT: usize = 1 << 21;

/// The threads for a product of `dims = (m, n, k)`: 1 when it is too small to pay for waking
/// the others.
pub(crate) fn product_threads((m, n, k): (usize, usize, usize), threads: usize) -> usize {
    if m * n * k < PARALLEL_PRODUCT {
        1
    } else {
        threads
    }
}

/// `c = a·b` (`a` m×k, `b` k×n, `c` m×n), on up to `threads` threads when it is large enough.
pub(crate) fn product<T: GemmElement>(
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
pub(crate) fn row_groups(batch: usize, threads: usize) -> Vec<(usize, usize)> {
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
pub(crate) fn split_steps<'a, T>(
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
pub(crate) fn split_steps_ref<'a, T>(
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
pub(crate) struct RowsForward<'a, T> {
    pre: Vec<&'a [T]>,
    gates: Vec<&'a mut [T]>,
    cells: Vec<&'a mut [T]>,
    hidden_in: Vec<&'a mut [T]>,
    out: Vec<&'a mut [T]>,
    h: Vec<T>,
    c: &'a mut [T],
}

/// The forward of one group of rows over all steps (`threads` for its matrix products).
pub(crate) fn rows_forward<T: Gate>(
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
pub(crate) fn lstm_forward<T: Gate>(
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
pub(crate) struct RowsBackward<'a, T> {
    gates: Vec<&'a [T]>,
    cells: Vec<&'a [T]>,
    c0: &'a [T],
    d_out: Vec<&'a [T]>,
    d_pre: Vec<&'a mut [T]>,
    dh: &'a mut [T],
    dc: &'a mut [T],
}

/// The backward of one group of rows over all steps, last step first.
pub(crate) fn rows_backward<T: Gate>(
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
pub(crate) fn lstm_backward<T: Gate>(
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
