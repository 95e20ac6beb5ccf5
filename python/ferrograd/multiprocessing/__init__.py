"""``torch.multiprocessing``: Python's ``multiprocessing`` with tensors that can live in shared
memory (``Tensor.share_memory_``, ``Module.share_memory``; Note [Sharing by name] in
``ferrograd/_shared_memory.py``), PyTorch's sharing-strategy functions and ``spawn``."""

from __future__ import annotations

import multiprocessing as _mp
from multiprocessing import *  # noqa: F403

from .spawn import (
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = [
    *_mp.__all__,
    "ProcessContext",
    "ProcessExitedException",
    "ProcessRaisedException",
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
    "spawn",
    "start_processes",
]

_STRATEGIES = {"file_system"}
_strategy = ["file_system"]


def get_all_sharing_strategies() -> set[str]:
    """The strategies by which tensors reach other processes: ``{"file_system"}`` (named
    segments; PyTorch on Linux also has ``file_descriptor``)."""
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    """The strategy in use (``"file_system"``)."""
    return _strategy[0]


def set_sharing_strategy(new_strategy: str) -> None:
    """Chooses the strategy; only those of ``get_all_sharing_strategies()`` are accepted."""
    if new_strategy not in _STRATEGIES:
        raise AssertionError(
            f"sharing strategy {new_strategy!r} is not available in ferrograd "
            f"(available: {sorted(_STRATEGIES)})"
        )
    _strategy[0] = new_strategy
