"""``ferrograd.distributed``: PyTorch's ``torch.distributed`` collectives over MPI.

Processes are started by an MPI launcher (``mpirun -n 4 python train.py``); each calls
``init_process_group()`` (backend ``"mpi"``, the default; ``"gloo"`` is accepted and runs over MPI
too), which takes its rank and the world size from the launcher. The transport is Open MPI driven
through ``mpi4py`` (``pip install mpi4py``), imported only by ``init_process_group``.

Every collective runs on one communication thread per process, in the order the program calls
them (MPI needs the same order on every rank). The calling thread waits for it without holding
the GIL, or does not wait at all with ``async_op=True``: the returned :class:`Work` is waited on
with ``wait()``. Tensors are changed in place, as PyTorch's.

Two checks PyTorch leaves to its debug mode are always on here, so that a mistake raises instead
of hanging or corrupting memory: before its data moves, a collective exchanges a small header
with every rank (which collective, dtype, shape, root, reduce op), and a mismatch raises
``RuntimeError`` on every rank naming what each rank passed. And every wait has a deadline, the
``timeout`` of ``init_process_group`` (30 minutes by default): a collective some rank never joins
raises :class:`DistBackendError` (a ``RuntimeError``) naming the collective and the timeout.
"""

from __future__ import annotations

import atexit
import datetime
import enum
import os
import pickle
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from .._core import Tensor
from .._grad_mode import no_grad

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = [
    "Backend",
    "DistBackendError",
    "DistError",
    "GroupMember",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "default_pg_timeout",
    "destroy_process_group",
    "gather",
    "get_backend",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
]

default_pg_timeout = datetime.timedelta(minutes=30)
"""The collectives' timeout when ``init_process_group`` is given none (PyTorch's 30 minutes)."""

_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


class DistError(RuntimeError):
    """A failure of a distributed operation (PyTorch's ``torch.distributed.DistError``)."""


class DistBackendError(DistError):
    """A collective failed or timed out in the backend (``torch.distributed.DistBackendError``)."""


class Backend(str):
    """The name of a backend (``Backend("mpi")``, ``Backend.MPI``), lower case as PyTorch's."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        return super().__new__(cls, name.lower())


class ReduceOp:
    """The reductions of ``all_reduce``, ``reduce`` and ``reduce_scatter``: ``ReduceOp.SUM``,
    ``AVG``, ``PRODUCT``, ``MIN``, ``MAX`` and the bitwise ``BAND``, ``BOR``, ``BXOR`` (integer
    and bool tensors). Members print as PyTorch's (``<RedOpType.SUM: 0>``)."""

    class RedOpType(enum.IntEnum):
        """The reduction kinds, numbered as PyTorch's ``ReduceOp.RedOpType``."""

        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


# ----- availability ------------------------------------------------------------------------------


def is_available() -> bool:
    """True: the package is always importable (``mpi4py`` is needed by ``init_process_group``)."""
    return True


def is_mpi_available() -> bool:
    """Whether ``mpi4py`` (and so the MPI backend) can be imported."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def is_gloo_available() -> bool:
    """Whether ``backend="gloo"`` works: here it is an alias running over MPI."""
    return is_mpi_available()


def is_nccl_available() -> bool:
    """False: there are no GPUs."""
    return False


def is_torchelastic_launched() -> bool:
    """Whether the process was started by ``torchrun`` (which sets ``TORCHELASTIC_RUN_ID``)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


# ----- the process group and its communication thread --------------------------------------------

# Codes of the header every collective exchanges before its data (see ``_Header``).
_OPS = [
    "all_reduce",
    "broadcast",
    "all_gather",
    "reduce_scatter",
    "gather",
    "scatter",
    "reduce",
    "barrier",
    "all_gather_into_tensor",
    "reduce_scatter_tensor",
    "broadcast_object_list",
    "all_gather_object",
]
_DTYPES = ["float32", "float64", "int64", "bool"]
_HEADER_DIMS = 10
_HEADER_LEN = 6 + _HEADER_DIMS


def _shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


