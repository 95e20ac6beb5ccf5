"""``torch.backends.cuda``: not built (no CUDA); its matmul and attention flags are kept."""

import contextlib

from .. import _global_flags

__all__ = [
    "enable_flash_sdp",
    "enable_math_sdp",
    "enable_mem_efficient_sdp",
    "flash_sdp_enabled",
    "is_built",
    "math_sdp_enabled",
    "matmul",
    "mem_efficient_sdp_enabled",
    "sdp_kernel",
]


class _MatmulFlags:
    """``torch.backends.cuda.matmul``: TF32 and reduced-precision reduction flags.
    ``allow_tf32`` is another view of ``torch.get_float32_matmul_precision()``, as in PyTorch:
    True is any precision but ``"highest"``, and setting it sets ``"high"`` or ``"highest"``."""

    def __init__(self):
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return _global_flags.get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        _global_flags.set_float32_matmul_precision("high" if value else "highest")


matmul = _MatmulFlags()
_sdp = {"flash": True, "mem_efficient": True, "math": True}


def is_built():
    """False: ferrograd is not built with CUDA."""
    return False


def enable_flash_sdp(enabled):
    """Keeps the flag (attention always runs ferrograd's CPU kernel)."""
    _sdp["flash"] = bool(enabled)


def flash_sdp_enabled():
    """The flag ``enable_flash_sdp`` set."""
    return _sdp["flash"]


def enable_mem_efficient_sdp(enabled):
    """Keeps the flag (attention always runs ferrograd's CPU kernel)."""
    _sdp["mem_efficient"] = bool(enabled)


def mem_efficient_sdp_enabled():
    """The flag ``enable_mem_efficient_sdp`` set."""
    return _sdp["mem_efficient"]


def enable_math_sdp(enabled):
    """Keeps the flag (attention always runs ferrograd's CPU kernel)."""
    _sdp["math"] = bool(enabled)


def math_sdp_enabled():
    """The flag ``enable_math_sdp`` set."""
    return _sdp["math"]


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, **_other):
    """Sets the three attention flags inside the block and restores them after."""
    saved = dict(_sdp)
    _sdp.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient)
    try:
        yield
    finally:
        _sdp.update(saved)
