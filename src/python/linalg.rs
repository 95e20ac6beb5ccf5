//! Bindings of `crate::ops::linalg::factorizations` and `crate::ops::linalg::solvers` (the
//! decompositions and solvers of `torch.linalg`, `cdist`); their failures raise
//! `_LinAlgError` (see `errors`). They return plain tuples; `ferrograd.linalg` gives them
//! PyTorch's signatures and named tuples.

use super::convert::tensor_arg;
use super::errors::run;
use super::tensor::{to_object, wrap, TResult};
use crate::core::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A tuple of tensors.
fn tuple(py: Python<'_>, items: Vec<Tensor>) -> PyResult<Py<PyAny>> {
    let objects: Vec<Py<PyAny>> = items
        .into_iter()
        .map(|t| to_object(py, t))
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, objects)?.into_any().unbind())
}

/// `(LU, pivots, info)` of LU with partial pivoting.
#[pyfunction]
#[pyo3(signature = (a: "Tensor", check_errors: "bool" = false) -> "tuple[Tensor, Tensor, Tensor]")]
pub(crate) fn linalg_lu_factor_ex(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    check_errors: bool,
) -> TResult {
    let a = tensor_arg(a, "linalg.lu_factor_ex(): argument 'A'")?;
    let (lu, p, info) = run(|| a.linalg_lu_factor_ex(check_errors))?;
    tuple(py, vec![lu, p, info])
}

/// `(inverse, info)`.
#[pyfunction]
#[pyo3(signature = (a: "Tensor", check_errors: "bool" = false) -> "tuple[Tensor, Tensor]")]
pub(crate) fn linalg_inv_ex(py: Python<'_>, a: &Bound<'_, PyAny>, check_errors: bool) -> TResult {
    let a = tensor_arg(a, "linalg.inv_ex(): argument 'A'")?;
    let (x, info) = run(|| a.linalg_inv_ex(check_errors))?;
    tuple(py, vec![x, info])
}

/// The determinant of each matrix.
#[pyfunction]
#[pyo3(signature = (a: "Tensor") -> "Tensor")]
pub(crate) fn linalg_det(a: &Bound<'_, PyAny>) -> TResult {
    let a = tensor_arg(a, "linalg.det(): argument 'A'")?;
    wrap(run(|| a.linalg_det()))
}

/// `(sign, logabsdet)`.
#[pyfunction]
#[pyo3(signature = (a: "Tensor") -> "tuple[Tensor, Tensor]")]
pub(crate) fn linalg_slogdet(py: Python<'_>, a: &Bound<'_, PyAny>) -> TResult {
    let a = tensor_arg(a, "linalg.slogdet(): argument 'A'")?;
    let (s, l) = run(|| a.linalg_slogdet())?;
    tuple(py, vec![s, l])
}

/// `(L, info)` of the Cholesky factorization.
#[pyfunction]
#[pyo3(signature = (a: "Tensor", upper: "bool" = false, check_errors: "bool" = false) -> "tuple[Tensor, Tensor]")]
pub(crate) fn linalg_cholesky_ex(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    upper: bool,
    check_errors: bool,
) -> TResult {
    let a = tensor_arg(a, "linalg.cholesky_ex(): argument 'A'")?;
    let (l, info) = run(|| a.linalg_cholesky_ex(upper, check_errors))?;
    tuple(py, vec![l, info])
}

/// `(Q, R)` of the Householder QR.
#[pyfunction]
#[pyo3(signature = (a: "Tensor", mode: "str" = "reduced") -> "tuple[Tensor, Tensor]")]
pub(crate) fn linalg_qr(py: Python<'_>, a: &Bound<'_, PyAny>, mode: &str) -> TResult {
    let a = tensor_arg(a, "linalg.qr(): argument 'A'")?;
    let (q, r) = run(|| a.linalg_qr(mode))?;
    tuple(py, vec![q, r])
}

/// `(eigenvalues, eigenvectors)` of symmetric matrices.
#[pyfunction]
#[pyo3(signature = (a: "Tensor", uplo: "str" = "L") -> "tuple[Tensor, Tensor]")]
pub(crate) fn linalg_eigh(py: Python<'_>, a: &Bound<'_, PyAny>, uplo: &str) -> TResult {
    let a = tensor_arg(a, "linalg.eigh(): argument 'A'")?;
    let (w, v) = run(|| a.linalg_eigh(uplo))?;
    tuple(py, vec![w, v])
}

/// `(U, S, Vh)`.
#[pyfunction]
#[pyo3(signature = (a: "Tensor", full_matrices: "bool" = true) -> "tuple[Tensor, Tensor, Tensor]")]
pub(crate) fn linalg_svd(py: Python<'_>, a: &Bound<'_, PyAny>, full_matrices: bool) -> TResult {
    let a = tensor_arg(a, "linalg.svd(): argument 'A'")?;
    let (u, s, vh) = run(|| a.linalg_svd(full_matrices))?;
    tuple(py, vec![u, s, vh])
}

