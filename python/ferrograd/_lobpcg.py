"""``torch.lobpcg``: the ``k`` largest (or smallest) eigenpairs of a symmetric positive definite
generalized problem ``A X = B X diag(E)`` by LOBPCG (Knyazev's locally optimal block
preconditioned conjugate gradient), with PyTorch's arguments, checks and gradient.

Note [LOBPCG here]: each iteration takes the Rayleigh-Ritz approximation of the problem in
the span of the current approximations ``X``, their (preconditioned) residuals ``R`` and the
previous search directions ``P``, made ``B``-orthonormal by an eigendecomposition of its Gram
matrix that drops directions too small to trust (the "SVQB" orthonormalization). It stops when
the relative residual of each of the ``k`` wanted pairs is below ``tol``, as PyTorch's. PyTorch
offers two variants (``method="basic"`` and ``"ortho"``) differing in how the basis is
orthonormalized; both names run this one here, whose answers agree with either to ``tol``.
Once converged it goes on while the steps still reduce the residual, so its answer is as exact
as the arithmetic allows (a function of it, a finite difference included, does not see where
the iteration happened to stop). A sparse ``A`` or ``B`` is made dense first.

The gradient (``B`` not given, as PyTorch requires) is that of the ``k`` eigenpairs of the
symmetrized ``A``: with ``A U = U diag(D)`` and ``Q`` the projection onto the complement of
``U``'s span, ``dL/dA = U (diag(dD) + F * (U^T dU)) U^T + Z U^T``, where ``F[i, j] =
1 / (D[j] - D[i])`` off the diagonal and column ``i`` of ``Z`` solves ``(D[i] - A + U U^T) z =
Q dU[:, i]`` inside the complement (the part of ``dU`` the other eigenvectors carry; ``U U^T``
only makes the system regular). Every step is a differentiable op, so the gradient has
gradients too.
"""

import ferrograd as torch

from ._core import float32, float64
from .autograd.function import Function

# machine epsilon, as PyTorch's lobpcg rounds it
_EPS = {float32: 1.2e-07, float64: 2.23e-16}


def _diag(d):
    """The matrices with ``d``'s last dimension on their diagonals."""
    return d.unsqueeze(-1) * torch.eye(d.shape[-1], dtype=d.dtype)


def _b_orthonormal(S, B, drop):
    """A ``B``-orthonormal basis of the span of ``S``'s columns, without the directions whose
    scaled Gram eigenvalue is below ``drop`` times the largest."""
    BS = S if B is None else B @ S
    gram = S.mT @ BS
    scale = gram.diagonal().clamp(min=torch.finfo(S.dtype).tiny).rsqrt()
    w, V = torch.linalg.eigh(gram * scale.unsqueeze(0) * scale.unsqueeze(1))
    keep = w > drop * w.max()
    V, w = V[:, keep], w[keep]
    return (S * scale) @ (V * w.rsqrt())


def _rayleigh_ritz(A, S, m, largest):
    """The ``m`` extreme Ritz pairs of ``A`` in the span of the ``B``-orthonormal ``S``."""
    T = S.mT @ (A @ S)
    w, C = torch.linalg.eigh((T + T.mT) / 2)
    order = w.argsort(descending=largest)[:m]
    return w[order], S @ C[:, order]


def _lobpcg_one(A, B, X, iK, k, niter, tol, largest):
    """LOBPCG on one matrix (Note [LOBPCG here]): the ``k`` wanted eigenvalues and vectors."""
    m = X.shape[-1]
    drop = _EPS[A.dtype]
    A_norm = torch.linalg.matrix_norm(A, ord=2)
    B_norm = 1.0 if B is None else torch.linalg.matrix_norm(B, ord=2)
    E, X = _rayleigh_ritz(A, _b_orthonormal(X, B, drop), m, largest)
    P = None
    converged, best, stalls = False, None, 0
    for _ in range(niter):
        BX = X if B is None else B @ X
        R = A @ X - BX * E
        residual = torch.linalg.vector_norm(R, dim=0)
        size = torch.linalg.vector_norm(X, dim=0) * (A_norm + E.abs() * B_norm)
        relative = float((residual[:k] / size[:k]).max())
        converged = converged or relative < tol
        # once converged, more steps while they still reduce the residual (Note [LOBPCG here])
        stalled = best is not None and relative >= best
        stalls = stalls + 1 if stalled else 0
        if converged and (relative < 16 * drop or stalls >= 10):
            break
        best = relative if best is None else min(best, relative)
        if iK is not None:
            R = iK @ R
        parts = [X, R] if P is None else [X, R, P]
        S = _b_orthonormal(torch.cat(parts, dim=1), B, drop)
        X_old = X
        E, X = _rayleigh_ritz(A, S, m, largest)
        # the new search directions: what the step added to the old approximations
        overlap = X_old.mT @ (X if B is None else B @ X)
        P = X - X_old @ overlap
    return E[:k], X[:, :k]


