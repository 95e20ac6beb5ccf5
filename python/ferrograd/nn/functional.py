"""``nn.functional``: layers as functions of tensors."""

from .. import _core
from .._core import Tensor
from ._functional_layers import *  # noqa: F403
from ._functional_layers import __all__ as _layer_names

relu = Tensor.relu
tanh = Tensor.tanh
sigmoid = Tensor.sigmoid
gelu = Tensor.gelu
silu = Tensor.silu
softplus = Tensor.softplus
leaky_relu = Tensor.leaky_relu
elu = Tensor.elu
softmax = Tensor.softmax
log_softmax = Tensor.log_softmax


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``."""
    out = input.matmul(weight.t())
    if bias is not None:
        out = out + bias
    return out


def mse_loss(input, target, reduction="mean"):
    """Mean (or sum) of squared differences."""
    sq = (input - target).pow(2)
    if reduction == "mean":
        return sq.mean()
    if reduction == "sum":
        return sq.sum()
    if reduction == "none":
        return sq
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_targets(input, target):
    """PyTorch's checks of class-index targets: one per row of ``input``, each a valid class."""
    if target.dim() != 1 or target.shape[0] != input.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0] if target.dim() else 0})."
        )
    if target.dtype != _core.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype}")
    classes = input.shape[1]
    for t in target.tolist():
        if t < 0 or t >= classes:
            raise IndexError(f"Target {t} is out of bounds (for {classes} classes).")


def nll_loss(input, target, reduction="mean"):
    """Negative log-likelihood of class indices ``target`` under log-probabilities ``input``."""
    _check_targets(input, target)
    picked = input.gather(1, target.unsqueeze(1)).squeeze(1).neg()
    if reduction == "mean":
        return picked.mean()
    if reduction == "sum":
        return picked.sum()
    return picked


def cross_entropy(input, target, reduction="mean"):
    """``nll_loss(log_softmax(input, 1), target)``."""
    return nll_loss(input.log_softmax(1), target, reduction=reduction)


__all__ = [
    *_layer_names,
    "cross_entropy",
    "elu",
    "gelu",
    "leaky_relu",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "tanh",
]
