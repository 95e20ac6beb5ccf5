//! Ops that move, select or gather elements without computing new values.
//!
//! | file | ops |
//! |---|---|
//! | `view` | views: `view`, `reshape`, `t`, `transpose`, `expand`, `squeeze`, `select`, `slice`, `narrow`, ... |
//! | `rearrange` | `permute`, `flatten`, `cat`, `stack`, `split`, `chunk`, `unbind`, `flip`, `repeat` |
//! | `strided` | `as_strided` and the strided-view helpers |
//! | `subscript` | `x[...]` and `x[...] = v` |
//! | `indexing` | `gather`, `scatter_add`, `index_select`, `index_put`, `where`, `masked_fill` |
//! | `scatter` | `scatter`, `scatter_reduce`, `index_reduce`, `index_copy` |
//! | `triangular` | `tril`, `triu`, `diagonal`, `diag`, `trace`, `eye` |
//! | `roll` | `roll` |
//! | `metadata` | ops that give a tensor other sizes or elements (`x.data = y`, `set_`, `resize_`, `t_`, `transpose_`, ...): they return its successor |

pub mod indexing;
pub mod metadata;
pub mod rearrange;
pub mod roll;
pub mod scatter;
pub(crate) mod strided;
pub mod subscript;
pub mod triangular;
pub mod view;
