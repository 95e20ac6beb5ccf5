"""``torch.utils._foreach_utils``: which devices have ``foreach`` (multi-tensor) and ``fused``
optimizer kernels. PyTorch's lists name its accelerators; ferrograd runs on the CPU only, where
its optimizers' steps are already one call into the core per parameter group; the lists are
PyTorch's (the CPU has fused kernels but no foreach ones)."""


def _get_foreach_kernels_supported_devices() -> list[str]:
    """The device types with foreach kernels: accelerators only, not the CPU."""
    return ["cuda", "xpu"]


def _get_fused_kernels_supported_devices() -> list[str]:
    """The device types with fused optimizer kernels (PyTorch's list includes the CPU)."""
    return ["mps", "cuda", "xpu", "hpu", "cpu"]
