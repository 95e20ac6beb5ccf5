"""Custom differentiable operations: subclass ``Function`` with static ``forward``/``backward``.

The node runs inside the Rust engine like any built-in op; only ``forward`` and ``backward``
themselves are Python. Saved tensors are version-checked, and ``backward`` may itself be
differentiated (``create_graph=True``). Both of PyTorch's styles work: ``forward(ctx, *args)``,
or ``forward(*args)`` with a separate ``setup_context(ctx, inputs, output)``.
"""

import functools

from .. import _core
from .._core import Tensor
from .._grad_mode import no_grad

_ONCE_DIFFERENTIABLE = (
    "trying to differentiate twice a function that was marked with @once_differentiable"
)


class FunctionCtx:
    """The ``ctx`` passed to ``forward`` (or ``setup_context``) and ``backward``."""

    def __init__(self):
        self.to_save = ()
        self._saved = None
        self.needs_input_grad = ()
        self.non_differentiable = ()
        self.dirty_tensors = ()
        self.materialize_grads = True
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
        """The tensors given to ``save_for_backward`` (unpacked, with ``None`` kept in place)."""
        if self._saved is None:
            return tuple(self.to_save)
        if self._clear_on_access:
            # the Function's `clear_saved_tensors_on_access = True`: handed out once
            if self._accessed:
                raise RuntimeError(
                    "saved_tensors can only be accessed once when clear_saved_tensors_on_access "
                    "is True"
                )
            self._accessed = True
            saved, self._saved = self._saved, ()
            return saved
        return self._saved

    def mark_non_differentiable(self, *tensors):
        """Declares outputs that get no gradient (e.g. indices)."""
        self.non_differentiable = tensors

    def mark_dirty(self, *tensors):
        """Declares inputs the forward modified in place (ferrograd records the outputs as new
        tensors that alias them)."""
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
    wrapped = _core._record_function(
        "Error",
        len(leaves),
        positions,
        tensors,
        [t.detach() for t in tensors],
        [True] * len(tensors),
        [],
        backward,
        True,
    )
    result = list(leaves)
    for p, w in zip(positions, wrapped):
        result[p] = w
    return tuple(result)


def _is_overridden(cls, name):
    return getattr(cls, name) is not getattr(Function, name)


class Function:
    """Base class of custom autograd operations (``MyFn.apply(*args)``)."""

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
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        inputs = [args[i] for i in positions]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            if _is_overridden(cls, "setup_context"):
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        tensor_at = [k for k, o in enumerate(outputs) if isinstance(o, Tensor)]
        if not tensor_at:
            return result
        tensors = [outputs[k] for k in tensor_at]
        non_diff = ctx.non_differentiable
        differentiable = [
            o.is_floating_point() and not any(o is n for n in non_diff) for o in tensors
        ]
        # save_for_backward may hold None: only the tensors go to the core, put back in place
        to_save = list(ctx.to_save)
        saved = [t for t in to_save if t is not None]

        def unpack(saved_tensors):
            it = iter(saved_tensors)
            return tuple(None if t is None else next(it) for t in to_save)

        n_outputs = len(outputs)

        def backward(grads, saved_tensors):
            ctx._saved = unpack(saved_tensors)
            # one gradient per output of forward; None for those that are not tensors
            full = [None] * n_outputs
            for k, g in zip(tensor_at, grads):
                full[k] = g
            return cls.backward(ctx, *full)

        wrapped = _core._record_function(
            f"{cls.__name__}Backward",
            len(args),
            positions,
            inputs,
            tensors,
            differentiable,
            saved,
            backward,
            ctx.materialize_grads,
        )
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
