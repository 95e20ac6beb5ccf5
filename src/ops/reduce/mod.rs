//! Ops that reduce, scan or order the elements along dimensions.
//!
//! | file | ops |
//! |---|---|
//! | `reduction` | `sum`, `mean`, `norm`, `sum_to`, `cumsum`, and the helpers of the other reductions |
//! | `extrema` | `prod`, `max`/`min`/`amax`/`amin`/`aminmax`, `argmax`/`argmin`, `nansum` |
//! | `moments` | `var`, `std`, `var_mean`, `std_mean`, `logsumexp` |
//! | `scan` | `cumprod` |
//! | `sorting` | `sort`, `argsort`, `topk`, `kthvalue`, `median`, `mode`, `unique` |
//! | `stl` | the C++ library's orderings of ties, which `sorting` reproduces |
//! | `selection` | `nonzero`, `count_nonzero`, `masked_select`, `searchsorted`, `unique_consecutive` |

pub mod extrema;
pub mod moments;
pub mod reduction;
pub mod scan;
pub mod selection;
pub mod sorting;
pub(crate) mod stl;
