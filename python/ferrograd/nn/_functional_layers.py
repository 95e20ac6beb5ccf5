"""The layer functions of ``nn.functional`` (re-exported there): ``linear``, ``bilinear``,
``embedding``, ``embedding_bag``, ``pad``, ``one_hot``, ``normalize``, ``cosine_similarity`` and
``pairwise_distance``, ``affine_grid``, with PyTorch's signatures, values, gradients and errors.
They are compositions of core ops, so their ``grad_fn`` names are those of the last core op."""

import warnings

from .. import _core
from .._core import Tensor
from .._grad_mode import no_grad


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``, recorded as PyTorch records it (one ``AddmmBackward0`` for a
    2-D input with a bias)."""
    return _core.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``."""
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {d}: got "
                f"{input1.shape[d]} and {input2.shape[d]}"
            )
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(
            "bilinear(): input1 size does not match weight size: got "
            f"{input1.shape[-1]} but expected {in1}"
        )
    if input2.shape[-1] != in2:
        raise RuntimeError(
            "bilinear(): input2 size does not match weight size: got "
            f"{input2.shape[-1]} but expected {in2}"
        )
    if bias is not None and bias.shape[0] != out_f:
        raise RuntimeError(
            "bilinear(): bias size does not match weight size: got "
            f"{bias.shape[0]} but expected {out_f}"
        )
    lead = tuple(input1.shape[:-1])
    a = input1.reshape(-1, in1)
    b = input2.reshape(-1, in2)
    # (N, I) @ (I, O*J) -> (N, O, J), then contract J against input2
    mixed = a.matmul(weight.permute(1, 0, 2).reshape(in1, out_f * in2))
    out = (mixed.reshape(-1, out_f, in2) * b.unsqueeze(1)).sum(2).reshape(*lead, out_f)
    return out if bias is None else out + bias


def _check_indices(input, num):
    if not isinstance(input, Tensor) or input.dtype not in (_core.int64, _core.int32):
        kind = input.type() if isinstance(input, Tensor) else f"torch.{type(input).__name__}"
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {kind} instead (while checking arguments for embedding)"
        )
    if input.numel() and (int(input.min()) < 0 or int(input.max()) >= num):
        raise IndexError("index out of range in self")


