"""One row per public op of ``ferrograd.Tensor``: how to call it, what NumPy says it gives, and
which checks apply. ``test_op_registry.py`` turns every row into a forward-vs-NumPy test (float64
and float32), a gradcheck, a gradgradcheck, a dtype-promotion test and, where the op has an
in-place twin (``exp_``), a test that the twin gives the same values in place.

Adding an op: add its row here (and, for a pointwise op, its row in the derivative table).
``test_every_public_method_has_a_row`` fails for a public method with neither a row nor a place
in ``NOT_OPS``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

# Input domains: where an op is smooth and defined (names used in the rows' ``inputs``).
DOMAINS = {
    "any": lambda rng, shape: rng.uniform(-1.5, 1.5, size=shape),
    "pos": lambda rng, shape: rng.uniform(0.5, 2.0, size=shape),
    "unit": lambda rng, shape: rng.uniform(0.15, 0.85, size=shape),
    "gt1": lambda rng, shape: rng.uniform(1.2, 2.5, size=shape),
    "nonzero": lambda rng, shape: rng.uniform(0.3, 1.5, size=shape) * rng.choice([-1, 1], shape),
    "frac": lambda rng, shape: rng.integers(-3, 3, size=shape) + rng.uniform(0.15, 0.4, shape),
    # a shuffled grid with spacing 0.25: no ties (extrema, sorting, clamp bounds)
    "distinct": lambda rng, shape: rng.permutation(
        np.arange(int(np.prod(shape))) * 0.25 - 0.125 * int(np.prod(shape)) + 0.1
    ).reshape(shape),
    # the same grid shifted by half a step: never equal to a "distinct" value
    "distinct2": lambda rng, shape: rng.permutation(
        np.arange(int(np.prod(shape))) * 0.25 - 0.125 * int(np.prod(shape)) + 0.225
    ).reshape(shape),
}


@dataclass
class Op:
    """How to check one op.

    ``call(*tensors)`` and ``ref(*arrays)`` compute the op with ferrograd and with NumPy on
    inputs drawn from ``inputs`` (``"domain:shape"``). ``grad``: whether gradcheck and
    gradgradcheck apply. ``dtype``: the result dtype rule — ``"float"`` (integers compute in
    float32, floats keep their width), ``"same"`` (the promoted dtype of the inputs), ``"first"``
    (the first input's), ``"bool"``, ``"long"`` or ``None`` (not checked). ``inplace``: the
    in-place twin's name, if it has one.
    """

    name: str
    call: Callable
    ref: Callable | None
    inputs: tuple[str, ...] = ("any:3,4",)
    grad: bool = True
    dtype: str | None = "float"
    inplace: str | None = None
    rtol: float = 1e-10
    float32_rtol: float = 2e-5
    ints: bool = False  # the op takes int64 inputs (checked for its dtype rule)
    mixed: bool = True  # float32 with float64 promotes (else PyTorch refuses: RuntimeError)
    extra: dict = field(default_factory=dict)


def method(name, *args, **kwargs):
    """``x.name(*args, **kwargs)``, with ``x`` the first input and the others appended."""
    return lambda x, *others: getattr(x, name)(*others, *args, **kwargs)


def pointwise(name, ref, domain="any", inplace=True, dtype="float", grad=True, **kw):
    """A row of the one-tensor derivative table: method, in-place twin, NumPy reference."""
    return Op(
        name,
        method(name),
        ref,
        (f"{domain}:3,4",),
        grad=grad,
        dtype=dtype,
        inplace=f"{name}_" if inplace else None,
        ints=True,
        **kw,
    )


def binary(name, ref, domains=("any", "any"), inplace=True, ints=True, **kw):
    """A two-tensor pointwise op, with broadcasting (a row against a matrix)."""
    a, b = domains
    return Op(
        name,
        method(name),
        ref,
        (f"{a}:3,4", f"{b}:4"),
        inplace=f"{name}_" if inplace else None,
        ints=ints,
        **kw,
    )


_lgamma = np.vectorize(math.lgamma)
_erf = np.vectorize(math.erf)
_erfc = np.vectorize(math.erfc)


def _erfinv_one(y):
    """The inverse of ``math.erf`` by bisection (a reference independent of the kernel's)."""
    lo, hi = -6.0, 6.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid) < y else (lo, mid)
    return (lo + hi) / 2


_erfinv = np.vectorize(_erfinv_one)
_H = 1e-5


def _digamma(a):
    """Digamma by a central difference of lgamma (about 1e-10 accurate here)."""
    return (_lgamma(a + _H) - _lgamma(a - _H)) / (2 * _H)


def _trigamma(a):
    h = 1e-4
    return (_lgamma(a + h) - 2 * _lgamma(a) + _lgamma(a - h)) / (h * h)


def _xlogy(x, y):
    return np.where(x == 0, 0.0, x * np.log(y))


def _softmax(a, d):
    e = np.exp(a - a.max(d, keepdims=True))
    return e / e.sum(d, keepdims=True)


def _gelu(a):
    return 0.5 * a * (1 + _erf(a / math.sqrt(2)))


def _gelu_tanh(a):
    return 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))


