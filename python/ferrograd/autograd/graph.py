"""``ferrograd.autograd.graph``: the node type of the backward graph."""

from .._core import Node

__all__ = ["Node"]
