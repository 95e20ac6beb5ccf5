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


def Variable(data, requires_grad=False, volatile=False):
    """Legacy ``Variable(tensor)``: since PyTorch 0.4 simply the tensor itself."""
    if requires_grad:
        data.requires_grad_(True)
    return data


__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "Variable",
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
