"""Assigning a selection from its own elements, as PyTorch 2.15 allows and refuses it:
``x[i] = v`` broadcasts ``v`` to the selection before copying (its leading size-1 dimensions
dropped; a 0-d value fills), so a value read from the selection is not a partial overlap, while
``copy_`` and in-place arithmetic from an overlapping operand are refused."""

import ferrograd as torch
import pytest

OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory"


def test_assignment_from_the_selection_itself():
    x = torch.arange(12).reshape(3, 4)
    x[1] = x[1][0]
    assert x.tolist() == [[0, 1, 2, 3], [4, 4, 4, 4], [8, 9, 10, 11]]
    y = torch.arange(12.0).reshape(3, 4)
    y[1] = y[1][0:1]
    assert y[1].tolist() == [4.0, 4.0, 4.0, 4.0]
    z = torch.arange(12.0).reshape(3, 4)
    z[:, 1] = z[:, 0]
    assert z.tolist() == [[0, 0, 2, 3], [4, 4, 6, 7], [8, 8, 10, 11]]


def test_assignment_records_the_copy():
    base = torch.arange(6.0, requires_grad=True)
    x = base * 1
    x[1:] = x[0:1]
    assert type(x.grad_fn).__name__ == "CopySlices"
    x.sum().backward()
    assert base.grad.tolist() == [6.0, 0.0, 0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "write",
    [
        lambda t: t[1:4].copy_(t[0:3]),
        lambda t: t.__setitem__(slice(1, 4), t[0:3]),
        lambda t: t.add_(t[0]),
    ],
)
def test_partial_overlaps_are_refused(write):
    t = torch.arange(6.0)
    with pytest.raises(RuntimeError, match=OVERLAP):
        write(t)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_disjoint_source_is_not_an_overlap():
    t = torch.arange(6.0)
    t[1:].copy_(t[0])
    assert t.tolist() == [0.0] * 6


def test_shape_mismatch_messages():
    x = torch.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match"):
        x[1] = torch.ones(3)
    with pytest.raises(RuntimeError, match=r"the number of sizes provided \(1\) must be greater"):
        x[1] = torch.ones(2, 4)
    x[1] = torch.ones(1, 1, 4)
    assert x[1].tolist() == [1.0, 1.0, 1.0, 1.0]
