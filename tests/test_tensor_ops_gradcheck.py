"""First and second derivatives of the torch-namespace ops that are functions rather than Tensor
methods (``einsum``, ``meshgrid``, ``broadcast_tensors``, ``linalg``, ``F.linear``), and of the
cases the op registry's inputs do not reach: ``cumprod`` through zeros, the whole-tensor
``median``, ``diag`` of a vector, norms of every order, ``remainder`` by a number. Checked by
finite differences in float64 (``gradcheck``/``gradgradcheck``)."""

import math

import ferrograd as torch
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck


def leaf(*shape, phase=0.3, scale=1.0, values=None):
    """A float64 leaf with fixed, distinct values."""
    n = math.prod(shape)
    data = values if values is not None else [scale * math.sin(1.7 * i + phase) for i in range(n)]
    return torch.tensor(data, dtype=torch.float64).reshape(*shape).requires_grad_()


CASES = {
    "einsum mm": (lambda a, b: torch.einsum("ij,jk->ik", a, b), [(3, 4), (4, 2)]),
    "einsum batched": (lambda a, b: torch.einsum("bij,bjk->bik", a, b), [(2, 3, 4), (2, 4, 2)]),
    "einsum dot": (lambda a, b: torch.einsum("i,i->", a, b), [(4,), (4,)]),
    "einsum diagonal": (lambda a: torch.einsum("ii->i", a), [(3, 3)]),
    "einsum trace": (lambda a: torch.einsum("ii", a), [(3, 3)]),
    "einsum attention": (
        lambda q, k: torch.einsum("bhqd,bhkd->bhqk", q, k),
        [(1, 2, 3, 2), (1, 2, 4, 2)],
    ),
    "einsum three": (lambda a, b, c: torch.einsum("i,i,i->", a, b, c), [(4,), (4,), (4,)]),
    "einsum chain": (
        lambda a, b, c: torch.einsum("ij,jk,kl->il", a, b, c),
        [(2, 3), (3, 4), (4, 2)],
    ),
    "einsum ellipsis": (
        lambda a, b: torch.einsum("...ij,...jk->...ik", a, b),
        [(2, 2, 3), (2, 3, 2)],
    ),
    "meshgrid": (lambda a, b: torch.meshgrid(a, b, indexing="xy")[0] * 2.0, [(3,), (2,)]),
    "broadcast_tensors": (
        lambda a, b: torch.broadcast_tensors(a, b)[1] * torch.broadcast_tensors(a, b)[0],
        [(3, 4), (4,)],
    ),
    "linalg.norm": (lambda a: torch.linalg.norm(a), [(3, 4)]),
    "vector_norm 3": (lambda a: torch.linalg.vector_norm(a, 3, 1), [(3, 4)]),
    "vector_norm -1.5": (lambda a: torch.linalg.vector_norm(a, -1.5), [(3, 4)]),
    "vector_norm -inf": (lambda a: torch.linalg.vector_norm(a, -math.inf, 0), [(3, 4)]),
    "matrix_norm fro": (lambda a: torch.linalg.matrix_norm(a), [(2, 3, 4)]),
    "matrix_norm 1": (lambda a: torch.linalg.matrix_norm(a, 1), [(2, 3, 4)]),
    "matrix_norm -inf": (lambda a: torch.linalg.matrix_norm(a, -math.inf), [(3, 4)]),
    "linalg.cross": (lambda a, b: torch.linalg.cross(a, b), [(4, 3), (1, 3)]),
    "linear 2-D": (lambda x, w, b: torch.nn.functional.linear(x, w, b), [(3, 4), (2, 4), (2,)]),
    "linear 3-D": (lambda x, w, b: torch.nn.functional.linear(x, w, b), [(2, 3, 4), (2, 4), (2,)]),
    "linear no bias": (lambda x, w: torch.nn.functional.linear(x, w), [(2, 3, 4), (2, 4)]),
    "diag of a vector": (lambda v: torch.diag(v, -1), [(3,)]),
    "median": (lambda a: a.median(), [(3, 5)]),
    "median dim": (lambda a: a.median(0, keepdim=True).values, [(4, 3)]),
    "kthvalue": (lambda a: a.kthvalue(2, 0).values, [(4, 3)]),
    "topk": (lambda a: a.topk(2, 0, largest=False).values, [(4, 3)]),
    "remainder by a number": (lambda a: a.remainder(0.7), [(3, 4)]),
    "fmod by a number": (lambda a: torch.fmod(a, -0.7), [(3, 4)]),
    "trace": (lambda a: a.trace(), [(3, 4)]),
    "roll flat": (lambda a: a.roll(5), [(3, 4)]),
    "baddbmm": (
        lambda x, a, b: torch.baddbmm(x, a, b, beta=0.5, alpha=-1.0),
        [(3, 2), (2, 3, 4), (2, 4, 2)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    inputs = [leaf(*s, phase=0.4 * i + 0.3) for i, s in enumerate(shapes)]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("dim", [0, 1])
def test_cumprod_through_zeros(dim):
    """With zeros the gradient is the product of the others (no 0/0), to second order."""
    values = [1.5, 0.0, -2.0, 3.0, 0.5, 2.0, 0.0, 0.0, -1.0, 2.5, 1.2, 0.0]
    x = leaf(3, 4, values=values)
    assert gradcheck(lambda t: t.cumprod(dim), [x])
    assert gradgradcheck(lambda t: t.cumprod(dim), [x])


def test_cumprod_gradient_with_one_zero_is_exact():
    """y = (x0, x0 x1, x0 x1 x2) at x = (2, 0, 3): dy/dx = (1 + x1 + x1 x2, x0 + x0 x2, x0 x1)."""
    x = leaf(3, values=[2.0, 0.0, 3.0])
    (g,) = torch.autograd.grad(x.cumprod(0).sum(), [x])
    assert g.tolist() == [1.0, 8.0, 0.0]


def test_median_of_ties_shares_the_gradient():
    """The whole-tensor median's gradient is split evenly among the elements equal to it."""
    x = leaf(4, values=[1.0, 2.0, 2.0, 3.0])
    x.median().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]
