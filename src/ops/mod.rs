//! Floor 3: differentiable operations. Each file holds its ops' checks, the calls into
//! `crate::cpu`, the recording of the node and the backward formula side by side; formulas are
//! written with these same ops, so they differentiate again. The ops live in families, one
//! folder each (its `mod.rs` says which op is in which file), following PyTorch's categories:
//!
//! | family | ops |
//! |---|---|
//! | `pointwise/` | the one-tensor and two-tensor derivative tables, `+ - * / **`, comparisons and logical ops, `//` `%` `fmod`, `lerp`/`addcmul`/`addcdiv` |
//! | `reduce/` | reductions (`sum`, `mean`, `var`, `max`, `logsumexp`, ...), scans, sorting and `unique`, selections (`nonzero`, `masked_select`, `searchsorted`) |
//! | `shape/` | views, reshapes and joins, strided views, `x[...]`, gathers and scatters, triangles and diagonals, `roll`, ops that replace a tensor's metadata |
//! | `linalg/` | matrix products (plain and fused with an addition), dense float64 kernels, factorizations and solvers |
//! | `nn/` | `nn.functional`'s ops with their own nodes: convolution, pooling, resampling, normalization, recurrent cells, attention, losses, activations, `embedding_bag` |
//!
//! and, beside the families:
//!
//! | file | holds |
//! |---|---|
//! | `inplace` | the in-place machinery (version bump, rebase, CopySlices), `fill_`, `zero_`, `copy_` |
//! | `creation` / `random` | `arange`, `linspace` / the generator, `rand`, `randn`, `normal_`, `uniform_` |
//! | `sparse` | sparse COO tensors: `sparse_coo_tensor`, `to_dense`, `to_sparse`, `coalesce`, `sparse_mask`, `sparse.mm`, and the dispatch of other ops on them |
//! | `operators` | Rust's `+ - * /` and unary `-` on tensors and numbers, returning `Result<Tensor>` |
//! | this file | the result-type rules shared by every family (`result_type`, `sum_dtype`, `float_dtype`) |

pub mod creation;
pub mod inplace;
pub mod linalg;
pub mod nn;
pub mod operators;
pub mod pointwise;
pub mod random;
pub mod reduce;
pub mod shape;
pub mod sparse;

pub use pointwise::arithmetic::BinaryOp;
pub use shape::subscript::IndexItem;

use crate::core::dtype::{DType, Element, Num, Scalar};
use crate::core::tensor::Tensor;

/// One side of a binary op: a tensor or a Python number.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// A tensor operand.
    Tensor(&'a Tensor),
    /// A scalar operand (takes part in type promotion by category only).
    Scalar(Scalar),
}

impl<'a> Operand<'a> {
    /// The tensor, if this operand is one (as the list of an op's tensor inputs).
    pub fn tensors(self) -> Vec<&'a Tensor> {
        match self {
            Operand::Tensor(t) => vec![t],
            Operand::Scalar(_) => vec![],
        }
    }
}

/// Element types with the arithmetic the binary kernels need.
pub trait Arith: Num + std::ops::Div<Output = Self> + crate::core::buffer::BufferElement {
    /// `self` to the power `e` (integers: through f64, as PyTorch's integer pow rounds toward zero).
    fn power(self, e: Self) -> Self;
}

impl Arith for i64 {
    fn power(self, e: Self) -> Self {
        if e >= 0 {
            self.wrapping_pow(e.min(u32::MAX as i64) as u32)
        } else {
            (self as f64).powf(e as f64) as i64
        }
    }
}

/// The narrow integers raise as int64 does and wrap back (powers modulo 2^bits agree).
macro_rules! narrow_int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn power(self, e: Self) -> Self {
                (self as i64).power(e as i64) as $t
            }
        }
    )*};
}
narrow_int_arith!(u8, i8, i16, i32);

impl Arith for f32 {
    fn power(self, e: Self) -> Self {
        self.powf(e)
    }
}

impl Arith for f64 {
    fn power(self, e: Self) -> Self {
        self.powf(e)
    }
}

/// PyTorch's result type of an op on two tensors: dimensioned tensors outrank 0-d ones,
/// which count only when they are of a higher category (bool < integer < float).
pub fn result_type(a: &Tensor, b: &Tensor) -> DType {
    let (da, db) = (a.dtype(), b.dtype());
    match (a.dim() == 0, b.dim() == 0) {
        (true, false) if da.category() <= db.category() => db,
        (false, true) if db.category() <= da.category() => da,
        (true, false) if db.category() < da.category() && da.is_floating_point() => {
            // a 0-d float with an integer tensor: the float's own width
            da
        }
        (false, true) if da.category() < db.category() && db.is_floating_point() => db,
        _ => DType::promote(da, db),
    }
}

/// The dtype sums and products accumulate in: int64 for bool and every integer dtype.
pub fn sum_dtype(d: DType) -> DType {
    if d.is_floating_point() {
        d
    } else {
        DType::Int64
    }
}

/// The floating dtype an op that always produces floats (exp, division, ...) computes in.
pub fn float_dtype(d: DType) -> DType {
    if d.is_floating_point() {
        d
    } else {
        crate::core::dtype::default_float()
    }
}

/// Converts a value to the element type; shared by kernels that take an `f64` scalar. A whole
/// number wraps into an integer type as PyTorch's scalar conversion does (`int8 + 200` adds
/// -56).
pub(crate) fn elem<T: Element>(v: f64) -> T {
    if T::DTYPE.is_integer() && v.fract() == 0.0 && v.abs() < 9.2e18 {
        T::from_i64(v as i64)
    } else {
        T::from_f64(v)
    }
}

/// A dense copy of `t`'s elements when it is not already dense (no history).
pub(crate) fn dense(t: &Tensor) -> Tensor {
    if t.is_contiguous() {
        t.detach()
    } else {
        t.deep_copy()
    }
}

/// Runs `f` on the elements of the dense tensor `t`.
pub(crate) fn slice_of<T: crate::core::buffer::BufferElement, R>(
    t: &Tensor,
    f: impl FnOnce(&[T]) -> R,
) -> R {
    t.read(|d: &[T], l| f(&d[l.contiguous_range().expect("a dense tensor")]))
}
