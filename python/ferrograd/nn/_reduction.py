"""How losses reduce: PyTorch's ``reduction`` argument (``"none"``, ``"mean"``, ``"sum"``)
and its legacy ``size_average``/``reduce`` spelling, shared by ``nn.functional``'s losses
(as ``torch.nn._reduction``)."""

import warnings


def _reduction(size_average, reduce, reduction):
    """PyTorch's legacy ``size_average``/``reduce`` arguments folded into ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn(
        "size_average and reduce args will be deprecated, please use reduction='"
        + ("none" if reduce is False else ("sum" if size_average is False else "mean"))
        + "' instead.",
        stacklevel=3,
    )
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _apply_reduction(loss, reduction):
    _check_reduction(reduction)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def get_enum(reduction):
    """``torch.nn._reduction.get_enum``: 0 for ``"none"``, 1 for ``"mean"`` (and the deprecated
    ``"elementwise_mean"``), 2 for ``"sum"``; any other value is refused."""
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            stacklevel=2,
        )
        return 1
    codes = {"none": 0, "mean": 1, "sum": 2}
    if reduction not in codes:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return codes[reduction]


def legacy_get_string(size_average, reduce, emit_warning=True):
    """``torch.nn._reduction.legacy_get_string``: the ``reduction`` that ``size_average`` and
    ``reduce`` (``None`` meaning True) spell, with PyTorch's deprecation warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        reduction = "mean"
    elif reduce:
        reduction = "sum"
    else:
        reduction = "none"
    if emit_warning:
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
            "instead.",
            stacklevel=2,
        )
    return reduction
