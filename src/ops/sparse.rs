//! Sparse COO tensors: PyTorch's `torch.sparse_coo` layout.
//!
//! Note [Sparse COO tensors]: a sparse tensor here has no elements of its own. Like a wrapper
//! (Note [Tensor subclasses that dispatch]) its storage is elementless, and its payload is a
//! [`SparseCoo`](crate::core::sparse::SparseCoo): the int64 `indices` (one row per sparse
//! dimension, one column per stored element) and the `values` (one row per stored element,
//! holding the dense dimensions).
//! Ops that dispatch hand a call with a sparse input to `handle`, which computes what
//! PyTorch's SparseCPU backend computes for the ops programs use on sparse tensors: products
//! with dense matrices, elementwise products of sparse tensors, sums with dense and sparse
//! tensors, scaling, negation, transposes, copies and dtype conversions. Every other op reads the missing elements and is refused
//! with NotImplementedError naming it, never computing on nothing. Autograd is unchanged: ops
//! record their nodes as on dense tensors; the formulas that meet a sparse input give it a
//! sparse gradient (`mm`: the dense product masked by the input's pattern, as PyTorch's), and
//! the engine adds sparse gradients by concatenating them (uncoalesced, as PyTorch's).

use crate::autograd::{is_recording, record};
use crate::core::dispatch::{Arg, Call};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::fmt_shape;
pub use crate::core::sparse::CooParts;
use crate::core::tensor::Tensor;
use crate::cpu::kernels::cast;
use crate::cpu::sparse as kernels;
use crate::with_num;

impl Tensor {
    /// `torch.sparse_coo_tensor(indices, values, size)`: a sparse tensor of `shape` holding
    /// `values` at `indices` (duplicates allowed: they add up). Indices are checked.
    pub fn sparse_coo(indices: &Tensor, values: &Tensor, shape: &[usize]) -> Result<Tensor> {
        if indices.dim() != 2 && !(indices.dim() == 1 && indices.numel() == 0) {
            return Err(Error::runtime(format!(
                "indices must be sparse_dim x nnz, but got: {}",
                fmt_shape(indices.shape())
            )));
        }
        if indices.dtype() == DType::Bool {
            return Err(Error::runtime("indices must be an int64 tensor, got bool"));
        }
        let indices = cast(&indices.detach(), DType::Int64).contiguous()?;
        let (sparse_dim, nnz) = (indices.shape()[0], *indices.shape().get(1).unwrap_or(&0));
        if values.dim() == 0 || values.shape()[0] != nnz {
            return Err(Error::runtime(format!(
                "number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim ({}), but got {}",
                values.dim().saturating_sub(1),
                shape.len()
            )));
        }
        if sparse_dim + values.dim() - 1 != shape.len()
            || values.shape()[1..] != shape[sparse_dim..]
        {
            return Err(Error::runtime(format!(
                "sizes {} do not fit indices of {sparse_dim} sparse dimensions and values of shape {}",
                fmt_shape(shape),
                fmt_shape(values.shape())
            )));
        }
        // checked always (PyTorch checks only with `check_invariants=True`, and an index out of
        // range there corrupts memory later), with PyTorch's messages
        let flat = indices.to_vec::<i64>()?;
        for (d, &size) in shape[..sparse_dim].iter().enumerate() {
            let row = &flat[d * nnz..(d + 1) * nnz];
            if let Some(&i) = row.iter().find(|&&i| i < 0) {
                return Err(Error::runtime(format!(
                    "found negative index {i} for dim {d}"
                )));
            }
            if let Some(&i) = row.iter().find(|&&i| i as usize >= size) {
                return Err(Error::runtime(format!(
                    "size is inconsistent with indices: for dim {d}, size is {size} but found index {i}"
                )));
            }
        }
        let parts = CooParts {
            indices,
            values: values.clone(),
            coalesced: nnz <= 1,
        };
        let out = make(parts, shape)?;
        if !is_recording(&[values]) {
            return Ok(out);
        }
        let pattern = out.detach();
        Ok(record(
            out,
            "SparseCooTensorWithDimsAndTensorsBackward0",
            &[values],
            &[],
            move |ctx| Ok(vec![Some(values_at(ctx.grad(0), &pattern)?)]),
        ))
    }

