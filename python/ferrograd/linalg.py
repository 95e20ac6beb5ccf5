"""``ferrograd.linalg``: PyTorch's ``torch.linalg``: norms, ``cross``, and the decompositions
and solvers (core ops in float64 kernels, batched over leading dims, with PyTorch's nodes and
differentiable gradient formulas): ``inv``/``inv_ex``, ``solve``/``solve_ex``, ``det``,
``slogdet``, ``lu_factor``/``lu_factor_ex``, ``cholesky``/``cholesky_ex``,
``solve_triangular``, ``qr``, ``eigh``/``eigvalsh``, ``svd``/``svdvals``, ``pinv``, ``lstsq``
(PyTorch's CPU driver ``gelsy``'s results), ``matrix_exp``, ``matrix_power``, ``matrix_rank``.
Failures on the input (singular, not positive-definite) raise :class:`LinAlgError`.

Differences from PyTorch: eigenvectors (``eigh``) and singular vectors (``svd``) come from
Jacobi methods, not LAPACK's, so each may differ from PyTorch's by a factor -1; pivots and
``info`` are int64 (PyTorch: int32); complex dtypes (``eig``, ``eigvals``) are refused.

``vector_norm`` is one core op (``LinalgVectorNormBackward0``, any ``ord``: ``±inf``, ``0``,
negative or positive); ``matrix_norm`` composes it as PyTorch does (``'fro'``: the vector 2-norm
over the two dims; ``1``/``inf``: the largest column/row sum of magnitudes, ``-1``/``-inf`` the
smallest); ``'nuc'``, ``2`` and ``-2`` reduce the singular values (``svdvals``, a core op:
``LinalgSvdBackward0``, first derivatives only).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, Union

from . import _core
from ._core import Tensor

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cross",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "inv_ex",
    "lstsq",
    "lu_factor",
    "lu_factor_ex",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "vector_norm",
]

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


LinAlgError = _core._LinAlgError
"""PyTorch's ``torch.linalg.LinAlgError`` (a ``RuntimeError``): the input matrix is singular,
or not positive-definite, so the factorization or solve could not be completed."""


# The named tuples of the results, named as PyTorch's ``torch.return_types``.
class linalg_inv_ex(NamedTuple):
    """``(inverse, info)`` of :func:`inv_ex`."""

    inverse: Tensor
    info: Tensor


class linalg_solve_ex(NamedTuple):
    """``(result, info)`` of :func:`solve_ex`."""

    result: Tensor
    info: Tensor


class linalg_slogdet(NamedTuple):
    """``(sign, logabsdet)`` of :func:`slogdet`."""

    sign: Tensor
    logabsdet: Tensor


class linalg_lu_factor(NamedTuple):
    """``(LU, pivots)`` of :func:`lu_factor`."""

    LU: Tensor
    pivots: Tensor


class linalg_lu_factor_ex(NamedTuple):
    """``(LU, pivots, info)`` of :func:`lu_factor_ex`."""

    LU: Tensor
    pivots: Tensor
    info: Tensor


class linalg_cholesky_ex(NamedTuple):
    """``(L, info)`` of :func:`cholesky_ex`."""

    L: Tensor
    info: Tensor


class linalg_qr(NamedTuple):
    """``(Q, R)`` of :func:`qr`."""

    Q: Tensor
    R: Tensor


class linalg_eigh(NamedTuple):
    """``(eigenvalues, eigenvectors)`` of :func:`eigh`."""

    eigenvalues: Tensor
    eigenvectors: Tensor


class linalg_svd(NamedTuple):
    """``(U, S, Vh)`` of :func:`svd`."""

    U: Tensor
    S: Tensor
    Vh: Tensor


class linalg_lstsq(NamedTuple):
    """``(solution, residuals, rank, singular_values)`` of :func:`lstsq`."""

    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


def inv_ex(A: Tensor, *, check_errors: bool = False, out=None) -> linalg_inv_ex:
    """The inverse of each square matrix and ``info`` (0, or the 1-based index of the first zero
    pivot of its LU factorization); raises only with ``check_errors``."""
    return linalg_inv_ex(*_core.linalg_inv_ex(A, check_errors))


def inv(A: Tensor, *, out=None) -> Tensor:
    """The inverse of each square matrix (``LinalgInvExBackward0``); a singular matrix raises
    :class:`LinAlgError`."""
    return _core.linalg_inv_ex(A, True)[0]


def solve_ex(
    A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None
) -> linalg_solve_ex:
    """The solution ``X`` of ``A X = B`` (``X A = B`` when not ``left``) and ``info``; ``B`` may
    be a (batch of) vector(s); batch dims broadcast."""
    return linalg_solve_ex(*_core.linalg_solve_ex(A, B, left, check_errors))


def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``X A = B`` when not ``left``), by LU with partial
    pivoting (``LinalgSolveExBackward0``); a singular ``A`` raises :class:`LinAlgError`."""
    return _core.linalg_solve_ex(A, B, left, True)[0]


