"""``nn.functional``: activations, dropout and losses as functions of tensors (the layer
functions come from ``_functional_layers``). The maths is in the core; these functions parse
PyTorch's arguments (``inplace=``, ``reduction=``, the legacy ``size_average``/``reduce``) and
compose the losses PyTorch itself composes, in its order, so ``grad_fn`` names agree."""

import warnings

from .. import _core
from .._core import Tensor
from ._functional_attention import multi_head_attention_forward, scaled_dot_product_attention
from ._functional_conv import *  # noqa: F403
from ._functional_conv import __all__ as _conv_names
from ._functional_conv import _in_layout
from ._functional_layers import *  # noqa: F403
from ._functional_layers import __all__ as _layer_names
from ._functional_layers import pairwise_distance
from ._functional_margin import *  # noqa: F403
from ._functional_margin import __all__ as _margin_names
from ._functional_norm import *  # noqa: F403
from ._functional_norm import __all__ as _norm_names
from ._reduction import _apply_reduction, _check_reduction, _reduction

tanh = Tensor.tanh
sigmoid = Tensor.sigmoid
logsigmoid = _core.logsigmoid


def pixel_shuffle(input, upscale_factor):
    """``(*, C·r², H, W)`` to ``(*, C, H·r, W·r)`` (channels-last input: channels-last
    result, as PyTorch's)."""
    out = _core.pixel_shuffle(input, upscale_factor)
    return _in_layout(input, out) if input.dim() == 4 else out


def pixel_unshuffle(input, downscale_factor):
    """``pixel_shuffle``'s inverse, ``(*, C, H·r, W·r)`` to ``(*, C·r², H, W)``."""
    out = _core.pixel_unshuffle(input, downscale_factor)
    return _in_layout(input, out) if input.dim() == 4 else out


def _inplace(input, activation, inplace):
    """``activation(input)``, or, when ``inplace``, ``input`` with it written into it. Where
    autograd records, the activation runs on a copy of ``input``: what its backward saves must
    not be the tensor the write then changes (PyTorch's in-place kernels save their result or
    a copy of the input instead). Recorded as a copy, where PyTorch records the activation's
    own node."""
    if not inplace:
        return activation(input)
    recording = input.requires_grad and _core.is_grad_enabled()
    input.copy_(activation(input.clone() if recording else input))
    return input


def threshold(input, threshold, value, inplace=False):
    """``x`` where ``x > threshold``, else ``value`` (``ThresholdBackward0``; in place
    ``ThresholdBackward1``)."""
    if inplace:
        return _core.threshold_(input, threshold, value)
    return _core.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """``threshold`` in place (``ThresholdBackward1``); returns ``input``."""
    return _core.threshold_(input, threshold, value)


def relu(input, inplace=False):
    """``max(x, 0)`` (``ReluBackward0``)."""
    return input.relu_() if inplace else input.relu()


