"""``make_tensor`` as PyTorch's ``torch.testing`` has it, for ferrograd's dtypes: values drawn
uniformly from ``[low, high)`` with PyTorch's defaults per dtype (``[-9, 9)`` for floating
point, ``[-9, 10)`` for integers, ``{False, True}`` for booleans), its clamping of the bounds to
the dtype's finite range, its refusals, ``noncontiguous``, ``exclude_zero`` and
``memory_format``."""

import collections.abc
import functools
import math
import warnings

from .. import _core

# ferrograd's dtypes: (lowest, highest) finite values, and the floating types' smallest positive
# normal number (what exclude_zero puts in place of a zero)
_FLOAT_RANGE = {
    "float32": (-3.4028234663852886e38, 3.4028234663852886e38),
    "float64": (-1.7976931348623157e308, 1.7976931348623157e308),
}
_TINY = {"float32": 1.1754943508222875e-38, "float64": 2.2250738585072014e-308}
_INT64_RANGE = (-(2**63), 2**63 - 1)


def _name(dtype):
    return str(dtype).replace("torch.", "")


def make_tensor(
    *shape,
    dtype,
    device,
    low=None,
    high=None,
    requires_grad=False,
    noncontiguous=False,
    exclude_zero=False,
    memory_format=None,
):
    """A tensor of ``shape`` (integers, or one sequence of them) filled with values drawn
    uniformly from ``[low, high)``: by default ``[-9, 9)`` for float32/float64, ``[-9, 10)``
    for int64 and ``[0, 2)`` for bool. Bounds outside the dtype's finite range are clamped to
    it (integer bounds rounded up); ``noncontiguous=True`` gives a strided view of a larger
    tensor (for more than one element); ``exclude_zero`` replaces zeros by 1 (integers,
    booleans) or the dtype's smallest positive normal number; ``requires_grad`` only for
    floating point. Raises PyTorch's ``ValueError``\\ s (``low >= high``, a NaN bound,
    ``noncontiguous`` with ``memory_format``, ``requires_grad`` for an integer dtype) and its
    ``TypeError`` for a dtype it does not make."""
    name = _name(dtype)

    def bounds(lowest, highest, default_low, default_high):
        lo = low if low is not None else default_low
        hi = high if high is not None else default_high
        if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={lo} and high={hi}")
        if lo == hi and name in _FLOAT_RANGE:
            warnings.warn(
                "Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
                "types is deprecated since 2.1 and will be removed in 2.3. "
                "Use `torch.full(...)` instead.",
                FutureWarning,
                stacklevel=3,
            )
        elif lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
        elif hi < lowest or lo >= highest:
            raise ValueError(
                f"The value interval specified by `low` and `high` is [{lo}, {hi}), "
                f"but {dtype} only supports [{lowest}, {highest})"
            )
        lo, hi = min(max(lo, lowest), highest), min(max(hi, lowest), highest)
        if name not in _FLOAT_RANGE:  # randint's bounds: low rounded up, high exclusive
            return math.ceil(lo), math.ceil(hi)
        return lo, hi

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
            f"noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    if requires_grad and name in ("bool", "int64"):
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
            f"dtype={dtype}"
        )
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:  # twice as wide, every second element (from the second) kept
        shape = (*shape[:-1], 2 * shape[-1])

    if name == "bool":
        lo, hi = bounds(0, 2, 0, 2)
        result = _core.randint(lo, hi, shape, device=device, dtype=dtype)
    elif name == "int64":
        # randint cannot draw int64's largest value: its bound is exclusive
        lo, hi = bounds(*_INT64_RANGE, -9, 10)
        result = _core.randint(lo, hi, shape, device=device, dtype=dtype)
    elif name in _FLOAT_RANGE:
        lowest, highest = _FLOAT_RANGE[name]
        lo, hi = bounds(lowest, highest, -9, 9)
        result = _core.empty(*shape, device=device, dtype=dtype)
        if hi - lo >= highest:  # uniform_ needs its range finite: drawn at half scale
            result.uniform_(lo / 2, hi / 2).mul_(2)
        else:
            result.uniform_(lo, hi)
    else:
        raise TypeError(
            f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
            " To request support, file an issue at: https://github.com/pytorch/pytorch/issues"
        )

    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = _TINY.get(name, 1)
    if name in _FLOAT_RANGE:
        result.requires_grad = requires_grad
    return result
