"""``nn.parallel``: ``DistributedDataParallel``, data parallelism over ``distributed``."""

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
