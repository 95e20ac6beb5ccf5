"""``torch.layout``: how a tensor's elements are stored. ferrograd stores every tensor strided;
the sparse layouts exist as names (PyTorch code compares with them), and no tensor has them."""


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
    """``Tensor.layout``: ``torch.strided`` for every ferrograd tensor."""
    tensor_class.layout = property(lambda self: strided, doc="The memory layout: torch.strided.")


__all__ = [
    "layout",
    "sparse_bsc",
    "sparse_bsr",
    "sparse_coo",
    "sparse_csc",
    "sparse_csr",
    "strided",
]
