"""``utils.data``: datasets, samplers and ``DataLoader``, as PyTorch's ``torch.utils.data``
(shuffling draws PyTorch's random numbers; ``num_workers > 0`` is emulated in-process, see
``dataloader``)."""

from . import distributed
from ._collate import default_collate, default_convert
from .dataloader import DataLoader, WorkerInfo, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WorkerInfo",
    "default_collate",
    "default_convert",
    "distributed",
    "get_worker_info",
    "random_split",
]
