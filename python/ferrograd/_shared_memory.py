"""Tensors in shared memory, for training in several processes (``torch.multiprocessing``):
``Tensor.share_memory_()`` moves a tensor's values into a POSIX shared-memory segment (the
tensor keeps its identity, so a module's parameters stay its parameters), ``Tensor.is_shared()``
says whether they live in one, and a shared tensor sent to another process
(``multiprocessing``'s pickler: ``Process`` arguments under ``spawn``, queues, pipes) arrives as
a tensor over the same segment, so in-place updates in either process are seen by both (the
Hogwild pattern of ``Module.share_memory()``).

Note [Sharing by name]
    PyTorch's default strategy on Linux passes file descriptors; this is its ``file_system``
    strategy: segments are named (``multiprocessing.shared_memory``), the process that made a
    segment removes its name when the tensor's values are freed or the process exits, and a
    process that attaches to one never removes it. Only tensors already in shared memory travel
    by name; any other tensor sent to another process is copied (PyTorch would move it into
    shared memory first), so a data loader's batches stay ordinary memory.
"""

from __future__ import annotations

import weakref
from multiprocessing import shared_memory
from multiprocessing.reduction import ForkingPickler

import numpy as np

from ._core import Tensor

# segment name -> (segment, address of its first byte, size in bytes)
_segments: dict[str, tuple[shared_memory.SharedMemory, int, int]] = {}


def _segment_of(t: Tensor):
    """The name of the segment holding ``t``'s values, or None."""
    if t.numel() == 0:
        return None
    address = t.data_ptr()
    for name, (_, start, size) in _segments.items():
        if start <= address < start + size:
            return name
    return None


def _release(name: str) -> None:
    segment = _segments.pop(name, (None,))[0]
    if segment is not None:
        try:
            segment.unlink()
        except FileNotFoundError:
            pass


def _over(segment, dtype, count):
    """A NumPy array of ``count`` elements over ``segment``'s bytes."""
    array = np.ndarray((count,), dtype=dtype, buffer=segment.buf)
    _segments[segment.name] = (segment, array.ctypes.data, segment.size)
    return array


def is_shared(self: Tensor) -> bool:
    """Whether this tensor's values live in shared memory (``share_memory_``)."""
    return _segment_of(self) is not None


def share_memory_(self: Tensor) -> Tensor:
    """Moves this tensor's values into shared memory (once; a no-op when they are there already)
    and returns it; its identity, shape, gradient and graph role are kept."""
    if self.is_sparse:
        raise RuntimeError("share_memory_: sparse tensors cannot be moved to shared memory")
    if is_shared(self) or self.numel() == 0:
        return self
    from . import from_numpy, no_grad

    values = self.detach().contiguous().reshape(-1).numpy()
    segment = shared_memory.SharedMemory(create=True, size=max(values.nbytes, 1))
    array = _over(segment, values.dtype, values.size)
    array[:] = values
    weakref.finalize(array, _release, segment.name)
    with no_grad():
        self.set_(from_numpy(array).view(self.shape))
    return self


def _rebuild(name, dtype, count, offset, shape, stride, requires_grad, parameter):
    """A tensor over the named segment, in the process that receives it."""
    from . import from_numpy
    from .nn import Parameter

    if name in _segments:
        segment = _segments[name][0]
    else:
        # attaching registers the name with the resource tracker, which a started process
        # shares with its parent: a set, so the maker's registration is the one that counts
        segment = shared_memory.SharedMemory(name=name)
    array = _over(segment, np.dtype(dtype), count)
    t = from_numpy(array).as_strided(shape, stride, offset)
    if parameter:
        return Parameter(t, requires_grad=requires_grad)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _reduce(t: Tensor):
    name = _segment_of(t)
    if name is None or t.grad_fn is not None:
        return t.__reduce_ex__(2)
    from .nn import Parameter

    _, start, size = _segments[name]
    itemsize = t.element_size()
    dtype = str(t.dtype).rpartition(".")[2]  # NumPy's name of the same dtype
    offset = (t.data_ptr() - start) // itemsize
    args = (name, dtype, size // itemsize, offset, tuple(t.shape), t.stride())
    return _rebuild, (*args, t.requires_grad, isinstance(t, Parameter))


def _install() -> None:
    Tensor.share_memory_ = share_memory_  # type: ignore[method-assign]
    Tensor.is_shared = is_shared  # type: ignore[method-assign]
    from .nn import Parameter

    ForkingPickler.register(Tensor, _reduce)
    ForkingPickler.register(Parameter, _reduce)
