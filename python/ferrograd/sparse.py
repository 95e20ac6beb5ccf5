"""``torch.sparse``: functions of sparse COO tensors (``Tensor.to_sparse``,
``torch.sparse_coo_tensor``)."""

from . import _core


def mm(mat1, mat2, reduce=None):
    """The matrix product of a sparse matrix with a dense or sparse one (a dense result);
    gradients flow to both, a sparse operand's gradient sparse."""
    if reduce is not None:
        raise NotImplementedError("torch.sparse.mm(reduce=...): only the plain sum is supported")
    return _core._sparse_mm(mat1, mat2)


def spmm(input, mat2):
    """``torch.spmm``: the product of a sparse matrix and a dense one (as ``mm``)."""
    return input.mm(mat2)


def sum(input, dim=None, dtype=None):
    """The sum of a sparse tensor's elements (over ``dim``), as a dense tensor."""
    dense = input.to_dense()
    if dtype is not None:
        dense = dense.to(dtype)
    return dense.sum() if dim is None else dense.sum(dim)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` with ``mat1`` sparse."""
    return mat * beta + _core._sparse_mm(mat1, mat2) * alpha


__all__ = ["addmm", "mm", "spmm", "sum"]
