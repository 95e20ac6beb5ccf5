"""``nn``: ``Parameter``, ``Module`` and its containers, layers, activations and losses (as
PyTorch's), with ``nn.functional``, ``nn.init`` and ``nn.utils``."""

from . import functional, grad, init, parallel, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _module_names
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    *_module_names,
    "Buffer",
    "DataParallel",
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "functional",
    "grad",
    "init",
    "parallel",
    "utils",
]
