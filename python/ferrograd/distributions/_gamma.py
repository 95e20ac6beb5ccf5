"""Gamma and Dirichlet draws with their reparameterized gradients, for ``Gamma``, ``Beta`` and
``Dirichlet``; ferrograd's core has no ``torch._standard_gamma``, ``torch._sample_dirichlet``,
``torch._standard_gamma_grad`` or ``torch._dirichlet_grad``, so they are here.

The draws are PyTorch's own: its CPU sampler (Marsaglia and Tsang's rejection method, with the
``alpha < 1`` boost, one element after another in memory order) runs here on the state of the
same Mersenne Twister, read from the generator and written back after, so
``manual_seed(s); Gamma(a, b).sample()`` gives PyTorch's numbers and leaves the stream where
PyTorch leaves it. The gradients are PyTorch's implicit reparameterization: ``dx/dalpha =
-(dF/dalpha) / (dF/dx)`` for the CDF ``F``, evaluated with PyTorch's approximations (a series for
small ``x``, a saddle-point expansion for large ``alpha``, a rational fit elsewhere), in
float64 and then rounded to the tensor's dtype."""

from __future__ import annotations

import math
import struct

import numpy as np

import ferrograd as torch

from .._core import Tensor
from .utils import _finfo

_F32 = np.float32
# the float constants of PyTorch's C++ sampler, as the doubles they widen to
_ONE_THIRD_F = float(_F32(1.0) / _F32(3.0))
_C0331_F = float(_F32(0.0331))


class _Stream:
    """The generator's Mersenne Twister driven from Python, drawing as PyTorch's C++ samplers
    draw (``uniform_real_distribution<double>``, ``normal_distribution<double>`` with its kept
    second Box-Muller value); ``close()`` writes the advanced state back."""

    def __init__(self, generator):
        self.generator = torch.default_generator if generator is None else generator
        words = [int(w) for w in self.generator.get_state().tolist()]
        self.seed, pos, has_normal, normal_bits = words[:4]
        self.bits = np.random.MT19937()
        self.bits.state = {
            "bit_generator": "MT19937",
            "state": {"key": np.array(words[4:], dtype=np.uint32), "pos": pos},
        }
        self.kept = struct.unpack("<d", struct.pack("<q", normal_bits))[0] if has_normal else None

    def uniform(self) -> float:
        hi = int(self.bits.random_raw())
        lo = int(self.bits.random_raw())
        return (((hi << 32) | lo) & ((1 << 53) - 1)) * (1.0 / (1 << 53))

    def normal(self) -> float:
        if self.kept is not None:
            value, self.kept = self.kept, None
            return value
        u1 = self.uniform()
        u2 = self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self.kept = r * math.sin(theta)
        return r * math.cos(theta)

    def close(self) -> None:
        state = self.bits.state["state"]
        kept = 0 if self.kept is None else struct.unpack("<q", struct.pack("<d", self.kept))[0]
        words = [self.seed, int(state["pos"]), int(self.kept is not None), kept]
        words += [int(k) for k in state["key"]]
        self.generator.set_state(torch.tensor(words, dtype=torch.int64))


