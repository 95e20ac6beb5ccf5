"""``torch.backends.mkldnn``: oneDNN (MKL-DNN) is not used by ferrograd, so ``is_available()``
is False and its settings select nothing; they are kept (``enabled``, ``deterministic``,
``allow_tf32``, ``fp32_precision``) and ``flags`` sets them for a block and restores them, as
PyTorch's do, for programs and tests that switch oneDNN off around a computation."""

import contextlib

enabled = True
deterministic = False
allow_tf32 = True
fp32_precision = "none"


def is_available():
    """False: ferrograd does not use it."""
    return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    """Sets the given settings; returns the previous ``(enabled, deterministic, allow_tf32,
    fp32_precision)``."""
    global enabled, deterministic, allow_tf32, fp32_precision
    previous = (enabled, deterministic, allow_tf32, fp32_precision)
    if _enabled is not None:
        enabled = _enabled
    if _deterministic is not None:
        deterministic = _deterministic
    if _allow_tf32 is not None:
        allow_tf32 = _allow_tf32
    if _fp32_precision is not None:
        fp32_precision = _fp32_precision
    return previous


@contextlib.contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """The settings inside the block (by default oneDNN off), restored after it."""
    previous = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        set_flags(*previous)
