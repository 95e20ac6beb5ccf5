"""``ferrograd.autograd``: gradients of tensors (``grad``, ``backward``) and graph inspection."""

from .._core import Node
from .._core import backward as _backward
from .._core import grad as _grad
from .._grad_mode import enable_grad, no_grad, set_grad_enabled
from . import functional, graph, profiler
from .function import Function, FunctionCtx
from .gradcheck import GradcheckError, gradcheck, gradgradcheck


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    materialize_grads=False,
):
    """Returns the gradients of ``outputs`` with respect to ``inputs`` as a tuple.

    A tuple of outputs sums their gradients; ``inputs`` may be a single tensor. Saved tensors are
    freed unless ``retain_graph``; ``create_graph`` records the computation for higher orders.
    """
    return _grad(
        outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads
    )


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of ``tensors`` into the ``.grad`` of the graph leaves (only
    of ``inputs`` when given)."""
    _backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


_view_replay = [False]


class _force_original_view_tracking:
    """Sets whether a view modified in place regenerates its history by replaying its own
    view op (``True``) or by ``as_strided`` (``False``, the default); takes effect at once, and
    restores the previous setting when used as a context manager."""

    def __init__(self, mode):
        self._prev = _view_replay[0]
        _view_replay[0] = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _view_replay[0] = self._prev
        return False


def is_view_replay_enabled():
    """Whether views modified in place replay their own view op (see
    ``_force_original_view_tracking``)."""
    return _view_replay[0]


def Variable(data, requires_grad=False, volatile=False):
    """Legacy ``Variable(tensor)``: a new leaf sharing ``data``'s elements (its history and
    ``.grad`` are not carried over), requiring grad when asked, as PyTorch's."""
    leaf = data.detach()
    if requires_grad:
        leaf.requires_grad_(True)
    return leaf


__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "Variable",
    "is_view_replay_enabled",
    "backward",
    "enable_grad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "profiler",
    "no_grad",
    "set_grad_enabled",
]
