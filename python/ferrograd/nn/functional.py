"""``nn.functional``: layers as functions of tensors."""

from .._core import Tensor

relu = Tensor.relu
tanh = Tensor.tanh
sigmoid = Tensor.sigmoid


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


__all__ = ["relu", "tanh", "sigmoid", "linear", "mse_loss"]
