"""Flattening parameters into one vector and back, as PyTorch's
``nn.utils.convert_parameters``."""

from ... import _core
from ..._core import Tensor
from ..modules.module import _typename


def parameters_to_vector(parameters):
    """One 1-D tensor of every parameter's values, in order (differentiable)."""
    return _core.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Writes consecutive slices of the 1-D ``vec`` into the parameters' values."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer : pointer + n].reshape(tuple(param.shape)).data
        pointer += n


__all__ = ["parameters_to_vector", "vector_to_parameters"]
