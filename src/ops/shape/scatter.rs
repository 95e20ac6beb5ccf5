//! Writing into a tensor at the places an index names: `scatter` (a value or a tensor's
//! elements), `scatter_reduce` and `index_reduce` (combining with what is there: sum, prod, mean,
//! amax, amin), `index_copy`. Each records PyTorch's node, and the derivatives of the
//! reductions are PyTorch's (`scatter_reduce_backward`), written once for both ops.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::{fmt_shape, normalize_dim};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::cast;
use crate::ops::pointwise::comparison::{CompareOp, LogicalOp};
use crate::ops::shape::indexing::positions;
use crate::ops::Operand;

/// How `scatter_reduce` and `index_reduce` combine a value with what is already there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// Adds.
    Sum,
    /// Multiplies.
    Prod,
    /// Averages (over the values scattered, and the original one when it is included).
    Mean,
    /// Keeps the largest (NaN wins).
    Amax,
    /// Keeps the smallest (NaN wins).
    Amin,
}

impl Reduce {
    /// The reduction PyTorch names `name` (`max` and `min` are `amax` and `amin` there too);
    /// `op` names the caller in the error.
    pub fn parse(name: &str, op: &str) -> Result<Reduce> {
        Ok(match name {
            "sum" => Reduce::Sum,
            "prod" => Reduce::Prod,
            "mean" => Reduce::Mean,
            "amax" | "max" => Reduce::Amax,
            "amin" | "min" => Reduce::Amin,
            _ => {
                return Err(Error::runtime(format!(
                "{op}(): reduce argument must be either sum, prod, mean, amax or amin, got {name}"
            )))
            }
        })
    }

    fn identity(self) -> f64 {
        match self {
            Reduce::Sum | Reduce::Mean => 0.0,
            Reduce::Prod => 1.0,
            Reduce::Amax => f64::NEG_INFINITY,
            Reduce::Amin => f64::INFINITY,
        }
    }

    fn combine(self, acc: f64, v: f64) -> f64 {
        match self {
            Reduce::Sum | Reduce::Mean => acc + v,
            Reduce::Prod => acc * v,
            Reduce::Amax if v > acc || v.is_nan() => v,
            Reduce::Amin if v < acc || v.is_nan() => v,
            Reduce::Amax | Reduce::Amin => acc,
        }
    }
}

/// A tensor of `dtype` and `shape` from float64 values.
fn from_values(v: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    Ok(cast(&Tensor::from_vec(v, shape)?, dtype))
}

/// The elements of `src` that `index` addresses (its leading part of `index`'s shape), as
/// PyTorch's scatter into `x` along `dim` reads them.
fn src_for_index(x: &Tensor, src: &Tensor, index: &Tensor, dim: usize) -> Result<Tensor> {
    if src.shape() == index.shape() || index.dim() == 0 {
        return Ok(src.clone());
    }
    if src.dim() != index.dim() || index.shape().iter().zip(src.shape()).any(|(i, s)| i > s) {
        return Err(Error::runtime(format!(
            "Expected index {} to be no larger than self {} apart from dimension {dim} and to be no larger size than src {}",
            fmt_shape(index.shape()),
            fmt_shape(x.shape()),
            fmt_shape(src.shape())
        )));
    }
    let mut part = src.clone();
    for (d, &n) in index.shape().iter().enumerate() {
        if n != src.shape()[d] {
            part = part.slice(d as isize, None, Some(n as isize), 1)?;
        }
    }
    Ok(part)
}

/// PyTorch's refusal of a `src` of another dtype than `x`, in the words of the op `op`.
fn check_same_dtype(x: &Tensor, src: &Tensor, op: &str) -> Result<()> {
    if x.dtype() == src.dtype() {
        return Ok(());
    }
    let (mine, theirs) = (x.dtype().scalar_name(), src.dtype().scalar_name());
    Err(Error::runtime(match op {
        "index_copy" => format!(
            "index_copy_(): self and source expected to have the same dtype, but got (self) {mine} and (source) {theirs}"
        ),
        "index_add" | "index_reduce" => {
            format!("{op}_(): self ({mine}) and source ({theirs}) must have the same scalar type")
        }
        _ => format!("{op}(): Expected self.dtype to be equal to src.dtype"),
    }))
}

