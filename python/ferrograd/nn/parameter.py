"""``nn.Parameter`` and ``nn.Buffer``: the tensor classes a module registers as one of its
parameters or buffers when assigned as an attribute."""

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


class Buffer(Tensor):
    """A tensor that is a module buffer: assigning one as an attribute of a
    :class:`~ferrograd.nn.Module` registers it as a buffer (``persistent`` ones go into the
    state dict), as ``torch.nn.Buffer``. It holds the data given, detached, keeping its
    ``requires_grad``; operations on it give plain tensors. It adds no storage to a tensor
    (``__slots__``), so ``load_state_dict``'s tensor swapping can exchange it with a plain one:
    its ``persistent`` flag is its class's (a non-persistent buffer is a ``Buffer`` subclass)."""

    __slots__ = ()
    __torch_function__ = _disabled_torch_function_impl
    persistent = True

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _core.empty(0)
        kind = Buffer if persistent else _NonPersistentBuffer
        return Tensor.__new__(kind, data.detach(), data.requires_grad)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Buffer(self.data.clone(), persistent=self.persistent)
        return memo[id(self)]


class _NonPersistentBuffer(Buffer):
    """A ``Buffer(..., persistent=False)``: kept out of the module's state dict."""

    __slots__ = ()
    persistent = False


__all__ = ["Buffer", "Parameter"]
