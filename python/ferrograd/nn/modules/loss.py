"""Loss modules: thin layers over the loss functions of ``nn.functional``, with PyTorch's
constructor arguments (including the legacy ``size_average``/``reduce``), attributes and
buffers (``weight``, ``pos_weight``)."""

import warnings

from .. import functional as F
from .._reduction import legacy_get_string
from .module import Module


def _legacy_reduction(size_average, reduce):
    """The ``reduction`` string that the deprecated ``size_average``/``reduce`` mean, with the
    deprecation warning pointing at the loss's constructor call."""
    reduction = legacy_get_string(size_average, reduce, emit_warning=False)
    warnings.warn(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{reduction}' instead.",
        stacklevel=3,
    )
    return reduction


class _Loss(Module):
    """Base of losses: holds ``reduction``."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with a per-class ``weight`` buffer."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """Mean (or sum) absolute difference."""

    __constants__ = ("reduction",)

    def forward(self, input, target):
        """``F.l1_loss``."""
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean (or sum) squared difference."""

    __constants__ = ("reduction",)

    def forward(self, input, target):
        """``F.mse_loss``."""
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared below ``beta``, absolute above."""

    __constants__ = ("reduction",)

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        """``F.smooth_l1_loss``."""
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared below ``delta``, ``delta``-scaled absolute above."""

    __constants__ = ("reduction", "delta")

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        """``F.huber_loss``."""
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices under log-probabilities."""

    __constants__ = ("ignore_index", "reduction")

    def __init__(
        self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        """``F.nll_loss``."""
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class CrossEntropyLoss(_WeightedLoss):
    """``nll_loss(log_softmax(input))`` for class indices, or against class probabilities."""

    __constants__ = ("ignore_index", "reduction", "label_smoothing")

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index=-100,
        reduce=None,
        reduction="mean",
        label_smoothing=0.0,
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        """``F.cross_entropy``."""
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities."""

    __constants__ = ("reduction",)

    def forward(self, input, target):
        """``F.binary_cross_entropy``."""
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (with ``weight`` and ``pos_weight`` buffers)."""

    def __init__(
        self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
    ):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        """``F.binary_cross_entropy_with_logits``."""
        return F.binary_cross_entropy_with_logits(
            input,
            target,
            self.weight,
            pos_weight=self.pos_weight,
            reduction=self.reduction,
        )


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of log-probabilities ``input`` from ``target``."""

    __constants__ = ("reduction",)

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        """``F.kl_div``."""
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos`` for similar pairs (target 1), ``max(0, cos - margin)`` for dissimilar."""

    __constants__ = ("margin", "reduction")

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        """``F.cosine_embedding_loss``."""
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class MarginRankingLoss(_Loss):
    """``max(0, -target * (input1 - input2) + margin)``."""

    __constants__ = ("margin", "reduction")

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        """``F.margin_ranking_loss``."""
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class TripletMarginLoss(_Loss):
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)``."""

    __constants__ = ("margin", "p", "eps", "swap", "reduction")

    def __init__(
        self,
        margin=1.0,
        p=2.0,
        eps=1e-6,
        swap=False,
        size_average=None,
        reduce=None,
        reduction="mean",
    ):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        """``F.triplet_margin_loss``."""
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )


__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "MarginRankingLoss",
    "NLLLoss",
    "SmoothL1Loss",
    "TripletMarginLoss",
]


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-y * x))`` for labels ``y`` in {-1, 1}."""

    __constants__ = ("reduction",)

    def forward(self, input, target):
        """``F.soft_margin_loss``."""
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``x`` for label 1, ``max(0, margin - x)`` for label -1."""

    __constants__ = ("margin", "reduction")

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        """``F.hinge_embedding_loss``."""
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """The mean over classes of each class's logistic loss."""

    __constants__ = ("reduction",)

    def forward(self, input, target):
        """``F.multilabel_soft_margin_loss``."""
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge loss between each listed class and every other class."""

    __constants__ = ("reduction",)

    def forward(self, input, target):
        """``F.multilabel_margin_loss``."""
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss ``max(0, margin - x[y] + x[j])^p`` over the other classes."""

    __constants__ = ("p", "margin", "reduction")

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D "
                "instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        """``F.multi_margin_loss``."""
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """The negative log-likelihood of a Poisson-distributed target."""

    __constants__ = ("log_input", "full", "eps", "reduction")

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        """``F.poisson_nll_loss``."""
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """The negative log-likelihood of a Gaussian-distributed target with predicted variance."""

    __constants__ = ("full", "eps", "reduction")

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        """``F.gaussian_nll_loss``."""
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with any distance function ``d``."""

    __constants__ = ("margin", "swap", "reduction")

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(
                "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        from .distance import PairwiseDistance

        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        """``F.triplet_margin_with_distance_loss``."""
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction,
        )
