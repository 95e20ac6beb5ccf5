"""``profile(record_shapes=True)``: each op event carries the shapes of the op's arguments.

Note [Recording input shapes]: the profiler's events are opened by the core's bindings, which
see their arguments as Rust values; what PyTorch records is the arguments as the program passed
them (a tensor's shape, ``[]`` for anything else). So while a profile that records shapes is
open, every binding the program can reach by name — the functions of ``ferrograd._core`` and
the same objects wherever a ``ferrograd`` module holds them, and ``Tensor``'s methods and
operators — is replaced by a wrapper that notes the shapes of its arguments for the event the
call opens (``_core._profiler_note_inputs``), and put back when the profile closes. Arguments
left to their defaults are not listed (PyTorch lists every argument of the op's schema), and a
binding the program kept a reference to before the profile opened records no shapes. Nothing
of this runs without ``record_shapes``.
"""

import sys

from .. import _core
from .._core import Tensor

# Tensor attributes that are not ops (or that the interpreter relies on being the type's own)
_NOT_OPS = {
    "__new__",
    "__init__",
    "__init_subclass__",
    "__getattribute__",
    "__getattr__",
    "__setattr__",
    "__delattr__",
    "__hash__",
    "__repr__",
    "__str__",
    "__format__",
    "__reduce__",
    "__reduce_ex__",
    "__getstate__",
    "__setstate__",
    "__dir__",
    "__sizeof__",
    "__class__",
    "__len__",
    "__iter__",
    "__bool__",
    "__index__",
    "__int__",
    "__float__",
    "__complex__",
    "__array__",
    "__array_wrap__",
    "__dlpack__",
    "__dlpack_device__",
    "__deepcopy__",
    "__copy__",
    "__torch_function__",
    "__torch_dispatch__",
    "__subclasshook__",
    "__contains__",
    "_register",
}


def _shape(value):
    return list(value.shape) if isinstance(value, Tensor) else []


def _noting(op):
    """``op``, noting the shapes of its arguments for the event it opens."""

    def wrapper(*args, **kwargs):
        shapes = [_shape(a) for a in args] + [_shape(v) for v in kwargs.values()]
        _core._profiler_note_inputs(shapes)
        try:
            return op(*args, **kwargs)
        finally:
            _core._profiler_note_inputs(None)  # a call that opened no event leaves no note

    wrapper.__name__ = getattr(op, "__name__", "op")
    wrapper.__qualname__ = getattr(op, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = getattr(op, "__doc__", None)
    wrapper.__wrapped__ = op
    return wrapper


def _is_binding(value):
    """Whether ``value`` is a function of ``ferrograd._core`` that may open an event."""
    return (
        type(value).__name__ == "builtin_function_or_method"
        and getattr(value, "__module__", None) == "ferrograd._core"
        and not value.__name__.startswith("_profiler")
    )


def install():
    """Wraps the bindings (Note [Recording input shapes]); returns what ``uninstall`` puts
    back."""
    replaced = []
    wrappers = {}
    for name, value in list(vars(Tensor).items()):
        kind = type(value).__name__
        if name in _NOT_OPS or kind not in ("method_descriptor", "wrapper_descriptor"):
            continue
        wrappers[id(value)] = _noting(value)
        replaced.append((Tensor, name, value))
        setattr(Tensor, name, wrappers[id(value)])
    for module in [m for name, m in list(sys.modules.items()) if name.startswith("ferrograd")]:
        namespace = getattr(module, "__dict__", None)
        if namespace is None:
            continue
        for name, value in list(namespace.items()):
            # (a Tensor method is a module function too: torch.add is Tensor.add)
            if id(value) in wrappers or _is_binding(value):
                wrapper = wrappers.setdefault(id(value), _noting(value))
                replaced.append((module, name, value))
                setattr(module, name, wrapper)
    return replaced


def uninstall(replaced):
    """Puts back what ``install`` replaced."""
    for owner, name, value in reversed(replaced):
        setattr(owner, name, value)
