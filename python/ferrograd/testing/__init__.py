"""``torch.testing``: ``assert_close`` (PyTorch's tolerances, recursion and messages),
``make_tensor`` (PyTorch's ranges per dtype) and the deprecated ``assert_allclose``."""

from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
