"""``ferrograd.utils.dlpack``: tensors to and from DLPack capsules, sharing memory (PyTorch's
``torch.utils.dlpack``)."""

from typing import Any

from .._core import Tensor, from_dlpack


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule sharing ``tensor``'s memory (consumed once by a ``from_dlpack``)."""
    return tensor.__dlpack__()


__all__ = ["from_dlpack", "to_dlpack"]
