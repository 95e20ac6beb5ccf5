"""Grad-mode switches: context managers that also work as decorators (as in PyTorch)."""

import functools
import inspect
import warnings

from ._core import _set_grad_enabled, is_grad_enabled


class _GradModeContext:
    """Base for grad-mode context managers usable as ``with`` blocks and as decorators
    (``@no_grad()`` and, as in PyTorch 2, the bare ``@no_grad``)."""

    _enabled = True

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self):
        self._prev = _set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        _set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.",
                FutureWarning,
                stacklevel=2,
            )
            cls = func

            def func(*args, **kwargs):
                return cls(*args, **kwargs)

        if inspect.isgeneratorfunction(func):
            return _in_mode_on_each_step(self.clone, func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


def _in_mode_on_each_step(make_context, func):
    """Wraps a generator function so its body runs under a fresh ``make_context()`` each time
    it is resumed, and the caller's grad mode between steps (as PyTorch's decorators do)."""

    @functools.wraps(func)
    def generator(*args, **kwargs):
        steps = func(*args, **kwargs)
        try:
            with make_context():
                value = steps.send(None)
            while True:
                try:
                    sent = yield value
                except GeneratorExit:
                    with make_context():
                        steps.close()
                    raise
                except BaseException as error:
                    with make_context():
                        value = steps.throw(error)
                else:
                    with make_context():
                        value = steps.send(sent)
        except StopIteration as stop:
            return stop.value

    return generator


class no_grad(_GradModeContext):
    """Disables graph recording on this thread inside the block (``with ferrograd.no_grad():``)."""

    _enabled = False


class enable_grad(_GradModeContext):
    """Enables graph recording on this thread inside the block, even within ``no_grad``."""

    _enabled = True


class set_grad_enabled(_GradModeContext):
    """Sets grad mode to ``mode`` now; as a context manager, restores the previous mode on exit."""

    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode: bool):
        self._enabled = bool(mode)
        self._prev = _set_grad_enabled(self._enabled)

    def __enter__(self):
        return self

    def __call__(self, func):
        _set_grad_enabled(self._prev)
        if inspect.isgeneratorfunction(func):
            return _in_mode_on_each_step(self.clone, func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(self._enabled):
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__(self._enabled)


__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]
