"""Convolution layers: ``Conv1d``, ``Conv2d``, ``ConvTranspose1d``, ``ConvTranspose2d``, with
PyTorch's arguments, checks, ``repr`` and initialisation (after ``manual_seed`` their weights
and biases are PyTorch's)."""

import math

from ... import _core
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}


def _tuple(value, n):
    """``value`` as an ``n``-tuple (an int repeated; a sequence kept as a tuple)."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    """What the convolution layers share: configuration, parameters and their
    initialisation."""

    __constants__ = (
        "stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
        "in_channels", "out_channels", "kernel_size",
    )

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            # F.pad's amounts, last dim first, for the non-zeros padding modes
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for i, (d, k) in enumerate(zip(dilation, kernel_size, strict=True)):
                    total = d * (k - 1)
                    at = 2 * (len(kernel_size) - 1 - i)
                    self._reversed_padding_repeated_twice[at] = total // 2
                    self._reversed_padding_repeated_twice[at + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = tuple(
                p for p in reversed(padding) for _ in range(2)
            )
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(_core.empty(*shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(_core.empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default initialisation, drawing as it does: the weight by
        ``kaiming_uniform_(a=sqrt(5))``, then the bias uniform in ``+-1/sqrt(fan_in)``."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    """A convolution layer of ``_spatial`` dims (``Conv1d``, ``Conv2d``, ``Conv3d``)."""

    _spatial = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        n = self._spatial
        super().__init__(
            in_channels, out_channels, _tuple(kernel_size, n), _tuple(stride, n),
            padding if isinstance(padding, str) else _tuple(padding, n), _tuple(dilation, n),
            False, _tuple(0, n), groups, bias, padding_mode, device, dtype,
        )

    def _conv_forward(self, input, weight, bias):
        conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[self._spatial]
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        """The convolution of ``input`` with this layer's weight and bias."""
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over ``(N, C_in, L)``: ``weight`` ``(C_out, C_in/groups, k)``."""

    _spatial = 1


class Conv2d(_Conv):
    """2-D convolution over ``(N, C_in, H, W)``: ``weight`` ``(C_out, C_in/groups, kh, kw)``."""

    _spatial = 2


class Conv3d(_Conv):
    """3-D convolution over ``(N, C_in, D, H, W)``: ``weight``
    ``(C_out, C_in/groups, kd, kh, kw)`` (composed of 2-D convolutions, see ``F.conv3d``)."""

    _spatial = 3


class _ConvTranspose(_ConvNd):
    """A transposed convolution layer (``ConvTranspose1d``, ``2d``, ``3d``)."""

    _spatial = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {type(self).__name__}'
            )
        n = self._spatial
        super().__init__(
            in_channels, out_channels, _tuple(kernel_size, n), _tuple(stride, n),
            _tuple(padding, n), _tuple(dilation, n), True, _tuple(output_padding, n), groups,
            bias, padding_mode, device, dtype,
        )

    def _output_padding(self, input, output_size):
        """The output padding that makes the output ``output_size`` (PyTorch's rule and
        errors), or the configured one."""
        if output_size is None:
            return self.output_padding
        n = self._spatial
        leading = 2 if input.dim() == n + 2 else 1
        if len(output_size) == leading + n:
            output_size = output_size[leading:]
        if len(output_size) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                f"{leading + n} elements (got {len(output_size)})"
            )
        smallest, largest = [], []
        for d in range(n):
            size = ((input.shape[d + leading] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            smallest.append(size)
            largest.append(size + self.stride[d] - 1)
        for d in range(n):
            if not smallest[d] <= output_size[d] <= largest[d]:
                sizes = list(input.shape[leading:])
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{smallest} to {largest} (for an input of torch.Size({sizes}))"
                )
        return tuple(output_size[d] - smallest[d] for d in range(n))

    def forward(self, input, output_size=None):
        """The transposed convolution of ``input`` (its size chosen by ``output_size`` when
        given)."""
        output_padding = self._output_padding(input, output_size)
        conv = getattr(F, f"conv_transpose{self._spatial}d")
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                    self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    """Transposed 1-D convolution: ``weight`` ``(C_in, C_out/groups, k)``."""

    _spatial = 1


class ConvTranspose2d(_ConvTranspose):
    """Transposed 2-D convolution: ``weight`` ``(C_in, C_out/groups, kh, kw)``."""

    _spatial = 2


class ConvTranspose3d(_ConvTranspose):
    """Transposed 3-D convolution: ``weight`` ``(C_in, C_out/groups, kd, kh, kw)`` (the input
    gradient of ``conv3d``, see ``F.conv_transpose3d``)."""

    _spatial = 3


class _LazyConvXdMixin(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` taken from the first input (its
    dim 1, or dim 0 when unbatched), then the weight and bias materialized and initialised as
    the eager layer's."""

    def _make_lazy(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        """The eager layer's initialisation, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        """Materializes the weight (and bias) for ``input``'s channels and initialises them."""
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
        self.weight.materialize(shape)
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched = self._spatial + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def _get_num_spatial_dims(self):
        return self._spatial


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """A ``Conv1d`` whose ``in_channels`` is taken from its first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` is taken from its first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """A ``Conv3d`` whose ``in_channels`` is taken from its first input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A ``ConvTranspose1d`` whose ``in_channels`` is taken from its first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A ``ConvTranspose2d`` whose ``in_channels`` is taken from its first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A ``ConvTranspose3d`` whose ``in_channels`` is taken from its first input."""

    cls_to_become = ConvTranspose3d


__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]