GATHER_IDX = [[0, 3], [1, 1], [2, 0]]
SCATTER_IDX = [[0, 1, 0, 1], [3, 3, 2, 0], [1, 1, 1, 2]]


def _scatter_add(a, src, idx):
    out = a.copy()
    for i, row in enumerate(idx):
        for j, k in enumerate(row):
            out[i, k] += src[i, j]
    return out


# a permutation per row: no two elements of src land in one place (scatter overwrites)
SCATTER_PERM = [[2, 0, 3], [1, 3, 0], [0, 2, 1]]
INDEX_1D = [2, 0, 2]  # slices of dim 1; slice 2 gets two, slice 1 none
REDUCERS = {
    "sum": (np.add, 0.0),
    "prod": (np.multiply, 1.0),
    "amax": (np.maximum, -np.inf),
    "amin": (np.minimum, np.inf),
}


def _scatter(a, src, idx):
    out = a.copy()
    for i, row in enumerate(idx):
        for j, k in enumerate(row):
            out[i, k] = src[i, j]
    return out


def _reduce_into(a, places, reduce, include_self=True):
    """``a`` with values combined in: ``places`` lists ``((row, col), value)``."""
    out = a.copy()
    hit = {}
    for at, v in places:
        hit.setdefault(at, []).append(v)
    for at, vs in hit.items():
        if reduce == "mean":
            vals = ([a[at]] if include_self else []) + vs
            out[at] = sum(vals) / len(vals)
            continue
        f, start = REDUCERS[reduce]
        acc = a[at] if include_self else start
        for v in vs:
            acc = f(acc, v)
        out[at] = acc
    return out


def _scatter_reduce(a, src, idx, reduce, include_self=True):
    places = [((i, k), src[i, j]) for i, row in enumerate(idx) for j, k in enumerate(row)]
    return _reduce_into(a, places, reduce, include_self)


def _index_reduce(a, src, idx, reduce):
    places = [((i, k), src[i, j]) for i in range(a.shape[0]) for j, k in enumerate(idx)]
    return _reduce_into(a, places, reduce)


def _tensor(values):
    import ferrograd

    return ferrograd.tensor(values)


