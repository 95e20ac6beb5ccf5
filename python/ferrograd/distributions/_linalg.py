"""The small batched linear algebra ``MultivariateNormal`` needs, which ferrograd's core does not
have yet (``torch.linalg.cholesky``, ``torch.linalg.solve_triangular``,
``torch.cholesky_inverse``): each written as a composition of differentiable ops, one step per
row or column of the matrix (fine for the small event sizes of distributions), so gradients of
any order flow through them. Values equal LAPACK's up to rounding; the graph's nodes are those of
the composing ops, not PyTorch's single ``LinalgCholeskyExBackward0`` or
``LinalgSolveTriangularBackward0``."""

from __future__ import annotations

import ferrograd as torch

from .._core import Tensor


class _LinAlgError(RuntimeError):
    """What PyTorch raises for a matrix with no Cholesky factor (``torch.linalg.LinAlgError``)."""


def _pivots(A: Tensor, raise_on_failure: bool) -> tuple[Tensor, Tensor]:
    """The Cholesky factor of the lower triangles of ``A`` (..., n, n), column by column, and
    for each matrix whether every pivot was positive."""
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    ok = torch.ones(batch, dtype=torch.bool)
    cols: list[Tensor] = []
    rows = torch.arange(n)
    for j in range(n):
        c = A[..., :, j]
        if j:
            done = torch.stack(cols, -1)  # (..., n, j)
            c = c - (done @ done[..., j, :].unsqueeze(-1)).squeeze(-1)
        pivot = c[..., j]
        good = pivot > 0
        if raise_on_failure and not bool(good.all()):
            where = ""
            if batch:
                first = int(torch.nonzero(~good.reshape(-1))[0, 0].item())
                where = f"(Batch element {first}): "
            raise _LinAlgError(
                f"linalg.cholesky: {where}The factorization could not be completed because the "
                f"input is not positive-definite (the leading minor of order {j + 1} is not "
                "positive-definite)."
            )
        ok = ok & good
        diagonal = pivot.sqrt().unsqueeze(-1)
        cols.append(torch.where(rows > j, c / diagonal, torch.where(rows == j, diagonal, 0.0)))
    return torch.stack(cols, -1), ok


def cholesky(A: Tensor) -> Tensor:
    """The lower Cholesky factor ``L`` of ``A`` (``L @ L.mT == A``), read from ``A``'s lower
    triangle as LAPACK reads it; the gradient with respect to ``A`` is symmetric, as PyTorch's."""
    symmetric = 0.5 * (A + A.mT)
    lower = A.tril() + A.tril(-1).mT
    # the value of the lower triangle, the gradient of the symmetric part
    A = symmetric + (lower - symmetric).detach()
    return _pivots(A, raise_on_failure=True)[0]


def cholesky_succeeds(A: Tensor) -> Tensor:
    """For each matrix of ``A``, whether it has a Cholesky factor (``cholesky_ex(A).info == 0``)."""
    with torch.no_grad():
        lower = A.tril() + A.tril(-1).mT
        return _pivots(lower, raise_on_failure=False)[1]


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool) -> Tensor:
    """``X`` with ``A @ X == B`` for triangular ``A`` (..., n, n) and ``B`` (..., n, k), batch
    dimensions broadcast: substitution one row at a time."""
    n = A.shape[-1]
    order = range(n - 1, -1, -1) if upper else range(n)
    solved: dict[int, Tensor] = {}
    for i in order:
        r = B[..., i, :]
        if solved:
            known = sorted(solved)
            X = torch.stack([solved[k] for k in known], -2)  # (..., m, k)
            coef = A[..., i : i + 1, known[0] : known[-1] + 1]  # (..., 1, m)
            r = r - (coef @ X).squeeze(-2)
        solved[i] = r / A[..., i, i].unsqueeze(-1)
    return torch.stack([solved[i] for i in range(n)], -2)


def cholesky_inverse(L: Tensor) -> Tensor:
    """``(L @ L.mT)^-1`` from the lower Cholesky factor ``L``."""
    eye = torch.eye(L.shape[-1], dtype=L.dtype)
    L_inv = solve_triangular(L, eye, upper=False)
    return L_inv.mT @ L_inv
