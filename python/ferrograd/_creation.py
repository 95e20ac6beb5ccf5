"""Torch-namespace functions written over the core: the default dtype and print options,
``*_like`` constructors, ``normal``'s overloads, the legacy typed constructors
(``FloatTensor``...), the generator state (``get_rng_state``/``set_rng_state``) and
``inference_mode``."""

import builtins

from . import _core
from ._grad_mode import _GradModeContext, no_grad
from ._memory_format import preserve_format


def set_default_dtype(d):
    """Sets the dtype of Python floats and of floating tensors made without a dtype (float32
    or float64)."""
    _core._set_default_dtype(d)


def get_default_dtype():
    """The default floating dtype (float32 unless ``set_default_dtype`` changed it)."""
    return _core._get_default_dtype()


_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, float("inf"), 3, 80),
}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """How tensors print: digits after the point, elements before summarising, edge items of
    a summary, line width, a ``profile`` (``"default"``, ``"short"``, ``"full"``) and
    scientific notation forced on or off (``None``: chosen per tensor)."""
    current = list(_core._get_printoptions()[:4])
    if profile is not None:
        current = list(_PROFILES[profile])
    for i, value in enumerate((precision, threshold, edgeitems, linewidth)):
        if value is not None:
            current[i] = value
    _core._set_printoptions(
        int(current[0]), float(current[1]), int(current[2]), int(current[3]), sci_mode
    )


def _like(input, dtype):
    return input.dtype if dtype is None else dtype


