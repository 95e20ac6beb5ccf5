//! Elementwise and reduction kernels over strided layouts. No autograd here: ops in `ops/` call these.

use crate::core::buffer::BufferElement;
use crate::core::dtype::Element;
use crate::core::error::Result;
use crate::core::layout::{broadcast_shapes, elementwise_strides, gather, same_shape, Layout};
use crate::core::tensor::Tensor;
use std::mem::MaybeUninit;

mod copy;
mod lanes;
mod reduce;
pub use copy::*;
pub use lanes::*;
pub use reduce::*;

/// Element count above which elementwise kernels split the work across rayon threads.
pub const PARALLEL_ELEMENTS: usize = 1 << 15;

/// `out[i] = f(xs[i])` on one thread; the loop LLVM vectorizes.
#[inline(always)]
fn map_loop<T: Copy, U>(xs: &[T], out: &mut [U], f: &impl Fn(T) -> U) {
    for (o, &v) in out.iter_mut().zip(xs) {
        *o = f(v);
    }
}

/// `out[i] = f(xs[i], ys[i])` on one thread.
#[inline(always)]
fn zip_loop<T: Copy, U>(xs: &[T], ys: &[T], out: &mut [U], f: &impl Fn(T, T) -> U) {
    for ((o, &a), &b) in out.iter_mut().zip(xs).zip(ys) {
        *o = f(a, b);
    }
}

/// `d[i] = f(d[i], s[i])` on one thread.
#[inline(always)]
fn update_loop<T: Copy>(d: &mut [T], s: &[T], f: &impl Fn(T, T) -> T) {
    for (a, &b) in d.iter_mut().zip(s) {
        *a = f(*a, b);
    }
}

/// Whether `pred` holds for every element, on one thread (blocks of 256 folded without an
/// early exit inside a block, so the loop vectorizes).
#[inline(always)]
fn all_loop<T: Copy>(xs: &[T], pred: &impl Fn(T) -> bool) -> bool {
    xs.chunks(256)
        .all(|c| c.iter().fold(true, |acc, &x| acc & pred(x)))
}

/// `y[r] = Σ_j w[r, j] · x[j]` for a row-major `w` (sixteen lanes of partial sums per row, so
/// the loop vectorizes), on one thread.
#[inline(always)]
#[allow(clippy::assign_op_pattern)] // `Float` has no compound assignment
fn gemv_loop<T: crate::core::dtype::Float>(w: &[T], x: &[T], y: &mut [T]) {
    let n = x.len();
    let zero = T::from_f64(0.0);
    for (r, out) in y.iter_mut().enumerate() {
        let row = &w[r * n..(r + 1) * n];
        let mut lanes = [zero; 16];
        let body = n - n % 16;
        for (chunk, xs) in row[..body].chunks_exact(16).zip(x[..body].chunks_exact(16)) {
            for k in 0..16 {
                lanes[k] = lanes[k] + chunk[k] * xs[k];
            }
        }
        let mut total = lanes.iter().fold(zero, |a, &b| a + b);
        for (&a, &b) in row[body..].iter().zip(&x[body..]) {
            total = total + a * b;
        }
        *out = total;
    }
}

/// `y[j] += Σ_r d[r] · w[r, j]` for a row-major `w` (rows of `y.len()`), on one thread.
#[inline(always)]
#[allow(clippy::assign_op_pattern)]
fn gemv_t_loop<T: crate::core::dtype::Float>(w: &[T], d: &[T], y: &mut [T]) {
    let n = y.len();
    for (r, &dr) in d.iter().enumerate() {
        for (out, &wv) in y.iter_mut().zip(&w[r * n..(r + 1) * n]) {
            *out = *out + dr * wv;
        }
    }
}

