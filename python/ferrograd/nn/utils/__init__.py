"""``nn.utils``: gradient clipping, parameter/vector conversion, parametrizations
(``parametrize``, ``parametrizations``) and the older hook-based ``weight_norm`` and
``spectral_norm``; ``prune`` (masking parameters); ``rnn`` (packed sequences);
``stateless`` (calling a module with other tensors)."""

from . import (
    clip_grad,
    convert_parameters,
    parametrizations,
    parametrize,
    prune,
    rnn,
    stateless,
)
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad",
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "convert_parameters",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "prune",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "spectral_norm",
    "stateless",
    "vector_to_parameters",
    "weight_norm",
]
