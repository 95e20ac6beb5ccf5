"""Anomaly detection (``torch.autograd.detect_anomaly``): while on, each backward node
remembers the forward call that made it, a node whose results hold NaN raises (unless
``check_nan=False``), and a node that fails in backward is reported with that forward call."""

import warnings

from .. import _core


class detect_anomaly:
    """Turns anomaly detection on inside the block (or the decorated function)."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = _core.is_anomaly_enabled()
        self.prev_check_nan = _core.is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self):
        _core._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        _core._set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False

    def __call__(self, func):
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Sets anomaly detection on or off now; as a context manager, restores it on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = _core.is_anomaly_enabled()
        self.prev_check_nan = _core.is_anomaly_check_nan_enabled()
        _core._set_anomaly_enabled(bool(mode), bool(check_nan))

    def __enter__(self):
        return self

    def __exit__(self, *args):
        _core._set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False


__all__ = ["detect_anomaly", "set_detect_anomaly"]
