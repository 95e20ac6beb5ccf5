//! Sparse COO tensors from Python: `torch.sparse_coo_tensor` and the methods of the sparse
//! layout (the core's Note [Sparse COO tensors]).

use super::convert::{dtype_arg, tensor_from_data};
use super::errors::run;
use super::tensor::{wrap, PyTensor, TResult};
use crate::core::tensor::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError};
use pyo3::prelude::*;

/// A tensor argument given as a tensor or as data (lists, arrays).
fn data_arg(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    match obj.cast::<PyTensor>() {
        Ok(t) => Ok(t.get().inner.clone()),
        Err(_) => tensor_from_data(obj, None),
    }
}

/// `torch.sparse_coo_tensor(indices, values, size=None)`: a sparse COO tensor holding `values`
/// at `indices` (one row per sparse dimension); without `size`, each sparse dimension is one
/// more than its largest index.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (indices: "Any", values: "Any", size: "Sequence[int] | None" = None, *, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, pin_memory: "bool" = false, requires_grad: "bool" = false, check_invariants: "bool | None" = None, is_coalesced: "bool | None" = None) -> "Tensor")]
pub(crate) fn sparse_coo_tensor(
    indices: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
    size: Option<Vec<usize>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    pin_memory: bool,
    requires_grad: bool,
    check_invariants: Option<bool>,
    is_coalesced: Option<bool>,
) -> TResult {
    let _ = (pin_memory, check_invariants, is_coalesced);
    super::convert::device_arg(device)?;
    let indices = data_arg(indices)?;
    let mut values = data_arg(values)?;
    if let Some(d) = dtype_arg(dtype)? {
        values = run(|| values.to_dtype(d))?;
    }
    let shape = match size {
        Some(s) => s,
        None => run(|| inferred_size(&indices, &values))?,
    };
    let t = run(|| Tensor::sparse_coo(&indices, &values, &shape))?;
    if requires_grad {
        run(|| t.set_requires_grad(true))?;
    }
    wrap(Ok(t))
}

/// The size PyTorch infers: one more than the largest index of each sparse dimension, then
/// the values' dense dimensions.
fn inferred_size(indices: &Tensor, values: &Tensor) -> crate::Result<Vec<usize>> {
    let sparse_dim = indices.shape().first().copied().unwrap_or(0);
    let mut shape = Vec::with_capacity(sparse_dim + values.dim().saturating_sub(1));
    for d in 0..sparse_dim {
        let row = indices.select(0, d as isize)?;
        let extent = if row.numel() == 0 {
            0
        } else {
            row.max()?.item()?.to_f64() as usize + 1
        };
        shape.push(extent);
    }
    shape.extend_from_slice(values.shape().get(1..).unwrap_or(&[]));
    Ok(shape)
}

