"""``utils.checkpoint``: activation checkpointing. A checkpointed segment does not keep the
tensors its operations save for backward; backward runs the segment again (with the random
stream as the forward saw it, by default) to get them back, trading compute for memory.

Two variants, chosen by ``use_reentrant`` as in PyTorch:

* ``use_reentrant=True`` (PyTorch's default when the argument is omitted, with its warning):
  the segment is one autograd ``Function`` whose forward runs under ``no_grad``; its backward
  recomputes the segment with grad on and calls ``autograd.backward`` on it from inside the
  outer backward. As in PyTorch, outputs require grad only when an input does, keyword
  arguments are refused, and it works with ``.backward()`` only: through ``autograd.grad``
  or ``backward(inputs=...)`` its backward raises, as PyTorch's.
* ``use_reentrant=False``: the forward records its graph as usual, under saved-tensor hooks
  (``autograd.graph.saved_tensors_hooks``) that keep an empty holder in place of each tensor
  an operation saves. When backward needs a holder's tensor, the segment runs again and the
  n-th tensor it saves goes into the n-th holder; backward takes each tensor once. The graph
  being the ordinary one, everything works as without checkpointing: ``autograd.grad``,
  ``backward(inputs=...)``, hooks on tensors and nodes (each fires once), gradients of any
  order, keyword arguments, nested checkpoints and backward inside the segment.

Details of the non-reentrant variant, as PyTorch's:

* The segment's tensor arguments are themselves saved tensors (of a small node), so inside
  another checkpoint they are recomputed by it, and an in-place change to them is reported.
* Determinism check: the recomputation must save as many tensors as the forward did, with the
  same shapes, dtypes and devices, or backward raises ``CheckpointError``; with ``debug``
  (or ``set_checkpoint_debug_enabled``) the error lists where each tensor was saved in both.
* With early stop (``early_stop``, ``set_checkpoint_early_stop``; on by default) the
  recomputation stops as soon as every holder is filled, by raising from its pack hook, so
  what follows the last saving operation does not run again.

Differences from PyTorch, which need the core:

* PyTorch recomputes a segment once per backward call, and raises when one call reads a saved
  tensor twice. The engine does not tell Python which backward call is running, so here a new
  recomputation runs when backward needs a holder that is already empty: two backward calls
  over disjoint parts of a retained graph share one recomputation (as under PyTorch's
  ``GraphExecGroup``).
* PyTorch gives an unpacked tensor back its place in the graph; ferrograd's core uses the
  unpack hook's tensor as it is. So the holders get the recomputed tensors attached to the
  recomputed graph (PyTorch detaches them), which is what differentiates them at higher orders.
"""

import contextlib
import enum
import functools
import itertools
import os
import threading
import traceback
import warnings
import weakref

from .. import _core
from .._core import Tensor
from .._grad_mode import enable_grad, no_grad
from ..autograd import backward as _autograd_backward
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks


class CheckpointError(RuntimeError):
    """The recomputation in backward did not reproduce the forward (non-reentrant variant)."""


# ---- global settings --------------------------------------------------------------------------

_early_stop_setting = None  # set_checkpoint_early_stop's value while its block runs
_debug_setting = None  # set_checkpoint_debug_enabled's value while its block runs


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Within the block, non-reentrant checkpoints run with ``early_stop=enable`` whatever
    their ``early_stop`` argument (see the module for what early stop does here). Only the
    forward needs to run in the block: a checkpoint keeps the setting it was called with."""
    global _early_stop_setting
    previous, _early_stop_setting = _early_stop_setting, enable
    try:
        yield
    finally:
        _early_stop_setting = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within the block, non-reentrant checkpoints run with ``debug=enabled`` whatever their
    ``debug`` argument (``None``: their argument decides)."""
    global _debug_setting
    previous, _debug_setting = _debug_setting, enabled
    try:
        yield
    finally:
        _debug_setting = previous


# ---- helpers shared by both variants ----------------------------------------------------------


