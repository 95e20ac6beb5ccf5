"""``nn.Buffer``, as PyTorch 2.15 behaves (its answers recorded beside each check): assigning
one registers a buffer, persistent or not; it holds the data detached, keeping
``requires_grad``; operations on it give plain tensors."""

import copy

import ferrograd as torch
import pytest


def test_assigning_a_buffer_registers_it():
    m = torch.nn.Linear(2, 2)
    b = torch.nn.Buffer(torch.ones(3), persistent=False)
    m.extra = b
    m.kept = torch.nn.Buffer(torch.zeros(2))
    assert m.extra is b and isinstance(b, torch.nn.Buffer) and not b.persistent
    assert [n for n, _ in m.named_buffers()] == ["extra", "kept"]
    assert list(m.state_dict()) == ["weight", "bias", "kept"]
    assert type(b * 2) is torch.Tensor
    assert not isinstance(torch.ones(2), torch.nn.Buffer)


def test_buffer_holds_detached_data():
    x = torch.ones(2, requires_grad=True)
    b = torch.nn.Buffer(x * 2)
    assert b.requires_grad and b.is_leaf and b.grad_fn is None
    assert torch.nn.Buffer().shape == (0,)
    c = copy.deepcopy(torch.nn.Buffer(torch.ones(2), persistent=False))
    assert isinstance(c, torch.nn.Buffer) and not c.persistent and c.tolist() == [1.0, 1.0]


def test_buffer_for_a_parameter_name_is_refused():
    m = torch.nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'bias'"):
        m.bias = torch.nn.Buffer(torch.zeros(2))
