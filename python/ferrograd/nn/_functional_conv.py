"""Convolution, pooling and sliding-block functions of ``nn.functional`` (re-exported there),
with PyTorch's signatures, defaults, errors and recorded nodes: the work is one core op each
(``ConvolutionBackward0``, ``MaxPool2DWithIndicesBackward0``, ``AvgPool2DBackward0``,
``AdaptiveAvgPool2DBackward0``, ``AdaptiveMaxPool2DBackward0``, ``Im2ColBackward0``,
``Col2ImBackward0``); unbatched inputs and the 1-D pools go through ``unsqueeze``/``squeeze``
around it, as PyTorch composes them."""

import math
import warnings

from .. import _core
from .._core import Tensor


def _ints(value, n=None):
    """An int or a sequence of ints as a list (``n`` copies of a single int when given)."""
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    if hasattr(value, "__index__"):
        return [int(value)] * (n or 1)
    raise TypeError(f"expected an int or a tuple of ints, got {type(value).__name__}")


def _shape(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _check_batched(input, name, spatial):
    """PyTorch's unbatched-or-batched check of ``conv<N>d``; returns whether it is batched."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({type(input).__name__}, ...)"
        )
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, "
            f"but got input of size: {_shape(input)}"
        )
    return input.dim() == spatial + 2


def _same_padding(input, weight, stride, dilation, spatial):
    """PyTorch's ``padding='same'``: the symmetric part as padding, an odd remainder added on
    the right of the input first (with PyTorch's warning)."""
    strides = _ints(stride, spatial)
    if any(s != 1 for s in strides):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilations = _ints(dilation, spatial)
    if len(dilations) == 1:
        dilations = dilations * spatial
    kernel = list(weight.shape[2:])
    padding, extra = [], []
    for d, k in zip(dilations, kernel, strict=False):
        total = d * (k - 1)
        padding.append(total // 2)
        extra.append(total - 2 * (total // 2))
    if any(extra):
        warnings.warn(
            "Using padding='same' with even kernel lengths and odd dilation may require a "
            "zero-padded copy of the input be created",
            UserWarning,
            stacklevel=4,
        )
        pad = []
        for e in reversed(extra):
            pad += [0, e]
        from .functional import pad as _pad

        input = _pad(input, pad)
    return input, padding


def _conv(name, spatial, input, weight, bias, stride, padding, dilation, groups):
    batched = _check_batched(input, name, spatial)
    x = input if batched else input.unsqueeze(0)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            x, padding = _same_padding(x, weight, stride, dilation, spatial)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    # ints are expanded to the function's dims, as PyTorch's argument parser does (a weight
    # of other dims is then refused naming the parameter)
    out = _core.convolution(
        x, weight, bias, _ints(stride, spatial), _ints(padding, spatial),
        _ints(dilation, spatial), False, [0] * spatial, int(groups),
    )
    return out if batched else out.squeeze(0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of ``(N, C_in, L)`` (or ``(C_in, L)``) with ``weight``
    ``(C_out, C_in / groups, k)`` (``ConvolutionBackward0``); ``padding`` may be ``"same"`` or
    ``"valid"``."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of ``(N, C_in, H, W)`` (or ``(C_in, H, W)``) with ``weight``
    ``(C_out, C_in / groups, kh, kw)`` (``ConvolutionBackward0``); ``padding`` may be
    ``"same"`` or ``"valid"``."""
    out = _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)
    return _in_layout(input, out, weight=weight)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution of ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``) with ``weight``
    ``(C_out, C_in / groups, kd, kh, kw)``; ``padding`` may be ``"same"`` or ``"valid"``.

    Composed of 2-D convolutions, one per kernel depth: the input's depth positions that tap
    kernel depth ``i`` are folded into the batch, convolved with ``weight[:, :, i]``, and the
    ``kd`` results added (PyTorch records one ``ConvolutionBackward0``; the values and
    gradients are the same sums, in another order)."""
    batched = _check_batched(input, "conv3d", 3)
    x = input if batched else input.unsqueeze(0)
    if weight.dim() != 5:
        raise RuntimeError(
            f"Expected 5-dimensional weight for 5-dimensional input {_shape(x)}, but got "
            f"{weight.dim()}-dimensional weight of size {_shape(weight)} instead"
        )
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            x, padding = _same_padding(x, weight, stride, dilation, 3)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    stride, padding, dilation = (
        [v[0]] * 3 if len(v) == 1 else v
        for v in (_ints(stride, 3), _ints(padding, 3), _ints(dilation, 3))
    )
    groups = int(groups)
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_shape(weight)}, expected input"
            f"{_shape(x)} to have {weight.shape[1] * groups} channels, but got {x.shape[1]} "
            "channels instead"
        )
    padded = [x.shape[2 + i] + 2 * padding[i] for i in range(3)]
    reach = [dilation[i] * (weight.shape[2 + i] - 1) + 1 for i in range(3)]
    if any(r > p for r, p in zip(reach, padded, strict=True)):
        raise RuntimeError(
            "Calculated padded input size per channel: ("
            + " x ".join(str(v) for v in padded)
            + "). Kernel size: ("
            + " x ".join(str(v) for v in reach)
            + "). Kernel size can't be greater than actual input size"
        )
    if padding[0]:
        from .functional import pad as _pad

        x = _pad(x, [0, 0, 0, 0, padding[0], padding[0]])
    n, kd = x.shape[0], weight.shape[2]
    depth = (x.shape[2] - reach[0]) // stride[0] + 1
    out = None
    for i in range(kd):
        start = i * dilation[0]
        taps = x[:, :, start : start + stride[0] * (depth - 1) + 1 : stride[0]]
        folded = taps.transpose(1, 2).reshape(n * depth, x.shape[1], x.shape[3], x.shape[4])
        part = conv2d(folded, weight[:, :, i], None, stride[1:], padding[1:], dilation[1:], groups)
        out = part if out is None else out + part
    # depth back beside the channels, in PyTorch's contiguous layout (a view would be
    # non-contiguous, and ``view``/``randn_like`` of the result would differ from PyTorch's)
    out = out.reshape(n, depth, *out.shape[1:]).transpose(1, 2).contiguous()
    if bias is not None:
        out = out + bias.view(1, -1, 1, 1, 1)
    return out if batched else out.squeeze(0)


def _conv_transpose(name, spatial, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    batched = _check_batched(input, name, spatial)
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    x = input if batched else input.unsqueeze(0)
    out = _core.convolution(
        x, weight, bias, _ints(stride, spatial), _ints(padding, spatial),
        _ints(dilation, spatial), True, _ints(output_padding, spatial), int(groups),
    )
    if spatial == 2:
        out = _in_layout(x, out, weight=weight)
    return out if batched else out.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-D convolution (the gradient of ``conv1d`` with respect to its input), with
    ``weight`` ``(C_in, C_out / groups, k)`` (``ConvolutionBackward0``)."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-D convolution (the gradient of ``conv2d`` with respect to its input), with
    ``weight`` ``(C_in, C_out / groups, kh, kw)`` (``ConvolutionBackward0``)."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 3-D convolution, with ``weight`` ``(C_in, C_out / groups, kd, kh, kw)``: the
    gradient of ``conv3d`` (from ``C_out`` to ``C_in`` channels, with this weight) with respect
    to its input, taken at ``input`` and kept in the graph, so ``input``, ``weight`` and
    ``bias`` get gradients (PyTorch records one ``ConvolutionBackward0``; here the same sums
    come from ``conv3d``'s double backward)."""
    from ..autograd import grad

    batched = _check_batched(input, "conv_transpose3d", 3)
    x = input if batched else input.unsqueeze(0)
    stride, padding, dilation, output_padding = (
        [v[0]] * 3 if len(v) == 1 else v
        for v in (_ints(stride, 3), _ints(padding, 3), _ints(dilation, 3),
                  _ints(output_padding, 3))
    )
    groups = int(groups)
    channels = weight.shape[1] * groups
    if x.shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {_shape(weight)}, expected input{_shape(x)} to "
            f"have {weight.shape[0]} channels, but got {x.shape[1]} channels instead"
        )
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != channels):
        raise RuntimeError(
            f"Given transposed=1, weight of size {_shape(weight)}, expected bias to be "
            f"1-dimensional with {channels} elements, but got bias of size {_shape(bias)} instead"
        )
    size = [
        (x.shape[d + 2] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (weight.shape[d + 2] - 1)
        + output_padding[d] + 1
        for d in range(3)
    ]
    from .. import enable_grad

    with enable_grad():
        probe = _core.zeros((x.shape[0], channels, *size), dtype=x.dtype, requires_grad=True)
        out = conv3d(probe, weight, None, stride, padding, dilation, groups)
        (result,) = grad(out, probe, x, create_graph=True)
    if bias is not None:
        result = result + bias.view(1, -1, 1, 1, 1)
    return result if batched else result.squeeze(0)


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution in time-batch-channel layout: ``input`` ``(T, B, C_in)``, ``weight``
    ``(K, C_in, C_out)``, ``bias`` ``(C_out)``, ``pad`` steps of zeros at both ends of time;
    the result is ``(T + 2 pad - K + 1, B, C_out)``. Computed as ``conv1d`` on the permuted
    tensors (PyTorch records ``ConvTbcBackward0``; the sums are the same)."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
        )
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=int(pad))
    return out.permute(2, 0, 1).contiguous()


# ---------------------------------------------------------------------------------------------
# pooling
# ---------------------------------------------------------------------------------------------


def _stride(stride):
    return [] if stride is None else _ints(stride)


def _in_layout(input, *outs, weight=None):
    """The results laid out as PyTorch lays out a pool's or a convolution's result: in the
    channels-last layout when the input's strides suggest it (PyTorch's
    ``suggest_memory_format``, sliced inputs included). The core computes in the standard
    layout, so such results are copied into that layout (only for channels-last inputs; the
    standard path is untouched). A convolution follows its ``weight``'s layout too."""
    if input._suggests_channels_last() or (
        weight is not None and weight.dim() == input.dim() and weight._suggests_channels_last()
    ):
        from .. import channels_last, channels_last_3d

        fmt = channels_last if input.dim() == 4 else channels_last_3d
        outs = tuple(o.contiguous(memory_format=fmt) for o in outs)
    return outs if len(outs) > 1 else outs[0]


def _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode):
    out, indices = _core.max_pool2d_with_indices(
        input, _ints(kernel_size), _stride(stride), _ints(padding), _ints(dilation),
        bool(ceil_mode),
    )
    return _in_layout(input, out, indices)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """The maxima of 2-D windows and their flat indices in each plane
    (``MaxPool2DWithIndicesBackward0``)."""
    return _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window over the last two dims of ``(N, C, H, W)`` or ``(C, H, W)``
    (``MaxPool2DWithIndicesBackward0``); ``stride`` defaults to ``kernel_size``, the padding is
    negative infinity, the first maximum (or a NaN) is taken."""
    out, indices = _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def _single(name, arg, value, allow_none=False):
    """PyTorch's ``check1d``: one int (or a one-element sequence)."""
    if allow_none and value is None:
        return []
    values = _ints(value)
    if len(values) != 1:
        raise RuntimeError(
            f"{name}() argument '{arg}' should contain one int (got {len(values)})"
        )
    return values


def _check_dims_1d(input, name):
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument "
            f"#1 'self' (while checking arguments for {name})"
        )


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """PyTorch's checks of ``max_pool1d`` without indices (its own messages)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{_shape(input)}"
        )
    k, p, d = _ints(kernel_size), _ints(padding), _ints(dilation)
    s = _stride(stride)
    for arg, v, kind in (("kernel_size", k, "an int, list of ints or tuple of ints"),
                         ("stride", s, "None, an int, list of ints, or tuple of ints"),
                         ("padding", p, "an int, list of ints, or tuple of ints"),
                         ("dilation", d, "an int, list of ints or tuple of ints")):
        if len(v) != 1 and not (arg == "stride" and not v):
            raise RuntimeError(
                f"max_pool1d() {arg} must be {kind} of size 1 but got size {len(v)}"
            )
    k, p, d = k[0], p[0], d[0]
    s = s[0] if s else k
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(
            "max_pool1d() padding should be at most half of kernel size, but got "
            f"padding={p} and kernel_size={k}"
        )
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    size = input.shape[-1] + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = size // s + 1
    if ceil_mode and (out - 1) * s >= input.shape[-1] + p:
        out -= 1
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window over the last dim of ``(N, C, L)`` or ``(C, L)``: a 2-D max
    pool of height 1 (``SqueezeBackward1`` of ``MaxPool2DWithIndicesBackward0``, as
    PyTorch)."""
    if return_indices:
        _check_dims_1d(input, "max_pool1d")
    else:
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    k = _single("max_pool1d", "kernel_size", kernel_size)
    s = _single("max_pool1d", "stride", stride, allow_none=True) or k
    p = _single("max_pool1d", "padding", padding)
    d = _single("max_pool1d", "dilation", dilation)
    out, indices = _core.max_pool2d_with_indices(
        input.unsqueeze(-2), [1, k[0]], [1, s[0]], [0, p[0]], [1, d[0]], bool(ceil_mode)
    )
    out = out.squeeze(-2)
    return (out, indices.squeeze(-2)) if return_indices else out


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool1d`` with its indices."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window over the last two dims (``AvgPool2DBackward0``), zero padding
    counted in the divisor with ``count_include_pad``, or ``divisor_override`` as divisor."""
    divisor = None if divisor_override is None else int(divisor_override)
    out = _core.avg_pool2d(
        input, _ints(kernel_size), _stride(stride), _ints(padding), bool(ceil_mode),
        bool(count_include_pad), divisor,
    )
    return _in_layout(input, out)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """The mean of each window over the last dim: a 2-D average pool of height 1, as
    PyTorch."""
    _check_dims_1d(input, "avg_pool1d")
    k = _single("avg_pool1d", "kernel_size", kernel_size)
    s = _single("avg_pool1d", "stride", stride, allow_none=True) or k
    p = _single("avg_pool1d", "padding", padding)
    out = _core.avg_pool2d(
        input.unsqueeze(-2), [1, k[0]], [1, s[0]], [0, p[0]], bool(ceil_mode),
        bool(count_include_pad), None,
    )
    return out.squeeze(-2)


def _output_pair(output_size, input):
    """An adaptive pool's 2-D output size: an int for both, ``None`` keeps the input's."""
    if isinstance(output_size, (list, tuple)):
        sizes = list(output_size)
    else:
        sizes = [output_size, output_size]
    if len(sizes) != 2:
        return [int(s) if s is not None else 0 for s in sizes]
    return [int(input.shape[i - 2]) if s is None else int(s) for i, s in enumerate(sizes)]


def adaptive_avg_pool2d(input, output_size):
    """Means over the adaptive windows ``[floor(i*I/O), ceil((i+1)*I/O))`` that split the last
    two dims into ``output_size`` (``AdaptiveAvgPool2DBackward0``; ``(1, 1)`` is a mean over
    both dims, ``MeanBackward1``, as PyTorch computes it)."""
    size = _output_pair(output_size, input)
    if len(size) == 2 and size[0] >= 0 and size[1] >= 0 and size == [1, 1]:
        return _in_layout(input, input.mean((-1, -2), keepdim=True))
    return _in_layout(input, _core.adaptive_avg_pool2d(input, size))


def adaptive_avg_pool1d(input, output_size):
    """Means over the adaptive windows of the last dim (a 2-D adaptive pool of height 1)."""
    _check_dims_1d(input, "adaptive_avg_pool1d")
    size = _single("adaptive_avg_pool1d", "output_size", output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), [1, size[0]]).squeeze(-2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Maxima over the adaptive windows of the last two dims and their flat indices
    (``AdaptiveMaxPool2DBackward0``)."""
    out, indices = _core.adaptive_max_pool2d(input, _output_pair(output_size, input))
    out, indices = _in_layout(input, out, indices)
    return (out, indices) if return_indices else out


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` with its indices."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Maxima over the adaptive windows of the last dim (a 2-D adaptive pool of height 1)."""
    _check_dims_1d(input, "adaptive_max_pool1d")
    size = _single("adaptive_max_pool1d", "output_size", output_size)
    out, indices = _core.adaptive_max_pool2d(input.unsqueeze(-2), [1, size[0]])
    out = out.squeeze(-2)
    return (out, indices.squeeze(-2)) if return_indices else out


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool1d`` with its indices."""
    return adaptive_max_pool1d(input, output_size, True)


# Note [3-D pooling, one axis after the others]
# A maximum (or a sum) over a box of depth x height x width is the maximum (sum) over depth of
# the maxima (sums) over each height x width window; windows, padding, dilation and ceil_mode
# are per axis, and so is the average's divisor (the product of the per-axis counts, padded or
# not, that PyTorch's 3-D kernels multiply). So the 3-D pools are two calls of the core's 2-D
# pools: first over (H, W) with the depth folded into the channels, then over depth with the
# (H', W') positions laid in a row. The maxima's indices are recombined into PyTorch's flat
# D*H*W positions: for a NaN or a tie each pass picks what PyTorch's single pass picks (the
# first maximum in (d, h, w) order, the last NaN). PyTorch records one node
# (MaxPool3DWithIndicesBackward0, AvgPool3DBackward0); here the graph is the two 2-D nodes.


def _triple(message, value, default=None):
    if value is None or (isinstance(value, (list, tuple)) and len(value) == 0 and default):
        return list(default)
    values = _ints(value)
    if len(values) == 1:
        values = values * 3
    if len(values) != 3:
        raise RuntimeError(message)
    return values


def _pool3d_args(op, input, kernel_size, stride, padding, dilation=1, ceil_mode=False):
    """The 3-D pools' settings as three ints each, checked as PyTorch checks them (its
    messages), with the output size."""
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    either = "either " if op == "max_pool3d" else ""
    k = _triple(f"{op}: kernel_size must {either}be a single int, or a tuple of three ints",
                kernel_size)
    st = _triple(f"{op}: stride must either be omitted, a single int, or a tuple of three ints",
                 stride, k)
    p = _triple(f"{op}: padding must {either}be a single int, or a tuple of three ints", padding)
    d = _triple(f"{op}: dilation must be either a single int, or a tuple of three ints", dilation)
    if any(v == 0 for v in st):
        raise RuntimeError("stride should not be zero")
    if any(v <= 0 for v in k):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}"
        )
    if any(v < 0 for v in st):
        raise RuntimeError(
            f"stride should be greater than zero, but got dT: {st[0]} dH: {st[1]} dW: {st[2]}"
        )
    if any(v <= 0 for v in d):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: "
            f"{d[1]} dilationW: {d[2]}"
        )
    for pi, ki, di in zip(p, k, d):
        if pi > ((ki - 1) * di + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={pi}, kernel_size={ki} and dilation={di}"
            )
    sizes = list(input.shape[-3:])
    out = []
    for n, ki, si, pi, di in zip(sizes, k, st, p, d):
        o = (n + 2 * pi - di * (ki - 1) - 1 + (si - 1 if ceil_mode else 0)) // si + 1
        if ceil_mode and (o - 1) * si >= n + pi:
            o -= 1
        out.append(o)
    if min(out) < 1:
        planes = input.shape[-4]
        if op == "avg_pool3d":
            raise RuntimeError(
                f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller than kernel "
                f"size (kT: {k[0]} kH: {k[1]} kW: {k[2]})"
            )
        raise RuntimeError(
            f"Given input size: ({planes}x{sizes[0]}x{sizes[1]}x{sizes[2]}). Calculated output "
            f"size: ({planes}x{out[0]}x{out[1]}x{out[2]}). Output size is too small"
        )
    return k, st, p, d


def _fold_depth(input):
    """``(N, C, D, H, W)`` (or unbatched) as ``(N, C*D, H, W)``, and how to unfold it."""
    batched = input.dim() == 5
    x = input if batched else input.unsqueeze(0)
    n, c, depth = x.shape[:3]
    return x.reshape(n, c * depth, *x.shape[3:]), (batched, n, c, depth)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """The maxima of 3-D windows of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) and their flat
    ``D*H*W`` indices: a 2-D pool over (H, W), then over depth (Note [3-D pooling, one axis
    after the others])."""
    k, s, p, d = _pool3d_args("max_pool3d", input, kernel_size, stride, padding, dilation,
                              ceil_mode)
    folded, (batched, n, c, depth) = _fold_depth(input)
    plane = folded.shape[2] * folded.shape[3]
    y1, i1 = _core.max_pool2d_with_indices(folded, k[1:], s[1:], p[1:], d[1:], bool(ceil_mode))
    oh, ow = y1.shape[2], y1.shape[3]
    rows = y1.reshape(n, c, depth, oh * ow)
    y2, i2 = _core.max_pool2d_with_indices(
        rows, [k[0], 1], [s[0], 1], [p[0], 0], [d[0], 1], bool(ceil_mode)
    )
    od = y2.shape[2]
    which = i2 // (oh * ow)  # the depth each maximum came from
    within = i1.reshape(n, c, depth, oh * ow).gather(2, which)
    indices = (which * plane + within).reshape(n, c, od, oh, ow)
    out, indices = _in_layout(input, y2.reshape(n, c, od, oh, ow), indices)
    if not batched:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return out, indices


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window over the last three dims of ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``; ``stride`` defaults to ``kernel_size``, the padding is negative
    infinity (Note [3-D pooling, one axis after the others])."""
    out, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                           ceil_mode)
    return (out, indices) if return_indices else out


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window over the last three dims, zero padding counted in the divisor
    with ``count_include_pad``, or ``divisor_override`` as divisor (Note [3-D pooling, one axis
    after the others]: the per-axis divisors multiply to PyTorch's)."""
    k, s, p, _ = _pool3d_args("avg_pool3d", input, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    folded, (batched, n, c, depth) = _fold_depth(input)
    per_axis = None if divisor_override is None else 1
    y1 = _core.avg_pool2d(folded, k[1:], s[1:], p[1:], bool(ceil_mode),
                          bool(count_include_pad), per_axis)
    oh, ow = y1.shape[2], y1.shape[3]
    y2 = _core.avg_pool2d(y1.reshape(n, c, depth, oh * ow), [k[0], 1], [s[0], 1], [p[0], 0],
                          bool(ceil_mode), bool(count_include_pad), per_axis)
    if divisor_override is not None:
        y2 = y2 / int(divisor_override)
    out = y2.reshape(n, c, y2.shape[2], oh, ow)
    return out if batched else out.squeeze(0)


def _output_triple(output_size, input):
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * 3
    if len(sizes) != 3:
        raise RuntimeError(f"adaptive pool 3d: output_size must be 3, but got {len(sizes)}")
    return [int(input.shape[i - 3]) if v is None else int(v) for i, v in enumerate(sizes)]


def adaptive_avg_pool3d(input, output_size):
    """Means over the adaptive windows that split the last three dims into ``output_size``
    (Note [3-D pooling, one axis after the others]; ``(1, 1, 1)`` is a mean over the three)."""
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}"
        )
    size = _output_triple(output_size, input)
    if size == [1, 1, 1]:
        return _in_layout(input, input.mean((-1, -2, -3), keepdim=True))
    folded, (batched, n, c, depth) = _fold_depth(input)
    y1 = _core.adaptive_avg_pool2d(folded, size[1:])
    oh, ow = size[1], size[2]
    y2 = _core.adaptive_avg_pool2d(y1.reshape(n, c, depth, oh * ow), [size[0], oh * ow])
    out = y2.reshape(n, c, size[0], oh, ow)
    return out if batched else out.squeeze(0)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Maxima over the adaptive windows of the last three dims and their flat ``D*H*W``
    indices (Note [3-D pooling, one axis after the others])."""
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}"
        )
    size = _output_triple(output_size, input)
    folded, (batched, n, c, depth) = _fold_depth(input)
    plane = folded.shape[2] * folded.shape[3]
    y1, i1 = _core.adaptive_max_pool2d(folded, size[1:])
    oh, ow = size[1], size[2]
    y2, i2 = _core.adaptive_max_pool2d(y1.reshape(n, c, depth, oh * ow), [size[0], oh * ow])
    which = i2 // (oh * ow)
    within = i1.reshape(n, c, depth, oh * ow).gather(2, which)
    indices = (which * plane + within).reshape(n, c, size[0], oh, ow)
    out = y2.reshape(n, c, size[0], oh, ow)
    if not batched:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return (out, indices) if return_indices else out


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool3d`` with its indices."""
    return adaptive_max_pool3d(input, output_size, True)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """The unpooled spatial size: the pool's input size by default, or ``output_size`` when
    it lies strictly within a stride of that (PyTorch's rule and messages)."""
    spatial = len(kernel_size)
    default = [
        (input.shape[d - spatial] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
        for d in range(spatial)
    ]
    if output_size is None:
        return default
    if len(output_size) == spatial + 2:
        output_size = output_size[2:]
    if len(output_size) != spatial:
        raise ValueError(
            f"output_size should be a sequence containing {spatial} or {spatial + 2} elements, "
            f"but it has a length of '{len(output_size)}'"
        )
    for d in range(spatial):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(
                f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})'
            )
    return [int(v) for v in output_size]


def _max_unpool(name, input, indices, size):
    """Each value of ``input`` written at its flat index (``indices``, as a max pool gave
    them) in a zero plane of ``size``: a scatter into zeros, whose gradient gathers the output's
    gradient back from those positions (PyTorch records ``MaxUnpool{2,3}DBackward0``)."""
    spatial = len(size)
    if indices.dtype != _core.int64:
        raise RuntimeError(
            f"elements in indices should be type int64 but got: {_scalar_name(indices.dtype)}"
        )
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"Input to {name} should be a {spatial + 1}d or {spatial + 2}d Tensor, but got a "
            f"tensor with {input.dim()} dimensions."
        )
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({_shape(input)}) but got indices tensor with shape: {_shape(indices)}"
        )
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(
                f"{name}_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                f"dimensions, but got {_shape(input)} with dimension {d} being empty."
            )
    batched = input.dim() == spatial + 2
    x = input if batched else input.unsqueeze(0)
    idx = indices if batched else indices.unsqueeze(0)
    n, c = x.shape[0], x.shape[1]
    plane = 1
    for v in size:
        plane *= v
    positions = 1
    for v in x.shape[2:]:
        positions *= v
    flat = idx.reshape(n, c, positions)
    if flat.numel() and (int(flat.min()) < 0 or int(flat.max()) >= plane):
        bad = next(v for v in flat.reshape(-1).tolist() if not 0 <= v < plane)
        volumes = "x".join(str(v) for v in size)
        raise RuntimeError(
            f"Found an invalid max index: {bad} (output volumes are of size {volumes})"
        )
    zeros = _core.zeros((n, c, plane), dtype=x.dtype)
    out = zeros.scatter(2, flat, x.reshape(n, c, positions)).reshape(n, c, *size)
    out = _in_layout(x, out)
    return out if batched else out.squeeze(0)


def _scalar_name(dtype):
    return {"int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
            "float32": "Float", "float64": "Double"}.get(str(dtype).split(".")[-1], str(dtype))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d``: each value put back where its maximum was, zeros
    elsewhere (computed as a 2-D unpool of width 1, as PyTorch)."""
    k = _ints(kernel_size)[:1]
    st = _ints(stride)[:1] if stride is not None else k
    p = _ints(padding)[:1]
    size = [*_unpool_output_size(input, k, st, p, output_size), 1]
    return _max_unpool("max_unpooling2d", input.unsqueeze(-1), indices.unsqueeze(-1),
                       size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``: each value put back at its flat index in a zero
    plane (``output_size`` picks among the sizes the pool could have come from)."""
    k = _pair_of(kernel_size)
    st = _pair_of(stride) if stride is not None else k
    size = _unpool_output_size(input, k, st, _pair_of(padding), output_size)
    return _max_unpool("max_unpooling2d", input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool3d``: each value put back at its flat ``D*H*W`` index
    in a zero volume."""
    k = _triple("max_unpool3d: kernel_size must be a single int, or a tuple of three ints",
                kernel_size)
    st = _triple("max_unpool3d: stride must be a single int, or a tuple of three ints", stride, k)
    p = _triple("max_unpool3d: padding must be a single int, or a tuple of three ints", padding)
    size = _unpool_output_size(input, k, st, p, output_size)
    return _max_unpool("max_unpooling3d", input, indices, size)


def _pair_of(value):
    values = _ints(value)
    return values * 2 if len(values) == 1 else values


# ---------------------------------------------------------------------------------------------
# sliding blocks
# ---------------------------------------------------------------------------------------------


def _pair(value, name):
    """An int or a pair for im2col/col2im (PyTorch's message for another length)."""
    values = _ints(value)
    values = values * 2 if len(values) == 1 and not isinstance(value, (list, tuple)) else values
    if len(values) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    return values


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding ``kernel_size`` blocks of ``(N, C, H, W)`` (or ``(C, H, W)``) as columns
    ``(N, C*kh*kw, L)`` (im2col, ``Im2ColBackward0``)."""
    if input.dim() < 3:
        d = max(input.dim(), 1)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-d}, {d - 1}], but got 2)"
        )
    return _core.im2col(input, _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation"),
                        _pair(padding, "padding"), _pair(stride, "stride"))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums columns ``(N, C*kh*kw, L)`` (or ``(C*kh*kw, L)``) back into images of
    ``output_size``, overlaps added (col2im, ``Col2ImBackward0``): the adjoint of
    ``unfold``."""
    return _core.col2im(input, _pair(output_size, "output_size"),
                        _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation"),
                        _pair(padding, "padding"), _pair(stride, "stride"))


# ---------------------------------------------------------------------------------------------
# resampling
# ---------------------------------------------------------------------------------------------

_INTERPOLATING = "linear | bilinear | bicubic | trilinear"
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
# the modes and input dims each kernel serves
_RESAMPLE = {("nearest", 3), ("nearest", 4), ("nearest", 5), ("nearest-exact", 3),
             ("nearest-exact", 4), ("nearest-exact", 5), ("linear", 3), ("bilinear", 4),
             ("bicubic", 4), ("trilinear", 5)}
# the input dims PyTorch's interpolating modes need
_MODE_DIMS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the spatial dims of ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)`` to
    ``size`` or by ``scale_factor``: ``nearest``, ``nearest-exact``, ``linear`` (3-D),
    ``bilinear`` and ``bicubic`` (4-D, ``align_corners``, ``antialias``), ``trilinear`` (5-D),
    ``area`` (an adaptive average pool),
    with PyTorch's source-index rules (``UpsampleNearest2DBackward0``,
    ``UpsampleBicubic2DBackward0``, ...); a channels-last input gives a channels-last result."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                + _INTERPOLATING
            )
    elif align_corners is None:
        align_corners = False
    dims = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales = None
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dims:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                    "size in (o1, o2, ...,oK) format."
                )
            output_size = [int(s) for s in size]
        else:
            output_size = [int(size)] * dims
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dims:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {spatial} and scale_factor of "
                    f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    "format and scale_factor in (s1, s2, ...,sK) format."
                )
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dims
        output_size = None
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(float(spatial[i]) * scales[i]) for i in range(dims)]
        scales = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if output_size is None:
        # PyTorch's compute_output_size: the input size times the factor, rounded down
        output_size = [math.floor(spatial[i] * scales[i]) for i in range(dims)]
    if (mode, input.dim()) in _RESAMPLE:
        out = _core.upsample(input, output_size, mode, bool(align_corners), scales,
                             bool(antialias))
        return _in_layout(input, out)
    if mode == "area" and input.dim() in (3, 4, 5):
        pool = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}
        return pool[input.dim()](input, output_size)
    if mode in _MODE_DIMS and input.dim() in (3, 4, 5):
        raise NotImplementedError(
            f"Got {input.dim()}D input, but {mode} mode needs {_MODE_DIMS[mode]}D input"
            if input.dim() != _MODE_DIMS[mode]
            else f"ferrograd's interpolate has no {mode} mode for {input.dim()}D input"
        )
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
        f"modes: {_MODES} (got {mode})"
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate`` (with PyTorch's warning)."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated ``interpolate(..., mode='nearest')`` (with PyTorch's warning)."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` "
        "instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated ``interpolate(..., mode='bilinear', align_corners=True)`` (with PyTorch's
    warning)."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` "
        "instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "conv_tbc",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "avg_pool3d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "fold",
    "interpolate",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "unfold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]
