//! Kernels that move elements: dtype casts, concatenation, and writes into an existing tensor
//! (copies, accumulation, in-place updates, fills).

use super::{all_of, map, update_dispatch, FIX_BLOCK, PARALLEL_ELEMENTS};
use crate::core::buffer::BufferElement;
use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use crate::core::layout::{gather, same_shape, Layout};
use crate::core::tensor::Tensor;
use crate::with_any;

/// A copy of `x` with elements converted to `dtype` (no autograd; same tensor back if already `dtype`).
pub fn cast(x: &Tensor, dtype: DType) -> Tensor {
    cast_ref(x, dtype).into_owned()
}

/// `x` itself when it already has `dtype` (no handle clone), else a converted copy.
pub fn cast_ref(x: &Tensor, dtype: DType) -> std::borrow::Cow<'_, Tensor> {
    if x.dtype() == dtype {
        return std::borrow::Cow::Borrowed(x);
    }
    let out = match x.dtype() {
        DType::Float32 => with_any!(dtype, D => map(x, |v: f32| D::cast_from_f64(f64::from(v)))),
        DType::Float64 => with_any!(dtype, D => map(x, |v: f64| D::cast_from_f64(v))),
        _ => {
            with_any!(x.dtype(), S => with_any!(dtype, D => map(x, |v: S| D::from_i64(v.to_i64()))))
        }
    };
    std::borrow::Cow::Owned(out)
}

/// `parts` (of one dtype `T`, each `(outer, n_i, inner)` in row-major order, any layout)
/// concatenated along their middle dim: each of the `outer` output rows of `Σ n_i · inner`
/// elements is the
/// parts' blocks copied in turn, contiguous parts read in place (no zero fill, no staging
/// copy), rows split over the threads when the result is large.
pub fn cat_along<T: BufferElement + Default>(parts: &[Tensor], outer: usize) -> Vec<T> {
    let guards: Vec<_> = parts.iter().map(|t| t.storage().read()).collect();
    let sources: Vec<std::borrow::Cow<'_, [T]>> = parts
        .iter()
        .zip(&guards)
        .map(|(t, guard)| {
            let data = guard.as_slice::<T>();
            match t.layout().contiguous_range() {
                Some(range) => std::borrow::Cow::Borrowed(&data[range]),
                None => std::borrow::Cow::Owned(gather(data, t.layout())),
            }
        })
        .collect();
    let blocks: Vec<usize> = sources.iter().map(|s| s.len() / outer.max(1)).collect();
    let row: usize = blocks.iter().sum();
    let mut out = crate::core::pool::buffer::<T>(outer * row);
    if row == 0 {
        return out;
    }
    let fill = |first: usize, rows: &mut [T]| {
        for (k, dst) in rows.chunks_exact_mut(row).enumerate() {
            let mut at = 0;
            for (src, &len) in sources.iter().zip(&blocks) {
                dst[at..at + len].copy_from_slice(&src[(first + k) * len..][..len]);
                at += len;
            }
        }
    };
    if out.len() >= PARALLEL_ELEMENTS && outer > 1 {
        let per_task = outer
            .div_ceil(crate::cpu::parallel::num_threads() * 4)
            .max(1);
        crate::cpu::parallel::for_each_block(&mut out, per_task * row, |at, rows| {
            fill(at / row, rows)
        });
    } else {
        fill(0, &mut out);
    }
    out
}

/// Writes `src` (same shape as `dst`, any dtype) into `dst`'s elements, converting; bumps nothing.
pub fn write_into(dst: &Tensor, src: &Tensor) {
    let src = cast_ref(src, dst.dtype());
    with_any!(dst.dtype(), T => {
        let values: Vec<T> = src.read(gather);
        let mut guard = dst.storage().write();
        for_each_run(guard.as_mut_slice::<T>(), dst.layout(), &values, |d, v| {
            d.copy_from_slice(v)
        });
    })
}

