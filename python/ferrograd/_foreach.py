"""``torch._foreach_*``: one op applied to each tensor of a list (and the matching element of
a second list, a list of numbers, a number or one tensor), out of place (a tuple of new
tensors) or in place (``_foreach_add_``, returning the list it was given). PyTorch fuses these
on GPUs; on a CPU it runs them tensor by tensor, and so does ferrograd, with each tensor's own
op: the same values and gradients, though the nodes keep the per-tensor ops' names
(``ExpBackward0`` where PyTorch names ``ForeachExpBackward0``)."""

import numbers

from . import _core

_UNARY = [
    "abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
    "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round",
    "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
]  # fmt: skip
_BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "clamp_min", "clamp_max"]
_TERNARY = ["addcmul", "addcdiv"]


def _check_list(tensors, name):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'self' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return tensors


def _check_same_length(tensors, others, what="Tensor lists must have the same number of tensors"):
    if len(others) != len(tensors):
        raise RuntimeError(f"{what}, got {len(tensors)} and {len(others)}")


def _per_tensor(tensors, other):
    """``other`` spread over ``tensors``: a list (checked for length), or one value each."""
    if isinstance(other, (list, tuple)):
        other = list(other)
        if other and all(isinstance(o, numbers.Number) for o in other):
            if len(other) != len(tensors):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        else:
            _check_same_length(tensors, other)
        return other
    return [other] * len(tensors)


def _make_unary(name):
    def out_of_place(self):
        return tuple(getattr(t, name)() for t in _check_list(self, f"_foreach_{name}"))

    def in_place(self):
        for t in _check_list(self, f"_foreach_{name}_"):
            getattr(t, name + "_")()
        return self

    return out_of_place, in_place


def _binary_call(t, method, o, alpha):
    # maximum/minimum take tensors only: a number becomes one of the tensor's dtype
    if method.rstrip("_") in ("maximum", "minimum") and not isinstance(o, _core.Tensor):
        o = _core.tensor(o, dtype=t.dtype)
    op = getattr(t, method)
    return op(o) if alpha is None else op(o, alpha=alpha)


def _make_binary(name):
    def out_of_place(self, other, *, alpha=None):
        tensors = _check_list(self, f"_foreach_{name}")
        pairs = zip(tensors, _per_tensor(tensors, other))
        return tuple(_binary_call(t, name, o, alpha) for t, o in pairs)

    def in_place(self, other, *, alpha=None):
        tensors = _check_list(self, f"_foreach_{name}_")
        for t, o in zip(tensors, _per_tensor(tensors, other)):
            _binary_call(t, name + "_", o, alpha)
        return self

    return out_of_place, in_place


def _ternary_args(fn_name, self, tensor1, tensor2, value):
    tensors = _check_list(self, fn_name)
    _check_same_length(tensors, list(tensor1))
    _check_same_length(tensors, list(tensor2))
    if isinstance(value, _core.Tensor) and value.dim() == 1:
        value = value.tolist()
    return zip(tensors, tensor1, tensor2, _per_tensor(tensors, value))


def _make_ternary(name):
    def out_of_place(self, tensor1, tensor2, value=1):
        args = _ternary_args(f"_foreach_{name}", self, tensor1, tensor2, value)
        return tuple(getattr(t, name)(a, b, value=v) for t, a, b, v in args)

    def in_place(self, tensor1, tensor2, value=1):
        for t, a, b, v in _ternary_args(f"_foreach_{name}_", self, tensor1, tensor2, value):
            getattr(t, name + "_")(a, b, value=v)
        return self

    return out_of_place, in_place


def _lerp_args(fn_name, self, tensors1, weight):
    tensors = _check_list(self, fn_name)
    _check_same_length(tensors, list(tensors1))
    return zip(tensors, tensors1, _per_tensor(tensors, weight))


def _foreach_lerp(self, tensors1, weight):
    """``torch.lerp(s, e, w)`` for each tensor: ``weight`` a number, or a list of tensors or
    numbers."""
    return tuple(s.lerp(e, w) for s, e, w in _lerp_args("_foreach_lerp", self, tensors1, weight))


def _foreach_lerp_(self, tensors1, weight):
    """``_foreach_lerp`` in place."""
    for s, e, w in _lerp_args("_foreach_lerp_", self, tensors1, weight):
        s.lerp_(e, w)
    return self


def _foreach_zero_(self):
    """Sets every tensor of the list to zero."""
    for t in _check_list(self, "_foreach_zero_"):
        t.zero_()
    return self


def _foreach_copy_(self, src, non_blocking=False):
    """Copies each tensor of ``src`` into the matching one of ``self``."""
    tensors = _check_list(self, "_foreach_copy_")
    src = list(src)
    _check_same_length(tensors, src)
    for t, s in zip(tensors, src):
        t.copy_(s)
    return self


def _foreach_norm(self, ord=2, dtype=None):
    """The ``ord``-norm of each tensor (0-d tensors), computed in ``dtype`` if given."""
    tensors = _check_list(self, "_foreach_norm")
    return tuple((t if dtype is None else t.to(dtype)).norm(p=ord) for t in tensors)


def _foreach_max(self):
    """The largest element of each tensor (0-d tensors)."""
    return tuple(t.max() for t in _check_list(self, "_foreach_max"))


def _install(namespace):
    """Adds the ``_foreach_*`` functions to ``namespace`` (the ``ferrograd`` module's dict)."""
    families = [(_UNARY, _make_unary), (_BINARY, _make_binary), (_TERNARY, _make_ternary)]
    for names, make in families:
        for name in names:
            out_of_place, in_place = make(name)
            for fn, fn_name in (
                (out_of_place, f"_foreach_{name}"),
                (in_place, f"_foreach_{name}_"),
            ):
                fn.__name__ = fn.__qualname__ = fn_name
                fn.__doc__ = f"``{name}`` of each tensor of a list" + (
                    ", in place." if fn_name.endswith("_") else "."
                )
                namespace[fn_name] = fn
    others = [_foreach_lerp, _foreach_lerp_, _foreach_zero_, _foreach_copy_, _foreach_norm]
    for fn in [*others, _foreach_max]:
        namespace[fn.__name__] = fn
