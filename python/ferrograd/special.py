"""``torch.special``: the special functions under their SciPy-style names, each the op of the
same meaning (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi`` is ``digamma``, ...),
so values, gradients and node names are that op's; ``out=`` is PyTorch's (the result copied
into it, refused when an input requires grad); the modified Bessel functions ``i0``, ``i0e``,
``i1``, ``i1e`` with PyTorch's derivatives. The functions ferrograd does not have yet (``sinc``,
``ndtr``, ``entr``, ``round`` with its ``decimals`` overload, ...) are absent rather than
approximated."""

from . import _core


def _out(op, out, inputs, compute):
    """``compute()``, written into ``out`` when given (PyTorch's ``out=``)."""
    if out is None:
        return compute()
    return _core._with_out(f"special_{op}", out, list(inputs), compute)


__all__ = [
    "digamma",
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammaln",
    "i0",
    "i0e",
    "i1",
    "i1e",
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
    return _out("erf", out, [input], lambda: input.erf())


def erfc(input, *, out=None):
    """The complementary error function ``1 - erf(x)``."""
    return _out("erfc", out, [input], lambda: input.erfc())


def erfinv(input, *, out=None):
    """The inverse error function."""
    return _out("erfinv", out, [input], lambda: input.erfinv())


def expit(input, *, out=None):
    """The logistic sigmoid, ``1 / (1 + exp(-x))``."""
    return _out("expit", out, [input], lambda: input.sigmoid())


def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``, ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    return _out("logit", out, [input], lambda: input.logit(eps))


def i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0."""
    return _out("i0", out, [input], lambda: input.i0())


def i0e(input, *, out=None):
    """``exp(-|x|) * i0(x)``, which does not overflow."""
    return _out("i0e", out, [input], lambda: _core._special_i0e(input))


def i1(input, *, out=None):
    """The modified Bessel function of the first kind of order 1."""
    return _out("i1", out, [input], lambda: _core._special_i1(input))


def i1e(input, *, out=None):
    """``exp(-|x|) * i1(x)``, which does not overflow."""
    return _out("i1e", out, [input], lambda: _core._special_i1e(input))


def gammaln(input, *, out=None):
    """The log of the absolute value of the gamma function."""
    return _out("gammaln", out, [input], lambda: input.lgamma())


def digamma(input, *, out=None):
    """The derivative of ``gammaln``."""
    return _out("digamma", out, [input], lambda: input.digamma())


psi = digamma


def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of ``digamma``."""
    return _out("polygamma", out, [input], lambda: input.polygamma(n))


def expm1(input, *, out=None):
    """``exp(x) - 1``, accurate near 0."""
    return _out("expm1", out, [input], lambda: input.expm1())


def exp2(input, *, out=None):
    """``2 ** x``."""
    return _out("exp2", out, [input], lambda: input.exp2())


def log1p(input, *, out=None):
    """``log(1 + x)``, accurate near 0."""
    return _out("log1p", out, [input], lambda: input.log1p())


def xlogy(input, other, *, out=None):
    """``x * log(y)``, 0 where ``x`` is 0."""
    from . import xlogy as torch_xlogy

    return torch_xlogy(input, other, out=out)


def softmax(input, dim, *, dtype=None):
    """``softmax`` along ``dim``."""
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """``log_softmax`` along ``dim``."""
    return input.log_softmax(dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(x)))`` over ``dim``, computed stably."""
    return _out("logsumexp", out, [input], lambda: input.logsumexp(dim, keepdim))
