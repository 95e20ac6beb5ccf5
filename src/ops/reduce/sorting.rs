//! Sorting and selection along a dimension: `sort`, `argsort`, `topk`, `kthvalue`, `median`,
//! `mode`, and `unique`. NaN counts as larger than every number, as in PyTorch. Ties come out
//! in PyTorch's order (see the `stl` module). The values' gradient goes back to the selected
//! indices (`value_selecting_reduction_backward`); the whole-tensor `median` shares it among
//! the elements equal to the result.

use crate::autograd::{is_recording, record, Save};
use crate::core::buffer::BufferElement;
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_dim;
use crate::core::tensor::Tensor;
use crate::cpu::kernels::lane_geometry;
use crate::ops::reduce::stl;
use crate::with_any;
use std::cmp::Ordering;

/// NaN test that works for every element type (only floats are ever unequal to themselves).
#[allow(clippy::eq_op)]
fn is_nan<T: PartialEq>(v: &T) -> bool {
    v != v
}

/// `a < b` (false whenever a NaN is involved): `mode`'s plain comparison.
fn less_than<T: PartialOrd>(a: &T, b: &T) -> bool {
    a < b
}

/// `a` comes before `b` in ascending order, NaN last (PyTorch's `KeyValueCompAsc`).
fn asc<T: PartialOrd>(a: &T, b: &T) -> bool {
    (!is_nan(a) && is_nan(b)) || a < b
}

/// `a` comes before `b` in descending order, NaN first.
fn desc<T: PartialOrd>(a: &T, b: &T) -> bool {
    (is_nan(a) && !is_nan(b)) || a > b
}

/// The lanes of `x` along `d` (a 0-d tensor is one lane of one element): its elements in
/// row-major order and `(outer, n, inner)`.
fn lanes<T: BufferElement + Copy>(x: &Tensor, d: usize) -> Result<(Vec<T>, usize, usize, usize)> {
    let data: Vec<T> = x.to_vec()?;
    let (outer, n, inner) = lane_geometry(x.shape(), d);
    Ok((data, outer, n, inner))
}

/// Runs `f` on each lane of `x` along `d`; `f` writes `width` values and indices, which become
/// tensors of `x`'s shape with `d` of size `width` (0-d stays 0-d).
fn select_lanes<T: BufferElement + Copy + Default>(
    x: &Tensor,
    d: usize,
    width: usize,
    mut f: impl FnMut(&[T], &mut [T], &mut [i64]),
) -> Result<(Tensor, Tensor)> {
    let (data, outer, n, inner) = lanes::<T>(x, d)?;
    let mut shape = x.shape().to_vec();
    if !shape.is_empty() {
        shape[d] = width;
    }
    let total = outer * width * inner;
    let (mut values, mut indices) = (vec![T::default(); total], vec![0i64; total]);
    let (mut lane, mut lv, mut li) = (
        Vec::with_capacity(n),
        vec![T::default(); width],
        vec![0i64; width],
    );
    for o in 0..outer {
        for k in 0..inner {
            lane.clear();
            lane.extend((0..n).map(|i| data[(o * n + i) * inner + k]));
            f(&lane, &mut lv, &mut li);
            for j in 0..width {
                values[(o * width + j) * inner + k] = lv[j];
                indices[(o * width + j) * inner + k] = li[j];
            }
        }
    }
    Ok((
        Tensor::from_vec(values, &shape)?,
        Tensor::from_vec(indices, &shape)?,
    ))
}

/// The gradient of values selected from `shape` at `indices` along `d`: `g` scattered onto
/// zeros (`g` and `indices` unsqueezed first when the reduction dropped `d`).
fn selected_backward(
    g: &Tensor,
    indices: &Tensor,
    shape: &[usize],
    d: usize,
    keepdim: bool,
) -> Result<Tensor> {
    if shape.is_empty() {
        return g.reshape(&[]);
    }
    let (g, idx) = if keepdim {
        (g.clone(), indices.clone())
    } else {
        (g.unsqueeze(d as isize)?, indices.unsqueeze(d as isize)?)
    };
    Tensor::zeros(shape, g.dtype()).scatter_add(d as isize, &idx, &g)
}

