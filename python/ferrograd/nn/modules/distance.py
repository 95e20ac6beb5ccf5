"""``PairwiseDistance`` and ``CosineSimilarity``: distances between paired rows as layers."""

from .. import functional as F
from .module import Module


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dim."""

    __constants__ = ("norm", "eps", "keepdim")

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        """``F.pairwise_distance(x1, x2, p, eps, keepdim)``."""
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim``."""

    __constants__ = ("dim", "eps")

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        """``F.cosine_similarity(x1, x2, dim, eps)``."""
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
