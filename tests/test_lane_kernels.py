"""softmax and log_softmax on inputs large enough for the vectorized, multi-threaded lane
kernels (many rows of a contiguous float32 tensor, and a non-last dim), against float64 NumPy."""

import ferrograd as torch
import ferrograd.nn.functional as F
import numpy as np
import pytest


def reference(x, dim):
    """float64 softmax, log_softmax of a NumPy array along ``dim``."""
    shifted = x - x.max(axis=dim, keepdims=True)
    log_total = np.log(np.exp(shifted).sum(axis=dim, keepdims=True))
    return np.exp(shifted - log_total), shifted - log_total


@pytest.mark.parametrize("shape, dim", [((1600, 64), 1), ((513, 97), -1), ((64, 700), 0)])
def test_values_and_gradients_match_float64(shape, dim):
    rng = np.random.default_rng(7)
    x_np = (rng.standard_normal(shape) * 4).astype(np.float32)
    g_np = rng.standard_normal(shape).astype(np.float32)
    soft, log_soft = reference(x_np.astype(np.float64), dim)
    g64 = g_np.astype(np.float64)

    x = torch.from_numpy(x_np.copy()).requires_grad_()
    y = F.softmax(x, dim)
    np.testing.assert_allclose(y.detach().numpy(), soft, rtol=2e-6, atol=1e-7)
    y.backward(torch.from_numpy(g_np))
    want = soft * (g64 - (g64 * soft).sum(axis=dim, keepdims=True))
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=2e-6)

    x = torch.from_numpy(x_np.copy()).requires_grad_()
    y = F.log_softmax(x, dim)
    np.testing.assert_allclose(y.detach().numpy(), log_soft, rtol=2e-6, atol=2e-6)
    y.backward(torch.from_numpy(g_np))
    want = g64 - np.exp(log_soft) * g64.sum(axis=dim, keepdims=True)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=2e-5)


def test_nan_and_infinite_lanes_as_pytorch():
    # PyTorch 2.15: a NaN anywhere in a lane makes the lane NaN; an infinite maximum gives NaN
    x = torch.zeros(2000, 20)
    x[3, 5] = float("nan")
    x[7, 0] = float("inf")
    y = x.softmax(1)
    assert y[3].isnan().all() and y[7].isnan().all()
    assert torch.allclose(y[0], torch.full((20,), 0.05))
