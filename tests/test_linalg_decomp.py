"""The decompositions and solvers of ``ferrograd.linalg`` and ``cdist``: first and second
derivatives against finite differences (``gradcheck``/``gradgradcheck``), reconstructions of
the factorizations, and what ferrograd refuses (complex results). Values, node names and error
messages against PyTorch are in ``linalg_decomp_cases.py`` (``test_index_ops_golden.py``)."""

import math

import ferrograd as torch
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

F64 = torch.float64


def _randn(*shape, seed=0):
    torch.manual_seed(seed + sum(shape))
    return torch.randn(*shape, dtype=F64, requires_grad=True)


def _spd(a):
    """A symmetric positive-definite matrix differentiable in ``a`` (all entries count)."""
    return a @ a.mT + torch.eye(a.shape[-1], dtype=F64)


# name -> (function, input shapes); every function is checked to second order
CASES = {
    "inv": (torch.linalg.inv, [(3, 3)]),
    "inv_batch": (torch.linalg.inv, [(2, 3, 3)]),
    "inverse": (torch.inverse, [(3, 3)]),
    "solve": (torch.linalg.solve, [(3, 3), (3, 2)]),
    "solve_right": (lambda a, b: torch.linalg.solve(a, b, left=False), [(3, 3), (2, 3)]),
    "solve_vector": (torch.linalg.solve, [(3, 3), (3,)]),
    "solve_broadcast": (torch.linalg.solve, [(2, 3, 3), (3, 2)]),
    "det": (torch.linalg.det, [(3, 3)]),
    "det_batch": (torch.linalg.det, [(2, 3, 3)]),
    "slogdet": (lambda a: torch.linalg.slogdet(a).logabsdet, [(3, 3)]),
    "logdet": (lambda a: torch.logdet(_spd(a)), [(3, 3)]),
    "cholesky": (lambda a: torch.linalg.cholesky(_spd(a)), [(3, 3)]),
    "cholesky_upper": (lambda a: torch.linalg.cholesky(_spd(a), upper=True), [(2, 3, 3)]),
    "solve_triangular": (
        lambda a, b: torch.linalg.solve_triangular(a + 3 * torch.eye(3, dtype=F64), b, upper=True),
        [(3, 3), (3, 2)],
    ),
    "solve_triangular_right_unit": (
        lambda a, b: torch.linalg.solve_triangular(
            a, b, upper=False, left=False, unitriangular=True
        ),
        [(3, 3), (2, 3)],
    ),
    "cholesky_solve": (
        lambda b, a: torch.cholesky_solve(b, torch.linalg.cholesky(_spd(a))),
        [(3, 2), (3, 3)],
    ),
    "cholesky_solve_upper": (
        lambda b, a: torch.cholesky_solve(
            b, torch.linalg.cholesky(_spd(a), upper=True), upper=True
        ),
        [(3, 2), (3, 3)],
    ),
    "cholesky_inverse": (
        lambda a: torch.cholesky_inverse(torch.linalg.cholesky(_spd(a))),
        [(3, 3)],
    ),
    "qr_tall": (lambda a: tuple(torch.linalg.qr(a)), [(4, 3)]),
    "qr_square": (lambda a: tuple(torch.linalg.qr(a)), [(3, 3)]),
    "qr_wide": (lambda a: tuple(torch.linalg.qr(a)), [(3, 5)]),
    "qr_complete_wide": (lambda a: tuple(torch.linalg.qr(a, mode="complete")), [(2, 4)]),
    "eigh": (lambda a: tuple(torch.linalg.eigh(a + a.mT)), [(3, 3)]),
    "eigh_upper": (lambda a: tuple(torch.linalg.eigh(_spd(a), UPLO="U")), [(2, 3, 3)]),
    "eigvalsh": (lambda a: torch.linalg.eigvalsh(a + a.mT), [(4, 4)]),
    # sign-invariant functions of the singular vectors
    "svd_tall": (
        lambda a: (lambda u, s, vh: (u @ vh, s, u.abs()))(
            *torch.linalg.svd(a, full_matrices=False)
        ),
        [(4, 3)],
    ),
    "svd_wide": (
        lambda a: (lambda u, s, vh: (u @ vh, s, vh.abs()))(
            *torch.linalg.svd(a, full_matrices=False)
        ),
        [(3, 5)],
    ),
    "svd_full_values": (lambda a: torch.linalg.svd(a)[1], [(4, 3)]),
    "svdvals": (torch.linalg.svdvals, [(3, 4)]),
    "matrix_norm_2": (lambda a: torch.linalg.matrix_norm(a, 2), [(3, 4)]),
    "pinv_tall": (torch.linalg.pinv, [(4, 3)]),
    "pinv_wide": (torch.linalg.pinv, [(2, 4)]),
    "pinverse": (torch.pinverse, [(3, 3)]),
    "lstsq_tall": (lambda a, b: torch.linalg.lstsq(a, b).solution, [(5, 3), (5, 2)]),
    "lstsq_wide": (lambda a, b: torch.linalg.lstsq(a, b).solution, [(2, 4), (2, 3)]),
    "matrix_exp": (torch.linalg.matrix_exp, [(3, 3)]),
    "matrix_exp_batch": (lambda a: torch.matrix_exp(a * 3), [(2, 3, 3)]),
    "matrix_power": (lambda a: torch.linalg.matrix_power(a, 5), [(3, 3)]),
    "matrix_power_negative": (lambda a: torch.linalg.matrix_power(a, -2), [(3, 3)]),
}
for _p in (0.0, 0.5, 1.0, 2.0, 3.0, math.inf):
    CASES[f"cdist_p{_p}"] = (lambda x, y, p=_p: torch.cdist(x, y, p), [(4, 3), (5, 3)])
