"""``DistributedDataParallel``: data parallelism over the processes of ``ferrograd.distributed``.

How it works (PyTorch's design, its ``Reducer``, in Python):

- At construction every rank's parameters are checked to have the same names, shapes and dtypes
  (else ``RuntimeError`` naming the first difference), then rank 0's parameters and buffers are
  broadcast to all.
- The parameters that require grad are put in buckets in reverse registration order (about the
  order backward produces their gradients): the first bucket holds at most 1 MiB (when
  ``bucket_cap_mb`` is not given), the others ``bucket_cap_mb`` (25 MiB by default). PyTorch
  builds these buckets after its first iteration, in the order the gradients arrived; here they
  are built at construction from the reverse registration order.
- Each bucket is one flat NumPy array and one tensor sharing its memory (``from_numpy`` makes no
  copy); every parameter's slice of it is a view of the parameter's shape, and the averaged
  gradients are these views (PyTorch's ``gradient_as_bucket_view=True``).
- Each parameter has a post-accumulate-grad hook. It writes the finished gradient divided by the
  world size into the parameter's slice of its bucket (``np.divide(grad, size, out=slice)``: as
  cheap as a copy, and it releases the GIL for large arrays; divided in place when ``.grad``
  already is that view and backward accumulated into it) and sets ``.grad`` to the view. When
  the last gradient of a bucket is in, the hook hands the bucket to the communication thread,
  which sums it over all ranks in place with MPI while backward goes on (backward runs without
  the GIL; the MPI call releases it too). Buckets are launched in order, so every rank issues
  the same all-reduces in the same order.
- The hook of the last bucket waits for the outstanding all-reduces: when ``loss.backward()``
  returns, every rank's ``.grad`` views hold the same averaged gradients, with no conversion
  after backward.
- ``no_sync()`` skips all of this (gradients accumulate locally; the first backward after it
  reduces the accumulated ones). ``find_unused_parameters=True`` walks the graph from the forward's
  outputs to find the parameters backward will not reach and marks them ready when backward
  starts, so their buckets are not waited for (their slices hold their current ``.grad``, or
  zeros, as PyTorch's); a parameter no rank used keeps its ``.grad``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ... import _core
from ... import distributed as dist
from ..._core import Tensor
from ..._grad_mode import no_grad
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_MB = 1024 * 1024
_DEFAULT_BUCKET_CAP_MB = 25
_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024

_NUMPY = {"torch.float32": np.float32, "torch.float64": np.float64, "torch.int64": np.int64}


def _find_tensors(obj: Any) -> list[Tensor]:
    """The tensors in a forward's output (nested in lists, tuples and dicts)."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _find_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _find_tensors(o)]
    return []


class _Bucket:
    """Parameters whose gradients are all-reduced together: one flat array, a tensor sharing its
    memory, and each parameter's slice of both in the parameter's shape."""

    def __init__(self, indices: list[int], params: list[Tensor]) -> None:
        self.indices = indices
        self.dtype = _NUMPY[str(params[indices[0]].dtype)]
        self.offsets: list[int] = []
        total = 0
        for i in indices:
            self.offsets.append(total)
            total += params[i].numel()
        self.buffer = np.zeros(total, dtype=self.dtype)
        self.tensor = _core.from_numpy(self.buffer)  # the same memory
        self.arrays: list[np.ndarray] = []  # each parameter's slice, in its shape
        self.views: list[Tensor] = []  # the same, as tensors: the averaged gradients
        for i, start in zip(indices, self.offsets):
            shape = tuple(params[i].shape)
            n = params[i].numel()
            self.arrays.append(self.buffer[start : start + n].reshape(shape))
            self.views.append(self.tensor[start : start + n].view(shape))
        self.pending = len(indices)
        self.work: dist.Work | None = None