def _laid_out_like(input, memory_format, requires_grad, make):
    """``make(shape)``'s row-major tensor laid out as ``input`` (PyTorch's ``preserve_format``,
    the ``*_like`` default): made in ``input``'s storage order and permuted back, so that
    random samples land in memory in the order PyTorch draws them."""
    preserve = memory_format is None or memory_format is preserve_format
    row_major, step = [], 1
    for size in reversed(tuple(input.shape)):
        row_major.insert(0, step)
        step *= max(size, 1)
    strides = tuple(input.stride()) if preserve else None
    if preserve and strides != tuple(row_major):
        # the strides ``preserve_format`` gives (``empty_like``'s: the input's own when dense)
        strides = _core.zeros_like(input, dtype=_core.bool).stride()
    if not preserve or strides == tuple(row_major):
        out = make(tuple(input.shape))
        if memory_format is not None and not preserve:
            out = out.contiguous(memory_format=memory_format)
        return out.requires_grad_(requires_grad) if requires_grad else out
    order = sorted(range(input.dim()), key=lambda d: -strides[d])
    out = make(tuple(input.shape[d] for d in order))
    # the samples in storage order, seen with exactly those strides
    laid = out.detach().as_strided(tuple(input.shape), strides)
    return laid.detach().requires_grad_(requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """A tensor of ``input``'s shape and dtype (zeros: ferrograd has no uninitialized memory),
    laid out as ``input`` unless ``memory_format`` says otherwise."""
    return _core.zeros_like(
        input, dtype=dtype, requires_grad=requires_grad, memory_format=memory_format
    )


def full_like(
    input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None
):
    """``fill_value`` everywhere, in a tensor of ``input``'s shape and dtype."""
    return _laid_out_like(
        input,
        memory_format,
        requires_grad,
        lambda shape: _core.full(shape, fill_value, dtype=_like(input, dtype)),
    )


def rand_like(
    input, *, generator=None, dtype=None, device=None, requires_grad=False, memory_format=None
):
    """Uniform samples in ``[0, 1)`` of ``input``'s shape and dtype."""
    return _laid_out_like(
        input,
        memory_format,
        requires_grad,
        lambda shape: _core.rand(*shape, generator=generator, dtype=_like(input, dtype)),
    )


def randn_like(
    input, *, generator=None, dtype=None, device=None, requires_grad=False, memory_format=None
):
    """Standard normal samples of ``input``'s shape and dtype."""
    return _laid_out_like(
        input,
        memory_format,
        requires_grad,
        lambda shape: _core.randn(*shape, generator=generator, dtype=_like(input, dtype)),
    )


def randint_like(
    input,
    low=0,
    high=None,
    *,
    generator=None,
    dtype=None,
    device=None,
    requires_grad=False,
    memory_format=None,
):
    """Integers uniform in ``[low, high)`` (``randint_like(input, high)`` for ``[0, high)``),
    of ``input``'s shape and dtype."""
    if high is None:
        low, high = 0, low
    return _laid_out_like(
        input,
        memory_format,
        requires_grad,
        lambda shape: _core.randint(
            low, high, shape, generator=generator, dtype=_like(input, dtype)
        ),
    )


def normal(
    mean=0.0,
    std=1.0,
    size=None,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """Normal samples, as ``torch.normal``'s overloads draw them: ``normal(mean, std)`` with
    tensors (broadcast) or a number on one side, or ``normal(mean, std, size)`` with numbers;
    a tensor mean or std gives standard normals scaled by ``std`` and shifted by ``mean``."""
    if out is not None:
        raise TypeError("normal(): out= is not supported by ferrograd")
    mean_t, std_t = isinstance(mean, _core.Tensor), isinstance(std, _core.Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError(
                "normal() received an invalid combination of arguments: "
                "with numbers for mean and std, a size is needed"
            )
        shape = (size,) if isinstance(size, int) else tuple(size)
        sample = _core.empty(*shape, dtype=dtype or get_default_dtype())
        return sample.normal_(mean, std, generator=generator).requires_grad_(requires_grad)
    if std_t and (std < 0).any().item():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    with no_grad():
        if mean_t and not std_t:
            sample = _core.empty(*mean.shape, dtype=mean.dtype).normal_(
                0.0, std, generator=generator
            )
            return sample.add_(mean)
        ref = mean if mean_t else std
        shape = _broadcast(tuple(mean.shape), tuple(std.shape)) if mean_t else tuple(std.shape)
        sample = _core.empty(*shape, dtype=ref.dtype).normal_(0.0, 1.0, generator=generator)
        return sample.mul_(std).add_(mean)


def _broadcast(a, b):
    """The shape two shapes broadcast to (PyTorch's error when they cannot)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and 1 not in (x, y):
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
        out.append(max(x, y))
    return tuple(out)


def get_rng_state():
    """The default generator's state (pass it to ``set_rng_state``)."""
    return _core.default_generator.get_state()


def set_rng_state(new_state):
    """Restores the default generator's state from ``get_rng_state``."""
    _core.default_generator.set_state(new_state)


class _TypedTensor(type):
    """The metaclass of the legacy constructors: ``isinstance(t, torch.FloatTensor)`` is true
    for a float32 tensor."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _core.Tensor) and obj.dtype == cls._dtype


def _typed(name, dtype_name):
    def __new__(cls, *args, requires_grad=False):
        dtype = getattr(_core, dtype_name)
        is_size = builtins.all(isinstance(a, int) and not isinstance(a, bool) for a in args)
        if not args or is_size or type(args[0]).__name__ == "Size":
            shape = tuple(args[0]) if args and not is_size else args
            return _core.zeros(*shape, dtype=dtype, requires_grad=requires_grad)
        if isinstance(args[0], _core.Tensor):
            return args[0].to(dtype)
        return _core.tensor(args[0], dtype=dtype, requires_grad=requires_grad)

    doc = (
        f"Legacy ``torch.{name}``: ``{name}(*sizes)`` (zeros) or ``{name}(data)``, as {dtype_name}."
    )
    dtype = getattr(_core, dtype_name)
    namespace = {"__new__": __new__, "__doc__": doc, "_dtype": dtype, "dtype": dtype}
    namespace.update(is_cuda=False, is_sparse=False)
    return _TypedTensor(name, (), namespace)


FloatTensor = _typed("FloatTensor", "float32")
DoubleTensor = _typed("DoubleTensor", "float64")
LongTensor = _typed("LongTensor", "int64")
IntTensor = _typed("IntTensor", "int32")
ShortTensor = _typed("ShortTensor", "int16")
CharTensor = _typed("CharTensor", "int8")
ByteTensor = _typed("ByteTensor", "uint8")
BoolTensor = _typed("BoolTensor", "bool")


class inference_mode(_GradModeContext):
    """``torch.inference_mode``: no graph is recorded and the tensors made inside are
    inference tensors (``is_inference()``: never part of a graph; outside inference mode they
    refuse in-place updates, ``requires_grad_()`` and being saved for backward).
    ``inference_mode(False)`` leaves inference mode and turns grad mode on, as PyTorch's. A
    context manager or a decorator (with or without parentheses)."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return object.__new__(cls)
        return cls()(mode)

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self._prev_state = _core._set_inference_mode(bool(self.mode))
        return self

    def __exit__(self, *exc):
        _core._restore_inference_mode(*self._prev_state)
        return False

    def clone(self):
        """A fresh context manager with the same mode (for the decorator form)."""
        return self.__class__(self.mode)


def is_inference_mode_enabled():
    """Whether ``inference_mode`` is on on this thread."""
    return _core.is_inference_mode_enabled()


def is_inference(input):
    """Whether ``input`` is an inference tensor (made in ``inference_mode``)."""
    return input.is_inference()


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, sharing its memory where it can, as PyTorch's ``as_tensor``: a
    tensor already of ``dtype`` (and ``device``) is returned itself, a NumPy array whose dtype
    ferrograd has is viewed without a copy (then converted if ``dtype`` differs); anything
    else is copied, as ``tensor(data, dtype=dtype)``. The result never requires grad unless
    ``data`` is a tensor that does."""
    import numpy as np

    if isinstance(data, _core.Tensor):
        return data.to(device=device, dtype=dtype)
    if isinstance(data, np.ndarray):
        try:
            shared = _core.from_numpy(data)
        except (TypeError, ValueError, RuntimeError):
            shared = None
        if shared is not None:
            return shared.to(device=device, dtype=dtype)
    return _core.tensor(data, dtype=dtype, device=device)
