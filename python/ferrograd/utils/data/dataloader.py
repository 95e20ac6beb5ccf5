"""``DataLoader``: iterates over a dataset in batches, with PyTorch's arguments, checks and
random draws (one int64 ``random_`` per iterator for the worker base seed, then the sampler's),
so that after the same ``manual_seed`` a shuffled loader yields PyTorch's batches in PyTorch's
order.

Workers: ferrograd loads in the calling process. ``num_workers > 0`` is accepted and *emulated
in-process*: batches are fetched in PyTorch's order by ``num_workers`` simulated workers. Each
has its ``get_worker_info()`` and its own shallow copy of the dataset (PyTorch's workers hold
copies: attributes that ``worker_init_fn`` sets on ``get_worker_info().dataset`` stay with that
worker; containers the dataset refers to are shared); ``worker_init_fn`` runs once per worker;
ferrograd's and Python's ``random`` global streams are seeded ``base_seed + worker_id`` and
continue per worker while it fetches (numpy's global stream is not reseeded). An iterable
dataset is replicated per worker as in PyTorch (each worker iterates its own ``iter(dataset)``;
shard with ``get_worker_info()``). Nothing runs in parallel and ``timeout`` is not enforced.
"""

import copy
import math
import multiprocessing
import os
import random
import warnings
from collections import deque
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ... import _core
from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a (simulated) worker."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info = None


