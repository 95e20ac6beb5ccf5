//! Tensors whose ops a language binding computes: PyTorch's wrapper subclasses and
//! `__torch_dispatch__`.
//!
//! Note [Tensor subclasses that dispatch]: PyTorch lets a Python class stand for a tensor
//! without owning elements (`Tensor._make_wrapper_subclass`): it has a shape, strides and a
//! dtype, takes part in autograd like any tensor, and every op reaching it *below* autograd is
//! handed to the class's `__torch_dispatch__(func, types, args, kwargs)`, which returns the
//! op's results (usually by running `func` on the tensors it wraps). So autograd records the
//! op at the wrapper's level, and the backward formulas, being ops on wrappers again, dispatch
//! too.
//!
//! Here such a tensor is a *wrapper*: a [`Tensor`] whose storage has no elements
//! ([`Storage::elementless`](crate::core::storage::Storage::elementless)) and that carries an
//! opaque [`Subclass`](crate::core::storage::Subclass) payload the binding owns (its class and instance state). An op that
//! supports dispatch asks [`intercept`] first, with its inputs and a description of the call
//! ([`Call`]: PyTorch's op name such as `"mul.Tensor"` and its arguments in the schema's
//! order); when any input is a wrapper, the binding's [`Handler`] computes the outputs (under
//! no-grad: the handler runs below autograd), and the op records its node on them exactly as
//! on computed outputs. Every op that does not ask touches the elements, and reading or
//! writing an elementless storage is refused with [`NoElements`](crate::core::storage::NoElements) (raised as a panic payload,
//! the binding turns it into an exception naming the op): a wrapper never silently computes on
//! missing elements.

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::storage::wrappers_made;
use crate::core::tensor::Tensor;
use std::sync::OnceLock;

/// One argument of a dispatched call, as PyTorch's schema types it.
#[derive(Clone)]
pub enum Arg {
    /// A tensor (`Tensor`).
    Tensor(Tensor),
    /// A list of tensors (`Tensor[]`).
    Tensors(Vec<Tensor>),
    /// An integer (`int`, `SymInt`).
    Int(i64),
    /// A float (`float`, `Scalar` given as a float).
    Float(f64),
    /// A boolean (`bool`).
    Bool(bool),
    /// A list of integers (`int[]`, `SymInt[]`).
    Ints(Vec<i64>),
    /// A dtype (`ScalarType`).
    DType(DType),
    /// A name PyTorch passes as an object (`torch.contiguous_format`), by its name.
    Str(&'static str),
    /// An absent optional (`None`).
    None,
}

impl From<&Tensor> for Arg {
    fn from(t: &Tensor) -> Arg {
        Arg::Tensor(t.clone())
    }
}

impl From<f64> for Arg {
    fn from(v: f64) -> Arg {
        Arg::Float(v)
    }
}

impl From<i64> for Arg {
    fn from(v: i64) -> Arg {
        Arg::Int(v)
    }
}

impl From<bool> for Arg {
    fn from(v: bool) -> Arg {
        Arg::Bool(v)
    }
}

impl From<crate::core::dtype::Scalar> for Arg {
    fn from(s: crate::core::dtype::Scalar) -> Arg {
        match s {
            crate::core::dtype::Scalar::Bool(b) => Arg::Bool(b),
            crate::core::dtype::Scalar::Int(i) => Arg::Int(i),
            crate::core::dtype::Scalar::Float(f) => Arg::Float(f),
        }
    }
}

impl From<&[usize]> for Arg {
    fn from(v: &[usize]) -> Arg {
        Arg::Ints(v.iter().map(|&d| d as i64).collect())
    }
}

/// An op call handed to the binding: PyTorch's overload name (`"mul.Tensor"`,
/// `"sum.dim_IntList"`, `"exp.default"`) and the arguments, positional then keyword.
#[derive(Clone)]
pub struct Call {
    /// `name.overload`, as `torch.ops.aten.<name>.<overload>` names it.
    pub op: &'static str,
    /// Positional arguments, in the schema's order.
    pub args: Vec<Arg>,
    /// Keyword-only arguments.
    pub kwargs: Vec<(&'static str, Arg)>,
}

impl Call {
    /// A call with positional arguments only.
    pub fn new(op: &'static str, args: Vec<Arg>) -> Call {
        Call {
            op,
            args,
            kwargs: Vec::new(),
        }
    }
}

/// Computes a dispatched call's outputs (installed by the binding).
pub type Handler = fn(&Call) -> Result<Vec<Tensor>>;

static HANDLER: OnceLock<Handler> = OnceLock::new();

/// Computes a dispatched call with a sparse COO input (the ops' sparse handler).
pub type SparseHandler = fn(&Call) -> Result<Vec<Tensor>>;

/// The handler of calls with a sparse COO input (installed by the ops that make sparse tensors).
static SPARSE_HANDLER: OnceLock<SparseHandler> = OnceLock::new();

/// Installs the handler of calls with a sparse input (once; later calls are ignored).
pub fn set_sparse_handler(handler: SparseHandler) {
    let _ = SPARSE_HANDLER.set(handler);
}

/// Installs the binding's handler (once; later calls are ignored).
pub fn set_handler(handler: Handler) {
    let _ = HANDLER.set(handler);
}

/// If any of `tensors` is a wrapper, the outputs of `call()` computed by the binding's handler;
/// `None` otherwise (the op computes them itself). Outputs the handler returns that already have
/// autograd history, or are one of `tensors`, come back as new objects over the same storage
/// ([`Tensor::unviewed`]), so the op can record
/// its node on them.
#[inline(always)]
pub fn intercept(tensors: &[&Tensor], call: impl FnOnce() -> Call) -> Option<Result<Vec<Tensor>>> {
    if !wrappers_made() || !tensors.iter().any(|t| t.subclass().is_some()) {
        return None;
    }
    Some(redispatch(tensors, call()))
}

/// [`intercept`] for an op with one output.
#[inline(always)]
pub fn intercept1(tensors: &[&Tensor], call: impl FnOnce() -> Call) -> Option<Result<Tensor>> {
    intercept(tensors, call).map(|r| {
        r.and_then(|mut outs| match outs.len() {
            1 => Ok(outs.pop().expect("one output")),
            n => Err(Error::runtime(format!(
                "__torch_dispatch__ returned {n} tensors for an op with one output"
            ))),
        })
    })
}

#[cold]
fn redispatch(inputs: &[&Tensor], call: Call) -> Result<Vec<Tensor>> {
    if inputs.iter().any(|t| t.is_sparse()) {
        // sparse COO tensors are computed by the ops' sparse handler (Note [Sparse COO tensors])
        let handler = SPARSE_HANDLER.get().ok_or_else(|| {
            Error::not_implemented(format!("{}: no handler for sparse tensors", call.op))
        })?;
        let _below_autograd = GradModeGuard::new(false);
        return handler(&call);
    }
    let handler = HANDLER.get().ok_or_else(|| {
        Error::not_implemented(format!(
            "{}: a wrapper tensor needs a dispatch handler, and none is installed",
            call.op
        ))
    })?;
    let outs = {
        let _below_autograd = GradModeGuard::new(false);
        handler(&call)?
    };
    Ok(outs
        .into_iter()
        .map(|t| {
            if t.requires_grad() || inputs.iter().any(|i| i.same(&t)) {
                t.unviewed()
            } else {
                t
            }
        })
        .collect())
}