def _embedding_renorm_(weight, flat, max_norm, norm_type):
    """Rescales, in place, each referenced row of ``weight`` whose norm exceeds ``max_norm``."""
    with no_grad():
        for i in sorted(set(flat.tolist())):
            row = weight[i]
            norm = float(row.norm(norm_type))
            if norm > max_norm:
                weight[i] = row * (max_norm / (norm + 1e-7))


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """Rows of ``weight`` at the indices ``input`` (shape ``input.shape + (dim,)``): the row at
    ``padding_idx`` gets no gradient; ``max_norm`` renormalises the rows used, in place;
    ``scale_grad_by_freq`` divides each row's gradient by its count in ``input``."""
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    num = weight.shape[0]
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -num:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = num + padding_idx
    _check_indices(input, num)
    flat = input.reshape(-1)
    if max_norm is not None:
        _embedding_renorm_(weight, flat, max_norm, norm_type)
    return _core._embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, means or maxima of bags of ``weight``'s rows (``EmbeddingBagBackward0``): a 1-D
    ``input`` is cut into bags by ``offsets``, a 2-D one is one bag per row; an empty bag gives
    zeros and ``padding_idx`` is left out of its bag. ``per_sample_weights`` (``mode='sum'``
    only) multiply each index's row."""
    if weight.dtype in (_core.int64, _core.int32) and input.is_floating_point():
        import warnings

        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. "
            "Usage `embedding_bag(weight, input, ...)` is deprecated, "
            "and should now be `embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}"
            )
        offsets = _core.arange(0, input.numel(), input.size(1), dtype=input.dtype)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, {-num} through "
                f"{num - 1}, but got {padding_idx}"
            )
        padding_idx %= num
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for "
            f"argument #1 'per_sample_weights'; but type {weight.type()} does not equal "
            f"{per_sample_weights.type()} (while checking arguments for embedding_bag)"
        )
    if max_norm is not None:
        _check_indices(input, num)
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. "
            "per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    return _core._embedding_bag(
        weight,
        input,
        offsets,
        _BAG_MODES[mode],
        per_sample_weights,
        include_last_offset,
        padding_idx,
        scale_grad_by_freq,
        sparse,
    )


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_constant(input, pad, value):
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        size = out.shape[dim]
        if size + min(left, 0) + min(right, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        if left < 0:
            out = out.narrow(dim, -left, size + left)
            size += left
        if right < 0:
            out = out.narrow(dim, 0, size + right)
        parts = []
        for amount in (left, right):
            if amount > 0:
                shape = list(out.shape)
                shape[dim] = amount
                parts.append(_core.full(shape, value, dtype=input.dtype))
            else:
                parts.append(None)
        pieces = [p for p in (parts[0], out, parts[1]) if p is not None]
        out = _core.cat(pieces, dim) if len(pieces) > 1 else out
    return out.clone() if out is input else out


def _pad_indices(mode, size, left, right, dim, input_shape):
    if mode == "reflect":
        if left >= size or right >= size:
            raise RuntimeError(
                "Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({left}, {right}) at dimension {dim} of input "
                f"{list(input_shape)}"
            )
        return [
            (-j if j < 0 else (2 * (size - 1) - j if j >= size else j))
            for j in range(-left, size + right)
        ]
    if mode == "replicate":
        if size == 0:
            raise RuntimeError(
                f"Expected dimension {dim} of the input to be non-empty to use replicate padding"
            )
        return [min(max(j, 0), size - 1) for j in range(-left, size + right)]
    if left > size or right > size:
        raise RuntimeError("Padding value causes wrapping around more than once.")
    return [j % size for j in range(-left, size + right)]


def pad(input, pad, mode="constant", value=None):
    """Pads the last ``len(pad) // 2`` dims: ``pad = (left_last, right_last, left_prev, ...)``.
    ``constant`` (with ``value``, negative amounts crop), ``reflect``, ``replicate`` or
    ``circular``."""
    pad = list(pad)
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.dim()}"
        )
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant":
        return _pad_constant(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if not (len(pad) in (2, 4, 6) and input.dim() in (len(pad) // 2 + 1, len(pad) // 2 + 2)):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    spatial = len(pad) // 2
    batched = input.dim() == spatial + 2
    if mode in ("reflect", "replicate") and 0 in tuple(input.shape)[int(batched) :]:
        raise RuntimeError(
            f"Expected {spatial + 1}D or {spatial + 2}D (batch mode) tensor with possibly 0 "
            "batch size and other non-zero dimensions for input, but got: "
            f"{list(input.shape)}"
        )
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        index = _pad_indices(
            mode, input.shape[dim], pad[2 * i], pad[2 * i + 1], dim, tuple(input.shape)
        )
        out = out.index_select(dim, _core.tensor(index, dtype=_core.int64))
    return out


def _grid_line(steps, align_corners, dtype):
    """``steps`` points from -1 to 1 (pixel centres unless ``align_corners``: then the end
    pixels' centres are at -1 and 1), as PyTorch's ``linspace_from_neg_one``."""
    if steps <= 1:
        return _core.zeros(steps, dtype=dtype)
    line = _core.linspace(-1, 1, steps, dtype=dtype)
    return line if align_corners else line * (steps - 1) / steps


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` (``(N, 2, 3)`` for a 2-D ``size``
    ``(N, C, H, W)``, ``(N, 3, 4)`` for a 3-D one): each output pixel's normalised coordinates
    ``(x, y[, z], 1)`` times ``theta``, as ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``."""
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
            "See the documentation of grid_sample for details.",
            stacklevel=2,
        )
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(
                "Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                f"{size}. Got {theta.shape}."
            )
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(
                "Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                f"{size}. Got {theta.shape}."
            )
        spatial = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an issue for standard use cases of affine_grid.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n, dims = size[0], len(spatial)
    # the base grid: the last axis holds (x, y[, z], 1), x running along the last dim
    with no_grad():
        base = _core.ones(n, *spatial, dims + 1, dtype=theta.dtype)
        for axis, steps in enumerate(reversed(spatial)):
            shape = [1] * dims
            shape[dims - 1 - axis] = steps
            base[..., axis] = _grid_line(steps, align_corners, theta.dtype).reshape(shape)
    grid = base.reshape(n, -1, dims + 1).bmm(theta.transpose(1, 2))
    return grid.reshape(n, *spatial, dims)


def one_hot(tensor, num_classes=-1):
    """An int64 tensor with a trailing dim of ``num_classes``: 1 at each index, else 0."""
    if not isinstance(tensor, Tensor) or tensor.dtype != _core.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        if int(tensor.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        top = int(tensor.max())
        if num_classes == -1:
            num_classes = top + 1
        elif top >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    classes = _core.arange(num_classes, dtype=_core.int64)
    return (tensor.unsqueeze(-1) == classes).long()


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p over dim, eps)``."""
    denom = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    result = input / denom
    if out is not None:
        out.copy_(result)
        return out
    return result


def _broadcast(x1, x2):
    n = max(x1.dim(), x2.dim())
    s1 = (1,) * (n - x1.dim()) + tuple(x1.shape)
    s2 = (1,) * (n - x2.dim()) + tuple(x2.shape)
    shape = []
    for i, (a, b) in enumerate(zip(s1, s2)):
        if a != b and a != 1 and b != 1:
            raise RuntimeError(
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                f"non-singleton dimension {i}"
            )
        shape.append(b if a == 1 else a)
    return x1.expand(*shape), x2.expand(*shape)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (after broadcasting); each
    norm is clamped to at least ``eps`` (outside the graph, as PyTorch)."""
    x1, x2 = _broadcast(x1, x2)
    n1 = x1.norm(2, dim, keepdim=True).clone()
    n2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dim."""
    dim = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, dim, keepdim=keepdim)


__all__ = [
    "bilinear",
    "cosine_similarity",
    "embedding",
    "embedding_bag",
    "linear",
    "normalize",
    "one_hot",
    "pad",
    "affine_grid",
    "pairwise_distance",
]
