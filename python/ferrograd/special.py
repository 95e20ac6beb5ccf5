"""``torch.special``: the special functions under their SciPy-style names, each the op of the
same meaning (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi`` is ``digamma``, ...),
so values, gradients and node names are that op's. The functions ferrograd does not have yet
(``erfc``, ``erfinv``, ``i0``, ``sinc``, ``ndtr``, ``entr``, ``round`` with its ``decimals``
overload, ...) are absent rather than approximated."""

__all__ = [
    "digamma",
    "erf",
    "exp2",
    "expit",
    "expm1",
    "gammaln",
    "log1p",
    "log_softmax",
    "logit",
    "logsumexp",
    "polygamma",
    "psi",
    "softmax",
    "xlogy",
]


def erf(input, *, out=None):
    """The error function."""
    return input.erf()


def expit(input, *, out=None):
    """The logistic sigmoid, ``1 / (1 + exp(-x))``."""
    return input.sigmoid()


def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``, ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    return input.logit(eps)


def gammaln(input, *, out=None):
    """The log of the absolute value of the gamma function."""
    return input.lgamma()


def digamma(input, *, out=None):
    """The derivative of ``gammaln``."""
    return input.digamma()


psi = digamma


def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of ``digamma``."""
    return input.polygamma(n)


def expm1(input, *, out=None):
    """``exp(x) - 1``, accurate near 0."""
    return input.expm1()


def exp2(input, *, out=None):
    """``2 ** x``."""
    return input.exp2()


def log1p(input, *, out=None):
    """``log(1 + x)``, accurate near 0."""
    return input.log1p()


def xlogy(input, other, *, out=None):
    """``x * log(y)``, 0 where ``x`` is 0."""
    from . import xlogy as torch_xlogy

    return torch_xlogy(input, other)


def softmax(input, dim, *, dtype=None):
    """``softmax`` along ``dim``."""
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """``log_softmax`` along ``dim``."""
    return input.log_softmax(dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(x)))`` over ``dim``, computed stably."""
    return input.logsumexp(dim, keepdim)