    fn coo_or_err(&self, op: &str) -> Result<CooParts> {
        self.coo().ok_or_else(|| {
            Error::runtime(format!(
                "{op} expected a sparse COO tensor, got a dense (strided) one"
            ))
        })
    }

    /// The number of sparse dimensions (0 for a dense tensor, as PyTorch's `sparse_dim()`).
    pub fn sparse_dim(&self) -> usize {
        self.coo().map_or(0, |p| p.indices.shape()[0])
    }

    /// The number of stored elements of a sparse tensor (`_nnz()`).
    pub fn nnz(&self) -> Result<usize> {
        Ok(self.coo_or_err("_nnz")?.values.shape()[0])
    }

    /// Whether a sparse tensor's indices are sorted and distinct.
    pub fn is_coalesced(&self) -> Result<bool> {
        Ok(self.coo_or_err("is_coalesced")?.coalesced)
    }

    /// `_indices()`: the int64 `sparse_dim × nnz` indices (shared, no autograd).
    pub fn sparse_indices(&self) -> Result<Tensor> {
        Ok(self.coo_or_err("_indices")?.indices)
    }

    /// `_values()`: the stored values (shared, no autograd).
    pub fn sparse_values(&self) -> Result<Tensor> {
        Ok(self.coo_or_err("_values")?.values)
    }

    /// `values()` of a coalesced sparse tensor, differentiable (`ValuesBackward0`: the
    /// gradient becomes a sparse tensor with this one's indices).
    pub fn coalesced_values(&self) -> Result<Tensor> {
        let parts = self.coo_or_err("values")?;
        if !parts.coalesced {
            return Err(Error::runtime(
                "Cannot get values on an uncoalesced tensor, please call .coalesce() first",
            ));
        }
        let out = parts.values.detach();
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let (indices, shape) = (parts.indices, self.shape().to_vec());
        Ok(record(out, "ValuesBackward0", &[self], &[], move |ctx| {
            let g = ctx.grad(0).detach();
            Ok(vec![Some(make(
                CooParts {
                    indices: indices.clone(),
                    values: g,
                    coalesced: true,
                },
                &shape,
            )?)])
        }))
    }

    /// The dense tensor of a sparse one (a dense one is returned as is); gradient: the dense
    /// gradient at this tensor's stored positions (`ToDenseBackward0`).
    pub fn to_dense(&self) -> Result<Tensor> {
        let Some(parts) = self.coo() else {
            return Ok(self.clone());
        };
        let out = dense_of(&parts, self.shape())?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let pattern = self.detach();
        Ok(record(out, "ToDenseBackward0", &[self], &[], move |ctx| {
            Ok(vec![Some(ctx.grad(0).sparse_mask(&pattern)?)])
        }))
    }

    /// The sparse COO tensor of a dense one, every dimension sparse and only the non-zero
    /// elements stored (coalesced); gradient: the gradient made dense (`ToSparseBackward0`).
    pub fn to_sparse(&self) -> Result<Tensor> {
        if self.is_sparse() {
            return Ok(self.clone());
        }
        self.to_sparse_dims(self.dim())
    }

