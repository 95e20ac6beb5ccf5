//! Ops that reduce, scan or order the elements along dimensions.
//!
//! | file | ops |
//! |---|---|
//! | `reduction` | `sum`, `mean`, `norm`, `prod`, `max`/`min`/`amax`/`amin`/`argmax`, `var`, `std`, `logsumexp`, `cumsum` |
//! | `scan` | `cumprod` |
//! | `sorting` | `sort`, `argsort`, `topk`, `kthvalue`, `median`, `mode`, `unique` |
//! | `stl` | the C++ library's orderings of ties, which `sorting` reproduces |
//! | `selection` | `nonzero`, `count_nonzero`, `masked_select`, `searchsorted`, `unique_consecutive` |

pub mod reduction;
pub mod scan;
pub mod selection;
pub mod sorting;
pub(crate) mod stl;
