"""Advanced indices mixed with slices and integers follow NumPy's placement rules."""

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

A = np.arange(60.0).reshape(3, 4, 5)

CASES = [
    ([0, 2], slice(None), [1, 3]),  # separated by a slice: index dims go first
    (slice(None), [0, 1], [2, 2]),  # adjacent: they stay in place
    ([1], 0, [4]),  # an integer among tensors is an advanced index too
    (0, slice(None), [1, 2]),
    (slice(None), 1, [0, 0, 3]),
    (-1, [2, 3]),
    (Ellipsis, [4, 0]),
]


@pytest.mark.parametrize("index", CASES, ids=[str(i) for i in range(len(CASES))])
def test_getitem_matches_numpy(index):
    """Values and shape equal NumPy's for the same index."""
    got = torch.tensor(A)[index]
    np.testing.assert_array_equal(got.numpy(), A[index])


@pytest.mark.parametrize("index", CASES, ids=[str(i) for i in range(len(CASES))])
def test_getitem_gradient(index):
    """The gradient of a mixed index passes gradcheck (repeated positions accumulate)."""
    x = torch.tensor(A / 10, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t[index] * 1.5, (x,))


def test_setitem_separated_indices_matches_numpy_and_grads():
    """`y[[0, 2], :, [1, 3]] = 0` writes what NumPy writes; zeroed places get no gradient."""
    x = torch.tensor(A, requires_grad=True)
    y = x * 1
    y[[0, 2], :, [1, 3]] = 0.0
    expected = A.copy()
    expected[[0, 2], :, [1, 3]] = 0
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    y.sum().backward()
    mask = np.ones_like(A)
    mask[[0, 2], :, [1, 3]] = 0
    np.testing.assert_array_equal(x.grad.numpy(), mask)
