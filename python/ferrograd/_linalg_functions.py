"""The ``torch.xxx`` functions of linear algebra outside ``torch.linalg``: ``inverse``,
``det``, ``logdet``, ``slogdet``, ``cholesky`` (removed in PyTorch: it raises as PyTorch's does),
``cholesky_solve``, ``cholesky_inverse``, ``matrix_exp``, ``matrix_power``, ``svd``,
``pinverse`` and ``cdist`` (``CdistBackward0`` pair by pair, or ``_euclidean_dist`` through a
matrix product for ``p = 2`` and many rows, as PyTorch chooses)."""

from __future__ import annotations

import math
from typing import NamedTuple

from . import _core, linalg
from ._core import Tensor
from ._creation import full_like

__all__ = [
    "cdist",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "det",
    "inverse",
    "logdet",
    "matrix_exp",
    "matrix_power",
    "pinverse",
    "slogdet",
    "svd",
]


class slogdet_result(NamedTuple):
    """``(sign, logabsdet)`` of :func:`slogdet` (PyTorch's ``torch.return_types.slogdet``)."""

    sign: Tensor
    logabsdet: Tensor


class svd_result(NamedTuple):
    """``(U, S, V)`` of :func:`svd` (PyTorch's ``torch.return_types.svd``)."""

    U: Tensor
    S: Tensor
    V: Tensor


# named as PyTorch names them
slogdet_result.__name__ = slogdet_result.__qualname__ = "slogdet"
svd_result.__name__ = svd_result.__qualname__ = "svd"


def inverse(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The inverse of each square matrix (``linalg.inv``)."""
    return linalg.inv(input)


def det(input: Tensor) -> Tensor:
    """The determinant of each square matrix (``linalg.det``)."""
    return linalg.det(input)


def slogdet(input: Tensor) -> slogdet_result:
    """``(sign, logabsdet)`` of each determinant (``linalg.slogdet``)."""
    sign, logabsdet = _core.linalg_slogdet(input)
    return slogdet_result(sign, logabsdet)


def logdet(input: Tensor) -> Tensor:
    """The logarithm of each determinant: NaN for a negative one, ``-inf`` for zero (PyTorch's
    composition of ``slogdet`` and ``where``)."""
    sign, logabsdet = _core.linalg_slogdet(input)
    nan = full_like(logabsdet, math.nan)
    return _core.where(sign == -1, nan, logabsdet)


def cholesky(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """Removed in PyTorch: raises PyTorch's message pointing to ``linalg.cholesky``."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "`torch.cholesky` is deprecated in favor of `torch.linalg.cholesky`.\n"
        "L = torch.cholesky(A) should be replaced with:\n"
        "L = torch.linalg.cholesky(A)\n"
        "U = torch.cholesky(A, upper=True) should be replaced with:\n"
        "U = torch.linalg.cholesky(A).mH"
    )


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """The solution ``X`` of ``A X = B`` for ``B = input`` from the Cholesky factor ``input2`` of
    ``A`` (lower, or upper when ``upper``) (``CholeskySolveBackward0``)."""
    return _core.cholesky_solve(input, input2, upper)


def cholesky_inverse(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """``A⁻¹`` from the Cholesky factor ``input`` of ``A`` (``CholeskyInverseBackward0``)."""
    return _core.cholesky_inverse(input, upper)


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential of each square matrix (``linalg.matrix_exp``)."""
    return linalg.matrix_exp(A)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """``input`` to the integer power ``n`` (``linalg.matrix_power``)."""
    return linalg.matrix_power(input, n)


def svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None) -> svd_result:
    """``(U, S, V)`` with ``input = U diag(S) Vᵀ`` (``V``, not ``Vh``); reduced when ``some``;
    without ``compute_uv`` ``U`` and ``V`` are zero matrices."""
    if not compute_uv:
        S = linalg.svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        lead = tuple(input.shape[:-2])
        U = _core.zeros((*lead, m, m), dtype=input.dtype)
        V = _core.zeros((*lead, n, n), dtype=input.dtype)
        return svd_result(U, S, V)
    U, S, Vh = _core.linalg_svd(input, not some)
    return svd_result(U, S, Vh.mT)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """The pseudo-inverse, singular values at or below ``rcond·s_max`` dropped
    (``linalg.pinv(input, rtol=rcond)``)."""
    return _core.linalg_pinv(input, 0.0, rcond)


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of two batch shapes (PyTorch's error when they do not broadcast)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
        out.append(max(x, y) if min(x, y) != 0 else 0)
    return tuple(out)


_CDIST_MODES = (
    None,
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


def cdist(
    x1: Tensor,
    x2: Tensor,
    p: float = 2.0,
    compute_mode: str | None = "use_mm_for_euclid_dist_if_necessary",
) -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` (..., r1, c) and each row of ``x2``
    (..., r2, c), batch dims broadcast. For ``p = 2`` PyTorch computes through a matrix product
    (``_euclidean_dist``, then a view) when either side has more than 25 rows
    (``'use_mm_for_euclid_dist_if_necessary'``) or always (``'use_mm_for_euclid_dist'``);
    otherwise pair by pair (``CdistBackward0``)."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if not (isinstance(x1, Tensor) and isinstance(x2, Tensor)):
        return _core.cdist_direct(x1, x2, float(p))
    use_mm = False
    if p == 2 and x1.dim() >= 2 and x2.dim() >= 2:
        r1, r2 = x1.shape[-2], x2.shape[-2]
        if compute_mode == "use_mm_for_euclid_dist":
            use_mm = True
        elif compute_mode in (None, "use_mm_for_euclid_dist_if_necessary"):
            use_mm = r1 > 25 or r2 > 25
    if not use_mm:
        return _core.cdist_direct(x1, x2, float(p))
    lead1, lead2 = tuple(x1.shape[:-2]), tuple(x2.shape[:-2])
    if lead1 != lead2:
        batch = _broadcast(lead1, lead2)
        x1 = x1.expand(*batch, *x1.shape[-2:])
        x2 = x2.expand(*batch, *x2.shape[-2:])
    else:
        batch = lead1
    return _core._euclidean_dist(x1, x2).view(*batch, x1.shape[-2], x2.shape[-2])
