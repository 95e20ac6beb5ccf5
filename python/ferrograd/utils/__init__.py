"""``ferrograd.utils``: data loading (``utils.data``) and activation checkpointing
(``utils.checkpoint``)."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
