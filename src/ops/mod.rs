//! Floor 3: differentiable operations. Each file holds its ops' forward kernel calls and their
//! backward formulas side by side; formulas are written with these same ops, so they
//! differentiate again. Files follow PyTorch's categories of ops:
//!
//! | file | ops |
//! |---|---|
//! | `pointwise` | the one-tensor derivative table (`exp`, `sin`, `relu`, `lgamma`, ...), `clamp`, `polygamma`, `logit`, `clone`, `to` |
//! | `pointwise_binary` | the two-tensor table (`xlogy`, `hypot`, `atan2`) and the fused backward ops (`tanh_backward`, ...) |
//! | `pointwise_ternary` | `lerp`, `addcmul`, `addcdiv` (and in place) |
//! | `arithmetic` | `+ - * / **` with tensors and numbers, `add(alpha=)` |
//! | `activation` | `nn.functional` activations: `gelu`, `silu`, `softplus`, `leaky_relu`, `elu`, `softmax`, `log_softmax` |
//! | `attention` | fused scaled dot-product attention (one node, as PyTorch's CPU kernel) |
//! | `reduction` | `sum`, `mean`, `norm`, `prod`, `max`/`min`/`amax`/`amin`/`argmax`, `var`, `std`, `logsumexp`, `cumsum` |
//! | `comparison` | `< == ...`, `isnan`, logical ops, `any`/`all`, `maximum`, `minimum` |
//! | `indexing` | `gather`, `scatter_add`, `index_select`, `index_put`, `where`, `masked_fill` |
//! | `embedding_bag` | `embedding_bag`: sums, means or maxima of bags of rows |
//! | `subscript` | `x[...]` and `x[...] = v` |
//! | `view` | views: `view`, `reshape`, `t`, `transpose`, `expand`, `squeeze`, `select`, `slice`, `narrow`, ... |
//! | `shape` | `permute`, `flatten`, `cat`, `stack`, `split`, `chunk`, `unbind`, `flip`, `repeat` |
//! | `linalg` | `matmul`, `mm`, `mv`, `bmm`, `dot`, `outer` |
//! | `blas` | products fused with an addition: `addmm`, `addmv`, `baddbmm`; `cross` |
//! | `division` | `floor_divide` (`//`), `remainder` (`%`), `fmod` |
//! | `triangular` | `tril`, `triu`, `diagonal`, `diag`, `trace`, `eye` |
//! | `sorting` / `stl` | `sort`, `argsort`, `topk`, `kthvalue`, `median`, `mode`, `unique` / the C++ library's orderings of ties |
//! | `scan` / `roll` | `cumprod` / `roll` |
//! | `scatter` | `scatter`, `scatter_reduce`, `index_reduce`, `index_copy` |
//! | `sparse` | sparse COO tensors: `sparse_coo_tensor`, `to_dense`, `to_sparse`, `coalesce`, `sparse_mask`, `sparse.mm`, and the dispatch of other ops on them |
//! | `selection` | `nonzero`, `count_nonzero`, `masked_select`, `searchsorted`, `unique_consecutive` |
//! | `metadata` | ops that give a tensor other sizes or elements (`x.data = y`, `set_`, `resize_`, `t_`, `transpose_`, ...): they return its successor |
//! | `inplace` | the in-place machinery (version bump, rebase, CopySlices), `fill_`, `zero_`, `copy_` |
//! | `creation` / `random` | `arange`, `linspace` / the generator, `rand`, `randn`, `normal_`, `uniform_` |
//! | `loss` | losses with their own node: `mse_loss`, `huber_loss`, `smooth_l1_loss`, `binary_cross_entropy` (`_with_logits`), `nll_loss` |
//! | `normalization` | `layer_norm`, `batch_norm` (running statistics), `group_norm`, `rms_norm` |
//! | `decomposition` | `svdvals` (one-sided Jacobi SVD): the spectral and nuclear norms |
//! | `dense` | float64 matrix kernels: LU, Cholesky, triangular solves, Householder QR, Jacobi eigen, `expm` |
//! | `factorizations` | `linalg`: `lu_factor_ex`, `inv_ex`, `det`, `slogdet`, `cholesky_ex`, `qr`, `eigh`, `svd`, `matrix_exp` |
//! | `solvers` | `linalg`: `solve_ex`, `solve_triangular`, `cholesky_solve`/`_inverse`, `pinv`, `lstsq`; `cdist` |
//! | `recurrent` | one node per recurrent cell: `lstm_cell`, `gru_cell`, `rnn_cell` |
//! | `conv` / `pooling` / `upsample` | `convolution` (1-D/2-D, transposed, groups), `unfold`/`fold` / `max_pool2d`, `avg_pool2d`, adaptive pools / `interpolate` |
//! | `operators` | Rust's `+ - * /` and unary `-` on tensors and numbers, returning `Result<Tensor>` |

pub mod activation;
pub mod arithmetic;
pub mod attention;
pub mod blas;
pub mod comparison;
pub mod conv;
pub mod creation;
pub mod decomposition;
pub(crate) mod dense;
pub mod division;
pub mod embedding_bag;
pub mod factorizations;
pub mod indexing;
pub mod inplace;
pub mod linalg;
pub mod loss;
pub mod metadata;
pub mod normalization;
pub mod operators;
pub mod pointwise;
pub mod pointwise_binary;
pub mod pointwise_ternary;
pub mod pooling;
pub mod random;
pub mod recurrent;
pub mod reduction;
pub mod roll;
pub mod scan;
pub mod scatter;
pub mod selection;
pub mod shape;
pub mod solvers;
pub mod sorting;
pub mod sparse;
pub(crate) mod stl;
pub(crate) mod strided;
pub mod subscript;
pub mod triangular;
pub mod upsample;
pub mod view;

pub use arithmetic::{BinaryOp, Operand};
pub use subscript::IndexItem;

use crate::core::dtype::{DType, Element, Num};
use crate::core::tensor::Tensor;

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
