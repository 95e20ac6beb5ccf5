"""Samplers: the order in which a ``DataLoader`` visits a map-style dataset's indices.

The random samplers draw exactly as PyTorch's, so after the same ``manual_seed`` (or with
generators seeded alike) they give PyTorch's indices in PyTorch's order."""

import itertools
from typing import Generic, TypeVar

from ... import _core

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: subclasses define ``__iter__`` over indices (and usually ``__len__``)."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _private_generator():
    """PyTorch's RandomSampler without a generator: a fresh generator seeded by one int64 draw
    from the global stream."""
    seed = int(_core.empty((), dtype=_core.int64).random_().item())
    generator = _core.Generator()
    generator.manual_seed(seed)
    return generator


class RandomSampler(Sampler[int]):
    """The indices shuffled (a fresh permutation per pass), or, with ``replacement``,
    ``num_samples`` indices drawn uniformly with replacement (in blocks of 32 as PyTorch).
    ``num_samples`` beyond the dataset's length without replacement chains permutations."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self):
        """How many indices one pass yields (the dataset's length unless given)."""
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _private_generator()
        count = self.num_samples
        if self.replacement:
            for _ in range(count // 32):
                yield from _core.randint(n, (32,), dtype=_core.int64, generator=generator).tolist()
            yield from _core.randint(
                n, (count % 32,), dtype=_core.int64, generator=generator
            ).tolist()
            return
        for _ in range(count // n):
            yield from _core.randperm(n, generator=generator).tolist()
        yield from _core.randperm(n, generator=generator).tolist()[: count % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (one ``randperm`` per pass)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _core.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler[list]):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while True:
            batch = list(itertools.islice(indices, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
]