#[pymethods]
impl PyTensor {
    /// Whether the tensor is a sparse COO tensor.
    #[getter]
    // stub: -> bool
    fn is_sparse(&self) -> bool {
        self.inner.is_sparse()
    }
    /// The dense tensor of a sparse one (a dense tensor is returned as is).
    #[pyo3(signature = (dtype: "_DTypeLike | None" = None, *, masked_grad: "bool | None" = None) -> "Tensor")]
    fn to_dense(&self, dtype: Option<&Bound<'_, PyAny>>, masked_grad: Option<bool>) -> TResult {
        let _ = masked_grad;
        let dtype = dtype_arg(dtype)?;
        wrap(run(|| {
            let dense = self.inner.to_dense()?;
            match dtype {
                Some(d) => dense.to_dtype(d),
                None => Ok(dense),
            }
        }))
    }
    /// The sparse COO tensor of a dense one: its first `sparse_dim` dimensions sparse (all by
    /// default; `dense_dim` counts the others), slices of zeros not stored.
    #[pyo3(signature = (sparse_dim: "int | None" = None, *, layout: "Any" = None, blocksize: "Any" = None, dense_dim: "int | None" = None) -> "Tensor")]
    fn to_sparse(
        &self,
        sparse_dim: Option<isize>,
        layout: Option<&Bound<'_, PyAny>>,
        blocksize: Option<&Bound<'_, PyAny>>,
        dense_dim: Option<isize>,
    ) -> TResult {
        let _ = blocksize;
        if let Some(layout) = layout {
            let name = layout.repr()?.to_string();
            if name != "torch.sparse_coo" {
                return Err(PyNotImplementedError::new_err(format!(
                    "to_sparse(layout={name}): ferrograd has only the sparse COO layout"
                )));
            }
        }
        let dim = self.inner.dim() as isize;
        let sparse_dim = match (sparse_dim, dense_dim) {
            (Some(s), _) => s,
            (None, Some(d)) => dim - d,
            (None, None) if self.inner.is_sparse() => self.inner.sparse_dim() as isize,
            (None, None) => dim,
        };
        if sparse_dim < 0 || sparse_dim > dim {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "dense_to_sparse: sparse_dim argument must be in [0,{dim}] range, but \
                 {sparse_dim} is given"
            )));
        }
        wrap(run(|| self.inner.to_sparse_dims(sparse_dim as usize)))
    }
    /// `to_sparse_coo()`: the same as `to_sparse()`.
    #[pyo3(signature = () -> "Tensor")]
    fn to_sparse_coo(&self) -> TResult {
        wrap(run(|| self.inner.to_sparse()))
    }
    /// The coalesced form of a sparse tensor: indices sorted, duplicates summed.
    #[pyo3(signature = () -> "Tensor")]
    fn coalesce(&self) -> TResult {
        wrap(run(|| self.inner.coalesce()))
    }
    /// Whether a sparse tensor's indices are sorted and distinct.
    #[pyo3(signature = () -> "bool")]
    fn is_coalesced(&self) -> PyResult<bool> {
        run(|| self.inner.is_coalesced())
    }
    /// The indices of a sparse tensor, `sparse_dim x nnz` (uncoalesced ones too).
    #[pyo3(signature = () -> "Tensor")]
    fn _indices(&self) -> TResult {
        wrap(run(|| self.inner.sparse_indices()))
    }
    /// The stored values of a sparse tensor (uncoalesced ones too).
    #[pyo3(signature = () -> "Tensor")]
    fn _values(&self) -> TResult {
        wrap(run(|| self.inner.sparse_values()))
    }
    /// The indices of a coalesced sparse tensor.
    #[pyo3(signature = () -> "Tensor")]
    fn indices(&self) -> TResult {
        if !run(|| self.inner.is_coalesced())? {
            return Err(PyRuntimeError::new_err(
                "Cannot get indices on an uncoalesced tensor, please call .coalesce() first",
            ));
        }
        wrap(run(|| self.inner.sparse_indices()))
    }
    /// The stored values of a coalesced sparse tensor (differentiable).
    #[pyo3(signature = () -> "Tensor")]
    fn values(&self) -> TResult {
        wrap(run(|| self.inner.coalesced_values()))
    }
    /// The number of stored elements of a sparse tensor.
    #[pyo3(signature = () -> "int")]
    fn _nnz(&self) -> PyResult<usize> {
        run(|| self.inner.nnz())
    }
    /// The number of sparse dimensions (0 for a dense tensor).
    #[pyo3(signature = () -> "int")]
    fn sparse_dim(&self) -> usize {
        self.inner.sparse_dim()
    }
    /// The number of dense dimensions (all of a dense tensor's).
    #[pyo3(signature = () -> "int")]
    fn dense_dim(&self) -> usize {
        self.inner.dim() - self.inner.sparse_dim()
    }
    /// This tensor's values at the stored positions of the sparse tensor `mask`.
    #[pyo3(signature = (mask: "Tensor") -> "Tensor")]
    fn sparse_mask(&self, mask: &Bound<'_, PyAny>) -> TResult {
        let mask = super::convert::tensor_arg(mask, "sparse_mask() argument 'mask'")?;
        wrap(run(|| self.inner.sparse_mask(&mask)))
    }
}

/// `torch.sparse.mm(mat1, mat2)`: the product, a sparse `mat1`'s gradient sparse
/// (`SparseAddmmBackward0`).
#[pyfunction]
#[pyo3(signature = (mat1: "Tensor", mat2: "Tensor") -> "Tensor")]
pub(crate) fn _sparse_mm(mat1: &Bound<'_, PyAny>, mat2: &Bound<'_, PyAny>) -> TResult {
    let a = super::convert::tensor_arg(mat1, "sparse.mm() argument 'mat1'")?;
    let b = super::convert::tensor_arg(mat2, "sparse.mm() argument 'mat2'")?;
    wrap(run(|| a.sparse_mm(&b)))
}