class Work:
    """The handle of a collective (returned with ``async_op=True``): ``wait()`` blocks until it
    finished (the tensors then hold the result) and re-raises its error; ``is_completed()``
    tells without blocking."""

    def __init__(self, op: str, group: ProcessGroup, outputs: list[Tensor]) -> None:
        self._op = op
        self._group = group
        self._outputs = outputs
        self._done = threading.Event()
        self._error: BaseException | None = None
        self._seq = 0

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        """Blocks (without the GIL) until the collective finished; returns True. Raises its
        error, or :class:`DistBackendError` after ``timeout`` (by default the process group's)."""
        limit = self._group.timeout if timeout is None else timeout
        seconds = limit.total_seconds() if isinstance(limit, datetime.timedelta) else float(limit)
        if not self._done.wait(seconds):
            raise DistBackendError(
                f"[Rank {self._group.rank()}] {self._op} (collective #{self._seq} of this "
                f"process) timed out after {limit} (the timeout of init_process_group): not "
                f"every one of the {self._group.size()} ranks joined it. Every rank must call "
                "the same collectives in the same order."
            )
        if self._error is not None:
            raise self._error
        return True

    def is_completed(self) -> bool:
        """Whether the collective has finished (successfully or not)."""
        return self._done.is_set()

    def is_success(self) -> bool:
        """Whether the collective has finished without an error."""
        return self._done.is_set() and self._error is None

    def exception(self) -> BaseException | None:
        """The error the collective raised, if any."""
        return self._error

    def result(self) -> list[Tensor]:
        """The output tensors of the collective (after waiting for it)."""
        self.wait()
        return list(self._outputs)

    def __repr__(self) -> str:
        state = "completed" if self.is_completed() else "pending"
        return f"<ferrograd.distributed.Work {self._op} ({state})>"


class ProcessGroup:
    """The group of all the launcher's processes (``group.WORLD``): ``rank()`` and ``size()``.
    Owns the communication thread that runs the collectives in order."""

    def __init__(self, comm: MPI.Comm, timeout: datetime.timedelta, backend: str) -> None:
        self._comm = comm
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()
        self.timeout = timeout
        self._backend = backend
        self._queue: queue.SimpleQueue[tuple[Callable[[], None], Work] | None] = queue.SimpleQueue()
        self._seq = 0
        self._pending = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="ferrograd-mpi", daemon=True)
        self._thread.start()

    def rank(self) -> int:
        """This process's rank in the group."""
        return self._rank

    def size(self) -> int:
        """The number of processes in the group."""
        return self._size

    def name(self) -> str:
        """The backend's name."""
        return self._backend

    def __repr__(self) -> str:
        return f"<ferrograd.distributed.ProcessGroup rank {self._rank} of {self._size}>"

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            job, work = item
            try:
                job()
            except BaseException as error:  # handed to whoever waits on the work
                work._error = error
            finally:
                with self._lock:
                    self._pending -= 1
                work._done.set()

    def _submit(self, op: str, job: Callable[[], None], outputs: list[Tensor]) -> Work:
        """Queues ``job`` on the communication thread; returns its work handle."""
        work = Work(op, self, outputs)
        with self._lock:
            self._seq += 1
            self._pending += 1
            work._seq = self._seq
        self._queue.put((job, work))
        return work

    def _stop(self) -> None:
        self._queue.put(None)

    # header check: the same collective, dtype, shape and root on every rank
    def _check(self, op: str, header: np.ndarray, what: str) -> None:
        """Exchanges ``header`` with every rank; raises on every rank if they differ."""
        everyone = np.empty((self._size, _HEADER_LEN), dtype=np.int64)
        self._comm.Allgather(header, everyone)
        if (everyone == everyone[0]).all():
            return
        ops = {int(row[0]) for row in everyone}
        if len(ops) > 1:
            called = ", ".join(
                f"rank {r} called {_OPS[int(row[0])]}" for r, row in enumerate(everyone)
            )
            raise RuntimeError(
                f"collectives differ across ranks: {called} (every rank must call the same "
                "collectives in the same order)"
            )
        rows = [_describe(row) for row in everyone]
        diffs = ", ".join(f"rank {r} has {text}" for r, text in enumerate(rows))
        raise RuntimeError(f"{op}: the ranks' {what} differ: {diffs}")


