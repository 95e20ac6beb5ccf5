"""A leaf's ``.grad`` is laid out as PyTorch's AccumulateGrad lays it out (Note [Gradient layout
contract]): as the leaf when the leaf is dense in some order of its dimensions (channels-last
included), whatever layout the gradient arrived in, else row-major; and ``torch.empty_strided``
/ ``Tensor.new_empty_strided`` with PyTorch's strides, storage span and refusals. Every
expectation was checked by running this file under PyTorch 2.15 (``import torch``)."""

import ferrograd as torch
import pytest

FORMATS = [torch.contiguous_format, torch.channels_last]


@pytest.mark.parametrize("fmt_a", FORMATS)
@pytest.mark.parametrize("fmt_b", FORMATS)
def test_dense_leaf_gets_a_grad_laid_out_as_itself(fmt_a, fmt_b):
    a = torch.rand((2, 3, 4, 5)).to(memory_format=fmt_a).requires_grad_()
    b = torch.rand((2, 3, 4, 5)).to(memory_format=fmt_b).requires_grad_()
    a.sum().backward()  # an expanded (broadcast) gradient
    assert a.grad.stride() == a.stride()
    assert a.grad.tolist() == torch.ones(2, 3, 4, 5).tolist()
    a.grad = None
    (a * b).sum().backward()  # a gradient laid out as the product
    assert a.grad.stride() == a.stride() and b.grad.stride() == b.stride()
    assert torch.equal(a.grad, b.detach()) and torch.equal(b.grad, a.detach())
    # accumulating keeps the first layout
    (a * b).sum().backward()
    assert a.grad.stride() == a.stride()
    assert torch.allclose(a.grad, 2 * b.detach())


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_channels_last_grad_under_create_graph_is_differentiable():
    a = torch.rand((1, 2, 2, 3), dtype=torch.float64)
    a = a.to(memory_format=torch.channels_last).requires_grad_()
    (a * a).sum().backward(create_graph=True)
    assert a.grad.stride() == (12, 1, 6, 2) and a.grad.requires_grad
    (g,) = torch.autograd.grad(a.grad.sum(), a)
    assert torch.equal(g, torch.full((1, 2, 2, 3), 2.0, dtype=torch.float64))


def test_leaf_with_gaps_gets_a_row_major_grad():
    c = torch.empty_strided((2, 2), (4, 2)).copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    c.requires_grad_()
    c.sum().backward()
    assert c.grad.stride() == (2, 1)
    c.grad = None
    (c * torch.tensor([[5.0, 6.0], [7.0, 8.0]])).sum().backward()
    assert c.grad.stride() == (2, 1) and c.grad.tolist() == [[5.0, 6.0], [7.0, 8.0]]


def test_empty_strided():
    t = torch.empty_strided((2, 2), (4, 2))
    assert t.shape == (2, 2) and t.stride() == (4, 2) and not t.is_contiguous()
    assert t.as_strided((7,), (1,)).shape == (7,)  # the storage spans the furthest element
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 28"):
        t.as_strided((8,), (1,))
    assert torch.empty_strided((0, 3), (5, 1)).stride() == (5, 1)
    d = torch.empty_strided([2, 3], [1, 2], dtype=torch.float64, requires_grad=True)
    assert d.dtype == torch.float64 and d.requires_grad and d.is_leaf and d.stride() == (1, 2)
    n = torch.ones(1, dtype=torch.int32).new_empty_strided((3,), (2,))
    assert n.dtype == torch.int32 and n.stride() == (2,)
    with pytest.raises(RuntimeError, match=r"dimensionality of sizes \(2\) must match .* \(1\)"):
        torch.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match=r"overflowed with sizes=\[2\] and strides=\[-1\]"):
        torch.empty_strided((2,), (-1,))
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        torch.empty_strided((2, -1), (1, 1))
