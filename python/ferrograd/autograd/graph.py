"""``ferrograd.autograd.graph``: the node type of the backward graph, hooks on the tensors
the graph saves (``saved_tensors_hooks``, ``save_on_cpu``) and hooks on several tensors'
gradients at once (``register_multi_grad_hook``)."""

import functools
import threading
from typing import NamedTuple

from .. import _core
from .._core import Node


class GradientEdge(NamedTuple):
    """A place gradients flow into: output ``output_nr`` of ``node`` (``autograd.grad`` takes
    these as inputs, as tensors)."""

    node: Node
    output_nr: int


def get_gradient_edge(tensor):
    """The gradient edge of ``tensor``: its ``grad_fn`` and output number, or a leaf's
    AccumulateGrad node. Gradients computed for it stay attached to that edge even if the
    tensor is later changed (``set_``, in-place ops)."""
    node, output_nr = _core._gradient_edge(tensor)
    return GradientEdge(node, output_nr)


def increment_version(tensor):
    """Counts an in-place change of ``tensor`` made without autograd seeing it, so that saved
    tensors of its old value are refused at backward (a no-op for inference tensors)."""
    for t in tensor if isinstance(tensor, (list, tuple)) else (tensor,):
        _core._increment_version(t)


class saved_tensors_hooks:
    """While active, every tensor an op saves for backward is passed to ``pack_hook`` and
    only its result is kept; the backward pass gets the tensor back from
    ``unpack_hook(packed)`` (as ``torch.autograd.graph.saved_tensors_hooks``). The hooks
    apply on the thread that enters the context."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _core._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *args):
        _core._pop_saved_tensors_hooks()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept in CPU memory (ferrograd's only memory: they are kept as they are)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: t, lambda t: t)


class _MultiHandle:
    """The handle of ``register_multi_grad_hook``: ``remove()`` removes every tensor hook."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Calls ``fn`` once per backward pass for the gradients of ``tensors`` (as PyTorch's):
    ``mode="all"``: with the list of all their gradients (None for those the pass does not
    compute), once the last one the pass computes has arrived; ``mode="any"``: with the first
    gradient that arrives. Each backward pass counts separately, also on other threads."""
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    lock = threading.Lock()
    if mode == "all":
        # the engine must know, while the pass runs, which of the tensors' nodes it executes
        _core._record_execution_sets()
        count = {}
        buffer = {}
        nodes = [get_gradient_edge(t).node for t in tensors]
        n = len(tensors)

        def inner_hook(idx, grad):
            task = _core._current_graph_task_id()
            assert task != -1, "expected this hook to be called inside a backward call"
            with lock:
                seen = count.get(task, 0)
                count[task] = seen + 1
                if seen == 0:
                    calls = sum(map(_core._will_engine_execute_node, nodes))
                    buffer[task] = ([None] * n, calls)
                grads, calls = buffer[task]
                grads[idx] = grad
                done = seen == calls - 1
                if done:
                    del count[task], buffer[task]
            if done:
                fn(grads)

        handles = tuple(
            t.register_hook(functools.partial(inner_hook, i))
            for i, t in enumerate(tensors)
            if t.requires_grad
        )
    else:
        ran = set()

        @functools.wraps(fn)
        def first_only(grad):
            task = _core._current_graph_task_id()
            assert task != -1, "expected this hook to be called inside a backward call"
            with lock:
                if task in ran:
                    return
                ran.add(task)
            fn(grad)

        handles = tuple(t.register_hook(first_only) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


__all__ = [
    "GradientEdge",
    "Node",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]
