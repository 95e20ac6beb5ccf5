"""Pickling and ``copy.deepcopy`` of tensors, as PyTorch does them: the values, dtype, shape,
``requires_grad``, the class (``nn.Parameter`` stays a parameter) and the attributes set on the
tensor; ``deepcopy`` also copies ``.grad``, and refuses tensors that are not graph leaves."""

import copy

from . import _core


def dtype_named(name):
    """The dtype ``ferrograd.<name>`` (how a pickled dtype comes back)."""
    import ferrograd

    return getattr(ferrograd, name)


def _rebuild(cls, values, dtype, shape, requires_grad, attributes=None):
    """The inverse of :func:`reduce_tensor`."""
    t = _core.tensor(values, dtype=dtype).reshape(shape)
    t = cls(t, requires_grad) if cls is not _core.Tensor else t.requires_grad_(requires_grad)
    for name, value in (attributes or {}).items():
        setattr(t, name, value)
    return t


def reduce_tensor(t):
    """``Tensor.__reduce_ex__``: rebuilt from its values and the attributes set on it (the graph
    is not pickled)."""
    values = t.detach().reshape(-1).tolist()
    args = (type(t), values, t.dtype, tuple(t.shape), t.requires_grad)
    attributes = getattr(t, "__dict__", None)
    return (_rebuild, (*args, dict(attributes)) if attributes else args)


def deepcopy_tensor(t, memo):
    """``Tensor.__deepcopy__``: a new leaf with copied values, ``requires_grad`` and ``.grad``."""
    if not t.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment."
        )
    if id(t) in memo:
        return memo[id(t)]
    data = t.detach().clone()
    new = type(t)(data, t.requires_grad) if type(t) is not _core.Tensor else data
    if type(t) is _core.Tensor:
        new.requires_grad_(t.requires_grad)
    if t.grad is not None:
        new.grad = copy.deepcopy(t.grad, memo)
    for name, value in getattr(t, "__dict__", {}).items():
        setattr(new, name, copy.deepcopy(value, memo))
    memo[id(t)] = new
    return new
