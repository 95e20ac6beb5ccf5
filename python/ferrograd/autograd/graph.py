"""``ferrograd.autograd.graph``: the node type of the backward graph, hooks on the tensors
the graph saves (``saved_tensors_hooks``, ``save_on_cpu``) and hooks on several tensors'
gradients at once (``register_multi_grad_hook``)."""

import contextlib
import functools
import threading
import weakref
from collections import defaultdict, deque
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


# Note [Mutating tensors saved for backward]: under ``allow_mutation_on_saved_tensors`` every
# tensor an op saves is packed into a fresh handle remembered under the tensor's identity
# (object id, memory address, version) and its memory (address, version). Just before an
# in-place write (the write observer of ``_core``), the saved tensors sharing the written
# memory at its current version are cloned, and the backward pass unpacks the clone instead of
# the changed original. Handles live as long as the graph that holds them, so the maps below
# forget a saved tensor when its graph is freed.
_mutation_context_active = False


class _Handle:
    """What the graph keeps in place of one saved tensor (a weak-referenceable key)."""


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` context: the originals and clones
    of the saved tensors, by handle, and the handles by tensor identity and by memory."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = defaultdict(set)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, tensor):
        memory = (tensor.data_ptr(), tensor._version)
        identity = (id(tensor), *memory)
        self.sid_to_tid[memory].add(identity)
        handle = self.tid_to_weakhandle.get(identity)
        if handle is None:
            handle = _Handle()
            self.tid_to_weakhandle[identity] = handle
            self.original[handle] = tensor
        return handle

    def unpack(self, handle):
        message = (
            "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
            "in which the graph was originally recorded."
        )
        if not _mutation_context_active:
            raise AssertionError(message)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(message)
        return self.original[handle]

    def before_write(self, tensor):
        for identity in self.sid_to_tid.get((tensor.data_ptr(), tensor._version), ()):
            handle = self.tid_to_weakhandle.get(identity)
            # a tensor saved once but freed by a backward since is no longer kept
            if handle is None or handle in self.cloned:
                continue
            self.cloned[handle] = self.original.pop(handle).clone()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Lets tensors saved for backward be modified in place: under this context a saved tensor
    is cloned just before an in-place op writes into its memory, and the backward pass uses
    the clone (as ``torch.autograd.graph.allow_mutation_on_saved_tensors``). Run the forward
    and the backward pass in the same context; yields the context's state (for debugging),
    cleared on exit."""
    global _mutation_context_active
    if _mutation_context_active:
        # refused before anything changes: the enclosing context stays in effect
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        _core._set_write_observer(ctx.before_write)
        try:
            _mutation_context_active = True
            yield ctx
        finally:
            _core._set_write_observer(None)
            ctx.clear()
            _mutation_context_active = False


__all__ = [
    "GradientEdge",
    "Node",
    "allow_mutation_on_saved_tensors",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]


# ---------------------------------------------------------------------------------------------
# The engine's log (torch._logging.set_logs(autograd=logging.DEBUG))
# ---------------------------------------------------------------------------------------------

_log = __import__("logging").getLogger(__name__.rsplit(".", 1)[0])

_DTYPE_ABBREVIATIONS = {"float32": "f32", "float64": "f64", "int64": "i64", "bool": "b8"}


def _describe_grad(t):
    if t is None:
        return "None"
    name = _DTYPE_ABBREVIATIONS.get(str(t.dtype).replace("torch.", ""), str(t.dtype))
    return f"{name}[{', '.join(map(str, t.shape))}]"


@contextlib.contextmanager
def _logging_nodes(outputs):
    """While a backward pass from ``outputs`` (tensors or gradient edges) runs, logs each node
    it executes at DEBUG level on the ``autograd`` logger, as PyTorch's engine does when
    ``torch._logging.set_logs(autograd=logging.DEBUG)``: ``Executing: <MulBackward0 object at
    0x...> with grad_outputs: [f32[3]]``. On one thread, so the lines come in the engine's
    order. Does nothing unless that logger is enabled for DEBUG."""
    if not _log.isEnabledFor(10):  # logging.DEBUG
        yield
        return
    if isinstance(outputs, (_core.Tensor, GradientEdge)):
        outputs = (outputs,)
    roots = []
    for o in outputs:
        node = o.node if isinstance(o, GradientEdge) else get_gradient_edge(o).node
        if node is not None and node not in roots:
            roots.append(node)
    queue, seen = deque(roots), set(roots)
    handles = []
    while queue:
        node = queue.popleft()
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)

        def prehook(grad_outputs, node=node):
            described = ",".join(_describe_grad(g) for g in grad_outputs)
            _log.debug("Executing: %s with grad_outputs: [%s]", node, described)

        handles.append(node.register_prehook(prehook))
    previous = _core.is_multithreading_enabled()
    _core._set_multithreading_enabled(False)
    try:
        yield
    finally:
        _core._set_multithreading_enabled(previous)
        for handle in handles:
            handle.remove()
