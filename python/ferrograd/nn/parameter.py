"""``nn.Parameter`` and ``nn.Buffer``: the tensor classes a module registers as one of its
parameters or buffers when assigned as an attribute; ``UninitializedParameter`` and
``UninitializedBuffer``, the placeholders of lazy modules until their shapes are known."""

import inspect

from .. import _core
from .._core import Tensor
from ..overrides import _disabled_torch_function_impl


class Parameter(Tensor):
    """A tensor that is a module parameter: a leaf that requires grad by default. Assigning one
    as an attribute of a :class:`~ferrograd.nn.Module` registers it."""

    # operations on a parameter give plain tensors, as PyTorch's
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _core.empty(0)
        obj = super().__new__(cls, data, requires_grad)
        obj._register()
        return obj

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    # print(parameter) shows the same header, as PyTorch's
    __str__ = __repr__

    def __deepcopy__(self, memo):
        # as PyTorch: a parameter with copied values and requires_grad (not its .grad)
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.data.clone(), self.requires_grad)
        return memo[id(self)]


class Buffer(Tensor):
    """A tensor that is a module buffer: assigning one as an attribute of a
    :class:`~ferrograd.nn.Module` registers it as a buffer (``persistent`` ones go into the
    state dict), as ``torch.nn.Buffer``. It holds the data given, detached, keeping its
    ``requires_grad``; operations on it give plain tensors. It adds no storage to a tensor
    (``__slots__``), so ``load_state_dict``'s tensor swapping can exchange it with a plain one:
    its ``persistent`` flag is its class's (a non-persistent buffer is a ``Buffer`` subclass)."""

    __slots__ = ()
    __torch_function__ = _disabled_torch_function_impl
    persistent = True

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _core.empty(0)
        kind = Buffer if persistent else _NonPersistentBuffer
        return Tensor.__new__(kind, data.detach(), data.requires_grad)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Buffer(self.data.clone(), persistent=self.persistent)
        return memo[id(self)]


class _NonPersistentBuffer(Buffer):
    """A ``Buffer(..., persistent=False)``: kept out of the module's state dict."""

    __slots__ = ()
    persistent = False


