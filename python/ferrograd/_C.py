"""``torch._C``'s public names that programs meet: the class ``Generator`` lives here, as in
PyTorch (``repr(torch.manual_seed(0))`` is ``<torch._C.Generator object at 0x...>``), and
``_LinAlgError`` (``torch.linalg.LinAlgError``) and ``_swap_tensor_impl`` (the last step of
``torch.utils.swap_tensors``)."""

from ._core import Generator, _LinAlgError, _swap_tensor_impl

__all__ = ["Generator", "_LinAlgError", "_swap_tensor_impl"]
