"""The normalization functions of ``nn.functional`` (re-exported there): ``layer_norm``,
``batch_norm``, ``group_norm`` and ``rms_norm``, with PyTorch's signatures, defaults, argument
checks and messages. The maths (and the in-place update of running statistics) is in the core,
one node per call as PyTorch records it."""

from .. import _core


def _shape_arg(fn, shape):
    """``normalized_shape`` as a list of ints, or PyTorch's TypeError for ``fn``."""
    prefix = f"{fn}(): argument 'normalized_shape' (position 2) must be tuple of ints"
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{prefix}, not {type(shape).__name__}")
    for pos, size in enumerate(shape):
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(
                f"{prefix}, but found element of type {type(size).__name__} at pos {pos}"
            )
    return list(shape)


def _verify_batch_size(size):
    """PyTorch's refusal of training statistics over a single value per channel."""
    count = size[0]
    for s in size[2:]:
        count *= s
    if count == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalizes over the trailing ``normalized_shape`` dims (mean 0, biased variance 1), then
    ``* weight + bias`` (``NativeLayerNormBackward0``)."""
    shape = _shape_arg("layer_norm", normalized_shape)
    return _core.layer_norm(input, shape, weight, bias, float(eps))


def batch_norm(
    input,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-5,
):
    """Normalizes each channel (dim 1) over the batch and spatial dims: in training with the
    batch's statistics, updating ``running_mean``/``running_var`` in place (``(1 - momentum) *
    running + momentum * batch``, unbiased variance) when given; otherwise with the running
    statistics (``NativeBatchNormBackward0``)."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if isinstance(momentum, bool) or not isinstance(momentum, (int, float)):
        raise TypeError(
            "batch_norm(): argument 'momentum' (position 7) must be float, not "
            f"{type(momentum).__name__}"
        )
    return _core.batch_norm(
        input, running_mean, running_var, weight, bias, bool(training), float(momentum), float(eps)
    )


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Normalizes each sample's channel over its spatial positions (with ``use_input_stats``;
    else with ``running_mean``/``running_var``), then scales and shifts per channel; given
    running statistics, updates them in place from the samples' statistics. PyTorch's
    composite: one sample of ``N * C`` channels through ``batch_norm``
    (``NativeBatchNormBackward0``)."""
    if use_input_stats:
        spatial = 1
        for s in input.size()[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {input.size()}"
            )
    return _core.instance_norm(
        input,
        running_mean,
        running_var,
        weight,
        bias,
        bool(use_input_stats),
        float(momentum),
        float(eps),
    )


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalizes each sample's channels in ``num_groups`` groups, then ``* weight[c] +
    bias[c]`` per channel (``NativeGroupNormBackward0``)."""
    if isinstance(num_groups, bool) or not isinstance(num_groups, int):
        raise TypeError(
            "group_norm(): argument 'num_groups' (position 2) must be int, not "
            f"{type(num_groups).__name__}"
        )
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups, *input.size()[2:]])
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    return _core.group_norm(input, num_groups, weight, bias, float(eps))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x * rsqrt(mean(x**2) + eps) * weight`` over the trailing ``normalized_shape`` dims;
    ``eps`` defaults to the dtype's machine epsilon. Recorded as PyTorch's composite (``pow``,
    ``mean``, ``add``, ``rsqrt``, ``mul``)."""
    shape = _shape_arg("rms_norm", normalized_shape)
    return _core.rms_norm(input, shape, weight, None if eps is None else float(eps))


__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "rms_norm"]