def _header(
    op: str, tensor: Tensor | None, root: int = -1, reduce_op: int = -1, extra: int = -1
) -> np.ndarray:
    """The header of a collective: op, reduce op, root, extra, dtype, ndim, shape."""
    h = np.full(_HEADER_LEN, -1, dtype=np.int64)
    h[0], h[1], h[2], h[3] = _OPS.index(op), reduce_op, root, extra
    if tensor is not None:
        h[4] = _DTYPES.index(str(tensor.dtype).removeprefix("torch.").removeprefix("ferrograd."))
        shape = list(tensor.shape)
        h[5] = len(shape)
        if len(shape) <= _HEADER_DIMS:
            h[6 : 6 + len(shape)] = shape
        else:  # only the element count is compared for tensors of more dims
            h[6] = tensor.numel()
    return h


def _describe(row: np.ndarray) -> str:
    parts = []
    if row[4] >= 0:
        ndim = int(row[5])
        shape = [int(s) for s in row[6 : 6 + ndim]] if ndim <= _HEADER_DIMS else []
        text = _shape_text(shape) if ndim <= _HEADER_DIMS else f"{int(row[6])} elements"
        parts.append(f"a {_DTYPES[int(row[4])]} tensor of shape {text}")
    if row[2] >= 0:
        parts.append(f"root {int(row[2])}")
    if row[1] >= 0:
        parts.append(f"op {ReduceOp.RedOpType(int(row[1])).name}")
    if row[3] >= 0:
        parts.append(f"{int(row[3])} tensors in its list")
    return " with ".join(parts) if parts else "nothing"


_default_group: ProcessGroup | None = None


class GroupMember:
    """``GroupMember.WORLD``: the default group once ``init_process_group`` ran (else None)."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = -100


group = GroupMember
"""``dist.group.WORLD``, as PyTorch's alias of :class:`GroupMember`."""


def _group(g: ProcessGroup | None = None) -> ProcessGroup:
    if _default_group is None:
        raise ValueError(_NOT_INITIALIZED)
    if g is None or g is _default_group:
        return _default_group
    raise ValueError("Invalid process group specified")


def _mpi() -> Any:
    from mpi4py import MPI

    return MPI


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: datetime.timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store: object | None = None,
    group_name: str = "",
    pg_options: object | None = None,
    device_id: object | None = None,
) -> None:
    """Joins the processes started by the MPI launcher into the default group: rank and world
    size come from ``mpirun`` (``rank``/``world_size``, if given, must agree with them).
    ``timeout`` (a ``timedelta``, 30 minutes by default) bounds every wait on a collective.
    ``backend`` is ``"mpi"`` (default) or ``"gloo"`` (run over MPI as well)."""
    global _default_group
    if _default_group is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend if backend is not None else "mpi")
    if ":" in name:  # "cpu:gloo,cuda:nccl"
        name = Backend(dict(p.split(":", 1) for p in name.split(",")).get("cpu", "mpi"))
    if name == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if name not in (Backend.MPI, Backend.GLOO):
        raise ValueError(
            f"Invalid backend: '{name}' (ferrograd.distributed runs over MPI: use 'mpi' or 'gloo')"
        )
    if timeout is None:
        timeout = default_pg_timeout
    elif not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of typedatetime.timedelta, got {timeout}")
    if not is_mpi_available():
        raise RuntimeError(
            "ferrograd.distributed needs mpi4py (pip install mpi4py) and an MPI library "
            "(Debian: apt-get install openmpi-bin libopenmpi-dev)"
        )
    MPI = _mpi()
    comm = MPI.COMM_WORLD
    size, me = comm.Get_size(), comm.Get_rank()
    env_world = os.environ.get("WORLD_SIZE")
    if size == 1 and env_world is not None and int(env_world) > 1:
        raise RuntimeError(
            f"WORLD_SIZE is {env_world} but MPI started a single process: ferrograd's processes "
            "are started by an MPI launcher (mpirun -n N python script.py), not by torchrun"
        )
    if (world_size not in (-1, size)) or (rank not in (-1, me)):
        raise ValueError(
            f"init_process_group(world_size={world_size}, rank={rank}) disagrees with the MPI "
            f"launcher, which started this process as rank {me} of {size}"
        )
    _default_group = ProcessGroup(comm, timeout, str(name))
    GroupMember.WORLD = _default_group
    if size > 1 and not getattr(sys.excepthook, "_ferrograd_aborts", False):
        sys.excepthook = _aborting_excepthook(sys.excepthook, comm)


