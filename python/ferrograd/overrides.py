"""``torch.overrides``: the ``__torch_function__`` protocol, by which a tensor-like class (a
``Tensor`` subclass, or any class defining ``__torch_function__``) takes over the functions it
is passed to.

Note [Where __torch_function__ is honoured]: PyTorch checks for overrides in every function of
its API. ferrograd checks where PyTorch's own Python code does — ``autograd.backward``,
``autograd.grad``, and the alias a custom ``Function`` makes of an input its forward returned
as-is (``view_as``) — and library code can do the same with :func:`has_torch_function` and
:func:`handle_torch_function`. Its Rust functions and ``Tensor`` methods do not dispatch
through the protocol yet: an op on a subclass instance returns a plain ``Tensor``.

``Tensor.__torch_function__`` is PyTorch's default: the function runs with the protocol
disabled for subclasses and a tensor result comes back as the subclass. A class that defines
``__torch_dispatch__`` without its own ``__torch_function__`` gets the protocol disabled
(``torch._C._disabled_torch_function_impl``), as in PyTorch; ``nn.Parameter`` disables it
too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ._core import Tensor

__all__ = [
    "get_default_nowrap_functions",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
]

_state = threading.local()


def _subclass_protocol_enabled():
    return not getattr(_state, "subclass_disabled", 0) and not getattr(_state, "disabled", 0)


def _is_torch_function_enabled():
    """``torch._C._is_torch_function_enabled()``: False inside ``DisableTorchFunction``."""
    return not getattr(_state, "disabled", 0)


class _Disabling:
    """A context manager that turns off part of the protocol on this thread while it is open."""

    _flag = ""

    def __enter__(self):
        setattr(_state, self._flag, getattr(_state, self._flag, 0) + 1)
        return self

    def __exit__(self, *exc):
        setattr(_state, self._flag, getattr(_state, self._flag, 0) - 1)


class DisableTorchFunctionSubclass(_Disabling):
    """``torch._C.DisableTorchFunctionSubclass``: subclasses' ``__torch_function__`` are not
    called while it is open (what the default implementation runs the function under)."""

    _flag = "subclass_disabled"


class DisableTorchFunction(_Disabling):
    """``torch._C.DisableTorchFunction``: no ``__torch_function__`` is called while it is open."""

    _flag = "disabled"


class _DisabledTorchFunction:
    """The type of ``torch._C._disabled_torch_function_impl``: a callable that is not a
    descriptor, so that as a class attribute it stays unbound (PyTorch's is a C function)."""

    def __call__(self, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self):
        return "<built-in function _disabled_torch_function_impl>"


# a class whose ``__torch_function__`` is this takes no part in the protocol
_disabled_torch_function_impl = _DisabledTorchFunction()


def _overrides(t):
    """Whether type ``t`` takes part in the protocol."""
    if t is Tensor:
        return False
    method = getattr(t, "__torch_function__", None)
    if method is None:
        return False
    return getattr(method, "__func__", method) is not _disabled_torch_function_impl


def is_tensor_like(inp):
    """True for a ``Tensor`` (or subclass instance) and for any object whose class defines
    ``__torch_function__``."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def has_torch_function(relevant_args):
    """Whether a function given ``relevant_args`` must hand over to their
    ``__torch_function__`` (some argument's class takes part and the protocol is on)."""
    for a in relevant_args:
        t = type(a)
        if t is not Tensor and _overrides(t):
            return _subclass_protocol_enabled()
    return False


def has_torch_function_unary(arg):
    """``has_torch_function((arg,))``."""
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    """``has_torch_function(args)``."""
    return has_torch_function(args)


def _get_overloaded_args(relevant_args):
    """The arguments whose classes take part, one per class, in PyTorch's order: as given,
    except that a subclass comes before its superclass."""
    classes, args = [], []
    for arg in relevant_args:
        t = type(arg)
        if t in classes or not _overrides(t):
            continue
        position = len(args)
        for k, seen in enumerate(classes):
            if issubclass(t, seen):
                position = k
                break
        classes.insert(position, t)
        args.insert(position, arg)
    return args


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the ``__torch_function__`` of the classes of ``relevant_args`` (subclasses first)
    with ``public_api``, until one returns something other than ``NotImplemented``; a
    ``TypeError`` when all decline."""
    overloaded = _get_overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    # (a Tensor method used as a function has no __module__ of its own: its class's)
    module = getattr(public_api, "__module__", None)
    if module is None:
        module = getattr(getattr(public_api, "__objclass__", None), "__module__", "")
    name = f"{module}.{public_api.__name__}"
    raise TypeError(
        f"no implementation found for '{name}' on types that implement __torch_function__: "
        f"{[type(a) for a in overloaded]}"
    )


def get_default_nowrap_functions():
    """The functions whose results the default ``__torch_function__`` returns unconverted
    (PyTorch's: the getters of ``_base`` and ``grad``)."""
    return {Tensor._base.__get__, Tensor.grad.__get__}


def _convert(ret, cls):
    """``ret`` with its tensors as instances of ``cls`` (PyTorch's ``_convert``)."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        ret = ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        ret = type(ret)(_convert(r, cls) for r in ret)
    return ret


def _default_torch_function(
    cls: type,
    func: Callable[..., Any],
    types: tuple[type, ...],
    args: tuple[Any, ...] = (),
    kwargs: dict[str, Any] | None = None,
) -> Any:
    """``Tensor.__torch_function__``: runs ``func`` with the protocol off for subclasses and
    returns its tensors as instances of ``cls``."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in get_default_nowrap_functions():
            return ret
        return _convert(ret, cls)


def _init_subclass(cls: type[Tensor], **kwargs: Any) -> None:
    """``Tensor.__init_subclass__``: a class defining ``__torch_dispatch__`` without its own
    ``__torch_function__`` leaves the protocol (PyTorch does this when it makes the class)."""
    super(Tensor, cls).__init_subclass__(**kwargs)
    if "__torch_dispatch__" in cls.__dict__ and "__torch_function__" not in cls.__dict__:
        cls.__torch_function__ = _disabled_torch_function_impl  # type: ignore[assignment]


def _tensor_init(self: Tensor, *args: Any, **kwargs: Any) -> None:
    """``Tensor.__init__``: an object a subclass makes (``MyTensor(data)``) becomes the one
    returned for its tensor, as PyTorch keeps one Python object per tensor, so a result that
    is that tensor (a ``__torch_function__`` returning it through a custom Function) comes
    back as the subclass instance."""
    self._register()


# (the stubs declare these as Tensor's own: mypy sees an assignment to a method)
Tensor.__torch_function__ = classmethod(_default_torch_function)  # type: ignore[method-assign,assignment]
Tensor.__init_subclass__ = classmethod(_init_subclass)  # type: ignore[method-assign,assignment]
Tensor.__init__ = _tensor_init  # type: ignore[method-assign]
