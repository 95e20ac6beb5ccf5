"""Custom differentiable operations: subclass ``Function`` with static ``forward``/``backward``.

The node runs inside the Rust engine like any built-in op; only ``forward`` and ``backward``
themselves are Python. Saved tensors are version-checked, and ``backward`` may itself be
differentiated (``create_graph=True``). Both of PyTorch's styles work: ``forward(ctx, *args)``,
or ``forward(*args)`` with a separate ``setup_context(ctx, inputs, output)``.
"""

import functools
import inspect
import warnings
import weakref

from .. import _core
from .._core import Tensor
from .._grad_mode import is_grad_enabled, no_grad
from ..overrides import handle_torch_function, has_torch_function_unary

_ONCE_DIFFERENTIABLE = (
    "trying to differentiate twice a function that was marked with @once_differentiable"
)


class FunctionCtx:
    """The ``ctx`` passed to ``forward`` (or ``setup_context``) and ``backward``."""

    def __init__(self):
        self.to_save = ()
        self._saved = None  # in backward: reads the saved tensors (see saved_tensors)
        self.needs_input_grad = ()
        self.non_differentiable = ()
        self.dirty_tensors = ()
        self.materialize_grads = True
        self._materialize_non_diff_grads = True
        self._clear_on_access = False
        self._accessed = False

    def save_for_backward(self, *tensors):
        """Keeps ``tensors`` (or ``None``s) for ``backward``: read them back as
        ``ctx.saved_tensors``."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{len(self.to_save)} is of type {type(t).__name__}"
                )
        self.to_save = tensors

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward`` (``None`` kept in place); in backward,
        unpacked at each access (their unpack hooks run each time, as PyTorch's)."""
        if self._saved is None:
            return tuple(t() if isinstance(t, weakref.ref) else t for t in self.to_save)
        if self._clear_on_access:
            # the Function's `clear_saved_tensors_on_access = True`: handed out once
            if self._accessed:
                raise RuntimeError(
                    "saved_tensors can only be accessed once when clear_saved_tensors_on_access "
                    "is True"
                )
            self._accessed = True
        return self._saved()

    @property
    def saved_variables(self):
        """The old name of ``saved_tensors`` (deprecated, with PyTorch's warning)."""
        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2
        )
        return self.saved_tensors

    def mark_non_differentiable(self, *tensors):
        """Declares outputs that get no gradient (e.g. indices)."""
        self.non_differentiable = tensors

    def mark_dirty(self, *tensors):
        """Declares inputs the forward modified in place: returned, they keep their identity
        and take the Function's node as their history, as an in-place op's result does."""
        self.dirty_tensors = tensors

    def set_materialize_grads(self, value):
        """Whether output gradients that did not arrive reach ``backward`` as zeros (the
        default) or as ``None``."""
        self.materialize_grads = bool(value)


def once_differentiable(fn):
    """Marks a ``backward`` that cannot itself be differentiated: it runs with grad mode off,
    and when a graph is being built its results lead to a node that raises if differentiated."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _core.is_grad_enabled():
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        errored = _delayed_error(_ONCE_DIFFERENTIABLE, outputs)
        return errored[0] if single else errored

    return wrapper


_NO_EDGE = _core.tensor(0.0)


def _delayed_error(message, values):
    """``values`` (tensors or None) as outputs of an ``Error`` node whose backward raises
    ``message`` (PyTorch's DelayedError): each tensor is a fresh leaf requiring grad first."""
    leaves = []
    for v in values:
        if isinstance(v, Tensor):
            v = v.detach()
            v.requires_grad_(True)
        leaves.append(v)
    tensors = [v for v in leaves if isinstance(v, Tensor)]
    if not tensors:
        return tuple(leaves)

    def backward(grads, saved):
        raise RuntimeError(message)

    positions = [i for i, v in enumerate(leaves) if isinstance(v, Tensor)]
    # one edge per value, as PyTorch's: a None leads nowhere (a tensor needing no gradient)
    edges = [v if isinstance(v, Tensor) else _NO_EDGE for v in leaves]
    wrapped = _core._record_function(
        "Error",
        len(leaves),
        list(range(len(leaves))),
        edges,
        [t.detach() for t in tensors],
        positions,
        len(leaves),
        [True] * len(tensors),
        [False] * len(tensors),
        [],
        backward,
        True,
    )
    result = list(leaves)
    for p, w in zip(positions, wrapped):
        result[p] = w
    return tuple(result)


def _check_dirty(dirty, outputs, inputs, differentiable):
    """PyTorch's checks of ``ctx.mark_dirty`` arguments that are not inputs, and that every
    dirty tensor is returned (the core refuses the rest when it records)."""
    recording = is_grad_enabled() and any(t.requires_grad for t in inputs)
    message = (
        "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that "
        "have been mutated should be passed to ctx.mark_dirty()."
    )
    for o, diff in zip(outputs, differentiable):
        if not recording or not diff or not any(o is d for d in dirty):
            continue
        if not any(o is i for i in inputs):
            if o._is_view():
                raise RuntimeError(message)
            warnings.warn(message, stacklevel=3)
    if not all(any(d is o for o in outputs) for d in dirty):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function."
        )