def _sample_gamma(alpha: float, single: bool, s: _Stream) -> float:
    """One standard Gamma(alpha) draw, step for step as PyTorch's ``sample_gamma``; ``single``
    when its element type is float32 (the steps done in that type are done in float32 here)."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(_F32(1.0) / _F32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1 - s.uniform(), inv)
        alpha = float(_F32(alpha) + _F32(1.0)) if single else alpha + 1.0
    d = float(_F32(alpha) - _F32(_ONE_THIRD_F)) if single else alpha - _ONE_THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = s.normal()
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - s.uniform()
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma_sample(concentration: Tensor, generator=None) -> Tensor:
    """Standard Gamma draws of each element's concentration (``torch._standard_gamma``'s
    values), no autograd."""
    single = concentration.dtype == torch.float32
    alphas = concentration.detach().reshape(-1).tolist()
    s = _Stream(generator)
    try:
        out = [_sample_gamma(a, single, s) for a in alphas]
    finally:
        s.close()
    values = np.asarray(out, dtype=np.float64)
    if single:
        values = values.astype(np.float32)
    values = np.maximum(values, _finfo(concentration.dtype).tiny)
    return torch.tensor(values.tolist(), dtype=concentration.dtype).reshape(
        tuple(concentration.shape)
    )


def dirichlet_sample(concentration: Tensor, generator=None) -> Tensor:
    """Dirichlet draws, one per vector of the last dimension (``torch._sample_dirichlet``'s
    values): float64 Gamma draws normalized by their sum, clamped into ``(0, 1)``."""
    alphas = concentration.detach().reshape(-1).tolist()
    s = _Stream(generator)
    try:
        gammas = [max(_sample_gamma(a, False, s), _finfo(torch.float64).tiny) for a in alphas]
    finally:
        s.close()
    gamma = torch.tensor(gammas, dtype=torch.float64).reshape(tuple(concentration.shape))
    ratio = (gamma / gamma.sum(-1, keepdim=True)).numpy().reshape(-1)
    tiny = _finfo(concentration.dtype).tiny
    if concentration.dtype == torch.float32:
        out = np.clip(ratio.astype(np.float32), _F32(tiny), np.nextafter(_F32(1), _F32(0)))
    else:
        out = np.clip(ratio, tiny, np.nextafter(1.0, 0.0))
    return torch.tensor(out.tolist(), dtype=concentration.dtype).reshape(tuple(concentration.shape))


_PSI_10 = 2.25175258906672110764
_PSI_A = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)


def _digamma(x: np.ndarray) -> np.ndarray:
    """PyTorch's ``digamma_one`` for positive ``x``, elementwise (recurrence up to 10, then the
    asymptotic series)."""
    x = np.array(x, dtype=np.float64)
    result = np.zeros_like(x)
    small = x < 10
    while small.any():
        result = np.where(small, result - 1 / np.where(small, x, 1.0), result)
        x = np.where(small, x + 1, x)
        small = x < 10
    z = 1.0 / (x * x)
    poly = np.zeros_like(x)
    for a in _PSI_A:
        poly = poly * z + a
    y = np.where(x < 1.0e17, z * poly, 0.0)
    with np.errstate(divide="ignore"):
        general = result + np.log(x) - (0.5 / x) - y
    return np.where(x == 10, result + _PSI_10, general)


_GAMMA_UV = np.array(
    [
        [0.16009398, -0.094634809, 0.025146376, -0.0030648343,
         1, 0.32668115, 0.10406089, 0.0014179084],
        [0.53487893, 0.1298071, 0.065735949, -0.0015649758,
         0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
        [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
         0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07],
    ]
)  # fmt: skip


def _standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dx/dalpha`` of a standard Gamma draw ``x`` (PyTorch's ``standard_gamma_grad_one``)."""
    with np.errstate(all="ignore"):
        # small x: Taylor series of the CDF
        numer = np.ones_like(x)
        denom = alpha.copy()
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = np.power(x, alpha)
        gamma_pdf = np.power(x, alpha - 1) * np.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (np.log(x) - _digamma(alpha)) * gamma_cdf - pow_x_alpha * series2
        taylor = -gamma_cdf_alpha / gamma_pdf
        taylor = np.where(np.isnan(taylor), 0.0, taylor)
        # large alpha: Rice saddle point expansion
        numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
        numer_2 = (
            1440 * (alpha * alpha)
            + 6 * x * (53 - 120 * x)
            - 65 * x * x / alpha
            + alpha * (107 + 3600 * x)
        )
        near = numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        root = np.sqrt(8 * alpha)
        term2 = root / (alpha - x)
        term3 = np.power(x - alpha - alpha * np.log(x / alpha), -1.5)
        term23 = np.where(x < alpha, term2 - term3, term2 + term3)
        term1 = np.log(x / alpha) * term23 - np.sqrt(2 / alpha) * (alpha + x) / (
            (alpha - x) * (alpha - x)
        )
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        far = -stirling * (x * term1) / root
        saddle = np.where((0.9 * alpha <= x) & (x <= 1.1 * alpha), near, far)
        # elsewhere: a bivariate rational approximation
        u = np.log(x / alpha)
        v = np.log(alpha)
        coef = [_GAMMA_UV[0][i] + u * (_GAMMA_UV[1][i] + u * _GAMMA_UV[2][i]) for i in range(8)]
        p = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]))
        q = coef[4] + v * (coef[5] + v * (coef[6] + v * coef[7]))
        rational = np.exp(p / q)
    return np.where(x < 0.8, taylor, np.where(alpha > 8.0, saddle, rational))


def _beta_grad_alpha_small(x, alpha, beta):
    factor = _digamma(alpha) - _digamma(alpha + beta) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * np.power(1 - x, -beta) * series
    return np.where(np.isnan(result), 0.0, result)


def _beta_grad_beta_small(x, alpha, beta):
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer = np.ones_like(x)
    betas = np.ones_like(x)
    dbetas = np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -np.power(1 - x, 1 - beta) * series
    return np.where(np.isnan(result), 0.0, result)


