"""Helpers shared by the distributions, with the same names and results as PyTorch's
``torch.distributions.utils``: parameters broadcast together, probabilities and logits converted
into each other, parameters computed on first use (``lazy_property``), and the vector form of a
lower triangle."""

from __future__ import annotations

import math
from functools import update_wrapper
from typing import Any, Callable

import ferrograd as torch

from .._core import Tensor

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060

# What PyTorch counts as a number where a parameter may be a number or a tensor.
_Number = (int, float, bool)


class _FInfo:
    """The few ``torch.finfo`` fields the distributions read (ferrograd has no ``finfo``)."""

    def __init__(self, eps: float, tiny: float, max: float):
        self.eps = eps
        self.tiny = tiny
        self.max = max
        self.min = -max


_FINFO = {
    "float32": _FInfo(2.0**-23, 2.0**-126, 3.4028234663852886e38),
    "float64": _FInfo(2.0**-52, 2.0**-1022, 1.7976931348623157e308),
}


def _finfo(dtype) -> _FInfo:
    return _FINFO[str(dtype).replace("torch.", "")]


def _size(*parts) -> torch.Size:
    """The concatenation of shapes (tuples, lists or ``Size``) as one ``Size``."""
    out: list[int] = []
    for p in parts:
        out.extend(p)
    return torch.Size(out)


def _broadcast_shapes(*shapes) -> torch.Size:
    """The shape the given shapes broadcast to (``torch.broadcast_shapes``)."""
    return torch.Size(torch.broadcast_tensors(*[torch.empty(tuple(s)) for s in shapes])[0].shape)


def broadcast_all(*values) -> tuple[Tensor, ...]:
    """Tensors and numbers broadcast to one shape; numbers become tensors of the first tensor's
    dtype (the default dtype when all are numbers)."""
    if not all(isinstance(v, (Tensor, *_Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "torch.Tensor or objects implementing __torch_function__."
        )
    if not all(isinstance(v, Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
        if dtype is None:
            dtype = torch.get_default_dtype()
        values = tuple(v if isinstance(v, Tensor) else torch.tensor(v, dtype=dtype) for v in values)
    return tuple(torch.broadcast_tensors(*values))


def _standard_normal(shape, dtype, device=None) -> Tensor:
    """Standard normal draws of ``shape``, drawn as PyTorch draws them (``empty().normal_()``)."""
    return torch.empty(tuple(shape), dtype=dtype).normal_()


def _sum_rightmost(value, dim: int):
    """``value`` summed over its ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape((*tuple(value.shape[: value.dim() - dim]), -1)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: the sigmoid for one event, else the softmax over the last
    dimension."""
    if is_binary:
        return torch.sigmoid(logits)
    return torch.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` clamped to ``[eps, 1 - eps]`` of its dtype."""
    eps = _finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities (clamped away from 0 and 1): log-odds for one event, else the
    logarithms."""
    p = clamp_probs(probs)
    if is_binary:
        return torch.log(p) - torch.log1p(-p)
    return torch.log(p)


class lazy_property:
    """A parameter computed from the others on first access (with gradients recorded), then kept
    as an instance attribute: ``Bernoulli(logits=l).probs`` is ``sigmoid(l)``, computed once."""

    def __init__(self, wrapped: Callable[[Any], Any]):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy property looks like on the class: a ``property`` and a ``lazy_property``."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n: int, diag: int) -> Tensor:
    arange = torch.arange(n)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (from diagonal ``diag``) of the last two dimensions, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of ``tril_matrix_to_vec``: a vector filled row by row into a lower triangle."""
    k = vec.shape[-1]
    n = (-(1 + 2 * diag) + math.sqrt((1 + 2 * diag) ** 2 + 8 * k + 4 * abs(diag) * (diag + 1))) / 2
    if round(n) - n > _finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {k} which cannot be expressed as "
            + "the lower triangular part of a square D x D matrix."
        )
    d = round(n)
    mat = vec.new_zeros((*tuple(vec.shape[:-1]), d, d))
    mat[..., _tril_mask(d, diag)] = vec
    return mat


def _diag_embed(v: Tensor) -> Tensor:
    """Square matrices with ``v``'s last dimension on their diagonals (``torch.diag_embed``)."""
    n = v.shape[-1]
    return v.unsqueeze(-1) * torch.eye(n, dtype=v.dtype)
