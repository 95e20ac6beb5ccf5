"""``torch.cuda.amp``: PyTorch's deprecated spellings of ``torch.amp.GradScaler("cuda")`` and
``torch.amp.autocast("cuda")``, which on a machine without CUDA disable themselves."""

import warnings

from .. import amp as _amp

__all__ = ["GradScaler", "autocast"]


class GradScaler(_amp.GradScaler):
    """``torch.amp.GradScaler("cuda", ...)``, deprecated: without CUDA it warns and disables
    itself (every method then passes values through)."""

    def __init__(
        self,
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        warnings.warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(
            "cuda",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )


class autocast(_amp.autocast):
    """``torch.amp.autocast("cuda", ...)``, deprecated: without CUDA it disables itself."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