def noop_context_fn():
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """The tuple ``inputs`` with every tensor detached, keeping its ``requires_grad``."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for item in inputs:
        if isinstance(item, Tensor):
            copy = item.detach()
            copy.requires_grad_(item.requires_grad)
            out.append(copy)
        else:
            out.append(item)
    return tuple(out)


def check_backward_validity(inputs):
    """Warns (as PyTorch) when no tensor among ``inputs`` requires grad."""
    if not any(t.requires_grad for t in inputs if isinstance(t, Tensor)):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
        )


@contextlib.contextmanager
def _random_stream_as(state):
    """Runs the block with the global random stream at ``state`` (unchanged if ``None``), then
    puts back the stream as it was before the block."""
    if state is None:
        yield
        return
    generator = _core.default_generator
    outer = generator.get_state()
    generator.set_state(state)
    try:
        yield
    finally:
        generator.set_state(outer)


def _stream_state(preserve):
    return _core.default_generator.get_state() if preserve else None


# ---- the reentrant variant --------------------------------------------------------------------


class CheckpointFunction(Function):
    """The reentrant checkpoint as an autograd function:
    ``CheckpointFunction.apply(run_function, preserve_rng_state, *args)``."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = _stream_state(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        if not _core._is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        with _random_stream_as(ctx.rng_state):
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (out, g)
            for out, g in zip(outputs, grad_outputs)
            if isinstance(out, Tensor) and out.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        _autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(t.grad if isinstance(t, Tensor) else None for t in detached)
        return (None, None, *grads)


# ---- the non-reentrant variant ----------------------------------------------------------------


def _metadata(tensor):
    """What the default determinism check compares."""
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


_METADATA_FNS = {"default": _metadata, "none": lambda tensor: None}

_DEBUG_TIP = (
    "\nTip: To see a more detailed error message, either pass `debug=True` to "
    "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block with "
    "`with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to enable "
    "checkpoint-debug mode globally."
)

_FERROGRAD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _describe(position, tensor):
    """A line for the debug report: the saved tensor's metadata and the innermost line of code
    outside ferrograd that saved it."""
    place = "?"
    for frame in reversed(traceback.extract_stack()):
        if not frame.filename.startswith(_FERROGRAD_DIR):
            place = f"{frame.filename}:{frame.lineno} in {frame.name}: {frame.line}"
            break
    return f"  {position}: {_metadata(tensor)}\n     saved at {place}"


class GraphExecGroup:
    """Backward calls under one instance of this context manager count as one for
    non-reentrant checkpoints: a checkpointed region is recomputed at most once for all of
    them, and they must use disjoint parts of the graph (a saved activation unpacked by one is
    refused to another, even with ``retain_graph=True``). Groups do not nest."""

    _state = threading.local()

    def __enter__(self):
        current = GraphExecGroup._get_current_group()
        if current is not None:
            raise RuntimeError(
                f"GraphExecGroup contexts cannot be nested. Already inside group {current}"
            )
        GraphExecGroup._state.group = self
        return self

    def __exit__(self, *args):
        GraphExecGroup._state.group = None

    @classmethod
    def _get_current_group(cls):
        """The group this thread's backward calls are in, or ``None``."""
        return getattr(cls._state, "group", None)


_outside_backward = itertools.count()


def _execution_key():
    """What a recomputation is shared by: the current GraphExecGroup, else the backward pass
    (graph task) running; an unpack outside any gets a key of its own."""
    group = GraphExecGroup._get_current_group()
    if group is not None:
        return ("group", id(group))
    task = _core._current_graph_task_id()
    if task == -1:
        return ("outside", next(_outside_backward))
    return ("task", task)


class _Holder:
    """Kept in the graph in place of a tensor the segment saved. Each execution (a backward
    pass, or a GraphExecGroup; see ``_execution_key``) has its own recomputation, as PyTorch's
    holders keep one handle per graph task: ``tensors`` maps an execution to the tensor its
    recomputation made and no unpack has taken yet, ``unpacked`` lists the executions that
    took theirs."""

    __slots__ = ("__weakref__", "tensors", "unpacked")

    def __init__(self):
        self.tensors = {}
        self.unpacked = set()


