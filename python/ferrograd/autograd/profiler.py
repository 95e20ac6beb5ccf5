"""``autograd.profiler``: ``profile`` records every op called from Python, every backward node
and every ``record_function`` range (the recording is in the core); ``key_averages().table()``
prints them grouped by name as PyTorch's profiler does."""

import json
import warnings
from collections import OrderedDict

from .. import _core
from . import _profiler_shapes


def _format_time(us):
    """Microseconds as PyTorch prints them (``12.345us``, ``1.234ms``, ``1.234s``)."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class Interval:
    """A time range in microseconds."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """``end - start``."""
        return self.end - self.start


class FunctionEvent:
    """One recorded range (PyTorch's constructor): its name, thread and time range in
    microseconds; the ranges inside it on its thread are its ``cpu_children``, and its self
    time is its time minus theirs."""

    def __init__(
        self,
        id,
        name,
        thread,
        start_us,
        end_us,
        fwd_thread=None,
        input_shapes=None,
        stack=None,
        scope=0,
        use_device=None,
        cpu_memory_usage=0,
        device_memory_usage=0,
        is_async=False,
        is_remote=False,
        sequence_nr=-1,
        node_id=-1,
        device_type=None,
        device_index=0,
        device_resource_id=None,
        is_legacy=False,
        flops=None,
        trace_name=None,
        concrete_inputs=None,
        kwinputs=None,
        is_user_annotation=False,
    ):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.key = name
        self.trace_name = trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.input_shapes = input_shapes
        self.stack = stack or []
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1

    def append_cpu_child(self, child):
        """Records ``child`` as a range directly inside this one."""
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        """Records the range this one is directly inside."""
        self.cpu_parent = parent

    @property
    def cpu_time_total(self):
        """The range's length."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        """The range's length minus its children's."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self):
        """Time on an accelerator: none here."""
        return 0

    @property
    def self_device_time_total(self):
        """Self time on an accelerator: none here."""
        return 0

    @property
    def cpu_time(self):
        """Average time per call (one call)."""
        return self.cpu_time_total / self.count

    def __repr__(self):
        return (
            f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
            f"cpu_time={_format_time(self.cpu_time_total)} "
            f"self_cpu_time={_format_time(self.self_cpu_time_total)} "
            f"input_shapes={self.input_shapes}>"
        )


class FunctionEventAvg:
    """Events of one key summed: ``count``, ``cpu_time_total``, ``self_cpu_time_total``,
    ``device_time_total`` and the average ``cpu_time`` (the key is the first event's)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.input_shapes = None
        self.cpu_time_total = 0
        self.self_cpu_time_total = 0
        self.device_time_total = 0
        self.self_device_time_total = 0

    def add(self, other):
        """Adds one event (or another average) of the same key."""
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.input_shapes = other.input_shapes
        if other.key != self.key:
            raise AssertionError(f"expected key {self.key!r}, got {other.key!r}")
        return self._accumulate(other)

    def _accumulate(self, other):
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_device_time_total += other.self_device_time_total
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self):
        """Average time per call."""
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key} "
            f"self_cpu_time={_format_time(self.self_cpu_time_total)} "
            f"cpu_time={_format_time(self.cpu_time_total)}>"
        )


_SORT_KEYS = {
    "cpu_time": "cpu_time",
    "cpu_time_total": "cpu_time_total",
    "self_cpu_time_total": "self_cpu_time_total",
    "count": "count",
}


class EventList(list):
    """A list of events (or of per-name averages) that prints as PyTorch's profiler table."""

    def _populate_cpu_children(self):
        """Links each event to the events directly inside it on its thread (``cpu_children``,
        ``cpu_parent``): per thread, in order of start (the longer first), an event is a child
        of the innermost open event that contains it."""
        by_thread = OrderedDict()
        for event in self:
            if not event.is_async:
                by_thread.setdefault(event.thread, []).append(event)
        for events in by_thread.values():
            events.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
            open_events = []
            for event in events:
                while open_events:
                    parent = open_events[-1]
                    # (a nanosecond of slack: recorded times are float microseconds)
                    inside = (
                        event.time_range.start < parent.time_range.end
                        and event.time_range.end <= parent.time_range.end + 1e-3
                    )
                    if inside:
                        parent.append_cpu_child(event)
                        event.set_cpu_parent(parent)
                        break
                    open_events.pop()
                open_events.append(event)

    def key_averages(self, group_by_input_shapes=False):
        """The events grouped by name (and input shapes), in order of first appearance."""
        groups = OrderedDict()
        for event in self:
            key = (event.key, str(event.input_shapes)) if group_by_input_shapes else event.key
            groups.setdefault(key, FunctionEventAvg()).add(event)
        return EventList(groups.values())

    def total_average(self):
        """Every event summed into one (key ``Total``)."""
        total = FunctionEventAvg()
        total.key = "Total"
        for event in self:
            total._accumulate(event)
        return total

    @property
    def self_cpu_time_total(self):
        """The sum of the events' self times, in microseconds."""
        return sum(e.self_cpu_time_total for e in self)

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        max_shapes_column_width=80,
        header=None,
        top_level_events_only=False,
    ):
        """The events as PyTorch's profiler table: name, self and total CPU time (and their
        shares of all self time), average time, and number of calls."""
        rows = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            rows.sort(key=lambda e: getattr(e, _SORT_KEYS[sort_by]), reverse=True)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        name_width = min(max((len(e.key) for e in self), default=4) + 4, max_name_column_width)
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                   "CPU time avg", "# of Calls"]  # fmt: skip
        widths = [name_width] + [12] * (len(headers) - 1)
        line = "".join("-" * w + "  " for w in widths)
        total = self.self_cpu_time_total or 1.0

        def fmt(cells):
            return "".join(f"{c:>{w}}  " for c, w in zip(cells, widths))

        def name(key):
            return key if len(key) <= name_width else key[: name_width - 3] + "..."

        out = []
        if header is not None:
            out += ["=" * len(line), header]
        out += [line, fmt(headers), line]
        for e in rows:
            out.append(
                fmt(
                    [
                        name(e.key),
                        f"{e.self_cpu_time_total / total * 100:.2f}%",
                        _format_time(e.self_cpu_time_total),
                        f"{e.cpu_time_total / total * 100:.2f}%",
                        _format_time(e.cpu_time_total),
                        _format_time(e.cpu_time),
                        str(e.count),
                    ]
                )
            )
        out += [line, f"Self CPU time total: {_format_time(self.self_cpu_time_total)}", ""]
        return "\n".join(out)

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace (``chrome://tracing``, Perfetto)."""
        trace = [
            {
                "name": e.name,
                "ph": "X",
                "ts": e.time_range.start,
                "dur": e.cpu_time_total,
                "pid": 0,
                "tid": e.thread,
                "cat": "cpu_op",
            }
            for e in self
            if isinstance(e, FunctionEvent)
        ]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)

    def __str__(self):
        return self.table()


