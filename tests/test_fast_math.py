"""The fast float32 sine and cosine on large tensors: accurate everywhere, including the few
arguments beyond the fast kernel's range, which are redone block by block as the kernel goes."""

import ferrograd as torch
import numpy as np
import pytest

N = 100_003  # several parallel chunks and fix-up blocks, and a ragged last one


def _arguments():
    rng = np.random.default_rng(3)
    x = rng.uniform(-20.0, 20.0, N).astype(np.float32)
    # beyond the fast range, scattered over different blocks and chunks (first, last, middle)
    at = [0, 4095, 4096, 40_000, 77_777, N - 1]
    x[at] = [1e6, -3e7, 8193.0, 123456.7, -9000.0, 5e5]
    return x


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_large_float32_tensor_matches_float64_reference(name):
    x = _arguments()
    got = getattr(torch.tensor(x), name)().numpy()
    exact = getattr(np, name)(x.astype(np.float64))
    err = np.abs(got.astype(np.float64) - exact)
    assert err.max() < 4e-7, f"worst error {err.max()} at {x[err.argmax()]}"
    assert (np.abs(x) > 8192).sum() == 6  # the accuracy above covered the fallback too


def test_non_finite_arguments_give_nan():
    x = _arguments()
    x[[10, 50_000, N - 2]] = [np.inf, -np.inf, np.nan]
    for name in ("sin", "cos"):
        got = getattr(torch.tensor(x), name)().numpy()
        assert np.isnan(got[[10, 50_000, N - 2]]).all()
        assert np.isfinite(np.delete(got, [10, 50_000, N - 2])).all()


@pytest.mark.parametrize("name,derivative", [("sin", np.cos), ("cos", lambda v: -np.sin(v))])
def test_gradient_with_out_of_range_arguments(name, derivative):
    x = _arguments()
    t = torch.tensor(x, requires_grad=True)
    getattr(t, name)().sum().backward()
    exact = derivative(x.astype(np.float64))
    err = np.abs(t.grad.numpy().astype(np.float64) - exact)
    assert err.max() < 4e-7, f"worst error {err.max()} at {x[err.argmax()]}"
