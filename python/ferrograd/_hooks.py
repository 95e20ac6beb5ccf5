"""Small Python types the native module hands out: hook handles and ``max``/``min`` results."""

from collections import namedtuple

max_result = namedtuple("max", ["values", "indices"])
min_result = namedtuple("min", ["values", "indices"])


class RemovableHandle:
    """Returned by ``Tensor.register_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, tensor, hook_id):
        self._tensor = tensor
        self.id = hook_id

    def remove(self):
        if self._tensor is not None:
            self._tensor._remove_hook(self.id)
            self._tensor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False