OPS = [
    # ----- the one-tensor derivative table ------------------------------------------------
    pointwise("neg", np.negative, dtype="same"),
    pointwise("abs", np.abs, "nonzero", dtype="same"),
    pointwise("exp", np.exp),
    pointwise("exp2", np.exp2),
    pointwise("expm1", np.expm1),
    pointwise("log", np.log, "pos"),
    pointwise("log2", np.log2, "pos"),
    pointwise("log10", np.log10, "pos"),
    pointwise("log1p", np.log1p, "pos"),
    pointwise("sqrt", np.sqrt, "pos"),
    pointwise("rsqrt", lambda a: 1 / np.sqrt(a), "pos"),
    pointwise("reciprocal", np.reciprocal, "nonzero"),
    pointwise("sin", np.sin),
    pointwise("cos", np.cos),
    pointwise("tan", np.tan),
    pointwise("asin", np.arcsin, "unit"),
    pointwise("acos", np.arccos, "unit"),
    pointwise("atan", np.arctan),
    pointwise("sinh", np.sinh),
    pointwise("cosh", np.cosh),
    pointwise("tanh", np.tanh),
    pointwise("asinh", np.arcsinh),
    pointwise("acosh", np.arccosh, "gt1"),
    pointwise("atanh", np.arctanh, "unit"),
    pointwise("sigmoid", lambda a: 1 / (1 + np.exp(-a))),
    pointwise("relu", lambda a: np.maximum(a, 0), "nonzero", dtype="same"),
    pointwise("erf", _erf),
    pointwise("erfc", _erfc),
    pointwise("erfinv", _erfinv, "unit", rtol=1e-9),
    pointwise("lgamma", _lgamma, "pos"),
    pointwise("digamma", _digamma, "pos", rtol=1e-8),
    pointwise("i0", np.i0, rtol=1e-12),
    pointwise("sign", np.sign, "nonzero", dtype="same"),
    pointwise("floor", np.floor, "frac", dtype="same"),
    pointwise("ceil", np.ceil, "frac", dtype="same"),
    pointwise("round", np.round, "frac", dtype="same"),
    pointwise("trunc", np.trunc, "frac", dtype="same"),
    pointwise("frac", lambda a: a - np.trunc(a), "frac"),
    Op(
        "polygamma",
        method("polygamma", 1),
        _trigamma,
        ("pos:3,4",),
        rtol=1e-5,
        inplace="polygamma_",
        extra={"inplace_args": (1,)},
    ),
    Op("logit", method("logit"), lambda a: np.log(a / (1 - a)), ("unit:3,4",), inplace="logit_"),
    # ----- the two-tensor derivative table ------------------------------------------------
    binary("xlogy", _xlogy, ("any", "pos")),
    binary("hypot", np.hypot, ("nonzero", "nonzero")),
    binary("logaddexp", np.logaddexp, inplace=False, ints=False),
    binary("logaddexp2", np.logaddexp2, inplace=False, ints=False),
    binary("atan2", np.arctan2, ("nonzero", "nonzero")),
    # ----- arithmetic -----------------------------------------------------------------------
    binary("add", np.add, dtype="same"),
    binary("sub", np.subtract, dtype="same"),
    binary("mul", np.multiply, dtype="same"),
    binary("div", np.divide, ("any", "nonzero")),
    binary("pow", np.power, ("pos", "any"), dtype="same", ints=False),
    Op("square", method("square"), np.square, dtype="same"),
    Op("matmul", method("matmul"), np.matmul, ("any:2,3,4", "any:4,5"), dtype="same", mixed=False),
    Op("mm", method("mm"), np.matmul, ("any:3,4", "any:4,5"), dtype="same", mixed=False),
    Op("mv", method("mv"), np.matmul, ("any:3,4", "any:4"), dtype="same", mixed=False),
    Op("bmm", method("bmm"), np.matmul, ("any:2,3,4", "any:2,4,5"), dtype="same", mixed=False),
    Op("dot", method("dot"), np.dot, ("any:4", "any:4"), dtype="same", mixed=False),
    Op("outer", method("outer"), np.outer, ("any:3", "any:4"), dtype="same"),
    Op(
        "addmm",
        lambda x, a, b: x.addmm(a, b, beta=0.5, alpha=2.0),
        lambda x, a, b: 0.5 * x + 2.0 * (a @ b),
        ("any:3,5", "any:3,4", "any:4,5"),
        dtype="same",
    ),
    Op(
        "addmv",
        lambda x, a, v: x.addmv(a, v, beta=-1.5, alpha=0.5),
        lambda x, a, v: -1.5 * x + 0.5 * (a @ v),
        ("any:3", "any:3,4", "any:4"),
        dtype="same",
    ),
    Op(
        "baddbmm",
        lambda x, a, b: x.baddbmm(a, b, alpha=1.5),
        lambda x, a, b: x + 1.5 * (a @ b),
        ("any:5", "any:2,3,4", "any:2,4,5"),
        dtype="same",
    ),
    Op(
        "lerp",
        lambda x, e, w: x.lerp(e, w),
        lambda x, e, w: np.where(np.abs(w) < 0.5, x + w * (e - x), e - (e - x) * (1 - w)),
        ("any:3,4", "any:3,4", "any:4"),
        dtype="same",
        inplace="lerp_",
    ),
    Op(
        "addcmul",
        lambda x, a, b: x.addcmul(a, b),
        lambda x, a, b: x + a * b,
        ("any:3,4", "any:4", "any:3,1"),
        dtype="same",
        inplace="addcmul_",
    ),
    Op(
        "addcdiv",
        lambda x, a, b: x.addcdiv(a, b),
        lambda x, a, b: x + a / b,
        ("any:3,4", "any:3,4", "nonzero:4"),
        dtype="same",
        inplace="addcdiv_",
    ),
    Op(
        "cross",
        lambda x, y: x.cross(y, dim=1),
        lambda a, b: np.cross(a, b, axis=1),
        ("any:4,3", "any:4,3"),
        dtype="same",
        mixed=False,
    ),
    # rounding divisions: floor_divide has no derivative (PyTorch's NotImplemented node)
    binary("floor_divide", np.floor_divide, ("any", "nonzero"), grad=False, dtype="same"),
    binary("remainder", np.remainder, ("any", "nonzero"), dtype="same"),
    binary("fmod", np.fmod, ("any", "nonzero"), dtype="same"),
    binary("maximum", np.maximum, ("distinct", "distinct2"), inplace=False, dtype="same"),
    binary("minimum", np.minimum, ("distinct", "distinct2"), inplace=False, dtype="same"),
    Op(
        "clamp",
        method("clamp", -0.45, 0.55),
        lambda a: np.clip(a, -0.45, 0.55),
        ("distinct:3,4",),
        inplace="clamp_",
        dtype="same",
        extra={"inplace_args": (-0.45, 0.55)},
    ),
    Op(
        "clamp_min",
        method("clamp_min", -0.45),
        lambda a: np.maximum(a, -0.45),
        ("distinct:3,4",),
        inplace="clamp_min_",
        dtype="same",
        extra={"inplace_args": (-0.45,)},
    ),
    Op(
        "clamp_max",
        method("clamp_max", 0.55),
        lambda a: np.minimum(a, 0.55),
        ("distinct:3,4",),
        inplace="clamp_max_",
        dtype="same",
        extra={"inplace_args": (0.55,)},
    ),
    Op(
        "clip",
        method("clip", -0.45, 0.55),
        lambda a: np.clip(a, -0.45, 0.55),
        ("distinct:3,4",),
        dtype="same",
    ),
    # ----- activations ----------------------------------------------------------------------
    Op("gelu", method("gelu"), _gelu),
    Op("gelu_tanh", method("gelu", approximate="tanh"), _gelu_tanh),
    Op("silu", method("silu"), lambda a: a / (1 + np.exp(-a))),
    Op("softplus", method("softplus"), lambda a: np.log1p(np.exp(a))),
    Op(
        "leaky_relu",
        method("leaky_relu", 0.1),
        lambda a: np.where(a > 0, a, 0.1 * a),
        ("nonzero:3,4",),
    ),
    Op("elu", method("elu"), lambda a: np.where(a > 0, a, np.expm1(a)), ("nonzero:3,4",)),
    Op("softmax", method("softmax", 1), lambda a: _softmax(a, 1), dtype=None),
    Op("log_softmax", method("log_softmax", 1), lambda a: np.log(_softmax(a, 1)), dtype=None),
    # ----- reductions -----------------------------------------------------------------------
    Op("sum", method("sum", 1), lambda a: a.sum(1), dtype=None),
    Op("mean", method("mean", (0, 1)), lambda a: a.mean((0, 1)), dtype=None),
    Op("prod", method("prod", 1), lambda a: a.prod(1), ("nonzero:3,4",), dtype="same"),
    Op("max", lambda x: x.max(1).values, lambda a: a.max(1), ("distinct:3,4",), dtype="same"),
    Op("min", lambda x: x.min(), lambda a: a.min(), ("distinct:3,4",), dtype="same"),
    Op("amax", method("amax", 0), lambda a: a.max(0), ("distinct:3,4",), dtype="same"),
    Op("amin", method("amin", 1), lambda a: a.min(1), ("distinct:3,4",), dtype="same"),
    Op(
        "argmax",
        method("argmax", 1),
        lambda a: a.argmax(1),
        ("distinct:3,4",),
        grad=False,
        dtype="long",
    ),
    Op(
        "argmin",
        method("argmin"),
        lambda a: a.argmin(),
        ("distinct:3,4",),
        grad=False,
        dtype="long",
    ),
    Op("var", method("var", 1), lambda a: a.var(1, ddof=1), dtype=None),
    Op("std", method("std"), lambda a: a.std(ddof=1), dtype=None),
    Op("norm", method("norm", dim=1), lambda a: np.sqrt((a * a).sum(1)), ("nonzero:3,4",)),
    Op("logsumexp", method("logsumexp", 1), lambda a: np.log(np.exp(a).sum(1))),
    Op(
        "cumsum",
        method("cumsum", 1),
        lambda a: a.cumsum(1),
        dtype=None,
        inplace="cumsum_",
        extra={"inplace_args": (1,)},
    ),
    Op(
        "cumprod",
        method("cumprod", 1),
        lambda a: a.cumprod(1),
        dtype="same",
        inplace="cumprod_",
        extra={"inplace_args": (1,)},
    ),
    Op(
        "cummax",
        lambda x: x.cummax(1).values,
        lambda a: np.maximum.accumulate(a, 1),
        ("distinct:3,4",),
        dtype="same",
    ),
    Op(
        "cummin",
        lambda x: x.cummin(0).values,
        lambda a: np.minimum.accumulate(a, 0),
        ("distinct:3,4",),
        dtype="same",
    ),
    Op(
        "aminmax",
        lambda x: (lambda r: r.max * 2.0 + r.min)(x.aminmax(dim=1)),
        lambda a: a.max(1) * 2.0 + a.min(1),
        ("distinct:3,4",),
        dtype=None,
    ),
    Op("nansum", method("nansum", 1), lambda a: np.nansum(a, 1), dtype=None),
    Op("nanmean", method("nanmean", 0), lambda a: np.nanmean(a, 0), dtype=None),
    Op(
        "nan_to_num",
        method("nan_to_num"),
        np.nan_to_num,
        dtype="same",
        inplace="nan_to_num_",
        ints=True,
    ),
    Op("all", method("all"), lambda a: np.all(a), ("nonzero:3,4",), grad=False, dtype="bool"),
    # ----- sorting and selection (distinct values: no ties) ---------------------------------
    Op("sort", method("sort", 1), lambda a: np.sort(a, 1), ("distinct:3,4",), dtype="same"),
    Op(
        "argsort",
        method("argsort", 0, True),
        lambda a: np.argsort(-a, 0),
        ("distinct:3,4",),
        grad=False,
        dtype="long",
    ),
    Op(
        "topk",
        method("topk", 2, 1),
        lambda a: -np.sort(-a, 1)[:, :2],
        ("distinct:3,4",),
        dtype="same",
    ),
    Op(
        "kthvalue",
        method("kthvalue", 2, 0),
        lambda a: np.sort(a, 0)[1],
        ("distinct:3,4",),
        dtype="same",
    ),
    Op(
        "median",
        method("median", 1),
        lambda a: np.sort(a, 1)[:, 1],
        ("distinct:3,4",),
        dtype="same",
    ),
    # no NaN: the median itself
    Op(
        "nanmedian",
        method("nanmedian", 1),
        lambda a: np.sort(a, 1)[:, 1],
        ("distinct:3,4",),
        dtype="same",
    ),
    # every value occurs once: the mode is the smallest
    Op("mode", method("mode", 1), lambda a: a.min(1), ("distinct:3,4",), dtype="same"),
    Op(
        "unique",
        method("unique"),
        lambda a: np.unique(a),
        ("distinct:3,4",),
        grad=False,
        dtype="same",
    ),
    Op("any", method("any"), lambda a: np.any(a), grad=False, dtype="bool"),
    # ----- comparison and logic -------------------------------------------------------------
    Op("isnan", method("isnan"), np.isnan, grad=False, dtype="bool"),
    Op("isinf", method("isinf"), np.isinf, grad=False, dtype="bool"),
    Op("isfinite", method("isfinite"), np.isfinite, grad=False, dtype="bool"),
    Op("signbit", method("signbit"), np.signbit, grad=False, dtype="bool"),
    Op(
        "logical_and",
        method("logical_and"),
        np.logical_and,
        ("nonzero:3,4", "nonzero:4"),
        grad=False,
        dtype="bool",
    ),
    Op(
        "logical_or",
        method("logical_or"),
        np.logical_or,
        ("any:3,4", "any:4"),
        grad=False,
        dtype="bool",
    ),
    Op(
        "logical_xor",
        method("logical_xor"),
        np.logical_xor,
        ("any:3,4", "any:4"),
        grad=False,
        dtype="bool",
    ),
    Op("logical_not", method("logical_not"), np.logical_not, grad=False, dtype="bool"),
    Op(
        "where",
        lambda x, y: x.where(x > 0, y),
        lambda a, b: np.where(a > 0, a, b),
        ("nonzero:3,4", "any:3,4"),
        dtype="same",
    ),
    Op(
        "masked_fill",
        lambda x: x.masked_fill(x > 0, 0.5),
        lambda a: np.where(a > 0, 0.5, a),
        ("nonzero:3,4",),
        inplace="masked_fill_",
        dtype="same",
    ),
    # ----- shape and views ------------------------------------------------------------------
    Op("t", method("t"), lambda a: a.T, dtype="same"),
    Op(
        "transpose",
        method("transpose", 0, 2),
        lambda a: a.transpose(2, 1, 0),
        ("any:2,3,4",),
        dtype="same",
    ),
    Op(
        "permute",
        method("permute", 2, 0, 1),
        lambda a: a.transpose(2, 0, 1),
        ("any:2,3,4",),
        dtype="same",
    ),
    Op("view", method("view", 2, 6), lambda a: a.reshape(2, 6), dtype="same"),
    Op(
        "view_as",
        lambda x, y: x.view_as(y),
        lambda a, b: a.reshape(b.shape),
        ("any:3,4", "any:2,6"),
        dtype="first",
    ),
    Op("reshape", lambda x: x.t().reshape(12), lambda a: a.T.reshape(12), dtype="same"),
    Op(
        "reshape_as",
        lambda x, y: x.reshape_as(y),
        lambda a, b: a.reshape(b.shape),
        ("any:3,4", "any:6,2"),
        dtype="first",
    ),
    Op("flatten", method("flatten"), lambda a: a.reshape(-1), ("any:2,3,4",), dtype="same"),
    Op("squeeze", method("squeeze"), np.squeeze, ("any:3,1,4",), dtype="same"),
    Op("unsqueeze", method("unsqueeze", 1), lambda a: a[:, None], dtype="same"),
    Op("expand", method("expand", 2, 3, 4), lambda a: np.broadcast_to(a, (2, 3, 4)), dtype="same"),
    Op(
        "expand_as",
        lambda x, y: x.expand_as(y),
        lambda a, b: np.broadcast_to(a, b.shape),
        ("any:4", "any:3,4"),
        dtype="first",
    ),
    Op("narrow", method("narrow", 1, 1, 2), lambda a: a[:, 1:3], dtype="same"),
    Op("select", method("select", 1, 2), lambda a: a[:, 2], dtype="same"),
    Op("split", lambda x: x.split(3, 1)[0], lambda a: a[:, :3], dtype="same"),
    Op("chunk", lambda x: x.chunk(2, 0)[1], lambda a: a[2:], dtype="same"),
    Op(
        "split_with_sizes",
        lambda x: x.split_with_sizes([1, 3], 1)[1],
        lambda a: a[:, 1:],
        dtype="same",
    ),
    Op("unsafe_split", lambda x: x.unsafe_split(3, 1)[1], lambda a: a[:, 3:], dtype="same"),
    Op(
        "unsafe_split_with_sizes",
        lambda x: x.unsafe_split_with_sizes([2, 2], 1)[0],
        lambda a: a[:, :2],
        dtype="same",
    ),
    Op("unsafe_chunk", lambda x: x.unsafe_chunk(2, 0)[0], lambda a: a[:2], dtype="same"),
    Op("unbind", lambda x: x.unbind(1)[2], lambda a: a[:, 2], dtype="same"),
    # composed as PyTorch composes them (ferrograd._composites) and rot90 (one op)
    Op("rot90", method("rot90", 1, [0, 1]), lambda a: np.rot90(a, 1, (0, 1)), dtype="same"),
    Op(
        "rot90[k=3,dims=(1,0)]",
        method("rot90", 3, [1, 0]),
        lambda a: np.rot90(a, 3, (1, 0)),
        dtype="same",
    ),
    Op("flipud", method("flipud"), np.flipud, dtype="same"),
    Op("fliplr", method("fliplr"), np.fliplr, dtype="same"),
    Op("ravel", lambda x: x.t().ravel(), lambda a: a.T.ravel(), dtype="same"),
    Op(
        "movedim",
        method("movedim", 0, 2),
        lambda a: np.moveaxis(a, 0, 2),
        ("any:2,3,4",),
        dtype="same",
    ),
    Op(
        "moveaxis",
        method("moveaxis", (0, 1), (2, 0)),
        lambda a: np.moveaxis(a, (0, 1), (2, 0)),
        ("any:2,3,4",),
        dtype="same",
    ),
    Op("swapaxes", method("swapaxes", 0, 1), lambda a: np.swapaxes(a, 0, 1), dtype="same"),
    Op("swapdims", method("swapdims", 1, 0), lambda a: np.swapaxes(a, 1, 0), dtype="same"),
    Op("tile", method("tile", (2, 1, 2)), lambda a: np.tile(a, (2, 1, 2)), dtype="same"),
    Op(
        "repeat_interleave",
        method("repeat_interleave", 2, 1),
        lambda a: np.repeat(a, 2, axis=1),
        dtype="same",
    ),
    Op(
        "unflatten",
        method("unflatten", 1, (2, -1)),
        lambda a: a.reshape(3, 2, 2),
        dtype="same",
    ),
    Op("msort", method("msort"), lambda a: np.sort(a, 0), ("distinct:3,4",), dtype="same"),
    Op(
        "tensor_split",
        lambda x: x.tensor_split(3, 1)[0],
        lambda a: np.array_split(a, 3, 1)[0],
        ("any:3,5",),
        dtype="same",
    ),
    Op("hsplit", lambda x: x.hsplit(2)[1], lambda a: np.hsplit(a, 2)[1], dtype="same"),
    Op("vsplit", lambda x: x.vsplit([1])[1], lambda a: np.vsplit(a, [1])[1], dtype="same"),
    Op(
        "dsplit",
        lambda x: x.dsplit(2)[0],
        lambda a: np.dsplit(a, 2)[0],
        ("any:2,3,4",),
        dtype="same",
    ),
    Op("diff", method("diff"), lambda a: np.diff(a), dtype="same"),
    Op(
        "diff[n=2,dim=0]",
        method("diff", 2, 0),
        lambda a: np.diff(a, 2, 0),
        ("any:4,3",),
        dtype="same",
    ),
    Op("kron", method("kron"), np.kron, ("any:2,3", "any:3,2"), dtype="same"),
    Op("inner", method("inner"), np.inner, ("any:2,4", "any:3,4"), dtype="same", mixed=False),
    Op("flip", method("flip", 0, 1), lambda a: a[::-1, ::-1], dtype="same"),
    Op("repeat", method("repeat", 2, 1, 3), lambda a: np.tile(a, (2, 1, 3)), dtype="same"),
    Op(
        "roll",
        method("roll", (1, -3), (0, 1)),
        lambda a: np.roll(a, (1, -3), (0, 1)),
        dtype="same",
    ),
    Op(
        "broadcast_to",
        method("broadcast_to", (2, 3, 4)),
        lambda a: np.broadcast_to(a, (2, 3, 4)),
        dtype="same",
    ),
    # ----- triangles and diagonals ----------------------------------------------------------
    Op(
        "tril",
        method("tril", -1),
        lambda a: np.tril(a, -1),
        dtype="same",
        inplace="tril_",
        extra={"inplace_args": (-1,)},
    ),
    Op(
        "triu",
        method("triu", 1),
        lambda a: np.triu(a, 1),
        dtype="same",
        inplace="triu_",
        extra={"inplace_args": (1,)},
    ),
    Op("diag", method("diag", 1), lambda a: np.diag(a, 1), dtype="same"),
    Op(
        "diagonal",
        method("diagonal", -1, 2, 0),
        lambda a: np.diagonal(a, -1, 2, 0),
        ("any:2,3,4",),
        dtype="same",
    ),
    Op("trace", method("trace"), np.trace, dtype="same"),
    Op("contiguous", lambda x: x.t().contiguous(), lambda a: a.T, dtype="same"),
    # ----- indexing -------------------------------------------------------------------------
    Op(
        "gather",
        lambda x: x.gather(1, _tensor(GATHER_IDX)),
        lambda a: np.take_along_axis(a, np.array(GATHER_IDX), 1),
        dtype="same",
    ),
    Op(
        "scatter_add",
        lambda x, y: x.scatter_add(1, _tensor(SCATTER_IDX), y),
        lambda a, b: _scatter_add(a, b, SCATTER_IDX),
        ("any:3,4", "any:3,4"),
        dtype="same",
        mixed=False,
        inplace="scatter_add_",
    ),
    Op(
        "index_select",
        lambda x: x.index_select(1, _tensor([3, 0, 3])),
        lambda a: a[:, [3, 0, 3]],
        dtype="same",
    ),
    Op(
        "scatter",
        lambda x, y: x.scatter(1, _tensor(SCATTER_PERM), y),
        lambda a, b: _scatter(a, b, SCATTER_PERM),
        ("any:3,4", "any:3,3"),
        dtype="same",
        mixed=False,
        inplace="scatter_",
        extra={"inplace_call": lambda t, y: t.scatter_(1, _tensor(SCATTER_PERM), y)},
    ),
    *[
        Op(
            f"scatter_reduce[{reduce},{include_self}]",
            lambda x, y, r=reduce, i=include_self: x.scatter_reduce(
                1, _tensor(SCATTER_IDX), y, r, include_self=i
            ),
            lambda a, b, r=reduce, i=include_self: _scatter_reduce(a, b, SCATTER_IDX, r, i),
            (f"{domain}:3,4", f"{domain2}:3,4"),
            dtype="same",
            mixed=False,
            inplace="scatter_reduce_",
            extra={
                "inplace_call": lambda t, y, r=reduce, i=include_self: t.scatter_reduce_(
                    1, _tensor(SCATTER_IDX), y, r, include_self=i
                )
            },
        )
        for reduce, domain, domain2 in (
            ("sum", "any", "any"),
            ("prod", "nonzero", "nonzero"),
            ("mean", "any", "any"),
            ("amax", "distinct", "distinct2"),
            ("amin", "distinct", "distinct2"),
        )
        for include_self in (True, False)
    ],
    *[
        Op(
            f"index_reduce[{reduce}]",
            lambda x, y, r=reduce: x.index_reduce(1, _tensor(INDEX_1D), y, r),
            lambda a, b, r=reduce: _index_reduce(a, b, INDEX_1D, r),
            (f"{domain}:3,4", f"{domain2}:3,3"),
            dtype="same",
            mixed=False,
            inplace="index_reduce_",
            extra={
                "inplace_call": lambda t, y, r=reduce: t.index_reduce_(1, _tensor(INDEX_1D), y, r)
            },
        )
        for reduce, domain, domain2 in (
            ("prod", "nonzero", "nonzero"),
            ("mean", "any", "any"),
            ("amax", "distinct", "distinct2"),
            ("amin", "distinct", "distinct2"),
        )
    ],
    Op(
        "index_copy",
        lambda x, y: x.index_copy(1, _tensor([3, 0, 1]), y),
        lambda a, b: _scatter(a, b, [[3, 0, 1]] * 3),
        ("any:3,4", "any:3,3"),
        dtype="same",
        mixed=False,
        inplace="index_copy_",
        extra={"inplace_call": lambda t, y: t.index_copy_(1, _tensor([3, 0, 1]), y)},
    ),
    Op(
        "index_add",
        lambda x, y: x.index_add(1, _tensor(INDEX_1D), y, alpha=2.0),
        lambda a, b: _index_reduce(a, 2.0 * b, INDEX_1D, "sum"),
        ("any:3,4", "any:3,3"),
        dtype="same",
        mixed=False,
        inplace="index_add_",
        extra={"inplace_call": lambda t, y: t.index_add_(1, _tensor(INDEX_1D), y, alpha=2.0)},
    ),
    Op(
        "index_fill",
        lambda x: x.index_fill(1, _tensor(INDEX_1D), -0.5),
        lambda a: _scatter(a, np.full((3, 3), -0.5), [INDEX_1D] * 3),
        dtype="same",
        inplace="index_fill_",
        extra={"inplace_call": lambda t: t.index_fill_(1, _tensor(INDEX_1D), -0.5)},
    ),
    Op(
        "masked_select",
        lambda x: x.masked_select(_tensor([True, False, True, True])),
        lambda a: a[:, [True, False, True, True]].reshape(-1),
        dtype="same",
    ),
    Op(
        "take_along_dim",
        lambda x: x.take_along_dim(_tensor([[3], [0], [1]]), 1),
        lambda a: np.take_along_axis(a, np.array([[3], [0], [1]]), 1),
        dtype="same",
    ),
    # ----- in-place only ops (checked through a clone) --------------------------------------
    Op("zero_", lambda x: x.clone().zero_(), np.zeros_like, dtype="same"),
    Op("fill_", lambda x: x.clone().fill_(0.5), lambda a: np.full_like(a, 0.5), dtype="same"),
    Op(
        "copy_",
        lambda x, y: x.clone().copy_(y),
        lambda a, b: np.broadcast_to(b, a.shape),
        ("any:3,4", "any:4"),
        dtype=None,
    ),
    # ----- conversion -----------------------------------------------------------------------
    Op("clone", method("clone"), np.copy, dtype="same"),
    Op("detach", method("detach"), np.copy, grad=False, dtype="same"),
    Op("to", lambda x: x.to(x.dtype), np.copy, dtype="same"),
    # float32 rounding makes float64 finite differences meaningless: no gradcheck
    Op(
        "float",
        lambda x: x.float().double(),
        np.float32,
        float32_rtol=1e-7,
        dtype=None,
        rtol=1e-7,
        grad=False,
    ),
    Op("double", method("double"), np.copy, dtype=None),
    Op(
        "long",
        method("long"),
        lambda a: np.trunc(a).astype(np.int64),
        ("frac:3,4",),
        grad=False,
        dtype="long",
    ),
    Op("bool", method("bool"), lambda a: a.astype(bool), grad=False, dtype="bool"),
    Op(
        "type_as",
        lambda x, y: x.type_as(y),
        lambda a, b: a.copy(),
        ("any:3,4", "any:1"),
        dtype=None,
    ),
]

