"""``ExponentialFamily``: distributions whose density is
``exp(<t(x), theta> - F(theta) + k(x))``, with the entropy and the KL divergence between two
members of one family computed from the log normalizer ``F`` by automatic differentiation
(Bregman divergences), as PyTorch's."""

from __future__ import annotations

import ferrograd as torch

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family, given by its natural parameters
    (``_natural_params``), log normalizer (``_log_normalizer``) and expected carrier measure
    (``_mean_carrier_measure``)."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy from the log normalizer's gradient (a Bregman divergence)."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = torch.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for p, g in zip(nparams, gradients):
            result -= (p * g).reshape((*tuple(self._batch_shape), -1)).sum(-1)
        return result