/// `y = w x` for a row-major `w` of `y.len()` rows (a matrix-vector product), with the widest
/// vector instructions the CPU has.
pub fn gemv<T: crate::core::dtype::Float>(w: &[T], x: &[T], y: &mut [T]) {
    debug_assert_eq!(w.len(), x.len() * y.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: each variant runs only when `wide::level` found its instructions on this CPU.
    unsafe {
        match wide::level() {
            2 => return wide::gemv_loop_512(w, x, y),
            1 => return wide::gemv_loop_256(w, x, y),
            _ => {}
        }
    }
    gemv_loop(w, x, y)
}

/// `y += wᵀ d` for a row-major `w` of `d.len()` rows, with the widest vector instructions the
/// CPU has.
pub fn gemv_t<T: crate::core::dtype::Float>(w: &[T], d: &[T], y: &mut [T]) {
    debug_assert_eq!(w.len(), d.len() * y.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as in `gemv`.
    unsafe {
        match wide::level() {
            2 => return wide::gemv_t_loop_512(w, d, y),
            1 => return wide::gemv_t_loop_256(w, d, y),
            _ => {}
        }
    }
    gemv_t_loop(w, d, y)
}

/// The loops compiled for AVX-512 or AVX2+FMA, chosen at run time from what the CPU has.
#[cfg(target_arch = "x86_64")]
mod wide {
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
    pub(super) fn gemv_loop_512<T: crate::core::dtype::Float>(w: &[T], x: &[T], y: &mut [T]) {
        super::gemv_loop(w, x, y)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn gemv_loop_256<T: crate::core::dtype::Float>(w: &[T], x: &[T], y: &mut [T]) {
        super::gemv_loop(w, x, y)
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
    pub(super) fn gemv_t_loop_512<T: crate::core::dtype::Float>(w: &[T], d: &[T], y: &mut [T]) {
        super::gemv_t_loop(w, d, y)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn gemv_t_loop_256<T: crate::core::dtype::Float>(w: &[T], d: &[T], y: &mut [T]) {
        super::gemv_t_loop(w, d, y)
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
    pub(super) fn map_loop_512<T: Copy, U>(xs: &[T], out: &mut [U], f: &impl Fn(T) -> U) {
        super::map_loop(xs, out, f)
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
    pub(super) fn zip_loop_512<T: Copy, U>(
        xs: &[T],
        ys: &[T],
        out: &mut [U],
        f: &impl Fn(T, T) -> U,
    ) {
        super::zip_loop(xs, ys, out, f)
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
    pub(super) fn update_loop_512<T: Copy>(d: &mut [T], s: &[T], f: &impl Fn(T, T) -> T) {
        super::update_loop(d, s, f)
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
    pub(super) fn all_loop_512<T: Copy>(xs: &[T], pred: &impl Fn(T) -> bool) -> bool {
        super::all_loop(xs, pred)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn all_loop<T: Copy>(xs: &[T], pred: &impl Fn(T) -> bool) -> bool {
        super::all_loop(xs, pred)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn map_loop<T: Copy, U>(xs: &[T], out: &mut [U], f: &impl Fn(T) -> U) {
        super::map_loop(xs, out, f)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn zip_loop<T: Copy, U>(xs: &[T], ys: &[T], out: &mut [U], f: &impl Fn(T, T) -> U) {
        super::zip_loop(xs, ys, out, f)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn update_loop<T: Copy>(d: &mut [T], s: &[T], f: &impl Fn(T, T) -> T) {
        super::update_loop(d, s, f)
    }

    /// The widest instruction set the CPU offers: 2 for AVX-512, 1 for AVX2+FMA, 0 for neither.
    pub(super) fn level() -> u8 {
        static LEVEL: std::sync::OnceLock<u8> = std::sync::OnceLock::new();
        *LEVEL.get_or_init(|| {
            let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
            let avx512 = is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512dq");
            match (avx512 && avx2, avx2) {
                (true, _) => 2,
                (false, true) => 1,
                _ => 0,
            }
        })
    }
}

/// Below this many elements the plain loop runs: the wide loops' set-up costs more than it saves.
const WIDE_MIN: usize = 8;

/// The instruction set for a loop over `n` elements: [`wide::level`], or 0 for short loops.
#[cfg(target_arch = "x86_64")]
fn level_for(n: usize) -> u8 {
    if n < WIDE_MIN {
        0
    } else {
        wide::level()
    }
}

fn map_dispatch<T: Copy, U>(xs: &[T], out: &mut [U], f: &impl Fn(T) -> U) {
    #[cfg(target_arch = "x86_64")]
    match level_for(xs.len()) {
        // SAFETY: the CPU supports the features each loop is compiled for (checked by `level`).
        2 => return unsafe { wide::map_loop_512(xs, out, f) },
        1 => return unsafe { wide::map_loop(xs, out, f) },
        _ => {}
    }
    map_loop(xs, out, f)
}

/// The widest vector instructions this CPU offers: 2 for AVX-512, 1 for AVX2+FMA, 0 for
/// neither. Fused kernels elsewhere compile `#[inline(always)]` loops once per level under
/// `#[target_feature]` and pick one with this.
pub fn simd_level() -> u8 {
    #[cfg(target_arch = "x86_64")]
    return wide::level();
    #[cfg(not(target_arch = "x86_64"))]
    0
}

fn zip_dispatch<T: Copy, U>(xs: &[T], ys: &[T], out: &mut [U], f: &impl Fn(T, T) -> U) {
    #[cfg(target_arch = "x86_64")]
    match level_for(xs.len()) {
        // SAFETY: as in `map_dispatch`.
        2 => return unsafe { wide::zip_loop_512(xs, ys, out, f) },
        1 => return unsafe { wide::zip_loop(xs, ys, out, f) },
        _ => {}
    }
    zip_loop(xs, ys, out, f)
}

/// Runs `f` compiled for AVX-512 (or AVX2 and FMA) when the CPU has them, so the kernels'
/// loops vectorize wide; `f` should be an `#[inline(always)]` closure, so that it is compiled
/// inside the wide function.
#[inline(always)]
pub fn wide<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
        fn wide512<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        #[target_feature(enable = "avx2,fma")]
        fn wide256<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        match simd_level() {
            // SAFETY: the CPU has the features these functions are compiled for
            2 => return unsafe { wide512(f) },
            1 => return unsafe { wide256(f) },
            _ => {}
        }
    }
    f()
}

/// `fn $name<T: $bound>(args)` running `$head(args)` compiled for AVX-512, AVX2 or the
/// baseline, the widest this CPU has (picked by [`simd_level`]): for kernels whose whole loop
/// must be compiled for wide vectors (a closure handed to `map` is compiled apart, for the
/// baseline, when it is large). `$head` is `#[inline(always)]`.
macro_rules! wide_variants {
    ($(#[$attr:meta])* $vis:vis $name:ident<T: $bound:path>, $head:ident, ($($arg:ident : $ty:ty),*)) => {
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        $vis fn $name<T: $bound>($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
                #[allow(clippy::too_many_arguments)]
                fn wide512<T: $bound>($($arg: $ty),*) {
                    $head($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                #[allow(clippy::too_many_arguments)]
                fn wide256<T: $bound>($($arg: $ty),*) {
                    $head($($arg),*)
                }
                match $crate::cpu::kernels::simd_level() {
                    // SAFETY: the CPU has the features each variant is compiled for
                    2 => return unsafe { wide512($($arg),*) },
                    1 => return unsafe { wide256($($arg),*) },
                    _ => {}
                }
            }
            $head($($arg),*)
        }
    };
}
pub(crate) use wide_variants;

/// Whether `pred` holds for every element of `xs`, vectorized, on one thread.
pub fn all_of<T: Copy>(xs: &[T], pred: impl Fn(T) -> bool) -> bool {
    #[cfg(target_arch = "x86_64")]
    match level_for(xs.len()) {
        // SAFETY: as in `map_dispatch`.
        2 => return unsafe { wide::all_loop_512(xs, &pred) },
        1 => return unsafe { wide::all_loop(xs, &pred) },
        _ => {}
    }
    all_loop(xs, &pred)
}

/// `d[i] = f(d[i], s[i])`, vectorized, on one thread.
fn update_dispatch<T: Copy>(d: &mut [T], s: &[T], f: &impl Fn(T, T) -> T) {
    #[cfg(target_arch = "x86_64")]
    match level_for(d.len()) {
        // SAFETY: as in `map_dispatch`.
        2 => return unsafe { wide::update_loop_512(d, s, f) },
        1 => return unsafe { wide::update_loop(d, s, f) },
        _ => {}
    }
    update_loop(d, s, f)
}

/// `out[i] = f(xs[i])`, vectorized, in parallel chunks for large inputs.
fn map_slice<T: Copy + Sync, U: BufferElement>(xs: &[T], f: &(impl Fn(T) -> U + Sync)) -> Vec<U> {
    map_slice_fixed(xs, f, &|_: &[T], _: &mut [U]| {})
}

/// Elements per block of [`map_fixed`]: the block's input and output are still in L1/L2 when
/// `fix` reads them.
const FIX_BLOCK: usize = 4096;

/// A vector of `n` elements written by `fill`, which gets them as uninitialized memory and must
/// write every one (no zeroing pass first; a large vector may come from the pool).
fn filled<U: BufferElement>(n: usize, fill: impl FnOnce(&mut [MaybeUninit<U>])) -> Vec<U> {
    let mut out = crate::core::pool::with_capacity::<U>(n);
    fill(&mut out.spare_capacity_mut()[..n]);
    // SAFETY: `fill` wrote all `n` elements (its callers' loops cover the whole slice); if it
    // panicked, the length stays 0
    unsafe { out.set_len(n) };
    out
}

/// `out`, fully written, as initialized elements.
///
/// # Safety
/// Every element of `out` must have been written.
unsafe fn assume_init<U>(out: &mut [MaybeUninit<U>]) -> &mut [U] {
    // SAFETY: `MaybeUninit<U>` has `U`'s layout, and the caller vouches for the contents
    unsafe { &mut *(out as *mut [MaybeUninit<U>] as *mut [U]) }
}

/// [`map_slice`], then `fix(xs_block, out_block)` on each block of at most [`FIX_BLOCK`].
fn map_slice_fixed<T: Copy + Sync, U: BufferElement>(
    xs: &[T],
    f: &(impl Fn(T) -> U + Sync),
    fix: &(impl Fn(&[T], &mut [U]) + Sync),
) -> Vec<U> {
    let f = &|v: T| MaybeUninit::new(f(v));
    let run = |x: &[T], o: &mut [MaybeUninit<U>]| {
        if x.len() <= FIX_BLOCK {
            map_dispatch(x, o, f);
            // SAFETY: the map wrote every element
            return fix(x, unsafe { assume_init(o) });
        }
        for (x, o) in x.chunks(FIX_BLOCK).zip(o.chunks_mut(FIX_BLOCK)) {
            map_dispatch(x, o, f);
            // SAFETY: the map wrote every element of the block
            fix(x, unsafe { assume_init(o) });
        }
    };
    filled(xs.len(), |out| {
        if xs.len() < PARALLEL_ELEMENTS {
            return run(xs, out);
        }
        crate::cpu::parallel::for_each_block(out, PARALLEL_ELEMENTS / 4, |at, o| {
            run(&xs[at..at + o.len()], o)
        })
    })
}

/// `out[i] = f(xs[i], ys[i])`, vectorized, in parallel chunks for large inputs.
fn zip_slices<T: Copy + Sync, U: BufferElement>(
    xs: &[T],
    ys: &[T],
    f: &(impl Fn(T, T) -> U + Sync),
) -> Vec<U> {
    assert_eq!(xs.len(), ys.len(), "zip_slices takes slices of one length");
    let f = &|a: T, b: T| MaybeUninit::new(f(a, b));
    filled(xs.len(), |out| {
        if xs.len() < PARALLEL_ELEMENTS {
            return zip_dispatch(xs, ys, out, f);
        }
        crate::cpu::parallel::for_each_block(out, PARALLEL_ELEMENTS / 4, |at, o| {
            let end = at + o.len();
            zip_dispatch(&xs[at..end], &ys[at..end], o, f)
        })
    })
}

/// Applies `f` to every element of `x` (of element type `T`), giving a new tensor laid out as
/// PyTorch lays out an elementwise result (Note [Elementwise output layout]): row-major for a
/// row-major input, the input's own strides for a dense permuted one (read straight from
/// storage, no copy), else dense in the input's stride order.
pub fn map<T: BufferElement, U: BufferElement>(x: &Tensor, f: impl Fn(T) -> U + Sync) -> Tensor {
    map_fixed(x, f, |_: &[T], _: &mut [U]| {})
}

/// [`map`] with a fix-up pass: `fix(inputs, outputs)` runs on each block of a few thousand
/// elements right after `f` did, while both are still in cache (for example to redo the few
/// results a fast approximation cannot give, without a second pass over memory).
pub fn map_fixed<T: BufferElement, U: BufferElement>(
    x: &Tensor,
    f: impl Fn(T) -> U + Sync,
    fix: impl Fn(&[T], &mut [U]) + Sync,
) -> Tensor {
    let (out, strides) = x.read(|data: &[T], layout| {
        if let Some(range) = layout.contiguous_range() {
            return (map_slice_fixed(&data[range], &f, &fix), None);
        }
        if let Some(range) = layout.dense_extent() {
            return (
                map_slice_fixed(&data[range], &f, &fix),
                Some(layout.strides.clone()),
            );
        }
        // neither row-major nor dense: dense in the input's stride order
        match elementwise_strides(&layout.shape, &[layout]) {
            Some(strides) => {
                let values = gather(data, &layout.ordered_by(&strides));
                (map_slice_fixed(&values, &f, &fix), Some(strides))
            }
            None => (map_slice_fixed(&gather(data, layout), &f, &fix), None),
        }
    });
    Tensor::from_vec_strided(out, x.shape(), strides)
}

/// Applies `f` pairwise over the broadcast of `a` and `b` (both of element type `T`), the result
/// laid out as PyTorch lays it out (Note [Elementwise output layout]).
pub fn zip<T: BufferElement, U: BufferElement>(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(T, T) -> U + Sync,
) -> Result<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let (out, strides) = a.read(|da: &[T], la| {
        b.read(|db: &[T], lb| {
            if la.is_contiguous() && lb.is_contiguous() {
                return (zip_layouts(da, la, db, lb, &shape, &f), None);
            }
            // operands dense in one order with one set of strides: straight from storage
            if same_shape(&la.shape, &lb.shape) && la.strides == lb.strides {
                if let (Some(ra), Some(rb)) = (la.dense_extent(), lb.dense_extent()) {
                    let strides = Some(la.strides.clone());
                    return (zip_slices(&da[ra], &db[rb], &f), strides);
                }
            }
            let (ba, bb) = (la.broadcast_to(&shape), lb.broadcast_to(&shape));
            match elementwise_strides(&shape, &[&ba, &bb]) {
                Some(strides) => {
                    let (pa, pb) = (ba.ordered_by(&strides), bb.ordered_by(&strides));
                    let out = zip_layouts(da, &pa, db, &pb, &pa.shape, &f);
                    (out, Some(strides))
                }
                None => (zip_layouts(da, la, db, lb, &shape, &f), None),
            }
        })
    });
    Ok(Tensor::from_vec_strided(out, &shape, strides))
}

/// `f` pairwise over the broadcast `shape` of the layouts `la` over `da` and `lb` over `db`,
/// in row-major order of `shape`.
fn zip_layouts<T: Copy + Sync, U: BufferElement>(
    da: &[T],
    la: &Layout,
    db: &[T],
    lb: &Layout,
    shape: &[usize],
    f: &(impl Fn(T, T) -> U + Sync),
) -> Vec<U> {
    if let (Some(ra), Some(rb)) = (la.contiguous_range(), lb.contiguous_range()) {
        if same_shape(&la.shape, &lb.shape) {
            return zip_slices(&da[ra], &db[rb], f);
        }
        if lb.numel() == 1 && same_shape(&la.shape, shape) {
            let y = db[rb.start];
            return map_slice(&da[ra], &|x| f(x, y));
        }
        if la.numel() == 1 && same_shape(&lb.shape, shape) {
            let x = da[ra.start];
            return map_slice(&db[rb], &|y| f(x, y));
        }
    }
    // one operand full and contiguous, the other a block repeated along leading dims
    // (a bias row): zip row by row, no broadcast copy
    if let Some(out) = zip_rows(da, la, db, lb, shape, f) {
        return out;
    }
    if let Some(out) = zip_rows(db, lb, da, la, shape, &|y, x| f(x, y)) {
        return out;
    }
    // a broadcast scalar (every stride 0, e.g. an expanded 0-d gradient) needs no copy
    let is_scalar = |l: &Layout| l.strides.iter().all(|&s| s == 0);
    match (is_scalar(la), is_scalar(lb), lb.contiguous_range()) {
        (true, _, Some(rb)) if same_shape(&lb.shape, shape) => {
            let x = da[la.offset];
            return map_slice(&db[rb], &|y| f(x, y));
        }
        (_, true, _) if same_shape(&la.shape, shape) && la.is_contiguous() => {
            let y = db[lb.offset];
            let ra = la.contiguous_range().expect("contiguous");
            return map_slice(&da[ra], &|x| f(x, y));
        }
        _ => {}
    }
    if let Some(out) = zip_broadcast_rows(da, la, db, lb, shape, f) {
        return out;
    }
    let xs = gather(da, &la.broadcast_to(shape));
    let ys = gather(db, &lb.broadcast_to(shape));
    zip_slices(&xs, &ys, f)
}

/// `f(a, b)` over the broadcast `shape` row by row (the last dimension), when each operand steps
/// along that dimension by 1 or 0 (an outer product `[m, 1] * [n]`, a column plus a row): the
/// rows' starting offsets advance like an odometer and each row is one tight loop. `None` when
/// an operand steps otherwise.
fn zip_broadcast_rows<T: Copy + Sync, U: BufferElement>(
    da: &[T],
    la: &Layout,
    db: &[T],
    lb: &Layout,
    shape: &[usize],
    f: &(impl Fn(T, T) -> U + Sync),
) -> Option<Vec<U>> {
    let (Some(&width), true) = (shape.last(), shape.len() >= 2) else {
        return None;
    };
    let (ba, bb) = (la.broadcast_to(shape), lb.broadcast_to(shape));
    let last = shape.len() - 1;
    let (sa, sb) = (ba.strides[last], bb.strides[last]);
    if !(0..=1).contains(&sa) || !(0..=1).contains(&sb) || width == 0 {
        return None;
    }
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut index = vec![0usize; last];
    let (mut oa, mut ob) = (ba.offset as isize, bb.offset as isize);
    for _ in 0..n / width {
        let (ra, rb) = (oa as usize, ob as usize);
        match (sa, sb) {
            (1, 1) => out.extend(
                da[ra..ra + width]
                    .iter()
                    .zip(&db[rb..rb + width])
                    .map(|(&x, &y)| f(x, y)),
            ),
            (1, 0) => out.extend(da[ra..ra + width].iter().map(|&x| f(x, db[rb]))),
            (0, 1) => out.extend(db[rb..rb + width].iter().map(|&y| f(da[ra], y))),
            _ => out.extend(std::iter::repeat_n(f(da[ra], db[rb]), width)),
        }
        // the next row: advance the leading index like an odometer
        for d in (0..last).rev() {
            index[d] += 1;
            oa += ba.strides[d];
            ob += bb.strides[d];
            if index[d] < shape[d] {
                break;
            }
            oa -= ba.strides[d] * shape[d] as isize;
            ob -= bb.strides[d] * shape[d] as isize;
            index[d] = 0;
        }
    }
    Some(out)
}

/// `f(full[i], block[i mod block_len])` when `full` is contiguous with the output's shape and
/// `block`, broadcast to that shape, is one contiguous block repeated along the leading
/// dimensions; `None` otherwise.
fn zip_rows<T: Copy + Sync, U: BufferElement>(
    full: &[T],
    lf: &Layout,
    block: &[T],
    lb: &Layout,
    shape: &[usize],
    f: &(impl Fn(T, T) -> U + Sync),
) -> Option<Vec<U>> {
    if lf.shape.as_slice() != shape || lb.shape.as_slice() == shape {
        return None;
    }
    let skip = lb.shape.iter().take_while(|&&s| s == 1).count();
    let tail = &lb.shape[skip..];
    if tail.is_empty() || tail.len() > shape.len() || tail != &shape[shape.len() - tail.len()..] {
        return None;
    }
    let inner: usize = tail.iter().product();
    if inner < 16 {
        // short rows: one dispatch per row would cost more than the generic path
        return None;
    }
    let (full, block) = (
        &full[lf.contiguous_range()?],
        &block[lb.contiguous_range()?],
    );
    let mut out = crate::core::pool::buffer::<U>(full.len());
    for (o, x) in out.chunks_exact_mut(inner).zip(full.chunks_exact(inner)) {
        zip_dispatch(x, block, o, f);
    }
    Some(out)
}

/// Element type marker used by generic kernels.
pub trait Kernel: BufferElement + Element {}
impl<T: BufferElement + Element> Kernel for T {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_sums_and_maxima_cover_every_element() {
        for len in [0usize, 1, 15, 16, 17, 64, 100] {
            let xs: Vec<f64> = (0..len).map(|i| ((i * 7) % 11) as f64 - 3.0).collect();
            assert_eq!(lane_sum(&xs), xs.iter().sum::<f64>(), "sum of {len}");
            let max = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(lane_max(&xs), max, "max of {len}");
        }
        let mut xs = vec![1.0f32; 40];
        xs[33] = f32::NAN;
        assert!(lane_max(&xs).is_nan());
    }

    #[test]
    fn zip_broadcasts_and_sums_reduce() {
        let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let b = Tensor::from_vec(vec![10.0f32, 20.0, 30.0], &[3]).unwrap();
        let c = zip(&a, &b, |x: f32, y: f32| x + y).unwrap();
        assert_eq!(
            c.to_vec::<f32>().unwrap(),
            vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]
        );
        let s = sum_dims::<f32>(&a, &[true, false]);
        assert_eq!(s.shape(), &[1, 3]);
        assert_eq!(s.to_vec::<f32>().unwrap(), vec![5.0, 7.0, 9.0]);
        let s = sum_dims::<f32>(&a, &[false, true]);
        assert_eq!(s.to_vec::<f32>().unwrap(), vec![6.0, 15.0]);
    }

    #[test]
    fn row_broadcasts_and_leading_sums_match_the_general_walk() {
        // rows of 40 (long enough for the row paths), against a strided copy that takes the
        // general paths
        let (rows, cols) = (5usize, 40usize);
        let a_vals: Vec<f32> = (0..rows * cols).map(|i| (i as f32 * 0.37).sin()).collect();
        let a = Tensor::from_vec(a_vals.clone(), &[rows, cols]).unwrap();
        let bias =
            Tensor::from_vec((0..cols).map(|j| j as f32 - 7.5).collect(), &[1, cols]).unwrap();
        let transposed: Vec<f32> = (0..rows * cols)
            .map(|q| a_vals[(q % rows) * cols + q / rows])
            .collect();
        let a_strided = Tensor::from_vec(transposed, &[cols, rows])
            .unwrap()
            .t()
            .unwrap();
        for (x, y) in [(&a, &bias), (&bias, &a)] {
            let got = zip(x, y, |p: f32, q: f32| p - 2.0 * q).unwrap();
            assert_eq!(got.shape(), &[rows, cols]);
            for (k, v) in got.to_vec::<f32>().unwrap().into_iter().enumerate() {
                let (i, j) = (k / cols, k % cols);
                let (av, bv) = (a.to_vec::<f32>().unwrap()[k], j as f32 - 7.5);
                let want = if x.same(&a) {
                    av - 2.0 * bv
                } else {
                    bv - 2.0 * av
                };
                assert_eq!(v, want, "({i}, {j})");
            }
        }
        let values = a.to_vec::<f32>().unwrap();
        let mut want = vec![0.0f32; cols];
        for (k, v) in values.iter().enumerate() {
            want[k % cols] += v; // row order, as the general walk adds
        }
        let fast = sum_dims::<f32>(&a, &[true, false]).to_vec::<f32>().unwrap();
        let strided = sum_dims::<f32>(&a_strided, &[true, false])
            .to_vec::<f32>()
            .unwrap();
        assert_eq!(fast, want);
        assert_eq!(
            strided, want,
            "the same values through the general (strided) walk"
        );
    }

    #[test]
    fn pairwise_sum_is_accurate() {
        let xs = vec![0.1f32; 1 << 20];
        let s = pairwise_sum(&xs);
        // a naive running sum drifts by about 4% here; pairwise stays within a few ulps
        assert!((s as f64 - 104857.601_562_5).abs() / 104857.6 < 4e-6, "{s}");
    }
}
