"""``ferrograd.autograd.graph``: the node type of the backward graph, and hooks on the tensors
the graph saves (``saved_tensors_hooks``, ``save_on_cpu``)."""

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


__all__ = [
    "GradientEdge",
    "Node",
    "get_gradient_edge",
    "increment_version",
    "save_on_cpu",
    "saved_tensors_hooks",
]
