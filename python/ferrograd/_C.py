"""``torch._C``'s public names that programs meet: the class ``Generator`` lives here, as in
PyTorch (``repr(torch.manual_seed(0))`` is ``<torch._C.Generator object at 0x...>``), and
``_LinAlgError`` (``torch.linalg.LinAlgError``), ``_swap_tensor_impl`` (the last step of
``torch.utils.swap_tensors``) and the switches of the ``__torch_function__`` protocol
(``torch.overrides``)."""

from ._core import Generator, _LinAlgError, _swap_tensor_impl
from .overrides import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    _is_torch_function_enabled,
)

__all__ = [
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "Generator",
    "_LinAlgError",
    "_disabled_torch_function_impl",
    "_is_torch_function_enabled",
    "_swap_tensor_impl",
]
