"""``utils.checkpoint``: activation checkpointing. A checkpointed segment keeps only its inputs;
backward runs the segment's forward again (with the random stream as it was, by default) and
differentiates that recomputation, trading compute for memory.

Two variants, chosen by ``use_reentrant`` as in PyTorch:

* ``use_reentrant=True`` (PyTorch's default when the argument is omitted, with its warning):
  the forward runs under ``no_grad``; backward recomputes the segment and calls
  ``autograd.backward`` on it from inside the outer backward, so parameters used by the
  segment receive their ``.grad`` directly. As in PyTorch, outputs require grad only when an
  input does, keyword arguments are refused, and it is meant for ``.backward()`` (ferrograd
  cannot detect ``autograd.grad`` through it, where PyTorch raises; the gradients with respect
  to the inputs are right but the segment's parameters also get ``.grad``).
* ``use_reentrant=False``: ferrograd has no saved-tensor hooks yet, so it checkpoints
  differently from PyTorch with the same results: the forward runs with grad mode on, the
  leaves the outputs depend on (the segment's parameters) are read from that graph, and the
  graph is dropped at once (only one segment's activations live at a time). The segment
  becomes one autograd node whose inputs are the tensor arguments and those leaves; its
  backward recomputes the segment and returns the gradients through ``autograd.grad``. So it
  works with ``autograd.grad`` and ``backward(inputs=...)``, gives parameters gradients when no
  input requires grad, and accepts keyword arguments. Limitation: a non-leaf tensor that
  requires grad and reaches the segment through its closure (not as an argument) has its
  history traversed again by the recomputation.
"""

import contextlib
import warnings

from .. import _core
from .._core import Tensor
from .._grad_mode import enable_grad, no_grad
from ..autograd import grad as _autograd_grad
from ..autograd.function import Function

_DETERMINISM_CHECKS = ("default", "none")


class CheckpointError(RuntimeError):
    """The recomputation in backward did not reproduce the forward (non-reentrant variant)."""


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
        from ..autograd import backward

        backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(t.grad if isinstance(t, Tensor) else None for t in detached)
        return (None, None, *grads)


# ---- the non-reentrant variant ----------------------------------------------------------------


def _leaves_reached(outputs, exclude):
    """The leaf tensors that require grad and that ``outputs``' graph reaches (in the order
    first met), other than those in ``exclude``."""
    seen = set()
    leaves = []
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        variable = getattr(node, "variable", None)
        if variable is not None:
            if not any(variable is e for e in exclude) and not any(variable is v for v in leaves):
                leaves.append(variable)
            continue
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return leaves


def _split_outputs(outputs):
    """``(rebuild, tensors)``: the tensors among the outputs and a function putting tensors
    back in their places (a single tensor, or a tuple/list holding tensors and other values)."""
    if isinstance(outputs, Tensor):
        return (lambda ts: ts[0]), [outputs]
    if isinstance(outputs, (tuple, list)):
        kind = type(outputs)
        where = [i for i, o in enumerate(outputs) if isinstance(o, Tensor)]

        def rebuild(tensors):
            items = list(outputs)
            for i, t in zip(where, tensors):
                items[i] = t
            return kind(items) if kind in (tuple, list) else kind(*items)

        return rebuild, [outputs[i] for i in where]
    return (lambda ts: outputs), []


class _Segment:
    """What the non-reentrant node needs to recompute its segment."""

    def __init__(self, function, args, kwargs, rng_state, context, check):
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.rng_state = rng_state
        self.context = context
        self.check = check
        self.arg_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.kwarg_names = [k for k, v in kwargs.items() if isinstance(v, Tensor)]

    def call(self, tensors):
        """Runs the segment on ``tensors`` in place of its tensor arguments (positional, then
        keyword)."""
        args = list(self.args)
        kwargs = dict(self.kwargs)
        n = len(self.arg_positions)
        for i, t in zip(self.arg_positions, tensors[:n]):
            args[i] = t
        for k, t in zip(self.kwarg_names, tensors[n:]):
            kwargs[k] = t
        return self.function(*args, **kwargs)

    def tensors(self):
        return [self.args[i] for i in self.arg_positions] + [
            self.kwargs[k] for k in self.kwarg_names
        ]


def _fresh(tensors):
    return [t.detach().requires_grad_(t.requires_grad) for t in tensors]


