"""gradcheck with sparse COO inputs (``masked=True``, as PyTorch's test_autograd runs it): the
stored values are perturbed and compared with the gradient at the stored positions, and a wrong
backward is caught."""

import ferrograd as torch
import pytest
from ferrograd.autograd import gradcheck
from ferrograd.autograd.gradcheck import GradcheckError


def test_sparse_inputs_pass_gradcheck():
    torch.manual_seed(0)
    a = torch.rand(2, 2, dtype=torch.double, requires_grad=True)
    b = torch.rand(2, 2, dtype=torch.double).to_sparse().requires_grad_(True)
    assert gradcheck(lambda x, y: x * y.coalesce().to_dense(), (a, b), masked=True)
    assert gradcheck(lambda y: torch.sparse.mm(y, a.detach()), (b,), masked=True)


def test_a_wrong_sparse_gradient_is_caught():
    b = torch.rand(2, 2, dtype=torch.double).to_sparse().requires_grad_(True)

    class Tripled(torch.autograd.Function):
        """Forward doubles; the backward claims a factor of three."""

        @staticmethod
        def forward(ctx, y):
            return y.to_dense() * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 3).sparse_mask(b.detach())

    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(Tripled.apply, (b,), masked=True)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_sparse_gradients_of_the_wrong_kind_are_caught(fast_mode):
    # PyTorch's _test_backward_mul_by_grad_output: a sparse gradient must have its input's
    # layout and sparse/dense dimensions (a dense gradient of a sparse input is fine)
    def rehybridized(x):
        y = x.clone()
        y.register_hook(lambda g: g.to_dense().to_sparse(1))
        return y.to_dense()

    x = torch.ones((2, 2), dtype=torch.double, requires_grad=True).to_sparse()
    with pytest.raises(GradcheckError, match="incorrect sparse_dim 1, expected 2"):
        gradcheck(rehybridized, (x,), atol=1e-1, masked=True, fast_mode=fast_mode)
    assert gradcheck(lambda s: torch.sum(s), (x.detach().requires_grad_(),), masked=False)

    class SparseGradient(torch.autograd.Function):
        @staticmethod
        def forward(ctx, d):
            return d

        @staticmethod
        def backward(ctx, g):
            return g.to_sparse()

    d = torch.ones(1, dtype=torch.double, requires_grad=True)
    with pytest.raises(GradcheckError, match=r"incorrect layout \(torch.sparse_coo is not "):
        gradcheck(SparseGradient.apply, (d,), fast_mode=fast_mode)