    /// The sparse COO tensor of a dense one whose first `sparse_dim` dimensions are sparse
    /// (PyTorch's `to_sparse(sparse_dim)`): the others are dense, so a stored element is a
    /// slice over them, kept when any of its values is non-zero (coalesced); gradient: the
    /// gradient made dense (`ToSparseBackward0`).
    pub fn to_sparse_dims(&self, sparse_dim: usize) -> Result<Tensor> {
        let n = self.dim();
        if self.is_sparse() {
            if sparse_dim != self.sparse_dim() {
                return Err(Error::runtime(
                    "to_sparse: conversion from Sparse to Sparse with sparse_dim argument \
                     !=self.sparse_dim() is not supported",
                ));
            }
            return Ok(self.clone());
        }
        if sparse_dim > n {
            return Err(Error::runtime(format!(
                "dense_to_sparse: sparse_dim argument must be in [0,{n}] range, but {sparse_dim} \
                 is given"
            )));
        }
        if sparse_dim == 0 && n > 0 {
            return Err(Error::runtime(
                "dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0",
            ));
        }
        let (outer, inner) = self.shape().split_at(sparse_dim);
        let slice: usize = inner.iter().product();
        let nonzero = self.detach().truth()?.to_vec::<bool>()?;
        let positions: Vec<usize> = match slice {
            0 => Vec::new(),
            _ => nonzero
                .chunks(slice)
                .enumerate()
                .filter_map(|(k, c)| c.iter().any(|&b| b).then_some(k))
                .collect(),
        };
        let rows: Vec<isize> = std::iter::once(outer.iter().product::<usize>() as isize)
            .chain(inner.iter().map(|&s| s as isize))
            .collect();
        let flat = self.detach().contiguous()?.reshape(&rows)?;
        let index = Tensor::from_vec(
            positions.iter().map(|&p| p as i64).collect(),
            &[positions.len()],
        )?;
        let values = flat.index_select(0, &index)?;
        let indices = Tensor::from_vec(
            kernels::unravel(&positions, outer),
            &[sparse_dim, positions.len()],
        )?;
        let out = make(
            CooParts {
                indices,
                values,
                coalesced: true,
            },
            self.shape(),
        )?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, "ToSparseBackward0", &[self], &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).to_dense()?)])
        }))
    }

    /// The coalesced form of a sparse tensor (indices sorted, duplicates summed); gradient:
    /// the gradient as is (`CoalesceBackward0`).
    pub fn coalesce(&self) -> Result<Tensor> {
        let parts = self.coo_or_err("coalesce")?;
        if parts.coalesced {
            return Ok(self.clone());
        }
        let out = make(coalesced(&parts, self.shape())?, self.shape())?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, "CoalesceBackward0", &[self], &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).clone())])
        }))
    }

    /// `self.sparse_mask(mask)`: the sparse tensor with `mask`'s (coalesced) indices and this
    /// tensor's values there; gradient: the gradient made dense (`SparseMaskBackward0`).
    pub fn sparse_mask(&self, mask: &Tensor) -> Result<Tensor> {
        let mask_parts = coalesced(&mask.coo_or_err("sparse_mask")?, mask.shape())?;
        if self.shape() != mask.shape() {
            return Err(Error::runtime(format!(
                "sparse_mask(): expected mask and self to have the same size, got {} and {}",
                fmt_shape(mask.shape()),
                fmt_shape(self.shape())
            )));
        }
        let pattern = make(mask_parts, mask.shape())?;
        let values = values_at(&self.detach(), &pattern)?;
        let parts = pattern.coo().expect("made sparse above");
        let out = make(
            CooParts {
                values: cast(&values, self.dtype()),
                ..parts
            },
            self.shape(),
        )?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, "SparseMaskBackward0", &[self], &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).to_dense()?)])
        }))
    }

    /// `torch.sparse.mm(self, other)` for a sparse `self`: the dense product, whose gradient
    /// for `self` is sparse, the dense one at `self`'s stored positions
    /// (`SparseAddmmBackward0`; plain `mm` gives a sparse operand a dense gradient, as PyTorch).
    pub fn sparse_mm(&self, other: &Tensor) -> Result<Tensor> {
        if !self.is_sparse() {
            return self.mm(other);
        }
        let out = {
            let _below_autograd = crate::core::grad_mode::GradModeGuard::new(false);
            self.mm(other)?
        };
        if !is_recording(&[self, other]) {
            return Ok(out);
        }
        let (pattern, partner) = (self.detach(), other.detach());
        Ok(record(
            out,
            "SparseAddmmBackward0",
            &[self, other],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                let ga = match ctx.needs_input_grad(0) {
                    true => Some(g.mm(&partner.t()?)?.sparse_mask(&pattern)?),
                    false => None,
                };
                let gb = match ctx.needs_input_grad(1) {
                    true => Some(pattern.t()?.mm(g)?),
                    false => None,
                };
                Ok(vec![ga, gb])
            },
        ))
    }

    /// Adds a sparse tensor into this sparse one in place (its stored elements appended: the
    /// result is uncoalesced), as PyTorch's AccumulateGrad does with sparse gradients.
    pub(crate) fn sparse_accumulate_(&self, other: &Tensor) -> Result<()> {
        let (Some(mine), Some(theirs)) = (self.coo(), other.coo()) else {
            return Err(Error::runtime(
                "sparse_accumulate_ expects two sparse tensors",
            ));
        };
        self.replace_coo(concatenated(&mine, &theirs)?);
        Ok(())
    }
}

