"""``ferrograd.utils``: data loading (``utils.data``), activation checkpointing
(``utils.checkpoint``) and DLPack exchange (``utils.dlpack``)."""

from . import checkpoint, data, dlpack

__all__ = ["checkpoint", "data", "dlpack"]