/// Calls `f(run, values)` on `layout`'s elements of `data` in row-major order, a run of
/// contiguous elements at a time (all of them, rows of the innermost dimension, or single
/// elements), with the matching run of `values` (one value per element).
fn for_each_run<T>(data: &mut [T], layout: &Layout, values: &[T], f: impl Fn(&mut [T], &[T])) {
    if let Some(range) = layout.contiguous_range() {
        return f(&mut data[range], values);
    }
    let nd = layout.ndim();
    let (inner, step) = if layout.strides[nd - 1] == 1 {
        (layout.shape[nd - 1], nd - 1)
    } else {
        (1, nd)
    };
    let runs = Layout {
        shape: layout.shape[..step].into(),
        strides: layout.strides[..step].into(),
        offset: layout.offset,
    };
    let mut from = values.chunks_exact(inner.max(1));
    runs.for_each_offset(|p| {
        if let Some(run) = from.next() {
            f(&mut data[p..p + inner], run);
        }
    });
}

/// `dst = src` for contiguous tensors of one shape and dtype in different storages (memcpy
/// blocks, in parallel when large), without autograd; bumps nothing. Returns false, touching
/// nothing, when that does not hold.
pub fn copy_contiguous(dst: &Tensor, src: &Tensor) -> bool {
    with_any!(dst.dtype(), T => update_into(dst, src, |d: &mut [T], s: &[T]| d.copy_from_slice(s)))
}

/// `dst += src` elementwise (same shape) under one write lock, without autograd; bumps nothing.
pub fn add_into(dst: &Tensor, src: &Tensor) -> Result<()> {
    // contiguous, same dtype and shape, different storages: straight, no copy of `src`
    if crate::with_num!(dst.dtype(), T => zip_into(dst, src, |a: T, b: T| a + b)) {
        return Ok(());
    }
    let src = cast_ref(src, dst.dtype());
    crate::with_num!(dst.dtype(), T => {
        let values: Vec<T> = src.read(gather);
        let mut guard = dst.storage().write();
        for_each_run(guard.as_mut_slice::<T>(), dst.layout(), &values, |d, v| {
            d.iter_mut().zip(v).for_each(|(d, &v)| *d += v)
        });
    });
    Ok(())
}

/// `dst[i, :] += row` for every row of a contiguous 2-D `dst` and a contiguous 1-D `row` of its
/// width, same element type, different storages (a bias added to a product). Returns false,
/// touching nothing, when that does not hold. Bumps no version.
pub fn add_row_into(dst: &Tensor, row: &Tensor) -> bool {
    let (ds, rs) = (dst.storage(), row.storage());
    let fits = dst.dim() == 2
        && row.dim() == 1
        && row.shape()[0] == dst.shape()[1]
        && dst.dtype() == row.dtype()
        && !crate::core::storage::Storage::same_elements(ds, rs);
    let (Some(rd), Some(rr), true) = (
        dst.layout().contiguous_range(),
        row.layout().contiguous_range(),
        fits,
    ) else {
        return false;
    };
    fn add<T: BufferElement + std::ops::AddAssign>(
        dst: &crate::core::storage::Storage,
        row: &crate::core::storage::Storage,
        (rd, rr): (std::ops::Range<usize>, std::ops::Range<usize>),
    ) {
        let width = rr.len().max(1);
        let r = row.read();
        let r = &r.as_slice::<T>()[rr];
        let mut d = dst.write();
        for line in d.as_mut_slice::<T>()[rd].chunks_mut(width) {
            line.iter_mut().zip(r).for_each(|(d, &b)| *d += b);
        }
    }
    match dst.dtype() {
        DType::Float32 => add::<f32>(ds, rs, (rd, rr)),
        DType::Float64 => add::<f64>(ds, rs, (rd, rr)),
        DType::Int64 => add::<i64>(ds, rs, (rd, rr)),
        _ => return false,
    }
    true
}

