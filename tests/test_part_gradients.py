"""Gradients of many parts of one tensor (`x[t]` in a loop, slices) are added into one sum
(Note [Gradients of parts] in src/autograd/accumulate.rs): the same values as the view
formulas give, with hooks, retained gradients, `autograd.grad` and `create_graph`.
Expected values are worked out by hand; the assertions pass under ``import torch`` too."""

import ferrograd as torch
import numpy as np


def test_loop_over_steps_gives_each_step_its_weight():
    x = torch.randn(6, 3, 4, requires_grad=True)
    s = sum(x[t].sum() * (t + 1) for t in range(6))
    s.backward()
    want = np.broadcast_to(np.arange(1, 7, dtype=np.float32)[:, None, None], (6, 3, 4))
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_parts_mixed_with_whole_gradients_and_repeats():
    x = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    y = x * 1  # parts of a non-leaf: the sum flows on into MulBackward0
    s = (y * 3).sum() + y[1].sum() + y[1].sum() * 2 + y[:, 2].sum() + y[1:4:2].sum() * 10
    s.backward()
    want = np.full((5, 4), 3.0)
    want[1] += 3
    want[:, 2] += 1
    want[[1, 3]] += 10
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_hooks_and_retained_gradients_of_parts():
    x = torch.zeros(4, 2, requires_grad=True)
    parts = [x[t] for t in range(4)]
    parts[2].register_hook(lambda g: g * 100)
    parts[3].retain_grad()
    sum((p * (t + 1)).sum() for t, p in enumerate(parts)).backward()
    assert x.grad.tolist() == [[1.0, 1.0], [2.0, 2.0], [300.0, 300.0], [4.0, 4.0]]
    assert parts[3].grad.tolist() == [4.0, 4.0]


def test_grad_node_hooks_see_the_whole_gradient():
    x = torch.ones(3, 2, requires_grad=True)
    v = x[1]
    seen = []
    v.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(grad_inputs[0].shape))
    (v * 5).sum().backward()
    assert seen == [torch.Size([3, 2])]
    assert x.grad.tolist() == [[0.0, 0.0], [5.0, 5.0], [0.0, 0.0]]


def test_autograd_grad_and_second_order_through_parts():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    s = sum(x[t].pow(3).sum() for t in range(3)) + x[:, 1].pow(2).sum()
    (g,) = torch.autograd.grad(s, x, create_graph=True)
    want = 3 * x.detach().numpy() ** 2
    want[:, 1] += 2 * x.detach().numpy()[:, 1]
    np.testing.assert_allclose(g.detach().numpy(), want)
    (h,) = torch.autograd.grad(g.sum(), x)
    want_h = 6 * x.detach().numpy()
    want_h[:, 1] += 2
    np.testing.assert_allclose(h.numpy(), want_h)


def test_strided_and_later_dimension_parts():
    x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    s = x[:, 1].sum() * 2 + x[..., ::3].sum() + x[1, :, 1:3].sum() * 7
    s.backward()
    want = np.zeros((2, 3, 4), dtype=np.float32)
    want[:, 1] += 2
    want[..., ::3] += 1
    want[1, :, 1:3] += 7
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_accumulates_into_an_existing_grad():
    x = torch.ones(3, 2, requires_grad=True)
    x[0].sum().backward()
    x[2].sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
