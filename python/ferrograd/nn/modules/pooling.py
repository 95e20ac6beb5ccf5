"""Pooling layers: ``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``, ``AvgPool2d``,
``AdaptiveAvgPool1d``, ``AdaptiveAvgPool2d``, ``AdaptiveMaxPool1d``, ``AdaptiveMaxPool2d``,
with PyTorch's arguments and ``repr``; and the sliding-block layers ``Unfold`` and ``Fold``."""

from .. import functional as F
from .conv import _tuple
from .module import Module


class _MaxPoolNd(Module):
    __constants__ = ("kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode")

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """``F.max_pool1d`` with the layer's configuration (``stride`` defaults to
    ``kernel_size``)."""

    def forward(self, input):
        """The pooled ``input`` (and the indices with ``return_indices``)."""
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """``F.max_pool2d`` with the layer's configuration (``stride`` defaults to
    ``kernel_size``)."""

    def forward(self, input):
        """The pooled ``input`` (and the indices with ``return_indices``)."""
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """``F.max_pool3d`` with the layer's configuration (``stride`` defaults to
    ``kernel_size``)."""

    def forward(self, input):
        """The pooled ``input`` (and the indices with ``return_indices``)."""
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """``F.avg_pool1d`` with the layer's configuration (kept as 1-tuples, as PyTorch)."""

    __constants__ = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        """The pooled ``input``."""
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _single(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class AvgPool2d(Module):
    """``F.avg_pool2d`` with the layer's configuration (``stride`` defaults to
    ``kernel_size``)."""

    __constants__ = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        """The pooled ``input``."""
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(AvgPool2d):
    """``F.avg_pool3d`` with the layer's configuration (``stride`` defaults to
    ``kernel_size``)."""

    def forward(self, input):
        """The pooled ``input``."""
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptivePool(Module):
    __constants__: tuple[str, ...] = ("output_size",)

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """``F.adaptive_avg_pool1d`` to ``output_size``."""

    def forward(self, input):
        """The pooled ``input``."""
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    """``F.adaptive_avg_pool2d`` to ``output_size`` (``None`` keeps that input size)."""

    def forward(self, input):
        """The pooled ``input``."""
        return F.adaptive_avg_pool2d(input, self.output_size)


class _AdaptiveMaxPool(_AdaptivePool):
    __constants__ = ("output_size", "return_indices")

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """``F.adaptive_max_pool1d`` to ``output_size``."""

    def forward(self, input):
        """The pooled ``input`` (and the indices with ``return_indices``)."""
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """``F.adaptive_max_pool2d`` to ``output_size`` (``None`` keeps that input size)."""

    def forward(self, input):
        """The pooled ``input`` (and the indices with ``return_indices``)."""
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool3d(_AdaptivePool):
    """``F.adaptive_avg_pool3d`` to ``output_size`` (``None`` keeps that input size)."""

    def forward(self, input):
        """The pooled ``input``."""
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """``F.adaptive_max_pool3d`` to ``output_size`` (``None`` keeps that input size)."""

    def forward(self, input):
        """The pooled ``input`` (and the indices with ``return_indices``)."""
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    __constants__ = ("kernel_size", "stride", "padding")
    _spatial = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._spatial
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride if stride is not None else kernel_size, n)
        self.padding = _tuple(padding, n)

    def forward(self, input, indices, output_size=None):
        """``input`` put back at ``indices`` (as the pool gave them), zeros elsewhere."""
        unpool = getattr(F, f"max_unpool{self._spatial}d")
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """``F.max_unpool1d`` with the layer's configuration: the partial inverse of
    ``MaxPool1d``."""

    _spatial = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """``F.max_unpool2d`` with the layer's configuration: the partial inverse of
    ``MaxPool2d``."""

    _spatial = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """``F.max_unpool3d`` with the layer's configuration: the partial inverse of
    ``MaxPool3d``."""

    _spatial = 3


class Unfold(Module):
    """``F.unfold``: sliding blocks as columns."""

    __constants__ = ("kernel_size", "dilation", "padding", "stride")

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """The columns of ``input``'s blocks."""
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )


class Fold(Module):
    """``F.fold``: columns summed back into images of ``output_size``."""

    __constants__ = ("output_size", "kernel_size", "dilation", "padding", "stride")

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """The images the columns ``input`` add up to."""
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "Fold",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "Unfold",
]
