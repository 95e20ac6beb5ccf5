"""Small Python types the native module hands out: hook handles and the named-tuple results
of ``max``/``min``, ``sort``, ``topk``, ``kthvalue``, ``median``, ``nanmedian``, ``mode``,
``cummax``/``cummin`` and ``aminmax`` (defined in ``return_types``)."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    from typing_extensions import Self

    from ._core import Tensor

    # What type checkers see: the runtime classes below are named ``max`` and ``min`` (as in
    # PyTorch's ``torch.return_types``), which mypy does not accept for these variable names.
    class max_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class min_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class sort_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class topk_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class kthvalue_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class median_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class nanmedian_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class mode_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class cummax_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class cummin_result(NamedTuple):
        values: Tensor
        indices: Tensor

    class aminmax_result(NamedTuple):
        min: Tensor
        max: Tensor

else:
    from .return_types import aminmax as aminmax_result
    from .return_types import cummax as cummax_result
    from .return_types import cummin as cummin_result
    from .return_types import kthvalue as kthvalue_result
    from .return_types import max as max_result
    from .return_types import median as median_result
    from .return_types import min as min_result
    from .return_types import mode as mode_result
    from .return_types import nanmedian as nanmedian_result
    from .return_types import sort as sort_result
    from .return_types import topk as topk_result

# The named tuples the native module hands out, by PyTorch's name (``torch.return_types.sort``).
RETURN_TYPES = {
    "max": max_result,
    "min": min_result,
    "sort": sort_result,
    "topk": topk_result,
    "kthvalue": kthvalue_result,
    "median": median_result,
    "nanmedian": nanmedian_result,
    "mode": mode_result,
    "cummax": cummax_result,
    "cummin": cummin_result,
    "aminmax": aminmax_result,
}


class RemovableHandle:
    """Returned by ``Tensor.register_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, tensor: Tensor, hook_id: int) -> None:
        self._tensor: Tensor | None = tensor
        self.id = hook_id

    def remove(self) -> None:
        if self._tensor is not None:
            self._tensor._remove_hook(self.id)
            self._tensor = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.remove()
        return False


# Tensor._backward_hooks of the tensors that have one, by id (removed when the tensor dies).
_LEGACY_HOOKS: dict[int, object] = {}


def legacy_hooks(tensor):
    """``tensor._backward_hooks``: the dictionary set on it, or ``None``."""
    return _LEGACY_HOOKS.get(id(tensor))


def set_legacy_hooks(tensor, hooks):
    """``tensor._backward_hooks = hooks``: kept until the tensor dies."""
    key = id(tensor)
    if key not in _LEGACY_HOOKS:
        weakref.finalize(tensor, _LEGACY_HOOKS.pop, key, None)
    _LEGACY_HOOKS[key] = hooks


def legacy_hooks_runner(hooks):
    """A gradient hook that calls each hook of the dictionary ``hooks`` (``Tensor._backward_hooks``)
    in order, as it is at backward; a hook's result, when not ``None``, replaces the gradient."""

    def run(grad):
        for hook in list(hooks.values()):
            result = hook(grad)
            if result is not None:
                grad = result
        return grad

    return run
