"""``assert_close`` (and the deprecated ``assert_allclose``) as PyTorch's ``torch.testing`` has
them: the same pairing of inputs (``None``, booleans, Python and NumPy numbers, tensor-likes,
recursing through sequences, mappings and dataclasses), the same default tolerances per dtype,
and the same error types and messages, word for word."""

import cmath
import collections.abc
import contextlib
import dataclasses
import warnings

import numpy as np

from .. import _core
from .._grad_mode import no_grad

# {dtype name: (rtol, atol)}; a dtype not listed compares exactly
_DTYPE_PRECISIONS = {
    "float16": (0.001, 1e-5),
    "bfloat16": (0.016, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex32": (0.001, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}
# the dtype a Python number compares as
_NUMBER_DTYPES = {int: "int64", float: "float64", complex: "complex128"}
# ferrograd's dtypes in promotion order: the later of two is their common dtype
_PROMOTION = ("bool", "int64", "float32", "float64")


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


class _ErrorMeta(Exception):
    """A comparison's failure: the exception type to raise, its message and where in nested
    inputs it occurred (``id``)."""

    def __init__(self, type, msg, *, id=()):
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                where = "".join(str([item]) for item in self.id)
                generated += f"\n\nThe failure occurred for item {where}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    """A pair type cannot handle the inputs: the next one is tried."""


def default_tolerances(*inputs, dtype_precisions=None):
    """The loosest ``(rtol, atol)`` of the inputs' dtypes (tensors or dtypes)."""
    precisions = dtype_precisions or _DTYPE_PRECISIONS
    pairs = []
    for input in inputs:
        if isinstance(input, _core.Tensor):
            input = input.dtype
        elif not isinstance(input, (_core.dtype, str)):
            raise TypeError(
                f"Expected a torch.Tensor or a torch.dtype, but got {type(input)} instead."
            )
        name = input if isinstance(input, str) else _dtype_name(input)
        pairs.append(precisions.get(name, (0.0, 0.0)))
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _tolerances(*inputs, rtol, atol, id):
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}.",
            id=id,
        )
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _mismatch_msg(*, identifier, default, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff_line(kind, diff, idx, tol):
        if idx is None:
            line = f"{kind.title()} difference: {diff}"
        else:
            line = f"Greatest {kind} difference: {diff} at index {idx}"
        if not equality:
            line += f" (up to {tol} allowed)"
        return line + "\n"

    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_line("absolute", abs_diff, abs_idx, atol)
    msg += diff_line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(
        identifier=identifier,
        default="Scalars",
        extra=f"Expected {expected} but got {actual}.",
        abs_diff=abs_diff,
        abs_idx=None,
        atol=atol,
        rel_diff=rel_diff,
        rel_idx=None,
        rtol=rtol,
    )


def _tensor_mismatch_msg(actual, expected, matches, *, rtol, atol, identifier=None):
    shape = tuple(matches.shape)

    def unravel(flat):
        index = []
        for size in reversed(shape):
            flat, mod = divmod(flat, size)
            index.append(mod)
        return tuple(reversed(index))

    total = matches.numel()
    mismatched = total - int(matches.sum().item())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    actual, expected, matches = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point:
        actual, expected = actual.to(_core.int64), expected.to(_core.int64)
    abs_diff = (actual - expected).abs()
    abs_diff[matches] = 0  # only the mismatches count
    max_abs, abs_idx = abs_diff.max(0)
    rel_diff = abs_diff / expected.abs()
    rel_diff[matches] = 0
    max_rel, rel_idx = rel_diff.max(0)
    return _mismatch_msg(
        identifier=identifier,
        default="Tensor-likes",
        extra=extra,
        abs_diff=max_abs.item(),
        abs_idx=unravel(int(abs_idx.item())),
        atol=atol,
        rel_diff=max_rel.item(),
        rel_idx=unravel(int(rel_idx.item())),
        rtol=rtol,
    )


class _Pair:
    """Two inputs to compare; ``compare`` raises an ``_ErrorMeta`` where they differ."""

    def __init__(self, actual, expected, *, id=(), **unused):
        self.actual, self.expected, self.id = actual, expected, id

    def _fail(self, type, msg):
        raise _ErrorMeta(type, msg, id=self.id)

    def _extra(self):
        return ()

    def __repr__(self):
        fields = [("id", self.id), ("actual", self.actual), ("expected", self.expected)]
        fields += [(name, getattr(self, name)) for name in self._extra()]
        body = [f"    {name}={value!s}," for name, value in fields]
        return "\n".join((f"{type(self).__name__}(", *body, ")"))


class _ObjectPair(_Pair):
    """Compared with ``==`` (a dataclass whose ``==`` answers with a bool)."""

    def compare(self):
        if not self.actual == self.expected:
            self._fail(AssertionError, f"{self.actual} != {self.expected}")


class _NonePair(_Pair):
    def __init__(self, actual, expected, **options):
        if not (actual is None or expected is None):
            raise _Unsupported
        super().__init__(actual, expected, **options)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    def __init__(self, actual, expected, **options):
        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _Unsupported
        actual, expected = (x if isinstance(x, bool) else x.item() for x in (actual, expected))
        super().__init__(actual, expected, **options)

    def compare(self):
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    def __init__(
        self,
        actual,
        expected,
        *,
        id=(),
        rtol=None,
        atol=None,
        equal_nan=False,
        check_dtype=False,
        **options,
    ):
        kinds = (int, float, complex, np.number)
        if not all(isinstance(x, kinds) for x in (actual, expected)):
            raise _Unsupported
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        super().__init__(actual, expected, id=id, **options)
        dtypes = [_NUMBER_DTYPES[type(x)] for x in (actual, expected)]
        self.rtol, self.atol = _tolerances(*dtypes, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def _extra(self):
        return ("rtol", "atol", "equal_nan", "check_dtype")

    def compare(self):
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            self._fail(
                AssertionError,
                f"The (d)types do not match: {type(actual)} != {type(expected)}.",
            )
        if actual == expected:
            return
        if self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(expected):
            return
        self._fail(
            AssertionError,
            _scalar_mismatch_msg(actual, expected, rtol=self.rtol, atol=self.atol),
        )


def _to_tensor(tensor_like):
    if isinstance(tensor_like, _core.Tensor):
        return tensor_like
    try:
        if isinstance(tensor_like, np.ndarray):
            return _core.from_numpy(np.ascontiguousarray(tensor_like))
        return _core.tensor(tensor_like)
    except Exception:
        raise _Unsupported from None


class _TensorLikePair(_Pair):
    def __init__(
        self,
        actual,
        expected,
        *,
        id=(),
        allow_subclasses=True,
        rtol=None,
        atol=None,
        equal_nan=False,
        check_device=True,
        check_dtype=True,
        check_layout=True,
        check_stride=False,
        **options,
    ):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            raise _Unsupported
        actual, expected = _to_tensor(actual), _to_tensor(expected)
        super().__init__(actual, expected, id=id, **options)
        self.rtol, self.atol = _tolerances(actual, expected, rtol=rtol, atol=atol, id=id)
        self.equal_nan = equal_nan
        self.check_device, self.check_dtype = check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    def _extra(self):
        return (
            "rtol",
            "atol",
            "equal_nan",
            "check_device",
            "check_dtype",
            "check_layout",
            "check_stride",
        )

    def _mismatch(self, attribute, actual, expected):
        self._fail(
            AssertionError,
            f"The values for attribute '{attribute}' do not match: {actual} != {expected}.",
        )

    def compare(self):
        actual, expected = self.actual.detach(), self.expected.detach()
        # every ferrograd tensor is strided and not quantized: shape, strides, device, dtype
        if actual.shape != expected.shape:
            self._mismatch("shape", actual.shape, expected.shape)
        if self.check_stride and actual.stride() != expected.stride():
            self._mismatch("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            self._mismatch("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            self._mismatch("dtype", actual.dtype, expected.dtype)
        if actual.dtype != expected.dtype:  # compared in their common dtype
            names = [_dtype_name(t.dtype) for t in (actual, expected)]
            common = max(names, key=lambda n: _PROMOTION.index(n) if n in _PROMOTION else -1)
            actual, expected = (t.to(getattr(_core, common)) for t in (actual, expected))
        with no_grad():
            self._compare_values(actual, expected)

    def _compare_values(self, actual, expected):
        rtol, atol = self.rtol, self.atol
        matches = actual.isclose(expected, rtol=rtol, atol=atol, equal_nan=self.equal_nan)
        if bool(matches.all().item()):
            return
        if actual.dim() == 0:
            msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol)
        else:
            msg = _tensor_mismatch_msg(actual, expected, matches, rtol=rtol, atol=atol)
        self._fail(AssertionError, msg)


_PAIR_TYPES = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)
_SKIP_DATACLASS_CHECK = (type, _core.Tensor, np.ndarray, np.generic)


def _originate_pairs(actual, expected, *, id=(), **options):
    """The pairs to compare, recursing through sequences, mappings and dataclasses."""

    def recurse(a, e, key):
        return _originate_pairs(a, e, id=(*id, key), **options)

    sequence, mapping = collections.abc.Sequence, collections.abc.Mapping
    if (
        isinstance(actual, sequence)
        and not isinstance(actual, str)
        and isinstance(expected, sequence)
        and not isinstance(expected, str)
    ):
        if len(actual) != len(expected):
            raise _ErrorMeta(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                id=id,
            )
        return [p for i in range(len(actual)) for p in recurse(actual[i], expected[i], i)]
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _ErrorMeta(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}",
                id=id,
            )
        keys = actual_keys
        with contextlib.suppress(Exception):  # deterministic order where the keys sort
            keys = sorted(keys)
        return [p for key in keys for p in recurse(actual[key], expected[key], key)]
    if (
        not isinstance(actual, _SKIP_DATACLASS_CHECK)
        and not isinstance(expected, _SKIP_DATACLASS_CHECK)
        and dataclasses.is_dataclass(actual)
        and dataclasses.is_dataclass(expected)
        and type(actual) is type(expected)
    ):
        # compared field by field only where == cannot answer (a tensor field)
        try:
            equal = actual == expected
        except RuntimeError as error:
            if "Boolean value of Tensor" not in str(error):
                raise
        else:
            if type(equal) is bool:
                return [_ObjectPair(actual, expected, id=id)]
        fields = [f for f in dataclasses.fields(actual) if f.compare]
        return [
            p
            for f in fields
            for p in recurse(getattr(actual, f.name), getattr(expected, f.name), f.name)
        ]
    for pair_type in _PAIR_TYPES:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
        except _ErrorMeta:
            raise
        except Exception as error:
            where = "".join(str([item]) for item in id)
            raise RuntimeError(
                f"Originating a {pair_type.__name__[1:]}() at item {where} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\n"
                f"and\n\n"
                f"{type(expected).__name__}(): {expected}\n\n"
                "resulted in the unexpected exception above. "
                "If you are a user and see this message during normal operation "
                "please file an issue at https://github.com/pytorch/pytorch/issues. "
                "If you are a developer and working on the comparison functions, "
                "please except the previous error and raise an expressive `ErrorMeta` instead."
            ) from error
    raise _ErrorMeta(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} "
        f"and {type(expected)}.",
        id=id,
    )


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses=True,
    rtol=None,
    atol=None,
    equal_nan=False,
    check_device=True,
    check_dtype=True,
    check_layout=True,
    check_stride=False,
    msg=None,
):
    """Asserts that ``actual`` and ``expected`` are close: ``|actual - expected| <= atol +
    rtol·|expected|`` elementwise (NaNs equal only with ``equal_nan``), with the same shape,
    device and (unless ``check_dtype=False``) dtype. Without ``rtol``/``atol``, the loosest
    defaults of the two dtypes: float32 ``1.3e-6``/``1e-5``, float64 ``1e-7``/``1e-7``, exact
    for integers and booleans. Sequences and mappings are compared item by item, Python
    numbers as numbers. ``msg`` replaces the generated message (a string) or transforms it (a
    callable). Raises ``AssertionError`` with PyTorch's message where they differ, ``TypeError``
    for inputs no comparison handles (a tensor against a number or a list)."""
    __tracebackhide__ = True
    options = dict(
        allow_subclasses=allow_subclasses,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=check_device,
        check_dtype=check_dtype,
        check_layout=check_layout,
        check_stride=check_stride,
    )
    try:
        pairs = _originate_pairs(actual, expected, **options)
    except _ErrorMeta as error:
        raise error.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _ErrorMeta as error:
            raise error.to_error(msg) from None
        except Exception as error:
            raise RuntimeError(
                f"Comparing\n\n{pair}\n\n"
                "resulted in the unexpected exception above. "
                "If you are a user and see this message during normal operation "
                "please file an issue at https://github.com/pytorch/pytorch/issues. "
                "If you are a developer and working on the comparison functions, "
                "please except the previous error and raise an expressive `ErrorMeta` instead."
            ) from error


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since PyTorch 1.12 (a ``FutureWarning``): ``assert_close`` without the dtype
    check, NaNs equal by default, and looser defaults (float32 ``1e-4``/``1e-5``, float64
    ``1e-5``/``1e-8``); non-tensors become tensors (``expected`` in ``actual``'s dtype)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, _core.Tensor):
        actual = _core.tensor(actual)
    if not isinstance(expected, _core.Tensor):
        expected = _core.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(
            actual,
            expected,
            dtype_precisions={
                "float16": (1e-3, 1e-3),
                "float32": (1e-4, 1e-5),
                "float64": (1e-5, 1e-8),
            },
        )
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