/// `e^A`.
#[pyfunction]
#[pyo3(signature = (a: "Tensor") -> "Tensor")]
pub(crate) fn linalg_matrix_exp(a: &Bound<'_, PyAny>) -> TResult {
    let a = tensor_arg(a, "linalg.matrix_exp(): argument 'A'")?;
    wrap(run(|| a.linalg_matrix_exp()))
}

/// `(X, info)` with `AX = B` (or `XA = B`).
#[pyfunction]
#[pyo3(signature = (a: "Tensor", b: "Tensor", left: "bool" = true, check_errors: "bool" = false) -> "tuple[Tensor, Tensor]")]
pub(crate) fn linalg_solve_ex(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    left: bool,
    check_errors: bool,
) -> TResult {
    let a = tensor_arg(a, "linalg.solve_ex(): argument 'A'")?;
    let b = tensor_arg(b, "linalg.solve_ex(): argument 'B'")?;
    let (x, info) = run(|| a.linalg_solve_ex(&b, left, check_errors))?;
    tuple(py, vec![x, info])
}

/// `X` with `AX = B` (or `XA = B`) for triangular `A`.
#[pyfunction]
#[pyo3(signature = (a: "Tensor", b: "Tensor", upper: "bool", left: "bool" = true, unitriangular: "bool" = false) -> "Tensor")]
pub(crate) fn linalg_solve_triangular(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    upper: bool,
    left: bool,
    unitriangular: bool,
) -> TResult {
    let a = tensor_arg(a, "linalg.solve_triangular(): argument 'A'")?;
    let b = tensor_arg(b, "linalg.solve_triangular(): argument 'B'")?;
    wrap(run(|| {
        a.linalg_solve_triangular(&b, upper, left, unitriangular)
    }))
}

/// `X` with `(L Lᴴ) X = B`.
#[pyfunction]
#[pyo3(signature = (b: "Tensor", l: "Tensor", upper: "bool" = false) -> "Tensor")]
pub(crate) fn cholesky_solve(b: &Bound<'_, PyAny>, l: &Bound<'_, PyAny>, upper: bool) -> TResult {
    let b = tensor_arg(b, "cholesky_solve(): argument 'input'")?;
    let l = tensor_arg(l, "cholesky_solve(): argument 'input2'")?;
    wrap(run(|| b.cholesky_solve(&l, upper)))
}

/// `(L Lᴴ)⁻¹`.
#[pyfunction]
#[pyo3(signature = (l: "Tensor", upper: "bool" = false) -> "Tensor")]
pub(crate) fn cholesky_inverse(l: &Bound<'_, PyAny>, upper: bool) -> TResult {
    let l = tensor_arg(l, "cholesky_inverse(): argument 'input'")?;
    wrap(run(|| l.cholesky_inverse(upper)))
}

/// The pseudo-inverse.
#[pyfunction]
#[pyo3(signature = (a: "Tensor", atol: "float | None" = None, rtol: "float | None" = None) -> "Tensor")]
pub(crate) fn linalg_pinv(a: &Bound<'_, PyAny>, atol: Option<f64>, rtol: Option<f64>) -> TResult {
    let a = tensor_arg(a, "linalg.pinv(): argument 'input'")?;
    wrap(run(|| a.linalg_pinv(atol, rtol)))
}

/// `(solution, residuals, rank, singular_values)`.
#[pyfunction]
#[pyo3(signature = (a: "Tensor", b: "Tensor", rcond: "float | None" = None) -> "tuple[Tensor, Tensor, Tensor, Tensor]")]
pub(crate) fn linalg_lstsq(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    rcond: Option<f64>,
) -> TResult {
    let a = tensor_arg(a, "linalg.lstsq(): argument 'A'")?;
    let b = tensor_arg(b, "linalg.lstsq(): argument 'B'")?;
    let outs = run(|| a.linalg_lstsq(&b, rcond))?;
    tuple(py, outs.to_vec())
}

/// Pairwise `p`-norm distances, pair by pair.
#[pyfunction]
#[pyo3(signature = (x1: "Tensor", x2: "Tensor", p: "float" = 2.0) -> "Tensor")]
pub(crate) fn cdist_direct(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>, p: f64) -> TResult {
    let x1 = tensor_arg(x1, "cdist(): argument 'x1'")?;
    let x2 = tensor_arg(x2, "cdist(): argument 'x2'")?;
    wrap(run(|| x1.cdist(&x2, p)))
}

/// Euclidean distances through a matrix product.
#[pyfunction]
#[pyo3(signature = (x1: "Tensor", x2: "Tensor") -> "Tensor")]
pub(crate) fn _euclidean_dist(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>) -> TResult {
    let x1 = tensor_arg(x1, "_euclidean_dist(): argument 'x1'")?;
    let x2 = tensor_arg(x2, "_euclidean_dist(): argument 'x2'")?;
    wrap(run(|| x1.euclidean_dist(&x2)))
}