/// Records `values` (selected from `x` at `indices` along `d`) under `node`.
fn record_selection(
    x: &Tensor,
    values: Tensor,
    indices: &Tensor,
    d: usize,
    keepdim: bool,
    node: &'static str,
) -> Tensor {
    if !is_recording(&[x]) || !x.dtype().is_floating_point() {
        return values;
    }
    let (shape, idx) = (x.shape().to_vec(), indices.clone());
    record(values, node, &[x], &[Save::Tensor(indices)], move |ctx| {
        Ok(vec![Some(selected_backward(
            ctx.grad(0),
            &idx,
            &shape,
            d,
            keepdim,
        )?)])
    })
}

/// Drops dimension `d` of a keepdim-shaped result (a 0-d input stays 0-d).
fn drop_dim(t: Tensor, d: usize, input_dim: usize) -> Result<Tensor> {
    if input_dim == 0 {
        return Ok(t);
    }
    let mut shape: Vec<isize> = t.shape().iter().map(|&s| s as isize).collect();
    shape.remove(d);
    Ok(t.reshape(&shape)?.unviewed())
}

/// PyTorch's error for a reduction over an empty dimension.
fn empty_dim(name: &str, x: &Tensor, d: usize) -> Result<()> {
    if x.dim() > 0 && x.shape()[d] == 0 {
        return Err(Error::index(format!(
            "{name}(): Expected reduction dim {d} to have non-zero size."
        )));
    }
    Ok(())
}

impl Tensor {
    /// `(values, indices)` sorted along `dim`; `stable` keeps equal elements in their order
    /// (PyTorch's `SortBackward1` when `stable` is given, `SortBackward0` otherwise).
    pub fn sort(
        &self,
        dim: isize,
        descending: bool,
        stable: Option<bool>,
    ) -> Result<(Tensor, Tensor)> {
        let d = normalize_dim(dim, self.dim())?;
        let keep_order = stable.unwrap_or(false);
        let (values, indices) = with_any!(self.dtype(), T => {
            let n = self.shape().get(d).copied().unwrap_or(1);
            select_lanes::<T>(self, d, n, |lane, out, idx| {
                let mut q: Vec<(T, i64)> = lane.iter().enumerate().map(|(i, &v)| (v, i as i64)).collect();
                let before = |a: &(T, i64), b: &(T, i64)| if descending { desc(&a.0, &b.0) } else { asc(&a.0, &b.0) };
                if keep_order {
                    q.sort_by(|a, b| if before(a, b) { Ordering::Less } else if before(b, a) { Ordering::Greater } else { Ordering::Equal });
                } else {
                    let len = q.len();
                    stl::sort(&mut q, len, &before);
                }
                for (j, (v, i)) in q.into_iter().enumerate() {
                    out[j] = v;
                    idx[j] = i;
                }
            })?
        });
        let node = if stable.is_some() {
            "SortBackward1"
        } else {
            "SortBackward0"
        };
        let values = record_selection(self, values, &indices, d, true, node);
        Ok((values, indices))
    }

    /// The indices that sort along `dim` (no gradient).
    pub fn argsort(&self, dim: isize, descending: bool, stable: bool) -> Result<Tensor> {
        Ok(self.detach().sort(dim, descending, Some(stable))?.1)
    }

    /// The `k` largest (or smallest) elements along `dim` and their indices, in order when
    /// `sorted` (PyTorch's selection: `partial_sort` when `k` is small, else `nth_element`).
    pub fn topk(
        &self,
        k: i64,
        dim: isize,
        largest: bool,
        sorted: bool,
    ) -> Result<(Tensor, Tensor)> {
        let d = normalize_dim(dim, self.dim())?;
        let n = self.shape().get(d).copied().unwrap_or(1);
        if k < 0 || k as usize > n {
            return Err(Error::runtime("selected index k out of range"));
        }
        let k = k as usize;
        let (values, indices) = with_any!(self.dtype(), T => {
            select_lanes::<T>(self, d, k, |lane, out, idx| {
                if k == 0 {
                    return;
                }
                let mut q: Vec<(T, i64)> = lane.iter().enumerate().map(|(i, &v)| (v, i as i64)).collect();
                let before = |a: &(T, i64), b: &(T, i64)| if largest { desc(&a.0, &b.0) } else { asc(&a.0, &b.0) };
                if k * 64 <= n {
                    stl::partial_sort(&mut q, k, &before);
                } else {
                    stl::nth_element(&mut q, k - 1, &before);
                    if sorted {
                        stl::sort(&mut q, k - 1, &before);
                    }
                }
                for j in 0..k {
                    out[j] = q[j].0;
                    idx[j] = q[j].1;
                }
            })?
        });
        let values = record_selection(self, values, &indices, d, true, "TopkBackward0");
        Ok((values, indices))
    }