CASES["cdist_mm"] = (
    lambda x, y: torch.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
    [(4, 3), (5, 3)],
)
CASES["cdist_many_rows"] = (lambda x, y: torch.cdist(x, y), [(27, 2), (3, 2)])
CASES["cdist_batch"] = (lambda x, y: torch.cdist(x, y), [(2, 4, 3), (5, 3)])


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_and_second_derivatives(name):
    f, shapes = CASES[name]
    inputs = tuple(_randn(*s, seed=i) for i, s in enumerate(shapes))
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


def test_singular_determinant_gradient():
    """As PyTorch: zero for an exactly singular matrix, the cofactor matrix (through the SVD)
    when the gradient's graph is recorded."""
    S = torch.tensor([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]], dtype=F64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.linalg.det(S), S)
    assert g.abs().sum().item() == 0
    (g,) = torch.autograd.grad(torch.linalg.det(S), S, create_graph=True)
    cof = [[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]]
    assert torch.allclose(g, torch.tensor(cof, dtype=F64), atol=1e-10)


def test_factorizations_reconstruct_their_input():
    torch.manual_seed(0)
    A = torch.randn(2, 4, 3, dtype=F64)
    for mode in ("reduced", "complete"):
        Q, R = torch.linalg.qr(A, mode=mode)
        assert torch.allclose(Q @ R, A, atol=1e-12)
        assert torch.allclose(R, R.triu())
    for full in (True, False):
        U, S, Vh = torch.linalg.svd(A, full_matrices=full)
        k = S.shape[-1]
        assert torch.allclose((U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :], A, atol=1e-12)
        eye_u = torch.eye(U.shape[-1], dtype=F64)
        assert torch.allclose(U.mT @ U, eye_u.expand_as(U.mT @ U), atol=1e-12)
    P = A.mT @ A
    w, V = torch.linalg.eigh(P)
    assert torch.allclose((V * w.unsqueeze(-2)) @ V.mT, P, atol=1e-12)
    L = torch.linalg.cholesky(P)
    assert torch.allclose(L @ L.mT, P, atol=1e-12)
    LU, piv = torch.linalg.lu_factor(P)
    assert piv.dtype == torch.int64 and LU.shape == P.shape
    assert torch.allclose(
        torch.linalg.inv(P) @ P, torch.eye(3, dtype=F64).expand(2, 3, 3), atol=1e-12
    )


def test_float32_inputs_give_float32_results():
    A = torch.tensor([[4.0, 1.0], [1.0, 3.0]])
    for out in (
        torch.linalg.inv(A),
        torch.linalg.det(A),
        torch.linalg.cholesky(A),
        torch.linalg.matrix_exp(A),
        torch.linalg.eigh(A).eigenvalues,
        torch.linalg.qr(A).Q,
        torch.linalg.pinv(A),
        torch.cdist(A, A),
    ):
        assert out.dtype == torch.float32


def test_linalg_error_is_a_runtime_error():
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)
    with pytest.raises(torch.linalg.LinAlgError, match="diagonal element 2 is zero"):
        torch.linalg.inv(torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=F64))
    info = torch.linalg.inv_ex(torch.zeros(2, 2, dtype=F64)).info
    assert info.item() == 1


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_complex_results_are_refused(name):
    with pytest.raises(NotImplementedError, match="complex"):
        getattr(torch.linalg, name)(torch.eye(2, dtype=F64))


def test_lstsq_other_drivers_are_refused():
    with pytest.raises(NotImplementedError, match="gelsy"):
        torch.linalg.lstsq(torch.eye(2, dtype=F64), torch.ones(2, 1, dtype=F64), driver="gelsd")
