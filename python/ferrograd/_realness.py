"""PyTorch's complex-number API as it answers for real tensors, the only kind ferrograd has
until complex dtypes land (the dtypes issue): ``is_complex``, ``is_conj`` and ``is_neg`` are
False; ``conj``, ``conj_physical``, ``resolve_conj`` and ``resolve_neg`` give the tensor itself
(the same object, as PyTorch gives for a real tensor), and ``sgn`` is ``sign``, so code written
for both kinds runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._core import Tensor

FUNCTIONS = ("is_complex", "is_floating_point", "conj", "conj_physical", "resolve_conj",
             "resolve_neg", "is_conj", "is_neg", "sgn")  # fmt: skip
"""The functions, on the namespace and (all but ``is_floating_point``, a core method) as
``Tensor`` methods."""


def is_complex(input: Tensor) -> bool:
    """Whether the tensor's dtype is complex: never, for now."""
    return input.dtype.is_complex


def is_floating_point(input) -> bool:
    """Whether the tensor's dtype is a floating-point one."""
    return input.dtype.is_floating_point


def conj(input: Tensor) -> Tensor:
    """The complex conjugate: a real tensor itself."""
    return input


def conj_physical(input: Tensor) -> Tensor:
    """The conjugate materialized: a real tensor itself."""
    return input


def resolve_conj(input: Tensor) -> Tensor:
    """The tensor with a pending conjugation applied: a real tensor has none."""
    return input


def resolve_neg(input: Tensor) -> Tensor:
    """The tensor with a pending negation applied: a real tensor has none."""
    return input


def is_conj(input: Tensor) -> bool:
    """Whether the conjugate bit is set: never for a real tensor."""
    return False


def is_neg(input: Tensor) -> bool:
    """Whether the negative bit is set: never for a real tensor."""
    return False


def sgn(input: Tensor) -> Tensor:
    """``z / |z|`` of a complex tensor, which for a real one is its sign (PyTorch's node is
    ``SgnBackward0``; here it is ``SignBackward0``, the same zero gradient)."""
    return input.sign()


def _install(namespace, tensor):
    """Binds the functions in the module dict ``namespace`` and as ``tensor`` methods."""
    for name in FUNCTIONS:
        namespace[name] = globals()[name]
        if not hasattr(tensor, name):
            setattr(tensor, name, globals()[name])
    tensor.sgn_ = tensor.sign_
