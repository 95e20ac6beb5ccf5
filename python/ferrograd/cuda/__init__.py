"""``torch.cuda`` as a PyTorch built without CUDA has it: no device is available, the calls a
CPU program makes anyway (seeding every GPU, asking for memory figures, emptying the cache) do
what they do there (nothing, or report zero), and the calls that need a device raise PyTorch's
``AssertionError("Torch not compiled with CUDA enabled")``."""

from . import amp

__all__ = [
    "amp",
    "current_device",
    "device",
    "device_count",
    "empty_cache",
    "get_device_name",
    "get_rng_state",
    "get_rng_state_all",
    "initial_seed",
    "is_available",
    "is_bf16_supported",
    "is_tf32_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_rng_state",
    "set_rng_state_all",
    "synchronize",
]


def _not_compiled(*_args, **_kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


def is_available():
    """False: ferrograd computes on the CPU."""
    return False


def device_count():
    """0 devices."""
    return 0


def is_initialized():
    """False: CUDA is never initialized."""
    return False


def is_bf16_supported(including_emulation=True):
    """False: no CUDA device."""
    return False


def is_tf32_supported():
    """False: no CUDA device."""
    return False


def manual_seed(seed):
    """Nothing to seed (PyTorch queues the call until a device is initialized, which never
    happens without one)."""
    int(seed)


def manual_seed_all(seed):
    """Nothing to seed: no CUDA device (as PyTorch without one)."""
    int(seed)


def seed():
    """Nothing to seed: no CUDA device."""


def seed_all():
    """Nothing to seed: no CUDA device."""


def get_rng_state_all():
    """The states of every CUDA device's generator: none."""
    return []


def set_rng_state_all(new_states):
    """Sets the state of every CUDA device's generator: there are none."""
    for _ in new_states:
        _not_compiled()


def empty_cache():
    """Nothing cached: no CUDA memory was ever allocated."""


def memory_allocated(device=None):
    """0 bytes: no CUDA memory."""
    return 0


def max_memory_allocated(device=None):
    """0 bytes: no CUDA memory."""
    return 0


def memory_reserved(device=None):
    """0 bytes: no CUDA memory."""
    return 0


def max_memory_reserved(device=None):
    """0 bytes: no CUDA memory."""
    return 0


def reset_peak_memory_stats(device=None):
    """Refused as PyTorch refuses it without a device."""
    raise RuntimeError("invalid argument to reset_peak_memory_stats")


initial_seed = _not_compiled
current_device = _not_compiled
get_device_name = _not_compiled
get_rng_state = _not_compiled
set_rng_state = _not_compiled
set_device = _not_compiled
synchronize = _not_compiled
_not_compiled.__doc__ = "Needs a CUDA device: ``AssertionError`` as PyTorch without CUDA."


class device:
    """``with torch.cuda.device(i):`` selects a CUDA device; entering it needs one (``-1`` or
    ``None`` select nothing, as in PyTorch)."""

    def __init__(self, device):
        self.idx = -1 if device is None else getattr(device, "index", device)
        if self.idx is None:
            self.idx = -1

    def __enter__(self):
        if self.idx != -1:
            _not_compiled()
        return self

    def __exit__(self, *exc):
        return False