# Public methods that are not ops with values to check, each with the reason.
NOT_OPS = {
    **{
        name: "an alias: the same function as its target's row (tests/test_aliases.py)"
        for alias, target in __import__("ferrograd._aliases", fromlist=["ALIASES"]).ALIASES.items()
        for name, of in ((alias, target), (alias + "_", target + "_"))
        if hasattr(__import__("ferrograd").Tensor, of)
    },
    "clip_": "an alias of clamp_ (tests/test_aliases.py)",
    **{
        name: "complex API on a real tensor: itself or False (tests/test_aliases.py)"
        for name in __import__("ferrograd._realness", fromlist=["FUNCTIONS"]).FUNCTIONS
        if name not in ("is_floating_point", "sgn")
    },
    "sgn": "sign on a real tensor (tests/test_aliases.py)",
    "sgn_": "sign_ on a real tensor (tests/test_aliases.py)",
    **{
        name: "the namespace's linear-algebra function as a method (tests/test_aliases.py)"
        for name in ("det", "logdet", "slogdet", "inverse", "matrix_power")
    },
    **{
        name: "int64 positions or counts, no gradient (tests/selection_cases.py vs PyTorch)"
        for name in ("nonzero", "argwhere", "count_nonzero", "unique_consecutive")
    },
    **{
        name: "a comparison method, the operator by name (tests/test_surface_additions.py)"
        for name in ("lt", "le", "gt", "ge", "eq", "ne")
    },
    **{
        name: "needs an accelerator: refused as PyTorch built for the CPU refuses it "
        "(tests/test_cpu_only_build.py)"
        for name in ("cuda", "pin_memory", "is_pinned")
    },
    "isclose": "a bool comparison (tests/test_pytorch_protocols.py)",
    "share_memory_": "moves the values into shared memory (tests/test_multiprocessing.py)",
    "is_shared": "whether the values are in shared memory (tests/test_multiprocessing.py)",
    "as_subclass": "the same tensor as an object of a subclass (tests/subclass_dispatch_cases.py)",
    "bincount": "int64 counts, no gradient (tests/numeric_cases.py vs PyTorch)",
    "allclose": "returns a Python bool (tests/test_pytorch_protocols.py)",
    "equal": "returns a Python bool (tests/test_pytorch_protocols.py)",
    "backward": "runs the engine (tests/test_semantics.py, tests/engine.rs)",
    "register_hook": "autograd API (tests/test_semantics.py)",
    "register_post_accumulate_grad_hook": "autograd API (tests/test_autograd_hooks.py)",
    "requires_grad_": "autograd flag",
    "retain_grad": "autograd API",
    "is_inference": "inference-mode flag (tests/test_inference_mode_torch.py)",
    "detach_": "autograd API",
    **{
        name: "gives the tensor object other sizes or elements, no kernel of its own "
        "(tests/rebinding_cases.py vs PyTorch)"
        for name in (
            "set_",
            "resize_",
            "resize_as_",
            "t_",
            "transpose_",
            "swapdims_",
            "swapaxes_",
            "squeeze_",
            "unsqueeze_",
            "as_strided_",
        )
    },
    "as_strided": "a view with any strides; gradient from the storage positions "
    "(tests/rebinding_cases.py vs PyTorch)",
    "module_load": "load_state_dict's hook for swapping tensors (tests/rebinding_cases.py)",
    "normal_": "random sampling (tests/test_semantics.py checks its moments)",
    "uniform_": "random sampling",
    "random_": "random sampling (PyTorch's integers: tests/test_random_golden.py)",
    "bernoulli_": "random sampling (PyTorch's masks: tests/test_loss_golden.py)",
    "bernoulli": "random sampling (the draws of torch.bernoulli: tests/test_engine_round6.py)",
    "exponential_": "random sampling (PyTorch's values: tests/test_namespace_golden.py)",
    "multinomial": "random sampling (PyTorch's draws: tests/test_namespace_golden.py)",
    "new_tensor": "creation (tests/test_namespace_golden.py)",
    "new": "creation (tests/test_engine_round5.py)",
    "new_zeros": "creation (tests/test_namespace_golden.py)",
    "new_ones": "creation (tests/test_namespace_golden.py)",
    "new_empty": "creation (tests/test_namespace_golden.py)",
    "new_empty_strided": "creation with strides (tests/test_gradient_layout.py)",
    "new_full": "creation (tests/test_namespace_golden.py)",
    "type": "dtype conversion (tests/test_namespace_golden.py)",
    **{
        name: "sparse COO layout (tests/sparse_cases.py vs PyTorch)"
        for name in (
            "coalesce",
            "dense_dim",
            "indices",
            "is_coalesced",
            "sparse_dim",
            "sparse_mask",
            "to_dense",
            "to_sparse",
            "to_sparse_coo",
            "values",
        )
    },
    **{
        name: "integer dtype conversion or bitwise op (tests/int_dtypes_cases.py vs PyTorch)"
        for name in (
            "int",
            "short",
            "char",
            "byte",
            "bitwise_and",
            "bitwise_or",
            "bitwise_xor",
            "bitwise_not",
            "bitwise_left_shift",
            "bitwise_right_shift",
        )
    },
    "half": "refused: no float16 (tests/test_namespace_golden.py)",
    "stride": "metadata (tests/test_namespace_golden.py)",
    "storage_offset": "metadata (tests/test_namespace_golden.py)",
    "element_size": "metadata (tests/test_namespace_golden.py)",
    "cpu": "returns the tensor itself",
    "dim": "metadata",
    "size": "metadata",
    "numel": "metadata",
    "nelement": "metadata",
    "is_contiguous": "metadata",
    "is_floating_point": "metadata",
    "item": "data access",
    "numpy": "data access",
    "data_ptr": "data access",
    "tolist": "data access",
}