def det(A: Tensor, *, out=None) -> Tensor:
    """The determinant of each square matrix (``LinalgDetBackward0``)."""
    return _core.linalg_det(A)


def slogdet(A: Tensor, *, out=None) -> linalg_slogdet:
    """``(sign, logabsdet)``: the sign of each determinant (0 when singular) and the logarithm of
    its magnitude (``LinalgSlogdetBackward0``)."""
    return linalg_slogdet(*_core.linalg_slogdet(A))


def lu_factor_ex(
    A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None
) -> linalg_lu_factor_ex:
    """``(LU, pivots, info)`` of LU with partial pivoting: ``L`` (unit diagonal) and ``U`` packed
    in ``LU``, LAPACK's 1-based row swaps (int64 here)."""
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    return linalg_lu_factor_ex(*_core.linalg_lu_factor_ex(A, check_errors))


def lu_factor(A: Tensor, *, pivot: bool = True, out=None) -> linalg_lu_factor:
    """``(LU, pivots)`` of LU with partial pivoting; a zero pivot raises ``RuntimeError``."""
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, pivots, _ = _core.linalg_lu_factor_ex(A, True)
    return linalg_lu_factor(LU, pivots)


def cholesky_ex(
    A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None
) -> linalg_cholesky_ex:
    """``(L, info)``: the Cholesky factor of each matrix (from its lower triangle) and ``info``
    (0, or the order of the first leading minor that is not positive-definite)."""
    return linalg_cholesky_ex(*_core.linalg_cholesky_ex(A, upper, check_errors))


def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """The lower Cholesky factor ``L`` (``A = L Lᴴ``), or ``U = Lᴴ`` when ``upper``
    (``LinalgCholeskyExBackward0``); a matrix that is not positive-definite raises
    :class:`LinAlgError`."""
    return _core.linalg_cholesky_ex(A, upper, True)[0]


def solve_triangular(
    A: Tensor,
    B: Tensor,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
    out=None,
) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``X A = B`` when not ``left``) reading only the upper
    or lower triangle of ``A`` (its diagonal taken as ones when ``unitriangular``)
    (``LinalgSolveTriangularBackward0``)."""
    return _core.linalg_solve_triangular(A, B, upper, left, unitriangular)


def qr(A: Tensor, mode: str = "reduced", *, out=None) -> linalg_qr:
    """``(Q, R)`` by Householder reflections, LAPACK's signs: ``mode`` ``'reduced'``,
    ``'complete'`` or ``'r'`` (``Q`` empty) (``LinalgQrBackward0``)."""
    return linalg_qr(*_core.linalg_qr(A, mode))


def eigh(A: Tensor, UPLO: str = "L", *, out=None) -> linalg_eigh:
    """``(eigenvalues, eigenvectors)`` of symmetric matrices given by their lower (``'L'``) or
    upper (``'U'``) triangle: eigenvalues ascending, eigenvectors as columns
    (``LinalgEighBackward0``; each eigenvector's sign may differ from PyTorch's)."""
    return linalg_eigh(*_core.linalg_eigh(A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """The eigenvalues of symmetric matrices, ascending (``LinalgEighBackward0``)."""
    return _core.linalg_eigh(A, UPLO)[0]


def _complex_refused(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"linalg.{name}: the eigenvalues of a general real matrix are complex, and ferrograd "
        "does not support complex dtypes; use linalg.eigh / linalg.eigvalsh for symmetric "
        "matrices"
    )


def eig(A: Tensor, *, out=None):
    """Refused: the eigen-decomposition of a general matrix is complex (no complex dtypes)."""
    raise _complex_refused("eig")


def eigvals(A: Tensor, *, out=None):
    """Refused: the eigenvalues of a general matrix are complex (no complex dtypes)."""
    raise _complex_refused("eigvals")


def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None) -> linalg_svd:
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, singular values descending; ``U`` and ``Vh``
    square when ``full_matrices`` (``LinalgSvdBackward0``; each singular vector pair's sign may
    differ from PyTorch's)."""
    return linalg_svd(*_core.linalg_svd(A, full_matrices))