/// A sparse tensor of `shape` with these parts, its ops dispatched to [`handle`] (installed
/// here, the first time: the core cannot name the ops above it).
pub(crate) fn make(parts: CooParts, shape: &[usize]) -> Result<Tensor> {
    crate::core::dispatch::set_sparse_handler(handle);
    Tensor::from_coo(parts, shape)
}

/// The values of `dense` (or of a sparse tensor, made dense) at `pattern`'s stored positions.
fn values_at(grad: &Tensor, pattern: &Tensor) -> Result<Tensor> {
    let parts = pattern.coo_or_err("values_at")?;
    let dense = grad.to_dense()?.detach();
    let sparse_dim = parts.indices.shape()[0];
    let nnz = parts.values.shape()[0];
    let positions = stored_positions(&parts, pattern.shape())?;
    let rows: Vec<isize> = std::iter::once(-1)
        .chain(pattern.shape()[sparse_dim..].iter().map(|&s| s as isize))
        .collect();
    let index = Tensor::from_vec(positions.iter().map(|&p| p as i64).collect(), &[nnz])?;
    dense.contiguous()?.reshape(&rows)?.index_select(0, &index)
}

/// The row-major position, among the sparse dimensions of `shape`, of each stored element
/// (indices were checked when the tensor was made).
fn stored_positions(parts: &CooParts, shape: &[usize]) -> Result<Vec<usize>> {
    let sparse_dim = parts.indices.shape()[0];
    let nnz = parts.values.shape()[0];
    kernels::linear_positions(&parts.indices.to_vec::<i64>()?, &shape[..sparse_dim], nnz)
        .ok_or_else(|| Error::runtime("sparse indices out of range"))
}

/// The dense tensor of sparse parts.
fn dense_of(parts: &CooParts, shape: &[usize]) -> Result<Tensor> {
    let sparse_dim = parts.indices.shape()[0];
    let count: usize = shape[..sparse_dim].iter().product();
    let row: usize = shape[sparse_dim..].iter().product();
    let positions = stored_positions(parts, shape)?;
    let dtype = parts.values.dtype();
    let values = cast(&parts.values.detach(), numeric(dtype));
    let dense = with_num!(values.dtype(), T => {
        let v = values.to_vec::<T>()?;
        Tensor::from_vec(kernels::scatter_dense(&positions, &v, row, count), shape)?
    });
    Ok(cast(&dense, dtype))
}

/// The dtype sparse kernels compute in: bool as int64 (sums of booleans), others as they are.
fn numeric(dtype: DType) -> DType {
    if dtype == DType::Bool {
        DType::Int64
    } else {
        dtype
    }
}

