"""``torch.utils.benchmark``: time a statement as PyTorch's ``Timer`` does (warm-up, the thread
count fixed while timing, wall-clock ``timeit``) and report a ``Measurement`` that prints as
PyTorch's (median, interquartile range, measurement and run counts, variance warnings).

PyTorch's Callgrind instruction counts and C++ statements are not provided (``language="c++"``
and ``collect_callgrind`` raise ``NotImplementedError``, naming them)."""

from __future__ import annotations

import dataclasses
import math
import textwrap
import timeit as _timeit
from typing import Any, Callable

__all__ = ["Measurement", "TaskSpec", "Timer", "select_unit"]

_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What a ``Timer`` times: the statement, its set-up and the labels it prints under."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (with its sub-label), else the one-line statement, else the indented one."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + textwrap.indent(
            self.stmt, "  "
        )

    def setup_str(self) -> str:
        """The set-up line of the summary (empty for ``"pass"``)."""
        if self.setup in ("pass", ""):
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The task's lines of a ``Measurement``'s repr."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


def _quantile(sorted_values, q):
    """Linear-interpolation quantile of sorted values (``torch.quantile``'s default)."""
    pos = q * (len(sorted_values) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


def select_unit(t: float) -> tuple[str, float]:
    """The unit (``ns``, ``us``, ``ms`` or ``s``) in which ``t`` seconds reads as O(1)."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


@dataclasses.dataclass(repr=False)
class Measurement:
    """One or more timings of a task: ``times`` (seconds per run), ``median``, ``mean``,
    ``iqr``; its repr is PyTorch's summary."""

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None

    def __getattr__(self, name: str) -> Any:
        if name in {f.name for f in dataclasses.fields(TaskSpec)}:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self) -> list[float]:
        """Seconds per run of each measurement."""
        return [t / self.number_per_run for t in self.raw_times]

    def _sorted(self):
        return sorted(self.times)

    @property
    def median(self) -> float:
        """The median time per run."""
        return _quantile(self._sorted(), 0.5)

    @property
    def mean(self) -> float:
        """The mean time per run."""
        times = self.times
        return sum(times) / len(times)

    @property
    def iqr(self) -> float:
        """The interquartile range of the times per run."""
        s = self._sorted()
        return _quantile(s, 0.75) - _quantile(s, 0.25)

    @property
    def title(self) -> str:
        """The task's title."""
        return self.task_spec.title

    @property
    def has_warnings(self) -> bool:
        """Whether the spread of the times is large enough to warn about."""
        return not self.meets_confidence(_IQR_WARN_THRESHOLD)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether the interquartile range is below ``threshold`` of the median."""
        return self.iqr / self.median < threshold

    def __repr__(self) -> str:
        s = self._sorted()
        n = len(s)
        median, p25, p75 = _quantile(s, 0.5), _quantile(s, 0.25), _quantile(s, 0.75)
        unit, scale = select_unit(median)
        lines = [
            f"<torch.utils.benchmark.utils.common.Measurement object at {hex(id(self))}>",
            self.task_spec.summarize(),
            f"  {'Median: ' if n > 1 else ''}{median / scale:.2f} {unit}",
        ]
        if n >= 4:
            lines.append(
                f"  IQR:    {(p75 - p25) / scale:.2f} {unit} "
                f"({p25 / scale:.2f} to {p75 / scale:.2f})"
            )
        num_threads = self.task_spec.num_threads
        threads = f"{num_threads} thread{'s' if num_threads > 1 else ''}"
        per = "per measurement," if n > 1 else ","
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {per} {threads}"
        )
        rel_iqr = (p75 - p25) / median * 100 if median else 0.0
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            lines.append(
                f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the median measurement.\n"
                "           This suggests significant environmental influence."
            )
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            lines.append(
                f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the median measurement.\n"
                "           This could indicate system fluctuation."
            )
        return "\n".join(lines)


class Timer:
    """Times ``stmt`` (after ``setup``) in ``globals`` with ``num_threads`` threads, as
    ``torch.utils.benchmark.Timer``."""

    def __init__(
        self,
        stmt: str | Callable[[], Any] = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = _timeit.default_timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: str = "python",
    ):
        if language not in ("python", "py"):
            raise NotImplementedError(
                f"torch.utils.benchmark.Timer: language={language!r} (C++ statements) is not "
                "supported by ferrograd; time Python statements"
            )
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(
            stmt=stmt,
            setup=setup,
            global_setup=global_setup,
            label=label,
            sub_label=sub_label,
            description=description,
            env=env,
            num_threads=num_threads,
        )

    def _time(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)

    def _with_threads(self, fn):
        from ... import get_num_threads, set_num_threads

        before = get_num_threads()
        set_num_threads(self._task_spec.num_threads)
        try:
            return fn()
        finally:
            set_num_threads(before)

    def timeit(self, number: int = 1000000) -> Measurement:
        """Runs ``stmt`` ``number`` times after a warm-up of ``max(number // 100, 2)`` runs."""

        def run():
            self._time(max(number // 100, 2))
            return Measurement(number, [self._time(number)], self._task_spec)

        return self._with_threads(run)

    def _block_size(self, min_run_time: float) -> int:
        overhead = sorted(self._time(0) for _ in range(5))[2]
        number = 1
        while True:
            taken = self._time(number)
            if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                break
            if taken > min_run_time or number * 10 > 2147483647:
                break
            number *= 10
        return number

    def _measure(self, number, stop, min_run_time, max_run_time=None, callback=None):
        times: list[float] = []
        total, can_stop = 0.0, False
        while total < min_run_time or not can_stop:
            spent = self._time(number)
            times.append(spent)
            total += spent
            if callback:
                callback(number, spent)
            can_stop = stop(times)
            if max_run_time and total > max_run_time:
                break
        return times

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> Measurement:
        """Repeats blocks of runs (the block long enough that the timer's overhead is
        negligible) until ``min_run_time`` seconds have been measured."""

        def run():
            number = self._block_size(min_run_time)
            times = self._measure(number, lambda t: True, min_run_time, callback=callback)
            return Measurement(number, times, self._task_spec)

        return self._with_threads(run)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback=None,
    ) -> Measurement:
        """Repeats blocks until the interquartile range is below ``threshold`` of the median
        (at least 3 blocks and ``min_run_time`` seconds, at most ``max_run_time``)."""

        def stop(times):
            if len(times) <= 3:
                return False
            return Measurement(number, times, self._task_spec).meets_confidence(threshold)

        def run():
            nonlocal number
            number = self._block_size(min_run_time=0.05)
            times = self._measure(number, stop, min_run_time, max_run_time, callback)
            return Measurement(number, times, self._task_spec)

        number = 1
        return self._with_threads(run)

    def collect_callgrind(self, *args, **kwargs):
        """Not supported: PyTorch's instruction counts need Valgrind and its C++ bindings."""
        raise NotImplementedError(
            "torch.utils.benchmark.Timer.collect_callgrind (Valgrind instruction counts) is not "
            "supported by ferrograd"
        )