def _tolerance(value, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise NotImplementedError(f"linalg.pinv: ferrograd takes {name} as a number")
        return float(value.item())
    return float(value)


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse through the SVD: singular values at or below
    ``max(atol, rtol·s_max)`` are dropped (``rtol`` defaults to ``ε·max(m, n)`` when neither is
    given) (``LinalgPinvBackward0``). ``hermitian`` gives the same result."""
    return _core.linalg_pinv(A, _tolerance(atol, "atol"), _tolerance(rtol, "rtol"))


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver=None) -> linalg_lstsq:
    """The least-squares solution of ``A X = B`` as PyTorch's CPU driver ``gelsy`` returns it:
    ``(solution, residuals, rank, singular_values)`` with the minimum-norm solution, empty
    residuals and singular values, and the numerical rank (``LinalgLstsqBackward0``)."""
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    if driver not in (None, "gelsy"):
        raise NotImplementedError(
            f"linalg.lstsq: ferrograd implements the driver 'gelsy' only, not {driver!r}"
        )
    return linalg_lstsq(*_core.linalg_lstsq(A, B, rcond))


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential of each square matrix, by scaling and squaring with Padé
    approximants (``LinalgMatrixExpBackward0``)."""
    return _core.linalg_matrix_exp(A)


def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    """``A`` to the integer power ``n`` by repeated squaring, as PyTorch composes it (``n = 0``:
    the identity, ``n < 0``: powers of the inverse)."""
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_power: The input tensor A must have at least 2 dimensions."
        )
    rows, cols = A.shape[-2], A.shape[-1]
    if rows != cols:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{rows} by {cols} matrices"
        )
    if n == 0:
        out_ = A.clone()
        eye = _core.eye(rows, dtype=A.dtype).expand_as(A)
        out_.copy_(eye)
        return out_
    if n == 1:
        return A.clone()
    if n == -1:
        return inv(A)
    a = inv(A) if n < 0 else A
    n = abs(n)
    if n == 2:
        return a @ a
    if n == 3:
        return (a @ a) @ a
    z: Tensor | None = None
    result: Tensor | None = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = a if z is None else z @ z
        if bit == 1:
            result = z if result is None else result @ z
    assert result is not None
    return result


def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """The numerical rank of each matrix: how many singular values exceed
    ``max(atol, rtol·s_max)`` (``rtol`` defaulting to ``ε·max(m, n)`` when ``atol`` is not
    positive)."""
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_rank: The input tensor A must have at least 2 dimensions."
        )
    a_tol = _tolerance(atol, "atol")
    r_tol = _tolerance(rtol, "rtol")
    if r_tol is None:
        eps = 1.1920928955078125e-07 if A.dtype == _core.float32 else 2.220446049250313e-16
        r_tol = 0.0 if (a_tol is not None and a_tol > 0) else eps * max(A.shape[-2], A.shape[-1])
    if hermitian:
        values = _core.linalg_eigh(A, "L")[0].detach().abs()
    else:
        values = _core.svdvals(A.detach())
    if values.shape[-1] == 0:
        return values.sum(-1).to(_core.int64)
    largest = values.amax(-1, keepdim=True)
    tol = (largest * r_tol).clamp_min(a_tol or 0.0)
    return (values > tol).sum(-1)
