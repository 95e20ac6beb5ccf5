"""``torch.profiler``: the same profiler as ``ferrograd.autograd.profiler`` under PyTorch's newer
name, and ``itt`` (Intel's instrumentation API, which ferrograd is not built with)."""

from ..autograd.profiler import profile, record_function
from . import itt

__all__ = ["itt", "profile", "record_function"]
