"""Small Python types the native module hands out: hook handles and ``max``/``min`` results."""

from __future__ import annotations

from collections import namedtuple
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

else:
    max_result = namedtuple("max", ["values", "indices"])
    min_result = namedtuple("min", ["values", "indices"])


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
