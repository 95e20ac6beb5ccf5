"""``nn.DataParallel`` and ``nn.parallel.data_parallel`` as PyTorch runs them on a machine
without an accelerator: the module wraps the given one and calls it as it is, in this thread,
and the functional form refuses (PyTorch splits the batch over GPUs only when it has some;
ferrograd has none)."""

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module`` for data parallelism over GPUs; without one (always here) ``forward``
    calls ``module`` with the same arguments, as PyTorch's. ``module`` is a submodule, so the
    state dict's keys start with ``module.``, as PyTorch's."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        # PyTorch without an accelerator: keep the module, no devices, nothing else set
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        """``module(*inputs, **kwargs)``."""
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form of :class:`DataParallel`, which needs an accelerator: without one
    (always here) a ``RuntimeError``, as PyTorch's."""
    raise RuntimeError("device type could not be determined")
