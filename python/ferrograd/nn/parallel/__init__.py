"""``nn.parallel``: ``DistributedDataParallel``, data parallelism over ``distributed``, and
``DataParallel`` (which, without a GPU, calls the module as it is, as PyTorch's)."""

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
