"""PyTorch's alias names are the very functions they name again (``torch.multiply is
torch.mul`` holds in PyTorch too, for the namespace), so their values, gradients and refusals
are their targets' (checked in the op registry); the namespace's linear-algebra functions are
also ``Tensor`` methods. Values below are PyTorch 2.15's."""

import ferrograd as torch
import pytest
from ferrograd._aliases import ALIASES, NAMESPACE_METHODS


@pytest.mark.parametrize(("alias", "target"), sorted(ALIASES.items()))
def test_alias_is_its_target(alias, target):
    assert getattr(torch, alias) is getattr(torch, target)
    assert getattr(torch.Tensor, alias) is getattr(torch.Tensor, target)
    if hasattr(torch.Tensor, target + "_"):
        assert getattr(torch.Tensor, alias + "_") is getattr(torch.Tensor, target + "_")


def test_aliases_compute_pytorchs_values():
    x = torch.tensor([[0.5, -0.25], [0.75, 0.1]])
    torch.testing.assert_close(torch.arctan2(x, x.flip(0)), torch.atan2(x, x.flip(0)))
    torch.testing.assert_close(
        torch.arctan(x), torch.tensor([[0.46364760, -0.24497867], [0.64350110, 0.09966865]])
    )
    torch.testing.assert_close(torch.fix(torch.tensor([-1.5, 2.7])), torch.tensor([-1.0, 2.0]))
    assert torch.greater(x, 0.2).tolist() == [[True, False], [True, False]]
    y = torch.ones(2)
    assert y.multiply_(3) is y and y.tolist() == [3.0, 3.0]
    assert y.clip_(0, 2).tolist() == [2.0, 2.0]
    torch.testing.assert_close(x.det(), torch.tensor(0.2375))
    torch.testing.assert_close(x.matrix_power(2), x @ x)
    sign, logabs = x.slogdet()
    assert sign.item() == 1.0
    torch.testing.assert_close(logabs, torch.tensor(-1.43759))


@pytest.mark.parametrize("name", NAMESPACE_METHODS)
def test_namespace_function_is_a_method(name):
    assert getattr(torch.Tensor, name) is getattr(torch, name)


def test_repeat_interleave_as_pytorch():
    x = torch.arange(6.0).reshape(3, 2).requires_grad_()
    y = x.repeat_interleave(2, dim=1)
    assert y.tolist() == [[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5]]
    assert type(y.grad_fn).__name__ == "ViewBackward0"
    z = torch.repeat_interleave(x, torch.tensor([1, 2, 0]), dim=0)
    assert z.tolist() == [[0, 1], [2, 3], [2, 3]]
    assert type(z.grad_fn).__name__ == "IndexSelectBackward0"
    (y.sum() + (z * 2).sum()).backward()
    assert x.grad.tolist() == [[4, 4], [6, 6], [2, 2]]
    assert x.detach().repeat_interleave(2).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert torch.repeat_interleave(torch.tensor([1, 2, 0])).tolist() == [0, 1, 1]
    assert torch.repeat_interleave(torch.tensor(3), 2).tolist() == [3, 3]
    assert x.repeat_interleave(torch.tensor([2]), dim=0).shape == (6, 2)
    with pytest.raises(RuntimeError, match="Repeats must be non-negative"):
        x.repeat_interleave(-1)
    with pytest.raises(
        RuntimeError,
        match=r"repeats must have the same size as input along dim, but got repeats.size\(0\) "
        r"= 2 and input.size\(0\) = 3",
    ):
        x.repeat_interleave(torch.tensor([1, 2]), dim=0)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        x.repeat_interleave(torch.tensor([1, -2, 1]), dim=0)


def test_complex_api_on_real_tensors_as_pytorch():
    x = torch.randn(3, requires_grad=True)
    assert x.conj() is x and x.resolve_conj() is x and x.resolve_neg() is x
    assert x.conj_physical() is x and torch.conj(x) is x
    assert not x.is_conj() and not x.is_neg() and not x.is_complex()
    assert not torch.is_complex(x) and torch.is_floating_point(x)
    ints = torch.tensor([1])
    assert not torch.is_complex(ints) and not torch.is_floating_point(ints)


def test_sgn_of_a_real_tensor_is_its_sign():
    x = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    y = x.sgn()
    assert y.tolist() == [-1.0, 0.0, 1.0] and torch.sgn(x).tolist() == y.tolist()
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    z = torch.tensor([-0.5, 2.0])
    assert z.sgn_() is z and z.tolist() == [-1.0, 1.0]
