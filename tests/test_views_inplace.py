"""Views whose base (or a sibling view) was written in place take a fresh history (PyTorch's
view ``grad_fn`` regeneration): expected values from PyTorch 2.15 (runs with ``import torch``)."""

import ferrograd as torch
import pytest


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


def test_writes_through_views_of_non_contiguous_tensors_reach_autograd():
    """The base need not be contiguous (a detached transpose or strided slice): CopySlices
    replays the view in the base's own coordinates (expected values worked out by hand)."""
    value = torch.tensor([1.5], requires_grad=True)
    t = torch.zeros(2, 3).t().detach()  # (3, 2), strides (1, 3)
    t[0] = value[0]
    assert t.requires_grad and type(t.grad_fn).__name__ == "CopySlices"
    (t * torch.tensor([[2.0, 3.0], [5.0, 7.0], [11.0, 13.0]])).sum().backward()
    assert value.grad.tolist() == [5.0]  # 2 + 3: the row the assignment wrote

    value.grad = None
    s = torch.zeros(2, 3)[0:2, 0].detach()  # shape (2,), stride 3
    s[torch.tensor([1])] = value
    assert s.requires_grad
    (s * torch.tensor([2.0, 3.0])).sum().backward()
    assert value.grad.tolist() == [3.0]

    w = torch.arange(12.0).reshape(3, 4).requires_grad_()
    b = (w * 1).t()  # a non-contiguous view of a contiguous base
    b[1].mul_(2)
    b.sum().backward()
    assert w.grad.tolist() == [[1.0, 2.0, 1.0, 1.0]] * 3


@pytest.mark.parametrize(
    "replay, names",
    [
        (False, ["AsStridedBackward0", "torch::autograd::CopySlices"]),
        (True, ["SliceBackward0", "TransposeBackward0"]),
    ],
)
def test_view_replay_regenerates_with_the_views_own_ops(replay, names):
    # PyTorch 2.15's names and gradients: with view replay on, a view written in place gets its
    # history back by its own view ops (view, transpose, slice) instead of by as_strided
    with torch.autograd._force_original_view_tracking(replay):
        x = torch.arange(6.0, requires_grad=True)
        b = x * 1
        v = b.view(2, 3).transpose(0, 1)[1:]
        v.mul_(torch.tensor([[2.0, 3.0], [4.0, 5.0]]))
        assert [v.grad_fn.name(), v.grad_fn.next_functions[0][0].name()] == names
        (v.sum() + b.sum()).backward()
    assert x.grad.tolist() == [1.0, 4.0, 8.0, 1.0, 6.0, 10.0]
