"""``ferrograd.utils``: data loading (``utils.data``), activation checkpointing
(``utils.checkpoint``), DLPack exchange (``utils.dlpack``), the safetensors format
(``utils.safetensors``) and ``swap_tensors``."""

import copyreg
import weakref

from .. import _core
from . import _pytree as _pytree
from . import checkpoint, data, dlpack, safetensors

__all__ = ["checkpoint", "data", "dlpack", "safetensors", "swap_tensors"]


def swap_tensors(t1, t2):
    """Swaps the contents of two tensor objects: afterwards ``t1`` shows what ``t2`` showed
    (values, shape, dtype, autograd state) and its class and ``__dict__``, and the reverse,
    while each object keeps its identity. Refused (``RuntimeError``) if either has weak
    references or the two classes have different ``__slots__``."""
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, _core.Tensor):
            raise TypeError(f"swap_tensors(): {name} must be a Tensor, not {type(t).__name__}")
        if weakref.getweakrefs(t):
            raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it")
    slots = set(copyreg._slotnames(type(t1)))  # type: ignore[attr-defined]
    if slots != set(copyreg._slotnames(type(t2))):  # type: ignore[attr-defined]
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    if type(t1) is not type(t2):
        t1.__class__, t2.__class__ = type(t2), type(t1)
    d1, d2 = getattr(t1, "__dict__", None), getattr(t2, "__dict__", None)
    if d1 is not None and d2 is not None:
        t1.__dict__, t2.__dict__ = d2, d1
    for slot in slots:
        missing = object()
        v1, v2 = getattr(t1, slot, missing), getattr(t2, slot, missing)
        for t, v in ((t1, v2), (t2, v1)):
            if v is missing:
                if hasattr(t, slot):
                    delattr(t, slot)
            else:
                setattr(t, slot, v)
    _core._swap_tensor_impl(t1, t2)