    /// The `k`-th smallest element along `dim` (1-based) and its index.
    pub fn kthvalue(&self, k: i64, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let d = normalize_dim(dim, self.dim())?;
        empty_dim("kthvalue", self, d)?;
        let n = self.shape().get(d).copied().unwrap_or(1);
        if k < 1 || k as usize > n {
            return Err(Error::runtime(format!(
                "kthvalue(): selected number k out of range for dimension {d}"
            )));
        }
        let rank = k as usize - 1;
        let (values, indices) = with_any!(self.dtype(), T => {
            select_lanes::<T>(self, d, 1, |lane, out, idx| {
                let mut q: Vec<(T, i64)> = lane.iter().enumerate().map(|(i, &v)| (v, i as i64)).collect();
                stl::quick_select(&mut q, rank, &|a: &(T, i64), b: &(T, i64)| desc(&a.0, &b.0));
                out[0] = q[rank].0;
                idx[0] = q[rank].1;
            })?
        });
        self.finish_reduction(values, indices, d, keepdim, "KthvalueBackward0")
    }

    /// The lower median along `dim` and its index: the element of rank `(n - 1) / 2` with
    /// ties ordered by index; a lane holding NaN gives its first NaN.
    pub fn median_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let d = normalize_dim(dim, self.dim())?;
        empty_dim("median", self, d)?;
        let (values, indices) = with_any!(self.dtype(), T => {
            select_lanes::<T>(self, d, 1, |lane, out, idx| {
                if let Some(i) = lane.iter().position(is_nan) {
                    out[0] = lane[i];
                    idx[0] = i as i64;
                    return;
                }
                let mut order: Vec<usize> = (0..lane.len()).collect();
                order.sort_by(|&a, &b| lane[a].partial_cmp(&lane[b]).unwrap_or(Ordering::Equal).then(a.cmp(&b)));
                let pick = order[(lane.len() - 1) / 2];
                out[0] = lane[pick];
                idx[0] = pick as i64;
            })?
        });
        self.finish_reduction(values, indices, d, keepdim, "MedianBackward1")
    }

    /// The lower median of all elements (NaN if there is one; NaN for no elements); the
    /// gradient is shared among the elements equal to it.
    pub fn median(&self) -> Result<Tensor> {
        self.median_of_all(false, "MedianBackward0")
    }

    /// The lower median of the non-NaN elements along `dim` and its index (NaN where a lane
    /// holds only NaN): the element PyTorch's `std::nth_element` puts at rank
    /// `(n - nans - 1) / 2`, ordering by value then index with NaN last.
    pub fn nanmedian_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let d = normalize_dim(dim, self.dim())?;
        empty_dim("nanmedian", self, d)?;
        let (values, indices) = with_any!(self.dtype(), T => {
            select_lanes::<T>(self, d, 1, |lane, out, idx| {
                let nans = lane.iter().filter(|v| is_nan(*v)).count();
                // (C++'s division truncates toward zero, as Rust's: -1 / 2 is rank 0)
                let rank = ((lane.len() - nans) as i64 - 1) / 2;
                let mut order: Vec<usize> = (0..lane.len()).collect();
                let before = |&i: &usize, &j: &usize| {
                    lane[i].partial_cmp(&lane[j]) == Some(Ordering::Less)
                        || (lane[i] == lane[j] && i < j)
                        || (is_nan(&lane[j]) && !is_nan(&lane[i]))
                };
                stl::nth_element(&mut order, rank as usize, &before);
                let pick = order[rank as usize];
                out[0] = lane[pick];
                idx[0] = pick as i64;
            })?
        });
        self.finish_reduction(values, indices, d, keepdim, "NanmedianBackward1")
    }

    /// The lower median of the non-NaN elements (NaN when there is none); the gradient is
    /// shared among the elements equal to it (among the NaNs when it is NaN).
    pub fn nanmedian(&self) -> Result<Tensor> {
        self.median_of_all(true, "NanmedianBackward0")
    }

    /// The lower median of all elements, or of the non-NaN ones when `skip_nan` (else a NaN
    /// wins); NaN for none (the lowest integer for an integer tensor). Node `name` shares
    /// the gradient among the elements equal to the result.
    fn median_of_all(&self, skip_nan: bool, name: &'static str) -> Result<Tensor> {
        let out = with_any!(self.dtype(), T => {
            let mut data: Vec<T> = self.to_vec()?;
            if skip_nan {
                data.retain(|v| !is_nan(v));
            }
            let value = if data.is_empty() {
                T::from_f64(if self.dtype().is_floating_point() { f64::NAN } else { i64::MIN as f64 })
            } else if let Some(nan) = data.iter().find(|v| is_nan(*v)) {
                *nan
            } else {
                data.sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
                data[(data.len() - 1) / 2]
            };
            Tensor::from_vec(vec![value], &[])?
        });
        if !is_recording(&[self]) || !self.dtype().is_floating_point() {
            return Ok(out);
        }
        Ok(record(
            out,
            name,
            &[self],
            &[Save::Tensor(self), Save::Output],
            |ctx| {
                let (g, x, y) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
                Ok(vec![Some(evenly_distribute(g, x, y)?)])
            },
        ))
    }

    /// The most frequent value along `dim` (the smallest of equally frequent ones) and the
    /// index PyTorch gives it (the last of its run after its unstable sort).
    pub fn mode(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let d = normalize_dim(dim, self.dim())?;
        empty_dim("mode", self, d)?;
        let (values, indices) = with_any!(self.dtype(), T => {
            select_lanes::<T>(self, d, 1, |lane, out, idx| {
                let mut q: Vec<(T, i64)> = lane.iter().enumerate().map(|(i, &v)| (v, i as i64)).collect();
                let len = q.len();
                stl::sort(&mut q, len, &|a: &(T, i64), b: &(T, i64)| less_than(&a.0, &b.0));
                let (mut best, mut run) = (0usize, 0usize);
                for i in 0..len {
                    run += 1;
                    if i == len - 1 || q[i].0 != q[i + 1].0 {
                        if run > best {
                            best = run;
                            out[0] = q[i].0;
                            idx[0] = q[i].1;
                        }
                        run = 0;
                    }
                }
            })?
        });
        self.finish_reduction(values, indices, d, keepdim, "ModeBackward0")
    }

    /// Drops `d` unless `keepdim` and records the values' node.
    fn finish_reduction(
        &self,
        values: Tensor,
        indices: Tensor,
        d: usize,
        keepdim: bool,
        node: &'static str,
    ) -> Result<(Tensor, Tensor)> {
        let (values, indices) = if keepdim {
            (values, indices)
        } else {
            (
                drop_dim(values, d, self.dim())?,
                drop_dim(indices, d, self.dim())?,
            )
        };
        let values = record_selection(self, values, &indices, d, keepdim, node);
        Ok((values, indices))
    }

    /// The distinct elements in ascending order (NaNs each distinct, last), with the index of
    /// each input element's value among them (`inverse`, the input's shape) and how often each
    /// occurs (`counts`). With `dim`, the distinct slices along `dim`, in lexicographic order.
    pub fn unique(&self, dim: Option<isize>) -> Result<(Tensor, Tensor, Tensor)> {
        let (values, inverse, counts) = match dim {
            None => with_any!(self.dtype(), T => unique_flat::<T>(self)?),
            Some(dim) => {
                if self.dim() == 0 {
                    return Err(Error::index(format!(
                        "Dimension specified as {dim} but tensor has no dimensions"
                    )));
                }
                let d = normalize_dim(dim, self.dim())?;
                with_any!(self.dtype(), T => unique_slices::<T>(self, d)?)
            }
        };
        if !is_recording(&[self]) {
            return Ok((values, inverse, counts));
        }
        let (node, op) = match dim {
            None => ("Unique2Backward0", "_unique2"),
            Some(_) => ("UniqueDimBackward0", "unique_dim"),
        };
        let values = record(values, node, &[self], &[], move |_| {
            Err(Error::not_implemented(format!(
                "the derivative for '{op}' is not implemented."
            )))
        });
        Ok((values, inverse, counts))
    }
}

