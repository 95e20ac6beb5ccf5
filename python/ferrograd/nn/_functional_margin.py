"""The margin, likelihood and distance losses of ``nn.functional`` that PyTorch composes from
other ops (``hinge_embedding_loss``, ``poisson_nll_loss``, ``gaussian_nll_loss``,
``multilabel_soft_margin_loss``, ``pdist``) and the ones it runs as kernels of their own
(``soft_margin_loss``, ``multi_margin_loss``, ``multilabel_margin_loss``), here composed of
differentiable ops with the kernels' formulas and checks. Results and gradients are PyTorch's;
the composed kernels' ``grad_fn`` names are their last op's (PyTorch records
``SoftMarginLossBackward0``, ``MultiMarginLossBackward0``, ``MultilabelMarginLossBackward0``,
``PdistBackward0``)."""

import math

import numpy as np

from .. import _core
from ._reduction import _apply_reduction, _reduction


def _legacy(size_average, reduce, reduction):
    return _reduction(size_average, reduce, reduction)


def _reduce(loss, reduction):
    return _apply_reduction(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-y·x))``, the logistic loss of labels ``y`` in {-1, 1}."""
    reduction = _legacy(size_average, reduce, reduction)
    return _reduce((-target * input).exp().log1p(), reduction)


def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    """``x`` where the label is 1, ``max(0, margin - x)`` where it is -1 (PyTorch's sum of
    the two selections)."""
    reduction = _legacy(size_average, reduce, reduction)
    zeros = _core.zeros_like(input)
    below_margin = (margin - input).clamp_min(0)
    loss = _core.where(target != 1, below_margin, zeros) + _core.where(target != -1, input, zeros)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """The mean over classes of each class's logistic loss, per sample."""
    reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * _core.logsigmoid(input) + (1 - target) * _core.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    """The negative log-likelihood of ``target`` under a Poisson of rate ``exp(input)``
    (``log_input``) or ``input``; ``full`` adds Stirling's approximation of ``log(target!)``
    where ``target > 1``."""
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log-likelihood of ``target`` under Gaussians of mean ``input`` and
    variance ``var`` (one per element, one per sample, or a number), the variance clamped to
    at least ``eps`` without gradient through the clamp."""
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _core.ones_like(input) * float(var)
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # the clamp is not differentiated through (PyTorch clamps a clone under no_grad)
    var = var + (var.detach().clamp(min=eps) - var.detach())
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _as_batch(input, target, name):
    """``(input (N, C), target (N,), was 1-D)`` for the multi-class margin losses."""
    if input.dim() > 2:
        raise RuntimeError(f"{name}: expected 1D or 2D input, got {input.dim()}D")
    if (input.dim() <= 1 and input.numel() == 0) or (input.dim() == 2 and input.size(1) == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    if input.dim() <= 1:
        return input.reshape(1, -1), target.reshape(-1), True
    return input, target, False


def multi_margin_loss(
    input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """The multi-class hinge loss: per sample, ``Σ_{j≠y} max(0, margin - x[y] + x[j])^p``
    (times ``weight[y]``) over the number of classes."""
    reduction = _legacy(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x, y, single = _as_batch(input, target, "multi_margin_loss")
    n, classes = x.shape
    if y.dim() > 1 or y.numel() != n:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{n}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    labels = y.detach().cpu().numpy()
    if labels.size and (labels.min() < 0 or labels.max() >= classes):
        raise RuntimeError("target out of range")
    column = y.reshape(-1, 1)
    terms = (margin - x.gather(1, column) + x).clamp_min(0)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        terms = terms * weight[y].reshape(-1, 1)
    terms = terms.scatter(1, column, 0.0)
    loss = terms.sum(1) / classes
    if single and target.dim() == 0:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge loss: each sample's target lists its classes (ending at the
    first -1); the loss sums ``max(0, 1 - (x[j] - x[k]))`` over its classes ``j`` and the
    other classes ``k``, over the number of classes."""
    reduction = _legacy(size_average, reduce, reduction)
    x, y, single = _as_batch(input, target, "multilabel_margin_loss")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    y = y.reshape(x.shape)
    n, classes = x.shape
    labels = y.detach().cpu().numpy()
    # how often each class is listed before the first -1 (PyTorch visits the list in order)
    listed = np.zeros((n, classes), dtype=np.float64)
    for row, entries in enumerate(labels):
        for c in entries:
            if c == -1:
                break
            if c < 0 or c >= classes:
                raise RuntimeError("argument #2 'target' is out of range")
            listed[row, c] += 1
    is_target = listed > 0
    pairs = listed[:, :, None] * (~is_target)[:, None, :]
    mask = _core.tensor(pairs, dtype=x.dtype)
    hinge = (1 - x.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)
    loss = (hinge * mask).sum((1, 2)) / classes
    if single:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def pdist(input, p=2.0):
    """The ``p``-norm distances between every pair of rows ``i < j`` of an ``(N, M)`` input,
    in row-major order (``N(N-1)/2`` values)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.size(0)
    first, second = np.triu_indices(n, k=1)
    rows = _core.tensor(first.astype(np.int64))
    others = _core.tensor(second.astype(np.int64))
    return (input.index_select(0, rows) - input.index_select(0, others)).norm(p, 1)


__all__ = [
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "pdist",
    "poisson_nll_loss",
    "soft_margin_loss",
]
