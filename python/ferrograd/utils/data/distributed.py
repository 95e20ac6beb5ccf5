"""``DistributedSampler``: each rank's share of a dataset, as PyTorch's
``torch.utils.data.distributed.DistributedSampler`` (same indices: the shuffle draws PyTorch's
``randperm`` from a generator seeded with ``seed + epoch``)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from ... import _core
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[int]):
    """Yields the indices of rank ``rank``'s share of ``dataset``: every ``num_replicas``-th index
    from ``rank`` on, of the dataset's indices (shuffled with ``seed + epoch`` when ``shuffle``),
    padded by repeating the first ones to a multiple of ``num_replicas`` (or, with
    ``drop_last``, cut to one). ``num_replicas`` and ``rank`` default to the process group's.
    Call ``set_epoch(epoch)`` before each epoch for a new shuffle."""

    def __init__(
        self,
        dataset: Any,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        from ... import distributed as dist

        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil(
                (len(self.dataset) - self.num_replicas) / self.num_replicas
            )
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        if self.shuffle:
            g = _core.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices: list[int] = _core.randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(
                f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})"
            )
        indices = indices[self.rank : self.total_size : self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(
                f"Number of subsampled indices ({len(indices)}) does not match num_samples "
                f"({self.num_samples})"
            )
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which seeds the next shuffle (with ``seed``)."""
        self.epoch = epoch
