"""``torch.autograd.profiler_util``: the event types of the profiler's results (the same
classes as ``ferrograd.autograd.profiler``'s)."""

from .profiler import EventList, FunctionEvent, FunctionEventAvg, _format_time

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "_format_time"]
