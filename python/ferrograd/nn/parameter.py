"""``nn.Parameter``: the tensor class a module registers as one of its parameters."""

from .. import _core
from .._core import Tensor
from ..overrides import _disabled_torch_function_impl


class Parameter(Tensor):
    """A tensor that is a module parameter: a leaf that requires grad by default. Assigning one
    as an attribute of a :class:`~ferrograd.nn.Module` registers it."""

    # operations on a parameter give plain tensors, as PyTorch's
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _core.empty(0)
        obj = super().__new__(cls, data, requires_grad)
        obj._register()
        return obj

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    # print(parameter) shows the same header, as PyTorch's
    __str__ = __repr__

    def __deepcopy__(self, memo):
        # as PyTorch: a parameter with copied values and requires_grad (not its .grad)
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.data.clone(), self.requires_grad)
        return memo[id(self)]


__all__ = ["Parameter"]