/// `dst[i] = f(dst[i], src[i])` straight between two contiguous tensors of the same shape and
/// element type in different storages (vectorized, parallel when large). Returns false,
/// touching nothing, when that does not hold. Locks are taken in address order, so two threads
/// writing in opposite directions cannot deadlock. Bumps no version.
pub fn zip_into<T: BufferElement>(
    dst: &Tensor,
    src: &Tensor,
    f: impl Fn(T, T) -> T + Sync,
) -> bool {
    update_into(dst, src, |d: &mut [T], s: &[T]| update_dispatch(d, s, &f))
}

/// [`zip_into`] with a fast `f` that is accurate only where `ok(src[i])`: each block of a few
/// thousand elements holding an element outside that range takes `exact` for those elements
/// (as [`super::map_fixed`] does for one input).
pub fn zip_into_guarded<T: BufferElement>(
    dst: &Tensor,
    src: &Tensor,
    f: impl Fn(T, T) -> T + Sync,
    exact: impl Fn(T, T) -> T + Sync,
    ok: impl Fn(T) -> bool + Sync,
) -> bool {
    update_into(dst, src, |d: &mut [T], s: &[T]| {
        for (d, s) in d.chunks_mut(FIX_BLOCK).zip(s.chunks(FIX_BLOCK)) {
            if all_of(s, &ok) {
                update_dispatch(d, s, &f);
            } else {
                for (d, &s) in d.iter_mut().zip(s) {
                    *d = if ok(s) { f(*d, s) } else { exact(*d, s) };
                }
            }
        }
    })
}

/// Runs `update(dst_block, src_block)` over two contiguous tensors of the same shape and
/// element type in different storages, in parallel blocks when large (see [`zip_into`]).
fn update_into<T: BufferElement>(
    dst: &Tensor,
    src: &Tensor,
    update: impl Fn(&mut [T], &[T]) + Sync,
) -> bool {
    let (ds, ss) = (dst.storage(), src.storage());
    // (a wrapper tensor has no elements: its ops are computed by its class)
    let applies = !ds.is_elementless()
        && !ss.is_elementless()
        && dst.dtype() == T::DTYPE
        && src.dtype() == T::DTYPE
        && same_shape(dst.shape(), src.shape())
        && !crate::core::storage::Storage::same_elements(ds, ss);
    let (Some(rd), Some(rs), true) = (
        dst.layout().contiguous_range(),
        src.layout().contiguous_range(),
        applies,
    ) else {
        return false;
    };
    let apply = |d: &mut [T], s: &[T]| {
        let d = &mut d[rd.clone()];
        let s = &s[rs.clone()];
        // two storages may hold the same memory (two `from_numpy` of one array): then the
        // element-wise update would read what it writes, so the callers' general path runs
        // instead (checked here, under the locks already taken: a lock costs a small op's time)
        let (dp, sp) = (d.as_ptr() as usize, s.as_ptr() as usize);
        let bytes = std::mem::size_of_val(d);
        if dp < sp + bytes && sp < dp + bytes {
            return false;
        }
        if d.len() < PARALLEL_ELEMENTS {
            update(d, s);
            return true;
        }
        crate::cpu::parallel::for_each_block(d, PARALLEL_ELEMENTS / 4, |at, d| {
            update(d, &s[at..at + d.len()])
        });
        true
    };
    if ds.lock_key() < ss.lock_key() {
        let mut d = ds.write();
        apply(d.as_mut_slice(), ss.read().as_slice())
    } else {
        let s = ss.read();
        apply(ds.write().as_mut_slice(), s.as_slice())
    }
}

/// Sets every element of `dst` from `f(position)` (row-major position), with the write lock held.
pub fn fill_with<T: BufferElement>(dst: &Tensor, mut f: impl FnMut() -> T) {
    let mut guard = dst.storage().write();
    let data = guard.as_mut_slice::<T>();
    dst.layout().for_each_offset(|p| data[p] = f());
}