def _forget(holders, key):
    """Drops what the backward pass ``key`` recomputed and left unused (called when it ends)."""
    for ref in holders:
        holder = ref()
        if holder is not None:
            holder.tensors.pop(key, None)
            holder.unpacked.discard(key)


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every holder is filled (early stop)."""


class _KeepInputs(Function):
    """A node that saves the segment's tensor arguments for backward, so that they go through
    the saved-tensor hooks in effect (an enclosing checkpoint's included); its
    ``grad_fn.saved_tensors`` reads them back (PyTorch's ``_NoopSaveInputs``)."""

    @staticmethod
    def forward(ctx, anchor, *tensors):
        ctx.save_for_backward(*tensors)
        return anchor.clone()

    @staticmethod
    def backward(ctx, grad):
        return (grad,) + (None,) * (len(ctx.needs_input_grad) - 1)


class _Frame:
    """One non-reentrant checkpointed call: its arguments, how to run it again, and a holder
    (weakly referenced: the graph owns it) and the metadata of each tensor its forward saved,
    in order. Its ``pack`` and ``unpack`` are the forward's saved-tensor hooks."""

    def __init__(self, rerun, args, early_stop, metadata_fn, debug):
        self.rerun = rerun
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.debug = debug
        self.holders = []
        self.metadata = []
        self.forward_log = []  # with debug: where each tensor was saved, forward
        self.recompute_log = []  # and latest recomputation
        self.forward_done = False
        # backward ran inside the forward, whose recomputation then saves more than the
        # forward had so far: the counts are not compared
        self.counts_may_differ = False
        self.args = list(args)
        self.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.anchor = _core.zeros((), requires_grad=True)
        self.keeper = _KeepInputs.apply(self.anchor, *(args[i] for i in self.tensor_positions))

    def inputs(self):
        """The call's arguments, its tensors read back from the keeper node (unpacked through
        the hooks they were saved with, in the execution running: an enclosing checkpoint's
        recomputation serves them)."""
        args = list(self.args)
        for position, tensor in zip(self.tensor_positions, self.keeper.grad_fn.saved_tensors):
            args[position] = tensor
        return args

    def pack(self, tensor):
        """The forward's pack hook: an empty holder in place of ``tensor``."""
        holder = _Holder()
        self.holders.append(weakref.ref(holder))
        self.metadata.append(self.metadata_fn(tensor))
        if self.debug:
            self.forward_log.append(_describe(len(self.forward_log), tensor))
        return holder

    def unpack(self, holder):
        """The forward's unpack hook: the holder's tensor for the execution running, recomputed
        first if this execution has none. An execution takes each tensor once (a second unpack
        is refused, as PyTorch's: a Function reading ``ctx.saved_tensors`` twice); another
        backward pass recomputes for itself."""
        key = _execution_key()
        if key not in holder.tensors:
            if key in holder.unpacked:
                extra = ""
                if key[0] == "group":
                    extra = (
                        "Performing two backward calls that overlap (i.e. require the same "
                        "saved activation in order to compute gradients) is not allowed while "
                        "under the torch.utils.checkpoint.GraphExecGroup context. "
                    )
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    f"already unpacked once. {extra}If you are calling ctx.saved_tensors in "
                    "backward, make sure to do so only once. Otherwise please open an issue "
                    "with details on your use case."
                )
            try:
                self.refill(key, holder)
            except CheckpointError as error:
                if self.debug:
                    raise CheckpointError(self.debug_report(error)) from error
                raise
        tensor = holder.tensors.pop(key)
        if key[0] != "outside":
            holder.unpacked.add(key)
        return tensor

    def refill(self, key, wanted):
        """Recomputes the call, puts each tensor it saved into the holder of the tensor the
        forward saved in its place (if still alive), for the execution ``key``, and checks them
        against the forward's. What a backward pass leaves unused goes when the pass ends; an
        unpack outside any pass fills only the ``wanted`` holder."""
        saved = self.recompute()
        self.check(saved)
        for ref, tensor in zip(self.holders, saved):
            holder = ref()
            if holder is None or key in holder.unpacked:
                continue
            if key[0] != "outside" or holder is wanted:
                holder.tensors[key] = tensor
        if key[0] == "task":
            _core._queue_callback(functools.partial(_forget, self.holders, key))

    def recompute(self):
        """Runs the call again (with grad on) and returns the tensors it saved for backward, in
        order, attached to the recomputed graph; with early stop, the run stops as soon as it
        has saved as many tensors as the forward (PyTorch's early stop).

        The operations of the recomputed graph keep what they save as ``_Resaved``: that
        graph is what differentiates the tensors at higher orders (``create_graph``)."""
        saved = []
        kept = []

        def pack(tensor):
            saved.append(tensor)
            if self.debug:
                self.recompute_log.append(_describe(len(saved) - 1, tensor))
            if len(saved) > len(self.holders) and not self.forward_done:
                self.counts_may_differ = True
            kept.append(_Resaved(self, len(saved) - 1, tensor))
            if self.early_stop and len(saved) == len(self.holders):
                raise _StopRecomputation
            return kept[-1]

        self.recompute_log = []
        try:
            with saved_tensors_hooks(pack, _Resaved.unpack), enable_grad():
                self.rerun(*self.inputs())
        except _StopRecomputation:
            pass
        finally:
            for resaved in kept:
                resaved.settle()
        return saved

    def check(self, saved):
        """Raises ``CheckpointError`` when the recomputation saved a different number of
        tensors than the forward, or tensors with different metadata."""
        if self.counts_may_differ:
            return
        if len(saved) > len(self.holders) and not self.early_stop:
            raise CheckpointError(
                "torch.utils.checkpoint: trying to save more tensors during recomputation "
                f"than during the original forward pass.\n{_DEBUG_TIP}"
            )
        if len(saved) < len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {len(saved)}.\n{_DEBUG_TIP}"
            )
        differences = ""
        for position, (ref, expected, tensor) in enumerate(zip(self.holders, self.metadata, saved)):
            if ref() is not None and self.metadata_fn(tensor) != expected:
                differences += (
                    f"tensor at position {position}:\nsaved metadata: {expected}\n"
                    f"recomputed metadata: {self.metadata_fn(tensor)}\n"
                )
        if differences:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{differences}.\n{_DEBUG_TIP}"
            )

    def debug_report(self, error):
        """``error``'s message followed by where each tensor was saved in the forward and in
        the recomputation."""
        forward = "\n".join(self.forward_log) or "  (none)"
        recomputed = "\n".join(self.recompute_log) or "  (none)"
        message = str(error).replace(_DEBUG_TIP, "")
        return (
            f"{message}\n\n"
            f"Tensors saved for backward during the original forward:\n{forward}\n\n"
            f"Tensors saved for backward during the recomputation:\n{recomputed}\n\n"
            "You are seeing this error because you passed `debug=True` to checkpoint (or "
            "enabled set_checkpoint_debug_enabled) and the tensors saved during the original "
            "forward differ from those saved during the recomputation: the segment ran "
            "different operations. The first position where the two lists above differ shows "
            "where."
        )


