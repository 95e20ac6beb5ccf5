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