def relu6(input, inplace=False):
    """``min(max(x, 0), 6)``: ``hardtanh(x, 0, 6)`` as in PyTorch (``HardtanhBackward0``)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``x`` clamped to ``[min_val, max_val]`` (``HardtanhBackward0``)."""
    return _inplace(input, lambda x: _core.hardtanh(x, float(min_val), float(max_val)), inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` above 0, ``negative_slope·x`` below (``LeakyReluBackward0``)."""
    return _inplace(input, lambda x: x.leaky_relu(negative_slope), inplace)


def leaky_relu_(input, negative_slope=0.01):
    """``leaky_relu`` in place; returns ``input``."""
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input, alpha=1.0, inplace=False):
    """``x`` above 0, ``alpha(e^x - 1)`` below (``EluBackward0``)."""
    return _inplace(input, lambda x: x.elu(alpha), inplace)


def selu(input, inplace=False):
    """Scaled ELU with PyTorch's constants (``EluBackward0``)."""
    return _inplace(input, _core.selu, inplace)


def celu(input, alpha=1.0, inplace=False):
    """``x`` above 0, ``alpha(e^(x/alpha) - 1)`` below (``CeluBackward0``)."""
    return _inplace(input, lambda x: _core.celu(x, float(alpha)), inplace)


def gelu(input, approximate="none"):
    """``x·Phi(x)``, or its tanh approximation (``GeluBackward0``)."""
    return input.gelu(approximate)


def silu(input, inplace=False):
    """``x·sigmoid(x)`` (``SiluBackward0``)."""
    return _inplace(input, Tensor.silu, inplace)


def mish(input, inplace=False):
    """``x·tanh(softplus(x))`` (``MishBackward0``)."""
    return _inplace(input, _core.mish, inplace)


def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6`` (``HardsigmoidBackward0``)."""
    return _inplace(input, _core.hardsigmoid, inplace)


def hardswish(input, inplace=False):
    """``x·relu6(x + 3) / 6`` (``HardswishBackward0``)."""
    return _inplace(input, _core.hardswish, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + e^(betax))/beta``, linear above ``threshold`` (``SoftplusBackward0``)."""
    return input.softplus(beta, threshold)


def hardshrink(input, lambd=0.5):
    """``x`` outside ``[-lambd, lambd]``, 0 inside (``HardshrinkBackward0``)."""
    return _core.hardshrink(input, float(lambd))


def softshrink(input, lambd=0.5):
    """``x`` moved ``lambd`` towards 0, and 0 inside ``[-lambd, lambd]``
    (``SoftshrinkBackward0``)."""
    return _core.softshrink(input, float(lambd))


def tanhshrink(input):
    """``x - tanh(x)`` (composed, as PyTorch: ``SubBackward0``)."""
    return input - input.tanh()


def glu(input, dim=-1):
    """The gated linear unit ``a * sigmoid(b)`` of ``input``'s two halves along ``dim``
    (``GluBackward0``)."""
    return _core.glu(input, dim)


def prelu(input, weight):
    """``x`` above 0, ``weight * x`` below, one slope or one per channel (dim 1)
    (``PreluKernelBackward0``)."""
    return _core.prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with random slopes drawn from ``[lower, upper)`` per element in training,
    their mean ``(lower + upper) / 2`` otherwise (``RreluWithNoiseBackward0``)."""
    return _inplace(input, lambda x: _core.rrelu(x, float(lower), float(upper), training),
                    inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """``rrelu`` in place; returns ``input``."""
    return rrelu(input, lower, upper, training, inplace=True)


def softsign(input):
    """``x / (1 + |x|)`` (composed, as PyTorch: ``DivBackward0``)."""
    return input / (input.abs() + 1)


def _softmax_dim(name, ndim):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x)/Σexp(x)`` along ``dim`` (``SoftmaxBackward0``)."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    if dtype is not None:
        input = input.to(dtype)
    return input.softmax(dim)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)`` along ``dim``."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    if dtype is not None:
        input = input.to(dtype)
    return (-input).softmax(dim)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution of ``logits``: ``softmax((logits + g) /
    tau)`` with Gumbel noise ``g = -log(Exp(1))``; ``hard`` gives the one-hot of its largest
    entry, with the soft sample's gradient (the straight-through estimator)."""
    gumbels = -_core.zeros_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _core.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``x - log Σexp(x)`` along ``dim`` (``LogSoftmaxBackward0``)."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    if dtype is not None:
        input = input.to(dtype)
    return input.log_softmax(dim)


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the rest by ``1/(1-p)``, drawing
    the mask as PyTorch's CPU kernel does (so after ``manual_seed`` the masks agree); the
    input itself when not ``training``."""
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        noise = _core.zeros((), dtype=input.dtype)
    else:
        noise = _core.empty(*input.shape, dtype=input.dtype).bernoulli_(1.0 - p)
        noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise


def _feature_dropout(input, p, training, inplace, feature_dims, name):
    _check_p(p)
    if input.dim() not in feature_dims:
        raise RuntimeError(
            f"{name}: Expected {feature_dims[0]}D or {feature_dims[1]}D input, "
            f"but received a {input.dim()}D input."
        )
    batched = input.dim() == feature_dims[1]
    return _channel_dropout(input, p, training, inplace, 2 if batched else 1)


def _channel_dropout(input, p, training, inplace, lead):
    """Zeroes whole slices ``input[i, j]`` (``lead`` 2) or ``input[i]`` (``lead`` 1), the
    survivors scaled by ``1 / (1 - p)``: one Bernoulli draw per slice."""
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if input.dim() < lead:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = list(input.shape[:lead]) + [1] * (input.dim() - lead)
    if p == 1.0:
        noise = _core.zeros(*shape, dtype=input.dtype)
    else:
        noise = _core.empty(*shape, dtype=input.dtype).bernoulli_(1.0 - p)
        noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of a ``(N, C, L)`` or ``(C, L)`` input."""
    return _feature_dropout(input, p, training, inplace, (2, 3), "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an ``(N, C, H, W)`` input. As PyTorch's: a 3-D input is taken
    as ``(N, C, L)`` (with a warning), any other rank warns that it is deprecated and is
    dropped by its first two dimensions (at least 2 needed)."""
    _check_p(p)
    if input.dim() not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior and "
            "silence this warning, please use dropout instead. Note that dropout2d exists to "
            "provide channel-wise dropout on inputs with 2 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.dim() == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _channel_dropout(input, p, training, inplace, 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input (any other
    rank warns that it is deprecated, as PyTorch's, and is taken as unbatched). As PyTorch, an
    unbatched input is dropped as a batch of one (``unsqueeze(0)``, then ``squeeze(0)``: the
    result's node is ``SqueezeBackward1``); in place, ferrograd drops it by channel directly
    (the same draws and values, the node ``MulBackward0`` where PyTorch has
    ``SqueezeBackward4``)."""
    _check_p(p)
    if input.dim() not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior and "
            "silence this warning, please use dropout instead. Note that dropout3d exists to "
            "provide channel-wise dropout on inputs with 3 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if input.dim() == 5:
        return _channel_dropout(input, p, training, inplace, 2)
    if inplace and input.dim() > 0:
        return _channel_dropout(input, p, training, True, 1)
    return _channel_dropout(input.unsqueeze(0), p, training, False, 2).squeeze(0)


# SELU's negative saturation value -scale * alpha, which alpha dropout sets dropped units to
_SELU_SATURATION = 1.7580993408473766


def _alpha_dropout(input, p, training, inplace, feature):
    """PyTorch's alpha dropout (``feature``: one draw per ``input[i, j]`` slice): a Bernoulli
    mask ``m`` of keep probability ``1 - p`` (drawn as ``bernoulli_`` on a tensor of the
    input's shape, or of shape ``(N, C, 1, ...)``), then ``input * (a * m) + b`` with
    ``a = 1 / sqrt((alpha^2 p + 1)(1 - p))`` and ``b = (m - 1) * alpha * a + alpha * a * p``,
    which keeps zero mean and unit variance (``MulBackward0`` then ``AddBackward0``)."""
    _check_p(p)
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if p == 1.0:
        zero = _core.zeros((), dtype=input.dtype)
        return input.mul_(zero) if inplace else input * zero
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    else:
        shape = list(input.shape)
    noise = _core.empty(*shape, dtype=input.dtype).bernoulli_(1.0 - p)
    alpha = _SELU_SATURATION
    a = 1.0 / ((alpha * alpha * p + 1) * (1 - p)) ** 0.5
    b = noise.add(-1).mul_(alpha * a).add_(alpha * a * p)
    noise.mul_(a)
    out = input.mul_(noise) if inplace else input * noise
    return out.add_(b)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout (for SELU networks): each element dropped with probability ``p`` is set
    to SELU's saturation value and the result scaled and shifted to keep the input's mean and
    variance; the input itself when not ``training`` (the default here, as PyTorch's)."""
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels: each ``input[i, j]`` is dropped (set to SELU's
    saturation value) with probability ``p``, then everything scaled and shifted as in
    ``alpha_dropout``; needs at least 2 dimensions when it draws."""
    return _alpha_dropout(input, p, training, inplace, True)


# ----- losses ---------------------------------------------------------------------------------


def _warn_broadcast(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape!r}) that is different to the input size "
            f"({input.shape!r}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _weighted_reduction(loss, weight, reduction):
    """PyTorch's weighted ``l1_loss``/``mse_loss``: each element's loss times its weight,
    the mean being the weighted mean (divided by the weights' sum)."""
    if weight.size() != loss.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    _check_reduction(reduction)
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    return _apply_reduction(weighted, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (``MseLossBackward0``)."""
    reduction = _reduction(size_average, reduce, reduction)
    _warn_broadcast(input, target)
    if weight is not None:
        return _weighted_reduction((input - target) ** 2, weight, reduction)
    return _core.mse_loss(input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error (composed, as PyTorch: ``MeanBackward0``)."""
    reduction = _reduction(size_average, reduce, reduction)
    _warn_broadcast(input, target)
    loss = (input - target).abs()
    if weight is not None:
        return _weighted_reduction(loss, weight, reduction)
    return _apply_reduction(loss, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Smooth L1 loss (``SmoothL1LossBackward0``; the L1 loss when ``beta == 0``)."""
    reduction = _reduction(size_average, reduce, reduction)
    _warn_broadcast(input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    return _core.smooth_l1_loss(input, target, reduction, float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Huber loss (``HuberLossBackward0``)."""
    _warn_broadcast(input, target)
    if weight is not None:
        return _apply_reduction(
            _core.huber_loss(input, target, "none", float(delta)) * weight, reduction
        )
    return _core.huber_loss(input, target, reduction, float(delta))


def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
):
    """Negative log-likelihood of class indices under log-probabilities (``NllLossBackward0``)."""
    reduction = _reduction(size_average, reduce, reduction)
    return _core.nll_loss(input, target, weight, reduction, ignore_index)


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    """Cross-entropy of logits against class indices (``NllLossBackward0`` over
    ``log_softmax``) or class probabilities, with optional label smoothing, as PyTorch
    composes it."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    logp = input.log_softmax(class_dim)
    classes = input.shape[class_dim]
    if tuple(input.shape) == tuple(target.shape):  # PyTorch tells probabilities by the shape
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, "
                f"got {str(target.dtype).replace('torch.', '').capitalize()}"
            )
        return _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing)
    nll = _core.nll_loss(logp, target, weight, reduction, ignore_index)
    if label_smoothing == 0.0:
        return nll
    # PyTorch's label smoothing: (1 - eps)·nll + eps/C · (-Σ_c w_c·log p_c), ignored rows excluded
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = classes
        smooth = -(logp * weight.reshape(shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            picked = weight.index_select(0, target.masked_fill(ignored, 0).reshape(-1))
            denominator = picked.masked_fill(ignored.reshape(-1), 0.0).sum()
            smooth = smooth.sum() / denominator
        else:
            smooth = smooth.sum() / (~ignored).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1.0 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing):
    """Cross-entropy against class probabilities, composed as PyTorch composes it."""
    class_dim = 0 if logp.dim() == 1 else 1
    classes = logp.shape[class_dim]
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    product = logp * target
    if weight is not None:
        shape = [1] * logp.dim()
        shape[class_dim] = classes
        product = product * weight.reshape(shape)
    if reduction == "mean":
        batch = 1 if logp.dim() == 1 else logp.numel() // classes
        return -product.sum() / batch
    if reduction == "sum":
        return -product.sum()
    return -product.sum(class_dim)


def _check_same_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape!r}) that is different to the input size "
            f"({input.shape!r}) is deprecated. Please ensure they have the same size."
        )


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """Binary cross-entropy of probabilities (``BinaryCrossEntropyBackward0``)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    return _core.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction="mean",
    pos_weight=None,
):
    """Binary cross-entropy of logits (``BinaryCrossEntropyWithLogitsBackward0``)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    return _core.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence of log-probabilities ``input`` from ``target`` (composed,
    as PyTorch); ``"batchmean"`` divides the sum by the batch size."""
    reduction = _reduction(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            stacklevel=2,
        )
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _core.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.dim() != 0 else total
    return _apply_reduction(loss, reduction)


def cosine_embedding_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """``1 - cos(x1, x2)`` for target 1, ``max(0, cos - margin)`` for target -1 (composed, as
    PyTorch)."""
    reduction = _reduction(size_average, reduce, reduction)
    sizes = f"{list(input1.shape)} and {list(input2.shape)}"
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dim() == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(
            f"1D target tensor expects 2D input tensors, but found inputs with sizes {sizes}."
        )
    if target.dim() == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(
            f"0D target tensor expects 1D input tensors, but found inputs with sizes {sizes}."
        )
    dim = input1.dim() - 1
    eps = 1e-12
    prod_sum = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + eps
    mag2 = (input2 * input2).sum(dim) + eps
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = _core.zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    out = _core.where(target == 1, pos, zeros) + _core.where(target == -1, neg, zeros)
    return _apply_reduction(out, reduction)


def margin_ranking_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """``max(0, -target·(x1 - x2) + margin)`` (composed, as PyTorch)."""
    reduction = _reduction(size_average, reduce, reduction)
    if not (input1.dim() == input2.dim() == target.dim()):
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {list(input1.shape)}, input2: {list(input2.shape)}, "
            f"target: {list(target.shape)} "
        )
    out = (-target * (input1 - input2) + margin).clamp_min(0)
    return _apply_reduction(out, reduction)


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``pairwise_distance`` (composed, as PyTorch)."""
    reduction = _reduction(size_average, reduce, reduction)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    out = (margin + dist_pos - dist_neg).clamp_min(0)
    return _apply_reduction(out, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` for any distance ``d`` (``pairwise_distance``
    by default); ``swap`` uses ``min(d(a, n), d(p, n))`` as the negative's distance."""
    if margin <= 0:
        raise ValueError(
            "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
            f"{margin} instead"
        )
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs"
        )
    distance = distance_function if distance_function is not None else pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(distance(positive, negative))
    return _apply_reduction((margin + dist_pos - dist_neg).clamp_min(0), reduction)


__all__ = [
    *_conv_names,
    *_layer_names,
    *_norm_names,
    *_margin_names,
    "multi_head_attention_forward",
    "scaled_dot_product_attention",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "cosine_embedding_loss",
    "cross_entropy",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
    "elu",
    "gelu",
    "glu",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "leaky_relu",
    "leaky_relu_",
    "log_softmax",
    "logsigmoid",
    "pixel_shuffle",
    "pixel_unshuffle",
    "prelu",
    "margin_ranking_loss",
    "mish",
    "mse_loss",
    "nll_loss",
    "relu",
    "relu6",
    "rrelu",
    "rrelu_",
    "selu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

from . import grad as grad  # noqa: E402  (F.grad is torch.nn.grad, as in PyTorch)
