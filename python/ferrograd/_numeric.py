"""Counting and index functions PyTorch users reach for from NumPy habits, composed of core ops
as PyTorch composes or defines them: ``nanmean`` (``nansum`` over the count of non-NaN
elements: a ``DivBackward0`` node, as PyTorch's), ``bincount`` (an ``index_add`` of ones or
weights into zeros) and ``tril_indices`` / ``triu_indices`` (the nonzero places of a
triangle, in PyTorch's row-major order). ``_install`` makes ``nanmean`` and ``bincount``
``Tensor`` methods, as PyTorch has them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import _core
from ._core import Tensor

if TYPE_CHECKING:
    from ._core import _DType

__all__ = ["bincount", "nanmean", "tril_indices", "triu_indices"]


def nanmean(
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: _DType | None = None,
    out: Tensor | None = None,
) -> Tensor:
    """The mean of the elements that are not NaN (NaN where a lane holds only NaN)."""
    if not input.is_floating_point():
        name = {"torch.int64": "Long", "torch.bool": "Bool"}.get(str(input.dtype), input.dtype)
        raise NotImplementedError(
            f"nanmean(): expected input to have floating point or complex dtype but got {name}"
        )

    def compute():
        count = input.isnan().logical_not().sum(dim, keepdim)
        return input.nansum(dim, keepdim, dtype=dtype).div(count)

    if out is None:
        return compute()
    return _core._with_out("nanmean", out, [input], compute)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each non-negative integer occurs in the 1-d ``input`` (or the sum of its
    ``weights``): a tensor of length ``max(input) + 1``, at least ``minlength``. Counts are
    int64; float32 weights sum in float32, other weights in float64, as PyTorch."""
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.is_floating_point():
        name = "Double" if str(input.dtype) == "torch.float64" else "Float"
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{name}'")
    if input.dim() != 1 or (input.numel() > 0 and int(input.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    size = max(minlength, int(input.max()) + 1 if input.numel() > 0 else 0)
    index = input.long()
    if weights is None:
        counts = _core.zeros(size, dtype=_core.int64)
        return counts.index_add_(0, index, _core.ones(index.shape[0], dtype=_core.int64))
    dtype = _core.float32 if weights.dtype == _core.float32 else _core.float64
    sums = _core.zeros(size, dtype=dtype)
    return sums.index_add_(0, index, weights.detach().to(dtype))


def _triangle_indices(op: str, row: int, col: int, offset: int, dtype) -> Tensor:
    for name, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{name} must be non-negative, got{n}")
    ones = _core.ones(row, col, dtype=_core.bool)
    triangle = ones.tril(offset) if op == "tril" else ones.triu(offset)
    return triangle.nonzero().t().to(dtype)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` row and column indices of the lower triangle of a ``row x col`` matrix
    (the diagonal moved by ``offset``), in row-major order."""
    return _triangle_indices("tril", row, col, offset, dtype or _core.int64)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` row and column indices of the upper triangle of a ``row x col`` matrix."""
    return _triangle_indices("triu", row, col, offset, dtype or _core.int64)


def _install():
    Tensor.nanmean = nanmean  # type: ignore[method-assign,assignment]
    Tensor.bincount = bincount  # type: ignore[method-assign,assignment]
