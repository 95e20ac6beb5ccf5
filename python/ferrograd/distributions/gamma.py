"""``Gamma(concentration, rate)``, as PyTorch's: the same draws after ``manual_seed`` (PyTorch's
sampler run on the same generator state) and PyTorch's reparameterized gradients."""

from __future__ import annotations

import ferrograd as torch

from . import constraints
from ._gamma import standard_gamma
from ._special import gammainc
from .exp_family import ExponentialFamily
from .utils import _finfo, _Number, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The Gamma distribution of shape ``concentration`` and inverse scale ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}  # noqa: RUF012
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, _Number) and isinstance(rate, _Number):
            batch_shape = torch.Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = torch.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def sample(self, sample_shape=(), *, generator=None):
        with torch.no_grad():
            return self.rsample(sample_shape, generator=generator)

    def rsample(self, sample_shape=(), generator=None):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape), generator) / self.rate.expand(
            shape
        )
        value.detach().clamp_(min=_finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        if not isinstance(value, torch.Tensor):
            value = torch.tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            torch.xlogy(self.concentration, self.rate)
            + torch.xlogy(self.concentration - 1, value)
            - self.rate * value
            - torch.lgamma(self.concentration)
        )

    def entropy(self):
        return (
            self.concentration
            - torch.log(self.rate)
            + torch.lgamma(self.concentration)
            + (1.0 - self.concentration) * torch.digamma(self.concentration)
        )

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return torch.lgamma(x + 1) + (x + 1) * torch.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)
