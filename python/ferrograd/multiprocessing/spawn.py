"""``torch.multiprocessing.spawn``: run ``fn(i, *args)`` in ``nprocs`` new processes and, with
``join``, wait for them, raising in the parent what a child raised (``ProcessRaisedException``
with the child's traceback) or how it died (``ProcessExitedException``)."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import traceback

__all__ = [
    "ProcessContext",
    "ProcessExitedException",
    "ProcessRaisedException",
    "spawn",
    "start_processes",
]


class ProcessException(Exception):
    """A spawned process failed; ``error_index`` is its index, ``pid`` its process id."""

    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised an exception (its traceback is in the message)."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        error_queue.put(traceback.format_exc())
        raise SystemExit(1) from None


class ProcessContext:
    """The processes ``start_processes`` started; ``join`` waits for them."""

    def __init__(self, processes, error_queues):
        self.processes = processes
        self.error_queues = error_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The process ids."""
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """Waits for the processes (or ``timeout`` seconds); True when all ended. When one
        fails the others are terminated and its failure is raised."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        for process in self.processes:
            if process.is_alive():
                process.terminate()
            process.join()
        process = self.processes[failed]
        if self.error_queues[failed].empty():
            code = process.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(
                    f"process {failed} terminated with signal {name}",
                    failed,
                    process.pid,
                    code,
                    name,
                )
            raise ProcessExitedException(
                f"process {failed} terminated with exit code {code}", failed, process.pid, code
            )
        original = self.error_queues[failed].get()
        msg = f"\n\n-- Process {failed} terminated with the following error:\n{original}"
        raise ProcessRaisedException(msg, failed, process.pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts ``nprocs`` processes running ``fn(i, *args)`` with ``start_method``; returns
    their ``ProcessContext`` (after joining them when ``join``)."""
    context = multiprocessing.get_context(start_method)
    error_queues, processes = [], []
    for i in range(nprocs):
        error_queue = context.SimpleQueue()
        process = context.Process(target=_wrap, args=(fn, i, args, error_queue), daemon=daemon)
        process.start()
        error_queues.append(error_queue)
        processes.append(process)
    ctx = ProcessContext(processes, error_queues)
    if not join:
        return ctx
    while not ctx.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the ``spawn`` start method (PyTorch's signature)."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
