"""``torch.ops``: operator objects as ``__torch_dispatch__`` receives them.

``torch.ops.aten.mul.Tensor`` is an :class:`OpOverload`: PyTorch's name for one signature of an
operator, callable with plain tensors (it runs ferrograd's op). A tensor subclass made with
``Tensor._make_wrapper_subclass`` gets these objects as ``func`` in ``__torch_dispatch__``
(Note [Tensor subclasses that dispatch] in ``src/core/dispatch.rs``); calling ``func`` on the
tensors the subclass wraps computes the op.
"""

import functools

from . import _core


def _sum_dim(self, dim=None, keepdim=False, dtype=None):
    return _core.Tensor.sum(self, dim, keepdim, dtype=dtype)


def _slice(self, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * (dim % max(self.dim(), 1)) + [slice(start, end, step)]
    return self[tuple(index)]


def _expand(self, size, implicit=False):
    return self.expand(size)


def _select_backward(grad, input_sizes, dim, index):
    out = grad.new_zeros(input_sizes)
    out.select(dim, index).copy_(grad)
    return out


def _slice_backward(grad, input_sizes, dim, start, end, step):
    out = grad.new_zeros(input_sizes)
    _slice(out, dim, start, end, step).copy_(grad)
    return out


def _to_copy(
    self,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=None,
    non_blocking=False,
    memory_format=None,
):
    return self.to(dtype=dtype if dtype is not None else self.dtype, copy=True)


# Implementations whose arguments differ from ferrograd's method of the same name; every other
# overload calls ``ferrograd.<name>`` or ``Tensor.<name>`` with its arguments unchanged.
_SPECIAL = {
    "sum.dim_IntList": _sum_dim,
    "select_backward.default": _select_backward,
    "slice_backward.default": _slice_backward,
    "_to_copy.default": _to_copy,
    "rsub.Scalar": lambda self, other, alpha=1: other - self * alpha,
    "_local_scalar_dense.default": _core.Tensor.item,
    "tanh_backward.default": lambda grad, output: grad * (1 - output * output),
    "sigmoid_backward.default": lambda grad, output: grad * (1 - output) * output,
    "threshold_backward.default": lambda grad, self, threshold: _core.where(
        self <= threshold, _core.zeros_like(grad), grad
    ),
    "slice.Tensor": _slice,
    "expand.default": _expand,
    "alias.default": lambda self: self.view_as(self),
    "_unsafe_view.default": _core.Tensor.view,
}


def _implementation(qualified):
    special = _SPECIAL.get(qualified)
    if special is not None:
        return special
    name = qualified.split(".")[0]
    import ferrograd

    target = getattr(ferrograd, name, None)
    if target is None:
        target = getattr(_core.Tensor, name, None)
    if target is None:
        raise NotImplementedError(f"aten::{qualified} has no implementation in ferrograd")
    return target


class OpOverload:
    """One overload of an operator (``torch.ops.aten.mul.Tensor``): callable with tensors."""

    def __init__(self, packet, overload):
        self.overloadpacket = packet
        self._overloadname = overload
        self.__name__ = f"{packet.__name__}.{overload}"
        self._opname = packet.__name__
        self.namespace = "aten"

    def name(self):
        """``aten::mul.Tensor`` (``aten::exp`` for the default overload)."""
        suffix = "" if self._overloadname == "default" else f".{self._overloadname}"
        return f"aten::{self._opname}{suffix}"

    def __call__(self, *args, **kwargs):
        return _implementation(self.__name__)(*args, **kwargs)

    def __repr__(self):
        return f"aten.{self.__name__}"

    def __hash__(self):
        return hash(self.__name__)

    def __eq__(self, other):
        return isinstance(other, OpOverload) and other.__name__ == self.__name__


class OpOverloadPacket:
    """An operator with all its overloads (``torch.ops.aten.mul``); calling it picks one."""

    def __init__(self, name):
        self.__name__ = name
        self._qualified_op_name = f"aten::{name}"

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        op = OpOverload(self, overload)
        setattr(self, overload, op)
        return op

    def overloads(self):
        """The overload names looked up so far."""
        return [k for k, v in vars(self).items() if isinstance(v, OpOverload)]

    def __call__(self, *args, **kwargs):
        return _implementation(f"{self.__name__}.default")(*args, **kwargs)

    def __repr__(self):
        return f"aten.{self.__name__}"


class _Namespace:
    """``torch.ops.aten``: an operator packet per attribute."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        packet = OpOverloadPacket(op)
        setattr(self, op, packet)
        return packet


class _Ops:
    """``torch.ops``: operator namespaces (``aten``)."""

    def __init__(self):
        self.aten = _Namespace("aten")

    def __getattr__(self, namespace):
        raise AttributeError(
            f"torch.ops.{namespace}: ferrograd has only the aten namespace (no custom operators)"
        )


ops = _Ops()


@functools.cache
def op_overload(qualified):
    """The :class:`OpOverload` named ``qualified`` (``"mul.Tensor"``), as the core names a
    dispatched call."""
    name, overload = qualified.split(".")
    return getattr(getattr(ops.aten, name), overload)


__all__ = ["OpOverload", "OpOverloadPacket", "ops"]