class DistributedDataParallel(Module):
    """Wraps ``module`` for data-parallel training: run one process per rank, each on its share
    of the batch; after ``loss.backward()`` every rank holds the gradients averaged over the
    ranks (all-reduced bucket by bucket while backward runs), so that identical optimizer steps
    keep the replicas identical. The wrapped module is ``.module`` (its state dict keys gain a
    ``module.`` prefix, as PyTorch's).

    Takes PyTorch's arguments; ``broadcast_buffers`` (broadcast rank 0's buffers before each
    forward), ``init_sync``, ``bucket_cap_mb`` and ``find_unused_parameters`` act as PyTorch's;
    ``device_ids``, ``output_device``, ``dim``, ``check_reduction``, ``gradient_as_bucket_view``
    and ``static_graph`` are accepted and have no effect (CPU only; the averaged gradients are
    always views of the buckets, as with ``gradient_as_bucket_view=True``)."""

    def __init__(
        self,
        module: Module,
        device_ids: Any = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: bool | None = None,
        init_sync: bool = True,
        process_group: dist.ProcessGroup | None = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        group = dist._group(process_group)
        self.module = module
        self.process_group = group
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter "
                "that requires a gradient."
            )
        self._names = [n for n, _ in named]
        self._params: list[Tensor] = [p for _, p in named]
        self._index = {id(p): i for i, p in enumerate(self._params)}
        self._verify_params_across_processes()
        if init_sync:
            self._broadcast_coalesced([p for _, p in module.named_parameters()])
            self._broadcast_coalesced(list(module.buffers()))

        cap = _DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap * _MB)
        first = _DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        self._buckets = self._assign_buckets([first, self.bucket_bytes_cap])
        self._bucket_of: dict[int, tuple[int, int]] = {}
        self._arrays: list[np.ndarray] = [np.empty(0)] * len(self._params)
        self._views: list[Tensor] = list(self._params)
        self._ptrs = [0] * len(self._params)
        for b, bucket in enumerate(self._buckets):
            for k, i in enumerate(bucket.indices):
                self._bucket_of[i] = (b, k)
                self._arrays[i] = bucket.arrays[k]
                self._views[i] = bucket.views[k]
                self._ptrs[i] = bucket.views[k].data_ptr()

        # True: launch no all-reduce before backward has produced every gradient (PyTorch's
        # delayed all-reduce; benches/ddp_overlap.py measures the step without overlap with it)
        self._delay_all_reduce = False
        self._lock = threading.Lock()
        self._expect_hooks = False
        self._ready = [False] * len(self._params)
        self._next_bucket = 0
        self._unused: list[int] = []
        self._marked_unused = False
        self._locally_used = np.zeros(len(self._params), dtype=np.int64)
        self._hook_handles = [
            p.register_post_accumulate_grad_hook(self._make_hook(i))
            for i, p in enumerate(self._params)
        ]

    # ----- construction ----------------------------------------------------------------------

    def _verify_params_across_processes(self) -> None:
        """Every rank must hold the same parameters (names, shapes, dtypes), checked before any
        gradient is reduced: the buckets' flat arrays must line up."""
        mine = [(n, list(p.shape), str(p.dtype)) for n, p in zip(self._names, self._params)]
        everyone: list[Any] = [None] * self.process_group.size()
        dist.all_gather_object(everyone, mine, group=self.process_group)
        for rank, theirs in enumerate(everyone):
            if len(theirs) != len(everyone[0]):
                raise RuntimeError(
                    f"DDP expects same model across all ranks, but Rank {rank} has "
                    f"{len(theirs)} params, while rank 0 has inconsistent {len(everyone[0])} "
                    "params."
                )
            for i, (a, b) in enumerate(zip(everyone[0], theirs)):
                if a != b:
                    raise RuntimeError(
                        f"DDP expects same model across all ranks, but Rank {rank} has parameter "
                        f"{i} ({b[0]}) of shape {b[1]} and dtype {b[2]}, while rank 0 has "
                        f"{a[0]} of shape {a[1]} and dtype {a[2]}."
                    )

    def _broadcast_coalesced(self, tensors: list[Tensor]) -> None:
        """Rank 0's values of ``tensors`` to every rank: one broadcast per dtype."""
        by_dtype: dict[str, list[Tensor]] = {}
        for t in tensors:
            by_dtype.setdefault(str(t.dtype), []).append(t)
        for group in by_dtype.values():
            flat = _core.from_numpy(np.concatenate([t.detach().numpy().reshape(-1) for t in group]))
            dist.broadcast(flat, src=0, group=self.process_group)
            if self.process_group.rank() == 0:
                continue
            values = flat.numpy()
            start = 0
            with no_grad():
                for t in group:
                    n = t.numel()
                    chunk = _core.from_numpy(np.ascontiguousarray(values[start : start + n]))
                    t.detach().copy_(chunk.reshape(tuple(t.shape)))
                    start += n

    def _assign_buckets(self, limits: list[int]) -> list[_Bucket]:
        """Buckets in reverse registration order, one dtype each, closed once they reach their
        byte limit (the first limit for the first bucket, the last limit for the others)."""
        buckets: list[list[int]] = []
        open_: dict[str, tuple[list[int], int]] = {}
        limit_of = iter(limits)
        limit = next(limit_of)
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            key = str(p.dtype)
            indices, size = open_.get(key, ([], 0))
            indices.append(i)
            size += p.numel() * np.dtype(_NUMPY[key]).itemsize
            if size >= limit:
                buckets.append(indices)
                open_.pop(key, None)
                limit = next(limit_of, limit)
            else:
                open_[key] = (indices, size)
        buckets.extend(indices for indices, _ in open_.values())
        return [_Bucket(b, self._params) for b in buckets]

    # ----- forward -----------------------------------------------------------------------------

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Runs the wrapped module (after broadcasting rank 0's buffers, if asked) and prepares
        the reduction of the gradients of the backward that follows."""
        sync = _core.is_grad_enabled() and self.require_backward_grad_sync
        if sync:
            self._ensure_prior_reduction_finished()
        if self.broadcast_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers and self.process_group.size() > 1:
                self._broadcast_coalesced(buffers)
        output = self.module(*inputs, **kwargs)
        with self._lock:
            self._expect_hooks = sync
            if sync:
                self._ready = [False] * len(self._params)
                self._next_bucket = 0
                self._marked_unused = False
                for bucket in self._buckets:
                    bucket.pending = len(bucket.indices)
                    bucket.work = None
                self._unused = self._find_unused(output) if self.find_unused_parameters else []
        return output

    def _ensure_prior_reduction_finished(self) -> None:
        if not self._expect_hooks:
            return
        missing = [i for i, r in enumerate(self._ready) if not r]
        if not missing:
            return
        names = ", ".join(self._names[i] for i in missing)
        rank = self.process_group.rank()
        hint = (
            "Since `find_unused_parameters=True` is enabled, this likely  means that not all "
            "`forward` outputs participate in computing loss. You can fix this by making sure "
            "all `forward` function outputs participate in calculating loss."
            if self.find_unused_parameters
            else "You can enable unused parameter detection by passing the keyword argument "
            "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and "
            "by \nmaking sure all `forward` function outputs participate in calculating loss."
        )
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new "
            "one. This error indicates that your module has parameters that were not used in "
            f"producing loss. {hint}\nParameter indices which did not receive grad for rank "
            f"{rank}: {' '.join(str(i) for i in missing)}\nParameters which did not receive grad "
            f"for rank {rank}: {names}"
        )

    def _find_unused(self, output: Any) -> list[int]:
        """The parameters the graph of ``output`` does not reach (PyTorch's traversal from the
        forward's outputs)."""
        seen: set[Any] = set()
        used: set[int] = set()
        stack = [t.grad_fn for t in _find_tensors(output) if t.grad_fn is not None]
        for t in _find_tensors(output):
            if t.grad_fn is None and id(t) in self._index:
                used.add(self._index[id(t)])
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if node.name() == "torch::autograd::AccumulateGrad":
                i = self._index.get(id(node.variable))
                if i is not None:
                    used.add(i)
                continue
            stack.extend(n for n, _ in node.next_functions if n is not None)
        return [i for i in range(len(self._params)) if i not in used]

    # ----- backward: the hooks -----------------------------------------------------------------

    def _make_hook(self, index: int) -> Any:
        def hook(param: Tensor) -> None:
            self._on_grad_ready(index)

        return hook

    def _on_grad_ready(self, index: int) -> None:
        if self._expect_hooks:
            self._into_bucket(index, adopt=True)  # (outside the lock: the copy releases the GIL)
        with self._lock:
            if self.find_unused_parameters:
                self._locally_used[index] = 1
            if not self._expect_hooks:
                return
            if not self._marked_unused:
                self._marked_unused = True
                for i in self._unused:
                    self._into_bucket(i, adopt=False)
                    self._mark_ready(i)
            self._mark_ready(index)

    def _into_bucket(self, index: int, adopt: bool) -> None:
        """Puts parameter ``index``'s gradient, divided by the world size, in its slice of its
        bucket (zeros if it has none; divided in place if ``.grad`` is the slice's view, which
        backward accumulated into); with ``adopt``, the view becomes ``.grad``. Dividing while
        copying costs no more than copying (PyTorch's reducer does the same), and NumPy releases
        the GIL for large arrays."""
        p = self._params[index]
        grad = p.grad
        array = self._arrays[index]
        if grad is None:
            array.fill(0)
            return
        size = self.process_group.size()
        if grad.data_ptr() == self._ptrs[index]:
            if size > 1:
                np.divide(array, size, out=array)
            return
        source = grad.detach() if grad.requires_grad else grad
        try:
            np.divide(source.numpy(), size, out=array)
        except (TypeError, ValueError, RuntimeError):  # (a layout NumPy cannot share)
            with no_grad():
                self._views[index].copy_(grad).div_(size)
        if adopt:
            p.grad = self._views[index]

    def _mark_ready(self, index: int) -> None:
        """Counts parameter ``index``'s gradient as final (in its bucket); launches the buckets
        that are complete, in order; after the last one, waits for them all."""
        if self._ready[index]:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by one of the "
                "following reasons: 1) Use of a module parameter outside the `forward` function, "
                "or a parameter that find_unused_parameters=True found unused but that received "
                f"a gradient; 2) Reused parameters in multiple reentrant backward passes. "
                f"Parameter at index {index} with name {self._names[index]} has been marked as "
                "ready twice."
            )
        self._ready[index] = True
        self._buckets[self._bucket_of[index][0]].pending -= 1
        if self._delay_all_reduce and any(b.pending for b in self._buckets):
            return  # (no overlap: every bucket waits for the end of backward)
        while self._next_bucket < len(self._buckets):
            bucket = self._buckets[self._next_bucket]
            if bucket.pending:
                return
            bucket.work = self.process_group._submit("all_reduce", self._reducer(bucket), [])
            self._next_bucket += 1
        self._finalize()

    def _reducer(self, bucket: _Bucket) -> Any:
        """The job of the communication thread for ``bucket``: sum its flat array (the gradients
        already divided by the world size) over the ranks in place, beside the rest of backward;
        the gradients' views see the averages."""
        buffer = bucket.buffer
        comm = self.process_group._comm

        def job() -> None:
            comm.Allreduce(dist._mpi().IN_PLACE, buffer, op=dist._mpi().SUM)

        return job

    def _finalize(self) -> None:
        """Waits for every bucket's all-reduce; a parameter this rank did not use but another
        did gets the view of its averaged gradient as ``.grad`` (one no rank used keeps its
        ``.grad``)."""
        globally_used = None
        if self.find_unused_parameters:
            globally_used = self._locally_used.copy()
            dist._all_reduce_sum(globally_used, self.process_group).wait()
            self._locally_used[:] = 0
        for bucket in self._buckets:
            assert bucket.work is not None
            bucket.work.wait()
        if globally_used is not None:
            for i in self._unused:
                if globally_used[i]:
                    self._params[i].grad = self._views[i]
        self._expect_hooks = False

    # ----- gradient accumulation -------------------------------------------------------------

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Within this context the backward passes of forwards run here do not reduce gradients:
        they accumulate in ``.grad`` on each rank, and the first backward after the context
        reduces the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def _bucket_indices(self) -> list[list[int]]:
        """The parameter indices of each bucket, in launch order (for tests and tuning)."""
        return [list(b.indices) for b in self._buckets]