def _aborting_excepthook(previous: Any, comm: Any) -> Any:
    """An uncaught exception on one rank would leave the others waiting in a collective (and
    this process waiting for them in MPI's finalization): after printing it, abort the whole MPI
    job, as ``torchrun`` stops every worker when one fails."""

    def hook(kind: Any, value: Any, traceback: Any) -> None:
        previous(kind, value, traceback)
        sys.stderr.write(
            f"[Rank {comm.Get_rank()}] uncaught {kind.__name__}: aborting the MPI job\n"
        )
        sys.stderr.flush()
        sys.stdout.flush()
        comm.Abort(1)

    hook._ferrograd_aborts = True  # type: ignore[attr-defined]
    return hook


def is_initialized() -> bool:
    """Whether ``init_process_group`` has run (and ``destroy_process_group`` not since)."""
    return _default_group is not None


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Leaves the default group: waits for its queued collectives, stops its thread. MPI itself
    stays initialized (it is finalized at exit), so ``init_process_group`` may be called again."""
    global _default_group
    g = _group(group)
    g._submit("destroy_process_group", lambda: None, []).wait()
    g._stop()
    _default_group = None
    GroupMember.WORLD = None


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank (0 to world size - 1)."""
    return _group(group).rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes."""
    return _group(group).size()


def get_backend(group: ProcessGroup | None = None) -> str:
    """The backend's name (``"mpi"``, or ``"gloo"`` if asked for)."""
    return _group(group).name()


@atexit.register
def _abort_if_stuck() -> None:
    """At exit with a collective that never completed (it timed out), MPI cannot be finalized
    (that would wait for it forever): abort the whole job instead of hanging."""
    g = _default_group
    if g is not None and g._pending > 0:
        sys.stderr.write(
            f"[Rank {g.rank()}] exiting with {g._pending} unfinished collective(s): aborting the "
            "MPI job\n"
        )
        sys.stderr.flush()
        sys.stdout.flush()
        g._comm.Abort(1)


# ----- collectives -------------------------------------------------------------------------------


def _check_tensor(param: object, name: str) -> Tensor:
    if not isinstance(param, Tensor):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
            f"             but got {type(param)} instead."
        )
    return param


def _check_tensor_list(param: object, name: str) -> list[Tensor]:
    if not isinstance(param, list):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
            f"             but got {type(param)} instead."
        )
    if not all(isinstance(p, Tensor) for p in param):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
            f"             but got {type(param)} with elements of type {[type(p) for p in param]}."
        )
    return param


def _array(t: Tensor) -> np.ndarray:
    """A contiguous NumPy copy of the tensor's elements (bool as uint8, MPI's byte)."""
    a = np.ascontiguousarray(t.detach().numpy())
    return a.view(np.uint8) if a.dtype == np.bool_ else a


def _store(t: Tensor, values: np.ndarray) -> None:
    """Writes ``values`` into ``t`` in place (no autograd), as PyTorch's collectives do."""
    if t.dtype == _core.bool:
        values = values.view(np.bool_)
    flat = _core.from_numpy(np.ascontiguousarray(values).reshape(-1))
    with no_grad():
        t.detach().copy_(flat.reshape(tuple(t.shape)))


def _same_as(t: Tensor, others: Sequence[Tensor], name: str, op: str) -> None:
    for i, o in enumerate(others):
        if tuple(o.shape) != tuple(t.shape) or o.dtype != t.dtype:
            raise ValueError(
                f"{op}: {name}[{i}] is a {o.dtype} tensor of shape {_shape_text(o.shape)}, but "
                f"the tensor is {t.dtype} of shape {_shape_text(t.shape)}: they must match"
            )


def _root(g: ProcessGroup, value: int | None, group_value: int | None, what: str) -> int:
    root = value if value is not None else group_value if group_value is not None else 0
    if not isinstance(root, int) or not 0 <= root < g.size():
        raise ValueError(
            f"{what} rank {root} is not part of the group of {g.size()} ranks (0 to {g.size() - 1})"
        )
    return root