/// Coalesced parts (sorted indices, duplicates summed).
fn coalesced(parts: &CooParts, shape: &[usize]) -> Result<CooParts> {
    if parts.coalesced {
        return Ok(parts.clone());
    }
    let sparse_dim = parts.indices.shape()[0];
    let sizes = &shape[..sparse_dim];
    let row: usize = shape[sparse_dim..].iter().product();
    let positions = stored_positions(parts, shape)?;
    let dtype = parts.values.dtype();
    let values = cast(&parts.values.detach(), numeric(dtype));
    let (kept, sums) = with_num!(values.dtype(), T => {
        let (kept, sums) = kernels::coalesce(&positions, &values.to_vec::<T>()?, row);
        let mut value_shape = vec![kept.len()];
        value_shape.extend_from_slice(&shape[sparse_dim..]);
        (kept, Tensor::from_vec(sums, &value_shape)?)
    });
    let indices = Tensor::from_vec(kernels::unravel(&kept, sizes), &[sparse_dim, kept.len()])?;
    Ok(CooParts {
        indices,
        values: cast(&sums, dtype),
        coalesced: true,
    })
}

/// The parts of `a + b` for sparse `a` and `b` of one shape: both sets of stored elements.
fn concatenated(a: &CooParts, b: &CooParts) -> Result<CooParts> {
    let dtype = DType::promote(a.values.dtype(), b.values.dtype());
    Ok(CooParts {
        indices: Tensor::cat(&[a.indices.clone(), b.indices.clone()], 1)?,
        values: Tensor::cat(&[cast(&a.values, dtype), cast(&b.values, dtype)], 0)?,
        coalesced: false,
    })
}

/// PyTorch's refusal of an op its SparseCPU backend lacks.
fn unsupported(op: &str) -> Error {
    let op = op.split('.').next().unwrap_or(op);
    Error::not_implemented(format!(
        "Could not run 'aten::{op}' with arguments from the 'SparseCPU' backend. ferrograd's \
         sparse COO tensors support products with dense matrices and with sparse tensors, \
         sums, scaling, negation, transposes, copies and to_dense()"
    ))
}

fn tensor_arg(call: &Call, i: usize) -> Result<&Tensor> {
    match call.args.get(i) {
        Some(Arg::Tensor(t)) => Ok(t),
        _ => Err(unsupported(call.op)),
    }
}

fn number_arg(call: &Call, i: usize) -> Option<f64> {
    match call.args.get(i) {
        Some(Arg::Float(v)) => Some(*v),
        Some(Arg::Int(v)) => Some(*v as f64),
        Some(Arg::Bool(v)) => Some(f64::from(u8::from(*v))),
        Some(Arg::Tensor(t)) if !t.is_sparse() && t.numel() == 1 => t.to_f64_vec().first().copied(),
        _ => None,
    }
}

/// A sparse tensor with the same indices and other values.
fn with_values(x: &Tensor, values: Tensor) -> Result<Tensor> {
    let parts = x.coo_or_err("with_values")?;
    make(CooParts { values, ..parts }, x.shape())
}

