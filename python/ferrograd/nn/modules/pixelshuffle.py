"""``PixelShuffle`` and ``PixelUnshuffle``: sub-pixel rearrangement of channels into space and
back (one core op each: ``PixelShuffleBackward0``, ``PixelUnshuffleBackward0``)."""

from .. import functional as F
from .module import Module


class PixelShuffle(Module):
    """``(*, C·r², H, W) → (*, C, H·r, W·r)`` with ``r = upscale_factor``."""

    __constants__ = ("upscale_factor",)

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        """The rearranged ``input``."""
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H·r, W·r) → (*, C·r², H, W)`` with ``r = downscale_factor``."""

    __constants__ = ("downscale_factor",)

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        """The rearranged ``input``."""
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


__all__ = ["PixelShuffle", "PixelUnshuffle"]
