"""``nn.init``: PyTorch's parameter initialisations, with its formulas for gains and fan-in /
fan-out, drawing from the generator as PyTorch does (after ``manual_seed`` the values are
PyTorch's). Each fills its tensor in place, without recording, and returns it."""

import math
import warnings

import numpy as np

from .. import _core
from .._grad_mode import no_grad


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    linear_fns = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if dimensions > 2:
        for s in tuple(tensor.shape)[2:]:
            receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _gen(generator):
    """The keyword arguments that draw from ``generator`` (none for the default one)."""
    return {} if generator is None else {"generator": generator}


@no_grad()
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills with uniform samples in ``[a, b)`` (from ``generator`` when given)."""
    return tensor.uniform_(a, b, **_gen(generator))


@no_grad()
def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills with normal samples (from ``generator`` when given)."""
    return tensor.normal_(mean, std, **_gen(generator))


@no_grad()
def constant_(tensor, val):
    """Fills with ``val``."""
    return tensor.fill_(val)


def zeros_(tensor):
    """Fills with zeros."""
    return constant_(tensor, 0.0)


def ones_(tensor):
    """Fills with ones."""
    return constant_(tensor, 1.0)


@no_grad()
def eye_(tensor):
    """The identity matrix (a 2-D tensor)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    tensor.zero_()
    for i in range(min(tensor.shape)):
        tensor[i, i] = 1.0
    return tensor


def dirac_(tensor, groups=1):
    """The Dirac delta of a 3-, 4- or 5-D convolution weight: zeros, with a one at the
    kernel's centre linking output channel ``d`` of each of the ``groups`` groups to input
    channel ``d`` (for as many channels as both sides have), so the convolution keeps its
    input channels."""
    dimensions = tensor.dim()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    centre = tuple(size // 2 for size in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(out_per_group, sizes[1])):
                tensor[(g * out_per_group + d, d, *centre)] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: ``U(-a, a)`` with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: ``N(0, gain^2 * 2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """He's standard deviation ``gain / sqrt(fan)``."""
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: ``U(-bound, bound)`` with ``bound = gain * sqrt(3 / fan)`` (a warning and
    nothing else for a tensor with no element)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: ``N(0, gain^2 / fan)`` (a warning and nothing else for a tensor with no
    element)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills with a normal ``N(mean, std^2)`` truncated to ``[a, b]``, drawing as PyTorch 2.x:
    when ``[a, b]`` holds more than 0.3 of the mass, normal draws with the elements outside
    redrawn (a whole fresh draw per round); otherwise uniform draws on ``[a, b]`` accepted with
    probability ``exp(-((x - mean) / std)^2 / 2)`` relative to the density's peak on ``[a, b]``."""

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    with no_grad():
        mass = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if mass > 0.3:
            # the bounds as the tensor's dtype holds them
            lo = _core.tensor(a, dtype=tensor.dtype).item()
            hi = _core.tensor(b, dtype=tensor.dtype).item()
            result = tensor.normal_(mean, std, **_gen(generator))
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                fresh = _core.empty(tuple(result.shape), dtype=result.dtype)
                fresh.normal_(mean, std, **_gen(generator))
                result = _core.where(outside, fresh, result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_ratio(x):
            return x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

        shape = tuple(tensor.shape)
        candidates = _core.empty(shape, dtype=tensor.dtype)
        accept = _core.empty(shape, dtype=tensor.dtype)
        tensor.uniform_(a, b, **_gen(generator))
        candidates.copy_(tensor)
        log_ratio(candidates)
        pending = accept.uniform_(**_gen(generator)).log_() > candidates
        if pending.any():
            result = tensor
            while True:
                candidates.uniform_(a, b, **_gen(generator))
                result = _core.where(pending, candidates, result)
                log_ratio(candidates)
                fresh_accept = accept.uniform_(**_gen(generator)).log_() > candidates
                pending = _core.where(pending, fresh_accept, pending)
                if not pending.any():
                    break
            tensor.copy_(result)
    return tensor


def orthogonal_(tensor, gain=1, generator=None):
    """Fills with a (semi-)orthogonal matrix as PyTorch makes it: QR of a normal draw of shape
    ``(rows, numel // rows)`` (transposed when wider than tall), signs fixed by ``diag(R)``,
    times ``gain``."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        drawn = _core.empty(rows, cols, dtype=tensor.dtype)
        drawn = drawn.normal_(0.0, 1.0, **_gen(generator)).numpy()
        if rows < cols:
            drawn = drawn.T
        q, r = np.linalg.qr(drawn.astype(np.float64))
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        flat = _core.from_numpy(np.ascontiguousarray(q).astype(drawn.dtype))
        tensor.copy_(flat.reshape(tuple(tensor.shape)))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A sparse 2-D matrix (Martens 2010): normal ``N(0, std^2)`` draws (from ``generator``
    when given), then in each column the rows ``randperm(rows)[:ceil(sparsity * rows)]``
    zeroed. As PyTorch's, the permutations come from the default generator, column after
    column, after the normal draws."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tuple(tensor.shape)
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, **_gen(generator))
        for col in range(cols):
            zero_rows = _core.randperm(rows)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


def _make_deprecate(method):
    """The old name of ``method`` (without the trailing underscore): the same function,
    warning (``FutureWarning``) that it is deprecated."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return method(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = (
        f"{old_name}(...): deprecated in favor of :func:`torch.nn.init.{new_name}` (which see)."
    )
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)


__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "constant_",
    "zeros_",
    "ones_",
    "eye_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "trunc_normal_",
    "orthogonal_",
    "dirac_",
    "sparse_",
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]
