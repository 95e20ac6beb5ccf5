"""The padding layers (``ZeroPad2d``, ``ReflectionPad2d``, ``ReplicationPad3d``, ...): each
holds its padding as PyTorch's tuple (one number repeated for every side) and calls
``F.pad`` with its mode."""

from .. import functional as F
from .module import Module


def _sides(padding, n):
    """``padding`` as the ``2 * n`` numbers ``F.pad`` takes (a number repeated)."""
    if isinstance(padding, (list, tuple)):
        return tuple(padding)
    return (padding,) * (2 * n)


class _PadNd(Module):
    """Pads the last ``_dims`` dims in ``_mode``."""

    __constants__: tuple[str, ...] = ("padding",)
    _dims = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _sides(padding, self._dims)

    def forward(self, input):
        """``F.pad(input, padding, mode)``."""
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    """Pads with the number ``value``."""

    __constants__ = ("padding", "value")

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        """``F.pad(input, padding, 'constant', value)``."""
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with ``value``."""


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with ``value``."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with ``value``."""

    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    """Pads with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pads the last dim with zeros."""


class ZeroPad2d(_ZeroPadNd):
    """Pads the last two dims with zeros."""

    _dims = 2


class ZeroPad3d(_ZeroPadNd):
    """Pads the last three dims with zeros."""

    _dims = 3


class ReflectionPad1d(_PadNd):
    """Pads the last dim with its reflection (the edge not repeated)."""

    _mode = "reflect"


class ReflectionPad2d(ReflectionPad1d):
    """Pads the last two dims with their reflection."""

    _dims = 2


class ReflectionPad3d(ReflectionPad1d):
    """Pads the last three dims with their reflection."""

    _dims = 3


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating its edge values."""

    _mode = "replicate"


class ReplicationPad2d(ReplicationPad1d):
    """Pads the last two dims by repeating their edges."""

    _dims = 2


class ReplicationPad3d(ReplicationPad1d):
    """Pads the last three dims by repeating their edges."""

    _dims = 3


class _CircularPadNd(_PadNd):
    """Pads by wrapping around (the other end's values); checks the input's dims first."""

    _mode = "circular"

    def forward(self, input):
        """``F.pad(input, padding, 'circular')`` of an input with or without a batch dim."""
        low, high = self._dims + 1, self._dims + 2
        if input.dim() not in (low, high):
            raise ValueError(f"expected {low}D or {high}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Pads the last dim circularly."""


class CircularPad2d(_CircularPadNd):
    """Pads the last two dims circularly."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last three dims circularly."""

    _dims = 3


__all__ = [
    f"{kind}Pad{n}d"
    for kind in ("Constant", "Zero", "Reflection", "Replication", "Circular")
    for n in (1, 2, 3)
]
