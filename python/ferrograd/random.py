"""``torch.random``: the default generator's functions (``manual_seed``, ``seed``,
``initial_seed``, ``get_rng_state``, ``set_rng_state``) as the module PyTorch also serves them
from, and ``fork_rng``, which restores the generator's state when its block ends."""

import contextlib

from ._core import default_generator, initial_seed, manual_seed, seed


def get_rng_state():
    """The default generator's state as a uint8 tensor."""
    from . import get_rng_state as state

    return state()


def set_rng_state(new_state):
    """Restores the default generator's state from ``get_rng_state``."""
    from . import set_rng_state as restore

    restore(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Runs the block with the default generator's state saved and restored after it (a CPU
    machine has no accelerator generators to fork: ``devices`` and ``device_type`` name
    none here)."""
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)


__all__ = [
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]
