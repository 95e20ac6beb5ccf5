"""``torch.backends.cudnn``: not available (no CUDA); ``enabled``, ``benchmark``,
``deterministic`` and ``allow_tf32`` are kept as set."""

import contextlib
import sys

__all__ = ["flags", "is_available", "version"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """False: no cuDNN without CUDA."""
    return False


def version():
    """None: no cuDNN."""
    return None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True, **_other):
    """Sets the flags inside the block and restores them after."""
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    saved = {n: getattr(module, n) for n in names}
    for n, v in zip(names, (enabled, benchmark, deterministic, allow_tf32)):
        setattr(module, n, v)
    try:
        yield
    finally:
        for n, v in saved.items():
            setattr(module, n, v)
