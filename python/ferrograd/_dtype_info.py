"""``torch.finfo`` and ``torch.iinfo``: the numeric limits of a floating or integer dtype."""

from __future__ import annotations

import numpy as np

from . import _core

_NUMPY = {
    "float32": np.float32,
    "float64": np.float64,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
}


class finfo:
    """The limits of a floating dtype (``torch.finfo(torch.float32).eps``); the default dtype
    when none is given."""

    def __init__(self, type=None):
        dtype = _core._get_default_dtype() if type is None else type
        if not isinstance(dtype, _core.dtype) or not dtype.is_floating_point:
            raise TypeError("finfo(): argument 'type' (position 1) must be torch.dtype")
        info = np.finfo(_NUMPY[str(dtype).removeprefix("torch.")])
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.tiny)
        self.smallest_normal = float(info.smallest_normal)
        self.resolution = float(info.resolution)
        self.dtype = str(dtype).removeprefix("torch.")

    def __repr__(self):
        fields = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")
        shown = ", ".join(f"{name}={getattr(self, name):g}" for name in fields)
        return f"finfo({shown}, dtype={self.dtype})"


class iinfo:
    """The limits of an integer (or bool) dtype (``torch.iinfo(torch.uint8).max``)."""

    def __init__(self, type):
        if not isinstance(type, _core.dtype):
            raise TypeError("iinfo(): argument 'type' (position 1) must be torch.dtype")
        name = str(type).removeprefix("torch.")
        if type.is_floating_point or name == "bool":
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                "'torch.iinfo'"
            )
        info = np.iinfo(_NUMPY[name])
        self.bits = int(info.bits)
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