def _reduce_op(op: Any, dtype: Any, name: str) -> tuple[ReduceOp.RedOpType, Any]:
    """The MPI operation for ``op`` on ``dtype`` (AVG reduces by SUM, then divides)."""
    try:
        red = ReduceOp.RedOpType(op)
    except ValueError:
        raise TypeError(f"{name}: op must be a ReduceOp (ReduceOp.SUM, ...), got {op!r}") from None
    MPI = _mpi()
    is_bool, is_int = dtype == _core.bool, dtype == _core.int64
    if red == ReduceOp.PREMUL_SUM:
        raise RuntimeError(f"{name}: ReduceOp.PREMUL_SUM is not supported by the MPI backend")
    if red in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and not (is_bool or is_int):
        raise RuntimeError(f"Cannot use ReduceOp.{red.name} with non-integral dtype {dtype}")
    if is_bool:
        if red == ReduceOp.AVG:
            raise RuntimeError(f"Cannot use ReduceOp.AVG with dtype {dtype}")
        table = {"SUM": MPI.MAX, "MAX": MPI.MAX, "BOR": MPI.MAX, "MIN": MPI.MIN,
                 "PRODUCT": MPI.MIN, "BAND": MPI.MIN, "BXOR": MPI.BXOR}  # fmt: skip
        return red, table[red.name]
    table = {"SUM": MPI.SUM, "AVG": MPI.SUM, "PRODUCT": MPI.PROD, "MIN": MPI.MIN,
             "MAX": MPI.MAX, "BAND": MPI.BAND, "BOR": MPI.BOR, "BXOR": MPI.BXOR}  # fmt: skip
    return red, table[red.name]


def _average(values: np.ndarray, red: ReduceOp.RedOpType, size: int) -> np.ndarray:
    """AVG's division by the world size (integer tensors truncate toward zero, as NCCL's)."""
    if red != ReduceOp.AVG:
        return values
    if values.dtype.kind == "f":
        return values / values.dtype.type(size)
    return np.trunc(values / size).astype(values.dtype)


