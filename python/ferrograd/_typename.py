"""``torch.typename``: the name PyTorch's messages give an object's type."""

from ._core import Tensor


def typename(obj) -> str:
    """A tensor's type name (``"torch.FloatTensor"``), or an object's qualified name
    (``"int"``, ``"collections.OrderedDict"``), as ``torch.typename``."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"
