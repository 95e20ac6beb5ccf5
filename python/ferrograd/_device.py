"""Devices as PyTorch names them: ``device("cpu")`` is where every ferrograd tensor lives;
other device objects can be made (as in PyTorch without that hardware), and moving a tensor to
them is refused. ``torch.accelerator`` reports none (``torch.cuda`` and ``torch.backends`` are
packages of their own)."""

import types

# PyTorch's device types, in the order of its error message
_DEVICE_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
    "vulkan, mps, meta, hpu, mtia, privateuseone"
)


class device:
    """``device("cpu")``, ``device("cuda:0")``, ``device("cuda", 0)``: a type and an index."""

    __slots__ = ("index", "type")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments: {type!r}")
        kind, _, number = type.partition(":")
        if kind not in _DEVICE_TYPES.split(", "):
            raise RuntimeError(
                f"Expected one of {_DEVICE_TYPES} device type at start of device string: {type}"
            )
        if number:
            if index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type = kind
        self.index = index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other):
        # as PyTorch: a device is never equal to a string (compare ``str(d)`` or ``d.type``)
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        """``with torch.device(...)``: the default device inside the block (the CPU or the meta
        device; another is refused on entry, as by ``set_default_device``)."""
        from ._global_flags import get_default_device, set_default_device

        _previous.append(get_default_device())
        try:
            set_default_device(self)
        except BaseException:
            _previous.pop()
            raise
        return self

    def __exit__(self, *exc):
        from ._global_flags import set_default_device

        set_default_device(_previous.pop())
        return False


# the default devices that ``with device(...)`` blocks replaced, innermost last
_previous: list = []


# ``torch.accelerator``: the current accelerator, of which a CPU-only build has none
accelerator = types.SimpleNamespace(
    is_available=lambda: False,
    device_count=lambda: 0,
    current_accelerator=lambda check_available=False: None,
    __doc__="``accelerator``: none (ferrograd computes on the CPU).",
)
