"""Special functions the distributions need that ferrograd's core lacks:
``gammainc`` (for ``Gamma.cdf``), the regularized lower incomplete gamma function, by its power
series or continued fraction in float64 (within a few units of the last place of PyTorch's),
differentiable in ``x`` only, as PyTorch's."""

from __future__ import annotations

import math

import numpy as np

import ferrograd as torch

from .._core import Tensor


def _igamma(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularized lower incomplete gamma function ``P(a, x)`` in float64: its power series
    where ``x < a + 1``, else one minus the continued fraction of ``Q(a, x)``."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    out = np.full(a.shape, np.nan)
    with np.errstate(all="ignore"):
        log_prefix = (
            a * np.log(x) - x - np.vectorize(math.lgamma, otypes=[float])(np.where(a > 0, a, 1.0))
        )
        series = x < a + 1
        # series: P = x^a e^-x / Gamma(a + 1) * sum x^n / ((a + 1) ... (a + n))
        term = 1.0 / np.where(a > 0, a, 1.0)
        total = term.copy()
        ap = a.copy()
        for _ in range(2000):
            ap = ap + 1
            term = term * x / ap
            total = total + term
            if np.all(np.abs(term) <= np.abs(total) * 1e-17):
                break
        p_series = total * np.exp(log_prefix)
        # continued fraction for Q (modified Lentz)
        tiny = 1e-300
        b = x + 1 - a
        c = np.full(a.shape, 1 / tiny)
        d = 1 / np.where(b == 0, tiny, b)
        h = d.copy()
        for i in range(1, 2000):
            an = -i * (i - a)
            b = b + 2
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1 / d
            delta = d * c
            h = h * delta
            if np.all(np.abs(delta - 1) <= 1e-16):
                break
        p_cf = 1 - np.exp(log_prefix) * h
        out = np.where(series, p_series, p_cf)
        out = np.where(x == 0, 0.0, out)
        out = np.where(np.isinf(x) & (x > 0), 1.0, out)
        out = np.where((a <= 0) | (x < 0) | np.isnan(a) | np.isnan(x), np.nan, out)
    return out


def _sum_to(g: Tensor, shape: tuple) -> Tensor:
    """``g`` summed over the dimensions broadcasting added to ``shape``."""
    lead = g.dim() - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(dims, keepdim=True) if dims else g


class _Gammainc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, x):
        a_, x_ = torch.broadcast_tensors(a.detach(), x.detach())
        values = _igamma(
            a_.to(torch.float64).contiguous().numpy(), x_.to(torch.float64).contiguous().numpy()
        )
        dtype = (torch.zeros((), dtype=a.dtype) + torch.zeros((), dtype=x.dtype)).dtype
        ctx.save_for_backward(a, x)
        return torch.tensor(values.tolist(), dtype=dtype).reshape(tuple(a_.shape))

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")
        grad_x = grad * torch.exp((a - 1) * torch.log(x) - x - torch.lgamma(a))
        return None, _sum_to(grad_x, tuple(x.shape))


def gammainc(a: Tensor, x: Tensor) -> Tensor:
    """``torch.special.gammainc``: the regularized lower incomplete gamma function (derivative
    in ``x`` only, as PyTorch's)."""
    return _Gammainc.apply(a, x)
