//! Floor 1: CPU execution. Elementwise and reduction kernels with their instruction-set
//! dispatch, fast float maths, the AVX-512 matrix product, the thread pool and parallel loops,
//! and the process allocator. Kernels read and write [`crate::core`] tensors; they know nothing
//! of autograd.

pub mod activation;
pub mod allocator;
pub mod bags;
pub mod boxmuller;
pub mod conv;
pub mod fastmath;
pub mod gelu;
pub mod gemm;
pub mod kernels;
pub mod lstm;
pub mod moments;
pub mod norm;
pub mod parallel;
pub mod pool;
pub mod sgemm;
pub mod sparse;
pub mod special;
mod team;
#[cfg(target_arch = "x86_64")]
pub mod vmath;
