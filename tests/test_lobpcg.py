"""``torch.lobpcg`` (Note [LOBPCG here] in ``_lobpcg.py``): the extreme eigenpairs of symmetric
positive definite (generalized) problems, batched, against a dense eigendecomposition; its
gradient against finite differences and against ``linalg.eigh``'s; PyTorch's refusals. The
file runs unchanged under PyTorch 2.15 (``import torch``), where it passes too."""

import ferrograd as torch
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck


def spd(*shape, seed=0):
    torch.manual_seed(seed)
    a = torch.rand(*shape, dtype=torch.float64)
    return a @ a.mT / 10 + 0.01 * torch.eye(shape[-1], dtype=torch.float64)


def aligned(u, v):
    """``u``'s columns with the signs of ``v``'s."""
    return u * (u * v).sum(-2, keepdim=True).sign()


@pytest.mark.parametrize("largest", [True, False])
def test_extreme_eigenpairs_of_a_batch(largest):
    A = spd(2, 12, 12)
    X = torch.eye(12, 3, dtype=torch.float64).expand(2, 12, 3)
    D, U = torch.lobpcg(A, k=3, X=X, largest=largest)
    w, V = torch.linalg.eigh(A)
    w, V = (w.flip(-1), V.flip(-1)) if largest else (w, V)
    assert D.shape == (2, 3) and U.shape == (2, 12, 3)
    assert torch.allclose(D, w[..., :3], atol=1e-10)
    assert torch.allclose(aligned(U, V[..., :3]), V[..., :3], atol=1e-6)


def test_generalized_problem():
    A, B = spd(9, 9, seed=1), spd(9, 9, seed=2) + torch.eye(9, dtype=torch.float64)
    D, U = torch.lobpcg(A, k=2, B=B, X=torch.eye(9, 2, dtype=torch.float64))
    assert torch.allclose(A @ U, B @ U * D, atol=1e-7)
    assert torch.allclose(U.mT @ B @ U, torch.eye(2, dtype=torch.float64), atol=1e-10)


def test_gradient_is_eighs_and_symmetric():
    A = spd(8, 8, seed=3).requires_grad_()
    D, U = torch.lobpcg(A, k=2, X=torch.eye(8, 2, dtype=torch.float64))
    gD, gU = torch.tensor([0.3, -0.7], dtype=torch.float64), torch.rand(8, 2, dtype=torch.float64)
    (gA,) = torch.autograd.grad((D * gD).sum() + (U * gU).sum(), A)
    S = A.detach().requires_grad_()
    w, V = torch.linalg.eigh((S + S.mT) / 2)
    top, vecs = w.flip(-1)[:2], aligned(V.flip(-1)[:, :2], U.detach())
    (expected,) = torch.autograd.grad((top * gD).sum() + (vecs * gU).sum(), S)
    assert torch.allclose(gA, expected, atol=1e-8)
    assert torch.allclose(gA, gA.mT)


def test_gradcheck_and_gradgradcheck():
    A = spd(6, 6, seed=4).requires_grad_()

    def f(A):
        D, U = torch.lobpcg(A, k=2, X=torch.eye(6, 2, dtype=torch.float64))
        return D, U * U[:1].sign()

    assert gradcheck(f, (A,), check_batched_grad=False)
    assert gradgradcheck(f, (A,), atol=1e-4, check_batched_grad=False)


def test_refusals():
    A = spd(6, 6)
    with pytest.raises(ValueError, match=r"number of A rows \(=6\) is smaller than 3 x .* \(=3\)"):
        torch.lobpcg(A, k=3)
    with pytest.raises(AssertionError, match="A must be square"):
        torch.lobpcg(torch.ones(6, 5, dtype=torch.float64), k=1)
    with pytest.raises(AssertionError, match="A and B must have same shape"):
        torch.lobpcg(A, k=1, B=torch.eye(5, dtype=torch.float64))
    B = torch.eye(6, dtype=torch.float64, requires_grad=True)
    D, _ = torch.lobpcg(A.requires_grad_(), k=1, B=B, X=torch.eye(6, 1, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"does not support backward with B != I yet"):
        D.sum().backward()
