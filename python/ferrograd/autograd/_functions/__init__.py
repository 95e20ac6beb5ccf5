"""``torch.autograd._functions``: PyTorch's legacy autograd Functions on tensors (``Resize``,
``Type``), which older code and PyTorch's own tests still call."""

from .tensor import Resize, Type

__all__ = ["Resize", "Type"]
