"""``utils.data`` checked against PyTorch (``tools/record_torch_cases.py`` records,
``test_data_golden.py`` replays): the batches of DataLoaders (sequential, shuffled after
``manual_seed`` over several epochs, with a generator, ``drop_last``, ``batch_size=None``,
custom samplers, iterable datasets, workers), the global random stream after them, the
samplers' indices, ``random_split``'s subsets, ``default_collate``/``default_convert`` on
nested samples, and the errors of bad arguments. The code runs unchanged with ``torch`` or
``ferrograd`` as ``lib``."""

import collections
import random
import warnings

import numpy as np

GOLDEN = "data.json"  # in tests/golden, written by tools/record_torch_cases.py

Point = collections.namedtuple("Point", ["x", "y"])


def encode(lib, value):
    """A JSON form of a batch that keeps container types, tensor dtypes, shapes and values."""
    if isinstance(value, lib.Tensor):
        return {
            "tensor": value.reshape(-1).tolist(),
            "shape": list(value.shape),
            "dtype": str(value.dtype),
        }
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {"namedtuple": type(value).__name__, "fields": [encode(lib, v) for v in value]}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [encode(lib, v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {k: encode(lib, v) for k, v in value.items()}}
    if isinstance(value, np.ndarray):
        return {"ndarray": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, (bool, int, float, str, type(None))):
        return {type(value).__name__: value}
    return {"repr": repr(value)}


def _tensor_dataset(lib, n=11):
    x = lib.arange(n * 2).reshape(n, 2).float()
    y = lib.arange(n)
    return lib.utils.data.TensorDataset(x, y)


def _epochs(lib, loader, epochs):
    return [[encode(lib, batch) for batch in loader] for _ in range(epochs)]


def _after(lib):
    """Where the global random stream stands: the next integers it gives."""
    return lib.randint(0, 1000000, (3,)).tolist()


def loaders(lib):
    """Batches of map-style loaders, and the global stream after them."""
    data = lib.utils.data
    out = {}
    ds = _tensor_dataset(lib)
    for seed in (0, 3, 12345):
        lib.manual_seed(seed)
        loader = data.DataLoader(ds, batch_size=4, shuffle=True)
        out[f"shuffle_seed{seed}"] = {
            "epochs": _epochs(lib, loader, 3),
            "len": len(loader),
            "after": _after(lib),
        }
    lib.manual_seed(4)
    loader = data.DataLoader(ds, batch_size=4, shuffle=True)
    interleaved = []
    for _ in range(2):  # a training-style loop: the model draws random numbers between batches
        for batch in loader:
            interleaved.append(encode(lib, batch))
            interleaved.append(lib.rand(2).tolist())
    out["interleaved_draws"] = {"batches": interleaved, "after": _after(lib)}
    lib.manual_seed(5)
    loader = data.DataLoader(ds, batch_size=3, shuffle=True, drop_last=True)
    out["shuffle_drop_last"] = {
        "epochs": _epochs(lib, loader, 2),
        "len": len(loader),
        "after": _after(lib),
    }
    lib.manual_seed(6)
    gen = lib.Generator().manual_seed(7)
    loader = data.DataLoader(ds, batch_size=5, shuffle=True, generator=gen)
    out["shuffle_generator"] = {"epochs": _epochs(lib, loader, 2), "after": _after(lib)}
    lib.manual_seed(8)
    for drop_last in (False, True):
        loader = data.DataLoader(ds, batch_size=4, drop_last=drop_last)
        out[f"sequential_drop_last_{drop_last}"] = {
            "epochs": _epochs(lib, loader, 1),
            "len": len(loader),
            "after": _after(lib),
        }
    lib.manual_seed(9)
    loader = data.DataLoader(ds, batch_size=None, shuffle=True)
    out["no_batching_shuffled"] = {
        "epochs": _epochs(lib, loader, 1),
        "len": len(loader),
        "after": _after(lib),
    }
    lib.manual_seed(10)
    sampler = data.RandomSampler(ds, replacement=True, num_samples=7)
    loader = data.DataLoader(ds, batch_size=3, sampler=sampler)
    out["replacement_sampler"] = {"epochs": _epochs(lib, loader, 2), "after": _after(lib)}
    lib.manual_seed(11)
    batches = data.BatchSampler(data.SubsetRandomSampler([1, 4, 6, 9, 10]), 2, False)
    loader = data.DataLoader(ds, batch_sampler=batches)
    out["batch_sampler"] = {
        "epochs": _epochs(lib, loader, 2),
        "len": len(loader),
        "after": _after(lib),
    }
    lib.manual_seed(12)
    loader = data.DataLoader(list(range(10, 17)), batch_size=3, shuffle=True)
    out["list_dataset"] = {"epochs": _epochs(lib, loader, 1), "after": _after(lib)}
    return out


def samplers(lib):
    """Indices of the samplers themselves."""
    data = lib.utils.data
    src = list(range(13))
    out = {}
    lib.manual_seed(20)
    out["random"] = [list(data.RandomSampler(src)) for _ in range(2)]
    out["random_more"] = list(data.RandomSampler(src, num_samples=30))
    out["random_fewer"] = list(data.RandomSampler(src, num_samples=5))
    out["replacement_70"] = list(data.RandomSampler(src, replacement=True, num_samples=70))
    out["replacement_default"] = list(data.RandomSampler(src, replacement=True))
    gen = lib.Generator().manual_seed(4)
    out["random_generator"] = [list(data.RandomSampler(src, generator=gen)) for _ in range(2)]
    out["subset_random"] = list(data.SubsetRandomSampler([5, 7, 11, 2]))
    out["sequential"] = list(data.SequentialSampler(src))
    out["batch"] = list(data.BatchSampler(range(10), 3, False))
    out["batch_drop_last"] = list(data.BatchSampler(range(10), 3, True))
    out["lens"] = [
        len(data.RandomSampler(src, num_samples=30)),
        len(data.BatchSampler(range(10), 3, False)),
        len(data.BatchSampler(range(10), 3, True)),
        len(data.SubsetRandomSampler([5, 7, 11, 2])),
    ]
    out["after"] = _after(lib)
    return out


def splits(lib):
    """``random_split`` with integer lengths and fractions, default and given generators."""
    data = lib.utils.data
    out = {}
    lib.manual_seed(30)
    out["ints"] = [list(s.indices) for s in data.random_split(range(10), [3, 7])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["fractions"] = [list(s.indices) for s in data.random_split(range(11), [0.3, 0.3, 0.4])]
        out["fraction_zero"] = [list(s.indices) for s in data.random_split(range(3), [0.1, 0.9])]
    gen = lib.Generator().manual_seed(42)
    parts = data.random_split(range(30), [0.5, 0.25, 0.25], generator=gen)
    out["generator"] = [list(s.indices) for s in parts]
    out["subset_items"] = [parts[0][i] for i in range(3)] + [len(parts[1])]
    out["after"] = _after(lib)
    return out


def _collate_inputs(lib):
    return {
        "ints": [1, 2, 3],
        "floats": [1.5, 2.0, -3.25],
        "bools": [True, False, True],
        "mixed_int_float": [1, 2.5],
        "strings": ["a", "bc", "d"],
        "tensors": [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
        "int_tensors": [lib.tensor(3), lib.tensor(4)],
        "tuples": [(1, "a", 2.0), (2, "b", 3.0)],
        "lists": [[1, 2], [3, 4], [5, 6]],
        "dicts": [
            {"x": lib.tensor([1.0]), "label": 0, "name": "p"},
            {"x": lib.tensor([2.0]), "label": 1, "name": "q"},
        ],
        "nested": [
            {"pair": (lib.tensor([1.0, 2.0]), 3), "meta": {"id": 7, "w": 0.5}},
            {"pair": (lib.tensor([4.0, 5.0]), 6), "meta": {"id": 8, "w": 1.5}},
        ],
        "namedtuples": [Point(1, 2.0), Point(3, 4.0)],
        "numpy_arrays": [np.array([1.0, 2.0]), np.array([3.0, 4.0])],
        "numpy_float32": [np.array([1, 2], dtype=np.float32), np.array([3, 4], dtype=np.float32)],
        "numpy_int64": [np.array([[1, 2]]), np.array([[3, 4]])],
        "numpy_scalars": [np.float64(1.5), np.float64(2.5)],
        "numpy_float32_scalars": [np.float32(1.5), np.float32(2.5)],
        "numpy_int_scalars": [np.int64(3), np.int64(4)],
        "ragged_lists": [[1, 2], [3]],
        "objects": [object(), object()],
        "numpy_strings": [np.array(["a"]), np.array(["b"])],
        "unequal_tensors": [lib.ones(2), lib.ones(3)],
    }


def collation(lib):
    """``default_collate`` and ``default_convert`` on each kind of sample (or their errors)."""
    data = lib.utils.data
    out = {}
    for name, batch in _collate_inputs(lib).items():
        try:
            out[name] = encode(lib, data.default_collate(batch))
        except Exception as e:  # the error is the answer
            out[name] = {"error": type(e).__name__, "message": str(e)}
    samples = {
        "array": np.array([1, 2, 3]),
        "tuple_of_arrays": (np.array([1.0]), 5, "s"),
        "dict": {"a": np.array([2.0, 3.0]), "b": [np.int64(4)]},
        "namedtuple": Point(np.array(1), np.array([2.0])),
        "plain": 7,
        "string_array": np.array(["x", "y"]),
    }
    out["convert"] = {k: encode(lib, data.default_convert(v)) for k, v in samples.items()}
    return out


def iterables(lib):
    """Iterable-style datasets: batches, ``drop_last``, ``len``, chaining, concatenation."""
    data = lib.utils.data

    class Stream(data.IterableDataset):
        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            return iter(range(self.start, self.end))

        def __len__(self):
            return self.end - self.start

    out = {}
    lib.manual_seed(40)
    loader = data.DataLoader(Stream(0, 7), batch_size=3)
    out["batched"] = {"epochs": _epochs(lib, loader, 2), "len": len(loader)}
    out["drop_last"] = _epochs(lib, data.DataLoader(Stream(0, 7), batch_size=3, drop_last=True), 1)
    out["unbatched"] = _epochs(lib, data.DataLoader(Stream(3, 6), batch_size=None), 1)
    out["chained"] = list(Stream(0, 2) + Stream(5, 7))
    out["chain_len"] = len(data.ChainDataset([Stream(0, 2), Stream(5, 8)]))
    concat = data.ConcatDataset([list(range(3)), list(range(10, 14))])
    out["concat"] = [concat[i] for i in range(len(concat))] + [concat[-1], concat[-7]]
    out["concat_sizes"] = concat.cumulative_sizes
    out["concat_add"] = len(_tensor_dataset(lib, 3) + _tensor_dataset(lib, 4))
    stack = data.StackDataset(list(range(3)), ["a", "b", "c"])
    out["stack"] = [list(stack[i]) for i in range(3)]
    keyed = data.StackDataset(n=list(range(2)), s=["a", "b"])
    out["stack_keys"] = [keyed[i] for i in range(2)]
    out["after"] = _after(lib)
    return out


class _NoisyItems:
    """A map-style dataset drawing random numbers in ``__getitem__`` (from the worker's
    stream when loaded by workers)."""

    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        info = self.lib.utils.data.get_worker_info()
        worker = -1 if info is None else info.id
        return {
            "i": i,
            "worker": worker,
            "noise": self.lib.rand(2),
            "py": random.randint(0, 10**6),
        }


def workers(lib):
    """``num_workers > 0``: batches in PyTorch's order, per-worker random streams (ferrograd
    emulates the workers in-process), ``worker_init_fn`` and worker info, iterable datasets
    replicated per worker and sharded by ``get_worker_info()``, persistent workers."""
    data = lib.utils.data
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib.manual_seed(50)
        loader = data.DataLoader(_NoisyItems(lib, 9), batch_size=2, shuffle=True, num_workers=2)
        out["noisy_shuffled"] = {"epochs": _epochs(lib, loader, 2), "after": _after(lib)}

        lib.manual_seed(51)
        loader = data.DataLoader(
            _NoisyItems(lib, 5), batch_size=2, num_workers=3, persistent_workers=True
        )
        out["persistent"] = {"epochs": _epochs(lib, loader, 3), "after": _after(lib)}

        class Stream(data.IterableDataset):
            def __init__(self, n, shard):
                self.n, self.shard = n, shard

            def __iter__(self):
                info = data.get_worker_info()
                if self.shard and info is not None:
                    return iter(range(info.id, self.n, info.num_workers))
                return iter(range(self.n))

        lib.manual_seed(52)
        loader = data.DataLoader(Stream(5, False), batch_size=2, num_workers=2)
        out["iterable_replicated"] = _epochs(lib, loader, 1)
        loader = data.DataLoader(Stream(11, True), batch_size=2, num_workers=3)
        out["iterable_sharded"] = _epochs(lib, loader, 1)
        loader = data.DataLoader(Stream(7, True), batch_size=None, num_workers=2)
        out["iterable_sharded_unbatched"] = _epochs(lib, loader, 1)

        class Range(data.IterableDataset):
            def __init__(self, start, end):
                self.start, self.end = start, end

            def __iter__(self):
                return iter(range(self.start, self.end))

        def split_range(worker_id):
            info = data.get_worker_info()
            whole = info.dataset
            per_worker = -(-(whole.end - whole.start) // info.num_workers)
            whole.start = whole.start + worker_id * per_worker
            whole.end = min(whole.start + per_worker, whole.end)

        ranged = Range(3, 12)
        loader = data.DataLoader(ranged, batch_size=2, num_workers=2, worker_init_fn=split_range)
        out["iterable_init_fn_sharded"] = [*_epochs(lib, loader, 2), [ranged.start, ranged.end]]
        out["after"] = _after(lib)
    return out


def _error(action):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            action()
    except Exception as e:  # the error is the answer
        return {"error": type(e).__name__, "message": str(e)}
    return {"error": None}


def errors(lib):
    """Bad arguments: PyTorch's exception classes and messages."""
    data = lib.utils.data
    ds = _tensor_dataset(lib, 4)

    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    def set_batch_size():
        loader = data.DataLoader(ds)
        loader.batch_size = 3

    attempts = {
        "tensor_dataset_sizes": lambda: data.TensorDataset(lib.ones(3), lib.ones(4)),
        "shuffle_and_sampler": lambda: data.DataLoader(
            ds, shuffle=True, sampler=data.SequentialSampler(ds)
        ),
        "batch_sampler_and_batch_size": lambda: data.DataLoader(
            ds, batch_size=2, batch_sampler=data.BatchSampler(range(4), 2, False)
        ),
        "batch_size_none_drop_last": lambda: data.DataLoader(ds, batch_size=None, drop_last=True),
        "iterable_shuffle": lambda: data.DataLoader(Stream(), shuffle=True),
        "iterable_sampler": lambda: data.DataLoader(Stream(), sampler=[0, 1]),
        "negative_workers": lambda: data.DataLoader(ds, num_workers=-1),
        "negative_timeout": lambda: data.DataLoader(ds, timeout=-1),
        "prefetch_without_workers": lambda: data.DataLoader(ds, prefetch_factor=2),
        "persistent_without_workers": lambda: data.DataLoader(ds, persistent_workers=True),
        "context_without_workers": lambda: data.DataLoader(ds, multiprocessing_context="fork"),
        "bad_context": lambda: data.DataLoader(ds, num_workers=1, multiprocessing_context="x"),
        "timeout_without_workers": lambda: iter(data.DataLoader(ds, timeout=1)),
        "set_after_init": set_batch_size,
        "split_bad_sum": lambda: data.random_split(range(5), [2, 2]),
        "split_bad_fraction": lambda: data.random_split(range(5), [1.5, -0.5]),
        "batch_sampler_bad_size": lambda: data.BatchSampler(range(3), 0, False),
        "batch_sampler_bad_drop_last": lambda: data.BatchSampler(range(3), 2, 1),
        "random_sampler_bad_num": lambda: data.RandomSampler(range(3), num_samples=0),
        "random_sampler_bad_replacement": lambda: data.RandomSampler(range(3), replacement=1),
        "concat_empty": lambda: data.ConcatDataset([]),
        "concat_iterable": lambda: data.ConcatDataset([Stream()]),
        "concat_bad_index": lambda: data.ConcatDataset([[1, 2]])[-3],
        "stack_sizes": lambda: data.StackDataset([1, 2], [3]),
        "stack_none": lambda: data.StackDataset(),
        "dataset_getitem": lambda: data.Dataset()[0],
        "iterable_len": lambda: len(data.DataLoader(Stream())),
    }
    return {k: _error(v) for k, v in attempts.items()}


def answers(lib):
    """Everything the golden file holds."""
    return {
        "loaders": loaders(lib),
        "samplers": samplers(lib),
        "splits": splits(lib),
        "collation": collation(lib),
        "iterables": iterables(lib),
        "workers": workers(lib),
        "errors": errors(lib),
    }