/// `base` with `src`'s values combined into the flat positions `pos` (no history).
fn reduce_values(
    base: &Tensor,
    pos: &[usize],
    src: &Tensor,
    reduce: Reduce,
    include_self: bool,
) -> Result<Tensor> {
    let mut out = base.to_f64_vec();
    let vals = src.to_f64_vec();
    let mut count = vec![0u32; out.len()];
    if !include_self {
        for &p in pos {
            out[p] = reduce.identity();
        }
    }
    for (&p, &v) in pos.iter().zip(&vals) {
        out[p] = reduce.combine(out[p], v);
        count[p] += 1;
    }
    if reduce == Reduce::Mean {
        let integer = !base.dtype().is_floating_point();
        for (o, &c) in out.iter_mut().zip(&count) {
            if c > 0 {
                let n = f64::from(c + u32::from(include_self));
                *o = if integer { (*o / n).floor() } else { *o / n };
            }
        }
    }
    from_values(out, base.shape(), base.dtype())
}

/// `base` with `src`'s values written at the flat positions `pos` (no history).
fn write_values(base: &Tensor, pos: &[usize], src: &Tensor) -> Result<Tensor> {
    let mut out = base.to_f64_vec();
    for (&p, v) in pos.iter().zip(src.to_f64_vec()) {
        out[p] = v;
    }
    from_values(out, base.shape(), base.dtype())
}

/// PyTorch's checks of a 1-D `index` along `dim` for the slices of `source` (`index_*` ops).
fn check_index(index: &Tensor, dim: usize, source: &Tensor, op: &str) -> Result<()> {
    if index.dim() > 1 {
        return Err(Error::index(match op {
            "index_copy" => format!("index_copy_(): Index should have dimension 1 or 0 (got {})", index.dim()),
            _ => format!(
                "{op}_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: {}",
                index.dim(),
                index.dtype().scalar_name(),
                fmt_shape(index.shape())
            ),
        }));
    }
    let n = index.numel();
    let along = source.shape().get(dim).copied().unwrap_or(1);
    if n != along {
        return Err(match op {
            "index_copy" => Error::index(format!(
                "index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({along})"
            )),
            _ => Error::runtime(format!(
                "{op}_(): Number of indices ({n}) should be equal to source.size(dim): ({along}), for dim: {dim}"
            )),
        });
    }
    Ok(())
}

/// A checked 1-D `index` along `dim` as a scatter index for `source` (each slice of `source`
/// along `dim` goes to the slice `index[j]`).
fn index_as_scatter(index: &Tensor, dim: usize, source: &Tensor, op: &str) -> Result<Tensor> {
    check_index(index, dim, source, op)?;
    if source.dim() == 0 {
        return index.reshape(&[]);
    }
    let mut shape = vec![1isize; source.dim()];
    shape[dim] = index.numel() as isize;
    let target: Vec<isize> = source.shape().iter().map(|&s| s as isize).collect();
    index.reshape(&shape)?.expand(&target)?.contiguous()
}

impl Tensor {
    /// A copy with `src`'s elements written at the places `index` names along `dim`
    /// (`out[..., index[i, j], ...] = src[i, j]`; PyTorch's `scatter`, `ScatterBackward0`).
    pub fn scatter(&self, dim: isize, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        check_same_dtype(self, src, "scatter")?;
        let src = src_for_index(self, src, index, d)?;
        let pos = positions(self.shape(), index, d)?;
        let out = write_values(self, &pos, &src)?;
        if !is_recording(&[self, &src]) {
            return Ok(out);
        }
        let index = index.clone();
        Ok(record(
            out,
            "ScatterBackward0",
            &[self, &src],
            &[Save::Tensor(&index.clone())],
            move |ctx| {
                let g = ctx.grad(0);
                let to_self = match ctx.needs_input_grad(0) {
                    true => Some(g.scatter_value(d as isize, &index, Scalar::Float(0.0))?),
                    false => None,
                };
                let to_src = match ctx.needs_input_grad(1) {
                    true => Some(g.gather(d as isize, &index)?),
                    false => None,
                };
                Ok(vec![to_self, to_src])
            },
        ))
    }

