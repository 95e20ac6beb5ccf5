"""Process-wide settings PyTorch programs make whatever their device: deterministic algorithms,
the float32 matrix-product precision, the default device and ``torch.compile``. ferrograd keeps
each setting and reports it back; none changes a result, because ferrograd is always
deterministic (bitwise-identical results on every run and thread count) and always computes
float32 products in full float32."""

import functools
import warnings

from ._device import device as _device
from .nn import Module

__all__ = [
    "are_deterministic_algorithms_enabled",
    "compile",
    "get_default_device",
    "get_float32_matmul_precision",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_default_device",
    "set_float32_matmul_precision",
    "use_deterministic_algorithms",
]

_flags = {"deterministic": False, "warn_only": False, "precision": "highest"}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Asks for deterministic algorithms (ferrograd's already are); read back by
    ``are_deterministic_algorithms_enabled``."""
    if not isinstance(mode, bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
            f"not {type(mode).__name__}"
        )
    _flags["deterministic"] = mode
    _flags["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled():
    """What ``use_deterministic_algorithms`` last set (False at start, as PyTorch)."""
    return _flags["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """The ``warn_only`` of the last ``use_deterministic_algorithms``."""
    return _flags["warn_only"]


def set_float32_matmul_precision(precision):
    """``"highest"``, ``"high"`` or ``"medium"``: kept and read back; ferrograd computes float32
    products in full float32 whatever is set (PyTorch's "highest")."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            stacklevel=2,
        )
        return
    _flags["precision"] = precision


def get_float32_matmul_precision():
    """What ``set_float32_matmul_precision`` last set (``"highest"`` at start)."""
    return _flags["precision"]


def set_default_device(device):
    """The device factory functions use when given none: the CPU (or None, the same), or the
    meta device (tensors without values, ``ferrograd._meta``)."""
    from . import _meta

    kind = "cpu" if device is None else _device(device).type
    if kind not in ("cpu", "meta"):
        raise RuntimeError(
            f"set_default_device: ferrograd computes on the CPU only, not on '{device}'"
        )
    _meta._default_is_meta[0] = kind == "meta"


def get_default_device():
    """``device(type='cpu')``, or ``device(type='meta')`` while that is the default."""
    from . import _meta

    return _device("meta" if _meta._default_is_meta[0] else "cpu")


_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    disable=False,
):
    """``torch.compile`` with the semantics of its ``backend="eager"``: the same computation,
    run as written. A module comes back wrapped as PyTorch wraps it (``OptimizedModule``, its
    parameters under ``_orig_mod.``), a function as a function; also a decorator, with or
    without arguments."""
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if model is None:
        return functools.partial(
            compile,
            fullgraph=fullgraph,
            dynamic=dynamic,
            backend=backend,
            mode=mode,
            options=options,
            disable=disable,
        )
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)
    if not callable(model):
        raise RuntimeError(f"Expected a function or nn.Module, got {type(model).__name__}")

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)

    compiled._torchdynamo_orig_callable = model
    return compiled


class OptimizedModule(Module):
    """A module ``torch.compile`` returned: it holds the original as ``_orig_mod`` and runs its
    forward; attributes it lacks come from the original."""

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)
