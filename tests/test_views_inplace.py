"""Views whose base (or a sibling view) was written in place take a fresh history (PyTorch's
view ``grad_fn`` regeneration): expected values from PyTorch 2.15 (runs with ``import torch``)."""

import ferrograd as torch


def test_assignment_into_a_view_reaches_autograd():
    x = torch.ones(3, 2, requires_grad=True)
    y = x * 1
    v = y[0:2]
    w = torch.tensor(5.0, requires_grad=True)
    v[1] = w
    (v * 2).sum().backward()
    assert w.grad.item() == 4.0
    assert x.grad.tolist() == [[2.0, 2.0], [0.0, 0.0], [0.0, 0.0]]


def test_view_taken_before_an_inplace_op_on_its_base():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    v = a[1:]
    a.mul_(2)
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    (v * torch.tensor([1.0, 2.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 4.0]


def test_view_of_a_tensor_that_comes_to_require_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = torch.zeros(2)
    v = x[0:1]
    assert not v.requires_grad
    x.add_(w)
    assert v.requires_grad and not v.is_leaf
    v.sum().backward()
    assert w.grad.tolist() == [1.0, 0.0]
