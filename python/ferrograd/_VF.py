"""``torch._VF``: the functions PyTorch keeps out of the ``torch`` namespace but tests call."""

from ._core import Tensor


def unique_dim(input, dim, sorted=True, return_inverse=False, return_counts=False):
    """``torch.unique(input, dim=dim)`` as the internal op returns it: always the triple
    ``(values, inverse, counts)``."""
    return Tensor.unique(input, sorted, True, True, dim)
