"""The ``meta`` device: tensors with a shape, strides, dtype and autograd state but no values,
for building a model without allocating it (``with torch.device("meta"): model = Net()``, then
``load_state_dict(..., assign=True)`` or ``to_empty``) or for a module whose tensors another call
supplies (``torch.func.functional_call`` over ``model.to("meta")``).

Note [The meta device]
    A meta tensor is a wrapper tensor of the core (an elementless storage whose state is the
    core's ``Meta`` marker), so views of it (``t[0]``, ``view``, ``transpose``, ...) are computed
    on its layout as for any tensor, and every op that dispatches arrives here, in
    ``_dispatch``: an in-place op changes nothing and returns its tensor (PyTorch checks shapes
    and writes nothing), any other op runs on stand-ins (a zero of the dtype broadcast to each
    meta input's shape, no memory per element) and its outputs come back as meta tensors of the
    same shapes and dtypes; autograd records the op's node on them as on computed outputs. The
    core's random fills and ``zero_`` do nothing on meta tensors. An op that neither dispatches
    nor only moves the layout is refused by the core (``NotImplementedError`` naming the op),
    where PyTorch would compute its output's shape; reading values is refused with PyTorch's
    errors. Factories take ``device="meta"`` and the default device (``torch.device("meta")``
    as a context manager, ``set_default_device("meta")``); ``Tensor.to("meta")`` (in the
    binding) makes a meta tensor of the same shape and dtype (a leaf, where PyTorch records
    ``ToCopyBackward0``), and ``to("cpu")`` of a meta tensor is refused as PyTorch refuses it.
"""

from __future__ import annotations

import functools

from . import _core
from ._core import Tensor
from ._device import device as _device

_CANNOT_COPY = "Cannot copy out of meta tensor; no data!"
# the CPU factories, before ``_install`` wraps them
_cpu_empty, _cpu_zeros = _core.empty, _core.zeros


def _is_meta_device(device) -> bool:
    if device is None:
        return False
    if isinstance(device, _device):
        return device.type == "meta"
    return isinstance(device, str) and device.partition(":")[0] == "meta"


def _strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return list(reversed(strides))


def empty(shape, dtype=None, requires_grad=False) -> Tensor:
    """A contiguous meta tensor of ``shape`` and ``dtype`` (the default float when None)."""
    from . import get_default_dtype

    shape = list(shape)
    return _core._meta_tensor(shape, _strides(shape), dtype or get_default_dtype(), requires_grad)


def to_meta(t: Tensor) -> Tensor:
    """A meta tensor of ``t``'s shape and dtype (``t.to("meta")``, done by the binding)."""
    return empty(t.shape, t.dtype)


def _stand_in(t: Tensor) -> Tensor:
    return _cpu_zeros((), dtype=t.dtype).expand(t.shape)


def _dispatch(func, args, kwargs):
    """The outputs of a dispatched op with a meta input (Note [The meta device])."""
    name = func.__name__.split(".")[0]
    if name == "_local_scalar_dense":
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    if name.endswith("_") and not name.startswith("_"):
        target = args[0]
        if not target.is_meta:
            raise NotImplementedError(_CANNOT_COPY)
        return target
    from .utils._pytree import tree_map

    for t in list(args) + list(kwargs.values()):
        if isinstance(t, Tensor) and not t.is_meta and t.dim() > 0:
            raise RuntimeError("Tensor on device cpu is not on the expected device meta!")

    def stand_in(x):
        return _stand_in(x) if isinstance(x, Tensor) and x.is_meta else x

    out = func(*tree_map(stand_in, args), **tree_map(stand_in, kwargs))
    return tree_map(lambda x: to_meta(x) if isinstance(x, Tensor) else x, out)


# whether the default device is meta (``set_default_device``), read by every factory call
_default_is_meta = [False]


def _factory(name, original, shape_only):
    """``original`` taking ``device="meta"`` (and the default device): a meta tensor of the
    shape and dtype it would make (``shape_only``: the shape from its size arguments alone)."""

    @functools.wraps(original)
    def factory(*args, **kwargs):
        device = kwargs.get("device")
        if not (_default_is_meta[0] if device is None else _is_meta_device(device)):
            return original(*args, **kwargs)
        kwargs.pop("device", None)
        requires_grad = kwargs.pop("requires_grad", False)
        kwargs.pop("pin_memory", None)
        if shape_only:
            kwargs.pop("generator", None)
            model = _cpu_empty(*args, dtype=kwargs.get("dtype"))
        else:
            model = original(*args, **kwargs)
        return empty(model.shape, model.dtype, requires_grad)

    return factory


def _like(name, original):
    """A ``*_like`` factory: a meta tensor when its input is one (and no device is asked) or
    the device is meta; values made like a stand-in otherwise."""

    @functools.wraps(original)
    def like(input, *args, **kwargs):
        device = kwargs.pop("device", None)
        if device is None and isinstance(input, Tensor) and input.is_meta:
            device = "meta"
        if _is_meta_device(device):
            dtype = kwargs.get("dtype") or input.dtype
            return empty(input.shape, dtype, kwargs.get("requires_grad", False))
        if isinstance(input, Tensor) and input.is_meta:
            input = _stand_in(input).contiguous()
        return original(input, *args, device=device, **kwargs)

    return like


def _install(namespace) -> None:
    """Wraps the factories of ``namespace`` (the ``ferrograd`` module) and of ``_core`` (which
    the modules call), and ``Tensor``'s methods that move or read values."""
    wrapped = {}

    def install(name, make):
        for module in (namespace, _core):
            original = getattr(module, name, None)
            if original is None:
                continue
            if id(original) not in wrapped:
                wrapped[id(original)] = make(name, original)
            setattr(module, name, wrapped[id(original)])

    for name in ("empty", "zeros", "ones", "rand", "randn"):
        install(name, lambda n, o: _factory(n, o, True))
    for name in ("full", "arange", "linspace", "eye", "tensor", "randint", "empty_strided"):
        install(name, lambda n, o: _factory(n, o, False))
    for name in ("empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like"):
        install(name, _like)

    cpu, tolist, numpy = Tensor.cpu, Tensor.tolist, Tensor.numpy

    def cpu_method(self, *args, **kwargs):
        if self.is_meta:
            raise NotImplementedError(_CANNOT_COPY)
        return cpu(self, *args, **kwargs)

    def tolist_method(self):
        if self.is_meta:
            raise NotImplementedError(_CANNOT_COPY)
        return tolist(self)

    def numpy_method(self, *args, **kwargs):
        if self.is_meta:
            raise TypeError(
                "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the "
                "tensor to host memory first."
            )
        return numpy(self, *args, **kwargs)

    for name, method, original in (
        ("cpu", cpu_method, cpu),
        ("tolist", tolist_method, tolist),
        ("numpy", numpy_method, numpy),
    ):
        functools.update_wrapper(method, original)
        setattr(Tensor, name, method)
