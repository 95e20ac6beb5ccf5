"""``gradcheck`` and ``gradgradcheck`` (float64) of the normalization functions: every input,
weight and bias against finite differences, first and second order, also through the incoming
gradient (the backward of the backward depends on it), on contiguous and transposed inputs,
in training and evaluation for batch norm."""

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

F = torch.nn.functional


def _t(rng, *shape, low=-1.5, high=1.5, grad=True):
    a = rng.uniform(low, high, size=shape)
    return torch.tensor(a, dtype=torch.float64).requires_grad_(grad)


def _running(rng):
    return _t(rng, 3, grad=False), _t(rng, 3, low=0.5, high=1.5, grad=False)


# (id, function of the tensors, tensor specs as (shape, requires grad))
CASES = [
    (
        "layer_norm_affine",
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        [((3, 4), True), ((4,), True), ((4,), True)],
    ),
    (
        "layer_norm_two_dims_weight",
        lambda x, w: F.layer_norm(x, (3, 4), w, eps=1e-3),
        [((2, 3, 4), True), ((3, 4), True)],
    ),
    (
        "layer_norm_plain_transposed",
        lambda x: F.layer_norm(x.transpose(0, 1), (2,)),
        [((2, 5), True)],
    ),
    # (PyTorch's own double backward of a bias without a weight fails)
    (
        "layer_norm_bias_only",
        lambda x, b: F.layer_norm(x, (4,), None, b),
        [((3, 4), True), ((4,), True)],
    ),
    (
        "batch_norm_train",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        [((5, 3), True), ((3,), True), ((3,), True)],
    ),
    (
        "batch_norm_train_3d_plain",
        lambda x: F.batch_norm(x, None, None, training=True),
        [((2, 3, 4), True)],
    ),
    (
        "batch_norm_train_4d_weight",
        lambda x, w: F.batch_norm(x.transpose(2, 3), None, None, w, training=True, eps=1e-3),
        [((2, 3, 2, 3), True), ((3,), True)],
    ),
    (
        "group_norm_affine",
        lambda x, w, b: F.group_norm(x, 3, w, b),
        [((2, 6, 3), True), ((6,), True), ((6,), True)],
    ),
    ("group_norm_2d", lambda x, w: F.group_norm(x, 2, w), [((3, 4), True), ((4,), True)]),
    ("group_norm_one_group_4d", lambda x: F.group_norm(x, 1, eps=1e-3), [((2, 2, 2, 3), True)]),
    ("rms_norm_weight", lambda x, w: F.rms_norm(x, (4,), w), [((3, 4), True), ((4,), True)]),
    ("rms_norm_two_dims", lambda x: F.rms_norm(x, (3, 4), eps=1e-3), [((2, 3, 4), True)]),
]


def _inputs(specs, seed):
    rng = np.random.default_rng(seed)
    return [_t(rng, *shape, grad=grad) for shape, grad in specs]


@pytest.mark.parametrize("name, fn, specs", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(name, fn, specs):
    assert gradcheck(fn, _inputs(specs, 1))


@pytest.mark.parametrize("name, fn, specs", CASES, ids=[c[0] for c in CASES])
def test_gradgradcheck(name, fn, specs):
    assert gradgradcheck(fn, _inputs(specs, 2))


@pytest.mark.parametrize("name, fn, specs", CASES, ids=[c[0] for c in CASES])
def test_gradient_is_differentiable_in_the_incoming_gradient(name, fn, specs):
    """The first derivatives as a function of the inputs and of the incoming gradient `g`."""
    inputs = _inputs(specs, 3)
    out_shape = tuple(fn(*inputs).shape)
    g = _t(np.random.default_rng(4), *out_shape)

    def first_order(*xs):
        *args, grad_out = xs
        return torch.autograd.grad(fn(*args), args, grad_out, create_graph=True)

    assert gradcheck(first_order, [*inputs, g])


def test_batch_norm_eval_and_running_updates_gradcheck():
    """Evaluation with running statistics (constants), and training that updates them (the
    output does not depend on them)."""
    rng = np.random.default_rng(5)
    x, w, b = _t(rng, 4, 3, 2), _t(rng, 3), _t(rng, 3)
    rm, rv = _running(rng)

    def evaluation(x, w, b):
        return F.batch_norm(x, rm, rv, w, b, training=False)

    def training(x, w, b):
        return F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2)

    for fn in (evaluation, training):
        assert gradcheck(fn, [x, w, b])
        assert gradgradcheck(fn, [x, w, b])


def test_float32_statistics_are_accurate_for_offset_inputs():
    """Statistics in float64: a float32 input far from zero normalizes as its float64 copy."""
    rng = np.random.default_rng(6)
    a = 1000.0 + rng.standard_normal((4, 256))
    x32, x64 = torch.tensor(a, dtype=torch.float32), torch.tensor(a, dtype=torch.float64)
    for f in (
        lambda x: F.layer_norm(x, (256,)),
        lambda x: F.batch_norm(x.t(), None, None, training=True),
        lambda x: F.group_norm(x.reshape(4, 8, 32), 2),
    ):
        exact = f(x64.float().double()).numpy()
        assert np.allclose(f(x32).numpy(), exact, atol=2e-4), f
