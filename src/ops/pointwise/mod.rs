//! Pointwise ops: each output element from the elements at the same place of the inputs.
//!
//! | file | ops |
//! |---|---|
//! | `unary` | the one-tensor derivative table (`exp`, `sin`, `relu`, `lgamma`, ...), `clamp`, `polygamma`, `logit`, `clone`, `to` |
//! | `binary` | the two-tensor table (`xlogy`, `hypot`, `atan2`) and the fused backward ops (`tanh_backward`, ...) |
//! | `ternary` | `lerp`, `addcmul`, `addcdiv` (and in place) |
//! | `arithmetic` | `+ - * / **` with tensors and numbers, `add(alpha=)` |
//! | `comparison` | `< == ...`, `isnan`, logical ops, `any`/`all`, `maximum`, `minimum` |
//! | `division` | `floor_divide` (`//`), `remainder` (`%`), `fmod` |

pub mod arithmetic;
pub mod binary;
pub mod comparison;
pub mod division;
pub mod ternary;
pub mod unary;
