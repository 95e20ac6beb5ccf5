"""``torch.optim.optimizer``: the module PyTorch defines ``Optimizer`` in, and the names custom
optimizers import from it (``Optimizer``, ``required``, ``ParamsT``,
``_use_grad_for_differentiable``)."""

import functools
from collections.abc import Iterable
from typing import Any, Union

from .. import _core
from .._grad_mode import is_grad_enabled, set_grad_enabled
from . import Optimizer, required

__all__ = ["Optimizer", "ParamsT", "required"]

#: What an optimizer's ``params`` argument may be: tensors, (name, tensor) pairs, or groups.
ParamsT = Union[
    Iterable[_core.Tensor], Iterable[dict[str, Any]], Iterable[tuple[str, _core.Tensor]]
]


def _use_grad_for_differentiable(step):
    """Runs an optimizer's ``step`` with autograd recording only when the optimizer was made
    with ``differentiable=True`` (PyTorch's decorator for custom optimizers)."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        previous = is_grad_enabled()
        try:
            set_grad_enabled(self.defaults["differentiable"])
            return step(self, *args, **kwargs)
        finally:
            set_grad_enabled(previous)

    return wrapper
