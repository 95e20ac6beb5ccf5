"""``ferrograd.distributions``, what programs reach as ``torch.distributions``: probability
distributions with PyTorch's semantics, written in Python over ferrograd's tensor ops, so
``log_prob``, ``entropy``, ``rsample`` and ``kl_divergence`` are differentiable with respect to the
parameters.

Distributions: ``Bernoulli``, ``Beta``, ``Categorical``, ``Dirichlet``, ``Exponential``,
``Gamma``, ``Independent``, ``Laplace``, ``LogNormal``, ``MultivariateNormal``, ``Normal``,
``OneHotCategorical``, ``OneHotCategoricalStraightThrough``, ``TransformedDistribution``,
``Uniform``; the bases ``Distribution`` and ``ExponentialFamily``; ``constraints``,
``transforms`` (and every transform class), ``kl_divergence`` and ``register_kl``.

After ``manual_seed`` every sampler draws PyTorch's numbers: ``Normal``, ``LogNormal``,
``MultivariateNormal`` and ``Laplace`` through the same normal and uniform draws,
``Categorical`` and ``OneHotCategorical`` through ``multinomial``, ``Bernoulli`` through
``bernoulli``, ``Exponential`` through ``exponential_``; ``Gamma``, ``Beta`` and ``Dirichlet``
run PyTorch's Gamma sampler on the same generator state (see ``_gamma``), with PyTorch's
reparameterized gradients.

What differs from PyTorch: the distributions PyTorch has beyond these (``Poisson``,
``Binomial``, ``StudentT``, ``Cauchy``, ...) and ``biject_to``/``transform_to`` are not here yet;
the Gamma and Dirichlet gradients are one ``autograd.Function``
node each and do not differentiate twice, as PyTorch's."""

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .uniform import Uniform

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Beta",
    "CatTransform",
    "Categorical",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "Dirichlet",
    "Distribution",
    "ExpTransform",
    "Exponential",
    "ExponentialFamily",
    "Gamma",
    "Independent",
    "IndependentTransform",
    "Laplace",
    "LogNormal",
    "LowerCholeskyTransform",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "constraints",
    "identity_transform",
    "kl_divergence",
    "register_kl",
    "transforms",
]
