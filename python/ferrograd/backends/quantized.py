"""``torch.backends.quantized``: the quantized engines, of which ferrograd has none (it has no
quantized tensors). ``supported_engines`` is empty and ``engine`` reads ``"none"``; choosing an
engine is refused with PyTorch's messages (an unknown name, or a known engine not built in)."""

import sys
import types

# PyTorch's engine names and the C++ enum names its "not supported" message shows
_ENGINES = {
    "none": "NoQEngine",
    "fbgemm": "FBGEMM",
    "qnnpack": "QNNPACK",
    "onednn": "ONEDNN",
    "x86": "X86",
}


class QuantizedEngine(types.ModuleType):
    """The module itself: ``engine`` is a property, as in PyTorch."""

    @property
    def supported_engines(self):
        """The engines quantized operators can run on: none."""
        return []

    @property
    def engine(self):
        """The engine quantized operators would run on: ``"none"``."""
        return "none"

    @engine.setter
    def engine(self, value):
        if value not in _ENGINES:
            raise RuntimeError(f"{value} is not a valid value for quantized engine")
        raise RuntimeError(f"quantized engine {_ENGINES[value]} is not supported")


sys.modules[__name__].__class__ = QuantizedEngine
