"""``torch.memory_format``: ``contiguous(memory_format=)`` and ``is_contiguous(memory_format=)``
with PyTorch 2.15's strides, node names and refusals (the file also passes under PyTorch)."""

import ferrograd as torch
import pytest


def test_channels_last_copy():
    x = torch.arange(24.0).reshape(2, 3, 2, 2).requires_grad_()
    y = x.contiguous(memory_format=torch.channels_last)
    assert y.stride() == (12, 1, 6, 3)
    assert not y.is_contiguous()
    assert y.is_contiguous(memory_format=torch.channels_last)
    assert type(y.grad_fn).__name__ == "CloneBackward0"
    assert y._base is None
    assert y.tolist() == x.tolist()
    (y * torch.arange(24.0).reshape(2, 3, 2, 2)).sum().backward()
    assert x.grad.reshape(-1).tolist() == [float(i) for i in range(24)]
    assert y.contiguous(memory_format=torch.channels_last) is y
    assert y.contiguous().stride() == (12, 4, 2, 1)
    assert x.is_contiguous(memory_format=torch.contiguous_format)
    assert not x.is_contiguous(memory_format=torch.channels_last)


def test_channels_last_3d_and_size_one_dims():
    z = torch.randn(2, 3, 1, 4, 5).contiguous(memory_format=torch.channels_last_3d)
    assert z.stride() == (60, 1, 60, 15, 3)
    assert z.is_contiguous(memory_format=torch.channels_last_3d)


def test_formats_print_and_refuse_as_pytorch():
    assert repr(torch.channels_last) == "torch.channels_last"
    assert repr(torch.contiguous_format) == "torch.contiguous_format"
    assert type(torch.preserve_format).__name__ == "memory_format"
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        torch.ones(2, 3).contiguous(memory_format=torch.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        torch.ones(2, 3, 4, 5).contiguous(memory_format=torch.channels_last_3d)
    a = torch.ones(2, 3)
    assert a.contiguous(memory_format=torch.preserve_format) is a
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        a.t().contiguous(memory_format=torch.preserve_format)


def test_channels_last_index_tensor():
    # PyTorch's test_advanced_indexing_backwards_memory_format
    shape = (2, 8, 1, 2)
    i = torch.tensor([0, 1, 1, 0] * 8).reshape(shape).contiguous(memory_format=torch.channels_last)
    x = torch.randn(shape, requires_grad=True)
    x[i].sum().backward()
    assert x.grad.reshape(-1).tolist() == [16.0] * 32
