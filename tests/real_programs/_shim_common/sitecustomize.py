"""Loaded at interpreter start when the runner runs a program under PyTorch (the reference)."""

try:
    import _common_stubs  # noqa: F401
except ImportError:
    pass