    /// A copy with `value` written at the places `index` names along `dim` (PyTorch's
    /// `scatter` with a value, `ScatterBackward1`).
    pub fn scatter_value(&self, dim: isize, index: &Tensor, value: Scalar) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        let pos = positions(self.shape(), index, d)?;
        let mut out = self.to_f64_vec();
        for &p in &pos {
            out[p] = value.to_f64();
        }
        let out = from_values(out, self.shape(), self.dtype())?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let index = index.clone();
        Ok(record(
            out,
            "ScatterBackward1",
            &[self],
            &[Save::Tensor(&index.clone())],
            move |ctx| {
                let zero = Scalar::Float(0.0);
                Ok(vec![Some(
                    ctx.grad(0).scatter_value(d as isize, &index, zero)?,
                )])
            },
        ))
    }

    /// A copy with `src`'s elements combined by `reduce` into the places `index` names along
    /// `dim`; without `include_self` the original values there are left out (PyTorch's
    /// `scatter_reduce`, `ScatterReduceBackward0`).
    pub fn scatter_reduce(
        &self,
        dim: isize,
        index: &Tensor,
        src: &Tensor,
        reduce: Reduce,
        include_self: bool,
    ) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        check_same_dtype(self, src, "scatter_reduce")?;
        let src = src_for_index(self, src, index, d)?;
        self.reduce_at(d, index, &src, reduce, include_self, ReduceOp::Scatter)
    }

    /// A copy with the slices of `source` along `dim` combined by `reduce` into the slices
    /// `index[j]` (PyTorch's `index_reduce`, `IndexReduceBackward0`).
    pub fn index_reduce(
        &self,
        dim: isize,
        index: &Tensor,
        source: &Tensor,
        reduce: Reduce,
        include_self: bool,
    ) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        check_same_dtype(self, source, "index_reduce")?;
        if reduce == Reduce::Sum {
            return Err(Error::runtime(
                "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum.",
            ));
        }
        let index = index_as_scatter(index, d, source, "index_reduce")?;
        self.reduce_at(d, &index, source, reduce, include_self, ReduceOp::Index)
    }

    /// A copy with the slices of `source` along `dim` written at the slices `index[j]`
    /// (PyTorch's `index_copy`, `IndexCopyBackward0`).
    pub fn index_copy(&self, dim: isize, index: &Tensor, source: &Tensor) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        check_same_dtype(self, source, "index_copy")?;
        let spread = index_as_scatter(index, d, source, "index_copy")?;
        let pos = positions(self.shape(), &spread, d)?;
        let out = write_values(self, &pos, source)?;
        if !is_recording(&[self, source]) {
            return Ok(out);
        }
        let index = index.reshape(&[-1])?;
        Ok(record(
            out,
            "IndexCopyBackward0",
            &[self, source],
            &[Save::Tensor(&index.clone())],
            move |ctx| {
                let g = ctx.grad(0);
                let to_self = match ctx.needs_input_grad(0) {
                    true => Some(g.index_fill(d, &index, Scalar::Float(0.0))?),
                    false => None,
                };
                let to_source = match ctx.needs_input_grad(1) {
                    true => Some(g.index_select(d as isize, &index)?),
                    false => None,
                };
                Ok(vec![to_self, to_source])
            },
        ))
    }

    /// A copy with `alpha` times the slices of `source` along `dim` added at the slices
    /// `index[j]` (PyTorch's `index_add`, `IndexAddBackward0`), checked as PyTorch checks it.
    pub fn index_add_scaled(
        &self,
        dim: isize,
        index: &Tensor,
        source: &Tensor,
        alpha: f64,
    ) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim())?;
        check_same_dtype(self, source, "index_add")?;
        check_index(index, d, source, "index_add")?;
        let mut expected = self.shape().to_vec();
        if let Some(n) = expected.get_mut(d) {
            *n = index.numel();
        }
        if source.dim() > 0 && source.shape() != expected {
            return Err(Error::runtime(format!(
                "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {} source.shape = {}",
                fmt_shape(self.shape()),
                fmt_shape(source.shape())
            )));
        }
        let index = index.reshape(&[-1])?;
        match alpha == 1.0 {
            true => self.index_add(d, &index, source),
            false => self.index_add(d, &index, &source.mul_scalar(alpha)?),
        }
    }

    /// The reduction of `src` into `self` along `d` at the scatter index `index`, recorded
    /// for `op`.
    fn reduce_at(
        &self,
        d: usize,
        index: &Tensor,
        src: &Tensor,
        reduce: Reduce,
        include_self: bool,
        op: ReduceOp,
    ) -> Result<Tensor> {
        let pos = positions(self.shape(), index, d)?;
        let out = reduce_values(self, &pos, src, reduce, include_self)?;
        if !is_recording(&[self, src]) {
            return Ok(out);
        }
        let saves = [
            Save::Tensor(self),
            Save::Tensor(index),
            Save::Tensor(src),
            Save::Output,
        ];
        Ok(record(out, op.node(), &[self, src], &saves, move |ctx| {
            let grads = reduce_backward(
                ctx.grad(0),
                ReduceInputs {
                    x: ctx.saved(0),
                    index: ctx.saved(1),
                    src: ctx.saved(2),
                    result: ctx.saved(3),
                    dim: d as isize,
                },
                reduce,
                include_self,
                op,
            )?;
            Ok(vec![Some(grads.0), Some(grads.1)])
        }))
    }
}

/// Which op a reduction belongs to (its node and its messages).
#[derive(Clone, Copy)]
enum ReduceOp {
    Scatter,
    Index,
}

