"""``F.embedding_bag``'s gradients against finite differences (``gradcheck``), and its second
derivatives (``gradgradcheck``) where ferrograd has them and PyTorch does not: through the
per-sample weights (PyTorch raises ``derivative for
aten::_embedding_bag_per_sample_weights_backward is not implemented``). Values and first
gradients against PyTorch's recorded answers are in ``embedding_bag_cases.py``."""

import ferrograd as torch
import ferrograd.nn.functional as F
import pytest

IDX = torch.tensor([0, 2, 2, 5, 1, 4, 3, 2])
OFF = torch.tensor([0, 3, 3, 5])


def _weight():
    torch.manual_seed(0)
    return torch.randn(6, 3, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_weight_gradient_matches_finite_differences(mode, padding_idx):
    w = _weight()
    assert torch.autograd.gradcheck(
        lambda a: F.embedding_bag(IDX, a, OFF, mode=mode, padding_idx=padding_idx), (w,)
    )


def test_per_sample_weights_first_and_second_derivatives():
    w = _weight()
    psw = torch.rand(8, dtype=torch.float64, requires_grad=True)

    def bags(a, b):
        return F.embedding_bag(IDX, a, OFF, mode="sum", per_sample_weights=b, padding_idx=5)

    assert torch.autograd.gradcheck(bags, (w, psw))
    assert torch.autograd.gradgradcheck(bags, (w, psw))