/// The outputs of a dispatched call with a sparse input (below autograd; see
/// Note [Sparse COO tensors]).
pub(crate) fn handle(call: &Call) -> Result<Vec<Tensor>> {
    let a = tensor_arg(call, 0)?;
    let out = match call.op {
        "mm.default" => sparse_mm(a, tensor_arg(call, 1)?)?,
        "add.Tensor" | "sub.Tensor" => {
            let b = tensor_arg(call, 1)?;
            let b = if call.op == "sub.Tensor" {
                negated(b)?
            } else {
                b.clone()
            };
            match (a.coo(), b.coo()) {
                (Some(pa), Some(pb)) => {
                    check_same_shape(a, &b, call.op)?;
                    let joined = concatenated(&pa, &pb)?;
                    // two coalesced operands merge into a coalesced sum, as PyTorch's
                    let parts = match pa.coalesced && pb.coalesced {
                        true => coalesced(&joined, a.shape())?,
                        false => joined,
                    };
                    make(parts, a.shape())?
                }
                (Some(_), None) => {
                    let name = &call.op[..3];
                    return Err(Error::runtime(format!(
                        "{name}(sparse, dense) is not supported. Use {name}(dense, sparse) instead."
                    )));
                }
                (None, _) => a.add(&b.to_dense()?)?,
            }
        }
        "mul.Tensor"
            if a.is_sparse()
                && matches!(call.args.get(1), Some(Arg::Tensor(b)) if b.is_sparse()) =>
        {
            let b = tensor_arg(call, 1)?;
            if a.shape() != b.shape() || a.sparse_dim() != b.sparse_dim() {
                return Err(Error::runtime(
                    "sparse_binary_op_intersection_cpu(): expects sparse inputs with equal \
                     dimensionality, number of sparse dimensions, and shape of sparse dimensions",
                ));
            }
            sparse_product(a, b)?
        }
        "mul.Tensor" | "div.Tensor" if a.is_sparse() => {
            let Some(s) = number_arg(call, 1) else {
                return Err(unsupported(call.op));
            };
            let values = a.coo_or_err(call.op)?.values;
            let scaled = if call.op == "mul.Tensor" {
                values.mul_scalar(s)?
            } else {
                values.div_scalar(s)?
            };
            with_values(a, scaled)?
        }
        "mul.Tensor" if tensor_arg(call, 1)?.is_sparse() => {
            let b = tensor_arg(call, 1)?;
            let s = number_arg(call, 0).ok_or_else(|| unsupported(call.op))?;
            with_values(b, b.coo_or_err(call.op)?.values.mul_scalar(s)?)?
        }
        "neg.default" => negated(a)?,
        "clone.default" => {
            let parts = a.coo_or_err(call.op)?;
            make(
                CooParts {
                    indices: parts.indices.clone_tensor()?,
                    values: parts.values.clone_tensor()?,
                    coalesced: parts.coalesced,
                },
                a.shape(),
            )?
        }
        "_to_copy.default" => {
            let dtype = call.kwargs.iter().find_map(|(k, v)| match (k, v) {
                (&"dtype", Arg::DType(d)) => Some(*d),
                _ => None,
            });
            let values = a.coo_or_err(call.op)?.values;
            with_values(a, cast(&values, dtype.unwrap_or(values.dtype())))?
        }
        "t.default" => transposed(a, 0, 1)?,
        "transpose.int" => match (call.args.get(1), call.args.get(2)) {
            (Some(Arg::Int(d0)), Some(Arg::Int(d1))) => {
                let n = a.dim() as i64;
                transposed(
                    a,
                    d0.rem_euclid(n.max(1)) as usize,
                    d1.rem_euclid(n.max(1)) as usize,
                )?
            }
            _ => return Err(unsupported(call.op)),
        },
        "sum.default" => a.to_dense()?.sum()?,
        "sum.dim_IntList" => {
            let dims: Vec<isize> = match call.args.get(1) {
                Some(Arg::Ints(d)) => d.iter().map(|&d| d as isize).collect(),
                _ => vec![],
            };
            let keepdim = matches!(call.args.get(2), Some(Arg::Bool(true)));
            a.to_dense()?.sum_dims(&dims, keepdim)?
        }
        op => return Err(unsupported(op)),
    };
    Ok(vec![out])
}

