"""``torch.layout``: how a tensor's elements are stored. ferrograd's tensors are strided or
sparse COO; the other sparse layouts exist as names (PyTorch code compares with them), and no
tensor has them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._core import Tensor


class layout:
    """A memory layout (``torch.strided``, ``torch.sparse_coo``, ...)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
_mkldnn = layout("_mkldnn")
jagged = layout("jagged")


def _install(tensor_class):
    """``Tensor.layout``: ``torch.sparse_coo`` for a sparse tensor, else ``torch.strided``."""
    tensor_class.layout = property(_layout_of)


def _layout_of(self: Tensor) -> Any:
    """The memory layout: ``torch.strided``, or ``torch.sparse_coo`` for a sparse tensor."""
    return sparse_coo if self.is_sparse else strided


__all__ = [
    "layout",
    "sparse_bsc",
    "sparse_bsr",
    "sparse_coo",
    "sparse_csc",
    "sparse_csr",
    "strided",
]