/// `torch.unique` of all elements.
fn unique_flat<T: BufferElement + Element + Copy>(x: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
    let data: Vec<T> = x.to_vec()?;
    let mut order: Vec<usize> = (0..data.len()).collect();
    order.sort_by(|&a, &b| {
        if asc(&data[a], &data[b]) {
            Ordering::Less
        } else if asc(&data[b], &data[a]) {
            Ordering::Greater
        } else {
            a.cmp(&b)
        }
    });
    let (mut values, mut counts) = (Vec::<T>::new(), Vec::<i64>::new());
    let mut inverse = vec![0i64; data.len()];
    for (pos, &i) in order.iter().enumerate() {
        let same = pos > 0 && data[order[pos - 1]] == data[i];
        if !same {
            values.push(data[i]);
            counts.push(0);
        }
        *counts.last_mut().expect("pushed") += 1;
        inverse[i] = values.len() as i64 - 1;
    }
    let n = values.len();
    Ok((
        Tensor::from_vec(values, &[n])?,
        Tensor::from_vec(inverse, x.shape())?,
        Tensor::from_vec(counts, &[n])?,
    ))
}

/// `torch.unique(dim=d)`: the distinct slices along `d`, sorted lexicographically.
fn unique_slices<T: BufferElement + Element + Copy>(
    x: &Tensor,
    d: usize,
) -> Result<(Tensor, Tensor, Tensor)> {
    let (data, outer, n, inner) = lanes::<T>(x, d)?;
    let slice = |i: usize| -> Vec<T> {
        (0..outer)
            .flat_map(|o| (0..inner).map(move |k| (o, k)))
            .map(|(o, k)| data[(o * n + i) * inner + k])
            .collect()
    };
    let slices: Vec<Vec<T>> = (0..n).map(slice).collect();
    let lexical = |a: &[T], b: &[T]| -> Ordering {
        for (u, v) in a.iter().zip(b) {
            if asc(u, v) {
                return Ordering::Less;
            }
            if asc(v, u) {
                return Ordering::Greater;
            }
        }
        Ordering::Equal
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| lexical(&slices[a], &slices[b]).then(a.cmp(&b)));
    let mut kept: Vec<usize> = Vec::new();
    let mut counts: Vec<i64> = Vec::new();
    let mut inverse = vec![0i64; n];
    for (pos, &i) in order.iter().enumerate() {
        let same = pos > 0 && slices[order[pos - 1]] == slices[i];
        if !same {
            kept.push(i);
            counts.push(0);
        }
        *counts.last_mut().expect("pushed") += 1;
        inverse[i] = kept.len() as i64 - 1;
    }
    let m = kept.len();
    let mut shape = x.shape().to_vec();
    shape[d] = m;
    let mut out = vec![T::default(); outer * m * inner];
    for (j, &i) in kept.iter().enumerate() {
        for o in 0..outer {
            for k in 0..inner {
                out[(o * m + j) * inner + k] = data[(o * n + i) * inner + k];
            }
        }
    }
    Ok((
        Tensor::from_vec(out, &shape)?,
        Tensor::from_vec(inverse, &[n])?,
        Tensor::from_vec(counts, &[m])?,
    ))
}

/// PyTorch's `evenly_distribute_backward`: `g` shared evenly among the elements of `x` equal
/// to `y` (the NaNs when `y` is NaN).
fn evenly_distribute(g: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    use crate::ops::pointwise::comparison::CompareOp;
    use crate::ops::Operand;
    let value = y.detach().item()?.to_f64();
    let mask = if value.is_nan() {
        x.detach().isnan()?
    } else {
        x.detach()
            .compare(CompareOp::Eq, Operand::Tensor(&y.detach()))?
    };
    let count = crate::cpu::kernels::cast(&mask, DType::Int64)
        .sum()?
        .item()?
        .to_f64();
    let share = g.div_scalar(count)?;
    let full: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
    Tensor::where_(
        &mask,
        &share.expand(&full)?,
        &Tensor::scalar_of(0.0, g.dtype()),
    )
}
