"""``ferrograd.autograd``: gradients of tensors (``grad``, ``backward``) and graph inspection."""

import warnings

# PyTorch's `torch.autograd` imports `torch` itself, and code reaches it through there
# (`torch.autograd.torch.randn`); the package is fully loaded by the time anyone does
import ferrograd as torch  # noqa: F401

from .. import _core
from .._core import Node, SavedTensor, Tensor, stack, zeros_like
from .._core import _is_checkpoint_valid as _is_checkpoint_valid
from .._core import _profiler_enabled as _profiler_enabled
from .._core import backward as _backward
from .._core import grad as _grad
from .._grad_mode import enable_grad, no_grad, set_grad_enabled
from ..overrides import handle_torch_function, has_torch_function, is_tensor_like
from . import _functions as _functions
from . import functional, graph, profiler, profiler_util
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx
from .gradcheck import GradcheckError, gradcheck, gradgradcheck


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """Returns the gradients of ``outputs`` with respect to ``inputs`` as a tuple (a dict for a
    dict of inputs).

    A tuple of outputs sums their gradients; ``inputs`` may be a single tensor. Saved tensors are
    freed unless ``retain_graph``; ``create_graph`` records the computation for higher orders.
    ``is_grads_batched``: the first dimension of each ``grad_outputs`` tensor is a batch of
    vectors, one vector-Jacobian product each (computed one after the other). With
    ``materialize_grads``, unused inputs get zeros (requiring grad under ``create_graph``).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs:
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
            stacklevel=2,
        )
    keys = None
    if type(inputs) is dict:
        keys, inputs = list(inputs.keys()), tuple(inputs.values())
    elif isinstance(inputs, (Tensor, graph.GradientEdge)):
        inputs = (inputs,)
    else:
        inputs = tuple(inputs)
    outputs_tuple = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    if has_torch_function(outputs_tuple + inputs):
        # Note [Where __torch_function__ is honoured] (overrides.py)
        overridable = tuple(t for t in outputs_tuple + inputs if is_tensor_like(t))
        result = handle_torch_function(
            grad,
            overridable,
            outputs_tuple,
            inputs,
            grad_outputs=grad_outputs,
            retain_graph=retain_graph,
            create_graph=create_graph,
            only_inputs=only_inputs,
            allow_unused=allow_unused,
            is_grads_batched=is_grads_batched,
            materialize_grads=materialize_grads,
        )
        return dict(zip(keys, result)) if keys is not None else result
    if any(isinstance(i, graph.GradientEdge) for i in inputs):
        edges = [
            i if isinstance(i, graph.GradientEdge) else graph.get_gradient_edge(i) for i in inputs
        ]
        result = _core._grad_to_edges(
            outputs, edges, grad_outputs, retain_graph, create_graph, allow_unused
        )
    elif is_grads_batched:
        result = _batched_grad(outputs, inputs, grad_outputs, create_graph, allow_unused)
    else:
        with graph._logging_nodes(outputs):
            result = _grad(
                outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, False
            )
    if materialize_grads:
        if any(r is None and not isinstance(i, Tensor) for r, i in zip(result, inputs)):
            raise RuntimeError(
                "materialize_grads cannot be used when the given input is a GradientEdge"
            )
        result = tuple(
            r if r is not None else zeros_like(i).requires_grad_(create_graph)
            for r, i in zip(result, inputs)
        )
    return dict(zip(keys, result)) if keys is not None else result


def _batched_grad(outputs, inputs, grad_outputs, create_graph, allow_unused):
    """``grad`` for each vector of a batch of ``grad_outputs`` (dimension 0), stacked."""
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is not None and (g.dim() == 0 or g.shape[1:] != out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
                "as the batch dimension. The sizes of the remaining dimensions are expected to "
                f"match the shape of corresponding output, but a mismatch was detected: "
                f"grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape of "
                f"{out.shape}. If you only want some tensors in `grad_output` to be considered "
                "batched, consider using vmap."
            )
    batch = next(g.shape[0] for g in grad_outputs if g is not None)
    rows = []
    for b in range(batch):
        gos = [None if g is None else g[b] for g in grad_outputs]
        rows.append(_grad(outputs, inputs, gos, True, create_graph, allow_unused, False))
    return tuple(
        None if rows[0][k] is None else stack([row[k] for row in rows]) for k in range(len(inputs))
    )


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of ``tensors`` into the ``.grad`` of the graph leaves (only
    of ``inputs`` when given)."""
    given = (tensors,) if isinstance(tensors, (Tensor, graph.GradientEdge)) else tuple(tensors)
    targets = () if inputs is None else (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if has_torch_function(given + targets):
        # Note [Where __torch_function__ is honoured] (overrides.py)
        overridable = tuple(t for t in given + targets if is_tensor_like(t))
        return handle_torch_function(
            backward,
            overridable,
            given,
            grad_tensors=grad_tensors,
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=None if inputs is None else targets,
        )
    with graph._logging_nodes(tensors):
        _backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


def kineto_available():
    """Whether the Kineto profiler backend is available: ferrograd's profiler is its own."""
    return False


class _force_original_view_tracking:
    """Sets whether a view modified in place regenerates its history by replaying its own
    view ops (``True``) or by ``as_strided`` (``False``, the default), for the views made on this
    thread from now on; takes effect at once, and restores the previous setting when used as a
    context manager."""

    def __init__(self, mode):
        self._prev = _core._set_view_replay_enabled(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _core._set_view_replay_enabled(self._prev)
        return False


def is_view_replay_enabled():
    """Whether views made on this thread keep their view ops to replay (see
    ``_force_original_view_tracking``)."""
    return _core._is_view_replay_enabled()


def Variable(data, requires_grad=False, volatile=False):
    """Legacy ``Variable(tensor)``: a new leaf sharing ``data``'s elements (its history and
    ``.grad`` are not carried over), requiring grad when asked, as PyTorch's."""
    leaf = data.detach()
    if requires_grad:
        leaf.requires_grad_(True)
    return leaf


class _ExecutionEngine:
    """``Variable._execution_engine``: PyTorch's handle on the backward engine."""

    @staticmethod
    def queue_callback(callback):
        """Calls ``callback()`` once the running backward pass has finished (in the order
        queued; a callback may queue more). Refused outside a backward pass."""
        _core._queue_callback(callback)


Variable._execution_engine = _ExecutionEngine()  # type: ignore[attr-defined]


def is_multithreading_enabled():
    """Whether a backward pass may run its independent branches on several threads."""
    return _core.is_multithreading_enabled()


class set_multithreading_enabled:
    """Allows or forbids running a backward pass's independent branches on several threads
    (the gradients are the same either way): at once when called, and restored on leaving
    when used as a context manager, as PyTorch's."""

    def __init__(self, mode):
        self.prev = _core.is_multithreading_enabled()
        _core._set_multithreading_enabled(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *args):
        _core._set_multithreading_enabled(self.prev)
        return False


__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "SavedTensor",
    "Variable",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_view_replay_enabled",
    "is_multithreading_enabled",
    "set_multithreading_enabled",
    "kineto_available",
    "profiler_util",
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