class UninitializedTensorMixin:
    """What the uninitialized placeholders share: no shape and no data until
    :meth:`materialize` gives them one and turns them into ``cls_to_become``. Until then
    every operation on one is refused with a ``ValueError`` except the ones lazy modules need
    (``size``, ``copy_``, dtype and device conversions, which keep the class, and attribute
    reads), as PyTorch's.

    Note [Where an uninitialized tensor is refused]: PyTorch refuses through its
    ``__torch_function__``, which every function consults. ferrograd's Rust functions do not
    consult it (see ``overrides``), so the refusal is made by the tensor's methods and
    operators (generated below), by the functions that check the protocol, and by reading
    ``shape``; a namespace function such as ``torch.add(p, p)`` on a placeholder computes on
    its empty data instead."""

    __slots__ = ()
    cls_to_become: type = _core.Tensor
    _allowed_methods = (
        "size",
        "copy_",
        "is_complex",
        "is_floating_point",
        "get_device",
    )
    _keeping_class = (
        "half",
        "float",
        "double",
        "char",
        "short",
        "int",
        "long",
        "cuda",
        "cpu",
        "to",
    )

    def materialize(self, shape, device=None, dtype=None):
        """Gives the placeholder an uninitialised tensor of ``shape`` (by default on its own
        device and dtype, which module conversions such as ``.double()`` set) and turns it
        into ``cls_to_become``, keeping its identity (so an optimizer holding it sees the
        new tensor)."""
        data = _core.Tensor.detach(self)
        device = data.device if device is None else device
        dtype = data.dtype if dtype is None else dtype
        self.data = _core.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes."
        )

    def share_memory_(self):
        """Refused: there is nothing to share yet."""
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`."
        )

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in cls._allowed_methods or name in cls._keeping_class:
            return _core.Tensor.__torch_function__.__func__(cls, func, types, args, kwargs)
        raise ValueError(_refusal(func, cls))


def _refusal(func, cls):
    return (
        f"Attempted to use an uninitialized parameter in {func}. This error happens when you "
        "are using a `LazyModule` or explicitly manipulating "
        f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call `forward` "
        "with a dummy batch to initialize the parameters before calling torch functions"
    )


def _refusing(name):
    method = getattr(_core.Tensor, name)

    def refused(self, *args, **kwargs):
        raise ValueError(_refusal(method, type(self)))

    refused.__name__ = name
    refused.__doc__ = f"Refused on an uninitialized tensor (``Tensor.{name}``)."
    return refused


def _keeping_class(name):
    method = getattr(_core.Tensor, name)

    def converted(self, *args, **kwargs):
        result = method(self, *args, **kwargs)
        if result is self or not isinstance(result, _core.Tensor):
            return result
        return result.as_subclass(type(self))

    converted.__name__ = name
    converted.__doc__ = f"``Tensor.{name}``, giving a placeholder of the same class."
    return converted


# the operators and conversions Python looks up on the class (not through __getattr__)
_REFUSED_DUNDERS = (
    "__abs__",
    "__add__",
    "__and__",
    "__bool__",
    "__complex__",
    "__contains__",
    "__eq__",
    "__float__",
    "__floordiv__",
    "__ge__",
    "__getitem__",
    "__gt__",
    "__iadd__",
    "__iand__",
    "__ifloordiv__",
    "__ilshift__",
    "__imatmul__",
    "__imod__",
    "__imul__",
    "__index__",
    "__int__",
    "__invert__",
    "__ior__",
    "__ipow__",
    "__irshift__",
    "__isub__",
    "__iter__",
    "__itruediv__",
    "__ixor__",
    "__le__",
    "__len__",
    "__lshift__",
    "__lt__",
    "__matmul__",
    "__mod__",
    "__mul__",
    "__ne__",
    "__neg__",
    "__or__",
    "__pos__",
    "__pow__",
    "__radd__",
    "__rand__",
    "__rfloordiv__",
    "__rlshift__",
    "__rmatmul__",
    "__rmod__",
    "__rmul__",
    "__ror__",
    "__rpow__",
    "__rrshift__",
    "__rshift__",
    "__rsub__",
    "__rtruediv__",
    "__rxor__",
    "__setitem__",
    "__sub__",
    "__truediv__",
    "__xor__",
    "__array__",
)


def _install_refusals(mixin):
    """Gives ``mixin`` a refusing version of every public ``Tensor`` method and operator
    except the allowed ones, and class-keeping versions of the conversions."""
    own = set(vars(mixin))
    for name in dir(_core.Tensor):
        if name in own or name in mixin._allowed_methods:
            continue
        if name in mixin._keeping_class:
            setattr(mixin, name, _keeping_class(name))
            continue
        if name.startswith("_") and name not in _REFUSED_DUNDERS:
            continue
        if inspect.isroutine(inspect.getattr_static(_core.Tensor, name)):
            setattr(mixin, name, _refusing(name))


_install_refusals(UninitializedTensorMixin)


def is_lazy(param):
    """Whether ``param`` is an uninitialized placeholder (``UninitializedParameter`` or
    ``UninitializedBuffer``)."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):  # type: ignore[misc]
    """A parameter whose shape is not known yet (a lazy module's weight until its first
    call); :meth:`materialize` makes it a :class:`Parameter`."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = _core.empty(0, device=device, dtype=dtype)
        return Parameter.__new__(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            data = _core.Tensor.detach(self)
            memo[id(self)] = type(self)(self.requires_grad, data.device, data.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, _core.Tensor):
    """A buffer whose shape is not known yet (a lazy norm layer's running statistics until
    its first call); :meth:`materialize` makes it a plain tensor. ``persistent=False`` gives
    one kept out of the state dict once it is registered through ``nn.Buffer`` rules (its
    flag is its class's, as :class:`Buffer`'s)."""

    __slots__ = ()
    cls_to_become = _core.Tensor
    persistent = True

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = _core.empty(0, device=device, dtype=dtype)
        kind = cls if persistent else _NonPersistentUninitializedBuffer
        return _core.Tensor.__new__(kind, data, requires_grad)


class _NonPersistentUninitializedBuffer(UninitializedBuffer):
    """An ``UninitializedBuffer(..., persistent=False)``."""

    __slots__ = ()
    persistent = False


__all__ = [
    "Buffer",
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "UninitializedTensorMixin",
    "is_lazy",
]