def _partial_eigh_backward(dD, dU, A, D, U):
    """The gradient of ``A`` from those of ``k`` of its eigenpairs (Note [LOBPCG here])."""
    n = A.shape[-1]
    eye = torch.eye(n, dtype=A.dtype)
    Ut = U.mT
    gap = D.unsqueeze(-2) - D.unsqueeze(-1)
    off = 1 - torch.eye(D.shape[-1], dtype=A.dtype)
    F = off / (gap + (1 - off))
    inner = Ut @ dU
    grad = U @ ((_diag(dD) + F * inner) @ Ut)
    Q = eye - U @ Ut
    # one regular system per eigenpair: (D[i] - A + U U^T) z_i = Q dU[:, i]
    shifted = D.unsqueeze(-1).unsqueeze(-1) * eye - A.unsqueeze(-3) + (U @ Ut).unsqueeze(-3)
    rhs = (Q @ dU).mT.unsqueeze(-1)
    Z = Q @ torch.linalg.solve(shifted, rhs).squeeze(-1).mT
    return grad + Z @ Ut


class _LOBPCGFunction(Function):
    """LOBPCG with the gradient of its ``k`` eigenpairs (``B`` not given)."""

    @staticmethod
    def forward(ctx, A, k, B, X, iK, niter, tol, largest, sparse):
        batch = A.shape[:-2]
        m = A.shape[-1]
        flat_A = A.reshape(-1, m, m)
        count = flat_A.shape[0]
        flat_B = None if B is None else B.reshape(-1, m, m)
        flat_X = X.reshape(count, m, X.shape[-1])
        values, vectors = [], []
        for i in range(count):
            E, U = _lobpcg_one(
                flat_A[i],
                None if flat_B is None else flat_B[i],
                flat_X[i],
                iK,
                k,
                niter,
                tol,
                largest,
            )
            values.append(E)
            vectors.append(U)
        D = torch.stack(values).reshape(*batch, k)
        U = torch.stack(vectors).reshape(*batch, m, k)
        ctx.save_for_backward(A, D, U)
        ctx.has_B, ctx.sparse = B is not None, sparse
        return D, U

    @staticmethod
    def backward(ctx, dD, dU):
        A, D, U = ctx.saved_tensors
        if ctx.sparse:
            raise ValueError(
                "lobpcg.backward does not support sparse input yet. Note that lobpcg.forward "
                "does though."
            )
        if ctx.has_B:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        return (_partial_eigh_backward(dD, dU, A, D, U),) + (None,) * 8


def lobpcg(
    A,
    k=None,
    B=None,
    X=None,
    n=None,
    iK=None,
    niter=None,
    tol=None,
    largest=None,
    method=None,
    tracker=None,
    ortho_iparams=None,
    ortho_fparams=None,
    ortho_bparams=None,
):
    """The ``k`` largest (``largest=False``: smallest) eigenvalues of the symmetric positive
    definite generalized problem ``A X = B X diag(E)`` and their vectors, found by LOBPCG from
    the initial approximations ``X`` (``n`` random columns when not given) with the
    preconditioner ``iK``, within ``niter`` iterations (1000; -1: until converged) to the
    relative residual ``tol``. Differentiable in ``A`` (``B`` not given)."""
    if tracker is not None or any(
        p is not None for p in (ortho_iparams, ortho_fparams, ortho_bparams)
    ):
        raise NotImplementedError(
            "lobpcg: ferrograd runs one LOBPCG variant (Note [LOBPCG here]); its tracker and "
            "the ortho method's tuning parameters are not available"
        )
    if method not in (None, "basic", "ortho"):
        raise ValueError(f"LOBPCG method must be 'basic' or 'ortho', got {method!r}")
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    sparse = A.is_sparse or (B is not None and B.is_sparse)
    if B is not None and B.is_sparse:
        B = B.to_dense()
    if A.is_sparse:
        A = A.to_dense()
    dtype = A.dtype if A.dtype in _EPS else float32
    if tol is None:
        tol = _EPS[dtype] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
            f"than 3 x the number of requested eigenpairs (={n})"
        )
    if X is None:
        X = torch.randn(*A.shape[:-2], m, n, dtype=dtype)
    elif X.shape[-2:] != (m, n):
        raise AssertionError(f"X shape mismatch: got {tuple(X.shape)}, expected {(m, n)}")
    niter = 1000 if niter is None else niter
    niter = 2**62 if niter < 0 else niter
    largest = True if largest is None else largest
    A, X = A.to(dtype), X.to(dtype).expand(*A.shape[:-2], m, n)
    if A.requires_grad or (B is not None and B.requires_grad):
        # the gradient is symmetric, as if A (and B) were symmetrized before use (PyTorch's)
        A = (A + A.mT) / 2
        B = None if B is None else (B + B.mT) / 2
    return _LOBPCGFunction.apply(A, k, B, X, iK, niter, tol, largest, sparse)
