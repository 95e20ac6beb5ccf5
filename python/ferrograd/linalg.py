"""``ferrograd.linalg``: PyTorch's ``torch.linalg`` norms and ``cross``.

``vector_norm`` is one core op (``LinalgVectorNormBackward0``, any ``ord``: ``±inf``, ``0``,
negative or positive); ``matrix_norm`` composes it as PyTorch does (``'fro'``: the vector 2-norm
over the two dims; ``1``/``inf``: the largest column/row sum of magnitudes, ``-1``/``-inf`` the
smallest); ``'nuc'``, ``2`` and ``-2`` reduce the singular values (``svdvals``, a core op:
``LinalgSvdBackward0``, first derivatives only).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Union

from . import _core
from ._core import Tensor

__all__ = ["cross", "matrix_norm", "norm", "svdvals", "vector_norm"]

_Dims = Union[int, Sequence[int], None]

_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _dtype_name(dtype) -> str:
    return _NAMES.get(str(dtype).replace("torch.", ""), str(dtype))


def _check_dtype(x: Tensor, dtype, op: str) -> None:
    """PyTorch's check of a norm's ``dtype=``: the input converts to it without narrowing."""
    if dtype is None or dtype == x.dtype:
        return
    order = ["bool", "int64", "float32", "float64"]
    here, there = str(x.dtype).replace("torch.", ""), str(dtype).replace("torch.", "")
    if here in order and there in order and order.index(there) < order.index(here):
        raise RuntimeError(
            f"linalg.{op}: the dtype of the input ({_dtype_name(x.dtype)}) should be convertible "
            f"without narrowing to the specified dtype ({_dtype_name(dtype)})"
        )


def _dim_list(dim: _Dims) -> list[int] | None:
    if dim is None:
        return None
    if isinstance(dim, int):
        return [dim]
    return list(dim)


def vector_norm(
    x: Tensor,
    ord: float = 2,
    dim: _Dims = None,
    keepdim: bool = False,
    *,
    dtype=None,
) -> Tensor:
    """The ``ord``-norm of the elements over ``dim`` (all when ``None``): ``(Σ|x|^ord)^(1/ord)``;
    ``inf``/``-inf`` the largest/smallest magnitude, ``0`` the number of non-zeros."""
    if not isinstance(x, Tensor):
        raise TypeError(
            f"linalg.vector_norm(): argument 'x' must be Tensor, not {type(x).__name__}"
        )
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    _check_dtype(x, dtype, "vector_norm")
    return x.norm(float(ord), _dim_list(dim), keepdim, dtype)


def _matrix_dims(A: Tensor, dim: Sequence[int]) -> tuple[int, int]:
    dims = list(dim)
    if len(dims) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}"
        )
    n = A.dim()
    d0, d1 = (d + n if d < 0 else d for d in dims)
    for d, given in ((d0, dims[0]), (d1, dims[1])):
        if not 0 <= d < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got "
                f"{given})"
            )
    if d0 == d1:
        raise RuntimeError(
            f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})"
        )
    return d0, d1


def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """The singular values of each matrix in the last two dims, in descending order."""
    return _core.svdvals(A)


def _spectral(A, d0, d1, keepdim, dtype, ord):
    """The nuclear norm (sum of singular values) or the largest/smallest singular value, over
    the dims ``d0, d1`` (PyTorch: ``svdvals`` then ``sum``/``amax``/``amin``)."""
    if dtype is not None:
        A = A.to(dtype)
    rest = [i for i in range(A.dim()) if i not in (d0, d1)]
    values = _core.svdvals(A.permute(*rest, d0, d1))
    if ord == "nuc":
        out = values.sum(-1)
    else:
        out = values.amax(-1) if ord > 0 else values.amin(-1)
    if keepdim:
        for d in sorted((d0, d1)):
            out = out.unsqueeze(d)
    return out


def matrix_norm(
    A: Tensor,
    ord: float | str = "fro",
    dim: tuple[int, int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype=None,
) -> Tensor:
    """A matrix norm over the two dims ``dim``: ``'fro'`` (Frobenius), ``'nuc'`` (sum of the
    singular values), ``2``/``-2`` (largest or smallest singular value), ``1``/``-1`` (largest or
    smallest column sum of magnitudes), ``inf``/``-inf`` (row sums)."""
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    d0, d1 = _matrix_dims(A, dim)
    _check_dtype(A, dtype, "matrix_norm")
    if isinstance(ord, str):
        if ord == "fro":
            return A.norm(2.0, [d0, d1], keepdim, dtype)
        if ord == "nuc":
            return _spectral(A, d0, d1, keepdim, dtype, "nuc")
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if abs(ord) == 2:
        return _spectral(A, d0, d1, keepdim, dtype, ord)
    if abs(ord) not in (1, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    # the inf-norm is the 1-norm of the transpose: sum magnitudes over the other dim
    if math.isinf(ord):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = A.norm(1.0, [d0], keepdim, dtype)
    return sums.amax(d1, keepdim) if ord > 0 else sums.amin(d1, keepdim)


def norm(
    A: Tensor,
    ord: float | str | None = None,
    dim: _Dims = None,
    keepdim: bool = False,
    *,
    dtype=None,
) -> Tensor:
    """``vector_norm`` or ``matrix_norm`` as PyTorch chooses: a matrix norm for two dims (or a
    2-D input with ``ord`` and no ``dim``), else a vector norm (2 by default, over everything)."""
    dims = _dim_list(dim)
    if dims is not None:
        if len(dims) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}"
            )
    elif ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{A.dim()}D."
        )
    if ord is None:
        return vector_norm(A, 2, dims, keepdim, dtype=dtype)
    if (dims is not None and len(dims) == 2) or (dims is None and A.dim() == 2):
        pair = (dims[0], dims[1]) if dims else (-2, -1)
        return matrix_norm(A, ord, pair, keepdim, dtype=dtype)
    if isinstance(ord, str):
        # a vector with a matrix order: PyTorch hands it to matrix_norm, which refuses
        return matrix_norm(A, ord, keepdim=keepdim, dtype=dtype)
    return vector_norm(A, ord, dims, keepdim, dtype=dtype)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (inputs broadcast)."""
    return input.cross(other, dim)
