//! Matrix products and `torch.linalg`.
//!
//! | file | ops |
//! |---|---|
//! | `products` | `matmul`, `mm`, `mv`, `bmm`, `dot`, `outer` |
//! | `blas` | products fused with an addition: `addmm`, `addmv`, `baddbmm`; `cross` |
//! | `dense` | float64 matrix kernels: LU, Cholesky, triangular solves, Householder QR, Jacobi eigen, `expm` |
//! | `decomposition` | `svdvals` (one-sided Jacobi SVD): the spectral and nuclear norms |
//! | `factorizations` | `lu_factor_ex`, `inv_ex`, `det`, `slogdet`, `cholesky_ex`, `qr`, `eigh`, `svd`, `matrix_exp` |
//! | `solvers` | `solve_ex`, `solve_triangular`, `cholesky_solve`/`_inverse`, `pinv`, `lstsq`; `cdist` |

pub mod blas;
pub mod decomposition;
pub(crate) mod dense;
pub mod factorizations;
pub mod products;
pub mod solvers;