impl ReduceOp {
    fn node(self) -> &'static str {
        match self {
            ReduceOp::Scatter => "ScatterReduceBackward0",
            ReduceOp::Index => "IndexReduceBackward0",
        }
    }

    fn names(self) -> (&'static str, &'static str) {
        match self {
            ReduceOp::Scatter => ("scatter_reduce", "src"),
            ReduceOp::Index => ("index_reduce", "source"),
        }
    }
}

/// What the derivative of a reduction reads.
struct ReduceInputs<'a> {
    x: &'a Tensor,
    index: &'a Tensor,
    src: &'a Tensor,
    result: &'a Tensor,
    dim: isize,
}

fn eq(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    a.compare(CompareOp::Eq, Operand::Tensor(b))
}

/// `a op v` for a number `v`.
fn cmp(a: &Tensor, op: CompareOp, v: f64) -> Result<Tensor> {
    a.compare(op, Operand::Scalar(Scalar::Float(v)))
}

/// The gradients of `self` and `src` of a reduction (PyTorch's `scatter_reduce_backward`):
/// sum passes the gradient; prod divides the result by each factor, with zeros computed
/// exclusively; mean divides by the count; amax/amin share the gradient evenly among ties.
fn reduce_backward(
    g: &Tensor,
    inputs: ReduceInputs<'_>,
    reduce: Reduce,
    include_self: bool,
    op: ReduceOp,
) -> Result<(Tensor, Tensor)> {
    let ReduceInputs {
        x,
        index,
        src,
        result,
        dim,
    } = inputs;
    let dtype = x.dtype();
    let (mut to_self, to_src) = match reduce {
        Reduce::Sum => (g.clone(), g.gather(dim, index)?),
        Reduce::Prod => {
            let masked_x = x.masked_fill(&cmp(x, CompareOp::Eq, 0.0)?, Scalar::Float(1.0))?;
            let masked_x_result = masked_x.scatter_reduce(dim, index, src, reduce, include_self)?;
            let to_self = g.mul(&masked_x_result)?.div(&masked_x)?;
            let src_zero = cmp(src, CompareOp::Eq, 0.0)?;
            let zeros_at = x
                .zeros_like()
                .scatter_add(dim, index, &src_zero.to_dtype(dtype)?)?
                .gather(dim, index)?;
            let one = Scalar::Float(1.0);
            let single_zero =
                src_zero.logical(LogicalOp::And, &cmp(&zeros_at, CompareOp::Eq, 1.0)?)?;
            let masked_src = src.masked_fill(&single_zero, one)?;
            let masked_src_result =
                x.scatter_reduce(dim, index, &masked_src, reduce, include_self)?;
            let exclusive = g.mul(&masked_src_result)?.gather(dim, index)?;
            let divided = g
                .mul(result)?
                .gather(dim, index)?
                .div(&src.masked_fill(&src_zero, one)?)?;
            let to_src = Tensor::where_(&single_zero, &exclusive, &divided)?;
            let several = cmp(&zeros_at, CompareOp::Gt, 1.0)?.any()?.item()?.to_f64() != 0.0;
            let to_src = match several && is_recording(&[&to_src]) {
                true => {
                    let (name, what) = op.names();
                    delayed_error(
                        &to_src,
                        format!(
                            "{name}(): Double backward is unsupported for {what} when >1 zeros in {what} are scattered to the same position in self"
                        ),
                    )
                }
                false => to_src,
            };
            (to_self, to_src)
        }
        Reduce::Mean => {
            let n = match include_self {
                true => g.ones_like(),
                false => g.zeros_like(),
            };
            let n = n.scatter_add(dim, index, &src.ones_like())?;
            let n = n.masked_fill(&cmp(&n, CompareOp::Eq, 0.0)?, Scalar::Float(1.0))?;
            let to_self = g.div(&n)?;
            let to_src = g.gather(dim, index)?.div(&n.gather(dim, index)?)?;
            (to_self, to_src)
        }
        Reduce::Amax | Reduce::Amin => {
            let value = result.gather(dim, index)?;
            let x_is = eq(x, result)?.to_dtype(dtype)?;
            let src_is = eq(src, &value)?.to_dtype(dtype)?;
            let shared = g.div(&x_is.scatter_add(dim, index, &src_is)?)?;
            let to_self = x_is.mul(&shared)?;
            let to_src = src_is.mul(&shared.gather(dim, index)?)?;
            (to_self, to_src)
        }
    };
    if !include_self {
        to_self = to_self.scatter_value(dim, index, Scalar::Float(0.0))?;
    }
    Ok((to_self, to_src))
}

/// `t` as it is, with a node whose backward raises `message` (PyTorch's `DelayedError`): a
/// first-order gradient that cannot be differentiated again.
fn delayed_error(t: &Tensor, message: String) -> Tensor {
    record(t.detach(), "DelayedError", &[t], &[], move |_| {
        Err(Error::runtime(message.clone()))
    })
}