def _as_is_through_torch_function(outputs, inputs, dirty):
    """``outputs`` with each input returned as-is (not dirty) whose class takes part in the
    ``__torch_function__`` protocol replaced by its ``view_as`` of itself through the protocol,
    as PyTorch makes that alias in Python so that a subclass keeps its type (Note [Where
    __torch_function__ is honoured], overrides.py); other outputs are left to the core."""
    replaced = None
    for k, o in enumerate(outputs):
        if not isinstance(o, Tensor) or not has_torch_function_unary(o):
            continue
        if any(o is i for i in inputs) and not any(o is d for d in dirty):
            replaced = replaced or list(outputs)
            with no_grad():  # the Function's node, not view_as's, is the alias's history
                replaced[k] = handle_torch_function(Tensor.view_as, (o,), o, o)
    return outputs if replaced is None else tuple(replaced)


def _is_overridden(cls, name):
    return getattr(cls, name) is not getattr(Function, name)


class Function:
    """Base class of custom autograd operations (``MyFn.apply(*args)``)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # the class of this Function's nodes (`MyFnBackward`), as PyTorch's `_backward_cls`
        cls._backward_cls = _core._node_class(f"{cls.__name__}Backward")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method. "
            "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx._clear_on_access = bool(getattr(cls, "clear_saved_tensors_on_access", False))
        with_setup_context = _is_overridden(cls, "setup_context")
        if with_setup_context:
            # every argument, defaults filled in, as PyTorch binds them for setup_context
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        inputs = [args[i] for i in positions]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            if with_setup_context:
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        outputs = _as_is_through_torch_function(outputs, inputs, ctx.dirty_tensors)
        tensor_at = [k for k, o in enumerate(outputs) if isinstance(o, Tensor)]
        if not tensor_at:
            return result
        tensors = [outputs[k] for k in tensor_at]
        non_diff = ctx.non_differentiable
        differentiable = [
            o.is_floating_point() and not any(o is n for n in non_diff) for o in tensors
        ]
        dirty = [any(o is d for d in ctx.dirty_tensors) for o in tensors]
        _check_dirty(ctx.dirty_tensors, tensors, inputs, differentiable)
        # save_for_backward may hold None: only the tensors go to the core, put back in place
        saved = [t for t in ctx.to_save if t is not None]
        is_none = [t is None for t in ctx.to_save]

        def unpack(saved_tensors):
            it = iter(saved_tensors)
            return tuple(None if none else next(it) for none in is_none)

        n_outputs = len(outputs)

        def backward(grads, saved_tensors):
            ctx._saved = lambda: unpack(saved_tensors())
            # one gradient per output of forward; None for those that are not tensors
            full = [None] * n_outputs
            for k, g, diff in zip(tensor_at, grads, differentiable):
                # `ctx._materialize_non_diff_grads = False`: no zeros for non-differentiable ones
                full[k] = g if diff or ctx._materialize_non_diff_grads else None
            try:
                return cls.backward(ctx, *full)
            finally:
                # the saved tensors are readable only during this backward call: the handle
                # holds the node, which holds ctx (a cycle through the core that Python's
                # collector cannot see, with a retained graph)
                ctx._saved = None
                saved_tensors.close()

        try:
            wrapped = _core._record_function(
                f"{cls.__name__}Backward",
                len(args),
                positions,
                inputs,
                tensors,
                tensor_at,
                n_outputs,
                differentiable,
                dirty,
                saved,
                backward,
                ctx.materialize_grads,
                ctx,
            )
        finally:
            # Note [Saved tensors held weakly]: the core keeps what backward needs; ctx holding
            # the tensors as well would keep them alive as long as the graph (and, for an
            # output, make a cycle Python's collector cannot see: output -> its node, in Rust
            # -> this backward -> ctx -> output), so ctx keeps them weakly, as PyTorch clears
            # `to_save` (also when recording raised: a pack hook's error, checkpoint's early
            # stop). The marks were for this call; PyTorch clears them too.
            ctx.dirty_tensors = ctx.non_differentiable = ()
            ctx.to_save = tuple(None if t is None else weakref.ref(t) for t in ctx.to_save)
        if single:
            return wrapped[0]
        out = list(outputs)
        for k, w in zip(tensor_at, wrapped):
            out[k] = w
        return tuple(out)


class InplaceFunction(Function):
    """A ``Function`` that may work in place (``inplace`` flag kept for the subclass)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


__all__ = ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]
