"""``torch.amp``: gradient scaling and automatic mixed precision as PyTorch has them on a machine
without CUDA.

``GradScaler("cpu")`` works as PyTorch's: it multiplies the loss by a scale, divides the
gradients back before the optimizer step, skips the step when a gradient is not finite and
adjusts the scale. ``GradScaler("cuda")`` and ``autocast("cuda")`` warn and disable themselves,
as PyTorch's do without CUDA. ``autocast("cpu")`` enabled needs bfloat16, which ferrograd does
not have yet: entering it is refused."""

import functools
import warnings

from .. import _core
from .._device import device as _device_type
from .._grad_mode import no_grad as _no_grad

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]

_READY, _UNSCALED, _STEPPED = 0, 1, 2


def is_autocast_available(device_type):
    """Whether autocast knows ``device_type`` (``cpu`` and ``cuda`` here)."""
    return device_type in ("cpu", "cuda")


class autocast:
    """``with torch.autocast(device_type, dtype=None, enabled=True):``: ops in the block run in a
    lower precision. ``"cuda"`` without CUDA warns and disables itself as PyTorch's does;
    ``"cpu"`` enabled is refused (ferrograd has no bfloat16 or float16 yet); disabled, the
    block runs unchanged. Also a decorator."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        _device_type(device_type)  # PyTorch's refusal of an unknown device type
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        if device_type == "cuda" and self._enabled:
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.",
                stacklevel=2,
            )
            self._enabled = False

    def __enter__(self):
        if self._enabled:
            raise NotImplementedError(
                f"autocast on '{self.device}' needs a lower-precision dtype (bfloat16 or "
                "float16), which ferrograd does not have yet"
            )
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorated


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's ``forward`` under autocast: autocast never runs here,
    so the forward runs as written."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's ``backward`` under autocast (see ``custom_fwd``)."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd


class GradScaler:
    """Scales a loss so that small gradients survive a low precision, and unscales the gradients
    before the optimizer's step (PyTorch's ``torch.amp.GradScaler``).

    ``scale(loss)`` multiplies by the scale; ``step(optimizer)`` unscales the gradients of the
    optimizer's parameters (unless ``unscale_`` already did) and steps only when all are finite;
    ``update()`` halves the scale (``backoff_factor``) after a non-finite gradient, else doubles
    it (``growth_factor``) after ``growth_interval`` finite steps in a row. Disabled, every
    method passes values through."""

    def __init__(
        self,
        device="cuda",
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = float(init_scale)
        self._scale = None
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer = {}

    def is_enabled(self):
        """Whether this scaler scales (False when disabled or asked for CUDA without it)."""
        return self._enabled

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": None})

    def _lazy_init(self):
        if self._scale is None:
            self._scale = _core.full((), self._init_scale, dtype=_core.float32)
            self._growth_tracker = self._init_growth_tracker

    def scale(self, outputs):
        """``outputs`` (a tensor, or nested lists and tuples of them) times the scale."""
        if not self._enabled:
            return outputs
        self._lazy_init()
        if isinstance(outputs, _core.Tensor):
            return outputs * self._scale.to(outputs.dtype)
        if isinstance(outputs, (list, tuple)):
            scaled = [self.scale(o) for o in outputs]
            return type(outputs)(scaled)
        if hasattr(outputs, "__iter__"):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        """Divides the gradients of ``optimizer``'s parameters by the scale, in place, and notes
        whether any is not finite."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale is None:
            raise AssertionError(
                "Attempted unscale_ but _scale is None.  This may indicate your script did not "
                "use scaler.scale(loss or outputs) earlier in the iteration."
            )
        inv_scale = 1.0 / float(self._scale.item())
        found_inf = False
        with _no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inv_scale)
                    if not bool(p.grad.isfinite().all()):
                        found_inf = True
        state["found_inf"] = found_inf
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscales (unless done), then ``optimizer.step(*args, **kwargs)`` when every gradient
        is finite; returns what the step returned, or None when skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        """Sets the next scale: ``new_scale`` if given, else backed off after a non-finite
        gradient and grown after ``growth_interval`` finite steps."""
        if not self._enabled:
            return
        self._lazy_init()
        if new_scale is not None:
            value = new_scale.item() if isinstance(new_scale, _core.Tensor) else new_scale
            self._scale.fill_(float(value))
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values()]
            found = [f for f in found if f is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale.mul_(self._growth_factor)
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self):
        """The factor the scale grows by."""
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        """Sets the factor the scale grows by."""
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        """The factor the scale shrinks by after a non-finite gradient."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        """Sets the factor the scale shrinks by."""
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        """Finite steps in a row before the scale grows."""
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        """Sets the finite steps in a row before the scale grows."""
        self._growth_interval = int(new_interval)

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def state_dict(self):
        """The scale, factors, interval and growth tracker (empty when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        """Restores what ``state_dict`` gave."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker = self._init_growth_tracker