def get_worker_info():
    """The current worker's ``WorkerInfo`` while a worker fetches or runs ``worker_init_fn``;
    ``None`` in the main program."""
    return _worker_info


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: ``None`` forever (the dataset decides the end)."""

    def __iter__(self):
        while True:
            yield None


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        batch_get = getattr(self.dataset, "__getitems__", None)
        if batch_get:
            data = batch_get(index)
        else:
            data = [self.dataset[i] for i in index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.stream = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.stream))
        data = []
        for _ in index:
            try:
                data.append(next(self.stream))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def _cpu_count():
    if hasattr(os, "sched_getaffinity"):
        try:
            return len(os.sched_getaffinity(0))
        except Exception:
            pass
    return os.cpu_count()


class DataLoader(Generic[T_co]):
    """Iterates over ``dataset`` in batches of ``batch_size`` (``None``: single samples,
    converted but not collated), in order or shuffled (``shuffle``, drawn as PyTorch's
    ``RandomSampler``), or by a custom ``sampler``/``batch_sampler``; ``collate_fn`` builds
    each batch (``default_collate``). ``len(loader)`` is the number of batches. See the
    module's docstring for ``num_workers > 0`` (emulated in-process)."""

    __initialized = False

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let "
                "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to "
                "None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        iterable = isinstance(dataset, IterableDataset)
        self._iterable = iterable
        if iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, but "
                    f"got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, but "
                    f"got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )

        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        """The multiprocessing context named for the workers (``None``: the default)."""
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers <= 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    f"(num_workers > 0), but got num_workers={self.num_workers}"
                )
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start method "
                        f"in {methods!r}, but got multiprocessing_context={context!r}"
                    )
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a "
                    "string specifying the start method, but got "
                    f"multiprocessing_context={context}"
                )
        self.__multiprocessing_context = context

    def __setattr__(self, attr, value):
        if self.__initialized and attr in (
            "batch_size",
            "batch_sampler",
            "sampler",
            "drop_last",
            "dataset",
            "persistent_workers",
        ):
            raise ValueError(
                f"{attr} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(attr, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _InProcessWorkersDataLoaderIter(self)

    def __iter__(self):
        """A new iterator over the batches (with persistent workers, the same one reset)."""
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        if not self._iterable:
            return len(self._index_sampler)
        length = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is None:
            return length
        if self.drop_last:
            return length // self.batch_size
        return math.ceil(length / self.batch_size)

    def check_worker_number_rationality(self):
        """Warns (as PyTorch) when more workers are asked for than CPUs are available."""
        if not self.num_workers:
            return
        suggested = _cpu_count()
        if suggested is not None and self.num_workers <= suggested:
            return
        if suggested is None:
            advice = (
                "DataLoader is not able to compute a suggested max number of worker in current "
                "system."
            )
        else:
            cpuset = ""
            if not hasattr(os, "sched_getaffinity"):
                cpuset = " (`cpuset` is not taken into account)"
            advice = (
                f"Our suggested max number of worker in current system is {suggested}{cpuset}, "
                "which is smaller than what this DataLoader is going to create."
            )
        warnings.warn(
            f"This DataLoader will create {self.num_workers} worker processes in total. "
            f"{advice} Please be aware that excessive worker creation might get DataLoader "
            "running slow or even freeze, lower the worker number to avoid potential "
            "slowness/freeze if necessary.",
            stacklevel=3,
        )


class _BaseDataLoaderIter:
    """What both iterators share: PyTorch's draw of the workers' base seed (even without
    workers, so the random stream advances as in PyTorch), length, and the warning when an
    iterable dataset yields more than its ``len``."""

    def __init__(self, loader):
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                "pin_memory_device is deprecated, the current accelerator will be used as the "
                f"device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                stacklevel=3,
            )
        if loader.pin_memory:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device "
                "pinned memory won't be used.",
                stacklevel=3,
            )
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        draw = _core.empty((), dtype=_core.int64).random_(generator=loader.generator)
        self._base_seed = draw.item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def _fetcher(self, dataset):
        kind = _IterableFetcher if self._iterable else _MapFetcher
        return kind(dataset, self._auto_collation, self._collate_fn, self._drop_last)

    def __iter__(self):
        return self

    def _reset(self, loader):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        reported = self._IterableDataset_len_called
        if self._iterable and reported is not None and self._num_yielded > reported:
            message = (
                f"Length of IterableDataset {self._dataset} was reported to be {reported}(when "
                f"accessing len(dataloader)), but {self._num_yielded} samples have been fetched. "
            )
            if self._num_workers > 0:
                message += (
                    "For multiprocessing data-loading, this could be caused by not properly "
                    "configuring the IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset "
                    "for examples."
                )
            warnings.warn(message, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", type(self).__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._dataset_fetcher = self._fetcher(self._dataset)

    def _next_data(self):
        index = self._next_index()
        return self._dataset_fetcher.fetch(index)


class _SimulatedWorker:
    """One emulated worker: its fetcher, and its own states of ferrograd's and Python's global
    random streams (swapped in while it works)."""

    def __init__(self, worker_id, loader_iter, init_fn):
        self.id = worker_id
        self.seed = loader_iter._base_seed + worker_id
        self.dataset = copy.copy(loader_iter._dataset)
        self.info = WorkerInfo(
            id=worker_id,
            num_workers=loader_iter._num_workers,
            seed=self.seed,
            dataset=self.dataset,
        )
        self.owner = loader_iter
        saved = self._enter()
        try:
            random.seed(self.seed)
            _core.manual_seed(self.seed)
            if init_fn is not None:
                init_fn(worker_id)
            self.fetcher = loader_iter._fetcher(self.dataset)
        finally:
            self._leave(saved)

    def _enter(self):
        global _worker_info
        saved = (_worker_info, _core.default_generator.get_state(), random.getstate())
        if hasattr(self, "torch_state"):
            _core.default_generator.set_state(self.torch_state)
            random.setstate(self.python_state)
        _worker_info = self.info
        return saved

    def _leave(self, saved):
        global _worker_info
        self.torch_state = _core.default_generator.get_state()
        self.python_state = random.getstate()
        _worker_info, torch_state, python_state = saved
        _core.default_generator.set_state(torch_state)
        random.setstate(python_state)

    def run(self, action):
        saved = self._enter()
        try:
            return action()
        finally:
            self._leave(saved)

    def restart(self):
        """A new pass (persistent workers): a fresh fetcher, the random streams continued."""
        self.run(lambda: setattr(self, "fetcher", self.owner._fetcher(self.dataset)))


class _InProcessWorkersDataLoaderIter(_BaseDataLoaderIter):
    """``num_workers > 0`` emulated in the calling process: index batches go round-robin to
    the live workers, ``prefetch_factor * num_workers`` of them taken from the sampler ahead of
    time as PyTorch does, and the results come back in order; an iterable dataset's worker
    that runs out is retired, its outstanding batches skipped."""

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch = loader.prefetch_factor * self._num_workers
        self._workers = [
            _SimulatedWorker(i, self, loader.worker_init_fn) for i in range(self._num_workers)
        ]
        self._start_pass()

    def _start_pass(self):
        self._live = [True] * self._num_workers
        self._next_worker = 0
        self._tasks = deque()
        self._sampler_done = False
        for _ in range(self._prefetch):
            self._queue_task()

    def _reset(self, loader):
        super()._reset(loader)
        for worker in self._workers:
            worker.restart()
        self._start_pass()

    def _queue_task(self):
        if self._sampler_done or not any(self._live):
            return
        try:
            index = self._next_index()
        except StopIteration:
            self._sampler_done = True
            return
        for _ in range(self._num_workers):
            worker = self._next_worker
            self._next_worker = (self._next_worker + 1) % self._num_workers
            if self._live[worker]:
                self._tasks.append((worker, index))
                return

    def _next_data(self):
        while self._tasks:
            worker_id, index = self._tasks.popleft()
            if not self._live[worker_id]:
                continue
            worker = self._workers[worker_id]
            try:
                data = worker.run(lambda w=worker, i=index: w.fetcher.fetch(i))
            except StopIteration:
                self._live[worker_id] = False
                self._queue_task()
                continue
            self._queue_task()
            return data
        raise StopIteration


__all__ = ["DataLoader", "WorkerInfo", "default_collate", "default_convert", "get_worker_info"]