/// `x * y` for sparse `x` and `y` of one shape, as PyTorch's intersection kernel computes it:
/// one operand is probed (the coalesced one when only one is, else the one storing more
/// elements), and the result has the other's stored elements, each its value times the
/// probed operand's value there (duplicates summed; 0 where it stores nothing). When both
/// are coalesced, only the common elements are kept and the result is coalesced.
fn sparse_product(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let (px, py) = (x.coo_or_err("mul")?, y.coo_or_err("mul")?);
    let nnz = |p: &CooParts| p.values.shape()[0];
    let (probed, source) = match (px.coalesced, py.coalesced) {
        (true, false) => (px, py),
        (false, true) => (py, px),
        _ if nnz(&px) >= nnz(&py) => (px, py),
        _ => (py, px),
    };
    let shape = x.shape();
    let probed = coalesced(&probed, shape)?;
    let found = kernels::find_positions(
        &stored_positions(&probed, shape)?,
        &stored_positions(&source, shape)?,
    );
    let both_coalesced = source.coalesced;
    // a missing element reads the zero row appended after the probed values
    let missing = nnz(&probed) as i64;
    let (kept, at): (Vec<i64>, Vec<i64>) = found
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_some() || !both_coalesced)
        .map(|(k, f)| (k as i64, f.map_or(missing, |j| j as i64)))
        .unzip();
    let index = |v: Vec<i64>| {
        let n = v.len();
        Tensor::from_vec(v, &[n])
    };
    let (kept, at) = (index(kept)?, index(at)?);
    let probed_values = probed.values.detach();
    let mut zero_row = probed_values.shape().to_vec();
    zero_row[0] = 1;
    let padded = Tensor::cat(
        &[
            probed_values.clone(),
            Tensor::zeros(&zero_row, probed_values.dtype()),
        ],
        0,
    )?;
    let values = source.values.detach().index_select(0, &kept)?;
    let parts = CooParts {
        indices: source.indices.index_select(1, &kept)?,
        values: values.mul(&padded.index_select(0, &at)?)?,
        coalesced: both_coalesced,
    };
    make(parts, shape)
}

fn check_same_shape(a: &Tensor, b: &Tensor, op: &str) -> Result<()> {
    if a.shape() == b.shape() {
        return Ok(());
    }
    let list = |s: &[usize]| format!("{s:?}");
    Err(Error::runtime(format!(
        "{}: expected sizes of 'self' and 'other' to match, but {} != {}",
        op.split('.').next().unwrap_or(op),
        list(a.shape()),
        list(b.shape())
    )))
}

fn negated(t: &Tensor) -> Result<Tensor> {
    match t.coo() {
        Some(parts) => with_values(t, parts.values.neg()?),
        None => t.neg(),
    }
}

/// A sparse tensor with sparse dimensions `d0` and `d1` swapped.
fn transposed(t: &Tensor, d0: usize, d1: usize) -> Result<Tensor> {
    let parts = t.coo_or_err("transpose")?;
    let sparse_dim = parts.indices.shape()[0];
    if d0 >= sparse_dim || d1 >= sparse_dim {
        return Err(Error::runtime(
            "transpose(): a sparse tensor's dense dimensions cannot be transposed",
        ));
    }
    let mut order: Vec<i64> = (0..sparse_dim as i64).collect();
    order.swap(d0, d1);
    let rows = Tensor::from_vec(order, &[sparse_dim])?;
    let mut shape = t.shape().to_vec();
    shape.swap(d0, d1);
    make(
        CooParts {
            indices: parts.indices.index_select(0, &rows)?,
            values: parts.values,
            coalesced: false,
        },
        &shape,
    )
}

/// `a @ b` with one or both of them sparse: a dense result.
fn sparse_mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    match (a.coo(), b.is_sparse()) {
        (Some(parts), _) => {
            let dense_b = b.to_dense()?;
            if parts.indices.shape()[0] != 2 || parts.values.dim() != 1 {
                return Err(unsupported("mm"));
            }
            let (m, n) = (a.shape()[0], dense_b.shape()[1]);
            let nnz = parts.values.shape()[0];
            let idx = parts.indices.to_vec::<i64>()?;
            let (rows, cols) = idx.split_at(nnz);
            let dtype = numeric(a.dtype());
            let values = cast(&parts.values, dtype);
            let dense_b = cast(&dense_b, dtype).contiguous()?;
            with_num!(dtype, T => Tensor::from_vec(
                kernels::spmm(rows, cols, &values.to_vec::<T>()?, &dense_b.to_vec::<T>()?, m, n),
                &[m, n],
            ))
        }
        // dense @ sparse = (sparseᵀ @ denseᵀ)ᵀ
        (None, _) => Ok(sparse_mm(&transposed(b, 0, 1)?, &a.t()?)?
            .t()?
            .contiguous()?),
    }
}
