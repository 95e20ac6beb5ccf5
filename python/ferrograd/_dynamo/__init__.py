"""``torch._dynamo``, the compiler behind ``torch.compile``, as far as programs and tests reach
into it: ``torch.compile`` here has the eager backend's semantics (Note in ``_global_flags``),
so there is nothing to trace, and what dynamo offers to steer tracing does nothing, as in an
eager run: ``disable`` gives the function back, ``reset`` clears no cache, ``config`` holds
the settings scripts write (``torch._dynamo.config.suppress_errors = True``) and reads none."""

from __future__ import annotations

from . import config

__all__ = ["config", "disable", "is_compiling", "reset"]


def disable(fn=None, recursive=True, *, reason=None):
    """Runs ``fn`` outside any compiled region: ``fn`` itself, as nothing is compiled here
    (used bare, as a decorator, or as ``disable()`` returning a decorator)."""
    if fn is None:
        return lambda f: f
    return fn


def reset():
    """Clears dynamo's compiled-code caches: there are none."""


def is_compiling():
    """False: code is never being traced here."""
    return False
