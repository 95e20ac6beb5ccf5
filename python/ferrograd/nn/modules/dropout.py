"""``Dropout`` (and ``Dropout1d``/``Dropout2d``/``Dropout3d``, by channel): zeroes elements
with probability ``p`` in training mode (scaling the rest by ``1/(1-p)``), the identity in
evaluation mode; ``AlphaDropout`` and ``FeatureAlphaDropout`` are the SELU-preserving
variants."""

from .. import functional as F
from .module import Module


class _DropoutNd(Module):
    __constants__ = ("p", "inplace")

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """``F.dropout(input, p, training, inplace)``."""

    def forward(self, input):
        """Drops elements in training mode."""
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of ``(N, C, L)`` or ``(C, L)`` inputs: ``F.dropout1d``."""

    def forward(self, input):
        """Drops channels in training mode."""
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of ``(N, C, H, W)`` or ``(C, H, W)`` inputs: ``F.dropout2d``."""

    def forward(self, input):
        """Drops channels in training mode."""
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs:
    ``F.dropout3d``."""

    def forward(self, input):
        """Drops channels in training mode."""
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks, keeping the input's mean and variance:
    ``F.alpha_dropout``."""

    def forward(self, input):
        """Drops elements (to SELU's saturation value) in training mode."""
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels: ``F.feature_alpha_dropout``."""

    def forward(self, input):
        """Drops channels (to SELU's saturation value) in training mode."""
        return F.feature_alpha_dropout(input, self.p, self.training)


__all__ = [
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "AlphaDropout",
    "FeatureAlphaDropout",
]
