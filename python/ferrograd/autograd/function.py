"""Custom differentiable operations: subclass ``Function`` with static ``forward``/``backward``.

The node runs inside the Rust engine like any built-in op; only ``forward`` and ``backward``
themselves are Python. Saved tensors are version-checked, and ``backward`` may itself be
differentiated (``create_graph=True``).
"""

import functools

from .. import _core
from .._core import Tensor
from .._grad_mode import no_grad


class FunctionCtx:
    """The ``ctx`` passed to ``forward`` and ``backward``."""

    def __init__(self):
        self.to_save = ()
        self.saved_tensors = ()
        self.needs_input_grad = ()
        self.non_differentiable = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        """Keeps ``tensors`` for ``backward`` (read them back as ``ctx.saved_tensors``)."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{len(self.to_save)} is of type {type(t).__name__}"
                )
        self.to_save = tensors

    def mark_non_differentiable(self, *tensors):
        """Declares outputs that get no gradient (e.g. indices)."""
        self.non_differentiable = tensors

    def mark_dirty(self, *tensors):
        """Accepted for compatibility: outputs that alias inputs are recorded as new tensors."""

    def set_materialize_grads(self, value):
        """Missing output gradients reach ``backward`` as zeros (always, in ferrograd)."""
        self.materialize_grads = value


def once_differentiable(fn):
    """Marks a ``backward`` that cannot itself be differentiated: it runs with grad mode off."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    return wrapper


class Function:
    """Base class of custom autograd operations (``MyFn.apply(*args)``)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement the backward function for custom autograd.Function."
        )

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        inputs = [args[i] for i in positions]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            result = cls.forward(ctx, *args)
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        for o in outputs:
            if not isinstance(o, Tensor):
                raise TypeError(
                    f"{cls.__name__}.forward must return tensors, got {type(o).__name__}"
                )
        non_diff = ctx.non_differentiable
        differentiable = [
            o.is_floating_point() and not any(o is n for n in non_diff) for o in outputs
        ]
        saved = [t for t in ctx.to_save if t is not None]

        def backward(grads, saved_tensors):
            ctx.saved_tensors = tuple(saved_tensors)
            return cls.backward(ctx, *grads)

        wrapped = _core._record_function(
            f"{cls.__name__}Backward",
            len(args),
            positions,
            inputs,
            list(outputs),
            differentiable,
            saved,
            backward,
        )
        ctx.saved_tensors = tuple(saved)
        return wrapped[0] if single else tuple(wrapped)


__all__ = ["Function", "FunctionCtx", "once_differentiable"]