class _NonReentrantCheckpoint(Function):
    """One node for a checkpointed segment: inputs are the segment's tensor arguments and the
    leaves its outputs depend on; outputs are the forward's results."""

    @staticmethod
    def forward(ctx, segment, results, differentiable, n_args, *inputs):
        ctx.segment = segment
        ctx.differentiable = differentiable
        ctx.n_args = n_args
        ctx.metadata = [(tuple(r.shape), r.dtype) for r in results]
        ctx.save_for_backward(*inputs[:n_args])
        ctx.leaves = inputs[n_args:]
        ctx.mark_non_differentiable(*(r for r, d in zip(results, differentiable) if not d))
        return tuple(results)

    @staticmethod
    def backward(ctx, *grad_outputs):
        segment = ctx.segment
        args = _fresh(ctx.saved_tensors)
        with _random_stream_as(segment.rng_state), enable_grad(), segment.context:
            _, outputs = _split_outputs(segment.call(args))
        if segment.check == "default":
            recomputed = [(tuple(o.shape), o.dtype) for o in outputs]
            if recomputed != ctx.metadata:
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values have different metadata than "
                    f"during the forward pass: forward gave {ctx.metadata}, recomputation gave "
                    f"{recomputed}"
                )
        pairs = [
            (o, g)
            for o, g, d in zip(outputs, grad_outputs, ctx.differentiable)
            if d and o.requires_grad
        ]
        targets = args + list(ctx.leaves)
        wanted = [t for t in targets if t.requires_grad]
        found = iter(())
        if pairs and wanted:
            found = iter(
                _autograd_grad(
                    [o for o, _ in pairs],
                    wanted,
                    [g for _, g in pairs],
                    create_graph=_core.is_grad_enabled(),
                    allow_unused=True,
                )
            )
        grads = tuple(next(found) if t.requires_grad else None for t in targets)
        return (None, None, None, None, *grads)


def _checkpoint_non_reentrant(function, args, kwargs, preserve, context_fn, check):
    if check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got {check}"
        )
    if not _core.is_grad_enabled():
        return function(*args, **kwargs)
    forward_context, recompute_context = context_fn()
    segment = _Segment(function, args, kwargs, _stream_state(preserve), recompute_context, check)
    originals = segment.tensors()
    copies = _fresh(originals)
    with enable_grad(), forward_context:
        outputs = segment.call(copies)
    rebuild, results = _split_outputs(outputs)
    differentiable = [r.requires_grad for r in results]
    if not any(differentiable):
        return outputs
    leaves = _leaves_reached([r for r in results if r.requires_grad], copies)
    detached = [r.detach() for r in results]
    wrapped = _NonReentrantCheckpoint.apply(
        segment, detached, differentiable, len(originals), *originals, *leaves
    )
    return rebuild(list(wrapped))


# ---- public functions -------------------------------------------------------------------------

_OMITTED_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a "
    "future release, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants."
)


def _checkpoint(
    function, args, kwargs, use_reentrant, preserve_rng_state, context_fn, check, debug
):
    if use_reentrant is None:
        warnings.warn(_OMITTED_WARNING, stacklevel=3)
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only "
                "supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_non_reentrant(function, args, kwargs, preserve_rng_state, context_fn, check)


def checkpoint(
    function=None,
    *args,
    use_reentrant=None,
    preserve_rng_state=True,
    context_fn=noop_context_fn,
    determinism_check="default",
    debug=False,
    early_stop=True,
    **kwargs,
):
    """Runs ``function(*args, **kwargs)`` without keeping its intermediate results, which
    backward recomputes. ``preserve_rng_state`` replays the random stream as the forward saw it
    (dropout masks match). Without ``function`` (and arguments), returns a decorator applying
    the same settings. See the module for the two ``use_reentrant`` variants; ``early_stop``
    is accepted and has no effect."""
    if function is None and not args:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

        def decorate(fn):
            def checkpointed(*a, **kw):
                return _checkpoint(
                    fn,
                    a,
                    kw,
                    use_reentrant,
                    preserve_rng_state,
                    context_fn,
                    determinism_check,
                    debug,
                )

            checkpointed.__wrapped__ = fn
            checkpointed.__name__ = getattr(fn, "__name__", "checkpointed")
            checkpointed.__doc__ = getattr(fn, "__doc__", None)
            return checkpointed

        return decorate
    return _checkpoint(
        function,
        args,
        kwargs,
        use_reentrant,
        preserve_rng_state,
        context_fn,
        determinism_check,
        debug,
    )


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
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "detach_variable",
    "noop_context_fn",
]