def _beta_grad_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    bb = beta * beta
    poly = 47 * x * bb * bb + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * bb * beta
        + alpha * (
            3 * (59 + 180 * beta - 90 * x) * bb
            + alpha * ((453 + 1620 * beta * (1 - x) - 455 * x) * beta
                       + alpha * (8 * (1 - x) * (135 * beta - 11)))
        )
    )  # fmt: skip
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    at_mean = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = (
        (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
        * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
        / (1 + 1 / (12 * total) + 1 / (288 * total * total))
    )
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = np.sqrt(2 * alpha / beta) * np.power(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = beta * np.log(beta / (total * (1 - x))) + alpha * np.log(alpha / (total * x))
    term4 = np.power(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + np.where(x < mean, term4, -term4))
    away = stirling * prefactor * term1234
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), at_mean, away)


# the rational correction's coefficients, c[numerator/denominator][i][j][power of b]
_DIRICHLET_C = np.array(
    [
        [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
          [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
          [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
         [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
          [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
          [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
         [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
          [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
          [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
        [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
          [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
          [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
         [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
          [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
          [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
         [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
          [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
          [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]],
    ]
)  # fmt: skip


def _dirichlet_grad(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """PyTorch's ``dirichlet_grad_one``: ``-(dF/dalpha) / pdf / (1 - x)`` for a draw ``x`` of
    ``Beta(alpha, total - alpha)``, from which the Dirichlet gradient is assembled."""
    with np.errstate(all="ignore"):
        beta = total - alpha
        boundary = total * x * (1 - x)
        small = _beta_grad_alpha_small(x, alpha, beta)
        large = -_beta_grad_beta_small(1 - x, beta, alpha)
        mid = _beta_grad_alpha_mid(x, alpha, beta)
        u = np.log(x)
        a = np.log(alpha) - u
        b = np.log(total) - a
        pow_u = (np.ones_like(u), u, u * u)
        pow_a = (np.ones_like(a), a, a * a)
        p = np.zeros_like(x)
        q = np.zeros_like(x)
        c = _DIRICHLET_C
        for i in range(3):
            for j in range(3):
                ua = pow_u[i] * pow_a[j]
                p = p + ua * (
                    c[0][i][j][0] + b * (c[0][i][j][1] + b * (c[0][i][j][2] + b * c[0][i][j][3]))
                )
                q = q + ua * (
                    c[1][i][j][0] + b * (c[1][i][j][1] + b * (c[1][i][j][2] + b * c[1][i][j][3]))
                )
        approx = x * (_digamma(total) - _digamma(alpha)) / beta
        rational = p / q * approx
    return np.where(
        (x <= 0.5) & (boundary < 2.5),
        small,
        np.where(
            (x >= 0.5) & (boundary < 0.75),
            large,
            np.where((alpha > 6) & (beta > 6), mid, rational),
        ),
    )


def _as_numpy(t: Tensor) -> np.ndarray:
    return t.detach().to(torch.float64).contiguous().numpy()


def _from_numpy(values: np.ndarray, like: Tensor) -> Tensor:
    return torch.tensor(values.tolist(), dtype=like.dtype).reshape(tuple(values.shape))


def standard_gamma_grad(concentration: Tensor, sample: Tensor) -> Tensor:
    """``torch._standard_gamma_grad``: the derivative of each draw by its concentration."""
    alpha, x = np.broadcast_arrays(_as_numpy(concentration), _as_numpy(sample))
    return _from_numpy(_standard_gamma_grad(alpha, x), sample)


def dirichlet_grad(x: Tensor, concentration: Tensor, total: Tensor) -> Tensor:
    """``torch._dirichlet_grad``."""
    arrays = np.broadcast_arrays(_as_numpy(x), _as_numpy(concentration), _as_numpy(total))
    return _from_numpy(_dirichlet_grad(*arrays), x)


class _StandardGamma(torch.autograd.Function):
    """A standard Gamma draw with the reparameterized gradient (PyTorch's ``_standard_gamma``,
    whose node is ``StandardGammaBackward0``)."""

    @staticmethod
    def forward(ctx, concentration, generator):
        x = standard_gamma_sample(concentration, generator)
        ctx.save_for_backward(concentration, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        concentration, x = ctx.saved_tensors
        return grad * standard_gamma_grad(concentration, x), None


def standard_gamma(concentration: Tensor, generator=None) -> Tensor:
    """``torch._standard_gamma``: Gamma(concentration, 1) draws, differentiable."""
    if concentration.requires_grad and torch.is_grad_enabled():
        return _StandardGamma.apply(concentration, generator)
    return standard_gamma_sample(concentration, generator)


class _Dirichlet(torch.autograd.Function):
    """Dirichlet draws with the reparameterized gradient (PyTorch's ``_Dirichlet``)."""

    @staticmethod
    def forward(ctx, concentration):
        x = dirichlet_sample(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = dirichlet_grad(x, concentration, total)
        return grad * (grad_output - (x * grad_output).sum(-1, True))
