"""``Upsample``, ``UpsamplingNearest2d`` and ``UpsamplingBilinear2d``: ``F.interpolate`` with
the layer's configuration, and PyTorch's ``repr``."""

from .. import functional as F
from .module import Module


class Upsample(Module):
    """``F.interpolate(input, size, scale_factor, mode, align_corners)``; a scale factor is
    kept as a float (or a tuple of floats), as PyTorch keeps it."""

    __constants__ = ("size", "scale_factor", "mode", "align_corners", "name",
                     "recompute_scale_factor")

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        """The resampled ``input``."""
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample(mode='nearest')`` for 2-D images."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(mode='bilinear', align_corners=True)`` for 2-D images."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