class profile:
    """Records ops, backward nodes and ``record_function`` ranges while the ``with`` block
    runs, as ``torch.autograd.profiler.profile`` (CPU only: ``use_cuda``/``use_device`` other
    than the CPU are accepted and ignored with a warning)."""

    def __init__(
        self,
        enabled=True,
        *,
        use_cuda=False,
        use_device=None,
        record_shapes=False,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        with_modules=False,
        use_kineto=False,
        use_cpu=True,
        experimental_config=None,
        acc_events=False,
        custom_trace_id_callback=None,
    ):
        if use_cuda or use_device not in (None, "cpu"):
            warnings.warn(
                "ferrograd runs on the CPU only: the profiler records CPU time and ignores "
                f"use_cuda={use_cuda!r}, use_device={use_device!r}",
                stacklevel=2,
            )
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.function_events = None
        self._entered = False
        self._wrapped = []

    def __enter__(self):
        if self._entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._entered = True
        if self.enabled:
            if _core._profiler_enabled():
                raise RuntimeError("Profiler is already enabled on this thread")
            _core._profiler_start()
            if self.record_shapes:
                self._wrapped = _profiler_shapes.install()
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.enabled:
            _profiler_shapes.uninstall(self._wrapped)
            self._wrapped = []
            events = [
                FunctionEvent(
                    id=k,
                    name=name,
                    thread=thread,
                    start_us=t0,
                    end_us=t0 + length,
                    sequence_nr=seq,
                    fwd_thread=fwd_thread,
                    input_shapes=[] if shapes is None else shapes,
                )
                for k, (name, t0, length, _self, thread, _depth, seq, fwd_thread, shapes) in (
                    enumerate(_core._profiler_stop())
                )
            ]
            events.sort(key=lambda e: e.time_range.start)
            self.function_events = EventList(events)
            self.function_events._populate_cpu_children()
        return False

    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def events(self):
        """The recorded events, in order of start."""
        self._check_finished()
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """The events grouped by name (``table()`` prints them)."""
        self._check_finished()
        return self.function_events.key_averages(group_by_input_shape)

    def total_average(self):
        """Every event summed into one."""
        self._check_finished()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """The sum of the events' self times, in microseconds."""
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def table(self, sort_by=None, row_limit=100, **kwargs):
        """The events, as :meth:`EventList.table`."""
        self._check_finished()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace."""
        self._check_finished()
        self.function_events.export_chrome_trace(path)

    def __str__(self):
        return self.table() if self.function_events is not None else "<unfinished profile>"


class record_function:
    """Labels a range of code in the profile (a context manager or a decorator)."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args

    def __enter__(self):
        _core._profiler_push(self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        _core._profiler_pop()
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapped


__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]