def _finish(work: Work, async_op: bool) -> Work | None:
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(
    tensor: Tensor,
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Reduces ``tensor`` over all ranks with ``op`` (SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR,
    BXOR); every rank gets the result in place. Returns a :class:`Work` if ``async_op``."""
    _check_tensor(tensor, "tensor")
    g = _group(group)
    red, mpi_op = _reduce_op(op, tensor.dtype, "all_reduce")
    header = _header("all_reduce", tensor, reduce_op=int(red))
    data = _array(tensor)

    def job() -> None:
        g._check("all_reduce", header, "tensors or ops")
        g._comm.Allreduce(_mpi().IN_PLACE, data, op=mpi_op)
        _store(tensor, _average(data, red, g.size()))

    return _finish(g._submit("all_reduce", job, [tensor]), async_op)


def reduce(
    tensor: Tensor,
    dst: int | None = None,
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Reduces ``tensor`` over all ranks with ``op`` into rank ``dst``'s tensor (default 0); the
    other ranks' tensors are left as they are."""
    _check_tensor(tensor, "tensor")
    g = _group(group)
    root = _root(g, dst, group_dst, "Destination")
    red, mpi_op = _reduce_op(op, tensor.dtype, "reduce")
    header = _header("reduce", tensor, root=root, reduce_op=int(red))
    data = _array(tensor)

    def job() -> None:
        g._check("reduce", header, "tensors, roots or ops")
        if g.rank() == root:
            g._comm.Reduce(_mpi().IN_PLACE, data, op=mpi_op, root=root)
            _store(tensor, _average(data, red, g.size()))
        else:
            g._comm.Reduce(data, None, op=mpi_op, root=root)

    return _finish(g._submit("reduce", job, [tensor]), async_op)


def broadcast(
    tensor: Tensor,
    src: int | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Copies rank ``src``'s ``tensor`` (default 0) into every other rank's, in place."""
    _check_tensor(tensor, "tensor")
    g = _group(group)
    root = _root(g, src, group_src, "Source")
    header = _header("broadcast", tensor, root=root)
    data = _array(tensor)

    def job() -> None:
        g._check("broadcast", header, "tensors or sources")
        g._comm.Bcast(data, root=root)
        if g.rank() != root:
            _store(tensor, data)

    return _finish(g._submit("broadcast", job, [tensor]), async_op)


def all_gather(
    tensor_list: list[Tensor],
    tensor: Tensor,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Fills ``tensor_list[r]`` with rank ``r``'s ``tensor`` on every rank (the list holds one
    tensor per rank, each of ``tensor``'s shape and dtype)."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    g = _group(group)
    if len(tensor_list) != g.size():
        raise ValueError(
            f"all_gather: tensor_list has {len(tensor_list)} tensors, it needs one per rank "
            f"({g.size()})"
        )
    _same_as(tensor, tensor_list, "tensor_list", "all_gather")
    header = _header("all_gather", tensor)
    data = _array(tensor)

    def job() -> None:
        g._check("all_gather", header, "tensors")
        out = np.empty((g.size(), *data.shape), dtype=data.dtype)
        g._comm.Allgather(data, out)
        for t, values in zip(tensor_list, out):
            _store(t, values)

    return _finish(g._submit("all_gather", job, list(tensor_list)), async_op)


def all_gather_into_tensor(
    output_tensor: Tensor,
    input_tensor: Tensor,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Every rank's ``input_tensor`` concatenated (or stacked) in rank order into
    ``output_tensor``, whose first dim is world size times the input's (or which has an extra
    leading dim of world size)."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    g = _group(group)
    if output_tensor.numel() != input_tensor.numel() * g.size():
        raise ValueError(
            f"all_gather_into_tensor: output tensor size must be equal to world_size times input "
            f"tensor size: output has {output_tensor.numel()} elements, input "
            f"{input_tensor.numel()}, world size {g.size()}"
        )
    header = _header("all_gather_into_tensor", input_tensor)
    data = _array(input_tensor)

    def job() -> None:
        g._check("all_gather_into_tensor", header, "input tensors")
        out = np.empty(g.size() * data.size, dtype=data.dtype)
        g._comm.Allgather(data.reshape(-1), out)
        _store(output_tensor, out)

    return _finish(g._submit("all_gather_into_tensor", job, [output_tensor]), async_op)


def reduce_scatter(
    output: Tensor,
    input_list: list[Tensor],
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """Reduces ``input_list[r]`` over all ranks with ``op`` into rank ``r``'s ``output``."""
    _check_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    g = _group(group)
    if len(input_list) != g.size():
        raise ValueError(
            f"reduce_scatter: input_list has {len(input_list)} tensors, it needs one per rank "
            f"({g.size()})"
        )
    _same_as(output, input_list, "input_list", "reduce_scatter")
    red, mpi_op = _reduce_op(op, output.dtype, "reduce_scatter")
    header = _header("reduce_scatter", output, reduce_op=int(red))
    data = np.stack([_array(t) for t in input_list]) if input_list else np.empty(0)

    def job() -> None:
        g._check("reduce_scatter", header, "tensors or ops")
        out = np.empty(data.shape[1:], dtype=data.dtype)
        g._comm.Reduce_scatter_block(data, out, op=mpi_op)
        _store(output, _average(out, red, g.size()))

    return _finish(g._submit("reduce_scatter", job, [output]), async_op)


def reduce_scatter_tensor(
    output: Tensor,
    input: Tensor,
    op: Any = ReduceOp.SUM,
    group: ProcessGroup | None = None,
    async_op: bool = False,
) -> Work | None:
    """``reduce_scatter`` with the inputs as one tensor: rank ``r`` gets the reduction of the
    ``r``-th of world-size equal chunks of ``input`` (flattened) in ``output``."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    g = _group(group)
    if input.numel() != output.numel() * g.size():
        raise ValueError(
            f"reduce_scatter_tensor: input tensor must be the same size as output size times "
            f"world size: input has {input.numel()} elements, output {output.numel()}, world "
            f"size {g.size()}"
        )
    red, mpi_op = _reduce_op(op, output.dtype, "reduce_scatter_tensor")
    header = _header("reduce_scatter_tensor", input, reduce_op=int(red))
    data = _array(input).reshape(g.size(), -1)

    def job() -> None:
        g._check("reduce_scatter_tensor", header, "input tensors or ops")
        out = np.empty(data.shape[1], dtype=data.dtype)
        g._comm.Reduce_scatter_block(data, out, op=mpi_op)
        _store(output, _average(out, red, g.size()))

    return _finish(g._submit("reduce_scatter_tensor", job, [output]), async_op)


def gather(
    tensor: Tensor,
    gather_list: list[Tensor] | None = None,
    dst: int | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Rank ``dst`` (default 0) gets every rank's ``tensor`` in ``gather_list`` (one per rank);
    the other ranks pass no list."""
    _check_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    g = _group(group)
    root = _root(g, dst, group_dst, "Destination")
    if g.rank() == root:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        if len(gather_list) != g.size():
            raise ValueError(
                f"gather: gather_list has {len(gather_list)} tensors, it needs one per rank "
                f"({g.size()})"
            )
        _same_as(tensor, gather_list, "gather_list", "gather")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    header = _header("gather", tensor, root=root)
    data = _array(tensor)
    outputs = list(gather_list)

    def job() -> None:
        g._check("gather", header, "tensors or destinations")
        if g.rank() == root:
            out = np.empty((g.size(), *data.shape), dtype=data.dtype)
            g._comm.Gather(data, out, root=root)
            for t, values in zip(outputs, out):
                _store(t, values)
        else:
            g._comm.Gather(data, None, root=root)

    return _finish(g._submit("gather", job, outputs), async_op)


def scatter(
    tensor: Tensor,
    scatter_list: list[Tensor] | None = None,
    src: int | None = None,
    group: ProcessGroup | None = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Rank ``r`` gets ``scatter_list[r]`` of rank ``src`` (default 0) in ``tensor``; the other
    ranks pass no list."""
    _check_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    g = _group(group)
    root = _root(g, src, group_src, "Source")
    if g.rank() == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        if len(scatter_list) != g.size():
            raise ValueError(
                f"scatter: scatter_list has {len(scatter_list)} tensors, it needs one per rank "
                f"({g.size()})"
            )
        _same_as(tensor, scatter_list, "scatter_list", "scatter")
        data: np.ndarray | None = np.stack([_array(t) for t in scatter_list])
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    else:
        data = None
    header = _header("scatter", tensor, root=root)
    mine = _array(tensor)

    def job() -> None:
        g._check("scatter", header, "tensors or sources")
        g._comm.Scatter(data, mine, root=root)
        _store(tensor, mine)

    return _finish(g._submit("scatter", job, [tensor]), async_op)


def barrier(
    group: ProcessGroup | None = None,
    async_op: bool = False,
    device_ids: list[int] | None = None,
    timeout: datetime.timedelta | None = None,
) -> Work | None:
    """Waits until every rank has reached the barrier."""
    g = _group(group)
    header = _header("barrier", None)

    def job() -> None:
        g._check("barrier", header, "calls")

    work = g._submit("barrier", job, [])
    if async_op:
        return work
    work.wait(timeout)
    return None


def broadcast_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: ProcessGroup | None = None,
    device: object | None = None,
    group_src: int | None = None,
) -> None:
    """Replaces the items of ``object_list`` with rank ``src``'s (picklable objects; every
    rank passes a list of the same length)."""
    g = _group(group)
    root = _root(g, src, group_src, "Source")
    header = _header("broadcast_object_list", None, root=root, extra=len(object_list))
    payload = pickle.dumps(list(object_list)) if g.rank() == root else None

    def job() -> None:
        g._check("broadcast_object_list", header, "lists")
        received = pickle.loads(g._comm.bcast(payload, root=root))
        object_list[:] = received

    g._submit("broadcast_object_list", job, []).wait()


def all_gather_object(object_list: list[Any], obj: Any, group: ProcessGroup | None = None) -> None:
    """Fills ``object_list`` (one item per rank) with every rank's picklable ``obj``."""
    g = _group(group)
    if len(object_list) != g.size():
        raise ValueError(
            f"all_gather_object: object_list has {len(object_list)} items, it needs one per rank "
            f"({g.size()})"
        )
    header = _header("all_gather_object", None)
    payload = pickle.dumps(obj)

    def job() -> None:
        g._check("all_gather_object", header, "calls")
        object_list[:] = [pickle.loads(p) for p in g._comm.allgather(payload)]

    g._submit("all_gather_object", job, []).wait()


def _all_reduce_sum(data: np.ndarray, group: ProcessGroup | None = None) -> Work:
    """Sums the contiguous array ``data`` over all ranks in place, asynchronously and without the
    header check: for ``DistributedDataParallel``'s buckets, whose layout every rank checked at
    construction."""
    g = _group(group)

    def job() -> None:
        g._comm.Allreduce(_mpi().IN_PLACE, data, op=_mpi().SUM)

    return g._submit("all_reduce", job, [])