class _Resaved:
    """A tensor saved in a recomputed graph. Until the recomputation ends it is the tensor
    itself. Then a tensor that became the output of the operation saving it is kept detached,
    since keeping it would make a reference cycle through that operation's node; differentiating
    through it at a higher order takes it from a new recomputation instead."""

    __slots__ = ("frame", "grad_fn", "is_output", "position", "tensor")

    def __init__(self, frame, position, tensor):
        self.frame = frame
        self.position = position
        self.tensor = tensor
        self.grad_fn = tensor.grad_fn  # to tell, once the operation is done, if it changed
        self.is_output = False

    def settle(self):
        """Called when the recomputation ends, once each operation has attached its outputs."""
        if self.tensor.grad_fn is not None and self.tensor.grad_fn != self.grad_fn:
            self.tensor = self.tensor.detach()
            self.is_output = True
        self.grad_fn = None

    def unpack(self):
        """The recomputed graph's unpack hook."""
        if self.is_output and _core.is_grad_enabled():
            return self.frame.recompute()[self.position]
        return self.tensor


def _checkpoint_without_reentrant(function, args, kwargs, settings):
    """``checkpoint`` with ``use_reentrant=False``: ``function`` runs under the hooks of a new
    ``_Frame``."""
    check = settings["determinism_check"]
    if check not in _METADATA_FNS:
        raise ValueError(
            f"determinism_check should be one of {list(_METADATA_FNS)}, but got {check}"
        )
    debug = settings["debug"] if _debug_setting is None else _debug_setting
    context_fn = settings["context_fn"]
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    early_stop = settings["early_stop"] if _early_stop_setting is None else _early_stop_setting
    forward_context, recompute_context = context_fn()
    rng_state = _stream_state(settings["preserve_rng_state"])
    if not _core.is_grad_enabled():
        return function(*args, **kwargs)

    def rerun(*inputs):
        with _random_stream_as(rng_state), recompute_context:
            function(*inputs, **kwargs)

    frame = _Frame(rerun, args, early_stop, _METADATA_FNS[check], debug)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        outputs = function(*args, **kwargs)
        frame.forward_done = True
    if not frame.forward_done:
        raise RuntimeError(
            "torch.utils.checkpoint: the forward context provided by context_fn suppressed an "
            "exception raised during the checkpointed forward. This is not supported because "
            "checkpoint cannot return a value for a failed forward."
        )
    return outputs


