//! Floor 0: the tensor model. Dtypes, shapes and strides, element buffers (and the pool that
//! recycles large ones), storages with their version counters, the tensor handle, errors,
//! printing, the per-thread grad mode and the profiler's event recorder. Nothing here computes on elements in bulk: kernels
//! live one floor up, in `cpu/`.

pub mod buffer;
pub mod dispatch;
pub mod dtype;
pub mod error;
pub mod format;
pub mod grad_mode;
pub mod interop;
pub mod layout;
pub mod pool;
pub mod profiler;
pub mod sparse;
pub mod storage;
pub mod tensor;