# ---- selective checkpointing ------------------------------------------------------------------


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an operation's output: save it in the forward
    (``*_SAVE``), recompute it in backward (``*_RECOMPUTE``) or offload it to the CPU
    (``*_CPU_OFFLOAD``); ``MUST_*`` may not be overridden by other systems, ``PREFER_*`` may."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """PyTorch's selective checkpointing, which is not available: its policy decides for each
    ATen operator call, and ferrograd has no operator dispatch for Python to intercept
    (``TorchDispatchMode``). Raises ``NotImplementedError`` (``TypeError`` for an argument
    that is neither a function nor a list, as PyTorch)."""
    if not isinstance(policy_fn_or_list, list) and not callable(policy_fn_or_list):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    raise NotImplementedError(
        "torch.utils.checkpoint.create_selective_checkpoint_contexts: selective activation "
        "checkpointing decides per operator call, which needs operator dispatch modes "
        "(TorchDispatchMode) that ferrograd does not have; checkpoint the segment whole instead."
    )


# ---- public functions -------------------------------------------------------------------------

_OMITTED_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a "
    "future release, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants."
)


def _checkpoint(function, args, kwargs, settings):
    """``checkpoint(function, *args, **kwargs)`` with its keyword-only ``settings``."""
    use_reentrant = settings["use_reentrant"]
    if use_reentrant is None:
        warnings.warn(_OMITTED_WARNING, stacklevel=3)
        use_reentrant = True
    if not use_reentrant:
        return _checkpoint_without_reentrant(function, args, kwargs, settings)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if (
        settings["context_fn"] is not noop_context_fn
        or settings["debug"] is not False
        or settings["respect_saved_tensors_hooks"] is not None
    ):
        raise ValueError(
            "Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only "
            "supported when use_reentrant=False."
        )
    return CheckpointFunction.apply(function, settings["preserve_rng_state"], *args)


def checkpoint(
    function=None,
    *args,
    use_reentrant=None,
    preserve_rng_state=True,
    context_fn=noop_context_fn,
    determinism_check="default",
    debug=False,
    early_stop=True,
    respect_saved_tensors_hooks=None,
    **kwargs,
):
    """Runs ``function(*args, **kwargs)`` without keeping the tensors it saves for backward,
    which backward recomputes. ``preserve_rng_state`` replays the random stream as the forward
    saw it (dropout masks match). The other settings concern the non-reentrant variant (see the
    module): ``context_fn`` returns the contexts to run the forward and the recomputation in,
    ``determinism_check`` is ``"default"`` or ``"none"``, ``debug`` details a failed check,
    ``early_stop`` lets the recomputation save more than the forward, and
    ``respect_saved_tensors_hooks`` only matters to selective checkpointing. Without
    ``function`` (and arguments), returns a decorator applying the same settings."""
    settings = {
        "use_reentrant": use_reentrant,
        "preserve_rng_state": preserve_rng_state,
        "context_fn": context_fn,
        "determinism_check": determinism_check,
        "debug": debug,
        "early_stop": early_stop,
        "respect_saved_tensors_hooks": respect_saved_tensors_hooks,
    }
    if function is not None or args:
        return _checkpoint(function, args, kwargs, settings)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def decorate(fn):
        @functools.wraps(fn)
        def checkpointed(*a, **kw):
            return _checkpoint(fn, a, kw, settings)

        return checkpointed

    return decorate


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs ``functions`` (an ``nn.Sequential`` or a list of callables) one after another on
    ``input``, checkpointing all but the last of ``segments`` equal chunks."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In a future release, we will raise an exception if "
            "use_reentrant is not passed. use_reentrant=False is recommended, but if you need "
            "to preserve the current default behavior, you can pass use_reentrant=True. Refer "
            "to docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start, end):
        def forward(x):
            for f in functions[start : end + 1]:
                x = f(x)
            return x

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run(end + 1, len(functions) - 1)(input)


__all__ = [
    "CheckpointError",
    "CheckpointFunction",
    "CheckpointPolicy",
    "GraphExecGroup",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "create_selective_checkpoint_contexts",
    "detach_variable",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
]
